#!/usr/bin/env bash
# Runs a release bundle where nothing of the build machine is: a minimal Debian root
# (debootstrap --variant=minbase: no libarchive, libcurl, OpenSSL, libxml2, ICU or Swift),
# entered with chroot as an ordinary user. There: install.sh into a home folder,
# --version, ldd, a backup/status/restore round trip on a folder container (libcurl never
# loaded), on
# `rclone serve s3` (running outside the root, on loopback) over HTTP, and over HTTPS with
# the CA certificate where Fedora keeps its bundle and then named by SSL_CERT_FILE, doctor's
# report of the bundle, S3 without libcurl (exit 4, what to install), and install.sh
# --uninstall leaving nothing behind.
#
#   bash release/test-bundle.sh [dist/savevault-VERSION-linux-ARCH.tar.gz]
#
# Needs root (chroot, mount), debootstrap, rclone and openssl. The root is made once by
# release/minroot.sh and kept as a tar; each run unpacks a fresh copy. Exits non-zero at the
# first check that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bundle=${1:-$(ls -t dist/savevault-*-linux-"$(uname -m)".tar.gz 2>/dev/null | head -n 1)}
[ -f "$bundle" ] || {
  echo "error: no bundle (run 'make dist' first, or name one)" >&2
  exit 2
}
[ "$(id -u)" -eq 0 ] || {
  echo "error: needs root (chroot and mount)" >&2
  exit 2
}

checks=0
ok() {
  checks=$((checks + 1))
  echo "ok $checks - $*"
}
fail() {
  echo "not ok - $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/savevault-bundle-test.XXXXXX)
root="$work/root"
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

root_tar=$(bash release/minroot.sh)
mkdir "$root"
tar -C "$root" -xf "$root_tar"
mount -t proc proc "$root/proc"

# The root has none of what the bundle carries.
for library in libarchive.so.13 libcurl.so.4 libcrypto.so.3 libssl.so.3 libxml2.so.2 libyaml-0.so.2; do
  if [ -n "$(find "$root/usr" "$root/lib"* -name "$library*" -print -quit 2>/dev/null)" ]; then
    fail "the minimal root already has $library"
  fi
done
[ -z "$(find "$root" -xdev -name 'libswiftCore.so' -print -quit)" ] || fail "the minimal root has Swift"
[ -z "$(find "$root" -xdev -name 'libicuuc.so*' -print -quit)" ] || fail "the minimal root has ICU"
[ ! -e "$root/etc/ssl/certs/ca-certificates.crt" ] || fail "the minimal root has a CA bundle"
ok "the minimal root has no libarchive, libcurl, OpenSSL, libxml2, libyaml, ICU, Swift or CA bundle"

chroot "$root" useradd --create-home --uid 4242 player
home="$root/home/player"
cp "$bundle" "$root/tmp/bundle.tar.gz"
# A command as the player, with a bare environment (as a launcher gives one).
as_player() {
  chroot --userspec=4242:4242 "$root" /usr/bin/env -i HOME=/home/player USER=player LANG=C.UTF-8 \
    PATH=/home/player/.local/bin:/usr/bin:/bin "$@"
}
before=$(cd "$home" && find . | sort)

# Install.
as_player sh -c 'cd /tmp && tar -xzf bundle.tar.gz && cd savevault-*/ && sh ./install.sh' >"$work/install.out" 2>&1 ||
  {
    cat "$work/install.out" >&2
    fail "install.sh"
  }
[ -L "$home/.local/bin/savevault" ] || fail "install.sh left no ~/.local/bin/savevault"
grep -q '/home/player/.local/bin/savevault wrap -- %command%' "$work/install.out" ||
  fail "install.sh did not print the launch option with the full path: $(cat "$work/install.out")"
ok "install.sh installs into ~/.local without root"

version_file=$(cat "$root"/tmp/savevault-*/VERSION)
version=$(as_player savevault --version) || fail "--version: $version"
case "$version" in
"savevault $version_file (commit "*", libarchive 3."*")") ;;
*) fail "--version printed '$version'" ;;
esac
ok "--version: $version"

# Every library the binary and the bundled libraries need is found: glibc's own in the root,
# everything else in the installed bundle.
binary=$(as_player sh -c 'echo ~/.local/lib/savevault/*/bin/savevault')
for object in "$binary" $(as_player sh -c 'echo ~/.local/lib/savevault/*/lib/*'); do
  listing=$(as_player ldd "$object") || fail "ldd $object: $listing"
  if echo "$listing" | grep -q 'not found'; then fail "ldd $object: $(echo "$listing" | grep 'not found')"; fi
  outside=$(echo "$listing" | awk '$2 == "=>" { print $1, $3 }' |
    grep -v -E '^(libc|libm|libpthread|libdl|librt|libresolv|libgcc_s|libstdc\+\+|libz)\.so' |
    grep -v ' /home/player/.local/lib/savevault/' || true)
  [ -z "$outside" ] || fail "ldd $object: found outside the bundle: $outside"
