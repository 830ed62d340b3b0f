# tea record --thread all on tests/data/record_pthreads.c: four threads
# doing known work (2 compute, 3 pointer chase, 4 branchy, 5 waits on a
# condition variable) besides the main thread. Each thread is timed by a
# core of its own into OUT/thread-N.tea; each one's instructions are the
# tool's own count of that thread (recorded whole: exact), and callgrind's
# inclusive count of the thread's function within 5,000 (another run: the
# thread's start and end, and the lock the threads meet on); the chase
# thread's cycles are mostly memory stalls; the waiter's are few; the
# program's golden PICS is the exact sum of the threads'. Sampled, each
# thread has its own windows and estimate; with --skip, each skips its own
# first instructions. A list records only its threads; a program of one
# thread recorded with --thread all gives the trace of the default (the
# same records, PICS cell for cell, and sampled the same windows). Skipped (77) where valgrind or tea's
# Valgrind tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
cc -O1 -no-pie -pthread -o pthreads "$DATA/record_pthreads.c" || fail "cannot build record_pthreads"

run 0 "$TEA" record --thread all -o prog.tea -- ./pthreads
for t in 1 2 3 4 5; do
    [ -f prog.tea/thread-$t.tea ] || fail "no trace of thread $t"
    contains err.txt "tea record: thread $t: prog.tea/thread-$t.tea: "
done
[ "$(ls prog.tea | wc -l)" -eq 5 ] || fail "prog.tea holds $(ls prog.tea | wc -l) files, expected 5"

# each thread's instructions: its trace's commits, and the tool's count
# of that thread, which every thread's trace lists
tool_count() { # the tool's count of thread $1 in t1.json: the run's threads, "id" then "instructions"
    sed -n '/"threads": \[/,/\]/{/^ *"id": '"$1"',$/{n;s/[^0-9]//gp;};}' t1.json
}
"$TEA" info --json prog.tea/thread-1.tea >t1.json || fail "tea info thread-1.tea"
for t in 1 2 3 4 5; do
    "$TEA" info --json prog.tea/thread-$t.tea >info.json || fail "tea info thread-$t.tea"
    commits=$(json_number info.json commits)
    [ "$(json_number info.json id)" = "$t" ] || fail "thread-$t.tea names thread $(json_number info.json id)"
    [ "$commits" = "$(tool_count $t)" ] ||
        fail "thread $t recorded $commits instructions, the tool counted $(tool_count $t)"
    eval "n$t=$commits"
    eval "c$t=$(json_number info.json cycles)"
done
run 0 "$TEA" info prog.tea
contains out.txt "program:      prog, 5 cores"
contains out.txt "prog.tea/thread-3.tea (thread 3): $n3 instructions, $c3 cycles"
contains out.txt "in all:       $((n1 + n2 + n3 + n4 + n5)) instructions, $((c1 + c2 + c3 + c4 + c5)) core-cycles"

# callgrind's count of each thread's function, inclusive (another run):
# the thread's count adds its start and end (a few hundred instructions),
# and the lock the threads meet on runs a few more or fewer in each run
if valgrind --tool=callgrind --callgrind-out-file=cg.out ./pthreads >/dev/null 2>&1 &&
    callgrind_annotate --inclusive=yes --threshold=100 cg.out >cg.txt 2>&1; then
    for pair in 2:compute 3:chase 4:branchy; do
        t=${pair%%:*}
        cg=$(grep ":${pair#*:} \[" cg.txt | sed 's/^ *\([0-9,]*\).*/\1/' | tr -d ,)
        [ -n "$cg" ] || fail "callgrind_annotate lists no ${pair#*:}"
        eval "mine=\$n$t"
        [ "$mine" -ge $((cg - 5000)) ] && [ "$mine" -le $((cg + 5000)) ] ||
            fail "thread $t: $mine instructions, callgrind counts ${pair#*:} $cg"
    done
else
    echo "callgrind did not run: no comparison with its counts"
fi

