#!/bin/sh
# tracekit merge (import/merge.c, cli/cmd_merge.c) on the 4-rank fixture of tests/data/analyze/comm:
# per-rank stores merged hold what one import of all ranks holds (canonical dump, ids resolved);
# a job summary analysed gives the communication tables of the full store, rank by rank; the
# refusals (a store twice, one rank in two stores, not a store, a damaged store, the output an
# input) exit 2 and leave no output; summaries merge into the job summary; a summary is much
# smaller than the full store.
# usage: merge.sh TRACEKIT SOURCE_DIR
set -u
T=$1
SRC=$2
# shellcheck source=tests/merge/common.sh
. "$SRC/tests/merge/common.sh"
refused() { # what, then the command; it must exit 2 and leave no $D/out.db
	what=$1; shift
	"$@" >"$D/msg" 2>&1; rc=$?
	[ $rc -eq 2 ] || fail "$what: exit $rc, not 2: $(cat "$D/msg")"
	[ ! -e "$D/out.db" ] || fail "$what: left an output"
}

$T import "$F/rank0.json" "$F/rank1.json" "$F/rank2.json" "$F/rank3.json" -o "$D/all.db" >/dev/null ||
	fail "import of all ranks"
for r in 0 1 2 3; do
	$T import "$F/rank$r.json" -o "$D/r$r.db" >/dev/null || fail "import of rank $r"
done
$T merge "$D/r0.db" "$D/r1.db" "$D/r2.db" "$D/r3.db" -o "$D/m.db" >/dev/null || fail "merge"
$DUMP "$D/all.db" >"$D/all.txt" && $DUMP "$D/m.db" >"$D/m.txt" || fail "dump"
diff "$D/all.txt" "$D/m.txt" >/dev/null || fail "merge differs from one import: $(diff "$D/all.txt" "$D/m.txt" | head -5)"
grep -q "^== events (32 rows)" "$D/m.txt" || fail "merged store lacks events"

# refusals
refused "a store twice" $T merge "$D/r0.db" "$D/r1.db" "$D/r0.db" -o "$D/out.db"
grep -q "same store" "$D/msg" || fail "a store twice: $(cat "$D/msg")"
$T import "$F/rank1.json" --rank 5 -o "$D/r1b.db" >/dev/null || fail "import r1b"
refused "one rank in two stores" $T merge "$D/r0.db" "$D/r1.db" "$D/r2.db" "$D/r1b.db" -o "$D/out.db"
grep -q "r1.db' and '.*r1b.db' both hold rank 1" "$D/msg" || fail "same rank: $(cat "$D/msg")"
refused "not a store" $T merge "$D/r0.db" "$F/rank1.json" -o "$D/out.db"
refused "output is an input" $T merge "$D/r0.db" "$D/r1.db" -o "$D/r1.db"
cp "$D/r2.db" "$D/bad.db"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE events SET track_id = 99 WHERE id = 3'); c.commit()" "$D/bad.db"
refused "damaged store" $T merge "$D/r0.db" "$D/bad.db" -o "$D/out.db"
grep -q "bad.db': table events, row id 3" "$D/msg" || fail "damaged store: $(cat "$D/msg")"

# the job summary: analysed per rank (merge analyses a store without analysis), then the
# cross-rank tables recomputed on it equal the full store's
$T analyze "$D/all.db" >/dev/null || fail "analyze all"
$T merge --summary "$D/r0.db" "$D/r1.db" "$D/r2.db" "$D/r3.db" -o "$D/s.db" >/dev/null 2>"$D/msg" ||
	fail "merge --summary: $(cat "$D/msg")"
grep -q "no analysis yet: running analyze first" "$D/msg" || fail "summary did not analyse its inputs"
# a fresh summary is not analysed yet (its tables are the ranks'): report analyses it first
cp "$D/s.db" "$D/s2.db"
$T report "$D/s2.db" >/dev/null 2>"$D/msg" || fail "report on a fresh summary"
grep -q "s2.db' has no analysis yet: running analyze first" "$D/msg" ||
	fail "report on a fresh summary: $(cat "$D/msg")"
