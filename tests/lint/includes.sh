# includes.sh SOURCE_DIR: fails when a room (top-level source folder)
# includes a header of a room it may not depend on. The rooms and what each
# may include (besides itself and system headers) are the ones listed in
# docs/architecture.md ("Rooms"); keep the two in step.
#
#   common/  nothing
#   trace/   common
#   golden/  common trace
#   pics/    common trace
#   tea/     common trace golden pics
#   binary/  common trace pics
#   view/    common trace golden pics binary
#   plot/    common
#   model/   common trace binary record
#   record/  nothing (the Valgrind tool: Valgrind's pub_tool_*.h and its own stream.h)
#
# tools/, tests/ and examples/ sit on top and may include any room.
set -eu
src=${1:-.}
allowed() {
    case $1 in
    common) echo "" ;;
    trace) echo "common" ;;
    golden) echo "common trace" ;;
    pics) echo "common trace" ;;
    tea) echo "common trace golden pics" ;;
    binary) echo "common trace pics" ;;
    view) echo "common trace golden pics binary" ;;
    plot) echo "common" ;;
    model) echo "common trace binary record" ;;
    record) echo "" ;;
    *) return 1 ;;
    esac
}
check() {
for room in common trace golden pics tea binary view plot model record; do
    ok=" $room $(allowed $room) "
    for file in "$src/$room"/*.[ch]; do
        [ -e "$file" ] || continue
        # quoted includes only: "room/x.h", "x.h" (same room) or "../room/x.h"
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file" | while read -r inc; do
            case $inc in
            ../*/*) target=${inc#../}; target=${target%%/*} ;;
            */*) target=${inc%%/*} ;;
            *) target=$room ;;
            esac
            case $ok in
            *" $target "*) ;;
            *) echo "$room/${file##*/}: includes \"$inc\" but $room/ may include only: $room $(allowed $room)" ;;
            esac
        done
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
    for file in "$src"/*/*.[ch]; do
        dir=${file#"$src"/}
        dir=${dir%%/*}
        case $dir in "$room" | tests | fuzz | bench) continue ;; esac
        if grep -q "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"\(\.\./\)\{0,1\}$name\"" "$file"; then
            echo "${file#"$src"/}: includes \"$name\", which is internal to $room/"
        fi
    done
done
}
out=$(check; check_internal)
if [ -n "$out" ]; then
    echo "$out"
    echo "wrong-way includes: see docs/architecture.md (Rooms)"
    exit 1
fi
echo "includes: every room includes only the rooms below it"
