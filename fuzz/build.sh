#!/usr/bin/env bash
# Builds the libFuzzer targets (archive, names, manifest, yaml, keyvalues) into .build/fuzz/, compiling the library's
# sources together with each target's entry point (an executable SwiftPM target cannot link
# libFuzzer's main). Usage: fuzz/build.sh [TARGET...] (default: all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/fuzz
sources=$(find Sources/SaveVault -name '*.swift' | sort)
targets=${*:-archive names manifest yaml keyvalues}
for target in $targets; do
  entry=fuzz/ArchiveFuzz.swift
  [ "$target" = names ] && entry=fuzz/NameFuzz.swift
  [ "$target" = manifest ] && entry=fuzz/ManifestFuzz.swift
  [ "$target" = yaml ] && entry=fuzz/YAMLFuzz.swift
  [ "$target" = keyvalues ] && entry=fuzz/KeyValuesFuzz.swift
  swiftc -sanitize=fuzzer,address -parse-as-library -Onone -g -module-name SaveVault \
    -I Sources/CLibArchive -I Sources/CLibCrypto -I Sources/CYaml -larchive -lcrypto -lyaml \
    $sources "$entry" -o ".build/fuzz/$target-fuzz"
done
echo "built $(for target in $targets; do printf '.build/fuzz/%s-fuzz ' "$target"; done)" >&2
