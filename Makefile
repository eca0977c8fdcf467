# Thin wrapper over CMake.  `make demo` and `make test` install what is
# missing (scripts/install-deps), build, then run.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build install demo test test-asan bench clean

all: build

deps:
	@scripts/install-deps

# Quiet: a progress line; the compiler's output in $(BUILD)/build.log.
build: deps
	@JOBS=$(JOBS) scripts/build $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

demo: build
	$(BUILD)/bin/iofleet demo

# The three programs, their manual pages (man iofleet), the bash completion,
# units and configuration files, where the packages put them (PREFIX, default
# /usr; DESTDIR for a staging directory).
PREFIX ?=
install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

# The suite runs twice (scripts/test): the normal build first, then
# again under AddressSanitizer and UndefinedBehaviorSanitizer (all but the
# root-only rack and write-guard tests, label "fleet": the same daemons in
# namespaces and on loop devices, whose code the e2e tests already run
# under the sanitizers; and label "asan-skip", e2e tests whose code others
# run under them).  Each pass prints its summary line, and the command
# fails if either failed.  Both run two tests at a time (the e2e tests
# mostly wait on their steps); the tests that judge latencies, IOPS or
# rates against a baseline, a cap or fio run alone (RUN_SERIAL,
# tests/CMakeLists.txt).
test: build
	@BUILD=$(BUILD) BUILD_ASAN=$(BUILD_ASAN) JOBS=$(JOBS) scripts/test

# The sanitizer pass alone.
test-asan: deps
	@JOBS=$(JOBS) scripts/build $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DIOFLEET_SANITIZE=ON
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j 2 --output-on-failure --timeout 300 -LE 'fleet|package|asan-skip'

bench: build
	bench/run

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)

# Root only: a controller and agents in network namespaces on a bridge, each
# agent on a loop device of its own; then again with agent 2 throttled by a
# blkio/io cgroup.  See tests/fleet/README.md.
.PHONY: fleet-test
fleet-test: build
	IOFLEET_BIN=$(abspath $(BUILD))/bin bash tests/fleet/rack.sh
	IOFLEET_BIN=$(abspath $(BUILD))/bin bash tests/fleet/rack.sh --throttle 2

# libFuzzer harnesses (tests/fuzz, clang): build them in $(BUILD_FUZZ) and run
# each for FUZZ_SECONDS from its seeds in tests/fuzz/corpus/ (copied to a
# temporary corpus); fails if any crashed.  fuzz-smoke: 5 s each, for CI.
BUILD_FUZZ   ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: fuzz fuzz-smoke fuzz-build
fuzz-build: deps
	@cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DIOFLEET_FUZZ=ON >/dev/null
	@cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz

fuzz: fuzz-build
	bash tests/fuzz/run $(BUILD_FUZZ) $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	bash tests/fuzz/run $(BUILD_FUZZ) 5

# Debian packages iofleet-controller, iofleet-agent and iofleet-cli
# (packaging/package.cmake, docs/deploy.md) in $(BUILD)/packages.
.PHONY: package
package: build
	@rm -f $(BUILD)/packages/*.deb
	@cmake --build $(BUILD) --target package
	@ls -1 $(abspath $(BUILD))/packages/*.deb