done
ok "ldd resolves every library, from the bundle or the root's glibc"

# A round trip: back up, change the save, restore the backup; the save is as it was and the
# replaced one is kept.
round_trip() {
  local game=$1 container=$2
  shift 2
  local save="/home/player/saves/$game"
  as_player sh -c "mkdir -p '$save/slot' && printf 'chapter 1' > '$save/slot/progress.sav'"
  as_player "$@" savevault backup --save-dir "$save" --container "$container" >"$work/out" 2>&1 ||
    fail "$game: backup: $(cat "$work/out")"
  as_player "$@" savevault status --save-dir "$save" --container "$container" --json >"$work/out" 2>&1 ||
    fail "$game: status: $(cat "$work/out")"
  grep -q '"state" *: *"in-sync"' "$work/out" || fail "$game: status after the backup: $(cat "$work/out")"
  as_player sh -c "printf 'chapter 2, not backed up' > '$save/slot/progress.sav'"
  as_player "$@" savevault restore --latest --save-dir "$save" --container "$container" >"$work/out" 2>&1 ||
    fail "$game: restore: $(cat "$work/out")"
  [ "$(cat "$root$save/slot/progress.sav")" = "chapter 1" ] || fail "$game: the restored save differs"
  grep -rq 'chapter 2, not backed up' "$home/.local/share/savevault/pre-restore/$game" ||
    fail "$game: the replaced save was not kept"
}
as_player mkdir /home/player/cloud
round_trip folder-game /home/player/cloud
[ -n "$(find "$home/cloud/folder-game" -name 'packsave-*.tar')" ] || fail "no archive in the folder container"
ok "backup, status and restore on a folder container"
# The loader names every library it maps (LD_DEBUG=files): libcurl only for the network, and
# never libxml2 or ICU (libarchive is linked in without them).
as_player env LD_DEBUG=files savevault status --save-dir /home/player/saves/folder-game \
  --container /home/player/cloud >"$work/out" 2>&1 || fail "status: $(cat "$work/out")"
grep -q 'libc\.so' "$work/out" || fail "LD_DEBUG=files named no library: $(head -n 5 "$work/out")"
! grep -q -E 'libcurl|libxml2|libicu' "$work/out" ||
  fail "a folder container loaded a library it does not need: $(grep -m 1 -E 'libcurl|libxml2|libicu' "$work/out")"
ok "a folder container's command loads no libcurl, libxml2 or ICU"

# S3 on loopback, served from outside the root (the chroot shares the network).
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
serve_s3() {
  local port=$1
  shift
  mkdir -p "$work/s3/saves"
  rclone serve s3 --addr "127.0.0.1:$port" --auth-key "player-key,player-secret" "$@" "$work/s3" \
    >"$work/rclone-$port.log" 2>&1 &
  servers+=($!)
  for _ in $(seq 100); do
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  fail "rclone serve s3 did not start: $(cat "$work/rclone-$port.log")"
}
keys=(AWS_ACCESS_KEY_ID=player-key AWS_SECRET_ACCESS_KEY=player-secret)
http_port=$(port)
serve_s3 "$http_port"
round_trip s3-game s3://saves/player env "${keys[@]}" AWS_ENDPOINT_URL="http://127.0.0.1:$http_port"
[ -n "$(find "$work/s3/saves/player/s3-game" -name 'packsave-*.tar')" ] || fail "no archive in the bucket"
ok "backup, status and restore on rclone serve s3 over HTTP"
as_player env LD_DEBUG=files,libs "${keys[@]}" AWS_ENDPOINT_URL="http://127.0.0.1:$http_port" savevault status \
  --save-dir /home/player/saves/s3-game --container s3://saves/player >"$work/out" 2>&1 ||
  fail "status: $(cat "$work/out")"
grep -q 'file=libcurl.so.4 .*dynamically loaded' "$work/out" ||
  fail "an S3 container did not load libcurl: $(grep -m 3 'libcurl' "$work/out")"
grep -q 'trying file=/home/player/.local/lib/savevault/[^ ]*/lib/libcurl.so.4' "$work/out" ||
  fail "libcurl was not the bundle's: $(grep -m 3 'libcurl' "$work/out")"
ok "an S3 container loads the bundle's libcurl"

# HTTPS: the server's certificate is trusted only where this system keeps its bundle.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
https_port=$(port)
serve_s3 "$https_port" --cert "$work/cert.pem" --key "$work/key.pem"
https=(env "${keys[@]}" AWS_ENDPOINT_URL="https://127.0.0.1:$https_port")
# Another CA where Debian keeps its bundle: the server is not trusted, and nothing is sent.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other -keyout "$work/other-key.pem" \
  -out "$work/other.pem" 2>/dev/null
