# Function names as objdump and perf show them, through tea gen --elf walks
# of the symbolizer's test programs: rand@plt in a PIE calling rand through
# the PLT, C++ names demangled by default and mangled with --no-demangle in
# pics report and pics annotate. Skipped (77) where the x86-64 programs are
# not built (a host that is not x86-64, no C++ compiler).
. "$(dirname "$0")/lib.bash"

TESTS="$BIN/../tests"
plt="$TESTS/plt_prog.x86_64-pie"
cxx="$TESTS/cxx_prog.x86_64"
[ -f "$plt" ] && [ -f "$cxx" ] || exit 77

# --- rand@plt: the walk calls rand through its stub
run 0 "$TEA" gen --elf "$plt" --load-bias 0x555555554000 --cycles 200000 -o plt.tea
run 0 "$TEA" replay plt.tea --period 1000 --schemes tea -o plt
run 0 "$PICS" report plt/golden.pics --granularity func --top 0
grep -q "^ *[0-9.]*% *[0-9.]* *[0-9]* *[0-9.-]* *rand@plt " out.txt || fail "pics report does not name rand@plt"
plt_addr=$(LC_ALL=C objdump -d "$plt" | sed -n 's/^0*\([0-9a-f]*\) <rand@plt>:$/\1/p')
[ -n "$plt_addr" ] || fail "objdump lists no rand@plt"
contains out.txt "$(printf '0x%x' $((0x555555554000 + 0x$plt_addr)))"
run 0 "$PICS" annotate plt/golden.pics --symbol rand@plt
contains out.txt "rand@plt"
# the call's target as objdump shows it, in runtime and ELF addresses
run 0 "$PICS" annotate plt/golden.pics --symbol plt_work
contains out.txt "call $(printf '0x%x' $((0x555555554000 + 0x$plt_addr))) <rand@plt>"
run 0 "$PICS" annotate plt/golden.pics --symbol plt_work --addresses elf
contains out.txt "call 0x$plt_addr <rand@plt>"
work_addr=$(LC_ALL=C objdump -d "$plt" | sed -n 's/^0*\([0-9a-f]*\) <plt_work>:$/\1/p')
contains out.txt "# plt_work: 0x$work_addr-"
# a replay directory: its TEA PICS against its golden one, as pics report
run 0 "$TEA" replay plt.tea --period 1000 --schemes golden,tea -o pltdir
run 0 "$PICS" annotate pltdir --scheme tea --symbol plt_work
contains err.txt "pltdir is a tea replay directory: reporting pltdir/tea.pics against pltdir/golden.pics"
contains out.txt "# golden pltdir/golden.pics: error"
# pics error at function granularity with the binary the PICS records (no
# --symbols): the error_func tea replay computed from the same binary
run 0 "$PICS" error pltdir/tea.pics pltdir/golden.pics --granularity func --json
got=$(json_number out.txt error)
want=$(awk -F, '$2 == "tea" { print $9 }' pltdir/summary.csv)
# summary.csv rounds to 9 decimals: within half a unit of that digit
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d <= 5.000001e-10 && d >= -5.000001e-10) }' ||
    fail "pics error --granularity func gives $got, tea replay's error_func $want"
run 0 "$PICS" report plt/golden.pics --granularity func --addresses elf --format csv
contains out.txt "0x$plt_addr,rand@plt,"
# --source: the lines' text under their file:line
run 0 "$PICS" annotate plt/golden.pics --symbol plt_work --source
contains out.txt "plt_prog.c:"
contains out.txt ": $(grep -F 's += rand() % 7;' "$DATA/plt_prog.c")"
# stripped code: a range of addresses, runtime or ELF; the PLT names survive strip
strip -o plt.stripped "$plt"
end_addr=$(printf '%x' $((0x$work_addr + 0x20)))
run 0 "$PICS" annotate plt/golden.pics --elf plt.stripped --addresses elf --symbol "0x$work_addr-0x$end_addr"
contains out.txt "# 0x$work_addr-0x$end_addr: 0x$work_addr-0x$end_addr (32 bytes)"
contains out.txt "call 0x$plt_addr <rand@plt>"
run 0 "$PICS" annotate plt/golden.pics --elf plt.stripped \
    --symbol "$(printf '0x%x-0x%x' $((0x555555554000 + 0x$work_addr)) $((0x555555554000 + 0x$end_addr)))"
