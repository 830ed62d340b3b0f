# scripts/reproduce-figures (docs/reproduce.md) on short generated traces that
# walk the example binaries: every table and figure is written, the SVGs are
# well-formed, and the tables agree with the sweep and with each other.
SCRIPT=$(cd "$(dirname "$0")/../../scripts" && pwd)/reproduce-figures
. "$(dirname "$0")/lib.bash"
EXAMPLES=$BIN/../examples
NAMES="lbm nab chase sgemm-naive sgemm-blocked branches"
CYCLES=200000

command -v xmllint >/dev/null || fail "xmllint is not installed (scripts/install-deps.sh installs it)"

mkdir traces
seed=1
for name in $NAMES nab-nofence; do
    program=${name%%-*}
    run 0 "$TEA" gen --elf "$EXAMPLES/$program" --cycles $CYCLES --seed $seed -o traces/$name.tea
    seed=$((seed + 1))
done

run 0 sh "$SCRIPT" --bin "$BIN" --traces traces out
run 1 sh "$SCRIPT" --bin "$BIN" --traces nowhere out2
contains err.txt "no nowhere/lbm.tea"
run 2 sh "$SCRIPT"

for f in sweep.csv tables/fig5.md tables/fig5.tex tables/fig5.csv tables/fig9-insn.md tables/fig9-func.md \
    tables/correlation.csv tables/correlation.txt tables/stalls.md tables/case-nab.txt; do
    [ -s "out/$f" ] || fail "out/$f is missing or empty"
done
for name in $NAMES; do
    for f in tables/stalls-$name.txt tables/topdown-$name.txt tables/report-$name.txt figures/fig6-$name.svg \
        replay/$name/golden.pics replay/$name/tea.pics replay/$name/ibs.pics; do
        [ -s "out/$f" ] || fail "out/$f is missing or empty"
    done
done
for f in out/figures/*.svg; do
    xmllint --noout "$f" || fail "$f is not well-formed XML"
done
[ "$(ls out/figures | wc -l)" -eq 11 ] || fail "expected 11 figures, got $(ls out/figures)"

# every trace x 5 schemes x 7 frequencies x 5 seeds, each with a function error
rows=$(awk -F, 'NR > 1 && $9 != ""' out/sweep.csv | wc -l)
[ "$rows" -eq $((6 * 5 * 7 * 5)) ] || fail "sweep.csv has $rows complete rows, expected 1050"

# Figure 5 is the sweep at 4 kHz: its TEA cell for lbm is the mean of the
# sweep's five seeds (the exact mean rounded to the CSV's 9 decimals: within
# half a unit of that digit), and its mean row the mean of the trace rows
# (each rounded once more: within one unit)
want=$(awk -F, '$1 == "lbm" && $2 == "tea" && $3 == 4000 { s += $7; n++ } END { printf "%.17g", s / n }' out/sweep.csv)
got=$(awk -F, '$1 == "lbm" { print $4 }' out/tables/fig5.csv)
awk -v a="$want" -v b="$got" 'BEGIN { exit !(b != "" && a - b <= 5.000001e-10 && b - a <= 5.000001e-10) }' ||
    fail "fig5.csv: TEA on lbm is $got, the sweep's mean is $want"
awk -F, 'NR == 1 && $1 != "trace" { exit 1 }
         NR > 1 && $1 != "mean" && $1 != "max" { for (i = 4; i <= 8; i++) s[i] += $i; n++ }
         $1 == "mean" { for (i = 4; i <= 8; i++) m[i] = $i }
         END { if (n != 6) exit 1; for (i = 4; i <= 8; i++) if (m[i] - s[i] / n > 1.000001e-9 || s[i] / n - m[i] > 1.000001e-9) exit 1 }' \
    out/tables/fig5.csv || fail "fig5.csv: the mean row is not the mean of the six traces"

# the pooled stall row: its stalls are the sum of the traces', its
# percentiles lie between theirs
awk -F'|' 'NR > 2 && $2 !~ /all/ { s += $4; for (i = 5; i <= 9; i++) { if (!(i in lo) || $i + 0 < lo[i]) lo[i] = $i + 0; if ($i + 0 > hi[i]) hi[i] = $i + 0 } }
           $2 ~ /all/ { t = $4; for (i = 5; i <= 9; i++) a[i] = $i + 0 }
           END { if (t != s) exit 1; for (i = 5; i <= 9; i++) if (a[i] < lo[i] || a[i] > hi[i]) exit 1 }' \
    out/tables/stalls.md || fail "stalls.md: the pooled row disagrees with the traces' rows"

# the case study's speedup is the ratio of the two traces' spans
before=$("$TEA" info --json traces/nab.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
after=$("$TEA" info --json traces/nab-nofence.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
want=$(awk -v b="$before" -v a="$after" 'BEGIN { printf "speedup %.2fx", b / a }')
contains out/tables/case-nab.txt "$want"

# a second run over the same traces writes identical tables and figures
run 0 sh "$SCRIPT" --bin "$BIN" --traces traces again
for f in sweep.csv tables/fig5.md tables/correlation.csv tables/stalls.md figures/fig8-sweep.svg figures/fig6-nab.svg; do
    grep -v '^#' "out/$f" >a.txt
    grep -v '^#' "again/$f" >b.txt
    cmp -s a.txt b.txt || fail "$f differs between two runs over the same traces"
done
echo ok
