#!/usr/bin/env bash
# The built-in example: a synthetic 2-GPU training trace, described, queried, analyzed and
# reported (text in the terminal, plus an HTML report to open).
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
tk="$build/tracekit"
store="$build/demo.db"

run() { printf '\n$ %s\n' "$*"; "$@"; }

run "$tk" synth -o "$store" --events 200000 --devices 2 --steps 10 --seed 1
run "$tk" info "$store"
run "$tk" query "$store" "SELECT name, count(*) AS launches, sum(dur_ns) AS total_ns,
    CAST(avg(dur_ns) AS INTEGER) AS avg_ns FROM kernels GROUP BY name ORDER BY total_ns DESC LIMIT 8" --max-width 60
run "$tk" query "$store" "SELECT pid, step_num, printf('%.3f', dur_ns / 1e6) AS step_ms
    FROM steps WHERE pid = (SELECT min(pid) FROM steps) ORDER BY step_num"
run "$tk" query "$store" "SELECT copy_kind, count(*) AS copies, sum(bytes) AS bytes,
    printf('%.2f', sum(bytes) * 1.0 / sum(dur_ns)) AS gb_per_s FROM memcpys GROUP BY copy_kind" --format csv
run "$tk" query "$store" "SELECT device_id, max(bytes_in_use) AS peak_bytes_in_use FROM memory_events
    GROUP BY device_id" --format json
run "$tk" analyze "$store"
run "$tk" query "$store" "SELECT device_id, cause, printf('%.6f', dur_ns / 1e6) AS gap_ms, prev_name,
    next_name FROM analysis_gaps ORDER BY dur_ns DESC LIMIT 5" --max-width 40
html="$build/demo-report.html"
printf '\nThe store is %s: query it with SQL (docs/store.md lists the tables and views;\n' "$store"
printf 'docs/metrics.md defines every analysis_* table, docs/reports.md every report section).\n'
run "$tk" report "$store" --format html -o "$html"
run "$tk" report "$store" --top 10
printf '\nOpen the HTML report: %s\n' "$(cd "$(dirname "$html")" && pwd)/$(basename "$html")"
