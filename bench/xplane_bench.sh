#!/usr/bin/env bash
# XPlane import benchmark: generates a synthetic .xplane.pb of N events (default 5 M; half GPU
# kernels with kernel_details/hlo_op/correlation_id stats, half host cudaLaunchKernel calls), then
# imports it into a finished store and prints events/s, MB/s and peak RSS next to the file size.
# Usage: bench/xplane_bench.sh [BUILD_DIR] [EVENTS...]
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000000)
out=${TK_BENCH_DIR:-$(mktemp -d)}
target=2000000

printf 'machine: %s, %s CPUs, %s\n' "$(uname -m)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
printf '%-10s %10s %8s %8s %12s %8s %12s %10s  %s\n' events file_MiB wall_s cpu_s events/s MB/s \
  peak_rss_MiB store_MiB "target >= $target events/s"
for n in "${sizes[@]}"; do
  pb="$out/bench-$n.xplane.pb"
  store="$out/bench-$n.db"
  "$build/tk_xplane_gen" "$pb" "$n" >/dev/null
  rm -f "$store"
  log=$( { "$build/tk_runstat" "$build/tracekit" import "$pb" -o "$store" >"$out/import-$n.txt"; } 2>&1 )
  events=$(sed -n 's/.*: \([0-9]*\) events.*/\1/p' "$out/import-$n.txt")
  wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$log")
  cpu=$(awk -v l="$log" 'BEGIN { match(l, /user_s=[0-9.]+/); u = substr(l, RSTART + 7, RLENGTH - 7);
                                  match(l, /sys_s=[0-9.]+/); s = substr(l, RSTART + 6, RLENGTH - 6); print u + s }')
  rss=$(sed -n 's/.*max_rss_kib=\([0-9]*\).*/\1/p' <<<"$log")
  fsize=$(stat -c %s "$pb")
  ssize=$(stat -c %s "$store")
  awk -v n="$events" -v w="$wall" -v c="$cpu" -v r="$rss" -v f="$fsize" -v s="$ssize" -v t="$target" 'BEGIN {
    rate = n / w; printf "%-10d %10.1f %8.2f %8.2f %12.0f %8.1f %12.1f %10.1f  %s\n", n, f / 1048576, w, c,
    rate, f / 1e6 / w, r / 1024, s / 1048576, (rate >= t ? "meets" : "BELOW") }'
  rm -f "$store" "$pb"
done
