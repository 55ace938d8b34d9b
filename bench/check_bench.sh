#!/usr/bin/env bash
# Regression gate benchmark (docs/performance.md, "Check"): a synthetic store of N records (default
# 10 M), analysed, then `tracekit baseline` of it and `tracekit check` of it against that baseline,
# each timed by tk_runstat around the whole process. Usage: bench/check_bench.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build}
n=${2:-10000000}
out=${TK_BENCH_DIR:-$(mktemp -d)}
s="$out/check-$n.db"
run() { # label, command...
  local label=$1 log
  shift
  log=$( { "$build/tk_runstat" "$@" >/dev/null; } 2>&1 )
  printf '%-10s %s\n' "$label" "$log"
}
printf 'machine: %s, %s CPUs, load %s\n' "$(uname -m)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
"$build/tracekit" synth -o "$s" --events "$n" --devices 2 --seed 1 >/dev/null
run analyze "$build/tracekit" analyze -q "$s"
run baseline "$build/tracekit" baseline "$s" -o "$out/baseline.json"
run check "$build/tracekit" check "$s" --baseline "$out/baseline.json"
printf 'baseline file: %s bytes; target: check <= 2 s on top of analyze\n' "$(stat -c %s "$out/baseline.json")"
rm -rf "$out"
