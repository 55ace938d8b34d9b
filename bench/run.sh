#!/usr/bin/env bash
# Writer benchmark: synthetic stores of 1 M and 10 M records, events/s and peak RSS of each,
# printed next to the target. Usage: bench/run.sh [BUILD_DIR] [SIZES...]
# (The synthetic generator's own cost is included: the figure is end to end, into a finished store.)
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
out=${TK_BENCH_DIR:-$(mktemp -d)}
target=2000000

printf 'machine: %s, %s CPUs, %s\n' "$(uname -m)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
printf '%-12s %12s %10s %14s %12s %10s  %s\n' records wall_s cpu_s records/s peak_rss_MiB store_MiB "target >= $target records/s"
for n in "${sizes[@]}"; do
  store="$out/synth-$n.db"
  log=$( { "$build/tk_runstat" "$build/tracekit" synth -o "$store" --events "$n" --devices 2 --seed 1 >"$out/synth-$n.txt"; } 2>&1 )
  records=$(sed -n 's/.*: \([0-9]*\) records.*/\1/p' "$out/synth-$n.txt")
  wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$log")
  cpu=$(awk -v l="$log" 'BEGIN { match(l, /user_s=[0-9.]+/); u = substr(l, RSTART + 7, RLENGTH - 7);
                                  match(l, /sys_s=[0-9.]+/); s = substr(l, RSTART + 6, RLENGTH - 6); print u + s }')
  rss=$(sed -n 's/.*max_rss_kib=\([0-9]*\).*/\1/p' <<<"$log")
  size=$(stat -c %s "$store")
  awk -v n="$records" -v w="$wall" -v c="$cpu" -v r="$rss" -v s="$size" -v t="$target" 'BEGIN {
    rate = n / w; printf "%-12d %12.2f %10.2f %14.0f %12.1f %10.1f  %s\n", n, w, c, rate, r / 1024, s / 1048576,
    (rate >= t ? "meets" : "BELOW") }'
  rm -f "$store"
done
