# tea record on a program of two threads whose worker does the work
# (tests/data/record_threads.c: the worker's loop is 2 LOOPS instructions,
# by hand). The tool counts every thread's instructions; tea record's
# summary names both threads with their counts and warns that the
# recorded main thread ran under half of the program's instructions,
# naming the worker and --thread 2; the trace keeps the counts, which tea
# info shows (text, --json and a warning). Exact invariants: recorded
# whole, a thread's count is its recorded instructions (the commits); the
# threads' counts add up to the program's; the worker's count less 2 LOOPS
# (starting and ending a thread) is the same for two LOOPS. A recording
# that records nothing names the threads that ran and --thread, and a
# --thread N that never ran says so. A program of one thread prints and
# keeps no thread counts. Skipped (77) where valgrind or tea's Valgrind
# tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
cc -O1 -no-pie -pthread -o threads "$DATA/record_threads.c" || fail "cannot build record_threads"

LOOPS=1000000

commits() {
    "$TEA" info --json "$1" >info.json || fail "tea info $1"
    json_number info.json commits
}

# thread_counts INFO.json: "ID INSTRUCTIONS" lines of the run's threads
thread_counts() {
    awk '/"threads": \[/ { on = 1; next }
         on && /^ *\]/ { on = 0 }
         on && /"id":/ { gsub(/[^0-9]/, ""); id = $0 }
         on && /"instructions":/ { gsub(/[^0-9]/, ""); print id, $0 }' "$1"
}

# --- the main thread recorded: the summary names both threads and warns ----
run 0 "$TEA" record -o main.tea -- ./threads worker $LOOPS
summary=$(grep '^tea record: main.tea: ' err.txt) || { cat err.txt >&2; fail "no summary line"; }
# "threads ran: 1 (recorded) N1, 2 N2 instructions"
set -- $(echo "$summary" | sed -n 's/.*; threads ran: 1 (recorded) \([0-9]*\), 2 \([0-9]*\) instructions; .*/\1 \2/p')
[ $# -eq 2 ] || fail "the summary does not name threads 1 (recorded) and 2 with their counts: $summary"
n1=$1
n2=$2
[ "$(commits main.tea)" -eq "$n1" ] ||
    fail "thread 1's count $n1 is not its recorded instructions $(commits main.tea) (recorded whole)"
[ "$n2" -ge $((2 * LOOPS)) ] || fail "the worker's count $n2 is below its loop's $((2 * LOOPS)) instructions"
[ "$n1" -lt "$n2" ] || fail "the main thread ($n1) ran more than the worker ($n2)"
all=$((n1 + n2))
grep -q "^tea record: warning: thread 1 (recorded) ran [0-9.e+-]* % of the program's $all instructions; thread 2 ran [0-9.e+-]* %: --thread 2 records it\$" err.txt ||
    { cat err.txt >&2; fail "no warning that thread 2 ran most, naming --thread 2"; }
[ "$(grep -c warning err.txt)" -eq 1 ] || fail "more than one warning"
# the trace keeps the counts: tea info's text, JSON and warning
run 0 "$TEA" info main.tea
contains out.txt "thread:       1 recorded (2 threads in the program)"
contains out.txt "threads ran:  2, $all instructions in all"
grep -q "^  1 (recorded): $n1 instructions (" out.txt || fail "tea info does not list thread 1 (recorded): $n1"
grep -q "^  2: $n2 instructions (" out.txt || fail "tea info does not list thread 2: $n2"
contains out.txt "warning:      the recorded thread 1 ran"
contains out.txt "(tea record --thread 2 records it)"
"$TEA" info --json main.tea >main.json || fail "tea info --json main.tea"
[ "$(thread_counts main.json | tr '\n' ' ')" = "1 $n1 2 $n2 " ] ||
    fail "tea info --json lists threads '$(thread_counts main.json | tr '\n' ' ')', expected '1 $n1 2 $n2 '"

# --- the worker recorded: its count is what was recorded; no warning ------
run 0 "$TEA" record -o worker.tea --thread 2 -- ./threads worker $LOOPS
contains err.txt "; threads ran: 1 "
contains err.txt ", 2 (recorded) "
! grep -q warning err.txt || fail "recording the thread that ran most warns: $(cat err.txt)"
"$TEA" info --json worker.tea >worker.json || fail "tea info --json worker.tea"
w2=$(thread_counts worker.json | awk '$1 == 2 { print $2 }')
[ "$(commits worker.tea)" -eq "$w2" ] ||
    fail "thread 2's count $w2 is not its recorded instructions $(commits worker.tea) (recorded whole)"
# starting and ending the worker costs the same for half the loops
run 0 "$TEA" record -q -o half.tea --thread 2 -- ./threads worker $((LOOPS / 2))
[ "$(commits half.tea)" -eq $((w2 - LOOPS)) ] ||
    fail "with $((LOOPS / 2)) loops thread 2 recorded $(commits half.tea), expected $w2 - 2 * $((LOOPS / 2))"

# --- nothing recorded: the threads and --thread are named -----------------
# --sample-every 10^6: the main thread runs fewer (no window), the worker more
run 1 "$TEA" record -o none.tea --sample-every 1000000 -- ./threads worker $LOOPS
contains err.txt "no instruction was recorded"
grep -q "threads that ran: 1 (recorded) [0-9]*, 2 [0-9]* instructions; --thread 2 records thread 2, which ran most" err.txt ||
    { cat err.txt >&2; fail "the error does not name the threads and --thread 2"; }
[ ! -e none.tea ] || fail "a trace was written though nothing was recorded"
# a thread that never ran
run 1 "$TEA" record -q -o nine.tea --thread 9 -- ./threads worker $LOOPS
contains err.txt "no instruction was recorded"
contains err.txt "thread 9 never ran (threads that ran: 1 "
contains err.txt "--thread 2 records thread 2, which ran most)"

# --- one thread: no thread counts printed or kept -------------------------
run 0 "$TEA" record -o alone.tea -- ./threads alone $LOOPS
! grep -q "threads ran" err.txt || fail "a program of one thread lists its threads: $(cat err.txt)"
! grep -q warning err.txt || fail "a program of one thread warns: $(cat err.txt)"
run 0 "$TEA" info alone.tea
! grep -q "threads ran" out.txt || fail "tea info lists the threads of a program of one thread"
"$TEA" info --json alone.tea >alone.json || fail "tea info --json alone.tea"
grep -q '^    "threads": null,$' alone.json || fail "tea info --json: the run of a program of one thread has threads"

echo "record_threads: ok"
