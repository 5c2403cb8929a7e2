#!/usr/bin/env bash
# Installs what is missing, builds savevault, and backs up the demo save in examples/ into
# the embedded default container ($XDG_DATA_HOME/savevault/container), then shows status and
# the archive list.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product savevault >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/savevault"
set -x
"$bin" backup --save-dir examples/demo-save --game demo
"$bin" status --save-dir examples/demo-save --game demo
"$bin" list --save-dir examples/demo-save --game demo
