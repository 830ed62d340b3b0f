/*
 * compare.c: grouping and pairing PICS (see compare.h).
 */
#include "compare.h"
#include "common/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int pics_group(const pics *src, const trace_symmap *ranges, int merge_psv, pics *dst)
{
    int rc = pics_init(dst);

    for (size_t i = 0; rc == TEA_OK && i < src->capacity; i++) {
        const pics_cell *c = &src->slots[i];
        uint64_t key;
        if (!c->used)
            continue;
        key = ranges ? (uint64_t)(trace_symmap_find(ranges, c->pc) + 1) : c->pc;
        rc = pics_add(dst, key, merge_psv ? 0 : c->psv, c->value, c->count);
    }
    if (rc)
        pics_free(dst);
    else
        assert(dst->total == src->total);
    return rc;
}

/* True when cell x comes before cell y in (key, PSV) order. */
static int before(const pics_cell *x, const pics_cell *y)
{
    return x->pc < y->pc || (x->pc == y->pc && x->psv < y->psv);
}

int pics_pair_up(const pics *a, const pics *b, pics_pairing *out)
{
    pics_cell *ca = NULL, *cb = NULL;
    size_t na = 0, nb = 0, i = 0, j = 0;
    uint64_t ma = b->total, mb = a->total; /* each side's multiplier: the other's total */
    int rc;

    memset(out, 0, sizeof *out);
    out->total_a = a->total;
    out->total_b = b->total;
    if (a->total && b->total) {
        out->denominator = 2.0L * (long double)a->total * (long double)b->total;
    } else {
        /* an empty PICS matches nothing: each value counts in full */
        ma = mb = 1;
        out->denominator = a->total ? (long double)a->total : b->total ? (long double)b->total : 1.0L;
    }
    if ((rc = pics_sorted(a, &ca, &na)) || (rc = pics_sorted(b, &cb, &nb)))
        goto done;
    if (!(out->pairs = malloc((na + nb ? na + nb : 1) * sizeof *out->pairs))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    while (i < na || j < nb) {
        pics_pair *p = &out->pairs[out->count++];
        int take_a = j >= nb || (i < na && !before(&cb[j], &ca[i]));
        int take_b = i >= na || (j < nb && !before(&ca[i], &cb[j]));
        exact_u128 xa, xb;
        p->key = take_a ? ca[i].pc : cb[j].pc;
        p->psv = take_a ? ca[i].psv : cb[j].psv;
        p->count_a = take_a ? ca[i].count : 0;
        p->a = take_a ? ca[i++].value : 0;
        p->b = take_b ? cb[j++].value : 0;
        xa = (exact_u128)p->a * ma;
        xb = (exact_u128)p->b * mb;
        p->diff = xa > xb ? xa - xb : xb - xa;
        out->total += p->diff;
    }
    assert(i == na && j == nb && out->count <= na + nb);
done:
    free(ca);
    free(cb);
    if (rc)
        pics_pairing_free(out);
    return rc;
}

double pics_pairing_share(const pics_pairing *p, exact_u128 diff)
{
    return (double)((long double)diff / p->denominator);
}

void pics_pairing_free(pics_pairing *p)
{
    free(p->pairs);
    p->pairs = NULL;
    p->count = 0;
}
