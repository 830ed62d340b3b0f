/*
 * stack.c: the cycle stacks of the top instructions (see stack.h).
 */
#include "stack.h"
#include "view.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0

size_t view_stack_reference(const view_stack_input *in, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (pics_info_is_golden(in[i].info))
            return i;
    return 0;
}

static int compare_pc(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* The reference PICS's top `n` instructions by cycles (then by address),
 * into s->pcs in chart order: the first rows of its view by instruction. */
static int rank_instructions(view_stack *s, const pics *ref, uint64_t n)
{
    view v;
    int rc;

    if ((rc = view_build(&v, ref, NULL, PICS_GRAN_INSN, NULL)))
        return rc;
    view_sort(&v, VIEW_ORDER_VALUE);
    if ((rc = view_select(&v, n, 0.0)) == TEA_OK && !(s->pcs = malloc((v.shown ? v.shown : 1) * sizeof *s->pcs)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == TEA_OK && i < v.shown; i++)
        s->pcs[i] = v.rows[i].key;
    if (rc == TEA_OK)
        s->groups = v.shown;
    view_free(&v);
    return rc;
}

/* Marks in `present` every PSV of a cell of `p` whose PC is among the
 * sorted `pcs`. */
static void mark_components(const pics *p, const uint64_t *sorted_pcs, size_t n,
                            unsigned char present[TRACE_PSV_VALUES])
{
    for (size_t i = 0; i < p->capacity; i++) {
        const pics_cell *c = &p->slots[i];
        if (c->used && bsearch(&c->pc, sorted_pcs, n, sizeof *sorted_pcs, compare_pc))
            present[c->psv & TRACE_PSV_MASK_ALL] = 1;
    }
}

/* The value of one cell of `in` (stack.h): cycles scaled to the golden
 * total, or their share of it in percent. */
static double stack_value(const view_stack_input *in, uint64_t value, int percent)
{
    double cycles = pics_value_cycles(in->info, in->pics->total, value);
    double total = (double)in->info->golden_total / (double)(in->info->unit ? in->info->unit : PICS_UNIT);
    if (!percent)
        return cycles;
    return total > 0 ? PERCENT * cycles / total : 0;
}

int view_stack_build(view_stack *s, const view_stack_input *in, size_t count, size_t reference, uint64_t top,
                     int percent)
{
    unsigned char present[TRACE_PSV_VALUES] = { 0 };
    uint64_t *sorted = NULL;
    int rc;

    memset(s, 0, sizeof *s);
    s->bars = count;
    if ((rc = rank_instructions(s, in[reference].pics, top)) || s->groups == 0)
        return rc;
    if (!(sorted = malloc(s->groups * sizeof *sorted)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    memcpy(sorted, s->pcs, s->groups * sizeof *sorted);
    qsort(sorted, s->groups, sizeof *sorted, compare_pc);
    for (size_t i = 0; i < count; i++)
        mark_components(in[i].pics, sorted, s->groups, present);
    free(sorted);
    for (unsigned psv = 0; psv < TRACE_PSV_VALUES; psv++)
        if (present[psv])
            s->psvs[s->segments++] = (uint16_t)psv;
    if (!(s->values = calloc(s->groups * count * (s->segments ? s->segments : 1), sizeof *s->values)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t g = 0; g < s->groups; g++)
        for (size_t b = 0; b < count; b++)
            for (size_t k = 0; k < s->segments; k++) {
                const pics_cell *c = pics_find(in[b].pics, s->pcs[g], s->psvs[k]);
                s->values[(g * count + b) * s->segments + k] = c ? stack_value(&in[b], c->value, percent) : 0;
            }
    return TEA_OK;
}

void view_stack_free(view_stack *s)
{
    free(s->pcs);
    free(s->values);
    memset(s, 0, sizeof *s);
}
