/*
 * replay.c: the replay engine, TEA and NCI-TEA (see replay.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "replay.h"
#include "schedule.h"
#include "tagger.h"
#include "tdsampler.h"
#include "common/error.h"
#include "trace/objects.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Records are handled in runs of this many: the taggers, then the golden
 * reference, over each run while its records are in the L1 cache. */
#define REPLAY_RUN 256

/* TEA or NCI-TEA: a cycle schedule and the PICS it builds. */
typedef struct cycle_sampler {
    pics_scheme scheme;
    uint16_t mask;
    tea_schedule sched;
    pics pics;
    pics *target;           /* where samples go: &pics, or the window group's (window_groups) */
    uint64_t samples;
    uint64_t lost[PICS_LOST_REASONS];
} cycle_sampler;

/* Where spec i lives: a cycle sampler, a tagger or a token sampler (the
 * tracedoctor rules), and its index there. */
enum sampler_kind { SAMPLER_CYCLE = 0, SAMPLER_TAGGER, SAMPLER_TOKENS };
typedef struct sampler_ref {
    enum sampler_kind kind;
    size_t index;
} sampler_ref;

/* The windows of a sampled trace, when the replay follows them: split by
 * groups (tea_replay_group_windows), the golden cache's target switches
 * with the window; weighted (tea_replay_weight_windows), its scale. */
typedef struct window_groups {
    const uint64_t *ends;      /* the last cycle of each window, increasing; NULL: windows not followed */
    const uint64_t *weights;   /* weighted windows: the periods each stands for; NULL: none */
    size_t windows;
    size_t window;             /* the window of the records being fed */
    uint64_t *owned;           /* weighted: the copies `ends` and `weights` point into */
    pics *groups;              /* [count]: window w charges groups[w % count] */
    unsigned count;            /* 0: no groups */
    pics *sampler_groups;      /* [samplers x count]: sampler j's group k at [j * count + k],
                                  j over the cycle samplers, then the taggers (their samples go
                                  there while windows are grouped, and are summed at the end) */
    size_t sampler_group_count; /* PICS allocated there (each initialized) */
} window_groups;

struct tea_replay {
    tea_sampler_spec *specs;
    sampler_ref *refs;
    size_t count;
    cycle_sampler *cycle;
    size_t cycle_count;
    tea_tagger *tags;
    size_t tag_count;
    tea_td_sampler *token_samplers; /* the tracedoctor rules' samplers, created with the replay */
    size_t token_count;
    golden golden;
    pics golden_pics;
    pics_cache golden_cache;   /* hot sums of golden_pics; flushed at finish */
    int started;
    int part;                  /* a part of a frame-parallel replay: no taggers */
    tea_rob_view rob;          /* the window before the next record */
    uint64_t cycle_wake;       /* earliest point any cycle sampler waits for */
    uint64_t tag_wake_cycle;   /* earliest cycle any tagger must see */
    uint64_t tag_wake_entry;   /* earliest dispatched-entry ordinal a tagger must see */
    int rc;                    /* first error raised inside the golden callback */
    window_groups wg;
    golden_units units;        /* PICS_UNIT and its shares, 1/n of it */
    /* golden_plain_run's charges (PICS units) of a run's µops, with its
     * slack for the last record's unused slots */
    uint64_t plain_charges[REPLAY_RUN * GOLDEN_PLAIN_UOPS + GOLDEN_PLAIN_UOPS];
};

static void recompute_cycle_wake(tea_replay *r)
{
    uint64_t wake = TEA_SCHEDULE_NEVER;
    for (size_t i = 0; i < r->cycle_count; i++)
        if (r->cycle[i].sched.next < wake)
            wake = r->cycle[i].sched.next;
    r->cycle_wake = wake;
}

static void recompute_tag_wake(tea_replay *r)
{
    uint64_t cycle = TEA_SCHEDULE_NEVER, entry = TEA_SCHEDULE_NEVER;
    for (size_t i = 0; i < r->tag_count; i++) {
        uint64_t c = tea_tagger_wake_cycle(&r->tags[i]), e = tea_tagger_wake_entry(&r->tags[i]);
        if (c < cycle)
            cycle = c;
        if (e < entry)
            entry = e;
    }
    r->tag_wake_cycle = cycle;
    r->tag_wake_entry = entry;
}

/* Adds to a PICS, remembering the first allocation failure. */
static inline __attribute__((always_inline)) void add(tea_replay *r, pics *p, const trace_uop *u, uint16_t mask,
                                                      uint64_t value, uint64_t count)
{
    int rc;
    if ((value || count) && (rc = pics_add_ctx(p, u->ctx, u->pc, (uint16_t)(u->psv & mask), value, count)) && !r->rc)
        r->rc = rc;
}

/* The golden PICS: every cycle of the interval, exactly. Each µop that
 * commits or excepts counts once in its cell. */
