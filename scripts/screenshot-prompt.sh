#!/usr/bin/env bash
# Takes docs/terminal-prompt.png: the conflict question as a player sees it in a terminal.
# Two devices (pc, steamdeck) share a folder container; both change the save after agreeing;
# the deck's `savevault sync` then asks, in a real xterm under Xvfb, captured with ImageMagick.
# Needs: xvfb, xterm, imagemagick (apt). Usage: bash scripts/screenshot-prompt.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$(realpath "${1:-.build/debug/savevault}")"
work="$(mktemp -d)"
trap 'kill "${xvfb:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

device() { # device NAME ARGS...: run savevault as that device
  local name="$1"
  shift
  HOME="$work/$name" XDG_CONFIG_HOME="$work/$name/config" XDG_DATA_HOME="$work/$name/data" \
    XDG_STATE_HOME="$work/$name/state" SAVEVAULT_DEVICE="$name" SAVEVAULT_CONTAINER="$work/cloud" \
    "$binary" "$@"
}
mkdir -p "$work/cloud" "$work/pc/Celeste" "$work/steamdeck/Celeste"
# The deck's home is the folder holding its save, as on a real deck.
printf 'chapter=3\n' >"$work/pc/Celeste/slot1.sav"
device pc backup --save-dir "$work/pc/Celeste" >/dev/null
device steamdeck sync --save-dir "$work/steamdeck/Celeste" >/dev/null
printf 'chapter=4\n' >"$work/pc/Celeste/slot1.sav"
device pc backup --save-dir "$work/pc/Celeste" >/dev/null
sleep 0.1
printf 'chapter=3 strawberries=41\n' >"$work/steamdeck/Celeste/slot1.sav"

cat >"$work/ask.sh" <<SCRIPT
#!/usr/bin/env bash
cd "$work/steamdeck"
printf '\$ savevault sync --save-dir ~/Celeste\n'
HOME="$work/steamdeck" XDG_CONFIG_HOME="$work/steamdeck/config" XDG_DATA_HOME="$work/steamdeck/data" \
  XDG_STATE_HOME="$work/steamdeck/state" SAVEVAULT_DEVICE=steamdeck SAVEVAULT_CONTAINER="$work/cloud" \
  "$binary" sync --save-dir "$work/steamdeck/Celeste"
sleep 30
SCRIPT
chmod +x "$work/ask.sh"

display=":$((90 + RANDOM % 100))"
Xvfb "$display" -screen 0 820x260x24 >/dev/null 2>&1 &
xvfb=$!
sleep 1
DISPLAY="$display" xterm -geometry 100x15+0+0 -fa 'DejaVu Sans Mono' -fs 10 -bg '#1e1e1e' -fg '#e0e0e0' \
  -e "$work/ask.sh" &
sleep 3
DISPLAY="$display" import -window root -crop 820x260+0+0 docs/terminal-prompt.png
echo "wrote docs/terminal-prompt.png"
