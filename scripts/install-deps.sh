#!/bin/sh
# Makes sure the Debian packages the build and the tests need are installed.
# As root, missing packages are installed with apt-get; otherwise the command
# to run is printed and the script fails.
#
# Capstone: the project needs capstone 5 (RISC-V). When the system's capstone
# (pkg-config `capstone`) is older, the capstone 5 C sources that Debian ships
# inside librust-capstone-sys-dev are fetched with `apt-get download` and
# unpacked with `dpkg -x` into build-deps/capstone-sys/ (git-ignored), where
# CMake builds them (TEA_CAPSTONE=auto or bundled). Installing that package
# would pull ~190 Rust source packages; only its own .deb is needed.
#
# With --fuzz (`make fuzz` only), also clang and the libFuzzer runtime that
# goes with its version (Debian: libclang-rt-N-dev, which clang does not
# pull in); the normal build needs neither.
set -eu

FUZZ=0
COVERAGE=0
if [ "${1:-}" = --fuzz ]; then
    FUZZ=1
fi
if [ "${1:-}" = --coverage ]; then
    COVERAGE=1
fi

# g++: capstone's own CMake project enables C++ (it compiles only C).
# The RISC-V cross tools build and disassemble the disassembler's test program.
# libxml2-utils: xmllint checks the SVG output in tests.
PACKAGES="gcc g++ make cmake pkg-config libzstd-dev libelf-dev libdw-dev libdebuginfod-dev libcapstone-dev libcmocka-dev zstd valgrind binutils
gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu libxml2-utils"
# python3: e2e.csvs parses every CSV the tools write with Python's csv module.
# debuginfod: e2e.stripped serves a debug file with Debian's debuginfod server.
PACKAGES="$PACKAGES python3 debuginfod"
# zlib1g-dev: pics export --format pprof writes gzip (libelf-dev needs it too).
# golang-go and golang-github-google-pprof-dev: e2e.pprof builds the real
# pprof from Debian's source, offline, and reads the export back with it.
PACKAGES="$PACKAGES zlib1g-dev golang-go golang-github-google-pprof-dev"
# gawk and mawk: the tests' awk programs run under both (e2e.NAME@AWK, see
# tests/CMakeLists.txt); Debian always has mawk, and with gawk installed
# /usr/bin/awk is gawk, so the second run is mawk's.
PACKAGES="$PACKAGES gawk mawk"
if [ "$FUZZ" -eq 1 ]; then
    PACKAGES="$PACKAGES clang"
fi
# gcovr: `make coverage` reads the gcov counters with it.
if [ "$COVERAGE" -eq 1 ]; then
    PACKAGES="$PACKAGES gcovr"
fi
# Optional: installed as root, only reported otherwise. help2man writes the
# man pages `make install` installs (without it they are left out, with a
# message); chromium runs the flame graph's script in the e2e.flamegraph test
# (Debian has no other program that opens an interactive SVG; without it the
# browser half of that test is skipped); slurm-wlm and munge make the
# one-node cluster of e2e.slurm (without them that test is skipped).
OPTIONAL_PACKAGES="help2man chromium slurm-wlm munge"
CAPSTONE_PACKAGE=librust-capstone-sys-dev
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CAPSTONE_DIR="$ROOT/build-deps/capstone-sys"
# The capstone sources inside the package (the crate's version varies).
CAPSTONE_GLOB="usr/share/cargo/registry/capstone-sys-*/capstone/CMakeLists.txt"

is_root() {
    [ "$(id -u)" -eq 0 ]
}

# True when the system capstone is recent enough (or cannot be asked: then
# the bundled sources are fetched, which is always safe).
system_capstone_ok() {
    command -v pkg-config >/dev/null 2>&1 && pkg-config --atleast-version=5 capstone 2>/dev/null
}

# True when the capstone 5 sources are already unpacked.
capstone_sources_present() {
    for f in "$CAPSTONE_DIR"/$CAPSTONE_GLOB; do
        [ -f "$f" ] && return 0
    done
    return 1
}

capstone_commands() {
    echo "  mkdir -p '$CAPSTONE_DIR' && cd '$CAPSTONE_DIR' && apt-get download $CAPSTONE_PACKAGE && dpkg -x ${CAPSTONE_PACKAGE}_*.deb . && rm ${CAPSTONE_PACKAGE}_*.deb"
}

