/*
 * stalls.c: `tea stalls` as a view and its tables (stalls.h).
 */
#include "stalls.h"
#include "common/error.h"
#include "golden/topdown.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Units of 100 % at the text shares' one decimal. */
#define TEXT_PERCENT_UNITS 1000u
/* Decimals of the mean. */
#define MEAN_DECIMALS 3
/* The two groups of the text buckets. */
#define BUCKET_GROUPS 2

/* The percentiles reported, as fractions. */
static const struct {
    const char *name;
    uint64_t num, den;
} percentiles[] = {
    { "p50", 50, 100 },
    { "p90", 90, 100 },
    { "p99", 99, 100 },
    { "p99.9", 999, 1000 },
};
#define PERCENTILE_COUNT (sizeof percentiles / sizeof percentiles[0])

/* Reads the trace once through the golden reference into v->s. */
static int analyse(view_stalls *v, const char *path, const trace_open_options *open)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    golden g;
    golden_sink sink = golden_stalls_sink(&v->s);
    int rc;

    if ((rc = trace_reader_open(&reader, path, open)))
        return rc;
    if ((rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    golden_init(&g, trace_reader_header(reader)->initial_window);
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        golden_feed(&g, &batch, &sink);
    }
    golden_finish(&g, &sink);
    v->totals = *golden_get_totals(&g);
    rc = trace_header_copy(&v->header, trace_reader_header(reader));
done:
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}

/* The log2 buckets of one group: [1], [2], [3,4], [5,8], ... up to
 * max_length, then the overflow. Fills counts (and the bounds) and returns
 * the number of buckets. */
static size_t log2_buckets(view_stalls *v, int group, uint64_t *counts)
{
    const golden_stalls_group *g = &v->s.groups[group];
    size_t n = 0;
    for (uint64_t lo = 1; lo <= v->s.max_length; n++) {
        uint64_t hi = lo == 1 ? 1 : 2 * lo - 2;
        if (hi > v->s.max_length)
            hi = v->s.max_length;
        assert(n + 1 < VIEW_STALLS_MAX_BUCKETS);
        v->lows[n] = lo;
        v->highs[n] = hi;
        counts[n] = 0;
        for (uint64_t len = lo; len <= hi; len++)
            counts[n] += g->histogram[len];
        lo = hi + 1;
    }
    v->lows[n] = v->s.max_length + 1;
    v->highs[n] = 0;
    counts[n] = g->overflow;
    return n + 1;
}

/* The text buckets of base and any-event stalls, their shares (adding up
 * to 100.0 %) and cumulative shares, up to the last bucket that holds a
 * stall. */
static int prepare_buckets(view_stalls *v)
{
    static const int shown[BUCKET_GROUPS] = { GOLDEN_STALLS_BASE, GOLDEN_STALLS_ANY_EVENT };
    size_t last = 0;
    int rc;

    for (int k = 0; k < BUCKET_GROUPS; k++) {
        v->bucket_total = log2_buckets(v, shown[k], v->counts[k]);
        if ((rc = golden_topdown_apportion(v->counts[k], v->bucket_total, TEXT_PERCENT_UNITS, v->shares[k])))
            return rc;
        for (size_t i = 0; i < v->bucket_total; i++)
            if (v->counts[k][i] && i + 1 > last)
                last = i + 1;
    }
    v->bucket_count = last;
    for (int k = 0; k < BUCKET_GROUPS; k++)
        for (size_t i = 0; i < last; i++)
            v->cumulative[k][i] = (i ? v->cumulative[k][i - 1] : 0) + v->shares[k][i];
    return TEA_OK;
}

