/*
 * interval.c: share intervals from window groups (see interval.h).
 */
#include "interval.h"
#include "common/error.h"
#include "common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int view_intervals_build(view_intervals *iv, const pics *groups, size_t count, pics_granularity g,
                         const trace_symmap *ranges)
{
    int rc;

    memset(iv, 0, sizeof *iv);
    if (count == 0)
        return TEA_OK;
    if (!(iv->views = calloc(count, sizeof *iv->views)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    iv->groups = groups;
    iv->count = count;
    for (size_t k = 0; k < count; k++) {
        if ((rc = view_build(&iv->views[k], &groups[k], NULL, g, ranges))) {
            view_intervals_free(iv);
            return rc;
        }
    }
    return TEA_OK;
}

/* The raw value of row `key` (psv < 0) or of its component `psv` in view v. */
static uint64_t value_in(const view *v, uint64_t key, int psv)
{
    const view_row *r = view_find(v, key);
    if (!r)
        return 0;
    if (psv < 0)
        return r->value;
    for (size_t i = 0; i < r->count; i++)
        if (v->cells[r->first + i].psv == (uint16_t)psv)
            return v->cells[r->first + i].a;
    return 0;
}

double view_intervals_half(const view_intervals *iv, uint64_t key, int psv)
{
    stats_sample s;

    if (iv->count == 0)
        return NAN;
    memset(&s, 0, sizeof s);
    for (size_t k = 0; k < iv->count; k++) {
        uint64_t total = iv->groups[k].total;
        stats_add(&s, total ? (double)value_in(&iv->views[k], key, psv) / (double)total : 0.0);
    }
    return stats_half_interval95(&s);
}

void view_intervals_free(view_intervals *iv)
{
    for (size_t k = 0; iv->views && k < iv->count; k++)
        view_free(&iv->views[k]);
    free(iv->views);
    memset(iv, 0, sizeof *iv);
}
