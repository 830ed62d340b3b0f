# pics table and pics correlate.
# table: hand-written results CSVs with known numbers (seeds averaged, the
# mean and max rows exactly, --freq, --granularity, concatenated files,
# duplicates), Markdown and LaTeX cells and rules, a tea replay directory,
# the SVG's bars and whiskers, bad inputs.
# correlate: a hand-written golden PICS with r known exactly, golden PICS of
# generated traces (occurrences equal tea info's event counts, cycles equal
# pics export's, r in [-1, 1], undefined for an event that never occurs),
# sampled PICS refused, bad inputs.
. "$(dirname "$0")/lib.bash"

need_xmllint

# matches FILE REGEX: some line of FILE matches the extended regular expression
matches() {
    grep -qE -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "'$1' has no line matching '$2'"; }
}

# same FILE EXPECTED_FILE: the files are identical (shows the difference)
same() {
    diff "$2" "$1" >&2 || fail "$1 differs from the expected $2"
}

HEADER=trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func

# ---------------------------------------------------------------- pics table
# The inputs are results CSVs of an earlier version, with '#' comment lines
# (still read). At 4 kHz (percent, insn-component): lbm tea is the mean of seeds 1 and 3
# (1 and 3 -> 2); the mean row is (2+4+3)/3 = 3, (10+20+15)/3 = 15,
# (50+60+70)/3 = 60, (20+30+10)/3 = 20; the max row 4, 20, 70, 30. The insn
# column is half of insn-component; error_func is empty for lbm only.
cat >a.csv <<EOF
# tea 0.1.0 replay: tea replay lbm.tea -o lbm
# trace lbm: lbm.tea, digest 3cdd478deb2f956d, 15015862 cycles, 5353921 records
$HEADER
lbm,tea,4000,1,2500,0,0.010000000,0.005000000,
lbm,tea,4000,3,2500,0,0.030000000,0.015000000,
lbm,nci,4000,1,2500,0,0.100000000,0.050000000,
lbm,ibs,4000,1,2400,100,0.500000000,0.250000000,
lbm,ibs:all,4000,1,2400,100,0.200000000,0.100000000,
lbm,tea,1000000,1,9,0,0.005000000,0.002500000,
EOF
cat >b.csv <<EOF
# tea 0.1.0 sweep: tea sweep nab.tea 605.mcf_s.tea
$HEADER
# trace nab: nab.tea, digest 00000000000000aa, 1 cycles, 1 records
nab,ibs:all,4000,1,1,0,0.300000000,0.150000000,0.1
nab,ibs,4000,1,1,0,0.600000000,0.300000000,0.1
nab,nci,4000,1,1,0,0.200000000,0.100000000,0.1
nab,tea,4000,1,1,0,0.040000000,0.020000000,0.1
nab,tea,1e6,1,1,0,0.007000000,0.003500000,0.1
# trace 605.mcf_s: 605.mcf_s.tea, digest 00000000000000bb, 1 cycles, 1 records
605.mcf_s,tea,4000,1,1,0,0.030000000,0.015000000,0.1
605.mcf_s,nci,4000,1,1,0,0.150000000,0.075000000,0.1
605.mcf_s,ibs,4000,1,1,0,0.700000000,0.350000000,0.1
605.mcf_s,ibs:all,4000,1,1,0,0.100000000,0.050000000,0.1
EOF

# several frequencies: --freq is needed, and the message lists them
run 2 "$PICS" table a.csv b.csv
contains err.txt "the results hold 2 frequencies (4000, 1000000 Hz): choose one with --freq"
run 2 "$PICS" table a.csv b.csv --freq 2k
contains err.txt "no results at 2000 Hz; the results have 4000, 1000000 Hz"

# --- CSV: exact cells, seeds averaged, mean and max rows, min/max per seed;
# the header on line 1, errors as fractions (the percentages above / 100).
# lbm's tea has two seeds, 0.01 and 0.03: the 95 % interval of their mean is
# 0.02 +- t(0.975, 1) * s / sqrt(2) with s = 0.01 * sqrt(2), so +- 12.706 *
# 0.01 = 0.12706: [0, 0.14706] with its foot cut at 0. One seed: no interval.
run 0 "$PICS" table a.csv b.csv --freq 4k --format csv
cat >want.csv <<'EOF'
trace,granularity,freq_hz,tea,nci,ibs,ibs:all,tea_min,tea_max,tea_ci_low,tea_ci_high,nci_min,nci_max,nci_ci_low,nci_ci_high,ibs_min,ibs_max,ibs_ci_low,ibs_ci_high,ibs:all_min,ibs:all_max,ibs:all_ci_low,ibs:all_ci_high
lbm,insn-component,4000,0.02,0.1,0.5,0.2,0.01,0.03,0,0.14706,0.1,0.1,,,0.5,0.5,,,0.2,0.2,,
nab,insn-component,4000,0.04,0.2,0.6,0.3,0.04,0.04,,,0.2,0.2,,,0.6,0.6,,,0.3,0.3,,
605.mcf_s,insn-component,4000,0.03,0.15,0.7,0.1,0.03,0.03,,,0.15,0.15,,,0.7,0.7,,,0.1,0.1,,
mean,insn-component,4000,0.03,0.15,0.6,0.2,,,,,,,,,,,,,,,,
max,insn-component,4000,0.04,0.2,0.7,0.3,,,,,,,,,,,,,,,,
EOF
same out.txt want.csv
[ ! -s err.txt ] || fail "unexpected messages: $(cat err.txt)"

