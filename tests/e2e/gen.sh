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

# --- tea gen --elf: a walk over the RISC-V program the disassembler test
# builds; every instruction the golden PICS charges is one objdump lists, and
# the header names the binary, its build-id and a zero load bias.
rv="$BIN/../tests/disasm_prog.riscv64"
[ -f "$rv" ] || fail "$rv is missing (built with the unit tests)"
run 0 "$TEA" gen --elf "$rv" --cycles 300000 --seed 2 -o rv.tea
run 0 "$TEA" info rv.tea
contains out.txt "riscv64, 39-bit virtual addresses"
contains out.txt "binary:       $(cd "$(dirname "$rv")" && pwd)/disasm_prog.riscv64"
contains out.txt "build-id:     $(LC_ALL=C readelf -n "$rv" | sed -n 's/.*Build ID: //p')"
contains out.txt "load bias:    0x0"
run 0 "$TEA" replay rv.tea --period 1 -o rvp
run 0 "$PICS" export rvp/golden.pics
awk -F, 'NR > 1 { print $1 }' out.txt | sort -u >charged.txt
[ "$(wc -l <charged.txt)" -ge 20 ] || fail "the walk charged fewer than 20 instructions"
LC_ALL=C riscv64-linux-gnu-objdump -d "$rv" | sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/0x\1/p' | sort -u >listed.txt
comm -23 charged.txt listed.txt >strays.txt
[ -s strays.txt ] && fail "charged PCs that are no instruction of the binary: $(head -n 3 strays.txt)"
cp rv.tea rv.first.tea
run 0 "$TEA" gen --elf "$rv" --cycles 300000 --seed 2 -o rv.tea
cmp -s rv.tea rv.first.tea || fail "--elf: same seed, different output"
run 1 "$TEA" gen --elf /nonexistent/prog --cycles 1000 -o x.tea
contains err.txt "/nonexistent/prog: cannot open"
run 1 "$TEA" gen --elf "$DATA/scenario.bin" --cycles 1000 -o x.tea
contains err.txt "not an ELF file"
[ -e x.tea ] && fail "a failed tea gen left x.tea behind"

run 2 "$TEA" gen --workload nope -o x.tea
contains err.txt "unknown workload 'nope'"
run 2 "$TEA" gen --cycles -5 -o x.tea
echo ok
