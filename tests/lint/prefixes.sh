# prefixes.sh SOURCE_DIR ROOM=ARCHIVE...: fails when a name a room exports
# breaks the naming rule of docs/architecture.md ("Modules and prefixes"):
# the functions and data an archive defines (nm) and the types, tags and
# macros its room's headers declare begin with one of the room's prefixes,
# which come from the room table, docs/rooms.tsv (tests/CMakeLists.txt
# passes each room's archives from the same table).
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
    for room in $(awk -F'\t' '!/^#/ && NF >= 4 { print $1 }' "$src/docs/rooms.tsv"); do
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
[ -r "$src/docs/rooms.tsv" ] || { echo "no room table $src/docs/rooms.tsv"; exit 1; }
names "$@" | awk -v table="$src/docs/rooms.tsv" '
BEGIN {
    # The prefixes of each room (the fourth field of the table); capitals are
    # checked against the same list.
    FS = "\t"
    while ((getline line < table) > 0)
        if (line !~ /^#/ && split(line, f, "\t") >= 4)
            p[f[1]] = f[4]
    FS = " "
}
function conforms(room, name,    lower, list, n, i, q) {
    lower = tolower(name)
    if (lower == room || name ~ /^TEA_.*_H$/)          # the room itself; include guards
        return 1
    list = (room in p) ? p[room] : ""
    n = split(list, q, " ")
    for (i = 1; i <= n; i++)
        if (index(lower, q[i]) == 1 || lower "_" == q[i])
            return 1
    return 0
}
!conforms($2, $3) {
    printf "%s: %s does not begin with a prefix of its room %s (%s)\n", $1, $3, $2, (($2 in p) ? p[$2] : "not in docs/rooms.tsv")
    bad = 1
}
END { exit bad }'
