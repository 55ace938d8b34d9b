#!/bin/sh
# The public headers (include/tracekit/*.h) compile warning-free in a user's strict build:
# each header alone (twice, for its guard), then tests/capture/user_program.c, with COMPILER
# as C (c99, c11, c17) or as C++ (c++11, c++17) under -Wall -Wextra -Wpedantic -Wshadow
# -Werror; any diagnostic fails, and so does a tracekit function given C++ linkage. Exits 77 (ctest SKIP) when COMPILER is not installed.
# Usage: public_headers.sh COMPILER c|c++ INCLUDE_DIR USER_PROGRAM
set -u
cc=$1 lang=$2 inc=$3 prog=$4
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "public_headers: $cc is not installed: skipped"
	exit 77
fi
if [ "$lang" = c ]; then
	stds="c99 c11 c17"
	warn="-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Werror"
else
	stds="c++11 c++17"
	warn="-Wall -Wextra -Wpedantic -Wshadow -Werror"
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# compile FILE STD: fails on a non-zero exit or on any diagnostic at all
compile() {
	# shellcheck disable=SC2086 # $warn is a list of flags
	if ! "$cc" -x "$lang" -std="$2" $warn -O2 -I"$inc" -c "$1" -o "$tmp/out.o" \
		>"$tmp/diag" 2>&1 || [ -s "$tmp/diag" ]; then
		echo "FAIL: $cc -x $lang -std=$2 $warn: $3"
		cat "$tmp/diag"
		fail=1
	fi
}
for std in $stds; do
	for h in "$inc"/tracekit/*.h; do
		name=tracekit/$(basename "$h")
		printf '#include <%s>\n#include <%s>\nint tk_user_main(void);\nint tk_user_main(void) { return 0; }\n' \
			"$name" "$name" >"$tmp/one.c"
		compile "$tmp/one.c" "$std" "$name alone"
	done
	compile "$prog" "$std" "$(basename "$prog")"
	# C++: every tk_ function the program calls is referenced by its C name (extern "C"),
	# or it would not link against the library
	if [ "$lang" = c++ ] && [ -s "$tmp/out.o" ] && command -v nm >/dev/null 2>&1; then
		mangled=$(nm -u "$tmp/out.o" | grep -E ' _Z[0-9A-Za-z_]*tk_' || true)
		if [ -n "$mangled" ]; then
			echo "FAIL: $cc -std=$std: tracekit functions get C++ linkage (no extern \"C\"):"
			echo "$mangled"
			fail=1
		fi
	fi
done
[ $fail -eq 0 ] && echo "public_headers: $cc ($lang: $stds) compiles every public header warning-free"
exit $fail
