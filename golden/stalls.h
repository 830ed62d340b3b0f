/*
 * stalls.h: how long µops hold up commit, by event (docs/topdown.md).
 *
 * A µop's stall is the number of cycles the golden reference charges to it
 * while it is the next µop to commit and nothing commits: the part
 * [refill, cycle) of the interval its commit (or exception) closes, plus an
 * exception's own cycle when nothing commits in it. That is its Stalled and
 * Drained cycles; flush windows are not stalls (they belong to the flush
 * cause). Only the first µop of a commit group can stall; µops with a stall
 * of zero cycles are counted but not part of the stall distribution.
 *
 * Stalls are grouped: µops without events (`base`), µops with any event, and
 * one group per event (a µop with several events is in each). Each group
 * keeps an exact histogram of the stall lengths up to a limit, the number of
 * longer stalls, the longest stall and the sum, so memory is constant in the
 * trace's length and percentiles are exact up to the limit.
 */
#ifndef TEA_GOLDEN_STALLS_H
#define TEA_GOLDEN_STALLS_H

#include "golden/golden.h"
#include "trace/psv.h"

#include <stdint.h>

/* The groups: base, any event, then one per event (GOLDEN_STALLS_EVENT(e)). */
enum {
    GOLDEN_STALLS_BASE = 0,
    GOLDEN_STALLS_ANY_EVENT = 1,
    GOLDEN_STALLS_FIRST_EVENT = 2,
    GOLDEN_STALLS_GROUP_COUNT = GOLDEN_STALLS_FIRST_EVENT + TRACE_PSV_EVENT_COUNT
};
#define GOLDEN_STALLS_EVENT(e) (GOLDEN_STALLS_FIRST_EVENT + (int)(e))

/* Default and largest histogram limits (cycles). */
#define GOLDEN_STALLS_DEFAULT_MAX_LENGTH 16384u
#define GOLDEN_STALLS_MAX_MAX_LENGTH (1u << 20)

/* One group's distribution. */
typedef struct golden_stalls_group {
    uint64_t uops;        /* µops of the group that committed or excepted */
    uint64_t stalls;      /* of them, those with a stall of at least one cycle */
    uint64_t cycles;      /* the stalls' lengths summed (cycles) */
    uint64_t longest;     /* the longest stall (cycles) */
    uint64_t overflow;    /* stalls longer than the histogram's limit */
    uint64_t *histogram;  /* [0..max_length]: stalls of each length (index 0 unused) */
} golden_stalls_group;

typedef struct golden_stalls {
    uint64_t max_length;                  /* longest length kept exactly (cycles) */
    golden_stalls_group groups[GOLDEN_STALLS_GROUP_COUNT];
} golden_stalls;

/* "base", "any-event", or the event's name ("ST-L1", ...). */
const char *golden_stalls_group_name(int group);

/* Prepares an empty distribution whose histograms keep lengths up to
 * `max_length` cycles exactly. Errors: TEA_ERR_USAGE (max_length 0 or above
 * GOLDEN_STALLS_MAX_MAX_LENGTH), TEA_ERR_NOMEM. */
int golden_stalls_init(golden_stalls *s, uint64_t max_length);

/* Adds the µops of one golden interval (the trailing flush window of
 * golden_finish, which has no µops, adds nothing). */
void golden_stalls_add(golden_stalls *s, const golden_interval *iv);

/* A golden sink that calls golden_stalls_add. */
golden_sink golden_stalls_sink(golden_stalls *s);

/* What golden_stalls_percentile found. */
typedef enum golden_stalls_percentile_kind {
    GOLDEN_STALLS_PERCENTILE_EXACT = 0, /* *length is the percentile */
    GOLDEN_STALLS_PERCENTILE_BEYOND,    /* it lies beyond the histogram: *length is max_length + 1,
                                           a lower bound */
    GOLDEN_STALLS_PERCENTILE_EMPTY      /* the group has no stall: *length is 0 */
} golden_stalls_percentile_kind;

/* The nearest-rank percentile num/den (0 < num/den <= 1) of a group's
 * stalls: the smallest length L such that at least ceil(stalls * num / den)
 * stalls last L cycles or less, in *length, with *kind saying whether it is
 * exact (a percentile beyond the histogram that is the longest stall is
 * known exactly). Returns 0, or TEA_ERR_USAGE (message set; *length = 0,
 * *kind EMPTY) for a bad group or a bad fraction. */
int golden_stalls_percentile(const golden_stalls *s, int group, uint64_t num, uint64_t den, uint64_t *length,
                             golden_stalls_percentile_kind *kind);

/* Frees the histograms. Safe on a zeroed struct. */
void golden_stalls_free(golden_stalls *s);

#endif
