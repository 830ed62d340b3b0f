# tea record's regions, output and messages on tests/data/record_prog.c, a
# program whose region (assembly) has a hand-counted instruction count:
# from region's entry to stop_here's entry 2 * 100 + 5 instructions, to its
# own return 2 * 100 + 6 (see the program's comment). Skipped (77) where
# valgrind or tea's Valgrind tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
build_record_prog

commits() {
    "$TEA" info --json "$1" >info.json || fail "tea info $1"
    json_number info.json commits
}

# pc_range TRACE: "MIN MAX" of the committed PCs (decimal), from the golden PICS
pc_range() {
    run 0 "$TEA" replay "$1" --schemes golden -o "r-$1"
    "$PICS" export "r-$1/golden.pics" >cells.csv || fail "pics export"
    awk -F, 'NR > 1 { print $1 }' cells.csv | while read -r pc; do echo $((pc)); done | sort -n >pcs.txt
    echo "$(head -n 1 pcs.txt) $(tail -n 1 pcs.txt)"
}

# --start-at / --stop-at: exactly the region, every PC in region..stop_here
run 0 "$TEA" record -q -o startstop.tea --start-at region --stop-at stop_here -- ./prog plain out1.txt 1000
n=$(commits startstop.tea)
[ "$n" -eq 205 ] || fail "--start-at region --stop-at stop_here recorded $n instructions, expected 2 * 100 + 5"
set -- $(pc_range startstop.tea)
[ "$1" -eq "$(sym region)" ] || fail "the lowest recorded PC is $1, expected region's entry $(sym region)"
[ "$2" -eq "$(sym stop_here)" ] || fail "the highest recorded PC is $2, expected stop_here's entry $(sym stop_here)"
# the program ran on to its end after recording stopped
[ "$(wc -l <out1.txt)" -eq 1001 ] && [ "$(tail -n 1 out1.txt)" = done ] || fail "the program's output is incomplete"

# the record summary in the trace: the region's rate and the IPC, which is
# the committed instructions over the cycles
"$TEA" info --json startstop.tea >sum.json || fail "tea info startstop.tea"
awk -v r="$(json_number sum.json instructions_per_second)" 'BEGIN { exit !(r > 0) }' ||
    fail "tea info --json: no instructions_per_second for a recorded trace"
awk -v i="$(json_number sum.json ipc)" -v n="$(json_number sum.json commits)" -v c="$(json_number sum.json cycles)" \
    'BEGIN { d = i - n / c; exit !(d < 1e-9 && d > -1e-9) }' || fail "tea info --json: ipc is not commits / cycles"

# --thread 2: the region run by the second thread, exactly (2 * 100 + 5); tea info says
# which thread of how many; the main thread never runs it
run 0 "$TEA" record -q -o thread.tea --thread 2 --start-at region --stop-at stop_here -- ./prog thread out11.txt 10
n=$(commits thread.tea)
[ "$n" -eq 205 ] || fail "--thread 2 recorded $n instructions of the region, expected 205"
run 0 "$TEA" info thread.tea
contains out.txt "2 recorded (2 threads in the program)"
run 1 "$TEA" record -q -o thread1.tea --start-at region --stop-at stop_here -- ./prog thread out12.txt 10
contains err.txt "no instruction was recorded"

# --skip N then --max-instructions M: exactly M; the output is complete
run 0 "$TEA" record -q -o skipmax.tea --skip 1000 --max-instructions 5000 -- ./prog plain out2.txt 100000
n=$(commits skipmax.tea)
[ "$n" -eq 5000 ] || fail "--skip 1000 --max-instructions 5000 recorded $n instructions"
[ "$(wc -l <out2.txt)" -eq 100001 ] && [ "$(tail -n 1 out2.txt)" = done ] || fail "output incomplete after --max-instructions"
# --max-instructions alone, and from the same start --skip shifts the region
run 0 "$TEA" record -q -o max.tea --max-instructions 777 -- ./prog plain out3.txt 10
n=$(commits max.tea)
[ "$n" -eq 777 ] || fail "--max-instructions 777 recorded $n instructions"

# --skip over millions of instructions (the tool's fast translations count
# whole blocks, then on_insn the last few): instruction K of long_region is
# known by hand (record_prog.c), so each K records exactly that instruction.
# LONG_LOOPS = 10^7: K = 2 + 2k is long_dec, 3 + 2k long_jnz, 2 * 10^7 + 2
# long_ret, 2 * 10^7 + 3 long_region's call of stop_here (5 bytes in).
# first_pc TRACE: the one PC a one-instruction trace holds (decimal)
first_pc() {
    set -- $(pc_range "$1")
    [ "$1" -eq "$2" ] || fail "$1: more than one PC"
    echo "$1"
}
for case in "0 long_region 0" "1 long_work 0" "15000000 long_dec 0" "15000001 long_jnz 0" \
    "20000002 long_ret 0" "20000003 long_region 5"; do
    set -- $case
    run 0 "$TEA" record -q -o skip.tea --start-at long_region --skip "$1" --max-instructions 1 -- ./prog long out13.txt 1
    [ "$(first_pc skip.tea)" -eq $(($(sym "$2") + $3)) ] ||
        fail "--start-at long_region --skip $1 recorded $(first_pc skip.tea), expected $2 + $3"
