#!/bin/sh
# A snapshot of what tea and pics print and write: a broad, deterministic set
# of commands (every subcommand, its --help, every output format, the options
# that change what is printed, and some error cases) run with the programs of
# BIN_DIR, each command's standard output, standard error and exit status
# kept in OUT_DIR, and the files the commands write kept under OUT_DIR/work.
# Two snapshots made by different builds, in different directories, compare
# with `diff -r A B`: no difference means the two builds print and write the
# same bytes (tests/same-outputs does that for a git revision against a
# build).
#
# Usage: sh tests/snapshot-outputs.sh BIN_DIR OUT_DIR
#
# OUT_DIR must not exist or be empty. For each step NAME:
#   OUT_DIR/NAME.out     its standard output
#   OUT_DIR/NAME.err     its standard error
#   OUT_DIR/NAME.status  its exit status
# OUT_DIR/commands.txt lists the steps and their commands, in order.
# OUT_DIR/work is the current directory of every command; it holds the
# inputs the script makes (traces, small compiled programs, symbol maps) and
# everything the commands write (replay directories, PICS, SVG, CSV, JSON).
# Steps named err-* are expected to fail, badinput-* may fail or not; any
# other step that exits non-zero is reported on this script's standard error
# (not in the snapshot).
#
# The programs are run by name with BIN_DIR first in PATH, on relative paths
# only. What would still differ between two runs or two directories is
# removed: the traced programs (compiled here) are kept while the script runs
# in a directory /tmp/tea-snapshot.XXXXXXXX, whose name the tools record
# (trace headers, PICS, provenance JSON) and which is written as that
# template in every file, text or binary (same length: a native trace's
# sizes and offsets stay the same); the absolute path of OUT_DIR, where a
# message names it, becomes @OUT@; wall times and rates (tea record's region
# time, tea gen --discard's speed) are masked; progress lines are never shown
# (standard error is not a terminal). The inputs need cc and perl; g++ adds a
# C++ program for demangled names, riscv64-linux-gnu-gcc a RISC-V one,
# valgrind (with tea's tearec tool built beside BIN_DIR) the tea record
# steps: a snapshot made without one of them lacks those steps, so compare
# snapshots made on the same machine. About 30 seconds.
set -u

usage() {
    echo "usage: sh tests/snapshot-outputs.sh BIN_DIR OUT_DIR" >&2
    exit 2
}
die() {
    echo "snapshot-outputs: $*" >&2
    exit 1
}

[ $# -eq 2 ] || usage
BIN_DIR=$1
OUT=$2
if [ ! -x "$BIN_DIR/tea" ] || [ ! -x "$BIN_DIR/pics" ]; then
    die "no tea and pics in $BIN_DIR"
fi
command -v perl >/dev/null 2>&1 || die "perl is needed"
command -v cc >/dev/null 2>&1 || die "cc is needed"
if [ -e "$OUT" ]; then
    [ -d "$OUT" ] || die "$OUT exists and is not a directory"
    [ -z "$(ls -A "$OUT")" ] || die "$OUT exists and is not empty"
fi

DATA=$(cd "$(dirname "$0")/data" && pwd) || die "no tests/data beside the script"
BIN_DIR=$(cd "$BIN_DIR" && pwd) || die "cannot enter $BIN_DIR"
mkdir -p "$OUT/work" || die "cannot create $OUT/work"
OUT=$(cd "$OUT" && pwd) || die "cannot enter $OUT"
OUT_PHYS=$(cd "$OUT" && pwd -P)

# A fixed environment: the tools read DEBUGINFOD_URLS and TEA_DEBUG_ROOT;
# everything else is set for the helpers (sort, sed) and the compilers.
unset DEBUGINFOD_URLS TEA_DEBUG_ROOT CDPATH
LC_ALL=C
TZ=UTC
PATH=$BIN_DIR:$PATH
export LC_ALL TZ PATH
cd "$OUT/work" || die "cannot enter $OUT/work"

steps=0
unexpected=0

# run_step NAME STDIN CMD...: runs CMD with STDIN as its standard input,
# keeps its output, errors and status as ../NAME.out, .err and .status.
run_step() {
    name=$1
    stdin=$2
    shift 2
    case $name in
    '' | *[!A-Za-z0-9._-]*) die "bad step name '$name'" ;;
    esac
    [ ! -e "../$name.status" ] || die "step $name twice"
    line="$name:"
    for a in "$@"; do
        case $a in
        '' | *[!A-Za-z0-9._,:/=+@%^-]*) line="$line '$a'" ;;
        *) line="$line $a" ;;
        esac
    done
    [ "$stdin" = /dev/null ] || line="$line <$stdin"
    printf '%s\n' "$line" >>../commands.txt
    "$@" <"$stdin" >"../$name.out" 2>"../$name.err"
    status=$?
    echo "$status" >"../$name.status"
    steps=$((steps + 1))
    case $name in
    badinput-*) ;;
    err-*) [ "$status" -ne 0 ] || { echo "snapshot-outputs: step $name succeeded, an error was expected" >&2; unexpected=$((unexpected + 1)); } ;;
    *) [ "$status" -eq 0 ] || { echo "snapshot-outputs: step $name exited $status" >&2; unexpected=$((unexpected + 1)); } ;;
    esac
}
step() {
    n=$1
    shift
    run_step "$n" /dev/null "$@"
}
step_in() {
    n=$1
    f=$2
    shift 2
    run_step "$n" "$f" "$@"
}
# mask FILE SED-SCRIPT: edits FILE in place (a run-dependent part)
mask() {
    sed "$2" "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# ---------------------------------------------------------------- inputs

# A small C program with loops in three functions: no header, so that it
# builds hosted (x86-64) and freestanding (RISC-V) alike. Never run by the
# snapshot except under tea record.
cat >prog.c <<'EOF'
static long values[4096];
static int next_index[4096];
volatile long sink;

__attribute__((noinline)) long sum_squares(const long *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i];
    return s;
}

__attribute__((noinline)) long chase(const int *next, int n, int steps)
{
    int p = 0;
    long s = 0;
    for (int k = 0; k < steps; k++) {
        p = next[p % n];
        if (p & 1)
            s += p / 3;
        else
            s ^= p;
    }
    return s;
}

__attribute__((noinline)) void fill(int n)
{
    for (int i = 0; i < n; i++) {
        values[i] = i * 7 % 13;
        next_index[i] = (int)((i * 2654435761u) % (unsigned)n);
    }
}

