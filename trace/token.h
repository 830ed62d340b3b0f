/*
 * token.h: TraceDoctor TEA tokens as a file holds them, unpacked.
 *
 * The layout of one 64-byte token (docs/trace-format.md): a 44-bit cycle
 * counter, the ROB state bits, the ROB head and tail indices, and four slots
 * (the banks of the ROB's head row) with their flags, addresses and
 * latencies. Public for code that reads tokens as they are, beside the
 * records the decoder makes of them: the samplers of the tracedoctor rules
 * (tea/tdsampler.h), fed by trace_reader_set_token_sink (trace.h). The
 * decoder and encoder (tracedoctor.h) stay internal to trace/.
 */
#ifndef TEA_TRACE_TOKEN_H
#define TEA_TRACE_TOKEN_H

#include <stdint.h>

#define TRACE_TD_TOKEN_SIZE 64
#define TRACE_TD_SLOTS 4 /* banks of a ROB row = commit width */
#define TRACE_TD_CYCLE_BITS 44
#define TRACE_TD_CYCLE_MASK ((1ull << TRACE_TD_CYCLE_BITS) - 1)
#define TRACE_TD_MAX_ROB 256 /* head and tail indices are 8 bits wide */

/* ROB state bits (token bits 44-47). */
#define TRACE_TD_ROB_COMMITTING 0x1u
#define TRACE_TD_ROB_POPULATED 0x2u
#define TRACE_TD_ROB_DISPATCHING 0x4u
#define TRACE_TD_ROB_EXCEPTION 0x8u

/* Slot flag bits. */
#define TRACE_TD_SLOT_COMMITS (1u << 0)
#define TRACE_TD_SLOT_VALID (1u << 1)
#define TRACE_TD_SLOT_ICACHE_MISS (1u << 2)
#define TRACE_TD_SLOT_ITLB_SMISS (1u << 3)
#define TRACE_TD_SLOT_ITLB_PMISS (1u << 4)
#define TRACE_TD_SLOT_DCACHE_MISS (1u << 5)
#define TRACE_TD_SLOT_DTLB_SMISS (1u << 6)
#define TRACE_TD_SLOT_DTLB_PMISS (1u << 7)
#define TRACE_TD_SLOT_LSU_FULL (1u << 8)
#define TRACE_TD_SLOT_REFETCHED (1u << 9)
#define TRACE_TD_SLOT_BR_MISS (1u << 10)
#define TRACE_TD_SLOT_FLUSHS (1u << 11)

/* The slot flags that carry events (bits 2-11), as an index into a table. */
#define TRACE_TD_EVENT_SHIFT 2
#define TRACE_TD_EVENT_COMBOS (1u << 10)

/* One token, unpacked. */
typedef struct trace_td_token {
    uint64_t cycle;            /* 44-bit cycle counter value */
    unsigned rob_state;        /* TD_ROB_* */
    unsigned head, tail;       /* ROB head and tail indices (entries) */
    uint16_t flags[TRACE_TD_SLOTS]; /* TD_SLOT_* per bank of the head row */
    uint64_t pc[TRACE_TD_SLOTS];
    uint16_t memlat[TRACE_TD_SLOTS]; /* load latency (cycles) */
    uint16_t isslat[TRACE_TD_SLOTS]; /* issue latency (unused) */
} trace_td_token;

void trace_td_token_unpack(const uint8_t bytes[TRACE_TD_TOKEN_SIZE], trace_td_token *t);

/* The PSV of a slot: its flags folded to the nine events, ST-LLC when the load
 * missed in the L1 and its memlat reached `llc_latency` (what the decoder
 * gives a µop, and what a worker's signature folds to). */
uint16_t trace_td_slot_psv(uint16_t flags, uint16_t memlat, unsigned llc_latency);
void trace_td_token_pack(const trace_td_token *t, uint8_t bytes[TRACE_TD_TOKEN_SIZE]);

/* The bits of a TraceDoctor worker's signature (trace_td_signature_psv,
 * trace/trace.h): bit 0 a data-cache miss whose memory latency reached 32
 * cycles, bit 1 the same at 84, bits 2-11 the slot flags (TRACE_TD_SLOT_*),
 * bit 12 the µop's exception, bits 13-15 the previous µop's flags. */
#define TRACE_TD_SIG_LLC (1u << 0)
#define TRACE_TD_SIG_FLAGS 0x0FFCu
#define TRACE_TD_SIG_EXCEPTION (1u << 12)

#endif
