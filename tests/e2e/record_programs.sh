# tea record on programs as they are launched: a wrapper script that execs
# an #!/usr/bin/env script of a program built here (exec is followed: the
# trace is that program's), forked children (--trace-children never blocks:
# a shell's child that execs twice, 20 children, an exec in the root), and
# SIGINT/SIGTERM in the middle of a recording (the trace is kept, complete
# and marked). Every run uses a temporary directory of its own, which must be
# empty afterwards, and no Valgrind process may be left. Skipped (77) where
# valgrind or tea's Valgrind tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec

mkdir tmp
export TMPDIR=$SCRATCH/tmp

# no_leftovers WHAT: nothing in the temporary directory, no Valgrind
# process of this test's scratch directory
no_leftovers() {
    [ -z "$(ls -A tmp)" ] || fail "$1: left in the temporary directory: $(ls -A tmp)"
    if pgrep -f -- "--tool=tearec.*$SCRATCH" >/dev/null; then
        ps -o pid,stat,args -p "$(pgrep -d, -f -- "--tool=tearec.*$SCRATCH")" >&2
        fail "$1: a Valgrind process is left"
    fi
}

# A program with one hot function, in PATH as `hotprog`.
mkdir bin
cat >hot.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static unsigned long spin_hot(unsigned long n)
{
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++)
        x = x * 2654435761u + i;
    return x;
}
__attribute__((noinline)) void never_called(void)
{
    puts("never");
}
int main(int argc, char **argv)
{
    if (argc > 5)
        never_called();
    printf("%s %lu\n", argc > 1 ? argv[1] : "-", spin_hot(300000) & 1);
    return 0;
}
EOF
cc -O1 -g -o bin/hotprog hot.c || fail "cannot build hotprog"
PATH=$SCRATCH/bin:$PATH

# --- a wrapper chain: sh execs a script that /usr/bin/env runs with hotprog --
printf '#!/usr/bin/env hotprog\n' >bin/script.hot
printf '#!/bin/sh\nexec %s/bin/script.hot "$@"\n' "$SCRATCH" >wrap.sh
chmod +x bin/script.hot wrap.sh
run 0 timeout 120 "$TEA" record -o chain.tea -- ./wrap.sh
contains out.txt "script.hot"
contains err.txt "exec'd"
run 0 "$TEA" info chain.tea
grep -q "^binary: *$SCRATCH/bin/hotprog\$" out.txt || fail "the trace does not name hotprog: $(grep binary: out.txt)"
# the chain: the wrapper, the script env ran, then hotprog
contains out.txt "programs:     $SCRATCH/wrap.sh ("
contains out.txt "-> $SCRATCH/bin/script.hot ("
contains out.txt "exit status:  0"
run 0 "$TEA" info --json chain.tea
contains out.txt '"programs_before": ['
run 0 "$TEA" replay chain.tea --schemes golden -o chain
run 0 "$PICS" report chain/golden.pics --granularity func --top 1
contains out.txt "spin_hot"
no_leftovers "the wrapper chain"

# --- --trace-children ----------------------------------------------------------
# a child that execs env, which execs true; then the shell goes on
run 0 timeout 60 "$TEA" record -o sh1.tea --trace-children -- sh -c '/usr/bin/env true; echo done'
contains out.txt done
set -- sh1.*.tea
[ $# -eq 1 ] && [ -s "$1" ] || fail "sh -c '/usr/bin/env true; echo done': expected one child trace, found: $*"
run 0 "$TEA" info "$1"
grep -q "^binary: */usr/bin/true\$" out.txt || fail "the child's trace does not name true"
contains out.txt "/usr/bin/env ("
no_leftovers "a child that execs twice"

# an exec in the root: its trace is true's alone, no child trace
run 0 timeout 60 "$TEA" record -o sh2.tea --trace-children -- sh -c 'exec /usr/bin/env true'
[ "$(ls sh2.*.tea 2>/dev/null | wc -l)" -eq 0 ] || fail "exec in the root made child traces: $(ls sh2.*.tea)"
run 0 "$TEA" info --json sh2.tea
contains out.txt '"binary_path": "/usr/bin/true"'
no_leftovers "an exec in the root"

# 20 children, each execs env, which execs true
cat >forker.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void)
{
    for (int i = 0; i < 20; i++)
        if (fork() == 0) {
            execl("/usr/bin/env", "env", "true", (char *)0);
            _exit(127);
        }
    while (wait(0) > 0)
        ;
    puts("forked");
    return 0;
}
EOF
cc -O1 -o forker forker.c || fail "cannot build forker"
run 0 timeout 300 "$TEA" record -q -o kids.tea --trace-children -- ./forker
contains out.txt forked
[ "$(ls kids.*.tea | wc -l)" -eq 20 ] || fail "20 children: $(ls kids.*.tea | wc -l) traces"
for t in kids.tea kids.*.tea; do
    "$TEA" info --json "$t" >info.json || fail "tea info $t"
    # objects do not overlap: sorted by start, each ends before the next starts
    python3 - info.json <<'EOF' || fail "$t: objects overlap"
