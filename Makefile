# Entry points for people and CI; CMake does the building.
#   make demo     install missing packages (as root), build, run the demo
#   make test     build plain and sanitized (ASan+UBSan), run every test in both
#   make install  install the programs under PREFIX (default /usr/local)

BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build build-sanitize demo test test-plain test-sanitize install bench clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DTEA_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

build-sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -DTEA_WERROR=ON -DTEA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

demo: build
	@sh scripts/demo.sh $(BUILD_DIR)/bin

test-plain: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

test-sanitize: build-sanitize
	cd $(SANITIZE_DIR) && ctest --output-on-failure -j $(JOBS)

test: test-plain test-sanitize

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

bench: build
	@sh bench/replay $(BUILD_DIR)/bin

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
