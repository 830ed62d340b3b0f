#!/bin/sh
# The main job on an embedded default: generate a synthetic trace of the
# `mixed` workload through the core model and describe it.
# Usage: scripts/demo.sh BIN_DIR   (run by `make demo`)
set -eu
BIN=${1:-build/bin}
OUT=${DEMO_DIR:-build/demo}
mkdir -p "$OUT"

echo "== tea gen: 2,000,000 cycles of the 'mixed' workload through the core model"
"$BIN/tea" gen --workload mixed --cycles 2000000 --seed 1 -o "$OUT/mixed.tea"
echo
echo "== tea info $OUT/mixed.tea"
"$BIN/tea" info "$OUT/mixed.tea"
