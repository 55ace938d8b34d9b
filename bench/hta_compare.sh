#!/usr/bin/env bash
# tracekit against Holistic Trace Analysis (HTA), side by side in one run, on the two largest Kineto
# traces of the corpus: HTA's TraceAnalysis load + temporal, idle time and kernel breakdowns
# (bench/hta_driver.py) against `tracekit import` + `tracekit analyze`; wall time and peak RSS of
# each (bench/runstat.c), and the ratios against the targets (tracekit >= 10x faster, <= 1/5 of
# HTA's memory). Runs only when HTA_DIR points at an HTA checkout (HTA_DIR/hta/trace_analysis.py);
# else it says how to get one and exits 0. HTA is never installed or vendored by tracekit.
#
# Usage: HTA_DIR=DIR bench/hta_compare.sh [BUILD_DIR] [TRACE...]
# (default traces: mtia_trace_single_rank/mtia_rank_0.json.gz and
# df_index_resolver/df_index_resolver.json.gz of ../shared/corpus/kineto/HolisticTraceAnalysis/
# tests/data; TK_HTA_REPEAT=N runs each side N times and keeps the fastest, default 1; PYTHON:
# the interpreter with HTA's dependencies, default the first python3 on PATH or /usr/bin/python3
# that imports pandas.)
set -euo pipefail
build=${1:-build}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${HTA_DIR:-}" ] || [ ! -f "$HTA_DIR/hta/trace_analysis.py" ]; then
  cat <<'EOF'
hta_compare: HTA_DIR does not point at an HTA checkout; nothing measured. To get one:
  git clone https://github.com/facebookresearch/HolisticTraceAnalysis /opt/hta
  git -C /opt/hta checkout f4d0062c382f42bd8a74838bcdad1916c7d5d2da   # HTA 0.6.1, MIT
  apt-get install python3-pandas python3-numpy python3-plotly python3-networkx python3-yaml
then: HTA_DIR=/opt/hta bench/hta_compare.sh [BUILD_DIR]
EOF
  exit 0
fi
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
  data=$here/../../shared/corpus/kineto/HolisticTraceAnalysis/tests/data
  traces=("$data/mtia_trace_single_rank/mtia_rank_0.json.gz" "$data/df_index_resolver/df_index_resolver.json.gz")
fi
repeat=${TK_HTA_REPEAT:-1}
# the Python that has HTA's dependencies: $PYTHON, else the first python3 that imports pandas
py=${PYTHON:-}
if [ -z "$py" ]; then
  for c in python3 /usr/bin/python3; do
    if "$c" -c 'import pandas' 2>/dev/null; then
      py=$c
      break
    fi
  done
fi
if [ -z "$py" ]; then
  echo "hta_compare: no python3 with pandas (apt-get install python3-pandas, or set PYTHON)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# measure CMD...: the fastest of $repeat runs under tk_runstat -> "wall_s max_rss_kib"
measure() {
  local best="" i
  for ((i = 0; i < repeat; i++)); do
    if ! "$build/tk_runstat" "$@" >"$out/cmd.out" 2>"$out/cmd.err"; then
      echo "hta_compare: failed: $*" >&2
      tail -5 "$out/cmd.err" >&2
      exit 1
    fi
    local line
    line=$(awk '/^runstat / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                              print v["wall_s"], v["max_rss_kib"] }' "$out/cmd.err" | tail -1)
    if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN { split(a, x); split(b, y); exit !(x[1] < y[1]) }'; then
      best=$line
    fi
  done
  echo "$best"
}

printf 'machine: %s, %s CPUs, %s, %s GiB memory; HTA %s (%s), python3 %s, pandas %s\n' \
  "$(uname -m)" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" \
  "$(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)" \
  "$(sed -n 's/^__version_tuple__ = (\(.*\))/\1/p' "$HTA_DIR/hta/version.py" 2>/dev/null | tr -d ' ' | tr , .)" \
  "$HTA_DIR" "$("$py" -c 'import sys; print(sys.version.split()[0])')" \
  "$("$py" -c 'import pandas; print(pandas.__version__)')"
printf '%-28s %8s | %9s %9s | %9s %9s %9s %9s | %7s %7s  %s\n' trace MiB hta_s hta_MiB tk_imp_s \
  tk_ana_s tk_s tk_MiB speedup mem_x "target: >= 10x faster, >= 5x less memory"
for t in "${traces[@]}"; do
  read -r hw hr < <(measure env HTA_DIR="$HTA_DIR" "$py" "$here/hta_driver.py" "$t")
  hta_detail=$(grep '^hta ' "$out/cmd.out" || true)
  rm -f "$out/s.db"
  read -r iw ir < <(measure "$build/tracekit" import "$t" -o "$out/s.db")
  read -r aw ar < <(measure "$build/tracekit" analyze "$out/s.db" -q)
  awk -v n="$(basename "$t")" -v f="$(stat -c %s "$t")" -v hw="$hw" -v hr="$hr" -v iw="$iw" -v ir="$ir" \
    -v aw="$aw" -v ar="$ar" 'BEGIN {
    tw = iw + aw; tr = ir > ar ? ir : ar; sp = hw / tw; mx = hr / tr
    printf "%-28s %8.1f | %9.2f %9.1f | %9.2f %9.2f %9.2f %9.1f | %6.1fx %6.1fx  %s, %s\n", n, f / 1048576,
      hw, hr / 1024, iw, aw, tw, tr / 1024, sp, mx, (sp >= 10 ? "speed met" : "speed MISSED"),
      (mx >= 5 ? "memory met" : "memory MISSED") }'
  [ -n "$hta_detail" ] && echo "    $hta_detail"
done
echo "(tk_s = import + analyze; tk_MiB = the larger peak of the two; HTA: one process, no plots)"