done
# A pair of branches to one place (if (a && b)) whose first always jumps:
# the second's instructions never run, so none is recorded and none is
# counted by --skip (VEX would merge the pair into one block with its
# superblock chasing, which the tool turns off).
run 0 "$TEA" record -q -o andor.tea --start-at andor_region --stop-at stop_here -- ./prog andor out-andor.txt 1
[ "$(commits andor.tea)" -eq 405 ] || fail "the andor region: $(commits andor.tea) instructions recorded, expected 405"
pc_range andor.tea >/dev/null
! grep -qx "$(sym andor_b)" pcs.txt || fail "the andor region: andor_b was recorded, but never runs"
run 0 "$TEA" record -q -o andor-skip.tea --start-at andor_region --skip 200 --max-instructions 1 -- ./prog andor o.txt 1
[ "$(first_pc andor-skip.tea)" -eq $(($(sym andor_a) + 2)) ] ||
    fail "--start-at andor_region --skip 200 recorded $(first_pc andor-skip.tea), expected andor_a + 2"
# CPUID: a program that runs RDTSCP where CPUID advertises it runs to its
# end, recorded and once recording is done (Valgrind 3.19's CPUID
# advertises RDTSCP even on a host without it, where VEX cannot run it),
# and sees the bit 0 on a host without RDTSCP, else plain Valgrind's answer
if grep -qw rdtscp /proc/cpuinfo; then
    run 0 valgrind -q --tool=none ./prog rdtscp out-rdtscp-vg.txt 1
    want=$(head -n 1 out-rdtscp-vg.txt)
else
    want="rdtscp 0"
fi
# rdtscp NAME OPTIONS...: mode rdtscp recorded with OPTIONS into NAME.tea
rdtscp() {
    run 0 "$TEA" record -q -o "$1.tea" "${@:2}" -- ./prog rdtscp "out-$1.txt" 1
    [ "$(tail -n 1 "out-$1.txt")" = done ] || fail "mode rdtscp ($1) did not run to its end under tea record"
    [ "$(head -n 1 "out-$1.txt")" = "$want" ] || fail "mode rdtscp ($1) saw '$(head -n 1 "out-$1.txt")', expected '$want'"
}
rdtscp rdtscp-whole
rdtscp rdtscp-after-max --max-instructions 1000
# ... on the second thread while the main thread runs between its
# timeslices (--fair-sched=yes makes Valgrind alternate them): the main
# thread's instructions do not count
for case in "20000002 long_ret 0" "20000003 long_region 5"; do
    set -- $case
    VALGRIND_OPTS=--fair-sched=yes run 0 "$TEA" record -q -o skip2.tea --thread 2 --start-at long_region --skip "$1" \
        --max-instructions 1 -- ./prog longs out14.txt 1
    [ "$(first_pc skip2.tea)" -eq $(($(sym "$2") + $3)) ] ||
        fail "--thread 2 --skip $1 recorded $(first_pc skip2.tea), expected $2 + $3"
done

# --warmup: --skip 1000 --warmup 2000 records the same 5000 instructions as
# --skip 3000, in fewer cycles (the caches, TLBs and predictor are warm)
run 0 "$TEA" record -q -o cold.tea --skip 3000 --max-instructions 5000 -- ./prog plain out8.txt 10
run 0 "$TEA" record -q -o warm.tea --skip 1000 --warmup 2000 --max-instructions 5000 -- ./prog plain out9.txt 10
[ "$(commits warm.tea)" -eq 5000 ] || fail "--warmup: $(commits warm.tea) instructions recorded, expected 5000"
pc_range cold.tea >/dev/null
cp pcs.txt cold.pcs
pc_range warm.tea >/dev/null
sort -u cold.pcs >a.pcs
sort -u pcs.txt >b.pcs
cmp -s a.pcs b.pcs || fail "--warmup recorded other instructions than --skip over the same count"
"$TEA" info --json cold.tea >cold.json
"$TEA" info --json warm.tea >warm.json
[ "$(json_number warm.json cycles)" -lt "$(json_number cold.json cycles)" ] ||
    fail "--warmup: $(json_number warm.json cycles) cycles, not fewer than cold $(json_number cold.json cycles)"

# --sample-every: the long region to stop_here (2 * 10^7 + 5 instructions)
# with a window of 1000 timed instructions in every 10^6 (10^4 warming it):
# window k (k = 1..20) times region instructions k * 10^6 - 1000 .. k * 10^6
# - 1, all in long_work's loop (even ones long_dec, odd ones long_jnz); the 5
# after the 20th window fall in the 21st period's skip, so no 21st window
run 0 "$TEA" record -q -o samp.tea --start-at long_region --stop-at stop_here --sample-every 1000000 \
    --sample-length 1000 --sample-warmup 10000 -- ./prog long out15.txt 3
[ "$(tail -n 1 out15.txt)" = done ] || fail "--sample-every: the program did not run to its end"
# without -q the summary (the windows' instructions and cycles) is followed
# by the run, as tea info estimates it
run 0 "$TEA" record -o sampv.tea --start-at long_region --stop-at stop_here --sample-every 1000000 \
    --sample-length 1000 --sample-warmup 10000 -- ./prog long out15v.txt 3
contains err.txt "sampv.tea: 20000 instructions in "
est=$("$TEA" info sampv.tea | sed -n 's/^estimate: *\([^ ]*\) cycles for .*/\1/p')
contains err.txt "sampv.tea: the run: estimated $est cycles +- "
contains err.txt "for 2e+07 instructions (the figures above are its windows')"
[ "$(commits samp.tea)" -eq 20000 ] || fail "--sample-every: $(commits samp.tea) instructions timed, expected 20 * 1000"
[ "$(json_number info.json windows)" -eq 20 ] || fail "--sample-every: $(json_number info.json windows) windows, expected 20"
[ "$(json_number info.json every)" -eq 1000000 ] && [ "$(json_number info.json length)" -eq 1000 ] &&
    [ "$(json_number info.json warmup)" -eq 10000 ] || fail "--sample-every: the trace's sampling is not the one asked for"
