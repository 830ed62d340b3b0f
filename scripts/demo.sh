#!/bin/sh
# The main job on an embedded default: record the lbm example (a stencil whose
# one load misses the LLC) under valgrind through the core model, describe
# the trace, replay it through the golden reference and the five sampling
# schemes, and show the top instructions and how wrong each profiler is.
# Usage: scripts/demo.sh BIN_DIR   (run by `make demo`)
set -eu
BIN=${1:-build/bin}
OUT=${DEMO_DIR:-build/demo}
EXAMPLES=$BIN/../examples
mkdir -p "$OUT"

echo "== tea record -- $EXAMPLES/lbm"
"$BIN/tea" record -o "$OUT/lbm.tea" -- "$EXAMPLES/lbm"
echo
echo "== tea info $OUT/lbm.tea"
"$BIN/tea" info "$OUT/lbm.tea"
span=$("$BIN/tea" info --json "$OUT/lbm.tea" | sed -n 's/^  "cycles": \([0-9]*\),$/\1/p')
period=$((span / 2500))
echo
echo "== tea replay: golden, TEA, NCI-TEA, IBS, SPE, RIS every $period cycles (~2,500 samples)"
"$BIN/tea" replay "$OUT/lbm.tea" --period "$period" -o "$OUT/replay"
echo
echo "== the top 3 instructions of the golden PICS (cycles summed over components)"
"$BIN/pics" export "$OUT/replay/golden.pics" |
    awk -F, 'NR > 1 { t[$1] += $NF } END { for (p in t) printf "%14.1f cycles  %s\n", t[p], p }' | sort -g -r | head -n 3
echo
echo "== their largest cells (pc,psv,component,cycles)"
"$BIN/pics" export "$OUT/replay/golden.pics" | awk -F, 'NR > 1 { print $NF, $0 }' | sort -g -r | head -n 3 | cut -d' ' -f2-
echo
echo "== pics error: where TEA and IBS go wrong"
"$BIN/pics" error "$OUT/replay/tea.pics" "$OUT/replay/golden.pics" --top 3
"$BIN/pics" error "$OUT/replay/ibs.pics" "$OUT/replay/golden.pics" --top 3
