#!/usr/bin/env bash
# Makes the minimal Debian root the release bundle is tested in (debootstrap
# --variant=minbase, this machine's Debian release), once: it is kept as a tar in
# $SAVEVAULT_MINROOT_CACHE (default /var/cache/savevault-test) and reused. Prints the tar's
# path. Needs root and debootstrap; reaches deb.debian.org the first time only.
set -euo pipefail
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
cache=${SAVEVAULT_MINROOT_CACHE:-/var/cache/savevault-test}
root_tar="$cache/$suite-minbase.tar"
if [ ! -f "$root_tar" ]; then
  echo "Making the minimal root ($suite, once; kept in $root_tar)" >&2
  mkdir -p "$cache"
  made=$(mktemp -d "$cache/made.XXXXXX")
  trap 'rm -rf "$made"' EXIT
  if ! debootstrap --variant=minbase "$suite" "$made/root" http://deb.debian.org/debian >"$made/log" 2>&1; then
    tail -n 20 "$made/log" >&2
    echo "error: debootstrap failed" >&2
    exit 1
  fi
  tar -C "$made/root" -cf "$root_tar.tmp" .
  mv "$root_tar.tmp" "$root_tar"
fi
echo "$root_tar"
