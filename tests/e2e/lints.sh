# The lints fail when they should: tests/lint/rooms.sh, includes.sh and the
# room table they read, on a copy of the tree's docs and rooms with one
# drift at a time.
. "$(dirname "$0")/lib.bash"
SRC=$(cd "$DATA/../.." && pwd)

# fresh: a tree of the rooms (their READMEs and sources) and the docs
fresh() {
    rm -rf t
    mkdir -p t/docs
    cp "$SRC"/docs/*.md "$SRC/docs/rooms.tsv" t/docs/
    for room in $(grep -v '^#' "$SRC/docs/rooms.tsv" | cut -f1); do
        mkdir -p "t/$room"
        cp "$SRC/$room"/README.md "$SRC/$room"/*.[ch] "t/$room/" 2>/dev/null || true
    done
    mkdir -p t/include
    cp "$SRC"/include/*.h t/include/
}

fresh
run 0 sh "$SRC/tests/lint/rooms.sh" t
run 0 sh "$SRC/tests/lint/includes.sh" t

# a folder of C files that is no room
fresh
mkdir t/newroom && echo 'int x;' >t/newroom/x.c
run 1 sh "$SRC/tests/lint/rooms.sh" t
contains out.txt "newroom/ holds C files but is no room of docs/rooms.tsv"

# a README naming a header that does not exist
fresh
echo 'see `trace/nothing.h`' >>t/trace/README.md
run 1 sh "$SRC/tests/lint/rooms.sh" t
contains out.txt "trace/README.md: names trace/nothing.h, which does not exist"

# the table and docs/architecture.md disagree on what a room may include
fresh
sed 's/^golden\tcommon trace\t/golden\tcommon\t/' "$SRC/docs/rooms.tsv" >t/docs/rooms.tsv
run 1 sh "$SRC/tests/lint/rooms.sh" t
contains out.txt "docs/rooms.tsv has: golden common"
contains out.txt "docs/architecture.md has: golden common trace"

# includes.sh reads the same table: golden/ may no longer include trace/
echo '#include "trace/record.h"' >t/golden/x.c
run 1 sh "$SRC/tests/lint/includes.sh" t
contains out.txt "golden/x.c: includes \"trace/record.h\" but golden/ may include only: golden common"
