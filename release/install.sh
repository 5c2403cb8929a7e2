#!/bin/sh
# Installs savevault from an unpacked release folder into ~/.local (or PREFIX), without root
# rights, and uninstalls it again. POSIX sh: runs with dash and busybox sh.
#
# Layout (PREFIX defaults to ~/.local):
#   PREFIX/lib/savevault/VERSION/     bin/, lib/, licenses/, README.md, VERSION of the release
#   PREFIX/bin/savevault              relative symlink to ../lib/savevault/VERSION/bin/savevault
#   PREFIX/lib/savevault/install.sh   this script, for --uninstall once the download is gone
#   PREFIX/lib/savevault/installed    what was created outside lib/savevault: "dir PATH",
#                                     "link PATH" and "file FINGERPRINT PATH" lines
#   DATA/man/man1/savevault.1 and the bash, zsh and fish completions, where DATA is
#   ${XDG_DATA_HOME:-~/.local/share}, or PREFIX/share when PREFIX is given.
#
# Everything is first written under temporary names beside its final place (the same
# filesystem) and then renamed in, so an upgrade never leaves a half-written file, and a
# running savevault (a game under `savevault wrap`) keeps the program it started with.
set -eu
# Installed files are readable by everyone (a PREFIX=/usr/local install serves every user),
# whatever the caller's umask.
umask 022

me=install.sh

usage() {
  cat <<'EOF'
Usage: ./install.sh [--uninstall | --help]

Installs savevault from this release folder for the current user, no root rights needed:
  ~/.local/bin/savevault         a link to the program in ~/.local/lib/savevault/VERSION/,
                                 which also holds its own libraries (off the system's path)
  ~/.local/share/man/man1/savevault.1 and completions for bash, zsh and fish under
  ~/.local/share (or $XDG_DATA_HOME)
Running it again upgrades in place; a running savevault keeps running.

  PREFIX=DIR ./install.sh       install under DIR instead (e.g. PREFIX=/usr/local as root);
                                the manual page and completions go to DIR/share
  ./install.sh --uninstall      remove exactly what was installed (give the same PREFIX);
                                settings, backups and logs in ~/.config/savevault,
                                ~/.local/share/savevault, ~/.local/state/savevault and
                                ~/.cache/savevault stay
  ~/.local/lib/savevault/install.sh --uninstall   the same, once this folder is deleted

Steam runs launch options without ~/.local/bin on its PATH: use the full path the
installer prints, e.g. /home/deck/.local/bin/savevault wrap -- %command%
EOF
}

fail() {
  echo "$me: $*" >&2
  exit 1
}

mode=install
for argument in "$@"; do
  case $argument in
    --help | -h) usage; exit 0 ;;
    --uninstall) mode=uninstall ;;
    *)
      echo "$me: unknown option: $argument (see ./install.sh --help)" >&2
      exit 2
      ;;
  esac
done

# The folder this script is in (the release folder, or an installed lib/savevault).
here=$(cd -P -- "$(dirname -- "$0")" && pwd -P) || fail "cannot find the folder of $0"

