#!/usr/bin/env bash
# What capture needs a GPU to verify, in one run on a machine with one (docs/capture.md):
#   1. examples/cuda_demo (built with nvcc) under `tracekit record`: the store's kernels, copies,
#      sets and launch flows against what the program launched (22 kernels, 2 copies, 1 set a step);
#   2. the overhead on step time: cuda_demo's median step, plain and under record, best of 3 each
#      (target <= 3 %);
#   3. a small captured store (4 steps) for tests/data/capture.
# Usage: scripts/gpu_check.sh [BUILD_DIR] [OUT_DIR]. Exits 0 when every check holds, 1 when one
# does not, 3 when there is no usable GPU. The tracekit build needs no CUDA toolkit; nvcc is
# needed for cuda_demo, and libcupti is found at run time (TRACEKIT_LIBCUPTI, $CUDA_HOME, ...).
set -uo pipefail
build=${1:-build}
out=${2:-${OUT:-$(mktemp -d)}}
arch=${TK_CUDA_ARCH:-sm_90}
tk="$build/tracekit"
fail=0
mkdir -p "$out"

say() { printf 'gpu_check: %s\n' "$*"; }
check() { # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then say "ok   $1: $2"; else say "FAIL $1: $2, want $3"; fail=1; fi
}

demo="$out/cuda_demo"
if ! nvcc -O2 -arch="$arch" -o "$demo" examples/cuda_demo.cu; then
  say "nvcc cannot build examples/cuda_demo.cu"; exit 3
fi
if ! "$demo" 1 >/dev/null; then
  say "no usable GPU (cuda_demo exits non-zero)"; exit 3
fi

# 1. what was launched, in the store
steps=4
store="$out/cuda_demo-$steps.db"
rm -f "$store"
"$tk" record -o "$store" -- "$demo" "$steps" >"$out/record.txt" 2>&1
cat "$out/record.txt"
q() { "$tk" query "$store" "$1" --format csv | tail -n +2; }
check "kernels" "$(q 'SELECT count(*) FROM kernels')" $((22 * steps))
check "tiny scale kernels" "$(q "SELECT count(*) FROM kernels WHERE grid_x = 4 AND block_x = 256")" $((20 * steps))
check "copies HtoD/DtoH" "$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM memcpys GROUP BY copy_kind ORDER BY copy_kind)")" "$steps,$steps"
check "copy bytes" "$(q 'SELECT min(bytes) = max(bytes) AND min(bytes) = 16777216 FROM memcpys')" 1
check "sets" "$(q 'SELECT count(*) FROM memsets')" "$steps"
check "flows to device work" "$(q 'SELECT count(*) FROM flows')" $((25 * steps))
check "launch API calls" "$(q "SELECT count(*) FROM api_calls WHERE name = 'cudaLaunchKernel'")" $((22 * steps))
check "stream synchronizations" "$(q "SELECT count(*) FROM events WHERE kind = 12")" "$steps"
check "dropped records" "$(q "SELECT value FROM meta WHERE key = 'cupti.dropped_records'")" 0
check "occupancy known" "$(q 'SELECT count(*) FROM kernels WHERE occupancy IS NULL')" 0
q "SELECT key, value FROM meta WHERE key LIKE 'cupti.%' OR key LIKE 'capture.%'" | tee "$out/meta.csv"
"$tk" query "$store" "SELECT name, count(*), round(avg(dur_ns)) AS avg_ns, min(occupancy) FROM kernels GROUP BY name" | tee "$out/kernels.txt"

# 2. overhead on step time
median() { "$@" 2>/dev/null | sed -n 's/.*median step \([0-9.]*\) us.*/\1/p'; }
best() { sort -g | head -1; }
plain=$(for i in 1 2 3; do median "$demo" 200; done | best)
traced=$(for i in 1 2 3; do rm -f "$out/overhead.db"; median "$tk" record -o "$out/overhead.db" -- "$demo" 200; done | best)
pct=$(awk -v a="$plain" -v b="$traced" 'BEGIN { printf "%.2f", (b - a) / a * 100 }')
say "median step: plain $plain us, under record $traced us: overhead $pct % (target <= 3 %)"
awk -v p="$pct" 'BEGIN { exit !(p <= 3) }' || { say "FAIL overhead above 3 %"; fail=1; }
printf 'plain_us=%s traced_us=%s overhead_pct=%s\n' "$plain" "$traced" "$pct" >"$out/overhead.txt"

# 3. the store to commit (small: 4 steps)
say "captured store: $store ($(stat -c %s "$store") bytes)"
exit $fail
