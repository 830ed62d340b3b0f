# pics export --format speedscope: speedscope's JSON file (its schema's
# required members; every stack's frames exist; each stack is function,
# instruction, component as pics report --format folded writes them, with
# the same weights; the weights sum to the end value, the golden total
# rounded). Then, where Debian's chromium and speedscope's page (the npm
# package, which the project's dependency script fetches into
# build-deps/speedscope) are there, speedscope itself loads the file from a server on 127.0.0.1
# (started and stopped here) in headless chromium: its sandwich view lists
# the profile's name and its frames. The same for a PICS with calling
# contexts (a RISC-V walk replayed with --call-paths): its stacks hold the
# callers, and the sandwich view lists the outermost one.
. "$(dirname "$0")/lib.bash"

SRC=$(cd "$DATA/../.." && pwd)
gen_program_trace t.tea
run 0 "$TEA" replay t.tea --period 97 --schemes golden,tea -q -o r
run 0 "$PICS" export --format speedscope r/golden.pics -o golden.json
run 0 "$PICS" report r/golden.pics --format folded
cp out.txt golden.folded

# the file against the folded stacks, in Python's json module
cat >check.py <<'PYEOF'
import json, sys
f = json.load(open(sys.argv[1]))
assert f["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = [fr["name"] for fr in f["shared"]["frames"]]
assert len(f["profiles"]) == 1
p = f["profiles"][0]
for key in ("type", "name", "unit", "startValue", "endValue", "samples", "weights"):
    assert key in p, key
assert p["type"] == "sampled" and p["unit"] == "none" and p["startValue"] == 0
assert len(p["samples"]) == len(p["weights"])
assert sum(p["weights"]) == p["endValue"], (sum(p["weights"]), p["endValue"])
stacks = [";".join(frames[i] for i in s) + " %d" % w for s, w in zip(p["samples"], p["weights"])]
folded = [l.rstrip("\n") for l in open(sys.argv[2])]
assert stacks == folded, (stacks[:3], folded[:3])
print(p["name"])
PYEOF
python3 check.py golden.json golden.folded >/dev/null || fail "golden.json is not the folded stacks as speedscope's file"
name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["name"])' golden.json)
case $name in "golden cycles"*) ;; *) fail "the profile is named '$name'" ;; esac
run 2 "$PICS" export --format speedscope --source r/golden.pics
contains err.txt "--source goes with --format pprof"

# a PICS with calling contexts: the RISC-V program of the unit tests walked
# by tea gen and replayed with --call-paths; its stacks hold the callers
rv="$BIN/../tests/disasm_prog.riscv64"
[ -f "$rv" ] || fail "$rv is missing (built with the unit tests)"
run 0 "$TEA" gen --elf "$rv" --cycles 100000 --seed 5 -q -o rv.tea
run 0 "$TEA" replay rv.tea --call-paths --schemes golden -q -o rv
run 0 "$PICS" export --format speedscope rv/golden.pics -o callers.json
run 0 "$PICS" report rv/golden.pics --format folded
cp out.txt callers.folded
python3 check.py callers.json callers.folded >/dev/null || fail "callers.json is not the folded stacks as speedscope's file"
# the outermost caller of the deepest stack (caller, ..., function,
# instruction, component)
caller=$(python3 -c 'import sys
stacks = [l.rsplit(" ", 1)[0].split(";") for l in open(sys.argv[1])]
deepest = max(stacks, key=len)
assert len(deepest) >= 5, deepest
print(deepest[0])' callers.folded) || fail "no stack of callers.folded has two callers"

# --- in speedscope's own page
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
PAGE=$SRC/build-deps/speedscope/package/dist/release
if [ -z "$CHROMIUM" ] || [ ! -f "$PAGE/index.html" ]; then
    echo "skipped: the browser half needs chromium and speedscope's page in $PAGE (make deps fetches it)"
    exit 77
fi
mkdir site
cp -r "$PAGE"/. site/
cp golden.json callers.json site/
# a server of site/ on 127.0.0.1 at a port the system picks; stopped by pid at exit
python3 -c '
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
class Quiet(handler.func):
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
print(server.server_address[1], flush=True)
server.serve_forever()
' "$SCRATCH/site" >port.txt 2>server.err &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 1 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)
[ -n "$port" ] || fail "the page's server did not start: $(cat server.err)"
BROWSER_HOME=$SCRATCH/browser
mkdir -p "$BROWSER_HOME/.config" "$BROWSER_HOME/.cache"
# load FILE OUT: speedscope's page on FILE (served from site/), its DOM into OUT
load() {
    HOME=$BROWSER_HOME XDG_CONFIG_HOME=$BROWSER_HOME/.config XDG_CACHE_HOME=$BROWSER_HOME/.cache \
        timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --window-size=1024,4096 \
        --user-data-dir="$BROWSER_HOME/profile" \
        --virtual-time-budget=5000 --dump-dom "http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/$1&view=sandwich" \
        >"$2" 2>chromium.err || { cat chromium.err >&2; fail "chromium failed on speedscope's page with $1"; }
}
load golden.json page.html
contains page.html "$name"
# the sandwich view's table names the hottest function and a component
top=$(python3 -c 'import sys
rows = [l.rsplit(" ", 1) for l in open(sys.argv[1])]
print(max(rows, key=lambda r: int(r[1]))[0].split(";")[0])' golden.folded)
contains page.html "$top"
contains page.html ">base<"
# the context PICS: the page takes its stacks and lists the outermost caller
load callers.json callers.html
contains callers.html "golden cycles"
contains callers.html ">$caller<"
echo "speedscope: OK"