# Where to install. A relative PREFIX is taken from the current folder; a relative
# XDG_DATA_HOME is ignored, as the XDG specification asks.
if [ -n "${PREFIX:-}" ]; then
  case $PREFIX in
    /*) prefix=$PREFIX ;;
    *) prefix=$(pwd -P)/$PREFIX ;;
  esac
  datadir=$prefix/share
else
  [ -n "${HOME:-}" ] || fail "HOME is not set: set it, or PREFIX=DIR to install elsewhere"
  # An installed copy run without PREFIX uninstalls the installation it belongs to.
  if [ "$mode" = uninstall ] && [ -f "$here/installed" ] && [ "${here##*/}" = savevault ]; then
    prefix=$(dirname -- "$(dirname -- "$here")")
  else
    prefix=$HOME/.local
  fi
  case ${XDG_DATA_HOME:-} in
    /*) datadir=$XDG_DATA_HOME ;;
    *) datadir=$HOME/.local/share ;;
  esac
fi
bindir=$prefix/bin
libdir=$prefix/lib/savevault
record=$libdir/installed

# A file's fingerprint, one word naming its method: "cksum-CRC-SIZE", or where cksum is
# missing (busybox often has none) "md5-HASH". With a method given (a recorded fingerprint),
# that one; fails when no method is there.
fingerprint() {
  method=${2:-}
  if [ -z "$method" ]; then
    if command -v cksum >/dev/null 2>&1; then method=cksum; else method=md5; fi
  fi
  case $method in
    cksum) sum=$(cksum <"$1") || return 1 ;;
    md5) sum=$(md5sum <"$1") || return 1 ;;
    *) return 1 ;;
  esac
  # shellcheck disable=SC2086 # split into its words: "CRC SIZE" or "HASH -"
  set -- $sum
  [ -n "${1:-}" ] || return 1
  case $method in
    cksum) printf 'cksum-%s-%s\n' "$1" "$2" ;;
    *) printf '%s-%s\n' "$method" "$1" ;;
  esac
}

# The target of a symlink (POSIX has no readlink utility; ls -l shows "NAME -> TARGET").
link_target() {
  listing=$(ls -ld -- "$1") || return 1
  printf '%s\n' "${listing#* -> }"
}

# One install.sh at a time per PREFIX: a folder made atomically by mkdir, holding the owner's
# process id; one whose owner is gone (killed) is taken over.
lock=$libdir/.lock
take_lock() {
  tries=0
  until mkdir -- "$lock" 2>/dev/null; do
    owner=$(cat -- "$lock/pid" 2>/dev/null || true)
    if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then
      fail "another install.sh (process $owner) is installing or uninstalling savevault in $prefix: wait for it to finish, then run this again"
    fi
    tries=$((tries + 1))
    [ "$tries" -le 3 ] || fail "cannot take the lock $lock"
    # No owner, or a dead one: a killed run's lock (or one just being made: wait a moment).
    sleep 1
    owner_now=$(cat -- "$lock/pid" 2>/dev/null || true)
    [ "$owner_now" != "$owner" ] || rm -rf -- "$lock"
  done
  echo $$ >"$lock/pid"
  locked=yes
}
locked=no
release_lock() {
  if [ "$locked" = yes ]; then rm -rf -- "$lock"; fi
}

uninstall() {
  [ -f "$record" ] || fail "savevault is not installed in $prefix (no $record; give the PREFIX it was installed with)"
  [ -w "$libdir" ] && [ -w "$bindir" ] ||
    fail "cannot change $libdir or $bindir: uninstall as the user who installed it (as root for a system-wide install)"
  trap release_lock EXIT
  take_lock
  directories=
  while IFS= read -r line; do
    kind=${line%% *}
    path=${line#* }
    case $kind in
      dir)
        directories="$path
$directories"
        ;;
      link)
        if [ -L "$path" ]; then
          case $(link_target "$path") in
            *lib/savevault/*) rm -f -- "$path" && echo "Removed $path" ;;
            *) echo "Left $path: it now points elsewhere" ;;
          esac
        elif [ -e "$path" ]; then
          echo "Left $path: replaced since it was installed"
        fi
        ;;
      file)
        recorded=${path%% *}
        path=${path#* }
        if [ -f "$path" ] && [ ! -L "$path" ] &&
          [ "$(fingerprint "$path" "${recorded%%-*}" 2>/dev/null)" = "$recorded" ]; then
          rm -f -- "$path" && echo "Removed $path"
        elif [ -e "$path" ] || [ -L "$path" ]; then
          echo "Left $path: changed since it was installed"
        fi
        ;;
    esac
  done <"$record"
  # A running `install.sh --uninstall` from here keeps reading its open (deleted) file.
  rm -rf -- "$libdir" || fail "cannot remove $libdir"
  echo "Removed $libdir"
  # Deepest first (a parent sorts before its children), and only the folders now empty.
  printf '%s' "$directories" | LC_ALL=C sort -r | while IFS= read -r directory; do
    if [ -n "$directory" ] && [ -d "$directory" ] && [ ! -L "$directory" ]; then
      rmdir -- "$directory" 2>/dev/null || true
    fi
  done
  locked=no
  echo "savevault is uninstalled; settings and backups in ~/.config/savevault, ~/.local/share/savevault, ~/.local/state/savevault and ~/.cache/savevault are kept."
  echo "Games whose launch options run $bindir/savevault will not start until you take 'savevault wrap --' out of them."
}

if [ "$mode" = uninstall ]; then
  uninstall
  exit 0
fi

# --- install ---

[ -f "$here/bin/savevault" ] && [ -x "$here/bin/savevault" ] ||
  fail "run me from an unpacked savevault release folder: no bin/savevault beside $here/install.sh"
[ -f "$here/VERSION" ] || fail "no VERSION file in $here: not a complete release folder"
IFS= read -r version <"$here/VERSION" || [ -n "${version:-}" ] || fail "$here/VERSION is empty"
case $version in
  '' | .* | */* | install.sh | installed | *[!A-Za-z0-9._+-]*) fail "unusable version in $here/VERSION: '$version'" ;;
