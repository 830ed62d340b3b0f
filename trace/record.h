/*
 * record.h: the commit-stage event stream, the seam of the project.
 *
 * Trace readers turn bytes (TraceDoctor tokens, native records) into records;
 * the golden reference and every sampler consume records and never see a file
 * format. One record describes one cycle in which something happened at the
 * reorder buffer (ROB); cycles between records are cycles in which nothing
 * moved, so records are sparse and cycle numbers strictly increase.
 *
 * The ROB is modelled as a window of entries [head, tail). Entries are
 * allocated at the tail by dispatch and leave at the head by commit (or by an
 * exception, or as empty entries that a row-based ROB such as BOOM's skips),
 * or leave at the tail when squashed (wrong-path µops, pipeline flushes).
 * Within one record the effects apply in this order:
 *
 *   1. `retire` entries leave at the head: the `n_commit` committing µops, the
 *      excepting µop if TRACE_REC_EXCEPTION is set, and any empty entries
 *      between or after them;
 *   2. `squash` entries leave at the tail;
 *   3. `dispatch` entries are allocated at the tail.
 *
 * The window size at the start of a record's cycle (and during the gap of
 * cycles before it) tells whether the ROB is empty; see docs/semantics.md for
 * how the golden reference turns records into cycle attributions.
 */
#ifndef TEA_TRACE_RECORD_H
#define TEA_TRACE_RECORD_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* Widest commit stage any format can describe. */
#define TRACE_MAX_WIDTH 16
/* Most µops one record can carry: a full commit row plus an excepting µop. */
#define TRACE_MAX_RECORD_UOPS (TRACE_MAX_WIDTH + 1)
/* Largest ROB (entries) any format can describe. */
#define TRACE_MAX_ROB 4096

/* Record flags. */
#define TRACE_REC_EXCEPTION 0x01u /* the µop after the commits excepts this cycle */
#define TRACE_REC_REFILL 0x02u    /* the ROB head became valid this cycle (refill after empty) */

/* One µop that commits or excepts. */
typedef struct trace_uop {
    uint64_t pc;     /* virtual address of its static instruction */
    uint16_t psv;    /* nine-bit PSV as of commit (FL-EX set for an excepting µop) */
    uint8_t offset;  /* its ROB entry, counted from the head at the start of the cycle */
    uint8_t pad_;
    uint32_t ctx;    /* its calling context (trace/callpath.h); TRACE_CONTEXT_ROOT (0) when none */
} trace_uop;
_Static_assert(sizeof(trace_uop) == 16, "a µop's context fits its padding");

/* One cycle with activity at the ROB. The record's µops are
 * batch->uops[first_uop .. first_uop + n_commit (+1 if EXCEPTION)); a
 * batch's µops follow its records in order (each record's first_uop is
 * where the previous record's µops end). */
typedef struct trace_record {
    uint64_t cycle;     /* absolute cycle number, strictly increasing */
    uint32_t first_uop; /* index of the record's first µop in its batch */
    uint8_t n_commit;   /* µops committing this cycle, 0..width, in program order */
    uint8_t flags;      /* TRACE_REC_* */
    uint8_t retire;     /* entries leaving at the head (commits, exception, empty entries) */
    uint8_t pad_;
    uint16_t squash;    /* youngest entries removed (µops squashed) */
    uint16_t dispatch;  /* entries allocated at the tail, at the end of the cycle */
} trace_record;

/* A reusable buffer of records and their µops, filled by readers and
 * generators. Capacities are fixed at creation so filling never allocates. */
typedef struct trace_batch {
    trace_record *records;
    size_t count;           /* records in use */
    size_t capacity;        /* records allocated */
    trace_uop *uops;
    size_t uop_count;       /* µops in use */
    size_t uop_capacity;    /* TRACE_MAX_RECORD_UOPS * capacity */
    uint16_t *head_valid;   /* NULL, or per record: the banks of the ROB's head row that hold a µop
                               in its cycle, before its commits (bit b: bank b; entries a branch
                               resolved in that cycle kills are gone already, since they may
                               retire in it), which the core model knows and records do not say;
                               the TraceDoctor writer shows them as VALID
                               (trace_batch_init_head_valid) */
} trace_batch;

/* The capacity, in records, of the batches every reader of a whole stream
 * uses (the tools, the core model, frame-parallel replay): big enough that
 * per-batch costs vanish, small enough that a batch and its µops stay in
 * the caches. */
#define TRACE_BATCH_RECORDS 4096

/* Allocates a batch for `capacity` records. Returns 0 or TEA_ERR_NOMEM. */
int trace_batch_init(trace_batch *batch, size_t capacity);

/* Gives a batch its head_valid array (capacity entries). 0 or TEA_ERR_NOMEM. */
int trace_batch_init_head_valid(trace_batch *batch);

/* Frees the batch's buffers (not the struct itself). */
void trace_batch_free(trace_batch *batch);

/* Empties the batch without freeing. */
static inline void trace_batch_clear(trace_batch *batch)
{
    batch->count = 0;
    batch->uop_count = 0;
}

/* True when the batch has room for another record with a full set of µops. */
static inline int trace_batch_has_room(const trace_batch *batch)
{
    return batch->count < batch->capacity
        && batch->uop_count + TRACE_MAX_RECORD_UOPS <= batch->uop_capacity;
}

/* Number of µops a record carries (commits plus the excepting one). */
static inline unsigned trace_record_uops(const trace_record *r)
{
    return r->n_commit + ((r->flags & TRACE_REC_EXCEPTION) ? 1u : 0u);
}

/* Appends a record whose µops were written at batch->uops + batch->uop_count
 * (it sets rec->first_uop). The batch must have room. */
static inline void trace_batch_commit(trace_batch *batch, trace_record *rec)
{
    assert(batch->count < batch->capacity && batch->uop_count + trace_record_uops(rec) <= batch->uop_capacity);
    rec->first_uop = (uint32_t)batch->uop_count;
    batch->records[batch->count++] = *rec;
    batch->uop_count += trace_record_uops(rec);
}

/*
 * Validity checks shared by every reader and writer: the window bookkeeping of
 * one record against the ROB window size before it. Returns 0 and stores the
 * window size after the record in *after, or TEA_ERR_FORMAT with a message
 * describing the impossible state (the caller prefixes the location).
 */
int trace_record_check(const trace_record *r, const trace_uop *uops, unsigned width,
                       unsigned rob_size, unsigned window_before, unsigned *window_after);

/* What readers check of each record they decode: trace_record_check, and an
 * excepting µop carrying FL-EX. Same results and messages. */
int trace_record_check_read(const trace_record *r, const trace_uop *uops, unsigned width, unsigned rob_size,
                            unsigned window_before, unsigned *window_after);

#endif
