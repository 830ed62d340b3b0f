/*
 * interval.h: 95 % intervals of shares on a sampled trace, from its golden
 * reference's window groups (tea/replay.h, tea_replay_group_windows;
 * docs/semantics.md, "Sampled recordings").
 *
 * Each group of windows is a systematic subsample of the run, so a row's
 * share of a group's cycles is one estimate of its share of the run. The
 * spread of the B groups' estimates gives the interval of the share in the
 * whole PICS: share ± t(0.975, B - 1) × sd / sqrt(B). The groups are viewed
 * like the PICS itself (view.h), so rows of any granularity (instructions,
 * functions, components) get intervals.
 */
#ifndef TEA_VIEW_INTERVAL_H
#define TEA_VIEW_INTERVAL_H

#include "view.h"

#include <stddef.h>

typedef struct view_intervals {
    view *views;          /* one per group, in key order */
    const pics *groups;   /* the group PICS (the caller's) */
    size_t count;         /* groups; 0: no intervals */
} view_intervals;

/* Views the `count` group PICS at granularity `g` by `ranges`, as the
 * report's view is built. count 0 gives an empty set (every half NaN).
 * 0, TEA_ERR_USAGE or TEA_ERR_NOMEM (view_build's). */
int view_intervals_build(view_intervals *iv, const pics *groups, size_t count, pics_granularity g,
                         const trace_symmap *ranges);

/* Half the 95 % interval of the share of the row with `key`: of the whole
 * row (psv < 0), or of its component `psv`. NaN without groups. */
double view_intervals_half(const view_intervals *iv, uint64_t key, int psv);

void view_intervals_free(view_intervals *iv);

#endif
