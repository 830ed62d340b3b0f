# scripts/tea-batch: jobs in any order (directly, through xargs -P, with a
# Slurm array index) merge into the rows of one tea sweep and into the exact
# sum of the jobs' PICS; reruns give identical files; missing, failed and
# killed jobs are named and never merged; usage errors.
BATCH="$(cd "$(dirname "$0")/../.." && pwd)/scripts/tea-batch"
. "$(dirname "$0")/lib.bash"

# the script is POSIX sh: run it with sh, not bash
batch() {
    sh "$BATCH" "$@"
}

mkdir traces dup
run 0 "$TEA" gen --workload mixed --cycles 300000 --seed 1 -o traces/mix.tea
run 0 "$TEA" gen --workload memory --cycles 300000 --seed 2 --format tracedoctor -o traces/mem.td.zst
run 0 "$TEA" gen --workload branchy --cycles 300000 --seed 3 -o traces/br.tea
cat >list.txt <<'EOF'
# three workloads, one in TraceDoctor format

traces/mix.tea
   traces/mem.td.zst
traces/br.tea
EOF
# a 10 MHz clock makes 3e5 cycles 30 ms: 30 sample points at 1 kHz
set -- --clock 10M --freqs 1k,4k --seeds 2 --quiet

# job 3 alone finding the tools through TEA and PICS, jobs 2 and 1 at once
# through xargs -P 2, then job 2 again as a Slurm array task
TEA="$TEA" PICS="$PICS" run 0 batch job list.txt 3 out -- "$@"
contains err.txt "job 3 of 3: traces/br.tea as br"
printf '2\n1\n' | xargs -P 2 -I{} sh "$BATCH" --bin "$BIN" job list.txt {} out -- "$@" >xargs.txt 2>&1 ||
    { cat xargs.txt >&2; fail "jobs 1 and 2 through xargs -P 2"; }
cp -R out first
SLURM_ARRAY_TASK_ID=2 run 0 batch job --bin "$BIN" list.txt - out -- "$@"
contains err.txt "job 2 of 3: traces/mem.td.zst as mem"
diff -r first out >&2 || fail "rerunning job 2 changed its files"
for name in mix mem br; do
    [ -f "out/replay/$name/golden.pics" ] && [ -f "out/replay/$name/tea-1000hz.pics" ] ||
        fail "no replay of $name"
    [ -f "out/sweep/$name.csv" ] || fail "no sweep of $name"
done

run 0 batch merge --bin "$BIN" out
cp out.txt merge.txt
contains merge.txt "3 traces: out/results.csv (60 rows)"

# results.csv: the rows of one tea sweep over the three traces, in list
# order; one tool comment, one column-name line, one comment per trace
run 0 "$TEA" sweep traces/mix.tea traces/mem.td.zst traces/br.tea "$@" -o single.csv
grep -v '^#' single.csv >single.rows
grep -v '^#' out/results.csv >batch.rows
cmp -s single.rows batch.rows || { diff single.rows batch.rows >&2; fail "results.csv rows differ from one tea sweep"; }
[ "$(wc -l <single.rows)" = 61 ] || fail "expected 60 rows and the column names"
[ "$(grep -c '^trace,' out/results.csv)" = 1 ] || fail "not one column-name line"
head -n 1 out/results.csv | grep -q '^# tea .* sweep: tea-batch merge of 3 jobs' || fail "no tool comment"
grep '^# trace ' out/results.csv | cut -d ' ' -f 3,4 >order.txt
printf 'mix: traces/mix.tea,\nmem: traces/mem.td.zst,\nbr: traces/br.tea,\n' >want_order.txt
diff want_order.txt order.txt >&2 || fail "trace comments not in list order"
[ "$(grep -c '^#' out/results.csv)" = 4 ] || fail "not one tool comment and three trace comments"

# merged/: every PICS file of a replay, each pics merge of the three in list
# order, byte for byte
(cd out/replay/mix && ls) | grep '\.pics$' >want_pics.txt
[ "$(wc -l <want_pics.txt)" = 11 ] || fail "expected golden and 5 schemes x 2 frequencies"
ls out/merged >got_pics.txt
diff want_pics.txt got_pics.txt >&2 || fail "merged/ lacks files"
for p in golden.pics tea-1000hz.pics ibs-4000hz.pics; do
    run 0 "$PICS" merge out/replay/mix/$p out/replay/mem/$p out/replay/br/$p -o "hand-$p"
    cmp -s "hand-$p" "out/merged/$p" || fail "merged/$p is not pics merge of the three"
