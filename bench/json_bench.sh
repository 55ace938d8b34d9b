#!/usr/bin/env bash
# Chrome/Kineto JSON import benchmark: generates synthetic Kineto traces (bench/json_gen.py) of the
# given sizes in MB, imports each with `tracekit import` under tk_runstat, and prints MB/s of
# uncompressed JSON into a finished store, events/s, peak RSS, and the parse-only rate (the
# importer's tokenizer and event parser alone, bench/json_parse.c, nothing written).
# Usage: bench/json_bench.sh [BUILD_DIR] [SIZE_MB...]     (default: build 100 1000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000)
out=${TK_BENCH_DIR:-$(mktemp -d)}
target=150

cc -O2 -I"$src" -I"$src/import" "$here/json_parse.c" "$src/util/json_lex.c" "$src/util/gz_reader.c" \
  "$src/import/chrome_json_event.c" "$src/import/chrome_json_fast.c" -lz -pthread -o "$out/json_parse"

printf 'machine: %s, %s CPUs, %s\n' "$(uname -m)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
printf '%-8s %9s %8s %9s %10s %12s %9s %9s  %s\n' MB json_MiB wall_s MB/s events events/s \
  rss_MiB parse_MB/s "target >= $target MB/s into a finished store"
for mb in "${sizes[@]}"; do
  json="$out/kineto-$mb.json"
  store="$out/kineto-$mb.db"
  python3 "$here/json_gen.py" "$json" "$mb"
  bytes=$(stat -c %s "$json")
  plog=$( { "$build/tk_runstat" "$out/json_parse" "$json" >/dev/null; } 2>&1 )
  pwall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$plog")
  log=$( { "$build/tk_runstat" "$build/tracekit" import "$json" -o "$store" \
    >"$out/import-$mb.txt"; } 2>&1 )
  events=$(sed -n 's/.*: \([0-9]*\) events.*/\1/p' "$out/import-$mb.txt")
  wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$log")
  rss=$(sed -n 's/.*max_rss_kib=\([0-9]*\).*/\1/p' <<<"$log")
  awk -v mb="$mb" -v b="$bytes" -v w="$wall" -v n="$events" -v r="$rss" -v pw="$pwall" \
    -v t="$target" 'BEGIN {
    rate = b / 1e6 / w
    printf "%-8s %9.1f %8.2f %9.1f %10d %12.0f %9.1f %9.1f  %s\n", mb, b / 1048576, w, rate,
      n, n / w, r / 1024, b / 1e6 / pw, (rate >= t ? "meets" : "BELOW") }'
  rm -f "$store" "$json"
done
