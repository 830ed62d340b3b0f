# Progress lines (common/progress.h): on a pseudo-terminal (util-linux
# `script`) tea gen, convert, info, replay and sweep draw one and clear it; with
# stderr in a file they print nothing; -q silences them on a terminal and
# --progress forces them into a file. Every output is byte-identical with and
# without the line (the same command in two directories, so that the command
# line in the trace header and PICS provenance is the same).
. "$(dirname "$0")/lib.bash"

command -v script >/dev/null 2>&1 || { echo "script (util-linux) not installed: skipped"; exit 0; }

# on_tty DIR LOG CMD...: runs CMD in DIR with stdin, stdout and stderr on a
# pseudo-terminal; what the terminal showed goes to LOG
on_tty() {
    dir=$1 log=$2
    shift 2
    (cd "$dir" && script -qec "$(printf '%q ' "$@")" /dev/null </dev/null >"$SCRATCH/$log") \
        || fail "'$*' failed on a terminal"
}

# in_file DIR CMD...: runs CMD in DIR with stderr in DIR/err.txt
in_file() {
    dir=$1
    shift
    (cd "$dir" && "$@" >out.txt 2>err.txt) || fail "'$*' failed"
}

# has_progress LOG LABEL UNIT: the log holds a drawn line and its clearing
has_progress() {
    grep -qaF "$(printf '\r')$2: " "$1" || { cat -A "$1" >&2; fail "$2: no progress line in $1"; }
    grep -qaF " $3/s" "$1" || { cat -A "$1" >&2; fail "$2: no rate of $3 in $1"; }
    # the line is cleared: carriage return, spaces, carriage return
    grep -qaE "$(printf '\r') +$(printf '\r')" "$1" || { cat -A "$1" >&2; fail "$2: line not cleared in $1"; }
}

mkdir tty file
# tea gen: a known total (cycles), so the share and the time left
on_tty tty gen.log "$TEA" gen --cycles 3e6 -o g.tea
has_progress gen.log "tea gen" cycles
grep -qaF "% " gen.log && grep -qaF " of 3.00M cycles" gen.log && grep -qaF " left" gen.log \
    || { cat -A gen.log >&2; fail "tea gen: no share of the total"; }
in_file file "$TEA" gen --cycles 3e6 -o g.tea
[ ! -s file/err.txt ] || fail "tea gen printed progress into a file"
cmp tty/g.tea file/g.tea || fail "tea gen: output differs with progress"

# -q on a terminal: nothing; --progress into a file: the line
on_tty tty quiet.log "$TEA" gen --cycles 3e6 -q -o q.tea
grep -qaF "tea gen:" quiet.log && fail "tea gen -q drew progress"
in_file file "$TEA" gen --cycles 3e6 --progress -o p.tea
grep -qaF "$(printf '\r')tea gen: " file/err.txt || fail "tea gen --progress drew nothing into a file"

# tea convert: an unknown total (a stream), so records and a rate
on_tty tty convert.log "$TEA" convert g.tea --to tracedoctor -o g.td.zst
has_progress convert.log "tea convert" records
in_file file "$TEA" convert g.tea --to tracedoctor -o g.td.zst
[ ! -s file/err.txt ] || fail "tea convert printed progress into a file"
cmp tty/g.td.zst file/g.td.zst || fail "tea convert: output differs with progress"

# tea info: a native file's records of its index's total (share and time
# left), a TraceDoctor trace's records and a rate; what it prints is the same
for t in g.tea g.td.zst; do
    on_tty tty info-$t.log sh -c '"$0" info "$1" >"info-$1.txt"' "$TEA" $t
    has_progress info-$t.log "tea info" records
    in_file file "$TEA" info $t
    [ ! -s file/err.txt ] || fail "tea info printed progress into a file"
    cmp tty/info-$t.txt file/out.txt || fail "tea info $t: output differs with progress"
done
grep -qaE "tea info: +[0-9.]+% [0-9.]+[kM]? of [0-9.]+[kM]? records, .* left" info-g.tea.log ||
    { cat -A info-g.tea.log >&2; fail "tea info of a native file: no share of the index's records"; }
grep -qaF "% " info-g.td.zst.log && { cat -A info-g.td.zst.log >&2; fail "tea info of a TraceDoctor trace: a share"; }
on_tty tty info-quiet.log "$TEA" info -q g.tea
grep -qaF "tea info:" info-quiet.log && fail "tea info -q drew progress"
in_file file "$TEA" info --progress g.tea
grep -qaF "$(printf '\r')tea info: " file/err.txt || fail "tea info --progress drew nothing into a file"

# tea replay: by frames (the index's total) and as a stream
for threads in 2 1; do
    on_tty tty replay$threads.log "$TEA" replay g.tea --threads $threads --freq 40k -o r$threads
    has_progress replay$threads.log "tea replay" records
    in_file file "$TEA" replay g.tea --threads $threads --freq 40k -o r$threads
    ! grep -v ": warning: " file/err.txt | grep -q . || fail "tea replay printed progress into a file"
    diff -r tty/r$threads file/r$threads >&2 || fail "tea replay --threads $threads: outputs differ with progress"
done
grep -qaF " of 1" replay2.log || grep -qaF "% " replay2.log || { cat -A replay2.log >&2; fail "tea replay by frames: no total"; }

# tea sweep: traces done of the traces given; of one trace, its records
on_tty tty sweep.log "$TEA" sweep g.tea g.tea --seeds 1 --freqs 40k -j 1 -o s.csv
has_progress sweep.log "tea sweep" traces
grep -qaF " of 2 traces" sweep.log || { cat -A sweep.log >&2; fail "tea sweep: no count of traces"; }
# one trace: its records, of the index's total when read by frames
on_tty tty sweep1.log "$TEA" sweep g.tea --seeds 1 --freqs 40k --threads 2 -o s1.csv
has_progress sweep1.log "tea sweep" records
grep -qaF " records, " sweep1.log || { cat -A sweep1.log >&2; fail "tea sweep of one trace: no records"; }
in_file file "$TEA" sweep g.tea g.tea --seeds 1 --freqs 40k -j 1 -o s.csv
! grep -v ": warning: " file/err.txt | grep -q . || fail "tea sweep printed progress into a file"
cmp tty/s.csv file/s.csv || fail "tea sweep: CSV differs with progress"
exit 0
