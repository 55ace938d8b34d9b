#!/bin/sh
# Every public function is documented: each declaration in include/tracekit/*.h has a comment
# right above it, or belongs to a group of declarations (no blank line between them) under a
# comment that names each of them ("tk_writer_set_meta_text()/_int()": the name, or its last
# "/_word()"). Names with the private prefix tk__ (the inline annotation helpers) are exempt.
# Usage: public_docs.sh INCLUDE_DIR
set -u
inc=$1
fail=0
for h in "$inc"/tracekit/*.h; do
	awk -v file="$h" '
	function named(n,   tail) {
		if (index(comment, n)) return 1
		tail = n; sub(/.*_/, "_", tail)
		return index(comment, "/" tail "(") > 0
	}
	incomment { comment = comment " " $0; if ($0 ~ /\*\//) { incomment = 0; group = 1; first = 1 } next }
	/^[ \t]*\/\*/ && !/\*\// { incomment = 1; comment = $0; next }
	/^[ \t]*\/\*.*\*\/[ \t]*$/ { comment = $0; group = 1; first = 1; next }
	# a declaration starts at column 0 with a type and a tk_ name followed by "("
	/^[A-Za-z].*[ *]tk_[a-z0-9_]+\(/ && !/^#/ && !/^typedef/ {
		name = $0
		sub(/\(.*/, "", name)
		sub(/.*[ *]/, "", name)
		if (name !~ /^tk__/ && !(group && (first || named(name)))) {
			printf "%s: %s has no comment\n", file, name
			bad = 1
		}
		first = 0
		indecl = ($0 !~ /[;{]/)
		next
	}
	indecl { if ($0 ~ /[;{]/) indecl = 0; next }   # continuation of a declaration
	/^[ \t]*$/ { group = 0; next }                  # a blank line ends the group
	/^[{}]/ || /^[ \t]/ { next }                    # bodies of inline functions and structs
	{ group = 0 }
	END { exit bad }
	' "$h" || fail=1
done
[ $fail -eq 0 ] && echo "public_docs: every public function in $inc/tracekit is documented"
exit $fail
