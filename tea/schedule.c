/*
 * schedule.c: sample-point schedules (see schedule.h).
 */
#include "schedule.h"
#include "common/rng.h"

#include <assert.h>
#include <string.h>

/* The point of window `k`, or TEA_SCHEDULE_NEVER when it lies beyond 2^64. */
static uint64_t point_of(const tea_schedule *s, uint64_t k)
{
    uint64_t u, base;
    switch (s->jitter) {
    case PICS_JITTER_NONE:
        u = s->period;
        break;
    case PICS_JITTER_START:
        u = s->offset;
        break;
    default:
        u = 1 + rng_hash_below(s->seed, s->stream, k, s->period);
        break;
    }
    if (k > (UINT64_MAX - s->origin) / s->period)
        return TEA_SCHEDULE_NEVER;
    base = s->origin + k * s->period;
    return base > UINT64_MAX - u ? TEA_SCHEDULE_NEVER : base + u;
}

void tea_schedule_init(tea_schedule *s, uint64_t origin, uint64_t period, pics_jitter jitter, uint64_t seed,
                       uint64_t stream)
{
    memset(s, 0, sizeof *s); /* a periodic schedule: no list */
    s->origin = origin;
    s->period = period ? period : 1;
    s->jitter = jitter;
    s->seed = seed;
    s->stream = stream;
    s->offset = 1 + rng_hash_below(seed, stream, UINT64_MAX, s->period);
    s->window = 0;
    s->next = point_of(s, 0);
}

void tea_schedule_init_points(tea_schedule *s, const uint64_t *points, uint64_t count)
{
    memset(s, 0, sizeof *s);
    s->period = 1;
    s->listed = 1;
    s->points = points;
    s->point_count = count;
    s->point_index = 0;
    s->next = count ? points[0] : TEA_SCHEDULE_NEVER;
}

/* A list schedule's next point from index `i` on. */
static void list_position(tea_schedule *s, uint64_t i)
{
    s->point_index = i;
    s->next = i < s->point_count ? s->points[i] : TEA_SCHEDULE_NEVER;
}

/* A list schedule's first point after `cycle`, by binary search. */
static void list_skip_past(tea_schedule *s, uint64_t cycle)
{
    uint64_t lo = 0, hi = s->point_count; /* the answer lies in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->points[mid] <= cycle)
            lo = mid + 1;
        else
            hi = mid;
    }
    list_position(s, lo);
}

void tea_schedule_skip_past(tea_schedule *s, uint64_t cycle)
{
    uint64_t k;

    if (s->listed) {
        list_skip_past(s, cycle);
        return;
    }
    /* Window k = (cycle - origin) / P ends at or after `cycle` and the windows
     * before it end at or before it: its point or the next window's is the
     * first one past `cycle`. */
    k = cycle > s->origin ? (cycle - s->origin) / s->period : 0;
    s->window = k;
    s->next = point_of(s, k);
    if (s->next <= cycle) {
        s->window = k + 1;
        s->next = point_of(s, k + 1);
    }
    assert(s->next > cycle || s->next == TEA_SCHEDULE_NEVER);
}

uint64_t tea_schedule_take(tea_schedule *s, uint64_t last)
{
    uint64_t n, k_last;

    if (s->next > last)
        return 0;
    if (s->listed) {
        uint64_t i = s->point_index;
        while (i < s->point_count && s->points[i] <= last)
            i++;
        n = i - s->point_index;
        list_position(s, i);
        return n;
    }
    if (s->jitter != PICS_JITTER_INTERVAL || s->period == 1) {
        /* Points are evenly spaced: count them at once. */
        n = (last - s->next) / s->period + 1;
        s->window += n;
        s->next = point_of(s, s->window);
        assert(s->next > last || s->next == TEA_SCHEDULE_NEVER);
        return n;
    }
    /* One point per window: every window from the next point's up to the
     * one before `last`'s window has its point at or before `last`; the
     * window holding `last` has it when its point is not after `last`. O(1),
     * however long the gap (s->next <= last puts `last` past the origin). */
    k_last = (last - s->origin - 1) / s->period;
    assert(k_last >= s->window);
    n = k_last - s->window + (point_of(s, k_last) <= last);
    s->window += n;
    s->next = point_of(s, s->window);
    assert(s->next > last);
    return n;
}
