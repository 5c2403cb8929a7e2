#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Exits non-zero if any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
swift format lint --strict --recursive Sources Tests Package.swift
swift build --build-tests
swift test