# insn granularity: every cell halves
run 0 "$PICS" table a.csv b.csv --freq 4000 --format csv --granularity insn
contains out.txt "lbm,insn,4000,0.01,0.05,0.25,0.1,0.005,0.015,"
contains out.txt "mean,insn,4000,0.015,0.075,0.3,0.1,"
contains out.txt "max,insn,4000,0.02,0.1,0.35,0.15,"
# func: lbm has none -> the file and line of the first such row
run 1 "$PICS" table a.csv b.csv --freq 4000 --granularity func
contains err.txt "a.csv: line 4: no error_func for trace lbm, scheme tea"
run 0 "$PICS" table b.csv --freq 4000 --format csv --granularity func
contains out.txt "nab,func,4000,0.1,0.1,0.1,0.1"

# --- at 1 MHz only tea has results; the rest are missing (empty, with warnings)
run 0 "$PICS" table a.csv b.csv --freq 1M --format csv
cat >want1m.csv <<'EOF'
trace,granularity,freq_hz,tea,nci,ibs,ibs:all
lbm,insn-component,1000000,0.005,,,
nab,insn-component,1000000,0.007,,,
605.mcf_s,insn-component,1000000,,,,
mean,insn-component,1000000,0.006,,,
max,insn-component,1000000,0.007,,,
EOF
same out.txt want1m.csv
contains err.txt "warning: scheme tea has no result at 1000000 Hz for 1 of 3 traces (605.mcf_s); its mean and max cover 2"
contains err.txt "warning: scheme nci has no result at 1000000 Hz for 3 of 3 traces (lbm, nab, 605.mcf_s)"

# --- Markdown: right-aligned numbers, one decimal, dashes for missing cells
run 0 "$PICS" table a.csv b.csv --freq 4k
contains out.txt "| trace | tea | nci | ibs | ibs:all |"
contains out.txt "|:---|---:|---:|---:|---:|"
contains out.txt "| lbm | 2.0 ± 12.7 | 10.0 | 50.0 | 20.0 |"
contains out.txt '| 605.mcf\_s | 3.0 | 15.0 | 70.0 | 10.0 |'
contains out.txt "| **mean** | 3.0 | 15.0 | 60.0 | 20.0 |"
contains out.txt "| **max** | 4.0 | 20.0 | 70.0 | 30.0 |"
[ "$(grep -c '^|' out.txt)" = 7 ] || fail "Markdown: expected 7 table lines"
run 0 "$PICS" table a.csv b.csv --freq 1M --format md
contains out.txt "| 605.mcf\_s | – | – | – | – |"

# --- LaTeX: a booktabs tabular, names escaped, a rule before mean and max
printf '%s\n%s\n' "$HEADER" 'r&d_%#1,tea,4000,1,1,0,0.130000000,0.1,' >c.csv
run 0 "$PICS" table a.csv b.csv c.csv --freq 4k --format latex -o t.tex
[ ! -s out.txt ] || fail "-o: nothing on standard output expected"
contains t.tex '\begin{tabular}{lrrrr}'
contains t.tex '\toprule'
contains t.tex 'trace & tea & nci & ibs & ibs:all \\'
contains t.tex 'lbm & 2.0 $\pm$ 12.7 & 10.0 & 50.0 & 20.0 \\'
contains t.tex '605.mcf\_s & 3.0 & 15.0 & 70.0 & 10.0 \\'
contains t.tex 'r\&d\_\%\#1 & 13.0 & -- & -- & -- \\'
contains t.tex '\bottomrule'
contains t.tex '\end{tabular}'
[ "$(grep -c '^\\midrule$' t.tex)" = 2 ] || fail "LaTeX: expected two \\midrule"
# the second \midrule comes right before the mean row, \bottomrule after max
grep -A1 '^\\midrule$' t.tex | tail -n 1 | grep -q '^mean & ' || fail "LaTeX: no \\midrule before mean"
grep -B1 '^\\bottomrule$' t.tex | head -n 1 | grep -q '^max & ' || fail "LaTeX: max is not the last row"
contains t.tex 'mean & 5.5 & 15.0 & 60.0 & 20.0 \\'

