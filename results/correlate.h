/*
 * correlate.h: how often an event occurs at each static instruction against
 * the cycles it costs there (the TEA paper's Figure 7), from a golden PICS.
 *
 * For event e and static instruction i of a golden PICS:
 *
 *     occurrences(i, e) = sum of the counts of i's cells whose PSV has e
 *                         (dynamic µops of i subject to e)
 *     value(i, e)       = sum of the values of the same cells
 *                         (cycles x PICS_UNIT charged to components with e)
 *
 * and the event's correlation is Pearson's r over the instructions' points
 * (occurrences, value). The unit does not change r. Sums are exact integers;
 * r is computed in long double with two passes (means first, then centred
 * products) over the points less the first point (exact 128-bit
 * differences), so large values with small differences do not cancel.
 */
#ifndef TEA_RESULTS_CORRELATE_H
#define TEA_RESULTS_CORRELATE_H

#include "common/exact.h"
#include "pics/pics.h"
#include "pics/pics_file.h"
#include "trace/psv.h"

#include <stddef.h>
#include <stdint.h>

/* One static instruction's point for one event. */
typedef struct results_correlate_point {
    uint64_t occurrences;  /* µops of the instruction subject to the event */
    uint64_t value;        /* cycles x PICS_UNIT in the components containing the event */
} results_correlate_point;

/* A growing array of points. Zero-initialize before the first use. */
typedef struct results_correlate_points {
    results_correlate_point *items;
    size_t count, capacity;
} results_correlate_points;

/* Frees the array; it is empty afterwards. */
void results_correlate_points_free(results_correlate_points *p);

/* For every event e, appends to points[e] the point of every static
 * instruction of the golden PICS `p` with at least `min_count` occurrences
 * of e (0: every instruction of the PICS, those without e as (0, 0)), in
 * address order. Errors: TEA_ERR_NOMEM; TEA_ERR_FORMAT when an
 * instruction's counts or values overflow 64 bits (not a real PICS). */
int results_correlate_collect(const pics *p, uint64_t min_count,
                              results_correlate_points points[TRACE_PSV_EVENT_COUNT]);

/* The figures of one event over a set of points. */
typedef struct results_correlate_stats {
    size_t instructions;              /* points */
    exact_u128 occurrences;    /* their occurrences, summed */
    exact_u128 value;          /* their values, summed: cycles x PICS_UNIT */
    double r;                         /* Pearson's r in [-1, 1]; NaN when undefined */
} results_correlate_stats;

/* Pearson's r of occurrences against values over `n` points (pts may be
 * NULL when n is 0), and the sums. r is NaN, never 0, when it is undefined:
 * fewer than two points (an event that never occurs has none) or either
 * side constant (zero variance). */
void results_correlate_compute(const results_correlate_point *pts, size_t n, results_correlate_stats *out);

/* --- the inputs of `pics correlate` ----------------------------------------- */

/* One golden PICS's points and figures per event, or the pooled points of
 * several (instructions of different traces are different points, even at
 * the same address). Zero-initialize before the first use. */
typedef struct results_correlate_trace {
    char *name;                                     /* how the trace is named (results_correlate_load) */
    char digest[TRACE_DIGEST_LEN + 1];               /* its digest ("" pooled) */
    results_correlate_points points[TRACE_PSV_EVENT_COUNT];
    results_correlate_stats stats[TRACE_PSV_EVENT_COUNT]; /* results_correlate_finish */
} results_correlate_trace;

/* Reads the golden PICS at `path`, or the golden.pics of the replay
 * directory `path`, into t's points of every event (instructions with at
 * least `min_count` occurrences, as results_correlate_collect) and appends
 * the same points to `pooled`'s. Names the trace: the trace column of the
 * first row whose digest matches in the summary.csv beside the file, else
 * the directory's name for a golden.pics (also for "." or ".."), else the
 * file's name without its .pics suffix. Errors: TEA_ERR_FORMAT for a
 * sampled PICS ("FILE: a sampled PICS (scheme S); ..."), pics_read's,
 * results_correlate_collect's prefixed with the file, TEA_ERR_NOMEM. */
int results_correlate_load(results_correlate_trace *t, results_correlate_trace *pooled, const char *path,
                           uint64_t min_count);

/* Gives each trace named as an earlier one of traces[0..count) "#2",
 * "#3", ... after its name (the k-th repeat of a name gets #k+1). 0 or
 * TEA_ERR_NOMEM. */
int results_correlate_unique_names(results_correlate_trace *traces, size_t count);

/* Computes the figures of every event from the points. */
void results_correlate_finish(results_correlate_trace *t);

/* Frees the name and the points; the trace is all zeros afterwards. */
void results_correlate_trace_free(results_correlate_trace *t);

#endif
