#!/usr/bin/env bash
# Capture benchmark: the CUPTI decoder (what the injection library's decoder thread does) turning
# 4 MB activity buffers of launches, kernels and copies into a finished store, on one core, with
# peak RSS. The decoder must outrun the launch rate of the traced program, or buffers queue up
# and CUPTI drops records. Usage: bench/capture_bench.sh [BUILD_DIR] [RECORDS...]
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
out=${TK_BENCH_DIR:-$(mktemp -d)}

printf 'machine: %s, %s CPUs, %s\n' "$(uname -m)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
for n in "${sizes[@]}"; do
  store="$out/capture-$n.db"
  rm -f "$store"
  log=$( { "$build/tk_runstat" "$build/tk_cupti_bench" "$store" "$n" >"$out/capture-$n.txt"; } 2>&1 )
  rss=$(sed -n 's/.*max_rss_kib=\([0-9]*\).*/\1/p' <<<"$log")
  printf '%s; peak RSS %.1f MiB, store %.1f MiB\n' "$(cat "$out/capture-$n.txt")" \
    "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" \
    "$(awk -v s="$(stat -c %s "$store")" 'BEGIN { print s / 1048576 }')"
  rm -f "$store"
done
