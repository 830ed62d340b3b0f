/*
 * reader.c: the format-detecting trace reader (see trace.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"
#include "input.h"
#include "native.h"
#include "objects.h"
#include "tracedoctor.h"
#include "../common/error.h"
#include "../common/pool.h"
#include "../common/threads.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tokens decoded per read from the input. */
#define TOKENS_PER_CHUNK 8192
/* Bytes needed to recognise a native header: skippable header plus magic. */
#define DETECT_BYTES (8 + TRACE_NATIVE_MAGIC_SIZE)
/* Bytes peeked at the start: enough for a native header and one token. */
#define PEEK_BYTES (DETECT_BYTES > TRACE_TD_TOKEN_SIZE ? DETECT_BYTES : TRACE_TD_TOKEN_SIZE)
/* Batches the background thread decodes ahead of the caller (besides the
 * one the caller holds). */
#define AHEAD_SLOTS 4
/* Longest error message carried from the background thread (the size of
 * common/error.c's per-thread buffer). */
#define AHEAD_MESSAGE_MAX 1024
/* Native traces: decompressed bytes of the next frame that the background
 * thread reads ahead per byte of the current frame it decodes, as a
 * fraction. Above one, so that the next frame is usually complete before
 * the current one ends and decompression spreads evenly over decoding. */
#define LOOKAHEAD_RATIO_NUM 5
#define LOOKAHEAD_RATIO_DEN 4
/* Decompressed bytes of the next frame read ahead at a time while the queue
 * of decoded batches is full. */
#define LOOKAHEAD_IDLE_STEP (64u << 10)

/* One batch decoded by the background thread, with everything the caller
 * sees once it returns that batch: the result of the read (and its message),
 * and the totals and statistics as they stood after it. */
typedef struct ahead_slot {
    trace_batch batch;        /* records and µops; buffers traded with the caller's */
    int rc;                   /* 0 or the TEA_ERR_* code of the read */
    trace_totals totals;
    trace_read_stats stats;
    char message[AHEAD_MESSAGE_MAX]; /* the error message when rc != 0 */
} ahead_slot;

/* The background decoder: a thread that reads, decompresses, decodes and
 * checks batches exactly as synchronous reads would, into a queue of
 * AHEAD_SLOTS slots of the caller's batch capacity. Once started, the thread
 * alone touches the input and the decoding state of the reader, until it is
 * joined. */
typedef struct decoder_thread {
    pool_threads thread;      /* the thread, drawn on the thread budget (common/pool.h) */
    pthread_mutex_t lock;
    pthread_cond_t filled_cond; /* a slot was filled */
    pthread_cond_t freed_cond;  /* a slot was taken, or stop was set */
    ahead_slot slots[AHEAD_SLOTS];
    size_t capacity;          /* records per slot batch (the caller's capacity) */
    size_t uop_capacity;      /* µops per slot batch */
    unsigned next;            /* slot the caller takes next */
    unsigned filled;          /* slots filled and not yet taken */
    int finished;             /* the thread published its last slot (end of stream or error) */
    int stop;                 /* the thread must exit after its current batch */
    int running;              /* the thread was started and not joined yet */
    size_t drained;           /* records of slot `next` already copied out (capacity change) */
} decoder_thread;

struct trace_reader {
    trace_input *in;
    trace_format format;
    trace_header header;
    trace_totals totals;      /* decoding state: the records decoded so far */
    trace_read_stats stats;   /* decoding state */
    trace_totals shown_totals;     /* trace_reader_totals: the records returned so far */
    trace_read_stats shown_stats;  /* trace_reader_stats likewise */
    int failed;               /* an error was returned: only close is allowed */
    int done;                 /* end of stream reached */
    int background;           /* decode ahead on a background thread */
    int started;              /* trace_reader_read was called */
    decoder_thread *ahead;    /* the background decoder, NULL when reading synchronously */
    unsigned window;          /* ROB entries before the next record */
    uint64_t last_cycle;
    /* TraceDoctor */
    trace_td_decoder td;
    const uint8_t *tokens;    /* the current run of whole tokens */
    size_t token_count, token_pos;
    const uint8_t *rest; /* the chunk's bytes after the current run */
    size_t rest_size;
    uint8_t carry[TRACE_TD_TOKEN_SIZE]; /* a token cut by the end of a chunk, and its bytes so far */
    size_t carry_size;
    int input_exhausted;
    uint64_t record_token;    /* the token of the record being accepted (messages only) */
    unsigned frame_threads; /* trace_open_options.threads */
    trace_token_sink token_sink; /* trace_reader_set_token_sink, or NULL */
    void *token_ctx;
    /* native */
    trace_native_codec codec;
    const uint8_t *frame;     /* current data frame content */
    size_t frame_size, frame_pos;
    trace_native_index_entry frame_entry; /* summary of the current data frame */
    int in_data_frame;
    uint64_t data_digest;     /* digest of data frames seen, to compare with the index */
    int seen_index, seen_footer;
    uint64_t index_offset;    /* file offset of the index frame, once seen */
    trace_object_list objects; /* executable objects and recorded thread, preloaded at open */
    int objects_preloaded;    /* objects came from the footer at open (seekable file) */
    int seen_objects;         /* decoding state: the objects frame was read in the stream */
    trace_object_list stream_objects; /* decoding state: the objects frame's content, unless preloaded */
    int shown_end;            /* trace_reader_read returned the end: stream_objects may be shown */
    uint64_t index_end;       /* file offset just after the index frame, once seen */
    trace_native_contexts contexts; /* decoding state: the calling contexts of the data frame */
    trace_native_buffer context_frame; /* a context frame's content, until its data frame comes */
    int contexts_pending;     /* a context frame was read; the next data frame is its */
    uint64_t contexts_offset; /* file offset of the context frame of the data frame */
    uint32_t max_ctx;         /* largest context of a µop read */
};

const trace_header *trace_reader_header(const trace_reader *r)
{
    return &r->header;
}

const trace_totals *trace_reader_totals(const trace_reader *r)
{
    return &r->shown_totals;
}

const trace_read_stats *trace_reader_stats(const trace_reader *r)
{
    return &r->shown_stats;
}

static void ahead_free(trace_reader *r);

void trace_reader_close(trace_reader *r)
{
    if (!r)
        return;
    ahead_free(r);
    trace_input_close(r->in);
    trace_header_free(&r->header);
    trace_object_list_free(&r->objects);
    trace_object_list_free(&r->stream_objects);
    trace_native_contexts_free(&r->contexts);
    trace_native_buffer_free(&r->context_frame);
    free(r);
}

