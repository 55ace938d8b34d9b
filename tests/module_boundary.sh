#!/bin/sh
# The module boundaries: no file of a library module (store/, util/, import/, ...) includes a
# private header of another module. Each module's interface headers are listed in
# tests/module_interfaces.txt; every other header in a module's directory is private to it.
# Includes are resolved as the build resolves them: "dir/x.h" and "../dir/x.h" by path, a bare
# "x.h" to the including file's own directory first, then to the module that has an x.h (the
# library compiles with several module directories on its include path). util/ may include
# only util/ headers. Tests, bench/ and examples/ are not checked.
# Usage: module_boundary.sh <source dir>; exits 1 and names each offending line.
set -u
src=${1:?usage: module_boundary.sh <source dir>}
cd "$src" || exit 2
list=tests/module_interfaces.txt
[ -f "$list" ] || { echo "no $list in $src"; exit 2; }

# "module header" for every header of every module listed, with its interface mark.
modules=$(sed 's/#.*//' "$list" | sed -n 's/^[[:space:]]*\([a-z_]*\):.*/\1/p')
[ -n "$modules" ] || { echo "no modules in $list"; exit 2; }
headers=$(
	for m in $modules; do
		[ -d "$m" ] || { echo "MISSING $m"; continue; }
		iface=" $(sed 's/#.*//' "$list" | sed -n "s/^[[:space:]]*$m:\\(.*\\)/\\1/p") "
		for h in "$m"/*.h; do
			[ -e "$h" ] || continue
			name=${h#"$m"/}
			case "$iface" in *" * "* | *" $name "*) echo "$m $name public" ;; *) echo "$m $name private" ;; esac
		done
		# an interface header that does not exist is a stale list
		set -f
		for name in $iface; do
			[ "$name" = "*" ] || [ -e "$m/$name" ] || echo "STALE $m/$name"
		done
		set +f
	done
)
case "$headers" in *MISSING* | *STALE*)
	echo "$headers" | sed -n 's/^MISSING \(.*\)/\1: listed in '"${list##*/}"' but no such directory/p;
		s/^STALE \(.*\)/\1: listed as an interface header in '"${list##*/}"' but absent/p'
	exit 1 ;;
esac

files=$(for m in $modules; do find "$m" -type f \( -name '*.c' -o -name '*.h' \); done | sort)
[ -n "$files" ] || { echo "no sources found under $src"; exit 2; }

# One awk pass: the header table first, then every #include "..." of every file.
table=$(mktemp) || exit 2
trap 'rm -f "$table"' EXIT
echo "$headers" >"$table"
awk -v table="$table" '
FILENAME == table { kind[$1 "/" $2] = $3; owner[$2] = owner[$2] " " $1; next }
FNR == 1 { nfiles++ }
function norm(p,   n, i, a, out, k) {  # collapse "x/../" and "./"
	n = split(p, a, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "." || a[i] == "") continue
		if (a[i] == ".." && k > 0) { k--; continue }
		out[++k] = a[i]
	}
	p = ""; for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
	return p
}
{
	if ($0 !~ /^[ \t]*#[ \t]*include[ \t]*"/) next
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	mod = FILENAME; sub(/\/.*/, "", mod)
	dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
	target = ""
	if (index(inc, "/")) {
		rel = norm(dir "/" inc)
		target = ((rel in kind) ? rel : norm(inc))
	} else if ((dir "/" inc) in kind) {
		target = dir "/" inc
	} else {
		n = split(owner[inc], o, " ")
		if (n >= 1) target = o[1] "/" inc
	}
	if (!(target in kind)) next        # system, generated or public (<tracekit/...>) header
	tmod = target; sub(/\/.*/, "", tmod)
	if (tmod == mod) next
	why = ""
	if (mod == "util") why = "util/ includes only util/ headers"
	else if (kind[target] == "private") why = target " is private to " tmod "/ (interfaces: tests/module_interfaces.txt)"
	if (why != "") { printf "%s:%d: %s  <- %s\n", FILENAME, FNR, $0, why; bad = 1 }
}
END {
	if (bad) exit 1
	printf "module boundaries: %d files of %d modules checked\n", nfiles, nmod
}
' nmod="$(echo "$modules" | wc -l)" "$table" $files
