# Output paths: -o never replaces what is not a regular file (a FIFO or
# /dev/null is written in place, a symbolic link is followed and kept, a
# directory or an empty path is refused with exit 2); a failed write to
# standard output fails the command; SIGINT and SIGTERM leave no temporary
# file and end with 130 and 143.
. "$(dirname "$0")/lib.bash"

run 0 "$TEA" gen --workload mixed --cycles 20000 -o t.tea

# /dev/null stays a character device (if it is one to begin with: an older
# build of these tools, run as root, replaced it with a regular file)
if [ -c /dev/null ]; then
    run 0 "$TEA" convert t.tea -o /dev/null
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
fi

# a FIFO is written in place; its reader gets the whole trace
mkfifo pipe.tea
cat pipe.tea >from-pipe.tea &
reader=$!
run 0 "$TEA" convert t.tea -o pipe.tea
wait $reader
[ -p pipe.tea ] || fail "the FIFO was replaced"
cmp -s t.tea from-pipe.tea || fail "the FIFO's reader did not get the trace"

# a symbolic link is followed: the file it names is written, the link stays
run 0 "$TEA" gen --workload memory --cycles 20000 -o other.tea
ln -s other.tea link.tea
run 0 "$TEA" convert t.tea -o link.tea
[ -L link.tea ] || fail "the symbolic link was replaced"
cmp -s t.tea other.tea || fail "the link's target was not written"

# what cannot be an output is refused as a usage error, before the work
# (a 10^10-cycle generation would take minutes)
mkdir early.tea
run 2 timeout 20 "$TEA" gen --workload mixed --cycles 1e10 -o early.tea
contains err.txt "early.tea: is a directory"
mkdir dir.tea
run 2 "$TEA" convert t.tea -o dir.tea
contains err.txt "dir.tea: is a directory"
run 2 "$TEA" convert t.tea -o ''
contains err.txt "an empty output path"
ln -s missing/x.tea dangling.tea
run 2 "$TEA" convert t.tea -o dangling.tea
contains err.txt "a symbolic link to nothing that can be written"

# tea replay -o DIR appears as a set: a new run's files replace the previous
# run's (stale ones removed); other files in DIR stay; no temporary directory
# is left; a DIR that is a file, or empty, is refused before the work
run 0 "$TEA" replay t.tea --freq 4k,1M -o set/r
[ -f set/r/tea-4000hz.pics ] || fail "first replay's files missing"
run 0 "$TEA" replay t.tea --freq 2k -o set/r
[ -f set/r/tea.pics ] && [ ! -e set/r/tea-4000hz.pics ] || { ls set/r >&2; fail "files of two runs mixed"; }
touch set/r/notes.txt
run 0 "$TEA" replay t.tea --freq 8k -o set/r
[ -f set/r/notes.txt ] || fail "a file that is not a replay output was removed"
if ls -a set | grep -q tmp; then ls -a set >&2; fail "a temporary directory was left"; fi
run 2 "$TEA" replay t.tea -o t.tea
contains err.txt "t.tea: exists and is not a directory"
run 2 "$TEA" replay t.tea -o ''
contains err.txt "an empty output directory"

# standard output that cannot be written fails the command
if [ -w /dev/full ]; then
    for cmd in "$TEA info t.tea" "$TEA info --json t.tea" "$TEA gen --list" "$TEA --help" "$PICS --help"; do
        run 1 sh -c "$cmd >/dev/full"
        contains err.txt "standard output: write failed"
    done
    run 0 "$TEA" replay t.tea --schemes golden,tea -o r
    run 1 sh -c "\"$PICS\" error r/tea.pics r/golden.pics >/dev/full"
    run 1 sh -c "\"$PICS\" error --json r/tea.pics r/golden.pics >/dev/full"
    run 1 sh -c "\"$TEA\" replay t.tea --schemes golden,tea -o r2 >/dev/full"
fi

# interrupted: no temporary file left, exit 128 + the signal (job control on
# so that the background job does not ignore SIGINT)
for sig in TERM INT; do
    set -m
    "$TEA" gen --workload mixed --cycles 1e10 -o big-$sig.tea 2>/dev/null &
    pid=$!
    set +m
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        ls -a | grep -q "^\.big-$sig\.tea\.tmp\." && break
        sleep 0.5
    done
    kill -$sig $pid
    wait $pid
    status=$?
    want=$([ $sig = INT ] && echo 130 || echo 143)
    [ "$status" = "$want" ] || fail "SIG$sig: exit $status, expected $want"
    if ls -a | grep -q "\.tmp\."; then ls -a >&2; fail "SIG$sig left a temporary file"; fi
    [ ! -e big-$sig.tea ] || fail "SIG$sig left an output"
done
echo ok