static inline __attribute__((always_inline)) void charge_golden(tea_replay *r, const golden_interval *iv)
{
    pics_cache *c = &r->golden_cache;
    const trace_uop *u = iv->uops;

    if (iv->has_flush_cause)
        pics_cache_add(c, iv->flush_cause.ctx, iv->flush_cause.pc, iv->flush_cause.psv, (iv->refill - iv->start) * PICS_UNIT, 0);
    if (!u)
        return;
    if (iv->n_commit == 0) {
        pics_cache_add(c, u[0].ctx, u[0].pc, iv->exception_psv, (iv->cycle - iv->refill + 1) * PICS_UNIT, 1);
        return;
    }
    {
        uint64_t share = r->units.share[iv->n_commit];
        pics_cache_add(c, u[0].ctx, u[0].pc, u[0].psv, (iv->cycle - iv->refill) * PICS_UNIT + share, 1);
        for (unsigned i = 1; i < iv->n_commit; i++)
            pics_cache_add(c, u[i].ctx, u[i].pc, u[i].psv, share, 1);
        if (iv->exception) /* excepts in a cycle the commits take: counted, charged only its flush */
            pics_cache_add(c, u[iv->n_commit].ctx, u[iv->n_commit].pc, iv->exception_psv, 0, 1);
    }
}

/* TEA: the points of the interval get what golden charges for their cycle. */
static void sample_tea(tea_replay *r, cycle_sampler *s, const golden_interval *iv)
{
    uint64_t k;

    if (iv->has_flush_cause && (k = tea_schedule_take(&s->sched, iv->refill - 1))) {
        add(r, s->target, &iv->flush_cause, s->mask, k * PICS_UNIT, k);
        s->samples += k;
    }
    if (!iv->uops)
        return;
    if ((k = tea_schedule_take(&s->sched, iv->cycle - 1))) {
        trace_uop first = iv->uops[0];
        if (iv->n_commit == 0)
            first.psv = iv->exception_psv;
        add(r, s->target, &first, s->mask, k * PICS_UNIT, k);
        s->samples += k;
    }
    if ((k = tea_schedule_take(&s->sched, iv->cycle))) {
        if (iv->n_commit == 0) {
            trace_uop excepting = iv->uops[0];
            excepting.psv = iv->exception_psv;
            add(r, s->target, &excepting, s->mask, k * PICS_UNIT, k);
        } else {
            uint64_t share = r->units.share[iv->n_commit];
            for (unsigned i = 0; i < iv->n_commit; i++)
                add(r, s->target, &iv->uops[i], s->mask, k * share, k);
        }
        s->samples += k;
    }
}

/* NCI-TEA: every point up to a commit goes whole to its first committing
 * µop; exceptions are not commits, so their points wait for the next one. */
static void sample_nci(tea_replay *r, cycle_sampler *s, const golden_interval *iv)
{
    uint64_t k;
    if (!iv->uops || iv->n_commit == 0)
        return;
    if ((k = tea_schedule_take(&s->sched, iv->cycle))) {
        add(r, s->target, &iv->uops[0], s->mask, k * PICS_UNIT, k);
        s->samples += k;
    }
}

/* Runs the cycle samplers over an interval some point falls in. */
static void sample_interval(tea_replay *r, const golden_interval *iv)
{
    for (size_t i = 0; i < r->cycle_count; i++) {
        cycle_sampler *s = &r->cycle[i];
        if (s->scheme == PICS_SCHEME_TEA)
            sample_tea(r, s, iv);
        else
            sample_nci(r, s, iv);
    }
    recompute_cycle_wake(r);
}

/* Everything an interval feeds: the golden PICS, and the cycle samplers when
 * one of their points has come. */
static inline void on_interval(void *ctx, const golden_interval *iv)
{
    tea_replay *r = ctx;
    charge_golden(r, iv);
    if (iv->cycle >= r->cycle_wake)
        sample_interval(r, iv);
}

/* Whether a spec's sampler reads tokens (the tracedoctor rules,
 * tea/tdsampler.h) rather than records. */
static int reads_tokens(const tea_sampler_spec *sp)
{
    return sp->rules == GOLDEN_RULES_TRACEDOCTOR;
}

