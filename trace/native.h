/*
 * native.h: encoding of the native trace format (docs/trace-format.md).
 *
 * Internal to trace/. A native trace is a sequence of zstd frames:
 *   header (skippable) · data frames (records) · index (skippable) · footer (skippable).
 * This module encodes and decodes the pieces; reader.c and writer.c do the
 * file handling.
 */
#ifndef TEA_TRACE_NATIVE_H
#define TEA_TRACE_NATIVE_H

#include "record.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#define TRACE_NATIVE_VERSION_MAJOR 1
#define TRACE_NATIVE_VERSION_MINOR 0
/* Minor version of a footer that refers to an objects frame (objects.h). */
#define TRACE_NATIVE_VERSION_MINOR_OBJECTS 1
/* The footer's minor version when the objects frame holds a run's fields. */
#define TRACE_NATIVE_VERSION_MINOR_RUN 2
/* Footer flags bit (beside the trace_notes flags): an objects frame stands
 * between the index and the footer. */
#define TRACE_NATIVE_FOOTER_FLAG_OBJECTS 0x80000000u
/* Skippable-frame variant used for the header, index and footer frames. */
#define TRACE_NATIVE_SKIPPABLE_VARIANT 0xE
/* Eight-byte magics at the start of each metadata frame. */
#define TRACE_NATIVE_HEADER_MAGIC "TEATRACE"
#define TRACE_NATIVE_INDEX_MAGIC "TEAINDEX"
#define TRACE_NATIVE_FOOTER_MAGIC "TEAFOOTR"
#define TRACE_NATIVE_MAGIC_SIZE 8
/* Size of the footer frame's content (fixed, so it can be found from the end). */
#define TRACE_NATIVE_FOOTER_SIZE 176
/* Size of one index entry. */
#define TRACE_NATIVE_INDEX_ENTRY_SIZE 48
/* Longest encoded record: tag, ext, cycle, µops with PSVs and offsets, counts. */
#define TRACE_NATIVE_MAX_RECORD_BYTES (2 + 10 + TRACE_MAX_RECORD_UOPS * (10 + 3 + 2) + 4 * 5)

/* The little-endian unsigned integer of `bytes` (1-8) bytes at p. */
uint64_t trace_native_get_le(const uint8_t *p, unsigned bytes);

/* A growable byte buffer. */
typedef struct trace_native_buffer {
    uint8_t *data;
    size_t size, capacity;
} trace_native_buffer;

int trace_native_buffer_reserve(trace_native_buffer *b, size_t extra);
void trace_native_buffer_free(trace_native_buffer *b);

/* Serializes the header frame's content (magic, version, fields) into `out`
 * (cleared first). */
int trace_native_header_encode(const trace_header *h, trace_native_buffer *out);

/* Parses a header frame's content into `h` (initialized here). Errors
 * (TEA_ERR_FORMAT): wrong magic, unsupported major version, malformed or
 * missing fields, values out of range. */
int trace_native_header_decode(const uint8_t *data, size_t size, trace_header *h);

/* True when `data` starts with the header magic. */
int trace_native_is_header(const uint8_t *data, size_t size);

/* Values of a record's tag byte. */
#define TRACE_NATIVE_TAG_VALUES 256

/* Per-frame encoding state: the previous record's cycle and µop PC. */
typedef struct trace_native_codec {
    unsigned width;        /* commit width: a dispatch of this many is implicit */
    uint64_t prev_cycle;
    uint64_t prev_pc;
    int frame_started;     /* 0 until the frame's first record (absolute cycle) */
    unsigned tag_rob;      /* ROB size tag_info was filled for (0: not yet this frame) */
    uint64_t tag_info[TRACE_NATIVE_TAG_VALUES]; /* trace_native_decode_batch's facts per tag byte,
                                                   for `width` and `tag_rob` */
} trace_native_codec;

/* Starts a new frame (resets deltas). */
void trace_native_codec_frame_start(trace_native_codec *c, unsigned width);

/* Appends one record to `out`; the buffer must have TRACE_NATIVE_MAX_RECORD_BYTES
 * free. Returns the bytes written. */
size_t trace_native_encode_record(trace_native_codec *c, const trace_record *r, const trace_uop *uops, uint8_t *out);

/* Decodes one record from data[*pos..size) into *r and uops[] (r->first_uop is
 * left alone) and advances *pos. TEA_ERR_FORMAT for truncated or malformed
 * bytes (message without location). Cycle order and window checks are the
 * caller's. */
int trace_native_decode_record(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos, trace_record *r,
                               trace_uop *uops);

/* The stream state records are checked against while decoding. */
typedef struct trace_native_stream {
    unsigned rob_size;      /* ROB entries (header) */
    unsigned window;        /* ROB entries before the next record */
    uint64_t last_cycle;    /* previous record's cycle, when totals->records > 0 */
    trace_totals *totals;   /* counts of the records accepted so far */
} trace_native_stream;

/* The fast path of reading: decodes, checks and counts records from
 * data[*pos..size) straight into `batch` while trace_batch_has_room(batch),
 * and advances *pos, the codec and the stream past them. Each record it takes
 * is exactly what trace_native_decode_record followed by the reader's cycle-order,
 * trace_record_check and FL-EX checks would accept, decoded identically, and
 * the totals grow as trace_totals_add would make them. It stops before a
 * frame's first record, a record that would fail any of those checks, one
 * with a number longer than nine bytes, and records near the end of the
 * data; the caller then handles that record the reference way, which reports
 * the exact error. Returns the number of records added (0 changes nothing). */