$T analyze "$D/s.db" >/dev/null || fail "analyze summary"
$DUMP "$D/all.db" --only analysis_comm analysis_comm_ranks >"$D/all.c" &&
	$DUMP "$D/s.db" --only analysis_comm analysis_comm_ranks >"$D/s.c" || fail "dump comm"
grep -q "^== analysis_comm_ranks (4 rows)" "$D/s.c" || fail "summary: no comm ranks"
diff "$D/all.c" "$D/s.c" >/dev/null || fail "summary comm tables differ: $(diff "$D/all.c" "$D/s.c" | head -5)"
$T report "$D/s.db" >/dev/null || fail "report on a summary"
# summaries of some ranks each (what the MPI processes of `import --mpi` send) merge into the job
# summary: the same cross-rank tables; a summary with a full store only under --summary
$T merge --summary "$D/r0.db" "$D/r1.db" -o "$D/s01.db" >/dev/null &&
	$T merge --summary "$D/r2.db" "$D/r3.db" -o "$D/s23.db" >/dev/null || fail "part summaries"
$T merge "$D/s23.db" "$D/s01.db" -o "$D/ss.db" >/dev/null || fail "merge of summaries"
js=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT value FROM meta WHERE key = 'job_summary'\").fetchone())" "$D/ss.db")
[ "$js" = "(1,)" ] || fail "a merge of summaries is no job summary: meta job_summary $js"
$T analyze "$D/ss.db" >/dev/null || fail "analyze the merge of summaries"
$DUMP "$D/ss.db" --only analysis_comm analysis_comm_ranks >"$D/ss.c" || fail "dump ss"
diff "$D/all.c" "$D/ss.c" >/dev/null || fail "summary of summaries differs: $(diff "$D/all.c" "$D/ss.c" | head -5)"
refused "a summary with a full store" $T merge "$D/s01.db" "$D/r2.db" -o "$D/out.db"
grep -q "s01.db' is a job summary and '.*r2.db' is not" "$D/msg" || fail "mix: $(cat "$D/msg")"
refused "a summary with a store of its ranks" $T merge --summary "$D/s01.db" "$D/r1.db" -o "$D/out.db"
grep -q "both hold rank 1" "$D/msg" || fail "summary rank clash: $(cat "$D/msg")"

# a job over two hosts with a planted clock offset (tests/data/analyze/clock): the summary's clock
# offsets, load balance and cross-rank findings (straggler, clock_offset, rank_imbalance) equal
# the full store's, without and with --align-clocks
C=$SRC/tests/data/analyze/clock
$T import "$C/rank0.json" "$C/rank1.json" "$C/rank2.json" "$C/rank3.json" -o "$D/call.db" >/dev/null ||
	fail "import clock job"
for r in 0 1 2 3; do
	$T import "$C/rank$r.json" -o "$D/c$r.db" >/dev/null && $T analyze "$D/c$r.db" >/dev/null ||
		fail "clock rank $r"
done
$T merge --summary "$D/c0.db" "$D/c1.db" "$D/c2.db" "$D/c3.db" -o "$D/cs.db" >/dev/null ||
	fail "clock summary"
XRANK="analysis_clock_offsets analysis_balance_ranks analysis_balance analysis_balance_slowest analysis_comm_ranks"
FIND="SELECT rule, severity, metric, threshold, summary, evidence FROM analysis_findings WHERE rule IN ('straggler', 'clock_offset', 'rank_imbalance') ORDER BY 1, 5"
for align in "" --align-clocks; do
	$T analyze "$D/call.db" $align >/dev/null && $T analyze "$D/cs.db" $align >/dev/null ||
		fail "analyze clock job $align"
	$DUMP "$D/call.db" --only $XRANK >"$D/call.x" && $DUMP "$D/cs.db" --only $XRANK >"$D/cs.x" ||
		fail "dump clock job"
	grep -q "^== analysis_clock_offsets (2 rows)" "$D/cs.x" || fail "summary $align: no clock offsets"
	diff "$D/call.x" "$D/cs.x" >/dev/null ||
		fail "summary cross-rank tables differ $align: $(diff "$D/call.x" "$D/cs.x" | head -5)"
	for db in call cs; do
		python3 -c "import sqlite3,sys; [print(r) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]" \
			"$D/$db.db" "$FIND" >"$D/$db.f" || fail "findings of $db"
	done
	grep -q "'straggler'" "$D/cs.f" || fail "summary $align: no straggler finding"
	diff "$D/call.f" "$D/cs.f" >/dev/null ||
		fail "summary cross-rank findings differ $align: $(diff "$D/call.f" "$D/cs.f" | head -5)"