int tea_replay_create(tea_replay **out, unsigned initial_window, const tea_sampler_spec *specs, size_t count)
{
    tea_replay *r;

    *out = NULL;
    for (size_t i = 0; i < count; i++) {
        if (specs[i].scheme == PICS_SCHEME_GOLDEN || specs[i].scheme >= PICS_SCHEME_COUNT)
            return error_set(TEA_ERR_USAGE, "sampler %zu: not a sampling scheme", i);
        if (specs[i].period == 0)
            return error_set(TEA_ERR_USAGE, "sampler %zu: the sampling period must be at least one cycle", i);
        if (specs[i].listed && specs[i].scheme != PICS_SCHEME_TEA)
            return error_set(TEA_ERR_USAGE, "sampler %zu: only TEA samples a list of points", i);
        if (specs[i].phases > TEA_TAGGER_PHASES_MAX)
            return error_set(TEA_ERR_USAGE, "sampler %zu: more than %d phases", i, TEA_TAGGER_PHASES_MAX);
        if (reads_tokens(&specs[i]) && (specs[i].listed || specs[i].jitter != PICS_JITTER_NONE))
            return error_set(TEA_ERR_USAGE, "sampler %zu: the tracedoctor rules sample every period exactly "
                                            "(no jitter, no listed points)", i);
        for (uint64_t k = 1; specs[i].listed && k < specs[i].point_count; k++)
            if (specs[i].points[k] < specs[i].points[k - 1])
                return error_set(TEA_ERR_USAGE, "sampler %zu: point %llu comes before the one ahead of it", i,
                                 (unsigned long long)k);
    }
    if (!(r = calloc(1, sizeof *r)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    r->specs = calloc(count ? count : 1, sizeof *r->specs);
    r->refs = calloc(count ? count : 1, sizeof *r->refs);
    r->cycle = calloc(count ? count : 1, sizeof *r->cycle);
    r->tags = calloc(count ? count : 1, sizeof *r->tags);
    r->token_samplers = calloc(count ? count : 1, sizeof *r->token_samplers);
    if (!r->specs || !r->refs || !r->cycle || !r->tags || !r->token_samplers || pics_init(&r->golden_pics)) {
        tea_replay_free(r);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if (count)
        memcpy(r->specs, specs, count * sizeof *specs);
    r->count = count;
    for (size_t i = 0; i < count; i++) {
        /* Tokens come from the trace's opening on: these exist before the first record. */
        const tea_sampler_spec *sp = &specs[i];
        int rc;
        if (!reads_tokens(sp))
            continue;
        if ((rc = tea_td_sampler_init(&r->token_samplers[r->token_count], sp->scheme, sp->period, sp->event_mask,
                                      sp->llc_latency))) {
            tea_td_sampler_free(&r->token_samplers[r->token_count]);
            tea_replay_free(r);
            return rc;
        }
        r->refs[i] = (sampler_ref){ SAMPLER_TOKENS, r->token_count++ };
    }
    pics_cache_init(&r->golden_cache, &r->golden_pics);
    golden_units_init(&r->units, PICS_UNIT);
    golden_init(&r->golden, initial_window);
    r->rob.tail = initial_window;
    r->cycle_wake = r->tag_wake_cycle = r->tag_wake_entry = TEA_SCHEDULE_NEVER;
    *out = r;
    return TEA_OK;
}

/* Whether a sampler of `scheme` samples cycles (TEA, NCI-TEA) rather than
 * tagging µops. */
static int is_cycle_scheme(pics_scheme scheme)
{
    return !pics_scheme_tags(scheme);
}

/* Sampler j's PICS of window group k (j: the cycle samplers, then the taggers). */
static pics *sampler_group(const tea_replay *r, size_t j, unsigned k)
{
    assert(j < r->cycle_count + r->tag_count && k < r->wg.count);
    return &r->wg.sampler_groups[j * r->wg.count + k];
}

/* Points every cycle sampler and tagger at its PICS of group k. */
static void target_group(tea_replay *r, unsigned k)
{
    for (size_t i = 0; i < r->cycle_count; i++)
        r->cycle[i].target = sampler_group(r, i, k);
    for (size_t i = 0; i < r->tag_count; i++)
        r->tags[i].target = sampler_group(r, r->cycle_count + i, k);
}

/* With window groups, gives the samplers theirs, the first window's in
 * use. 0 or TEA_ERR_NOMEM. */
static int group_samplers(tea_replay *r)
{
    size_t n = (r->cycle_count + r->tag_count) * r->wg.count;
    if (!r->wg.count || n == 0)
        return TEA_OK;
    if (!(r->wg.sampler_groups = calloc(n, sizeof *r->wg.sampler_groups)))
        return TEA_ERR_NOMEM;
    r->wg.sampler_group_count = n;
    for (size_t k = 0; k < n; k++)
        if (pics_init(&r->wg.sampler_groups[k]))
            return TEA_ERR_NOMEM;
    target_group(r, (unsigned)(r->wg.window % r->wg.count));
    return TEA_OK;
}

/* Sets up every sampler once the origin (first record's cycle) is known. */
static int start(tea_replay *r, uint64_t origin)
{
    r->started = 1;
    r->rob.origin = origin;
    for (size_t i = 0; i < r->count; i++) {
        const tea_sampler_spec *sp = &r->specs[i];
        if (reads_tokens(sp))
            continue; /* a token sampler, created with the replay */
        if (is_cycle_scheme(sp->scheme)) {
            cycle_sampler *s = &r->cycle[r->cycle_count];
            s->scheme = sp->scheme;
            s->mask = sp->event_mask;
            /* Every scheme at one period sees the same points (stream = period). */
            if (sp->listed) {
                tea_schedule_init_points(&s->sched, sp->points, sp->point_count);
            } else {
                tea_schedule_init(&s->sched, origin, sp->period, sp->jitter, sp->seed, sp->period);
                if (r->wg.weights)
                    tea_schedule_set_windows(&s->sched, r->wg.ends, r->wg.weights, r->wg.windows);
            }
            if (pics_init(&s->pics))
                return TEA_ERR_NOMEM;
            s->target = &s->pics;
            r->refs[i] = (sampler_ref){ SAMPLER_CYCLE, r->cycle_count++ };
        } else if (!r->part) {
            int rc = tea_tagger_init(&r->tags[r->tag_count], sp->scheme, sp->period, sp->jitter, sp->seed,
                                     sp->event_mask, origin, sp->phases ? sp->phases : 1, sp->phase_period);
            if (rc)
                return rc;
            if (r->wg.weights)
                tea_tagger_set_windows(&r->tags[r->tag_count], r->wg.ends, r->wg.weights, r->wg.windows);
            r->tags[r->tag_count].keep_points = sp->keep_points;
            r->refs[i] = (sampler_ref){ SAMPLER_TAGGER, r->tag_count++ };
        }
    }
    /* Every spec has its sampler, but a part's taggers (the whole runs them). */
    assert(r->part ? r->tag_count == 0 : r->cycle_count + r->tag_count + r->token_count == r->count);
    recompute_cycle_wake(r);
    recompute_tag_wake(r);
    return group_samplers(r);
}

/* Runs the taggers on a record when any of them needs it. */
static int feed_taggers(tea_replay *r, const trace_record *rec, const trace_uop *uops)
{
    if (rec->cycle < r->tag_wake_cycle && r->rob.dispatched + rec->dispatch < r->tag_wake_entry)
        return TEA_OK;
    for (size_t i = 0; i < r->tag_count; i++) {
        int rc = tea_tagger_record(&r->tags[i], rec, uops, &r->rob);
        if (rc)
            return rc;
    }
    recompute_tag_wake(r);
    return TEA_OK;
}

/* Moves the taggers' view of the ROB past `retired` entries leaving at the
 * head, `squashed` removed at the tail and `dispatched` allocated (one record
 * or a run of them). The readers checked every record against the window
 * (trace_record_check), so the window never holds more than TRACE_MAX_ROB
 * entries nor fewer than none. */
static void rob_advance(tea_rob_view *v, uint64_t retired, uint64_t squashed, uint64_t dispatched)
{
    v->head += retired;
    v->tail = v->tail - squashed + dispatched;
    v->dispatched += dispatched;
    assert(v->tail >= v->head && v->tail - v->head <= TRACE_MAX_ROB);
}

/* Runs the taggers (when awake) over records [first, first + n) and keeps the
 * ROB view in step (only taggers look at it). */
static int feed_run_taggers(tea_replay *r, const trace_batch *batch, size_t first, size_t n)
{
    if (!r->tag_count)
        return TEA_OK;
    for (size_t i = first; i < first + n; i++) {
        const trace_record *rec = &batch->records[i];
        int rc;
        if ((rc = feed_taggers(r, rec, batch->uops + rec->first_uop)))
            return rc;
        rob_advance(&r->rob, rec->retire, rec->squash, rec->dispatch);
    }
    return TEA_OK;
}

/* Golden's plain records (golden_plain_run) from records[0..count) on, up to
 * the first other one or one a cycle sampler waits for: what golden charges
 * each of their µops, then those charges into the cache. Returns the
 * records consumed. */
static size_t feed_plain(tea_replay *r, golden_run *s, const trace_record *records, size_t count, const trace_uop *uops)
{
    size_t done, base, end;

    assert(count <= REPLAY_RUN); /* plain_charges' room */
    done = golden_plain_run(s, records, count, uops, r->cycle_wake, &r->units, r->plain_charges);
    if (!done)
        return 0;
    base = records[0].first_uop;
    end = records[done - 1].first_uop + records[done - 1].n_commit;
    assert(end - base <= REPLAY_RUN * GOLDEN_PLAIN_UOPS); /* the charges written */
    for (size_t j = base; j < end; j++)
        pics_cache_add(&r->golden_cache, uops[j].ctx, uops[j].pc, uops[j].psv, r->plain_charges[j - base], 1);
    return done;
}

/* Runs the golden reference over records [first, first + n), charging each
 * interval as it closes; the cycle samplers see the intervals their points
 * fall in. Plain records take feed_plain, the others golden_step. */
static void feed_run_golden(tea_replay *r, const trace_batch *batch, size_t first, size_t n)
{
    golden_run s;

    const trace_record *records = batch->records;
    const trace_uop *uops = batch->uops;
    size_t i = first, end = first + n;

    golden_run_begin(&r->golden, &s);
    while (i < end) {
        golden_interval iv;
        const trace_record *rec;

        i += feed_plain(r, &s, records + i, end - i, uops);
        if (i == end)
            break;
        rec = &records[i++];
        if (golden_step(&s, rec, uops + rec->first_uop, &iv))
            on_interval(r, &iv);
    }
    golden_run_end(&r->golden, &s);
    assert(golden_check(&r->golden));
}

int tea_replay_check_span(uint64_t origin, uint64_t last)
{
    if (last - origin <= TEA_REPLAY_MAX_SPAN)
        return TEA_OK;
    return error_set(TEA_ERR_UNSUPPORTED,
                     "the trace spans %llu cycles (cycle %llu to %llu); a PICS holds at most "
                     "%llu cycles (1/%llu-cycle units in 64 bits)",
                     (unsigned long long)(last - origin), (unsigned long long)origin, (unsigned long long)last,
                     (unsigned long long)TEA_REPLAY_MAX_SPAN, (unsigned long long)PICS_UNIT);
}

/* Moves the golden charges to window `window`'s group or weight: what the
 * cache holds goes to the current group, at the current weight, first. */
static void enter_window(tea_replay *r, size_t window)
{
    window_groups *g = &r->wg;
    int rc = pics_cache_flush(&r->golden_cache);
    if (rc && !r->rc)
        r->rc = rc;
    g->window = window;
    if (g->count)
        r->golden_cache.target = &g->groups[window % g->count];
    if (g->weights)
        r->golden_cache.scale = g->weights[window];
    if (g->sampler_groups)
        target_group(r, (unsigned)(window % g->count));
}

/* With windows followed: how many of the n records from `first` on belong to
 * the window of records[first] (at least one), after moving to it. Records
 * past the last window's end stay in its group. */
static size_t window_run(tea_replay *r, const trace_batch *batch, size_t first, size_t n)
{
    window_groups *g = &r->wg;
    const trace_record *records = batch->records + first;
    size_t k = 0, window = trace_sampling_window_of(g->ends, g->windows, g->window, records[0].cycle);

    if (window != g->window)
        enter_window(r, window);
    if (records[0].cycle > g->ends[g->window])
        return n; /* past the last window */
    while (k < n && records[k].cycle <= g->ends[g->window])
        k++;
    assert(k >= 1); /* records[0] is in the window */
    return k;
}

int tea_replay_weight_windows(tea_replay *r, const uint64_t *ends, const uint64_t *weights, size_t windows)
{
    assert(!r->started && !r->part && !r->wg.ends); /* before the first batch, once */
    if (windows == 0)
        return error_set(TEA_ERR_USAGE, "weighted windows: none given");
    for (size_t i = 0; i < r->count; i++)
        if (r->specs[i].phases > 1)
            return error_set(TEA_ERR_USAGE, "sampler %zu: tagging units in phases and weighted windows do not "
                                            "go together", i);
    for (size_t k = 0; k < windows; k++)
        if (weights[k] == 0 || (k && ends[k] <= ends[k - 1]))
            return error_set(TEA_ERR_USAGE, "weighted window %zu: a weight of 0 or an end that does not increase", k);
    /* the replay's own copies: the schedules read them up to the finish */
    if (!(r->wg.owned = malloc(2 * windows * sizeof *r->wg.owned)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    memcpy(r->wg.owned, ends, windows * sizeof *ends);
    memcpy(r->wg.owned + windows, weights, windows * sizeof *weights);
    r->wg.ends = r->wg.owned;
    r->wg.weights = r->wg.owned + windows;
    r->wg.windows = windows;
    r->wg.window = 0;
    r->golden_cache.scale = weights[0];
    return TEA_OK;
}

/* A weighted trace from `origin` to `last`: its first window ends at or
 * after its first record, and the cycles its windows stand for fit in a
 * PICS. 0, TEA_ERR_FORMAT or TEA_ERR_UNSUPPORTED. */
static int check_weighted_span(const window_groups *g, uint64_t origin, uint64_t last)
{
    uint64_t cycles;
    int rc;
    if ((rc = trace_sampling_weighted_span(g->ends, g->weights, g->windows, origin, last, &cycles)))
        return rc;
    if (cycles > TEA_REPLAY_MAX_SPAN)
        return error_set(TEA_ERR_UNSUPPORTED,
                         "the trace's weighted windows stand for more than %llu cycles by cycle %llu; a PICS "
                         "holds at most that many (1/%llu-cycle units in 64 bits)",
                         (unsigned long long)TEA_REPLAY_MAX_SPAN, (unsigned long long)last,
                         (unsigned long long)PICS_UNIT);
    return TEA_OK;
}

int tea_replay_group_windows(tea_replay *r, const uint64_t *ends, size_t windows, unsigned groups)
{
    assert(!r->started && !r->part && !r->wg.ends); /* before the first batch, once */
    if (groups < 2 || windows < groups)
        return error_set(TEA_ERR_USAGE, "%u groups of %zu windows: need at least two groups and a window for each",
                         groups, windows);
    if (!(r->wg.groups = calloc(groups, sizeof *r->wg.groups)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    r->wg.count = groups;
    for (unsigned k = 0; k < groups; k++)
        if (pics_init(&r->wg.groups[k]))
            return error_set(TEA_ERR_NOMEM, "out of memory");
    r->wg.ends = ends;
    r->wg.windows = windows;
    r->wg.window = 0;
    pics_cache_init(&r->golden_cache, &r->wg.groups[0]);
    return TEA_OK;
}

const pics *tea_replay_golden_groups(const tea_replay *r, unsigned *count)
{
    *count = r->wg.count;
    return r->wg.groups;
}

const pics *tea_replay_sampler_groups(const tea_replay *r, size_t i, unsigned *count)
{
    const sampler_ref *ref = &r->refs[i];
    *count = 0;
    if (!r->wg.sampler_groups || ref->kind == SAMPLER_TOKENS)
        return NULL;
    *count = r->wg.count;
    return sampler_group(r, ref->kind == SAMPLER_CYCLE ? ref->index : r->cycle_count + ref->index, 0);
}

int tea_replay_feed(tea_replay *r, const trace_batch *batch)
{
    size_t first = 0;
    int rc;

    if (batch->count) {
        uint64_t origin = r->started ? r->rob.origin : batch->records[0].cycle;
        uint64_t last = batch->records[batch->count - 1].cycle;
        if ((rc = tea_replay_check_span(origin, last)))
            return rc;
        if (r->wg.weights && (rc = check_weighted_span(&r->wg, origin, last)))
            return rc;
    }
    if (batch->count && !r->started) {
        /* The origin record starts every sampler; taggers never see it. */
        const trace_record *origin = &batch->records[0];
        if ((rc = start(r, origin->cycle)))
            return error_set(rc, "out of memory starting the samplers");
        rob_advance(&r->rob, origin->retire, origin->squash, origin->dispatch);
    }
    if (batch->count && !r->golden.started) {
        /* The origin closes no interval. */
        golden_interval none;
        golden_intervals(&r->golden, &batch->records[0], 1, batch->uops, &none);
        first = 1;
    }
    while (first < batch->count) {
        size_t n = batch->count - first < REPLAY_RUN ? batch->count - first : REPLAY_RUN;
        if (r->wg.ends)
            n = window_run(r, batch, first, n);
        if ((rc = feed_run_taggers(r, batch, first, n)))
            return rc;
        feed_run_golden(r, batch, first, n);
        if (r->rc)
            return error_set(r->rc, "out of memory building a PICS");
        first += n;
    }
    return TEA_OK;
}

int tea_replay_finish(tea_replay *r)
{
    golden_sink sink = { on_interval, r };
    uint64_t last;

    golden_finish(&r->golden, &sink);
    if (!r->rc)
        r->rc = pics_cache_flush(&r->golden_cache);
    for (unsigned k = 0; k < r->wg.count && !r->rc; k++) /* the golden PICS is the groups' sum */
        r->rc = pics_merge_into(&r->golden_pics, &r->wg.groups[k]);
    for (size_t j = 0; r->wg.sampler_groups && j < r->cycle_count + r->tag_count; j++) {
        pics *whole = j < r->cycle_count ? &r->cycle[j].pics : &r->tags[j - r->cycle_count].pics;
        for (unsigned k = 0; k < r->wg.count && !r->rc; k++) /* so is each sampler's */
            r->rc = pics_merge_into(whole, sampler_group(r, j, k));
    }
    if (r->rc)
        return error_set(r->rc, "out of memory building a PICS");
    /* The golden PICS charges every attributed cycle, exactly once (weighted
     * windows: as often as its window's weight). */
    assert(r->wg.weights || r->golden_pics.total == golden_get_totals(&r->golden)->attributed * PICS_UNIT);
    assert(pics_check(&r->golden_pics)); /* every charge is in */
    last = golden_get_totals(&r->golden)->last_cycle;
    for (size_t i = 0; i < r->cycle_count; i++) {
        tea_schedule *sched = &r->cycle[i].sched;
        r->cycle[i].lost[PICS_LOST_END] += tea_schedule_take(sched, last);
        if (sched->listed) /* listed points past the trace's end are lost too */
            r->cycle[i].lost[PICS_LOST_END] += sched->point_count - sched->point_index;
    }
    for (size_t i = 0; i < r->tag_count; i++)
        tea_tagger_finish(&r->tags[i], last);
    for (size_t i = 0; i < r->token_count; i++) {
        int rc = tea_td_sampler_finish(&r->token_samplers[i]);
        if (rc)
            return error_set(rc, "out of memory building a PICS");
    }
    return TEA_OK;
}

int tea_replay_reads_tokens(const tea_replay *r)
{
    return r->token_count > 0;
}

void tea_replay_token(void *replay, const uint8_t *token)
{
    tea_replay *r = replay;
    trace_td_token t;

    trace_td_token_unpack(token, &t);
    for (size_t i = 0; i < r->token_count; i++)
        tea_td_sampler_token(&r->token_samplers[i], &t);
}

void tea_replay_set_golden_rules(tea_replay *r, golden_rules rules)
{
    golden_set_rules(&r->golden, rules);
}

const pics *tea_replay_golden(const tea_replay *r)
{
    return &r->golden_pics;
}

const golden_totals *tea_replay_golden_totals(const tea_replay *r)
{
    return golden_get_totals(&r->golden);
}

/* What sampler i has built, whichever kind it is. */
typedef struct sampler_outcome {
    const pics *pics;
    uint64_t samples;
    const uint64_t *lost; /* [PICS_LOST_REASONS] */
} sampler_outcome;

static sampler_outcome outcome_of(const tea_replay *r, size_t i)
{
    const sampler_ref *ref = &r->refs[i];
    switch (ref->kind) {
    case SAMPLER_TAGGER: {
        const tea_tagger *t = &r->tags[ref->index];
        return (sampler_outcome){ &t->pics, t->samples, t->lost };
    }
    case SAMPLER_TOKENS: {
        const tea_td_sampler *t = &r->token_samplers[ref->index];
        return (sampler_outcome){ &t->pics, t->samples, t->lost };
    }
    default: {
        const cycle_sampler *c = &r->cycle[ref->index];
        return (sampler_outcome){ &c->pics, c->samples, c->lost };
    }
    }
}

const pics *tea_replay_sampler_pics(const tea_replay *r, size_t i)
{
    return outcome_of(r, i).pics;
}

int tea_replay_set_contexts(tea_replay *r, const trace_contexts *contexts)
{
    int rc = pics_set_contexts(&r->golden_pics, contexts);
    for (size_t i = 0; i < r->count && rc == TEA_OK; i++)
        rc = pics_set_contexts((pics *)(uintptr_t)outcome_of(r, i).pics, contexts);
    return rc;
}

uint64_t tea_replay_sampler_samples(const tea_replay *r, size_t i)
{
    return outcome_of(r, i).samples;
}

const uint64_t *tea_replay_sampler_points(const tea_replay *r, size_t i, uint64_t *count)
{
    const sampler_ref *ref = &r->refs[i];
    if (ref->kind != SAMPLER_TAGGER) {
        *count = 0;
        return NULL;
    }
    *count = r->tags[ref->index].point_count;
    return r->tags[ref->index].points;
}

const uint64_t *tea_replay_sampler_lost(const tea_replay *r, size_t i)
{
    return outcome_of(r, i).lost;
}

int tea_replay_describe(const tea_replay *r, size_t i, const trace_header *h, const trace_totals *t,
                        pics_info *info)
{
    pics_info_init(info);
    trace_digest(h, t, info->trace_digest);
    info->trace_first_cycle = t->first_cycle;
    info->trace_last_cycle = t->last_cycle;
    info->trace_records = t->records;
    info->clock_hz = h->clock_hz;
    if (trace_program_copy(&info->program, &h->program)) {
        pics_info_free(info);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    info->golden_total = r->golden_pics.total;
    snprintf(info->golden_rules, sizeof info->golden_rules, "%s", golden_rules_name(r->golden.rules));
    if (i == SIZE_MAX) {
        snprintf(info->scheme, sizeof info->scheme, "%s", pics_scheme_name(PICS_SCHEME_GOLDEN));
        snprintf(info->events, sizeof info->events, "all");
        info->event_mask = TRACE_PSV_MASK_ALL;
        return TEA_OK;
    }
    {
        const tea_sampler_spec *sp = &r->specs[i];
        const uint64_t *lost = tea_replay_sampler_lost(r, i);
        snprintf(info->scheme, sizeof info->scheme, "%s", pics_scheme_name(sp->scheme));
        snprintf(info->rules, sizeof info->rules, "%s", golden_rules_name(sp->rules));
        info->period = sp->period;
        info->frequency_hz = sp->frequency_hz;
        info->seed = sp->seed;
        snprintf(info->jitter, sizeof info->jitter, "%s", pics_jitter_name(sp->jitter));
        snprintf(info->events, sizeof info->events, "%s", sp->all_events ? "all" : "native");
        info->event_mask = sp->event_mask;
        info->samples = tea_replay_sampler_samples(r, i);
        memcpy(info->lost, lost, sizeof info->lost);
    }
    return TEA_OK;
}

int tea_replay_create_part(tea_replay **out, const tea_replay *whole, uint64_t origin)
{
    tea_replay *p;
    int rc;

    *out = NULL;
    assert(!whole->wg.ends); /* followed windows need the one stream (tea_replay_group_windows) */
    assert(!whole->token_count); /* so do the tracedoctor rules' samplers (tokens in order) */
    if ((rc = tea_replay_create(&p, 0, whole->specs, whole->count)))
        return rc;
    p->part = 1;
    golden_set_rules(&p->golden, whole->golden.rules);
    if ((rc = start(p, origin))) {
        tea_replay_free(p);
        return error_set(rc, "out of memory starting the samplers");
    }
    *out = p;
    return TEA_OK;
}

void tea_replay_part_resume(tea_replay *part, const trace_record *rec, const trace_uop *uops, unsigned window_after)
{
    golden_resume(&part->golden, rec, uops, window_after);
    /* The whole replay took every point up to the record's cycle with the
     * interval the record closed. */
    for (size_t i = 0; i < part->cycle_count; i++)
        tea_schedule_skip_past(&part->cycle[i].sched, rec->cycle);
    recompute_cycle_wake(part);
}

struct tea_replay_mark {
    golden golden;
    tea_schedule *schedules;   /* one per cycle sampler */
    size_t count;
};

/* Cycle samplers among the specs: the same in a whole replay and its parts. */
static size_t count_cycle_samplers(const tea_replay *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++)
        n += is_cycle_scheme(r->specs[i].scheme) && !reads_tokens(&r->specs[i]);
    return n;
}

int tea_replay_has_taggers(const tea_replay *r)
{
    return count_cycle_samplers(r) + r->token_count < r->count;
}

uint64_t tea_replay_tagger_period(const tea_replay *r)
{
    uint64_t shortest = UINT64_MAX;
    for (size_t i = 0; i < r->count; i++)
        if (!is_cycle_scheme(r->specs[i].scheme) && !reads_tokens(&r->specs[i]) && r->specs[i].period < shortest)
            shortest = r->specs[i].period;
    return shortest;
}

int tea_replay_mark_create(tea_replay_mark **out, const tea_replay *whole)
{
    tea_replay_mark *m = calloc(1, sizeof *m);

    *out = NULL;
    if (!m)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    m->count = count_cycle_samplers(whole);
    if (!(m->schedules = calloc(m->count ? m->count : 1, sizeof *m->schedules))) {
        free(m);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    *out = m;
    return TEA_OK;
}

void tea_replay_mark_take(tea_replay_mark *m, const tea_replay *part)
{
    assert(m->count == part->cycle_count); /* both from the whole's specs */
    m->golden = part->golden;
    for (size_t i = 0; i < m->count && i < part->cycle_count; i++)
        m->schedules[i] = part->cycle[i].sched;
}

void tea_replay_mark_free(tea_replay_mark *m)
{
    if (!m)
        return;
    free(m->schedules);
    free(m);
}

int tea_replay_feed_taggers(tea_replay *whole, const trace_batch *batch, size_t first, size_t count)
{
    return feed_run_taggers(whole, batch, first, count);
}

int tea_replay_taggers_skip(tea_replay *whole, const tea_rob_delta *d)
{
    if (!whole->tag_count)
        return 1;
    /* feed_taggers' test for the run's last record, where the cycle and the
     * dispatched count are largest. */
    if (d->last_cycle >= whole->tag_wake_cycle || whole->rob.dispatched + d->dispatched >= whole->tag_wake_entry)
        return 0;
    rob_advance(&whole->rob, d->retired, d->squashed, d->dispatched);
    return 1;
}

void tea_replay_adopt(tea_replay *whole, const tea_replay_mark *m)
{
    golden_adopt_position(&whole->golden, &m->golden);
    for (size_t i = 0; i < whole->cycle_count && i < m->count; i++)
        whole->cycle[i].sched = m->schedules[i];
    recompute_cycle_wake(whole);
}

int tea_replay_absorb(tea_replay *whole, tea_replay *part)
{
    int rc = part->rc;

    /* Once started, the whole replay has the parts' cycle samplers. */
    assert(!whole->started || whole->cycle_count == part->cycle_count);
    if (!rc)
        rc = pics_cache_flush(&part->golden_cache);
    if (!rc)
        rc = pics_merge_into(&whole->golden_pics, &part->golden_pics);
    for (size_t i = 0; !rc && i < whole->cycle_count && i < part->cycle_count; i++) {
        cycle_sampler *w = &whole->cycle[i];
        const cycle_sampler *p = &part->cycle[i];
        rc = pics_merge_into(&w->pics, &p->pics);
        w->samples += p->samples;
        for (int k = 0; k < PICS_LOST_REASONS; k++)
            w->lost[k] += p->lost[k];
    }
    if (rc)
        return error_set(rc, "out of memory merging PICS");
    golden_add_totals(&whole->golden, &part->golden);
    return TEA_OK;
}

void tea_replay_free(tea_replay *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->cycle_count; i++)
        pics_free(&r->cycle[i].pics);
    for (size_t i = 0; i < r->tag_count; i++)
        tea_tagger_free(&r->tags[i]);
    for (size_t i = 0; i < r->token_count; i++)
        tea_td_sampler_free(&r->token_samplers[i]);
    pics_free(&r->golden_pics);
    for (unsigned k = 0; r->wg.groups && k < r->wg.count; k++)
        pics_free(&r->wg.groups[k]);
    free(r->wg.groups);
    for (size_t k = 0; k < r->wg.sampler_group_count; k++)
        pics_free(&r->wg.sampler_groups[k]);
    free(r->wg.sampler_groups);
    free(r->wg.owned);
    free(r->specs);
    free(r->refs);
    free(r->cycle);
    free(r->tags);
    free(r->token_samplers);
    free(r);
}
