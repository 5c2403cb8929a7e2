#!/usr/bin/env bash
# Builds the libFuzzer targets (archive, names, manifest, yaml, keyvalues, binarykeyvalues, xml, wineregistry) into one binary,
# .build/fuzz/savevault-fuzz, compiling the library's sources together with every target's
# entry point (an executable SwiftPM target cannot link libFuzzer's main); fuzz/run.sh picks
# the target with SAVEVAULT_FUZZ_TARGET. One build instead of one per target.
# Only the library's bottom layers (0 to 2 of LayerTests: Support, Formats, SaveFolder,
# Discovery, Archive) are compiled: every target reads with them alone, and by the layer rule
# they use nothing above them. About half the library, so about half the compile.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/fuzz
layers=(Support Formats SaveFolder Discovery Archive)
sources=$(for layer in "${layers[@]}"; do find "Sources/SaveVault/$layer" -name '*.swift'; done | sort)
# The library's own C part, compiled on its own (swiftc takes Swift sources only).
objects=()
for c in Sources/CPlatform/*.c; do
  clang -c -g -fsanitize=fuzzer-no-link,address -I Sources/CPlatform/include "$c" -o ".build/fuzz/$(basename "$c" .c).o"
  objects+=(".build/fuzz/$(basename "$c" .c).o")
done
swiftc -sanitize=fuzzer,address -parse-as-library -Onone -g -module-name SaveVault \
  -I Sources/CLibArchive -I Sources/CLibCrypto -I Sources/CYaml -I Sources/CSQLite -I Sources/CPlatform/include \
  -larchive -lcrypto -lyaml -lsqlite3 $sources fuzz/*.swift "${objects[@]}" -o .build/fuzz/savevault-fuzz
echo "built .build/fuzz/savevault-fuzz (archive, names, manifest, yaml, keyvalues, binarykeyvalues, xml, wineregistry)" >&2
