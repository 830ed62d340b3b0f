/*
 * tracedoctor.c: TraceDoctor token codec (see tracedoctor.h and
 * docs/trace-format.md, "TraceDoctor tokens").
 */
#include "tracedoctor.h"
#include "trace.h"
#include "psv.h"
#include "../common/error.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Byte offsets inside a token. */
#define TD_OFF_FLAGS 8
#define TD_OFF_PC 16
#define TD_OFF_MEMLAT 48
#define TD_OFF_ISSLAT 56
/* Bit positions inside the first u64. */
#define TD_STATE_SHIFT 44
#define TD_HEAD_SHIFT 48
#define TD_TAIL_SHIFT 56
/* A backwards step of the 44-bit counter larger than this is a wrap. */
#define TD_WRAP_THRESHOLD (1ull << (TRACE_TD_CYCLE_BITS - 1))

/* Little-endian loads, written so that compilers turn them into single
 * loads on little-endian machines. */
static inline uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint64_t le64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24
        | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

void trace_td_token_unpack(const uint8_t bytes[TRACE_TD_TOKEN_SIZE], trace_td_token *t)
{
    uint64_t w = le64(bytes);
    t->cycle = w & TRACE_TD_CYCLE_MASK;
    t->rob_state = (unsigned)(w >> TD_STATE_SHIFT) & 0xF;
    t->head = (unsigned)(w >> TD_HEAD_SHIFT) & 0xFF;
    t->tail = (unsigned)(w >> TD_TAIL_SHIFT) & 0xFF;
    for (int i = 0; i < TRACE_TD_SLOTS; i++) {
        t->flags[i] = le16(bytes + TD_OFF_FLAGS + 2 * i);
        t->pc[i] = le64(bytes + TD_OFF_PC + 8 * i);
        t->memlat[i] = le16(bytes + TD_OFF_MEMLAT + 2 * i);
        t->isslat[i] = le16(bytes + TD_OFF_ISSLAT + 2 * i);
    }
}

void trace_td_token_pack(const trace_td_token *t, uint8_t bytes[TRACE_TD_TOKEN_SIZE])
{
    uint64_t w = (t->cycle & TRACE_TD_CYCLE_MASK) | (uint64_t)(t->rob_state & 0xF) << TD_STATE_SHIFT
                 | (uint64_t)(t->head & 0xFF) << TD_HEAD_SHIFT | (uint64_t)(t->tail & 0xFF) << TD_TAIL_SHIFT;
    put_le(bytes, w, 8);
    for (int i = 0; i < TRACE_TD_SLOTS; i++) {
        put_le(bytes + TD_OFF_FLAGS + 2 * i, t->flags[i], 2);
        put_le(bytes + TD_OFF_PC + 8 * i, t->pc[i], 8);
        put_le(bytes + TD_OFF_MEMLAT + 2 * i, t->memlat[i], 2);
        put_le(bytes + TD_OFF_ISSLAT + 2 * i, t->isslat[i], 2);
    }
}

uint16_t trace_td_slot_psv(uint16_t flags, uint16_t memlat, unsigned llc_latency)
{
    unsigned psv = 0;
    if (flags & TRACE_TD_SLOT_DCACHE_MISS) {
        psv |= 1u << TRACE_PSV_ST_L1;
        if (memlat >= llc_latency)
            psv |= 1u << TRACE_PSV_ST_LLC;
    }
    if (flags & (TRACE_TD_SLOT_DTLB_SMISS | TRACE_TD_SLOT_DTLB_PMISS))
        psv |= 1u << TRACE_PSV_ST_TLB;
    if (flags & TRACE_TD_SLOT_ICACHE_MISS)
        psv |= 1u << TRACE_PSV_DR_L1;
    if (flags & (TRACE_TD_SLOT_ITLB_SMISS | TRACE_TD_SLOT_ITLB_PMISS))
        psv |= 1u << TRACE_PSV_DR_TLB;
    if (flags & TRACE_TD_SLOT_LSU_FULL)
        psv |= 1u << TRACE_PSV_DR_SQ;
    if (flags & TRACE_TD_SLOT_BR_MISS)
        psv |= 1u << TRACE_PSV_FL_MB;
    if (flags & TRACE_TD_SLOT_FLUSHS)
        psv |= 1u << TRACE_PSV_FL_EX;
    if (flags & TRACE_TD_SLOT_REFETCHED)
        psv |= 1u << TRACE_PSV_FL_MO;
    return (uint16_t)psv;
}

