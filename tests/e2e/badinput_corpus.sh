# The regression corpus of tests/data/badinput/ (found by fuzzing; its
# README says what each file did): every reader gives the same verdict and
# message whatever --threads says, and no sampler walks an idle gap point by
# point.
. "$(dirname "$0")/lib.bash"
BAD=$DATA/badinput

# same_verdict FILE TEXT: tea info, tea replay --threads 1 and 2 and tea sweep
# --threads 2 all fail with exit 1 and one message containing TEXT
same_verdict() {
    run 1 "$TEA" info "$BAD/$1"
    contains err.txt "$2"
    sed 's/^tea info: //' err.txt >want.txt
    for threads in 1 2; do
        run 1 "$TEA" replay "$BAD/$1" --threads $threads -o "out-$1"
        sed 's/^tea replay: //' err.txt >got.txt
        cmp -s want.txt got.txt || { cat want.txt got.txt >&2; fail "$1: tea replay --threads $threads differs from tea info"; }
        [ ! -e "out-$1/summary.csv" ] || fail "$1: output left behind"
    done
    run 1 "$TEA" sweep "$BAD/$1" --threads 2 --seeds 1 --quiet -o "sweep-$1.csv"
    sed 's/^tea sweep: //' err.txt >got.txt
    cmp -s want.txt got.txt || { cat want.txt got.txt >&2; fail "$1: tea sweep --threads 2 differs from tea info"; }
}

same_verdict nm_garbage_before_footer.tea "not a zstd frame at byte 7184"
same_verdict nm_dataframe_after_index.tea "data frame at byte 7184 after the index"
same_verdict nm_twoindex.tea "second index frame at byte 7184"
same_verdict F04_fuzz_second_header_after_index.tea "second header at byte 848"
same_verdict F04_fuzz_junk_after_index.tea "index at byte 776: entry 0: reserved bytes are not zero"
same_verdict nm_foot_indexoff.tea "index_offset is 6440 in the footer, the index is at byte 6392"
same_verdict nm_idx_usize_max.tea "index at byte 6392: entry 0: reserved bytes are not zero"
same_verdict nm_foot_event0.tea "events[ST-L1] is 140 in the footer, 139 read"
same_verdict native_gap_2p62.tea "index at byte 57338 does not describe the 20 data frames read"
# damaged objects frames (made from a 3000-cycle tea gen trace with
# objects_fixture, one byte changed): refused at open, by every reader
same_verdict ob_buildid65.tea "objects frame at byte 842, content byte 44: build-id longer than 64 bytes"
same_verdict ob_count_too_high.tea "objects frame at byte 842, content byte 100: truncated"
same_verdict ob_flag_without_frame.tea "footer at byte 842 refers to an objects frame, none was read"

# a 2^43-cycle jump at a 3-cycle period: every scheme finishes at once (each
# sampler counts the points of a gap in O(1)); the time limit turns a hang
# into a failure
for file in td_gap_2p43.bin F05_fuzz_td_wrap_gap.td.zst; do
    for scheme in tea nci ibs spe ris; do
        run 0 timeout 60 "$TEA" replay "$BAD/$file" --schemes golden,$scheme --period 3 -o "gap-$scheme"
    done
done
# totals never wrap: a merge past 2^64 units and a trace longer than a PICS
# can hold are refused, with no output
run 1 "$PICS" merge "$BAD/g_13e12_cycles.pics" "$BAD/g_13e12_cycles.pics" -o merged.pics
contains err.txt "would exceed 2^64 units"
[ ! -e merged.pics ] || fail "a refused merge left its output"
run 0 "$PICS" export "$BAD/g_13e12_cycles.pics"
for threads in 1 2; do
    run 1 "$TEA" replay "$BAD/td_span2p45.bin" --threads $threads -o span
    contains err.txt "td_span2p45.bin: the trace spans 35184372068882 cycles"
    [ ! -e span/golden.pics ] || fail "a refused replay left a PICS"
done
# PICS files: a long field (leading zeros) is read whole; a repeated key is
# refused (it used to leak); a line longer than the limit ends the read
run 0 "$PICS" export "$BAD/F10_pics_cell_long_value.pics"
contains out.txt "0x4011e7,5"
run 0 "$PICS" error "$BAD/F10_pics_cell_long_value.pics" "$BAD/rx_golden.pics"
contains out.txt "error: 22.9118%"
run 0 "$PICS" error "$BAD/rx_tea.pics" "$BAD/rx_golden.pics"
contains out.txt "error: 22.9118%"

# a symbol map whose address has leading zeros (a field longer than 31
# characters) is read whole: local_helper is a function, not a split line
run 0 "$PICS" error "$BAD/rx_tea.pics" "$BAD/rx_golden.pics" --granularity func --symbols "$BAD/map_longtoken.map"
contains out.txt "local_helper"
if [ -r /dev/zero ]; then
    run 1 "$PICS" error "$BAD/rx_tea.pics" "$BAD/rx_golden.pics" --granularity func --symbols /dev/zero
    contains err.txt "longer than 65536 bytes"
fi

# a one-token trace has no attributed cycles: its results are a row of empty
# cells with a warning, not a failed table
run 0 "$TEA" replay "$BAD/zero_span_one_token.td" -o zero
run 0 "$PICS" table zero
contains out.txt "| zero\\_span\\_one\\_token | – | – | – | – | – |"
contains err.txt "has no attributed cycles: its row is empty"
run 1 "$PICS" export "$BAD/F14_dup_trace_binary_leak.pics"
contains err.txt "line 11: repeated key"
if [ -r /dev/zero ]; then
    run 1 "$PICS" export /dev/zero
    contains err.txt "/dev/zero: line 1:"
fi

# frequencies and schemes that would overwrite each other's files or sample
# at no real period are refused (exit 2) instead of run
run 0 "$TEA" gen --workload mixed --cycles 20000 -o freq.tea
run 2 "$TEA" replay freq.tea --freq 4k,4k -o fr
contains err.txt "frequency '4k' given twice"
run 2 "$TEA" replay freq.tea --schemes ibs,ibs:all --events all -o fr
contains err.txt "scheme ibs asked for twice"
run 2 "$TEA" replay freq.tea --freq 1e300 -o fr
contains err.txt "its period rounds to 0 cycles"
run 2 "$TEA" replay freq.tea --freq 1e-12 -o fr
contains err.txt "a period beyond 2^63 cycles"
[ ! -e fr ] || fail "a refused replay left its directory"

# core configurations: cache sizes and files beyond the documented ceilings
run 2 "$TEA" gen --cycles 10000 --set llc.size=64G -o big.tea
contains err.txt "lines, at most 16777216"
if [ -r /dev/zero ]; then
    run 2 "$TEA" gen --cycles 10000 --config /dev/zero -o big.tea
    contains err.txt "larger than 1048576 bytes"
fi
echo ok
