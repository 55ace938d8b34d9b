#!/bin/sh
# import --mpi and analyze --mpi (cli/mpi.c) under mpirun on the 4-rank fixture of
# tests/data/analyze/comm: with 4, 2 and 1 processes the job summary's cross-rank tables
# (analysis_comm, analysis_comm_ranks, by rank: canonical_dump.py) equal those of one process's
# import + analyze; ranks from file order as in one import; a rank directory expands as in one
# import (two traces of one rank refused); per-rank stores beside the inputs or in --store-dir;
# analyze --mpi of the
# per-rank stores gives them too; a broken input on one process: exit 2 from mpirun, a message
# naming the file, no JOB and no temporary directory left; JOB may be neither an input nor a
# per-rank store. Registered only with MPI.
# usage: mpi.sh TRACEKIT SOURCE_DIR MPIRUN
set -u
T=$1
SRC=$2
MPIRUN=$3
# shellcheck source=tests/merge/common.sh
. "$SRC/tests/merge/common.sh"
# Open MPI: more processes than cores, as root too, and no busy wait on a loaded machine
flags=
if "$MPIRUN" --version 2>&1 | grep -qiE "open.?mpi|openrte"; then
	flags="--oversubscribe --allow-run-as-root"
	export OMPI_MCA_mpi_yield_when_idle=1
	# the sanitizer build: Open MPI's own leaks left out by library (its components stay
	# loaded so that their stacks name them), tracekit's still reported
	export OMPI_MCA_mca_base_component_disable_dlclose=1
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
	export LSAN_OPTIONS="${LSAN_OPTIONS:-}:suppressions=$SRC/tests/merge/mpi_lsan.supp:print_suppressions=0"
fi
mpi() { # processes, then the tracekit arguments
	np=$1; shift
	# shellcheck disable=SC2086 # the flags split on purpose
	"$MPIRUN" $flags -np "$np" "$T" "$@"
}
comm() { $DUMP "$1" --only analysis_comm analysis_comm_ranks; }

mkdir "$D/in" && cp "$F"/rank?.json "$D/in/" || fail "copy the fixture"
IN="$D/in/rank0.json $D/in/rank1.json $D/in/rank2.json $D/in/rank3.json"
# shellcheck disable=SC2086
$T import $IN -o "$D/one.db" >/dev/null && $T analyze -q "$D/one.db" || fail "one process"
comm "$D/one.db" >"$D/one.c" || fail "dump one"
grep -q "^== analysis_comm_ranks (4 rows)" "$D/one.c" || fail "no comm ranks: $(head -3 "$D/one.c")"

for np in 4 2 1; do
	# shellcheck disable=SC2086
	mpi $np import $IN -o "$D/job$np.db" --mpi --store-dir "$D/s$np" >"$D/out" 2>&1 ||
		fail "import --mpi -np $np: $(cat "$D/out")"
	grep -q "job$np.db (job summary): 4 files from $np MPI process" "$D/out" ||
		fail "-np $np said: $(cat "$D/out")"
	comm "$D/job$np.db" >"$D/job$np.c" || fail "dump job$np"
	diff "$D/one.c" "$D/job$np.c" >/dev/null ||
		fail "-np $np differs from one process: $(diff "$D/one.c" "$D/job$np.c" | head -5)"
	[ -f "$D/s$np/0002-rank2.json.tkdb" ] || fail "-np $np: no per-rank store: $(ls "$D/s$np")"
done
ls -a "$D" | grep -q tracekit-mpi && fail "a temporary directory is left: $(ls -a "$D")"

# files that do not state their rank get it from their place among the inputs, as in one process
mkdir "$D/nr" || fail "mkdir"
for r in 0 1 2 3; do
	python3 -c "import json,sys; t=json.load(open(sys.argv[1])); t.pop('distributedInfo'); json.dump(t, open(sys.argv[2], 'w'))" \
		"$F/rank$r.json" "$D/nr/r$r.json" || fail "strip distributedInfo"
done
NR="$D/nr/r0.json $D/nr/r1.json $D/nr/r2.json $D/nr/r3.json"
# shellcheck disable=SC2086
$T import $NR -o "$D/nr1.db" --rank 4 >/dev/null && $T analyze -q "$D/nr1.db" || fail "nr one"
# shellcheck disable=SC2086
mpi 3 import $NR -o "$D/nr3.db" --rank 4 --mpi >"$D/out" 2>&1 || fail "nr: $(cat "$D/out")"
comm "$D/nr1.db" >"$D/nr1.c" && comm "$D/nr3.db" >"$D/nr3.c" || fail "dump nr"
grep -q "('rank', 7)" "$D/nr1.c" || fail "nr: no rank 7 in one process's tables: $(head -20 "$D/nr1.c")"
diff "$D/nr1.c" "$D/nr3.c" >/dev/null || fail "nr: ranks differ: $(diff "$D/nr1.c" "$D/nr3.c" | head -5)"