mkdir -p "$root/etc/ssl/certs"
cp "$work/other.pem" "$root/etc/ssl/certs/ca-certificates.crt"
as_player "${https[@]}" savevault backup --save-dir /home/player/saves/s3-game --container s3://saves/tls \
  >"$work/out" 2>&1 && fail "an HTTPS backup to an untrusted server succeeded: $(cat "$work/out")"
grep -qi 'certificate' "$work/out" || fail "the refused HTTPS backup does not name the certificate: $(cat "$work/out")"
[ -z "$(find "$work/s3/saves" -path '*tls*' -name 'packsave-*')" ] || fail "an archive reached the untrusted server"
ok "HTTPS to a server no trusted CA signed is refused: $(grep -i -m 1 certificate "$work/out")"
rm "$root/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$root/etc/pki/tls/certs"
cp "$work/cert.pem" "$root/etc/pki/tls/certs/ca-bundle.crt"
round_trip tls-game s3://saves/tls "${https[@]}"
as_player savevault doctor >"$work/out" 2>&1 || true
grep -q 'certificates.*trusts /etc/pki/tls/certs/ca-bundle.crt' "$work/out" ||
  fail "doctor does not name Fedora's bundle: $(cat "$work/out")"
ok "backup, status and restore over HTTPS with the CA bundle where Fedora keeps it; doctor names it"
rm "$root/etc/pki/tls/certs/ca-bundle.crt"
cp "$work/cert.pem" "$home/ca.pem"
chown 4242:4242 "$home/ca.pem"
round_trip tls-game-2 s3://saves/tls "${https[@]}" SSL_CERT_FILE=/home/player/ca.pem
ok "backup, status and restore over HTTPS with the bundle SSL_CERT_FILE names"

# Without libcurl (a bundle missing it, as a build run outside the bundle on a system without
# it): an S3 container is unavailable (exit 4) and says what to install; folders still work.
curl_lib=$(as_player sh -c 'echo ~/.local/lib/savevault/*/lib/libcurl.so.4')
mv "$root$curl_lib" "$root$curl_lib.away"
code=0
as_player env "${keys[@]}" AWS_ENDPOINT_URL="http://127.0.0.1:$http_port" savevault status \
  --save-dir /home/player/saves/s3-game --container s3://saves/player >"$work/out" 2>&1 || code=$?
[ "$code" -eq 4 ] || fail "S3 without libcurl: exit $code, not 4: $(cat "$work/out")"
grep -q 'libcurl.so.4' "$work/out" && grep -q 'libcurl4' "$work/out" ||
  fail "S3 without libcurl does not say what to install: $(cat "$work/out")"
code=0
as_player env "${keys[@]}" AWS_ENDPOINT_URL="http://127.0.0.1:$http_port" savevault doctor \
  --save-dir /home/player/saves/s3-game --container s3://saves/player >"$work/out" 2>&1 || code=$?
[ "$code" -eq 4 ] || fail "doctor without libcurl: exit $code, not 4: $(cat "$work/out")"
grep -q 'fix: install libcurl' "$work/out" ||
  fail "doctor without libcurl does not give installing it as the fix: $(cat "$work/out")"
as_player savevault status --save-dir /home/player/saves/folder-game --container /home/player/cloud \
  >"$work/out" 2>&1 || fail "a folder container without libcurl: $(cat "$work/out")"
mv "$root$curl_lib.away" "$root$curl_lib"
ok "without libcurl, an S3 container exits 4 naming the package (doctor's fix too); a folder container works"

# Uninstall: what install.sh wrote is gone; the player's saves, config and backups stay, and
# nothing else was made in the home folder.
as_player sh ~/.local/lib/savevault/install.sh --uninstall >"$work/out" 2>&1 ||
  as_player sh -c 'sh ~/.local/lib/savevault/install.sh --uninstall' >"$work/out" 2>&1 ||
  fail "install.sh --uninstall: $(cat "$work/out")"
after=$(cd "$home" && find . | sort)
left=$(comm -13 <(echo "$before") <(echo "$after") |
  grep -v -E '^\./(saves|cloud|ca\.pem|\.config/savevault|\.local/share/savevault|\.local/state/savevault|\.cache/savevault)(/|$)' |
  grep -v -E '^\./(\.config|\.local|\.local/share|\.local/state|\.cache)$' || true)
[ -z "$left" ] || fail "install.sh --uninstall left: $left"
[ -d "$home/.local/share/savevault/pre-restore" ] || fail "uninstall removed the player's kept saves"
ok "install.sh --uninstall removes what it installed and keeps the player's files"

size=$(stat -c %s "$bundle")
echo "# $checks checks passed; $(basename "$bundle"): $size bytes ($((size / 1048576)) MiB)"
