# pics export --format pprof read back by the real pprof (Debian's
# golang-go and golang-github-google-pprof-dev: the test builds pprof from
# that source, offline): pprof -top gives each function's cycles as pics
# report --granularity func does (whole cycles: the export rounds
# cumulatively, so a function is within one cycle of its exact sum) and the
# same total; -diff_base of TEA against golden runs, and its total is
# TEA's total minus golden's (0: TEA's PICS is scaled to the golden
# total); -tagfocus keeps a component, or every component with an event;
# -raw lists the three sample types and the provenance. The same input
# gives the same bytes. Skipped (77) where go or pprof's source is absent.
. "$(dirname "$0")/lib.bash"

PPROF_SRC=/usr/share/gocode/src/github.com/google/pprof
if ! command -v go >/dev/null || [ ! -d "$PPROF_SRC" ]; then
    echo "skipped: no go or no pprof source (Debian's golang-go and golang-github-google-pprof-dev)"
    exit 77
fi
GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$SCRATCH/gocache" \
    go build -o pprof github.com/google/pprof >gobuild.txt 2>&1 || {
    cat gobuild.txt >&2
    fail "cannot build pprof from $PPROF_SRC"
}
PPROF=$SCRATCH/pprof
export HOME="$SCRATCH/home" # pprof keeps nothing there, but may look
mkdir -p "$HOME"

# a program with functions when the examples are built (x86-64 hosts), else addresses
gen_program_trace t.tea
run 0 "$TEA" replay t.tea --period 97 --schemes golden,tea -q -o r
run 0 "$PICS" export --format pprof r/golden.pics -o golden.pb.gz
run 0 "$PICS" export --format pprof r/tea.pics -o tea.pb.gz
[ "$(od -An -tx1 -N3 golden.pb.gz | tr -d ' ')" = 1f8b08 ] || fail "golden.pb.gz is not gzip"
cp golden.pb.gz first.pb.gz # the command line is a comment: the same one again
run 0 "$PICS" export --format pprof r/golden.pics -o golden.pb.gz
cmp -s golden.pb.gz first.pb.gz || fail "two exports of one PICS differ"

# every function: pprof's flat cycles against pics report's, within one cycle
# rounded: a decimal number of cycles to the nearest whole one (halves up)
rounded() {
    local whole=${1%.*} frac=${1#*.}
    [ "${frac:0:1}" -ge 5 ] && whole=$((whole + 1))
    echo "$whole"
}
run 0 "$PICS" report r/golden.pics --granularity func --top 0
grep -E '^ +[0-9.]+% ' out.txt >report.txt || fail "pics report lists no function"
total=$(rounded "$(sed -n 's/^# total \([0-9.]*\) cycles$/\1/p' out.txt)")
run 0 "$PPROF" -top -nodecount=100000 -nodefraction=0 -edgefraction=0 golden.pb.gz
cp out.txt top.txt
contains top.txt " of ${total}cycles total"
checked=0
while read -r share cycles instructions cpi name rest; do
    whole=$(rounded "$cycles")
    line=$(grep -E " ${name//./\\.}\$" top.txt | head -n 1) || fail "pprof -top lists no $name"
    got=${line%%cycles*}
    got=${got// /}
    off=$((got > whole ? got - whole : whole - got))
    [ "$off" -le 1 ] || fail "$name: pprof gives $got cycles, pics report $cycles"
    checked=$((checked + 1))
done <report.txt
[ "$checked" -ge 2 ] || fail "only $checked functions compared"

# -diff_base: TEA against golden, both on the golden total: the difference is 0
run 0 "$PPROF" -top -diff_base golden.pb.gz tea.pb.gz
contains out.txt "Showing nodes accounting for 0, 0% of "
# -tagfocus: one component, or every component with an event
run 0 "$PPROF" -top -tagfocus component=base golden.pb.gz
contains out.txt "tagfocus=component=base"
run 0 "$PPROF" -top -tagfocus event=ST-L1 golden.pb.gz
contains out.txt "tagfocus=event=ST-L1"
# -raw: the sample types, the provenance, the labels
run 0 "$PPROF" -raw golden.pb.gz
contains out.txt "cycles/cycles[dflt] instructions/count samples/count"
contains out.txt "tea PICS: scheme golden, trace digest"
contains out.txt "pics export --format pprof -o golden.pb.gz r/golden.pics"
contains out.txt "component:[base]"
# -sample_index=instructions: the golden PICS's µops, as tea info counts them
commits=$("$TEA" info --json t.tea | sed -n 's/^ *"commits": \([0-9]*\),*$/\1/p' | head -n 1)
excepted=$("$TEA" info t.tea | sed -n 's/^µops: *[0-9]* committed, \([0-9]*\) excepted.*/\1/p')
run 0 "$PPROF" -top -sample_index=instructions golden.pb.gz
contains out.txt " of $((commits + excepted)) total"

# the other formats take no symbol options
run 2 "$PICS" export --format csv --source r/golden.pics
contains err.txt "go with --format pprof"
echo "pprof: OK"
