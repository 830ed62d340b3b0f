/*
 * golden.h: the golden reference (docs/semantics.md §3 and §6).
 *
 * The golden reference decides, for every cycle after the trace's origin (its
 * first record), which µop(s) the cycle is charged to and which commit state
 * the core is in. It works per interval, not per cycle: each record that
 * commits or excepts at cycle c closes the interval (previous boundary, c],
 * which splits into
 *
 *   [start, refill)  flush window: charged to the pending flush cause (Flushed)
 *   [refill, c)      charged to the record's first µop (Stalled or Drained)
 *   c                1/n to each of the n committing µops (Compute), or, for
 *                    an exception without commits, to the excepting µop.
 *
 * A flush window exists only between a flush cause and a refill: it opens
 * after a record whose last µop is a flush cause (FL-MB, FL-EX, or any
 * excepting µop) and closes at the first later record with TRACE_REC_REFILL
 * (the ROB head became valid after the ROB was empty; TraceDoctor's
 * POPULATED). If a commit or an exception comes first, the ROB never emptied
 * and there was no flush window: those cycles are Stalled (or Drained) and go
 * to the next µop like any other. Until the refill or the commit is seen, the
 * cycles are classified as Stalled/Drained and moved to Flushed at the refill.
 *
 * Cycles after the last commit are charged to the flush cause while a window
 * that was opened is still open (default rules), otherwise to nobody (the
 * next µop never commits inside the trace); golden_totals reports them as
 * unattributed.
 *
 * Two rule sets (enum golden_rules) differ in three documented choices; see
 * docs/semantics.md, "Rule sets".
 */
#ifndef TEA_GOLDEN_GOLDEN_H
#define TEA_GOLDEN_GOLDEN_H

#include "trace/record.h"
#include "trace/trace.h"

#include <assert.h>
#include <stdint.h>

enum golden_state {
    GOLDEN_COMPUTE = 0,  /* µops commit */
    GOLDEN_STALLED = 1,  /* nothing commits, ROB not empty */
    GOLDEN_DRAINED = 2,  /* ROB empty, not after a flush */
    GOLDEN_FLUSHED = 3,  /* ROB empty after a flush cause */
    GOLDEN_STATE_COUNT = 4
};

/* "compute", "stalled", "drained", "flushed". */
const char *golden_state_name(enum golden_state state);

/*
 * Which accounting the golden reference follows where reasonable references
 * differ (docs/semantics.md, "Rule sets"):
 *
 * GOLDEN_RULES_DEFAULT      the project's: an excepting µop keeps its own
 *                           events beside FL-EX; the origin record's flush
 *                           cause and a flush window still open at the end of
 *                           the trace are charged; in a record that commits and
 *                           excepts, the excepting µop is the flush cause.
 * GOLDEN_RULES_TRACEDOCTOR  the TraceDoctor golden worker's (tea_gold), cell for
 *                           cell: an excepting µop gets FL-EX alone; neither the
 *                           origin's flush cause nor a trailing open window is
 *                           charged; a record that commits ignores its
 *                           exception, and its flush cause is the last
 *                           committing µop that is one (not necessarily the
 *                           record's last µop).
 */
typedef enum golden_rules {
    GOLDEN_RULES_DEFAULT = 0,
    GOLDEN_RULES_TRACEDOCTOR = 1,
    GOLDEN_RULES_COUNT = 2
} golden_rules;

/* "default" or "tracedoctor". */
const char *golden_rules_name(golden_rules rules);

/* Parses a rule-set name. Returns 0, or TEA_ERR_USAGE (message set) for an
 * unknown name. */
int golden_rules_parse(const char *name, golden_rules *out);

/* One closed interval. `uops` points into the batch that closed it. */
typedef struct golden_interval {
    uint64_t start;              /* first cycle of the interval */
    uint64_t refill;             /* cycles [start, refill) go to the flush cause */
    uint64_t cycle;              /* [refill, cycle) to uops[0]; `cycle` to the commits */
    uint64_t drained;            /* cycles of [refill, cycle) with an empty ROB (Drained);
                                    the others, and an exception's own cycle, are Stalled */
    const trace_uop *uops;       /* the record's µops: commits, then the excepting one;
                                    NULL for the trailing flush window of golden_finish */
    trace_uop flush_cause;       /* valid when has_flush_cause (PSV as the rules charge it) */
    uint16_t exception_psv;      /* when `exception`: the PSV the excepting µop is charged with */
    uint8_t has_flush_cause;     /* refill > start */
    uint8_t n_commit;            /* 0 for an exception without commits */
    uint8_t exception;           /* uops[n_commit] excepts and is charged (it may get no cycle of
                                    its own); 0 for an exception the rules ignore */
} golden_interval;