pc_range samp.tea >/dev/null
[ "$(sort -un pcs.txt | tr '\n' ' ')" = "$(sym long_dec) $(sym long_jnz) " ] ||
    fail "--sample-every timed other instructions than long_dec and long_jnz: $(sort -un pcs.txt | tr '\n' ' ')"
run 0 "$TEA" info samp.tea
contains out.txt "20 windows of 1000 instructions, one every 1000000 (10000 of warm-up each)"
contains out.txt "for 2e+07 instructions (the windows' periods)"
# the same on the second thread while the main thread runs between its
# timeslices: the translations of a periodically sampled recording run
# fast or precise as each block starts (tearec/README.md), and the main
# thread's blocks neither count nor record
VALGRIND_OPTS=--fair-sched=yes run 0 "$TEA" record -q -o samp2.tea --thread 2 --start-at long_region \
    --stop-at stop_here --sample-every 1000000 --sample-length 1000 --sample-warmup 10000 -- ./prog longs out15c.txt 1
[ "$(commits samp2.tea)" -eq 20000 ] || fail "--thread 2 --sample-every: $(commits samp2.tea) timed, expected 20 * 1000"
pc_range samp2.tea >/dev/null
[ "$(sort -un pcs.txt | tr '\n' ' ')" = "$(sym long_dec) $(sym long_jnz) " ] ||
    fail "--thread 2 --sample-every timed other instructions than long_dec and long_jnz"
"$TEA" info --json samp.tea >info.json
# the estimate is the windows' cycles times 10^6 / 1000 (the loop's windows all
# end drained, and the last takes the core's final cycles)
cycles=$(json_number info.json cycles)
est=$(sed -n 's/^ *"estimated_cycles": \([0-9.e+]*\),*$/\1/p' info.json)
awk -v e="$est" -v c="$cycles" 'BEGIN { exit !(e == c * 1000) }' ||
    fail "--sample-every: estimated $est cycles, expected 1000 * $cycles"
# replay samples the windows as often as the whole run: at 4 kHz (a period
# of 800,000 cycles at 3.2 GHz) every 800 of the trace's cycles
run 0 "$TEA" replay -q samp.tea --schemes tea --freq 4k -o samp-r
# its header gives the run the windows stand for, as tea info estimates it
est=$("$TEA" info samp.tea | sed -n 's/^estimate: *\([^ ]*\) cycles for .*/\1/p')
[ -n "$est" ] || fail "tea info samp.tea: no estimate line"
contains out.txt "run:    estimated $est cycles +- "
contains out.txt "for 2e+07 instructions, from the trace's 20 windows (the cycles above are theirs)"
n=$(awk -F, '$2 == "tea" { print $5 }' samp-r/summary.csv)
[ "$n" -ge $((cycles / 800)) ] && [ "$n" -le $((cycles / 800 + 1)) ] ||
    fail "--sample-every: TEA took $n samples, expected one per 800 of $cycles cycles"
contains err.txt "use --freq 320000 or more (a sampled trace of"
# the golden PICS keeps its 20 windows as 20 groups; pics report gives each
# share its 95 % interval over them
grep -qx 'groups 20' samp-r/golden.pics || fail "--sample-every: the golden PICS has no window groups"
# so does TEA's, and pics error gives the error its interval over them
grep -qx 'groups 20' samp-r/tea.pics || fail "--sample-every: TEA's PICS has no window groups"
run 0 "$PICS" error samp-r/tea.pics samp-r/golden.pics
grep -q '^95 % interval: [0-9.]*% ± [0-9.]*% (jackknife over the 20 window groups of the sampled trace)$' out.txt ||
    fail "pics error: no interval on a sampled trace: $(head -n 3 out.txt)"
run 0 "$PICS" error samp-r/tea.pics samp-r/golden.pics --json
grep -q '"error_ci95": [0-9]' out.txt || fail "pics error --json: no error_ci95"
# summary.csv carries the error's interval as pics error gives it (clamped
# at 0), and the run as tea info --json estimates it (cycles, their
# interval, instructions), beside the windows' own cycles
e=$(json_number out.txt error)
h=$(json_number out.txt error_ci95)
lo=$(csv_cell samp-r/summary.csv tea error_ci95_low)
hi=$(csv_cell samp-r/summary.csv tea error_ci95_high)
awk -v e="$e" -v h="$h" -v lo="$lo" -v hi="$hi" 'BEGIN { l = e - h; if (l < 0) l = 0
    exit !(lo != "" && hi != "" && (lo - l)^2 < 1e-16 && (hi - e - h)^2 < 1e-16) }' ||
    fail "summary.csv: error_ci95 [$lo, $hi], pics error gives $e +- $h"
"$TEA" info --json samp.tea >info.json
rc=$(csv_cell samp-r/summary.csv tea run_cycles)
rl=$(csv_cell samp-r/summary.csv tea run_cycles_ci95_low)
rh=$(csv_cell samp-r/summary.csv tea run_cycles_ci95_high)
ri=$(csv_cell samp-r/summary.csv tea run_instructions)
awk -v c="$rc" -v l="$rl" -v h="$rh" -v i="$ri" -v e="$(json_number info.json estimated_cycles)" \
    -v eh="$(json_number info.json estimated_cycles_ci95)" 'function near(a, b) { return (a - b)^2 <= (1e-9 * b)^2 }
    BEGIN { exit !(near(c, e) && near(l, e - eh) && near(h, e + eh) && i == 20000000) }' ||
    fail "summary.csv: run $rc [$rl, $rh] for $ri instructions; tea info --json: $(grep estimated info.json)"
