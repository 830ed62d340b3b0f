# The FireSim / TraceDoctor flow: a header-less TraceDoctor trace of a PIE
# loaded at a non-zero bias, symbolized through tea replay --elf (the
# binary recorded in the PICS, so pics report needs no --elf), --adjust-vma
# auto (the bias the generator used, on RISC-V, an x86-64 PIE and a static
# binary; refused for the wrong binary; tea topdown too), tea convert --binary and tea sweep
# TRACE:BINARY. The test programs are those the unit tests build.
. "$(dirname "$0")/lib.bash"

TESTS="$BIN/../tests"
rv="$TESTS/disasm_prog.riscv64-pie"
[ -f "$rv" ] || fail "$rv is missing (built with the unit tests)"
rv_abs="$(cd "$(dirname "$rv")" && pwd)/disasm_prog.riscv64-pie"
bias=0x2aaaab5000 # where a loader might put a RISC-V PIE (below 2^38, Sv39)

# error_func of scheme $2 in the results CSV $1
error_func() {
    awk -F, -v s="$2" '$2 == s { print $9 }' "$1"
}

# --- the trace: generated at the bias, written as TraceDoctor (no header)
run 0 "$TEA" gen --elf "$rv" --load-bias "$bias" --format tracedoctor --cycles 200000 --seed 3 -o rv.td.zst
run 0 "$TEA" replay rv.td.zst --period 1000 --schemes tea -o plain
[ -z "$(error_func plain/summary.csv tea)" ] || fail "error_func without a binary"

# a PIE without a bias is refused, naming both ways out
run 2 "$TEA" replay rv.td.zst --elf "$rv" --period 1000 --schemes tea -o nobias
contains err.txt "position-independent"
contains err.txt "--adjust-vma auto"

# --- tea replay --elf with the true bias: function error, binary recorded
run 0 "$TEA" replay rv.td.zst --elf "$rv" --adjust-vma "$bias" --period 1000 --schemes tea -o true
[ -n "$(error_func true/summary.csv tea)" ] || fail "no error_func with --elf"
contains true/summary.json "\"binary\": \"$rv_abs\""
run 0 "$PICS" report true/golden.pics --granularity func --top 3
contains out.txt "# binary $rv_abs"
contains out.txt "load bias $bias"
grep -q "^ *[0-9.]*% *[0-9.]* *[0-9]* *[0-9.-]* *mix " out.txt || fail "pics report without --elf does not name mix"
awk '/^ *[0-9.]+% / { print $5 }' out.txt >true-functions.txt
[ "$(wc -l <true-functions.txt)" -eq 3 ] || fail "expected three functions"

# --- --adjust-vma auto finds the generator's bias and the same functions
run 0 "$TEA" replay rv.td.zst --elf "$rv" --adjust-vma auto --period 1000 --schemes tea -o auto
contains err.txt "--adjust-vma auto: load bias $bias ("
[ "$(error_func auto/summary.csv tea)" = "$(error_func true/summary.csv tea)" ] || fail "auto: another error_func"
run 0 "$PICS" report auto/golden.pics --granularity func --top 3
awk '/^ *[0-9.]+% / { print $5 }' out.txt >auto-functions.txt
cmp -s true-functions.txt auto-functions.txt || fail "auto names other functions: $(cat auto-functions.txt)"
# pics report infers it too, over the PCs of the PICS it shows
run 0 "$PICS" report auto/golden.pics --elf "$rv" --adjust-vma auto --top 1
contains err.txt "--adjust-vma auto: load bias $bias ("

# tea topdown infers it too, over the PCs at the start of the trace, and its
# per-function view equals the one with the true bias
run 0 "$TEA" topdown rv.td.zst --elf "$rv" --adjust-vma "$bias" --format csv
cp out.txt topdown-true.csv
grep -q '^mix,' topdown-true.csv || fail "tea topdown with the true bias does not name mix"
run 0 "$TEA" topdown rv.td.zst --elf "$rv" --adjust-vma auto --format csv
contains err.txt "--adjust-vma auto: load bias $bias ("
cmp -s topdown-true.csv out.txt || fail "tea topdown --adjust-vma auto differs from the true bias"
run 2 "$TEA" topdown - --elf "$rv" --adjust-vma auto <rv.td.zst
contains err.txt "standard input cannot be read twice"

# the wrong binary is refused, not guessed
wrong="$TESTS/symbols_prog.riscv64"
run 2 "$TEA" replay rv.td.zst --elf "$wrong" --adjust-vma auto --period 1000 --schemes tea -o wrong
contains err.txt "is it the traced binary?"
run 2 "$TEA" replay rv.td.zst --elf "$rv" --adjust-vma bogus -o bad
contains err.txt "invalid offset 'bogus'"

# --- tea convert --binary: a native trace that names its binary and bias
run 0 "$TEA" convert rv.td.zst --binary "$rv" --load-bias "$bias" -o rv.tea
run 0 "$TEA" info rv.tea
contains out.txt "binary:       $rv_abs"
contains out.txt "build-id:     $(LC_ALL=C readelf -n "$rv" | sed -n 's/.*Build ID: //p')"
contains out.txt "load bias:    $bias"
run 0 "$TEA" replay rv.tea --period 1000 --schemes tea -o native
[ "$(error_func native/summary.csv tea)" = "$(error_func true/summary.csv tea)" ] || fail "convert: another error_func"
run 2 "$TEA" convert rv.td.zst --load-bias "$bias" -o x.tea
contains err.txt "--load-bias applies with --binary only"
run 1 "$TEA" convert rv.td.zst --binary /nonexistent/prog -o x.tea
contains err.txt "/nonexistent/prog"
[ -e x.tea ] && fail "a failed tea convert left x.tea behind"

# --- tea sweep TRACE:BINARY
run 0 "$TEA" sweep "rv.td.zst:$rv" --adjust-vma "$bias" --freqs 4000 --seeds 1 --schemes tea --quiet -o sw.csv
[ -n "$(awk -F, '$2 == "tea" { print $9 }' sw.csv)" ] || fail "sweep TRACE:BINARY: no error_func"
contains sw.json "\"binary\": \"$rv_abs\""

# --- x86-64: a PIE at a typical bias and a static binary (bias 0)
if [ -f "$TESTS/symbols_prog.x86_64-pie" ]; then
    run 0 "$TEA" gen --elf "$TESTS/symbols_prog.x86_64-pie" --load-bias 0x555555554000 --format tracedoctor \
        --cycles 100000 -o pie.td.zst
    run 0 "$TEA" replay pie.td.zst --elf "$TESTS/symbols_prog.x86_64-pie" --adjust-vma auto --period 1000 \
        --schemes tea -o pie
    contains err.txt "--adjust-vma auto: load bias 0x555555554000 ("
    run 0 "$TEA" gen --elf "$TESTS/disasm_prog.x86_64" --format tracedoctor --cycles 100000 -o static.td.zst
    run 0 "$TEA" replay static.td.zst --elf "$TESTS/disasm_prog.x86_64" --adjust-vma auto --period 1000 \
        --schemes tea -o static
    contains err.txt "--adjust-vma auto: load bias 0x0 ("
    run 2 "$TEA" replay static.td.zst --elf "$TESTS/symbols_prog.x86_64-pie" --adjust-vma auto --period 1000 \
        --schemes tea -o wrong86
    contains err.txt "is it the traced binary?"
fi
exit 0
