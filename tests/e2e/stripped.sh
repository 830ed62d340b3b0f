# Stripped programs as Debian ships them: the functions of code no symbol
# names come from the unwind tables (fn_HEX, binary/unwind.h), and a debug
# file not on disk is fetched by build-id from debuginfod servers when
# DEBUGINFOD_URLS names them, never otherwise.
#
# 1. Debian's own /usr/bin/gzip (stripped) compressing a generated file:
#    under 10 % of the cycles in unnamed code at function granularity, and
#    every fn_HEX row of gzip is an FDE `readelf --debug-dump=frames` lists.
# 2. A -g program split into a stripped binary and a debug file (objcopy
#    --only-keep-debug) served by Debian's debuginfod (-F DIR, a free port;
#    Debian's 0.188 has no option to listen on 127.0.0.1 alone, so it listens
#    on every interface and is reached at 127.0.0.1), started and stopped here
#    by its pid: with DEBUGINFOD_URLS the report names the functions and
#    --source shows lines; without it the names come from the unwind tables
#    and the server sees no request for the file.
# Skipped (77) where valgrind, the tearec tool, gzip, debuginfod or
# objcopy are absent.
. "$(dirname "$0")/lib.bash"

need_tearec
[ -x /usr/bin/gzip ] || { echo "SKIP: /usr/bin/gzip is missing"; exit 77; }
command -v readelf >/dev/null && command -v objcopy >/dev/null ||
    { echo "SKIP: readelf or objcopy is missing (binutils)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }

# --- 1. Debian's gzip ------------------------------------------------------------
readelf -S /usr/bin/gzip | grep -q ' \.symtab ' && echo "note: /usr/bin/gzip is not stripped here"
# 4 MB of text, the same every time
seq 0 99999 | sed 's/.*/& line & of the generated file &/' >gen.txt
run 0 timeout 300 "$TEA" record -q -o gz.tea --max-instructions 20000000 -- /usr/bin/gzip -9 -c gen.txt
run 0 "$TEA" replay gz.tea --schemes golden -o gz -q
run 0 "$PICS" report gz/golden.pics --granularity func --top 10
contains out.txt "fn_"
head -n 3 out.txt | grep -q "symbols from .*\.eh_frame" || grep -q "\.eh_frame" out.txt ||
    fail "the report does not say the names come from .eh_frame"
run 0 "$PICS" report gz/golden.pics --granularity func --top 10 --format csv --addresses elf -o top10.csv
readelf --debug-dump=frames /usr/bin/gzip >frames.txt || fail "readelf --debug-dump=frames /usr/bin/gzip"
python3 - top10.csv frames.txt <<'EOF' || fail "gzip's functions do not agree with its FDEs"
import csv, re, sys
fdes = {}
for line in open(sys.argv[2]):
    m = re.search(r" FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
    if m:
        fdes[int(m.group(1), 16)] = int(m.group(2), 16)
unknown = named = 0.0
for row in csv.DictReader(open(sys.argv[1])):
    share = float(row["share"])
    if row["function"].startswith("[unknown"):
        unknown += share
        continue
    named += share
    m = re.fullmatch(r"fn_([0-9a-f]+)", row["function"])
    if m and row["object"] == "gzip":
        start = int(m.group(1), 16)
        if start not in fdes:
            sys.exit("%s: readelf lists no FDE starting at 0x%x" % (row["function"], start))
        if int(row["address"], 16) != start:
            sys.exit("%s: shown at %s, its FDE starts at 0x%x" % (row["function"], row["address"], start))
print("top 10: %.2f%% named, %.2f%% unnamed" % (100 * named, 100 * unknown))
if unknown >= 0.10:
    sys.exit("%.1f%% of the cycles of the top 10 functions are in unnamed code" % (100 * unknown))
EOF

# the hottest fn_HEX: annotate shows it, --start-at starts there
top=$(python3 -c 'import csv, sys; print(next(r["function"] for r in csv.DictReader(open(sys.argv[1])) if r["function"].startswith("fn_")))' top10.csv)
run 0 "$PICS" annotate gz/golden.pics --symbol "$top"
contains out.txt "$top"
run 0 timeout 300 "$TEA" record -q -o start.tea --start-at "$top" --max-instructions 5000 -- /usr/bin/gzip -9 -c gen.txt
"$TEA" info --json start.tea >start.json || fail "tea info start.tea"
[ "$(json_number start.json commits)" -eq 5000 ] || fail "--start-at $top recorded $(json_number start.json commits) instructions"
run 0 "$TEA" replay start.tea --schemes golden -o start -q
run 0 "$PICS" report start/golden.pics --granularity func --top 0
contains out.txt "$top"

# --- 2. debuginfod ---------------------------------------------------------------
if ! command -v debuginfod >/dev/null; then
    echo "SKIP: debuginfod (Debian package debuginfod) is missing: the debuginfod half is not run"
    exit 77
fi
cat >dbg.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) static unsigned long debuginfod_hot(unsigned long n)
{
    unsigned long x = 7;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + i;
    return x;
}
int main(void)
{
    printf("%lu\n", debuginfod_hot(200000) & 1);
    return 0;
}
EOF
cc -O1 -g -o dbg.full dbg.c || fail "cannot build dbg.c"
mkdir served
objcopy --only-keep-debug dbg.full served/dbg.debug || fail "objcopy --only-keep-debug"
strip -o dbg dbg.full || fail "strip"
buildid=$(readelf -n dbg | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$buildid" ] || fail "dbg has no build-id"
run 0 timeout 120 "$TEA" record -q -o dbg.tea -- ./dbg
run 0 "$TEA" replay dbg.tea --schemes golden -o dbgr -q

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F "$SCRATCH/served" -p "$port" -d "$SCRATCH/debuginfod.sqlite" -t 0 -g 0 >debuginfod.log 2>&1 &
server=$!
stop_server() {
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
}
trap stop_server EXIT
# requests_for KIND: the server's count of requests of that kind (/metrics)
requests_for() {
    python3 - "$port" "$1" <<'EOF'
import re, sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(sum(int(float(m.group(1))) for m in
          re.finditer(r'^http_requests_total\{type="%s"\} (\S+)' % sys.argv[2], text, re.M)))
EOF
}
# wait until it serves the debug file (it scans the directory at start)
python3 - "$port" "$buildid" <<'EOF' || { cat debuginfod.log >&2; fail "debuginfod did not serve the debug file"; }
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen("http://127.0.0.1:%s/buildid/%s/debuginfo" % (sys.argv[1], sys.argv[2]), timeout=2)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(1)
EOF
export TEA_DEBUG_ROOT="$SCRATCH/no-debug-root"

# without DEBUGINFOD_URLS: names from .eh_frame, no request reaches the server
before=$(requests_for debuginfo)
run 0 env -u DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH="$SCRATCH/cache" "$PICS" report dbgr/golden.pics --granularity func --top 3
contains out.txt "fn_"
grep -q debuginfod_hot out.txt && fail "without DEBUGINFOD_URLS the report named debuginfod_hot"
after=$(requests_for debuginfo)
[ "$before" = "$after" ] || fail "without DEBUGINFOD_URLS the server got $((after - before)) debuginfo requests"
[ ! -e cache ] || fail "without DEBUGINFOD_URLS a debuginfod cache was made"

# with it: the functions by name, the source lines
run 0 env DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$SCRATCH/cache" \
    "$PICS" report dbgr/golden.pics --granularity func --top 3
contains out.txt debuginfod_hot
[ "$(requests_for debuginfo)" -gt "$after" ] || fail "the report made no request to the server"
run 0 env DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$SCRATCH/cache" \
    "$PICS" report dbgr/golden.pics --top 3 --source
contains out.txt "dbg.c:"
stop_server
trap - EXIT
pgrep -f "debuginfod -F $SCRATCH" >/dev/null && fail "the debuginfod server is still running"
echo ok