[ "$(csv_cell samp-r/summary.csv tea cycles)" = "$(json_number info.json cycles)" ] ||
    fail "summary.csv: cycles is not the windows' own"
# --by component: the components' contributions add up to the error (--top
# 0: no contributors, whose members are also "contribution")
run 0 "$PICS" error samp-r/tea.pics samp-r/golden.pics --by component --json --top 0
awk '/^  "error": / { e = $2 + 0 } /^      "contribution": / { s += $2; n++ }
     END { d = s - e; exit !(n >= 1 && d < 1e-12 && d > -1e-12) }' out.txt ||
    fail "pics error --by component: the contributions do not add up to the error: $(head -n 20 out.txt)"
run 0 "$PICS" error samp-r/tea.pics samp-r/golden.pics --by component
contains out.txt "error by component (contributions add up to the error):"
run 2 "$PICS" error samp-r/tea.pics samp-r/golden.pics --by component --granularity insn
contains err.txt "--by component needs the components"
run 0 "$PICS" report samp-r/golden.pics --top 2
contains out.txt "over 20 groups of the sampled trace's windows"
grep -q '^ *[0-9.]*% ± *[0-9.]*% ' out.txt || fail "pics report: no interval beside the share: $(cat out.txt)"
run 0 "$PICS" report samp-r/golden.pics --top 2 --format csv
awk -F, 'NR > 1 && ($(NF - 1) == "" || $NF == "" || $(NF - 1) > $(NF - 5) || $NF < $(NF - 5)) { bad = 1 }
         END { exit bad || NR < 2 }' out.txt || fail "pics report --format csv: no interval around the share: $(cat out.txt)"
# pics error --across-traces: the sampled recording's golden PICS against a
# full recording of the same region, a trace of its own (another digest):
# both instructions of the loop have their counterparts (the same objects),
# the error is small and has its interval over the sampled side's 20
# window groups; without the option the digests are refused, naming it
run 0 "$TEA" record -q -o whole.tea --start-at long_region --stop-at stop_here -- ./prog long out15w.txt 3
run 0 "$TEA" replay -q whole.tea --schemes golden -o whole-r
run 2 "$PICS" error samp-r/golden.pics whole-r/golden.pics
contains err.txt "come from different traces"
contains err.txt "--across-traces compares PICS of different traces of one program"
run 0 "$PICS" error samp-r/golden.pics whole-r/golden.pics --across-traces
grep -q '^error: [0-9]\.[0-9]*% (insn-component granularity; golden, against whole-r/golden.pics)$' out.txt ||
    fail "--across-traces: the error is not under 10 %: $(head -n 1 out.txt)"
contains out.txt "(jackknife over the 20 window groups of the sampled trace)"
contains out.txt "across traces: 0 of 2 instructions of samp-r/golden.pics (0.0000% of its cycles) have no counterpart"
run 0 "$PICS" error samp-r/golden.pics whole-r/golden.pics --across-traces --json
contains out.txt '"unmatched_instructions": 0,'
grep -q '"error_ci95": [0-9]' out.txt || fail "--across-traces --json: no error_ci95"
# the same trace as TraceDoctor tokens (no objects: PCs stay as they are)
# against itself natively: exactly 0, at every granularity
run 0 "$TEA" convert whole.tea --to tracedoctor -o whole.td
run 0 "$TEA" replay -q whole.td --schemes golden -o whole-td
for g in insn-component insn func; do
    run 0 "$PICS" error whole-td/golden.pics whole-r/golden.pics --across-traces --granularity "$g"
    contains out.txt "error: 0.0000% ($g granularity"
done
# a golden PICS with window groups and a --golden that cannot be read: an
# error naming the file, and nothing freed twice on the way out
run 1 "$PICS" annotate samp-r/golden.pics --symbol long_region --golden nosuch.pics
contains err.txt "nosuch.pics"
# tea topdown gives the whole trace's shares their intervals over the groups
run 0 "$TEA" topdown samp.tea
contains out.txt "over 20 groups of them"
grep -q '^  compute  *[0-9]*  *[0-9.]*% ± *[0-9.]*%$' out.txt || fail "tea topdown: no interval beside compute's share"
run 0 "$TEA" topdown samp.tea --format csv
awk -F, '$1 == "(all)" && $3 == "compute" && ($8 == "" || $9 == "" || $8 > $7 || $9 < $7) { bad = 1 }
         END { exit bad }' out.txt && grep -q '^(all),states,compute,,[0-9]*,1,[0-9.]*,[0-9.]*,[0-9.]*$' out.txt ||
    fail "tea topdown --format csv: no interval around compute's share: $(head -n 4 out.txt)"
# a pipe cannot say it is sampled before its end; TraceDoctor tokens cannot at all
run 1 sh -c "cat samp.tea | '$TEA' replay -q - --schemes tea -o samp-pipe"
contains err.txt "a sampled recording (--sample-every, --simpoints) read from a pipe"
[ ! -e samp-pipe ] || fail "a refused sampled replay left output"
run 2 "$TEA" convert -q samp.tea --to tracedoctor -o samp.td
[ ! -e samp.td ] || fail "a refused conversion left output"
run 0 "$TEA" convert -q samp.tea -o samp2.tea
run 0 "$TEA" info samp2.tea
contains out.txt "20 windows of 1000 instructions"
# --sample-warmup all: functional warming, every instruction between the
# windows warms the model (N - L of them); the same windows are timed (the
# first three: every warmed instruction goes through the model, slow in
# the sanitized build)
run 0 "$TEA" record -q -o samp-all.tea --start-at long_region --stop-at stop_here --sample-every 1000000 \
    --sample-length 1000 --sample-warmup all --max-instructions 3000 -- ./prog long out15b.txt 3
