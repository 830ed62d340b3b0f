# tea replay and the pics commands: the reference scenario's golden PICS,
# TEA at period 1, identical PICS from both trace formats, seeds, several
# frequencies, error, export, merge, and the error ordering of the schemes.
. "$(dirname "$0")/lib.bash"

# --- the scenario's golden PICS equals the expected CSV (fractions as decimals)
run 0 "$TEA" replay "$DATA/scenario.bin" --period 1 -o sc
contains out.txt "tea"
run 0 "$PICS" export sc/golden.pics
cp out.txt golden.csv
awk -F, 'NR > 1 { print }' golden.csv | sort >got.txt
grep -v '^#' "$DATA/scenario.golden.csv" | awk 'NR > 1 {
    # pc, psv label (maybe quoted, with commas), num/den
    n = split($0, f, ","); frac = f[n]; pc = f[1]
    label = substr($0, length(pc) + 2, length($0) - length(pc) - length(frac) - 2)
    split(frac, q, "/"); den = (q[2] == "") ? 1 : q[2]
    printf "%s|%s|%.6f\n", pc, label, q[1] / den }' | sort >want.txt
awk -F, '{ n = split($0, f, ","); label = substr($0, length(f[1]) + length(f[2]) + 3,
           length($0) - length(f[1]) - length(f[2]) - length(f[n]) - 3); printf "%s|%s|%s\n", f[1], label, f[n] }' \
    got.txt | sort >got2.txt
diff want.txt got2.txt >&2 || fail "golden PICS of the scenario differs from scenario.golden.csv"
head -n 1 golden.csv | grep -qx 'pc,psv,component,cycles' || fail "CSV header"
contains golden.csv '0x1008,5,"ST-L1,ST-LLC",7.000000'
contains golden.csv '0x3000,0,base,1.333333'

# TEA at period 1 is golden: same export, zero error
run 0 "$PICS" export sc/tea.pics
diff golden.csv out.txt >&2 || fail "TEA at period 1 differs from golden"
run 0 "$PICS" error sc/tea.pics sc/golden.pics --json
contains out.txt '"error": 0,'
run 0 "$PICS" error sc/nci.pics sc/golden.pics --top 3
contains out.txt "error: "
contains out.txt "top 3 contributors:"
run 0 "$PICS" export sc/golden.pics --format json
contains out.txt '"component": "ST-L1,ST-LLC"'

# --- the same trace in both formats gives identical PICS files
run 0 "$TEA" gen --workload mixed --cycles 400000 --seed 4 -o m.tea
run 0 "$TEA" convert m.tea --to tracedoctor -o m.td.zst
run 0 "$TEA" replay m.tea --freq 100k,1M -o rn
run 0 "$TEA" replay m.td.zst --freq 100k,1M -o rt
for f in golden tea-100000hz tea-1000000hz nci-100000hz ibs-1000000hz spe-1000000hz ris-100000hz; do
    [ -f "rn/$f.pics" ] || fail "rn/$f.pics missing"
    cmp -s "rn/$f.pics" "rt/$f.pics" || fail "$f.pics differs between native and tracedoctor"
done
[ "$(wc -l <rn/summary.csv)" = 11 ] || fail "summary.csv should have a header and 10 rows"
! grep -q '^#' rn/summary.csv || fail "summary.csv: a comment line (provenance belongs in summary.json)"
head -n 1 rn/summary.csv |
    grep -qx 'trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records,noise_floor_insn_component,noise_floor_insn,noise_floor_func,rules,error_ci95_low,error_ci95_high,run_cycles,run_cycles_ci95_low,run_cycles_ci95_high,run_instructions,samples_target' ||
    fail "summary.csv: line 1 is not the column names"
