#!/usr/bin/env bash
# Runs a fuzz target for a given time on its seed corpus (and what it learns, kept in
# .build/fuzz/corpus-TARGET). Usage: fuzz/run.sh archive|names|manifest|yaml|keyvalues|binarykeyvalues|xml|wineregistry [SECONDS] (default 600).
# Crashes are written to .build/fuzz/ as crash-*; the run exits non-zero when it finds one.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh archive|names|manifest|yaml|keyvalues|binarykeyvalues|xml|wineregistry [SECONDS]}
seconds=${2:-600}
case $target in archive | names | manifest | yaml | keyvalues | binarykeyvalues | xml | wineregistry) ;; *) echo "unknown fuzz target '$target'" >&2; exit 2 ;; esac
[ -x .build/fuzz/savevault-fuzz ] || bash fuzz/build.sh
learned=".build/fuzz/corpus-$target"
mkdir -p "$learned"
SAVEVAULT_FUZZ_TARGET=$target exec .build/fuzz/savevault-fuzz -max_total_time="$seconds" -max_len=262144 -timeout=20 \
  -rss_limit_mb=2048 -artifact_prefix=.build/fuzz/ -print_final_stats=1 \
  "$learned" "fuzz/corpus/$target"
