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
# order; the column names on line 1 and nothing but rows after them
run 0 "$TEA" sweep traces/mix.tea traces/mem.td.zst traces/br.tea "$@" -o single.csv
cmp -s single.csv out/results.csv || { diff single.csv out/results.csv >&2; fail "results.csv differs from one tea sweep"; }
[ "$(wc -l <single.csv)" = 61 ] || fail "expected 60 rows and the column names"
[ "$(grep -c '^trace,' out/results.csv)" = 1 ] || fail "not one column-name line"
! grep -q '^#' out/results.csv || fail "a comment line in results.csv"
cut -d , -f 1 out/results.csv | uniq | tr '\n' ' ' >order.txt
[ "$(cat order.txt)" = "trace mix mem br " ] || fail "traces not in list order: $(cat order.txt)"
for name in mix mem br; do
    grep -q '"command": "sweep"' "out/sweep/$name.json" || fail "no provenance out/sweep/$name.json"
done

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
grep ',3,[0-9]*,[0-9]*,[0-9.]*,[0-9.]*,,[0-9a-f]*,[0-9]*,[0-9]*,,,,default,,,,,,,$' got.rows | tail -n 4 >want.rows
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
