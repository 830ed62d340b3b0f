#!/bin/sh
# The main job on an embedded default: generate a synthetic trace of the
# `mixed` workload through the core model, describe it, replay it through the
# golden reference and the five sampling schemes, and show how wrong each is.
# Usage: scripts/demo.sh BIN_DIR   (run by `make demo`)
set -eu
BIN=${1:-build/bin}
OUT=${DEMO_DIR:-build/demo}
mkdir -p "$OUT"

echo "== tea gen: 10,000,000 cycles of the 'mixed' workload through the core model"
"$BIN/tea" gen --workload mixed --cycles 10000000 --seed 1 -o "$OUT/mixed.tea"
echo
echo "== tea info $OUT/mixed.tea"
"$BIN/tea" info "$OUT/mixed.tea"
echo
echo "== tea replay: golden, TEA, NCI-TEA, IBS, SPE, RIS at 1 MHz (period 3200 cycles, ~3,100 samples)"
"$BIN/tea" replay "$OUT/mixed.tea" --freq 1M -o "$OUT/replay"
echo
echo "== pics error: where TEA and IBS go wrong (instruction x component)"
"$BIN/pics" error "$OUT/replay/tea.pics" "$OUT/replay/golden.pics" --top 3
"$BIN/pics" error "$OUT/replay/ibs.pics" "$OUT/replay/golden.pics" --top 3
echo
echo "== the golden PICS's largest cells (pics export, sorted by cycles)"
"$BIN/pics" export "$OUT/replay/golden.pics" | sort -t, -k4 -g -r | head -n 5
