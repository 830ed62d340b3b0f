# SimPoint's regions of every thread, on tests/data/record_pthreads.c (2
# compute, 3 pointer chase, 4 branchy, 5 a waiter, besides the main
# thread): tea simpoint --thread all picks each thread's regions from its
# own vectors (tea's tool writes one file per thread, by creation number,
# where exp-bbv writes one per Valgrind slot and a thread that starts after
# another ended takes its slot), in "# thread N" sections; tea record
# --thread all times each thread's regions on its own instruction count,
# each standing for its share of that thread's intervals; the program's
# estimate is the threads' summed. Skipped (77) where valgrind or tea's
# Valgrind tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
cc -O1 -no-pie -pthread -o pthreads "$DATA/record_pthreads.c" || fail "cannot build record_pthreads"
INTERVAL=100000
mkdir -p tmpdir
export TMPDIR="$PWD/tmpdir" # the vectors' temporary directory: this test's own

run 0 "$TEA" simpoint --thread all --interval $INTERVAL -o sp --keep-bbv bbv -- ./pthreads
[ "$(ls bbv.* | tr '\n' ' ')" = "bbv.1 bbv.2 bbv.3 bbv.4 bbv.5 " ] || fail "--keep-bbv kept $(ls bbv.* | tr '\n' ' ')"
[ "$(grep -c '^# thread [1-5]$' sp.simpoints)" -eq 5 ] && [ "$(grep -c '^# thread [1-5]$' sp.weights)" -eq 5 ] ||
    fail "sp.simpoints and sp.weights do not hold a section per thread"
contains out.txt "record them with"
contains out.txt "tea record --thread all --simpoints sp.simpoints --weights sp.weights -- ./pthreads"
# each thread's summary counts its own vectors: their lines, and their counts summed
for t in 1 2 3 4 5; do
    lines=$(grep -c '^T' bbv.$t)
    sum=0
    for c in $(tr ' ' '\n' <bbv.$t | sed -n 's/^T\{0,1\}:[0-9]*:\([0-9]*\)$/\1/p'); do
        sum=$((sum + c))
    done
    contains out.txt "thread $t: $lines intervals of $INTERVAL instructions ($sum in all)"
    eval "bbv$t=$sum"
done
# the compute loop's 2.5 million instructions: 26 intervals, the last partial
contains out.txt "thread 2: 26 intervals of"

# every thread timed where its own section says, each region standing
# for its share of that thread's intervals
run 0 "$TEA" record --thread all --simpoints sp.simpoints --weights sp.weights -o sp.tea -- ./pthreads
"$TEA" info --json sp.tea/thread-1.tea >t1.json || fail "tea info thread-1.tea"
tool_count() { # the tool's count of thread $1 in t1.json: the run's threads, "id" then "instructions"
    sed -n '/"threads": \[/,/\]/{/^ *"id": '"$1"',$/{n;s/[^0-9]//gp;};}' t1.json
}
for t in 1 2 3 4 5; do
    regions=$(sed -n "/^# thread $t\$/,/^# thread/{/^[0-9]/p;}" sp.simpoints | wc -l)
    count=$(tool_count $t)
    intervals=$(((count + INTERVAL - 1) / INTERVAL))
    run 0 "$TEA" info sp.tea/thread-$t.tea
    contains out.txt "sampled:      $regions SimPoint regions of $INTERVAL instructions"
    contains out.txt "they stand for $intervals intervals"
    eval "vectors=\$bbv$t"
    # the vectors' run and the recording's count the same thread, within
    # 5,000 instructions: the lock the threads meet on, and the waits, run
    # a few more or fewer in each run (not thread 2's and 4's 2.5 and 3.3
    # million, which exp-bbv's slot numbering runs together in one file)
    off=$((count > vectors ? count - vectors : vectors - count))
    [ "$off" -le 5000 ] || fail "thread $t: $vectors instructions in its vectors, $count recorded"
done
# the compute thread's estimate: its instructions within 1 % (a loop of one kind);
# no warning that it ran a quarter of the program (the others were recorded too)
run 0 "$TEA" info sp.tea/thread-2.tea
! grep -q "warning" out.txt || fail "tea info thread-2.tea warns: $(grep warning out.txt)"
est_n=$(printf '%.0f' "$(sed -n 's/^estimate: .* cycles for \([0-9.e+]*\) instructions.*/\1/p' out.txt)")
count=$(tool_count 2)
off=$((est_n > count ? est_n - count : count - est_n))
[ $((off * 100)) -le "$count" ] || fail "thread 2's estimate is $est_n instructions, it ran $count"
run 0 "$TEA" info sp.tea
contains out.txt "program:      sp, 5 cores"
contains out.txt "the cores' estimates summed"

# a list: only those threads' sections, and only those threads timed
run 0 "$TEA" simpoint --thread 2,4 --interval $INTERVAL -o two -- ./pthreads
[ "$(grep '^# thread' two.simpoints | tr '\n' ' ')" = "# thread 2 # thread 4 " ] ||
    fail "--thread 2,4 wrote sections $(grep '^# thread' two.simpoints | tr '\n' ' ')"
run 0 "$TEA" record -q --thread 2,4 --simpoints two.simpoints --weights two.weights -o two.tea -- ./pthreads
[ "$(ls two.tea | tr '\n' ' ')" = "thread-2.tea thread-4.tea " ] || fail "--thread 2,4 wrote $(ls two.tea | tr '\n' ' ')"

# a list of one: tea record's --thread N alone is Valgrind's thread N, with
# no sections, so tea simpoint says --thread all; the threads without a
# section time nothing and leave no trace
run 0 "$TEA" simpoint --thread 3 --interval $INTERVAL -o one3 -- ./pthreads small
contains out.txt "tea record --thread all --simpoints one3.simpoints --weights one3.weights"
run 0 "$TEA" record --thread all --simpoints one3.simpoints --weights one3.weights -o one3.tea -- ./pthreads small
[ "$(ls one3.tea | tr '\n' ' ')" = "thread-3.tea " ] || fail "a section of thread 3 wrote $(ls one3.tea | tr '\n' ' ')"

# files and threads must agree; a bad list
printf '0 0\n' >one.simpoints
printf '1 0\n' >one.weights
run 2 "$TEA" record --thread all --simpoints one.simpoints --weights one.weights -o s.tea -- ./pthreads
contains err.txt "--thread all times each thread's own regions: one.simpoints has no \"# thread N\" sections"
run 2 "$TEA" record --simpoints sp.simpoints --weights sp.weights -o s.tea -- ./pthreads
contains err.txt "sp.simpoints holds threads' regions (\"# thread N\" sections): record them with --thread"
[ ! -e s.tea ] || fail "a refused recording left s.tea"
run 2 "$TEA" simpoint --thread 0 -o bad -- ./pthreads
contains err.txt "invalid thread list '0'"
run 2 "$TEA" simpoint --thread 9 --interval $INTERVAL -o bad -- ./pthreads
contains err.txt "none of the threads 9 ran an instruction (the program ran 5)"
[ ! -e bad.simpoints ] || fail "a refused pick left bad.simpoints"
[ -z "$(ls tmpdir)" ] || fail "tea simpoint --thread left $(ls tmpdir) in TMPDIR"

echo "simpoint_threads: OK"
