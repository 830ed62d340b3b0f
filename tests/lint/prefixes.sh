# prefixes.sh SOURCE_DIR ROOM=ARCHIVE...: fails when a name a room exports
# breaks the naming rule of docs/architecture.md ("Modules and prefixes"):
# the functions and data an archive defines (nm) and the types, tags and
# macros its room's headers declare begin with the room's prefix; common/
# and tools/ use their modules' own prefixes. Keep the lists in step with
# that section.
set -eu
src=$1
shift
names() { # prints "WHERE ROOM NAME" for every exported name
    for arg in "$@"; do
        room=${arg%%=*}
        archive=${arg#*=}
        [ -f "$archive" ] || { echo "no archive $archive" >&2; exit 1; }
        # names beginning with __ are the compiler's (ASan's __odr_asan.NAME)
        nm -g --defined-only "$archive" |
            awk -v w="$archive" -v r="$room" 'NF == 3 && $2 ~ /^[TDBRC]$/ && $3 !~ /^__/ { print w, r, $3 }'
    done
    for room in common trace golden pics tea binary view plot model record tools; do
        for header in "$src/$room"/*.h; do
            [ -e "$header" ] || continue
            sed -n -e 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
                -e 's/^typedef[^;(]*[[:space:]*]\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' \
                -e 's/^}[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' \
                -e 's/^\(typedef[[:space:]]\{1,\}\)\{0,1\}\(struct\|enum\|union\)[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*{.*/\3/p' \
                "$header" | awk -v w="$header" -v r="$room" '{ print w, r, $1 }'
        done
    done
}
names "$@" | awk '
BEGIN {
    # The prefixes of each room; capitals are checked against the same list.
    p["common"] = "error_ rng_ outfile_ outdir_ cleanup_ json_ csv_ exact_ textline_ threads_ progress_ search_ stats_ tea_ok tea_err_"
    p["tools"] = "cli_ palette_ study_ model_options_ cmd_"
}
function conforms(room, name,    lower, list, n, i, q) {
    lower = tolower(name)
    if (lower == room || name ~ /^TEA_.*_H$/)          # the room itself; include guards
        return 1
    list = (room in p) ? p[room] : room "_"
    n = split(list, q, " ")
    for (i = 1; i <= n; i++)
        if (index(lower, q[i]) == 1 || lower "_" == q[i])
            return 1
    return 0
}
!conforms($2, $3) {
    printf "%s: %s does not begin with a prefix of its room %s (%s)\n", $1, $3, $2, (($2 in p) ? p[$2] : $2 "_")
    bad = 1
}
END { exit bad }'
