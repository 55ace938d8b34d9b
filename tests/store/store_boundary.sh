#!/bin/sh
# The store's boundary (docs/store.md, "Connections"): no code outside store/ opens a SQLite
# connection (the store offers the modes: tk_store_open_mode(), tk_writer_create(); tests may),
# and no file outside store/ and tests/store/ includes one of its private headers. The headers the
# store offers the rest of the library are listed in INTERFACE below; every other store/*.h is
# private.
# Usage: store_boundary.sh <source dir>; exits 1 and names each offending line.
set -u
src=${1:?usage: store_boundary.sh <source dir>}
cd "$src" || exit 2
INTERFACE="checked.h intern.h message.h outfile.h tscan.h"
[ -d store ] || { echo "no store/ in $src"; exit 2; }

private=""
for h in store/*.h; do
	name=${h#store/}
	case " $INTERFACE " in *" $name "*) continue ;; esac
	private="$private $name"
done

# Every C source and header of the tree but store/, tests/store/ and build trees.
sources=$(find . \( -path ./store -o -path ./tests/store -o -path './build*' \
	-o -name '.*' -a ! -name . \) -prune -o \( -name '*.c' -o -name '*.h' \) -type f -print | sort)
[ -n "$sources" ] || { echo "no sources found under $src"; exit 2; }

OPEN='(^|[^A-Za-z0-9_])sqlite3_open(_v2|16)?[[:space:]]*\('
bad=0
for f in $sources; do
	if [ "${f#./tests/}" = "$f" ] && grep -qE "$OPEN" "$f"; then
		grep -nE "$OPEN" "$f" |
			sed "s|^|$f:|; s|\$|  <- SQLite opened outside store/ (use tk_store_open_mode)|"
		bad=1
	fi
	for name in $private; do
		[ -e "$(dirname "$f")/$name" ] && continue # a module's own header of that name
		inc="^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?$name[\">]"
		if grep -qE "$inc" "$f"; then
			grep -nE "$inc" "$f" | sed "s|^|$f:|; s|\$|  <- store/$name is private to store/|"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] && echo "store boundary: $(echo "$sources" | wc -l) files outside store/ checked"
exit $bad
