#!/usr/bin/env bash
# Job benchmark (make bench-job; not part of make test): a synthetic data-parallel job of 64 ranks
# x 1 M events (bench/job_gen.c: Kineto JSON rank files, 8 ranks per host, planted clock offsets,
# a slow rank, imbalance), imported and analysed as jobs of 8, 16, 32 and 64 ranks (the first N
# rank files of the one generated job), with --jobs 1 and --jobs 2 when `tracekit import --help`
# lists --jobs (else one plain run), and under `mpirun -np 2 ... --mpi` when mpirun exists and the
# binary lists --mpi. Prints per run: wall time, CPU time (user + sys), peak RSS per process,
# store MiB and bytes per event; then how each grows from the smallest job to the largest (wall
# time per rank and peak RSS, relative to the smallest job: linear in ranks = time per rank flat).
#
# Usage: bench/job_bench.sh [BUILD_DIR]
# Environment: TK_JOB_DIR (rank files and stores; default a new directory under /tmp; the rank
# files are kept there and reused when their parameters match), TK_JOB_RANKS (default
# "8 16 32 64"), TK_JOB_EVENTS (events per rank, default 1000000), TK_JOB_MODES (a subset of
# "jobs1 jobs2 mpi2"), TK_JOB_KEEP=0 to delete the
# rank files at the end. Needs about (250 + 210) bytes x events x max ranks of free disk (30 GB
# for the default): checked first.
set -euo pipefail
build=${1:-build}
tk=$build/tracekit
ranks_list=(${TK_JOB_RANKS:-8 16 32 64})
events=${TK_JOB_EVENTS:-1000000}
max=0
for n in "${ranks_list[@]}"; do [ "$n" -gt "$max" ] && max=$n; done
dir=${TK_JOB_DIR:-$(mktemp -d /tmp/tk-job-bench.XXXXXX)}
mkdir -p "$dir/ranks"
params="ranks=$max events=$events seed=1 per_host=8 offset_us=200 slow_rank=5 slow_pct=8 imbalance_pct=5"

have_files=0
if [ -f "$dir/ranks/job.params" ] && [ "$(cat "$dir/ranks/job.params")" = "$params" ]; then
  have_files=1
fi
need=$(( (have_files ? 0 : 250) * events * max + 210 * events * max ))
avail=$(( $(df -P -k "$dir" | awk 'NR == 2 { print $4 }') * 1024 ))
if [ "$avail" -lt "$need" ]; then
  printf 'job_bench: %s has %d GB free, the benchmark needs about %d GB (TK_JOB_EVENTS, TK_JOB_RANKS)\n' \
    "$dir" $((avail / 1000000000)) $((need / 1000000000)) >&2
  exit 1
fi

printf 'machine: %s, %s CPUs, %s, %s GiB memory\n' "$(uname -m)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" \
  "$(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
if [ "$have_files" = 0 ]; then
  rm -f "$dir/ranks/job.params" "$dir"/ranks/rank-*.json
  t0=$(date +%s.%N)
  gen=("$build/tk_job_gen" "$dir/ranks" "$max" "$events" --seed 1 --per-host 8 --offset-us 200
       --slow-rank 5 --slow-pct 8 --imbalance-pct 5)
  "${gen[@]}" --part 0/2 >"$dir/ranks/job.txt" &
  pid=$!
  "${gen[@]}" --part 1/2 >"$dir/ranks/job-1.txt"
  wait "$pid"
  echo "$params" >"$dir/ranks/job.params"
  printf 'generated %d rank files of %d events in %.1f s: %s\n' "$max" "$events" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$(du -sh "$dir/ranks" | cut -f1)"
fi
grep -E '^(job|host|slow)' "$dir/ranks/job.txt" | sed 's/^/  /'

import_help=$("$tk" import --help 2>&1 || true)
analyze_help=$("$tk" analyze --help 2>&1 || true)
modes=()
if grep -q -- '--jobs' <<<"$import_help"; then modes+=(jobs1 jobs2); else modes+=(plain); fi
mpirun_flags=()
if grep -q -- '--mpi' <<<"$import_help" && command -v mpirun >/dev/null; then
  modes+=(mpi2)
  mpirun_flags=(--oversubscribe)
  [ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
fi
if [ -n "${TK_JOB_MODES:-}" ]; then # a subset, e.g. TK_JOB_MODES="mpi2"
  sel=()
  for m in "${modes[@]}"; do [[ " $TK_JOB_MODES " == *" $m "* ]] && sel+=("$m"); done
  modes=("${sel[@]}")
fi
grep -q -- '--jobs' <<<"$import_help" || echo "note: tracekit import has no --jobs: one plain run per job"
grep -q -- '--mpi' <<<"$import_help" || echo "note: tracekit import has no --mpi: no MPI runs"
command -v mpirun >/dev/null || echo "note: no mpirun on PATH: no MPI runs"

# run LOG CMD...: CMD under tk_runstat (one line per process) -> "wall cpu rss_kib" on stdout,
# wall the longest process, cpu summed, rss the largest process.
run() {
  local log=$1
  shift
  if ! "$@" >"$log.out" 2>"$log.err"; then
    echo "job_bench: failed: $*" >&2
    tail -5 "$log.err" >&2
    exit 1
  fi
  awk '/^runstat / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         if (v["wall_s"] > w) w = v["wall_s"]; c += v["user_s"] + v["sys_s"];
         if (v["max_rss_kib"] > r) r = v["max_rss_kib"] }
       END { printf "%.3f %.3f %d\n", w, c, r }' "$log.err"
}

