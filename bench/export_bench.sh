#!/usr/bin/env bash
# Export benchmark: writes a synthetic store of N records (default 5 M; `tracekit synth --devices 2
# --seed 1`: intervals, memory events, counter samples), then times `tracekit export` to Perfetto
# (the target: >= 5 M events/s with constant memory), Chrome JSON (.json.gz) and XPlane, printing
# records/s (every timestamped record exported: slices, counter samples, memory-in-use samples),
# slices/s (intervals alone), peak RSS and output size.
# Usage: bench/export_bench.sh [BUILD_DIR] [EVENTS...]
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000000)
out=${TK_BENCH_DIR:-$(mktemp -d)}
target=5000000

printf 'machine: %s, %s CPUs, %s\n' "$(uname -m)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
printf '%-10s %-9s %10s %8s %8s %12s %12s %12s %10s  %s\n' records format slices wall_s cpu_s \
  records/s slices/s peak_rss_MiB out_MiB "target >= $target events/s (perfetto)"
for n in "${sizes[@]}"; do
  store="$out/export-$n.db"
  rm -f "$store"
  "$build/tracekit" synth -o "$store" --events "$n" --devices 2 --seed 1 >/dev/null
  for fmt in ${TK_BENCH_FORMATS:-perfetto chrome xplane}; do
    case $fmt in
      perfetto) dst="$out/export-$n.pftrace" ;;
      chrome) dst="$out/export-$n.json.gz" ;;
      xplane) dst="$out/logdir-$n" ;;
    esac
    rm -rf "$dst"
    log=$( { "$build/tk_runstat" "$build/tracekit" export "$store" --format "$fmt" -o "$dst" --quiet; } 2>&1 )
    events=$(sqlite3 "$store" "SELECT count(*) FROM events" 2>/dev/null || echo 0)
    wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$log")
    cpu=$(awk -v l="$log" 'BEGIN { match(l, /user_s=[0-9.]+/); u = substr(l, RSTART + 7, RLENGTH - 7);
                                    match(l, /sys_s=[0-9.]+/); s = substr(l, RSTART + 6, RLENGTH - 6); print u + s }')
    rss=$(sed -n 's/.*max_rss_kib=\([0-9]*\).*/\1/p' <<<"$log")
    size=$(du -sb "$dst" | cut -f1)
    awk -v n="$n" -v f="$fmt" -v e="$events" -v w="$wall" -v c="$cpu" -v r="$rss" -v s="$size" -v t="$target" 'BEGIN {
      rate = n / w; printf "%-10d %-9s %10d %8.2f %8.2f %12.0f %12.0f %12.1f %10.1f  %s\n", n, f, e, w, c,
      rate, e / w, r / 1024, s / 1048576, (f == "perfetto" ? (rate >= t ? "meets" : "BELOW") : "-") }'
    rm -rf "$dst"
  done
  rm -f "$store"
done
