/*
 * writer.c: writing native and TraceDoctor traces (see trace.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"
#include "input.h"
#include "native.h"
#include "objects.h"
#include "tracedoctor.h"
#include "../common/error.h"
#include "../common/outfile.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* TraceDoctor tokens buffered before compression. */
#define TD_TOKENS_PER_FLUSH 8192
/* Size of a skippable frame's header (magic and size). */
#define SKIPPABLE_HEADER_SIZE 8

struct trace_writer {
    outfile *out;
    trace_header header;
    trace_write_options opts;
    trace_totals totals;
    unsigned window;            /* ROB entries before the next record */
    uint64_t offset;            /* bytes written so far */
    ZSTD_CCtx *cctx;
    trace_native_buffer staging;    /* native: the frame being built; TraceDoctor: tokens */
    trace_native_buffer compressed; /* compression output */
    /* native */
    trace_native_codec codec;
    trace_native_index_entry frame; /* summary of the frame being built */
    trace_native_buffer index;      /* index entries written so far */
    trace_native_contexts contexts; /* the calling contexts of the frame being built */
    trace_native_buffer context_frame; /* a context frame's content */
    ZSTD_CCtx *context_cctx;        /* ... and its compression (trace_native_contexts_encode) */
    uint32_t max_ctx;               /* largest context of a µop written */
    uint64_t data_frames;
    trace_object_list objects;  /* executable objects and the recorded thread */
    /* TraceDoctor */
    trace_td_encoder td;
};

const trace_totals *trace_writer_totals(const trace_writer *w)
{
    return &w->totals;
}

int trace_writer_add_object(trace_writer *w, const trace_object *obj)
{
    return trace_object_list_add(&w->objects, obj);
}

int trace_writer_set_run(trace_writer *w, const trace_run *run)
{
    return trace_object_list_set_run(&w->objects, run);
}

int trace_writer_set_thread(trace_writer *w, uint32_t tid, uint32_t threads_seen)
{
    if (threads_seen == TRACE_THREAD_UNKNOWN)
        return error_set(TEA_ERR_USAGE, "a recorded thread needs a thread count of at least 1");
    w->objects.tid = tid;
    w->objects.threads_seen = threads_seen;
    return TEA_OK;
}

static int write_bytes(trace_writer *w, const void *data, size_t size)
{
    int rc = outfile_write(w->out, data, size);
    if (rc == TEA_OK)
        w->offset += size;
    return rc;
}

static int write_skippable(trace_writer *w, const uint8_t *content, size_t size)
{
    uint8_t header[SKIPPABLE_HEADER_SIZE];
    uint32_t magic = TRACE_INPUT_SKIPPABLE_MAGIC | TRACE_NATIVE_SKIPPABLE_VARIANT;
    int rc;
    for (int i = 0; i < 4; i++) {
        header[i] = (uint8_t)(magic >> (8 * i));
        header[4 + i] = (uint8_t)(size >> (8 * i));
    }
    if ((rc = write_bytes(w, header, sizeof header)))
        return rc;
    return write_bytes(w, content, size);
}

static void writer_free(trace_writer *w)
{
    ZSTD_freeCCtx(w->cctx);
    trace_native_buffer_free(&w->staging);
    trace_native_buffer_free(&w->compressed);
    trace_native_buffer_free(&w->index);
    trace_native_contexts_free(&w->contexts);
    trace_native_buffer_free(&w->context_frame);
    ZSTD_freeCCtx(w->context_cctx);
    trace_object_list_free(&w->objects);
    trace_header_free(&w->header);
    free(w);
}

void trace_writer_abort(trace_writer *w)
{
    if (!w)
        return;
    outfile_abort(w->out);
    writer_free(w);
}

