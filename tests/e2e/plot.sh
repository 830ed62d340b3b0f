# pics plot and pics diff: the SVG is well-formed XML (xmllint) with one bar
# per input file in every instruction's group, the instructions and the
# components are the ones the PICS files hold, output is deterministic; the
# difference pics diff reports against the golden PICS is exactly pics
# error's; bad inputs fail cleanly.
. "$(dirname "$0")/lib.bash"

need_xmllint

# top_pcs FILE.csv N: the N instructions with the most cycles in a `pics
# export` CSV (ties: lower address first), one per line
top_pcs() {
    # hex addresses without leading zeros order like numbers by length, then text
    awk -F, 'NR > 1 { sum[$1] += $NF } END { for (pc in sum) printf "%.6f %d %s\n", sum[pc], length(pc), pc }' "$1" |
        sort -k1,1gr -k2,2n -k3,3 | head -n "$2" | cut -d' ' -f3
}

run 0 "$TEA" gen --workload mixed --cycles 300000 --seed 3 -o m.tea
run 0 "$TEA" replay m.tea --period 200 --schemes golden,tea,ibs -o r
for s in golden tea ibs; do
    run 0 "$PICS" export r/$s.pics
    cp out.txt $s.csv
done

# --- plot: well-formed, one bar per input file in each of the top 5 groups
run 0 "$PICS" plot r/golden.pics r/tea.pics r/ibs.pics --top 5 -o p.svg
xmllint --noout p.svg || fail "p.svg is not well-formed XML"
[ "$(xpath p.svg "count(//$G[@class='group'])")" = 5 ] || fail "expected 5 groups"
for i in 1 2 3 4 5; do
    bars=$(xpath p.svg "count((//$G[@class='group'])[$i]/$G[@class='bar'])")
    [ "$bars" = 3 ] || fail "group $i has $bars bars, expected 3 (one per input)"
done
# The groups are golden's top 5 instructions, in order.
top_pcs golden.csv 5 >want.txt
for i in 1 2 3 4 5; do
    xpath p.svg "string((//*[local-name()='text'][@class='group-label'])[$i])"
    echo
done >got.txt
diff want.txt got.txt >&2 || fail "groups are not golden's top 5 instructions"
# The legend lists every component of the plotted cells of the three files.
for s in golden tea ibs; do
    awk -F, 'NR == FNR { top[$1] = 1; next } FNR > 1 && ($1 in top) { print $2 }' want.txt $s.csv
done | sort -u | wc -l | tr -d ' ' >components.txt
[ "$(xpath p.svg "count(//*[@class='swatch'])")" = "$(cat components.txt)" ] ||
    fail "legend has $(xpath p.svg "count(//*[@class='swatch'])") components, expected $(cat components.txt)"
# The golden bar of the top instruction sums to its exported cycles.
first=$(head -n 1 want.txt)
want_total=$(awk -F, -v pc="$first" '$1 == pc { s += $NF } END { printf "%.6f", s }' golden.csv)
got_total=$(xpath p.svg "string((//$G[@class='group'])[1]/$G[@class='bar'][1]/*[local-name()='title'])" |
    sed -n 's/^.*golden: \([0-9.]*\) cycles$/\1/p')
awk -v a="$want_total" -v b="$got_total" 'BEGIN { d = a - b; exit !(b != "" && d < 0.01 && d > -0.01) }' ||
    fail "golden bar of $first: $got_total cycles, export says $want_total"

# The same inputs give the same bytes; percent and a title with XML specials.
run 0 "$PICS" plot r/golden.pics r/tea.pics r/ibs.pics --top 5 -o again.svg
cmp -s p.svg again.svg || fail "plot is not deterministic"
run 0 "$PICS" plot r/golden.pics r/tea.pics --unit percent --title 'A & B <"c">' -o pct.svg
xmllint --noout pct.svg || fail "pct.svg is not well-formed XML"
contains pct.svg 'A &amp; B &lt;&quot;c&quot;&gt;'
contains pct.svg '%</text>'
# More than there are: every instruction of the golden PICS.
run 0 "$PICS" plot r/golden.pics r/ibs.pics --top 1000000 -o all.svg
xmllint --noout all.svg || fail "all.svg is not well-formed XML"
[ "$(xpath all.svg "count(//$G[@class='group'])")" = "$(awk -F, 'NR > 1 { print $1 }' golden.csv | sort -u | wc -l | tr -d ' ')" ] ||
    fail "--top beyond the instruction count should plot every instruction"
# Without a golden input the first file ranks: ibs's top 3.
run 0 "$PICS" plot r/ibs.pics r/tea.pics --top 3 -o -
cp out.txt nogolden.svg
xmllint --noout nogolden.svg || fail "nogolden.svg is not well-formed XML"
top_pcs ibs.csv 3 >want3.txt
for i in 1 2 3; do
    xpath nogolden.svg "string((//*[local-name()='text'][@class='group-label'])[$i])"
    echo
done >got3.txt
diff want3.txt got3.txt >&2 || fail "without golden, the groups should be the first file's top 3"
[ "$(xpath nogolden.svg "count((//$G[@class='group'])[2]/$G[@class='bar'])")" = 2 ] || fail "2 bars per group"

# --- diff against golden is pics error, to the last printed digit
for s in tea ibs; do
    run 0 "$PICS" error r/$s.pics r/golden.pics --json
    want=$(json_number out.txt error)
    run 0 "$PICS" diff r/golden.pics r/$s.pics --format json
    got=$(json_number out.txt difference)
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "$s: pics diff says $got, pics error says $want"
    # B against A gives the same total.
    run 0 "$PICS" diff r/$s.pics r/golden.pics --format json
    [ "$(json_number out.txt difference)" = "$want" ] || fail "$s: diff is not symmetric"
    run 0 "$PICS" error r/$s.pics r/golden.pics
    want_text=$(sed -n 's/^error: \([0-9.]*%\).*/\1/p' out.txt)
    run 0 "$PICS" diff r/golden.pics r/$s.pics
    got_text=$(sed -n 's/^difference: \([0-9.]*%\).*/\1/p' out.txt)
    [ "$want_text" = "$got_text" ] || fail "$s: text says $got_text, pics error $want_text"
done
contains out.txt "A: r/golden.pics: golden"
contains out.txt "B: r/ibs.pics: ibs"
contains out.txt "largest differences (20 of"
# The per-instruction shares are pics error's contributions.
run 0 "$PICS" error r/tea.pics r/golden.pics --top 5
sed -n 's/^  \(0x[0-9a-f]*\) *\([0-9.]*%\)$/\1 \2/p' out.txt >want.txt
run 0 "$PICS" diff r/golden.pics r/tea.pics --top 5
sed -n '/^per instruction/,$p' out.txt | awk 'NR > 2 { print $1, $NF }' >got.txt
diff want.txt got.txt >&2 || fail "per-instruction shares differ from pics error's contributors"

# Function granularity through a symbol map.
printf '0x10000 0x14000 first\n0x14000 0x20000 rest\n' >syms.txt
run 0 "$PICS" error r/tea.pics r/golden.pics --granularity func --symbols syms.txt --json
want=$(json_number out.txt error)
run 0 "$PICS" diff r/golden.pics r/tea.pics --granularity func --symbols syms.txt --format json
[ "$(json_number out.txt difference)" = "$want" ] || fail "func: diff differs from pics error"
contains out.txt '"functions": ['
contains out.txt '"location": "first"'

# CSV: every cell of the union, largest share first, shares adding up.
run 0 "$PICS" diff r/golden.pics r/tea.pics --format csv --symbols syms.txt -o d.csv
head -n 1 d.csv | grep -qx 'pc,location,psv,component,a_cycles,b_cycles,diff_cycles,share' || fail "CSV header"
union=$(cat golden.csv tea.csv | awk -F, 'FNR > 1 && $1 ~ /^0x/ { print $1, $2 }' | sort -u | wc -l | tr -d ' ')
[ "$(($(wc -l <d.csv) - 1))" = "$union" ] || fail "CSV should have $union rows"
awk -F, 'NR > 2 && $NF > prev + 1e-12 { bad = 1 } NR > 1 { prev = $NF } END { exit bad }' d.csv ||
    fail "CSV rows are not sorted by share"
run 0 "$PICS" diff r/golden.pics r/tea.pics --format json
total=$(json_number out.txt difference)
# each share is rounded to 9 decimals: the sum is within half a unit of
# that digit per row
awk -F, -v t="$total" 'NR > 1 { s += $NF; n++ } END { d = s - t; b = n * 5e-10 + 1e-12; exit !(d <= b && d >= -b) }' d.csv ||
    fail "CSV shares do not add up to the difference $total"
contains d.csv ',first+0x'
# A PICS against itself: no difference.
run 0 "$PICS" diff r/tea.pics r/tea.pics --format json
contains out.txt '"difference": 0,'

# --- symbolized labels: a trace of the pics binary's own code (tea gen --elf
# records the binary, so plot and diff find it without --elf too)
if "$TEA" gen --help | grep -q -- '--elf BINARY'; then
    run 0 "$TEA" gen --elf "$PICS" --cycles 100000 -o e.tea
    run 0 "$TEA" replay e.tea --period 200 --schemes golden,tea -o re
    nm "$PICS" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u >functions.txt
    for elf in "--elf=$PICS" ""; do
        run 0 "$PICS" plot re/golden.pics re/tea.pics --top 4 $elf -o e.svg
        xmllint --noout e.svg || fail "e.svg is not well-formed XML"
        xpath e.svg "//*[local-name()='text'][@class='group-label']" |
            sed 's/<[^>]*>/ /g' | tr ' ' '\n' | sed -n 's/^\([A-Za-z_][A-Za-z0-9_.]*\)+0x[0-9a-f]*$/\1/p' >named.txt
        [ -s named.txt ] || fail "no group label of e.svg is function+0xOFFSET ($elf)"
        while read -r name; do
            grep -qx -- "$name" functions.txt || fail "label names '$name', which is no function of $PICS"
        done <named.txt
    done
    run 0 "$PICS" diff re/golden.pics re/tea.pics --granularity func --format json
    contains out.txt '"functions": ['
fi
run 1 "$PICS" plot r/golden.pics --elf nothere.elf -o bad.svg
contains err.txt "nothere.elf"
[ ! -e bad.svg ] || fail "bad.svg exists"
run 1 "$PICS" diff r/golden.pics r/tea.pics --elf nothere.elf
run 2 "$PICS" plot r/golden.pics --adjust-vma 0xzz -o bad.svg
run 2 "$PICS" diff r/golden.pics r/tea.pics --adjust-vma many

# --- bad inputs
run 0 "$TEA" gen --workload memory --cycles 100000 --seed 9 -o other.tea
run 0 "$TEA" replay other.tea --schemes golden -o o
run 2 "$PICS" plot r/golden.pics o/golden.pics -o bad.svg
contains err.txt "come from different traces"
[ ! -e bad.svg ] || fail "a refused plot left bad.svg"
run 2 "$PICS" diff r/golden.pics o/golden.pics
contains err.txt "come from different traces"
run 1 "$PICS" plot r/golden.pics missing.pics -o bad.svg
contains err.txt "missing.pics: cannot open"
[ ! -e bad.svg ] || fail "a failed plot left bad.svg"
run 1 "$PICS" diff missing.pics r/golden.pics
contains err.txt "missing.pics"
run 2 "$PICS" plot r/golden.pics --top 0 -o bad.svg
contains err.txt "--top"
run 2 "$PICS" diff r/golden.pics r/tea.pics --top 0
run 2 "$PICS" plot r/golden.pics
contains err.txt "missing -o"
run 2 "$PICS" plot -o bad.svg
run 2 "$PICS" plot r/golden.pics --unit furlongs -o bad.svg
run 2 "$PICS" diff r/golden.pics
run 2 "$PICS" diff r/golden.pics r/tea.pics --format xml
run 2 "$PICS" diff r/golden.pics r/tea.pics --granularity func
contains err.txt "needs --symbols"
run 2 "$PICS" diff r/golden.pics r/tea.pics --granularity instruction
contains err.txt "unknown granularity 'instruction' (insn-component, insn, func or callpath)"
printf 'hello\n' >notpics.pics
run 1 "$PICS" plot notpics.pics -o bad.svg
contains err.txt "not a PICS file"
[ ! -e bad.svg ] || fail "bad.svg exists"
run 0 "$PICS" plot --help
contains out.txt "Usage: pics plot"
run 0 "$PICS" diff --help
contains out.txt "Usage: pics diff"
echo ok
