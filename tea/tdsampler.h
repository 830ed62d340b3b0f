/*
 * tdsampler.h: TEA, NCI-TEA and IBS under the TraceDoctor rules
 * (`tea replay --rules tracedoctor`, docs/semantics.md, "Sampler rules").
 *
 * Internal to tea/: the replay engine (replay.h) runs these samplers when a
 * spec asks for the tracedoctor rules; the tests use them too.
 *
 * The TEA authors' TraceDoctor workers (tea_sampler, pebs_sampler,
 * ibs_sampler) read tokens, not records, and decide from what a token shows:
 * its ROB state bits, head and tail indices and the flags of the four slots
 * of the head row, VALID included. These samplers read the same tokens
 * (trace_reader_set_token_sink) and follow the same rules, so that their
 * PICS equal the workers' outputs imported by `pics import` cell for cell:
 *
 *   - Sample points are P, 2P, ... (no jitter). A worker looks at the
 *     schedule only at some tokens; every point that has passed by then is
 *     folded into one sample, and the first of them is the one it stands for.
 *   - TEA looks only at tokens that commit, except or show a refill. Reached
 *     exactly at a commit or exception: the sample goes 1/n to each of the n
 *     committing µops (the excepting one: alone, FL-EX only). Passed before a
 *     refill: to the last µop that committed, when it was a flush cause (its
 *     flags BR_MISS or FLUSHS, or an exception), else to the next committing
 *     µop (deferred). Otherwise (a stall, or reached at a refill that commits
 *     nothing): to the next committing µop.
 *   - NCI-TEA (pebs_sampler): one sample to the first µop of the first token
 *     that commits at or after the (first folded) point.
 *   - IBS: a point (re)starts tagging, dropping a tag in flight; the first
 *     dispatching token then tags its tail index. The tag is followed token
 *     by token against the head (rounded down to its row) and tail indices:
 *     outside [head, tail) (circularly), or tail equal to the rounded head
 *     with no VALID slot, the tag is dropped; when the head row holds it in a
 *     committing token, the sample goes to that token's first committing µop.
 *     (The worker's coreWidth, 4, is the token's four slots: rows of
 *     TRACE_TD_SLOTS.)
 *
 * Signatures fold to the PSV as in trace_td_signature_psv, with ST-LLC for a
 * data-cache miss whose memory latency reached `llc_latency`; cells then
 * keep the spec's event mask. Each sample is PICS_UNIT (one sample), split
 * as above.
 */
#ifndef TEA_TEA_TDSAMPLER_H
#define TEA_TEA_TDSAMPLER_H

#include "pics/lost.h"
#include "pics/pics.h"
#include "pics/scheme.h"
#include "trace/token.h"

#include <stdint.h>

typedef struct tea_td_sampler {
    pics_scheme scheme;        /* TEA, NCI or IBS */
    uint16_t mask;             /* PSV bits reported */
    uint64_t period;           /* P, cycles */
    unsigned llc_latency;      /* memory latency (cycles) from which a data-cache miss is ST-LLC */
    uint64_t next;             /* the next sample point (cycle) */
    uint64_t cycle_base;       /* multiple of 2^44 added to the tokens' cycle counter */
    uint64_t last_raw;         /* the last token's counter */
    int state;                 /* the worker's state (tdsampler.c) */
    unsigned tag;              /* IBS: the tagged ROB index */
    int last_oir;              /* TEA: the last committed or excepting µop was a flush cause */
    uint64_t last_pc;          /* TEA: its address */
    uint16_t last_psv;         /*      and PSV */
    pics pics;                 /* samples, PICS_UNIT each */
    uint64_t samples;
    uint64_t lost[PICS_LOST_REASONS];
    int rc;                    /* first error adding to the PICS (TEA_ERR_NOMEM) */
} tea_td_sampler;

/* Prepares a sampler. 0, or TEA_ERR_USAGE for a scheme without a worker
 * (golden, SPE, RIS: message says so) or period 0, TEA_ERR_NOMEM. */
int tea_td_sampler_init(tea_td_sampler *s, pics_scheme scheme, uint64_t period, uint16_t mask,
                        unsigned llc_latency);

/* One token, in trace order (cycles increasing). */
void tea_td_sampler_token(tea_td_sampler *s, const trace_td_token *t);

/* Ends the trace: a sample still pending is lost ("end"). 0, or the first
 * error the tokens met (TEA_ERR_NOMEM). */
int tea_td_sampler_finish(tea_td_sampler *s);

void tea_td_sampler_free(tea_td_sampler *s);

#endif
