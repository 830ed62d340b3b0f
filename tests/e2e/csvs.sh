# Every CSV the tools write loads as a plain table: Python's csv module reads
# the documented header as the first row, then rows only (no comment or blank
# line, every row as wide as the header), as many as the command writes; and,
# where python3-pandas is installed, pandas.read_csv(path) without options
# gives the documented columns and row count. The row counts come from the
# inputs: 2 frequencies x 5 schemes for the replay, 2 traces x 5 schemes x
# 2 frequencies x 2 seeds for the sweep, etc.
source "$(dirname "$0")/lib.bash"

command -v python3 >/dev/null || fail "python3 is needed (scripts/install-deps.sh installs it)"

run 0 "$TEA" gen --workload mixed --cycles 300000 --seed 3 -o a.tea
run 0 "$TEA" gen --workload memory --cycles 200000 --seed 4 -o b.tea
printf '0x0 0x12000 low\n0x12000 0x100000000 high\n' >syms.txt

RESULTS=trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records,noise_floor_insn_component,noise_floor_insn,noise_floor_func,rules,error_ci95_low,error_ci95_high,run_cycles,run_cycles_ci95_low,run_cycles_ci95_high,run_instructions,samples_target
# list.txt: PATH|HEADER|ROWS (ROWS "-": at least one row, the count depends on the trace)
: >list.txt
expect() { printf '%s|%s|%s\n' "$1" "$2" "$3" >>list.txt; }

run 0 "$TEA" replay a.tea --freq 4k,1M --symbols syms.txt -o rep
expect rep/summary.csv "$RESULTS" 10
run 0 "$TEA" sweep a.tea b.tea --freqs 1k,100k --seeds 2 --quiet --symbols syms.txt -o sweep.csv
expect sweep.csv "$RESULTS" 40
run 0 "$PICS" table sweep.csv --freq 100k --format csv -o table.csv
# 2 traces and the mean and max rows; 5 schemes, each with _min and _max (2 seeds)
expect table.csv "trace,granularity,freq_hz,tea,nci,ibs,spe,ris,tea_min,tea_max,tea_ci_low,tea_ci_high,nci_min,nci_max,nci_ci_low,nci_ci_high,ibs_min,ibs_max,ibs_ci_low,ibs_ci_high,spe_min,spe_max,spe_ci_low,spe_ci_high,ris_min,ris_max,ris_ci_low,ris_ci_high" 4
run 0 "$PICS" export rep/golden.pics -o export.csv
expect export.csv "pc,psv,component,cycles" -
run 0 "$PICS" report rep/tea-1000000hz.pics --golden rep/golden.pics --format csv --top 0 -o report.csv
expect report.csv "rank,address,function,location,disassembly,source,component,psv,instructions,samples,cycles,share,golden_cycles,golden_share,error_contribution,share_ci_low,share_ci_high" -
run 0 "$PICS" diff rep/tea-1000000hz.pics rep/golden.pics --format csv -o diff.csv
expect diff.csv "pc,location,psv,component,a_cycles,b_cycles,diff_cycles,share" -
run 0 "$PICS" correlate rep/golden.pics -o correlate.csv
# one trace and the pooled 'all': 9 events each
expect correlate.csv "trace,event,instructions,occurrences,cycles,r" 18
run 0 "$TEA" topdown a.tea --format csv -o topdown.csv
expect topdown.csv "function,view,category,component,value,unit,percent,percent_ci_low,percent_ci_high" -
run 0 "$TEA" stalls a.tea --format csv -o stalls.csv
expect stalls.csv "group,uops,stalls,cycles,p50,p90,p99,p99.9,max,mean" -
run 0 "$TEA" stalls a.tea --format csv --histogram -o histogram.csv
expect histogram.csv "length,base,any-event,ST-L1,ST-TLB,ST-LLC,DR-L1,DR-TLB,DR-SQ,FL-MB,FL-EX,FL-MO" -

cat >check.py <<'EOF'
import csv, sys
try:
    import pandas
except ImportError:
    pandas = None
bad = 0
for line in open("list.txt"):
    path, header, rows = line.rstrip("\n").split("|")
    want = header.split(",")
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    if not table or table[0] != want:
        print(f"{path}: first row {table[0] if table else None}, expected {want}")
        bad = 1
        continue
    for n, row in enumerate(table[1:], 2):
        if len(row) != len(want) or not row or row[0].startswith("#") or row == want:
            print(f"{path}: line {n} is not a row: {row}")
            bad = 1
    count = len(table) - 1
    if (rows == "-" and count < 1) or (rows != "-" and count != int(rows)):
        print(f"{path}: {count} rows, expected {rows}")
        bad = 1
    if pandas is not None:
        frame = pandas.read_csv(path)
        if list(frame.columns) != want or len(frame) != count:
            print(f"{path}: pandas reads columns {list(frame.columns)} and {len(frame)} rows")
            bad = 1
print("pandas:", "checked" if pandas is not None else "not installed, skipped")
sys.exit(bad)
EOF
python3 check.py >py.txt 2>&1 || { cat py.txt >&2; fail "a CSV does not load as a plain table"; }
cat py.txt

# the JSON beside the results CSVs parses and names the traces in CSV order
python3 - <<'EOF' || fail "summary.json / sweep.json"
import json
s = json.load(open("rep/summary.json"))
assert s["command"] == "replay" and [t["name"] for t in s["traces"]] == ["a"], s
w = json.load(open("sweep.json"))
assert w["command"] == "sweep" and [t["name"] for t in w["traces"]] == ["a", "b"], w
assert all(len(t["digest"]) == 16 and t["cycles"] > 0 for t in w["traces"]), w
EOF
echo ok
