# What a newcomer meets first: build/bin holds the two programs and nothing
# else, `make demo`'s build does not print make's "Entering directory"
# lines, and the demo (scripts/demo.sh, what `make demo` runs after the
# build) ends by saying where the programs are and how to put them on PATH.
. "$(dirname "$0")/lib.bash"
SRC=$(cd "$DATA/../.." && pwd)
BIN_ABS=$(cd "$BIN" && pwd)

# build/bin: tea and pics only (tests, fuzz harnesses and bench helpers live
# in build/tests, build/fuzz and build/bench)
[ "$(ls "$BIN" | tr '\n' ' ')" = "pics tea " ] || fail "build/bin holds more than tea and pics: $(ls "$BIN" | tr '\n' ' ')"

# every build command of the Makefile keeps make's directory lines out
make -n -C "$SRC" build build-sanitize BUILD_DIR=b SANITIZE_DIR=s >make-n.txt 2>&1 || fail "make -n build failed"
grep 'cmake --build' make-n.txt >builds.txt || fail "make -n shows no cmake --build"
[ "$(wc -l <builds.txt)" -eq 2 ] || fail "expected two cmake --build commands: $(cat builds.txt)"
if grep -v 'MAKEFLAGS=--no-print-directory cmake --build' builds.txt; then
    fail "a build command lets make print 'Entering directory' lines"
fi

# each program names itself in --version, GNU's "PROGRAM (PACKAGE) VERSION"
# (pics used to say "tea 0.1.0")
version=$(sed -n 's/^project(tea VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
run 0 "$TEA" --version
[ "$(cat out.txt)" = "tea $version" ] || fail "tea --version: $(cat out.txt)"
run 0 "$PICS" --version
[ "$(cat out.txt)" = "pics (tea) $version" ] || fail "pics --version: $(cat out.txt)"

need_tearec
DEMO_DIR="$SCRATCH/demo" sh "$SRC/scripts/demo.sh" "$BIN" >demo.txt 2>demo-err.txt ||
    { cat demo.txt demo-err.txt >&2; fail "scripts/demo.sh failed"; }
tail -n 5 demo.txt >end.txt
contains end.txt "tea and pics are in $BIN_ABS"
contains end.txt "export PATH=\"$BIN_ABS:\$PATH\""
contains end.txt "make install"
# the line it gives works: both programs are found on that PATH
line=$(sed -n 's/^ *\(export PATH="[^"]*"\).*/\1/p' end.txt)
[ -n "$line" ] || fail "no export line in the demo's end"
(eval "$line"; [ "$(command -v tea)" = "$BIN_ABS/tea" ] && [ "$(command -v pics)" = "$BIN_ABS/pics" ] &&
    tea --version >/dev/null && pics --version >/dev/null) || fail "the PATH line does not find tea and pics"
