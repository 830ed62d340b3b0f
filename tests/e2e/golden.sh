# The golden reference through the tools: both TraceDoctor vectors give their
# expected PICS under both rule sets (they agree on them) and tea info gives
# the commit states written in the vectors; TEA at period 1 equals golden under
# both; a trace that commits and excepts in one cycle is warned about and is
# not written back as tokens; PICS of different rule sets are not compared.
. "$(dirname "$0")/lib.bash"

# expected_cells CSV: the vector's expected golden PICS as "pc,psv,cycles" with
# cycles to six decimals, sorted
expected_cells() {
    awk -F, '!/^#/ && $1 != "pc" {
                 n = split($NF, f, "/"); v = n == 2 ? f[1] / f[2] : f[1]
                 printf "%s,%s,%.6f\n", $1, $2, v }' "$1" | sort
}

# exported_cells PICS: the same from a PICS file (numeric PSVs, as pics export writes)
exported_cells() {
    "$PICS" export "$1" | awk -F, 'NR > 1 { printf "%s,%s,%s\n", $1, $2, $NF }' | sort
}

# label_to_psv: the scenario CSV names components; turn them into PSV numbers
label_to_psv() {
    sed -e 's/,"ST-L1,ST-LLC",/,5,/' -e 's/,base,/,0,/' -e 's/,FL-MB,/,64,/' -e 's/,DR-L1,/,8,/' \
        -e 's/,FL-EX,/,128,/' -e 's/,ST-TLB,/,2,/' -e 's/,DR-SQ,/,32,/'
}

for vector in scenario flush_no_refill; do
    label_to_psv <"$DATA/$vector.golden.csv" >"$vector.expected.csv"
    expected_cells "$vector.expected.csv" >"$vector.want"
    for rules in default tracedoctor; do
        run 0 "$TEA" replay "$DATA/$vector.bin" --schemes golden,tea --period 1 --golden-rules $rules -o "$vector-$rules"
        exported_cells "$vector-$rules/golden.pics" >"$vector-$rules.got"
        cmp -s "$vector.want" "$vector-$rules.got" ||
            { diff "$vector.want" "$vector-$rules.got" >&2; fail "$vector: golden PICS under $rules rules"; }
        grep -qx "golden_rules $rules" "$vector-$rules/golden.pics" || fail "$vector: rules not recorded"
        run 0 "$PICS" error "$vector-$rules/tea.pics" "$vector-$rules/golden.pics"
        contains out.txt "error: 0.0000%"
    done
done

run 0 "$TEA" info "$DATA/flush_no_refill.bin"
contains out.txt "states:       compute 4 (19.0%), stalled 11 (52.4%), drained 0 (0.0%), flushed 6 (28.6%)"
run 0 "$TEA" topdown "$DATA/flush_no_refill.bin" --format csv -o fnr.csv
grep -q '^(all),states,flushed,,6,' fnr.csv || fail "tea topdown: flushed is not 6"
grep -q '^(all),states,stalled,,11,' fnr.csv || fail "tea topdown: stalled is not 11"

# commit and exception in one cycle (written by an older core model): read with a
# warning, never written back as TraceDoctor tokens
run 0 "$TEA" info "$DATA/commit_exception.td.zst"
contains out.txt "commit and except in the same cycle, which BOOM never does"
run 1 "$TEA" convert "$DATA/commit_exception.td.zst" --to tracedoctor -o back.td.zst
contains err.txt "excepts in a cycle in which others commit"
[ ! -e back.td.zst ] || fail "a refused conversion left its output"
run 0 "$TEA" convert "$DATA/commit_exception.td.zst" -o ce.tea

# generated traces of every workload: TEA at period 1 equals golden under both rule sets
for workload in mixed flushes; do
    run 0 "$TEA" gen --workload $workload --cycles 20000 --seed 3 --format tracedoctor -o $workload.td.zst
    for rules in default tracedoctor; do
        run 0 "$TEA" replay $workload.td.zst --schemes golden,tea --period 1 --golden-rules $rules -o $workload-$rules
        run 0 "$PICS" error $workload-$rules/tea.pics $workload-$rules/golden.pics
        contains out.txt "error: 0.0000%"
    done
done

# PICS of different rule sets do not mix
run 2 "$PICS" error mixed-tracedoctor/tea.pics mixed-default/golden.pics
contains err.txt "follows the tracedoctor golden rules"
run 2 "$PICS" merge mixed-tracedoctor/golden.pics mixed-default/golden.pics -o m.pics
contains err.txt "different rules"
run 2 "$TEA" replay mixed.td.zst --golden-rules tea_gold -o bad
contains err.txt "unknown golden rules 'tea_gold'"
echo ok
