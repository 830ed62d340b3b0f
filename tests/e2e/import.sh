# pics import --tracedoctor: what the TEA authors' TraceDoctor workers wrote
# for the four peer traces (tests/data/peer, from
# ../shared/testdata/tracedoctor/peer: tea_gold, and tea_sampler,
# pebs_sampler, ibs_sampler at samplingPeriod 1000) becomes PICS equal to
# this tool's replay of the same traces cell for cell: the golden under
# --golden-rules tracedoctor on all four; TEA and NCI-TEA at --period 1000
# --jitter none on mixed and memory, where the workers merge no sample points
# at that period (so the default rules agree with them there). Every worker
# file against --rules tracedoctor, IBS included: tests/e2e/rules.sh. Bad input is refused with the file and line (status 1; usage
# errors 2), leaving no output.
. "$(dirname "$0")/lib.bash"
PEER=$DATA/peer

# same_cells A.pics B.pics: the same cells, cycles as pics export prints them
same_cells() {
    "$PICS" export "$1" | sort >a.cells || fail "pics export $1"
    "$PICS" export "$2" | sort >b.cells || fail "pics export $2"
    cmp -s a.cells b.cells || { diff a.cells b.cells | head -n 5 >&2; fail "$1 and $2 differ"; }
}

for w in mixed memory frontend branchy; do
    run 0 "$PICS" import --tracedoctor tea_gold "$PEER/$w.tea_gold.csv" -o "$w-gold.pics"
    grep -qx 'golden_rules tracedoctor' "$w-gold.pics" && grep -qx 'scheme golden' "$w-gold.pics" ||
        fail "$w: the imported golden is not a golden PICS of the tracedoctor rules"
    run 0 "$TEA" replay -q "$PEER/$w.td.zst" --golden-rules tracedoctor --schemes golden,tea,nci --period 1000 \
        --jitter none --threads 1 -o "r-$w"
    same_cells "$w-gold.pics" "r-$w/golden.pics"
done
for w in mixed memory; do
    for pair in tea:tea pebs:nci; do
        worker=${pair%%:*} scheme=${pair##*:}
        run 0 "$PICS" import --tracedoctor "${worker}_sampler" --period 1000 "$PEER/$w.${worker}_sampler-1000.csv" \
            --like "$w-gold.pics" -o "$w-$scheme.pics"
        [ "$(sed -n 's/^samples //p' "$w-$scheme.pics")" = "$(sed -n 's/^samples //p' "r-$w/$scheme.pics")" ] ||
            fail "$w $worker: not the replay's sample count"
        same_cells "$w-$scheme.pics" "r-$w/$scheme.pics"
    done
    run 0 "$PICS" import --tracedoctor ibs_sampler --period 1000 "$PEER/$w.ibs_sampler-1000.csv" -o "$w-ibs.pics"
    # imports of one run compare with each other
    run 0 "$PICS" error "$w-ibs.pics" "$w-gold.pics"
    contains out.txt "ibs at 3.2e+06 Hz"
done

# bad input: the file and line named, no output written
run 1 "$PICS" import --tracedoctor tea_gold "$PEER/mixed.tea_sampler-1000.csv" -o bad.pics
contains err.txt "mixed.tea_sampler-1000.csv: line 1: not a tea_gold file"
printf 'address;signatures\n0x10;4:1.500000\n0x14;4:0.300000\n' >frac.csv
run 1 "$PICS" import --tracedoctor tea_gold frac.csv -o bad.pics
contains err.txt "frac.csv: line 3: cycles '0.300000' are not a multiple of 1/24"
run 2 "$PICS" import --tracedoctor tea_sampler "$PEER/mixed.tea_sampler-1000.csv" -o bad.pics
contains err.txt "needs --period"
run 2 "$PICS" import --tracedoctor spe_sampler "$PEER/mixed.tea_sampler-1000.csv" --period 1000 -o bad.pics
contains err.txt "unknown TraceDoctor worker 'spe_sampler'"
head -n 3 "$PEER/mixed.tea_sampler-1000.csv" >short.csv
echo '1000;1;1;0x10' >>short.csv
run 1 "$PICS" import --tracedoctor tea_sampler short.csv --period 1000 -o bad.pics
contains err.txt "short.csv: line 4: expected 19 fields"
[ ! -e bad.pics ] || fail "a refused import left its output"
echo ok
