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

int tea_tagger_init(tea_tagger *t, pics_scheme scheme, uint64_t period, pics_jitter jitter, uint64_t seed,
                    uint16_t mask, uint64_t origin)
{
    memset(t, 0, sizeof *t);
    t->scheme = scheme;
    t->mask = mask;
    t->period = period;
    t->jitter = jitter;
    t->seed = seed;
    /* All schemes at one period share the cycle points: paired comparisons. */
    tea_schedule_init(&t->cycles, origin, period, jitter, seed, period);
    t->lfsr = (uint16_t)(rng_hash64(seed, RIS_STREAM ^ period, 0) | 1u);
    t->target = &t->pics;
    return pics_init(&t->pics);
}

void tea_tagger_free(tea_tagger *t)
{
    pics_free(&t->pics);
    free(t->points);
    t->points = NULL;
    t->point_count = t->point_capacity = 0;
}

/* A new tag is armed at a cycle sample point. */
static void arm(tea_tagger *t)
{
    assert(t->state == TEA_TAG_IDLE); /* one tag at a time */
    t->state = TEA_TAG_ARMED;
    if (t->scheme == PICS_SCHEME_RIS) {
        t->lfsr = (uint16_t)((t->lfsr >> 1) ^ (-(unsigned)(t->lfsr & 1u) & RIS_LFSR_TAPS));
        t->skip = t->lfsr & RIS_SKIP_MASK;
    }
}

/* Starts SPE's next interval after ordinal `start`, sized to the dispatch
 * rate since the last interval was sized (`dispatched` entries by cycle
 * `cycle`), so that SPE samples about once per period. */
static void spe_next_interval(tea_tagger *t, uint64_t start, uint64_t dispatched, uint64_t cycle)
{
    double size;
    uint64_t interval, u;

    if (cycle > t->rate_cycle && dispatched > t->rate_dispatched)
        t->rate = (double)(dispatched - t->rate_dispatched) / (double)(cycle - t->rate_cycle);
    else if (t->rate <= 0)
        t->rate = 1.0;
    t->rate_cycle = cycle;
    t->rate_dispatched = dispatched;
    /* the period of the weighted window sized in (tea_schedule_set_windows), else t->period */
    size = floor((double)tea_schedule_period_at(&t->cycles, cycle) * t->rate + 0.5);
    interval = size < 1.0 ? 1 : size > 1e18 ? (uint64_t)1e18 : (uint64_t)size;
    switch (t->jitter) {
    case PICS_JITTER_NONE:
        u = interval;
        break;
    case PICS_JITTER_START: {
        /* a fixed fraction of every interval */
        double f = (double)(rng_hash64(t->seed, SPE_STREAM ^ t->period, UINT64_MAX) >> 11) * 0x1.0p-53;
        u = 1 + (uint64_t)(f * (double)interval);
        if (u > interval)
            u = interval;
        break;
    }
    default:
        u = 1 + rng_hash_below(t->seed, SPE_STREAM ^ t->period, t->interval_index, interval);
        break;
    }
    t->interval_index++;
    t->trigger = start + u;
    t->window_end = start + interval;
    assert(u >= 1 && u <= interval); /* the sample falls inside its interval */
}

/* Keeps the point of a sample taken (the noise floor's). */
static int keep_point(tea_tagger *t)
{
    if (t->point_count == t->point_capacity) {
        uint64_t capacity = t->point_capacity ? 2 * t->point_capacity : 1024;
        uint64_t *grown = capacity <= SIZE_MAX / sizeof *grown ? realloc(t->points, capacity * sizeof *grown) : NULL;
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        t->points = grown;
        t->point_capacity = capacity;
    }
    /* one tag at a time, each armed after the last resolved */
    assert(t->point_count == 0 || t->points[t->point_count - 1] <= t->point);
    t->points[t->point_count++] = t->point;
    return TEA_OK;
}

/* Records a sample for a committed µop. */
static int sample(tea_tagger *t, const trace_uop *u)
{
    int rc;
    t->samples++;
    if (t->keep_points && (rc = keep_point(t)))
        return rc;
    return pics_add(t->target, u->pc, (uint16_t)(u->psv & t->mask), PICS_UNIT, 1);
}

