# tea topdown and tea stalls: the reference scenario against the figures
# worked out by hand (tests/unit/test_topdown.c, test_stalls.c), exact sums
# on a generated trace in both formats, per function with a symbol map,
# JSON, percentiles beyond the histogram, and bad input.
. "$(dirname "$0")/lib.bash"

# csv_sums FILE: for every (function, view), the categories' values add up to
# the 'total' row, each category's components to the category, and the
# percents of the categories to 100.00 (printed with two decimals; the
# components' to their category's). Prints "bad: ..." lines otherwise.
csv_sums() {
    awk -F, '
        NR == 1 { next }
        {   # the component may be quoted and hold commas: value, unit and
            # percent come before the two interval fields, function first
            n = NF - 2; pct = int($n * 100 + 0.5); unit = $(n - 1); value = $(n - 2)
            key = $1 SUBSEP $2; cat = $3
            if (cat == "total") { total[key] = value; seen[key] = 1; next }
            comp = (n > 7 || $4 != "")
            if (!comp) { sum[key] += value; psum[key] += pct; catv[key, cat] = value; catp[key, cat] = pct }
            else { csum[key, cat] += value; cpsum[key, cat] += pct; hascomp[key, cat] = 1 }
        }
        END {
            for (k in seen) {
                if (sum[k] != total[k]) print "bad: categories " sum[k] " != total " total[k]
                if (total[k] > 0 && psum[k] != 10000) print "bad: percents sum to " psum[k] / 100
            }
            for (kc in hascomp) {
                if (csum[kc] != catv[kc]) print "bad: components " csum[kc] " != category " catv[kc]
                if (cpsum[kc] != catp[kc]) print "bad: component percents " cpsum[kc] " != " catp[kc]
            }
        }' "$1"
}

# --- the scenario (TraceDoctor vector), by hand
run 0 "$TEA" topdown "$DATA/scenario.bin"
cp out.txt sc.txt
contains sc.txt "cycles:   50 (1000 .. 1050), 200 commit slots"
contains sc.txt "14 committed, 1 excepted; ROB entries: 36 dispatched, 6 squashed"
run 0 "$TEA" topdown "$DATA/scenario.bin" --format csv -o sc.csv
[ -s out.txt ] && fail "-o still wrote to standard output"
head -n 1 sc.csv | grep -qx 'function,view,category,component,value,unit,percent,percent_ci_low,percent_ci_high' || fail "CSV header"
for row in '(all),states,total,,50,1,100.00' '(all),states,compute,,7,1,14.00' '(all),states,stalled,,25,1,50.00' \
    '(all),states,drained,,1,1,2.00' '(all),states,flushed,,17,1,34.00' '(all),states,stalled,FL-EX,11,1,22.00' \
    '(all),states,stalled,"ST-L1,ST-LLC",6,1,12.00' '(all),states,stalled,DR-L1,5,1,10.00' \
    '(all),states,stalled,base,3,1,6.00' '(all),states,drained,FL-EX,1,1,2.00' '(all),states,flushed,FL-EX,9,1,18.00' \
    '(all),states,flushed,FL-MB,8,1,16.00' '(all),slots,total,,200,1,100.00' '(all),slots,retiring,,14,1,7.00' \
    '(all),slots,bad_speculation,,77,1,38.50' '(all),slots,frontend_bound,,4,1,2.00' \
    '(all),slots,backend_bound,,105,1,52.50' '(all),slots,bad_speculation,FL-MB,34,1,17.00' \
    '(all),slots,backend_bound,"ST-L1,ST-LLC",29,1,14.50'; do
    grep -qxF -- "$row,," sc.csv || { cat sc.csv >&2; fail "scenario CSV lacks $row"; }
done
csv_sums sc.csv >bad.txt
[ -s bad.txt ] && { cat bad.txt >&2; fail "scenario CSV sums"; }
# level 2 (docs/topdown.md; test_topdown derives it): fetch latency 4,
# bandwidth 0; branch mispredicts 34, machine clears 43; memory 29, core 76
for row in '(all),level2,Frontend_Bound.Fetch_Latency,,4,1,2.00' '(all),level2,Frontend_Bound.Fetch_Bandwidth,,0,1,0.00' \
    '(all),level2,Bad_Speculation.Branch_Mispredicts,,34,1,17.00' '(all),level2,Bad_Speculation.Machine_Clears,,43,1,21.50' \
    '(all),level2,Backend_Bound.Memory_Bound,,29,1,14.50' '(all),level2,Backend_Bound.Core_Bound,,76,1,38.00'; do
    grep -qxF -- "$row,," sc.csv || { cat sc.csv >&2; fail "scenario CSV lacks $row"; }
done
grep -q '^  Backend_Bound.Memory_Bound  *29  *14.50*%$' sc.txt || { cat sc.txt >&2; fail "text: no level-2 memory bound line"; }

