# Several cores replayed as one program (tea/program.h): two TraceDoctor
# files from tea gen, as a FireSim run of a two-core target writes them.
# The program's PICS are the exact sums of the cores' (what pics merge
# makes of them), each core's files equal a replay of that file alone, and
# the thread count changes nothing.
. "$(dirname "$0")/lib.bash"

mkdir fs
run 0 "$TEA" gen --workload mixed --cycles 200000 --seed 1 --format tracedoctor -o fs/TRACEFILE0-C0.td.zst
run 0 "$TEA" gen --workload memory --cycles 300000 --seed 2 --format tracedoctor -o fs/TRACEFILE0-C1.td.zst
: >fs/notes.txt # not a core's file: ignored

# each core alone, at one period
run 0 "$TEA" replay fs/TRACEFILE0-C0.td.zst --period 500 -o c0 -q
c0_cycles=$(sed -n 's/.*records; \([0-9]*\) cycles attributed.*/\1/p' out.txt)
run 0 "$TEA" replay fs/TRACEFILE0-C1.td.zst --period 500 -o c1 -q
c1_cycles=$(sed -n 's/.*records; \([0-9]*\) cycles attributed.*/\1/p' out.txt)
[ -n "$c0_cycles" ] && [ -n "$c1_cycles" ] || fail "no attributed cycles in the single replays"

# the directory, in core order, on one thread and on two; the two files
run 0 "$TEA" replay fs --period 500 --threads 1 -o prog1 -q
contains out.txt "program: fs, 2 cores"
contains out.txt "core TRACEFILE0-C0: fs/TRACEFILE0-C0.td.zst"
contains out.txt "core TRACEFILE0-C1: fs/TRACEFILE0-C1.td.zst"
contains out.txt "program: $((c0_cycles + c1_cycles)) core-cycles"
contains out.txt "$((c0_cycles + c1_cycles)) cycles attributed"
run 0 "$TEA" replay fs --period 500 --threads 2 -o prog2 -q
for f in prog1/*.pics prog1/summary.csv prog1/cores/*/*.pics prog1/cores/*/summary.csv; do
    cmp -s "$f" "prog2/${f#prog1/}" || fail "$f differs between --threads 1 and 2"
done

for scheme in golden tea nci ibs spe ris; do
    # each core's files are its replay alone
    cmp -s prog1/cores/TRACEFILE0-C0/$scheme.pics c0/$scheme.pics || fail "core 0's $scheme.pics is not its own replay's"
    cmp -s prog1/cores/TRACEFILE0-C1/$scheme.pics c1/$scheme.pics || fail "core 1's $scheme.pics is not its own replay's"
    # the program's is their exact sum
    run 0 "$PICS" merge c0/$scheme.pics c1/$scheme.pics -o sum-$scheme.pics
    cmp -s sum-$scheme.pics prog1/$scheme.pics || fail "the program's $scheme.pics is not the sum of the cores'"
done

# --noise-floor: every floor is the cores' floors summed, and TEA's floor
# is its error, exactly, for the program as for a trace
run 0 "$TEA" replay fs --period 500 --noise-floor --schemes golden,tea,ibs -o floors -q
for scheme in tea ibs; do
    run 0 "$PICS" merge floors/cores/*/$scheme.floor.pics -o sum-floor.pics
    cmp -s sum-floor.pics floors/$scheme.floor.pics || fail "the program's $scheme.floor.pics is not the cores' sum"
done
tea_row=$(grep '^fs,tea,' floors/summary.csv) || fail "no tea row with floors"
[ "$(echo "$tea_row" | cut -d, -f7)" = "$(echo "$tea_row" | cut -d, -f13)" ] ||
    fail "the program's TEA floor is not its error: $tea_row"

# the program's samples are the cores' summed, row by row
rows() { tail -n +2 "$1" | cut -d, -f2,5,6; }
rows c0/summary.csv >r0.txt
rows c1/summary.csv >r1.txt
rows prog1/summary.csv >rp.txt
[ "$(wc -l <rp.txt)" -eq 5 ] || fail "expected 5 rows in the program's summary.csv"
paste -d, r0.txt r1.txt | while IFS=, read -r s0 n0 l0 s1 n1 l1; do
    [ "$s0" = "$s1" ] || fail "rows out of order: $s0, $s1"
    echo "$s0,$((n0 + n1)),$((l0 + l1))"
