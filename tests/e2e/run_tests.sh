# scripts/run-tests, what `make test` runs: both halves run whatever the
# first gives, the summary names each half's result and failed tests, and the
# exit status says which failed (1 plain, 2 sanitized, 3 both). A stand-in
# for make plays each half: it logs the target and fails as told.
. "$(dirname "$0")/lib.bash"
SRC=$(cd "$DATA/../.." && pwd)

# fakemake: "--no-print-directory TARGET"; FAIL_PLAIN / FAIL_SANITIZED say
# how a half fails: "tests" (ctest's list of failed tests) or "build" (none)
cat >fakemake <<'EOF'
#!/bin/sh
echo "$2" >>targets.txt
case "$2" in
test-plain) dir=$BUILD_DIR how=${FAIL_PLAIN:-} ;;
test-sanitize) dir=$SANITIZE_DIR how=${FAIL_SANITIZED:-} ;;
*) exit 9 ;;
esac
echo "ran $2"
[ -n "$how" ] || exit 0
if [ "$how" = tests ]; then
    mkdir -p "$dir/Testing/Temporary"
    printf '12:e2e.table\n40:unit.test_pics\n' >"$dir/Testing/Temporary/LastTestsFailed.log"
fi
exit 2
EOF
chmod +x fakemake

# half PLAIN SANITIZED STATUS: runs scripts/run-tests with the halves failing
# as told and checks that both ran, in order, and the exit status
half() {
    rm -f targets.txt
    FAIL_PLAIN=$1 FAIL_SANITIZED=$2 BUILD_DIR=b SANITIZE_DIR=s run "$3" sh "$SRC/scripts/run-tests" ./fakemake
    [ "$(tr '\n' ' ' <targets.txt)" = "test-plain test-sanitize " ] ||
        fail "halves run: $(tr '\n' ' ' <targets.txt), expected test-plain test-sanitize"
}

half "" "" 0
contains out.txt "make test: plain build (b): passed"
contains out.txt "make test: sanitized build, ASan+UBSan (s): passed"
contains err.txt "ran test-plain"

# a failed test in the plain half: the sanitized half still runs
mkdir -p s/Testing/Temporary
echo "3:stale.from.an.earlier.run" >s/Testing/Temporary/LastTestsFailed.log
half tests "" 1
contains out.txt "make test: plain build (b): FAILED: e2e.table unit.test_pics"
contains out.txt "make test: sanitized build, ASan+UBSan (s): passed"

# the sanitized build fails to build: its line says so, an earlier run's list is not shown
echo "3:stale.from.an.earlier.run" >s/Testing/Temporary/LastTestsFailed.log
half "" build 2
contains out.txt "make test: plain build (b): passed"
contains out.txt "make test: sanitized build, ASan+UBSan (s): FAILED (its build or ctest itself failed; see above)"
if grep -q stale out.txt; then fail "a stale list of failed tests was reported"; fi

half tests tests 3
contains out.txt "(b): FAILED: e2e.table unit.test_pics"
contains out.txt "(s): FAILED: e2e.table unit.test_pics"

# the Makefile's test target is this script
grep -q 'sh scripts/run-tests "$(MAKE)"' "$SRC/Makefile" || fail "make test does not run scripts/run-tests"