uint16_t trace_td_signature_psv(uint32_t signature)
{
    /* memlat 0 under a latency of 1: ST-LLC comes from bit 0 instead */
    unsigned psv = trace_td_slot_psv((uint16_t)(signature & TRACE_TD_SIG_FLAGS), 0, 1);
    if (signature & TRACE_TD_SIG_LLC)
        psv |= 1u << TRACE_PSV_ST_LLC;
    if (signature & TRACE_TD_SIG_EXCEPTION)
        psv |= 1u << TRACE_PSV_FL_EX;
    return (uint16_t)psv;
}

/* The slot flags that read back as `psv` (the inverse of trace_td_slot_psv for the
 * bits the encoder writes), without COMMITS/VALID. */
static uint16_t psv_slot_flags(uint16_t psv)
{
    unsigned f = 0;
    if (psv & (1u << TRACE_PSV_ST_L1))
        f |= TRACE_TD_SLOT_DCACHE_MISS;
    if (psv & (1u << TRACE_PSV_ST_TLB))
        f |= TRACE_TD_SLOT_DTLB_SMISS;
    if (psv & (1u << TRACE_PSV_DR_L1))
        f |= TRACE_TD_SLOT_ICACHE_MISS;
    if (psv & (1u << TRACE_PSV_DR_TLB))
        f |= TRACE_TD_SLOT_ITLB_SMISS;
    if (psv & (1u << TRACE_PSV_DR_SQ))
        f |= TRACE_TD_SLOT_LSU_FULL;
    if (psv & (1u << TRACE_PSV_FL_MB))
        f |= TRACE_TD_SLOT_BR_MISS;
    if (psv & (1u << TRACE_PSV_FL_EX))
        f |= TRACE_TD_SLOT_FLUSHS;
    if (psv & (1u << TRACE_PSV_FL_MO))
        f |= TRACE_TD_SLOT_REFETCHED;
    return (uint16_t)f;
}

void trace_td_decoder_init(trace_td_decoder *d, unsigned rob_size, unsigned llc_latency)
{
    memset(d, 0, sizeof *d);
    d->rob_size = rob_size;
    d->llc_latency = llc_latency;
    for (unsigned i = 0; i < TRACE_TD_EVENT_COMBOS; i++)
        d->event_psv[i] = (uint16_t)(trace_td_slot_psv((uint16_t)(i << TRACE_TD_EVENT_SHIFT), 0, llc_latency)
                                     & ~(1u << TRACE_PSV_ST_LLC));
}

/* trace_td_slot_psv through the decoder's table: the same PSV for every input. */
static inline uint16_t slot_psv(const trace_td_decoder *d, uint16_t flags, uint16_t memlat)
{
    unsigned psv = d->event_psv[(flags >> TRACE_TD_EVENT_SHIFT) & (TRACE_TD_EVENT_COMBOS - 1)];
    if ((flags & TRACE_TD_SLOT_DCACHE_MISS) && memlat >= d->llc_latency)
        psv |= 1u << TRACE_PSV_ST_LLC;
    return (uint16_t)psv;
}

