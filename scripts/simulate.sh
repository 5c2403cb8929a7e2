#!/usr/bin/env bash
# Runs the multi-device simulation (Tests/SaveVaultTests/Simulation/SimulationTests.swift).
#   scripts/simulate.sh SEED              reruns one scenario and prints every step
#   scripts/simulate.sh SEED SCENARIOS    runs SCENARIOS scenarios from SEED (seed + i each)
#   scripts/simulate.sh                   the test suite's run: 1000 scenarios from its seed
# SAVEVAULT_SIM_STEPS (default 32), SAVEVAULT_SIM_LOCATIONS (percent of scenarios whose game
# keeps its save in two locations, default 25), SAVEVAULT_SIM_LACKING and SAVEVAULT_SIM_ADOPTING
# (percent of those with a device lacking a location, or adopting the game, default 40 each),
# SAVEVAULT_SIM_FILES (percent of those whose game also keeps files of its install folder,
# default 25)
# and SAVEVAULT_SIM_WORKERS are passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  export SAVEVAULT_SIM_SEED="$1"
  export SAVEVAULT_SIM_SCENARIOS="${2:-1}"
  if [ "$SAVEVAULT_SIM_SCENARIOS" = 1 ]; then export SAVEVAULT_SIM_VERBOSE=1; fi
fi
swift build --build-tests
swift test --skip-build --filter SimulationTests
