# Calling contexts (docs/semantics.md, "Calling contexts") on a program with
# a known call tree, tests/data/callpath_prog.cc, recorded with tea record
# and replayed with --call-paths:
#   - the flat PICS is the exact sum over contexts: pics export (flat) of
#     the context PICS is the replay without --call-paths, byte for byte;
#   - leaf runs under a, b, by_pointer, jump_deep (under jumper, jump_mid)
#     and rec (five deep: rec(0) tail-calls leaf), each path once in the
#     folded stacks; tail_target runs under main (tail_caller jumped);
#   - after the longjmp and the exception, jumper's and catcher's
#     instructions run in main's call of them, nowhere deeper;
#   - pics report --granularity callpath: leaf's instructions under a are
#     three times those under b (pprof -peek, where pprof builds), and the
#     golden's rows sum to its total;
#   - pics error --granularity callpath of the golden against itself is 0;
#   - pics report --children: leaf's total is its self, a's is more;
#   - tests/data/record_pthreads.c recorded with --thread all: a thread's
#     stack is __clone;start_thread;chase, the main thread's runs through main,
#     in the program's PICS (the threads' objects united); recorded with
#     --call-paths, the same contexts as rebuilt;
#   - the RISC-V PIE of the unit tests, generated as a native and as a
#     TraceDoctor trace of the same walk: both replays give the same
#     context PICS;
#   - tea record --call-paths: the replay of the trace gives the PICS that
#     --call-paths rebuilds from it, byte for byte, by frames and as a
#     stream; --flat its sum; tea convert keeps them; a damaged context
#     frame is refused naming its byte; a sampled recording's windows
#     start from the stacks the tool unwound (every one unwound): only
#     call paths of the whole recording, leaf under main;a and main;b,
#     and --call-paths rebuilds them from the stacks the trace keeps.
# Skipped (77) without valgrind, tea's Valgrind tool or a C++ compiler.
. "$(dirname "$0")/lib.bash"

need_tearec
command -v c++ >/dev/null || { echo "SKIP: no C++ compiler"; exit 77; }
c++ -O2 -g -o prog "$DATA/callpath_prog.cc" || fail "cannot build callpath_prog"

run 0 "$TEA" record -q -o cp.tea -- ./prog 20
run 0 "$TEA" replay cp.tea --call-paths --schemes golden,tea --period 500 -q -o ctx
run 0 "$TEA" replay cp.tea --schemes golden,tea --period 500 -q -o flat
contains ctx/golden.pics "contexts "
grep -q "^contexts " flat/golden.pics && fail "a replay without --call-paths wrote contexts"

# --- the flat PICS is the sum over contexts, for the golden and TEA alike
for s in golden tea; do
    "$PICS" export "ctx/$s.pics" >ctx-$s.csv || fail "pics export ctx/$s.pics"
    "$PICS" export "flat/$s.pics" >flat-$s.csv || fail "pics export flat/$s.pics"
    cmp -s ctx-$s.csv flat-$s.csv || fail "$s: the context PICS summed is not the flat PICS"
done
cmp -s ctx/summary.csv flat/summary.csv || fail "the errors changed with --call-paths"

# --- the folded stacks: each leaf path once, stacks below main as built
run 0 "$PICS" report ctx/golden.pics --format folded -o folded.txt
# the callers of each stack's function, from main on (the instruction and
# component dropped)
sed -n 's/^.*;main;\(.*\);[^;]*;[^;]* [0-9]*$/main;\1/p' folded.txt | sort -u >paths.txt
for p in "main;a;leaf" "main;b;leaf" "main;by_pointer;leaf" "main;jumper;jump_mid;jump_deep;leaf" \
    "main;rec;rec;rec;rec;rec;leaf" "main;tail_target" "main;tail_caller" "main;jumper" "main;catcher"; do
    grep -qx "$p" paths.txt || { cat paths.txt >&2; fail "no stack $p"; }
done
[ "$(grep -c ';leaf$' paths.txt)" -eq 5 ] || { cat paths.txt >&2; fail "leaf under other callers than the five"; }
grep -q "tail_caller;tail_target" paths.txt && fail "tail_target under tail_caller: the tail call was not followed"
# jumper's and catcher's own instructions (after longjmp and catch) only in main's call of them
grep -E ';(jumper|catcher)(\.cold)?;(jumper|catcher)(\.cold)?\+' folded.txt |
    grep -vE ';main;(jumper|catcher)(\.cold)?;(jumper|catcher)(\.cold)?\+' && fail "jumper or catcher ran deeper than main's call"
