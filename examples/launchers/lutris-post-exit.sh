#!/bin/sh
# Lutris "Post-exit script" (the game's Configure > System options): syncs the game's save
# after the game quits, which uploads what the session changed. If another device uploaded
# meanwhile too, that conflict is asked about (a dialog on a desktop) or left for later;
# it is never guessed, and nothing is lost either way. If the container is unreachable,
# the save stays as it is on this device and is uploaded at the next sync.
#
# Pair it with lutris-pre-launch.sh.

# The game's name in $XDG_CONFIG_HOME/savevault/config.json (set SAVEVAULT_GAME in the
# game's environment variables, or change the default here).
SAVEVAULT_GAME="${SAVEVAULT_GAME:-celeste}"
# The savevault program (a full path if it is not on Lutris's PATH).
SAVEVAULT_BIN="${SAVEVAULT_BIN:-savevault}"

"$SAVEVAULT_BIN" sync --game "$SAVEVAULT_GAME"
status=$?
case $status in
  0) ;;
  3) echo "savevault: warning: $SAVEVAULT_GAME's save changed here and on another device; nothing was changed (run 'savevault sync --game $SAVEVAULT_GAME' to choose)" >&2 ;;
  *) echo "savevault: warning: could not sync $SAVEVAULT_GAME after the game (exit $status); the save stays on this device until the next sync" >&2 ;;
esac
exit "$status"