done

# the merged golden total is the traces' attributed cycles (tea info),
# exactly; records add; 3 merged
key() { sed -n "s/^$2 //p" "$1"; }
attributed=0
records=0
for t in traces/mix.tea traces/mem.td.zst traces/br.tea; do
    run 0 "$TEA" info --json "$t"
    a=$(json_number out.txt attributed_cycles)
    r=$(json_number out.txt records)
    [ -n "$a" ] && [ "$a" -gt 290000 ] || fail "$t: attributed cycles '$a'"
    attributed=$((attributed + a))
    records=$((records + r))
done
g=out/merged/golden.pics
unit=$(key $g unit)
[ "$(key $g golden_total)" = $((attributed * unit)) ] ||
    fail "golden_total $(key $g golden_total) is not $attributed cycles x $unit"
[ "$(key $g trace.records)" = "$records" ] || fail "records $(key $g trace.records), expected $records"
[ "$(key $g merged)" = 3 ] || fail "merged is not 3"
contains merge.txt "golden.pics              $attributed cycles, $records records"
# the replay sampled at the sweep's first seed: the merged samples are the
# sum of the seed-1 rows of results.csv
for s in tea ibs; do
    want=$(awk -F, -v s=$s '$2 == s && $3 == 1000 && $4 == 1 { n += $5 } END { print n }' batch.rows)
    [ "$(key out/merged/$s-1000hz.pics samples)" = "$want" ] || fail "$s: merged samples are not $want"
    grep -q "^  $s-1000hz.pics  *$want samples, [0-9]* lost, error [0-9.]*%" merge.txt ||
        fail "no summary line for $s-1000hz.pics"
done

# the order the jobs ran in does not matter: in list order from scratch, the
# same files; merging two PICS files at a time gives the same bytes too
cp -R out shuffled
rm -rf out
for i in 1 2 3; do
    run 0 batch job list.txt "$i" out --bin "$BIN" -- "$@"
done
TEA_BATCH_MERGE_FILES=2 run 0 batch merge out --bin "$BIN"
diff -r shuffled out >&2 || fail "jobs in list order, merged in steps, give other files than shuffled"
TEA_BATCH_MERGE_FILES=1 run 2 batch merge out --bin "$BIN"

# a missing job is named and nothing is written
rm -rf out/replay/mem
run 1 batch merge --bin "$BIN" out
contains err.txt "1 of 3 jobs have not finished"
contains err.txt "job 2: traces/mem.td.zst"
rm out/batch/done/1
run 1 batch merge --bin "$BIN" out
contains err.txt "2 of 3 jobs have not finished"
contains err.txt "job 1: traces/mix.tea"
diff -r shuffled/merged out/merged >&2 || fail "a refused merge changed merged/"
cmp -s shuffled/results.csv out/results.csv || fail "a refused merge changed results.csv"
run 1 batch merge --bin "$BIN" nothing-here
contains err.txt "no job has run here"

# a failing job (a corrupt trace) leaves nothing that merge accepts
printf 'not a trace at all\n' >traces/junk.tea
printf 'traces/mix.tea\ntraces/junk.tea\n' >bad.txt
run 0 batch job --bin "$BIN" bad.txt 1 bad -- "$@"
run 1 batch job --bin "$BIN" bad.txt 2 bad -- "$@"
contains err.txt "job 2 (traces/junk.tea): tea replay failed with status 1"
[ ! -e bad/replay/junk ] && [ ! -e bad/replay/.junk.part ] && [ ! -e bad/sweep/junk.csv ] &&
    [ ! -e bad/batch/done/2 ] || fail "a failed job left files"
run 1 batch merge --bin "$BIN" bad
contains err.txt "job 2: traces/junk.tea"
[ ! -e bad/results.csv ] && [ ! -e bad/merged ] || fail "a refused merge wrote output"

# a rerun of a finished job killed between its replay and its sweep (a tea
# that kills the job's shell when asked to sweep) leaves no marker and no
# replay; the job run again completes it
cat >killer.sh <<EOF
#!/bin/sh
[ "\$1" = sweep ] && kill -KILL \$PPID && exit 1
exec "$TEA" "\$@"
EOF
chmod +x killer.sh
for i in 1 2 3; do run 0 batch job --bin "$BIN" list.txt $i killed -- "$@"; done
TEA="$PWD/killer.sh" PICS="$PICS" run 137 batch job list.txt 3 killed -- "$@"
[ -d killed/replay/.br.part ] || fail "the killed job did not get to its sweep"
[ ! -e killed/replay/br ] && [ ! -e killed/batch/done/3 ] && [ ! -e killed/sweep/br.csv ] ||
    fail "a killed job left files merge would take"
