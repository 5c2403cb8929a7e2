#!/bin/sh
# Lutris "Pre-launch script" (the game's Configure > System options): syncs the game's save
# before the game starts. Tick "Wait for pre-launch script completion" so that a save
# restored from another device is in place before the game reads it.
#
# It never blocks the game: whatever happens (container unreachable, a conflict nobody
# answered, another savevault busy), it warns on stderr and exits 0. With a desktop, a
# conflict is asked in a dialog; with nobody to ask it is left as it is (nothing changes,
# nothing is guessed) until you run 'savevault sync' yourself.
#
# Pair it with lutris-post-exit.sh.

# The game's name in $XDG_CONFIG_HOME/savevault/config.json (set SAVEVAULT_GAME in the
# game's environment variables, or change the default here).
SAVEVAULT_GAME="${SAVEVAULT_GAME:-celeste}"
# The savevault program (a full path if it is not on Lutris's PATH).
SAVEVAULT_BIN="${SAVEVAULT_BIN:-savevault}"

"$SAVEVAULT_BIN" sync --game "$SAVEVAULT_GAME"
status=$?
case $status in
  0) ;;
  3) echo "savevault: warning: $SAVEVAULT_GAME's save has a conflict nobody resolved; starting the game on the local save (run 'savevault sync --game $SAVEVAULT_GAME' to choose)" >&2 ;;
  *) echo "savevault: warning: could not sync $SAVEVAULT_GAME before the game (exit $status); starting it anyway" >&2 ;;
esac
exit 0
