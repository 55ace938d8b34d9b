#!/usr/bin/env bash
# The MPI mode under Slurm (docs/scale.md, "Beyond one machine"), in one run on a machine where
# Slurm answers (`sinfo`; a one-node cluster is enough: slurm-wlm and munge from Debian, a
# slurm.conf naming this host, munged, slurmctld and slurmd started). On the 4-rank fixture of
# tests/data/analyze/comm, against one process's `import` + `analyze`:
#   1. `srun --mpi=pmix -n 2 tracekit import DIR --mpi --store-dir D`: the job summary's
#      communication tables equal one process's (canonical dump, tests/merge/canonical_dump.py);
#   2. `srun --mpi=pmix -n 2 tracekit analyze D/*.tkdb --mpi`: the same from the per-rank stores;
#   3. the docs' batch script through `sbatch` (one node, two tasks): the same;
#   4. `salloc -n 2 mpirun tracekit import ... --mpi` (mpirun reads the allocation): the same;
#   5. a truncated trace among the inputs: srun exits 2 for every task, the message names the
#      file, and no job summary is left.
# Not part of `make test` (CI has no Slurm). Usage: scripts/slurm_check.sh [BUILD_DIR]. Exits 0
# when every check holds, 1 when one does not, 3 when Slurm does not answer.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tk="$build/tracekit"
if ! sinfo -h >/dev/null 2>&1; then
	echo "slurm_check: Slurm does not answer (sinfo); nothing checked"
	exit 3
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fails=0
check() { # what, then a command whose success means it holds
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
dump() { python3 "$src/tests/merge/canonical_dump.py" "$1" --only analysis_comm analysis_comm_ranks; }
same() { dump "$1" >"$d/x.c" && diff "$d/one.c" "$d/x.c" >/dev/null; }
mpiflag=
[ "$(id -u)" = 0 ] && mpiflag=--allow-run-as-root

mkdir "$d/traces" && cp "$src"/tests/data/analyze/comm/rank?.json "$d/traces/" || exit 1
if ! { "$tk" import "$d/traces" -o "$d/one.db" >/dev/null && "$tk" analyze -q "$d/one.db" &&
	dump "$d/one.db" >"$d/one.c"; }; then
	echo "slurm_check: one process failed"
	exit 1
fi

srun -n 2 --mpi=pmix "$tk" import "$d/traces" -o "$d/job.tkdb" --mpi --store-dir "$d/tk" \
	>"$d/out" 2>&1
check "srun import --mpi: the job summary's comm tables are one process's" same "$d/job.tkdb"
srun -n 2 --mpi=pmix "$tk" analyze "$d"/tk/*.tkdb --mpi -o "$d/an.tkdb" >"$d/out" 2>&1
check "srun analyze --mpi of the per-rank stores: the same" same "$d/an.tkdb"

cat >"$d/job.sh" <<EOF
#!/bin/sh
#SBATCH --job-name=tracekit --nodes=1 --ntasks-per-node=2 --mem-per-cpu=1G --time=00:10:00
srun --mpi=pmix "$tk" import "$d/traces" -o "$d/sb.tkdb" --mpi --store-dir "$d/sbtk"
EOF
sbatch --wait --output="$d/sbatch.out" "$d/job.sh" >/dev/null 2>&1
check "sbatch of the docs' script: the same" same "$d/sb.tkdb"

# shellcheck disable=SC2086 # no flag or one
salloc -n 2 mpirun $mpiflag "$tk" import "$d/traces" -o "$d/sa.tkdb" --mpi >"$d/out" 2>&1
check "salloc + mpirun import --mpi: the same" same "$d/sa.tkdb"

mkdir "$d/bad" && cp "$d"/traces/*.json "$d/bad/" && printf '{"traceEvents": [ {"ph":' >"$d/bad/rank3.json"
srun -n 2 --mpi=pmix "$tk" import "$d/bad" -o "$d/bad.tkdb" --mpi --store-dir "$d/badtk" >"$d/out" 2>&1
rc=$?
# shellcheck disable=SC2016 # expanded by the inner sh
check "a truncated trace: srun exits 2 ($rc), the file named, no job summary" \
	sh -c '[ "$1" -eq 2 ] && grep -q "rank3.json.: line 1" "$2" && [ ! -e "$3" ]' _ "$rc" "$d/out" "$d/bad.tkdb"

[ "$fails" -eq 0 ] && echo "slurm_check: every check holds" || echo "slurm_check: $fails failed"
[ "$fails" -eq 0 ]
