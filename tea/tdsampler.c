/*
 * tdsampler.c: TEA, NCI-TEA and IBS under the TraceDoctor rules (see
 * tdsampler.h). Written from the behaviour of the TEA authors' workers, not
 * from their code; tests/e2e/rules.sh holds it to their outputs.
 */
#include "tdsampler.h"
#include "common/error.h"
#include "trace/psv.h"

#include <assert.h>
#include <string.h>

/* TEA's states: no sample pending, or one pending for the next commit with
 * how it is to be charged. */
enum { TEA_OFF = 0, TEA_DEFERRED, TEA_STALLED, TEA_ARMED };
/* NCI-TEA's and IBS's. */
enum { TAG_IDLE = 0, TAG_TAGGING, TAG_IN_FLIGHT };

/* Token slot flags that make a committed µop the cause of a flush (the
 * workers' OIR set, less the exception, which tokens show as a state). */
#define OIR_FLAGS (TRACE_TD_SLOT_BR_MISS | TRACE_TD_SLOT_FLUSHS)

int tea_td_sampler_init(tea_td_sampler *s, pics_scheme scheme, uint64_t period, uint16_t mask, unsigned llc_latency)
{
    memset(s, 0, sizeof *s);
    if (scheme != PICS_SCHEME_TEA && scheme != PICS_SCHEME_NCI && scheme != PICS_SCHEME_IBS)
        return error_set(TEA_ERR_USAGE,
                         "%s has no TraceDoctor worker: the tracedoctor rules sample only tea, nci and ibs",
                         pics_scheme_name(scheme));
    if (period == 0)
        return error_set(TEA_ERR_USAGE, "sampling period 0");
    s->scheme = scheme;
    s->period = period;
    s->mask = mask;
    s->llc_latency = llc_latency;
    s->next = period;
    return pics_init(&s->pics);
}

void tea_td_sampler_free(tea_td_sampler *s)
{
    pics_free(&s->pics);
}

/* The PSV of slot i as a worker's signature folds it: its event flags, and
 * ST-LLC for a data-cache miss of at least llc_latency cycles. */
static uint16_t slot_psv(const tea_td_sampler *s, const trace_td_token *t, unsigned i)
{
    return trace_td_slot_psv(t->flags[i], t->memlat[i], s->llc_latency);
}

/* The first slot with `flag`, or the last slot when none has it (where the
 * workers look then). */
static unsigned first_slot(const trace_td_token *t, uint16_t flag)
{
    for (unsigned i = 0; i < TRACE_TD_SLOTS; i++)
        if (t->flags[i] & flag)
            return i;
    return TRACE_TD_SLOTS - 1;
}

/* Adds `value` units of one sample to (pc, psv). */
static void charge(tea_td_sampler *s, uint64_t pc, uint16_t psv, uint64_t value)
{
    int rc = pics_add(&s->pics, pc, (uint16_t)(psv & s->mask), value, 1);
    if (rc && !s->rc)
        s->rc = rc;
}

/* Consumes every point up to `cycle` (at least one is due): the next point
 * is the first multiple of the period after it. Returns whether the first
 * of them was exactly `cycle`; the others are folded into it (lost as busy). */
static int take_points(tea_td_sampler *s, uint64_t cycle)
{
    int exact = s->next == cycle;
    assert(s->next <= cycle);
    s->lost[PICS_LOST_BUSY] += (cycle - s->next) / s->period; /* folded into the first */
    s->next = (cycle / s->period + 1) * s->period;
    return exact;
}

/* TEA's sample at a committing or excepting token. */
static void tea_sample(tea_td_sampler *s, const trace_td_token *t)
{
    unsigned listed[TRACE_TD_SLOTS], n = 0;

    s->samples++;
    if (t->rob_state & TRACE_TD_ROB_EXCEPTION) {
        unsigned i = first_slot(t, TRACE_TD_SLOT_VALID);
        charge(s, t->pc[i], (uint16_t)(1u << TRACE_PSV_FL_EX), PICS_UNIT);
        return;
    }
    for (unsigned i = 0; i < TRACE_TD_SLOTS; i++)
        if (t->flags[i] & TRACE_TD_SLOT_COMMITS)
            listed[n++] = i;
    assert(n > 0); /* a committing token commits a slot (the decoder checks) */
    if (s->state != TEA_ARMED) { /* stalled or deferred: the first µop takes it all */
        charge(s, t->pc[listed[0]], slot_psv(s, t, listed[0]), PICS_UNIT);
        return;
    }
    for (unsigned k = 0; k < n; k++)
        charge(s, t->pc[listed[k]], slot_psv(s, t, listed[k]), PICS_UNIT / n);
}

/* TEA remembers the last µop that committed or excepted: a flush cause is
 * charged for the points passed while the ROB refills after it. */
static void tea_remember(tea_td_sampler *s, const trace_td_token *t)
{
    if (t->rob_state & TRACE_TD_ROB_EXCEPTION) {
        s->last_oir = 1;
        s->last_pc = t->pc[first_slot(t, TRACE_TD_SLOT_VALID)];
        s->last_psv = (uint16_t)(1u << TRACE_PSV_FL_EX);
        return;
    }
    for (unsigned i = TRACE_TD_SLOTS; i-- > 0;)
        if (t->flags[i] & TRACE_TD_SLOT_COMMITS) {
            s->last_oir = (t->flags[i] & OIR_FLAGS) != 0;
            s->last_pc = t->pc[i];
            s->last_psv = slot_psv(s, t, i);
            return;
        }
}