grep -qE ';main;catcher\.cold;catcher\.cold\+' folded.txt || fail "no instruction of catcher's landing pad under main"

# --- the call-path granularity: rows, their sum, the error against itself
run 0 "$PICS" report ctx/golden.pics --granularity callpath --top 0 --format csv -o rows.csv
contains rows.csv "rank,call_path,component,psv,instructions,samples,cycles"
grep -q ';main;a;leaf,' rows.csv || fail "no row main;a;leaf"
run 0 "$PICS" error ctx/golden.pics ctx/golden.pics --granularity callpath
contains out.txt "error: 0.0000% (callpath granularity"
run 0 "$PICS" error ctx/tea.pics ctx/golden.pics --granularity callpath
run 2 "$PICS" diff ctx/tea.pics ctx/golden.pics --granularity callpath
contains err.txt "--granularity callpath"

# --- --children: each function's total holds its callees' cycles
run 0 "$PICS" report ctx/golden.pics --children --top 0 --format csv -o children.csv
contains children.csv "function,total_cycles,total_share,self_cycles,self_share,instructions,cpi"
leaf_row=$(grep '^leaf,' children.csv) || fail "no row of leaf in --children"
a_row=$(grep '^a,' children.csv) || fail "no row of a in --children"
# leaf calls nothing: its total is its self; a calls leaf: its total is more than its self
[ "$(echo "$leaf_row" | cut -d, -f2)" = "$(echo "$leaf_row" | cut -d, -f4)" ] || fail "leaf's total is not its self: $leaf_row"
[ "$(echo "$a_row" | cut -d, -f2)" != "$(echo "$a_row" | cut -d, -f4)" ] || fail "a's total is its self: $a_row"
run 2 "$PICS" report flat/golden.pics --children
contains err.txt "has no calling contexts"

# --- the viewers: pprof's callers of leaf (instructions a:b = 3:1), speedscope's stacks
run 0 "$PICS" export --format speedscope ctx/golden.pics -o golden.speedscope.json
contains golden.speedscope.json '"name": "main"'
run 0 "$PICS" flamegraph ctx/golden.pics -o golden.svg
contains golden.svg "by call path, function"
PPROF_SRC=/usr/share/gocode/src/github.com/google/pprof
if command -v go >/dev/null && [ -d "$PPROF_SRC" ]; then
    GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$SCRATCH/gocache" HOME="$SCRATCH" \
        go build -o pprof github.com/google/pprof >gobuild.txt 2>&1 || { cat gobuild.txt >&2; fail "cannot build pprof"; }
    run 0 "$PICS" export --format pprof ctx/golden.pics -o golden.pb.gz
    run 0 "$PICS" export --format pprof ctx/tea.pics -o tea.pb.gz
    HOME="$SCRATCH" ./pprof -sample_index=instructions -peek '^leaf$' golden.pb.gz >peek.txt 2>/dev/null ||
        fail "pprof -peek"
    under() { sed -n "s/^ *\([0-9][0-9]*\) .*| *$1\$/\1/p" peek.txt; }
    a=$(under a)
    b=$(under b)
    [ -n "$a" ] && [ -n "$b" ] && [ "$a" -eq $((3 * b)) ] ||
        { cat peek.txt >&2; fail "leaf's instructions under a ($a) are not three times those under b ($b)"; }
    HOME="$SCRATCH" ./pprof -traces golden.pb.gz >traces.txt 2>/dev/null || fail "pprof -traces"
    grep -A1 -E '^ +[0-9]+ +leaf$' traces.txt | grep -qE '^ +a$' || fail "pprof -traces: no leaf under a"
    HOME="$SCRATCH" ./pprof -top -diff_base golden.pb.gz tea.pb.gz >diff.txt 2>/dev/null || fail "pprof -diff_base"
    grep -qE 'accounting for 0(cycles)?, ' diff.txt || { head -8 diff.txt >&2; fail "TEA minus golden is not 0 cycles"; }
else
    echo "note: no go or no pprof source: the pprof checks are skipped"
fi

