/*
 * golden.c: the golden reference's interval attribution and commit-state
 * classification (see golden.h).
 */
#include "golden.h"
#include "common/error.h"

#include <assert.h>
#include <string.h>

const char *golden_state_name(enum golden_state state)
{
    static const char *const names[GOLDEN_STATE_COUNT] = { "compute", "stalled", "drained", "flushed" };
    return (unsigned)state < GOLDEN_STATE_COUNT ? names[state] : "?";
}

const char *golden_rules_name(golden_rules rules)
{
    static const char *const names[GOLDEN_RULES_COUNT] = { "default", "tracedoctor" };
    return (unsigned)rules < GOLDEN_RULES_COUNT ? names[rules] : "?";
}

int golden_rules_parse(const char *name, golden_rules *out)
{
    for (unsigned i = 0; i < GOLDEN_RULES_COUNT; i++) {
        if (strcmp(name, golden_rules_name((golden_rules)i)) == 0) {
            *out = (golden_rules)i;
            return TEA_OK;
        }
    }
    return error_set(TEA_ERR_USAGE, "unknown golden rules '%s' (default or tracedoctor)", name);
}

void golden_init(golden *g, unsigned initial_window)
{
    memset(g, 0, sizeof *g);
    g->window = initial_window;
    g->rules = GOLDEN_RULES_DEFAULT;
}

void golden_set_rules(golden *g, golden_rules rules)
{
    assert(!g->started && (unsigned)rules < GOLDEN_RULES_COUNT);
    g->rules = rules;
}

void golden_units_init(golden_units *units, uint64_t unit)
{
    units->unit = unit;
    units->share[0] = 0;
    for (unsigned n = 1; n <= TRACE_MAX_WIDTH; n++) {
        assert(unit % n == 0);
        units->share[n] = unit / n;
    }
}

/* Leaves the state a closing record r (µops u) leaves behind: its flush
 * cause, if any, pending with no refill yet. */
static void take_cause_of(golden *g, const trace_record *r, const trace_uop *u)
{
    golden_run s;
    golden_run_begin(g, &s);
    golden_take_cause(&s, r, u, trace_record_uops(r));
    g->flush_pending = s.flush_pending;
    g->refilled = 0;
    g->flush_cause = *s.cause;
    g->flush_cause.psv = s.cause_psv;
}

size_t golden_intervals(golden *g, const trace_record *records, size_t count, const trace_uop *uops,
                        golden_interval *out)
{
    golden_run s;
    size_t i = 0, k = 0;

    if (count && !g->started) {
        /* The origin: its own activity is not attributed. */
        const trace_record *r = &records[0];
        const trace_uop *u = uops + r->first_uop;
        unsigned n = trace_record_uops(r);
        g->started = 1;
        g->boundary = g->last_cycle = g->totals.origin = g->totals.last_cycle = r->cycle;
        /* The TraceDoctor worker clears its flush-cause register at the origin. */
        if (n && g->rules == GOLDEN_RULES_DEFAULT)
            take_cause_of(g, r, u);
        g->window = g->window - r->retire - r->squash + r->dispatch;
        assert(g->window <= TRACE_MAX_ROB); /* the reader checked the record against the window */
        i = 1;
    }
    golden_run_begin(g, &s);
    for (; i < count; i++)
        k += (size_t)golden_step(&s, &records[i], uops + records[i].first_uop, &out[k]);
    golden_run_end(g, &s);
    assert(k <= count && g->window <= TRACE_MAX_ROB); /* an interval per record at most */
    assert(golden_check(g));
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
    uint64_t pending;
    uint64_t window_end = 0;

    if (g->finished || !g->started)
        return;
    g->finished = 1;
    pending = g->pending_stalled + g->pending_drained;
    if (g->flush_pending && g->refilled) {
        /* A refill closed the window; the µop after it never commits. */
        window_end = g->refill_cycle;
    } else if (g->flush_pending && g->rules == GOLDEN_RULES_DEFAULT && pending) {
        /* A window still open at the end: its cycles are the flush cause's. */
        window_end = g->last_cycle + 1;
        g->totals.states[GOLDEN_FLUSHED] += pending;
        pending = 0;
    }
    /* Pending stalled/drained cycles wait for a µop that never commits. */
    if (pending) {
        g->totals.states[GOLDEN_STALLED] += g->pending_stalled;
        g->totals.states[GOLDEN_DRAINED] += g->pending_drained;
    }
    g->totals.unattributed = pending;
    if (window_end > g->boundary + 1) {
        golden_interval iv;
        memset(&iv, 0, sizeof iv);
        iv.start = g->boundary + 1;
        iv.refill = window_end;
        iv.cycle = window_end;
        iv.flush_cause = g->flush_cause;
        iv.has_flush_cause = 1;
        if (sink && sink->interval)
            sink->interval(sink->ctx, &iv);
        g->totals.attributed += window_end - iv.start;
    }
    g->pending_stalled = g->pending_drained = 0;
    assert(golden_check(g));
    /* Every cycle after the origin is in exactly one state. */
    assert(g->totals.states[GOLDEN_COMPUTE] + g->totals.states[GOLDEN_STALLED] + g->totals.states[GOLDEN_DRAINED]
               + g->totals.states[GOLDEN_FLUSHED]
           == g->last_cycle - g->totals.origin);
}

