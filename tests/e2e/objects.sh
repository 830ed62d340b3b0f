# The executable objects and recorded thread a native trace carries: tea
# info lists them (text and JSON, file and stdin), tea convert keeps them,
# tea replay copies them into every PICS (any --threads), pics export,
# pics report and pics merge carry them; traces and PICS without them are
# unchanged.
. "$(dirname "$0")/lib.bash"
FIXTURE="$BIN/../tests/objects_fixture"

run 0 "$TEA" gen --workload mixed --cycles 30000 -o gen.tea
# data frames of 2000 records, as objects_fixture writes them
run 0 "$TEA" convert gen.tea --frame-records 2000 -o plain.tea
# two objects (a path with a space, a libc without build-id), thread 4242 of 3
run 0 "$FIXTURE" plain.tea obj.tea 4242 3 \
    0x555555554000 0x555555556000 0x555555554000 1a2b3c4d "/usr/bin/my prog" \
    0x7ffff7dc0000 0x7ffff7f50000 0x7ffff7d9a000 - /lib/x86_64-linux-gnu/libc.so.6
# no objects and no thread: the file is byte for byte the plain one
run 0 "$FIXTURE" plain.tea none.tea 0 0
cmp -s plain.tea none.tea || fail "a trace without objects changed"

run 0 "$TEA" info plain.tea
if grep -q "^objects:\|^thread:" out.txt; then fail "a plain trace shows objects"; fi
run 0 "$TEA" info --json plain.tea
contains out.txt '"thread": null'
contains out.txt '"objects": []'

for input in obj.tea -; do
    if [ "$input" = - ]; then run 0 "$TEA" info - <obj.tea; else run 0 "$TEA" info obj.tea; fi
    contains out.txt "thread:       4242 recorded (3 threads in the program)"
    contains out.txt "objects:      2 executable objects"
    contains out.txt "  0x555555554000-0x555555556000 bias 0x555555554000 build-id 1a2b3c4d /usr/bin/my prog"
    contains out.txt "  0x7ffff7dc0000-0x7ffff7f50000 bias 0x7ffff7d9a000 build-id - /lib/x86_64-linux-gnu/libc.so.6"
done
run 0 "$TEA" info --json obj.tea
contains out.txt '"id": 4242'
contains out.txt '"threads": 3'
contains out.txt '"path": "/usr/bin/my prog"'
contains out.txt '"build_id": "1a2b3c4d"'
contains out.txt '"load_bias": 140737351622656'
# 0x7ffff7dc0000 and 0x7ffff7f50000
contains out.txt '"start": 140737351778304'
contains out.txt '"end": 140737353416704'

# the records are the plain trace's: same figures past the objects
run 0 "$TEA" info plain.tea
grep -v "^file:\|^format:" out.txt >plain-info.txt
run 0 "$TEA" info obj.tea
grep -v "^file:\|^format:\|^thread:\|^objects:\|^  0x" out.txt >obj-info.txt
cmp -s plain-info.txt obj-info.txt || fail "the objects changed what tea info says of the records"

# tea convert: native to native keeps them (also from a pipe); TraceDoctor
# tokens carry none
run 0 "$TEA" convert obj.tea -o conv.tea
run 0 "$TEA" info conv.tea
contains out.txt "thread:       4242 recorded (3 threads in the program)"
contains out.txt "/lib/x86_64-linux-gnu/libc.so.6"
run 0 "$TEA" convert - -o piped.tea <obj.tea
cmp -s conv.tea piped.tea || fail "converting from a pipe differs from converting the file"
run 0 "$TEA" convert obj.tea --to tracedoctor -o obj.td.zst
contains err.txt "TraceDoctor tokens have no place for the trace's 2 executable objects and recorded thread"
run 0 "$TEA" convert plain.tea --to tracedoctor -o plain.td.zst
[ ! -s err.txt ] || fail "a plain conversion to TraceDoctor printed a note"
run 0 "$TEA" info obj.td.zst
if grep -q "^objects:" out.txt; then fail "a TraceDoctor trace shows objects"; fi

