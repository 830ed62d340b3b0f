/*
 * psv.h: the nine-event performance signature vector (PSV).
 *
 * A PSV is a 9-bit value; bit i is set when the µop was subject to event i.
 * The bit order is fixed by the TEA paper and docs/semantics.md and is part of
 * every file format of the project.
 */
#ifndef TEA_TRACE_PSV_H
#define TEA_TRACE_PSV_H

#include <stddef.h>
#include <stdint.h>

enum trace_psv_event {
    TRACE_PSV_ST_L1 = 0,  /* Stalled: load missed in the L1 data cache */
    TRACE_PSV_ST_TLB = 1, /* Stalled: missed in the L1 data TLB */
    TRACE_PSV_ST_LLC = 2, /* Stalled: load missed in the last-level cache */
    TRACE_PSV_DR_L1 = 3,  /* Drained: fetch missed in the L1 instruction cache */
    TRACE_PSV_DR_TLB = 4, /* Drained: fetch missed in the L1 instruction TLB */
    TRACE_PSV_DR_SQ = 5,  /* Drained: dispatch held by a full load/store queue */
    TRACE_PSV_FL_MB = 6,  /* Flushed: mispredicted branch */
    TRACE_PSV_FL_EX = 7,  /* Flushed: exception or flush-on-commit */
    TRACE_PSV_FL_MO = 8,  /* Flushed: re-fetched after a memory-ordering violation */
    TRACE_PSV_EVENT_COUNT = 9
};

/* The three event families, each of three consecutive bits in the order
 * above: stalls (ST-*), drains (DR-*) and flushes (FL-*). */
enum trace_psv_family {
    TRACE_PSV_FAMILY_STALL = 0,
    TRACE_PSV_FAMILY_DRAIN = 1,
    TRACE_PSV_FAMILY_FLUSH = 2,
    TRACE_PSV_FAMILY_COUNT = 3
};
#define TRACE_PSV_FAMILY_EVENTS 3

/* The family's three bits of `psv` as a number 0-7, its first event the
 * lowest bit (ST-L1, DR-L1 or FL-MB). */
unsigned trace_psv_family_bits(uint16_t psv, enum trace_psv_family family);

/* Number of distinct PSV values (2^9). */
#define TRACE_PSV_VALUES 512u
/* All nine event bits. */
#define TRACE_PSV_MASK_ALL 0x1FFu
/* The events whose µop flushes the pipeline (the paper's "flush causes"). */
#define TRACE_PSV_FLUSH_CAUSE_MASK ((1u << TRACE_PSV_FL_MB) | (1u << TRACE_PSV_FL_EX))

/* Longest component label: all nine names joined by commas, plus NUL. */
#define TRACE_PSV_LABEL_MAX 64

/* The event's name as used in labels and files, e.g. "ST-LLC". */
const char *trace_psv_event_name(enum trace_psv_event event);

/* Writes the component label of `psv` ("base" for 0, else the names of the set
 * bits in bit order joined by commas) into `buf` (TRACE_PSV_LABEL_MAX bytes suffice)
 * and returns `buf`. Bits above the ninth are ignored. */
char *trace_psv_label(uint16_t psv, char *buf, size_t size);

/* Parses an event name (case-sensitive, as trace_psv_event_name prints it) and
 * returns its bit index, or -1 when the name is unknown. */
int trace_psv_event_from_name(const char *name, size_t len);

/* Parses a label as written by trace_psv_label (also accepting a decimal 0-511) into
 * *psv. Returns 0, or TEA_ERR_USAGE with a message naming the bad part. */
int trace_psv_parse_label(const char *label, uint16_t *psv);

/* Event counts of many µops kept in one word, for adding up events without
 * a loop over each PSV's bits (a branch on a random count) and without a
 * counter in memory per event (a chain of stores and loads when µop after
 * µop has the same PSV): lane e, TRACE_PSV_LANE_BITS bits from bit
 * e * TRACE_PSV_LANE_BITS, counts event e, for up to TRACE_PSV_LANE_MAX
 * µops. */
#define TRACE_PSV_LANE_BITS 7
#define TRACE_PSV_LANE_MAX ((1u << TRACE_PSV_LANE_BITS) - 1)
_Static_assert(TRACE_PSV_EVENT_COUNT *TRACE_PSV_LANE_BITS <= 64, "the lanes fit a word");

/* A PSV's events as one count in each lane: bit e moved to lane e. */
extern const uint64_t trace_psv_lane_table[TRACE_PSV_VALUES];

/* µops' events on their way to a totals' event counts (zero-initialize). */
typedef struct trace_psv_counter {
    uint64_t lanes; /* the events of `uops` µops, in lanes */
    unsigned uops;  /* below TRACE_PSV_LANE_MAX */
} trace_psv_counter;

/* Adds the counts in `lanes` (a trace_psv_counter's) to events[]. */
void trace_psv_lanes_add(uint64_t lanes, uint64_t events[TRACE_PSV_EVENT_COUNT]);

/* Adds the lanes' counts to events[] and empties the counter. Inline, and
 * the lanes passed by value: a caller's counter never escapes, so it can
 * live in registers. */
static inline void trace_psv_counter_flush(trace_psv_counter *c, uint64_t events[TRACE_PSV_EVENT_COUNT])
{
    trace_psv_lanes_add(c->lanes, events);
    c->lanes = 0;
    c->uops = 0;
}

/* Counts the events of a µop whose PSV is `psv` (below TRACE_PSV_VALUES),
 * adding them to events[] whenever the lanes are full. events[] lacks those
 * still in the counter until trace_psv_counter_flush. */
static inline void trace_psv_count(trace_psv_counter *c, unsigned psv, uint64_t events[TRACE_PSV_EVENT_COUNT])
{
    c->lanes += trace_psv_lane_table[psv];
    if (++c->uops == TRACE_PSV_LANE_MAX)
        trace_psv_counter_flush(c, events);
}

#endif
