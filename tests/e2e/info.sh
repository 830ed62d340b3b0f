# tea info: the reference scenario in text and JSON, stdin, help and usage errors.
. "$(dirname "$0")/lib.bash"

run 0 "$TEA" info "$DATA/scenario.bin"
contains out.txt "format:       tracedoctor (raw, 20 tokens"
contains out.txt "cycles:       1000 .. 1050 (span 50)"
contains out.txt "states:       compute 7 (14.0%), stalled 25 (50.0%), drained 1 (2.0%), flushed 17 (34.0%)"
contains out.txt "ST-L1 2, ST-TLB 1, ST-LLC 2, DR-L1 1, DR-TLB 0, DR-SQ 1, FL-MB 1, FL-EX 2, FL-MO 0"

run 0 "$TEA" info --json "$DATA/scenario.bin"
cp out.txt scenario.json
contains scenario.json '"format": "tracedoctor"'
[ "$(json_number scenario.json cycles)" = 50 ] || fail "cycles is not 50"
[ "$(json_number scenario.json commits)" = 14 ] || fail "commits is not 14"
[ "$(json_number scenario.json compute)" = 7 ] || fail "compute is not 7"
[ "$(json_number scenario.json flushed)" = 17 ] || fail "flushed is not 17"
[ "$(json_number scenario.json FL-EX)" = 2 ] || fail "FL-EX is not 2"
# the four states sum to the span
sum=0
for s in compute stalled drained flushed; do sum=$((sum + $(json_number scenario.json $s))); done
[ "$sum" = 50 ] || fail "states sum to $sum, not 50"

# standard input, compressed
zstd -q -c "$DATA/scenario.bin" >scenario.zst
run 0 sh -c "\"$TEA\" info --json - <scenario.zst"
contains out.txt '"compressed": true'
[ "$(json_number out.txt cycles)" = 50 ] || fail "stdin: cycles is not 50"

# a tighter LLC threshold turns the 40-cycle load into an L1-only miss
run 0 "$TEA" info --json --llc-latency 41 "$DATA/scenario.bin"
[ "$(json_number out.txt ST-LLC)" = 1 ] || fail "--llc-latency 41 should leave one ST-LLC"

run 0 "$TEA" --help
contains out.txt "Usage: tea COMMAND"
for cmd in info convert gen; do
    run 0 "$TEA" $cmd --help
    contains out.txt "Usage: tea $cmd"
done
run 2 "$TEA" info
contains err.txt "missing TRACE"
run 2 "$TEA" info --bogus "$DATA/scenario.bin"
contains err.txt "Try 'tea info --help'"
run 2 "$TEA" frobnicate
run 2 "$TEA" info --rob-size 0 "$DATA/scenario.bin"
run 1 "$TEA" info does-not-exist.tea
contains err.txt "does-not-exist.tea: cannot open"
# a text file (a README, longer and shorter than a token) is "not a trace",
# not a TraceDoctor trace of the wrong length
printf '# A project\n\nSome text that is longer than one 64-byte token, as READMEs are.\n' >README.md
printf 'short\n' >short.txt
for f in README.md short.txt; do
    run 1 "$TEA" info $f
    contains err.txt "$f: not a trace (format detection failed)"
    grep -q "multiple of 64" err.txt && fail "$f: the message is about token length"
done
# with a zero byte in its first 64 it may be raw tokens: the length message
head -c 100 /dev/zero >zeros.bin
run 1 "$TEA" info zeros.bin
contains err.txt "not a multiple of 64 bytes: 36 stray bytes after token 1"
echo ok
