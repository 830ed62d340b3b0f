/*
 * table.h: the arithmetic of `pics table`: results rows (results.h) as a
 * table of traces x schemes at one granularity and frequency, each cell the
 * mean over the seeds of a run's error, with the seeds' lowest and highest
 * error and the 95 % interval of their mean; then the summary rows over the
 * traces (mean, max, and the mean noise floor). The command writes the
 * numbers as Markdown, LaTeX, CSV or SVG; every number comes from here.
 *
 * The shape: rows are the traces in the order they first appear in the set,
 * columns the scheme labels in results_scheme_compare order, both taken from
 * every row at any frequency (so that the table's shape does not depend on
 * the frequency shown). The frequency shown is the one asked for (when some
 * row has it, within a relative 10^-9), else the only one of the rows, else,
 * when every trace's rows share one frequency of its own (tea replay
 * --samples K), each trace's own.
 *
 * A cell averages the rows of its trace and scheme at the frequency shown:
 *
 *     mean = (e_1 + ... + e_n) / n        over the n seeds' errors e_k
 *     half = t(0.975, n - 1) * s / sqrt(n) (s the seeds' standard deviation;
 *                                          common/stats.h; none for n = 1)
 *     interval = [max(mean - half, 0), mean + half]   (no error is negative)
 *
 * A cell of one seed on a sampled trace whose row carries the error's
 * interval over its window groups (error_ci95_low/high, tea replay's
 * jackknife; insn-component granularity only) shows that interval instead:
 * half = high - mean.
 *
 * With --samples (req->samples), only the rows of those tea replay
 * --samples targets (samples_target) are tabulated: one target, each trace
 * at its own frequency for it; several, one column per scheme and target,
 * labelled SCHEME@K (schemes in table order, then K increasing), no
 * frequency chosen (each trace's rows for a target are at its frequency for
 * that target), and the summary rows per column.
 *
 * A cell without rows is missing: it is left out of its scheme's summary
 * rows, which say over how many traces they go (results_table_missing).
 * The summary rows, per scheme: `mean`, the mean of the cells' means over
 * the traces that have one; `max`, their largest; `floor`, the mean over
 * the traces with a noise floor of each one's mean floor over its seeds.
 * A row whose error is empty (NaN) at a granularity other than func is a
 * trace without attributed cycles: it is skipped and the trace named in
 * `empty` (at func it is an error: the run had no function symbols).
 */
#ifndef TEA_RESULTS_TABLE_H
#define TEA_RESULTS_TABLE_H

#include "common/stats.h"
#include "pics/error.h"
#include "results/results.h"

#include <stddef.h>
#include <stdint.h>

/* The names of the summary rows, below the traces' rows. */
#define RESULTS_TABLE_MEAN "mean"
#define RESULTS_TABLE_MAX "max"
#define RESULTS_TABLE_FLOOR "noise floor"

/* What to tabulate. */
typedef struct results_table_request {
    pics_granularity granularity; /* the error column */
    int has_freq;                 /* a frequency was asked for (pics table --freq) */
    double freq_hz;               /* that frequency */
    const uint64_t *samples;      /* tea replay --samples targets to tabulate (none: any row) */
    size_t sample_count;
} results_table_request;

/* One trace x scheme: the runs (seeds) at the frequency shown. */
typedef struct results_table_cell {
    size_t seeds;              /* rows averaged; 0: missing */
    long double sum;           /* of their error fractions */
    double min, max;           /* the lowest and highest seed's error (seeds > 0) */
    stats_sample spread;       /* the seeds' errors, for the 95 % interval of their mean */
    long double floor_sum;     /* of the noise floors (fractions) of the seeds that have one */
    size_t floor_seeds;        /* seeds with a noise floor */
    int has_window_interval;   /* one seed whose row has error_ci95: window_interval holds it */
    double window_interval[2]; /* low and high (fractions) */
} results_table_cell;

/* The table. Names point into the rows of the set it was built from, which
 * must outlive it. */
typedef struct results_table {
    const char **traces;       /* [trace_count], in order of first appearance */
    const char **schemes;      /* [scheme_count], in results_scheme_compare order */
    size_t trace_count, scheme_count;
    results_table_cell *cells; /* [trace][scheme]: results_table_cell_at */
    long double *mean, *max;   /* [scheme], fractions over the traces with a cell; NaN: none */
    long double *floor;        /* [scheme], the mean over the traces of their mean noise floor; NaN: none */
    int floors;                /* some row at the frequency shown has a noise floor: the floor row */
    int spread;                /* some cell averages more than one seed, or shows a window interval */
    int window_intervals;      /* some cell shows the interval over a sampled trace's window groups */
    int by_samples;            /* several --samples targets: a column per scheme and target, no frequency */
    char *labels;              /* with by_samples: the columns' labels (schemes[] point into it) */
    results_row *chosen;       /* with req->samples: the rows of those targets (shallow copies) */
    double freq_hz;            /* the one frequency shown, or NaN with own_freqs */
    int own_freqs;             /* each trace at its own frequency (tea replay --samples) */
    double *trace_freq;        /* [trace_count] with own_freqs: each trace's frequency; else NULL */
    const results_row **empty; /* [empty_count]: the first row of each trace without attributed
                                  cycles, in reading order (its cells stay missing) */
    size_t empty_count;
} results_table;

/* Refuses rows of runs under different rules (tea replay --rules: their
 * errors measure different samplers): TEA_ERR_USAGE naming the first row
 * and the first that differs from it, else 0. */
int results_table_check_rules(const results_set *s);

/* Builds the table of the rows of `s` (at least one) as `req` asks. Errors:
 * TEA_ERR_USAGE when the frequency cannot be chosen (none of the rows is at
 * req->freq_hz; several frequencies, none asked for, and some trace at
 * several), its message listing the frequencies there are; TEA_ERR_FORMAT
 * ("FILE: line N: ...") for a row at the frequency shown without an error
 * at func granularity; TEA_ERR_NOMEM. The table is to be freed with
 * results_table_free in every case. */
int results_table_build(results_table *t, const results_set *s, const results_table_request *req);

/* Frees what the table holds; it is all zeros afterwards. */
void results_table_free(results_table *t);

/* The cell of trace `trace` and scheme `scheme`. */
const results_table_cell *results_table_cell_at(const results_table *t, size_t trace, size_t scheme);

/* The cell's mean error over its seeds (fraction); NaN when it is missing. */
long double results_table_cell_mean(const results_table_cell *c);

/* Half the 95 % interval of the cell's mean (fraction); for one seed, the
 * window interval's upper half, or NaN. */
double results_table_cell_half_interval(const results_table_cell *c);

/* The cell's 95 % interval (fractions), its foot cut at 0 since no error is
 * negative; for one seed its window interval, or both NaN. */
void results_table_cell_interval(const results_table_cell *c, double *low, double *high);

/* The traces missing from scheme `scheme` (cells without rows): returns how
 * many, and stores the indices of the first `shown_max` of them, in trace
 * order, at `shown` (may be NULL when shown_max is 0). The scheme's summary
 * rows cover the other trace_count minus that many. */
size_t results_table_missing(const results_table *t, size_t scheme, size_t *shown, size_t shown_max);

#endif
