#!/bin/sh
# The performance gate of a CI job (docs/check.md): check the benchmark's trace(s) against the
# committed baseline, write the JUnit file and the Markdown summary, and fail the job on a
# regression (exit 1) or when the runs cannot be compared (exit 2).
#   examples/ci/gate.sh TRACE...
# Environment: TRACEKIT (the tracekit binary; default: tracekit on PATH), BASELINE (default
# perf/baseline.json), GATES (a gates file, default perf/gates.toml when it exists), OUT (where
# the reports go, default tracekit-out). Under GitHub Actions the summary is also appended to
# $GITHUB_STEP_SUMMARY and regressions become ::error:: annotations.
set -u
TRACEKIT=${TRACEKIT:-tracekit}
BASELINE=${BASELINE:-perf/baseline.json}
GATES=${GATES:-perf/gates.toml}
OUT=${OUT:-tracekit-out}
[ $# -ge 1 ] || { echo "usage: $0 TRACE..." >&2; exit 2; }
mkdir -p "$OUT" || exit 2
set -- "$@" --baseline "$BASELINE" --junit "$OUT/junit.xml" --markdown "$OUT/summary.md"
[ -f "$GATES" ] && set -- "$@" --gates "$GATES"
rc=0
"$TRACEKIT" check "$@" || rc=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$OUT/summary.md" ]; then
	cat "$OUT/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
exit $rc