import json, sys
objs = sorted((o["start"], o["end"], o["path"]) for o in json.load(open(sys.argv[1]))["objects"])
for a, b in zip(objs, objs[1:]):
    if a[1] > b[0]:
        sys.exit("%s and %s overlap" % (a[2], b[2]))
EOF
done
no_leftovers "20 children"

# --- interrupts ----------------------------------------------------------------
# A background job of a shell without job control ignores SIGINT, and so
# does tea record then (as every command): `env --default-signal` restores it.
# interrupt SIGNAL NAME: interrupts a long recording after its first records
interrupt() {
    env --default-signal=INT "$TEA" record -q -o "$2.tea" -- hotprog-long "$SCRATCH" 2>"$2.err" &
    pid=$!
    # wait for the program's first records (the writer's temporary file)
    for _ in $(seq 100); do
        [ -n "$(ls -A . | grep "^\.$2.tea.tmp")" ] && break
        sleep 0.1
    done
    sleep 1
    kill "-$1" $pid
    wait $pid
    echo $?
}
cat >long.c <<'EOF'
int main(void)
{
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 4000000000ul; i++)
        x += i;
    return 0;
}
EOF
cc -O1 -o bin/hotprog-long long.c || fail "cannot build hotprog-long"
status=$(interrupt INT int)
[ "$status" -eq 130 ] || { cat int.err >&2; fail "SIGINT: exit status $status, expected 130"; }
contains int.err "interrupted (SIGINT)"
run 0 "$TEA" info int.tea
contains out.txt "interrupted by SIGINT"
run 0 "$TEA" replay int.tea -o int -q
[ -s int/golden.pics ] || fail "no golden PICS of the interrupted trace"
no_leftovers "SIGINT"
status=$(interrupt TERM term)
[ "$status" -eq 143 ] || { cat term.err >&2; fail "SIGTERM: exit status $status, expected 143"; }
run 0 "$TEA" info --json term.tea
contains out.txt '"interrupted": "SIGTERM"'
no_leftovers "SIGTERM"

# a second signal aborts at once and removes the trace: SIGINT and SIGTERM
# sent while tea record is stopped reach it one after the other (two SIGINTs
# would merge into one)
env --default-signal=INT "$TEA" record -q -o twice.tea -- hotprog-long "$SCRATCH" 2>twice.err &
pid=$!
for _ in $(seq 100); do
    [ -n "$(ls -A . | grep '^\.twice.tea.tmp')" ] && break
    sleep 0.1
done
kill -STOP $pid
kill -INT $pid
kill -TERM $pid
kill -CONT $pid
wait $pid
status=$?
[ "$status" -eq 143 ] || fail "SIGINT then SIGTERM: exit status $status, expected 143 (the second signal's)"
[ -z "$(ls -A . | grep 'twice.tea')" ] || fail "two signals left $(ls -A . | grep 'twice.tea')"
sleep 0.5
no_leftovers "two signals"

# --kill-after: the program is killed once the region ends; no gdbserver
# FIFO (vgdb-pipe-*) or anything else is left in the temporary directory
run 0 timeout 60 "$TEA" record -q -o kill.tea --max-instructions 1000 --kill-after -- hotprog-long "$SCRATCH"
no_leftovers "--kill-after"

# --- messages --------------------------------------------------------------------
# a program that exits non-zero: said, exit status 3, the trace is written
run 3 timeout 60 "$TEA" record -o false.tea -- sh -c 'exit 7'
contains err.txt "exited with status 7"
run 0 "$TEA" info false.tea
contains out.txt "exit status:  7"
# --start-at naming no function in any object, with a close name
run 1 timeout 60 "$TEA" record -q -o none.tea --start-at spin_hoot -- hotprog
contains err.txt "--start-at spin_hoot: no function of that name"
contains err.txt "spin_hot"
# --start-at naming a function that never runs
run 1 timeout 60 "$TEA" record -q -o never.tea --start-at never_called -- hotprog
contains err.txt "--start-at never_called: the function (in $SCRATCH/bin/hotprog) was never reached"
no_leftovers "messages"
echo ok
