# tea sweep: the tidy CSV (shape, determinism, agreement with tea replay),
# TEA's error falling as the frequency rises, the SVG, parallel traces, and
# bad input.
. "$(dirname "$0")/lib.bash"

run 0 "$TEA" gen --workload mixed --cycles 3000000 --seed 11 -o a.tea
run 0 "$TEA" gen --workload memory --cycles 1000000 --seed 12 -o b.tea
# a 10 MHz clock makes 3e6 cycles 0.3 s: 100 Hz gives 30 samples, 8 kHz 2400
run 0 "$TEA" sweep a.tea b.tea --clock 10M --seeds 3 -j 2 -o sweep.csv --svg sweep.svg
! grep -v ': warning: ' err.txt | grep -q . || fail "progress printed with stderr in a file (tests/e2e/progress.sh tests the terminal)"
head -n 1 sweep.csv |
    grep -qx 'trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records,noise_floor_insn_component,noise_floor_insn,noise_floor_func,rules,error_ci95_low,error_ci95_high,run_cycles,run_cycles_ci95_low,run_cycles_ci95_high,run_instructions,samples_target' ||
    fail "line 1 is not the column names"
! grep -q '^#' sweep.csv || fail "a comment line in sweep.csv"
grep -q '"command_line": "tea sweep a.tea b.tea --clock 10M --seeds 3 -j 2 -o sweep.csv --svg sweep.svg"' sweep.json ||
    fail "sweep.json: no command line"
grep -q '"name": "a",' sweep.json || fail "sweep.json: no trace a"
# 2 traces x 5 schemes x 4 frequencies x 3 seeds
[ "$(grep -v '^#' sweep.csv | grep -vc '^trace,')" = 120 ] || fail "expected 120 rows"
for s in tea nci ibs spe ris; do
    for f in 100 1000 4000 8000; do
        [ "$(grep -c "^b,$s,$f,[123]," sweep.csv)" = 3 ] || fail "b,$s,$f: not three seeds"
    done
done

# TEA's error (mean over seeds) falls as the frequency rises, and TEA beats
# IBS at every frequency
awk -F, '!/^#/ && $1 == "a" { sum[$2, $3] += $7; n[$2, $3]++ }
    END { split("100 1000 4000 8000", f, " ")
          for (i = 1; i <= 4; i++) { t[i] = sum["tea", f[i]] / n["tea", f[i]]; b[i] = sum["ibs", f[i]] / n["ibs", f[i]]
                                     printf "%s Hz: tea %.4f ibs %.4f\n", f[i], t[i], b[i]
                                     if (t[i] >= b[i]) bad = 1 }
          for (i = 2; i <= 4; i++) if (t[i] >= t[i - 1]) bad = 1
          exit bad }' sweep.csv >falls.txt || { cat falls.txt >&2; fail "TEA's error does not fall with frequency"; }

# the same sampler in tea replay gives the same row (one decode or many, one
# sampler or sixty, the samples are the same)
run 0 "$TEA" replay a.tea --clock 10M --freq 4k --seed 2 -o r
for s in tea nci ibs spe ris; do
    want=$(grep "^a,$s,4000,2," sweep.csv)
    got=$(grep "^a,$s,4000,2," r/summary.csv)
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "$s: sweep '$want' vs replay '$got'"
done

# deterministic, whatever the number of jobs
run 0 "$TEA" sweep a.tea b.tea --clock 10M --seeds 3 -j 1 --quiet -o again.csv
! grep -v ': warning: ' err.txt | grep -q . || fail "--quiet printed progress"
grep -v '^#' sweep.csv >rows1.txt
grep -v '^#' again.csv >rows2.txt
cmp -s rows1.txt rows2.txt || fail "-j 1 and -j 2 give different rows"

# the figure: one line per scheme, one point per frequency
xmllint --noout sweep.svg || fail "sweep.svg is not well-formed"
[ "$(xmllint --xpath 'count(//*[local-name()="g"][@class="series"])' sweep.svg)" = 5 ] || fail "not 5 series"
[ "$(xmllint --xpath 'count(//*[local-name()="circle"][@class="point"])' sweep.svg)" = 20 ] || fail "not 20 points"