/* The objects the caller may see: those preloaded at open, or once the
 * caller has been handed the end of the stream (the background decoder has
 * finished then), those the stream carried. */
static const trace_object_list *shown_objects(const trace_reader *r)
{
    return r->objects_preloaded || !r->shown_end ? &r->objects : &r->stream_objects;
}

int trace_reader_objects(trace_reader *r, const trace_object **objs, size_t *count)
{
    const trace_object_list *l = shown_objects(r);
    *objs = l->items;
    *count = l->count;
    return TEA_OK;
}

int trace_reader_run(trace_reader *r, const trace_run **run)
{
    *run = &shown_objects(r)->run;
    return TEA_OK;
}

int trace_reader_thread(trace_reader *r, uint32_t *tid, uint32_t *threads_seen)
{
    const trace_object_list *l = shown_objects(r);
    *tid = l->tid;
    *threads_seen = l->threads_seen;
    return TEA_OK;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Whether the first bytes of an uncompressed input can start TraceDoctor
 * tokens: a token always holds zero bytes (the issue latencies are 0, the
 * PCs are zero-extended addresses of at most 48 bits, the flag words use
 * 12 of their 16 bits), while text (a README, a CSV, a log) holds none.
 * `head` holds the first `got` bytes (at most one token's).
 */
static int could_be_tokens(const uint8_t *head, size_t got)
{
    return memchr(head, 0, got) != NULL;
}

/* Reads the next chunk of input into r->rest; 0 bytes at the end. */
static int read_chunk(trace_reader *r)
{
    size_t want = (size_t)TOKENS_PER_CHUNK * TRACE_TD_TOKEN_SIZE;
    int rc;

    if (r->stats.compressed)
        rc = trace_input_next_chunk(r->in, want, &r->rest, &r->rest_size);
    else
        rc = trace_input_next_raw_chunk(r->in, want, &r->rest, &r->rest_size);
    return rc;
}

/* Makes the next whole tokens current (token_count of them at r->tokens);
 * sets input_exhausted at the end. Chunks usually hold whole tokens, but one
 * that ends where a zstd frame does may cut a token: its bytes wait in the
 * carry until the next chunk completes it. A length that is not a multiple
 * of the token size is an error. */
static int fill_tokens(trace_reader *r)
{
    int rc;

    r->token_count = r->token_pos = 0;
    for (;;) {
        size_t whole, take;
        if (r->rest_size == 0) {
            if ((rc = read_chunk(r)))
                return rc;
            if (r->rest_size == 0)
                break;
        }
        if (r->carry_size) {
            take = TRACE_TD_TOKEN_SIZE - r->carry_size;
            if (take > r->rest_size)
                take = r->rest_size;
            memcpy(r->carry + r->carry_size, r->rest, take);
            r->carry_size += take;
            r->rest += take;
            r->rest_size -= take;
            if (r->carry_size < TRACE_TD_TOKEN_SIZE)
                continue;
            r->carry_size = 0;
            r->tokens = r->carry;
            r->token_count = 1;
            return TEA_OK;
        }
        whole = r->rest_size / TRACE_TD_TOKEN_SIZE;
        if (whole) {
            r->tokens = r->rest;
            r->token_count = whole;
            r->rest += whole * TRACE_TD_TOKEN_SIZE;
            r->rest_size -= whole * TRACE_TD_TOKEN_SIZE;
            return TEA_OK;
        }
        assert(r->rest_size < TRACE_TD_TOKEN_SIZE); /* no whole token left: it fits the carry */
        memcpy(r->carry, r->rest, r->rest_size);
        r->carry_size = r->rest_size;
        r->rest_size = 0;
    }
    r->input_exhausted = 1;
    if (r->carry_size) {
        uint64_t whole = r->stats.units;
        return error_set(TEA_ERR_FORMAT,
                         "%s: %s length is not a multiple of %d bytes: %zu stray bytes after token %llu (byte %llu)",
                         trace_input_name(r->in), r->stats.compressed ? "decompressed" : "file", TRACE_TD_TOKEN_SIZE,
                         r->carry_size, (unsigned long long)whole, (unsigned long long)(whole * TRACE_TD_TOKEN_SIZE));
    }
    return TEA_OK;
}

/* Pushes the next token through the decoder; *ready when a record came out. */
static int push_token(trace_reader *r, trace_record *rec, trace_uop *uops, int *ready)
{
    const uint8_t *token = r->tokens + r->token_pos * TRACE_TD_TOKEN_SIZE;
    int rc = trace_td_decoder_push_bytes(&r->td, token, rec, uops, ready);

    r->token_pos++;
    r->stats.units = r->td.tokens;
    if (rc)
        return error_prefix(rc, "%s: ", trace_input_name(r->in));
    if (r->token_sink) {
        assert(!r->ahead); /* tokens are decoded on the caller's thread (start_background) */
        r->token_sink(r->token_ctx, token);
    }
    return TEA_OK;
}

int trace_reader_set_token_sink(trace_reader *r, trace_token_sink sink, void *ctx)
{
    if (!sink)
        return error_set(TEA_ERR_USAGE, "%s: no token sink", trace_input_name(r->in));
    if (r->format != TRACE_FORMAT_TRACEDOCTOR)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: a %s trace has no TraceDoctor tokens", trace_input_name(r->in),
                         trace_format_name(r->format));
    if (r->started)
        return error_set(TEA_ERR_USAGE, "%s: a token sink must be set before the first read",
                         trace_input_name(r->in));
    /* The tokens open decoded are still in the current run. */
    assert(r->token_pos <= r->token_count && r->td.tokens == r->token_pos);
    for (size_t i = 0; i < r->token_pos; i++)
        sink(ctx, r->tokens + i * TRACE_TD_TOKEN_SIZE);
    r->token_sink = sink;
    r->token_ctx = ctx;
    return TEA_OK;
}

trace_format trace_reader_format(const trace_reader *r)
{
    return r->format;
}

static int open_tracedoctor(trace_reader *r, const trace_open_options *opts)
{
    trace_record rec;
    trace_uop uops[TRACE_MAX_RECORD_UOPS];
    int ready, rc;

    r->format = TRACE_FORMAT_TRACEDOCTOR;
    if (opts && opts->rob_size)
        r->header.rob_size = opts->rob_size;
    if (opts && opts->llc_latency)
        r->header.llc_latency = opts->llc_latency;
    if (opts && opts->clock_hz)
        r->header.clock_hz = opts->clock_hz;
    r->frame_threads = opts ? opts->threads : 0;
    r->header.commit_width = TRACE_TD_SLOTS;
    if (r->header.rob_size % TRACE_TD_SLOTS || r->header.rob_size > TRACE_TD_MAX_ROB)
        return error_set(TEA_ERR_USAGE, "ROB size %u: TraceDoctor ROBs have a multiple of %d entries, at most %d",
                         r->header.rob_size, TRACE_TD_SLOTS, TRACE_TD_MAX_ROB);
    if ((rc = trace_header_set(&r->header.source_format, "tracedoctor")))
        return rc;
    trace_td_decoder_init(&r->td, r->header.rob_size, r->header.llc_latency);
    if ((rc = fill_tokens(r)))
        return rc;
    if (r->token_count == 0)
        return error_set(TEA_ERR_FORMAT, "%s: no TraceDoctor tokens (empty %s)", trace_input_name(r->in),
                         r->stats.compressed ? "decompressed stream" : "file");
    /* Decode the first token now: it fixes the initial ROB occupancy. */
    if ((rc = push_token(r, &rec, uops, &ready)))
        return rc;
    r->header.initial_window = r->td.initial_window;
    r->window = r->td.initial_window;
    return TEA_OK;
}

/* Reads a native trace's header; its objects at once when the input can be
 * read at any offset: the file at `path`, or else the `size` bytes at
 * `data`. */
static int open_native(trace_reader *r, const char *path, const void *data, size_t size)
{
    trace_input_frame frame;
    int more, rc;

    r->format = TRACE_FORMAT_NATIVE;
    if ((rc = trace_input_next_frame(r->in, &frame, &more)))
        return rc;
    if (!more || !frame.skippable || !trace_native_is_header(frame.data, frame.size))
        return error_set(TEA_ERR_FORMAT, "%s: native trace header missing", trace_input_name(r->in));
    trace_header_free(&r->header);
    if ((rc = trace_native_header_decode(frame.data, frame.size, &r->header)))
        return error_prefix(rc, "%s: header: ", trace_input_name(r->in));
    r->window = r->header.initial_window;
    /* A seekable file shows its objects at once; a stream when it reaches them. */
    if ((rc = path ? trace_objects_preload(path, &r->objects)
                   : trace_objects_preload_memory(data, size, trace_input_name(r->in), &r->objects)))
        return rc;
    r->objects_preloaded = trace_object_list_present(&r->objects);
    return TEA_OK;
}

/* trace_reader_open of the file at `path`, or when `path` is NULL,
 * trace_reader_open_memory of the `size` bytes at `data` called `name`. */
static int reader_open(trace_reader **out, const char *path, const void *data, size_t size, const char *name,
                       const trace_open_options *opts)
{
    trace_reader *r = calloc(1, sizeof *r);
    uint8_t head[PEEK_BYTES];
    size_t got;
    uint32_t magic;
    int rc;

    *out = NULL;
    if (!r)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    trace_header_init(&r->header);
    r->background = threads_processors() > 1;
    if ((rc = path ? trace_input_open(&r->in, path) : trace_input_open_memory(&r->in, data, size, name)))
        goto fail;
    if ((rc = trace_input_peek(r->in, head, sizeof head, &got)))
        goto fail;
    if (got == 0) {
        rc = error_set(TEA_ERR_FORMAT, "%s: empty file", trace_input_name(r->in));
        goto fail;
    }
    magic = got >= 4 ? le32(head) : 0;
    if ((magic & TRACE_INPUT_SKIPPABLE_MASK) == TRACE_INPUT_SKIPPABLE_MAGIC && got >= DETECT_BYTES
        && trace_native_is_header(head + 8, got - 8)) {
        r->stats.compressed = 1;
        rc = open_native(r, path, data, size);
    } else {
        r->stats.compressed =
            magic == TRACE_INPUT_ZSTD_MAGIC || (magic & TRACE_INPUT_SKIPPABLE_MASK) == TRACE_INPUT_SKIPPABLE_MAGIC;
        if (!r->stats.compressed && !could_be_tokens(head, got < TRACE_TD_TOKEN_SIZE ? got : TRACE_TD_TOKEN_SIZE))
            rc = error_set(TEA_ERR_FORMAT,
                           "%s: not a trace (format detection failed): neither a native trace nor zstd-compressed "
                           "or raw TraceDoctor tokens (its first bytes hold no zero byte, as text does)",
                           trace_input_name(r->in));
        else
            rc = open_tracedoctor(r, opts);
    }
    if (rc)
        goto fail;
    r->stats.format = r->format;
    r->shown_totals = r->totals;
    r->shown_stats = r->stats;
    *out = r;
    return TEA_OK;

fail:
    trace_reader_close(r);
    return rc;
}

int trace_reader_open(trace_reader **out, const char *path, const trace_open_options *opts)
{
    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(path != NULL);
    return reader_open(out, path, NULL, 0, NULL, opts);
}

int trace_reader_open_memory(trace_reader **out, const void *data, size_t size, const char *name,
                             const trace_open_options *opts)
{
    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(data != NULL || size == 0);
    TEA_ASSERT_ARG(name != NULL);
    return reader_open(out, NULL, data, size, name, opts);
}

/* Describes where the record being accepted came from, for messages only. */
static void describe_location(const trace_reader *r, char *where, size_t size)
{
    if (r->format == TRACE_FORMAT_NATIVE)
        snprintf(where, size, "record %llu (frame at byte %llu)", (unsigned long long)r->totals.records,
                 (unsigned long long)r->frame_entry.offset);
    else
        snprintf(where, size, "token %llu", (unsigned long long)r->record_token);
}

/* Checks a decoded record against the stream so far and adds it to the
 * totals. */
static int accept_record(trace_reader *r, const trace_record *rec, const trace_uop *uops)
{
    char where[96];
    unsigned after;
    int rc;

    if (r->totals.records > 0 && rec->cycle <= r->last_cycle) {
        describe_location(r, where, sizeof where);
        return error_set(TEA_ERR_FORMAT, "%s: %s: cycle %llu does not follow cycle %llu", trace_input_name(r->in),
                         where, (unsigned long long)rec->cycle, (unsigned long long)r->last_cycle);
    }
    if ((rc = trace_record_check_read(rec, uops, r->header.commit_width, r->header.rob_size, r->window, &after))) {
        describe_location(r, where, sizeof where);
        return error_prefix(rc, "%s: %s (cycle %llu): ", trace_input_name(r->in), where,
                            (unsigned long long)rec->cycle);
    }
    r->window = after;
    assert(r->window <= r->header.rob_size); /* trace_record_check keeps the window within the ROB */
    r->last_cycle = rec->cycle;
    trace_totals_add(&r->totals, rec, uops);
    return TEA_OK;
}

/* accept_record for a record of the TraceDoctor decoder in the common
 * case, without a call or a loop per event: checks the cycle order, the
 * window, the commit and retire counts and the last µop's offset (the
 * µops' order and PSVs are as the decoder builds them, which the sanitized
 * build asserts with trace_record_check_read) and adds the record to the
 * totals, its events through `psvs`. Returns 0, changing nothing, for a
 * record that fails a check: accept_record then reports it. On the 2·10^7-
 * cycle TraceDoctor trace of bench/replay, (b) took 4-7 % less time. */
static inline int accept_td_record(trace_reader *r, const trace_record *rec, const trace_uop *uops, trace_psv_counter *psvs)
{
    const unsigned n = trace_record_uops(rec), window = r->window;
    const unsigned after = window - rec->retire - rec->squash + rec->dispatch;
    trace_totals *t = &r->totals;

    if ((t->records > 0 && rec->cycle <= r->last_cycle) | (rec->n_commit > r->header.commit_width) | (rec->retire < n)
        | (rec->retire > window) | (rec->squash > window - rec->retire) | (after > r->header.rob_size)
        | (n > 0 && uops[n - 1].offset >= rec->retire))
        return 0;
#ifndef NDEBUG
    {
        /* The reference check agrees (into a window of its own: nothing
         * the reader keeps changes inside the assert). */
        unsigned checked;
        assert(trace_record_check_read(rec, uops, r->header.commit_width, r->header.rob_size, window, &checked)
                   == TEA_OK
               && checked == after);
    }
#endif
    r->window = after;
    r->last_cycle = rec->cycle;
    trace_totals_add_record(t, rec);
    for (unsigned i = 0; i < n; i++)
        trace_psv_count(psvs, uops[i].psv, t->events);
    return 1;
}

/* The token whose record comes out once `pushed` tokens are decoded: a
 * record waits for the next token's indices, so it is the one before the
 * last, or the last at the end of the stream. */
static uint64_t record_token_of(uint64_t pushed, int at_end)
{
    return pushed - (at_end ? 1 : 2);
}

/* Decodes the current run of tokens in one go (trace_td_decoder_push_run)
 * and accepts the records it appended, each after handing its completing
 * token to the sink, as token by token: the first fault in stream order is
 * reported (a record's before the faulty token's) and no token past it is
 * handed out. *decoded: the tokens decoded, 0 when the batch lacks room for
 * a run. */
static inline int read_token_run(trace_reader *r, trace_batch *batch, trace_psv_counter *psvs, size_t *decoded)
{
    const uint8_t *tokens = r->tokens + r->token_pos * TRACE_TD_TOKEN_SIZE;
    const size_t first = batch->count;
    const uint64_t pushed_before = r->td.tokens;
    size_t used = 0;
    int rc = trace_td_decoder_push_run(&r->td, tokens, r->token_count - r->token_pos, batch, &used), arc;

    assert(batch->count - first == used); /* each token decoded completes one record */
    r->token_pos += used;
    r->stats.units = r->td.tokens;
    for (size_t i = 0; i < used; i++) {
        const trace_record *rec = &batch->records[first + i];
        const trace_uop *uops = batch->uops + rec->first_uop;
        uint64_t pushed;
        if (r->token_sink) {
            assert(!r->ahead); /* tokens are decoded on the caller's thread (start_background) */
            r->token_sink(r->token_ctx, tokens + i * TRACE_TD_TOKEN_SIZE);
        }
        if (accept_td_record(r, rec, uops, psvs))
            continue;
        pushed = pushed_before + i + 1; /* token by token, rec would come out here */
        r->record_token = record_token_of(pushed, 0);
        if ((arc = accept_record(r, rec, uops))) {
            r->stats.units = pushed; /* as when decoding token by token */
            return arc;
        }
    }
    *decoded = used;
    return rc ? error_prefix(rc, "%s: ", trace_input_name(r->in)) : TEA_OK;
}

static int read_tracedoctor(trace_reader *r, trace_batch *batch)
{
    trace_psv_counter psvs = { 0, 0 };
    int rc = TEA_OK;

    while (trace_batch_has_room(batch) && !r->done) {
        /* Decoded in place: a record copied through a local would stall on
         * the store of first_uop (store forwarding). */
        trace_record *rec = &batch->records[batch->count];
        trace_uop *uops = batch->uops + batch->uop_count;
        int ready = 0;

        if (r->token_pos == r->token_count) {
            if (!r->input_exhausted && (rc = fill_tokens(r)))
                break;
            if (r->token_pos == r->token_count) {
                trace_td_decoder_finish(&r->td, rec, uops, &ready);
                r->done = 1;
            }
        }
        if (!r->done && r->td.have_pending) {
            size_t decoded = 0;
            if ((rc = read_token_run(r, batch, &psvs, &decoded)))
                break;
            if (decoded > 0)
                continue; /* otherwise the batch has room for one record: token by token */
        }
        if (!r->done && (rc = push_token(r, rec, uops, &ready)))
            break;
        if (!ready)
            continue;
        r->record_token = record_token_of(r->td.tokens, r->done);
        if (!accept_td_record(r, rec, uops, &psvs) && (rc = accept_record(r, rec, uops)))
            break;
        rec->first_uop = (uint32_t)batch->uop_count;
        batch->count++;
        batch->uop_count += trace_record_uops(rec);
    }
    trace_psv_counter_flush(&psvs, r->totals.events);
    if (rc)
        return rc;
    r->stats.notes.counter_wraps = r->td.stats.counter_wraps;
    r->stats.memlat_nonzero = r->td.stats.memlat_nonzero;
    r->stats.dcache_misses = r->td.stats.dcache_misses;
    r->stats.index_resyncs = r->td.stats.index_resyncs;
    if (r->stats.dcache_misses > 0 && r->stats.memlat_nonzero == 0)
        r->stats.notes.flags |= TRACE_NOTE_ST_LLC_UNAVAILABLE;
    else
        r->stats.notes.flags &= ~TRACE_NOTE_ST_LLC_UNAVAILABLE;
    r->stats.bytes_in = trace_input_offset(r->in);
    r->stats.frames = trace_input_frames(r->in);
    return TEA_OK;
}

/* Closes the bookkeeping of the data frame just finished. */
static void end_data_frame(trace_reader *r)
{
    if (r->in_data_frame)
        r->data_digest = trace_native_index_digest(r->data_digest, &r->frame_entry);
    r->in_data_frame = 0;
}

static int read_index(trace_reader *r, const trace_input_frame *f)
{
    uint64_t count, digest = 0;
    if (r->seen_index)
        return error_set(TEA_ERR_FORMAT, "%s: second index frame at byte %llu", trace_input_name(r->in),
                         (unsigned long long)f->offset);
    if (f->size < TRACE_NATIVE_MAGIC_SIZE + 8)
        return error_set(TEA_ERR_FORMAT, "%s: index frame at byte %llu is truncated", trace_input_name(r->in),
                         (unsigned long long)f->offset);
    count = 0;
    for (int i = 7; i >= 0; i--)
        count = count << 8 | f->data[TRACE_NATIVE_MAGIC_SIZE + i];
    if (count != (f->size - TRACE_NATIVE_MAGIC_SIZE - 8) / TRACE_NATIVE_INDEX_ENTRY_SIZE
        || (f->size - TRACE_NATIVE_MAGIC_SIZE - 8) % TRACE_NATIVE_INDEX_ENTRY_SIZE)
        return error_set(TEA_ERR_FORMAT, "%s: index frame at byte %llu is malformed", trace_input_name(r->in),
                         (unsigned long long)f->offset);
    for (uint64_t i = 0; i < count; i++) {
        trace_native_index_entry e;
        trace_native_index_entry_decode(f->data + TRACE_NATIVE_MAGIC_SIZE + 8 + i * TRACE_NATIVE_INDEX_ENTRY_SIZE, &e);
        if (e.reserved)
            return error_set(TEA_ERR_FORMAT, "%s: index at byte %llu: entry %llu: reserved bytes are not zero",
                             trace_input_name(r->in), (unsigned long long)f->offset, (unsigned long long)i);
        digest = trace_native_index_digest(digest, &e);
    }
    if (count != r->stats.frames || digest != r->data_digest)
        return error_set(TEA_ERR_FORMAT, "%s: index at byte %llu does not describe the %llu data frames read",
                         trace_input_name(r->in), (unsigned long long)f->offset, (unsigned long long)r->stats.frames);
    r->seen_index = 1;
    r->index_offset = f->offset;
    r->index_end = f->offset + f->compressed_size;
    return TEA_OK;
}

/* Reads the objects frame, which must follow the index; keeps its content
 * unless the objects were preloaded at open (the same bytes). Runs on
 * whichever thread decodes. */
static int read_objects(trace_reader *r, const trace_input_frame *f)
{
    trace_object_list list;
    size_t bad;
    int rc;

    if (r->seen_objects)
        return error_set(TEA_ERR_FORMAT, "%s: second objects frame at byte %llu", trace_input_name(r->in),
                         (unsigned long long)f->offset);
    if (!r->seen_index || f->offset != r->index_end)
        return error_set(TEA_ERR_FORMAT, "%s: objects frame at byte %llu does not follow the index",
                         trace_input_name(r->in), (unsigned long long)f->offset);
    memset(&list, 0, sizeof list);
    if ((rc = trace_object_list_decode(f->data, f->size, &list, &bad)))
        return error_prefix(rc, "%s: objects frame at byte %llu, ", trace_input_name(r->in),
                            (unsigned long long)f->offset);
    r->seen_objects = 1;
    if (r->objects_preloaded) {
        trace_object_list_free(&list);
    } else {
        trace_object_list_free(&r->stream_objects);
        r->stream_objects = list;
    }
    return TEA_OK;
}

/* Compares the footer with what was actually read. */
static int read_footer(trace_reader *r, const trace_input_frame *f)
{
    trace_native_footer footer;
    const trace_totals *a = &footer.totals, *b = &r->totals;
    char field[32];
    uint64_t va, vb;
    int rc = trace_native_footer_decode(f->data, f->size, &footer);

    if (rc)
        return error_prefix(rc, "%s: footer at byte %llu: ", trace_input_name(r->in), (unsigned long long)f->offset);
    if (!r->seen_index)
        return error_set(TEA_ERR_FORMAT, "%s: footer at byte %llu without an index", trace_input_name(r->in),
                         (unsigned long long)f->offset);
    if (footer.has_objects && !r->seen_objects)
        return error_set(TEA_ERR_FORMAT, "%s: footer at byte %llu refers to an objects frame, none was read",
                         trace_input_name(r->in), (unsigned long long)f->offset);
    if (!footer.has_objects && r->seen_objects)
        return error_set(TEA_ERR_FORMAT, "%s: footer at byte %llu does not refer to the objects frame read",
                         trace_input_name(r->in), (unsigned long long)f->offset);
    if (footer.data_frames != r->stats.frames)
        return error_set(TEA_ERR_FORMAT,
                         "%s: footer at byte %llu disagrees with the records: data_frames is %llu "
                         "in the footer, %llu read",
                         trace_input_name(r->in), (unsigned long long)f->offset, (unsigned long long)footer.data_frames,
                         (unsigned long long)r->stats.frames);
    if (footer.index_offset != r->index_offset)
        return error_set(TEA_ERR_FORMAT,
                         "%s: footer at byte %llu disagrees with the file: index_offset is %llu "
                         "in the footer, the index is at byte %llu",
                         trace_input_name(r->in), (unsigned long long)f->offset,
                         (unsigned long long)footer.index_offset, (unsigned long long)r->index_offset);
    if (trace_totals_difference(a, b, field, sizeof field, &va, &vb))
        return error_set(TEA_ERR_FORMAT,
                         "%s: footer at byte %llu disagrees with the records: %s is %llu in the "
                         "footer, %llu read",
                         trace_input_name(r->in), (unsigned long long)f->offset, field, (unsigned long long)va,
                         (unsigned long long)vb);
    r->stats.notes = footer.notes;
    r->seen_footer = 1;
    return TEA_OK;
}

/* A context frame: kept for the data frame that must follow, which it is
 * decoded for (its changes are bounded by that frame's size). */
static int read_contexts(trace_reader *r, const trace_input_frame *f)
{
    int rc;
    if (r->contexts_pending || r->seen_index)
        return error_set(TEA_ERR_FORMAT, "%s: context frame at byte %llu precedes no data frame",
                         trace_input_name(r->in), (unsigned long long)f->offset);
    r->context_frame.size = 0;
    if ((rc = trace_native_buffer_reserve(&r->context_frame, f->size)))
        return rc;
    memcpy(r->context_frame.data, f->data, f->size);
    r->context_frame.size = f->size;
    r->contexts_pending = 1;
    r->contexts_offset = f->offset;
    return TEA_OK;
}

/* The start of a data frame of `size` bytes: the changes of the context
 * frame before it, if any. */
static int start_contexts(trace_reader *r, size_t size)
{
    int rc;
    trace_native_contexts_frame_start(&r->contexts);
    if (!r->contexts_pending)
        return TEA_OK;
    r->contexts_pending = 0;
    if ((rc = trace_native_contexts_decode(&r->contexts, r->context_frame.data, r->context_frame.size, size)))
        return error_prefix(rc, "%s: frame at byte %llu: ", trace_input_name(r->in),
                            (unsigned long long)r->contexts_offset);
    return TEA_OK;
}

/* The end of a data frame: its context frame named no µop beyond it. */
static int end_contexts(trace_reader *r)
{
    int rc;
    if (!r->in_data_frame || !r->contexts.count)
        return TEA_OK;
    if ((rc = trace_native_contexts_check(&r->contexts, UINT32_MAX)))
        return error_prefix(rc, "%s: frame at byte %llu: ", trace_input_name(r->in),
                            (unsigned long long)r->contexts_offset);
    if (r->contexts.max_ctx > r->max_ctx)
        r->max_ctx = r->contexts.max_ctx;
    return TEA_OK;
}

/* The end of the trace: every µop's context is in the trace's tree. */
static int check_context_ids(trace_reader *r)
{
    const trace_object_list *l = r->objects_preloaded ? &r->objects : &r->stream_objects;
    uint32_t count = l->run.context_count;
    if (r->contexts_pending)
        return error_set(TEA_ERR_FORMAT, "%s: context frame at byte %llu precedes no data frame",
                         trace_input_name(r->in), (unsigned long long)r->contexts_offset);
    if (r->max_ctx && r->max_ctx >= count)
        return error_set(TEA_ERR_FORMAT, "%s: a µop in calling context %u, but the trace's tree holds %u contexts",
                         trace_input_name(r->in), r->max_ctx, count);
    return TEA_OK;
}

/* Moves to the next frame; sets r->done at the end of the trace. */
static int next_native_frame(trace_reader *r)
{
    trace_input_frame f;
    int more, rc;

    if ((rc = end_contexts(r)))
        return rc;
    end_data_frame(r);
    for (;;) {
        if ((rc = trace_input_next_frame(r->in, &f, &more)))
            return rc;
        if (!more) {
            if (!r->seen_footer)
                return error_set(TEA_ERR_FORMAT, "%s: truncated native trace: no footer (file ends at byte %llu)",
                                 trace_input_name(r->in), (unsigned long long)trace_input_offset(r->in));
            r->done = 1;
            return check_context_ids(r);
        }
        if (r->seen_footer)
            return error_set(TEA_ERR_FORMAT, "%s: data after the footer at byte %llu", trace_input_name(r->in),
                             (unsigned long long)f.offset);
        if (!f.skippable) {
            if (r->seen_index)
                return error_set(TEA_ERR_FORMAT, "%s: data frame at byte %llu after the index", trace_input_name(r->in),
                                 (unsigned long long)f.offset);
            r->stats.frames++;
            r->frame = f.data;
            r->frame_size = f.size;
            r->frame_pos = 0;
            trace_native_codec_frame_start(&r->codec, r->header.commit_width);
            memset(&r->frame_entry, 0, sizeof r->frame_entry);
            r->frame_entry.offset = f.offset;
            r->frame_entry.compressed_size = f.compressed_size;
            r->frame_entry.content_size = (uint32_t)f.size;
            r->frame_entry.window = r->window;
            r->in_data_frame = 1;
            return start_contexts(r, f.size);
        }
        if (f.variant == TRACE_NATIVE_SKIPPABLE_VARIANT && f.size >= TRACE_NATIVE_MAGIC_SIZE) {
            if (memcmp(f.data, TRACE_NATIVE_INDEX_MAGIC, TRACE_NATIVE_MAGIC_SIZE) == 0)
                rc = read_index(r, &f);
            else if (memcmp(f.data, TRACE_NATIVE_FOOTER_MAGIC, TRACE_NATIVE_MAGIC_SIZE) == 0)
                rc = read_footer(r, &f);
            else if (memcmp(f.data, TRACE_OBJECTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE) == 0)
                rc = read_objects(r, &f);
            else if (memcmp(f.data, TRACE_NATIVE_CONTEXTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE) == 0)
                rc = read_contexts(r, &f);
            else if (trace_native_is_header(f.data, f.size))
                rc = error_set(TEA_ERR_FORMAT, "%s: second header at byte %llu (concatenated traces?)",
                               trace_input_name(r->in), (unsigned long long)f.offset);
            if (rc)
                return rc;
        }
        /* Other skippable frames carry nothing for us. */
    }
}

/* Fills the batch from native data frames: the fused decoder takes the
 * common case, and the reference path (trace_native_decode_record, accept_record)
 * every record the fused one leaves, which includes every record in error. */
static int read_native(trace_reader *r, trace_batch *batch)
{
    trace_native_stream stream = { r->header.rob_size, 0, 0, &r->totals };
    int rc;

    while (trace_batch_has_room(batch) && !r->done) {
        trace_record rec;
        trace_uop *uops;
        size_t start, first = batch->count, fast;

        if (r->frame_pos >= r->frame_size) {
            if ((rc = next_native_frame(r)))
                return rc;
            continue;
        }
        stream.window = r->window;
        stream.last_cycle = r->last_cycle;
        fast = trace_native_decode_batch(&r->codec, r->frame, r->frame_size, &r->frame_pos, &stream, batch);
        if (fast > 0) {
            if (r->contexts.count) {
                size_t from = batch->records[first].first_uop;
                trace_native_contexts_apply(&r->contexts, batch->uops + from, batch->uop_count - from);
            }
            r->window = stream.window;
            r->last_cycle = stream.last_cycle;
            assert(r->window <= r->header.rob_size); /* every decoded record was checked */
            assert(batch->count == first + fast);
            if (r->frame_entry.records == 0)
                r->frame_entry.first_cycle = batch->records[first].cycle;
            r->frame_entry.records += (uint32_t)fast;
            r->frame_entry.last_cycle = batch->records[batch->count - 1].cycle;
            continue;
        }
        uops = batch->uops + batch->uop_count;
        start = r->frame_pos;
        rc = trace_native_decode_record(&r->codec, r->frame, r->frame_size, &r->frame_pos, &rec, uops);
        if (rc)
            return error_prefix(rc, "%s: record %llu (frame at byte %llu, offset %zu): ", trace_input_name(r->in),
                                (unsigned long long)r->totals.records, (unsigned long long)r->frame_entry.offset,
                                start);
        if ((rc = accept_record(r, &rec, uops)))
            return rc;
        if (r->contexts.count)
            trace_native_contexts_apply(&r->contexts, uops, trace_record_uops(&rec));
        if (r->frame_entry.records++ == 0)
            r->frame_entry.first_cycle = rec.cycle;
        r->frame_entry.last_cycle = rec.cycle;
        trace_batch_commit(batch, &rec);
    }
    r->stats.units = r->totals.records;
    r->stats.bytes_in = trace_input_offset(r->in);
    return TEA_OK;
}

void trace_reader_set_background(trace_reader *r, int enabled)
{
    if (!r->started)
        r->background = enabled != 0;
}

/* Fills the batch (cleared first) with the next records, on whichever thread
 * decodes; clears it again on error. */
static int decode_batch(trace_reader *r, trace_batch *batch)
{
    int rc;

    trace_batch_clear(batch);
    rc = r->format == TRACE_FORMAT_NATIVE ? read_native(r, batch) : read_tracedoctor(r, batch);
    if (rc)
        trace_batch_clear(batch);
    assert(batch->count <= batch->capacity && batch->uop_count <= batch->uop_capacity);
    return rc;
}

/* Decompressed bytes of native frames that the last batch decoded, from
 * the frame count and position before it (an estimate when it crossed more
 * than one frame boundary). */
static size_t frame_bytes_decoded(const trace_reader *r, uint64_t frames_before, size_t pos_before,
                                  size_t size_before)
{
    if (r->stats.frames == frames_before) {
        assert(r->frame_pos >= pos_before); /* reading moves forwards within a frame */
        return r->frame_pos - pos_before;
    }
    return (size_before - pos_before) + r->frame_pos;
}

/* Native traces: reads ahead a share of the next frame proportional to
 * `decoded` bytes of the current one; returns whether more remains to read
 * ahead. */
static int read_ahead_share(trace_reader *r, size_t decoded)
{
    size_t budget = decoded / LOOKAHEAD_RATIO_DEN * LOOKAHEAD_RATIO_NUM;

    if (r->format != TRACE_FORMAT_NATIVE || r->done)
        return 0;
    return budget > 0 ? trace_input_frame_advance(r->in, budget) : 1;
}

/* Waits until a slot is free or the thread must stop (returns 0). Meanwhile,
 * for native traces, reads the next frame ahead in steps: work that the
 * next batches would otherwise wait for. Called and returns with the lock
 * held. */
static int wait_for_slot(trace_reader *r, decoder_thread *a, int read_ahead)
{
    while (!a->stop && a->filled == AHEAD_SLOTS) {
        if (read_ahead) {
            pthread_mutex_unlock(&a->lock);
            read_ahead = trace_input_frame_advance(r->in, LOOKAHEAD_IDLE_STEP);
            pthread_mutex_lock(&a->lock);
        } else {
            pthread_cond_wait(&a->freed_cond, &a->lock);
        }
    }
    return !a->stop;
}

/* The background thread: decodes batches into the free slots in order until
 * the stream ends, a read fails or the caller stops it. The batch in
 * progress when stop is set is still published, so that the slots always
 * end where the decoding state stands. */
static void *decoder_main(void *arg)
{
    trace_reader *r = arg;
    decoder_thread *a = r->ahead;
    unsigned tail = 0;
    int read_ahead = r->format == TRACE_FORMAT_NATIVE;

    for (;;) {
        ahead_slot *slot = &a->slots[tail];
        uint64_t frames_before = r->stats.frames;
        size_t pos_before = r->frame_pos, size_before = r->frame_size;
        int last;

        pthread_mutex_lock(&a->lock);
        if (!wait_for_slot(r, a, read_ahead)) {
            pthread_mutex_unlock(&a->lock);
            break;
        }
        assert(a->filled < AHEAD_SLOTS && (a->next + a->filled) % AHEAD_SLOTS == tail); /* the slot is free */
        pthread_mutex_unlock(&a->lock);
        /* The slot at `tail` is neither filled nor held by the caller. */
        slot->rc = decode_batch(r, &slot->batch);
        if (slot->rc)
            snprintf(slot->message, sizeof slot->message, "%s", error_message());
        slot->totals = r->totals;
        slot->stats = r->stats;
        last = slot->rc != TEA_OK || slot->batch.count == 0;
        pthread_mutex_lock(&a->lock);
        a->filled++;
        a->finished = last;
        pthread_cond_signal(&a->filled_cond);
        pthread_mutex_unlock(&a->lock);
        if (last)
            break;
        tail = (tail + 1) % AHEAD_SLOTS;
        read_ahead = read_ahead_share(r, frame_bytes_decoded(r, frames_before, pos_before, size_before));
    }
    return NULL;
}

/* Stops the background thread after its current batch and joins it; the
 * caller's thread then owns the reader's whole state again. Sets no error
 * message. */
static void ahead_join(decoder_thread *a)
{
    if (!a->running)
        return;
    pthread_mutex_lock(&a->lock);
    a->stop = 1;
    pthread_cond_signal(&a->freed_cond);
    pthread_mutex_unlock(&a->lock);
    pool_join(&a->thread);
    a->running = 0;
}

/* Joins the background thread, if any, and frees it with its slots: the
 * reader goes on synchronously. Sets no error message. */
static void ahead_free(trace_reader *r)
{
    decoder_thread *a = r->ahead;

    if (!a)
        return;
    ahead_join(a);
    pthread_cond_destroy(&a->freed_cond);
    pthread_cond_destroy(&a->filled_cond);
    pthread_mutex_destroy(&a->lock);
    for (unsigned i = 0; i < AHEAD_SLOTS; i++)
        trace_batch_free(&a->slots[i].batch);
    free(a);
    r->ahead = NULL;
}

/* On the first read, when background reading is enabled and records remain,
 * starts the background decoder if the caller's batch is an ordinary one
 * (from trace_batch_init, with room for a record): its slots take the
 * batch's capacity. TraceDoctor tokens are only read (and decompressed)
 * ahead, in chunks: the caller decodes them. When anything fails, reading simply stays
 * synchronous. */
static void start_background(trace_reader *r, const trace_batch *batch)
{
    decoder_thread *a;
    int sync_ok = 0, cond_ok = 0;

    r->started = 1;
    if (!r->background || r->done)
        return;
    if (r->format == TRACE_FORMAT_TRACEDOCTOR) {
        /* Decompressing tokens costs more than decoding them, and decoding
         * more than replaying them: the thread only reads (and decompresses),
         * and the caller decodes. */
        if (!r->input_exhausted && r->stats.compressed)
            trace_input_prefetch_chunks(r->in, (size_t)TOKENS_PER_CHUNK * TRACE_TD_TOKEN_SIZE, r->frame_threads);
        else if (!r->input_exhausted)
            trace_input_prefetch_raw(r->in, (size_t)TOKENS_PER_CHUNK * TRACE_TD_TOKEN_SIZE);
        return;
    }
    if (!trace_batch_has_room(batch) || batch->uop_capacity != batch->capacity * TRACE_MAX_RECORD_UOPS)
        return;
    if (!(a = calloc(1, sizeof *a)))
        return;
    a->capacity = batch->capacity;
    a->uop_capacity = batch->uop_capacity;
    r->ahead = a;
    for (unsigned i = 0; i < AHEAD_SLOTS; i++)
        if (trace_batch_init(&a->slots[i].batch, a->capacity))
            goto fail;
    if (pthread_mutex_init(&a->lock, NULL) != 0)
        goto fail;
    sync_ok = 1;
    if (pthread_cond_init(&a->filled_cond, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&a->freed_cond, NULL) != 0) {
        pthread_cond_destroy(&a->filled_cond);
        goto fail;
    }
    cond_ok = 1;
    if (!pool_claim(&a->thread, 0, 1, 1)) /* no processor to spare (common/threads.h): stay synchronous */
        goto fail;
    if (pool_start(&a->thread, decoder_main, r, 0) != TEA_OK) {
        pool_join(&a->thread); /* gives the claim back */
        goto fail;
    }
    a->running = 1;
    return;

fail:
    if (cond_ok) {
        pthread_cond_destroy(&a->freed_cond);
        pthread_cond_destroy(&a->filled_cond);
    }
    if (sync_ok)
        pthread_mutex_destroy(&a->lock);
    for (unsigned i = 0; i < AHEAD_SLOTS; i++)
        trace_batch_free(&a->slots[i].batch);
    free(a);
    r->ahead = NULL;
}

/* Makes the slot's totals, statistics and result the caller's, as a
 * synchronous read ending where the slot ends would have left them. */
static int show_slot(trace_reader *r, const ahead_slot *slot)
{
    r->shown_totals = slot->totals;
    r->shown_stats = slot->stats;
    if (slot->rc != TEA_OK)
        return error_set(slot->rc, "%s", slot->message);
    return TEA_OK;
}

/* The next batch the background thread decoded, handed over by trading
 * buffers with the caller's batch (same capacities). After the last one
 * (end of stream or error) the thread has exited and is freed. */
static int read_ahead(trace_reader *r, trace_batch *batch)
{
    decoder_thread *a = r->ahead;
    ahead_slot *slot;
    trace_batch held;
    int rc, last;

    pthread_mutex_lock(&a->lock);
    while (a->filled == 0)
        pthread_cond_wait(&a->filled_cond, &a->lock);
    slot = &a->slots[a->next];
    pthread_mutex_unlock(&a->lock);
    /* The caller's batch and the slot's trade buffers: they have one size. */
    assert(slot->batch.capacity == batch->capacity && slot->batch.uop_capacity == batch->uop_capacity);
    held = *batch;
    *batch = slot->batch;
    slot->batch = held;
    rc = show_slot(r, slot);
    last = rc != TEA_OK || batch->count == 0;
    pthread_mutex_lock(&a->lock);
    a->next = (a->next + 1) % AHEAD_SLOTS;
    a->filled--;
    pthread_cond_signal(&a->freed_cond);
    pthread_mutex_unlock(&a->lock);
    if (last)
        ahead_free(r);
    return rc;
}

/* A read with a batch of another capacity than the background thread's:
 * stops the thread, hands out the batches it decoded by copying (the
 * records of one slot that fit per call; the totals count exactly the
 * records returned, the statistics are those of the last whole slot
 * returned), then reads synchronously from where the thread stopped. The
 * thread is stopped where it stops by itself, at a full queue or at the
 * end, so that batches and statistics do not depend on timing. */
static int read_drain(trace_reader *r, trace_batch *batch)
{
    decoder_thread *a = r->ahead;
    ahead_slot *slot = &a->slots[a->next];
    const trace_batch *src = &slot->batch;
    int rc = TEA_OK;

    if (a->running) {
        pthread_mutex_lock(&a->lock);
        while (a->filled < AHEAD_SLOTS && !a->finished)
            pthread_cond_wait(&a->filled_cond, &a->lock);
        pthread_mutex_unlock(&a->lock);
        ahead_join(a);
    }
    if (a->filled == 0) {
        ahead_free(r);
        rc = decode_batch(r, batch);
        r->shown_totals = r->totals;
        r->shown_stats = r->stats;
        return rc;
    }
    while (a->drained < src->count && trace_batch_has_room(batch)) {
        trace_record rec = src->records[a->drained++];
        trace_uop *uops = batch->uops + batch->uop_count;
        unsigned n = trace_record_uops(&rec);

        memcpy(uops, src->uops + rec.first_uop, n * sizeof *uops);
        rec.first_uop = (uint32_t)batch->uop_count;
        batch->records[batch->count++] = rec;
        batch->uop_count += n;
        trace_totals_add(&r->shown_totals, &rec, uops);
    }
    if (a->drained == src->count) {
        rc = show_slot(r, slot);
        a->next = (a->next + 1) % AHEAD_SLOTS;
        a->filled--;
        a->drained = 0;
        if (a->filled == 0)
            ahead_free(r);
    }
    return rc;
}

int trace_reader_read(trace_reader *r, trace_batch *batch)
{
    int rc;

    trace_batch_clear(batch);
    if (r->failed)
        return error_set(TEA_ERR_USAGE, "%s: reader used after an error", trace_input_name(r->in));
    if (!r->started)
        start_background(r, batch);
    if (!r->ahead) {
        rc = decode_batch(r, batch);
        r->shown_totals = r->totals;
        r->shown_stats = r->stats;
    } else if (!r->ahead->stop && batch->capacity == r->ahead->capacity
               && batch->uop_capacity == r->ahead->uop_capacity) {
        rc = read_ahead(r, batch);
    } else {
        rc = read_drain(r, batch);
    }
    if (rc) {
        r->failed = 1;
        trace_batch_clear(batch);
    } else if (batch->count == 0) {
        r->shown_end = 1;
    }
    return rc;
}
