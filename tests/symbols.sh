#!/bin/sh
# The public surface of the shared libraries, from their dynamic symbol tables (nm -D):
# libtracekit.so exports exactly the tk_ functions and variables that include/tracekit/*.h declare
# (an exported symbol without the tk_ prefix, an exported tk_ one no header declares, or a
# declared one not exported all fail), and the CUPTI injection library exports only its entry
# points (capture/cupti_inject.map). The linker's own _init, _fini, _edata, _end and __bss_start
# are allowed. Usage: symbols.sh NM INCLUDE_DIR LIBTRACEKIT_SO [LIBTRACEKIT_CUPTI_SO]
set -u
nm=$1
inc=$2
lib=$3
inj=${4:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# The names a library exports, less the linker's.
exported() {
	"$nm" -D --defined-only "$1" >"$tmp/nm" || {
		echo "symbols: $nm -D $1 failed"
		exit 1
	}
	awk 'NF >= 3 { print $3 }' "$tmp/nm" | sed 's/@.*//' |
		grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort -u
}

# Declared: every tk_ name followed by "(" in the headers (comments removed), less the static
# inline functions, plus the extern variables.
cat "$inc"/tracekit/*.h | perl -0777 -pe 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g' >"$tmp/headers"
grep -oE '\btk_[a-z0-9_]+[[:space:]]*\(' "$tmp/headers" | tr -d ' \t(' | sort -u >"$tmp/named"
grep -oE 'static inline[^(;]*\btk_[a-z0-9_]+[[:space:]]*\(' "$tmp/headers" |
	grep -oE 'tk_[a-z0-9_]+[[:space:]]*\($' | tr -d ' \t(' | sort -u >"$tmp/inline"
grep -E '^[[:space:]]*extern[^(]*\btk_[a-z0-9_]+[[:space:]]*;' "$tmp/headers" |
	grep -oE 'tk_[a-z0-9_]+[[:space:]]*;' | tr -d ' \t;' >"$tmp/vars"
{
	comm -23 "$tmp/named" "$tmp/inline"
	cat "$tmp/vars"
} | sort -u >"$tmp/declared"
if [ "$(wc -l <"$tmp/declared")" -lt 50 ]; then
	echo "symbols: only $(wc -l <"$tmp/declared") declarations found in $inc/tracekit: the scan is broken"
	exit 1
fi

exported "$lib" >"$tmp/exported"
grep -v '^tk_' "$tmp/exported" >"$tmp/bad_prefix"
grep '^tk_' "$tmp/exported" | comm -23 - "$tmp/declared" >"$tmp/undeclared"
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
report() { # FILE WHAT
	if [ -s "$1" ]; then
		echo "$2:"
		sed 's/^/  /' "$1"
		fail=1
	fi
}
report "$tmp/bad_prefix" "$lib exports symbols without the tk_ prefix (make them static or internal)"
report "$tmp/undeclared" "$lib exports tk_ symbols that include/tracekit/ does not declare (rename them to the module's internal prefix)"
report "$tmp/missing" "include/tracekit/ declares tk_ symbols that $lib does not export (declare them inside the headers' visibility push, define them in the library)"
echo "$lib: $(wc -l <"$tmp/exported") exported, $(wc -l <"$tmp/declared") declared"

if [ -n "$inj" ]; then
	exported "$inj" >"$tmp/inj"
	printf '%s\n' InitializeInjection InitializeInjectionNvtx InitializeInjectionNvtx2 \
		tkcap_cupti_host_hooks | sort >"$tmp/inj_allowed"
	comm -23 "$tmp/inj" "$tmp/inj_allowed" >"$tmp/inj_extra"
	comm -13 "$tmp/inj" "$tmp/inj_allowed" >"$tmp/inj_missing"
	report "$tmp/inj_extra" "$inj exports more than its entry points (capture/cupti_inject.map)"
	report "$tmp/inj_missing" "$inj does not export its entry points"
	echo "$inj: $(wc -l <"$tmp/inj") exported"
fi
exit $fail
