#!/usr/bin/env bash
# Everything tracekit writes for a set of inputs, in one directory, so that two builds can be
# compared byte for byte (a refactoring must not change behaviour; docs/architecture.md).
#
# Usage: scripts/outputs.sh BUILD_DIR OUT_DIR [INPUT...]
#        scripts/outputs.sh --compare OLD_BUILD NEW_BUILD [INPUT...]
#
# For the synthetic demo store and each INPUT (default: every trace vendored under tests/data/real,
# plus ../shared/corpus when it is there): the imported store and the analysed store as a canonical
# dump (every table's columns, then its rows in rowid order: the SQLite file itself also holds page
# layout and the text of each CREATE statement, which are not behaviour), `info`, the report in
# text, HTML, JSON and Markdown, the three exports, and the diff of each input against the demo
# store. Messages and exit codes are kept too. --compare writes both and runs `diff -r`.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--compare" ]; then
	[ $# -ge 3 ] || { echo "usage: $0 --compare OLD_BUILD NEW_BUILD [INPUT...]" >&2; exit 2; }
	old=$2 new=$3
	shift 3
	work=$(mktemp -d)
	"$0" "$old" "$work/old" "$@" || exit 2
	"$0" "$new" "$work/new" "$@" || exit 2
	if diff -r "$work/old" "$work/new" >"$work/diff.txt"; then
		echo "same outputs: $(find "$work/old" -type f | wc -l) files ($work)"
		exit 0
	fi
	echo "outputs differ ($work/diff.txt):" >&2
	head -40 "$work/diff.txt" >&2
	exit 1
fi

[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR [INPUT...]" >&2; exit 2; }
tk=$(cd "$1" && pwd)/tracekit
out=$2
shift 2
[ -x "$tk" ] || { echo "$0: no tracekit in $1" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
	while IFS= read -r f; do inputs+=("$f"); done < <(
		find "$here/tests/data/real" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.xplane.pb' \) | sort
		[ -d "$here/../shared/corpus" ] && find "$here/../shared/corpus" -type f \
			\( -name '*.json' -o -name '*.json.gz' -o -name '*.xplane.pb' \) | sort)
fi

# A store as text: each table's columns and rows (BLOBs as hex), in name and rowid order.
dump() {
	python3 - "$1" <<'EOF'
import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name"):
    print("== " + name)
    print([tuple(r) for r in c.execute("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", (name,))])
    q = "SELECT * FROM \"%s\"" % name
    try:
        rows = c.execute(q + " ORDER BY rowid")
    except sqlite3.OperationalError:
        rows = c.execute(q)  # a view or a WITHOUT ROWID table
    for r in rows:
        print(repr(tuple(x.hex() if isinstance(x, bytes) else x for x in r)))
EOF
}

# run NAME CMD...: stdout to NAME.out, stderr (the work directory's name cut) and status to NAME.err
run() {
	local name=$1
	shift
	(cd "$work" && "$@") >"$dir/$name.out" 2>"$work/err"
	echo "exit $?" >"$dir/$name.err"
	sed -e "s#$work#WORK#g" -e "s#$here#SRC#g" "$work/err" >>"$dir/$name.err"
}

# One input through every command; the store is imported into WORK/s.db.
outputs() {
	dir=$1
	mkdir -p "$dir"
	[ -f "$work/s.db" ] || return 0
	dump "$work/s.db" >"$dir/imported.dump"
	run analyze "$tk" analyze s.db
	dump "$work/s.db" >"$dir/analysed.dump"
	run info "$tk" info s.db
	for f in text html json md; do
		run "report.$f" "$tk" report s.db --format "$f"
	done
	cp "$demo" "$work/d.db"
	run diff.txt "$tk" diff d.db s.db
	run diff.json "$tk" diff d.db s.db --format json
	run export.xplane "$tk" export s.db --format xplane -o x --run run -q
	(cd "$work/x" 2>/dev/null && find . -type f | sort | while read -r f; do echo "$f"; LC_ALL=C sed "s#$here#SRC#g" "$f" | sha256sum; done) >"$dir/export.xplane.files"
	run export.perfetto "$tk" export s.db --format perfetto -o t.pftrace -q
	LC_ALL=C sed "s#$here#SRC#g" "$work/t.pftrace" 2>/dev/null | sha256sum >"$dir/export.perfetto.sha"
	run export.chrome "$tk" export s.db --format chrome -o t.json.gz -q
	gzip -dc "$work/t.json.gz" 2>/dev/null | LC_ALL=C sed "s#$here#SRC#g" | sha256sum >"$dir/export.chrome.sha"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The demo store (also the left side of every diff).
demo=$(mktemp)
trap 'rm -rf "$work" "$demo"' EXIT
(cd "$work" && "$tk" synth -o d.db --events 30000 --devices 2 --steps 6 --seed 1 &&
	"$tk" analyze d.db && "$tk" synth -o s.db --events 30000 --devices 2 --steps 6 --seed 2) >/dev/null 2>&1
cp "$work/d.db" "$demo"
outputs "$out/synth"
for f in text html json md; do
	(cd "$work" && "$tk" diff d.db s.db --format "$f") >"$out/synth/diff.all.$f" 2>&1
done

n=0
for in in "${inputs[@]}"; do
	n=$((n + 1))
	rm -rf "${work:?}"/*
	name=$(printf '%03d_%s' "$n" "$(basename "$in" | tr -c 'A-Za-z0-9._\n-' '_')")
	mkdir -p "$out/$name"
	(cd "$work" && "$tk" import "$in" -o s.db) >"$out/$name/import.out" 2>"$work/err"
	echo "exit $?" >"$out/$name/import.err"
	sed -e "s#$work#WORK#g" -e "s#$here#SRC#g" "$work/err" >>"$out/$name/import.err"
	outputs "$out/$name"
done
# The checkout's path reaches stores (sources.path) and messages: name it SRC, so that two
# checkouts compare.
find "$out" -type f -exec sed -i -e "s#$here#SRC#g" {} +
echo "$out: the demo store and ${#inputs[@]} inputs"
