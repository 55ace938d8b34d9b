#!/bin/sh
# The job benchmark's generator (bench/job_gen.c) against the importer and the analyses: a 4-rank
# job on 2 hosts (planted clock offset, rank 2 slowed by 20 %) imports without a word on stderr,
# every collective of every rank is matched (2 per step), only rank 2 is flagged a straggler, and
# the files are a function of the seed (same seed: same bytes; another seed: other bytes).
# Usage: job_gen.sh TK_JOB_GEN TRACEKIT
set -eu
gen=$1
tk=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "job_gen: $*" >&2
	exit 1
}
"$gen" "$dir/a" 4 3000 --per-host 2 --offset-us 300 --slow-rank 2 --slow-pct 20 >"$dir/a.txt"
"$gen" "$dir/b" 4 3000 --per-host 2 --offset-us 300 --slow-rank 2 --slow-pct 20 >/dev/null
"$gen" "$dir/c" 4 3000 --per-host 2 --offset-us 300 --slow-rank 2 --slow-pct 20 --seed 2 >/dev/null
for r in 000 001 002 003; do
	cmp -s "$dir/a/rank-$r.pt.trace.json" "$dir/b/rank-$r.pt.trace.json" ||
		fail "rank $r differs between two runs with one seed"
done
cmp -s "$dir/a/rank-001.pt.trace.json" "$dir/c/rank-001.pt.trace.json" &&
	fail "seeds 1 and 2 wrote the same rank 1"
steps=$(awk '/^job / { print $7 }' "$dir/a.txt")
[ "$steps" -ge 2 ] || fail "expected at least 2 steps, job line: $(head -1 "$dir/a.txt")"
grep -q '^host 1 offset_ns -\{0,1\}[1-9]' "$dir/a.txt" || fail "no offset planted on host 1"
"$tk" import "$dir"/a/rank-*.json -o "$dir/job.db" >"$dir/import.out" 2>"$dir/import.err" ||
	fail "import failed: $(cat "$dir/import.err")"
[ ! -s "$dir/import.err" ] || fail "import said: $(cat "$dir/import.err")"
"$tk" analyze "$dir/job.db" >"$dir/analyze.out" 2>&1 || fail "analyze failed"
# "Collectives across ranks": device rank collectives unmatched times_last late_share max_skew wait comm [flag]
awk -v want=$((2 * steps)) '
	/^Collectives across ranks/ { on = 1; next }
	on && /^$/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ {
		n++
		if ($3 != want || $4 != 0) { print "rank " $2 ": " $3 " collectives, " $4 " unmatched; want " want ", 0"; bad = 1 }
		if (($2 == 2) != ($NF == "straggler")) { print "rank " $2 " straggler flag: " $NF; bad = 1 }
	}
	END { if (n != 4) { print n + 0 " ranks in the collectives table, want 4"; bad = 1 } exit bad }
' "$dir/analyze.out" || fail "collectives not as planted (analyze output in the lines above)"
echo "job_gen: 4 ranks x $steps steps: imported cleanly, $((2 * steps)) collectives matched per rank, rank 2 the straggler"
