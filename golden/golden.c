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

/* Adds `count` cycles in which nothing commits to the state counters: to
 * the flush window, or waiting for the next µop with an empty or non-empty
 * ROB. Branch-free: it runs for most records. */
#define CLASSIFY_IDLE(count)                                      \
    do {                                                          \
        uint64_t n_ = (count);                                    \
        flushed += in_flush ? n_ : 0;                             \
        drained += (!in_flush && window == 0) ? n_ : 0;           \
        stalled += (!in_flush && window != 0) ? n_ : 0;           \
    } while (0)

size_t golden_intervals(golden *g, const trace_record *records, size_t count, const trace_uop *uops,
                        golden_interval *out)
{
    uint64_t boundary = g->boundary, last = g->last_cycle, refill_cycle = g->refill_cycle;
    uint64_t stalled = g->pending_stalled, drained = g->pending_drained, flushed = 0;
    uint64_t compute = 0, closed_stalled = 0, closed_drained = 0, attributed = 0;
    unsigned window = g->window;
    int flush_pending = g->flush_pending, refilled = g->refilled;
    trace_uop cause = g->flush_cause;
    size_t i = 0, k = 0;

    if (count && !g->started) {
        /* The origin: its own activity is not attributed. */
        const trace_record *r = &records[0];
        const trace_uop *u = uops + r->first_uop;
        unsigned n = trace_record_uops(r);
        g->started = 1;
        boundary = last = g->totals.origin = r->cycle;
        if (n) {
            flush_pending = (r->flags & TRACE_REC_EXCEPTION) || (u[n - 1].psv & PSV_FLUSH_CAUSE_MASK);
            cause = u[n - 1];
        }
        window = window - r->retire - r->squash + r->dispatch;
        i = 1;
    }
    for (; i < count; i++) {
        const trace_record *r = &records[i];
        const trace_uop *u = uops + r->first_uop;
        unsigned n = trace_record_uops(r);
        int in_flush = flush_pending && !refilled;

        CLASSIFY_IDLE(r->cycle - last - 1);
        if ((r->flags & TRACE_REC_REFILL) && in_flush) {
            refilled = 1;
            refill_cycle = r->cycle;
            in_flush = 0;
        }
        if (n == 0) {
            CLASSIFY_IDLE(1);
        } else {
            golden_interval *iv = &out[k++];
            iv->start = boundary + 1;
            iv->cycle = r->cycle;
            iv->refill = flush_pending ? (refilled ? refill_cycle : r->cycle) : iv->start;
            iv->has_flush_cause = iv->refill > iv->start;
            iv->flush_cause = cause;
            iv->uops = u;
            iv->n_commit = r->n_commit;
            iv->exception = (r->flags & TRACE_REC_EXCEPTION) != 0;
            iv->drained = drained;
            compute += r->n_commit > 0;
            closed_stalled += stalled + (r->n_commit == 0); /* an exception's own cycle is Stalled */
            closed_drained += drained;
            stalled = drained = 0;
            attributed += r->cycle - boundary;
            boundary = r->cycle;
            flush_pending = iv->exception || (u[n - 1].psv & PSV_FLUSH_CAUSE_MASK);
            refilled = 0;
            cause = u[n - 1];
        }
        window = window - r->retire - r->squash + r->dispatch;
        last = r->cycle;
    }
    g->boundary = boundary;
    g->last_cycle = last;
    g->totals.last_cycle = last;
    g->refill_cycle = refill_cycle;
    g->pending_stalled = stalled;
    g->pending_drained = drained;
    g->window = window;
    g->flush_pending = flush_pending;
    g->refilled = refilled;
    g->flush_cause = cause;
    g->totals.states[GOLDEN_COMPUTE] += compute;
    g->totals.states[GOLDEN_STALLED] += closed_stalled;
    g->totals.states[GOLDEN_DRAINED] += closed_drained;
    g->totals.states[GOLDEN_FLUSHED] += flushed;
    g->totals.attributed += attributed;
    return k;
}

/* Intervals handed to a sink are produced in runs of this many records. */
#define GOLDEN_FEED_RUN 256

void golden_feed(golden *g, const trace_batch *batch, const golden_sink *sink)
{
    golden_interval intervals[GOLDEN_FEED_RUN];
    for (size_t first = 0; first < batch->count; first += GOLDEN_FEED_RUN) {
        size_t run = batch->count - first < GOLDEN_FEED_RUN ? batch->count - first : GOLDEN_FEED_RUN;
        size_t n = golden_intervals(g, batch->records + first, run, batch->uops, intervals);
        for (size_t k = 0; sink && sink->interval && k < n; k++)
            sink->interval(sink->ctx, &intervals[k]);
    }
}

void golden_record(golden *g, const trace_record *r, const trace_uop *uops, const golden_sink *sink)
{
    golden_interval iv;
    trace_record copy = *r;
    copy.first_uop = 0;
    if (golden_intervals(g, &copy, 1, uops, &iv) && sink && sink->interval)
        sink->interval(sink->ctx, &iv);
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
            iv.flush_cause = g->flush_cause;
            iv.has_flush_cause = 1;
            if (sink && sink->interval)
                sink->interval(sink->ctx, &iv);
            g->totals.attributed += flushed_end - iv.start;
        }
    }
    g->pending_stalled = g->pending_drained = 0;
}

void golden_resume(golden *g, const trace_record *r, const trace_uop *uops, unsigned window_after)
{
    const trace_uop *u = uops + r->first_uop;
    unsigned n = trace_record_uops(r);

    /* What golden_intervals leaves after a record that closes an interval. */
    g->started = 1;
    g->finished = 0;
    g->boundary = g->last_cycle = g->totals.last_cycle = r->cycle;
    g->window = window_after;
    g->flush_pending = (r->flags & TRACE_REC_EXCEPTION) || (n && (u[n - 1].psv & PSV_FLUSH_CAUSE_MASK));
    g->refilled = 0;
    g->refill_cycle = 0;
    if (n)
        g->flush_cause = u[n - 1];
    g->pending_stalled = g->pending_drained = 0;
}

void golden_adopt_position(golden *dst, const golden *src)
{
    golden_totals totals = dst->totals;
    *dst = *src;
    totals.last_cycle = src->last_cycle;
    dst->totals = totals;
}

void golden_add_totals(golden *dst, const golden *src)
{
    for (int s = 0; s < GOLDEN_STATE_COUNT; s++)
        dst->totals.states[s] += src->totals.states[s];
    dst->totals.attributed += src->totals.attributed;
}

const golden_totals *golden_get_totals(const golden *g)
{
    return &g->totals;
}