# per function: f1 = 0x1000-0x100c, f2 = 0x1010 and 0x2000, f3 = 0x3000-0x301c;
# 0x2004 and 0x3020 are outside (values in twelfths of a cycle for states)
printf '# scenario functions\n0x1000 0x1010 f1\n0x1010 0x2004 f2\n0x3000 0x3020 f3\n' >sc.map
run 0 "$TEA" topdown "$DATA/scenario.bin" --by function --symbols sc.map --format csv
cp out.txt scf.csv
for row in 'f1,states,total,,126,12,21.00' 'f1,states,compute,,30,12,23.81' 'f1,slots,backend_bound,,37,1,90.24' \
    'f2,states,flushed,FL-MB,96,12,55.17' 'f3,slots,total,,12,1,6.00' '(outside symbols),states,total,,264,12,44.00' \
    '(outside symbols),slots,bad_speculation,FL-EX,43,1,47.25'; do
    grep -qxF -- "$row,," scf.csv || { cat scf.csv >&2; fail "per-function CSV lacks $row"; }
done
grep -q '^(unattributed),' scf.csv && fail "a scope without cycles is listed"
csv_sums scf.csv >bad.txt
[ -s bad.txt ] && { cat bad.txt >&2; fail "per-function CSV sums"; }
run 0 "$TEA" topdown "$DATA/scenario.bin" --symbols sc.map
contains out.txt "functions of sc.map: 4 with cycles"
contains out.txt "  f1: stalled: ST-L1,ST-LLC 57.2%, base 19.0%"

# --- a generated trace, in both formats: exact sums, the states of tea info
run 0 "$TEA" gen --workload mixed --cycles 300000 --seed 9 -o m.tea
run 0 "$TEA" convert m.tea --to tracedoctor -o m.td.zst
run 0 "$TEA" info --json m.tea
cp out.txt info.json
span=$(json_number info.json cycles)
run 0 "$TEA" topdown m.tea --format csv -o m.csv
run 0 "$TEA" topdown m.td.zst --format csv -o mt.csv
cmp -s m.csv mt.csv || fail "topdown differs between the native and TraceDoctor forms of a trace"
csv_sums m.csv >bad.txt
[ -s bad.txt ] && { cat bad.txt >&2; fail "generated-trace CSV sums"; }
grep -qxF "(all),states,total,,$span,1,100.00,," m.csv || fail "states total is not the span $span"
grep -qxF "(all),slots,total,,$((4 * span)),1,100.00,," m.csv || fail "slots total is not 4 x $span"
for s in compute stalled drained flushed; do
    want=$(sed -n "/\"states\"/,/}/s/^ *\"$s\": \([0-9]*\),\{0,1\}\$/\1/p" info.json)
    grep -q "^(all),states,$s,,$want,1," m.csv || fail "$s differs from tea info ($want)"
done
commits=$(json_number info.json commits)
retiring=$(awk -F, '$1 == "(all)" && $3 == "retiring" && $4 == "" { print $5 }' m.csv)
# the origin record's commits are not attributed; the model's first record commits nothing
[ "$retiring" = "$commits" ] || fail "retiring slots $retiring != commits $commits"
run 0 "$TEA" topdown m.tea
# the printed shares add up to 100.0 in each view
awk '/^commit states|^top-down/ { v++ } /^  [a-z]/ && !/total/ { gsub("%", "", $NF); s[v] += int($NF * 10 + 0.5) }
     END { if (s[1] != 1000 || s[2] != 1000) { print "bad sums " s[1] " " s[2]; exit 1 } }' out.txt ||
    fail "text shares do not add up to 100.0%"

# per function on the generated trace: functions sum to the whole trace
printf '0x10000 0x12000 alpha\n0x12000 0x16000 beta\n0x16000 0x19000 gamma\n' >m.map
run 0 "$TEA" topdown m.tea --by function --symbols m.map --format csv -o mf.csv
csv_sums mf.csv >bad.txt
[ -s bad.txt ] && { cat bad.txt >&2; fail "per-function CSV sums"; }
awk -F, 'NR > 1 && $3 != "total" && $4 == "" && NF == 9 {
        if ($1 == "(all)") whole[$2, $3] = $5 * ($2 == "states" ? 12 : 1)
        else part[$2, $3] += $5 }
     $3 == "total" && $1 != "(all)" { pct[$2] += int($7 * 100 + 0.5) }
     END { for (k in whole) if (whole[k] != part[k]) { print "bad " k; bad = 1 }
           if (pct["states"] != 10000 || pct["slots"] != 10000) { print "bad shares"; bad = 1 }
           exit bad }' mf.csv || fail "functions do not add up to the whole trace"
