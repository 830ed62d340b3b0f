# tests/e2e/awk-both/awk, the awk every end-to-end test runs: it passes
# through the first implementation's output and status, reads stdin only when
# awk would, and reports a program on which gawk and mawk disagree.
. "$(dirname "$0")/lib.bash"
[ "$(command -v awk)" = "$E2E_DIR/awk-both/awk" ] || { echo "SKIP: gawk and mawk are not both installed"; exit 77; }

[ "$(printf 'a b\n' | awk '{ print $2 }')" = b ] || fail "stdin program"
printf 'from file\n' >in.txt
# A file operand: stdin is left to whoever reads it next.
[ "$(printf 'from stdin\n' | { awk '{ print }' in.txt; cat; })" = "from file
from stdin" ] || fail "a file operand must leave stdin unread"
# NAME=value operands are assignments, not files: stdin is read.
[ "$(printf 'q\n' | awk '{ print v $0 }' v=1)" = 1q ] || fail "assignment operand"
[ "$(printf 'q\n' | awk -v v=2 -F, -- '{ print v $1 }' -)" = 2q ] || fail "options and -"
printf '{ print "f" $0 }\n' >prog.awk
[ "$(printf 'q\n' | awk -f prog.awk)" = fq ] || fail "-f program"
awk 'BEGIN { print "to stderr" > "/dev/stderr"; exit 3 }' 2>err.txt
status=$?
[ "$status" -eq 3 ] || fail "exit status $status, expected 3"
contains err.txt "to stderr"

# The order of `for (key in array)` is the implementation's: the same lines
# in another order agree.
printf 'k%d\n' 1 2 3 4 5 6 7 8 9 10 11 12 >keys.txt
awk '{ a[$1] = 1 } END { for (k in a) print k }' keys.txt >out.txt 2>err.txt
[ "$(sort out.txt | tr -d '\n')" = "$(sort keys.txt | tr -d '\n')" ] || fail "for-in output"
[ -s err.txt ] && fail "for-in order reported: $(cat err.txt)"

# A program the two implementations answer differently: gawk knows PROCINFO.
TEA_AWK_DISAGREE="$SCRATCH/disagree" awk 'BEGIN { print (PROCINFO["version"] != "") }' >out.txt 2>err.txt
contains err.txt "FAIL: awk implementations disagree"
contains disagree "PROCINFO"
# and the output is the first implementation's (/usr/bin/awk's)
expected=$("$TEA_AWK_FIRST" 'BEGIN { print (PROCINFO["version"] != "") }')
[ "$(cat out.txt)" = "$expected" ] || fail "output is not the first awk's"
echo "ok"