done

# devices that run behind their host (tests/data/merge/lag): each host step's device interval is
# placed by the compute it launched, which the summary does not keep; its windows come from the
# ranks' copied tables (analyze/summary.c), so the same collectives are in the window
L=$SRC/tests/data/merge/lag
for r in 0 1; do
	$T import "$L/rank$r.json" -o "$D/l$r.db" >/dev/null && $T analyze -q "$D/l$r.db" ||
		fail "lag: rank $r"
done
$T import "$L/rank0.json" "$L/rank1.json" -o "$D/lall.db" >/dev/null && $T analyze -q "$D/lall.db" &&
	$T merge --summary "$D/l0.db" "$D/l1.db" -o "$D/ls.db" >/dev/null && $T analyze -q "$D/ls.db" ||
	fail "lag: full store or summary"
$DUMP "$D/lall.db" --only analysis_comm analysis_comm_ranks >"$D/lall.c" &&
	$DUMP "$D/ls.db" --only analysis_comm analysis_comm_ranks >"$D/ls.c" || fail "lag: dump"
[ "$(grep -c "('in_window', 1)" "$D/lall.c")" -eq 6 ] ||
	fail "lag: not every collective in the full store's window: $(grep -c "('in_window', 1)" "$D/lall.c")"
diff "$D/lall.c" "$D/ls.c" >/dev/null ||
	fail "lag: summary comm tables differ: $(diff "$D/lall.c" "$D/ls.c" | head -3 | cut -c1-300)"

# a synthetic job (compute, copies, steps, memory): the summary's cross-rank tables equal the
# full store's, and it is much smaller
$T synth -o "$D/syn.db" --events 300000 --devices 4 >/dev/null && $T analyze "$D/syn.db" >/dev/null ||
	fail "synth"
$T merge "$D/syn.db" -o "$D/synf.db" >/dev/null && $T merge --summary "$D/syn.db" -o "$D/syns.db" >/dev/null &&
	$T analyze "$D/syns.db" >/dev/null || fail "synth merges"
$DUMP "$D/syn.db" --only analysis_comm analysis_comm_ranks >"$D/syn.c" &&
	$DUMP "$D/syns.db" --only analysis_comm analysis_comm_ranks >"$D/syns.c" || fail "dump synth"
diff "$D/syn.c" "$D/syns.c" >/dev/null || fail "synth summary comm tables differ"
full=$(wc -c <"$D/synf.db")
summ=$(wc -c <"$D/syns.db")
# the summary keeps 1000 gaps per device and no per-step ops: under a third of the full merge
# (it was 0.42 when it kept every gap)
[ $((summ * 3)) -lt "$full" ] || fail "summary $summ bytes is not under a third of the full merge's $full"
# the reports of the summary are the rank's, but for what legitimately differs: the store path,
# its event count, the ids of the events it leaves out (gaps' neighbours) and the numbers of the
# cross-rank findings (analysed again, numbered after the copied ones)
for f in text json; do
	$T report "$D/syn.db" --format $f >"$D/syn.$f" && $T report "$D/syns.db" --format $f >"$D/syns.$f" ||
		fail "report $f"
	for x in syn syns; do
		grep -v -e '^tracekit report: ' -e '^  events: ' -e '"store": ' -e '"events": ' \
			-e '_event_id": ' -e '^ *"id": ' "$D/$x.$f" >"$D/$x.$f.cut"
	done
	diff "$D/syn.$f.cut" "$D/syns.$f.cut" >/dev/null ||
		fail "summary $f report differs: $(diff "$D/syn.$f.cut" "$D/syns.$f.cut" | head -5)"
done
grep -q '"total": [0-9]*' "$D/syns.json" || fail "no totals in the summary's JSON report"
echo "ok: summary $summ bytes, full merge $full bytes"
