# pics annotate --symbol on a recorded trace looks in every object the PICS
# lists, each at its own load bias and build-id, and finds GCC's clones by
# their source name: tests/data/annotate_prog.c (a PIE at -O2 with a library
# of its own, tests/data/annotate_lib.c) spends its time in libc's malloc
# and free, in chase_loop.constprop.0 and in a mix_step of each object.
#
# 1. `--symbol malloc` with no option annotates libc's malloc (the header
#    names libc), with no warning; `--elf LIBC` with or without the bias
#    copied by hand still works, without the false build-id warning.
# 2. `--symbol chase_loop` annotates every clone of it that nm lists, and
#    says on stderr which clones matched.
# 3. `--symbol mix_step` annotates the program's and the library's, and
#    says on stderr that it is in both.
# 4. An unknown name: exit 2, naming the objects searched.
# Skipped (77) where valgrind or tea's Valgrind tool is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
command -v nm >/dev/null || { echo "SKIP: nm is missing (binutils)"; exit 77; }
cc -O2 -g -fPIC -shared -o libannotate_lib.so "$DATA/annotate_lib.c" || fail "cannot build annotate_lib"
# shellcheck disable=SC2016 # $ORIGIN is for the dynamic linker
cc -O2 -g -fPIE -pie -o annotate_prog "$DATA/annotate_prog.c" -L. -lannotate_lib -Wl,-rpath,'$ORIGIN' ||
    fail "cannot build annotate_prog"
run 0 "$TEA" record -q -o a.tea -- ./annotate_prog
run 0 "$TEA" replay a.tea -q --schemes golden -o r
"$TEA" info a.tea >info.txt || fail "tea info a.tea"
libc=$(awk '$NF ~ /\/libc\.so\.6$/ { print $NF }' info.txt)
libc_bias=$(awk '$NF ~ /\/libc\.so\.6$/ { print $3 }' info.txt)
[ -n "$libc" ] && [ -n "$libc_bias" ] || fail "the trace lists no libc.so.6: $(cat info.txt)"

# --- 1. libc's malloc, which the report lists
run 0 "$PICS" report r/golden.pics --granularity func --top 0 --format csv
grep -Eq '^[0-9]+,0x[0-9a-f]+,libc\.so\.6,(__libc_)?malloc,' out.txt || fail "the report lists no libc malloc"
run 0 "$PICS" annotate r/golden.pics --symbol malloc
contains out.txt "# malloc in $libc: "
grep -q "warning" err.txt && fail "a warning annotating libc's malloc: $(cat err.txt)"
# its instructions are disassembled from libc's file
grep -Eq '^ +[0-9.]+% +[0-9.]+ +0x[0-9a-f]+ +[a-z]' out.txt || fail "no disassembled instruction of malloc"
# --elf LIBC: the bias the trace recorded for libc, no build-id warning
run 0 "$PICS" annotate r/golden.pics --symbol malloc --elf "$libc"
contains out.txt "load bias $libc_bias,"
contains out.txt "# malloc in $libc: "
grep -q "build-id" err.txt && fail "--elf $libc is reported as another build: $(cat err.txt)"
cp out.txt elf.txt
run 0 "$PICS" annotate r/golden.pics --symbol malloc --elf "$libc" --adjust-vma "$libc_bias"
grep -Eq "build-id|overrides" err.txt && fail "--elf $libc --adjust-vma $libc_bias warns: $(cat err.txt)"
cmp -s out.txt elf.txt || fail "--adjust-vma $libc_bias changed the annotation of --elf $libc"
# another bias still overrides, with the recorded one named
run 0 "$PICS" annotate r/golden.pics --symbol malloc --elf "$libc" --adjust-vma 0x1000
contains err.txt "overrides the load bias $libc_bias recorded in the trace"

# --- 2. GCC's clones by their source name
nm annotate_prog | awk '$3 ~ /^chase_loop\./ { print $3 }' | LC_ALL=C sort >clones.txt
if [ ! -s clones.txt ]; then
    echo "note: the compiler made no clone of chase_loop here: the clone part is not run"
else
    run 0 "$PICS" annotate r/golden.pics --symbol chase_loop
    while read -r clone; do
        contains out.txt "# $clone in $PWD/annotate_prog: "
        contains err.txt "$clone"
    done <clones.txt
    contains err.txt "--symbol chase_loop matched GCC's clone"
    # a clone's own name finds it (and its own clones) only
    first=$(head -n 1 clones.txt)
    want=$(awk -v f="$first" 'index($0, f) == 1' clones.txt | wc -l)
    run 0 "$PICS" annotate r/golden.pics --symbol "$first"
    contains out.txt "# $first in "
    [ "$(grep -c '^# chase_loop' out.txt)" -eq "$want" ] || fail "--symbol $first annotated $(grep '^# chase_loop' out.txt)"
fi

# --- 3. one name in two objects: each annotated, the choice said
nm annotate_prog | grep -q ' mix_step' && nm libannotate_lib.so | grep -q ' mix_step' ||
    fail "mix_step is not a function of both objects"
run 0 "$PICS" annotate r/golden.pics --symbol mix_step
contains out.txt "# mix_step in $PWD/annotate_prog: "
contains out.txt "# mix_step in $PWD/libannotate_lib.so: "
contains err.txt "--symbol mix_step is in 2 objects, each annotated: $PWD/annotate_prog, $PWD/libannotate_lib.so"

# --- 4. a name in no object
run 2 "$PICS" annotate r/golden.pics --symbol no_such_function
contains err.txt "no function 'no_such_function' in $PWD/annotate_prog or "
contains err.txt " other objects of the trace"
exit 0
