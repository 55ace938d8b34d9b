#!/bin/sh
# `make format-check` (and `make format`): the tracked C sources and headers against the
# repository's .clang-format. Lists each file clang-format would change and fails when there is
# one; with --fix, rewrites them in place instead. Generated code lives in build directories and
# is not tracked; nothing vendored is C. CLANG_FORMAT names the binary (the style is checked with
# clang-format 14: other versions may format a few constructs differently).
cd "$(dirname "$0")/.." || exit 2
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
	echo "format-check: $cf not found (apt-get install clang-format, or set CLANG_FORMAT)" >&2
	exit 2
fi
files=$(git ls-files -- '*.c' '*.h') || {
	echo "format-check: not a git checkout: the files to check are the tracked ones" >&2
	exit 2
}
if [ "${1:-}" = "--fix" ]; then
	printf '%s\n' $files | xargs "$cf" -i --style=file
	exit $?
fi
bad=0
total=0
for f in $files; do
	total=$((total + 1))
	if ! "$cf" --dry-run --Werror --style=file "$f" >/dev/null 2>&1; then
		echo "$f"
		bad=$((bad + 1))
	fi
done
if [ "$bad" -ne 0 ]; then
	echo "format-check: $bad of $total files differ from .clang-format" \
		"(clang-format --dry-run FILE shows where; make format rewrites them)" >&2
	exit 1
fi
echo "format-check: $total files follow .clang-format"