# --- four traces, three schemes, two seeds each: every cell the mean of its
# seeds, the mean and max rows over the traces' cells, and each cell's
# spread. The values are thousandths chosen so that every mean is exact in
# decimal (no rounding at the last printed digit). In thousandths:
#   b1: tea 10,30 -> 20   spe 400,420 -> 410   ris 300,320 -> 310
#   b2: tea 40,60 -> 50   spe 500,520 -> 510   ris 100,120 -> 110
#   b3: tea  5,15 -> 10   spe 600,640 -> 620   ris 250,270 -> 260
#   b4: tea 20,20 -> 20   spe 300,340 -> 320   ris 330,350 -> 340
#   mean: tea 100/4 = 25, spe 1860/4 = 465, ris 1020/4 = 255; max 50, 620, 340.
# Two seeds differing by d: half the 95 % interval is 12.706 * d / 2 (see
# above), 0.12706 for d = 0.02, 0.06353 for 0.01, 0.25412 for 0.04, 0 for 0;
# a foot below 0 is cut at 0.
cat >r.csv <<EOF
$HEADER
b1,tea,4000,1,1,0,0.010000000,0.005000000,
b1,tea,4000,2,1,0,0.030000000,0.015000000,
b1,spe,4000,1,1,0,0.400000000,0.200000000,
b1,spe,4000,2,1,0,0.420000000,0.210000000,
b1,ris,4000,1,1,0,0.300000000,0.150000000,
b1,ris,4000,2,1,0,0.320000000,0.160000000,
b2,tea,4000,1,1,0,0.040000000,0.020000000,
b2,tea,4000,2,1,0,0.060000000,0.030000000,
b2,spe,4000,1,1,0,0.500000000,0.250000000,
b2,spe,4000,2,1,0,0.520000000,0.260000000,
b2,ris,4000,1,1,0,0.100000000,0.050000000,
b2,ris,4000,2,1,0,0.120000000,0.060000000,
b3,tea,4000,1,1,0,0.005000000,0.002500000,
b3,tea,4000,2,1,0,0.015000000,0.007500000,
b3,spe,4000,1,1,0,0.600000000,0.300000000,
b3,spe,4000,2,1,0,0.640000000,0.320000000,
b3,ris,4000,1,1,0,0.250000000,0.125000000,
b3,ris,4000,2,1,0,0.270000000,0.135000000,
b4,tea,4000,1,1,0,0.020000000,0.010000000,
b4,tea,4000,2,1,0,0.020000000,0.010000000,
b4,spe,4000,1,1,0,0.300000000,0.150000000,
b4,spe,4000,2,1,0,0.340000000,0.170000000,
b4,ris,4000,1,1,0,0.330000000,0.165000000,
b4,ris,4000,2,1,0,0.350000000,0.175000000,
EOF
run 0 "$PICS" table r.csv --format csv
cat >want-r.csv <<'EOF'
trace,granularity,freq_hz,tea,spe,ris,tea_min,tea_max,tea_ci_low,tea_ci_high,spe_min,spe_max,spe_ci_low,spe_ci_high,ris_min,ris_max,ris_ci_low,ris_ci_high
b1,insn-component,4000,0.02,0.41,0.31,0.01,0.03,0,0.14706,0.4,0.42,0.28294,0.53706,0.3,0.32,0.18294,0.43706
b2,insn-component,4000,0.05,0.51,0.11,0.04,0.06,0,0.17706,0.5,0.52,0.38294,0.63706,0.1,0.12,0,0.23706
b3,insn-component,4000,0.01,0.62,0.26,0.005,0.015,0,0.07353,0.6,0.64,0.36588,0.87412,0.25,0.27,0.13294,0.38706
b4,insn-component,4000,0.02,0.32,0.34,0.02,0.02,0.02,0.02,0.3,0.34,0.06588,0.57412,0.33,0.35,0.21294,0.46706
mean,insn-component,4000,0.025,0.465,0.255,,,,,,,,,,,,
max,insn-component,4000,0.05,0.62,0.34,,,,,,,,,,,,
EOF
same out.txt want-r.csv

# --- concatenated CSVs read like the files one by one; repeats count once
cat a.csv b.csv >ab.csv
run 0 "$PICS" table ab.csv --freq 4k --format csv
same out.txt want.csv
run 0 "$PICS" table a.csv ab.csv b.csv a.csv --freq 4k --format csv
same out.txt want.csv
sed 's/^lbm,nci,4000,1,2500,0,0.100000000/lbm,nci,4000,1,2500,0,0.100000001/' a.csv >a2.csv
run 1 "$PICS" table a.csv a2.csv --freq 4k
contains err.txt "a2.csv: line 6: trace lbm, scheme nci at 4000 Hz, seed 1 repeats a.csv: line 6 with other values"

# --- each trace at its own frequency (tea replay --samples): combined, the
# frequency beside each trace's name and in its CSV rows; a trace at two
# frequencies still needs --freq. The cells: gzip tea 0.1, ibs 0.5; xz tea
# 0.3, ibs 0.7: mean 0.2 and 0.6, max 0.3 and 0.7.
cat >own.csv <<EOF
$HEADER
gzip,tea,312000,1,2000,0,0.100000000,0.050000000,
gzip,ibs,312000,1,1900,100,0.500000000,0.250000000,
xz,tea,1250000,1,2000,0,0.300000000,0.150000000,
xz,ibs,1250000,1,1950,50,0.700000000,0.350000000,
EOF
run 0 "$PICS" table own.csv --format csv
cat >want-own.csv <<EOF
trace,granularity,freq_hz,tea,ibs
gzip,insn-component,312000,0.1,0.5
xz,insn-component,1250000,0.3,0.7
mean,insn-component,,0.2,0.6
max,insn-component,,0.3,0.7
EOF
same out.txt want-own.csv
run 0 "$PICS" table own.csv
contains out.txt "each trace at its own frequency"
contains out.txt "| gzip (312kHz) | 10.0 | 50.0 |"
contains out.txt "| xz (1.25MHz) | 30.0 | 70.0 |"
run 0 "$PICS" table own.csv --freq 312k --format csv
contains out.txt "gzip,insn-component,312000,0.1,0.5"
run 2 "$PICS" table own.csv a.csv
contains err.txt "choose one with --freq (traces at one frequency each"