size_t trace_native_decode_batch(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos,
                                 trace_native_stream *s, trace_batch *batch);

/* Magic of a context frame: the skippable frame that precedes a data frame
 * of a trace with calling contexts (docs/trace-format.md "Context frames"). */
#define TRACE_NATIVE_CONTEXTS_MAGIC "TEACTXCH"

/* One change of calling context within a data frame. */
typedef struct trace_native_context_change {
    uint32_t uop;  /* the µop's index in its frame (commits and excepting µops, in record order;
                      a frame's content is under 2^32 bytes, and a µop takes one at least) */
    uint32_t ctx;  /* its context, and that of the µops after it until the next change */
} trace_native_context_change;

/* A data frame's contexts: the changes, and where applying them stands.
 * Zeroed is empty (every µop in context 0, the root). */
typedef struct trace_native_contexts {
    trace_native_context_change *changes; /* increasing µop indices */
    size_t count, capacity;
    size_t next;      /* the next change to apply */
    uint64_t uops;    /* µops of the frame seen so far */
    uint32_t ctx;     /* context of the µop seen last (0 before the first) */
    uint32_t max_ctx; /* largest context among the changes */
    int borrowed;     /* the changes are another's (a frame handed over): never grown or freed here */
} trace_native_contexts;

/* Starts a frame: no changes, no µops seen (the memory is kept, unless
 * borrowed: then it is let go). */
void trace_native_contexts_frame_start(trace_native_contexts *c);

void trace_native_contexts_free(trace_native_contexts *c);

/* Writing: notes the contexts of the next `n` µops of the frame (a change
 * wherever one differs from the µop before it). 0 or TEA_ERR_NOMEM. */
int trace_native_contexts_note(trace_native_contexts *c, const trace_uop *uops, size_t n);

/* The context frame's content for the changes noted (magic, then a zstd
 * frame of varints), into `out` (cleared first); nothing when no µop left
 * the root. `*cctx` is the compression context it sets up on first use
 * (NULL before) and keeps for the next frame; the caller frees it with
 * ZSTD_freeCCtx. 0, TEA_ERR_NOMEM, TEA_ERR_USAGE (changes beyond what a
 * frame holds) or TEA_ERR_IO (compression failed). */
int trace_native_contexts_encode(const trace_native_contexts *c, ZSTD_CCtx **cctx, trace_native_buffer *out);

/* Reading: the changes of a context frame's content (`size` bytes with the
 * magic) into `c`, which starts its frame, for a data frame of
 * `frame_bytes` bytes of content: it holds at most that many µops, so no
 * more changes are taken (nor allocated for). TEA_ERR_FORMAT (a message
 * without location) for damaged content; TEA_ERR_NOMEM. */
int trace_native_contexts_decode(trace_native_contexts *c, const uint8_t *data, size_t size, size_t frame_bytes);

/* Reading: gives the next `n` µops of the frame their contexts. */
void trace_native_contexts_apply(trace_native_contexts *c, trace_uop *uops, size_t n);

/* Reading, at the frame's end: TEA_ERR_FORMAT when a change names a µop
 * beyond the frame's, or a context `limit` or above (the trace's context
 * count); else 0. */
int trace_native_contexts_check(const trace_native_contexts *c, uint32_t limit);

/* What the index says about one data frame. */
typedef struct trace_native_index_entry {
    uint64_t offset;          /* file offset of the frame */
    uint64_t compressed_size; /* bytes in the file */
    uint64_t first_cycle, last_cycle;
    uint32_t records;
    uint32_t content_size;    /* decompressed bytes */
    uint32_t window;          /* ROB entries in flight before the frame's first record */
    uint32_t reserved;        /* zero when written; readers refuse anything else */
} trace_native_index_entry;

void trace_native_index_entry_encode(const trace_native_index_entry *e, uint8_t out[TRACE_NATIVE_INDEX_ENTRY_SIZE]);
void trace_native_index_entry_decode(const uint8_t in[TRACE_NATIVE_INDEX_ENTRY_SIZE], trace_native_index_entry *e);

/* Folds an index entry into a running 64-bit digest (used to check a streamed
 * trace's frames against its index in constant memory). */
uint64_t trace_native_index_digest(uint64_t digest, const trace_native_index_entry *e);

/* The footer's content. */
typedef struct trace_native_footer {
    trace_totals totals;
    trace_notes notes;
    uint64_t data_frames;
    uint64_t index_offset;   /* file offset of the index frame */
    int has_objects;         /* an objects frame follows the index (minor 1) */
    int has_run;             /* ... holding a run's fields (minor 2; written, not read) */
} trace_native_footer;

void trace_native_footer_encode(const trace_native_footer *f, uint8_t out[TRACE_NATIVE_FOOTER_SIZE]);
/* TEA_ERR_FORMAT for a wrong magic or version, or the objects flag in a
 * minor-0 footer. */
int trace_native_footer_decode(const uint8_t *data, size_t size, trace_native_footer *f);

#endif