/* The histogram's lengths that some group has, then max_length + 1. */
static int prepare_lengths(view_stalls *v)
{
    size_t n = 0;
    if (!(v->lengths = malloc((v->s.max_length + 1) * sizeof *v->lengths)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (uint64_t len = 1; len <= v->s.max_length; len++) {
        int any = 0;
        for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++)
            any |= v->s.groups[grp].histogram[len] != 0;
        if (any)
            v->lengths[n++] = len;
    }
    v->lengths[n++] = v->s.max_length + 1;
    v->length_count = n;
    return TEA_OK;
}

int view_stalls_read(view_stalls *v, const char *path, const trace_open_options *open, uint64_t max_length)
{
    int rc;

    memset(v, 0, sizeof *v);
    trace_header_init(&v->header);
    if ((rc = golden_stalls_init(&v->s, max_length)))
        return rc;
    if ((rc = analyse(v, path, open)) || (rc = prepare_buckets(v)))
        return rc;
    return prepare_lengths(v);
}

void view_stalls_free(view_stalls *v)
{
    golden_stalls_free(&v->s);
    trace_header_free(&v->header);
    free(v->lengths);
    memset(v, 0, sizeof *v);
}

/* --- the summary ----------------------------------------------------------------------- */

/* A share in tenths of a percent as "12.3". */
static void share_text(emit_cell *cell, uint64_t share, const char *suffix)
{
    emit_printf(cell, "%llu.%llu%s", (unsigned long long)(share / 10), (unsigned long long)(share % 10), suffix);
}

static int summary_group(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    (void)ctx;
    (void)format;
    emit_text(cell, golden_stalls_group_name((int)row));
    return TEA_OK;
}

/* µops (index 0), stalls (1) or cycles (2) of a group. */
static int summary_count(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const golden_stalls_group *g = &((view_stalls *)ctx)->s.groups[row];
    uint64_t v = cell->index == 0 ? g->uops : cell->index == 1 ? g->stalls : g->cycles;
    (void)format;
    emit_printf(cell, "%llu", (unsigned long long)v);
    return TEA_OK;
}

/* The share of a group's µops that stalled, adding up to 100.0 % with the
 * rest. */
static int summary_stalled(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const golden_stalls_group *g = &((view_stalls *)ctx)->s.groups[row];
    uint64_t parts[2] = { g->stalls, g->uops - g->stalls }, shares[2];
    int rc = golden_topdown_apportion(parts, 2, TEXT_PERCENT_UNITS, shares);
    (void)format;
    if (!rc)
        share_text(cell, shares[0], "%");
    return rc;
}

/* Percentile cell->index of a group: the length, ">MAX" beyond the
 * histogram; without stalls "-" in text, empty in CSV. */
static int summary_percentile(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_stalls *v = ctx;
    uint64_t length;
    golden_stalls_percentile_kind kind;
    int r;

    if (format == EMIT_TEXT && !v->s.groups[row].stalls) {
        emit_text(cell, "-");
        return TEA_OK;
    }
    r = golden_stalls_percentile(&v->s, (int)row, percentiles[cell->index].num, percentiles[cell->index].den, &length,
                                 &kind);
    if (r || kind == GOLDEN_STALLS_PERCENTILE_EMPTY)
        return TEA_OK;
    if (kind == GOLDEN_STALLS_PERCENTILE_BEYOND)
        emit_printf(cell, ">%llu", (unsigned long long)v->s.max_length);
    else
        emit_printf(cell, "%llu", (unsigned long long)length);
    return TEA_OK;
}

/* The longest stall (index 0) or the mean (1); without stalls "-" in
 * text, empty in CSV. */
static int summary_longest_mean(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const golden_stalls_group *g = &((view_stalls *)ctx)->s.groups[row];
    if (!g->stalls)
        emit_text(cell, format == EMIT_TEXT ? "-" : "");
    else if (cell->index == 0)
        emit_printf(cell, "%llu", (unsigned long long)g->longest);
    else
        emit_printf(cell, "%.*f", MEAN_DECIMALS, (double)g->cycles / (double)g->stalls);
    return TEA_OK;
}

/* The text summary's widths. */
#define GROUP_WIDTH 10
#define COUNT_WIDTH 12
#define UOPS_HEADING_WIDTH 13 /* "µops" is one byte longer than it is wide */
#define SHARE_WIDTH 7
#define PERCENTILE_WIDTH 7
#define LONGEST_WIDTH 9
#define MEAN_WIDTH 10

void view_stalls_summary_table(view_stalls *v, emit_format format, emit_column *cols, emit_table *table)
{
    int text = format == EMIT_TEXT;
    size_t n = 0;

    cols[n++] = (emit_column){ "group", NULL, -GROUP_WIDTH, 0, " ", EMIT_CSV_RAW, summary_group, 0 };
    cols[n++] = (emit_column){ "uops", "µops", COUNT_WIDTH, UOPS_HEADING_WIDTH, " ", EMIT_CSV_RAW, summary_count, 0 };
    cols[n++] = (emit_column){ "stalls", NULL, COUNT_WIDTH, 0, " ", EMIT_CSV_RAW, summary_count, 1 };
    if (text)
        cols[n++] = (emit_column){ "stalled", NULL, SHARE_WIDTH, 0, " ", EMIT_CSV_RAW, summary_stalled, 0 };
    cols[n++] = (emit_column){ "cycles", NULL, COUNT_WIDTH, 0, " ", EMIT_CSV_RAW, summary_count, 2 };
    for (size_t p = 0; p < PERCENTILE_COUNT; p++)
        cols[n++] = (emit_column){ percentiles[p].name, NULL, PERCENTILE_WIDTH, 0, " ", EMIT_CSV_RAW,
                                   summary_percentile, p };
    cols[n++] = (emit_column){ "max", NULL, LONGEST_WIDTH, 0, " ", EMIT_CSV_RAW, summary_longest_mean, 0 };
    cols[n++] = (emit_column){ "mean", NULL, MEAN_WIDTH, 0, NULL, EMIT_CSV_RAW, summary_longest_mean, 1 };
    assert(n <= VIEW_STALLS_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = v;
    table->rows = GOLDEN_STALLS_GROUP_COUNT;
}

/* --- the text buckets ------------------------------------------------------------------ */

static int bucket_range(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_stalls *v = ctx;
    (void)format;
    if (row + 1 == v->bucket_total)
        emit_printf(cell, "> %llu", (unsigned long long)v->s.max_length);
    else if (v->lows[row] == v->highs[row])
        emit_printf(cell, "%llu", (unsigned long long)v->lows[row]);
    else
        emit_printf(cell, "%llu-%llu", (unsigned long long)v->lows[row], (unsigned long long)v->highs[row]);
    return TEA_OK;
}

/* Bucket counts, shares and cumulative shares: index = 3 * group + what
 * (0 count, 1 share, 2 cumulative share). */
static int bucket_value(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_stalls *v = ctx;
    size_t group = cell->index / 3, what = cell->index % 3;
    (void)format;
    if (what == 0)
        emit_printf(cell, "%llu", (unsigned long long)v->counts[group][row]);
    else
        share_text(cell, what == 1 ? v->shares[group][row] : v->cumulative[group][row], "%");
    return TEA_OK;
}

/* The first column's width in rows and (the row prefix's two more) in its
 * heading. */
#define RANGE_WIDTH 24
#define RANGE_HEADING_WIDTH 26

void view_stalls_buckets_table(view_stalls *v, emit_column *cols, emit_table *table)
{
    size_t n = 0;

    cols[n++] = (emit_column){ "length", "stall lengths (cycles)", -RANGE_WIDTH, -RANGE_HEADING_WIDTH, " ",
                               EMIT_CSV_RAW, bucket_range, 0 };
    cols[n++] = (emit_column){ "base", NULL, COUNT_WIDTH, 0, " ", EMIT_CSV_RAW, bucket_value, 0 };
    cols[n++] = (emit_column){ "share", NULL, SHARE_WIDTH, 0, " ", EMIT_CSV_RAW, bucket_value, 1 };
    cols[n++] = (emit_column){ "cumul", NULL, SHARE_WIDTH, 0, "   ", EMIT_CSV_RAW, bucket_value, 2 };
    cols[n++] = (emit_column){ "any-event", NULL, COUNT_WIDTH, 0, " ", EMIT_CSV_RAW, bucket_value, 3 };
    cols[n++] = (emit_column){ "share", NULL, SHARE_WIDTH, 0, " ", EMIT_CSV_RAW, bucket_value, 4 };
    cols[n++] = (emit_column){ "cumul", NULL, SHARE_WIDTH, 0, NULL, EMIT_CSV_RAW, bucket_value, 5 };
    assert(n <= VIEW_STALLS_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = v;
    table->rows = v->bucket_count;
    table->row_prefix = "  ";
}

/* --- the histogram --------------------------------------------------------------------- */

static int histogram_length(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_stalls *v = ctx;
    (void)format;
    if (row + 1 == v->length_count)
        emit_printf(cell, ">%llu", (unsigned long long)v->s.max_length);
    else
        emit_printf(cell, "%llu", (unsigned long long)v->lengths[row]);
    return TEA_OK;
}

/* Group cell->index's stalls of the row's length, or beyond the histogram. */
static int histogram_count(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_stalls *v = ctx;
    const golden_stalls_group *g = &v->s.groups[cell->index];
    (void)format;
    emit_printf(cell, "%llu",
                (unsigned long long)(row + 1 == v->length_count ? g->overflow : g->histogram[v->lengths[row]]));
    return TEA_OK;
}

void view_stalls_histogram_table(view_stalls *v, emit_column *cols, emit_table *table)
{
    size_t n = 0;

    cols[n++] = (emit_column){ "length", NULL, 0, 0, NULL, EMIT_CSV_RAW, histogram_length, 0 };
    for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++)
        cols[n++] = (emit_column){ golden_stalls_group_name(grp), NULL, 0, 0, NULL, EMIT_CSV_RAW, histogram_count,
                                   (size_t)grp };
    assert(n <= VIEW_STALLS_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = v;
    table->rows = v->length_count;
}
