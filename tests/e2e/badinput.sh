# Bad input: truncated and corrupted traces in both formats, empty files,
# stray bytes. Each fails with exit 1, a message that names the problem and
# where it is, and leaves no output file behind.
. "$(dirname "$0")/lib.bash"

run 0 "$TEA" gen --cycles 300000 -o good.tea
run 0 "$TEA" gen --cycles 300000 --format tracedoctor -o good.td.zst
size=$(file_size good.tea)

head -c $((size - 3)) good.tea >short.tea
run 1 "$TEA" info short.tea
contains err.txt "short.tea: truncated zstd frame starting at byte"

tdsize=$(file_size good.td.zst)
head -c $((tdsize - 5)) good.td.zst >short.td.zst
run 1 "$TEA" info short.td.zst
contains err.txt "short.td.zst: truncated zstd frame starting at byte 0"

head -c 1277 "$DATA/scenario.bin" >short.bin
run 1 "$TEA" info short.bin
contains err.txt "not a multiple of 64 bytes: 61 stray bytes after token 19 (byte 1216)"

# flipped bytes inside a compressed data frame
cp good.tea flipped.tea
printf '\377\377\377\377' | dd of=flipped.tea bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
run 1 "$TEA" info flipped.tea
contains err.txt "flipped.tea:"
contains err.txt "byte"
cp good.td.zst flipped.td.zst
printf '\377\377\377\377' | dd of=flipped.td.zst bs=1 seek=$((tdsize / 2)) conv=notrunc 2>/dev/null
run 1 "$TEA" info flipped.td.zst
contains err.txt "flipped.td.zst:"

# garbage appended after the last frame
cp good.tea appended.tea
printf 'garbage!' >>appended.tea
run 1 "$TEA" info appended.tea
contains err.txt "not a zstd frame at byte $size"

: >empty.tea
run 1 "$TEA" info empty.tea
contains err.txt "empty.tea: empty file"

# a cycle counter that goes backwards (token 2 of the scenario set to cycle 999)
cp "$DATA/scenario.bin" backwards.bin
printf '\347\003' | dd of=backwards.bin bs=1 seek=128 conv=notrunc 2>/dev/null
run 1 "$TEA" info backwards.bin
contains err.txt "token 2 (uncompressed byte 128): cycle counter goes backwards (999 after 1001)"

# no half-written output when the input is bad
run 1 "$TEA" convert short.tea -o out.tea
[ -e out.tea ] && fail "a failed convert left out.tea behind"
ls -a | grep -q '\.tmp\.' && fail "a temporary file was left behind"
run 1 "$TEA" convert good.tea -o no-such-dir/out.tea
contains err.txt "no-such-dir/out.tea: cannot create output file"
echo ok