digest=$(sed -n 's/^trace.digest //p' rn/golden.pics)
[ -n "$digest" ] || fail "golden.pics: no digest line"
span=$("$TEA" info --json m.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
records=$("$TEA" info --json m.tea | sed -n 's/^  "records": \([0-9]*\),$/\1/p')
[ -n "$span" ] && [ -n "$records" ] || fail "tea info --json: no cycles or records"
grep -q "^m,ibs,1000000,1,[0-9]*,[0-9]*,0\.[0-9]\{9\},0\.[0-9]\{9\},,$digest,$span,$records,,,,default,,,,,,,\$" rn/summary.csv ||
    fail "summary.csv: an ibs row (no function error without symbols, the trace's digest and span)"
grep -q '"tool": "tea [^"]*",' rn/summary.json || fail "summary.json: no tool"
grep -q '"command_line": "tea replay m.tea --freq 100k,1M -o rn"' rn/summary.json ||
    fail "summary.json: no command line"
grep -q "\"digest\": \"$digest\"" rn/summary.json || fail "summary.json: no trace digest"
grep -q '"path": "m.tea"' rn/summary.json || fail "summary.json: no trace path"

# --- pics report on a replay directory, the rule of every command
# (docs/usage.md, "Replay directories"): the directory stands for its golden
# PICS, --scheme S for its S.pics against its golden; with several
# frequencies a message names the files to pass
run 0 "$TEA" replay m.tea --freq 1M -o one
run 0 "$PICS" report one/golden.pics
cp out.txt want-golden.txt
run 0 "$PICS" report one
cmp -s out.txt want-golden.txt || fail "pics report DIR differs from pics report DIR/golden.pics"
contains err.txt "one is a tea replay directory: taking its one/golden.pics (--scheme S for another scheme's PICS)"
run 0 "$PICS" report one/tea.pics --golden one/golden.pics
cp out.txt want-report.txt
run 0 "$PICS" report one --scheme tea
cmp -s out.txt want-report.txt || fail "pics report DIR --scheme tea differs from pics report DIR/tea.pics --golden DIR/golden.pics"
contains err.txt "one is a tea replay directory: reporting one/tea.pics against one/golden.pics"
run 0 "$PICS" report one/golden.pics --golden one/golden.pics
cp out.txt want-golden-pair.txt
run 0 "$PICS" report one --scheme golden --golden one/golden.pics
cmp -s out.txt want-golden-pair.txt || fail "--scheme golden with --golden: not the golden PICS against itself"
run 2 "$PICS" report rn --scheme tea
contains err.txt "rn is a tea replay directory with TEA PICS at 2 frequencies: pass one of tea-1000000hz.pics, tea-100000hz.pics with --golden rn/golden.pics"
run 2 "$PICS" report one --scheme tee
contains err.txt "unknown scheme 'tee' for --scheme (golden, tea, nci, ibs, spe, ris, SCHEME:all)"
run 2 "$PICS" report one --scheme golden:all
contains err.txt "unknown scheme 'golden:all'"
run 2 "$PICS" report one/tea.pics --scheme tea
contains err.txt "--scheme tea takes a PICS of a tea replay directory, and one/tea.pics is none"
mkdir -p notreplay
run 2 "$PICS" report notreplay
contains err.txt "notreplay is a directory without golden.pics, not a tea replay directory: pass a PICS file"

# --- granularities mean the same in every command (docs/usage.md): insn is
# the instruction with its components summed, in pics error, report and
# diff alike (pics diff used to take insn for instruction x component)
run 0 "$PICS" error one/tea.pics one/golden.pics --granularity insn --json
want=$(json_number out.txt error)
run 0 "$PICS" diff one/golden.pics one/tea.pics --granularity insn --format json
[ "$(json_number out.txt difference)" = "$want" ] || fail "pics diff --granularity insn: $(json_number out.txt difference), pics error: $want"
run 0 "$PICS" diff one/golden.pics one/tea.pics --granularity insn --format csv
if sed 1d out.txt | grep -v ',(all),'; then fail "pics diff --granularity insn: a row with a component"; fi
run 0 "$PICS" report one/tea.pics --golden one/golden.pics --granularity insn --format json
[ "$(json_number out.txt error)" = "$want" ] || fail "pics report --granularity insn: error $(json_number out.txt error), pics error: $want"
run 0 "$PICS" error one/tea.pics one/golden.pics --granularity insn-component --json
want=$(json_number out.txt error)
for g in "" "--granularity insn-component"; do
    run 0 "$PICS" diff one/golden.pics one/tea.pics $g --format json
    [ "$(json_number out.txt difference)" = "$want" ] || fail "pics diff $g: not pics error's insn-component"
done

# --- too few samples are said, with the frequency that gives enough: at
# 1 MHz (period 3200) the 400,000 cycles hold 125 points; 1000 need 8 MHz
run 0 "$TEA" replay m.tea --schemes golden,tea --freq 1M --jitter none -o few
contains err.txt "tea replay: warning: m: at 1000000 Hz tea took fewer than 1000 samples (as few as 125): too few for the error to mean much; use --freq 8000000 or more (a trace of 400000 cycles at 3200000000 Hz)"
run 0 "$TEA" replay m.tea --schemes golden,tea --freq 8M --jitter none -o enough
[ ! -s err.txt ] || fail "a warning with 1000 samples: $(cat err.txt)"
# the 50 cycles of the scenario hold 1000 samples at no frequency
run 0 "$TEA" replay "$DATA/scenario.bin" --schemes golden,tea -o short
contains err.txt "at 4000 Hz tea took fewer than 1000 samples (as few as 0): too few for the error to mean much; the trace is too short for that even at one sample per cycle (a trace of 50 cycles at "

# --- the default frequency on a short native trace: 4 kHz gives the 400,000
# cycles 400000 * 4000 / 3.2e9 = 0.5 sample points, so the default is raised
# to the frequency that gives 2000, 2000 * 3.2e9 / 400000 = 16 MHz (period
# 200: TEA takes exactly 2000), and stderr says so. --freq 4000 keeps 4 kHz;
# a TraceDoctor trace, whose length is unknown before it is read, keeps it
# too (with the warning).
run 0 "$TEA" replay m.tea --schemes golden,tea -o dflt
contains err.txt "tea replay: m: the default 4000 Hz gives this trace about 0.5 samples; replaying at 16000000 Hz, which gives about 2000 (--freq 4000 keeps the default)"
[ "$(awk -F, '$2 == "tea" { print $3 "," $5 }' dflt/summary.csv)" = "16000000,2000" ] ||
    fail "default frequency: summary.csv has $(awk -F, '$2 == "tea" { print $3 "," $5 }' dflt/summary.csv)"
run 0 "$TEA" replay m.tea --schemes golden,tea --freq 4000 -o dflt-4k
[ "$(awk -F, '$2 == "tea" { print $3 }' dflt-4k/summary.csv)" = 4000 ] || fail "--freq 4000 was not kept"
if grep -q "the default" err.txt; then fail "--freq 4000: the default was said to be raised"; fi
run 0 "$TEA" replay m.td.zst --schemes golden,tea -o dflt-td
[ "$(awk -F, '$2 == "tea" { print $3 }' dflt-td/summary.csv)" = 4000 ] || fail "a TraceDoctor trace: the default 4 kHz changed"
contains err.txt "use --freq 8000000 or more"

# --- a scheme that loses samples: with --samples the warning names the K
# that makes up for its losses. The 2*10^6 cycles of mixed seed 1 at
# --samples 1200: 1200 * 3.2e9 / 1999895 = 1.92 MHz (period 1667); SPE keeps
# the fewest, 579, so 1000 need 1.92e6 * 1000 / 579 = 3316062 Hz, which the
# trace's cycles turn into 3316062 * 1999895 / 3.2e9 = 2072.4 sample points:
# K = 2100 (two digits, rounded up), not the 1000 TEA would need.
run 0 "$TEA" gen --workload mixed --cycles 2e6 --seed 1 -o mixed2m.tea
run 0 "$TEA" replay mixed2m.tea --samples 1200 -o losses
contains err.txt "at 1920000 Hz ibs, spe, ris took fewer than 1000 samples (as few as 579): too few for the error to mean much; use --samples 2100 or more (a trace of 1999895 cycles at 3200000000 Hz)"

# --- a scheme with all nine events: the same samples, only the components
# differ, so the instruction-only error is the same as the native scheme's
run 0 "$TEA" replay m.tea --freq 1M --schemes golden,ibs,ibs:all,spe:all -o va
for f in golden ibs ibs-all spe-all; do [ -f "va/$f.pics" ] || fail "va/$f.pics missing"; done
[ "$(sed -n 's/^events //p' va/ibs-all.pics)" = all ] || fail "ibs-all.pics: events not all"
e_native=$(awk -F, '!/^#/ && $2 == "ibs" { print $8 }' va/summary.csv)
e_all=$(awk -F, '!/^#/ && $2 == "ibs:all" { print $8 }' va/summary.csv)
[ -n "$e_native" ] && [ "$e_native" = "$e_all" ] || fail "ibs and ibs:all: error_insn $e_native vs $e_all"
run 2 "$TEA" replay m.tea --schemes ibs:some -o x
contains err.txt "unknown event set 'some'"

# --- the same seed gives byte-identical output, another seed other samples
run 0 "$TEA" replay m.tea --freq 1M --seed 7 -o s7a
run 0 "$TEA" replay m.tea --freq 1M --seed 7 -o s7b
run 0 "$TEA" replay m.tea --freq 1M --seed 8 -o s8
for s in golden tea nci ibs spe ris; do
    cmp -s s7a/$s.pics s7b/$s.pics || fail "seed 7 twice: $s.pics differs"
done
for s in tea nci ibs spe ris; do
    cmp -s s7a/$s.pics s8/$s.pics && fail "seeds 7 and 8: $s.pics identical"
done
grep -v '^#' s7a/summary.csv >s7a.rows
grep -v '^#' s7b/summary.csv >s7b.rows
cmp -s s7a.rows s7b.rows || fail "summary.csv differs for the same seed"

# --- with --jitter none the points are origin + kP: P = 1000 over 400,000 cycles
run 0 "$TEA" replay m.tea --period 1000 --jitter none --schemes golden,tea -o none
samples=$(sed -n 's/^samples //p' none/tea.pics)
span=$("$TEA" info --json m.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
lost=$(sed -n 's/^lost.end //p' none/tea.pics)
[ $((samples + lost)) = $((span / 1000)) ] || fail "expected $((span / 1000)) points, got $samples + $lost"

# --- merge: two halves of a batch sum exactly
run 0 "$TEA" gen --workload memory --cycles 200000 --seed 1 -o a.tea
run 0 "$TEA" gen --workload memory --cycles 200000 --seed 2 -o b.tea
run 0 "$TEA" replay a.tea --freq 1M -o ra
run 0 "$TEA" replay b.tea --freq 1M -o rb
run 0 "$PICS" merge ra/golden.pics rb/golden.pics -o merged-golden.pics
run 0 "$PICS" merge ra/tea.pics rb/tea.pics -o merged-tea.pics
ga=$(sed -n 's/^golden_total //p' ra/golden.pics)
gb=$(sed -n 's/^golden_total //p' rb/golden.pics)
[ "$(sed -n 's/^golden_total //p' merged-golden.pics)" = $((ga + gb)) ] || fail "merged golden total"
sa=$(sed -n 's/^samples //p' ra/tea.pics)
sb=$(sed -n 's/^samples //p' rb/tea.pics)
[ "$(sed -n 's/^samples //p' merged-tea.pics)" = $((sa + sb)) ] || fail "merged samples"
run 0 "$PICS" error merged-tea.pics merged-golden.pics
# the merged identity does not depend on the order of the inputs
run 0 "$PICS" merge rb/tea.pics ra/tea.pics -o merged-tea-ba.pics
d_ab=$(sed -n 's/^trace.digest //p' merged-tea.pics)
d_ba=$(sed -n 's/^trace.digest //p' merged-tea-ba.pics)
[ -n "$d_ab" ] && [ "$d_ab" = "$d_ba" ] || fail "merged digests depend on the order: '$d_ab' vs '$d_ba'"
run 0 "$PICS" error merged-tea-ba.pics merged-golden.pics
run 2 "$PICS" merge ra/tea.pics rb/ibs.pics -o x.pics
contains err.txt "cannot merge a ibs PICS into a tea PICS"
run 2 "$PICS" error ra/tea.pics rb/golden.pics
contains err.txt "come from different traces"

# --- function granularity through a symbol map
printf '0x10000 0x10400 first\n0x10400 0x20000 rest\n' >syms.txt
run 0 "$PICS" error ra/tea.pics ra/golden.pics --granularity func --symbols syms.txt --json
contains out.txt '"functions": ['
run 2 "$PICS" error ra/tea.pics ra/golden.pics --granularity func

# --- bad PICS files
head -n 20 ra/golden.pics >short.pics
run 1 "$PICS" export short.pics
contains err.txt "short.pics: truncated"
sed 's/^0x1\(.*\) \([0-9]*\) \([0-9]*\)$/0x1\1 \2 x/' ra/golden.pics >bad.pics
run 1 "$PICS" export bad.pics
contains err.txt "bad.pics: line"
printf 'hello\n' >notpics.pics
run 1 "$PICS" export notpics.pics
contains err.txt "not a PICS file"
run 2 "$TEA" replay m.tea -o x --period 0
run 2 "$TEA" replay m.tea -o x --schemes tea,vtune
run 1 "$TEA" replay missing.tea -o x

# --- frame-parallel replay: the same files for every thread count, and a
# damaged trace gives the streaming reader's diagnosis
run 0 "$TEA" convert m.tea --frame-records 1000 -o mf.tea
run 0 "$TEA" replay mf.tea --threads 1 --freq 100k,1M --jitter start -o th1
for t in 2 3; do
    run 0 "$TEA" replay mf.tea --threads $t --freq 100k,1M --jitter start -o th$t
    for f in th1/*.pics; do
        cmp "$f" "th$t/$(basename "$f")" || fail "$(basename "$f") differs with --threads $t"
    done
    diff <(grep -v '^#' th1/summary.csv) <(grep -v '^#' th$t/summary.csv) >&2 || fail "summary.csv differs with --threads $t"
done
# a named pipe is read as a stream (never opened twice), with the same results
rm -f fifo.tea
mkfifo fifo.tea
cat mf.tea >fifo.tea &
run 0 "$TEA" replay fifo.tea --threads 2 --freq 100k,1M --jitter start -o thp
wait
for f in th1/*.pics; do
    cmp "$f" "thp/$(basename "$f")" || fail "$(basename "$f") differs when read from a named pipe"
done
size=$(file_size mf.tea)
head -c $((size / 2)) mf.tea >damaged.tea
printf '\x55\xaa\x55\xaa' >>damaged.tea
tail -c +$((size / 2 + 5)) mf.tea >>damaged.tea
run 1 "$TEA" replay damaged.tea --threads 1 -o dm1
cp err.txt err1.txt
run 1 "$TEA" replay damaged.tea --threads 2 -o dm2
diff err1.txt err.txt >&2 || fail "--threads 2 reports a damaged trace differently"
[ ! -e dm2/golden.pics ] || fail "output left behind for a damaged trace"
run 2 "$TEA" replay m.tea -o x --threads 0
contains err.txt "invalid thread count"
run 0 "$TEA" replay --help
contains out.txt "--threads N"

# --- with enough samples: TEA < NCI-TEA < IBS on every workload (20,000 samples each)
for w in mixed memory branchy frontend flushes compute; do
    run 0 "$TEA" gen --workload $w --cycles 2000000 --seed 2 -o $w.tea
    run 0 "$TEA" replay $w.tea --period 100 --schemes golden,tea,nci,ibs -o order-$w
    tea_err=$(awk -F, '!/^#/ && $2 == "tea" { print $7 }' order-$w/summary.csv)
    nci_err=$(awk -F, '!/^#/ && $2 == "nci" { print $7 }' order-$w/summary.csv)
    ibs_err=$(awk -F, '!/^#/ && $2 == "ibs" { print $7 }' order-$w/summary.csv)
    awk -v t="$tea_err" -v n="$nci_err" -v i="$ibs_err" 'BEGIN { exit !(t < n && n < i) }' ||
        fail "$w: expected TEA < NCI < IBS, got $tea_err, $nci_err, $ibs_err"
done
# --- --samples K: the frequency that gives about K samples, K * clock /
# cycles to three significant digits, the same from the native file's index
# and from reading the TraceDoctor file; said on stderr and in summary.csv;
# TEA then takes K samples up to the period's rounding. A pipe cannot be
# measured first; --samples and --freq exclude each other.
"$TEA" info --json m.tea >m.json
span=$(json_number m.json cycles)
want=$(awk -v s="$span" 'BEGIN { f = 2000 * 3200000000 / s; u = 10 ^ (int(log(f) / log(10)) - 2)
                                  printf "%.15g", int(f / u + 0.5) * u }')
for t in m.tea m.td.zst; do
    run 0 "$TEA" replay "$t" --samples 2000 --schemes golden,tea -o "rk-$t"
    contains err.txt "--samples 2000: $want Hz"
    [ "$(awk -F, '$2 == "tea" { print $3 }' "rk-$t/summary.csv")" = "$want" ] ||
        fail "$t: --samples 2000 chose $(awk -F, '$2 == "tea" { print $3 }' "rk-$t/summary.csv") Hz, expected $want"
    n=$(awk -F, '$2 == "tea" { print $5 }' "rk-$t/summary.csv")
    [ "$n" -ge 1980 ] && [ "$n" -le 2020 ] || fail "$t: --samples 2000 took $n samples"
done
run 2 sh -c "cat m.tea | '$TEA' replay - --samples 2000 -o rk-pipe"
contains err.txt "standard input cannot be read twice"
run 2 "$TEA" replay m.tea --samples 2000 --freq 4k -o rk-both
contains err.txt "--period, --freq and --samples exclude each other"
run 2 "$TEA" replay m.tea --samples 0 -o rk-zero
contains err.txt "invalid sample count '0'"
# pics table over two traces replayed with --samples 2000, each at its own
# frequency (a trace of half the length gets twice the frequency): one row
# each, the frequency beside its name
run 0 "$TEA" gen --workload memory --cycles 200000 --seed 4 -o half.tea
run 0 "$TEA" replay half.tea --samples 2000 --schemes golden,tea,ibs -o rk-half
run 0 "$TEA" replay m.tea --samples 2000 --schemes golden,tea,ibs -o rk-m
run 0 "$PICS" table rk-m rk-half --format csv
[ "$(awk -F, '$1 == "m" || $1 == "half" { print $3 }' out.txt | sort -u | wc -l)" -eq 2 ] ||
    fail "pics table over --samples replays: expected two frequencies, got $(cat out.txt)"
run 0 "$PICS" table rk-m rk-half
contains out.txt "each trace at its own frequency"
grep -q '^| half (.*Hz) | ' out.txt || fail "pics table: no frequency beside the trace's name"
# noise floors: TEA's equals its error, NCI-TEA's is TEA's; the floors'
# files beside the PICS, a line in pics error, a row in pics table; the
# same on one thread and on two; standard input refused (a second pass)
run 0 "$TEA" replay m.tea --samples 2000 --noise-floor --threads 1 -o nf1
run 0 "$TEA" replay m.tea --samples 2000 --noise-floor --threads 2 -o nf2
contains out.txt "noise_floor"
for f in golden tea nci ibs spe ris tea.floor nci.floor ibs.floor spe.floor ris.floor; do
    cmp -s "nf1/$f.pics" "nf2/$f.pics" || fail "$f.pics differs between one thread and two"
done
cmp -s nf1/summary.csv nf2/summary.csv || fail "summary.csv differs between one thread and two"
awk -F, 'NR > 1 { floor[$2] = $13 "," $14; err[$2] = $7 "," $8 }
         END { exit !(floor["tea"] == err["tea"] && floor["nci"] == err["tea"] && floor["ibs"] != "" &&
                      floor["ibs"] != err["ibs"]) }' nf1/summary.csv ||
    fail "noise floors: TEA's is not its error, or NCI-TEA's not TEA's: $(cat nf1/summary.csv)"
grep -q '^noise_floor_of ibs$' nf1/ibs.floor.pics && grep -q '^scheme tea$' nf1/ibs.floor.pics ||
    fail "ibs.floor.pics: not TEA naming the scheme it is the floor of"
run 0 "$PICS" error nf1/ibs.pics nf1/golden.pics
floor=$(awk -F, '$2 == "ibs" { printf "%.4f", 100 * $13 }' nf1/summary.csv)
contains out.txt "noise floor: $floor%"
run 0 "$PICS" error nf1/ibs.pics nf1/golden.pics --json
contains out.txt '"noise_floor": '
run 2 "$PICS" error nf1/ibs.pics nf1/golden.pics --floor nf1/spe.floor.pics
contains err.txt "is the noise floor of spe"
run 2 "$PICS" error nf1/ibs.pics nf1/golden.pics --floor nf1/ibs.pics
contains err.txt "is not a noise floor"
run 2 "$PICS" merge nf1/tea.pics nf1/tea.floor.pics -o merged.pics
contains err.txt "noise floor"
[ ! -e merged.pics ] || fail "pics merge wrote a mix of a PICS and a floor"
run 0 "$PICS" table nf1 --format csv
awk -F, '$1 == "mean" { tea = $4 } $1 == "noise floor" { floor_tea = $4; floor_nci = $5 }
         END { exit !(tea != "" && floor_tea == tea && floor_nci == tea) }' out.txt ||
    fail "pics table: no noise floor row, or TEA's and NCI-TEA's floor is not TEA's error: $(cat out.txt)"
run 2 sh -c "cat m.tea | '$TEA' replay - --freq 1M --noise-floor -o nf-pipe"
contains err.txt "standard input"
[ ! -e nf-pipe ] || fail "a refused replay left its output directory"
echo ok
