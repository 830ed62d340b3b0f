/*
 * tagger.h: the tagging samplers (IBS, SPE, RIS) as one mechanism.
 *
 * Internal to tea/: a part of the engine, which replay.h and run.h put
 * together (the tests use it too).
 *
 * A tagging unit picks a ROB entry when it is dispatched and follows it:
 * if its µop commits, the sample (weight one) goes to that µop with the PSV
 * masked to the unit's events; if it is squashed, excepts, or the entry held
 * no µop, the sample is lost. One tag is in flight at a time. The schemes
 * differ only in how they pick:
 *
 *   IBS  at each cycle sample point, the next dispatched entry (the first of
 *        the next dispatched row); points while a tag is armed or in flight
 *        are lost as "busy".
 *   RIS  at each cycle sample point, a seeded 16-bit LFSR draws how many
 *        dispatched entries to skip (0-15) before marking one; points while a
 *        mark is pending are lost as "busy".
 *   SPE  counts dispatched entries (wrong path included) and samples one per
 *        interval of I entries, at a jittered position; an interval that
 *        expires while a sample is in flight is a collision ("busy"). I is
 *        chosen so that SPE samples about once every P cycles, like the
 *        cycle-based schemes: I = P x the dispatch rate (entries per cycle)
 *        seen over the previous interval (over the whole trace so far for
 *        the first one). The first sample is taken at the first cycle sample
 *        point, like IBS.
 *
 * Phases. A unit follows one tag at a time: a sample point that finds its
 * tag still in flight is lost ("busy"). On a sampled recording the trace
 * holds 1/r of the run's cycles (r = every / length), so a scheme that
 * takes as many samples as on the whole run samples the trace r times as
 * often, and a unit would find its own tag of P/r cycles ago in flight
 * far more often than on the run, where that tag is P cycles old. With
 * `phases` m > 1 the tagger is m units pooled, each with its own tag and
 * its own points at m times the trace's period, the run's (unit j's grid
 * of periods offset by j periods of the trace, the period that straddles
 * the trace's origin included, so that each unit takes its share of the
 * points however short the trace; the jitter and
 * the SPE intervals are the run's, drawn and sized per unit), so that each unit
 * finds its own last tag as old as on the run. With m = 1 (every whole
 * trace) it is the one unit.
 *
 * With keep_points, each sample keeps the cycle it stands for (`points`):
 * the cycle sample point that armed its tag, or for SPE's counted samples
 * the cycle its entry was dispatched. The noise floor (docs/semantics.md)
 * charges the golden reference's attribution of exactly those cycles.
 *
 * Entries are identified by absolute entry numbers (tea_rob_view); see
 * docs/semantics.md for why sampling entries rather than µops is exact for
 * the schemes' statistics on row-based ROBs.
 */
#ifndef TEA_TEA_TAGGER_H
#define TEA_TEA_TAGGER_H

#include "pics/lost.h"
#include "schedule.h"
#include "pics/scheme.h"
#include "pics/pics.h"
#include "trace/record.h"

#include <stdint.h>

/* The ROB window before a record, in absolute entry numbers. */
typedef struct tea_rob_view {
    uint64_t head;        /* oldest entry */
    uint64_t tail;        /* next entry to be allocated */
    uint64_t dispatched;  /* entries dispatched since the trace began */
    uint64_t origin;      /* cycle of the trace's first record */
} tea_rob_view;

enum tea_tag_state {
    TEA_TAG_IDLE = 0,
    TEA_TAG_ARMED,       /* waiting for the entry to pick */
    TEA_TAG_IN_FLIGHT    /* following entry `tag` */
};

/* One unit of the tagger (a phase): its sample points and its tag. */
typedef struct tea_tag_slot {
    int state;                 /* enum tea_tag_state */
    uint64_t tag;              /* IN_FLIGHT: the followed entry */
    uint64_t point;            /* ARMED, IN_FLIGHT: the cycle the tag stands for (its sample point;
                                  SPE counting: the cycle its entry was dispatched) */
    unsigned skip;             /* RIS: entries still to skip while armed */
    tea_schedule cycles;       /* the unit's cycle sample points (IBS, RIS; SPE's first) */
    uint64_t lead;             /* the point of the unit's period that straddles the origin, before
                                  `cycles`' first (NEVER: none, or taken) */
    uint64_t stream;           /* the unit's random streams' key: its period, mixed with j past unit 0 */
    int counting;              /* SPE: now triggered by dispatched entries */
    uint64_t trigger;          /* SPE: ordinal of the dispatched entry to sample */
    uint64_t window_end;       /* SPE: ordinal ending the current interval */
    uint64_t interval_index;   /* SPE: intervals begun, for the jitter stream */
    uint64_t rate_cycle;       /* SPE: cycle and dispatched-entry count when the unit's */
    uint64_t rate_dispatched;  /*      interval was last sized */
    double rate;               /* SPE: entries per cycle used for its last interval */
} tea_tag_slot;

