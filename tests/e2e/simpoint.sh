# tea record --simpoints/--weights on tests/data/record_prog.c's long
# region (2 * 10^7 + 5 instructions from long_region's entry to stop_here's,
# all of them long_dec/long_jnz but the first two and the last three, then
# the program's end): SimPoint's regions timed where the files say, each
# standing for round(weight x the run's intervals) of them, and replayed
# weighted. Skipped (77) where valgrind or tea's Valgrind tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
build_record_prog

# intervals of 10^6 instructions from long_region's entry: the run has 21
# (20 whole, then stop_here and the program's end); regions 11 (cluster 1,
# weight 0.75) and 2 (cluster 0, 0.25), each timing its first 1000
# instructions after 10^4 of warming: 16 and 5 intervals (15.75, 5.25)
printf '11 1\n2 0\n' >sp.txt
printf '0.25 0\n0.75 1\n' >w.txt
run 0 "$TEA" record -q -o sp.tea --start-at long_region --simpoints sp.txt --weights w.txt \
    --simpoint-interval 1000000 --sample-length 1000 --sample-warmup 10000 -- ./prog long out1.txt 3
[ "$(tail -n 1 out1.txt)" = done ] || fail "--simpoints: the program did not run to its end"
"$TEA" info --json sp.tea >info.json || fail "tea info --json"
[ "$(json_number info.json commits)" -eq 2000 ] || fail "--simpoints: $(json_number info.json commits) timed, not 2 x 1000"
[ "$(json_number info.json windows)" -eq 2 ] && [ "$(json_number info.json every)" -eq 1000000 ] &&
    [ "$(json_number info.json length)" -eq 1000 ] && [ "$(json_number info.json warmup)" -eq 10000 ] ||
    fail "--simpoints: the trace's sampling is not the one asked for"
tr -d ' \n' <info.json | grep -q '"window_starts":\[2000000,11000000\],"window_weights":\[5,16\]' ||
    fail "--simpoints: the windows' starts and weights are not 2e6, 11e6 and 5, 16: $(grep -A8 window_starts info.json)"
run 0 "$TEA" info sp.tea
contains out.txt "2 SimPoint regions of 1000 instructions (10000 of warm-up at most), in intervals of 1000000;"
contains out.txt "they stand for 21 intervals (weights 5 to 16)"
contains out.txt "for 2.1e+07 instructions (the regions' commits scaled to the intervals they stand for)"
# the timed instructions are the loop's (region instruction 2 * 10^6 is a long_dec)
run 0 "$TEA" replay -q sp.tea --schemes golden,tea,ibs --samples 200 -o r
"$PICS" export r/golden.pics >cells.csv || fail "pics export"
[ "$(awk -F, 'NR > 1 { print $1 }' cells.csv | while read -r pc; do echo $((pc)); done | sort -un | tr '\n' ' ')" = \
    "$(sym long_dec) $(sym long_jnz) " ] || fail "--simpoints timed other instructions than the loop's"
# the golden PICS is the windows' cycles weighted: the same total as tea
# topdown's, and the estimate of tea info is it times 10^6 / 1000; no groups
golden=$("$PICS" report r/golden.pics --top 1 | sed -n 's/^# total \([0-9]*\)\.000 cycles$/\1/p')
est=$(sed -n 's/^ *"estimated_cycles": \([0-9.e+]*\),*$/\1/p' info.json)
awk -v e="$est" -v g="$golden" 'BEGIN { d = e / (1000 * g) - 1; exit !(g > 0 && d < 1e-9 && d > -1e-9) }' ||
    fail "--simpoints: tea info estimates $est cycles, the golden PICS holds $golden (x 1000)"
"$TEA" topdown sp.tea >td.txt || fail "tea topdown"
grep -q "^cycles:   $golden (what the weighted windows stand for" td.txt || fail "tea topdown: $(sed -n 2p td.txt)"
! grep -q '^groups' r/golden.pics || fail "--simpoints: a golden PICS with window groups"
# --samples counts the cycles the windows stand for (golden's total): 200
# of them give a base period of round(3.2e9 * 1000 / (f * 10^6)) cycles,
# and each window takes its weight / period samples per cycle: TEA takes
# about golden / period, as the whole run would
contains err.txt "--samples 200:"
period=$(sed -n 's/.*--samples 200: .* (period \([0-9]*\) cycles)$/\1/p' err.txt)
n=$(awk -F, '$2 == "tea" { print $5 }' r/summary.csv)
awk -v n="$n" -v g="$golden" -v p="$period" 'BEGIN { e = g / p; exit !(p > 0 && n >= e - 2 && n <= e + 2) }' ||
    fail "--samples 200 on the weighted trace gave TEA $n samples at period $period, expected $golden / $period"
