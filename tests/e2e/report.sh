# pics report and pics annotate on PICS written by hand for a program built
# here (x86-64 hosts), whose functions `hot` and `cold` are hand-written
# assembly with known instructions, so every number below is worked out by
# hand; then the bias and build-id rules, bad inputs, and a real recording
# of a tiny program.
. "$(dirname "$0")/lib.bash"

case "$(uname -m)" in
x86_64 | amd64) ;;
*) echo "not an x86-64 host: skipped"; exit 0 ;;
esac
CC=${CC:-cc}

cat >prog.c <<'EOF'
/* hot: nop; add rax, rbx; ret   cold: nop; ret   (5 + 2 bytes) */
__asm__(".text\n"
        ".globl hot\n.type hot, @function\nhot:\n  nop\n  addq %rbx, %rax\n  ret\n.size hot, .-hot\n"
        ".globl cold\n.type cold, @function\ncold:\n  nop\n  ret\n.size cold, .-cold\n");
volatile int sink;
__attribute__((noinline)) int warm(int x)
{
    for (int i = 0; i < x; i++)
        sink += i;
    return sink;
}
int main(void)
{
    return warm(3);
}
EOF
"$CC" -O1 -g -fno-pie -no-pie -o prog prog.c || fail "cannot build prog.c"
"$CC" -O1 -g -fPIE -pie -o prog-pie prog.c || fail "cannot build prog.c as a PIE"
"$CC" -O1 -fno-pie -no-pie -o prog-nodwarf prog.c || fail "cannot build prog.c without DWARF"

addr() { # addr BINARY SYMBOL: its address in decimal
    v=$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
    [ -n "$v" ] || fail "no $2 in $1"
    echo $((0x$v))
}
H=$(addr prog hot)
C=$(addr prog cold)
W=$(addr prog warm)
[ $C = $((H + 5)) ] || fail "cold does not follow hot"
hex() { printf '0x%x' "$1"; }

# pics FILE SCHEME GOLDEN_TOTAL SAMPLES [KEY VALUE ...] -- CELL... : a PICS
# file (docs/pics-format.md), cells "PC PSV VALUE COUNT"
U=720720
pics() {
    f=$1 scheme=$2 total=$3 samples=$4
    shift 4
    {
        echo "tea-pics 1.0"
        echo "scheme $scheme"
        echo "unit $U"
        echo "trace.digest 00000000000000aa"
        echo "trace.first_cycle 0"
        echo "trace.last_cycle 100"
        echo "trace.records 50"
        echo "trace.arch x86_64"
        echo "trace.clock_hz 1000000000"
        while [ "$1" != "--" ]; do
            echo "$1 $2"
            shift 2
        done
        shift
        echo "golden_total $total"
        if [ "$scheme" = golden ]; then
            echo "period 0"; echo "frequency_hz 0"; echo "jitter -"
        else
            echo "period 10"; echo "frequency_hz 100000000"; echo "jitter none"
        fi
        echo "seed 1"
        echo "events native"
        echo "event_mask 0x1ff"
        echo "samples $samples"
        for r in busy squashed empty exception end; do echo "lost.$r 0"; done
        echo "merged 1"
        echo "cells $#"
        for c in "$@"; do echo "$c"; done
        echo "end"
    } >"$f"
}

# golden: 100 cycles. hot+1 base 30, hot+1 ST-L1,ST-LLC 10, hot+4 base 20,
# cold base 25, cold+1 FL-MB 5, and 10 cycles at 0x10 (in no section).
pics golden.pics golden $((100 * U)) 0 -- \
    "0x10 0 $((10 * U)) 3" \
    "$(hex $((H + 1))) 0 $((30 * U)) 30" "$(hex $((H + 1))) 5 $((10 * U)) 2" "$(hex $((H + 4))) 0 $((20 * U)) 20" \
    "$(hex $C) 0 $((25 * U)) 25" "$(hex $((C + 1))) 64 $((5 * U)) 1"
# sampled: 10 samples of 10 cycles. hot+1 base 4, hot+1 ST-L1,ST-LLC 2,
# hot+4 base 1, cold base 3: 40, 20, 10, 30 cycles.
pics tea.pics tea $((100 * U)) 10 -- \
    "$(hex $((H + 1))) 0 $((4 * U)) 4" "$(hex $((H + 1))) 5 $((2 * U)) 2" "$(hex $((H + 4))) 0 $U 1" \
    "$(hex $C) 0 $((3 * U)) 3"