/* Most phases a tagger takes. */
#define TEA_TAGGER_PHASES_MAX 65536

typedef struct tea_tagger {
    pics_scheme scheme;         /* IBS, SPE or RIS */
    uint16_t mask;             /* PSV bits reported */
    uint64_t period;           /* P, cycles: between the points of all units together */
    uint64_t unit_period;      /* each unit's period (P with one unit) */
    pics_jitter jitter;
    uint64_t seed;
    uint16_t lfsr;             /* RIS: state of the skip generator */
    unsigned phases;           /* units (1: one tag at a time, the paper's) */
    tea_tag_slot *slots;       /* [phases] */
    unsigned *active;          /* the units whose tag is armed or in flight, [active_count] */
    unsigned active_count;
    unsigned *by_point;        /* the units by their next cycle point, a binary min-heap of [phases] */
    unsigned *by_trigger;      /* SPE: the counting units by their trigger, a min-heap of [triggers] */
    unsigned *heap_pos;        /* each unit's place in by_point */
    unsigned triggers;         /* counting units */
    uint64_t next_point;       /* the earliest next cycle point of a unit not counting (NEVER: none) */
    uint64_t next_trigger;     /* the earliest trigger of a counting unit (NEVER: none) */
    int keep_points;           /* keep `points` (set after init; a noise floor needs them) */
    uint64_t *points;          /* the point of every sample taken, in order (cycles, non-decreasing): */
    uint64_t point_count;      /* where the noise floor samples the golden reference */
    uint64_t point_capacity;
    pics pics;                 /* raw sample weights */
    pics *target;              /* where samples go: &pics, or the current window group's PICS
                                  (tea_replay_group_windows; summed into pics at the end) */
    uint64_t samples;
    uint64_t lost[PICS_LOST_REASONS];
} tea_tagger;

/* Sets up a tagger for trace origin `origin` sampling every `period`
 * cycles: one unit, or `phases` (2 to TEA_TAGGER_PHASES_MAX) each every
 * `unit_period` cycles (0: phases x period), unit j's periods starting
 * floor(j x unit_period / phases) cycles after the origin. 0 or
 * TEA_ERR_NOMEM. */
int tea_tagger_init(tea_tagger *t, pics_scheme scheme, uint64_t period, pics_jitter jitter, uint64_t seed,
                    uint16_t mask, uint64_t origin, unsigned phases, uint64_t unit_period);

/* Weighted windows (tea_schedule_set_windows) for a tagger of one unit. */
void tea_tagger_set_windows(tea_tagger *t, const uint64_t *ends, const uint64_t *weights, uint64_t count);

void tea_tagger_free(tea_tagger *t);

/* The earliest cycle at which the tagger must see a record (0: every record). */
static inline uint64_t tea_tagger_wake_cycle(const tea_tagger *t)
{
    return t->active_count ? 0 : t->next_point;
}

/* The dispatched-entry ordinal at which the tagger must see a record
 * (TEA_SCHEDULE_NEVER when it does not count entries). */
static inline uint64_t tea_tagger_wake_entry(const tea_tagger *t)
{
    return t->next_trigger;
}

/* Processes one record (any record is allowed; skipping records is allowed
 * only while neither wake condition holds). `v` is the window before it.
 * Returns 0 or TEA_ERR_NOMEM. */
int tea_tagger_record(tea_tagger *t, const trace_record *r, const trace_uop *uops, const tea_rob_view *v);

/* Ends the trace at `last_cycle`: pending tags and the remaining sample
 * points are lost ("end"); with several phases the kept points are put in
 * order. */
void tea_tagger_finish(tea_tagger *t, uint64_t last_cycle);

#endif
