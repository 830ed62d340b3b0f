/*
 * correlate.c: event occurrences against cycle impact (see correlate.h).
 */
#include "correlate.h"
#include "common/error.h"
#include "common/exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POINTS_INITIAL_CAPACITY 256

void results_correlate_points_free(results_correlate_points *p)
{
    free(p->items);
    memset(p, 0, sizeof *p);
}

static int append_point(results_correlate_points *p, uint64_t occurrences, uint64_t value)
{
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? 2 * p->capacity : POINTS_INITIAL_CAPACITY;
        results_correlate_point *items = realloc(p->items, cap * sizeof *items);
        if (!items)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        p->items = items;
        p->capacity = cap;
    }
    p->items[p->count++] = (results_correlate_point){ .occurrences = occurrences, .value = value };
    return TEA_OK;
}

/* Appends one instruction's points (its per-event sums). */
static int flush_instruction(const uint64_t occurrences[TRACE_PSV_EVENT_COUNT],
                             const uint64_t values[TRACE_PSV_EVENT_COUNT], uint64_t min_count,
                             results_correlate_points points[TRACE_PSV_EVENT_COUNT])
{
    int rc;
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
        if (occurrences[e] >= min_count && (rc = append_point(&points[e], occurrences[e], values[e])))
            return rc;
    }
    return TEA_OK;
}

int results_correlate_collect(const pics *p, uint64_t min_count, results_correlate_points points[TRACE_PSV_EVENT_COUNT])
{
    uint64_t occurrences[TRACE_PSV_EVENT_COUNT] = { 0 }, values[TRACE_PSV_EVENT_COUNT] = { 0 };
    pics_cell *cells = NULL;
    size_t n = 0;
    int rc;

    if ((rc = pics_sorted(p, &cells, &n)))
        return rc;
    for (size_t i = 0; i < n; i++) {
        const pics_cell *c = &cells[i];
        for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
            if (!(c->psv & (1u << e)))
                continue;
            if (__builtin_add_overflow(occurrences[e], c->count, &occurrences[e])
                || __builtin_add_overflow(values[e], c->value, &values[e])) {
                rc = error_set(TEA_ERR_FORMAT, "instruction 0x%llx: its %s counts or values overflow 64 bits",
                               (unsigned long long)c->pc, trace_psv_event_name((enum trace_psv_event)e));
                goto done;
            }
        }
        if (i + 1 == n || cells[i + 1].pc != c->pc) {
            if ((rc = flush_instruction(occurrences, values, min_count, points)))
                goto done;
            memset(occurrences, 0, sizeof occurrences);
            memset(values, 0, sizeof values);
        }
    }
done:
    free(cells);
    return rc;
}

void results_correlate_compute(const results_correlate_point *pts, size_t n, results_correlate_stats *out)
{
    exact_i128 shift_x = 0, shift_y = 0; /* sums of the points less the first point */
    long double mean_x, mean_y, sxx = 0, syy = 0, sxy = 0, r;
    int x_varies = 0, y_varies = 0;

    memset(out, 0, sizeof *out);
    out->instructions = n;
    out->r = NAN;
    for (size_t i = 0; i < n; i++) {
        out->occurrences += pts[i].occurrences;
        out->value += pts[i].value;
        shift_x += (exact_i128)pts[i].occurrences - (exact_i128)pts[0].occurrences;
        shift_y += (exact_i128)pts[i].value - (exact_i128)pts[0].value;
        x_varies |= pts[i].occurrences != pts[0].occurrences;
        y_varies |= pts[i].value != pts[0].value;
    }
    /* Undefined: no spread on one side (also fewer than two points). */
    if (!x_varies || !y_varies)
        return;
    /* Two passes over the points shifted by the first one, whose offsets
     * are exact in long double: values near 2^64 with small differences
     * keep every digit of those differences. */
    mean_x = (long double)shift_x / (long double)n;
    mean_y = (long double)shift_y / (long double)n;
    for (size_t i = 0; i < n; i++) {
        long double dx = (long double)((exact_i128)pts[i].occurrences - (exact_i128)pts[0].occurrences) - mean_x;
        long double dy = (long double)((exact_i128)pts[i].value - (exact_i128)pts[0].value) - mean_y;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    r = sxy / sqrtl(sxx * syy);
    /* Rounding may step just outside [-1, 1] for perfectly linear data. */
    out->r = (double)(r > 1 ? 1 : r < -1 ? -1 : r);
}