/* Follows the tag through this record's retirement and squash. */
static int resolve(tea_tagger *t, const trace_record *r, const trace_uop *uops, const tea_rob_view *v)
{
    /* The followed entry is still in the window: the tagger sees every
     * record while a tag is in flight. */
    assert(t->state == TEA_TAG_IN_FLIGHT && t->tag >= v->head && t->tag < v->tail);
    if (t->tag >= v->head && t->tag < v->head + r->retire) {
        unsigned offset = (unsigned)(t->tag - v->head), n = trace_record_uops(r);
        t->state = TEA_TAG_IDLE;
        for (unsigned i = 0; i < n; i++) {
            if (uops[i].offset != offset)
                continue;
            if (i < r->n_commit)
                return sample(t, &uops[i]);
            t->lost[PICS_LOST_EXCEPTION]++;
            return TEA_OK;
        }
        t->lost[PICS_LOST_EMPTY]++;
    } else if (r->squash && t->tag + r->squash >= v->tail && t->tag < v->tail) {
        t->state = TEA_TAG_IDLE;
        t->lost[PICS_LOST_SQUASHED]++;
    }
    return TEA_OK;
}

/* Picks an entry from this record's dispatch when armed or counting. */
static void pick(tea_tagger *t, const trace_record *r, const tea_rob_view *v)
{
    uint64_t first = v->tail - r->squash; /* the row lands here */
    uint64_t before = v->dispatched, after = before + r->dispatch;

    if (t->state == TEA_TAG_ARMED) {
        if (t->scheme == PICS_SCHEME_RIS && t->skip >= r->dispatch) {
            t->skip -= r->dispatch;
            return;
        }
        t->tag = first + (t->scheme == PICS_SCHEME_RIS ? t->skip : 0);
        t->state = TEA_TAG_IN_FLIGHT;
        assert(t->tag < first + r->dispatch); /* an entry of this record's row */
        if (t->scheme != PICS_SCHEME_SPE || t->counting)
            return;
        /* SPE's first sample came from a cycle point; from here on it counts
         * entries, starting with the one just tagged. */
        t->counting = 1;
        t->cycles.next = TEA_SCHEDULE_NEVER;
        t->rate_cycle = v->origin; /* the first interval: the rate over the whole trace so far */
        t->rate_dispatched = 0;
        spe_next_interval(t, before + 1, after, r->cycle);
    }
    while (t->counting && t->trigger <= after) {
        if (t->state == TEA_TAG_IDLE) {
            assert(t->trigger > before); /* an entry of this record's row */
            t->tag = first + (t->trigger - before - 1);
            t->point = r->cycle;
            t->state = TEA_TAG_IN_FLIGHT;
        } else {
            t->lost[PICS_LOST_BUSY]++; /* collision */
        }
        spe_next_interval(t, t->window_end, after, r->cycle);
    }
}

int tea_tagger_record(tea_tagger *t, const trace_record *r, const trace_uop *uops, const tea_rob_view *v)
{
    int rc = TEA_OK;

    if (!t->counting) {
        uint64_t first = t->cycles.next; /* the earliest point taken, which arms an idle tagger */
        uint64_t points = tea_schedule_take(&t->cycles, r->cycle);
        if (points) {
            if (t->state == TEA_TAG_IDLE) {
                arm(t);
                t->point = first;
                points--;
            }
            t->lost[PICS_LOST_BUSY] += points;
        }
    }
    if (t->state == TEA_TAG_IN_FLIGHT && (rc = resolve(t, r, uops, v)))
        return rc;
    if (r->dispatch && (t->state == TEA_TAG_ARMED || t->counting))
        pick(t, r, v);
    return TEA_OK;
}

void tea_tagger_finish(tea_tagger *t, uint64_t last_cycle)
{
    if (t->state != TEA_TAG_IDLE)
        t->lost[PICS_LOST_END]++;
    t->state = TEA_TAG_IDLE;
    if (!t->counting)
        t->lost[PICS_LOST_END] += tea_schedule_take(&t->cycles, last_cycle);
}