"$TEA" info --json samp-all.tea >info-all.json
[ "$(json_number info-all.json warmup)" -eq 999000 ] && [ "$(json_number info-all.json windows)" -eq 3 ] &&
    [ "$(commits samp-all.tea)" -eq 3000 ] || fail "--sample-warmup all: not 3 windows after 999000 of warming"
# --warm-caches (yes by default when sampling): the stream region reads
# every line of a 1 MiB buffer (more than the L1 D, less than the LLC)
# pass after pass. With functional
# warming every window finds the buffer in the LLC; 1,000 warming
# instructions alone leave it cold (misses to DRAM, and first touches of
# its pages fault); with --warm-caches the tool's copies of the caches and
# its touched pages bring the model back to the functional state, the TLBs
# and predictor aside: within 5 % of the functional estimate, no fault.
estimate() {
    run 0 "$TEA" record -q -o "$1.tea" --start-at stream_region --stop-at stop_here --sample-every 100000 \
        --sample-length 2000 --max-instructions 10000 "${@:2}" -- ./prog stream "out-$1.txt" 1
    "$TEA" info --json "$1.tea" >"info-$1.json" || fail "tea info $1.tea"
    printf '%.0f' "$(json_number "info-$1.json" estimated_cycles)"
}
functional=$(estimate stream-all --sample-warmup all)
warm=$(estimate stream-warm --sample-warmup 1000)
cold=$(estimate stream-cold --sample-warmup 1000 --warm-caches no)
awk -v w="$warm" -v f="$functional" 'BEGIN { d = (w - f) / f; exit !(d <= 0.05 && d >= -0.05) }' ||
    fail "--warm-caches: estimated $warm cycles, functional warming $functional (more than 5 % apart)"
awk -v c="$cold" -v f="$functional" 'BEGIN { exit !(c >= 3 * f) }' ||
    fail "the stream region without --warm-caches: $cold cycles, expected at least 3 x functional $functional"
run 0 "$TEA" topdown stream-warm.tea
contains out.txt "10000 committed, 0 excepted"
run 0 "$TEA" topdown stream-cold.tea
grep -q '10000 committed, [1-9][0-9]* excepted' out.txt || fail "the cold stream region took no page fault"
# The tool skips the call for an access to the most recently used line
# of its L1 D set, which changes nothing, unless the line came in by
# prefetch or as the tail of an access that began in another page: then
# its page may be new. The pages region reads the second page of each
# pair only through a line the prefetcher brought in, the straddle region
# only through the tail of a read that crosses into it and a read that
# begins there; the window finds every page touched (no fault), as with
# functional warming; without --warm-caches their first touches fault.
pages() {
    run 0 "$TEA" record -q -o "$1.tea" --start-at "$2_region" --stop-at stop_here --sample-every 100000 \
        --sample-length 2000 --sample-warmup 200 --max-instructions 2000 "${@:3}" -- ./prog "$2" "out-$1.txt" 1
    run 0 "$TEA" topdown "$1.tea"
}
for region in pages straddle; do
    pages "$region-warm" "$region"
    contains out.txt "2000 committed, 0 excepted"
    pages "$region-cold" "$region" --warm-caches no
    grep -q '2000 committed, [1-9][0-9]* excepted' out.txt || fail "the cold $region region took no page fault"
done
# --branch-warmup (2 * 10^5 by default when sampling): the branchy
# region's conditional branch follows a pattern of period 32 that the
# predictor learns from its history. One window of 2,000 instructions
# 98,000 into the region, after 200 warming ones: with functional warming
# the predictor knows the pattern (no misprediction); with the branches of
# the fast-forward's last instructions handed to the predictor the window
# takes the same cycles (within 5 %), through dual blocks (--sample-every)
# and fast ones (--skip, where it is off unless asked); without, 200
# instructions do not teach it and the window mispredicts.
branch_cycles() {
    run 0 "$TEA" record -q -o "$1.tea" --start-at branchy_region --stop-at stop_here --max-instructions 2000 \
        "${@:2}" -- ./prog branchy "out-$1.txt" 1
    "$TEA" info --json "$1.tea" >"info-$1.json" || fail "tea info $1.tea"
    json_number "info-$1.json" cycles
}
sampled() { branch_cycles "$1" --sample-every 100000 --sample-length 2000 "${@:2}"; }
functional=$(sampled branchy-all --sample-warmup all)
for warm in "$(sampled branchy-warm --sample-warmup 200)" \
    "$(branch_cycles branchy-skip --skip 97800 --warmup 200 --branch-warmup 20000)"; do
    awk -v w="$warm" -v f="$functional" 'BEGIN { d = (w - f) / f; exit !(d <= 0.05 && d >= -0.05) }' ||
        fail "--branch-warmup: the window took $warm cycles, $functional with functional warming (over 5 % apart)"
done
# ... and only the last --branch-warmup instructions' branches: a pass of
# the region is 178 instructions with 65 conditional branches (32 jc, 33
# jnz), so the last 20,000 of the skip hold about 20000 x 65 / 178 = 7,303
# (more than one batch of 4,096: a drain), the whole skip of 97,800 about
# 35,700
run 0 "$TEA" record -o branchy-count.tea --start-at branchy_region --stop-at stop_here --skip 97800 --warmup 200 \
    --max-instructions 2000 --branch-warmup 20000 -- ./prog branchy out-count.txt 1
