/*
 * error.c: the PICS error metric (see error.h).
 */
#include "error.h"
#include "common/error.h"
#include "common/exact.h"

#include <stdlib.h>
#include <string.h>

/* Name of the group of addresses outside every function. */
#define UNKNOWN_FUNCTION "[unknown]"


/* One group's summed absolute difference, in units of 1/(C*S) cycles^2. */
typedef struct group_diff {
    uint64_t group;
    exact_u128 diff;
} group_diff;

const char *pics_granularity_name(pics_granularity g)
{
    switch (g) {
    case PICS_GRAN_INSN_COMPONENT:
        return "insn-component";
    case PICS_GRAN_INSN:
        return "insn";
    case PICS_GRAN_FUNC:
        return "func";
    }
    return "?";
}

int pics_granularity_parse(const char *name, pics_granularity *g)
{
    if (strcmp(name, "insn-component") == 0)
        *g = PICS_GRAN_INSN_COMPONENT;
    else if (strcmp(name, "insn") == 0)
        *g = PICS_GRAN_INSN;
    else if (strcmp(name, "func") == 0)
        *g = PICS_GRAN_FUNC;
    else
        return error_set(TEA_ERR_USAGE, "unknown granularity '%s' (insn-component, insn or func)", name);
    return TEA_OK;
}

/* The group a cell is summed into: its instruction, or 1 + the index of its
 * function (0 for addresses outside every function). */
static uint64_t group_of(uint64_t pc, pics_granularity g, const pics_symmap *syms)
{
    if (g != PICS_GRAN_FUNC)
        return pc;
    return (uint64_t)(pics_symmap_find(syms, pc) + 1);
}

/* Sums `src` into `dst` by (group, component). */
static int aggregate(const pics *src, pics_granularity g, const pics_symmap *syms, pics *dst)
{
    for (size_t i = 0; i < src->capacity; i++) {
        const pics_cell *c = &src->slots[i];
        int rc;
        if (!c->used)
            continue;
        if ((rc = pics_add(dst, group_of(c->pc, g, syms), g == PICS_GRAN_INSN ? 0 : c->psv, c->value, 0)))
            return rc;
    }
    return TEA_OK;
}

static int compare_group(const void *a, const void *b)
{
    const group_diff *x = a, *y = b;
    return x->group < y->group ? -1 : x->group > y->group;
}

static int compare_contribution(const void *a, const void *b)
{
    const pics_contribution *x = a, *y = b;
    if (x->contribution != y->contribution)
        return x->contribution > y->contribution ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The absolute difference of every (group, component) of the union of the
 * two aggregated maps, scaled to a common denominator: |s*C - g*S|. */
static int collect_diffs(const pics *gagg, const pics *sagg, uint64_t C, uint64_t S, group_diff **out, size_t *n)
{
    size_t k = 0, cap = gagg->count + sagg->count;
    group_diff *d = malloc((cap ? cap : 1) * sizeof *d);

    if (!d)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < gagg->capacity; i++) {
        const pics_cell *gc = &gagg->slots[i];
        const pics_cell *sc;
        exact_u128 a, b;
        if (!gc->used)
            continue;
        sc = pics_find(sagg, gc->pc, gc->psv);
        a = (exact_u128)(sc ? sc->value : 0) * C;
        b = (exact_u128)gc->value * S;
        d[k].group = gc->pc;
        d[k++].diff = a > b ? a - b : b - a;
    }
    for (size_t i = 0; i < sagg->capacity; i++) {
        const pics_cell *sc = &sagg->slots[i];
        if (!sc->used || pics_find(gagg, sc->pc, sc->psv))
            continue;
        d[k].group = sc->pc;
        d[k++].diff = (exact_u128)sc->value * C;
    }
    *out = d;
    *n = k;
    return TEA_OK;
}

/* Turns per-(group, component) differences into per-group contributions. */
static int contributions(group_diff *d, size_t n, long double denominator, pics_granularity g, const pics_symmap *syms,
                         pics_error_result *out)
{
    size_t groups = 0;
    exact_u128 total = 0;

    qsort(d, n, sizeof *d, compare_group);
    out->items = malloc((n ? n : 1) * sizeof *out->items);
    if (!out->items)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n;) {
        uint64_t group = d[i].group;
        exact_u128 sum = 0;
        for (; i < n && d[i].group == group; i++)
            sum += d[i].diff;
        total += sum;
        if (sum == 0)
            continue;
        pics_contribution *c = &out->items[groups++];
        c->contribution = (double)((long double)sum / denominator);
        c->name = NULL;
        c->pc = group;
        if (g == PICS_GRAN_FUNC) {
            c->name = group ? syms->entries[group - 1].name : UNKNOWN_FUNCTION;
            c->pc = group ? syms->entries[group - 1].start : 0;
        }
    }
    out->count = groups;
    out->error = (double)((long double)total / denominator);
    qsort(out->items, groups, sizeof *out->items, compare_contribution);
    return TEA_OK;
}

int pics_error_compute(const pics *sampled, const pics *golden, pics_granularity g, const pics_symmap *syms,
                       pics_error_result *out)
{
    pics gagg = { 0 }, sagg = { 0 };
    group_diff *d = NULL;
    size_t n = 0;
    uint64_t C = golden->total, S = sampled->total;
    int rc;

    memset(out, 0, sizeof *out);
    if (C == 0)
        return error_set(TEA_ERR_USAGE, "the golden PICS is empty: no error can be computed");
    if (g == PICS_GRAN_FUNC && !syms)
        return error_set(TEA_ERR_USAGE, "function granularity needs symbols");
    if ((rc = pics_init(&gagg)) || (rc = pics_init(&sagg)) || (rc = aggregate(golden, g, syms, &gagg))
        || (rc = aggregate(sampled, g, syms, &sagg)))
        goto done;
    if (S == 0) {
        /* No sample at all: nothing matches. Each group contributes its golden share. */
        pics empty = { 0 };
        if ((rc = pics_init(&empty)) == TEA_OK) {
            rc = collect_diffs(&gagg, &empty, C, 1, &d, &n);
            pics_free(&empty);
        }
        if (rc == TEA_OK)
            rc = contributions(d, n, (long double)C, g, syms, out);
        goto done;
    }
    if ((rc = collect_diffs(&gagg, &sagg, C, S, &d, &n)))
        goto done;
    rc = contributions(d, n, 2.0L * (long double)C * (long double)S, g, syms, out);
done:
    free(d);
    pics_free(&gagg);
    pics_free(&sagg);
    if (rc)
        pics_error_result_free(out);
    return rc;
}

void pics_error_result_free(pics_error_result *r)
{
    free(r->items);
    r->items = NULL;
    r->count = 0;
}