# the chase thread mostly waits for memory; the waiter runs a few cycles
"$TEA" topdown --format csv prog.tea/thread-3.tea >chase.csv || fail "tea topdown thread-3"
stalled=$(grep '^(all),states,stalled,,' chase.csv | cut -d, -f7)
[ "${stalled%%.*}" -ge 60 ] || fail "the chase thread is stalled $stalled % of its cycles, expected most"
mem=$(grep '^(all),states,stalled,"ST-L1,ST-TLB,ST-LLC",' chase.csv | cut -d, -f9)
[ "${mem%%.*}" -ge 50 ] || fail "the chase thread's LLC-miss stalls are $mem %, expected most"
[ $((c5 * 100)) -lt $((c1 + c2 + c3 + c4 + c5)) ] || fail "the waiter ran $c5 of the program's cycles"

# the program's replay: its golden PICS is the threads' summed
run 0 "$TEA" replay prog.tea --schemes golden,tea --period 10000 -o replay -q
contains out.txt "program: prog, 5 cores"
run 0 "$PICS" merge replay/cores/thread-*/golden.pics -o sum.pics
cmp -s sum.pics replay/golden.pics || fail "the program's golden PICS is not the sum of the threads'"
run 0 "$PICS" report replay --granularity func --top 1
contains out.txt "chase"

# sampled: each thread skips, warms and times windows on its own count;
# a thread that runs no whole window (the main one, the waiter) has no trace
EVERY=200000
run 0 "$TEA" record --thread all --sample-every $EVERY -o sampled.tea -- ./pthreads
contains err.txt "tea record: thread 1: timed nothing (it ran no whole window): no trace"
contains err.txt "tea record: thread 5: timed nothing (it ran no whole window): no trace"
[ "$(ls sampled.tea | tr '\n' ' ')" = "thread-2.tea thread-3.tea thread-4.tea " ] ||
    fail "sampled.tea holds $(ls sampled.tea | tr '\n' ' ')"
est_sum=0
for t in 2 3 4; do
    run 0 "$TEA" info sampled.tea/thread-$t.tea
    eval "n=\$n$t"
    contains out.txt "sampled:      $((n / EVERY)) windows of 10000 instructions, one every $EVERY"
    est=$(printf '%.0f' "$(sed -n 's/^estimate: *\([0-9.e+]*\) cycles.*/\1/p' out.txt)")
    est_sum=$((est_sum + est))
done
# the branchy thread's cycles per instruction, estimated from its windows
# (which stand for whole periods: the tail past the last one is not in the
# estimate), are its whole recording's within 3 %
run 0 "$TEA" info sampled.tea/thread-4.tea
est=$(printf '%.0f' "$(sed -n 's/^estimate: *\([0-9.e+]*\) cycles.*/\1/p' out.txt)")
est_n=$(printf '%.0f' "$(sed -n 's/^estimate: .* cycles for \([0-9.e+]*\) instructions.*/\1/p' out.txt)")
# est / est_n against c4 / n4, cross-multiplied (thousands of cycles x instructions fit in 63 bits)
lhs=$((est / 1000 * n4))
rhs=$((c4 / 1000 * est_n))
off=$((lhs > rhs ? lhs - rhs : rhs - lhs))
[ $((off / 3)) -le $((rhs / 100)) ] ||
    fail "thread 4's estimate $est cycles for $est_n instructions is not its whole recording's $c4 for $n4 within 3 %"
# the program's run is its threads' estimates summed (tea info, and the
# run_cycles of tea replay's summary.csv)
run 0 "$TEA" info sampled.tea
contains out.txt "the cores' estimates summed"
run 0 "$TEA" replay sampled.tea --schemes golden,tea -o sreplay -q
run_cycles=$(printf '%.0f' "$(grep '^sampled,tea,' sreplay/summary.csv | cut -d, -f19)")
off=$((run_cycles > est_sum ? run_cycles - est_sum : est_sum - run_cycles))
[ $((off * 1000)) -le "$est_sum" ] ||
    fail "the program's run_cycles $run_cycles is not its threads' estimates summed, $est_sum"

# a list, with --skip: only those threads, each skipping its own first
# instructions, then recorded whole (exact)
run 0 "$TEA" record -q --thread 1,3,4 --skip 10000 -o skipped.tea -- ./pthreads small
[ "$(ls skipped.tea | tr '\n' ' ')" = "thread-1.tea thread-3.tea thread-4.tea " ] ||
    fail "--thread 1,3,4 wrote $(ls skipped.tea | tr '\n' ' ')"