trained=$(sed -n 's/.* \([0-9]*\) fast-forward branches trained.*/\1/p' err.txt)
[ -n "$trained" ] && [ "$trained" -ge 7200 ] && [ "$trained" -le 7400 ] ||
    fail "--branch-warmup 20000: ${trained:-no} fast-forward branches trained, expected about 7303"
run 0 "$TEA" topdown branchy-warm.tea
grep -q 'Bad_Speculation.Branch_Mispredicts  *0 ' out.txt || fail "--branch-warmup: the window mispredicts"
for cold in "$(sampled branchy-cold --sample-warmup 200 --branch-warmup 0)" \
    "$(branch_cycles branchy-skip-cold --skip 97800 --warmup 200)"; do
    awk -v c="$cold" -v f="$functional" 'BEGIN { exit !(c >= 1.5 * f) }' ||
        fail "the branchy window without --branch-warmup: $cold cycles, expected at least 1.5 x functional $functional"
done
# with nothing fast-forwarded there is nothing to hand over: the same cycles
run 0 "$TEA" record -q -o plain-warm.tea --warm-caches yes --start-at region --stop-at stop_here -- ./prog plain out17.txt 1
"$TEA" info --json plain-warm.tea >info-pw.json
"$TEA" info --json startstop.tea >info-p.json
[ "$(json_number info-pw.json cycles)" = "$(json_number info-p.json cycles)" ] ||
    fail "--warm-caches changed a recording without a fast-forward"
run 2 "$TEA" record -q -o bad.tea --warm-caches maybe -- ./prog plain out17.txt 1
contains err.txt "--warm-caches takes yes or no, not 'maybe'"
run 2 "$TEA" record -q -o bad.tea --sample-every 1000 --sample-warmup most -- ./prog plain out16.txt 1
contains err.txt "invalid instruction count 'most' (or all)"
# options that do not go together
run 2 "$TEA" record -q -o bad.tea --sample-every 1000 --sample-length 1000 -- ./prog plain out16.txt 1
contains err.txt "--sample-length 1000 is not below --sample-every 1000"
run 2 "$TEA" record -q -o bad.tea --sample-every 1000 --warmup 10 -- ./prog plain out16.txt 1
contains err.txt "use --sample-warmup"
run 2 "$TEA" record -q -o bad.tea --sample-length 10 -- ./prog plain out16.txt 1
contains err.txt "need --sample-every"

# --start-at with --max-instructions: the region's first 3 instructions
run 0 "$TEA" record -q -o start3.tea --start-at work --max-instructions 3 -- ./prog plain out4.txt 10
n=$(commits start3.tea)
[ "$n" -eq 3 ] || fail "--start-at work --max-instructions 3 recorded $n instructions"
set -- $(pc_range start3.tea)
[ "$1" -eq "$(sym work)" ] || fail "--start-at work starts at $1, expected $(sym work)"

# client requests: tea_record_start() .. tea_record_stop() holds the region
# (2 * 100 + 6) and the few instructions of the requests' own code
run 0 "$TEA" record -q -o request.tea --wait-start -- ./prog request out5.txt 10
n=$(commits request.tea)
[ "$n" -ge 206 ] && [ "$n" -le 240 ] || fail "tea_record_start/stop recorded $n instructions, expected 206 plus the requests' code"
[ "$(tail -n 1 out5.txt)" = done ] || fail "output incomplete after tea_record_stop()"

# --kill-after: the program does not reach its end
run 0 "$TEA" record -q -o kill.tea --max-instructions 1000 --kill-after -- ./prog plain out6.txt 10
[ ! -e out6.txt ] || fail "--kill-after let the program write its output"
n=$(commits kill.tea)
[ "$n" -eq 1000 ] || fail "--kill-after recorded $n instructions"

# a function that never runs: nothing recorded, said so
run 1 "$TEA" record -q -o never.tea --start-at no_such_function -- ./prog plain out7.txt 1
contains err.txt "no instruction was recorded"
[ ! -e never.tea ] || fail "an empty recording left a trace file"

# programs that cannot run: the message says why
run 2 "$TEA" record -q -o bad.tea -- ./no-such-program
contains err.txt "no such program"
run 2 "$TEA" record -q -o bad.tea -- no-such-program-in-path
contains err.txt "not found in PATH"
echo "not a program" >notexec
chmod 644 notexec
run 2 "$TEA" record -q -o bad.tea -- ./notexec
contains err.txt "not an executable file"
[ ! -e bad.tea ] || fail "a failed recording left a trace file"
# valgrind or the tool missing: said so
run 1 "$TEA" record -q -o bad.tea --valgrind /nonexistent/valgrind -- ./prog plain out10.txt 1
contains err.txt "/nonexistent/valgrind not found; install the Debian package 'valgrind'"
mkdir -p elsewhere/bin
cp "$TEA" elsewhere/bin/tea
run 1 elsewhere/bin/tea record -q -o bad.tea -- ./prog plain out10.txt 1
contains err.txt "the Valgrind tool tearec-amd64-linux is not built or installed"
[ ! -e bad.tea ] || fail "a failed recording left a trace file"

