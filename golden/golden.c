/*
 * golden.c: the golden reference's interval attribution and commit-state
 * classification (see golden.h).
 */
#include "golden.h"

#include <string.h>

const char *golden_state_name(enum golden_state state)
{
    static const char *const names[GOLDEN_STATE_COUNT] = { "compute", "stalled", "drained", "flushed" };
    return (unsigned)state < GOLDEN_STATE_COUNT ? names[state] : "?";
}

void golden_init(golden *g, unsigned initial_window)
{
    memset(g, 0, sizeof *g);
    g->window = initial_window;
}

/* True while cycles are charged to the pending flush cause. */
static int in_flush_window(const golden *g)
{
    return g->flush_pending && !g->refilled;
}

/* Classifies `count` cycles in which nothing commits, with the ROB window as
 * it is now. Flushed cycles are charged when the interval closes; the others
 * are remembered for the next µop to commit. */
static void classify_idle(golden *g, uint64_t count)
{
    if (count == 0)
        return;
    if (in_flush_window(g))
        g->totals.states[GOLDEN_FLUSHED] += count;
    else if (g->window == 0)
        g->pending_drained += count;
    else
        g->pending_stalled += count;
}

/* Closes the interval at commit/exception record `r`. */
static void close_interval(golden *g, const trace_record *r, const trace_uop *uops, const golden_sink *sink)
{
    golden_interval iv;

    iv.start = g->boundary + 1;
    iv.cycle = r->cycle;
    iv.flush_cause = NULL;
    iv.refill = iv.start;
    if (g->flush_pending) {
        iv.refill = g->refilled ? g->refill_cycle : r->cycle;
        if (iv.refill > iv.start)
            iv.flush_cause = &g->flush_cause;
    }
    iv.uops = uops;
    iv.n_commit = r->n_commit;
    iv.exception = (r->flags & TRACE_REC_EXCEPTION) != 0;
    iv.stalled = g->pending_stalled;
    iv.drained = g->pending_drained;
    if (sink && sink->interval)
        sink->interval(sink->ctx, &iv);
    g->totals.states[GOLDEN_STALLED] += g->pending_stalled;
    g->totals.states[GOLDEN_DRAINED] += g->pending_drained;
    g->totals.attributed += r->cycle - g->boundary;
    g->pending_stalled = g->pending_drained = 0;
    g->boundary = r->cycle;
}

void golden_record(golden *g, const trace_record *r, const trace_uop *uops, const golden_sink *sink)
{
    unsigned n = trace_record_uops(r);
    int closes = n > 0;

    if (!g->started) {
        /* The origin: its own activity is not attributed. */
        g->started = 1;
        g->boundary = r->cycle;
        g->totals.origin = r->cycle;
    } else {
        classify_idle(g, r->cycle - g->last_cycle - 1);
        if ((r->flags & TRACE_REC_REFILL) && in_flush_window(g)) {
            g->refilled = 1;
            g->refill_cycle = r->cycle;
        }
        if (closes) {
            if (r->n_commit > 0)
                g->totals.states[GOLDEN_COMPUTE]++;
            else
                g->totals.states[GOLDEN_STALLED]++; /* the excepting µop's cycle */
            close_interval(g, r, uops, sink);
        } else {
            classify_idle(g, 1);
        }
    }
    if (closes) {
        const trace_uop *last = &uops[n - 1];
        g->flush_pending = (r->flags & TRACE_REC_EXCEPTION) || (last->psv & PSV_FLUSH_CAUSE_MASK);
        g->refilled = 0;
        if (g->flush_pending)
            g->flush_cause = *last;
    }
    g->window = g->window - r->retire - r->squash + r->dispatch;
    g->last_cycle = r->cycle;
    g->totals.last_cycle = r->cycle;
}

void golden_feed(golden *g, const trace_batch *batch, const golden_sink *sink)
{
    for (size_t i = 0; i < batch->count; i++) {
        const trace_record *r = &batch->records[i];
        golden_record(g, r, batch->uops + r->first_uop, sink);
    }
}

void golden_finish(golden *g, const golden_sink *sink)
{
    uint64_t flushed_end;

    if (g->finished || !g->started)
        return;
    g->finished = 1;
    /* Pending stalled/drained cycles wait for a µop that never commits. */
    g->totals.states[GOLDEN_STALLED] += g->pending_stalled;
    g->totals.states[GOLDEN_DRAINED] += g->pending_drained;
    g->totals.unattributed = g->pending_stalled + g->pending_drained;
    if (g->flush_pending && g->last_cycle > g->boundary) {
        golden_interval iv;
        flushed_end = g->refilled ? g->refill_cycle : g->last_cycle + 1;
        if (flushed_end > g->boundary + 1) {
            memset(&iv, 0, sizeof iv);
            iv.start = g->boundary + 1;
            iv.refill = flushed_end;
            iv.cycle = flushed_end;
            iv.flush_cause = &g->flush_cause;
            if (sink && sink->interval)
                sink->interval(sink->ctx, &iv);
            g->totals.attributed += flushed_end - iv.start;
        }
    }
    g->pending_stalled = g->pending_drained = 0;
}

const golden_totals *golden_get_totals(const golden *g)
{
    return &g->totals;
}