static int check_options(const trace_header *h, const trace_write_options *o)
{
    if (h->commit_width < 1 || h->commit_width > TRACE_MAX_WIDTH || h->rob_size < 1 || h->rob_size > TRACE_MAX_ROB
        || h->rob_size % h->commit_width)
        return error_set(TEA_ERR_USAGE, "invalid core shape: width %u, ROB %u", h->commit_width, h->rob_size);
    if (h->initial_window > h->rob_size)
        return error_set(TEA_ERR_USAGE, "%u ROB entries occupied at the start of a %u-entry ROB", h->initial_window,
                         h->rob_size);
    if (o->format == TRACE_FORMAT_TRACEDOCTOR) {
        if (h->commit_width != TRACE_TD_SLOTS)
            return error_set(TEA_ERR_UNSUPPORTED, "TraceDoctor tokens describe a %d-wide ROB; this trace is %u-wide",
                             TRACE_TD_SLOTS, h->commit_width);
        if (h->rob_size > TRACE_TD_MAX_ROB)
            return error_set(TEA_ERR_UNSUPPORTED, "TraceDoctor ROB indices are 8 bits; this ROB has %u entries",
                             h->rob_size);
    } else if (o->format != TRACE_FORMAT_NATIVE) {
        return error_set(TEA_ERR_USAGE, "unknown output format");
    }
    if (o->level < 0 || o->level > ZSTD_maxCLevel())
        return error_set(TEA_ERR_USAGE, "zstd level %d outside 1-%d", o->level, ZSTD_maxCLevel());
    return TEA_OK;
}