contains out.txt "call $(printf '0x%x' $((0x555555554000 + 0x$plt_addr))) <rand@plt>"
# separate debug files: a stripped binary gets names and source lines from
# its .gnu_debuglink, or from ROOT/.build-id/xx/yyyy.debug (TEA_DEBUG_ROOT)
objcopy --only-keep-debug "$plt" plt.debug
objcopy --add-gnu-debuglink=plt.debug plt.stripped plt.linked
run 0 "$PICS" report plt/golden.pics --elf plt.linked --granularity func --source
contains out.txt "symbols from .symtab of the debug file"
contains out.txt "# debug file $PWD/plt.debug"
grep -q "^ *[0-9.]*% *[0-9.]* *[0-9]* *[0-9.-]* *plt_work " out.txt || fail "no plt_work through .gnu_debuglink"
contains out.txt "plt_prog.c:"
id=$(LC_ALL=C readelf -n "$plt" | sed -n 's/.*Build ID: //p')
mkdir -p "root/.build-id/$(echo "$id" | cut -c1-2)"
cp plt.debug "root/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
run 0 "$PICS" report plt/golden.pics --elf plt.stripped --granularity func
grep -q "^ *[0-9.]*% *[0-9.]* *[0-9]* *[0-9.-]* *plt_work " out.txt && fail "a name without a debug file"
TEA_DEBUG_ROOT="$PWD/root" run 0 "$PICS" report plt/golden.pics --elf plt.stripped --granularity func
grep -q "^ *[0-9.]*% *[0-9.]* *[0-9]* *[0-9.-]* *plt_work " out.txt || fail "no plt_work through the build-id directory"
contains out.txt "# debug file $PWD/root/.build-id/"
# a debug file of another binary (another build-id) is not taken
cp "$TESTS/symbols_prog.x86_64-pie" other
objcopy --only-keep-debug other other.debug
cp other.debug "root/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
TEA_DEBUG_ROOT="$PWD/root" run 0 "$PICS" report plt/golden.pics --elf plt.stripped --granularity func
grep -q "debug file" out.txt && fail "took another binary's debug file"
run 2 "$PICS" annotate plt/golden.pics --symbol 0x20-0x10
contains err.txt "the range must end after it starts"
run 2 "$PICS" report plt/golden.pics --addresses linked
contains err.txt "unknown address kind 'linked'"

# --- C++: demangled by default, as in the file with --no-demangle
run 0 "$TEA" gen --elf "$cxx" --cycles 300000 -o cxx.tea
run 0 "$TEA" replay cxx.tea --period 1000 --schemes tea -o cxx
run 0 "$PICS" report cxx/golden.pics --granularity func --top 0
# text keeps its columns: long names with their template arguments collapsed;
# CSV carries the full name
contains out.txt "std::vector<...>::"
grep -q " _ZN" out.txt && fail "a mangled name without --no-demangle"
python3 - out.txt <<'EOF' || fail "a function name overflows its column"
import re, sys
cols = {line.index(" 0x") for line in open(sys.argv[1]) if re.match(r"^ +[0-9.]+% ", line)}
sys.exit(0 if len(cols) == 1 else "the address column starts at %s" % sorted(cols))
EOF
run 0 "$PICS" report cxx/golden.pics --granularity func --top 0 --format csv
contains out.txt "std::vector<int, std::allocator<int> >::"
run 0 "$PICS" report cxx/golden.pics --granularity func --top 0 --no-demangle
contains out.txt " _ZNSt6vectorIiSaIiEE"
grep -q "std::vector<" out.txt && fail "a demangled name with --no-demangle"
# annotate finds push_back by either name and shows the form asked for
push_back='std::vector<int, std::allocator<int> >::push_back(int&&)'
run 0 "$PICS" annotate cxx/golden.pics --symbol "$push_back"
contains out.txt "$push_back"
run 0 "$PICS" annotate cxx/golden.pics --symbol _ZNSt6vectorIiSaIiEE9push_backEOi --no-demangle
contains out.txt "_ZNSt6vectorIiSaIiEE9push_backEOi"
exit 0