# --- text: the top 3 by cycles, golden beside, error 50/200 = 25 %
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --top 3
tr -s ' ' <out.txt >text.txt
contains text.txt "# golden golden.pics: error 25.0000% at insn-component granularity"
contains text.txt "# 3 of 5 instructions, by cycles: 100.00% of the total"
contains text.txt "# total 100.000 cycles"
contains text.txt "# samples 10, lost 0"
contains text.txt " 60.00% 60.000 6 hot+0x1 $(hex $((H + 1))) add rax, rbx"
contains text.txt " base 40.000 66.67% | 30.000 75.00%"
contains text.txt " ST-L1,ST-LLC 20.000 33.33% | 10.000 25.00%"
contains text.txt " error contribution 10.0000% (golden 40.000 cycles, 40.00% of the total)"
contains text.txt " 30.00% 30.000 3 cold+0x0 $(hex $C) nop"
contains text.txt " 10.00% 10.000 1 hot+0x4 $(hex $((H + 4))) ret"
grep -q "0x10 " text.txt && fail "--top 3 shows a fourth row"
# the order: hot+1, cold, hot+4
grep -E '^ [0-9.]+% ' text.txt | awk '{ print $4 }' | tr '\n' ' ' >order.txt
[ "$(cat order.txt)" = "hot+0x1 cold+0x0 hot+0x4 " ] || fail "cycles order: $(cat order.txt)"

# --- sort by error: hot+1 10 %, hot+4 5 % (10 cycles) before 0x10 5 % (0 cycles), cold 2.5 %, cold+1 2.5 %
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --sort error --top 0
tr -s ' ' <out.txt >text.txt
grep -E '^ [0-9.]+% ' text.txt | awk '{ print $4 }' | tr '\n' ' ' >order.txt
[ "$(cat order.txt)" = "hot+0x1 hot+0x4 0x10 cold+0x0 cold+0x1 " ] || fail "error order: $(cat order.txt)"
contains text.txt " 0.00% 0.000 0 0x10 0x10 -"
contains text.txt " error contribution 2.5000% (golden 5.000 cycles, 5.00% of the total)"
run 2 "$PICS" report tea.pics --sort error
contains err.txt "--sort error needs --golden"

# --- percent limit 25: hot+1 (60 %) and cold (30 %); hot+4 (10 %, golden 20 %) hidden
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --percent-limit 25 --top 0
contains out.txt "# 2 of 5 instructions"
grep -q "hot+0x4" out.txt && fail "--percent-limit 25 shows hot+0x4"

# --- CSV: one row per (instruction, component), exact; error_contribution is
# the component's |P - G| / 2C: hot+1 base |40 - 30| / 200 = 0.05,
# ST-L1,ST-LLC |20 - 10| / 200 = 0.05 (the row's 10 % split in two), cold base
# |30 - 25| / 200 = 0.025
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --format csv --top 2
head -n 1 out.txt | grep -qx \
    'rank,address,function,location,disassembly,source,component,psv,instructions,samples,cycles,share,golden_cycles,golden_share,error_contribution,share_ci_low,share_ci_high' ||
    fail "CSV header"
contains out.txt "1,$(hex $((H + 1))),hot,hot+0x1,\"add rax, rbx\",,base,0,,4,40.000000,0.400000000,30.000000,0.300000000,0.050000000"
contains out.txt "1,$(hex $((H + 1))),hot,hot+0x1,\"add rax, rbx\",,\"ST-L1,ST-LLC\",5,,2,20.000000,0.200000000,10.000000,0.100000000,0.050000000"
contains out.txt "2,$(hex $C),cold,cold+0x0,nop,,base,0,,3,30.000000,0.300000000,25.000000,0.250000000,0.025000000"
[ "$(wc -l <out.txt)" = 4 ] || fail "CSV: expected a header and 3 rows"
# over every line the contributions add up to the error, 25 %
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --format csv --top 0
awk -F, 'NR > 1 { s += $(NF - 2) } END { printf "%.9f\n", s }' out.txt | grep -qx 0.250000000 ||
    fail "CSV: the components' error contributions do not add up to the error"
