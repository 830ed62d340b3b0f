# The README and the command reference stay true: docs/commands.md is what
# scripts/gen-commands-doc.sh makes of the commands' --help (their option
# tables), every command has its row in the README's command table, no
# README table cell runs past two lines, every file the README links to
# exists, and the tour's commands run and print what the README shows, up
# to numbers (each run of digits masked) and spacing, '...' standing for
# lines left out.
. "$(dirname "$0")/lib.bash"
SRC=$DATA/../..
README=$SRC/README.md

# --- the reference is generated from the option tables
sh "$SRC/scripts/gen-commands-doc.sh" "$BIN" >commands.md || fail "gen-commands-doc.sh failed"
diff "$SRC/docs/commands.md" commands.md >&2 ||
    fail "docs/commands.md differs from the commands' --help: run sh scripts/gen-commands-doc.sh build/bin > docs/commands.md"

# --- one row per command
for program in tea pics; do
    for command in $("$BIN/$program" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\)  *.*$/\1/p'); do
        grep -q "^| \[\`$program $command\`\](docs/commands.md#$program-$command) | " "$README" ||
            fail "the README's command table has no row for $program $command"
    done
done

# --- no table cell longer than two lines of 80 characters
awk -F'|' '/^\|/ { for (i = 2; i < NF; i++) if (length($i) > 160) { print NR ": " substr($i, 1, 60); bad = 1 } }
           END { exit bad }' "$README" >long.txt || fail "README table cells longer than two lines: $(cat long.txt)"

# --- every relative link of the README names a file
sed -n 's/.*](\([^)#:]*\)[)#].*/\1/p' "$README" | sort -u | while read -r target; do
    [ -e "$SRC/$target" ] || fail "the README links to $target, which does not exist"
done

# --- the tour: each console block's commands, run in order in one directory
mask() { sed 's/[0-9][0-9.e+-]*/#/g; s/[[:space:]][[:space:]]*/ /g; s/ $//'; }
awk '/^```console$/ { inside = 1; next } /^```$/ { inside = 0 } inside' "$README" >tour.txt
[ -s tour.txt ] || fail "the README has no tour"
# check_block: the lines the README shows after the last command appear, in
# order, in its masked output
check_block() {
    [ -n "$last" ] || return 0
    awk 'NR == FNR { if ($0 != "...") want[++n] = $0; next }
         { if (k < n && $0 == want[k + 1]) k++ }
         END { if (k < n) { print want[k + 1]; exit 1 } }' tour/expected tour/got >tour/missing ||
        fail "tour: the output of '$last' lacks the README's line: $(cat tour/missing)"
}
mkdir tour
: >tour/expected
last=""
while IFS= read -r line; do
    case $line in
    '$ '*)
        check_block
        last=${line#\$ }
        (cd tour && PATH="$BIN:$PATH" sh -c "$last" >out.txt 2>&1) || fail "tour: '$last' failed: $(cat tour/out.txt)"
        mask <tour/out.txt >tour/got
        : >tour/expected
        ;;
    '...') echo '...' >>tour/expected ;;
    *) printf '%s\n' "$line" | mask >>tour/expected ;;
    esac
done <tour.txt
check_block
echo ok
