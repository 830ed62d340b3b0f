# pics flamegraph: the SVG is well-formed XML (xmllint); at every depth the
# frames' weights sum to the total, which is the sum of `pics report --format
# folded`, and their widths to the drawing's span; there is one frame per
# distinct stack prefix of the folded output; output is deterministic; no two
# legend entries overlap, long component names included, and none leaves the
# drawing. Then,
# where Debian's chromium is installed, a headless browser runs the SVG's
# own script: a click on a function frame (through the ?x= query, which
# dispatches a click event on it) zooms it to the full width and hides its
# siblings, and a search (?s=) highlights frames and reports the weight they
# cover. The browser keeps its home, XDG directories and profile in the
# scratch directory: it runs under a stand-in user home that must stay empty.
. "$(dirname "$0")/lib.bash"

need_xmllint

# close A B: |A - B| <= TOLERANCE (decimal numbers)
close() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# A program with functions when the examples are built (x86-64 hosts), else
# addresses only: both are flame graphs.
gen_program_trace t.tea
run 0 "$TEA" replay t.tea --period 97 --schemes golden,tea -q -o r

for s in golden tea; do
    # every frame kept (--min-width 0): the exact tiling below
    run 0 "$PICS" flamegraph r/$s.pics --min-width 0 -o $s.svg
    xmllint --noout $s.svg || fail "$s.svg is not well-formed XML"
    run 0 "$PICS" report r/$s.pics --format folded
    cp out.txt $s.folded
    total=$(awk '{ s += $NF } END { print s }' $s.folded)
    [ "$(xpath $s.svg "string(//$G[@id='frames']/@data-total)")" = "$total" ] ||
        fail "$s: data-total is not the folded total $total"
    span=$(xpath $s.svg "string(//$G[@id='frames']/@data-span)")
    [ "$(xpath $s.svg "count(//$G[@class='frame'][@data-d='0'])")" = 1 ] || fail "$s: not one root frame"
    for d in 0 1 2 3; do
        sum=$(xpath $s.svg "sum(//$G[@class='frame'][@data-d='$d']/@data-w)")
        [ "$sum" = "$total" ] || fail "$s: depth $d weights sum to $sum, not $total"
        frames=$(xpath $s.svg "count(//$G[@class='frame'][@data-d='$d'])")
        widths=$(xpath $s.svg "sum(//$G[@class='frame'][@data-d='$d']/$RECT/@width)")
        # each width is rounded to 0.01
        close "$widths" "$span" "$(awk -v n="$frames" 'BEGIN { print 0.005 * n + 0.001 }')" ||
            fail "$s: depth $d widths sum to $widths, not $span"
        if [ $d -gt 0 ]; then
            # one frame per distinct prefix of d frames
            prefixes=$(awk -v d=$d '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = f[1];
                                      for (i = 2; i <= d; i++) p = p ";" f[i]; print p }' $s.folded | sort -u | wc -l)
            [ "$frames" = "$prefixes" ] || fail "$s: depth $d has $frames frames, expected $prefixes"
        fi
    done
done
# sampled PICS are scaled to the golden total
[ "$(xpath tea.svg "string(//$G[@id='frames']/@data-total)")" = \
  "$(xpath golden.svg "string(//$G[@id='frames']/@data-total)")" ] || fail "tea and golden totals differ"
contains golden.svg "golden cycles by function, instruction and component"
# by default frames under 0.1 units merge into '(N others)' per parent: fewer
# frames, the first depth still tiling the total; a legend names every
# component drawn (one entry per distinct component of the folded stacks)
run 0 "$PICS" flamegraph r/golden.pics -o merged.svg
xmllint --noout merged.svg || fail "merged.svg is not well-formed XML"
[ "$(xpath merged.svg "count(//$G[@class='frame'])")" -lt "$(xpath golden.svg "count(//$G[@class='frame'])")" ] ||
    fail "the default flame graph merged no narrow frame"
[ "$(xpath merged.svg "sum(//$G[@class='frame'][@data-d='1']/@data-w)")" = \
  "$(xpath golden.svg "string(//$G[@id='frames']/@data-total)")" ] || fail "merged: depth 1 does not tile the total"
grep -q 'data-n="([0-9]* others)"' merged.svg || fail "merged.svg has no '(N others)' frame"
[ "$(xpath merged.svg "count(//$G[@class='legend-entry'])")" = \
  "$(awk '{ n = split($1, f, ";"); print f[n] }' golden.folded | sort -u | wc -l)" ] ||
    fail "the legend does not list every component"
run 2 "$PICS" flamegraph r/golden.pics --min-width -1 -o bad.svg
run 0 "$PICS" flamegraph r/golden.pics --title 'A & B' -o again.svg
contains again.svg "<title>A &amp; B</title>"
run 0 "$PICS" flamegraph r/golden.pics --min-width 0 -o again.svg
cmp -s golden.svg again.svg || fail "flame graph not deterministic"
# a replay directory stands for its golden PICS, as in every command, and
# --scheme S for its S.pics
run 0 "$PICS" flamegraph r --min-width 0 -o dir.svg
contains err.txt "r is a tea replay directory: taking its r/golden.pics"
cmp -s golden.svg dir.svg || fail "the flame graph of the replay directory is not its golden one"
run 0 "$PICS" flamegraph r/tea.pics --min-width 0 -o tea-file.svg
run 0 "$PICS" flamegraph r --scheme tea --min-width 0 -o tea-dir.svg
contains err.txt "r is a tea replay directory: taking its r/tea.pics"
cmp -s tea-file.svg tea-dir.svg || fail "flamegraph DIR --scheme tea is not DIR/tea.pics"

# legend_boxes SVG: one line "LEFT RIGHT TOP BOTTOM" per legend entry, in
# user units: from its swatch's top left to the end of its name, taken as
# 0.6 em a character (6.6 units at the legend's 11, as the frames' labels
# are estimated), and 12 units down (the 10-unit swatch; the name's baseline
# 9 below the swatch's top, its descenders under 3 more)
legend_boxes() {
    n=$(xpath "$1" "count(//$G[@class='legend-entry'])")
    i=1
    while [ "$i" -le "$n" ]; do
        e="(//$G[@class='legend-entry'])[$i]"
        printf '%s %s %s %s\n' "$(xpath "$1" "string($e/$RECT/@x)")" "$(xpath "$1" "string($e/$RECT/@y)")" \
            "$(xpath "$1" "string($e/*[local-name()='text']/@x)")" "$(xpath "$1" "string($e/*[local-name()='text'])")"
        i=$((i + 1))
    done | awk '{ print $1, $3 + 6.6 * length($4), $2, $2 + 12 }'
}
# legend_fits SVG: no two legend entries' boxes overlap and every box lies
# inside the drawing (its width and height); the boxes are left in SVG.boxes
legend_fits() {
    legend_boxes "$1" >"$1.boxes"
    awk -v w="$(xpath "$1" "string(/*/@width)")" -v h="$(xpath "$1" "string(/*/@height)")" '
        { l[NR] = $1; r[NR] = $2; t[NR] = $3; b[NR] = $4
          if ($1 < 0 || $2 > w + 0 || $3 < 0 || $4 > h + 0) { print "entry " NR " leaves the drawing: " $0; bad = 1 } }
        END { for (i = 1; i <= NR; i++)
                  for (j = i + 1; j <= NR; j++)
                      if (l[i] < r[j] && l[j] < r[i] && t[i] < b[j] && t[j] < b[i]) {
                          print "entries " i " and " j " overlap"; bad = 1 }
              exit bad }' "$1.boxes" >&2 || { cat "$1.boxes" >&2; fail "$1: legend entries overlap or leave the drawing"; }
}
legend_fits merged.svg
# components of several events have long names: each entry as wide as its
# name, in rows that wrap (a golden PICS written here, one cell per
# component, among them the names of 3, 4, 5 and all 9 events)
cat >long.pics <<'EOF'
tea-pics 1.0
scheme golden
unit 720720
trace.digest 0123456789abcdef
trace.first_cycle 0
trace.last_cycle 100
trace.records 100
trace.arch riscv64
trace.clock_hz 3200000000
golden_total 72072000
golden_rules default
period 0
frequency_hz 0
seed 0
jitter -
events all
event_mask 0x1ff
samples 0
lost.busy 0
lost.squashed 0
lost.empty 0
lost.exception 0
lost.end 0
merged 1
cells 9
0x1000 0 14414400 20
0x1004 15 10810800 15
0x1008 31 9369360 13
0x100c 7 8648640 12
0x1010 448 7207200 10
0x1014 56 6486480 9
0x1018 511 5765760 8
0x101c 1 5045040 7
0x1020 9 4324320 6
end
EOF
run 0 "$PICS" flamegraph long.pics -o long.svg
xmllint --noout long.svg || fail "long.svg is not well-formed XML"
[ "$(xpath long.svg "count(//$G[@class='legend-entry'])")" = 9 ] || fail "long.svg: not 9 legend entries"
contains long.svg ">ST-L1,ST-TLB,ST-LLC,DR-L1</text>"
legend_fits long.svg
[ "$(awk '{ print $3 }' long.svg.boxes | sort -u | wc -l)" -ge 2 ] || fail "long.svg: the legend is one row"

# charts are titled with the program's name, else the trace
run 0 "$PICS" plot r/golden.pics -o plot.svg
run 0 "$TEA" sweep t.tea --seeds 1 --freqs 40k,80k -q -o sweep.csv --svg sweep.svg
if [ -x "$ELF" ]; then
    contains golden.svg "<title>lbm: golden cycles"
    contains plot.svg "<title>lbm: cycle stacks of the top 10 instructions</title>"
    contains sweep.svg "<title>lbm: error against sampling frequency (1 seed, insn-component)</title>"
else
    contains golden.svg "<title>the trace: golden cycles"
    contains plot.svg "<title>Cycle stacks of the top 10 instructions (trace "
    contains sweep.svg "<title>t: error against sampling frequency (1 seed, insn-component)</title>"
fi

# bad input: usage errors and a missing file, nothing written
run 2 "$PICS" flamegraph r/golden.pics
contains err.txt "missing -o OUT.svg"
run 2 "$PICS" flamegraph -o x.svg
run 1 "$PICS" flamegraph missing.pics -o x.svg
[ ! -e x.svg ] || fail "a failed flame graph left x.svg"

# --- in a browser
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "chromium not installed: the browser checks are skipped"
    exit 0
fi
# The browser must leave the user's home alone: it runs here under a
# stand-in home (and XDG directories in it) that has to stay empty.
USER_HOME=$SCRATCH/user-home
mkdir "$USER_HOME" || fail "cannot make $USER_HOME"
export HOME=$USER_HOME XDG_CONFIG_HOME=$USER_HOME/.config XDG_CACHE_HOME=$USER_HOME/.cache
# home_untouched: fails when anything was written into the stand-in home
home_untouched() {
    [ -z "$(ls -A "$USER_HOME")" ] ||
        fail "chromium wrote into the user's home: $(cd "$USER_HOME" && find . -maxdepth 3 | sort | tr '\n' ' ')"
}
# Everything the browser writes (its profile, crash reports, dconf's and
# fontconfig's caches) goes under $BROWSER_HOME, which it takes for its home.
BROWSER_HOME=$SCRATCH/browser
mkdir -p "$BROWSER_HOME/.config" "$BROWSER_HOME/.cache" || fail "cannot make $BROWSER_HOME"
# dump URL OUT: the document after its script ran (headless, its profile in
# the scratch directory; --no-sandbox as root in containers)
dump() {
    HOME=$BROWSER_HOME XDG_CONFIG_HOME=$BROWSER_HOME/.config XDG_CACHE_HOME=$BROWSER_HOME/.cache \
        timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$BROWSER_HOME/profile" \
        --dump-dom "$1" >"$2" 2>chromium.err || { cat chromium.err >&2; fail "chromium failed on $1"; }
    home_untouched
    # the serialized DOM of an SVG document is XML again
    xmllint --noout "$2" || fail "the DOM chromium dumped for $1 is not XML"
}
SVG="file://$SCRATCH/golden.svg"
dump "$SVG" plain.dom
[ "$(xpath plain.dom "string(//$G[@id='frames']/@data-ready)")" = 1 ] || fail "the script did not run"

# the widest function frame that is not the whole width
target=$(xpath golden.svg "//$G[@class='frame'][@data-d='1']/@id" | tr ' ' '\n' | sed -n 's/^id="\(.*\)"$/\1/p' |
    while read -r id; do echo "$(xpath golden.svg "string(//$G[@id='$id']/@data-w)") $id"; done |
    sort -k1,1nr | awk -v t="$total" '$1 < t { print $2; exit }')
[ -n "$target" ] || { echo "one function only: no zoom to check"; exit 0; }
dump "$SVG?x=$target" zoom.dom
[ "$(xpath zoom.dom "string(//$G[@id='$target']/@class)")" = "frame zoomed" ] || fail "$target not zoomed"
width=$(xpath zoom.dom "string(//$G[@id='$target']/$RECT/@width)")
close "$width" "$span" 0.01 || fail "zoomed frame is $width wide, not $span"
[ "$(xpath zoom.dom "string(//$G[@id='f0']/$RECT/@width)")" = "$span.00" ] ||
    close "$(xpath zoom.dom "string(//$G[@id='f0']/$RECT/@width)")" "$span" 0.01 || fail "root not full width"
# every other function frame hidden; the zoomed frame's children fill it
others=$(xpath zoom.dom "count(//$G[@class='frame'][@data-d='1'][@id!='$target'])")
hidden=$(xpath zoom.dom "count(//$G[@class='frame'][@data-d='1'][@id!='$target'][contains(@style,'display: none')])")
[ "$others" = "$hidden" ] || fail "$hidden of $others sibling frames hidden after the zoom"
o=$(xpath golden.svg "string(//$G[@id='$target']/@data-o)")
w=$(xpath golden.svg "string(//$G[@id='$target']/@data-w)")
kids=$(xpath zoom.dom "sum(//$G[@class='frame'][@data-d='2'][not(contains(@style,'none'))]/$RECT/@width)")
close "$kids" "$span" 0.05 || fail "the zoomed frame's children are $kids wide, not $span"
[ "$(xpath zoom.dom "sum(//$G[@class='frame'][@data-d='2'][not(contains(@style,'none'))]/@data-w)")" = "$w" ] ||
    fail "the visible children do not add up to the zoomed frame"
unzoom=$(xpath zoom.dom "string(//*[@id='unzoom']/@style)")
case "$unzoom" in *none*) fail "Reset zoom hidden while zoomed" ;; esac
[ "$o" -ge 0 ] || fail "no offset"

# search: case-insensitive text over frame names; the weight covered counts
# nested matches once (here only components match)
term=st-l1
expected=$(awk -F';' '{ n = split($3, c, " "); if (index(tolower(c[1]), "st-l1")) s += c[2] } END { print s + 0 }' golden.folded)
dump "$SVG?s=$term" search.dom
[ "$(xpath search.dom "string(//$G[@id='frames']/@data-matched)")" = "$expected" ] ||
    fail "search '$term' covered $(xpath search.dom "string(//$G[@id='frames']/@data-matched)"), expected $expected"
matches=$(xpath search.dom "count(//$G[contains(@class,'match')])")
expected_matches=$(xpath golden.svg "count(//$G[@class='frame'][contains(translate(@data-n,'STL','stl'),'$term')])")
[ "$matches" = "$expected_matches" ] || fail "$matches frames highlighted, expected $expected_matches"
[ "$expected" -gt 0 ] || echo "note: no ST-L1 cycles in this trace"
exit 0