# --- a sampled recording: window groups and contexts in one PICS, read by every view
run 0 "$TEA" record -q --sample-every 100000 --sample-length 10000 -o sampled.tea -- ./prog 20
run 0 "$TEA" replay sampled.tea --call-paths --schemes golden,tea --period 500 -q -o sctx
run 0 "$TEA" replay sampled.tea --schemes golden,tea --period 500 -q -o sflat
contains sctx/golden.pics "groups "
contains sctx/golden.pics "contexts "
for s in golden tea; do
    "$PICS" export "sctx/$s.pics" >sctx-$s.csv || fail "pics export sctx/$s.pics"
    "$PICS" export "sflat/$s.pics" >sflat-$s.csv || fail "pics export sflat/$s.pics"
    cmp -s sctx-$s.csv sflat-$s.csv || fail "$s: a sampled recording's context PICS summed is not its flat PICS"
done
run 0 "$PICS" report sctx/golden.pics --granularity callpath --top 3
run 0 "$PICS" report sctx/golden.pics --children --top 3
run 0 "$PICS" error sctx/tea.pics sctx/golden.pics --granularity callpath
run 0 "$PICS" export --format speedscope sctx/golden.pics -o sampled.speedscope.json

# --- contexts recorded (tea record --call-paths): the replay keys the PICS by
# them as --call-paths rebuilds them from the same trace, by frames (IBS's
# tags read again from positions in handed-over frames) and as a stream;
# --flat drops them (the sum over contexts); tea convert keeps them
run 0 "$TEA" record -q --call-paths -o rec.tea -- ./prog 20
run 0 "$TEA" info rec.tea
contains out.txt "call paths:"
for mode in "" "--threads 1" "--call-paths" "--flat"; do
    name=rec$(echo "$mode" | tr -d ' -')
    run 0 "$TEA" replay rec.tea $mode --schemes golden,tea,ibs --period 500 -q -o "$name"
done
contains rec/golden.pics "contexts "
grep -q "^contexts " recflat/golden.pics && fail "--flat wrote contexts"
for s in golden tea ibs; do
    cmp -s rec/$s.pics recthreads1/$s.pics || fail "$s: the recorded contexts read by frames and as a stream differ"
    cmp -s rec/$s.picsreccallpaths/$s.pics 2>/dev/null
    cmp -s rec/$s.pics reccallpaths/$s.pics || fail "$s: the recorded contexts differ from those --call-paths rebuilds"
    "$PICS" export "rec/$s.pics" >rec-$s.csv || fail "pics export rec/$s.pics"
    "$PICS" export "recflat/$s.pics" >recflat-$s.csv || fail "pics export recflat/$s.pics"
    cmp -s rec-$s.csv recflat-$s.csv || fail "$s: --flat is not the sum over the recorded contexts"
done
run 0 "$TEA" convert rec.tea -o rec-converted.tea
run 0 "$TEA" replay rec-converted.tea --schemes golden -q -o rec-converted
grep -v '^#' rec/golden.pics >a.txt
grep -v '^#' rec-converted/golden.pics >b.txt
cmp -s a.txt b.txt || fail "tea convert lost or changed the recorded contexts"
# a sampled recording: each window starts from the stack the tool unwound
# where it started, so its stacks are the whole run's: leaf under main;a
# and main;b, and no call path the whole recording lacks (every call path
# of each golden PICS, from pics report's text rows: the path is the last
# column; the folded stacks would drop cells whose cycles round to 0)
run 0 "$TEA" record --call-paths --sample-every 100000 --sample-length 10000 -o srec.tea -- ./prog 20
# every window's stack was unwound (the summary says how many)
unwound=$(sed -n 's/.* \([0-9]*\) of \([0-9]*\) windows started from the stack unwound there;.*/\1 \2/p' err.txt)
[ -n "$unwound" ] && [ "${unwound% *}" = "${unwound#* }" ] && [ "${unwound% *}" -gt 0 ] ||
    fail "not every window started from an unwound stack: '$unwound'"
