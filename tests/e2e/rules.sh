# tea replay --rules tracedoctor: TEA, NCI-TEA and IBS sample as the TEA
# authors' TraceDoctor workers do (tea_sampler, pebs_sampler, ibs_sampler;
# their outputs for the four peer traces, from
# ../shared/testdata/tracedoctor/peer, are in tests/data/peer). For every
# trace at samplingPeriod 97 and 1000: the replay's PICS equal the worker's
# file imported by pics import, cell for cell and in sample count, with
# --threads 1 and 2 giving identical files; the golden equals tea_gold. The
# rules are named in every PICS and results row, and PICS or results of
# different rules are not compared, merged or tabled together. What the
# rules cannot do is refused: a native trace (no tokens), a jitter, SPE,
# RIS, the default golden rules, a noise floor. And the writer's VALID bits
# (BOOM's) change no PICS under the default rules.
. "$(dirname "$0")/lib.bash"
PEER=$DATA/peer

# same_cells A.pics B.pics: the same cells, cycles as pics export prints them
same_cells() {
    "$PICS" export "$1" | sort >a.cells || fail "pics export $1"
    "$PICS" export "$2" | sort >b.cells || fail "pics export $2"
    [ -s a.cells ] || fail "$1 has no cells"
    cmp -s a.cells b.cells || { diff a.cells b.cells | head -n 5 >&2; fail "$1 and $2 differ"; }
}
samples_of() { sed -n 's/^samples //p' "$1"; }

