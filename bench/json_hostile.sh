#!/usr/bin/env bash
# Peak memory of the Chrome/Kineto JSON importer on hostile shapes (bench/json_hostile.py): state
# that grows with something other than the working set shows up here. Prints wall time and peak
# RSS per shape, measured by tk_runstat around `tracekit import`.
# Usage: bench/json_hostile.sh [BUILD_DIR] [N] [SHAPE...]     (default: build 1000000, all shapes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
n=${2:-1000000}
shift 2 || shift $# || true
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] ||
  shapes=(x_one x_threads open_b async_pairs thread_names counters flows pids)
out=${TK_BENCH_DIR:-$(mktemp -d)}
printf '%-14s %9s %8s %9s  %s\n' shape json_MiB wall_s rss_MiB exit
for s in "${shapes[@]}"; do
  json="$out/$s.json"
  [ -f "$json" ] || python3 "$here/json_hostile.py" "$s" "$json" "$n"
  set +e
  log=$( { "$build/tk_runstat" "$build/tracekit" import "$json" -o "$out/$s.db" >/dev/null; } \
    2>&1 )
  rc=$?
  set -e
  wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$log")
  rss=$(sed -n 's/.*max_rss_kib=\([0-9]*\).*/\1/p' <<<"$log")
  awk -v s="$s" -v b="$(stat -c %s "$json")" -v w="$wall" -v r="$rss" -v rc="$rc" \
    'BEGIN { printf "%-14s %9.1f %8.2f %9.1f  %s\n", s, b / 1048576, w, r / 1024, rc }'
  rm -f "$out/$s.db"
done