/* Receives each interval as soon as the closing record is seen. */
typedef struct golden_sink {
    void (*interval)(void *ctx, const golden_interval *iv);
    void *ctx;
} golden_sink;

/* Totals of the classification, all in cycles. */
typedef struct golden_totals {
    uint64_t origin;              /* cycle of the first record */
    uint64_t last_cycle;          /* cycle of the last record */
    uint64_t states[GOLDEN_STATE_COUNT]; /* cycles per commit state; they sum to the span */
    uint64_t attributed;          /* cycles charged to some µop */
    uint64_t unattributed;        /* trailing cycles no µop can be charged with */
} golden_totals;

/* Streaming state of the golden reference. Plain data: copy to checkpoint. */
typedef struct golden {
    golden_rules rules;          /* set before the first record (golden_set_rules) */
    int started;                 /* the origin record has been seen */
    uint64_t boundary;           /* cycle of the last interval end (or the origin) */
    uint64_t last_cycle;         /* cycle of the previous record */
    unsigned window;             /* ROB entries after the previous record */
    int flush_pending;           /* a flush cause awaits a refill or the next commit */
    int refilled;                /* a refill at `refill_cycle` closed its flush window */
    uint64_t refill_cycle;
    trace_uop flush_cause;       /* valid while flush_pending (PSV as the rules charge it) */
    uint64_t pending_stalled;    /* classified cycles since refill, not yet charged */
    uint64_t pending_drained;
    int finished;
    golden_totals totals;
} golden;

/* Starts a golden reference for a trace whose ROB holds `initial_window`
 * entries before its first record, under the default rules. */
void golden_init(golden *g, unsigned initial_window);

/* Chooses the rule set; call after golden_init, before the first record. */
void golden_set_rules(golden *g, golden_rules rules);

/*
 * The golden reference record by record, for hot loops that act on each
 * interval as it closes (the replay engine charges the golden PICS this way
 * without storing intervals). golden_run_begin copies the streaming state
 * into a golden_run, which a loop keeps in local variables; golden_step
 * consumes one record after the origin; golden_run_end stores the state and
 * the classification back. Between begin and end, `g` itself is stale.
 */
typedef struct golden_run {
    uint64_t boundary;          /* as in struct golden */
    uint64_t last;              /* cycle of the previous record */
    uint64_t refill_cycle;
    uint64_t stalled, drained;  /* classified cycles not yet closed by an interval */
    uint64_t flushed;           /* Flushed cycles seen in this run */
    uint64_t compute;           /* cycles of the intervals closed in this run, */
    uint64_t closed_stalled;    /*   per state (added to the totals at the end) */
    uint64_t closed_drained;
    uint64_t run_boundary;      /* boundary when the run began: the cycles charged in
                                   the run are boundary - run_boundary */
    /* rules is kept apart from refilled: a compiler may test two adjacent
     * ints as one word, and a word loaded right after its halves were
     * stored one by one waits for them to reach memory. */
    golden_rules rules;
    unsigned window;
    int flush_pending, refilled;
    uint16_t except_keep;       /* PSV bits an excepting µop keeps (FL-EX is always set) */
    uint16_t cause_psv;         /* the PSV the pending flush cause is charged with */
    const trace_uop *cause;     /* the pending flush cause: g's copy or a µop of
                                   the records being consumed (copied back at the end) */
} golden_run;

/* PSV bits an excepting µop keeps under each rule set. */
#define GOLDEN_EXCEPT_KEEP_ALL 0xFFFFu
#define GOLDEN_EXCEPT_KEEP_FL_EX ((uint16_t)(1u << TRACE_PSV_FL_EX))

static inline void golden_run_begin(const golden *g, golden_run *s)
{
    s->boundary = g->boundary;
    s->last = g->last_cycle;
    s->refill_cycle = g->refill_cycle;
    s->stalled = g->pending_stalled;
    s->drained = g->pending_drained;
    s->run_boundary = g->boundary;
    s->flushed = s->compute = s->closed_stalled = s->closed_drained = 0;
    s->window = g->window;
    s->flush_pending = g->flush_pending;
    s->refilled = g->refilled;
    s->rules = g->rules;
    s->except_keep = g->rules == GOLDEN_RULES_TRACEDOCTOR ? GOLDEN_EXCEPT_KEEP_FL_EX : GOLDEN_EXCEPT_KEEP_ALL;
    s->cause_psv = g->flush_cause.psv;
    s->cause = &g->flush_cause;
}

