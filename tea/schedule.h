/*
 * schedule.h: deterministic sample points in cycles.
 *
 * Internal to tea/: a part of the engine, which replay.h and run.h put
 * together (the tests use it too).
 *
 * Time after the origin (the trace's first record) is cut into periods of P
 * cycles; window k is (origin + kP, origin + (k+1)P] and holds exactly one
 * sample point, origin + kP + u_k with u_k in [1, P]:
 *   none      u_k = P          (points origin + P, origin + 2P, ...)
 *   start     u_k = u          (one seeded offset for the whole trace)
 *   interval  u_k seeded per k (TIP's random-in-interval)
 * Points are a pure function of (origin, P, jitter, seed, stream), computable
 * for any window independently.
 *
 * A schedule may instead be a list of given points (tea_schedule_init_points):
 * the noise floor's TEA at another scheme's sample points. Taking and
 * skipping then walk the sorted list (skipping by binary search). Counting the points up to a cycle is O(1)
 * for every jitter mode (window k's point lies in window k), so a gap of
 * 2^62 idle cycles costs no more than one of ten.
 */
#ifndef TEA_TEA_SCHEDULE_H
#define TEA_TEA_SCHEDULE_H

#include "pics/scheme.h"

#include <stdint.h>

#define TEA_SCHEDULE_NEVER UINT64_MAX

typedef struct tea_schedule {
    uint64_t origin;   /* cycle of the trace's first record */
    uint64_t period;   /* P, cycles (>= 1) */
    pics_jitter jitter;
    uint64_t seed, stream;
    uint64_t offset;   /* start jitter: u */
    uint64_t window;   /* k of the next point */
    uint64_t next;     /* the next point not yet taken (TEA_SCHEDULE_NEVER past the end of time) */
    int listed;              /* a list schedule (below), else a periodic one */
    const uint64_t *points;  /* a list schedule's points (cycles, non-decreasing; the caller's), */
    uint64_t point_count;    /* how many, */
    uint64_t point_index;    /* and the index of `next` in them */
    /* Weighted windows (tea_schedule_set_windows); win_ends NULL: none. */
    const uint64_t *win_ends;    /* each window's last cycle, increasing (the caller's) */
    const uint64_t *win_weights; /* the periods of the run each window stands for, >= 1 */
    uint64_t win_count;
    uint64_t win;                /* the window `next` lies in */
    uint64_t win_origin;         /* ... the cycle before its first */
    uint64_t vnext;              /* ... and its next point in virtual time (schedule.c) */
    uint64_t first_origin;       /* the trace's origin: window 0's */
    uint64_t base_period;        /* the period of a window of weight 1 */
    uint64_t base_stream;
} tea_schedule;

/* Positions the schedule at its first point. */
void tea_schedule_init(tea_schedule *s, uint64_t origin, uint64_t period, pics_jitter jitter, uint64_t seed,
                       uint64_t stream);

/* A schedule of exactly the `count` given cycles (non-decreasing; a cycle
 * given twice is two points), positioned at the first. `points` must
 * outlive the schedule and its copies. */
void tea_schedule_init_points(tea_schedule *s, const uint64_t *points, uint64_t count);

/* Weighted windows (a SimPoint recording, docs/semantics.md "Sampled
 * recordings"): window k (cycles after ends[k - 1] up to ends[k], the
 * first from the origin, the last without end) gets its own points, laid
 * from the window's start with its own random stream, weights[k] / P of
 * them per cycle (P the schedule's period; several in one cycle when P <
 * weights[k]): a window standing for w periods of the run is sampled as w
 * copies of it at period P would be, without rounding P / w. `ends` and
 * `weights` (count >= 1) must outlive the schedule; a periodic schedule
 * only, positioned at its first point. */
void tea_schedule_set_windows(tea_schedule *s, const uint64_t *ends, const uint64_t *weights, uint64_t count);

/* The mean cycles between points around `cycle`: P / weights[k] in window
 * k under tea_schedule_set_windows, else the period. */
double tea_schedule_period_at(const tea_schedule *s, uint64_t cycle);

/* Positions the schedule at its first point after `cycle`, as if every
 * point up to `cycle` had been taken (whatever was taken before). O(1). */
void tea_schedule_skip_past(tea_schedule *s, uint64_t cycle);

/* Takes every point at or before `last` and returns how many there were. */
uint64_t tea_schedule_take(tea_schedule *s, uint64_t last);

#endif