esac

# The manual page and completions: where they are in the release folder, and where they go.
man_source=$here/share/man/man1/savevault.1
bash_source=$here/share/bash-completion/completions/savevault
zsh_source=$here/share/zsh/site-functions/_savevault
fish_source=$here/share/fish/vendor_completions.d/savevault.fish
man_file=$datadir/man/man1/savevault.1
bash_file=$datadir/bash-completion/completions/savevault
zsh_file=$datadir/zsh/site-functions/_savevault
fish_file=$datadir/fish/vendor_completions.d/savevault.fish
for source in "$man_source" "$bash_source" "$zsh_source" "$fish_source"; do
  [ -f "$source" ] || fail "missing $source: not a complete release folder"
done
# rename(2) onto a folder (or a link to one) would move the new file into it instead.
for destination in "$bindir/savevault" "$man_file" "$bash_file" "$zsh_file" "$fish_file"; do
  [ ! -d "$destination" ] || fail "$destination is a folder; move it away first"
done

# Temporary names, all beside their final places; removed on any failure.
tag=.new-$$
version_dir=$libdir/$version
temporary_version=$libdir/$tag-$version
aside=$libdir/.old-$$-$version
temporaries="$temporary_version
$libdir/$tag-install.sh
$libdir/$tag-installed
$libdir/$tag-paths
$bindir/$tag-savevault
$man_file$tag
$bash_file$tag
$zsh_file$tag
$fish_file$tag"
created=
committed=no