static inline void golden_run_end(golden *g, const golden_run *s)
{
    g->boundary = s->boundary;
    g->last_cycle = s->last;
    g->totals.last_cycle = s->last;
    g->refill_cycle = s->refill_cycle;
    g->pending_stalled = s->stalled;
    g->pending_drained = s->drained;
    g->window = s->window;
    g->flush_pending = s->flush_pending;
    g->refilled = s->refilled;
    g->flush_cause = *s->cause;
    g->flush_cause.psv = s->cause_psv;
    g->totals.states[GOLDEN_COMPUTE] += s->compute;
    g->totals.states[GOLDEN_STALLED] += s->closed_stalled;
    g->totals.states[GOLDEN_DRAINED] += s->closed_drained;
    g->totals.states[GOLDEN_FLUSHED] += s->flushed;
    g->totals.attributed += s->boundary - s->run_boundary;
}

/* Adds `count` cycles in which nothing commits to the state counters, as
 * waiting for the next µop with an empty (Drained) or non-empty (Stalled)
 * ROB; a refill after a flush cause later moves them to Flushed.
 * Branch-free: it runs for most records. */
static inline void golden_classify_idle(golden_run *s, uint64_t count)
{
    s->drained += s->window == 0 ? count : 0;
    s->stalled += s->window != 0 ? count : 0;
}

/* The µop a record that commits or excepts leaves as the pending flush
 * cause, or NULL when it leaves none (n = its µops, n >= 1). */
static inline const trace_uop *golden_flush_cause(golden_rules rules, const trace_record *r, const trace_uop *u,
                                                  unsigned n)
{
    if (rules == GOLDEN_RULES_DEFAULT)
        return ((r->flags & TRACE_REC_EXCEPTION) || (u[n - 1].psv & TRACE_PSV_FLUSH_CAUSE_MASK)) ? &u[n - 1] : NULL;
    if (r->n_commit == 0)
        return &u[0]; /* an exception without commits */
    for (unsigned i = r->n_commit; i-- > 0;)
        if (u[i].psv & TRACE_PSV_FLUSH_CAUSE_MASK)
            return &u[i];
    return NULL;
}

/* Makes the flush cause of record r (µops u, n of them) the pending one. */
static inline void golden_take_cause(golden_run *s, const trace_record *r, const trace_uop *u, unsigned n)
{
    const trace_uop *cause = golden_flush_cause(s->rules, r, u, n);
    s->flush_pending = cause != NULL;
    s->cause = cause ? cause : &u[n - 1];
    s->cause_psv = s->cause->psv;
    if (cause == &u[r->n_commit]) /* the excepting µop */
        s->cause_psv = (uint16_t)((s->cause_psv & s->except_keep) | (1u << TRACE_PSV_FL_EX));
}

/* Consumes record r (not the trace's origin; its µops at u). Returns 1 and
 * fills *iv when the record commits or excepts, closing an interval (iv->uops
 * is u), else 0. */
static inline int golden_step(golden_run *s, const trace_record *r, const trace_uop *u, golden_interval *iv)
{
    unsigned n = trace_record_uops(r);
    int closed = 0;

    golden_classify_idle(s, r->cycle - s->last - 1);
    if ((r->flags & TRACE_REC_REFILL) && s->flush_pending && !s->refilled) {
        /* The ROB emptied after the flush cause: the cycles since it were
         * its flush window. */
        s->flushed += s->stalled + s->drained;
        s->stalled = s->drained = 0;
        s->refilled = 1;
        s->refill_cycle = r->cycle;
    }
    if (n == 0) {
        golden_classify_idle(s, 1);
    } else {
        int exception = (r->flags & TRACE_REC_EXCEPTION) != 0;
        iv->start = s->boundary + 1;
        iv->cycle = r->cycle;
        iv->refill = s->refilled ? s->refill_cycle : iv->start;
        iv->has_flush_cause = iv->refill > iv->start;
        if (iv->has_flush_cause) {
            iv->flush_cause = *s->cause;
            iv->flush_cause.psv = s->cause_psv;
        }
        iv->uops = u;
        iv->n_commit = r->n_commit;
        /* The TraceDoctor worker ignores an exception in a committing record. */
        iv->exception = (uint8_t)(exception && (r->n_commit == 0 || s->rules == GOLDEN_RULES_DEFAULT));
        iv->exception_psv = exception ? (uint16_t)((u[r->n_commit].psv & s->except_keep) | (1u << TRACE_PSV_FL_EX)) : 0;
        iv->drained = s->drained;
        s->compute += r->n_commit > 0;
        s->closed_stalled += s->stalled + (r->n_commit == 0); /* an exception's own cycle is Stalled */
        s->closed_drained += s->drained;
        s->stalled = s->drained = 0;
        s->boundary = r->cycle;
        s->refilled = 0;
        golden_take_cause(s, r, u, n);
        closed = 1;
    }
    s->window = s->window - r->retire - r->squash + r->dispatch;
    s->last = r->cycle;
    return closed;
}

