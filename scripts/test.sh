#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Exits non-zero if any test fails.
#   scripts/test.sh                  everything (what CI runs)
#   scripts/test.sh --quick [FILTER] the edit loop: builds the tests and runs the small suites
#                                    (in-process, tagged .small), then the tests FILTER names
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--quick" ]; then
  # Only what building needs, installed only when missing; no lint, fuzzing, bench, release
  # bundle or simulation.
  bash scripts/install-deps.sh
  swift build --build-tests
  # The suites tagged .small (Harness/Tags.swift), by name: `swift test` filters by name only.
  small=$(grep -rh -A2 '\.tags(\.small)' Tests/SaveVaultTests | sed -nE 's/^(struct|final class|enum) ([A-Za-z0-9_]+).*/\2/p' |
    sort -u | paste -sd '|')
  swift test --skip-build --filter "SaveVaultTests\.($small)/"
  if [ -n "${2:-}" ]; then swift test --skip-build --filter "$2"; fi
  exit 0
fi
bash scripts/install-deps.sh --test
# The minimal Debian root the release bundle is tested in: made once (a few minutes of
# downloading, then cached), in the background while the rest builds.
bash release/minroot.sh >/dev/null &
minroot=$!
# The release bundle, built meanwhile in a folder of its own (its build is mostly one
# compiler process, so it shares the two cores with the steps below rather than waiting);
# done before the tests start, so that no test runs beside it.
mkdir -p .build
make dist >.build/dist.log 2>&1 &
dist=$!
swift format lint --strict --recursive Sources Tests Package.swift
# A short pass of each fuzz target (the full ten-minute runs: bash fuzz/run.sh TARGET 600).
bash fuzz/build.sh
bash fuzz/run.sh archive 10 2>&1 | tail -n 3
bash fuzz/run.sh names 10 2>&1 | tail -n 3
bash fuzz/run.sh manifest 10 2>&1 | tail -n 3
bash fuzz/run.sh keyvalues 10 2>&1 | tail -n 3
bash fuzz/run.sh binarykeyvalues 10 2>&1 | tail -n 3
bash fuzz/run.sh yaml 10 2>&1 | tail -n 3
bash fuzz/run.sh xml 10 2>&1 | tail -n 3
bash fuzz/run.sh wineregistry 10 2>&1 | tail -n 3
swift build --build-tests
# A seconds-long pass of the bench script on tiny data (checks that it runs; timings mean nothing here).
python3 bench/compare.py --smoke --bin "$(swift build --show-bin-path)/savevault" | tail -n 3
wait "$dist" || {
  tail -n 40 .build/dist.log
  echo "make dist failed" >&2
  exit 1
}
tail -n 3 .build/dist.log
swift test --skip-build --skip SimulationTests
# The three-device simulation (1,000 seeded scenarios) in a process of its own, so that its
# running time does not depend on the other suites sharing two cores with it.
swift test --skip-build --filter SimulationTests
# The release bundle installed and run in a minimal Debian root.
wait "$minroot"
bash release/test-bundle.sh