run 1 batch merge --bin "$BIN" killed
contains err.txt "1 of 3 jobs have not finished"
contains err.txt "job 3: traces/br.tea"
run 0 batch job --bin "$BIN" list.txt 3 killed -- "$@"
[ ! -e killed/replay/.br.part ] || fail "the rerun left the killed job's partial replay"
run 0 batch merge --bin "$BIN" killed
cmp -s shuffled/merged/golden.pics killed/merged/golden.pics || fail "rerun after a kill: other golden.pics"

# traces that share a name are INDEX-NAME; the rows are still one sweep's.
# The replay gets the sweep's schemes (and golden) and its first seed.
cp traces/br.tea dup/mix.tea
printf 'traces/mix.tea\ndup/mix.tea\n' >dup.txt
set -- "$@" --schemes tea,ibs:all --first-seed=3
for i in 2 1; do run 0 batch job --bin "$BIN" dup.txt $i dup -- "$@"; done
[ -f dup/replay/1-mix/golden.pics ] && [ -f dup/replay/2-mix/golden.pics ] && [ -f dup/sweep/2-mix.csv ] ||
    fail "shared names not prefixed with the index"
run 0 batch merge --bin "$BIN" dup
run 0 "$TEA" sweep traces/mix.tea dup/mix.tea "$@" -o dup-single.csv
grep -v '^#' dup-single.csv >want.rows
grep -v '^#' dup/results.csv >got.rows
cmp -s want.rows got.rows || fail "shared names: rows differ from one tea sweep"
ls dup/merged | tr '\n' ' ' >dup-pics.txt
contains dup-pics.txt "golden.pics ibs-all-1000hz.pics ibs-all-4000hz.pics tea-1000hz.pics tea-4000hz.pics "
grep -v '^#' dup/replay/2-mix/summary.csv | grep -v '^trace,' >replay.rows
grep ',3,[0-9]*,[0-9]*,[0-9.]*,[0-9.]*,$' got.rows | tail -n 4 >want.rows
[ "$(wc -l <replay.rows)" = 4 ] && cmp -s want.rows replay.rows ||
    { diff want.rows replay.rows >&2; fail "the replay's rows are not the sweep's at seed 3"; }

# one OUT holds jobs of one list and one set of options
run 1 batch job --bin "$BIN" list.txt 1 out -- --clock 10M --freqs 1k --quiet
contains err.txt "other tea sweep options"
cp list.txt other.txt
echo traces/mix.tea >>other.txt
run 1 batch job --bin "$BIN" other.txt 1 out -- "$@"
contains err.txt "another list of traces"

# usage errors: status 2 before anything runs
run 2 batch
contains err.txt "missing command"
run 2 batch job list.txt 0 u
run 2 batch job list.txt 4 u
contains err.txt "job 4 of a list of 3 traces"
run 2 batch job list.txt x u
run 2 env -u SLURM_ARRAY_TASK_ID sh "$BATCH" job list.txt - u
contains err.txt "SLURM_ARRAY_TASK_ID"
run 2 batch job list.txt 1 u -- -o x.csv
run 2 batch job list.txt 1 u -- -ox.csv
run 2 batch job list.txt 1 u -- --svg x.svg
run 2 batch job list.txt 1 u -- --cl 10M
contains err.txt "write --cl in full"
run 2 batch job list.txt 1 u -- traces/br.tea
run 2 batch job list.txt 1 u extra
run 2 batch merge
run 2 batch frobnicate
[ ! -e u ] || fail "a usage error created OUT"
run 1 batch job --bin "$BIN" missing.txt 1 u
contains err.txt "missing.txt"
run 0 batch --help
contains out.txt "Usage: tea-batch job"
contains out.txt "tea-batch merge"

# shellcheck when it is installed (not a dependency)
if command -v shellcheck >/dev/null 2>&1; then
    shellcheck "$BATCH" >&2 || fail "shellcheck finds problems in scripts/tea-batch"
else
    echo "shellcheck not installed: skipped"
fi
echo ok