# --- a sweep over sample counts (tea replay --samples 1000,2000,4000): each
# trace's rows at its own frequency per target. --samples K: that target's
# rows, each trace at its own frequency; several: a column per scheme and
# target, every cell filled, the mean row per column. gzip tea 0.4, 0.2,
# 0.1, ibs 0.6, 0.5, 0.45; xz tea 0.2, 0.1, 0.05, ibs 0.8, 0.7, 0.65: the
# mean row tea 0.3, 0.15, 0.075, ibs 0.7, 0.6, 0.55. An old CSV without
# the column has no target.
T=$HEADER,samples_target
cat >sweep.csv <<EOF
$T
gzip,tea,156000,1,1000,0,0.400000000,0.200000000,,1000
gzip,ibs,156000,1,950,50,0.600000000,0.300000000,,1000
gzip,tea,312000,1,2000,0,0.200000000,0.100000000,,2000
gzip,ibs,312000,1,1900,100,0.500000000,0.250000000,,2000
gzip,tea,624000,1,4000,0,0.100000000,0.050000000,,4000
gzip,ibs,624000,1,3800,200,0.450000000,0.225000000,,4000
xz,tea,625000,1,1000,0,0.200000000,0.100000000,,1000
xz,ibs,625000,1,990,10,0.800000000,0.400000000,,1000
xz,tea,1250000,1,2000,0,0.100000000,0.050000000,,2000
xz,ibs,1250000,1,1980,20,0.700000000,0.350000000,,2000
xz,tea,2500000,1,4000,0,0.050000000,0.025000000,,4000
xz,ibs,2500000,1,3960,40,0.650000000,0.325000000,,4000
EOF
run 0 "$PICS" table sweep.csv --samples 1000,2000,4000 --format csv
cat >want-sweep.csv <<EOF
trace,granularity,freq_hz,tea@1000,tea@2000,tea@4000,ibs@1000,ibs@2000,ibs@4000
gzip,insn-component,,0.4,0.2,0.1,0.6,0.5,0.45
xz,insn-component,,0.2,0.1,0.05,0.8,0.7,0.65
mean,insn-component,,0.3,0.15,0.075,0.7,0.6,0.55
max,insn-component,,0.4,0.2,0.1,0.8,0.7,0.65
EOF
same out.txt want-sweep.csv
run 0 "$PICS" table sweep.csv --samples 4k,1k,2k
contains out.txt "a column per scheme and tea replay --samples target (SCHEME@K)"
contains out.txt "| gzip | 40.0 | 20.0 | 10.0 | 60.0 | 50.0 | 45.0 |"
run 0 "$PICS" table sweep.csv --samples 2000 --format csv
cat >want-2k.csv <<EOF
trace,granularity,freq_hz,tea,ibs
gzip,insn-component,312000,0.2,0.5
xz,insn-component,1250000,0.1,0.7
mean,insn-component,,0.15,0.6
max,insn-component,,0.2,0.7
EOF
same out.txt want-2k.csv
run 2 "$PICS" table sweep.csv
contains err.txt "choose one with --freq"
run 2 "$PICS" table sweep.csv --samples 8000
contains err.txt "no results of tea replay --samples 8000"
run 2 "$PICS" table sweep.csv --samples 1000,1k
contains err.txt "sample count '1k' given twice"

# --- a sampled trace's error interval over its window groups (tea replay's
# error_ci95): a cell of one seed shows it (gzip tea 5.0 ± 1.5: low 3.5,
# high 6.5), cut at 0 below (xz tea 1.0: low 0, high 2.0, ± 1.0); in CSV as
# the cell's interval, beside the seed's error as min and max.
cat >jack.csv <<EOF
$HEADER,error_ci95_low,error_ci95_high
gzip,tea,4000,1,2000,0,0.050000000,0.040000000,,0.035000000,0.065000000
xz,tea,4000,1,2000,0,0.010000000,0.008000000,,0.000000000,0.020000000
EOF
run 0 "$PICS" table jack.csv
contains out.txt "of one seed on a sampled trace, the jackknife over its window groups"
contains out.txt "| gzip | 5.0 ± 1.5 |"
contains out.txt "| xz | 1.0 ± 1.0 |"
run 0 "$PICS" table jack.csv --format csv
contains out.txt "trace,granularity,freq_hz,tea,tea_min,tea_max,tea_ci_low,tea_ci_high"
contains out.txt "gzip,insn-component,4000,0.05,0.05,0.05,0.035,0.065"
run 0 "$PICS" table jack.csv --granularity insn --format csv
! grep -q "ci_low" out.txt || fail "pics table: the window interval shown at insn granularity (it is insn-component's)"