void golden_resume(golden *g, const trace_record *r, const trace_uop *uops, unsigned window_after)
{
    const trace_uop *u = uops + r->first_uop;
    unsigned n = trace_record_uops(r);

    /* What golden_intervals leaves after a record that closes an interval. */
    assert(n > 0 && window_after <= TRACE_MAX_ROB); /* a record that commits or excepts, checked */
    g->started = 1;
    g->finished = 0;
    g->boundary = g->last_cycle = g->totals.last_cycle = r->cycle;
    g->window = window_after;
    g->flush_pending = 0;
    g->refilled = 0;
    g->refill_cycle = 0;
    if (n)
        take_cause_of(g, r, u);
    g->pending_stalled = g->pending_drained = 0;
    assert(golden_check(g));
}

void golden_adopt_position(golden *dst, const golden *src)
{
    golden_totals totals = dst->totals;
    *dst = *src;
    totals.last_cycle = src->last_cycle;
    dst->totals = totals;
    assert(golden_check(dst));
}

void golden_add_totals(golden *dst, const golden *src)
{
    for (int s = 0; s < GOLDEN_STATE_COUNT; s++)
        dst->totals.states[s] += src->totals.states[s];
    dst->totals.attributed += src->totals.attributed;
    assert(golden_check(dst));
}

const golden_totals *golden_get_totals(const golden *g)
{
    return &g->totals;
}

int golden_check(const golden *g)
{
    uint64_t pending;

    if (!g || (unsigned)g->rules >= GOLDEN_RULES_COUNT || g->window > TRACE_MAX_ROB
        || (g->refilled && !g->flush_pending) || (g->flush_pending && (g->flush_cause.psv & ~TRACE_PSV_MASK_ALL)))
        return 0;
    pending = g->pending_stalled + g->pending_drained;
    if (pending < g->pending_stalled) /* the two sum without wrapping */
        return 0;
    /* The totals are not checked against the position: in frame-parallel
     * replay an instance's totals hold only its share of the cycles
     * (golden_adopt_position, golden_add_totals). */
    if (!g->started)
        return pending == 0 && !g->flush_pending && !g->finished;
    if (g->boundary > g->last_cycle || g->totals.last_cycle != g->last_cycle)
        return 0;
    if (g->finished)
        return pending == 0;
    /* Each record after the boundary classified its gap and, without
     * commits, its own cycle; a refill moved those before it to Flushed,
     * and its own cycle is pending again. */
    if (g->refilled)
        return g->refill_cycle > g->boundary && g->refill_cycle <= g->last_cycle
               && pending == g->last_cycle - g->refill_cycle + 1;
    return pending == g->last_cycle - g->boundary;
}