# tea replay: every PICS carries the objects and the thread, whatever the
# number of threads and from a pipe; a plain trace's PICS stay format 1.0
for threads in 1 2; do
    run 0 "$TEA" replay obj.tea --threads $threads --period 200 -o "r$threads"
    for f in "r$threads"/*.pics; do
        head -n 1 "$f" | grep -qx "tea-pics 1.1" || fail "$f is not format 1.1"
        contains "$f" "trace.thread 4242 3"
        contains "$f" "trace.objects 2"
        contains "$f" "trace.object 0x555555554000 0x555555556000 0x555555554000 1a2b3c4d /usr/bin/my prog"
        contains "$f" "trace.object 0x7ffff7dc0000 0x7ffff7f50000 0x7ffff7d9a000 - /lib/x86_64-linux-gnu/libc.so.6"
    done
done
run 0 "$TEA" replay - --period 200 -o rpipe <obj.tea
for f in r1/*.pics; do
    cmp -s "$f" "r2/${f#r1/}" || fail "$f differs between --threads 1 and 2"
    cmp -s "$f" "rpipe/${f#r1/}" || fail "$f differs between a file and a pipe"
done
run 0 "$TEA" replay plain.tea --period 200 -o r0
head -n 1 r0/golden.pics | grep -qx "tea-pics 1.0" || fail "a plain trace's PICS is not format 1.0"
if grep -q "^trace.object" r0/golden.pics; then fail "a plain trace's PICS lists objects"; fi
# the cells are the same with and without objects
diff <(sed -n '/^cells /,$p' r0/tea.pics) <(sed -n '/^cells /,$p' r1/tea.pics) >/dev/null \
    || fail "the objects changed the cells"

# pics export and pics report show them
run 0 "$PICS" export --format json r1/tea.pics
contains out.txt '"path": "/usr/bin/my prog"'
contains out.txt '"id": 4242'
# ... and pprof's profile names them as mappings (path and build-id; e2e.pprof
# reads profiles with pprof itself): gzip, whole
run 0 "$PICS" export --format pprof r1/golden.pics -o objects.pb.gz
gzip -t objects.pb.gz || fail "the pprof export is no whole gzip file"
gzip -dc objects.pb.gz >objects.pb
grep -q "/usr/bin/my prog" objects.pb && grep -q 1a2b3c4d objects.pb || fail "the pprof export lacks the object"
run 0 "$PICS" export --format speedscope r1/golden.pics -o objects.json
contains objects.json '"type": "sampled"'
run 0 "$PICS" report r1/golden.pics
contains out.txt "# thread 4242 recorded (3 in the program)"
contains out.txt "# object /usr/bin/my prog: 0x555555554000-0x555555556000, load bias 0x555555554000, build-id 1a2b3c4d"
contains out.txt "# object /lib/x86_64-linux-gnu/libc.so.6: 0x7ffff7dc0000-0x7ffff7f50000, load bias 0x7ffff7d9a000, build-id none"

# pics merge: the same list stays; lists of one address space (no object
# where the other has another: a process's threads) give their union; a
# list against none, or lists that disagree, are dropped (one list cannot
# describe the address spaces of different runs)
run 0 "$PICS" merge r1/golden.pics r2/golden.pics -o same.pics
contains same.pics "trace.objects 2"
contains same.pics "trace.thread 4242 3"
run 0 "$PICS" merge r1/golden.pics r0/golden.pics -o mixed.pics
if grep -q "^trace.object\|^trace.thread" mixed.pics; then fail "merging a list with none kept one"; fi
run 0 "$FIXTURE" plain.tea other.tea 4243 3 0x1000 0x2000 0 - /bin/other
run 0 "$TEA" replay other.tea --period 200 -o rother
run 0 "$PICS" merge r1/golden.pics rother/golden.pics -o other.pics
contains other.pics "trace.objects 3"
contains other.pics "/bin/other"
if grep -q "^trace.thread" other.pics; then fail "two threads merged kept one thread"; fi
run 0 "$FIXTURE" plain.tea clash.tea 4242 3 0x555555554000 0x555555556000 0 - /bin/clash
run 0 "$TEA" replay clash.tea --period 200 -o rclash
run 0 "$PICS" merge r1/golden.pics rclash/golden.pics -o clash.pics
if grep -q "^trace.object" clash.pics; then fail "merging lists that disagree kept one"; fi

# PICS files with damaged object lines are refused with the line
sed 's/^trace.objects 2$/trace.objects 3/' r1/golden.pics >count.pics
run 1 "$PICS" export count.pics
contains err.txt "trace.objects says 3, 2 trace.object lines"
sed 's/^trace.object 0x555555554000 0x555555556000/trace.object 0x555555556000 0x555555554000/' r1/golden.pics >range.pics
run 1 "$PICS" export range.pics
contains err.txt "range.pics: line 12: malformed object"
sed 's/ 1a2b3c4d / 1a2b3c4 /' r1/golden.pics >hex.pics
run 1 "$PICS" export hex.pics
contains err.txt "hex.pics: line 12: malformed object"
echo ok
