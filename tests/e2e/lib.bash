# Shared helpers for the end-to-end tests. Each test script is run as
#   bash SCRIPT BIN_DIR DATA_DIR SCRATCH_DIR
# and sources this file. Assertions print what went wrong and exit 1.
set -u
BIN=$1
DATA=$2
SCRATCH=$3
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

TEA="$BIN/tea"
PICS="$BIN/pics"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cd "$SCRATCH" || exit 1

# The scripts' own tools (sort, join, grep, awk) compare and print bytes as
# in the C locale, whatever the machine's is; the tools under test never
# read the locale.
export LC_ALL=C
unset LANGUAGE

# Every `awk` the script and what it runs call is tests/e2e/awk-both/awk,
# which runs each program under both gawk and mawk and reports where they
# disagree (tests/e2e/driver fails the test then). Where only one is
# installed there is nothing to compare: plain awk runs, and the test says so.
awk_default=$(command -v awk || true)
if [ -n "$awk_default" ] && command -v gawk >/dev/null && command -v mawk >/dev/null; then
    TEA_AWK_FIRST=$(readlink -f "$awk_default")
    case ${TEA_AWK_FIRST##*/} in
    gawk) TEA_AWK_SECOND=$(command -v mawk) ;;
    *) TEA_AWK_SECOND=$(command -v gawk) ;;
    esac
    export TEA_AWK_FIRST TEA_AWK_SECOND
    PATH="$E2E_DIR/awk-both:$PATH"
    export PATH
else
    echo "note: gawk and mawk are not both installed: awk programs are not compared across them" >&2
fi

# run EXPECTED_STATUS CMD...: runs CMD, keeps stdout/stderr in out.txt/err.txt
run() {
    expected=$1
    shift
    "$@" >out.txt 2>err.txt
    status=$?
    if [ "$status" -ne "$expected" ]; then
        echo "--- stdout" >&2; cat out.txt >&2
        echo "--- stderr" >&2; cat err.txt >&2
        fail "'$*' exited $status, expected $expected"
    fi
}

# gen_program_trace OUT: a trace of 400,000 cycles (seed 2) into OUT over the
# code of examples/lbm when the examples are built (x86-64 hosts: a program
# with functions; $ELF names it), else of the mixed workload (addresses only)
ELF="$BIN/../examples/lbm"
gen_program_trace() {
    if [ -x "$ELF" ]; then
        run 0 "$TEA" gen --elf "$ELF" --cycles 400000 --seed 2 -q -o "$1"
    else
        run 0 "$TEA" gen --workload mixed --cycles 400000 --seed 2 -q -o "$1"
    fi
}

# contains FILE TEXT: FILE contains the fixed string TEXT
contains() {
    grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "'$1' lacks '$2'"; }
}

# json_number FILE KEY: the first numeric member KEY of a JSON file written by
# the tools (one member per line)
json_number() {
    sed -n "s/^ *\"$2\": \\([0-9.eE+-]*\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}

# csv_cell FILE SCHEME COLUMN: in a results CSV (a header line, no quoted
# commas), the field of column COLUMN in the first row of scheme SCHEME
csv_cell() {
    awk -F, -v key="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $2 == key { print $(c[col]); exit }' "$1"
}

# same_figures A.json B.json: the two `tea info --json` outputs agree on every
# figure (what differs between formats and files is left out)
same_figures() {
    strip='"file"|"format"|"compressed"|"tokens"|"records_stored"|"frames"|"source_format"|"generator"|"command_line"'
    grep -Ev "$strip" "$1" >a.fig
    grep -Ev "$strip" "$2" >b.fig
    diff a.fig b.fig >&2 || fail "figures of $1 and $2 differ"
}

file_size() {
    wc -c <"$1" | tr -d ' '
}

# need_xmllint: fails the test when xmllint (which checks SVG output) is missing.
need_xmllint() {
    command -v xmllint >/dev/null 2>&1 ||
        fail "xmllint is missing (Debian package libxml2-utils; run scripts/install-deps.sh)"
}

# xpath FILE EXPR: evaluates an XPath expression on an SVG (elements are in
# the SVG namespace, hence local-name(): $G and $RECT name groups and rects)
xpath() {
    xmllint --xpath "$2" "$1" 2>/dev/null | tr -d '\n'
}
G="*[local-name()='g']"
RECT="*[local-name()='rect']"

# need_tearec: skips the test (77) where valgrind or tea's Valgrind tool
# (tearec, beside the tea binary) is absent.
need_tearec() {
    command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
    tool=$BIN/../libexec/tea/valgrind/tearec-amd64-linux
    [ -x "$tool" ] || { echo "SKIP: the tearec tool is not built ($tool)"; exit 77; }
}

# build_record_prog: tests/data/record_prog.c (hand-counted regions, see
# its comment) built as ./prog; skips (77) without valgrind.h.
build_record_prog() {
    [ -r /usr/include/valgrind/valgrind.h ] || { echo "SKIP: valgrind.h is missing"; exit 77; }
    cc -O1 -no-pie -pthread -I"$DATA/../../include" -o prog "$DATA/record_prog.c" || fail "cannot build record_prog"
}

# sym NAME: the address of ./prog's symbol NAME, in decimal
sym() {
    printf '%d' 0x$(nm prog | awk -v s="$1" '$3 == s { print $1 }')
}
