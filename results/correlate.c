/*
 * correlate.c: event occurrences against cycle impact (see correlate.h).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "correlate.h"
#include "results.h"
#include "common/error.h"
#include "common/exact.h"

#include <assert.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
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
    assert(p->count < p->capacity); /* a free slot */
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
        assert(i == 0 || cells[i - 1].pc <= c->pc); /* pics_sorted: an instruction's cells are adjacent */
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
    assert(n >= 2); /* a spread takes two points */
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

/* --- the inputs of `pics correlate` ----------------------------------------- */

/* Room for the "#N" a repeated name gets. */
#define REPEAT_SUFFIX_MAX 32

/* The trace's name (see results_correlate_load). */
static int name_input(const char *file, const char *digest, char **name)
{
    char *copy = strdup(file), *dir, *summary = NULL, *base_copy = strdup(file), *base, resolved[PATH_MAX];
    int rc = TEA_OK;
    size_t n;

    *name = NULL;
    if (!copy || !base_copy) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    dir = dirname(copy);
    base = basename(base_copy);
    if (!(summary = results_dir_file(dir, RESULTS_SUMMARY))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = results_trace_name(summary, digest, name)) || *name)
        goto done;
    if (strcmp(base, RESULTS_GOLDEN) == 0) {
        /* The directory's own name, also for "." or "..". */
        const char *d = realpath(dir, resolved) ? resolved : dir;
        const char *slash = strrchr(d, '/');
        *name = strdup(slash && slash[1] ? slash + 1 : d);
    } else {
        n = strlen(base);
        if (n > strlen(RESULTS_PICS_SUFFIX) && strcmp(base + n - strlen(RESULTS_PICS_SUFFIX), RESULTS_PICS_SUFFIX) == 0)
            base[n - strlen(RESULTS_PICS_SUFFIX)] = '\0';
        *name = strdup(base);
    }
    if (!*name)
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
done:
    free(copy);
    free(base_copy);
    free(summary);
    return rc;
}

int results_correlate_load(results_correlate_trace *t, results_correlate_trace *pooled, const char *path,
                           uint64_t min_count)
{
    char *file = results_is_dir(path) ? results_dir_file(path, RESULTS_GOLDEN) : strdup(path);
    pics_info info;
    pics p;
    int rc;

    pics_info_init(&info);
    memset(&p, 0, sizeof p);
    if (!file)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if ((rc = pics_read(file, &info, &p)))
        goto done;
    if (!pics_info_is_golden(&info)) {
        rc = error_set(TEA_ERR_FORMAT,
                       "%s: a sampled PICS (scheme %s); correlation needs the golden reference "
                       "(golden.pics from tea replay)",
                       file, info.scheme);
        goto done;
    }
    memcpy(t->digest, info.trace_digest, sizeof t->digest);
    if ((rc = name_input(file, info.trace_digest, &t->name)))
        goto done;
    if ((rc = results_correlate_collect(&p, min_count, t->points))
        || (rc = results_correlate_collect(&p, min_count, pooled->points)))
        error_prefix(rc, "%s: ", file);
done:
    pics_free(&p);
    pics_info_free(&info);
    free(file);
    return rc;
}

int results_correlate_unique_names(results_correlate_trace *traces, size_t count)
{
    size_t *same = calloc(count ? count : 1, sizeof *same);
    if (!same)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 1; i < count; i++)
        for (size_t j = 0; j < i; j++)
            same[i] += strcmp(traces[j].name, traces[i].name) == 0;
    for (size_t i = 1; i < count; i++) {
        size_t n = strlen(traces[i].name) + REPEAT_SUFFIX_MAX;
        char *renamed;
        if (!same[i])
            continue;
        if (!(renamed = malloc(n))) {
            free(same);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        snprintf(renamed, n, "%s#%zu", traces[i].name, same[i] + 1);
        free(traces[i].name);
        traces[i].name = renamed;
    }
    free(same);
    return TEA_OK;
}

void results_correlate_finish(results_correlate_trace *t)
{
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        results_correlate_compute(t->points[e].items, t->points[e].count, &t->stats[e]);
}

void results_correlate_trace_free(results_correlate_trace *t)
{
    free(t->name);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        results_correlate_points_free(&t->points[e]);
    memset(t, 0, sizeof *t);
}
