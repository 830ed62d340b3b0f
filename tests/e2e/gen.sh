# tea gen: every workload in both formats, determinism, the size target of the
# native format, and the 44-bit TraceDoctor counter wrapping.
. "$(dirname "$0")/lib.bash"

run 0 "$TEA" gen --list
for w in mixed memory branchy frontend flushes compute; do
    contains out.txt "$w"
done

for w in mixed memory branchy frontend flushes compute; do
    run 0 "$TEA" gen --workload $w --cycles 1000000 --seed 3 -o $w.tea
    run 0 "$TEA" gen --workload $w --cycles 1000000 --seed 3 --format tracedoctor --level 3 -o $w.td.zst
    run 0 "$TEA" info --json $w.tea
    cp out.txt $w.native.json
    run 0 "$TEA" info --json $w.td.zst
    cp out.txt $w.td.json
    same_figures $w.native.json $w.td.json
    span=$(json_number $w.native.json cycles)
    [ "$span" -ge 999000 ] && [ "$span" -le 1000100 ] || fail "$w: span $span is not about 1e6 cycles"
    # compact: the native trace is at most a quarter of zstd-compressed tokens
    native=$(file_size $w.tea)
    td=$(file_size $w.td.zst)
    [ $((native * 4)) -le "$td" ] || fail "$w: native $native bytes vs tracedoctor $td bytes"
done

# the same seed gives the same bytes, another seed other bytes
run 0 "$TEA" gen --cycles 200000 --seed 5 -o again.tea
cp again.tea first.tea
run 0 "$TEA" gen --cycles 200000 --seed 5 -o again.tea
cmp -s first.tea again.tea || fail "same seed, different output"
run 0 "$TEA" gen --cycles 200000 --seed 6 -o again.tea
cmp -s first.tea again.tea && fail "different seeds, same output"

# a trace that starts just before the 44-bit counter wraps
run 0 "$TEA" gen --cycles 100000 --first-cycle 17592186000000 --format tracedoctor -o wrap.td.zst
run 0 "$TEA" info wrap.td.zst
contains out.txt "wrapped 1 time(s)"
run 0 "$TEA" info --json wrap.td.zst
[ "$(json_number out.txt counter_wraps)" = 1 ] || fail "counter_wraps is not 1"
[ "$(json_number out.txt first_cycle)" = 17592186000000 ] || fail "first cycle lost"
run 0 "$TEA" convert wrap.td.zst -o wrap.tea
run 0 "$TEA" info wrap.tea
contains out.txt "wrapped 1 time(s)"

run 2 "$TEA" gen --workload nope -o x.tea
contains err.txt "unknown workload 'nope'"
run 2 "$TEA" gen --cycles -5 -o x.tea
echo ok
