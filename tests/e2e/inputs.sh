# One trace in every input form gives the same results: the TEA authors'
# four peer traces (tests/data/peer, from ../shared/testdata/tracedoctor/peer)
# replayed from the .zst, from the raw tokens, and through a pipe as raw
# tokens (zstd -dc, cat) and compressed (cat .zst): every PICS exports the
# same cells and summary.csv holds the same rows but for the trace column.
# Raw files and pipes are read on a thread of their own (trace/input.h,
# trace_input_prefetch_raw), so this also checks that the chunks arrive
# whole and in order.
. "$(dirname "$0")/lib.bash"

command -v zstd >/dev/null || { echo "SKIP: zstd (the command) is not installed"; exit 77; }

# exports DIR: each PICS of a replay directory as CSV cells, one file
exports() {
    for p in "$1"/*.pics; do
        echo "== $(basename "$p")"
        "$PICS" export "$p" || fail "pics export $p"
    done >"$1.cells"
    cut -d, -f2- "$1/summary.csv" >"$1.rows"
}

for w in branchy frontend memory mixed; do
    zstd -q -dc "$DATA/peer/$w.td.zst" >"$w.raw"
    run 0 "$TEA" replay "$DATA/peer/$w.td.zst" --freq 1M -o "$w-zst"
    run 0 "$TEA" replay "$w.raw" --freq 1M -o "$w-raw"
    run 0 sh -c "zstd -q -dc '$DATA/peer/$w.td.zst' | '$TEA' replay - --freq 1M -o '$w-zpipe'"
    run 0 sh -c "cat '$w.raw' | '$TEA' replay - --freq 1M -o '$w-rpipe'"
    run 0 sh -c "cat '$DATA/peer/$w.td.zst' | '$TEA' replay - --freq 1M -o '$w-cpipe'"
    # synchronous reading (one processor: no thread to read ahead) gives the same too
    if command -v taskset >/dev/null; then
        run 0 taskset -c 0 "$TEA" replay "$w.raw" --freq 1M -o "$w-raw1"
    else
        cp -r "$w-raw" "$w-raw1"
    fi
    exports "$w-zst"
    for form in raw zpipe rpipe cpipe raw1; do
        exports "$w-$form"
        cmp -s "$w-zst.cells" "$w-$form.cells" || fail "$w: the PICS of the $form input differ from the .zst's"
        cmp -s "$w-zst.rows" "$w-$form.rows" || fail "$w: summary.csv of the $form input differs from the .zst's"
    done
    [ "$(wc -l <"$w-zst.rows")" -eq 6 ] || fail "$w: expected a header and five sampler rows"
done
echo ok
