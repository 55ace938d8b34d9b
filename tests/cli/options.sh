#!/bin/sh
# The command line's option handling as a transcript: for each line of CASES (arguments split on
# spaces), the command, its stdout, its stderr and its exit code. Compared with options.expect by
# ctest (tests/CMakeLists.txt): --help texts, unknown-option and missing-value messages and exit
# codes are part of the interface (cli/options.c). Regenerate: options.sh TRACEKIT CASES >EXPECT
# Runs in a temporary directory: a case that gets past option parsing writes nothing here.
set -u
tk=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cases=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
while IFS= read -r line; do
	[ -n "$line" ] || continue
	# shellcheck disable=SC2086 # split on purpose
	set -- $line
	"$tk" "$@" >out 2>err </dev/null
	rc=$?
	printf '$ tracekit %s\n' "$line"
	sed 's/^/1| /' out
	sed 's/^/2| /' err
	printf 'exit %d\n' "$rc"
done <"$cases"