# the figure's bar is the 95 % interval of the mean over the seeds: with
# three seeds mean +- t(0.975, 2) * s / sqrt(3), t(0.975, 2) = 4.303
run 0 "$TEA" sweep b.tea --clock 10M --freqs 20k --seeds 3 --schemes tea --quiet -o ci.csv --svg ci.svg
want=$(awk -F, 'NR > 1 { n++; d = $7 - m; m += d / n; m2 += d * ($7 - m) }
                END { h = 4.303 * sqrt(m2 / (n - 1)) / sqrt(n)
                      printf "tea at 20k: %.2f%% (%.2f%% to %.2f%%)", 100 * m, 100 * (m - h), 100 * (m + h) }' ci.csv)
contains ci.svg "$want"

# too few samples: one warning per trace and frequency, naming the schemes
# once whatever the seeds; b's 999,988 cycles at 10 MHz give 99 points at
# 1 kHz (jitter none: one sample per period of 10,000 cycles), so 1000 need
# 10^7 * 1000 / 999,988 = 10,000.12 Hz, rounded up to two digits 11,000
run 0 "$TEA" sweep b.tea --clock 10M --freqs 1k,20k --seeds 2 --schemes tea,nci --jitter none --quiet -o few.csv
[ "$(grep -c 'warning' err.txt)" = 1 ] || fail "expected one warning (1 kHz only): $(cat err.txt)"
contains err.txt "tea sweep: warning: b: at 1000 Hz tea, nci took fewer than 1000 samples (as few as "
contains err.txt "use --freq 11000 or more (a trace of 999988 cycles at 10000000 Hz)"

# the provenance goes beside a file: OUT.json for OUT.csv, NAME.json for a
# name without .csv, none for standard output
run 0 "$TEA" sweep b.tea --clock 10M --freqs 20k --seeds 1 --schemes tea --quiet -o noext
# --freq, tea replay's spelling, is the option; --freqs, the old one, the same
run 0 "$TEA" sweep b.tea --clock 10M --freq 20k --seeds 1 --schemes tea --quiet -o freq.csv
cmp -s noext freq.csv || fail "tea sweep --freq and --freqs differ"
"$TEA" sweep --help | grep -q -- '--freq HZ' || fail "tea sweep --help does not list --freq"
if "$TEA" sweep --help | grep -q -- '--freqs'; then fail "tea sweep --help still lists --freqs"; fi
[ -f noext.json ] && [ ! -e noext.csv.json ] || fail "no noext.json beside noext"
run 0 "$TEA" sweep b.tea --clock 10M --freqs 20k --seeds 1 --schemes tea --quiet
head -n 1 out.txt | grep -q '^trace,scheme,' || fail "standard output: no header first"
[ ! -e -.json ] && [ ! -e .json ] || fail "a JSON file for standard output"

# schemes with all events, a symbol map for the function error
printf '0x0 0x10000 low\n0x10000 0x100000000 high\n' >syms.txt
run 0 "$TEA" sweep b.tea --clock 10M --freqs 1k --seeds 2 --schemes ibs,ibs:all --symbols syms.txt -o v.csv
[ "$(grep -c '^b,ibs:all,1000,' v.csv)" = 2 ] || fail "no ibs:all rows"
grep -q '^b,ibs,1000,1,[0-9]*,[0-9]*,0\.[0-9]*,0\.[0-9]*,0\.[0-9]\{9\},[0-9a-f]\{16\},[1-9][0-9]*,[1-9][0-9]*,,,,default,,,,,,,$' v.csv || fail "no error_func with --symbols"

# bad input: nothing written
run 1 "$TEA" sweep a.tea missing.tea -o bad.csv
contains err.txt "missing.tea"
[ ! -e bad.csv ] || fail "a failed sweep left bad.csv"
printf 'not a trace at all\n' >junk.tea
run 1 "$TEA" sweep junk.tea -o bad.csv
[ ! -e bad.csv ] || fail "a failed sweep left bad.csv"
run 2 "$TEA" sweep a.tea --seeds 0
run 2 "$TEA" sweep a.tea --schemes golden
run 2 "$TEA" sweep a.tea --freqs 1k,fast
run 2 "$TEA" sweep
contains err.txt "missing TRACE"
# --samples: each trace at its own frequencies (the CSV's freq_hz differs
# between a and b), the SVG's x axis the sample counts
run 0 "$TEA" sweep a.tea b.tea --clock 10M --samples 200,400 --seeds 1 --schemes tea --quiet -o ks.csv --svg ks.svg
contains err.txt "a: --samples 200: "
contains err.txt "b: --samples 400: "
[ "$(awk -F, '$1 == "a" { print $3 }' ks.csv | sort -u | wc -l)" -eq 2 ] || fail "--samples: a is not at two frequencies"
f200=$(awk -F, '$1 == "a" { print $3; exit }' ks.csv)
n=$(awk -F, -v f="$f200" '$1 == "a" && $3 == f { print $5 }' ks.csv)
[ "$n" -ge 180 ] && [ "$n" -le 220 ] || fail "--samples 200: a took $n samples at $f200 Hz"
contains ks.svg "samples per trace"
run 2 "$TEA" sweep a.tea --samples 200 --freqs 1k -o ks2.csv
contains err.txt "--freqs and --samples exclude each other"

# --names and --title: the legend as papers name the schemes, the heading given
run 0 "$TEA" sweep b.tea --clock 10M --freqs 20k --seeds 1 --schemes tea,nci,ibs:all --names --title 'Error & frequency' \
    --quiet -o named.csv --svg named.svg
xmllint --noout named.svg 2>/dev/null || ! command -v xmllint >/dev/null || fail "named.svg is not well-formed"
contains named.svg ">NCI-TEA<"
contains named.svg ">IBS (all events)<"
contains named.svg "<title>Error &amp; frequency</title>"

run 0 "$TEA" sweep --help
contains out.txt "Usage: tea sweep"
echo ok
