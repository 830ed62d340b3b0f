/*
 * tagger.c: IBS, SPE and RIS (see tagger.h).
 */
#include "tagger.h"
#include "common/error.h"
#include "common/rng.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Galois LFSR taps of a maximal-length 16-bit sequence. */
#define RIS_LFSR_TAPS 0xB400u
/* RIS skips 0..RIS_SKIP_MASK entries before marking one. */
#define RIS_SKIP_MASK 0xFu
/* Random streams, kept apart from the cycle schedule's (the period). */
#define RIS_STREAM 0x5249530000000000ull
#define SPE_STREAM 0x5350450000000000ull
/* Unit j > 0 of several mixes j into its streams' key this far up. */
#define PHASE_STREAM_SHIFT 40
/* The draw of a unit's lead point: an index no period and no start offset
 * (UINT64_MAX) takes. */
#define LEAD_INDEX (UINT64_MAX - 1)

/* The units are kept in two binary min-heaps, so that a record costs the
 * units it wakes, not all of them: by_point by each unit's next cycle
 * point (a counting SPE unit's is NEVER: it sinks), by_trigger the
 * counting SPE units by their trigger. Keys only grow. */

static uint64_t point_key(const tea_tagger *t, unsigned j)
{
    const tea_tag_slot *s = &t->slots[j];
    return s->lead < s->cycles.next ? s->lead : s->cycles.next;
}

static uint64_t trigger_key(const tea_tagger *t, unsigned j)
{
    return t->slots[j].trigger;
}

/* Moves heap[k] down to its place (its key grew); heap_pos follows the
 * point heap's moves. */
static void sift_down(tea_tagger *t, unsigned *heap, unsigned n, unsigned k,
                      uint64_t (*key)(const tea_tagger *, unsigned))
{
    for (;;) {
        unsigned least = k, l = 2 * k + 1, r = l + 1, tmp;
        if (l < n && key(t, heap[l]) < key(t, heap[least]))
            least = l;
        if (r < n && key(t, heap[r]) < key(t, heap[least]))
            least = r;
        if (least == k)
            return;
        tmp = heap[k];
        heap[k] = heap[least];
        heap[least] = tmp;
        if (heap == t->by_point) {
            t->heap_pos[heap[k]] = k;
            t->heap_pos[heap[least]] = least;
        }
        k = least;
    }
}