# without golden the golden columns are empty
run 0 "$PICS" report tea.pics --elf prog --format csv --top 1
contains out.txt "1,$(hex $((H + 1))),hot,hot+0x1,\"add rax, rbx\",,base,0,,4,40.000000,0.400000000,,,"

# --- JSON
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --format json --top 1
[ "$(json_number out.txt error)" = 0.25 ] || fail "JSON error $(json_number out.txt error)"
[ "$(json_number out.txt total_cycles)" = 100 ] || fail "JSON total_cycles"
[ "$(json_number out.txt cycles)" = 40 ] || fail "JSON first row's cycles"
[ "$(json_number out.txt golden_cycles)" = 30 ] || fail "JSON first row's golden cycles"
[ "$(json_number out.txt error_contribution)" = 0.050000000000000003 ] ||
    [ "$(json_number out.txt error_contribution)" = 0.05 ] || fail "JSON error contribution"
contains out.txt '"location": "hot+0x1",'
contains out.txt '"disassembly": "add rax, rbx",'
contains out.txt '"component": "ST-L1,ST-LLC",'
[ "$(grep -c '"rank": 1,' out.txt)" = 2 ] || fail "JSON: expected two component rows of rank 1"

# --- function granularity: hot 70 (base 50, ST-L1,ST-LLC 20), cold 30; golden
# hot 60, cold 30, [unknown] 10; error (10 + 5 + 5 + 10) / 200 = 15 %
run 0 "$PICS" report tea.pics --golden golden.pics --elf prog --granularity func --top 0
tr -s ' ' <out.txt >text.txt
contains text.txt "error 15.0000% at func granularity"
contains text.txt " 70.00% 70.000 7 hot $(hex $H)"
contains text.txt " base 50.000 71.43% | 50.000 83.33%"
contains text.txt " 30.00% 30.000 3 cold $(hex $C)"
contains text.txt " 0.00% 0.000 0 [unknown] -"
contains text.txt "# 3 of 3 functions"
# the golden PICS's instructions (its commits) and cycles per instruction:
# hot 30 + 2 + 20 = 52 in 60 cycles (1.154), cold 25 + 1 = 26 in 30
# (1.154), [unknown] 3 in 10 (3.333); a sampled PICS shows its samples
run 0 "$PICS" report golden.pics --elf prog --granularity func --top 0
tr -s ' ' <out.txt >text.txt
contains text.txt "# Overhead Cycles Instructions CPI Function"
contains text.txt " 60.00% 60.000 52 1.154 hot $(hex $H)"
contains text.txt " 30.00% 30.000 26 1.154 cold $(hex $C)"
contains text.txt " 10.00% 10.000 3 3.333 [unknown] -"
run 0 "$PICS" report golden.pics --elf prog --granularity func --format csv --top 0
awk -F, 'NR > 1 && $3 == "hot" { s += $(NF - 6) } END { printf "%.6f\n", s }' out.txt | grep -qx 60.000000 ||
    fail "func CSV: hot's components do not sum to 60"
contains out.txt ",[unknown],[unknown],,,base,0,3,,10.000000,0.100000000,,,"

# --- folded stacks: integer cycles summing to the total
run 0 "$PICS" report golden.pics --elf prog --format folded
contains out.txt "hot;hot+0x1;ST-L1,ST-LLC 10"
contains out.txt "cold;cold+0x1;FL-MB 5"
contains out.txt "[unknown];0x10;base 10"
[ "$(awk '{ s += $NF } END { print s }' out.txt)" = 100 ] || fail "golden folded stacks do not sum to 100"
run 0 "$PICS" report tea.pics --elf prog --format folded
[ "$(awk '{ s += $NF } END { print s }' out.txt)" = 100 ] || fail "sampled folded stacks do not sum to 100"
contains out.txt "hot;hot+0x1;base 40"
# three samples of 100/3 cycles, rounded cumulatively: round(33.33) = 33,
# round(66.67) - 33 = 34, 100 - 67 = 33
pics thirds.pics tea $((100 * U)) 3 -- "$(hex $((H + 1))) 0 $U 1" "$(hex $((H + 4))) 0 $U 1" "$(hex $C) 0 $U 1"
run 0 "$PICS" report thirds.pics --elf prog --format folded
printf 'hot;hot+0x1;base 33\nhot;hot+0x4;base 34\ncold;cold+0x0;base 33\n' >want.txt
diff want.txt out.txt >&2 || fail "folded rounding of thirds"