# --- SVG: groups = traces + mean, one bar per scheme, whiskers where seeds > 1
run 0 "$PICS" table a.csv b.csv --freq 4k --svg t.svg -o /dev/null
xmllint --noout t.svg || fail "t.svg is not well-formed XML"
[ "$(xpath t.svg "count(//$G[@class='group'])")" = 4 ] || fail "SVG: expected 4 groups (3 traces and mean)"
[ "$(xpath t.svg "count(//$G[@class='bar'])")" = 16 ] || fail "SVG: expected 4 x 4 bars"
[ "$(xpath t.svg "count(//$RECT[@class='segment'])")" = 16 ] || fail "SVG: expected 16 drawn bars"
[ "$(xpath t.svg "count(//$G[@class='errorbar'])")" = 1 ] ||
    fail "SVG: expected one whisker (lbm, tea: two seeds)"
contains t.svg "lbm, tea: 2.00%"
run 0 "$PICS" table a.csv b.csv --freq 1M --svg t1.svg -o /dev/null
xmllint --noout t1.svg || fail "t1.svg is not well-formed XML"
[ "$(xpath t1.svg "count(//$G[@class='bar'])")" = 16 ] || fail "SVG 1 MHz: expected 16 bars"
[ "$(xpath t1.svg "count(//$RECT[@class='segment'])")" = 3 ] || fail "SVG 1 MHz: expected 3 drawn bars (lbm, nab, mean)"
[ "$(xpath t1.svg "count(//$G[@class='errorbar'])")" = 0 ] || fail "SVG 1 MHz: no whiskers with one seed"

# --- publication polish: display names, precision, the best (lowest) error
# of each row in bold, a caption; the cells are those of want.csv in percent
run 0 "$PICS" table a.csv b.csv --freq 4k --names --bold-best --precision 0 --caption "Error (%) of each scheme"
cat >want-polish.md <<'EOF'
<!-- pics table: error (%) at insn-component granularity, 4000 Hz, mean over seeds ± the 95 % interval of that mean (Student's t) -->
| trace | TEA | NCI-TEA | IBS | IBS (all events) |
|:---|---:|---:|---:|---:|
| lbm | **2** ± 13 | 10 | 50 | 20 |
| nab | **4** | 20 | 60 | 30 |
| 605.mcf\_s | **3** | 15 | 70 | 10 |
| **mean** | **3** | 15 | 60 | 20 |
| **max** | **4** | 20 | 70 | 30 |

Table: Error (%) of each scheme
EOF
same out.txt want-polish.md
run 0 "$PICS" table a.csv b.csv --freq 4k --names --format latex --caption 'A & B_1'
contains out.txt '\begin{table}'
contains out.txt '\caption{A \& B\_1}'
contains out.txt 'trace & TEA & NCI-TEA & IBS & IBS (all events) \\'
tail -n 1 out.txt | grep -qx '\\end{table}' || fail "LaTeX caption: no \end{table} last"
# ties at the precision shown are all bold: 2.14 % and 2.136 % are both 2.14
# at two decimals, and only 2.136 is the best at three
printf '%s\nx,tea,4000,1,1,0,0.0214,0.01,\nx,nci,4000,1,1,0,0.02136,0.01,\nx,ibs,4000,1,1,0,0.5,0.01,\n' "$HEADER" >ties.csv
run 0 "$PICS" table ties.csv --bold-best --precision 2 --format latex
contains out.txt 'x & \textbf{2.14} & \textbf{2.14} & 50.00 \\'
run 0 "$PICS" table ties.csv --bold-best --precision 3
contains out.txt '| x | 2.140 | **2.136** | 50.000 |'
# without the options the table is as before (labels, one decimal, no bold)
run 0 "$PICS" table ties.csv
contains out.txt '| x | 2.1 | 2.1 | 50.0 |'
contains out.txt '| trace | tea | nci | ibs |'
run 2 "$PICS" table ties.csv --precision 10
contains err.txt "invalid precision '10'"

# --- tea replay directories as input (two seeds of one trace)
run 0 "$TEA" gen --workload mixed --cycles 300000 --seed 5 -o mixed.tea
run 0 "$TEA" replay mixed.tea --freq 100k --seed 1 -o rep1
run 0 "$TEA" replay mixed.tea --freq 100k --seed 2 -o rep2
run 0 "$PICS" table rep1 --format csv
head -n 1 out.txt | grep -qx 'trace,granularity,freq_hz,tea,nci,ibs,spe,ris' || fail "replay: columns tea,nci,ibs,spe,ris"
# each cell is summary.csv's error, the same number (one seed)
awk -F, 'NR == FNR { if ($1 != "trace") want[$2] = $7; next }
         FNR == 1 { for (i = 4; i <= NF; i++) h[i] = $i }
         FNR == 2 { for (i = 4; i <= NF; i++) if ($i + 0 != want[h[i]] + 0) { print h[i]; bad = 1 }
                    if ($1 != "mixed") bad = 1 }
         END { exit bad }' rep1/summary.csv out.txt || fail "replay: cells differ from summary.csv"
run 0 "$PICS" table rep1 rep2 --format csv
contains out.txt "tea_min,tea_max"
# the cell is the exact mean rounded to 9 decimals (within half a unit of
# that digit); tea_min is the lower seed's error itself
awk -F, 'FILENAME != "out.txt" { if ($1 != "trace" && $2 == "tea") v[++n] = $7; next }
         FNR == 2 { m = (v[1] + v[2]) / 2; d = $4 - m; lo = v[1] + 0 < v[2] + 0 ? v[1] : v[2]
                    if (d > 5.000001e-10 || d < -5.000001e-10 || $9 + 0 != lo + 0) bad = 1 }
         END { exit bad }' rep1/summary.csv rep2/summary.csv out.txt ||
    fail "replay: tea is not the mean of the two seeds, or tea_min not the lower"
run 1 "$PICS" table rep1 --granularity func
contains err.txt "rep1/summary.csv: line"
contains err.txt "no error_func for trace mixed"

# --by component: each scheme's error split by component, over replay
# directories: a scheme's contributions add up to its error row, which is
# summary.csv's error_insn_component (to the CSVs' digits: each of some 50
# contributions printed to 9 significant digits)
run 0 "$PICS" table rep1 --by component --format csv
head -n 1 out.txt | grep -qx 'trace,component,psv,golden_share,tea,nci,ibs,spe,ris' ||
    fail "--by component: header $(head -n 1 out.txt)"
# (a component's name may be quoted with commas: the numbers are the last
# six fields, golden_share and the five schemes)
awk -F, 'NR == FNR { if ($1 != "trace") want[$2] = $7; next }
         FNR == 1 { for (i = NF - 4; i <= NF; i++) h[i - NF] = $i; next }
         /^mixed,error,/ { for (i = NF - 4; i <= NF; i++) { d = sum[i - NF] - $i; e = $i - want[h[i - NF]]
                                                          if (d > 1e-8 || d < -1e-8 || e > 1e-8 || e < -1e-8) bad = 1 }
                           rows++; next }
         { for (i = NF - 4; i <= NF; i++) sum[i - NF] += $i; g += $(NF - 5) }
         END { d = g - 1; exit !(rows == 1 && !bad && d < 1e-9 && d > -1e-9) }' rep1/summary.csv out.txt ||
    fail "--by component: contributions do not add up to the errors of summary.csv: $(cat out.txt)"
run 0 "$PICS" table rep1 rep2 --by component
contains out.txt "| mixed | **error** | 100.0 |"
[ "$(grep -c '| \*\*error\*\* |' out.txt)" = 2 ] || fail "--by component: one error row per directory expected"
run 2 "$PICS" table a.csv --by component
contains err.txt "a.csv: --by component takes tea replay directories"
run 2 "$PICS" table rep1 --by component --freq 4k
contains err.txt "--by component writes md or csv of replay directories"

# a sweep over three sample counts of tea replay --samples on two traces:
# summary.csv names each run's target, and pics table --samples fills every
# cell of its scheme x target columns
run 0 "$TEA" gen --workload memory --cycles 300000 --seed 3 -o memory3.tea
run 0 "$TEA" replay mixed.tea --samples 200,400,800 --schemes tea,ibs -o sweep-a
run 0 "$TEA" replay memory3.tea --samples 200,400,800 --schemes tea,ibs -o sweep-b
[ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples_target") c = i; next }
              { print $c }' sweep-a/summary.csv | tr '\n' ' ')" = "200 400 800 200 400 800 " ] ||
    fail "tea replay --samples: summary.csv's samples_target: $(cat sweep-a/summary.csv)"
run 0 "$PICS" table sweep-a sweep-b --samples 200,400,800 --format csv
head -n 1 out.txt | grep -qx 'trace,granularity,freq_hz,tea@200,tea@400,tea@800,ibs@200,ibs@400,ibs@800' ||
    fail "pics table --samples: columns $(head -n 1 out.txt)"
[ "$(wc -l <out.txt)" -eq 5 ] && awk -F, '{ for (i = 4; i <= NF; i++) if ($i == "") exit 1 }' out.txt ||
    fail "pics table --samples: an empty cell: $(cat out.txt)"

# --- bad inputs
printf '%s\nlbm,tea,4000,1,1,0,0.1,0.1\n' "$HEADER" >short.csv
run 1 "$PICS" table short.csv
contains err.txt "short.csv: line 2: 8 fields where the header has 9"
printf 'scheme,freq_hz,period,samples,lost,error_insn_component,error_insn\ntea,4000,1,1,0,0.1,0.1\n' >old.csv
run 1 "$PICS" table old.csv
contains err.txt "old.csv: line 1: expected the header 'trace,scheme,freq_hz,seed,...' (no column trace, seed)"
printf '%s\nlbm,tea,4000,1,1,0,2,0.1,\n' "$HEADER" >big.csv
run 1 "$PICS" table big.csv
contains err.txt "big.csv: line 2: error_insn_component '2' is not a fraction from 0 to 1"
printf '# nothing\n%s\n' "$HEADER" >empty.csv
run 1 "$PICS" table empty.csv
contains err.txt "no results in empty.csv"
run 1 "$PICS" table no-such.csv
contains err.txt "no-such.csv: cannot open"
mkdir -p emptydir
run 1 "$PICS" table emptydir
contains err.txt "emptydir/summary.csv: cannot open"
run 2 "$PICS" table
run 2 "$PICS" table a.csv --format html
run 2 "$PICS" table a.csv --granularity line
run 2 "$PICS" table a.csv --freq fast
run 1 "$PICS" table a.csv b.csv --freq 4k -o nodir/t.md
[ ! -e nodir ] || fail "a failed run created output"
run 0 "$PICS" table --help
contains out.txt "Usage: pics table"

# ------------------------------------------------------------ pics correlate
# A golden PICS by hand (values in cycles x 720720):
#   ST-L1 at 5 instructions: occurrences 1..5, cycles 2 1 4 3 5 -> r = 0.8
#   FL-MB at 4 instructions: occurrences 1..4, cycles 8 6 4 2   -> r = -1
#   ST-LLC at one instruction (2, 7)                           -> undefined
#   DR-SQ at two with one occurrence each (1/3 + 4/3 cycles)  -> undefined
#   FL-EX,FL-MO (3, 6) and FL-EX (1, 2): FL-EX r = 1, FL-MO undefined
#   base cycles (no event) and events that never occur: undefined, n = 0
U=720720
cat >cells.txt <<EOF
0x1000 1 $((2 * U)) 1
0x1004 1 $((1 * U)) 2
0x1008 1 $((4 * U)) 3
0x100c 1 $((3 * U)) 4
0x1010 1 $((5 * U)) 5
0x2000 64 $((8 * U)) 1
0x2004 64 $((6 * U)) 2
0x2008 64 $((4 * U)) 3
0x200c 64 $((2 * U)) 4
0x3000 4 $((7 * U)) 2
0x4000 0 $((3 * U)) 10
0x5000 32 $((U / 3)) 1
0x5004 32 $((4 * U / 3)) 1
0x6000 384 $((6 * U)) 3
0x6004 128 $((2 * U)) 1
EOF
total=$(awk '{ s += $3 } END { printf "%d", s }' cells.txt)
{
    printf 'tea-pics 1.0\nscheme golden\nunit %d\ntrace.digest 0123456789abcdef\n' $U
    printf 'trace.first_cycle 0\ntrace.last_cycle 100\ntrace.records 50\ntrace.arch riscv64\n'
    printf 'trace.clock_hz 3200000000\ngolden_total %s\nperiod 0\nfrequency_hz 0\nseed 0\njitter -\n' "$total"
    printf 'events all\nevent_mask 0x1ff\nsamples 0\nmerged 1\ncells %d\n' "$(wc -l <cells.txt)"
    cat cells.txt
    echo end
} >hand.pics
run 0 "$PICS" export hand.pics
run 0 "$PICS" correlate hand.pics
cat >want-hand.csv <<'EOF'
trace,event,instructions,occurrences,cycles,r
hand,ST-L1,5,15,15.000000,0.800000000
hand,ST-TLB,0,0,0.000000,
hand,ST-LLC,1,2,7.000000,
hand,DR-L1,0,0,0.000000,
hand,DR-TLB,0,0,0.000000,
hand,DR-SQ,2,2,1.666667,
hand,FL-MB,4,10,20.000000,-1.000000000
hand,FL-EX,2,4,8.000000,1.000000000
hand,FL-MO,1,3,6.000000,
EOF
sed 's/^hand,/all,/' want-hand.csv | tail -n +2 >>want-hand.csv
same out.txt want-hand.csv
# the text summary goes to standard error (standard output with -o)
matches err.txt '^ST-L1 +0\.800 \(n=5\)$'
matches err.txt '^ST-TLB +undefined \(n=0\)$'
matches err.txt '^FL-MB +-1\.000 \(n=4\)$'
matches err.txt '^event +hand$'
run 0 "$PICS" correlate hand.pics -o hand.csv
same hand.csv want-hand.csv
matches out.txt '^DR-SQ +undefined \(n=2\)$'
[ ! -s err.txt ] || fail "correlate -o: unexpected messages: $(cat err.txt)"
# the SVG (one series for one input) marks each of the 6 undefined r 'n/a',
# so that it does not look like r = 0, and draws a bar for each of the 3
# defined ones
run 0 "$PICS" correlate hand.pics -o /dev/null --svg hand.svg
xmllint --noout hand.svg || fail "hand.svg is not well-formed"
[ "$(grep -c '<text [^>]*class="missing"[^>]*>n/a</text>' hand.svg)" = 6 ] || fail "SVG: expected 6 'n/a' marks"
[ "$(grep -c '<rect [^>]*class="segment"' hand.svg)" = 3 ] || fail "SVG: expected 3 bars"
# --min-count 2: ST-L1 keeps (2,1) (3,4) (4,3) (5,5): r = 5.5 / sqrt(5 x 8.75)
run 0 "$PICS" correlate hand.pics --min-count 2
want=$(awk 'BEGIN { printf "%.9f", 5.5 / sqrt(5 * 8.75) }')
contains out.txt "hand,ST-L1,4,14,13.000000,$want"
contains out.txt "hand,DR-SQ,0,0,0.000000,"
contains out.txt "hand,FL-MB,3,9,12.000000,-1.000000000"

# --- golden PICS of generated traces
run 0 "$TEA" gen --workload flushes --cycles 300000 --seed 2 -o flushes.tea
run 0 "$TEA" gen --workload memory --cycles 300000 --seed 2 -o memory.tea
run 0 "$TEA" replay flushes.tea --freq 100k -o fl
run 0 "$TEA" replay memory.tea --freq 100k -o mem
run 0 "$PICS" correlate fl mem/golden.pics -o corr.csv --svg corr.svg
[ "$(wc -l <corr.csv)" = 28 ] || fail "correlate: expected a header and 27 rows"
awk -F, 'NR > 1 && $6 != "" && ($6 < -1 || $6 > 1) { exit 1 }' corr.csv || fail "correlate: r outside [-1, 1]"
# pooled = the sum of the two traces' instructions and occurrences
awk -F, 'NR > 1 && $1 != "all" { n[$2] += $3; o[$2] += $4 } $1 == "all" && (n[$2] != $3 || o[$2] != $4) { exit 1 }' corr.csv ||
    fail "correlate: the 'all' rows do not add the traces up"
# occurrences are the trace's event counts (tea info); an event that never
# occurs has no instructions and an undefined r
for trace in flushes memory; do
    name=$(grep -c "^$trace," corr.csv) # named by the replays' summary.csv
    [ "$name" = 9 ] || fail "correlate: expected 9 rows named $trace"
    run 0 "$TEA" info --json $trace.tea
    for ev in ST-L1 ST-TLB ST-LLC DR-L1 DR-TLB DR-SQ FL-MB FL-EX FL-MO; do
        count=$(sed -n "s/.*\"$ev\": \\([0-9]*\\).*/\\1/p" out.txt | head -n 1)
        [ -n "$count" ] || fail "tea info: no count for $ev"
        row=$(grep "^$trace,$ev," corr.csv)
        [ "$(echo "$row" | cut -d, -f4)" = "$count" ] || fail "$trace $ev: occurrences $row, tea info says $count"
        if [ "$count" = 0 ]; then
            [ "$row" = "$trace,$ev,0,0,0.000000," ] || fail "$trace $ev never occurs: expected an undefined r, got $row"
        fi
    done
done
grep -q '"FL-MO": 0' <("$TEA" info --json memory.tea) || fail "the memory workload was expected to have no FL-MO"
[ "$(grep -c '^flushes,.*,-\{0,1\}[01]\.[0-9]*$' corr.csv)" -ge 4 ] || fail "flushes: too few defined correlations"
# cycles per event are pics export's cycles of the components containing it
run 0 "$PICS" export fl/golden.pics
for ev in ST-L1 FL-EX FL-MB; do
    want=$(awk -v ev="$ev" 'NR > 1 { line = $0; n = split(line, f, ","); if (index(line, ev)) s += f[n] } END { printf "%.6f", s }' out.txt)
    got=$(grep "^flushes,$ev," corr.csv | cut -d, -f5)
    awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; exit !(d < 1e-3 && d > -1e-3) }' ||
        fail "flushes $ev: cycles $got, pics export sums to $want"
done
xmllint --noout corr.svg || fail "corr.svg is not well-formed XML"
[ "$(xpath corr.svg "count(//$G[@class='group'])")" = 3 ] || fail "correlate SVG: expected 3 groups (2 traces, all)"
[ "$(xpath corr.svg "count(//$G[@class='bar'])")" = 27 ] || fail "correlate SVG: expected 3 x 9 bars"
# each event in its component colour, the one the flame graph's legend gives it
run 0 "$PICS" flamegraph fl/golden.pics -o corr-flame.svg
for ev in ST-L1 FL-MB FL-EX; do
    flame=$(xpath corr-flame.svg "string(//$G[@class='legend-entry'][normalize-space(.)='$ev']/$RECT/@fill)")
    [ -n "$flame" ] || fail "the flame graph's legend has no $ev"
    grep -q "fill=\"$flame\"" corr.svg || fail "correlate SVG: $ev is not drawn in its colour $flame"
done
nonzero=$(awk -F, 'NR > 1 && $6 != "" && $6 != 0 { n++ } END { print n + 0 }' corr.csv)
[ "$(xpath corr.svg "count(//$RECT[@class='segment'])")" = "$nonzero" ] ||
    fail "correlate SVG: expected $nonzero drawn bars (one per defined, non-zero r; negative ones hang down)"

# --- names: a directory's, a file's, repeats
cp hand.pics other.pics
run 0 "$PICS" correlate hand.pics other.pics hand.pics
contains out.txt "other,ST-L1,5,15,15.000000,0.800000000"
contains out.txt "hand#2,ST-L1,5,15,15.000000,0.800000000"
contains out.txt "all,ST-L1,15,45,45.000000,0.800000000"
contains err.txt "warning: hand and other are the same trace"
mkdir -p bench1
cp hand.pics bench1/golden.pics
run 0 "$PICS" correlate bench1
contains out.txt "bench1,FL-MB,4,10,20.000000,-1.000000000"

# --- refused inputs
run 1 "$PICS" correlate fl/tea.pics
contains err.txt "fl/tea.pics: a sampled PICS (scheme tea); correlation needs the golden reference"
run 1 "$PICS" correlate a.csv
contains err.txt "a.csv: not a PICS file"
run 1 "$PICS" correlate no-such.pics
contains err.txt "no-such.pics: cannot open"
run 1 "$PICS" correlate emptydir
contains err.txt "emptydir/golden.pics: cannot open"
sed 's/^golden_total .*/golden_total 1/' hand.pics >badtotal.pics
run 1 "$PICS" correlate badtotal.pics
contains err.txt "badtotal.pics"
run 2 "$PICS" correlate
run 2 "$PICS" correlate hand.pics --min-count many
run 1 "$PICS" correlate hand.pics -o nodir/c.csv
[ ! -e nodir ] || fail "a failed run created output"
run 0 "$PICS" correlate --help
contains out.txt "Usage: pics correlate"

echo "table: all checks passed"
