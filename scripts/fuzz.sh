#!/usr/bin/env bash
# Fuzzing driver (docs/reliability.md). Usage: scripts/fuzz.sh COMMAND [TARGET...]
#   build     configure and build build-fuzz (clang, -DTK_FUZZ=ON): one fuzz_<name> per target
#   smoke     every target for a bounded run from the committed seeds (tests/fuzz/seeds); fails on
#             any crash, leak, timeout or out-of-memory; skips with a message when clang or
#             libFuzzer is missing
#   campaign  every target for FUZZ_SECONDS (default 600) with FUZZ_JOBS workers each, corpus in
#             build-fuzz/corpus/<name> (grown from the seeds and ../shared/corpus), crashes in
#             build-fuzz/crashes/<name>; prints executions, exec/s and coverage per target
#   seeds     regenerate the committed seeds tests/fuzz/seeds/ (needs a normal build in build/)
# Environment: FUZZ_BUILD (build-fuzz), FUZZ_SECONDS, FUZZ_JOBS, FUZZ_SMOKE_RUNS (executions per
# target in the smoke; default per target in smoke()), FUZZ_SMOKE_SECONDS (25), FUZZ_ARGS (extra
# libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${FUZZ_BUILD:-build-fuzz}
TARGETS=(xplane json json_salvage gzip logdir store store_read report check)
CORPUS_SRC=../shared/corpus
[ $# -ge 1 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
cmd=$1
shift
[ $# -gt 0 ] && TARGETS=("$@")

seeds_of() {
	case $1 in
	json_salvage) echo json ;;
	store_read) echo store ;;
	*) echo "$1" ;;
	esac
}

have_fuzzer() {
	command -v clang >/dev/null 2>&1 || return 1
	local d
	d=$(clang -print-resource-dir 2>/dev/null) || return 1
	ls "$d"/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1
}

build() {
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		CC=clang cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTK_WERROR=ON \
			-DTK_FUZZ=ON -DBUILD_TESTING=OFF -DTK_WITH_CUPTI=OFF >/dev/null
	fi
	local t=()
	for n in "${TARGETS[@]}"; do t+=(--target "fuzz_$n"); done
	cmake --build "$BUILD" -j "${JOBS:-2}" "${t[@]}"
}

# Per-target summary from a libFuzzer log: executions, exec/s, cov, ft.
summary() {
	local name=$1 log=$2
	local execs rate cov ft
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	printf '%-13s %12s %8s %7s %7s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}"
}

# Extra libFuzzer flags per target: a dictionary when there is one.
target_flags() {
	local d=$ROOT/tests/fuzz/dict/$(seeds_of "$1").dict
	[ -f "$d" ] && echo "-dict=$d"
	return 0
}

