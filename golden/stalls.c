/*
 * stalls.c: stall-length distributions per event (see stalls.h).
 */
#include "stalls.h"
#include "common/error.h"
#include "common/exact.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

const char *golden_stalls_group_name(int group)
{
    if (group == GOLDEN_STALLS_BASE)
        return "base";
    if (group == GOLDEN_STALLS_ANY_EVENT)
        return "any-event";
    if (group >= GOLDEN_STALLS_FIRST_EVENT && group < GOLDEN_STALLS_GROUP_COUNT)
        return trace_psv_event_name((enum trace_psv_event)(group - GOLDEN_STALLS_FIRST_EVENT));
    return "?";
}

int golden_stalls_init(golden_stalls *s, uint64_t max_length)
{
    memset(s, 0, sizeof *s);
    if (max_length < 1 || max_length > GOLDEN_STALLS_MAX_MAX_LENGTH)
        return error_set(TEA_ERR_USAGE, "the longest exact stall length must be 1..%u cycles, not %llu",
                         GOLDEN_STALLS_MAX_MAX_LENGTH, (unsigned long long)max_length);
    s->max_length = max_length;
    for (int g = 0; g < GOLDEN_STALLS_GROUP_COUNT; g++) {
        if (!(s->groups[g].histogram = calloc(max_length + 1, sizeof *s->groups[g].histogram))) {
            golden_stalls_free(s);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
    }
    return TEA_OK;
}

/* Adds one µop with a stall of `length` cycles (maybe 0) to a group. */
static void add_to_group(golden_stalls *s, golden_stalls_group *g, uint64_t length)
{
    g->uops++;
    if (!length)
        return;
    g->stalls++;
    g->cycles += length;
    if (length > g->longest)
        g->longest = length;
    if (length <= s->max_length)
        g->histogram[length]++;
    else
        g->overflow++;
}

/* Adds one µop to the groups its PSV puts it in. */
static void add_uop(golden_stalls *s, uint16_t psv, uint64_t length)
{
    psv &= TRACE_PSV_MASK_ALL;
    if (!psv) {
        add_to_group(s, &s->groups[GOLDEN_STALLS_BASE], length);
        return;
    }
    add_to_group(s, &s->groups[GOLDEN_STALLS_ANY_EVENT], length);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        if (psv & (1u << e))
            add_to_group(s, &s->groups[GOLDEN_STALLS_EVENT(e)], length);
}

void golden_stalls_add(golden_stalls *s, const golden_interval *iv)
{
    unsigned uops;

    if (!iv->uops)
        return;
    assert(iv->start <= iv->refill && iv->refill <= iv->cycle); /* the interval's parts in order */
    uops = iv->n_commit + (iv->exception ? 1u : 0u);
    /* The first µop waited [refill, cycle), and an exception without
     * commits also its own cycle; the others committed with it. */
    add_uop(s, iv->uops[0].psv, iv->cycle - iv->refill + (iv->n_commit == 0));
    for (unsigned i = 1; i < uops; i++)
        add_uop(s, iv->uops[i].psv, 0);
}

static void sink_interval(void *ctx, const golden_interval *iv)
{
    golden_stalls_add(ctx, iv);
}

golden_sink golden_stalls_sink(golden_stalls *s)
{
    golden_sink sink = { sink_interval, s };
    return sink;
}

int golden_stalls_percentile(const golden_stalls *s, int group, uint64_t num, uint64_t den, uint64_t *length,
                             golden_stalls_percentile_kind *kind)
{
    const golden_stalls_group *g;
    uint64_t rank, seen = 0;

    *length = 0;
    *kind = GOLDEN_STALLS_PERCENTILE_EMPTY;
    if (group < 0 || group >= GOLDEN_STALLS_GROUP_COUNT)
        return error_set(TEA_ERR_USAGE, "stall group %d is outside 0..%d", group, GOLDEN_STALLS_GROUP_COUNT - 1);
    if (den == 0 || num == 0 || num > den)
        return error_set(TEA_ERR_USAGE, "percentile %llu/%llu is not a fraction above 0 and at most 1",
                         (unsigned long long)num, (unsigned long long)den);
    g = &s->groups[group];
    if (!g->stalls)
        return TEA_OK;
    /* Nearest rank: ceil(stalls * num / den), at least 1. */
    rank = (uint64_t)(((exact_u128)g->stalls * num + den - 1) / den);
    if (rank == 0)
        rank = 1;
    *kind = GOLDEN_STALLS_PERCENTILE_EXACT;
    if (rank == g->stalls) {
        *length = g->longest;
        return TEA_OK;
    }
    for (uint64_t len = 1; len <= s->max_length; len++) {
        seen += g->histogram[len];
        if (seen >= rank) {
            *length = len;
            return TEA_OK;
        }
    }
    /* Every stall is in the histogram or counted as longer. */
    assert(seen + g->overflow == g->stalls);
    *length = s->max_length + 1;
    *kind = GOLDEN_STALLS_PERCENTILE_BEYOND;
    return TEA_OK;
}

void golden_stalls_free(golden_stalls *s)
{
    for (int g = 0; g < GOLDEN_STALLS_GROUP_COUNT; g++) {
        free(s->groups[g].histogram);
        s->groups[g].histogram = NULL;
    }
}