cleanup() {
  status=$?
  printf '%s\n' "$temporaries" | while IFS= read -r temporary; do
    rm -rf -- "$temporary"
  done
  # A same-version reinstall that failed between moving the old one aside and renaming
  # the new one in gets the old one back.
  if [ -d "$aside" ] && [ ! -e "$version_dir" ]; then mv -- "$aside" "$version_dir"; fi
  release_lock
  if [ "$committed" = no ]; then
    printf '%s' "$created" | LC_ALL=C sort -r | while IFS= read -r directory; do
      [ -z "$directory" ] || rmdir -- "$directory" 2>/dev/null || true
    done
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Creates a folder and its missing parents, remembering each one created.
make_directory() {
  [ ! -d "$1" ] || return 0
  if [ -e "$1" ] || [ -L "$1" ]; then fail "$1 is in the way: it is not a folder"; fi
  make_directory "$(dirname -- "$1")"
  mkdir -- "$1" 2>/dev/null || fail "cannot create $1: $(dirname -- "$1") is not writable (PREFIX=DIR installs elsewhere)"
  created="$created$1
"
}

for directory in "$libdir" "$bindir" "${man_file%/*}" "${bash_file%/*}" "${zsh_file%/*}" "${fish_file%/*}"; do
  make_directory "$directory"
done
take_lock
# What a killed run left beside the final names (with the lock held, no run is using them).
for leftover in "$bindir"/.new-*-savevault "$man_file".new-* "$bash_file".new-* "$zsh_file".new-* "$fish_file".new-*; do
  if [ -e "$leftover" ] || [ -L "$leftover" ]; then rm -f -- "$leftover"; fi
done

# The program and its libraries, licenses and README: a copy, then one rename.
mkdir -- "$temporary_version" 2>/dev/null || fail "cannot write in $libdir"
for part in bin lib licenses README.md LIBRARIES.txt VERSION docs examples; do
  if [ -e "$here/$part" ]; then
    cp -RP -- "$here/$part" "$temporary_version/" || fail "cannot copy $part into $libdir"
  fi
done
# A release for another machine fails here, before anything is switched.
if ! problem=$("$temporary_version/bin/savevault" --version 2>&1); then
  fail "the savevault in this release folder does not run on this system ($(uname -m)): $(printf '%s\n' "$problem" | head -n 1)
It needs x86_64 Linux with glibc 2.35 or newer ('ldd --version' says which this system has)."
fi
cp -- "$here/install.sh" "$libdir/$tag-install.sh" || fail "cannot copy install.sh into $libdir"
chmod 755 "$libdir/$tag-install.sh"

# The link is relative, so the whole PREFIX can move; when PREFIX/bin is itself a link to
# another place, its .. is elsewhere and the link is absolute instead.
if [ "$(cd -P -- "$bindir/.." && pwd -P)" = "$(cd -P -- "$prefix" && pwd -P)" ]; then
  target=../lib/savevault/$version/bin/savevault
else
  target=$(cd -P -- "$prefix" && pwd -P)/lib/savevault/$version/bin/savevault
fi
ln -s -- "$target" "$bindir/$tag-savevault" 2>/dev/null || fail "cannot write in $bindir"

for pair in "$man_source|$man_file" "$bash_source|$bash_file" "$zsh_source|$zsh_file" "$fish_source|$fish_file"; do
  source=${pair%%|*}
  destination=${pair#*|}
  cp -- "$source" "$destination$tag" 2>/dev/null || fail "cannot write in ${destination%/*}"
  chmod 644 "$destination$tag"
done

# The record: what this run installs, the folders it created, and what an earlier install
# recorded that this one does not replace (folders it created; files installed elsewhere
# when XDG_DATA_HOME differed).
new_record=$libdir/$tag-installed
paths=$libdir/$tag-paths
{
  printf '%s' "$created" | while IFS= read -r directory; do
    [ -z "$directory" ] || printf 'dir %s\n' "$directory"
  done
  printf 'link %s\n' "$bindir/savevault"
  for pair in "$man_source|$man_file" "$bash_source|$bash_file" "$zsh_source|$zsh_file" "$fish_source|$fish_file"; do
    recorded=$(fingerprint "${pair%%|*}") || fail "cannot compute a checksum (no cksum or md5sum)"
    printf 'file %s %s\n' "$recorded" "${pair#*|}"
  done
} >"$new_record" || fail "cannot write in $libdir"
if [ -f "$record" ]; then
  while IFS= read -r line; do
    path=${line#* }
    case $line in file\ *) path=${path#* } ;; esac
    printf '%s\n' "$path"
  done <"$new_record" >"$paths"
  while IFS= read -r line; do
    path=${line#* }
    case $line in file\ *) path=${path#* } ;; esac
    grep -Fxq -e "$path" "$paths" || printf '%s\n' "$line"
  done <"$record" >>"$new_record"
fi

# --- switch: renames only from here, not to be cut short by a signal ---
trap '' INT TERM HUP

replaced_file=no
if [ -f "$bindir/savevault" ] && [ ! -L "$bindir/savevault" ]; then replaced_file=yes; fi
if [ -e "$version_dir" ] || [ -L "$version_dir" ]; then
  mv -- "$version_dir" "$aside" || fail "cannot move the installed $version aside"
fi
mv -- "$temporary_version" "$version_dir" || fail "cannot rename $temporary_version to $version_dir"
mv -f -- "$bindir/$tag-savevault" "$bindir/savevault" || fail "cannot replace $bindir/savevault"
for destination in "$man_file" "$bash_file" "$zsh_file" "$fish_file"; do
  mv -f -- "$destination$tag" "$destination" || fail "cannot replace $destination"
done
mv -f -- "$libdir/$tag-install.sh" "$libdir/install.sh" || fail "cannot replace $libdir/install.sh"
mv -f -- "$new_record" "$record" || fail "cannot replace $record"
committed=yes
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

echo "Installed savevault $version in $version_dir"
if [ "$replaced_file" = yes ]; then
  echo "Replaced the file $bindir/savevault (an earlier install) with a link"
fi
echo "Linked $bindir/savevault -> $target"
echo "Manual page: $man_file"
echo "Completions: $bash_file, $zsh_file, $fish_file"

# Every other version, and what an interrupted run left. A running savevault started from one
# of them keeps its program and libraries mapped after they are deleted, and the release
# loads no library later (no dlopen), so this cannot break it.
for entry in "$libdir"/* "$libdir"/.[!.]* "$libdir"/..?*; do
  [ -e "$entry" ] || [ -L "$entry" ] || continue
  case ${entry##*/} in
    "$version" | install.sh | installed | .lock) continue ;;
  esac
  case ${entry##*/} in
    .*) ;;
    *) echo "Removed the previous version ${entry##*/}" ;;
  esac
  rm -rf -- "$entry" || echo "$me: could not remove $entry" >&2
done
# Paths with spaces are shown quoted, ready to paste.
quoted() {
  case $1 in
    *[[:space:]]*) printf '"%s"\n' "$1" ;;
    *) printf '%s\n' "$1" ;;
  esac
}
echo "Uninstall with: $(quoted "$libdir/install.sh") --uninstall"

echo
launcher=$(quoted "$bindir/savevault")
echo "Steam launch options: $launcher wrap -- %command%"
case ":${PATH:-}:" in
  *":$bindir:"*) ;;
  *) echo "$bindir is not on PATH: add it (e.g. export PATH=\"$bindir:\$PATH\" in ~/.profile) to run savevault by name" ;;
esac
echo "zsh users: put ${zsh_file%/*} on fpath (in ~/.zshrc, before compinit) for the completions"