# a program whose time is in libc: the trace lists libc with its build-id
# (as readelf reads it) and a load bias that maps its executable segment,
# and every recorded PC lies in a listed object
cc -O2 -o libprog "$DATA/record_lib.c" || fail "cannot build record_lib"
run 0 "$TEA" record -q -o lib.tea -- ./libprog
run 0 "$TEA" info --json lib.tea
awk '/"objects": \[/ { o = 1 } o && /"path"/ { gsub(/[",]/, "", $2); p = $2 }
     o && /"build_id"/ { gsub(/[",]/, "", $2); b = $2 } o && /"load_bias"/ { gsub(/,/, "", $2); l = $2 }
     o && /"start"/ { gsub(/,/, "", $2); st = $2 } o && /"end"/ { gsub(/,/, "", $2); print p, b, l, st, $2 }
     o && /^  \]/ { o = 0 }' out.txt >objects.txt
cat objects.txt
libc=$(awk '$1 ~ /\/libc\.so/ { print $1; exit }' objects.txt)
[ -n "$libc" ] || fail "the trace does not list libc"
set -- $(awk -v p="$libc" '$1 == p { print; exit }' objects.txt)
want=$(readelf -n "$libc" | sed -n 's/^ *Build ID: *//p')
[ "$2" = "$want" ] || fail "libc's build-id is '$2', readelf says '$want'"
vaddr=$(readelf -lW "$libc" | awk '$1 == "LOAD" && / R?W?E / { print $3; exit }')
[ $(( $4 - $3 )) -eq $(( vaddr & ~4095 )) ] || fail "libc's bias $3 does not map its executable segment at $vaddr to $4"
[ $(($(commits lib.tea))) -gt 100000 ] || fail "the libc program recorded too few instructions"
pc_range lib.tea >/dev/null
outside=$(awk 'NR == FNR { s[NR] = $4; e[NR] = $5; n = NR; next }
                { f = 0; for (i = 1; i <= n; i++) if ($1 >= s[i] && $1 < e[i]) f = 1; if (!f) print }' \
              objects.txt pcs.txt | head -n 3)
[ -z "$outside" ] || fail "recorded PCs outside every listed object: $outside"
in_libc=$(awk -v s="$4" -v e="$5" '$1 >= s && $1 < e' pcs.txt | wc -l)
[ "$in_libc" -gt 0 ] || fail "no recorded PC lies in libc"

# --trace-children: each program a child executes gets OUT.PID.tea, whose
# header names that program; the parent's trace is OUT itself
run 0 "$TEA" record -q -o ch.tea --trace-children -- /bin/sh -c "./prog plain c1.txt 5; ./prog plain c2.txt 5"
[ -s ch.tea ] || fail "--trace-children: no trace of the parent"
set -- ch.[0-9]*.tea
[ $# -eq 2 ] && [ -s "$1" ] && [ -s "$2" ] || fail "--trace-children: expected two child traces, found: $*"
for t in "$@"; do
    run 0 "$TEA" info "$t"
    grep -q "^binary: .*/prog$" out.txt || fail "$t does not name the child's program"
done
[ "$(tail -n 1 c2.txt)" = done ] || fail "--trace-children: the second child did not run to its end"

# SIGTERM stops Valgrind and keeps what was recorded (record_programs.sh
# covers interrupts in full): the trace and nothing else
mkdir killdir
# the program's output by its absolute path: pgrep below finds this
# test's Valgrind, not that of the test's other run (e2e.record@AWK)
"$TEA" record -q -o killdir/k.tea -- ./prog plain "$SCRATCH/killdir/out.txt" 100000000 2>/dev/null &
pid=$!
# wait for the first records (the writer's temporary file) however loaded
# the machine is, then a moment more
for _ in $(seq 600); do
    [ -n "$(ls -A killdir | grep '^\.k\.tea\.tmp')" ] && break
    sleep 0.1
done
sleep 1
kill -TERM $pid
wait $pid
status=$?
[ "$status" -eq 143 ] || fail "SIGTERM: tea record exited $status, expected 143"
sleep 1
pgrep -f "tearec.*$SCRATCH/killdir/out.txt" >/dev/null && fail "valgrind still runs after tea record was killed"
[ "$(ls -A killdir | grep -v '^out.txt$')" = k.tea ] || fail "after SIGTERM: $(ls -A killdir), expected k.tea"
run 0 "$TEA" info killdir/k.tea
contains out.txt "interrupted by SIGTERM"
# progress: on a terminal, the share of --max-instructions, a rate and the
# time left; nothing when stderr is a file. (The two traces are not
# compared: under script(1) the program's environment differs, and with it
# its stack addresses.)
mkdir -p tty file
(cd tty && script -qec "$(printf '%q ' "$TEA" record --max-instructions 3000000 -o p.tea -- ../prog plain big.txt 100000)" \
    /dev/null </dev/null >../tty.log) || { cat -A tty.log >&2; fail "tea record failed on a terminal"; }
grep -qaF "$(printf '\r')tea record: " tty.log && grep -qaF " of 3.00M instructions" tty.log \
    || { cat -A tty.log >&2; fail "tea record drew no progress line on a terminal"; }
grep -qaE " of 3\.00M instructions, [0-9.]+[kM]? instructions/s, [0-9]+ (s|min) left" tty.log \
    || { cat -A tty.log >&2; fail "tea record's progress line shows no rate or time left"; }
(cd file && "$TEA" record --max-instructions 3000000 -o p.tea -- ../prog plain big.txt 100000 2>../err.txt) \
    || fail "tea record failed with stderr in a file"
! grep -qaF "$(printf '\r')" err.txt || fail "tea record drew progress into a file"
[ "$(commits tty/p.tea)" -eq 3000000 ] && [ "$(commits file/p.tea)" -eq 3000000 ] ||
    fail "tea record with progress did not record 3000000 instructions"
# long recordings: --help points to --sample-every; a full recording past
# --hint-after N instructions (default 10^8, far beyond the 3 x 10^6
# above) notes its rate and --sample-every once, by the count recorded,
# not by time; a sampled recording, -q and --hint-after 0 never do
! grep -q "note:" err.txt || fail "a recording of 3 x 10^6 instructions printed a note: $(cat err.txt)"
run 0 "$TEA" record --help
contains out.txt "--sample-every N records a sampled whole run many times faster"
contains out.txt "--hint-after N"
run 0 "$TEA" record --hint-after 2000000 --max-instructions 3000000 -o hint.tea -- ./prog plain hint.txt 100000
[ "$(grep -c "note:" err.txt)" -eq 1 ] || { cat err.txt >&2; fail "--hint-after 2000000: not one note"; }
grep -q "^tea record: note: past 2000000 instructions, recorded at [0-9.]* M instructions/s; for a long run, --sample-every N records a sampled whole run many times faster" err.txt ||
    { cat err.txt >&2; fail "--hint-after 2000000: the note lacks the count, the rate or --sample-every"; }
[ "$(commits hint.tea)" -eq 3000000 ] || fail "the note changed what was recorded: $(commits hint.tea)"
for opts in "-q --hint-after 2000000 --max-instructions 3000000" "--hint-after 0 --max-instructions 3000000" \
    "--hint-after 1000000 --sample-every 200000 --sample-length 100000"; do
    # (sampled: 2 x 10^4 lines, about 1.4 x 10^7 instructions, half of them timed)
    run 0 "$TEA" record $opts -o hint-none.tea -- ./prog plain hint.txt 20000
    ! grep -q "note:" err.txt || fail "tea record $opts printed a note: $(cat err.txt)"
done
# a small real program recorded whole and sampled (Debian's gzip, which is
# essential on Debian, under env -i so that every run records the same
# instructions): the whole run's share of its two hottest instructions lies
# inside the sampled share's 95 % interval (pics report, from the windows'
# groups), widened by 0.3 points: the bias that windows leave whatever the
# warming (the same with --sample-warmup all: warming follows the correct
# path only, where the whole run's wrong paths also evict lines;
# docs/performance.md). Measured:
# 0.1890 against 0.1954 +- 0.0059, 0.1149 against 0.1213 +- 0.0057 (2.4e7
# instructions; a window of 5000 in every 10^5, 9·10^4 warming it: 239
# windows; a small input, since the sanitized build models slowly).
seq 1 15000 >s15k.txt
run 0 env -i "$TEA" record -q -o gz-full.tea -- /usr/bin/gzip -9 -c s15k.txt
run 0 env -i "$TEA" record -q -o gz-samp.tea --sample-every 100000 --sample-length 5000 --sample-warmup 90000 \
    -- /usr/bin/gzip -9 -c s15k.txt
for k in full samp; do run 0 "$TEA" replay -q "gz-$k.tea" --schemes golden -o "gz-$k"; done
"$PICS" report gz-full/golden.pics --top 0 --format csv |
    awk -F, 'NR > 1 { s[$2] += $(NF - 5) } END { for (a in s) print a, s[a] }' | sort -k2 -g -r | head -n 2 >hot.txt
[ "$(wc -l <hot.txt)" -eq 2 ] || fail "gzip: no hottest instructions"
"$PICS" report gz-samp/golden.pics --top 0 | awk '/^ *[0-9.]+% ± *[0-9.]+%/ {
    for (i = 1; i <= NF; i++) if ($i ~ /^0x/) { sub(/%/, "", $1); sub(/%/, "", $3); print $i, $1 / 100, $3 / 100; break } }' \
    >intervals.txt
awk 'FILENAME == ARGV[1] { share[$1] = $2; half[$1] = $3; next }
     { if (!($1 in share) || $2 < share[$1] - half[$1] - 0.003 || $2 > share[$1] + half[$1] + 0.003) {
           printf "%s: whole run %.4f, sampled %.4f +- %.4f\n", $1, $2, share[$1], half[$1]; bad = 1 } }
     END { exit bad }' intervals.txt hot.txt >outside.txt ||
    fail "gzip: a hottest instruction's whole-run share is outside the sampled interval (+- 0.3 points): $(cat outside.txt)"
# Taggers on a sampled trace sample at the run's period (in phases,
# docs/semantics.md "Taggers on a sampled trace"): the stream region after
# three passes (steady: caches, pages and predictor warm in both), recorded
# whole and in windows of 10^4 of every 10^5 instructions, replayed at the
# same --samples K, where the run's period is near a tag's life (about 30 %
# and 50 % of the points busy on the whole recording): IBS, SPE and RIS
# lose the same share of points on both, within 3 points. (One unit on the
# sampled trace, at a tenth of the period, lost over 80 %.)
run 0 "$TEA" record -q -o stream-full.tea --start-at stream_region --stop-at stop_here --skip 200000 \
    --warm-caches yes --branch-warmup 10000 -- ./prog stream out-sf.txt 1
run 0 "$TEA" record -q -o stream-samp.tea --start-at stream_region --stop-at stop_here --skip 200000 \
    --sample-every 100000 --sample-length 10000 -- ./prog stream out-ss.txt 1
for k in 10000 20000; do
    for w in full samp; do
        run 0 "$TEA" replay -q "stream-$w.tea" --samples "$k" --schemes ibs,spe,ris -o "stream-$w-$k"
    done
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { f = $(c["lost"]) / ($(c["samples"]) + $(c["lost"])) }
        FILENAME ~ /full/ { full[$2] = f; next }
        { d = f - full[$2]; if (d < 0) d = -d
          printf "%s %.3f %.3f\n", $2, full[$2], f; if (d > 0.03 || full[$2] < 0.2) bad = 1 }
        END { exit bad }' "stream-full-$k/summary.csv" "stream-samp-$k/summary.csv" >lost-$k.txt ||
        fail "--samples $k: losses (scheme, whole, sampled) differ by more than 3 points: $(cat lost-$k.txt)"
done
echo "record: regions, output, messages and kill checked"