# --- no binary: addresses only; the binary the PICS records is used when it exists
run 0 "$PICS" report tea.pics --top 1
contains out.txt "# binary: none (the trace names no binary), PCs shown as addresses"
contains out.txt "$(hex $((H + 1)))"
pics named.pics tea $((100 * U)) 10 trace.binary "$SCRATCH/prog" -- "$(hex $((H + 1))) 0 $U 1"
run 0 "$PICS" report named.pics --top 1
contains out.txt "hot+0x1"
pics gone.pics tea $((100 * U)) 10 trace.binary "$SCRATCH/no-such-program" -- "$(hex $((H + 1))) 0 $U 1"
run 0 "$PICS" report gone.pics --top 1
contains err.txt "warning: the traced binary $SCRATCH/no-such-program is not readable here"

# --- build-id: a mismatch warns (and the report still runs)
run 0 "$PICS" report tea.pics --elf prog --top 1
[ -s err.txt ] && fail "unexpected warnings: $(cat err.txt)"
pics wrongid.pics tea $((100 * U)) 10 trace.build_id 0123456789abcdef0123456789abcdef01234567 -- "$(hex $((H + 1))) 0 $U 1"
run 0 "$PICS" report wrongid.pics --elf prog --top 1
contains err.txt "warning: build-id of prog ("
contains err.txt "differs from the one recorded in the trace (0123456789abcdef0123456789abcdef01234567)"
id=$(readelf -n prog | sed -n 's/.*Build ID: *//p')
pics rightid.pics tea $((100 * U)) 10 trace.build_id "$id" -- "$(hex $((H + 1))) 0 $U 1"
run 0 "$PICS" report rightid.pics --elf prog --top 1
[ -s err.txt ] && fail "warning with the right build-id: $(cat err.txt)"

# --- PIE: refused without a bias; --adjust-vma or the recorded bias
HP=$(addr prog-pie hot)
BIAS=$((0x555555554000))
pics pie.pics tea $((100 * U)) 10 -- "$(hex $((BIAS + HP + 1))) 0 $U 1"
run 2 "$PICS" report pie.pics --elf prog-pie
contains err.txt "position-independent"
contains err.txt "--adjust-vma"
run 0 "$PICS" report pie.pics --elf prog-pie --adjust-vma 0x555555554000 --top 1
contains out.txt "hot+0x1"
contains out.txt "add rax, rbx"
pics piebias.pics tea $((100 * U)) 10 trace.load_bias 0x555555554000 -- "$(hex $((BIAS + HP + 1))) 0 $U 1"
run 0 "$PICS" report piebias.pics --elf prog-pie --top 1
contains out.txt "hot+0x1"
contains out.txt "load bias 0x555555554000"
run 0 "$PICS" report piebias.pics --elf prog-pie --adjust-vma 0 --top 1
contains err.txt "--adjust-vma 0x0 overrides the load bias 0x555555554000"
run 2 "$PICS" report pie.pics --elf prog-pie --adjust-vma 12zz
contains err.txt "invalid offset '12zz'"

# --- source lines: file:line as addr2line says; a binary without DWARF says so once
pics warm.pics golden $((10 * U)) 0 -- "$(hex $W) 0 $((10 * U)) 1"
run 0 "$PICS" report warm.pics --elf prog --source --top 1
want=$(addr2line -e prog "$(hex $W)" | sed 's/ (discriminator.*//')
contains out.txt "$(basename "$want")"
run 0 "$PICS" report warm.pics --elf prog --source --format csv --top 1
contains out.txt ",$want,base,"
run 0 "$PICS" report warm.pics --elf prog-nodwarf --source --top 1
contains err.txt "has no DWARF line information"
[ "$(grep -c warning err.txt)" = 1 ] || fail "the missing DWARF is reported more than once"