run 0 "$PICS" error r/tea.pics r/golden.pics
! grep -q 'interval' out.txt || fail "pics error: an interval on SimPoint's chosen regions"

# a pipe names the weights only at its end: replay and topdown refuse it, leaving nothing
run 1 sh -c "cat sp.tea | '$TEA' replay -q - --schemes tea -o sp-pipe"
contains err.txt "a sampled recording (--sample-every, --simpoints) read from a pipe"
[ ! -e sp-pipe ] || fail "a refused weighted replay left output"
run 1 sh -c "cat sp.tea | '$TEA' topdown -"
contains err.txt "a recording of SimPoint's regions (--simpoints) read from a pipe"

# one region standing for the whole run: the weight is the run's 21 intervals
printf '5 0\n' >sp1.txt
printf '1 0\n' >w1.txt
run 0 "$TEA" record -q -o sp1.tea --start-at long_region --simpoints sp1.txt --weights w1.txt \
    --simpoint-interval 1000000 --sample-length 1000 -- ./prog long out2.txt 3
"$TEA" info --json sp1.tea >info1.json
tr -d ' \n' <info1.json | grep -q '"window_starts":\[5000000\],"window_weights":\[21\]' ||
    fail "one region: not at 5e6 standing for 21 intervals"
# --sample-warmup all: each region warmed from the end of the one before (the first from the start)
run 0 "$TEA" record -q -o spall.tea --start-at long_region --simpoints sp.txt --weights w.txt \
    --simpoint-interval 1000000 --sample-length 1000 --sample-warmup all -- ./prog long out3.txt 3
"$TEA" info --json spall.tea >infoall.json
[ "$(json_number infoall.json warmup)" -eq 11000000 ] && [ "$(json_number infoall.json commits)" -eq 2000 ] ||
    fail "--sample-warmup all with --simpoints: warm-up $(json_number infoall.json warmup), expected 11000000"

# regions that do not fit the run (files made for another interval,
# program or input) are refused, naming the interval, and leave no trace:
# one past the program's end (21 intervals), and every region in the
# first tenth (intervals 0 and 1 of 21: 2 x 10 <= 21)
printf '2 0\n400 1\n' >sp2.txt
run 2 "$TEA" record -q -o sp2.tea --start-at long_region --simpoints sp2.txt --weights w.txt \
    --simpoint-interval 1000000 --sample-length 1000 -- ./prog long out4.txt 3
contains err.txt "1 of the 2 SimPoint regions lie past the program's end: the run has 21 intervals of --simpoint-interval 1000000 instructions"
[ ! -e sp2.tea ] || fail "a refused SimPoint recording left its trace"
printf '0 0\n1 1\n' >sp3.txt
run 2 "$TEA" record -q -o sp3.tea --start-at long_region --simpoints sp3.txt --weights w.txt \
    --simpoint-interval 1000000 --sample-length 1000 -- ./prog long out4.txt 3
contains err.txt "every SimPoint region lies in the first tenth of the run: the last is interval 1 of the run's 21 intervals of --simpoint-interval 1000000 instructions"
[ ! -e sp3.tea ] || fail "a refused SimPoint recording left its trace"

# what does not go together, and bad files (named, with the line)
run 2 "$TEA" record -q -o bad.tea --simpoints sp.txt -- ./prog plain out5.txt 1
contains err.txt "--simpoints and --weights go together"
run 2 "$TEA" record -q -o bad.tea --simpoints sp.txt --weights w.txt --sample-every 1000 -- ./prog plain out5.txt 1
contains err.txt "--simpoints does not go with --sample-every"
run 2 "$TEA" record -q -o bad.tea --simpoint-interval 1000 -- ./prog plain out5.txt 1
contains err.txt "--simpoint-interval needs --simpoints and --weights"
run 2 "$TEA" record -q -o bad.tea --simpoints sp.txt --weights w.txt --simpoint-interval 100 --sample-length 101 \
    -- ./prog plain out5.txt 1
contains err.txt "--sample-length 101 is over --simpoint-interval 100"
printf '0.25 0\n0.75 x\n' >wbad.txt
run 1 "$TEA" record -q -o bad.tea --simpoints sp.txt --weights wbad.txt -- ./prog plain out5.txt 1
contains err.txt "wbad.txt, line 2: expected \"WEIGHT CLUSTER\""
[ ! -e bad.tea ] || fail "a refused recording left a trace"