"$TEA" info --json skipped.tea/thread-1.tea >t1.json || fail "tea info skipped thread-1.tea"
for t in 1 3 4; do
    "$TEA" info --json skipped.tea/thread-$t.tea >info.json || fail "tea info skipped thread-$t.tea"
    [ "$(json_number info.json commits)" -eq $(($(tool_count $t) - 10000)) ] ||
        fail "thread $t recorded $(json_number info.json commits) after --skip 10000 of $(tool_count $t)"
done

# --max-instructions counts every thread's timed instructions: recording
# stops there, once (each thread's stream ends with one STOP), and the
# threads that timed something have their traces
run 0 "$TEA" record -q --thread all --sample-every 20000 --max-instructions 30000 -o maxed.tea -- ./pthreads small
[ -n "$(ls maxed.tea)" ] || fail "--max-instructions with --thread all wrote no trace"
total=0
for f in maxed.tea/thread-*.tea; do
    "$TEA" info --json "$f" >info.json || fail "tea info $f"
    total=$((total + $(json_number info.json commits)))
done
[ "$total" -eq 30000 ] || fail "--max-instructions 30000 with --thread all timed $total"

# --trace-children: a forked child's threads go to a directory of their own
run 0 "$TEA" record --thread all --trace-children -o parent.tea -- sh -c './pthreads small; true'
child=$(ls -d parent.*.tea) || fail "no child recording beside parent.tea"
[ "$(ls "$child" | tr '\n' ' ')" = "thread-1.tea thread-2.tea thread-3.tea thread-4.tea thread-5.tea " ] ||
    fail "the child's recording $child holds $(ls "$child" | tr '\n' ' ')"
contains err.txt "tea record: child "
run 0 "$TEA" info "$child"
contains out.txt ", 5 cores"

# a bad list (SimPoint's regions per thread: tests/e2e/simpoint_threads.sh)
run 2 "$TEA" record --thread 1,,2 -o s.tea -- ./pthreads small
contains err.txt "invalid thread list"
[ ! -e s.tea ] || fail "a refused recording left s.tea"

# one thread: --thread all gives the default's trace
build_record_prog
run 0 "$TEA" record -q -o one.tea --start-at region --stop-at stop_here -- ./prog plain o1.txt 1000
run 0 "$TEA" record -q --thread all -o all.tea --start-at region --stop-at stop_here -- ./prog plain o2.txt 1000
[ "$(ls all.tea)" = "thread-1.tea" ] || fail "--thread all of one thread wrote $(ls all.tea)"
for key in commits records cycles; do
    "$TEA" info --json one.tea >a.json && "$TEA" info --json all.tea/thread-1.tea >b.json || fail "tea info"
    [ "$(json_number a.json $key)" = "$(json_number b.json $key)" ] || fail "$key differs with --thread all"
done
run 0 "$TEA" replay one.tea --schemes golden -o r1 -q
run 0 "$TEA" replay all.tea/thread-1.tea --schemes golden -o r2 -q
grep -v '^[a-z]' r1/golden.pics >cells1.txt
grep -v '^[a-z]' r2/golden.pics >cells2.txt
[ -s cells1.txt ] && cmp -s cells1.txt cells2.txt || fail "the golden PICS differ with --thread all"

# ... and sampled: the same windows, cycles and estimate
if command -v gzip >/dev/null; then
    seq 1 3000 >text.txt
    run 0 "$TEA" record -q --sample-every 50000 -o gz.tea -- gzip -9 -c text.txt
    run 0 "$TEA" record -q --thread all --sample-every 50000 -o gzall.tea -- gzip -9 -c text.txt
    "$TEA" info gz.tea | grep -E '^(cycles|µops|sampled|estimate):' >a.txt || fail "tea info gz.tea"
    "$TEA" info gzall.tea/thread-1.tea | grep -E '^(cycles|µops|sampled|estimate):' >b.txt || fail "tea info gzall.tea"
    [ "$(wc -l <a.txt)" -eq 4 ] && cmp -s a.txt b.txt || { diff a.txt b.txt >&2; fail "--thread all sampled differs"; }
fi

echo "record_every_thread: OK"