results=$dir/results.txt
: >"$results"
printf '\n%-6s %-6s %-8s %9s %9s %9s %13s %10s %9s %12s\n' ranks mode phase wall_s cpu_s cpu/wall \
  peak_rss_MiB store_MiB B/event events/s
for n in "${ranks_list[@]}"; do
  files=()
  for ((r = 0; r < n; r++)); do files+=("$(printf '%s/ranks/rank-%03d.pt.trace.json' "$dir" "$r")"); done
  for mode in "${modes[@]}"; do
    store=$dir/job-$n-$mode.db
    rm -f "$store"
    case $mode in
    jobs1 | jobs2)
      j=${mode#jobs}
      imp=("$build/tk_runstat" "$tk" import "${files[@]}" -o "$store" --jobs "$j")
      ana=("$build/tk_runstat" "$tk" analyze "$store" -q)
      grep -q -- '--jobs' <<<"$analyze_help" && ana+=(--jobs "$j")
      ;;
    plain)
      imp=("$build/tk_runstat" "$tk" import "${files[@]}" -o "$store")
      ana=("$build/tk_runstat" "$tk" analyze "$store" -q)
      ;;
    mpi2)
      # import --mpi: each process imports and analyses its share into per-rank stores (in
      # $dir/ps-N), rank 0 gathers the summaries into the job store and analyses it; then
      # analyze --mpi: the per-rank stores analysed again, gathered into a second job store
      rm -rf "$dir/ps-$n"
      mkdir -p "$dir/ps-$n"
      imp=(mpirun "${mpirun_flags[@]}" -np 2 "$build/tk_runstat" "$tk" import "${files[@]}" -o "$store"
           --mpi --store-dir "$dir/ps-$n")
      ana=(mpirun "${mpirun_flags[@]}" -np 2 "$build/tk_runstat" "$tk" analyze -q --mpi -o "$store.2")
      ;;
    esac
    iw= aw=
    read -r iw ic ir < <(run "$dir/import-$n-$mode" "${imp[@]}")
    # events in the store: the import's own count ("wrote STORE: N events ...")
    ev=$(sed -n 's/.*: \([0-9][0-9]*\) events.*/\1/p' "$dir/import-$n-$mode.out" | tail -1)
    input_events=$((n * $(awk '/^job / { print $9 }' "$dir/ranks/job.txt")))
    [ "$mode" = mpi2 ] && ana+=("$dir/ps-$n"/*.tkdb)
    read -r aw ac ar < <(run "$dir/analyze-$n-$mode" "${ana[@]}")
    # run's exit inside the process substitution does not stop this script: stop here
    [ -n "${iw:-}" ] && [ -n "${aw:-}" ] || exit 1
    size=$(stat -c %s "$store")
    for phase in import analyze; do
      if [ $phase = import ]; then w=$iw c=$ic r=$ir; else w=$aw c=$ac r=$ar; fi
      awk -v n="$n" -v m="$mode" -v p="$phase" -v w="$w" -v c="$c" -v r="$r" -v s="$size" \
        -v e="$input_events" 'BEGIN {
        printf "%-6d %-6s %-8s %9.2f %9.2f %9.2f %13.1f %10.1f %9.1f %12.0f\n", n, m, p, w, c, c / w,
          r / 1024, s / 1048576, s / e, e / w }'
      echo "$n $mode $phase $w $c $r $size $input_events" >>"$results"
    done
    [ -n "$ev" ] && echo "       ($ev events in the store of $input_events input events)"
    if [ "$mode" = mpi2 ]; then
      echo "       (mpi2: store = the job summary; the per-rank stores hold $(du -sm "$dir/ps-$n" | cut -f1) MiB)"
      rm -rf "$dir/ps-$n" "$store.2"
    fi
    rm -f "$store"
  done
done

# Growth: per mode and phase, relative to the smallest job.
echo
echo "growth from ${ranks_list[0]} to $max ranks (CPU time per rank and peak RSS per process relative to"
echo "${ranks_list[0]} ranks; CPU time, not wall time, as it does not depend on what else the machine runs;"
echo "linear in ranks: CPU time/rank within 25 % of the smallest job's; flat memory: peak RSS within 1.5x)"
printf '%-6s %-8s %s\n' mode phase 'ranks: cpu_time_per_rank_ratio rss_ratio ...'
awk -v first="${ranks_list[0]}" '
  { k = $2 " " $3; if ($1 == first) { w0[k] = $5 / $1; r0[k] = $6 }
    line[k] = line[k] sprintf("  %d: %.2f %.2f", $1, ($5 / $1) / w0[k], $6 / r0[k]);
    lin[k] = lin[k] || (($5 / $1) / w0[k] > 1.25); grow[k] = grow[k] || ($6 / r0[k] > 1.5); keys[k] = 1 }
  END { for (k in keys) printf "%-15s %s  -> %s, %s\n", k, line[k], lin[k] ? "NOT linear" : "linear",
                                  grow[k] ? "memory GROWS" : "memory flat" }' "$results" | sort

if [ "${TK_JOB_KEEP:-1}" = 0 ]; then
  rm -rf "$dir"
else
  echo "rank files and logs kept in $dir (TK_JOB_DIR=$dir to reuse them; TK_JOB_KEEP=0 to delete)"
fi