/* The most µops of a record golden_plain_run takes: a 4-wide core's row. */
#define GOLDEN_PLAIN_UOPS 4

/* What golden_plain_run charges in: one cycle is `unit`, and share[n] =
 * unit / n is a cycle split among n µops (unit must be a multiple of every
 * n up to TRACE_MAX_WIDTH, so that shares are exact). */
typedef struct golden_units {
    uint64_t unit;
    uint64_t share[TRACE_MAX_WIDTH + 1];
} golden_units;

/* Fills `units` for a cycle of `unit`. */
void golden_units_init(golden_units *units, uint64_t unit);

/* How many of records[0..count), whose cycles increase, come before `cycle`. */
static inline size_t golden_records_before(const trace_record *records, size_t count, uint64_t cycle)
{
    size_t low = 0, high = count;

    if (!count || records[count - 1].cycle < cycle)
        return count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (records[mid].cycle < cycle)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

/* A record's commit count with its flags above it: more than
 * GOLDEN_PLAIN_UOPS when it has flags or more µops than a plain run takes,
 * so that one comparison tells both. */
static inline unsigned golden_commits_and_flags(const trace_record *r)
{
    return (unsigned)r->n_commit | (unsigned)r->flags << 8;
}

/*
 * golden_step over the plain records at the start of records[0..count): up
 * to the first record with flags, with more than GOLDEN_PLAIN_UOPS µops or
 * at or after `cycle_limit`, consuming none under the TraceDoctor rules or
 * while a refill awaits the interval it ends. These close intervals without
 * a flush window, so instead of intervals it writes what each of their µops
 * is charged: 1/n of its record's cycle, plus the cycles [boundary + 1,
 * cycle) for the record's first µop. The charge of the µop at
 * uops[records[0].first_uop + j] goes to charge[j]; `charge` has room for
 * count * GOLDEN_PLAIN_UOPS + GOLDEN_PLAIN_UOPS values (slots past the
 * records' µops are overwritten). Each charged µop counts once. Returns the
 * records consumed. Only the stop conditions branch, none on whether a
 * record commits, so that records that do and do not commit can alternate
 * at full speed.
 */
static inline size_t golden_plain_run(golden_run *s, const trace_record *records, size_t count, const trace_uop *uops,
                                      uint64_t cycle_limit, const golden_units *units, uint64_t *charge)
{
    /* Idle cycles not yet closed by an interval (all of them, and the
     * drained ones), and the drained idle cycles of the run. Each record that
     * commits closes the open ones, so they are kept by masks instead of
     * copied at each close: compilers turn such copies into a branch on
     * whether a record commits, which is random. */
    uint64_t open_idle = s->stalled + s->drained, open_drained = s->drained, run_drained = 0;
    uint64_t boundary = s->boundary, last = s->last, compute = 0, run_idle, closed_drained;
    const uint64_t start = s->last;
    unsigned window = s->window;
    size_t i;

    if (!count || s->rules != GOLDEN_RULES_DEFAULT || s->refilled)
        return 0;
    /* The cycle limit ends the run before the loop, which then has one
     * branch that is nearly never taken. */
    count = golden_records_before(records, count, cycle_limit);
    for (i = 0; i < count; i++) {
        const trace_record *r = &records[i];
        uint64_t closing, open, idle, idle_drained, since, stall, share;
        if (golden_commits_and_flags(r) > GOLDEN_PLAIN_UOPS)
            break;
        closing = r->n_commit != 0;
        open = closing - 1;               /* all ones when the record commits nothing */
        idle = r->cycle - last - closing; /* the gap, and the cycle itself when idle */
        idle_drained = window == 0 ? idle : 0;
        run_drained += idle_drained;
        open_idle = (open_idle + idle) & open;
        open_drained = (open_drained + idle_drained) & open;
        since = r->cycle - boundary;
        stall = (since - 1) & ~open;
        boundary += since & ~open;
        compute += closing;
        window = window - r->retire - r->squash + r->dispatch;
        last = r->cycle;
        share = units->share[r->n_commit];
        /* The run's µops are consecutive: this record's charges follow
         * the last one's. */
        charge[0] = stall * units->unit + share;
        for (unsigned k = 1; k < GOLDEN_PLAIN_UOPS; k++)
            charge[k] = share;
        charge += r->n_commit;
    }
    /* The run's idle cycles: its span but the cycles that committed. What
     * is not open any more was closed. */
    assert(open_drained <= open_idle && window <= TRACE_MAX_ROB); /* drained cycles are idle ones */
    run_idle = last - start - compute;
    closed_drained = s->drained + run_drained - open_drained;
    s->closed_drained += closed_drained;
    s->closed_stalled += s->stalled + s->drained + run_idle - open_idle - closed_drained;
    s->stalled = open_idle - open_drained;
    s->drained = open_drained;
    s->compute += compute;
    s->boundary = boundary;
    s->last = last;
    s->window = window;
    if (compute) {
        /* golden_take_cause under the default rules, for a record without
         * an exception: the last µop of the last record that commits,
         * pending when it is a flush cause. That is the run's last µop, as
         * records that commit nothing have none and a batch's µops follow
         * its records. */
        const trace_record *end = &records[i - 1];
        s->cause = &uops[end->first_uop + end->n_commit - 1u];
        s->cause_psv = s->cause->psv;
        s->flush_pending = (s->cause_psv & TRACE_PSV_FLUSH_CAUSE_MASK) != 0;
    }
    return i;
}

/* Consumes records[0..count) (validated by a reader; their µops are
 * uops[first_uop...]) and writes every interval they close to out[], which
 * must have room for `count`. Returns the number written. This is the fast
 * path: the state stays in registers for the whole run of records. */
size_t golden_intervals(golden *g, const trace_record *records, size_t count, const trace_uop *uops,
                        golden_interval *out);

/* Consumes a batch of records and reports each closed interval to `sink`
 * (which may have a NULL callback). */
void golden_feed(golden *g, const trace_batch *batch, const golden_sink *sink);

/* Consumes one record. */
void golden_record(golden *g, const trace_record *r, const trace_uop *uops, const golden_sink *sink);

/* Ends the trace: charges trailing flush-window cycles to the flush cause
 * (reported as an interval with uops == NULL covering [start, refill)) and
 * counts the rest as unattributed. */
void golden_finish(golden *g, const golden_sink *sink);

/*
 * Frame-parallel replay. A committing record closes an interval and leaves
 * the golden reference in a state that depends only on that record and the
 * ROB occupancy after it, so the records after it can be attributed by
 * another golden instance before the earlier ones are: golden_resume puts
 * `g` in that state (keeping its totals), golden_adopt_position moves the
 * state another instance reached into `dst`, and golden_add_totals sums the
 * classifications. Attribution and totals are then exactly those of one
 * instance that consumed every record in order.
 */
void golden_resume(golden *g, const trace_record *r, const trace_uop *uops, unsigned window_after);
void golden_adopt_position(golden *dst, const golden *src);
void golden_add_totals(golden *dst, const golden *src);

/* The classification so far (complete after golden_finish). */
const golden_totals *golden_get_totals(const golden *g);

/*
 * Whether `g` is a state the golden reference can be in between records:
 * a known rule set, a window within the largest ROB, a refill only after a
 * pending flush cause and inside the open interval, the pending (classified,
 * not yet charged) cycles exactly the open interval's cycles since its
 * boundary or its refill, nothing pending before the origin or after
 * golden_finish, and the totals' last cycle the state's. Returns 1 when
 * sound, 0 otherwise, so that
 * assert(golden_check(g)) reads as the claim; O(1), for phase boundaries of
 * Debug builds (after each batch) and for tests. Not between
 * golden_run_begin and golden_run_end, while `g` is stale.
 */
int golden_check(const golden *g);

#endif
