# tea record on the example programs: each one's hottest instruction in the
# golden PICS is the one the example is built around, with the expected
# largest component; at >= 2000 samples TEA is the most accurate scheme on
# every example, and on average TEA < NCI-TEA < IBS, SPE, RIS.
. "$(dirname "$0")/lib.bash"
EXAMPLES=$BIN/../examples

command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed (scripts/install-deps.sh installs it)"; exit 77; }
[ -x "$BIN/../libexec/tea/valgrind/tearec-amd64-linux" ] || { echo "SKIP: tea's Valgrind tool (tearec) is not built"; exit 77; }

# hottest NAME EXE: prints "FUNCTION MNEMONIC COMPONENT" for the hottest
# instruction of r-NAME/golden.pics (cycles summed over components) and its
# largest component, mapped back into EXE with the trace's load bias.
hottest() {
    "$PICS" export "r-$1/golden.pics" >cells-$1.csv || fail "$1: export"
    pc=$(awk -F, 'NR > 1 { t[$1] += $NF } END { for (p in t) print t[p], p }' cells-$1.csv | sort -g -r | head -n 1 | cut -d' ' -f2)
    # the label of the instruction's largest cell (labels may hold commas)
    component=$(awk -F, -v pc="$pc" 'NR > 1 && $1 == pc { print $NF, $0 }' cells-$1.csv | sort -g -r | head -n 1 |
        cut -d' ' -f2- | sed 's/^[^,]*,[^,]*,//; s/,[^,]*$//; s/"//g')
    bias=$("$TEA" info --json "$1.tea" | sed -n 's/^    "load_bias": \([0-9]*\)$/\1/p')
    addr=$(printf '%x' $((pc - bias)))
    mnemonic=$(objdump -d --no-show-raw-insn "$2" | awk -v a="$addr:" '$1 == a { print $2; exit }')
    function=$(nm -C "$2" | awk '$2 == "t" || $2 == "T" { print $1, $3 }' | sort |
        awk -v a=$((0x$addr)) '{ v = 0; for (i = 1; i <= length($1); i++) v = v * 16 + index("0123456789abcdef", substr($1, i, 1)) - 1;
                                 if (v <= a) f = $2 } END { print f }')
    echo "$function $mnemonic $component"
}

# check NAME PROGRAM ARG FUNCTION_PREFIX MNEMONIC_REGEX COMPONENT_REGEX
check() {
    run 0 "$TEA" record -q -o "$1.tea" -- "$EXAMPLES/$2" $3
    run 0 "$TEA" replay "$1.tea" --schemes golden -o "r-$1"
    set -- "$1" "$2" "$3" "$4" "$5" "$6" $(hottest "$1" "$EXAMPLES/$2")
    echo "$1: hottest $8 in $7 ($9)"
    case "$7" in "$4"*) ;; *) fail "$1: hottest instruction is in $7, expected $4" ;; esac
    echo "$8" | grep -Eq "$5" || fail "$1: hottest instruction is $8, expected $5"
    echo "$9" | grep -Eq "$6" || fail "$1: its largest component is $9, expected $6"
}

check lbm lbm "" stream_collide '^mov' 'ST-L1.*ST-LLC'
check nab nab "" distances '^sqrtsd$' '^base$'
check chase chase "" chase '^mov$' 'ST-L1.*ST-LLC'
check sgemm-naive sgemm naive sgemm_naive '^(mul|mov|add)' 'ST-L1.*ST-LLC'
check sgemm-blocked sgemm blocked sgemm_blocked '^(add|mul)ss$' '^base$'
check branches branches "" count_small '^j' '^FL-MB$'
# the nab case study's fix (docs/reproduce.md): without the flushing fence the
# loop takes less than half the cycles
check nab-nofence nab nofence distances_nofence '^(addsd|sqrtsd|ja)$' '^base$'
nab_span=$("$TEA" info --json nab.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
fixed_span=$("$TEA" info --json nab-nofence.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
[ $((2 * fixed_span)) -lt "$nab_span" ] || fail "nab nofence takes $fixed_span cycles, nab $nab_span: expected less than half"

# accuracy at ~2500 sample points per example
for name in lbm nab chase sgemm-naive sgemm-blocked branches; do
    span=$("$TEA" info --json $name.tea | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
    run 0 "$TEA" replay $name.tea --period $((span / 2500)) -o "a-$name"
    # trace,scheme,freq_hz,seed,samples,lost,error_insn_component,...
    awk -F, -v n=$name '!/^#/ && $1 != "trace" { print n, $2, $5, $7 }' "a-$name/summary.csv" >>accuracy.txt
done
cat accuracy.txt
awk '$2 == "tea" && $3 < 2000 { bad = 1 } END { exit bad }' accuracy.txt || fail "fewer than 2000 TEA samples"
awk '{ e[$1, $2] = $4; names[$1] = 1 }
     END { for (n in names) {
               if (e[n, "tea"] >= e[n, "nci"] || e[n, "tea"] >= e[n, "ibs"] || e[n, "tea"] >= e[n, "spe"] || e[n, "tea"] >= e[n, "ris"]) {
                   print "TEA is not the most accurate on " n; bad = 1 } }
           exit bad }' accuracy.txt || fail "TEA must be the most accurate scheme on every example"
awk '{ sum[$2] += $4; count[$2]++ }
     END { for (s in sum) mean[s] = sum[s] / count[s];
           printf "mean error: tea %.4f nci %.4f ibs %.4f spe %.4f ris %.4f\n", mean["tea"], mean["nci"], mean["ibs"], mean["spe"], mean["ris"];
           exit !(mean["tea"] < mean["nci"] && mean["nci"] < mean["ibs"] && mean["nci"] < mean["spe"] && mean["nci"] < mean["ris"]) }' \
    accuracy.txt || fail "expected mean error TEA < NCI-TEA < IBS, SPE, RIS"
echo ok
