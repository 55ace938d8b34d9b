# What the shell checks of tests/merge share (sourced after `set -u`, with T=TRACEKIT and
# SRC=SOURCE_DIR set): the 4-rank fixture F, the canonical dump DUMP, a scratch directory D
# removed on exit, and fail().
F=$SRC/tests/data/analyze/comm
DUMP="python3 $SRC/tests/merge/canonical_dump.py"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
