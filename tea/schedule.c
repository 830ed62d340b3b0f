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

/* Weighted windows run the periodic schedule on a virtual timeline that
 * goes w times as fast as the cycles of a window of weight w: virtual time
 * v = (cycle - window origin) * w, points every `base_period` of it, and
 * virtual point v lands in cycle origin + ceil(v / w). A window so gets w /
 * P points per cycle (several in one cycle when P < w), exactly the
 * density of w copies of it each sampled at period P, with no rounding of
 * the period. The schedule's own fields (origin 0, period P, window,
 * offset) describe the virtual schedule; `vnext` is its next point and
 * `next` that point's cycle. */

/* The cycle of virtual point v of the current window. */
static uint64_t cycle_of(const tea_schedule *s, uint64_t v)
{
    uint64_t w = s->win_weights[s->win], q;
    if (v == TEA_SCHEDULE_NEVER)
        return TEA_SCHEDULE_NEVER;
    q = v / w + (v % w != 0);
    return q > TEA_SCHEDULE_NEVER - 1 - s->win_origin ? TEA_SCHEDULE_NEVER : s->win_origin + q;
}

/* The virtual time of `cycle` in the current window (0 before it; below
 * TEA_SCHEDULE_NEVER however far). */
static uint64_t virtual_of(const tea_schedule *s, uint64_t cycle)
{
    uint64_t w = s->win_weights[s->win], d = cycle > s->win_origin ? cycle - s->win_origin : 0;
    return d > (TEA_SCHEDULE_NEVER - 1) / w ? TEA_SCHEDULE_NEVER - 1 : d * w;
}

/* Moves a weighted schedule to window k, whose cycles follow `origin`,
 * positioned at its first point. */
static void enter_window(tea_schedule *s, uint64_t k, uint64_t origin)
{
    s->win = k;
    s->win_origin = origin;
    s->origin = 0;
    s->period = s->base_period;
    s->stream = s->base_stream ^ k * 0x9E3779B97F4A7C15ull; /* window 0 keeps the schedule's stream */
    s->offset = 1 + rng_hash_below(s->seed, s->stream, UINT64_MAX, s->period);
    s->window = 0;
    s->vnext = point_of(s, 0);
    s->next = cycle_of(s, s->vnext);
}

/* The last cycle of the current weighted window (the last has no end). */
static uint64_t window_last(const tea_schedule *s)
{
    return s->win + 1 < s->win_count ? s->win_ends[s->win] : UINT64_MAX;
}

/* Moves on through the weighted windows whose points are all past. */
static void settle(tea_schedule *s)
{
    while (s->next > window_last(s) && s->win + 1 < s->win_count)
        enter_window(s, s->win + 1, s->win_ends[s->win]);
}

/* The weighted window of `cycle`: the first whose end is at or after it,
 * or the last. */
static uint64_t window_of(const tea_schedule *s, uint64_t cycle)
{
    uint64_t lo = 0, hi = s->win_count - 1; /* the answer lies in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->win_ends[mid] < cycle)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tea_schedule_set_windows(tea_schedule *s, const uint64_t *ends, const uint64_t *weights, uint64_t count)
{
    assert(!s->listed && count >= 1);
    s->win_ends = ends;
    s->win_weights = weights;
    s->win_count = count;
    s->first_origin = s->origin;
    s->base_period = s->period;
    s->base_stream = s->stream;
    enter_window(s, 0, s->first_origin);
    settle(s);
}

double tea_schedule_period_at(const tea_schedule *s, uint64_t cycle)
{
    return s->win_ends ? (double)s->base_period / (double)s->win_weights[window_of(s, cycle)] : (double)s->period;
}

/* Positions a periodic schedule (of the current window, when weighted)
 * at its first point after `cycle`. */
static void skip_within(tea_schedule *s, uint64_t cycle)
{
    uint64_t k;
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

void tea_schedule_skip_past(tea_schedule *s, uint64_t cycle)
{
    if (s->listed) {
        list_skip_past(s, cycle);
        return;
    }
    if (!s->win_ends) {
        skip_within(s, cycle);
        return;
    }
    {
        uint64_t k = window_of(s, cycle);
        enter_window(s, k, k ? s->win_ends[k - 1] : s->first_origin);
    }
    s->next = s->vnext;
    skip_within(s, virtual_of(s, cycle));
    s->vnext = s->next;
    s->next = cycle_of(s, s->vnext);
    settle(s);
}

/* Takes the points of a periodic schedule (of the current window, when
 * weighted) at or before `last`. */
static uint64_t take_within(tea_schedule *s, uint64_t last)
{
    uint64_t n, k_last;

    if (s->next > last)
        return 0;
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

/* Takes the current weighted window's points at or before cycle `last`:
 * its virtual points up to last's virtual time (ceil(v / w) <= d exactly
 * when v <= d * w). */
static uint64_t take_window(tea_schedule *s, uint64_t last)
{
    uint64_t n;
    s->next = s->vnext;
    n = take_within(s, virtual_of(s, last));
    s->vnext = s->next;
    s->next = cycle_of(s, s->vnext);
    return n;
}

uint64_t tea_schedule_take(tea_schedule *s, uint64_t last)
{
    uint64_t n = 0;

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
    if (!s->win_ends)
        return take_within(s, last);
    /* Weighted windows: each window's points up to its end, then the next;
     * `next` always in the window it lies in (the replay wakes on it). */
    while (last > window_last(s)) {
        n += take_window(s, window_last(s));
        settle(s);
    }
    n += take_window(s, last);
    settle(s);
    return n;
}
