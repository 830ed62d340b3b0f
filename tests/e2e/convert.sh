# tea convert: TraceDoctor -> native -> TraceDoctor keeps every figure; the
# raw tokens come back bit for bit where nothing else can differ.
. "$(dirname "$0")/lib.bash"

run 0 "$TEA" convert "$DATA/scenario.bin" -o scenario.tea
run 0 "$TEA" convert scenario.tea --to tracedoctor -o back.td.zst
run 0 "$TEA" convert back.td.zst --to tracedoctor --raw -o back.bin
for f in "$DATA/scenario.bin" scenario.tea back.td.zst back.bin; do
    run 0 "$TEA" info --json "$f"
    cp out.txt "$(basename "$f").json"
done
same_figures scenario.bin.json scenario.tea.json
same_figures scenario.bin.json back.td.zst.json
same_figures scenario.bin.json back.bin.json
contains scenario.tea.json '"format": "native"'
contains back.bin.json '"tokens": 20'
# the native trace is a valid zstd stream
zstd -q -t scenario.tea || fail "zstd -t rejects the native trace"

# a generated trace: native -> TraceDoctor -> native, several frames
run 0 "$TEA" gen --workload flushes --cycles 300000 -o flushes.tea
run 0 "$TEA" convert flushes.tea --to tracedoctor -o flushes.td.zst
run 0 "$TEA" convert flushes.td.zst --frame-records 20000 -o flushes2.tea
for f in flushes.tea flushes.td.zst flushes2.tea; do
    run 0 "$TEA" info --json "$f"
    cp out.txt "$f.json"
done
same_figures flushes.tea.json flushes.td.zst.json
same_figures flushes.tea.json flushes2.tea.json
[ "$(json_number flushes2.tea.json frames)" -gt 1 ] || fail "expected several frames"

run 2 "$TEA" convert "$DATA/scenario.bin"
contains err.txt "missing -o OUT"
run 2 "$TEA" convert "$DATA/scenario.bin" --to xml -o x
echo ok
