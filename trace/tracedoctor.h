/*
 * tracedoctor.h: TraceDoctor TEA tokens <-> commit-stage records.
 *
 * Internal to trace/. A token describes one cycle in which something happened
 * at the ROB of a 4-wide BOOM core (docs/semantics.md §6). The decoder turns
 * tokens into records (record.h) and the encoder does the reverse, such that
 * decode(encode(records)) == records for every stream the encoder accepts.
 * docs/trace-format.md spells out the mapping, including how the ROB window
 * is derived from the head and tail indices.
 */
#ifndef TEA_TRACE_TRACEDOCTOR_H
#define TEA_TRACE_TRACEDOCTOR_H

#include "record.h"
#include "token.h"

#include <stdint.h>

/* Decoder statistics. */
typedef struct trace_td_decoder_stats {
    uint64_t counter_wraps;  /* 44-bit cycle counter wraps unwrapped */
    uint64_t memlat_nonzero; /* committing/excepting slots with memlat > 0 */
    uint64_t dcache_misses;  /* committing/excepting slots with DCACHE_MISS */
    uint64_t index_resyncs;  /* tokens whose head/tail indices disagreed with the stream */
} trace_td_decoder_stats;

typedef struct trace_td_decoder {
    unsigned rob_size;       /* entries the indices wrap at */
    unsigned llc_latency;    /* ST-LLC memlat threshold (cycles) */
    uint64_t tokens;         /* tokens pushed */
    uint64_t cycle_base;     /* multiple of 2^44 added to the counter */
    uint64_t last_cycle;     /* unwrapped cycle of the last token */
    int have_pending;        /* record[pending] awaits the next token's indices */
    unsigned pending;        /* 0 or 1: which record and µop buffer is pending; the other one
                              * takes the next token's record, so nothing is copied between them */
    trace_record record[2];
    trace_uop record_uops[2][TRACE_TD_SLOTS]; /* a token shows at most one µop per slot */
    unsigned pending_head;   /* head index of the pending token */
    unsigned expected_window;/* window after the pending record, before any squash */
    unsigned initial_window; /* window at the start of the first token's cycle */
    trace_td_decoder_stats stats;
    uint16_t event_psv[TRACE_TD_EVENT_COMBOS]; /* trace_td_slot_psv of the event flags, without ST-LLC */
} trace_td_decoder;

/* Prepares a decoder. rob_size must be a multiple of TRACE_TD_SLOTS, at most
 * TRACE_TD_MAX_ROB. */
void trace_td_decoder_init(trace_td_decoder *d, unsigned rob_size, unsigned llc_latency);

/* Decodes one token. Because a squash only shows in the next token's indices,
 * records come out one token late: when the previous token's record is
 * complete it is written to *rec and its µops to uops[], and *ready is set.
 * Errors (TEA_ERR_FORMAT, message naming the token index and byte offset):
 * cycle counter going backwards or repeating, indices outside the ROB, a
 * COMMITTING token without a committing slot, an EXCEPTION token without a
 * valid slot, commits out of bank order; the stream ends there (the
 * statistics may count part of the faulty token). uops[] has room for
 * TRACE_MAX_RECORD_UOPS µops (all may be written). */
int trace_td_decoder_push(trace_td_decoder *d, const trace_td_token *t, trace_record *rec, trace_uop *uops, int *ready);

/* trace_td_decoder_push of the packed token at `bytes` (what
 * trace_td_token_unpack would give), without unpacking the fields the token's
 * record does not use. */
int trace_td_decoder_push_bytes(trace_td_decoder *d, const uint8_t bytes[TRACE_TD_TOKEN_SIZE], trace_record *rec,
                                trace_uop *uops, int *ready);

/* trace_td_decoder_push_bytes over the `count` packed tokens at `tokens`,
 * the records that come out appended to `batch` as trace_batch_commit
 * does. The pending record is copied into the batch once per call, each
 * token completes it there and builds the next one beside it, and the last
 * one is copied back: no copy per token. Decodes while the batch has room
 * for two more records with TRACE_MAX_RECORD_UOPS µops each, and only
 * once a record is pending: the first token goes through
 * trace_td_decoder_push_bytes. The two records and their µop places past
 * the batch's count are scratch: they may be overwritten, even when the
 * first token fails.
 * *used: the tokens decoded; each completed one record, appended in order.
 * Errors are trace_td_decoder_push_bytes's for token *used, with the
 * records before it appended. */
int trace_td_decoder_push_run(trace_td_decoder *d, const uint8_t *tokens, size_t count, trace_batch *batch,
                              size_t *used);

/* Flushes the last record at the end of the stream (*ready tells whether there
 * was one). */
void trace_td_decoder_finish(trace_td_decoder *d, trace_record *rec, trace_uop *uops, int *ready);

typedef struct trace_td_encoder {
    unsigned rob_size;       /* entries the indices wrap at */
    unsigned llc_latency;    /* memlat written for ST-LLC loads */
    unsigned head;           /* head index at the start of the next record */
    unsigned window;         /* entries in the ROB at the start of the next record */
    int started;
} trace_td_encoder;

/* Prepares an encoder for a 4-wide ROB of `rob_size` entries. */
void trace_td_encoder_init(trace_td_encoder *e, unsigned rob_size, unsigned llc_latency);

/* Encodes one record. The first record's window is taken as the initial ROB
 * content (`initial_window`, ignored afterwards). `head_valid`, when not
 * NULL, says which banks of the head row hold a µop in the record's cycle,
 * before its commits (trace_batch.head_valid): the VALID bits then show exactly
 * those, as BOOM's do; without it every entry of the row in the window that
 * the record does not retire is shown VALID. TEA_ERR_UNSUPPORTED (message
 * without location; the caller adds the cycle) when tokens cannot express the
 * record: dispatch other than one whole row, a squash and a dispatch in the
 * same cycle, µops outside the head row, ST-LLC without ST-L1, or an ROB
 * retirement that the token's slots cannot show. */
int trace_td_encoder_encode(trace_td_encoder *e, const trace_record *r, const trace_uop *uops, unsigned initial_window,
                            const uint16_t *head_valid, trace_td_token *t);

#endif
