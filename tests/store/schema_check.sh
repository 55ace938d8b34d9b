#!/bin/sh
# The schemas against what describes them (ctest store/schema_docs and store/schema_links).
#
# Usage: schema_check.sh docs|links SCHEMA_GEN SOURCE_DIR
#   docs:  every table of schemas/store.sql and schemas/analysis.sql is in docs/store.md as
#          `name(column, ...)` with exactly its columns in order, and every such entry there is a
#          table of the schemas with those columns (nothing documented that does not exist).
#   links: the "written by:" and "read by:" lines above each table of schemas/analysis.sql name
#          exactly the source files (*.c of the library and the CLI) that name the table, and the
#          written-by files are those that INSERT INTO it.
# SCHEMA_GEN is the build's tk_schema_gen (schemas/schema_gen.c), which parses the schemas.
set -u
mode=$1 gen=$2 src=$3
cd "$src" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
complain() {
	echo "schema_check $mode: $*" >&2
	fail=1
}

case $mode in
docs)
	"$gen" tables schemas/store.sql schemas/analysis.sql >"$tmp/schema" || exit 2
	# `name(a, b, c)` at the start of a table row of docs/store.md, as "name a b c"
	sed -n 's/^| `\([a-z_][a-z_0-9]*\)(\([^)]*\))`.*/\1 \2/p' docs/store.md | tr -d ',' \
		>"$tmp/docs"
	[ -s "$tmp/docs" ] || complain "no \`table(columns)\` rows found in docs/store.md"
	while read -r name cols; do
		doc=$(awk -v n="$name" '$1 == n { $1 = ""; print substr($0, 2) }' "$tmp/docs")
		if [ -z "$doc" ]; then
			complain "table $name (schemas) is not in docs/store.md as \`$name(...)\`"
		elif [ "$doc" != "$cols" ]; then
			complain "table $name: docs/store.md lists ($doc), the schema declares ($cols)"
		fi
	done <"$tmp/schema"
	while read -r name cols; do
		grep -q "^$name " "$tmp/schema" ||
			complain "docs/store.md documents \`$name(...)\`, which no schema declares"
	done <"$tmp/docs"
	;;
links)
	"$gen" links schemas/analysis.sql >"$tmp/links" || exit 2
	"$gen" tables schemas/analysis.sql | cut -d' ' -f1 >"$tmp/tables" || exit 2
	dirs="analyze report cli check export store import synth capture"
	while read -r t; do
		written=$(awk -v t="$t" '$1 == t && $2 == "written" { $1 = $2 = ""; print }' "$tmp/links" |
			tr ' ' '\n' | sed '/^$/d' | sort)
		read_by=$(awk -v t="$t" '$1 == t && $2 == "read" { $1 = $2 = ""; print }' "$tmp/links" |
			tr ' ' '\n' | sed '/^$/d' | sort)
		[ -n "$written" ] || complain "$t: no \"written by:\" line in schemas/analysis.sql"
		# shellcheck disable=SC2086
		inserts=$(grep -rl --include='*.c' "INSERT INTO $t\\b" $dirs | sort)
		[ "$written" = "$inserts" ] ||
			complain "$t: written by: $(echo $written) in schemas/analysis.sql, but INSERT INTO $t is in: $(echo $inserts)"
		# shellcheck disable=SC2086
		named=$(grep -rlw --include='*.c' "$t" $dirs | sort)
		declared=$(printf '%s\n%s\n' "$written" "$read_by" | sed '/^$/d' | sort -u)
		[ "$named" = "$declared" ] ||
			complain "$t: schemas/analysis.sql says written by + read by: $(echo $declared); the files that name it: $(echo $named)"
	done <"$tmp/tables"
	;;
*)
	echo "usage: $0 docs|links SCHEMA_GEN SOURCE_DIR" >&2
	exit 2
	;;
esac
[ $fail = 0 ] && echo "schema_check $mode: ok"
exit $fail
