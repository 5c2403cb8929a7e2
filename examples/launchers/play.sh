#!/bin/sh
# A plain wrapper for any launcher, desktop file or terminal:
#
#   play.sh GAME COMMAND [ARG...]      e.g.  play.sh celeste ~/Games/Celeste/Celeste
#
# Syncs GAME's save (a game named in $XDG_CONFIG_HOME/savevault/config.json), runs
# COMMAND with its arguments unchanged, backs up and uploads what the session changed, and
# exits with the game's own exit code. It never blocks the game.

# The savevault program (a full path if it is not on PATH).
SAVEVAULT_BIN="${SAVEVAULT_BIN:-savevault}"
# Extra options for savevault wrap, e.g. SAVEVAULT_OPTIONS="--on-conflict newer".
SAVEVAULT_OPTIONS="${SAVEVAULT_OPTIONS:-}"

if [ "$#" -lt 2 ]; then
  echo "usage: ${0##*/} GAME COMMAND [ARG...]" >&2
  exit 2
fi
game=$1
shift
# SAVEVAULT_OPTIONS is split into words on purpose.
# shellcheck disable=SC2086
exec "$SAVEVAULT_BIN" wrap --game "$game" $SAVEVAULT_OPTIONS -- "$@"