# Downloads the package's .deb (apt-get download needs no root, only the
# package lists) and unpacks it into a temporary directory that is renamed
# into place, so an interrupted run leaves nothing half-extracted.
fetch_capstone_sources() {
    mkdir -p "$ROOT/build-deps"
    tmp=$(mktemp -d "$ROOT/build-deps/capstone-sys.tmp.XXXXXX")
    # apt drops privileges to _apt for downloads: let it write there.
    if is_root && id _apt >/dev/null 2>&1; then
        chown _apt "$tmp"
    fi
    if ! (cd "$tmp" && apt-get download -qq "$CAPSTONE_PACKAGE") >"$tmp.log" 2>&1; then
        # Fresh machines have no package lists yet.
        if is_root && apt-get update -qq >>"$tmp.log" 2>&1 &&
            (cd "$tmp" && apt-get download -qq "$CAPSTONE_PACKAGE") >>"$tmp.log" 2>&1; then
            :
        else
            cat "$tmp.log" >&2
            rm -rf "$tmp" "$tmp.log"
            echo "could not download $CAPSTONE_PACKAGE (capstone 5 sources); run:" >&2
            capstone_commands >&2
            return 1
        fi
    fi
    mkdir "$tmp/root"
    dpkg -x "$tmp"/${CAPSTONE_PACKAGE}_*.deb "$tmp/root"
    rm -rf "$CAPSTONE_DIR"
    mv "$tmp/root" "$CAPSTONE_DIR"
    rm -rf "$tmp" "$tmp.log"
    capstone_sources_present || {
        echo "$CAPSTONE_PACKAGE holds no capstone sources under $CAPSTONE_GLOB" >&2
        return 1
    }
}

missing=""
for pkg in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done

optional_missing=""
for pkg in $OPTIONAL_PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        if is_root; then
            missing="$missing $pkg"
        else
            optional_missing="$optional_missing $pkg"
        fi
    fi
done
if [ -n "$optional_missing" ]; then
    echo "optional Debian packages not installed:$optional_missing (man pages, browser test; see README)" >&2
fi

if [ -n "$missing" ]; then
    if ! is_root; then
        echo "missing Debian packages:$missing" >&2
        echo "install them with: sudo apt-get install -y$missing" >&2
        if ! system_capstone_ok && ! capstone_sources_present; then
            echo "then fetch the capstone 5 sources (or rerun this script):" >&2
            capstone_commands >&2
        fi
        exit 1
    fi
    echo "installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if ! system_capstone_ok && ! capstone_sources_present; then
    echo "fetching the capstone 5 sources ($CAPSTONE_PACKAGE) into build-deps/capstone-sys" >&2
    fetch_capstone_sources
fi

# speedscope's page (the npm package, pinned): e2e.speedscope loads the
# speedscope export in it with headless chromium. Fetched once into
# build-deps/speedscope (git-ignored) where npm is installed; without it
# that test's browser half is skipped, saying so.
SPEEDSCOPE_VERSION=1.25.0
SPEEDSCOPE_DIR="$ROOT/build-deps/speedscope"
if [ ! -f "$SPEEDSCOPE_DIR/package/dist/release/index.html" ] && command -v npm >/dev/null 2>&1; then
    echo "fetching speedscope $SPEEDSCOPE_VERSION (npm) into build-deps/speedscope" >&2
    mkdir -p "$ROOT/build-deps"
    tmp=$(mktemp -d "$ROOT/build-deps/speedscope.tmp.XXXXXX")
    if (cd "$tmp" && npm pack -q "speedscope@$SPEEDSCOPE_VERSION" >/dev/null 2>&1 && tar xzf speedscope-*.tgz); then
        rm -rf "$SPEEDSCOPE_DIR"
        mv "$tmp" "$SPEEDSCOPE_DIR"
    else
        echo "could not fetch speedscope with npm: e2e.speedscope's browser half will be skipped" >&2
        rm -rf "$tmp"
    fi
fi

# libFuzzer: a program with -fsanitize=fuzzer must link; else the runtime of
# the installed clang's major version is missing.
libfuzzer_links() {
    dir=$(mktemp -d "${TMPDIR:-/tmp}/tea-libfuzzer.XXXXXX")
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$dir/t.c"
    ok=1
    clang -fsanitize=fuzzer "$dir/t.c" -o "$dir/t" >/dev/null 2>&1 || ok=0
    rm -rf "$dir"
    [ "$ok" -eq 1 ]
}

if [ "$FUZZ" -eq 1 ] && ! libfuzzer_links; then
    major=$(clang --version | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)
    pkg="libclang-rt-$major-dev"
    if ! is_root; then
        echo "clang -fsanitize=fuzzer does not link: install libFuzzer with: sudo apt-get install -y $pkg" >&2
        exit 1
    fi
    echo "installing: $pkg (libFuzzer)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null || {
        apt-get update -qq && apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
    }
    libfuzzer_links || { echo "clang -fsanitize=fuzzer still does not link after installing $pkg" >&2; exit 1; }
fi
