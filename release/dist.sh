#!/usr/bin/env bash
# Builds the release bundle dist/savevault-<version>-linux-<arch>.tar.gz (`make dist`): one
# folder holding bin/savevault (Swift linked in, symbols stripped, RUNPATH $ORIGIN/../lib),
# lib/ with every shared library it needs beyond what every Linux has (glibc, libgcc_s,
# libstdc++, zlib) and libcurl (which it loads when a command first speaks HTTP) with what
# libcurl needs, each finding its neighbours through RUNPATH $ORIGIN, the manual page,
# the bash, zsh and fish completions, install.sh, the README, and the license texts and
# sizes of what it carries (LIBRARIES.txt). Needs the build's own tools: the Swift
# toolchain, binutils (strip, objdump), patchelf, dpkg (to name each library's package),
# pkg-config and libcurl4-openssl-dev (the libcurl to carry).
# The version: `git describe` of a tag v<version>, else the VERSION file.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//') || true
[ -n "$version" ] || version=$(cat VERSION)
commit=unknown
if git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  commit=$(git rev-parse --short=12 HEAD)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
fi
arch=$(uname -m)
name="savevault-$version-linux-$arch"
scratch=.build/dist
stage="$scratch/stage/$name"

# Linked to glibc, libgcc_s, libstdc++ and zlib of the system it runs on (every Linux has
# them, and glibc's must match its ld.so); everything else comes in the bundle.
is_base() {
  case "$1" in
  linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
    librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libgcc_s.so.* | libstdc++.so.* | libz.so.*)
    return 0
    ;;
  esac
  return 1
}

for tool in strip objdump patchelf dpkg pkg-config; do
  command -v "$tool" >/dev/null || {
    echo "error: $tool is needed (apt-get install binutils patchelf)" >&2
    exit 1
  }
done

echo "Building savevault $version ($commit) for linux-$arch" >&2
# No $ORIGIN of SwiftPM's own; the one search path is the bundle's lib/. The version and
# commit reach the binary through its C part (Sources/CPlatform/BuildInfo.c).
swift build -c release --static-swift-stdlib --product savevault --scratch-path "$scratch" \
  --disable-local-rpath -Xlinker -rpath -Xlinker '$ORIGIN/../lib' \
  -Xcc "-DSAVEVAULT_VERSION=\"$version\"" -Xcc "-DSAVEVAULT_COMMIT=\"$commit\"" >&2
built="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/savevault"

rm -rf "$scratch/stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/licenses" "$stage/share/man/man1" \
  "$stage/share/bash-completion/completions" "$stage/share/zsh/site-functions" \
  "$stage/share/fish/vendor_completions.d"
install -m 755 "$built" "$stage/bin/savevault"
strip --strip-all "$stage/bin/savevault"

# Which Debian package holds a library (usr-merged systems list it under /lib or /usr/lib).
package_of() {
  local path
  for path in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 && return 0
  done
  return 1
}

# libcurl is loaded with dlopen when a command first speaks HTTP, so ldd of the program does
# not list it: it comes along by name, with what it links, from the libcurl the build has.
curl_dir=$(pkg-config --variable=libdir libcurl 2>/dev/null) || true
curl="$curl_dir/libcurl.so.4"
[ -n "$curl_dir" ] && [ -e "$curl" ] || {
  echo "error: no libcurl.so.4 to bundle (apt-get install libcurl4-openssl-dev)" >&2
  exit 1
}

libraries="$scratch/stage/LIBRARIES.rows"
: >"$libraries"
# ldd lists the whole tree, indirect needs included; a library both need is listed once.
{
  ldd "$built"
  echo "libcurl.so.4 => $curl (loaded when needed)"
  ldd "$curl"
} | awk '$2 == "=>" && $3 ~ /^\// && !seen[$1]++ { print $1, $3 }' | while read -r soname path; do
  is_base "$soname" && continue
  install -m 644 "$(readlink -f "$path")" "$stage/lib/$soname"
  strip --strip-unneeded "$stage/lib/$soname"
  patchelf --set-rpath '$ORIGIN' "$stage/lib/$soname"
  package=$(package_of "$path") || {
    echo "error: no Debian package owns $path: its license text cannot be found" >&2
    exit 1
  }
  package=${package%%:*}
  cp "/usr/share/doc/$package/copyright" "$stage/licenses/$package.txt"
  echo "$soname $package $(dpkg-query -W -f '${Version}' "$package") $(stat -c %s "$stage/lib/$soname")" \
    >>"$libraries"