static void tea_token(tea_td_sampler *s, const trace_td_token *t, uint64_t cycle)
{
    unsigned st = t->rob_state;
    int progress = (st & (TRACE_TD_ROB_COMMITTING | TRACE_TD_ROB_EXCEPTION)) != 0;
    int refill = (st & TRACE_TD_ROB_POPULATED) != 0;

    if (!progress && !refill)
        return; /* the worker looks at no other token */
    if (s->next <= cycle) {
        int exact = take_points(s, cycle);
        if (s->state != TEA_OFF)
            s->lost[PICS_LOST_BUSY]++; /* a pending sample gives way to the new point */
        s->state = TEA_ARMED;
        if (!exact && refill) {
            /* The point passed while the ROB was empty. */
            if (s->last_oir) {
                s->samples++;
                charge(s, s->last_pc, s->last_psv, PICS_UNIT);
                s->state = TEA_OFF;
            } else {
                s->state = TEA_DEFERRED;
            }
        } else if (!exact || !progress) {
            s->state = TEA_STALLED;
        }
    }
    if (s->state != TEA_OFF && progress) {
        tea_sample(s, t);
        s->state = TEA_OFF;
    }
    if (progress)
        tea_remember(s, t);
}

static void nci_token(tea_td_sampler *s, const trace_td_token *t, uint64_t cycle)
{
    if (s->next <= cycle) {
        take_points(s, cycle);
        if (s->state != TAG_IDLE)
            s->lost[PICS_LOST_BUSY]++; /* folded into the pending one */
        s->state = TAG_IN_FLIGHT;
    }
    if (s->state == TAG_IN_FLIGHT && (t->rob_state & TRACE_TD_ROB_COMMITTING)) {
        unsigned i = first_slot(t, TRACE_TD_SLOT_COMMITS);
        s->samples++;
        charge(s, t->pc[i], slot_psv(s, t, i), PICS_UNIT);
        s->state = TAG_IDLE;
    }
}

/* Whether IBS's tag has left the ROB by what token t shows (the worker's
 * four tests), and why. */
static int ibs_evicted(const tea_td_sampler *s, const trace_td_token *t, enum pics_lost_reason *why)
{
    unsigned head = t->head - t->head % TRACE_TD_SLOTS, tail = t->tail, tag = s->tag;
    int any_valid = 0;

    for (unsigned i = 0; i < TRACE_TD_SLOTS; i++)
        any_valid |= (t->flags[i] & TRACE_TD_SLOT_VALID) != 0;
    *why = PICS_LOST_SQUASHED;
    if (tail > head)
        return tag >= tail || tag < head;
    if (tail < head)
        return tag >= tail && tag < head;
    *why = PICS_LOST_EMPTY;
    return !any_valid; /* equal indices: an empty ROB unless the head row shows a µop */
}

static void ibs_token(tea_td_sampler *s, const trace_td_token *t, uint64_t cycle)
{
    if (s->next <= cycle) {
        take_points(s, cycle);
        if (s->state != TAG_IDLE)
            s->lost[PICS_LOST_BUSY]++; /* the tag (or tagging) in progress is dropped */
        s->state = TAG_TAGGING;
    }
    if (s->state == TAG_IN_FLIGHT) {
        enum pics_lost_reason why;
        unsigned head = t->head - t->head % TRACE_TD_SLOTS;
        if (ibs_evicted(s, t, &why)) {
            s->lost[why]++;
            s->state = TAG_IDLE;
        } else if ((t->rob_state & TRACE_TD_ROB_COMMITTING) && s->tag >= head
                   && s->tag < head + TRACE_TD_SLOTS) {
            unsigned i = first_slot(t, TRACE_TD_SLOT_COMMITS);
            s->samples++;
            charge(s, t->pc[i], slot_psv(s, t, i), PICS_UNIT);
            s->state = TAG_IDLE;
        }
    }
    if (s->state == TAG_TAGGING && (t->rob_state & TRACE_TD_ROB_DISPATCHING)) {
        s->tag = t->tail;
        s->state = TAG_IN_FLIGHT;
    }
}

void tea_td_sampler_token(tea_td_sampler *s, const trace_td_token *t)
{
    uint64_t cycle;

    /* Unwrapped, as the decoder does (the workers read the 44-bit counter as
     * it is, which only matters after 2^44 cycles). */
    if (t->cycle < s->last_raw)
        s->cycle_base += TRACE_TD_CYCLE_MASK + 1;
    s->last_raw = t->cycle;
    cycle = s->cycle_base + t->cycle;

    switch (s->scheme) {
    case PICS_SCHEME_TEA:
        tea_token(s, t, cycle);
        break;
    case PICS_SCHEME_NCI:
        nci_token(s, t, cycle);
        break;
    default:
        assert(s->scheme == PICS_SCHEME_IBS); /* tea_td_sampler_init admits no other */
        ibs_token(s, t, cycle);
        break;
    }
}

int tea_td_sampler_finish(tea_td_sampler *s)
{
    if (s->state != TEA_OFF) /* TEA_OFF == TAG_IDLE: nothing pending */
        s->lost[PICS_LOST_END]++;
    s->state = TEA_OFF;
    return s->rc;
}
