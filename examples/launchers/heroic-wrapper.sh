#!/bin/sh
# Heroic Games Launcher "Wrapper command" (the game's Settings > Advanced > Wrapper
# command; the path of this script, with no arguments). Heroic runs this script with the
# game's whole command line as its arguments; savevault syncs the save, runs the game
# unchanged (same arguments, input, output and environment), backs up and uploads what the
# session changed, and exits with the game's own exit code. It never blocks the game.

# The game's name in $XDG_CONFIG_HOME/savevault/config.json (set SAVEVAULT_GAME in the
# game's environment variables in Heroic, or change the default here).
SAVEVAULT_GAME="${SAVEVAULT_GAME:-celeste}"
# The savevault program (a full path if it is not on Heroic's PATH).
SAVEVAULT_BIN="${SAVEVAULT_BIN:-savevault}"

exec "$SAVEVAULT_BIN" wrap --game "$SAVEVAULT_GAME" -- "$@"
