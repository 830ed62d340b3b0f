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

/* PSVs counted by their low TRACE_PSV_TALLY_LOW_BITS bits and by the rest:
 * low[v] µops had v as the low part of their PSV, high[v] as the high part.
 * Counting a µop is two increments whatever its PSV, where adding up its
 * events one by one would branch on each set bit (a random count for the
 * branch predictor); trace_psv_tally_flush adds the events up. */
#define TRACE_PSV_TALLY_LOW_BITS 5
typedef struct trace_psv_tally {
    uint64_t low[1u << TRACE_PSV_TALLY_LOW_BITS];
    uint64_t high[TRACE_PSV_VALUES >> TRACE_PSV_TALLY_LOW_BITS];
} trace_psv_tally;

/* Counts a µop whose PSV is `psv` (below TRACE_PSV_VALUES). */
static inline void trace_psv_tally_add(trace_psv_tally *t, unsigned psv)
{
    t->low[psv & ((1u << TRACE_PSV_TALLY_LOW_BITS) - 1)]++;
    t->high[psv >> TRACE_PSV_TALLY_LOW_BITS]++;
}

/* Adds the events of the µops counted in `t` to events[] (one count per
 * µop and event) and empties `t`. */
void trace_psv_tally_flush(trace_psv_tally *t, uint64_t events[TRACE_PSV_EVENT_COUNT]);

#endif