grep -q '^alpha,states,total,' mf.csv || fail "alpha missing"
grep -q '^(outside symbols),states,total,' mf.csv || fail "the PCs outside the map are missing"
run 0 "$TEA" topdown m.tea --by function --symbols m.map --top 2
contains out.txt "functions of m.map: 5 with cycles, the first listed"
contains out.txt "events per function"
run 0 "$TEA" topdown m.tea --symbols m.map --format json -o m.json
[ "$(json_number m.json cycles)" = "$span" ] || fail "JSON cycles"
contains m.json '"function_unit": 12'
contains m.json '"name": "alpha"'
contains m.json '"bad_speculation": {'
if command -v python3 >/dev/null; then
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));
s = sum(d["topdown"][k]["slots"] for k in d["topdown"]); assert s == d["slots"], s
f = sum(fn["units"] for fn in d["functions"]); assert f == d["cycles"] * d["function_unit"], f' m.json ||
        fail "JSON sums"
fi

# --- per function from the traced binary: tea gen --elf walks tea's own code
# and names it in the header; --elf names it explicitly
run 0 "$TEA" gen --elf "$TEA" --cycles 100000 --seed 2 -o elf.tea
run 0 "$TEA" topdown elf.tea --by function --format csv -o elf.csv
run 0 "$TEA" topdown elf.tea --elf "$TEA" --format csv -o elf2.csv
cmp -s elf.csv elf2.csv || fail "--elf and the binary the trace names give different results"
csv_sums elf.csv >bad.txt
[ -s bad.txt ] && { cat bad.txt >&2; fail "per-function CSV sums (ELF)"; }
awk -F, '$3 == "total" && $2 == "states" && $1 !~ /^\(/ { n++ } END { exit n < 2 }' elf.csv ||
    fail "no functions of the binary in the per-function result"
run 0 "$TEA" topdown elf.tea --elf "$TEA"
contains out.txt "functions of $TEA:"
# --adjust-vma is read as pics report reads it: a negative offset is taken
# modulo 2^64
run 0 "$TEA" topdown elf.tea --elf "$TEA" --adjust-vma -0x10 --format csv -o neg.csv
run 0 "$TEA" topdown elf.tea --elf "$TEA" --adjust-vma 0xfffffffffffffff0 --format csv -o neg2.csv
cmp -s neg.csv neg2.csv || fail "--adjust-vma -0x10 differs from 0xfffffffffffffff0"
cmp -s neg.csv elf.csv && fail "--adjust-vma -0x10 changed nothing"
run 2 "$TEA" topdown elf.tea --elf "$TEA" --adjust-vma +16
# each function's cycles are its cells of the golden PICS (pics report, func)
if command -v python3 >/dev/null; then
    run 0 "$TEA" replay elf.tea --schemes golden -o er
    run 0 "$PICS" report er/golden.pics --granularity func --format csv --top 0 -o report.csv
    python3 -c 'import csv, sys
from fractions import Fraction
mine = {r["function"]: Fraction(int(r["value"]), int(r["unit"])) for r in csv.DictReader(open(sys.argv[1]))
        if r["view"] == "states" and r["category"] == "total" and r["function"] != "(all)"}
theirs = {}
for r in csv.DictReader(open(sys.argv[2])):
    theirs[r["function"]] = theirs.get(r["function"], 0) + Fraction(r["cycles"])
mine.pop("(unattributed)", None)
assert set(mine) == set(theirs), (sorted(mine), sorted(theirs))
for f in mine:
    assert abs(mine[f] - theirs[f]) < Fraction(1, 10**5), (f, mine[f], theirs[f])' elf.csv report.csv ||
        fail "per-function cycles differ from the golden PICS by function"
fi
run 2 "$TEA" topdown m.tea --by function
contains err.txt "the trace names no binary"

# --- tea stalls on the scenario, by hand
run 0 "$TEA" stalls "$DATA/scenario.bin" --format csv
cp out.txt st.csv
head -n 1 st.csv | grep -qx 'group,uops,stalls,cycles,p50,p90,p99,p99.9,max,mean' || fail "stalls CSV header"
for row in 'base,7,2,3,1,2,2,2,2,1.500' 'any-event,8,4,23,5,7,7,7,7,5.750' 'FL-EX,2,2,12,5,7,7,7,7,6.000' \
    'ST-L1,2,1,6,6,6,6,6,6,6.000' 'FL-MB,1,0,0,,,,,,' 'DR-TLB,0,0,0,,,,,,'; do
    grep -qxF -- "$row" st.csv || { cat st.csv >&2; fail "stalls CSV lacks $row"; }