# a rank directory (tests/data/import/rank_dir/job: two hosts, a worker0.json on each) expands as
# in one import: the same sources and devices with their ranks; two traces of one rank refused
RD=$SRC/tests/data/import/rank_dir
$T import "$RD/job" -o "$D/rd1.db" >/dev/null || fail "rank dir, one process"
mpi 2 import "$RD/job" -o "$D/rd2.db" --mpi --store-dir "$D/rds" >"$D/out" 2>&1 ||
	fail "rank dir: $(cat "$D/out")"
$DUMP "$D/rd1.db" --only sources devices >"$D/rd1.t" && $DUMP "$D/rd2.db" --only sources devices >"$D/rd2.t" ||
	fail "dump rank dir"
diff "$D/rd1.t" "$D/rd2.t" >/dev/null || fail "rank dir differs: $(diff "$D/rd1.t" "$D/rd2.t" | head -5)"
[ "$(ls "$D/rds" | wc -l)" -eq 4 ] || fail "rank dir: not 4 per-rank stores: $(ls "$D/rds")"
mpi 2 import "$RD/dup" -o "$D/dup.db" --mpi >"$D/out" 2>&1
[ $? -eq 2 ] && grep -q "are both rank 1" "$D/out" && [ ! -e "$D/dup.db" ] ||
	fail "rank dir with one rank twice: $(cat "$D/out")"

# per-rank stores beside the inputs, then analyze --mpi of them
# shellcheck disable=SC2086
mpi 3 import $IN -o "$D/beside.db" --mpi >"$D/out" 2>&1 || fail "import beside: $(cat "$D/out")"
for r in 0 1 2 3; do
	[ -f "$D/in/rank$r.json.tkdb" ] || fail "no $D/in/rank$r.json.tkdb"
done
mpi 2 analyze "$D"/in/rank?.json.tkdb --mpi -o "$D/an.db" >"$D/out" 2>&1 ||
	fail "analyze --mpi: $(cat "$D/out")"
comm "$D/an.db" | diff "$D/one.c" - >/dev/null || fail "analyze --mpi differs from one process"

# JOB the path of a per-rank store (beside its input, by another spelling; in --store-dir):
# refused before any work, the input's store not made
# shellcheck disable=SC2086
mpi 2 import $IN -o "$D/in/../in/rank3.json.tkdb" --mpi >"$D/out" 2>&1
[ $? -eq 2 ] && grep -q "would be the per-rank store of '$D/in/rank3.json'" "$D/out" ||
	fail "JOB a per-rank store: $(cat "$D/out")"
# shellcheck disable=SC2086
mpi 2 import $IN -o "$D/sj/0001-rank1.json.tkdb" --mpi --store-dir "$D/sj" >"$D/out" 2>&1
[ $? -eq 2 ] && grep -q "would be the per-rank store of '$D/in/rank1.json'" "$D/out" &&
	[ ! -e "$D/sj" ] || fail "JOB a per-rank store in --store-dir: $(cat "$D/out")"
# a broken input on one process: every process stops, exit 2, the file named, no JOB
printf '{"traceEvents": [ {"ph":' >"$D/in/rank2.json"
# shellcheck disable=SC2086
mpi 4 import $IN -o "$D/bad.db" --mpi --store-dir "$D/sb" >"$D/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "broken input: mpirun exit $rc, not 2: $(cat "$D/out")"
grep -q "tracekit: MPI process [0-9] of 4 (.*): '$D/in/rank2.json': line 1" "$D/out" ||
	fail "broken input: $(cat "$D/out")"
[ ! -e "$D/bad.db" ] || fail "broken input: JOB left"
[ ! -e "$D/sb/0002-rank2.json.tkdb" ] || fail "broken input: its store left"
ls -a "$D" | grep -q tracekit-mpi && fail "broken input: a temporary directory is left"
# the output an input: refused before any work
mpi 2 analyze "$D/an.db" "$D/job4.db" --mpi -o "$D/job4.db" >"$D/out" 2>&1
[ $? -eq 2 ] || fail "output is an input: $(cat "$D/out")"
echo "ok"
