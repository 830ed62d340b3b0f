/*
 * error.c: the PICS error metric (see error.h).
 */
#include "error.h"
#include "common/error.h"
#include "common/stats.h"
#include "compare.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Name of the group of addresses outside every function. */
#define UNKNOWN_FUNCTION "[unknown]"

const char *pics_granularity_name(pics_granularity g)
{
    switch (g) {
    case PICS_GRAN_INSN_COMPONENT:
        return "insn-component";
    case PICS_GRAN_INSN:
        return "insn";
    case PICS_GRAN_FUNC:
        return "func";
    case PICS_GRAN_CALLPATH:
        return "callpath";
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
    else if (strcmp(name, "callpath") == 0)
        *g = PICS_GRAN_CALLPATH;
    else
        return error_set(TEA_ERR_USAGE, "unknown granularity '%s' (insn-component, insn, func or callpath)", name);
    return TEA_OK;
}

static int compare_contribution(const void *a, const void *b)
{
    const pics_contribution *x = a, *y = b;
    if (x->contribution != y->contribution)
        return x->contribution > y->contribution ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Turns the paired cells (sorted by group) into per-group contributions. */
static int contributions(const pics_pairing *pr, pics_granularity g, const trace_symmap *syms, pics_error_result *out)
{
    size_t groups = 0;

    out->items = malloc((pr->count ? pr->count : 1) * sizeof *out->items);
    if (!out->items)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < pr->count;) {
        uint64_t group = pr->pairs[i].key;
        exact_u128 sum = 0;
        pics_contribution *c;
        for (; i < pr->count && pr->pairs[i].key == group; i++)
            sum += pr->pairs[i].diff;
        if (sum == 0)
            continue;
        c = &out->items[groups++];
        c->contribution = pics_pairing_share(pr, sum);
        c->name = NULL;
        c->pc = group;
        if (pics_granularity_ranged(g)) {
            assert(group <= syms->count);
            c->name = group ? syms->entries[group - 1].name : UNKNOWN_FUNCTION;
            c->pc = group ? syms->entries[group - 1].start : 0;
        }
    }
    assert(groups <= pr->count); /* a group holds one pair at least */
    out->count = groups;
    out->error = pics_pairing_share(pr, pr->total);
    qsort(out->items, groups, sizeof *out->items, compare_contribution);
    return TEA_OK;
}

int pics_error_check(const pics *golden, pics_granularity g, const trace_symmap *syms)
{
    if (golden->total == 0)
        return error_set(TEA_ERR_USAGE, "the golden PICS is empty: no error can be computed");
    if (pics_granularity_ranged(g) && !syms)
        return error_set(TEA_ERR_USAGE, "%s granularity needs symbols", g == PICS_GRAN_FUNC ? "function" : "call-path");
    return TEA_OK;
}

int pics_error_compute(const pics *sampled, const pics *golden, pics_granularity g, const trace_symmap *syms,
                       pics_error_result *out)
{
    pics gagg = { 0 }, sagg = { 0 };
    pics_pairing pr = { 0 };
    const trace_symmap *ranges = pics_granularity_ranged(g) ? syms : NULL;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = pics_error_check(golden, g, syms)))
        return rc;
    if ((rc = pics_group(golden, ranges, g == PICS_GRAN_INSN, &gagg)))
        return rc;
    if ((rc = pics_group(sampled, ranges, g == PICS_GRAN_INSN, &sagg)) == TEA_OK) {
        /* A sampled PICS without any sample matches nothing: each group
         * contributes its golden share (compare.h). */
        if ((rc = pics_pair_up(&sagg, &gagg, &pr)) == TEA_OK)
            rc = contributions(&pr, g, syms, out);
        pics_free(&sagg);
    }
    pics_pairing_free(&pr);
    pics_free(&gagg);
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

/* Sums every group but `skip` into `out` (initialized here). */
static int all_groups_but(const pics *groups, unsigned count, unsigned skip, pics *out)
{
    int rc = pics_init(out);
    for (unsigned k = 0; k < count && !rc; k++)
        if (k != skip)
            rc = pics_merge_into(out, &groups[k]);
    if (rc)
        pics_free(out);
    return rc;
}

/* The jackknife of pics_error_jackknife: each group left out of the
 * sampled PICS and, when `golden_groups` is not NULL, of the golden one;
 * else the golden PICS is `golden`, whole, every time. */
static int jackknife(const pics *sampled_groups, const pics *golden_groups, const pics *golden, unsigned count,
                     pics_granularity g, const trace_symmap *syms, double *half)
{
    stats_sample left_out = { 0 };
    int rc = TEA_OK;

    assert(count >= 2);
    assert(golden_groups || golden);
    for (unsigned k = 0; k < count && !rc; k++) {
        pics s, gold = { 0 };
        pics_error_result e;
        if ((rc = all_groups_but(sampled_groups, count, k, &s)))
            break;
        if (!golden_groups || !(rc = all_groups_but(golden_groups, count, k, &gold))) {
            if (!(rc = pics_error_compute(&s, golden_groups ? &gold : golden, g, syms, &e))) {
                stats_add(&left_out, e.error);
                pics_error_result_free(&e);
            }
            pics_free(&gold);
        }
        pics_free(&s);
    }
    if (rc)
        return rc;
    /* sqrt((n - 1) / n * m2) with m2 = (n - 1) s^2 */
    *half = stats_t975(count - 1) * (double)(count - 1) / sqrt((double)count) * stats_stddev(&left_out);
    return TEA_OK;
}

int pics_error_jackknife(const pics *sampled_groups, const pics *golden_groups, unsigned count, pics_granularity g,
                         const trace_symmap *syms, double *half)
{
    return jackknife(sampled_groups, golden_groups, NULL, count, g, syms, half);
}

int pics_error_jackknife_whole(const pics *sampled_groups, unsigned count, const pics *golden, pics_granularity g,
                               const trace_symmap *syms, double *half)
{
    return jackknife(sampled_groups, NULL, golden, count, g, syms, half);
}