/* Adds counting unit j to by_trigger. */
static void push_trigger(tea_tagger *t, unsigned j)
{
    unsigned k = t->triggers++;
    assert(t->triggers <= t->phases); /* each unit counts once */
    t->by_trigger[k] = j;
    while (k && trigger_key(t, t->by_trigger[(k - 1) / 2]) > trigger_key(t, j)) {
        t->by_trigger[k] = t->by_trigger[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    t->by_trigger[k] = j;
}

/* The wake conditions from the heaps' tops. */
static void refresh(tea_tagger *t)
{
    t->next_point = point_key(t, t->by_point[0]);
    t->next_trigger = t->triggers ? trigger_key(t, t->by_trigger[0]) : TEA_SCHEDULE_NEVER;
}

/* Unit j's points: periods of the unit period from floor(j x unit_period /
 * phases) after the origin, and the period before them, which straddles
 * the origin: its point (drawn as any period's) when it falls after the
 * origin, the lead. A unit so takes unit_period / T of the points in any
 * span T, even a trace shorter than its period. (One unit: the tagger's
 * own period from the origin, stream the period, no lead.) */
static void slot_init(tea_tagger *t, unsigned j, uint64_t origin)
{
    tea_tag_slot *s = &t->slots[j];
    uint64_t p = t->unit_period, u;
    double offset = floor((double)j * (double)p / (double)t->phases);
    uint64_t off = offset >= (double)(UINT64_MAX - origin) ? UINT64_MAX - origin : (uint64_t)offset;

    s->stream = j ? p ^ ((uint64_t)j << PHASE_STREAM_SHIFT) : p;
    tea_schedule_init(&s->cycles, origin + off, p, t->jitter, t->seed, s->stream);
    u = t->jitter == PICS_JITTER_NONE    ? p
        : t->jitter == PICS_JITTER_START ? s->cycles.offset
                                         : 1 + rng_hash_below(t->seed, s->stream, LEAD_INDEX, p);
    s->lead = j && off > p - u ? origin + off - (p - u) : TEA_SCHEDULE_NEVER;
    assert(s->lead == TEA_SCHEDULE_NEVER || (s->lead > origin && s->lead <= origin + off)); /* before window 0 */
}

int tea_tagger_init(tea_tagger *t, pics_scheme scheme, uint64_t period, pics_jitter jitter, uint64_t seed,
                    uint16_t mask, uint64_t origin, unsigned phases, uint64_t unit_period)
{
    memset(t, 0, sizeof *t);
    assert(phases >= 1 && phases <= TEA_TAGGER_PHASES_MAX); /* the caller's contract */
    t->scheme = scheme;
    t->mask = mask;
    t->period = period;
    t->jitter = jitter;
    t->seed = seed;
    t->lfsr = (uint16_t)(rng_hash64(seed, RIS_STREAM ^ period, 0) | 1u);
    t->target = &t->pics;
    t->phases = phases;
    t->unit_period = phases == 1 ? period
                     : unit_period ? unit_period
                     : period > UINT64_MAX / phases ? UINT64_MAX : period * phases;
    t->slots = calloc(phases, sizeof *t->slots);
    t->active = malloc(phases * sizeof *t->active);
    t->by_point = malloc(phases * sizeof *t->by_point);
    t->by_trigger = malloc(phases * sizeof *t->by_trigger);
    t->heap_pos = malloc(phases * sizeof *t->heap_pos);
    if (!t->slots || !t->active || !t->by_point || !t->by_trigger || !t->heap_pos || pics_init(&t->pics)) {
        tea_tagger_free(t);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    /* One unit: all schemes at one period share the cycle points (paired comparisons). */
    for (unsigned j = 0; j < phases; j++) {
        slot_init(t, j, origin);
        t->by_point[j] = t->heap_pos[j] = j;
    }
    for (unsigned k = phases / 2; k-- > 0;)
        sift_down(t, t->by_point, phases, k, point_key);
    refresh(t);
    return TEA_OK;
}

void tea_tagger_set_windows(tea_tagger *t, const uint64_t *ends, const uint64_t *weights, uint64_t count)
{
    assert(t->phases == 1); /* weighted windows keep the run's period: no phases (one unit: no heap to mend) */
    tea_schedule_set_windows(&t->slots[0].cycles, ends, weights, count);
    refresh(t);
}

void tea_tagger_free(tea_tagger *t)
{
    pics_free(&t->pics);
    free(t->points);
    free(t->slots);
    free(t->active);
    free(t->by_point);
    free(t->by_trigger);
    free(t->heap_pos);
    t->points = NULL;
    t->slots = NULL;
    t->active = NULL;
    t->by_point = t->by_trigger = t->heap_pos = NULL;
    t->point_count = t->point_capacity = 0;
}

/* Unit `s` leaves idle: it joins the active list. */
static void activate(tea_tagger *t, tea_tag_slot *s, int state)
{
    assert(s->state == TEA_TAG_IDLE && t->active_count < t->phases); /* one tag per unit */
    s->state = state;
    t->active[t->active_count++] = (unsigned)(s - t->slots);
}

/* The k-th active unit becomes idle and leaves the list (the last takes its
 * place). */
static void deactivate(tea_tagger *t, unsigned k)
{
    assert(k < t->active_count);
    t->slots[t->active[k]].state = TEA_TAG_IDLE;
    t->active[k] = t->active[--t->active_count];
}

/* A new tag is armed in unit `s` at a cycle sample point. */
static void arm(tea_tagger *t, tea_tag_slot *s)
{
    activate(t, s, TEA_TAG_ARMED);
    if (t->scheme == PICS_SCHEME_RIS) {
        t->lfsr = (uint16_t)((t->lfsr >> 1) ^ (-(unsigned)(t->lfsr & 1u) & RIS_LFSR_TAPS));
        s->skip = t->lfsr & RIS_SKIP_MASK;
    }
}

/* Starts unit s's next SPE interval after ordinal `start`, sized to the
 * dispatch rate since its interval was last sized (`dispatched` entries by
 * cycle `cycle`), so that the unit samples about once per its period. */
static void spe_next_interval(tea_tagger *t, tea_tag_slot *s, uint64_t start, uint64_t dispatched, uint64_t cycle)
{
    double size;
    uint64_t interval, u;

    if (cycle > s->rate_cycle && dispatched > s->rate_dispatched)
        s->rate = (double)(dispatched - s->rate_dispatched) / (double)(cycle - s->rate_cycle);
    else if (s->rate <= 0)
        s->rate = 1.0;
    s->rate_cycle = cycle;
    s->rate_dispatched = dispatched;
    /* the period of the weighted window sized in (tea_schedule_set_windows), else the unit's */
    size = floor((double)tea_schedule_period_at(&s->cycles, cycle) * s->rate + 0.5);
    interval = size < 1.0 ? 1 : size > 1e18 ? (uint64_t)1e18 : (uint64_t)size;
    switch (t->jitter) {
    case PICS_JITTER_NONE:
        u = interval;
        break;
    case PICS_JITTER_START: {
        /* a fixed fraction of every interval */
        double f = (double)(rng_hash64(t->seed, SPE_STREAM ^ s->stream, UINT64_MAX) >> 11) * 0x1.0p-53;
        u = 1 + (uint64_t)(f * (double)interval);
        if (u > interval)
            u = interval;
        break;
    }
    default:
        u = 1 + rng_hash_below(t->seed, SPE_STREAM ^ s->stream, s->interval_index, interval);
        break;
    }
    s->interval_index++;
    s->trigger = start + u;
    s->window_end = start + interval;
    assert(u >= 1 && u <= interval); /* the sample falls inside its interval */
}

/* Keeps the point of a sample taken (the noise floor's). */
static int keep_point(tea_tagger *t, uint64_t point)
{
    if (t->point_count == t->point_capacity) {
        uint64_t capacity = t->point_capacity ? 2 * t->point_capacity : 1024;
        uint64_t *grown = capacity <= SIZE_MAX / sizeof *grown ? realloc(t->points, capacity * sizeof *grown) : NULL;
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        t->points = grown;
        t->point_capacity = capacity;
    }
    /* one unit's tags resolve in the order they were armed (several units: sorted at the end) */
    assert(t->phases > 1 || t->point_count == 0 || t->points[t->point_count - 1] <= point);
    t->points[t->point_count++] = point;
    return TEA_OK;
}

/* Records a sample for a committed µop, standing for `point`. */
static int sample(tea_tagger *t, const trace_uop *u, uint64_t point)
{
    int rc;
    t->samples++;
    if (t->keep_points && (rc = keep_point(t, point)))
        return rc;
    return pics_add_ctx(t->target, u->ctx, u->pc, (uint16_t)(u->psv & t->mask), PICS_UNIT, 1);
}

/* Follows the k-th active unit's tag through this record's retirement and
 * squash; *resolved 1 when the unit went idle. */
static int resolve(tea_tagger *t, unsigned k, const trace_record *r, const trace_uop *uops, const tea_rob_view *v,
                   int *resolved)
{
    tea_tag_slot *s = &t->slots[t->active[k]];
    uint64_t point = s->point;

    /* The followed entry is still in the window: the tagger sees every
     * record while a tag is in flight. */
    assert(s->state == TEA_TAG_IN_FLIGHT && s->tag >= v->head && s->tag < v->tail);
    *resolved = 0;
    if (s->tag >= v->head && s->tag < v->head + r->retire) {
        unsigned offset = (unsigned)(s->tag - v->head), n = trace_record_uops(r);
        *resolved = 1;
        deactivate(t, k);
        for (unsigned i = 0; i < n; i++) {
            if (uops[i].offset != offset)
                continue;
            if (i < r->n_commit)
                return sample(t, &uops[i], point);
            t->lost[PICS_LOST_EXCEPTION]++;
            return TEA_OK;
        }
        t->lost[PICS_LOST_EMPTY]++;
    } else if (r->squash && s->tag + r->squash >= v->tail && s->tag < v->tail) {
        *resolved = 1;
        deactivate(t, k);
        t->lost[PICS_LOST_SQUASHED]++;
    }
    return TEA_OK;
}

/* An armed unit picks an entry of this record's row (`first` its first). */
static void pick_armed(tea_tagger *t, tea_tag_slot *s, const trace_record *r, const tea_rob_view *v, uint64_t first)
{
    uint64_t before = v->dispatched, after = before + r->dispatch;

    if (t->scheme == PICS_SCHEME_RIS && s->skip >= r->dispatch) {
        s->skip -= r->dispatch;
        return;
    }
    s->tag = first + (t->scheme == PICS_SCHEME_RIS ? s->skip : 0);
    s->state = TEA_TAG_IN_FLIGHT;
    assert(s->tag < first + r->dispatch); /* an entry of this record's row */
    if (t->scheme != PICS_SCHEME_SPE || s->counting)
        return;
    /* SPE's first sample came from a cycle point; from here on the unit
     * counts entries, starting with the one just tagged. */
    s->counting = 1;
    s->cycles.next = s->lead = TEA_SCHEDULE_NEVER;
    sift_down(t, t->by_point, t->phases, t->heap_pos[s - t->slots], point_key);
    s->rate_cycle = v->origin; /* the first interval: the rate over the whole trace so far */
    s->rate_dispatched = 0;
    spe_next_interval(t, s, before + 1, after, r->cycle);
    push_trigger(t, (unsigned)(s - t->slots));
}

/* The SPE intervals that end in this record's row, earliest trigger
 * first: each samples its entry, or is a collision while its unit's tag
 * is pending. */
static void count_entries(tea_tagger *t, const trace_record *r, const tea_rob_view *v, uint64_t first)
{
    uint64_t before = v->dispatched, after = before + r->dispatch;

    while (t->triggers && t->slots[t->by_trigger[0]].trigger <= after) {
        tea_tag_slot *s = &t->slots[t->by_trigger[0]];
        if (s->state == TEA_TAG_IDLE) {
            assert(s->trigger > before); /* an entry of this record's row */
            activate(t, s, TEA_TAG_IN_FLIGHT);
            s->tag = first + (s->trigger - before - 1);
            s->point = r->cycle;
        } else {
            t->lost[PICS_LOST_BUSY]++; /* collision */
        }
        spe_next_interval(t, s, s->window_end, after, r->cycle);
        sift_down(t, t->by_trigger, t->triggers, 0, trigger_key);
    }
}

/* Picks entries from this record's dispatch: every armed unit, then the
 * SPE intervals that end in it (when a trigger is due, or a unit began
 * counting). */
static void pick(tea_tagger *t, const trace_record *r, const tea_rob_view *v)
{
    uint64_t first = v->tail - r->squash; /* the row lands here */
    int began = 0;

    for (unsigned k = 0; k < t->active_count; k++) {
        tea_tag_slot *s = &t->slots[t->active[k]];
        if (s->state != TEA_TAG_ARMED)
            continue;
        began |= t->scheme == PICS_SCHEME_SPE && !s->counting;
        pick_armed(t, s, r, v, first);
    }
    if (t->scheme == PICS_SCHEME_SPE && (began || v->dispatched + r->dispatch >= t->next_trigger))
        count_entries(t, r, v, first);
}

/* Each unit's cycle sample points up to this record's cycle, earliest
 * unit first: the first arms an idle unit, the others (and all while its
 * tag is pending) are lost as busy. */
static void take_points(tea_tagger *t, const trace_record *r)
{
    while (point_key(t, t->by_point[0]) <= r->cycle) {
        tea_tag_slot *s = &t->slots[t->by_point[0]];
        uint64_t first = point_key(t, t->by_point[0]); /* the earliest point taken */
        uint64_t points = (s->lead <= r->cycle) + tea_schedule_take(&s->cycles, r->cycle);
        if (s->lead <= r->cycle)
            s->lead = TEA_SCHEDULE_NEVER;
        assert(points >= 1 && !s->counting); /* a due unit not counting (a counting one's key is NEVER) */
        if (s->state == TEA_TAG_IDLE) {
            arm(t, s);
            s->point = first;
            points--;
        }
        t->lost[PICS_LOST_BUSY] += points;
        sift_down(t, t->by_point, t->phases, 0, point_key);
    }
}

int tea_tagger_record(tea_tagger *t, const trace_record *r, const trace_uop *uops, const tea_rob_view *v)
{
    int rc = TEA_OK;

    if (r->cycle >= t->next_point)
        take_points(t, r);
    for (unsigned k = 0; k < t->active_count;) {
        int resolved;
        if (t->slots[t->active[k]].state != TEA_TAG_IN_FLIGHT) {
            k++;
            continue;
        }
        if ((rc = resolve(t, k, r, uops, v, &resolved)))
            return rc;
        k += !resolved; /* a resolved unit's place holds the last active one now */
    }
    if (r->dispatch && (t->active_count || v->dispatched + r->dispatch >= t->next_trigger))
        pick(t, r, v);
    refresh(t);
    return TEA_OK;
}

static int compare_points(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

void tea_tagger_finish(tea_tagger *t, uint64_t last_cycle)
{
    t->lost[PICS_LOST_END] += t->active_count;
    while (t->active_count)
        deactivate(t, 0);
    for (unsigned j = 0; j < t->phases; j++) {
        tea_tag_slot *s = &t->slots[j];
        if (s->counting)
            continue;
        t->lost[PICS_LOST_END] += (s->lead <= last_cycle) + tea_schedule_take(&s->cycles, last_cycle);
        if (s->lead <= last_cycle)
            s->lead = TEA_SCHEDULE_NEVER;
    }
    for (unsigned k = t->phases / 2; k-- > 0;) /* the points moved: the heap again */
        sift_down(t, t->by_point, t->phases, k, point_key);
    refresh(t);
    if (t->phases > 1 && t->point_count > 1)
        qsort(t->points, t->point_count, sizeof *t->points, compare_points);
}