done
# a histogram of 4 cycles: the any-event median (2nd of 5,5,6,7) lies beyond
# it; p90 and up are the longest stall, known exactly
run 0 "$TEA" stalls "$DATA/scenario.bin" --format csv --max-length 4
contains out.txt 'any-event,8,4,23,>4,7,7,7,7,5.750'
contains out.txt 'base,7,2,3,1,2,2,2,2,1.500'
run 0 "$TEA" stalls "$DATA/scenario.bin" --format csv --histogram
contains out.txt 'length,base,any-event,ST-L1,ST-TLB,ST-LLC,DR-L1,DR-TLB,DR-SQ,FL-MB,FL-EX,FL-MO'
contains out.txt '1,1,0,0,0,0,0,0,0,0,0,0'
contains out.txt '5,0,2,0,0,0,1,0,0,0,1,0'
contains out.txt '>16384,0,0,0,0,0,0,0,0,0,0,0'
run 0 "$TEA" stalls "$DATA/scenario.bin"
contains out.txt "stall lengths (cycles)"
run 0 "$TEA" stalls m.td.zst --format csv -o mt-stalls.csv
run 0 "$TEA" stalls m.tea --format csv -o m-stalls.csv
cmp -s m-stalls.csv mt-stalls.csv || fail "stalls differ between the formats"
# base stalls and any-event stalls make the attributed stalled and drained cycles
stalled=$(sed -n "/\"states\"/,/}/s/^ *\"stalled\": \([0-9]*\),\{0,1\}\$/\1/p" info.json)
drained=$(sed -n "/\"states\"/,/}/s/^ *\"drained\": \([0-9]*\),\{0,1\}\$/\1/p" info.json)
unattributed=$(json_number info.json unattributed_cycles)
awk -F, -v want=$((stalled + drained - unattributed)) '$1 == "base" || $1 == "any-event" { s += $4 }
    END { exit s != want }' m-stalls.csv || fail "stall cycles do not add up to stalled + drained"

# --- bad input: exit 1 with the file named, nothing written; usage errors exit 2
run 1 "$TEA" topdown no-such.tea -o x.csv
contains err.txt "no-such.tea"
[ -e x.csv ] && fail "a failed topdown left x.csv behind"
size=$(file_size m.tea)
head -c $((size - 3)) m.tea >short.tea
run 1 "$TEA" topdown short.tea --format csv -o x.csv
contains err.txt "short.tea: truncated zstd frame"
[ -e x.csv ] && fail "a failed topdown left x.csv behind"
ls -a | grep -q '\.tmp\.' && fail "a temporary file was left behind"
run 1 "$TEA" stalls short.tea -o x.csv
contains err.txt "short.tea"
[ -e x.csv ] && fail "a failed stalls left x.csv behind"
run 1 "$TEA" stalls no-such.tea
printf '0x20 0x10 backwards\n' >bad.map
run 1 "$TEA" topdown m.tea --symbols bad.map
contains err.txt "bad.map: line 1"
run 2 "$TEA" topdown m.tea --symbols m.map --elf "$TEA"
run 2 "$TEA" topdown m.tea --adjust-vma 0x1000
run 2 "$TEA" topdown m.tea --format xml
run 2 "$TEA" topdown
run 2 "$TEA" stalls m.tea --max-length 0
run 0 "$TEA" topdown --help
contains out.txt "Usage: tea topdown"
run 0 "$TEA" stalls --help
contains out.txt "Usage: tea stalls"
# text labels in full: a component of 38 characters (memory, seed 2) shows
# whole, and every text component label is one of the CSV's (which were
# never cut); labels of more than 31 characters used to be cut, so that two
# different components could read the same
run 0 "$TEA" gen --workload memory --cycles 300000 --seed 2 -o long.tea
run 0 "$TEA" topdown long.tea
contains out.txt "    ST-L1,ST-TLB,ST-LLC,DR-L1,DR-TLB,FL-EX "
awk '/^    [A-Z]/ { print $1 }' out.txt | sort -u >text-labels.txt
run 0 "$TEA" topdown long.tea --format csv
awk -F'"' 'NF > 2 { print $2 } NF <= 2 { split($0, f, ","); if (f[4] != "") print f[4] }' out.txt | sort -u >csv-labels.txt
comm -23 text-labels.txt csv-labels.txt >cut.txt
[ ! -s cut.txt ] || fail "tea topdown shows component labels the CSV lacks: $(cat cut.txt)"
# the first column fits the longest label: each view's rows are equally long
run 0 "$TEA" topdown long.tea
[ "$(awk '/^    [A-Z(]/ { print length($0) }' out.txt | sort -u | wc -l)" -le 2 ] ||
    fail "tea topdown's rows are not aligned"

# --histogram implies CSV; with --format text it is a usage error
run 0 "$TEA" stalls "$DATA/scenario.bin" --histogram
head -n 1 out.txt | grep -q '^length,base,any-event,' || fail "--histogram without --format: no CSV histogram"
run 2 "$TEA" stalls "$DATA/scenario.bin" --histogram --format text
contains err.txt "--histogram is CSV only"
echo ok