# --- annotate: every instruction of hot, hot or not
run 0 "$PICS" annotate tea.pics --elf prog --symbol hot --golden golden.pics
tr -s ' ' <out.txt >text.txt
contains text.txt "# hot: $(hex $H)-$(hex $((H + 5))) (5 bytes), 70.000 cycles, 70.00% of the total"
contains text.txt " 0.00% 0.000 0.000 0.0000% $(hex $H) nop"
contains text.txt " 85.71% 60.000 40.000 10.0000% $(hex $((H + 1))) add rax, rbx"
contains text.txt " 14.29% 10.000 20.000 5.0000% $(hex $((H + 4))) ret base"
contains text.txt "# 3 instructions"
run 0 "$PICS" annotate tea.pics --elf prog --symbol "$(hex $((C + 1)))"
contains out.txt "# cold: "
run 2 "$PICS" annotate tea.pics --elf prog --symbol hott
contains err.txt "no function 'hott' in prog; close matches: hot"
run 2 "$PICS" annotate tea.pics --elf prog
contains err.txt "missing --symbol NAME"
run 2 "$PICS" annotate tea.pics --symbol hot
contains err.txt "no binary to annotate: pass --elf BINARY"
# cells at PCs that are not instruction starts are reported, not dropped
pics odd.pics golden $((3 * U)) 0 -- "$(hex $((H + 2))) 0 $((3 * U)) 1"
run 0 "$PICS" annotate odd.pics --elf prog --symbol hot
contains out.txt "# warning: 1 cells at PCs that are not instruction starts hold 3.000 cycles"

# --- bad inputs: exit status, message, no output file left behind
run 1 "$PICS" report missing.pics
contains err.txt "missing.pics: cannot open"
sed 's/^trace.digest .*/trace.digest 00000000000000bb/' golden.pics >other.pics
run 2 "$PICS" report tea.pics --golden other.pics -o never.txt
contains err.txt "come from different traces (digest 00000000000000aa vs 00000000000000bb)"
[ -e never.txt ] && fail "a failed report left its output file"
run 2 "$PICS" report tea.pics --golden tea.pics
contains err.txt "is a tea PICS, not the golden one"
head -n 20 golden.pics >truncated.pics
run 1 "$PICS" report truncated.pics
contains err.txt "truncated.pics"
sed 's/^golden_total .*/golden_total 5/' golden.pics >corrupt.pics
run 1 "$PICS" report corrupt.pics
contains err.txt "golden cells sum to"
printf 'hello\n' >notelf
run 1 "$PICS" report tea.pics --elf notelf
contains err.txt "not an ELF file"
run 2 "$PICS" report tea.pics --format xml
run 2 "$PICS" report tea.pics --granularity block
run 2 "$PICS" report tea.pics --percent-limit 120
run 2 "$PICS" report
run 0 "$PICS" report --help
contains out.txt "Usage: pics report FILE.pics"
run 0 "$PICS" annotate --help
contains out.txt "Usage: pics annotate FILE.pics --symbol NAME"
run 0 "$PICS" report tea.pics --elf prog -o report.txt
[ -s report.txt ] || fail "-o wrote nothing"

# --- a real recording: the trace names the PIE, its build-id and bias
if command -v valgrind >/dev/null; then
    cat >tiny.c <<'EOF'
volatile long sink;
__attribute__((noinline)) long work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i * i;
    return s;
}
int main(void)
{
    sink = work(20000);
    return 0;
}
EOF
    "$CC" -O1 -g -fPIE -pie -o tiny tiny.c || fail "cannot build tiny.c"
    run 0 "$TEA" record -q -o tiny.tea -- "$SCRATCH/tiny"
    run 0 "$TEA" replay tiny.tea --schemes golden,tea --freq 1M -o rec
    run 0 "$PICS" report rec/golden.pics --granularity func --top 0 --format csv
    # the loop of work() is 20000 iterations: most of the program's own time
    # (a recorded trace lists its objects, so the CSV has an object column)
    head -n 1 out.txt | grep -q '^rank,address,object,function,' || fail "no object column for a recorded trace"
    awk -F, 'NR > 1 && $3 == "tiny" && $4 == "work" { s += $(NF - 6) } END { exit !(s > 20000) }' out.txt ||
        fail "work() has too few cycles"
    run 0 "$PICS" report rec/tea.pics --golden rec/golden.pics --top 3
    contains out.txt "# binary $SCRATCH/tiny (build-id $(readelf -n tiny | sed -n 's/.*Build ID: *//p')"
    run 0 "$PICS" annotate rec/tea.pics --golden rec/golden.pics --symbol work --source
    contains out.txt "tiny.c:"
    contains out.txt "imul"
fi
echo "report: ok"
