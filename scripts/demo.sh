#!/bin/sh
# The main job on an embedded default: record the lbm example (a stencil whose
# one load misses the LLC) under valgrind through the core model, describe
# the trace, replay it through the golden reference and the five sampling
# schemes, show how wrong each profiler is, plot the top-3 instructions of
# IBS, TEA and golden as an SVG, show `pics report --top 3`, and end with
# where the programs are and how to put them on PATH.
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
echo "== pics error: how wrong each profiler is (instruction x component)"
for scheme in tea nci ibs spe ris; do
    printf '%-4s ' "$scheme"
    "$BIN/pics" error "$OUT/replay/$scheme.pics" "$OUT/replay/golden.pics" --top 0 | grep '^error'
done
echo
echo "== pics plot: the top-3 instructions' PICS for IBS, TEA and golden -> $OUT/top3.svg"
"$BIN/pics" plot "$OUT/replay/ibs.pics" "$OUT/replay/tea.pics" "$OUT/replay/golden.pics" --top 3 \
    -o "$OUT/top3.svg"
echo
echo "== pics report --top 3: TEA's profile beside the golden reference"
"$BIN/pics" report "$OUT/replay/tea.pics" --golden "$OUT/replay/golden.pics" --top 3
echo
bin_dir=$(cd "$BIN" && pwd)
echo "== where the programs are: tea and pics are in $bin_dir (nothing else is there)"
echo "   export PATH=\"$bin_dir:\$PATH\"    # then: tea --help, pics --help, pics report $OUT/replay/golden.pics"
echo "   make install                      # or install them, with man pages (PREFIX=\$HOME/.local for no root)"
echo "   what was made: $OUT (the trace, the replay directory, top3.svg); a tour: README.md"