int main(void)
{
    fill(4096);
    for (int r = 0; r < 50; r++)
        sink += sum_squares(values, 4096) + chase(next_index, 4096, 1000);
    return 0;
}
EOF
# The traced programs. The tools record a traced binary by its real path
# (trace headers, PICS, provenance JSON), and a native trace's header frame,
# index and footer hold sizes and offsets that follow that path's length. So
# the programs are built in a directory of a fixed length,
# /tmp/tea-snapshot.XXXXXXXX, named in work/ by symbolic links (replaced by
# copies at the end), and that directory's name is replaced in every output
# by its template: two snapshots then hold the same bytes wherever they are.
BINS=$(mktemp -d /tmp/tea-snapshot.XXXXXXXX) || die "cannot create a directory in /tmp"
BINS_TEMPLATE=/tmp/tea-snapshot.XXXXXXXX
[ ${#BINS} -eq ${#BINS_TEMPLATE} ] || die "mktemp made $BINS, not of the form $BINS_TEMPLATE"
trap 'rm -rf "$BINS"' EXIT
trap 'exit 1' HUP INT TERM
# the debug information names ./prog.c, never this directory
MAP1="-ffile-prefix-map=$OUT_PHYS/work=."
MAP2="-ffile-prefix-map=$OUT/work=."
# build NAME COMPILER ARGS...: compiles into $BINS/NAME, linked as ./NAME
build() {
    b=$1
    shift
    "$@" -o "$BINS/$b" && ln -s "$BINS/$b" "$b"
}
build prog cc -O1 -g "$MAP1" "$MAP2" prog.c || die "cc cannot build prog.c"
build prog-nopie cc -O1 -g -no-pie "$MAP1" "$MAP2" prog.c || die "cc cannot build prog.c without PIE"
HAVE_CXX=0
if command -v g++ >/dev/null 2>&1; then
    cp "$DATA/cxx_prog.cc" cxx_prog.cc
    build cxx_prog g++ -O0 -g "$MAP1" "$MAP2" cxx_prog.cc && HAVE_CXX=1
fi
HAVE_RV=0
if command -v riscv64-linux-gnu-gcc >/dev/null 2>&1; then
    build prog-rv64 riscv64-linux-gnu-gcc -O1 -g -ffreestanding -nostdlib -static -Wl,-e,main "$MAP1" "$MAP2" \
        prog.c 2>/dev/null && HAVE_RV=1
fi
cp "$DATA/plt_prog.aarch64" "$BINS/prog-a64" && ln -s "$BINS/prog-a64" prog-a64
# prog without symbols: functions from its unwind tables (fn_HEX)
HAVE_STRIP=0
if command -v strip >/dev/null 2>&1; then
    strip -o "$BINS/prog-stripped" "$BINS/prog" && ln -s "$BINS/prog-stripped" prog-stripped && HAVE_STRIP=1
fi
cp "$DATA/scenario.bin" scenario.bin
cp "$DATA/commit_exception.td.zst" commit_exception.td.zst
# a symbol map over the synthetic workloads' code (it starts at 0x10000)
cat >synth.map <<'EOF'
# synthetic code, three made-up functions
0x10000 0x10100 hot_loop
0x10100 0x14000 middle_part
0x14000 0x20000 cold_tail
EOF
# a symbol map of prog from its symbol table (functions with a size)
nm -S --defined-only prog | while read -r addr size kind name; do
    case $kind in
    t | T) [ -n "$name" ] && printf '0x%x 0x%x %s\n' $((0x$addr)) $((0x$addr + 0x$size)) "$name" ;;
    esac
done | sort >prog.map
printf '0x10000 0x10100 a\n0x100f0 0x10200 b\n' >overlap.map
printf 'not a trace\n' >not-a-trace.txt
: >empty.tea
printf 'core.rob_size = 96\ncore.width = 2\n# a comment\nl1d.size = 16KiB\n' >small-core.cfg

# ---------------------------------------------------------------- tea, pics

step err-tea-noargs tea
step tea-help tea --help
step tea-h tea -h
step tea-version tea --version
step err-tea-unknown-command tea frobnicate
step err-tea-unknown-option tea --frobnicate
step err-pics-noargs pics
step pics-help pics --help
step pics-version pics --version
step err-pics-unknown-command pics frobnicate
for c in info convert gen record replay sweep topdown stalls; do
    step "tea-$c-help" tea "$c" --help
done
step tea-info-h tea info -h
for c in export error merge plot flamegraph diff report annotate table correlate; do
    step "pics-$c-help" pics "$c" --help
done
step pics-report-h pics report -h

# ---------------------------------------------------------------- tea gen

step gen-list tea gen --list
step gen-print-config tea gen --print-config
step gen-print-config-set tea gen --print-config --config small-core.cfg --set core.lat_div=30 --set llc.size=1MiB
step gen-mixed tea gen --workload mixed --cycles 300000 --seed 1 -o mixed.tea
step gen-memory tea gen --workload memory --cycles 2e5 --seed 2 -o memory.tea
for w in branchy frontend flushes compute; do
    step "gen-$w" tea gen --workload "$w" --cycles 100k --seed 3 -o "$w.tea"
done
step gen-mixed-seed7 tea gen --workload mixed --cycles 100000 --seed 7 -o mixed-seed7.tea
step gen-td tea gen --workload mixed --cycles 100000 --format tracedoctor -o gen-td.td.zst
step gen-td-raw tea gen --workload branchy --cycles 50000 --format tracedoctor --raw -o gen-td.raw
step gen-first-cycle tea gen --workload compute --cycles 50000 --first-cycle 1000000 --level 9 -o first-cycle.tea
step gen-config tea gen --workload memory --cycles 100000 --config small-core.cfg --set core.lat_div=30 -o small-core.tea
step gen-quiet tea gen --workload flushes --cycles 50000 -q -o quiet.tea
step gen-discard tea gen --workload mixed --cycles 100000 --discard
step gen-elf tea gen --elf prog --workload mixed --cycles 300000 -o prog.tea
step gen-elf-memory tea gen --elf prog --workload memory --cycles 200000 --seed 5 -o prog-memory.tea
step gen-elf-bias tea gen --elf prog --load-bias 0x555555554000 --cycles 200000 -o prog-pie.tea
step gen-elf-nopie tea gen --elf prog-nopie --workload branchy --cycles 100000 -o prog-nopie.tea
step gen-elf-a64 tea gen --elf prog-a64 --cycles 100000 -o a64.tea
[ $HAVE_CXX = 1 ] && step gen-elf-cxx tea gen --elf cxx_prog --workload mixed --cycles 200000 -o cxx.tea
[ $HAVE_STRIP = 1 ] && step gen-elf-stripped tea gen --elf prog-stripped --workload compute --cycles 200000 -o stripped.tea
[ $HAVE_RV = 1 ] && step gen-elf-rv64 tea gen --elf prog-rv64 --workload compute --cycles 100000 -o rv64.tea
step err-gen-no-output tea gen --workload mixed --cycles 1000
step err-gen-bad-workload tea gen --workload nosuch --cycles 1000 -o x.tea
step err-gen-bad-cycles tea gen --cycles lots -o x.tea
step err-gen-bad-set tea gen --set core.nosuch=1 --cycles 1000 -o x.tea
step err-gen-bad-set-value tea gen --set core.rob_size=7 --cycles 1000 -o x.tea
step err-gen-bad-format tea gen --format xml --cycles 1000 -o x.tea
step err-gen-missing-config tea gen --config nosuch.cfg --cycles 1000 -o x.tea
step err-gen-missing-elf tea gen --elf nosuch --cycles 1000 -o x.tea
step err-gen-elf-not-elf tea gen --elf prog.c --cycles 1000 -o x.tea
step err-gen-output-dir tea gen --cycles 1000 -o .
step err-gen-unknown-option tea gen --frobnicate

# the speed tea gen --discard prints depends on the machine's load
# ("in 0.015 s: 6.49 M committed µops/s, 12.71 M dispatched µops/s")
for f in ../gen-discard.out ../gen-discard.err; do
    mask "$f" 's/ in [0-9][0-9.]* s:/ in N s:/; s/[0-9][0-9.]* \([kMG] [a-z]* [^ ]*\/s\)/N \1/g'
done

# ---------------------------------------------------------------- tea convert

step convert-to-td tea convert mixed.tea --to tracedoctor -o mixed.td.zst
step convert-to-td-raw tea convert memory.tea --to tracedoctor --raw -o memory.td
step convert-td-to-native tea convert mixed.td.zst -o mixed-back.tea
step convert-td-raw-to-native tea convert memory.td -o memory-back.tea
step convert-frames tea convert mixed.tea --frame-records 10000 --level 1 -o mixed-frames.tea
step convert-stdout tea convert memory.tea --to tracedoctor -o -
step_in convert-stdin mixed.tea tea convert - -o from-stdin.tea
step convert-binary tea convert mixed.tea --binary prog --load-bias 0x555555554000 -o mixed-binary.tea
step convert-binary-pie tea convert mixed.tea --binary prog -o mixed-binary-nobias.tea
step convert-scenario tea convert scenario.bin --rob-size 96 --llc-latency 40 --clock 2G -o scenario.tea
step convert-quiet tea convert prog.tea -q -o prog-copy.tea
step convert-elf-to-td tea convert prog.tea --to tracedoctor -o prog.td.zst
# a TraceDoctor trace names no binary: these two need --elf
step convert-elf-nobin tea convert prog.td.zst -o prog-nobin.tea
step convert-nopie-nobin sh -c 'tea convert prog-nopie.tea --to tracedoctor -o - | tea convert - -o prog-nopie-nobin.tea'
step err-convert-no-output tea convert mixed.tea
step err-convert-bad-to tea convert mixed.tea --to xml -o x.tea
step err-convert-missing tea convert nosuch.tea -o x.tea
step err-convert-not-trace tea convert not-a-trace.txt -o x.tea
step err-convert-empty tea convert empty.tea -o x.tea
step err-convert-bad-level tea convert mixed.tea --level 99 -o x.tea
step err-convert-binary-missing tea convert mixed.tea --binary nosuch -o x.tea

# ---------------------------------------------------------------- tea info

for t in mixed memory branchy frontend flushes compute first-cycle small-core mixed-frames \
    mixed-back memory-back from-stdin mixed-binary prog prog-pie prog-nopie a64 scenario; do
    step "info-$t" tea info "$t.tea"
    step "info-$t-json" tea info --json "$t.tea"
done
[ $HAVE_CXX = 1 ] && step info-cxx tea info cxx.tea
[ $HAVE_RV = 1 ] && step info-rv64 tea info --json rv64.tea
step info-td tea info mixed.td.zst
step info-td-json tea info --json mixed.td.zst
step info-td-raw tea info memory.td
step info-gen-td tea info gen-td.td.zst
step info-gen-td-raw tea info --json gen-td.raw
step info-td-options tea info --rob-size 256 --llc-latency 40 --clock 1.5G mixed.td.zst
step info-td-options-json tea info --json --rob-size 256 --llc-latency 40 --clock 1.5G mixed.td.zst
step err-info-td-small-rob tea info --rob-size 96 mixed.td.zst
step info-native-clock tea info --clock 2G mixed.tea
step info-scenario-bin tea info scenario.bin
step info-commit-exception tea info --json commit_exception.td.zst
step_in info-stdin memory.tea tea info -
step_in info-stdin-td mixed.td.zst tea info --json -
step err-info-missing tea info nosuch.tea
step err-info-not-trace tea info not-a-trace.txt
step err-info-empty tea info empty.tea
step err-info-no-file tea info
step err-info-two-files tea info mixed.tea memory.tea
step err-info-bad-clock tea info --clock fast mixed.td.zst
step err-info-bad-rob tea info --rob-size 0 mixed.td.zst

# ---------------------------------------------------------------- tea replay

step replay-mixed-default tea replay mixed.tea -o r-mixed-default
step replay-mixed tea replay mixed.tea --freq 20M -o r-mixed
step replay-mixed-freqs tea replay mixed.tea --freq 10M,20MHz,50M -o r-mixed-freqs
step replay-mixed-period tea replay mixed.tea --period 97 --seed 3 -o r-mixed-period
step replay-mixed-jitter-none tea replay mixed.tea --freq 20M --jitter none -o r-mixed-jitter-none
step replay-mixed-jitter-start tea replay mixed.tea --freq 20M --jitter start --seed 9 -o r-mixed-jitter-start
step replay-mixed-events-all tea replay mixed.tea --freq 20M --events all -o r-mixed-events-all
step replay-mixed-schemes tea replay mixed.tea --freq 20M --schemes golden,tea,ibs:all,spe -o r-mixed-schemes
step replay-mixed-golden-only tea replay mixed.tea --schemes golden -o r-mixed-golden
step replay-mixed-tdrules tea replay mixed.tea --freq 20M --golden-rules tracedoctor -o r-mixed-tdrules
step replay-mixed-threads1 tea replay mixed-frames.tea --freq 20M --threads 1 -o r-mixed-threads1
step replay-mixed-threads2 tea replay mixed-frames.tea --freq 20M --threads 2 -o r-mixed-threads2
step replay-mixed-symbols tea replay mixed.tea --freq 20M --symbols synth.map -o r-mixed-symbols
step replay-mixed-seed7 tea replay mixed-seed7.tea --freq 20M -o r-mixed-seed7
step replay-memory tea replay memory.tea --freq 20M -o r-memory
step replay-memory-freqs tea replay memory.tea --freq 10M,50M -o r-memory-freqs
step replay-small-core tea replay small-core.tea --freq 20M -q -o r-small-core
for w in branchy frontend flushes compute; do
    step "replay-$w" tea replay "$w.tea" --freq 20M --schemes golden,tea,nci,ibs,spe,ris -o "r-$w"
done
step replay-td tea replay mixed.td.zst --freq 20M -o r-td
step replay-td-raw tea replay memory.td --freq 20M --threads 1 -o r-td-raw
step replay-td-options tea replay mixed.td.zst --freq 20M --rob-size 256 --llc-latency 40 --clock 1.6G -o r-td-options
step err-replay-td-small-rob tea replay mixed.td.zst --freq 20M --rob-size 96 -o r-bad
step replay-native-clock tea replay mixed.tea --freq 20M --clock 1G -o r-native-clock
step replay-scenario tea replay scenario.bin --period 3 --jitter none -o r-scenario
step replay-commit-exception tea replay commit_exception.td.zst --period 5 -o r-commit-exception
step_in replay-stdin memory.tea tea replay - --freq 20M -o r-stdin
step replay-prog tea replay prog.tea --freq 20M -o r-prog
step replay-prog-freqs tea replay prog.tea --freq 20M,40M -o r-prog-freqs
step replay-prog-memory tea replay prog-memory.tea --freq 20M -o r-prog-memory
step replay-prog-nobin tea replay prog-nobin.tea --freq 20M -o r-prog-nobin
step replay-prog-elf tea replay prog-nobin.tea --freq 20M --elf prog --adjust-vma 0 -o r-prog-elf
step replay-nopie-elf tea replay prog-nopie-nobin.tea --freq 20M --elf prog-nopie -o r-nopie-elf
step err-replay-elf-pie-no-bias tea replay prog-nobin.tea --freq 20M --elf prog -o r-bad
step replay-prog-pie tea replay prog-pie.tea --freq 20M -o r-prog-pie
step replay-prog-pie-auto tea replay prog-pie.tea --freq 20M --elf prog --adjust-vma auto -o r-prog-pie-auto
step replay-prog-pie-explicit tea replay prog-pie.tea --freq 20M --elf prog --adjust-vma 0x555555554000 -o r-prog-pie-explicit
step replay-prog-nopie tea replay prog-nopie.tea --freq 20M -o r-prog-nopie
step replay-prog-symbols tea replay prog.tea --freq 20M --symbols prog.map -o r-prog-symbols
step replay-mixed-binary tea replay mixed-binary.tea --freq 20M -o r-mixed-binary
step replay-a64 tea replay a64.tea --freq 40M -o r-a64
[ $HAVE_CXX = 1 ] && step replay-cxx tea replay cxx.tea --freq 20M -o r-cxx
[ $HAVE_STRIP = 1 ] && step replay-stripped tea replay stripped.tea --freq 20M -o r-stripped
[ $HAVE_RV = 1 ] && step replay-rv64 tea replay rv64.tea --freq 40M -o r-rv64
step err-info-pics-file tea info r-mixed/golden.pics
step err-replay-no-output tea replay mixed.tea
step err-replay-bad-scheme tea replay mixed.tea --schemes tea,nosuch -o r-bad
step err-replay-bad-freq tea replay mixed.tea --freq fast -o r-bad
step err-replay-zero-period tea replay mixed.tea --period 0 -o r-bad
step err-replay-bad-jitter tea replay mixed.tea --jitter sometimes -o r-bad
step err-replay-bad-events tea replay mixed.tea --events some -o r-bad
step err-replay-bad-rules tea replay mixed.tea --golden-rules mine -o r-bad
step err-replay-missing tea replay nosuch.tea -o r-bad
step err-replay-not-trace tea replay not-a-trace.txt -o r-bad
step err-replay-output-file tea replay mixed.tea -o mixed.tea
step err-replay-missing-symbols tea replay mixed.tea --symbols nosuch.map -o r-bad
step err-replay-overlap-symbols tea replay mixed.tea --symbols overlap.map -o r-bad
step err-replay-bad-vma tea replay prog.tea --elf prog --adjust-vma sideways -o r-bad
step err-replay-unknown-option tea replay mixed.tea --frobnicate -o r-bad

# ---------------------------------------------------------------- tea sweep

step sweep-stdout tea sweep mixed.tea memory.tea --freqs 10M,20M,50M --seeds 2
step sweep-file tea sweep mixed.tea memory.tea branchy.tea --freqs 10M,40M --seeds 3 -o sweep.csv --svg sweep.svg
step sweep-svg-insn tea sweep mixed.tea --freqs 10M,40M --seeds 2 -o sweep-insn.csv --svg sweep-insn.svg --granularity insn
step sweep-svg-func tea sweep prog.tea --freqs 10M,40M --seeds 2 -o sweep-func.csv --svg sweep-func.svg --granularity func
step sweep-first-seed tea sweep mixed.tea --freqs 20M --seeds 2 --first-seed 11
step sweep-schemes tea sweep mixed.tea --freqs 20M --seeds 1 --schemes tea,ibs:all,ris
step sweep-schemes-golden tea sweep mixed.tea --freqs 20M --seeds 1 --schemes golden,tea
step sweep-events-all tea sweep memory.tea --freqs 20M --seeds 1 --events all
step sweep-jitter-none tea sweep memory.tea --freqs 20M --seeds 2 --jitter none
step sweep-jitter-start tea sweep memory.tea --freqs 20M --seeds 2 --jitter start
step sweep-tdrules tea sweep mixed.tea --freqs 20M --seeds 1 --golden-rules tracedoctor
step sweep-jobs1 tea sweep mixed.tea memory.tea compute.tea -j 1 --threads 1 --freqs 20M --seeds 1
step sweep-jobs2 tea sweep mixed.tea memory.tea compute.tea -j 2 --threads 2 --freqs 20M --seeds 1
step sweep-default-freqs tea sweep memory.tea --seeds 1
step sweep-symbols tea sweep mixed.tea --freqs 20M --seeds 1 --symbols synth.map
step sweep-elf tea sweep prog-nobin.tea --freqs 20M --seeds 1 --elf prog --adjust-vma 0
step sweep-elf-auto tea sweep prog-pie.tea --freqs 20M --seeds 1 --elf prog --adjust-vma auto
step sweep-trace-binary tea sweep prog-nopie-nobin.tea:prog-nopie prog.tea --freqs 20M --seeds 1
step sweep-td tea sweep mixed.td.zst memory.td --freqs 20M --seeds 1 --rob-size 192 --clock 3.2G
step sweep-quiet tea sweep prog-memory.tea --freqs 20M --seeds 1 -q -o sweep-quiet.csv
step err-sweep-no-trace tea sweep --freqs 20M
step err-sweep-bad-freqs tea sweep mixed.tea --freqs 20M,x
step err-sweep-zero-seeds tea sweep mixed.tea --seeds 0
step err-sweep-bad-scheme tea sweep mixed.tea --schemes tea,nosuch
step err-sweep-bad-granularity tea sweep mixed.tea --freqs 20M --svg x.svg --granularity line
step err-sweep-missing tea sweep mixed.tea nosuch.tea --freqs 20M --seeds 1
step err-sweep-unknown-option tea sweep mixed.tea --frobnicate

# ---------------------------------------------------------------- tea topdown

for f in text csv json; do
    step "topdown-mixed-$f" tea topdown mixed.tea --format "$f"
    step "topdown-prog-func-$f" tea topdown prog.tea --by function --format "$f"
done
step topdown-memory tea topdown memory.tea
step topdown-by-trace tea topdown prog.tea --by trace
step topdown-symbols tea topdown mixed.tea --by function --symbols synth.map
step topdown-symbols-csv tea topdown mixed.tea --by function --symbols synth.map --format csv
step topdown-elf tea topdown prog-nobin.tea --by function --elf prog --adjust-vma 0
step topdown-elf-nopie tea topdown prog-nopie-nobin.tea --by function --elf prog-nopie
step err-topdown-elf-pie-no-bias tea topdown prog-nobin.tea --by function --elf prog
step topdown-top1 tea topdown prog.tea --by function --top 1
step topdown-top0 tea topdown prog-memory.tea --by function --top 0
step topdown-output tea topdown prog.tea --by function --format json -o topdown-prog.json
step topdown-pie tea topdown prog-pie.tea --by function
step topdown-pie-auto tea topdown prog-pie.tea --by function --elf prog --adjust-vma auto
step topdown-pie-zero tea topdown prog-pie.tea --by function --adjust-vma 0
step topdown-a64 tea topdown a64.tea --by function
step topdown-td tea topdown mixed.td.zst --format csv --rob-size 192 --llc-latency 32 --clock 3.2G
step topdown-scenario tea topdown scenario.bin
step topdown-commit-exception tea topdown commit_exception.td.zst --format json
step_in topdown-stdin mixed.tea tea topdown - --format csv
if [ $HAVE_CXX = 1 ]; then
    step topdown-cxx tea topdown cxx.tea --by function --top 0
    step topdown-cxx-csv tea topdown cxx.tea --by function --format csv
    step topdown-cxx-no-demangle tea topdown cxx.tea --by function --top 0 --no-demangle
    step topdown-cxx-no-demangle-json tea topdown cxx.tea --by function --format json --no-demangle
fi
[ $HAVE_STRIP = 1 ] && step topdown-stripped tea topdown stripped.tea --by function --format csv
[ $HAVE_RV = 1 ] && step topdown-rv64 tea topdown rv64.tea --by function
step err-topdown-bad-by tea topdown mixed.tea --by line
step err-topdown-bad-format tea topdown mixed.tea --format xml
step err-topdown-bad-top tea topdown prog.tea --by function --top -1
step err-topdown-no-symbols tea topdown mixed.tea --by function
step err-topdown-missing-map tea topdown mixed.tea --by function --symbols nosuch.map
step err-topdown-missing tea topdown nosuch.tea
step err-topdown-not-trace tea topdown prog.c

# ---------------------------------------------------------------- tea stalls

for t in mixed memory flushes; do
    step "stalls-$t" tea stalls "$t.tea"
    step "stalls-$t-csv" tea stalls "$t.tea" --format csv
done
step stalls-histogram tea stalls mixed.tea --format csv --histogram
step stalls-max-length tea stalls mixed.tea --max-length 64
step stalls-max-length-histogram tea stalls memory.tea --format csv --histogram --max-length 100
step stalls-output tea stalls prog.tea -o stalls-prog.txt
step stalls-td tea stalls mixed.td.zst --rob-size 192 --llc-latency 32
step stalls-scenario tea stalls scenario.bin --format csv
step_in stalls-stdin memory.tea tea stalls -
step err-stalls-bad-format tea stalls mixed.tea --format json
step err-stalls-bad-max tea stalls mixed.tea --max-length abc
step err-stalls-missing tea stalls nosuch.tea
step err-stalls-not-trace tea stalls not-a-trace.txt

# ---------------------------------------------------------------- tea record

TEAREC=$BIN_DIR/../libexec/tea/valgrind/tearec-amd64-linux
if command -v valgrind >/dev/null 2>&1 && [ -x "$TEAREC" ]; then
    # The client's environment (where its stack lies) must not depend on
    # this shell's variables or on BIN_DIR: only a PATH of a fixed length,
    # whose first directory links tea to BIN_DIR's. The regions are loops
    # over global arrays of a non-PIE program, which neither the stack's
    # place nor the loader's moves.
    mkdir "$BINS/bin" || die "cannot create $BINS/bin"
    ln -s "$BIN_DIR/tea" "$BINS/bin/tea" || die "cannot link $BINS/bin/tea"
    clean_env() {
        env -i PATH="$BINS/bin:/usr/bin:/bin" "$@"
    }
    step record-start-at clean_env tea record -o rec.tea --start-at sum_squares --max-instructions 100000 --kill-after -- ./prog-nopie
    step record-stop-at clean_env tea record -o rec-stop.tea --start-at fill --skip 1000 --warmup 5000 --stop-at sum_squares -- ./prog-nopie
    step record-td clean_env tea record -o rec.td.zst --format tracedoctor --set core.rob_size=96 --start-at chase --max-instructions 8000 --kill-after -q -- ./prog-nopie
    step err-record-no-program clean_env tea record -o rec-bad.tea
    step err-record-missing-program clean_env tea record -o rec-bad.tea -- ./nosuch
    step err-record-bad-function clean_env tea record -o rec-bad.tea --start-at no_such_function --max-instructions 1000 -- ./prog-nopie
    step err-record-bad-option clean_env tea record --max-instructions lots -- ./prog-nopie
    step record-info tea info rec.tea
    step record-info-json tea info --json rec.tea
    step record-info-stop tea info rec-stop.tea
    step record-info-td tea info rec.td.zst
    step record-replay tea replay rec.tea --freq 40M -o r-rec
    step record-topdown tea topdown rec.tea --by function --top 0
    step record-stalls tea stalls rec-stop.tea
    step record-report pics report r-rec --scheme tea --granularity func --top 0
    step record-report-insn pics report r-rec --scheme tea --source
    step record-annotate pics annotate r-rec/tea.pics --symbol sum_squares --golden r-rec/golden.pics
    for f in ../*record-*.out ../*record-*.err; do
        # wall time and rate of the recorded region
        mask "$f" 's/region time: *[0-9.]* s, [0-9.]* M instructions\/s/region time:  N s, N M instructions\/s/; s/[0-9][0-9.]* M instructions\/s/N M instructions\/s/g; s/"\(region_[a-z_]*\|wall[a-z_]*\|[a-z_]*_per_s[a-z_]*\|[a-z_]*seconds[a-z_]*\)": [0-9.e+-]*/"\1": N/g'
    done
    # the traces hold the region's wall time: kept as what tea info says
    rm -f rec.tea rec-stop.tea rec.td.zst
fi

# ---------------------------------------------------------------- pics export

step export-golden pics export r-mixed/golden.pics
step export-tea pics export r-mixed/tea.pics
step export-golden-json pics export r-mixed/golden.pics --format json
step export-ibs-json pics export r-mixed/ibs.pics --format json
step export-output pics export r-prog/golden.pics -o export-prog-golden.csv
step export-output-json pics export r-prog/spe.pics --format json -o export-prog-spe.json
step export-freq pics export r-mixed-freqs/tea-50000000hz.pics
step export-scenario pics export r-scenario/golden.pics
step err-export-bad-format pics export r-mixed/tea.pics --format xml
step err-export-missing pics export nosuch.pics
step err-export-not-pics pics export mixed.tea
step err-export-no-file pics export

# ---------------------------------------------------------------- pics error

for g in insn-component insn func; do
    step "error-mixed-$g" pics error r-mixed/tea.pics r-mixed/golden.pics --granularity "$g" --symbols synth.map
    step "error-prog-$g-json" pics error r-prog/ibs.pics r-prog/golden.pics --granularity "$g" --symbols prog.map --json
done
step error-default pics error r-mixed/nci.pics r-mixed/golden.pics
step error-func-symbols pics error r-prog/tea.pics r-prog/golden.pics --granularity func --symbols prog.map
step error-top3 pics error r-memory/spe.pics r-memory/golden.pics --top 3
step error-top0 pics error r-memory/ris.pics r-memory/golden.pics --top 0
step error-events-all pics error r-mixed-events-all/ibs-all.pics r-mixed-events-all/golden.pics --granularity insn
step error-golden-golden pics error r-mixed/golden.pics r-mixed/golden.pics
step err-error-different-traces pics error r-memory/tea.pics r-mixed/golden.pics
step err-error-one-file pics error r-mixed/tea.pics
step err-error-bad-granularity pics error r-mixed/tea.pics r-mixed/golden.pics --granularity line
step err-error-func-no-symbols pics error r-mixed/tea.pics r-mixed/golden.pics --granularity func
step err-error-bad-top pics error r-mixed/tea.pics r-mixed/golden.pics --top many
step err-error-not-pics pics error mixed.tea r-mixed/golden.pics

# ---------------------------------------------------------------- pics merge

step merge-tea pics merge r-mixed/tea.pics r-mixed-seed7/tea.pics -o merged-tea.pics
step merge-golden pics merge r-mixed/golden.pics r-mixed-seed7/golden.pics -o merged-golden.pics
step merge-golden3 pics merge r-mixed/golden.pics r-mixed-seed7/golden.pics r-memory/golden.pics -o merged-golden3.pics
step merge-golden3-export pics export merged-golden3.pics --format json
step merge-export pics export merged-tea.pics
step merge-error pics error merged-tea.pics merged-golden.pics
step err-merge-error-mismatch pics error merged-tea.pics r-mixed/golden.pics
step err-merge-schemes pics merge r-mixed/tea.pics r-mixed/ibs.pics -o merged-bad.pics
step err-merge-settings pics merge r-mixed/tea.pics r-mixed-period/tea.pics -o merged-bad.pics
step err-merge-no-output pics merge r-mixed/tea.pics r-mixed-seed7/tea.pics
step err-merge-missing pics merge r-mixed/tea.pics nosuch.pics -o merged-bad.pics

# ---------------------------------------------------------------- pics plot

step plot-mixed pics plot r-mixed/golden.pics r-mixed/tea.pics r-mixed/ibs.pics -o plot-mixed.svg
step plot-percent pics plot r-mixed/golden.pics r-mixed/nci.pics --unit percent --top 4 --title 'Mixed <&> "quoted"' -o plot-percent.svg
step plot-stdout pics plot r-memory/tea.pics r-memory/golden.pics --top 3 -o -
step plot-prog pics plot r-prog/golden.pics r-prog/tea.pics r-prog/spe.pics --top 6 -o plot-prog.svg
step plot-nobin pics plot r-prog-nobin/golden.pics r-prog-nobin/tea.pics --top 4 -o -
step plot-elf pics plot r-prog-nobin/golden.pics r-prog-nobin/tea.pics --elf prog --adjust-vma 0 -o plot-elf.svg
step plot-elf-recorded pics plot r-prog-elf/golden.pics --top 4 -o -
step plot-pie-auto pics plot r-prog-pie/golden.pics r-prog-pie/tea.pics --adjust-vma auto -o plot-pie-auto.svg
step plot-pie-zero pics plot r-prog-pie/golden.pics --adjust-vma 0 --top 3 -o -
step plot-a64 pics plot r-a64/golden.pics r-a64/tea.pics -o plot-a64.svg
if [ $HAVE_CXX = 1 ]; then
    step plot-cxx pics plot r-cxx/golden.pics r-cxx/tea.pics --top 8 -o plot-cxx.svg
    step plot-cxx-no-demangle pics plot r-cxx/golden.pics --top 8 --no-demangle -o -
fi
step err-plot-no-output pics plot r-mixed/golden.pics
step err-plot-bad-unit pics plot r-mixed/golden.pics --unit bytes -o x.svg
step err-plot-bad-top pics plot r-mixed/golden.pics --top 0 -o x.svg
step err-plot-different-traces pics plot r-mixed/golden.pics r-memory/tea.pics -o x.svg
step err-plot-missing pics plot nosuch.pics -o x.svg

# ---------------------------------------------------------------- pics flamegraph

step flamegraph-mixed pics flamegraph r-mixed/golden.pics -o flame-mixed.svg
step flamegraph-tea pics flamegraph r-mixed/tea.pics --title 'TEA <mixed> & "more"' -o flame-tea.svg
step flamegraph-prog pics flamegraph r-prog/tea.pics -o flame-prog.svg
step flamegraph-stdout pics flamegraph r-memory/ibs.pics -o -
step flamegraph-nobin pics flamegraph r-prog-nobin/golden.pics -o flame-nobin.svg
step flamegraph-elf pics flamegraph r-prog-nobin/golden.pics --elf prog --adjust-vma 0 -o flame-elf.svg
step flamegraph-pie pics flamegraph r-prog-pie/golden.pics --adjust-vma 0x555555554000 -o flame-pie.svg
step flamegraph-a64 pics flamegraph r-a64/golden.pics -o flame-a64.svg
[ $HAVE_CXX = 1 ] && step flamegraph-cxx pics flamegraph r-cxx/golden.pics -o flame-cxx.svg
step err-flamegraph-no-output pics flamegraph r-mixed/golden.pics
step err-flamegraph-two-files pics flamegraph r-mixed/golden.pics r-mixed/tea.pics -o x.svg
step err-flamegraph-missing-elf pics flamegraph r-mixed/golden.pics --elf nosuch -o x.svg

# ---------------------------------------------------------------- pics diff

for f in text csv json; do
    step "diff-mixed-$f" pics diff r-mixed/golden.pics r-mixed/tea.pics --format "$f"
    step "diff-prog-func-$f" pics diff r-prog/golden.pics r-prog/ibs.pics --granularity func --format "$f"
done
step diff-top3 pics diff r-mixed/tea.pics r-mixed/nci.pics --top 3
step diff-top5-csv pics diff r-memory/golden.pics r-memory/spe.pics --top 5 --format csv
step diff-symbols pics diff r-mixed/golden.pics r-mixed/ris.pics --symbols synth.map
step diff-symbols-func pics diff r-mixed/golden.pics r-mixed/ris.pics --symbols synth.map --granularity func
step diff-prog pics diff r-prog/golden.pics r-prog/tea.pics --top 8
step diff-elf pics diff r-prog-nobin/golden.pics r-prog-nobin/tea.pics --elf prog --adjust-vma 0 --top 5
step diff-elf-func pics diff r-prog-nobin/golden.pics r-prog-nobin/tea.pics --elf prog --adjust-vma 0 --granularity func
step diff-pie-auto pics diff r-prog-pie/golden.pics r-prog-pie/tea.pics --adjust-vma auto --top 5
step diff-output pics diff r-prog/golden.pics r-prog/spe.pics --format json -o diff-prog.json
step diff-same pics diff r-mixed/golden.pics r-mixed/golden.pics
step diff-insn-summed pics diff r-prog/golden.pics r-prog/tea.pics --granularity insn --top 4
step diff-insn-summed-csv pics diff r-mixed/golden.pics r-mixed/ibs.pics --granularity insn --top 4 --format csv
step diff-insn-summed-json pics diff r-mixed/golden.pics r-mixed/ibs.pics --granularity insn --top 3 --format json
step diff-freqs pics diff r-mixed-freqs/tea-10000000hz.pics r-mixed-freqs/tea-50000000hz.pics --top 4
if [ $HAVE_CXX = 1 ]; then
    step diff-cxx pics diff r-cxx/golden.pics r-cxx/tea.pics --granularity func
    step diff-cxx-no-demangle pics diff r-cxx/golden.pics r-cxx/tea.pics --granularity func --no-demangle --format csv
fi
step err-diff-different-traces pics diff r-mixed/golden.pics r-memory/golden.pics
step err-diff-bad-format pics diff r-mixed/golden.pics r-mixed/tea.pics --format xml
step err-diff-bad-granularity pics diff r-mixed/golden.pics r-mixed/tea.pics --granularity instruction
step err-diff-bad-top pics diff r-mixed/golden.pics r-mixed/tea.pics --top 0
step err-diff-one-file pics diff r-mixed/golden.pics

# ---------------------------------------------------------------- pics report

for f in text csv json folded; do
    step "report-insn-$f" pics report r-prog/tea.pics --golden r-prog/golden.pics --format "$f"
    step "report-func-$f" pics report r-prog/tea.pics --golden r-prog/golden.pics --granularity func --format "$f"
    step "report-synth-$f" pics report r-mixed/ibs.pics --format "$f"
done
step report-dir pics report r-prog
step report-dir-freqs pics report r-prog-freqs/tea-40000000hz.pics --golden r-prog-freqs/golden.pics
step report-golden-alone pics report r-prog/golden.pics
step report-nogolden pics report r-prog/spe.pics --top 3
step report-top0 pics report r-prog --scheme tea --top 0
step report-top3 pics report r-mixed --scheme tea --top 3
step report-sort-error pics report r-mixed --scheme tea --sort error --top 5
step report-sort-error-func pics report r-prog --scheme tea --sort error --granularity func
step report-sort-cycles pics report r-prog --scheme tea --sort cycles --top 4
step report-percent-limit pics report r-prog --scheme tea --percent-limit 5 --top 0
step report-percent-limit-func pics report r-prog --scheme tea --granularity func --percent-limit 10
step report-insn-summed pics report r-prog --scheme tea --granularity insn --top 4
step report-insn-summed-csv pics report r-mixed --scheme tea --granularity insn --top 4 --format csv
step report-insn-summed-json pics report r-mixed --scheme tea --granularity insn --top 3 --format json
step report-golden-dir-csv pics report r-mixed --top 3 --format csv
step report-percent-limit-csv pics report r-mixed --scheme tea --percent-limit 1 --top 0 --format csv
step report-source pics report r-prog --scheme tea --source --top 5
step report-source-func pics report r-prog --scheme tea --source --granularity func
step report-source-json pics report r-prog --scheme tea --source --top 3 --format json
step report-addresses-elf pics report r-prog-pie --scheme tea --addresses elf --top 5
step report-addresses-runtime pics report r-prog-pie --scheme tea --addresses runtime --top 5
step report-addresses-elf-csv pics report r-prog-pie --scheme tea --addresses elf --top 5 --format csv
step report-pie-auto pics report r-prog-pie/tea.pics --adjust-vma auto --top 3
step report-pie-explicit pics report r-prog-pie/tea.pics --adjust-vma 0x555555554000 --top 3
step report-pie-zero pics report r-prog-pie/tea.pics --adjust-vma 0 --top 3
step report-nobin pics report r-prog-nobin --scheme tea --top 5
step report-elf pics report r-prog-nobin --scheme tea --elf prog --adjust-vma 0 --top 5
step report-elf-recorded pics report r-prog-elf --scheme tea --top 5 --granularity func
step report-elf-nopie pics report r-nopie-elf --scheme tea --top 5 --source
step err-report-elf-pie-no-bias pics report r-prog-nobin --scheme tea --elf prog --top 3
step report-nopie pics report r-prog-nopie --scheme tea --top 5 --source
step report-binary-trace pics report r-mixed-binary --scheme tea --top 3
step report-memory pics report r-prog-memory --scheme tea --granularity func --format csv
step report-output pics report r-prog --scheme tea --format json -o report-prog.json
step report-output-folded pics report r-mixed/tea.pics --format folded -o report-mixed.folded
step report-events-all pics report r-mixed-events-all/ibs-all.pics --golden r-mixed-events-all/golden.pics --top 4
step report-a64 pics report r-a64 --scheme tea --top 5 --addresses elf
step report-a64-func pics report r-a64 --scheme tea --granularity func --source
step report-scenario pics report r-scenario/tea.pics --golden r-scenario/golden.pics --top 0
if [ $HAVE_CXX = 1 ]; then
    step report-cxx pics report r-cxx --scheme tea --granularity func --top 0
    step report-cxx-insn pics report r-cxx --scheme tea --top 8
    step report-cxx-no-demangle pics report r-cxx --scheme tea --granularity func --top 0 --no-demangle
    step report-cxx-no-demangle-json pics report r-cxx --scheme tea --granularity func --no-demangle --format json
    step report-cxx-folded pics report r-cxx/golden.pics --format folded
    step report-cxx-source pics report r-cxx --scheme tea --source --top 4
fi
if [ $HAVE_STRIP = 1 ]; then
    step report-stripped pics report r-stripped --scheme tea --granularity func --top 0
    step report-stripped-insn pics report r-stripped --scheme tea --top 5 --format csv
fi
if [ $HAVE_RV = 1 ]; then
    step report-rv64 pics report r-rv64 --scheme tea --top 5 --source
    step report-rv64-func pics report r-rv64 --scheme tea --granularity func
fi
step err-report-sort-error-no-golden pics report r-prog/tea.pics --sort error
step err-report-bad-sort pics report r-prog --scheme tea --sort name
step err-report-bad-format pics report r-prog --scheme tea --format xml
step err-report-bad-granularity pics report r-prog --scheme tea --granularity instruction
step err-report-bad-addresses pics report r-prog --scheme tea --addresses virtual
step err-report-bad-percent pics report r-prog --scheme tea --percent-limit lots
step err-report-bad-top pics report r-prog --scheme tea --top -2
step err-report-freqs-dir pics report r-prog-freqs --scheme tea
step err-report-missing pics report nosuch.pics
step err-report-not-pics pics report prog.tea
step err-report-different-traces pics report r-prog/tea.pics --golden r-mixed/golden.pics
step err-report-missing-elf pics report r-prog --scheme tea --elf nosuch
step err-report-bad-vma pics report r-prog --scheme tea --adjust-vma sideways
step err-report-unknown-option pics report r-prog --scheme tea --frobnicate

# ---------------------------------------------------------------- pics annotate

step annotate-chase pics annotate r-prog/tea.pics --symbol chase
step annotate-golden pics annotate r-prog/tea.pics --symbol sum_squares --golden r-prog/golden.pics
step annotate-source pics annotate r-prog/tea.pics --symbol chase --golden r-prog/golden.pics --source
step annotate-main-source pics annotate r-prog/golden.pics --symbol main --source
step annotate-fill pics annotate r-prog-memory/golden.pics --symbol fill
step annotate-address pics annotate r-prog/ibs.pics --symbol "$(awk '$3 == "chase" { print $1 }' prog.map)"
step annotate-range pics annotate r-prog/golden.pics --symbol "$(awk '$3 == "sum_squares" { print $1 "-" $2 }' prog.map)"
step annotate-addresses-elf pics annotate r-prog-pie/tea.pics --symbol chase --addresses elf
step annotate-addresses-runtime pics annotate r-prog-pie/tea.pics --symbol chase --addresses runtime --golden r-prog-pie/golden.pics
step annotate-pie-auto pics annotate r-prog-pie/golden.pics --symbol sum_squares --adjust-vma auto
step annotate-elf pics annotate r-prog-nobin/golden.pics --symbol main --elf prog --adjust-vma 0
step annotate-elf-recorded pics annotate r-prog-elf/tea.pics --symbol chase --golden r-prog-elf/golden.pics
step annotate-nopie pics annotate r-prog-nopie/tea.pics --symbol chase --source
step annotate-output pics annotate r-prog/tea.pics --symbol main -o annotate-main.txt
step annotate-a64 pics annotate r-a64/tea.pics --symbol plt_work --golden r-a64/golden.pics
if [ $HAVE_CXX = 1 ]; then
    step annotate-cxx pics annotate r-cxx/tea.pics --symbol 'tea_test::scale(long)' --golden r-cxx/golden.pics
    step annotate-cxx-mangled pics annotate r-cxx/golden.pics --symbol _ZN8tea_test5scaleEd --no-demangle
    step annotate-cxx-main pics annotate r-cxx/golden.pics --symbol main --source
fi
if [ $HAVE_STRIP = 1 ]; then
    # chase's entry, by the name the unwind tables give it
    step annotate-stripped pics annotate r-stripped/golden.pics --symbol "$(awk '$3 == "chase" { print "fn_" substr($1, 3) }' prog.map)"
    step err-annotate-stripped-name pics annotate r-stripped/golden.pics --symbol chase
fi
[ $HAVE_RV = 1 ] && step annotate-rv64 pics annotate r-rv64/tea.pics --symbol chase --golden r-rv64/golden.pics --source
step err-annotate-no-symbol pics annotate r-prog/tea.pics
step err-annotate-unknown-symbol pics annotate r-prog/tea.pics --symbol no_such_function
step err-annotate-no-binary pics annotate r-mixed/tea.pics --symbol main
step err-annotate-bad-addresses pics annotate r-prog/tea.pics --symbol chase --addresses virtual
step err-annotate-different-traces pics annotate r-prog/tea.pics --symbol chase --golden r-mixed/golden.pics
step err-annotate-missing pics annotate nosuch.pics --symbol chase

# ---------------------------------------------------------------- pics table

for f in md latex csv; do
    step "table-replays-$f" pics table r-mixed r-memory r-branchy r-frontend r-flushes r-compute --format "$f"
    step "table-sweep-$f" pics table sweep.csv --freq 10M --format "$f"
done
step table-insn pics table r-mixed r-memory --granularity insn
step table-func pics table r-prog r-prog-memory r-mixed-symbols --granularity func
step table-freq pics table r-mixed-freqs r-memory-freqs --freq 50M
step table-names pics table r-mixed r-memory r-compute --names --format latex
step table-precision pics table sweep.csv --freq 40M --precision 3 --bold-best
step table-bold-latex pics table r-mixed r-memory r-branchy --bold-best --format latex --caption 'Errors & more, in %'
step table-caption-md pics table r-mixed r-memory --caption 'Error per scheme'
step table-mixed-inputs pics table sweep-quiet.csv r-memory r-prog --freq 20M
step table-schemes pics table r-mixed-schemes r-mixed-events-all
step table-svg pics table r-mixed r-memory r-branchy --svg table.svg --names
step table-svg-seeds pics table sweep.csv --freq 40M --svg table-seeds.svg -o table-seeds.md
step table-output pics table r-mixed r-memory --format csv -o table.csv
step err-table-freqs pics table r-mixed-freqs
step err-table-bad-format pics table r-mixed --format html
step err-table-bad-granularity pics table r-mixed --granularity line
step err-table-bad-precision pics table r-mixed --precision x
step err-table-missing pics table nosuch-dir
step err-table-not-results pics table prog.c
step err-table-no-input pics table

# ---------------------------------------------------------------- pics correlate

step correlate-one pics correlate r-mixed/golden.pics
step correlate-dirs pics correlate r-mixed r-memory r-branchy r-frontend r-flushes r-compute
step correlate-output pics correlate r-mixed r-memory r-prog -o correlate.csv --svg correlate.svg
step correlate-min-count pics correlate r-mixed r-memory --min-count 5
step correlate-min-count0 pics correlate r-scenario --min-count 0
step correlate-repeated pics correlate r-mixed r-mixed/golden.pics merged-golden.pics
step err-correlate-sampled pics correlate r-mixed/tea.pics
step err-correlate-bad-min pics correlate r-mixed --min-count -1
step err-correlate-missing pics correlate nosuch.pics
step err-correlate-no-input pics correlate

# ---------------------------------------------------------------- damaged inputs

for f in F04_fuzz_junk_after_index.tea native_gap_2p62.tea F05_fuzz_td_wrap_gap.td.zst; do
    [ -f "$DATA/badinput/$f" ] || continue
    cp "$DATA/badinput/$f" "bad-$f"
    step "badinput-info-$f" tea info --json "bad-$f"
done
for f in F10_pics_cell_long_value.pics F14_dup_trace_binary_leak.pics g_13e12_cycles.pics; do
    [ -f "$DATA/badinput/$f" ] || continue
    cp "$DATA/badinput/$f" "bad-$f"
    step "badinput-export-$f" pics export "bad-$f"
done

# ---------------------------------------------------------------- normalize

# The programs' links become copies (the directory goes at exit).
for b in prog prog-nopie cxx_prog prog-rv64 prog-a64 prog-stripped; do
    if [ -L "$b" ]; then
        rm "$b" && cp "$BINS/$b" "$b"
    fi
done
# The programs' directory becomes its template, of the same length, and the
# absolute path of OUT_DIR (in messages) becomes @OUT@, in text and binary
# files alike.
# replace TEXT BY: in every file of OUT_DIR
replace() {
    grep -rlF -- "$1" "$OUT" | while IFS= read -r f; do
        P=$1 R=$2 perl -0777 -pi -e 's/\Q$ENV{P}\E/$ENV{R}/g' "$f"
    done
}
replace "$BINS" "$BINS_TEMPLATE"
replace "$OUT_PHYS" @OUT@
[ "$OUT" = "$OUT_PHYS" ] || replace "$OUT" @OUT@

echo "snapshot-outputs: $steps steps into $OUT; $unexpected unexpected exit statuses" >&2
