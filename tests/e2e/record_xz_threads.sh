# A multi-threaded Debian program as shipped: xz -T2 compresses on a
# worker thread while its main thread reads and writes. tea record
# --thread all --sample-every times each thread's windows on its own
# count; the worker's (the main thread runs no whole window: no trace),
# replayed as the program, put most of the program's cycles in liblzma's
# functions. The default (the main thread alone) records a sliver of the
# work and says so. Skipped (77) without valgrind, tea's Valgrind tool
# or xz.
. "$(dirname "$0")/lib.bash"

need_tearec
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
seq 1 30000 >in.txt
seq 1 10000 | rev >>in.txt

run 0 "$TEA" record --thread all --sample-every 500000 -o xz.tea -- xz -T2 -1 -c in.txt
contains err.txt "tea record: thread 2: xz.tea/thread-2.tea: "
[ -f xz.tea/thread-2.tea ] || fail "no trace of xz's worker"
run 0 "$TEA" replay xz.tea --schemes golden,tea --samples 2000 -o replay -q
contains out.txt "program: xz, "
run 0 "$PICS" report replay --granularity func --top 1000
# the functions' shares (hundredths of a per cent) in liblzma, summed
lzma=0
for share in $(sed -n 's/^ *\([0-9]*\)\.\([0-9][0-9]\)% .* liblzma[^ ]* .*/\1\2/p' out.txt); do
    lzma=$((lzma + 10#$share))
done
[ "$lzma" -ge 5000 ] || fail "liblzma's functions hold $lzma hundredths of a per cent of xz -T2's cycles"

# the main thread alone, today's default: a warning names the worker
run 0 "$TEA" record -q -o main.tea -- xz -T2 -1 -c in.txt
contains err.txt "thread 2 ran"
contains err.txt "--thread 2 records it"

echo "record_xz_threads: OK"