run 0 "$TEA" replay srec.tea --schemes golden -q -o srec
contains srec/golden.pics "contexts "
run 0 "$TEA" info srec.tea
contains out.txt "window stacks: ${unwound% *} of ${unwound% *} sampled windows start from the stack the recording unwound"
# call_paths PICS OUT: the call paths of a golden PICS, sorted
call_paths() {
    "$PICS" report "$1" --granularity callpath --top 0 2>/dev/null |
        sed -n 's/^ *[0-9.]*% *[0-9.]* *[0-9]* *[0-9.-]*  //p' | sort -u >"$2"
}
call_paths srec/golden.pics srec-stacks.txt
call_paths rec/golden.pics rec-stacks.txt
[ -s rec-stacks.txt ] || fail "no call path read from the whole recording's report"
comm -23 srec-stacks.txt rec-stacks.txt >srec-extra.txt
[ -s srec-extra.txt ] && { cat srec-extra.txt >&2; fail "a sampled recording has call paths the whole one lacks"; }
grep -q ';main;a;leaf$' srec-stacks.txt || { cat srec-stacks.txt >&2; fail "no window in leaf under main;a"; }
grep -q ';main;b;leaf$' srec-stacks.txt || { cat srec-stacks.txt >&2; fail "no window in leaf under main;b"; }
grep -q '^_start;' srec-stacks.txt || { cat srec-stacks.txt >&2; fail "a window's stack does not reach _start"; }
# the trace keeps each window's stack: --call-paths rebuilds the same
# contexts, byte for byte
run 0 "$TEA" replay srec.tea --call-paths --schemes golden -q -o srec-rebuilt
cmp -s srec/golden.pics srec-rebuilt/golden.pics || fail "a sampled recording's contexts differ from the rebuilt ones"
# a damaged context frame: its header descriptor byte (after the frame's
# 8-byte skippable header, its 8-byte magic and zstd's 4-byte one) made
# invalid; refused by frames and as a stream, naming the frame's byte
at=$(grep -obUa TEACTXCH rec.tea | head -n 1 | cut -d: -f1)
[ -n "$at" ] || fail "rec.tea has no context frame"
cp rec.tea bad.tea
printf '\377' | dd of=bad.tea bs=1 seek=$((at + 12)) conv=notrunc 2>/dev/null
run 1 "$TEA" replay bad.tea --schemes golden -q -o bad
contains err.txt "frame at byte $((at - 8)): context frame:"
[ -e bad ] && fail "a refused trace left its output directory"
run 1 "$TEA" replay bad.tea --threads 1 --schemes golden -q -o bad
contains err.txt "frame at byte $((at - 8)): context frame:"

# --- every thread of a threaded program: each core's contexts, the program's merged by path
cc -O1 -g -pthread -o pth "$DATA/record_pthreads.c" || fail "cannot build record_pthreads"
run 0 "$TEA" record -q --thread all -o pth.d -- ./pth
run 0 "$TEA" replay pth.d --call-paths --schemes golden -q -o pthr
contains pthr/golden.pics "contexts "
# the program's PICS names the library functions (the threads' objects, united)
contains pthr/golden.pics "trace.object "
run 0 "$PICS" report pthr/golden.pics --granularity callpath --top 0 --format csv -o thread-paths.csv
grep -q ',__clone;start_thread;chase,' thread-paths.csv || fail "no thread's stack __clone;start_thread;chase"
grep -q ';main;' thread-paths.csv || fail "the main thread has no stack through main"
# recorded with the contexts: the same program PICS
run 0 "$TEA" record -q --call-paths --thread all -o pth-rec.d -- ./pth
run 0 "$TEA" replay pth-rec.d --schemes golden -q -o pthrec
run 0 "$TEA" replay pth-rec.d --call-paths --schemes golden -q -o pthrec-rebuilt
cmp -s pthrec/golden.pics pthrec-rebuilt/golden.pics || fail "a threaded recording's contexts differ from the rebuilt ones"

# --- RISC-V through TraceDoctor tokens: the same contexts as the native trace of the same walk
rv="$BIN/../tests/disasm_prog.riscv64"
[ -f "$rv" ] || fail "$rv is missing (built with the unit tests)"
run 0 "$TEA" gen --elf "$rv" --cycles 100000 --seed 5 -q -o rv.tea
run 0 "$TEA" gen --elf "$rv" --cycles 100000 --seed 5 -q --format tracedoctor -o rv.td.zst
run 0 "$TEA" replay rv.tea --call-paths --schemes golden -q -o rv-native
run 0 "$TEA" replay rv.td.zst --elf "$rv" --call-paths --schemes golden -q -o rv-td
contains rv-native/golden.pics "contexts "
sed -n '/^contexts /,$p' rv-native/golden.pics >native-cells.txt
sed -n '/^contexts /,$p' rv-td/golden.pics >td-cells.txt
cmp -s native-cells.txt td-cells.txt || fail "the TraceDoctor trace's contexts differ from the native trace's"
[ "$(sed -n 's/^contexts //p' native-cells.txt)" -gt 1 ] || fail "the RISC-V walk made no call"