for w in mixed memory frontend branchy; do
    run 0 "$PICS" import --tracedoctor tea_gold "$PEER/$w.tea_gold.csv" -o "$w-gold.pics"
    for p in 97 1000; do
        r="r-$w-$p"
        run 0 "$TEA" replay -q "$PEER/$w.td.zst" --rules tracedoctor --period "$p" --threads 1 -o "$r"
        run 0 "$TEA" replay -q "$PEER/$w.td.zst" --rules tracedoctor --period "$p" --threads 2 -o "$r-t2"
        for f in golden.pics tea.pics nci.pics ibs.pics summary.csv; do
            cmp -s "$r/$f" "$r-t2/$f" || fail "$w at $p: $f differs between --threads 1 and 2"
        done
        [ ! -e "$r/spe.pics" ] && [ ! -e "$r/ris.pics" ] || fail "$w: spe or ris sampled under the tracedoctor rules"
        grep -qx 'rules tracedoctor' "$r/ibs.pics" && grep -qx 'rules tracedoctor' "$r/tea.pics" ||
            fail "$w: a sampled PICS does not name its rules"
        ! grep -q '^rules ' "$r/golden.pics" || fail "$w: the golden PICS, the same under both rules, names some"
        grep -qx 'jitter none' "$r/tea.pics" || fail "$w: the tracedoctor rules sample with jitter"
        [ "$(grep -c ',tracedoctor,,,,,,,$' "$r/summary.csv")" = 3 ] || fail "$w: summary.csv rows do not name the rules"
        same_cells "$w-gold.pics" "$r/golden.pics"
        for pair in tea:tea pebs:nci ibs:ibs; do
            worker=${pair%%:*} scheme=${pair##*:}
            run 0 "$PICS" import --tracedoctor "${worker}_sampler" --period "$p" \
                "$PEER/$w.${worker}_sampler-$p.csv" --like "$r/golden.pics" -o "$w-$scheme-$p.pics"
            [ "$(samples_of "$w-$scheme-$p.pics")" = "$(samples_of "$r/$scheme.pics")" ] ||
                fail "$w $worker at $p: $(samples_of "$w-$scheme-$p.pics") samples, the replay $(samples_of "$r/$scheme.pics")"
            same_cells "$w-$scheme-$p.pics" "$r/$scheme.pics"
        done
        # the worker's import and the replay are of one run: they compare
        run 0 "$PICS" error "$w-ibs-$p.pics" "$r/golden.pics"
    done
done

# --threads 2 decompresses a multi-frame file's frames on two threads while
# the tokens go to the samplers in order: the same files. (mixed's tokens in
# three frames, cut inside a token.)
zstd -qdc "$PEER/mixed.td.zst" >mixed.bin || fail "zstd -d"
head -c 1000001 mixed.bin | zstd -q -o part1.zst && tail -c +1000002 mixed.bin | head -c 2000000 | zstd -q -o part2.zst &&
    tail -c +3000002 mixed.bin | zstd -q -o part3.zst || fail "zstd"
cat part1.zst part2.zst part3.zst >frames.td.zst
run 0 "$TEA" replay -q frames.td.zst --rules tracedoctor --period 97 --threads 2 -o frames
for f in golden.pics tea.pics nci.pics ibs.pics; do
    cmp -s "frames/$f" "r-mixed-97/$f" || fail "$f of a three-frame copy on two threads differs"
done

# The workers fold sample points: at period 97 on memory, TEA takes fewer
# samples than the points that fall in the trace (its lost.busy says how many).
points=$((199807 / 97))
tea97=$(samples_of r-memory-97/tea.pics)
busy=$(sed -n 's/^lost.busy //p' r-memory-97/tea.pics)
[ "$tea97" -lt "$points" ] && [ "$busy" -gt 0 ] || fail "memory at 97: $tea97 samples of $points points, $busy folded"

# The golden reference is the same under both sampler rules: a sampled PICS
# of either compares with it. Sampled PICS and results of different rules
# are not merged or tabled together; a golden of other golden rules is not
# compared.
run 0 "$TEA" replay -q "$PEER/mixed.td.zst" --golden-rules tracedoctor --period 97 --jitter none -o d
cmp -s <(grep -v '^tea-pics ' d/golden.pics) <(grep -v '^tea-pics ' r-mixed-97/golden.pics) ||
    fail "the golden PICS differs between the sampler rules"
run 0 "$PICS" error r-mixed-97/tea.pics d/golden.pics
run 0 "$PICS" error mixed-tea-97.pics d/golden.pics
run 0 "$PICS" error d/tea.pics r-mixed-97/golden.pics
run 0 "$TEA" replay -q "$PEER/mixed.td.zst" --schemes golden -o dd
run 2 "$PICS" error r-mixed-97/tea.pics dd/golden.pics
contains err.txt "r-mixed-97/tea.pics follows the tracedoctor golden rules, dd/golden.pics the default ones"
run 2 "$PICS" merge r-mixed-97/tea.pics d/tea.pics -o m.pics
contains err.txt "cannot merge PICS sampled under different rules (tracedoctor/default)"
run 0 "$PICS" merge r-mixed-97/golden.pics d/golden.pics -o mg.pics
run 2 "$PICS" table r-mixed-97 d
contains err.txt "r-mixed-97/summary.csv: line 2 comes from a run under the tracedoctor rules, d/summary.csv: line 2 under the default ones: table them apart"
run 0 "$PICS" table r-mixed-97 r-memory-97
contains out.txt "| mixed "

# refusals
run 0 "$TEA" gen --workload mixed --cycles 20000 --seed 1 -o native.tea
for schemes in golden,tea golden; do
    run 1 "$TEA" replay native.tea --rules tracedoctor --schemes "$schemes" -o x
    contains err.txt "tea replay: native.tea: the tracedoctor rules read TraceDoctor tokens, and this is a native trace: convert it with tea convert --to tracedoctor"
done
run 0 "$TEA" convert native.tea --to tracedoctor -o native.td.zst
run 0 "$TEA" replay -q native.td.zst --rules tracedoctor -o converted
run 2 "$TEA" replay "$PEER/mixed.td.zst" --rules tracedoctor --jitter interval -o x
contains err.txt "tea replay: --rules tracedoctor samples at P, 2P, ... as the TraceDoctor workers do: --jitter interval does not apply"
run 2 "$TEA" replay "$PEER/mixed.td.zst" --rules tracedoctor --schemes tea,spe -o x
contains err.txt "tea replay: spe has no TraceDoctor worker: --rules tracedoctor samples tea, nci and ibs"
run 2 "$TEA" replay "$PEER/mixed.td.zst" --rules tracedoctor --golden-rules default -o x
contains err.txt "tea replay: --rules tracedoctor replays the golden reference of the tracedoctor rules: drop --golden-rules default"
run 2 "$TEA" replay "$PEER/mixed.td.zst" --rules tracedoctor --noise-floor -o x
contains err.txt "tea replay: --noise-floor samples TEA at each scheme's points under the default rules: not with --rules tracedoctor"
run 2 "$TEA" sweep "$PEER/mixed.td.zst" --rules tracedoctor --schemes ris -o x.csv
contains err.txt "tea sweep: ris has no TraceDoctor worker"
run 2 "$TEA" sweep "$PEER/mixed.td.zst" --rules tracedoctor --seeds 3 -o x.csv
contains err.txt "tea sweep: --rules tracedoctor samples at P, 2P, ... whatever the seed: --seeds 3 would repeat one run"
[ ! -e x ] && [ ! -e x.csv ] || fail "a refused run left output"

# The writer now shows the head row's occupied entries as VALID in every
# token, as BOOM does (the peer traces were written before, with VALID only
# where the decoder needed it): the tokens differ, the records and so every
# PICS under the default rules do not.
for w in mixed memory frontend branchy; do
    run 0 "$TEA" gen --workload "$w" --cycles 200000 --seed 1 --format tracedoctor -o "now-$w.td.zst"
    zstd -qdc "now-$w.td.zst" >now.bin && zstd -qdc "$PEER/$w.td.zst" >then.bin || fail "zstd -d"
    [ "$(wc -c <now.bin)" = "$(wc -c <then.bin)" ] || fail "$w: not as many tokens as before"
    ! cmp -s now.bin then.bin || fail "$w: the tokens are those of the old writer"
    run 0 "$TEA" replay -q "now-$w.td.zst" --period 97 -o "now-$w"
    run 0 "$TEA" replay -q "$PEER/$w.td.zst" --period 97 -o "then-$w"
    for f in golden tea nci ibs spe ris; do
        cmp -s "now-$w/$f.pics" "then-$w/$f.pics" || fail "$w: $f.pics differs between the old and the new writer"
    done
done

# tea sweep under the rules (one seed, not sweep's default five): its rows
# are the replay's
run 0 "$TEA" sweep "$PEER/mixed.td.zst" --rules tracedoctor --freqs 32989690.7216495 -o s.csv
[ "$(grep -vc '^trace,' s.csv)" = 3 ] || fail "tea sweep --rules tracedoctor: not one row per scheme"
grep -v '^trace,' s.csv | cut -d, -f2,5,7 >sweep.rows
grep -v '^trace,' r-mixed-97/summary.csv | cut -d, -f2,5,7 >replay.rows
cmp -s sweep.rows replay.rows || { diff sweep.rows replay.rows >&2; fail "tea sweep --rules tracedoctor is not the replay"; }
echo ok