done
# Linked into the program itself from their static libraries (Package.swift): their
# licenses come along too.
static_packages="libarchive13 libzstd1 zlib1g libbz2-1.0 liblzma5 libssl3 libyaml-0-2 libsqlite3-0"
for package in $static_packages; do
  cp "/usr/share/doc/$package/copyright" "$stage/licenses/$package.txt"
done
swift_license="$(dirname "$(readlink -f "$(command -v swift)")")/../share/swift/LICENSE.txt"
cp "$swift_license" "$stage/licenses/swift.txt"

"$stage/bin/savevault" manpage >"$stage/share/man/man1/savevault.1"
"$stage/bin/savevault" completions bash >"$stage/share/bash-completion/completions/savevault"
"$stage/bin/savevault" completions zsh >"$stage/share/zsh/site-functions/_savevault"
"$stage/bin/savevault" completions fish >"$stage/share/fish/vendor_completions.d/savevault.fish"
install -m 755 release/install.sh "$stage/install.sh"
cp README.md "$stage/README.md"
# The README's links lead into docs/ and examples/: they come along.
mkdir -p "$stage/docs"
cp docs/*.md docs/*.png "$stage/docs/"
cp -R examples "$stage/examples"
echo "$version" >"$stage/VERSION"

# The bundle must not reach into the build machine: one search path, the bundle's own, and
# every library it needs found inside it.
runpath=$(patchelf --print-rpath "$stage/bin/savevault")
if [ "$runpath" != '$ORIGIN/../lib' ]; then
  echo "error: bin/savevault searches '$runpath', not \$ORIGIN/../lib" >&2
  exit 1
fi
# The bundled libcurl is what the program loads (from its own search path), and it finds what
# it links beside it.
inside="$(cd "$stage" && pwd -P)/lib/"
[ -e "$stage/lib/libcurl.so.4" ] || {
  echo "error: the bundle carries no libcurl.so.4" >&2
  exit 1
}
stray=$(for object in "$stage/bin/savevault" "$stage"/lib/*; do ldd "$object"; done |
  awk '$2 == "=>" { print $1, $3 }' | sort -u | while read -r soname path; do
    is_base "$soname" || case "$(readlink -f "$path")" in "$inside"*) ;; *) echo "$soname $path" ;; esac
  done)
if [ -n "$stray" ]; then
  echo "error: libraries found outside the bundle: $stray" >&2
  exit 1
fi

# The oldest glibc the bundle runs on: the highest GLIBC_ symbol version any part needs.
glibc=$(objdump -T "$stage/bin/savevault" "$stage"/lib/* 2>/dev/null |
  grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V -u | tail -n 1)
libstdcxx=$(objdump -T "$stage/bin/savevault" "$stage"/lib/* 2>/dev/null |
  grep -o 'GLIBCXX_[0-9][0-9.]*' | sort -V -u | tail -n 1)
# The floor the README promises (Ubuntu 22.04, SteamOS, Fedora 36 and later).
if [ "$(printf '%s\n' "$glibc" 2.35 | sort -V | tail -n 1)" != 2.35 ]; then
  echo "error: the bundle needs glibc $glibc, newer than 2.35:" >&2
  objdump -T "$stage/bin/savevault" "$stage"/lib/* | grep -E "GLIBC_2\.(3[6-9]|[4-9][0-9])" >&2
  exit 1
fi
{
  echo "savevault $version (commit $commit), linux-$arch"
  echo "Needs glibc $glibc or newer, libstdc++ with $libstdcxx, libgcc_s and zlib (every desktop"
  echo "Linux has them)."
  echo "Everything else it needs is in lib/ (license texts in licenses/):"
  echo
  printf '%-24s %-22s %-28s %10s\n' FILE PACKAGE VERSION BYTES
  printf '%-24s %-22s %-28s %10s\n' bin/savevault "SaveVault, Swift" "$version" \
    "$(stat -c %s "$stage/bin/savevault")"
  sort -k4,4n "$libraries" | while read -r soname package package_version bytes; do
    printf '%-24s %-22s %-28s %10s\n' "lib/$soname" "$package" "$package_version" "$bytes"
  done
  echo
  echo "Linked into bin/savevault (only the parts it calls):"
  for package in $static_packages; do
    printf '%-24s %-22s %-28s\n' "" "$package" "$(dpkg-query -W -f '${Version}' "$package")"
  done
} >"$stage/LIBRARIES.txt"

mkdir -p dist
archive="dist/$name.tar.gz"
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$scratch/stage" -cf - "$name" |
  gzip -9n >"$archive.tmp"
mv "$archive.tmp" "$archive"
cat "$stage/LIBRARIES.txt" >&2
echo >&2
echo "unpacked: $(du -sb "$stage" | cut -f1) bytes; $archive: $(stat -c %s "$archive") bytes" >&2
echo "$archive"
