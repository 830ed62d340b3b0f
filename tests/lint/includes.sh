# includes.sh SOURCE_DIR: fails when a room (top-level source folder)
# includes a header of a room it may not depend on. The rooms and what each
# may include (besides itself and system headers) come from docs/rooms.tsv,
# the room table; a room that may include every room (tools/) is not
# checked, and tests/, fuzz/, bench/ and examples/ sit outside the rooms.
set -eu
src=${1:-.}
table="$src/docs/rooms.tsv"
[ -r "$table" ] || { echo "no room table $table"; exit 1; }

# rooms: "ROOM INCLUDES..." per checked room, '-' meaning none
rooms() {
    awk -F'\t' '!/^#/ && NF >= 4 && $2 != "*" { inc = $2 == "-" ? "" : $2; print $1, inc }' "$table"
}

check() {
    rooms | while read -r room allowed; do
        ok=" $room $allowed "
        # quoted includes only: "room/x.h", "x.h" (same room) or "../room/x.h";
        # one awk over the room's files, each line "FILE INCLUDE"
        set -- "$src/$room"/*.[ch]
        [ -e "$1" ] || continue
        awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
                 inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
                 file = FILENAME; sub(/.*\//, "", file); print file, inc }' "$@" |
        while read -r file inc; do
            case $inc in
            ../*/*) target=${inc#../}; target=${target%%/*} ;;
            */*) target=${inc%%/*} ;;
            *) target=$room ;;
            esac
            case $ok in
            *" $target "*) ;;
            *) echo "$room/$file: includes \"$inc\" but $room/ may include only: $room $allowed" ;;
            esac
        done
    done
}
# A header whose comment says "Internal to ROOM/" belongs to that room alone:
# only its room (and the tests, fuzz harnesses and benchmarks, which test
# the parts) may include it; the other rooms and tools/ use the room's
# public headers.
check_internal() {
for header in "$src"/*/*.h; do
    room=$(sed -n 's/.*Internal to \([a-z]*\)\/.*/\1/p' "$header" | head -n 1)
    [ -n "$room" ] || continue
    name=${header#"$src"/}
    # one grep over every file (one per file took most of this lint's time)
    grep -l "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"\(\.\./\)\{0,1\}$name\"" "$src"/*/*.[ch] 2>/dev/null |
        while read -r file; do
            dir=${file#"$src"/}
            dir=${dir%%/*}
            case $dir in "$room" | tests | fuzz | bench) continue ;; esac
            echo "${file#"$src"/}: includes \"$name\", which is internal to $room/"
        done
done
}
out=$(check; check_internal)
if [ -n "$out" ]; then
    echo "$out"
    echo "wrong-way includes: see docs/rooms.tsv and docs/architecture.md (Rooms)"
    exit 1
fi
echo "includes: every room includes only the rooms below it"
