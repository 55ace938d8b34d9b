# The two commands of the quick start, and a few more. Every target sets up what it needs.
#   make demo   set up, build, run synth -> info -> queries -> analyze -> report on the built-in example
#   make test   set up, check the format (make format-check), build, run the whole suite twice: gcc (RelWithDebInfo), then clang with
#               ASan+UBSan; both with -Werror, so both compilers stay warning-free
#               (make test-asan: the same sanitizer build with gcc)
#   make bench  write 1 M and 10 M event stores and print events/s and peak RSS; time check
#   make bench-job  a synthetic 64-rank x 1 M-event job imported and analysed as 8..64 ranks
#               (bench/job_bench.sh; ~30 GB of disk, several minutes)
#   make fuzz   build the libFuzzer targets (clang) in build-fuzz and run a campaign
#               (FUZZ_SECONDS=600 per target, FUZZ_JOBS=1, FUZZ_TARGETS="xplane json ..."; docs/reliability.md)
#   make fuzz-smoke  every fuzz target for a bounded run from the committed seeds (part of make test)
#   make format-check  the tracked C sources and headers against .clang-format (clang-format
#               --dry-run --Werror; lists the files it would change); make format rewrites them
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
CLANG_ASAN_BUILD ?= build-clang-asan
CMAKE_FLAGS ?=
# ctest in a sanitizer build: leaks and undefined behaviour fail the test
SAN_CTEST = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest -j $(JOBS) --output-on-failure

.PHONY: all setup test-setup build demo test test-fast test-asan test-clang bench bench-job clean fuzz fuzz-smoke \
	format-check format

all: build

setup:
	@scripts/setup.sh

$(BUILD)/CMakeCache.txt: | setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTK_WERROR=ON $(CMAKE_FLAGS) >/dev/null

build: setup $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

# The HTML report test needs headless Chromium: install it when missing (the test skips when
# it cannot be installed).
test-setup: setup
	@tests/report/install_chromium.sh || echo "make: chromium unavailable: the HTML browser test will skip" >&2

test-fast: build test-setup
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure

$(ASAN_BUILD)/CMakeCache.txt: | setup
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_WERROR=ON -DTK_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null

test-asan: setup test-setup $(ASAN_BUILD)/CMakeCache.txt
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && $(SAN_CTEST)

# The sanitizer build with clang: clang's warnings under -Werror and its ASan+UBSan, for the
# cost of one build (CC is read when the build directory is first configured). Built without
# ISA-L, so that the suite also runs on zlib's inflate alone (util/gz_reader.c).
$(CLANG_ASAN_BUILD)/CMakeCache.txt: | setup
	@CC=clang cmake -S . -B $(CLANG_ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_WERROR=ON -DTK_SANITIZE=ON -DTK_WITH_ISAL=OFF $(CMAKE_FLAGS) >/dev/null

test-clang: setup test-setup $(CLANG_ASAN_BUILD)/CMakeCache.txt
	@cmake --build $(CLANG_ASAN_BUILD) -j $(JOBS)
	@cd $(CLANG_ASAN_BUILD) && $(SAN_CTEST)

test: format-check test-fast test-clang fuzz-smoke

bench: build
	@bench/run.sh $(BUILD)
	@bench/check_bench.sh $(BUILD)

bench-job: build
	@bench/job_bench.sh $(BUILD)

FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= 1
FUZZ_TARGETS ?=

fuzz: setup
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) JOBS=$(JOBS) scripts/fuzz.sh campaign $(FUZZ_TARGETS)

fuzz-smoke: setup
	@JOBS=$(JOBS) scripts/fuzz.sh smoke $(FUZZ_TARGETS)

format-check: setup
	@scripts/format-check.sh

format:
	@scripts/format-check.sh --fix

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(CLANG_ASAN_BUILD) build-fuzz
