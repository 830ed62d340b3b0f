# rooms.sh SOURCE_DIR: fails when the room table, docs/rooms.tsv, drifts
# from the tree or from docs/architecture.md, or when a doc names a header
# that does not exist:
#   - every top-level folder with C sources or headers (but tests/, fuzz/,
#     bench/, examples/ and include/, which sit outside the rooms) is a room
#     of the table, and every room of the table such a folder with a
#     README.md;
#   - the table of docs/architecture.md ("Rooms") lists the same rooms, each
#     with the rooms it may include that docs/rooms.tsv gives;
#   - every header docs/*.md, the rooms' READMEs and the rooms' sources name
#     as ROOM/NAME.h (or include/NAME.h) exists, and every module the docs
#     name as `ROOM/NAME` has its NAME.c or NAME.h.
set -eu
src=${1:-.}
table="$src/docs/rooms.tsv"
arch="$src/docs/architecture.md"
[ -r "$table" ] || { echo "no room table $table"; exit 1; }
outside=" tests fuzz bench examples include "

# table_rooms: "ROOM INCLUDES" per line, INCLUDES sorted, '-' for none
table_rooms() {
    awk -F'\t' '!/^#/ && NF >= 4 {
        n = split($2, r, " "); s = ""
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
        for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") r[i]
        print $1, s }' "$table"
}

# doc_rooms: the same from docs/architecture.md's table: its rows
# "| `ROOM/` | owns | may include | library |"; '*' for "every room", '-'
# where no room is named
doc_rooms() {
    sed -n 's/^| `\([a-z]*\)\/` | [^|]* | \([^|]*\) | .*$/\1|\2/p' "$arch" | while IFS='|' read -r room includes; do
        case $includes in
        *"every room"*) echo "$room *" ;;
        *)
            named=$(echo "$includes" | grep -o '`[a-z]*/[^`]*`' | sed 's/^`\([a-z]*\)\/.*/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//')
            echo "$room ${named:--}"
            ;;
        esac
    done
}

problems() {
    # folders and rooms
    for dir in "$src"/*/; do
        name=$(basename "$dir")
        case $outside in *" $name "*) continue ;; esac
        case $name in build* | docs | scripts | shared) continue ;; esac
        ls "$dir"*.[ch] >/dev/null 2>&1 || continue
        table_rooms | grep -q "^$name " || echo "$name/ holds C files but is no room of docs/rooms.tsv"
    done
    table_rooms | while read -r room _; do
        [ -d "$src/$room" ] || echo "docs/rooms.tsv: room $room has no folder"
        [ -f "$src/$room/README.md" ] || echo "docs/rooms.tsv: room $room has no README.md"
    done
    # the two tables
    table_rooms >"$tmp/table.txt"
    doc_rooms | sort >"$tmp/doc.txt"
    sort "$tmp/table.txt" >"$tmp/table-sorted.txt"
    diff "$tmp/table-sorted.txt" "$tmp/doc.txt" | sed -n 's/^< /docs\/rooms.tsv has: /p; s/^> /docs\/architecture.md has: /p'
    # headers named in the docs, the READMEs and the sources' comments, and
    # modules the docs name as `ROOM/NAME`
    # (one grep over every file: a process per file is slow on a busy machine)
    rooms_re=$(table_rooms | cut -d' ' -f1 | tr '\n' '|' | sed 's/|$//')
    # shellcheck disable=SC2086 # the globs are meant to expand
    grep -oHE "\b($rooms_re|include)/[a-z_0-9]+\.h\b" "$src"/docs/*.md "$src"/*/README.md "$src"/*/*.[ch] 2>/dev/null |
        sort -u | while IFS=: read -r doc header; do
            [ -f "$src/$header" ] || echo "${doc#"$src"/}: names $header, which does not exist"
        done
    grep -oHE "\`($rooms_re)/[a-z_0-9]+\`" "$src"/docs/*.md "$src"/*/README.md 2>/dev/null | tr -d '\`' |
        sort -u | while IFS=: read -r doc module; do
            [ -e "$src/$module.c" ] || [ -e "$src/$module.h" ] || [ -e "$src/$module" ] ||
                echo "${doc#"$src"/}: names $module, which is no module (no $module.c or .h)"
        done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(problems)
if [ -n "$out" ]; then
    echo "$out"
    echo "the room table drifted: docs/rooms.tsv, docs/architecture.md (Rooms) and the tree must agree"
    exit 1
fi
echo "rooms: docs/rooms.tsv, docs/architecture.md and the tree agree; every header the docs name exists"