int trace_writer_open(trace_writer **out, const char *path, const trace_header *h, const trace_write_options *opts)
{
    trace_writer *w;
    int rc;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(path != NULL);
    TEA_ASSERT_ARG(h != NULL);
    TEA_ASSERT_ARG(opts != NULL);
    *out = NULL;
    if ((rc = check_options(h, opts)))
        return rc;
    if (!(w = calloc(1, sizeof *w)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    w->opts = *opts;
    if (!w->opts.level)
        w->opts.level = opts->format == TRACE_FORMAT_NATIVE ? TRACE_NATIVE_DEFAULT_LEVEL : TRACE_TRACEDOCTOR_DEFAULT_LEVEL;
    if (!w->opts.frame_records)
        w->opts.frame_records = TRACE_NATIVE_DEFAULT_FRAME_RECORDS;
    if ((rc = trace_header_copy(&w->header, h))) {
        free(w);
        return error_set(rc, "out of memory");
    }
    w->window = h->initial_window;
    w->cctx = ZSTD_createCCtx();
    if (!w->cctx) {
        writer_free(w);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opts.level);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
    if ((rc = outfile_open(&w->out, path))) {
        writer_free(w);
        return rc;
    }
    if (opts->format == TRACE_FORMAT_NATIVE) {
        trace_native_codec_frame_start(&w->codec, h->commit_width);
        rc = trace_native_header_encode(h, &w->staging);
        if (!rc)
            rc = write_skippable(w, w->staging.data, w->staging.size);
        w->staging.size = 0;
    } else {
        trace_td_encoder_init(&w->td, h->rob_size, h->llc_latency);
    }
    if (rc) {
        trace_writer_abort(w);
        return rc;
    }
    *out = w;
    return TEA_OK;
}

/* Compresses the staged records into one zstd frame and notes it in the index. */
static int flush_native_frame(trace_writer *w)
{
    size_t bound, size;
    uint8_t entry[TRACE_NATIVE_INDEX_ENTRY_SIZE];
    int rc;

    if (w->frame.records == 0)
        return TEA_OK;
    bound = ZSTD_compressBound(w->staging.size);
    w->compressed.size = 0;
    if ((rc = trace_native_buffer_reserve(&w->compressed, bound)))
        return rc;
    size = ZSTD_compress2(w->cctx, w->compressed.data, bound, w->staging.data, w->staging.size);
    if (ZSTD_isError(size))
        return error_set(TEA_ERR_IO, "%s: compression failed: %s", outfile_path(w->out), ZSTD_getErrorName(size));
    /* zstd kept to the bound reserved; the index keeps a frame's content size in 32 bits */
    assert(size <= bound && w->staging.size <= UINT32_MAX);
    /* the frame's calling contexts, if any left the root, in a context frame before it */
    if ((rc = trace_native_contexts_encode(&w->contexts, &w->context_cctx, &w->context_frame)))
        return error_prefix(rc, "%s: ", outfile_path(w->out));
    if (w->context_frame.size && (rc = write_skippable(w, w->context_frame.data, w->context_frame.size)))
        return rc;
    if (w->contexts.max_ctx > w->max_ctx)
        w->max_ctx = w->contexts.max_ctx;
    trace_native_contexts_frame_start(&w->contexts);
    w->frame.offset = w->offset;
    w->frame.compressed_size = size;
    w->frame.content_size = (uint32_t)w->staging.size;
    if ((rc = write_bytes(w, w->compressed.data, size)))
        return rc;
    trace_native_index_entry_encode(&w->frame, entry);
    if ((rc = trace_native_buffer_reserve(&w->index, sizeof entry)))
        return rc;
    memcpy(w->index.data + w->index.size, entry, sizeof entry);
    w->index.size += sizeof entry;
    w->data_frames++;
    w->staging.size = 0;
    memset(&w->frame, 0, sizeof w->frame);
    trace_native_codec_frame_start(&w->codec, w->header.commit_width);
    return TEA_OK;
}

static int write_native_record(trace_writer *w, const trace_record *r, const trace_uop *uops)
{
    size_t len;
    int rc;

    if ((rc = trace_native_buffer_reserve(&w->staging, TRACE_NATIVE_MAX_RECORD_BYTES)))
        return rc;
    if (w->frame.records == 0) {
        w->frame.first_cycle = r->cycle;
        w->frame.window = w->window;
    }
    if ((rc = trace_native_contexts_note(&w->contexts, uops, trace_record_uops(r))))
        return rc;
    len = trace_native_encode_record(&w->codec, r, uops, w->staging.data + w->staging.size);
    assert(len <= TRACE_NATIVE_MAX_RECORD_BYTES); /* within the room reserved */
    w->staging.size += len;
    w->frame.last_cycle = r->cycle;
    if (++w->frame.records >= w->opts.frame_records)
        return flush_native_frame(w);
    return TEA_OK;
}

/* Writes staged tokens, compressed unless raw output was asked for. */
static int flush_tokens(trace_writer *w, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = { w->staging.data, w->staging.size, 0 };
    size_t remaining;
    int rc;

    if (w->opts.raw) {
        rc = write_bytes(w, w->staging.data, w->staging.size);
        w->staging.size = 0;
        return rc;
    }
    if ((rc = trace_native_buffer_reserve(&w->compressed, ZSTD_CStreamOutSize())))
        return rc;
    do {
        ZSTD_outBuffer out = { w->compressed.data, w->compressed.capacity, 0 };
        remaining = ZSTD_compressStream2(w->cctx, &out, &in, mode);
        if (ZSTD_isError(remaining))
            return error_set(TEA_ERR_IO, "%s: compression failed: %s", outfile_path(w->out),
                             ZSTD_getErrorName(remaining));
        if ((rc = write_bytes(w, out.dst, out.pos)))
            return rc;
    } while (mode == ZSTD_e_end ? remaining != 0 : in.pos < in.size);
    w->staging.size = 0;
    return TEA_OK;
}

static int write_td_record(trace_writer *w, const trace_record *r, const trace_uop *uops, const uint16_t *head_valid)
{
    trace_td_token t;
    int rc = trace_td_encoder_encode(&w->td, r, uops, w->header.initial_window, head_valid, &t);

    if (rc)
        return error_prefix(rc, "cannot write cycle %llu as a TraceDoctor token: ", (unsigned long long)r->cycle);
    if ((rc = trace_native_buffer_reserve(&w->staging, TRACE_TD_TOKEN_SIZE)))
        return rc;
    trace_td_token_pack(&t, w->staging.data + w->staging.size);
    w->staging.size += TRACE_TD_TOKEN_SIZE;
    if (w->staging.size >= (size_t)TD_TOKENS_PER_FLUSH * TRACE_TD_TOKEN_SIZE)
        return flush_tokens(w, ZSTD_e_continue);
    return TEA_OK;
}

int trace_writer_write(trace_writer *w, const trace_batch *batch)
{
    for (size_t i = 0; i < batch->count; i++) {
        const trace_record *r = &batch->records[i];
        const trace_uop *uops = batch->uops + r->first_uop;
        unsigned after;
        int rc;

        if (w->totals.records > 0 && r->cycle <= w->totals.last_cycle)
            return error_set(TEA_ERR_FORMAT, "record for cycle %llu does not follow cycle %llu",
                             (unsigned long long)r->cycle, (unsigned long long)w->totals.last_cycle);
        if ((rc = trace_record_check(r, uops, w->header.commit_width, w->header.rob_size, w->window, &after)))
            return error_prefix(rc, "record for cycle %llu: ", (unsigned long long)r->cycle);
        rc = w->opts.format == TRACE_FORMAT_NATIVE
                 ? write_native_record(w, r, uops)
                 : write_td_record(w, r, uops, batch->head_valid ? &batch->head_valid[i] : NULL);
        if (rc)
            return rc;
        w->window = after;
        assert(w->window <= w->header.rob_size); /* trace_record_check keeps the window within the ROB */
        trace_totals_add(&w->totals, r, uops);
    }
    return TEA_OK;
}

static int finish_native(trace_writer *w, const trace_notes *notes)
{
    trace_native_footer footer;
    uint8_t footer_bytes[TRACE_NATIVE_FOOTER_SIZE];
    uint64_t count = w->data_frames;
    int rc;

    if ((rc = flush_native_frame(w)))
        return rc;
    if (w->max_ctx >= (w->objects.run.context_count ? w->objects.run.context_count : 1))
        return error_set(TEA_ERR_USAGE, "%s: a µop in calling context %u, but the trace's tree holds %u contexts",
                         outfile_path(w->out), w->max_ctx, w->objects.run.context_count);
    count = w->data_frames;
    assert(w->index.size == count * TRACE_NATIVE_INDEX_ENTRY_SIZE); /* one index entry per data frame */
    /* index: magic, entry count, entries */
    w->staging.size = 0;
    if ((rc = trace_native_buffer_reserve(&w->staging, TRACE_NATIVE_MAGIC_SIZE + 8 + w->index.size)))
        return rc;
    memcpy(w->staging.data, TRACE_NATIVE_INDEX_MAGIC, TRACE_NATIVE_MAGIC_SIZE);
    for (int i = 0; i < 8; i++)
        w->staging.data[TRACE_NATIVE_MAGIC_SIZE + i] = (uint8_t)(count >> (8 * i));
    if (w->index.size)
        memcpy(w->staging.data + TRACE_NATIVE_MAGIC_SIZE + 8, w->index.data, w->index.size);
    memset(&footer, 0, sizeof footer);
    footer.index_offset = w->offset;
    if ((rc = write_skippable(w, w->staging.data, TRACE_NATIVE_MAGIC_SIZE + 8 + w->index.size)))
        return rc;
    if (trace_object_list_present(&w->objects)) {
        /* objects: after the index, before the footer that refers to them */
        uint8_t *bytes = NULL;
        size_t size = 0;
        if ((rc = trace_object_list_encode(&w->objects, &bytes, &size)))
            return rc;
        /* what every reader takes of a frame (a tree of 13 million calling contexts is more) */
        rc = size > TRACE_INPUT_MAX_FRAME_SIZE
                 ? error_set(TEA_ERR_UNSUPPORTED, "%s: the objects frame would be %zu bytes (%u calling contexts), "
                                                  "more than the %u a reader takes",
                             outfile_path(w->out), size, w->objects.run.context_count, TRACE_INPUT_MAX_FRAME_SIZE)
                 : write_skippable(w, bytes, size);
        free(bytes);
        if (rc)
            return rc;
        footer.has_objects = 1;
        footer.has_run = trace_run_present(&w->objects.run);
    }
    footer.totals = w->totals;
    if (notes)
        footer.notes = *notes;
    footer.data_frames = count;
    trace_native_footer_encode(&footer, footer_bytes);
    return write_skippable(w, footer_bytes, sizeof footer_bytes);
}

int trace_writer_finish(trace_writer *w, const trace_notes *notes)
{
    int rc;

    if (w->opts.format == TRACE_FORMAT_NATIVE)
        rc = finish_native(w, notes);
    else
        rc = flush_tokens(w, ZSTD_e_end);
    if (rc) {
        trace_writer_abort(w);
        return rc;
    }
    rc = outfile_commit(w->out);
    w->out = NULL;
    writer_free(w);
    return rc;
}
