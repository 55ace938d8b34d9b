#!/usr/bin/env bash
# tracekit against Holistic Trace Analysis (HTA), side by side in one run, on the two largest Kineto
# traces of the corpus: HTA's TraceAnalysis load + temporal, idle time and kernel breakdowns
# (bench/hta_driver.py) against `tracekit import` + `tracekit analyze`; wall time, CPU time (user +
# sys) and peak RSS of each (bench/runstat.c, medians of TK_HTA_REPEAT runs), and the ratios against the targets (tracekit >= 10x faster, <= 1/5 of
# HTA's memory). Runs only when HTA_DIR points at an HTA checkout (HTA_DIR/hta/trace_analysis.py);
# else it says how to get one and exits 0. HTA is never installed or vendored by tracekit.
#
# Usage: HTA_DIR=DIR bench/hta_compare.sh [BUILD_DIR] [TRACE...]
# (default traces: mtia_trace_single_rank/mtia_rank_0.json.gz and
# df_index_resolver/df_index_resolver.json.gz of ../shared/corpus/kineto/HolisticTraceAnalysis/
# tests/data; TK_HTA_REPEAT=N runs each command N times and reports the medians, default 3; PYTHON:
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
repeat=${TK_HTA_REPEAT:-3}
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

# measure CMD...: $repeat runs under tk_runstat -> the median of each of "wall_s cpu_s max_rss_kib"
# (cpu_s = user + sys; medians per column, so one run slowed by other load does not decide it);
# $prep, when set, runs (untimed) before each run
measure() {
  local i
  : >"$out/runs"
  for ((i = 0; i < repeat; i++)); do
    if [ -n "${prep:-}" ]; then eval "$prep"; fi
    if ! "$build/tk_runstat" "$@" >"$out/cmd.out" 2>"$out/cmd.err"; then
      echo "hta_compare: failed: $*" >&2
      tail -5 "$out/cmd.err" >&2
      exit 1
    fi
    awk '/^runstat / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                       print v["wall_s"], v["user_s"] + v["sys_s"], v["max_rss_kib"] }' "$out/cmd.err" |
      tail -1 >>"$out/runs"
  done
  local c w u r
  for c in 1 2 3; do
    sort -g -k"$c","$c" "$out/runs" | awk -v c="$c" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
  done | paste -sd' '
}

printf 'machine: %s, %s CPUs, %s, %s GiB memory; HTA %s (%s), python3 %s, pandas %s\n' \
  "$(uname -m)" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" \
  "$(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)" \
  "$(sed -n 's/^__version_tuple__ = (\(.*\))/\1/p' "$HTA_DIR/hta/version.py" 2>/dev/null | tr -d ' ' | tr , .)" \
  "$HTA_DIR" "$("$py" -c 'import sys; print(sys.version.split()[0])')" \
  "$("$py" -c 'import pandas; print(pandas.__version__)')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %6s | %7s %7s %7s | %7s %7s %7s %7s | %6s %6s %6s  %s\n' trace MiB hta_s hta_cpu hta_MiB \
  tk_s tk_cpu tk_MiB tk_imp_s wall_x cpu_x mem_x "target: >= 10x faster, >= 5x less memory"
for t in "${traces[@]}"; do
  read -r hw hc hr < <(measure env HTA_DIR="$HTA_DIR" "$py" "$here/hta_driver.py" "$t")
  hta_detail=$(grep '^hta ' "$out/cmd.out" || true)
  # each import writes a fresh store (import does not replace an existing one)
  read -r iw ic ir < <(measure sh -c 'rm -f "$2" && exec "$0" import "$1" -o "$2"' "$build/tracekit" "$t" "$out/s.db")
  # each analysis of a fresh copy of that import (not an analysed store analysed again)
  cp "$out/s.db" "$out/fresh.db"
  read -r aw ac ar < <(prep='cp "$out/fresh.db" "$out/s.db"' measure "$build/tracekit" analyze "$out/s.db" -q)
  awk -v n="$(basename "$t")" -v f="$(stat -c %s "$t")" -v hw="$hw" -v hc="$hc" -v hr="$hr" -v iw="$iw" \
    -v ic="$ic" -v ir="$ir" -v aw="$aw" -v ac="$ac" -v ar="$ar" 'BEGIN {
    tw = iw + aw; tc = ic + ac; tr = ir > ar ? ir : ar; sp = hw / tw; cx = hc / tc; mx = hr / tr
    printf "%-26s %6.1f | %7.2f %7.2f %7.1f | %7.2f %7.2f %7.1f %7.2f | %5.1fx %5.1fx %5.1fx  %s, %s\n", n,
      f / 1048576, hw, hc, hr / 1024, tw, tc, tr / 1024, iw, sp, cx, mx,
      (sp >= 10 ? "speed met" : "speed MISSED"), (mx >= 5 ? "memory met" : "memory MISSED") }'
  [ -n "$hta_detail" ] && echo "    last HTA run: $hta_detail"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(medians of $repeat runs; tk_s/tk_cpu = import + analyze; tk_MiB = the larger peak of the two;"
echo " wall_x, cpu_x, mem_x = HTA / tracekit; HTA: one process, no plots)"