# Seeds for a campaign: the committed seeds, plus real traces (and test data) of the format.
grow_corpus() {
	local name=$1 dir=$BUILD/corpus/$1
	mkdir -p "$dir"
	cp -n "tests/fuzz/seeds/$(seeds_of "$name")"/* "$dir"/ 2>/dev/null || true
	[ -d "$CORPUS_SRC" ] || return 0
	case $name in
	xplane) find "$CORPUS_SRC/xplane" tests/data/xplane -name '*.xplane.pb' -size -1200k \
			-exec cp -n {} "$dir"/ \; ;;
	json | json_salvage) find "$CORPUS_SRC/kineto" "$CORPUS_SRC/perfetto_json" tests/data/json \
			\( -name '*.json' -o -name '*.json.gz' \) -size -200k -exec cp -n {} "$dir"/ \; ;;
	gzip) find "$CORPUS_SRC/kineto" -name '*.gz' -size -50k -exec cp -n {} "$dir"/ \; ;;
	esac
}

smoke() {
	if ! have_fuzzer; then
		echo "fuzz-smoke: skipped: clang with libFuzzer not found (Debian: clang libclang-rt-14-dev)" >&2
		return 0
	fi
	build >/dev/null
	local fail=0 out=$BUILD/smoke
	rm -rf "$out"
	printf '%-13s %12s %8s %7s %7s\n' target executions exec/s cov ft
	for n in "${TARGETS[@]}"; do
		# Bounded by executions, and at most FUZZ_SMOKE_SECONDS (25) each on a slow machine
		# (stopping there is a pass); generous per-input time and memory limits: only a real
		# crash, leak, hang or blow-up fails.
		local runs
		case $n in
		gzip) runs=30000 ;;
		logdir) runs=10000 ;;
		xplane) runs=3000 ;;
		json | json_salvage) runs=1500 ;;
		store) runs=300 ;;
		store_read | check) runs=3000 ;;
		*) runs=100 ;;
		esac
		runs=${FUZZ_SMOKE_RUNS:-$runs}
		mkdir -p "$out/$n/corpus" "$out/$n/crashes"
		local log=$out/$n.log
		# shellcheck disable=SC2046
		if ! "$BUILD/tests/fuzz/fuzz_$n" -runs="$runs" -timeout=30 -rss_limit_mb=4096 \
			-max_total_time="${FUZZ_SMOKE_SECONDS:-25}" -print_final_stats=1 -artifact_prefix="$out/$n/crashes/" \
			$(target_flags "$n") ${FUZZ_ARGS:-} "$out/$n/corpus" \
			"tests/fuzz/seeds/$(seeds_of "$n")" >"$log" 2>&1; then
			echo "fuzz-smoke: fuzz_$n FAILED; log: $log; input: $(ls "$out/$n/crashes"/* 2>/dev/null)" >&2
			grep -E 'ERROR|SUMMARY|fuzz check failed|#0 |#1 |#2 |#3 ' "$log" | head -20 >&2
			fail=1
			continue
		fi
		summary "$n" "$log"
	done
	return $fail
}

campaign() {
	build
	local secs=${FUZZ_SECONDS:-600} jobs=${FUZZ_JOBS:-1}
	mkdir -p "$BUILD/logs"
	local table=()
	for n in "${TARGETS[@]}"; do
		grow_corpus "$n"
		mkdir -p "$BUILD/crashes/$n"
		local log=$BUILD/logs/$n.log
		echo "fuzz: fuzz_$n for ${secs}s x $jobs (log $log)" >&2
		local par=()
		[ "$jobs" -gt 1 ] && par=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
		# shellcheck disable=SC2046
		"$BUILD/tests/fuzz/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="$BUILD/crashes/$n/" "${par[@]}" \
			$(target_flags "$n") ${FUZZ_ARGS:-} "$BUILD/corpus/$n" >"$log" 2>&1 || true
		table+=("$(summary "$n" "$log")")
	done
	printf '%-13s %12s %8s %7s %7s\n' target executions exec/s cov ft
	printf '%s\n' "${table[@]}"
	local found
	found=$(find "$BUILD/crashes" -type f | head -50)
	if [ -n "$found" ]; then
		echo "fuzz: inputs that crashed, hung or blew memory (minimize, then save under tests/fuzz/regress/<target>/):" >&2
		echo "$found" >&2
		return 1
	fi
}

seeds() {
	local tk=${TRACEKIT:-build/tracekit} s=tests/fuzz/seeds tmp
	[ -x "$tk" ] || { echo "fuzz: seeds needs $tk (make build)" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	rm -rf "$s"
	mkdir -p "$s"/{xplane,json,gzip,logdir,store,report,check}
	# XPlane: the test fixtures, and a small synthetic trace exported by tracekit.
	cp tests/data/xplane/*.xplane.pb "$s/xplane/"
	"$tk" synth -o "$tmp/s.db" --events 200 --devices 1 --streams 2 --steps 2 >/dev/null
	"$tk" export "$tmp/s.db" --format xplane -o "$tmp/ld" --run r >/dev/null
	cp "$(find "$tmp/ld" -name '*.xplane.pb' | head -1)" "$s/xplane/synth200.xplane.pb"
	# JSON: the test fixtures, tiny real traces (plain and gzip), a tracekit Chrome export.
	cp tests/data/json/*.json "$s/json/"
	if [ -d "$CORPUS_SRC" ]; then
		for f in json/json_flow.json json/json_async.json json/string_pid_tid.json \
			json/json_counter_args.json json/json_metadata.json; do
			cp "$CORPUS_SRC/perfetto_json/difftests/$f" "$s/json/perfetto_$(basename "$f")"
		done
		cp "$CORPUS_SRC/kineto/HolisticTraceAnalysis/tests/data/trace_compare/base/base.json.gz" \
			"$s/json/hta_base.json.gz"
		cp "$CORPUS_SRC/kineto/HolisticTraceAnalysis/tests/data/triton_example/triton_example.json.gz" \
			"$s/json/hta_triton.json.gz"
		cp "$s/json/hta_base.json.gz" "$s/gzip/hta_base.json.gz"
	fi
	"$tk" export "$tmp/s.db" --format chrome -o "$tmp/c.json" >/dev/null
	head -c 6000 "$tmp/c.json" >"$s/json/synth_chrome_cut.json"
	# gzip: a gzip JSON, a gzip XPlane, a concatenated gzip, zlib, plain text.
	gzip -9 -c tests/data/json/chrome_generic.json >"$s/gzip/chrome_generic.json.gz"
	gzip -9 -c tests/data/xplane/tiny.xplane.pb >"$s/gzip/tiny.xplane.pb.gz"
	{ gzip -c <<<'{"traceEvents": ['; gzip -c <<<']}'; } >"$s/gzip/two_members.gz"
	python3 -c 'import sys,zlib; sys.stdout.buffer.write(zlib.compress(b"[1, 2.5, \"x\", true, null, {}]"))' \
		>"$s/gzip/zlib.bin"
	cp tests/data/json/kineto_small.json "$s/gzip/plain.json"
	# check: a baseline of two short synthetic runs, the example gates file, a JSON gates file.
	"$tk" synth -o "$tmp/b1.db" --events 300 --devices 1 --steps 3 --jitter 1 >/dev/null
	"$tk" synth -o "$tmp/b2.db" --events 300 --devices 1 --steps 3 --jitter 2 >/dev/null
	"$tk" baseline "$tmp/b1.db" "$tmp/b2.db" -o "$s/check/baseline.json" >/dev/null 2>&1
	cp examples/ci/gates.toml "$s/check/gates.toml"
	printf '{"gates": ["step_time:+5%%", "kernel:*gemm*:+10%%"], "max": {"step_time.mean": "150ms"}, "min": {"kpi.gpu_utilization": 80}, "allow_different_hardware": false}\n' >"$s/check/gates.json"
	# Stores: small synthetic and imported ones, rewritten with 512-byte pages.
	"$tk" synth -o "$tmp/st1.db" --events 100 --devices 1 --streams 2 --steps 2 >/dev/null
	"$tk" import tests/data/xplane/tiny.xplane.pb -o "$tmp/st2.db" >/dev/null
	"$tk" import tests/data/json/kineto_small.json -o "$tmp/st3.db" >/dev/null
	for i in 1 2 3; do
		python3 - "$tmp/st$i.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA page_size = 512'); c.execute('VACUUM'); c.close()
PY
	done
	cp "$tmp/st1.db" "$s/store/synth100.db"
	cp "$tmp/st2.db" "$s/store/xplane_tiny.db"
	cp "$tmp/st3.db" "$s/store/kineto_small.db"
	# Logdirs and report stores: structured encodings (tests/fuzz/fuzz_logdir.c, fuzz_report.c).
	python3 - "$s" <<'PY'
import os, random, struct, sys
s = sys.argv[1]
def rd(p): return open(p, 'rb').read()
tiny, span, abs_ = (rd('tests/data/xplane/' + n) for n in ('tiny.xplane.pb', 'span.xplane.pb', 'abs_lines.xplane.pb'))
def ent(kind, comps, content=None, link=None):
    b = bytes([kind | ((len(comps) - 1) << 2)]) + bytes(comps)
    if link is not None: b += bytes([link])
    if content is not None: b += struct.pack('<H', len(content)) + content
    return b
# dictionary: 0 plugins 1 profile 2 run-2024-01-01 3 run-2024-01-02 4 run 5 host.xplane.pb 6 h2.xplane.pb 11 a
seeds = {
  'one_run': ent(0, [0, 1, 2, 5], tiny),
  'two_runs': ent(0, [0, 1, 2, 5], tiny) + ent(0, [0, 1, 3, 5], span) + ent(0, [0, 1, 3, 6], abs_),
  'run_dir_itself': ent(0, [5], abs_) + ent(1, [11]),
  'links_and_junk': ent(1, [0, 1, 4]) + ent(2, [0, 1, 4, 5], link=6) + ent(0, [0, 1, 4, 6], b'\x0a\x00') + ent(0, [0, 1, 2, 8], b'junk'),
}
for k, v in seeds.items(): open(f'{s}/logdir/{k}', 'wb').write(v)
rnd = random.Random(14)
names = [b'void cutlass::Kernel<cutlass::gemm::GemmUniversal<float, 128, 256>>(Params)', b'<script>alert("x")</script>',
         b'a&b "q" \'s\'', b'\xff\xfe bad utf-8 \xc3', b'tab\there\nnewline', b'\xe2\x80\xa8 line sep', b'ncclAllReduceKernel', b'']
def s_(b): b = b[:255]; return bytes([len(b)]) + b
for i in range(8):  # the first byte: bits 0-1 the format, bit 2 a diff
    out = bytearray([i]) + struct.pack('<H', 1000 + i)
    for _ in range(5): out += s_(rnd.choice(names))
    for _ in range(40):
        out += bytes([rnd.randrange(10)]) + s_(rnd.choice(names)) + bytes(rnd.randrange(256) for _ in range(24))
    open(f'{s}/report/mixed{i}', 'wb').write(bytes(out))
PY
	chmod -R u+w,a+r "$s"
	du -sh "$s"
}

case $cmd in
build) build ;;
smoke) smoke ;;
campaign) campaign ;;
seeds) seeds ;;
*) sed -n '2,14p' "$0" >&2; exit 2 ;;
esac