# tea simpoint on the program's two phases (mode phases): long_region's
# 2 x 10^7 + 6 instructions, then stream_region's 4 x 2621604 (each pass
# 2 + 16384 x 4 + 2, 40 passes, 4 around them) = 10486416, in intervals of
# 2 x 10^5 after about 10^5 of start-up: phase A ends in interval 100.
# Regions in both phases, each phase's weights within 5 % of its share of
# the intervals' instructions.
run 0 "$TEA" simpoint -o ph --interval 200000 --keep-bbv ph.bb -- ./prog phases out6.txt 1
[ "$(tail -n 1 out6.txt)" = done ] || fail "tea simpoint: the program did not run to its end"
contains out.txt "record them with"
[ "$(sed -n 1p ph.simpoints)" = "# interval 200000 instructions (exp-bbv's --interval-size)" ] ||
    fail "tea simpoint: ph.simpoints does not name the interval first: $(sed -n 1p ph.simpoints)"
total=$(sed -n 's/^[0-9]* intervals of 200000 instructions (\([0-9]*\) in all);.*/\1/p' out.txt)
[ -n "$total" ] || fail "tea simpoint: no summary line: $(head -n 1 out.txt)"
paste -d' ' <(grep -v '^#' ph.simpoints) ph.weights >ph.joined
awk -v total="$total" '
    { if ($1 <= 100) a += $3; else b += $3; na += $1 <= 100; nb += $1 > 100 }
    END { ta = 20000006 / total; tb = 10486416 / total
          ok = na > 0 && nb > 0 && a > 0.95 * ta && a < 1.05 * ta && b > 0.95 * tb && b < 1.05 * tb
          if (!ok) printf "phase A %d regions weighing %.4f (true %.4f), B %d weighing %.4f (true %.4f)\n", na, a, ta, nb, b, tb
          exit !ok }' ph.joined >phases.txt || fail "tea simpoint: $(cat phases.txt)"
# the same from the kept vectors, the same regions (the same seed)
run 0 "$TEA" simpoint -o ph2 --interval 200000 --bbv ph.bb
cmp -s ph.simpoints ph2.simpoints && cmp -s ph.weights ph2.weights || fail "tea simpoint --bbv: other regions"
# tea record takes the interval from the file, and refuses another
run 0 "$TEA" record -q -o ph.tea --simpoints ph.simpoints --weights ph.weights --sample-length 1000 \
    -- ./prog phases out7.txt 1
"$TEA" info --json ph.tea >phinfo.json || fail "tea info --json"
[ "$(json_number phinfo.json every)" -eq 200000 ] || fail "tea record did not take the interval from ph.simpoints"
run 2 "$TEA" record -q -o ph3.tea --simpoints ph.simpoints --weights ph.weights --simpoint-interval 1000000 \
    -- ./prog phases out8.txt 1
contains err.txt "ph.simpoints was made for intervals of 200000 instructions, not --simpoint-interval 1000000"
[ ! -e ph3.tea ] || fail "a refused recording left a trace"
# a program whose work runs on a second thread: exp-bbv writes thread 1's
# vectors (the thread tea record times) apart from the others'; too few
# for an interval is said, naming the others' files, and nothing is left
# behind (nor the temporary files of the threads), in a TMPDIR of this
# test's own (another test's tea simpoint may be using the machine's)
mkdir -p tmpdir
export TMPDIR="$PWD/tmpdir"
tmp_before=$(ls "${TMPDIR:-/tmp}" | grep -c '^tea-simpoint-' || true)
run 1 "$TEA" simpoint --interval 1000000 -o th -- ./prog thread out9.txt 1
contains err.txt "the recorded thread (Valgrind's thread 1, as tea record --simpoints times it) ran no whole interval"
[ ! -e th.simpoints ] && [ ! -e th.weights ] || fail "a refused tea simpoint left its files"
[ "$(ls "${TMPDIR:-/tmp}" | grep -c '^tea-simpoint-' || true)" = "$tmp_before" ] ||
    fail "tea simpoint left exp-bbv's temporary files"
run 2 "$TEA" simpoint -o x
contains err.txt "missing PROGRAM"
run 1 "$TEA" simpoint -o x --bbv wbad.txt
contains err.txt "wbad.txt: no interval"
[ ! -e x.simpoints ] && [ ! -e x.weights ] || fail "a refused tea simpoint left its files"
echo "simpoint: ok"
