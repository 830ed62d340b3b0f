# A stripped object's functions named from its unwind tables (fn_HEX) come
# with a note on standard error, once per object, naming the object and how
# to get its names: Debian's -dbgsym package (`dpkg -S` names the package)
# or DEBUGINFOD_URLS. tests/data/annotate_prog.c and annotate_lib.c (each
# with a local function, whose name only .symtab holds), built with -g and
# stripped (program and library), recorded with tea record:
#
# 1. pics report and pics annotate print one note for each of the two
#    objects (the dpkg pattern of a path outside /usr is the path itself),
#    none on standard output;
# 2. with DEBUGINFOD_URLS set (a server that answers nothing), the note says
#    that its servers had no debug file for the object's build-id;
# 3. an object with its symbols (--elf of the unstripped program) gets none.
# Skipped (77) where valgrind, tea's Valgrind tool or strip is absent.
. "$(dirname "$0")/lib.bash"

need_tearec
command -v strip >/dev/null || { echo "SKIP: strip is missing (binutils)"; exit 77; }
cc -O2 -g -fPIC -shared -o libannotate_lib.full "$DATA/annotate_lib.c" || fail "cannot build annotate_lib"
strip -o libannotate_lib.so libannotate_lib.full || fail "strip libannotate_lib"
# shellcheck disable=SC2016 # $ORIGIN is for the dynamic linker
cc -O2 -g -fPIE -pie -o prog.full "$DATA/annotate_prog.c" -L. -lannotate_lib -Wl,-rpath,'$ORIGIN' ||
    fail "cannot build annotate_prog"
strip -o prog prog.full || fail "strip prog"
run 0 "$TEA" record -q -o s.tea -- ./prog
run 0 "$TEA" replay s.tea -q --schemes golden -o r
# no debuginfod request (the programs' debug files are nowhere: new build-ids)
export DEBUGINFOD_CACHE_PATH="$SCRATCH/debuginfod-cache"
unset DEBUGINFOD_URLS

# notes OBJECT: the lines of err.txt noting that OBJECT is stripped
notes() {
    grep -F ": note: $1 is stripped: " err.txt
}
# one_note COMMAND OBJECT: err.txt has exactly one note for OBJECT, with both ways
one_note() {
    [ "$(notes "$2" | wc -l)" -eq 1 ] || { cat err.txt >&2; fail "$1: not one note for $2"; }
    notes "$2" | grep -qF "PACKAGE-dbgsym" || fail "$1: the note on $2 names no -dbgsym package"
    notes "$2" | grep -qF "dpkg -S '$2'" || fail "$1: the note on $2 gives no dpkg -S"
    notes "$2" | grep -qF "set DEBUGINFOD_URLS (e.g. https://debuginfod.debian.net)" ||
        fail "$1: the note on $2 does not name DEBUGINFOD_URLS"
}

# --- 1. report and annotate: one note per stripped object, on stderr only
run 0 "$PICS" report r/golden.pics --granularity func --top 0
grep -q ' fn_' out.txt || fail "no fn_HEX function in the report"
one_note "pics report" "$PWD/prog"
one_note "pics report" "$PWD/libannotate_lib.so"
grep -q "note:" out.txt && fail "a note on standard output"
run 0 "$PICS" report r/golden.pics --top 0 --format csv
one_note "pics report --format csv" "$PWD/libannotate_lib.so"
grep -q "note:" out.txt && fail "a note in the CSV"
fn=$(awk -F, '$3 == "prog" && $4 ~ /^fn_/ { print $4; exit }' out.txt)
[ -n "$fn" ] || fail "no fn_HEX row of prog"
run 0 "$PICS" annotate r/golden.pics --symbol "$fn"
contains out.txt "# $fn in $PWD/prog: "
one_note "pics annotate" "$PWD/prog"
one_note "pics annotate" "$PWD/libannotate_lib.so"
grep -q "note:" out.txt && fail "a note in the annotation"

# --- 2. DEBUGINFOD_URLS set, no server has the file: the note says so
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null) ||
    port=1
"$TEA" info s.tea >info.txt || fail "tea info s.tea"
build_id=$(awk '$NF ~ /\/prog$/ { print $5 }' info.txt)
[ -n "$build_id" ] || fail "tea info lists no build-id for prog"
run 0 env DEBUGINFOD_URLS="http://127.0.0.1:$port" "$PICS" report r/golden.pics --top 1
[ "$(notes "$PWD/prog" | wc -l)" -eq 1 ] || fail "not one note with DEBUGINFOD_URLS set: $(cat err.txt)"
notes "$PWD/prog" | grep -qF "the debuginfod servers DEBUGINFOD_URLS names had none for its build-id $build_id" ||
    fail "the note does not say that the servers had no debug file: $(cat err.txt)"

# --- 3. the unstripped program has its names: no note on it
run 0 "$PICS" report r/golden.pics --elf prog.full --granularity func --top 0
grep -qF "note: $PWD/prog.full" err.txt && fail "a note on an unstripped binary: $(cat err.txt)"
one_note "pics report --elf prog.full" "$PWD/libannotate_lib.so"
exit 0
