/*
 * stalls.h: `tea stalls` as a view: a trace read once through the golden
 * reference into stall-length distributions (golden/stalls.h), and its
 * tables as columns of the one output layer (common/emit.h): the summary
 * per group (µops, stalls, share stalled, cycles, percentiles, max, mean),
 * the text summary's log2 buckets of base and any-event stalls with shares
 * and cumulative shares that add up to 100.0 %, and the whole histogram.
 */
#ifndef TEA_VIEW_STALLS_H
#define TEA_VIEW_STALLS_H

#include "common/emit.h"
#include "golden/golden.h"
#include "golden/stalls.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* The text summary's buckets: log2 of the longest exact length, plus two. */
#define VIEW_STALLS_MAX_BUCKETS 70

/* A trace's stalls and what its tables are made of. */
typedef struct view_stalls {
    golden_stalls s;
    golden_totals totals;
    trace_header header;
    /* the text summary's log2 buckets of base (0) and any-event (1) stalls,
     * up to the last that holds one (bucket_count of them) */
    size_t bucket_count, bucket_total;
    uint64_t counts[2][VIEW_STALLS_MAX_BUCKETS], shares[2][VIEW_STALLS_MAX_BUCKETS];
    uint64_t cumulative[2][VIEW_STALLS_MAX_BUCKETS], lows[VIEW_STALLS_MAX_BUCKETS], highs[VIEW_STALLS_MAX_BUCKETS];
    /* the histogram's lengths that some group has, then max_length + 1 for
     * the stalls beyond it */
    uint64_t *lengths;
    size_t length_count;
} view_stalls;

/* Reads the trace at `path` once through the golden reference, keeping
 * stalls up to max_length cycles exactly, and prepares the tables. 0 or the
 * reader's error, TEA_ERR_NOMEM. view_stalls_free frees what it made
 * either way. */
int view_stalls_read(view_stalls *v, const char *path, const trace_open_options *open, uint64_t max_length);
void view_stalls_free(view_stalls *v);

/* The most columns a stalls table has. */
#define VIEW_STALLS_COLUMNS_MAX 12

/* The summary, one row per group, in `format` (text: group, µops, stalls,
 * stalled, cycles, p50, p90, p99, p99.9, max, mean, "-" where a group has
 * no stall; CSV: the same but stalled, empty where there is none). */
void view_stalls_summary_table(view_stalls *v, emit_format format, emit_column *cols, emit_table *table);

/* The text summary's buckets: length range, then base and any-event
 * stalls, each with its share and cumulative share (rows: bucket_count). */
void view_stalls_buckets_table(view_stalls *v, emit_column *cols, emit_table *table);

/* The whole histogram as CSV: one row per length some group has, each
 * group's count, and a last row ">MAX" of the stalls beyond it. */
void view_stalls_histogram_table(view_stalls *v, emit_column *cols, emit_table *table);

#endif
