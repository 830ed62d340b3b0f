# Symbolizing every object of a recorded trace: tests/data/dso_prog.c, a PIE
# whose time goes to libc (qsort, memcpy, memset) and to a library of its own
# (tests/data/dso_lib.c), recorded with tea record. The reports name the
# functions of each object, disassemble them and show the object; a library
# that is gone or rebuilt is [BASENAME] with a warning, never another file's
# names. Skipped (77) where valgrind or tea's Valgrind tool is absent
# (valgrind's Debian package brings libc6-dbg, so libc's local functions have
# names wherever this runs).
. "$(dirname "$0")/lib.bash"

need_tearec
cc -O1 -g -fPIC -shared -o libdso_lib.so "$DATA/dso_lib.c" || fail "cannot build dso_lib"
# shellcheck disable=SC2016 # $ORIGIN is for the dynamic linker
cc -O1 -g -fPIE -pie -o dso_prog "$DATA/dso_prog.c" -L. -ldso_lib -Wl,-rpath,'$ORIGIN' || fail "cannot build dso_prog"
run 0 "$TEA" record -q -o d.tea -- ./dso_prog
run 0 "$TEA" replay d.tea -q --schemes golden -o r

# rows KIND: "object function" of each row of the report (first line of each rank)
rows() {
    awk -F, 'NR > 1 && !seen[$1]++ { print $3, $4 }' out.txt >"$1.rows"
}

# functions: every object's functions by name, none of libc's unnamed
run 0 "$PICS" report r/golden.pics --granularity func --format csv --top 0
head -n 1 out.txt | grep -q '^rank,address,object,function,' || fail "the CSV has no object column"
rows func
grep -Eq '^libc\.so\.6 __(memcpy|memmove)' func.rows || fail "no libc memcpy function: $(head func.rows)"
grep -Eq '^libc\.so\.6 (msort|qsort)' func.rows || fail "no libc qsort function: $(head func.rows)"
grep -q '^libdso_lib\.so dso_checksum$' func.rows || fail "dso_checksum is not named in its library"
grep -q '^dso_prog compare_ints$' func.rows || fail "compare_ints is not named in the program"
if grep -Eq '^libc\.so\.6 \[(unknown \.text|libc)' func.rows || grep -q ' \[unknown\]$' func.rows; then
    fail "PCs in libc's code are unnamed: $(grep '\[' func.rows)"
fi
# the hottest functions are in libc, not lumped together
top=$(head -n 1 func.rows)
case "$top" in "libc.so.6 "*) ;; *) fail "the hottest function is '$top', expected one of libc's" ;; esac

# instructions: name+offset and disassembly from the object's own file
run 0 "$PICS" report r/golden.pics --top 3
contains out.txt "Object"
awk '/^ +[0-9.]+%/ { print $5, $6, $8 }' out.txt >insn.rows
[ "$(wc -l <insn.rows)" -eq 3 ] || fail "expected 3 instruction rows: $(cat out.txt)"
while read -r object location insn; do
    [ "$object" = libc.so.6 ] || continue
    case "$location" in __mem*+0x* | msort*+0x* | qsort*+0x*) ;; *) fail "libc row named '$location'" ;; esac
    [ -n "$insn" ] && [ "$insn" != - ] || fail "libc row $location has no disassembly"
done <insn.rows
grep -q '^libc\.so\.6 ' insn.rows || fail "no libc instruction among the top 3: $(cat insn.rows)"

# --addresses elf: a libc row's address is its address in libc.so.6 (objdump's)
run 0 "$PICS" report r/golden.pics --top 1 --format csv
runtime=$(awk -F, 'NR == 2 { print $2 }' out.txt)
bias=$("$TEA" info d.tea | awk '/libc\.so\.6$/ { print $3 }')
run 0 "$PICS" report r/golden.pics --top 1 --format csv --addresses elf
elf=$(awk -F, 'NR == 2 { print $2 }' out.txt)
[ $((runtime - bias)) -eq $((elf)) ] || fail "--addresses elf shows $elf for $runtime (libc bias $bias)"

# the library is gone: its PCs are [libdso_lib.so], with a warning
mkdir -p away && mv libdso_lib.so away/
run 0 "$PICS" report r/golden.pics --granularity func --format csv --top 0
contains err.txt "its PCs are shown as [libdso_lib.so]"
rows gone
grep -q '^libdso_lib\.so \[libdso_lib\.so\]$' gone.rows || fail "the missing library is not [libdso_lib.so]"
if grep -q '^libdso_lib\.so dso_checksum' gone.rows; then fail "a missing library still names functions"; fi
grep -Eq '^libc\.so\.6 __(memcpy|memmove)' gone.rows || fail "libc lost its names"

# another build of the library at the same path: refused by its build-id
cc -O1 -g -fPIC -shared -DDSO_OTHER_BUILD -o libdso_lib.so "$DATA/dso_lib.c" || fail "cannot build dso_lib"
run 0 "$PICS" report r/golden.pics --top 0
contains err.txt "not the"
contains err.txt "its PCs are shown as [libdso_lib.so]"
contains out.txt "[libdso_lib.so]+0x"
if grep -Eq 'libdso_lib\.so +dso_checksum' out.txt; then fail "another build of the library names functions"; fi
exit 0
