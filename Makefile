# Entry points for people and CI; CMake does the building.
#   make demo     install missing packages (as root), build, run the demo
#   make test     build plain and sanitized (ASan+UBSan), run every test in both,
#                 the second half even when the first fails; a summary of both
#   make install  install the programs, their man pages (with help2man), bash
#                 completion and the docs under PREFIX (default /usr/local;
#                 DESTDIR for staging)
#   make fuzz     build the fuzz/ harnesses with clang's libFuzzer and run each
#                 for FUZZ_SECONDS (default 600) on seeds the tools make
#   make coverage build with gcov counters, run every test, print line and
#                 branch coverage per room (gcovr; scripts/coverage-by-room)

BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_CC ?= clang
COVERAGE_DIR ?= build-coverage
# CMake's makefiles run make recursively: without this each of them prints
# "Entering directory" lines (hundreds per build).
CMAKE_BUILD = MAKEFLAGS=--no-print-directory cmake --build

.PHONY: all deps build build-sanitize demo test test-plain test-sanitize install bench fuzz coverage clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DTEA_WERROR=ON $(CMAKE_FLAGS)
	$(CMAKE_BUILD) $(BUILD_DIR) -j $(JOBS)

build-sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -DTEA_WERROR=ON -DTEA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	$(CMAKE_BUILD) $(SANITIZE_DIR) -j $(JOBS)

demo: build
	@sh scripts/demo.sh $(BUILD_DIR)/bin

test-plain: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

test-sanitize: build-sanitize
	cd $(SANITIZE_DIR) && ctest --output-on-failure -j $(JOBS)

# Both halves run whatever the first gives; the summary at the end names
# each half's result (scripts/run-tests; its status: 1 plain, 2 sanitized).
test:
	@BUILD_DIR=$(BUILD_DIR) SANITIZE_DIR=$(SANITIZE_DIR) sh scripts/run-tests "$(MAKE)"

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

bench: build
	@sh bench/replay $(BUILD_DIR)/bin

# The libraries are instrumented for libFuzzer and built with ASan, UBSan and
# their assertions (no NDEBUG); the seeds come from the plain build's tools.
fuzz: build
	@sh scripts/install-deps.sh --fuzz
	cmake -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=$(FUZZ_CC) -DTEA_FUZZ=ON -DTEA_BUILD_TESTS=OFF \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" $(CMAKE_FLAGS)
	$(CMAKE_BUILD) $(FUZZ_DIR) -j $(JOBS) --target fuzz_harnesses
	sh fuzz/make-corpus $(BUILD_DIR)/bin $(FUZZ_DIR)/corpus
	sh fuzz/run-libfuzzer $(FUZZ_DIR) $(FUZZ_SECONDS)

# Line and branch coverage of the libraries and tools per room, from the
# whole test suite run on a build with gcov counters (-O0).
coverage: deps
	@sh scripts/install-deps.sh --coverage
	cmake -S . -B $(COVERAGE_DIR) -DTEA_COVERAGE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	$(CMAKE_BUILD) $(COVERAGE_DIR) -j $(JOBS)
	find $(COVERAGE_DIR) -name '*.gcda' -delete
	cd $(COVERAGE_DIR) && ctest -j $(JOBS) --output-on-failure
	python3 scripts/coverage-by-room $(COVERAGE_DIR)

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(FUZZ_DIR) $(COVERAGE_DIR)