/* Records a format error located at the token being decoded. */
static int token_error(const trace_td_decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int token_error(const trace_td_decoder *d, const char *fmt, ...)
{
    uint64_t index = d->tokens;
    char detail[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return error_set(TEA_ERR_FORMAT, "token %llu (uncompressed byte %llu): %s", (unsigned long long)index,
                     (unsigned long long)(index * TRACE_TD_TOKEN_SIZE), detail);
}

/* A token as the decoder reads it: the first word and the slot flags
 * unpacked, the PCs and load latencies left in `bytes` (the packed token)
 * until a slot that commits or excepts needs them. */
typedef struct token_view {
    uint64_t cycle;                 /* 44-bit cycle counter value */
    unsigned rob_state;             /* TD_ROB_* */
    unsigned head, tail;            /* ROB head and tail indices (entries) */
    uint16_t flags[TRACE_TD_SLOTS]; /* TD_SLOT_* per bank */
    const uint8_t *bytes;           /* TRACE_TD_TOKEN_SIZE bytes of the packed token */
} token_view;

/* Reads the fields every token needs straight from its bytes. */
static inline void view_bytes(const uint8_t *bytes, token_view *v)
{
    uint64_t w = le64(bytes), f = le64(bytes + TD_OFF_FLAGS);

    v->cycle = w & TRACE_TD_CYCLE_MASK;
    v->rob_state = (unsigned)(w >> TD_STATE_SHIFT) & 0xF;
    v->head = (unsigned)(w >> TD_HEAD_SHIFT) & 0xFF;
    v->tail = (unsigned)(w >> TD_TAIL_SHIFT) & 0xFF;
    for (int i = 0; i < TRACE_TD_SLOTS; i++)
        v->flags[i] = (uint16_t)(f >> (16 * i));
    v->bytes = bytes;
}

static inline uint64_t view_pc(const token_view *v, unsigned slot)
{
    return le64(v->bytes + TD_OFF_PC + 8 * slot);
}

static inline uint16_t view_memlat(const token_view *v, unsigned slot)
{
    return le16(v->bytes + TD_OFF_MEMLAT + 2 * slot);
}

/* Unwraps the 44-bit counter against the previous token's cycle. */
static int unwrap_cycle(trace_td_decoder *d, const token_view *t, uint64_t *cycle)
{
    uint64_t c = d->cycle_base + t->cycle;

    if (d->tokens > 0 && c <= d->last_cycle) {
        if (d->last_cycle - c >= TD_WRAP_THRESHOLD) {
            d->cycle_base += 1ull << TRACE_TD_CYCLE_BITS;
            c += 1ull << TRACE_TD_CYCLE_BITS;
            d->stats.counter_wraps++;
        } else {
            return token_error(d, "cycle counter goes %s (%llu after %llu)",
                               c == d->last_cycle ? "nowhere" : "backwards", (unsigned long long)c,
                               (unsigned long long)d->last_cycle);
        }
    }
    *cycle = c;
    return TEA_OK;
}

/* Whether any slot from the head bank on is VALID. */
static int head_row_valid(const uint16_t flags[TRACE_TD_SLOTS], unsigned head_bank)
{
    for (unsigned i = head_bank; i < TRACE_TD_SLOTS; i++)
        if (flags[i] & TRACE_TD_SLOT_VALID)
            return 1;
    return 0;
}

/* The ROB window at the start of the token's cycle. Equal head and tail
 * indices mean empty or full: empty when the head row shows no valid slot;
 * otherwise full when the window was more than half full before (or, for the
 * first token, when nothing is being dispatched or populated). */
static unsigned token_window(const trace_td_decoder *d, const token_view *t)
{
    unsigned r = d->rob_size;
    unsigned count = t->tail >= t->head ? t->tail - t->head : t->tail + r - t->head;

    assert(t->head < r && t->tail < r); /* checked by the caller */
    if (count != 0 || !head_row_valid(t->flags, t->head % TRACE_TD_SLOTS))
        return count;
    if (!d->have_pending)
        return (t->rob_state & (TRACE_TD_ROB_DISPATCHING | TRACE_TD_ROB_POPULATED)) ? 0 : r;
    return d->expected_window > r / 2 ? r : 0;
}

/* Builds the record of token `t` (without its squash, which the next token
 * reveals): committing and excepting µops, their ROB offsets and how many
 * entries leave the head. */
static int token_record(trace_td_decoder *d, const token_view *t, uint64_t cycle, trace_record *rec, trace_uop *uops)
{
    unsigned hb = t->head % TRACE_TD_SLOTS;
    int committing = (t->rob_state & TRACE_TD_ROB_COMMITTING) != 0;
    int excepting = (t->rob_state & TRACE_TD_ROB_EXCEPTION) != 0;
    int pending_valid = -1, exception_slot = -1;
    unsigned n = 0;

    memset(rec, 0, sizeof *rec);
    rec->cycle = cycle;
    for (unsigned i = 0; i < TRACE_TD_SLOTS; i++) {
        uint16_t f = t->flags[i];
        if (f & TRACE_TD_SLOT_COMMITS) {
            if (!committing)
                return token_error(d, "slot %u commits but the ROB is not COMMITTING (state 0x%x)", i,
                                   t->rob_state);
            if (i < hb)
                return token_error(d, "slot %u commits but the ROB head is at bank %u", i, hb);
            if (pending_valid >= 0)
                return token_error(d, "slot %u commits after uncommitted valid slot %u", i,
                                   (unsigned)pending_valid);
            uint16_t memlat = view_memlat(t, i);
            uops[n].pc = view_pc(t, i);
            uops[n].psv = slot_psv(d, f, memlat);
            uops[n].offset = (uint8_t)(i - hb);
            uops[n].pad_ = 0;
            uops[n].ctx = 0;
            n++;
            d->stats.memlat_nonzero += memlat > 0;
            d->stats.dcache_misses += (f & TRACE_TD_SLOT_DCACHE_MISS) != 0;
        } else if ((f & TRACE_TD_SLOT_VALID) && i >= hb && pending_valid < 0) {
            pending_valid = (int)i;
        }
    }
    if (committing && n == 0)
        return token_error(d, "COMMITTING token (state 0x%x) has no committing slot", t->rob_state);
    rec->n_commit = (uint8_t)n;
    if (excepting) {
        uint16_t memlat;
        if (pending_valid < 0)
            return token_error(d, "EXCEPTION token (state 0x%x) has no valid slot", t->rob_state);
        exception_slot = pending_valid;
        memlat = view_memlat(t, (unsigned)exception_slot);
        uops[n].pc = view_pc(t, (unsigned)exception_slot);
        uops[n].psv = (uint16_t)(slot_psv(d, t->flags[exception_slot], memlat) | (1u << TRACE_PSV_FL_EX));
        uops[n].offset = (uint8_t)(exception_slot - (int)hb);
        uops[n].pad_ = 0;
        uops[n].ctx = 0;
        rec->flags |= TRACE_REC_EXCEPTION;
        rec->retire = (uint8_t)(exception_slot - (int)hb + 1);
        d->stats.memlat_nonzero += memlat > 0;
        d->stats.dcache_misses += (t->flags[exception_slot] & TRACE_TD_SLOT_DCACHE_MISS) != 0;
    } else if (n > 0) {
        rec->retire = (uint8_t)((pending_valid >= 0 ? (unsigned)pending_valid : TRACE_TD_SLOTS) - hb);
    }
    if (t->rob_state & TRACE_TD_ROB_POPULATED)
        rec->flags |= TRACE_REC_REFILL;
    if (t->rob_state & TRACE_TD_ROB_DISPATCHING)
        rec->dispatch = TRACE_TD_SLOTS;
    /* The µops lie in the entries retiring, all in the head row. */
    assert(rec->retire >= trace_record_uops(rec) && hb + rec->retire <= TRACE_TD_SLOTS);
    return TEA_OK;
}

/* Hands out the pending record and its µops. All TRACE_TD_SLOTS µop
 * places are copied, used or not: a fixed-size copy without a branch or a
 * library call (the caller's array has TRACE_MAX_RECORD_UOPS places). */
static inline void emit_pending(const trace_td_decoder *d, trace_record *rec, trace_uop *uops)
{
    _Static_assert(TRACE_TD_SLOTS <= TRACE_MAX_RECORD_UOPS, "a token's µops fit a record");
    *rec = d->record[d->pending];
    memcpy(uops, d->record_uops[d->pending], sizeof d->record_uops[d->pending]);
}

/* Completes the pending record `p` now that the next token shows the window
 * (`window`) and head index at its start. A window smaller than expected
 * means entries were squashed after the pending cycle; a squash right after
 * a dispatch first cancels that dispatch. A larger one cannot be explained
 * and counts as a resync (the entries are taken as dispatched). */
static inline void settle_pending(trace_td_decoder *d, trace_record *p, unsigned window, unsigned head)
{
    unsigned expected = d->expected_window, next_head = d->pending_head + p->retire;

    if (window < expected) {
        unsigned gone = expected - window;
        unsigned cancel = gone < p->dispatch ? gone : p->dispatch;
        p->dispatch = (uint16_t)(p->dispatch - cancel);
        p->squash = (uint16_t)(gone - cancel);
    } else if (window > expected) {
        p->dispatch = (uint16_t)(p->dispatch + (window - expected));
        d->stats.index_resyncs++;
    } else if (window != 0 && head != (next_head >= d->rob_size ? next_head - d->rob_size : next_head)) {
        d->stats.index_resyncs++;
    }
}

/* Decodes one token: builds its record at `cur` with its µops at
 * `cur_uops` (TRACE_TD_SLOTS places, all may be written) and, when a
 * record is pending, completes it at `pending`. Where the two records lie
 * is the caller's: the decoder's own pair (decoder_push) or a batch
 * (trace_td_decoder_push_run). After an error the decoder's counts are
 * not to be trusted: the stream ends there. */
static inline int decoder_step(trace_td_decoder *d, const token_view *t, trace_record *cur, trace_uop *cur_uops,
                               trace_record *pending)
{
    uint64_t cycle = 0;
    unsigned window;
    int rc;

    if ((rc = unwrap_cycle(d, t, &cycle)))
        return rc;
    if (t->head >= d->rob_size || t->tail >= d->rob_size)
        return token_error(d, "ROB index %u is outside a %u-entry ROB (see --rob-size)",
                           t->head >= d->rob_size ? t->head : t->tail, d->rob_size);
    if ((rc = token_record(d, t, cycle, cur, cur_uops)))
        return rc;
    window = token_window(d, t);
    if (window < cur->retire) {
        /* The indices claim fewer entries than leave the ROB: trust the slots. */
        window = cur->retire;
        d->stats.index_resyncs++;
    }
    if (d->tokens == 0)
        d->initial_window = window;
    if (d->have_pending)
        settle_pending(d, pending, window, t->head);
    if (window - cur->retire + cur->dispatch > d->rob_size) {
        /* Dispatch into a full ROB: impossible, keep the window bounded. */
        cur->dispatch = (uint16_t)(d->rob_size - (window - cur->retire));
        d->stats.index_resyncs++;
    }
    d->pending_head = t->head;
    d->expected_window = window - cur->retire + cur->dispatch;
    assert(d->expected_window <= d->rob_size); /* a dispatch into a full ROB was cut above */
    d->have_pending = 1;
    d->last_cycle = cycle;
    d->tokens++;
    return TEA_OK;
}

/* trace_td_decoder_push and trace_td_decoder_push_bytes: the next token's
 * record is built in the record buffer that is not pending, and the
 * pending one, completed, is copied out. */
static inline int decoder_push(trace_td_decoder *d, const token_view *t, trace_record *rec, trace_uop *uops, int *ready)
{
    unsigned next = d->pending ^ 1u;
    int had_pending = d->have_pending, rc;

    *ready = 0;
    if ((rc = decoder_step(d, t, &d->record[next], d->record_uops[next], &d->record[d->pending])))
        return rc;
    if (had_pending) {
        emit_pending(d, rec, uops);
        *ready = 1;
    }
    d->pending = next;
    return TEA_OK;
}

int trace_td_decoder_push(trace_td_decoder *d, const trace_td_token *t, trace_record *rec, trace_uop *uops, int *ready)
{
    uint8_t bytes[TRACE_TD_TOKEN_SIZE];
    token_view v;

    /* The PCs and latencies travel packed; the other fields are taken as
     * given, out-of-range values included, for the checks to see. */
    trace_td_token_pack(t, bytes);
    view_bytes(bytes, &v);
    v.cycle = t->cycle;
    v.rob_state = t->rob_state;
    v.head = t->head;
    v.tail = t->tail;
    return decoder_push(d, &v, rec, uops, ready);
}

int trace_td_decoder_push_bytes(trace_td_decoder *d, const uint8_t bytes[TRACE_TD_TOKEN_SIZE], trace_record *rec,
                                trace_uop *uops, int *ready)
{
    token_view v;

    view_bytes(bytes, &v);
    return decoder_push(d, &v, rec, uops, ready);
}

/* Room in `batch` for the pending record and the next one, each with
 * TRACE_MAX_RECORD_UOPS µop places, beyond `records` and `uops` in use. */
static inline int run_has_room(const trace_batch *batch, size_t records, size_t uops)
{
    return records + 2 <= batch->capacity && uops + 2 * TRACE_MAX_RECORD_UOPS <= batch->uop_capacity;
}

int trace_td_decoder_push_run(trace_td_decoder *d, const uint8_t *tokens, size_t count, trace_batch *batch,
                              size_t *used)
{
    size_t out = batch->count, uop_out = batch->uop_count, i = 0;
    trace_record *pending;
    trace_uop *pending_uops;
    int rc = TEA_OK;

    *used = 0;
    if (!d->have_pending || count == 0 || !run_has_room(batch, out, uop_out))
        return TEA_OK;
    /* The pending record moves into the batch, where the next token
     * completes it in place; the last one moves back. */
    pending = &batch->records[out];
    pending_uops = batch->uops + uop_out;
    emit_pending(d, pending, pending_uops);
    for (; i < count && run_has_room(batch, out, uop_out); i++) {
        trace_record *cur = pending + 1;
        trace_uop *cur_uops = pending_uops + trace_record_uops(pending);
        token_view v;

        view_bytes(tokens + i * TRACE_TD_TOKEN_SIZE, &v);
        if ((rc = decoder_step(d, &v, cur, cur_uops, pending)))
            break;
        pending->first_uop = (uint32_t)uop_out;
        uop_out += trace_record_uops(pending);
        out++;
        pending = cur;
        pending_uops = cur_uops;
    }
    d->record[d->pending] = *pending;
    memcpy(d->record_uops[d->pending], pending_uops, sizeof d->record_uops[d->pending]);
    batch->count = out;
    batch->uop_count = uop_out;
    *used = i;
    return rc;
}

void trace_td_decoder_finish(trace_td_decoder *d, trace_record *rec, trace_uop *uops, int *ready)
{
    *ready = d->have_pending;
    if (d->have_pending) {
        emit_pending(d, rec, uops);
        d->have_pending = 0;
    }
}

void trace_td_encoder_init(trace_td_encoder *e, unsigned rob_size, unsigned llc_latency)
{
    memset(e, 0, sizeof *e);
    e->rob_size = rob_size;
    e->llc_latency = llc_latency;
}

/* Places one µop in its slot; fails when it does not fit the head row. */
static int place_uop(const trace_td_encoder *e, trace_td_token *t, unsigned hb, const trace_uop *u, int commits)
{
    unsigned slot = hb + u->offset;
    uint16_t psv = u->psv;

    if (slot >= TRACE_TD_SLOTS)
        return error_set(TEA_ERR_UNSUPPORTED, "a µop at ROB offset %u lies outside the head row", u->offset);
    if ((psv & (1u << TRACE_PSV_ST_LLC)) && !(psv & (1u << TRACE_PSV_ST_L1)))
        return error_set(TEA_ERR_UNSUPPORTED, "ST-LLC without ST-L1 has no TraceDoctor encoding");
    if (!commits)
        psv &= (uint16_t) ~(1u << TRACE_PSV_FL_EX); /* implied by the EXCEPTION state */
    t->flags[slot] = (uint16_t)(psv_slot_flags(psv) | TRACE_TD_SLOT_VALID | (commits ? TRACE_TD_SLOT_COMMITS : 0));
    t->pc[slot] = u->pc;
    t->memlat[slot] = (uint16_t)((u->psv & (1u << TRACE_PSV_ST_LLC)) ? e->llc_latency : 0);
    return TEA_OK;
}

/*
 * Sets the VALID bits of the head row as BOOM does (instr_valids: the valid
 * bit of each bank of the head row, in every token): the slots of the µops
 * that commit or except, and the occupied entries the record does not
 * retire. Those are `head_valid`'s banks when the producer knows them (the
 * core model), else every entry of the row in the window from where the
 * record's retirement ends (an entry retired without committing is empty,
 * so it is never shown). A committing record whose retirement ends inside
 * the row marks the entry where it ends even when that entry is empty (a
 * flush squashes it next): the decoder finds the head there.
 */
static int set_valid_bits(const trace_td_encoder *e, const trace_record *r, const uint16_t *head_valid,
                          trace_td_token *t)
{
    unsigned hb = e->head % TRACE_TD_SLOTS, n = trace_record_uops(r);
    unsigned end = hb + r->retire, allocated = hb + e->window; /* entries past the row: not in it */

    if (head_valid) {
        for (unsigned b = 0; b < TRACE_TD_SLOTS; b++) {
            int occupied = (*head_valid >> b) & 1u, shown = (t->flags[b] & TRACE_TD_SLOT_VALID) != 0;
            if (occupied && (b < hb || b >= allocated))
                return error_set(TEA_ERR_UNSUPPORTED, "bank %u holds a µop outside the ROB window", b);
            if (shown && !occupied)
                return error_set(TEA_ERR_UNSUPPORTED, "a µop commits or excepts from an empty entry (bank %u)", b);
            if (occupied && b < end && !shown)
                return error_set(TEA_ERR_UNSUPPORTED, "an occupied entry (bank %u) retires without committing", b);
            if (occupied)
                t->flags[b] |= TRACE_TD_SLOT_VALID;
        }
    } else {
        for (unsigned b = end; b < TRACE_TD_SLOTS && b < allocated; b++)
            t->flags[b] |= TRACE_TD_SLOT_VALID;
    }
    if (n > 0 && !(r->flags & TRACE_REC_EXCEPTION) && end < TRACE_TD_SLOTS)
        t->flags[end] |= TRACE_TD_SLOT_VALID; /* where the head stops (see above) */
    return TEA_OK;
}

int trace_td_encoder_encode(trace_td_encoder *e, const trace_record *r, const trace_uop *uops, unsigned initial_window,
                            const uint16_t *head_valid, trace_td_token *t)
{
    unsigned r_size = e->rob_size;
    unsigned hb, n = trace_record_uops(r), last_slot;
    unsigned window_after;
    int rc;

    if (!e->started) {
        e->window = initial_window;
        e->started = 1;
    }
    memset(t, 0, sizeof *t);
    if (r->dispatch != 0 && r->dispatch != TRACE_TD_SLOTS)
        return error_set(TEA_ERR_UNSUPPORTED, "dispatch of %u entries is not one whole ROB row of %u", r->dispatch,
                         TRACE_TD_SLOTS);
    if (r->dispatch && r->squash)
        return error_set(TEA_ERR_UNSUPPORTED, "a squash and a dispatch in the same cycle");
    if (r->retire > 0 && n == 0)
        return error_set(TEA_ERR_UNSUPPORTED, "entries retire without a committing µop");
    if (r->n_commit > 0 && (r->flags & TRACE_REC_EXCEPTION))
        return error_set(TEA_ERR_UNSUPPORTED, "a µop excepts in a cycle in which others commit: BOOM never "
                                              "does this, so TraceDoctor tokens cannot say it unambiguously");
    hb = e->head % TRACE_TD_SLOTS;
    t->cycle = r->cycle & TRACE_TD_CYCLE_MASK;
    t->head = e->head;
    t->tail = (e->head + e->window) % r_size;
    t->rob_state =
        (r->n_commit ? TRACE_TD_ROB_COMMITTING : 0) | ((r->flags & TRACE_REC_EXCEPTION) ? TRACE_TD_ROB_EXCEPTION : 0)
        | ((r->flags & TRACE_REC_REFILL) ? TRACE_TD_ROB_POPULATED : 0) | (r->dispatch ? TRACE_TD_ROB_DISPATCHING : 0);
    for (unsigned i = 0; i < n; i++)
        if ((rc = place_uop(e, t, hb, &uops[i], i < r->n_commit)))
            return rc;
    last_slot = n ? hb + uops[n - 1].offset : 0;
    if (r->flags & TRACE_REC_EXCEPTION) {
        if (r->retire != uops[n - 1].offset + 1u)
            return error_set(TEA_ERR_UNSUPPORTED, "entries retire past the excepting µop");
    } else if (n > 0 && hb + r->retire < TRACE_TD_SLOTS) {
        /* The head stops inside the row, at the first valid slot that does
         * not commit: that is how the decoder finds it. */
        if (hb + r->retire <= last_slot)
            return error_set(TEA_ERR_UNSUPPORTED, "retirement ends before the last committing µop");
    } else if (n > 0 && hb + r->retire > TRACE_TD_SLOTS) {
        return error_set(TEA_ERR_UNSUPPORTED, "retirement crosses the end of the head row");
    }
    if ((rc = set_valid_bits(e, r, head_valid, t)))
        return rc;
    if (e->window == r_size && !head_row_valid(t->flags, hb)) {
        /* A full ROB shows a valid head so the decoder can tell it from empty. */
        if (n > 0 && uops[0].offset != 0)
            return error_set(TEA_ERR_UNSUPPORTED, "full ROB whose head entry is empty");
        t->flags[hb] |= TRACE_TD_SLOT_VALID;
    }
    if (r->retire > e->window || r->squash > e->window - r->retire
        || e->window - r->retire - r->squash + r->dispatch > r_size)
        return error_set(TEA_ERR_UNSUPPORTED, "ROB window bookkeeping is inconsistent");
    window_after = e->window - r->retire - r->squash + r->dispatch;
    e->head = (e->head + r->retire) % r_size;
    if (window_after == 0 && e->head % TRACE_TD_SLOTS)
        e->head = (e->head + TRACE_TD_SLOTS - e->head % TRACE_TD_SLOTS) % r_size; /* an empty ROB restarts at a row */
    e->window = window_after;
    assert(e->head < r_size && e->window <= r_size);
    return TEA_OK;
}