done >rsum.txt
cmp -s rsum.txt rp.txt || { diff rsum.txt rp.txt >&2; fail "program samples and losses are not the cores' sums"; }
grep -q '^fs,tea,' prog1/summary.csv || fail "the program's rows are not named for its directory"
run 0 "$TEA" replay fs/TRACEFILE0-C0.td.zst fs/TRACEFILE0-C1.td.zst --period 500 -o prog3 -q
contains out.txt "program: TRACEFILE0, 2 cores"
cmp -s prog1/golden.pics prog3/golden.pics || fail "the two files give another golden PICS than their directory"
grep -q '^TRACEFILE0,tea,' prog3/summary.csv || fail "the rows of two files are not named TRACEFILE0"

# every command reads the program's directory as any replay's
run 0 "$PICS" report prog1 --top 2
contains out.txt "total $((c0_cycles + c1_cycles)).000 cycles"
run 0 "$PICS" error prog1/tea.pics prog1/golden.pics

# pics report --threads: every core's instructions in one table, a thread
# column, shares of the program; by thread, each core's rows sum to its
# cycles (six decimals each, so to within a cycle)
run 0 "$PICS" report prog1 --threads --top 0 --format csv
[ "$(head -n 1 out.txt)" = "share,cycles,thread,location,address" ] || fail "pics report --threads CSV header: $(head -n 1 out.txt)"
for core in TRACEFILE0-C0:$c0_cycles TRACEFILE0-C1:$c1_cycles; do
    sum=0
    for cycles in $(grep ",${core%%:*}," out.txt | cut -d, -f2); do
        sum=$((sum + 10#${cycles%.*} * 1000000 + 10#${cycles#*.}))
    done
    want=$((${core#*:} * 1000000))
    off=$((sum > want ? sum - want : want - sum))
    [ "$off" -le 1000000 ] || fail "pics report --threads: ${core%%:*}'s rows sum to $sum micro-cycles, not $want"
done
run 0 "$PICS" report prog1 --threads --sort thread --top 3
contains out.txt "# pics report of prog1 by thread: 2 cores, each one's golden.pics"
contains out.txt "Thread"
[ "$(grep -c ' TRACEFILE0-C0 ' out.txt)" -eq 3 ] || fail "--sort thread does not start with core 0's rows"
run 2 "$PICS" report c0 --threads
contains err.txt "c0: no cores/: a replay of one trace"
run 2 "$PICS" report c0/golden.pics --threads
contains err.txt "--threads (and --sort thread with it) takes a program's tea replay directory"

# --samples K: one frequency for the program, from its cores' cycles summed
run 0 "$TEA" replay fs --samples 2000 --schemes golden,tea -o progk -q
tea_samples=$(grep '^fs,tea,' progk/summary.csv | cut -d, -f5)
[ "$tea_samples" -ge 1990 ] && [ "$tea_samples" -le 2010 ] || fail "--samples 2000 gave TEA $tea_samples samples"
f0=$(grep ',tea,' progk/cores/TRACEFILE0-C0/summary.csv | cut -d, -f3)
f1=$(grep ',tea,' progk/cores/TRACEFILE0-C1/summary.csv | cut -d, -f3)
[ "$f0" = "$f1" ] || fail "the cores ran at different frequencies ($f0, $f1)"

# tea sweep takes the directory as one program: the rows tea replay writes
run 0 "$TEA" sweep fs --freq 6.4e6 --seeds 1 -q -o sweep.csv
tail -n +2 sweep.csv >sweep-rows.txt
tail -n +2 prog2/summary.csv >replay-rows.txt
cmp -s sweep-rows.txt replay-rows.txt || { diff sweep-rows.txt replay-rows.txt >&2; fail "tea sweep's program rows differ from tea replay's"; }

# a replay of one trace into a program's directory leaves no cores behind
run 0 "$TEA" replay fs/TRACEFILE0-C0.td.zst --period 500 -o prog1 -q
[ ! -e prog1/cores ] || fail "a one-trace replay left the program's cores/ in place"
cmp -s prog1/golden.pics c0/golden.pics || fail "prog1 was not replaced"

# a directory without per-core files is refused
mkdir empty
run 2 "$TEA" replay empty -o none -q
contains err.txt "no per-core trace files"
[ ! -e none ] || fail "a refused replay left its output directory"

echo "cores: OK"
