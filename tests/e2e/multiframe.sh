# TraceDoctor .zst made of several zstd frames (separately compressed pieces
# concatenated, as `cat a.zst b.zst` or pzstd write them): the frames are one
# token stream, split anywhere, also inside a token; errors name the frame.
. "$(dirname "$0")/lib.bash"
command -v zstd >/dev/null || exit 77

run 0 "$TEA" gen --workload mixed --cycles 300000 --seed 3 --format tracedoctor -o one.td.zst
zstd -q -d -c one.td.zst >tokens.raw || fail "zstd -d"
size=$(file_size tokens.raw)
[ $((size % 64)) -eq 0 ] && [ "$size" -gt 200000 ] || fail "unexpected token stream of $size bytes"

# Pieces: the first ends 17 bytes into token 1000, the second is a single
# byte, the third ends on a token boundary, the last takes the rest.
cut1=$((1000 * 64 + 17))
cut2=$((cut1 + 1))
cut3=$((2000 * 64))
head -c "$cut1" tokens.raw >p1
tail -c +$((cut1 + 1)) tokens.raw | head -c $((cut2 - cut1)) >p2
tail -c +$((cut2 + 1)) tokens.raw | head -c $((cut3 - cut2)) >p3
tail -c +$((cut3 + 1)) tokens.raw >p4
cat p1 p2 p3 p4 | cmp -s - tokens.raw || fail "pieces do not add up to the token stream"
for p in p1 p2 p3 p4; do
    zstd -q -c "$p" >"$p.zst" || fail "zstd $p"
done
# A skippable frame (magic 0x184D2A5E, 3 bytes) between the third and last
# data frames: skipped like zstd -dc skips it.
printf '\136\052\115\030\003\000\000\000abc' >skip.bin
cat p1.zst p2.zst p3.zst skip.bin p4.zst >multi.td.zst
zstd -q -d -c multi.td.zst | cmp -s - tokens.raw || fail "zstd -dc of the multi-frame file differs"

run 0 "$TEA" info --json multi.td.zst
[ "$(json_number out.txt frames)" -eq 4 ] || fail "expected 4 data frames, got $(json_number out.txt frames)"
run 0 "$TEA" info --json one.td.zst
[ "$(json_number out.txt frames)" -eq 1 ] || fail "expected 1 data frame"

# the same PICS as the single-frame file, whatever the thread count
run 0 "$TEA" replay one.td.zst -o one
for threads in 1 2 4; do
    run 0 "$TEA" replay multi.td.zst --threads "$threads" -o "multi$threads"
    for f in one/*.pics; do
        cmp -s "$f" "multi$threads/$(basename "$f")" || fail "--threads $threads: $(basename "$f") differs"
    done
    # the summary differs only in the trace's name (its first column)
    cut -d, -f2- one/summary.csv >a.csv
    cut -d, -f2- "multi$threads/summary.csv" >b.csv
    cmp -s a.csv b.csv || fail "--threads $threads: summary.csv differs"
done
[ "$(ls one/*.pics | wc -l)" -eq 6 ] || fail "expected 6 PICS files (golden and five samplers)"

# Pieces of 1000001 bytes (cut inside tokens, past the first chunk the
# reader takes before any thread starts), each compressed on its own: with
# --threads 2 and 3 their frames are decompressed on that many threads, and
# the tokens cut at frame ends are joined again.
split -b 1000001 -d tokens.raw piece.
[ "$(ls piece.* | wc -l)" -ge 7 ] || fail "expected at least 7 pieces"
for p in piece.*; do
    zstd -q -c "$p" >>split.td.zst || fail "zstd $p"
done
zstd -q -d -c split.td.zst | cmp -s - tokens.raw || fail "zstd -dc of the split file differs"
for threads in 1 2 3; do
    run 0 "$TEA" replay split.td.zst --threads "$threads" -o "split$threads"
    for f in one/*.pics; do
        cmp -s "$f" "split$threads/$(basename "$f")" || fail "split, --threads $threads: $(basename "$f") differs"
    done
done

# A corrupt second frame: the error names the file offset where it starts
# (the size of the first frame). Its block header claims a reserved block
# type, which zstd rejects whatever the build.
off2=$(file_size p1.zst)
cp multi.td.zst bad2.td.zst
# frame header: 4 magic bytes, a descriptor, then the first block header;
# with a single-segment frame of p2's one byte the header is 6 bytes long
printf '\377\377\377' | dd of=bad2.td.zst bs=1 seek=$((off2 + 6)) conv=notrunc 2>/dev/null
zstd -q -t bad2.td.zst 2>/dev/null && fail "zstd accepts the corrupted second frame"
for threads in 1 2; do
    run 1 "$TEA" replay bad2.td.zst --threads "$threads" -o bad
    contains err.txt "bad2.td.zst: corrupt zstd data in frame starting at byte $off2"
done

# damage_reported CORRUPT CUT CORRUPT_AT CUT_AT: on one thread and on two, a
# file with a corrupt frame and one cut inside a frame each fail, naming the
# byte where that frame starts.
damage_reported() {
    for threads in 1 2; do
        run 1 "$TEA" replay "$1" --threads "$threads" -o bad
        contains err.txt "$1: corrupt zstd data in frame starting at byte $3"
        run 1 "$TEA" replay "$2" --threads "$threads" -o bad
        contains err.txt "$2: truncated zstd frame starting at byte $4"
    done
}

# A corrupt third frame, and the second one truncated at the end of the file.
off3=$((off2 + $(file_size p2.zst)))
cp multi.td.zst bad3.td.zst
printf '\377\377\377\377' | dd of=bad3.td.zst bs=1 seek=$((off3 + $(file_size p3.zst) / 2)) conv=notrunc 2>/dev/null
cat p1.zst >short.td.zst
head -c $(($(file_size p2.zst) - 2)) p2.zst >>short.td.zst
damage_reported bad3.td.zst short.td.zst "$off3" "$off2"

# The same damage in the split file's fifth frame, which the threads reach:
# the serial reader takes over there and reports it alike.
off5=0
for p in piece.00 piece.01 piece.02 piece.03; do
    off5=$((off5 + $(zstd -q -c "$p" | wc -c)))
done
# the frame header's size from its descriptor byte (RFC 8878, 3.1.1.1): magic,
# descriptor, window byte unless single-segment, dictionary ID, content size
fhd=$(od -An -tu1 -j $((off5 + 4)) -N1 split.td.zst | tr -d ' ')
single=$(((fhd >> 5) & 1))
did=$((fhd & 3))
fcs=$((fhd >> 6))
header=$((4 + 1 + (1 - single) + (did == 3 ? 4 : did) + (fcs == 0 ? single : 1 << fcs)))
cp split.td.zst bad5.td.zst
# a reserved block type in the first block header
printf '\377\377\377' | dd of=bad5.td.zst bs=1 seek=$((off5 + header)) conv=notrunc 2>/dev/null
head -c $((off5 + 5000)) split.td.zst >cut5.td.zst
damage_reported bad5.td.zst cut5.td.zst "$off5" "$off5"
