/*
 * input.c: buffered file input with zstd decompression (see input.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "input.h"
#include "../common/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Compressed bytes read from the file at a time. */
#define INPUT_BUFFER_SIZE (1u << 20)
/* Initial capacity of a frame buffer; it doubles as needed. */
#define INPUT_FRAME_INITIAL (1u << 16)
/* A skippable frame's header: magic and content size, both u32 LE. */
#define SKIPPABLE_HEADER_SIZE 8
/* Decompressed frames or chunks in flight with a background reader: one held
 * by the caller, one being filled ahead of it. */
#define PREFETCH_SLOTS 2
/* Longest error message carried from the background thread (the size of
 * common/error.c's per-thread buffer). */
#define PREFETCH_MESSAGE_MAX 1024

/* One read done ahead by the background thread: its result exactly as the
 * synchronous call returned it, and the counters as they stood after it. */
typedef struct prefetch_slot {
    int rc;                  /* 0 or the TEA_ERR_* code of the read */
    int more;                /* frame mode: a frame was read */
    input_frame frame;       /* frame mode: the frame (its data lives in buf) */
    size_t got;              /* chunk mode: bytes read into buf */
    uint8_t *buf;            /* content buffer owned by the slot */
    size_t cap;
    uint64_t offset;         /* input_offset() after the read */
    uint64_t frames;         /* input_frames() after the read */
    char message[PREFETCH_MESSAGE_MAX]; /* the error message when rc != 0 */
} prefetch_slot;

/* A producer/consumer queue of PREFETCH_SLOTS slots between the background
 * thread (which alone touches the file, the read buffer and the zstd context
 * once started) and the caller. */
typedef struct prefetch {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;  /* a slot was filled or released, or stop was set */
    input_prefetch_mode mode;
    size_t chunk_size;       /* chunk mode: bytes per read */
    prefetch_slot slots[PREFETCH_SLOTS];
    unsigned next;           /* slot the caller takes next */
    unsigned filled;         /* slots filled and not yet taken */
    int held;                /* the caller holds the slot before `next` */
    int finished;            /* the thread stopped after an end or an error */
    int stop;                /* the caller is closing: the thread must exit */
} prefetch;

struct trace_input {
    FILE *file;
    char *name;
    int owns_file;
    uint8_t *buf;          /* compressed (or raw) bytes read ahead */
    size_t pos, len;       /* unconsumed bytes are buf[pos..len) */
    int eof;               /* the file has no more bytes */
    uint64_t consumed;     /* file offset of buf[pos] */
    ZSTD_DCtx *dctx;
    /* decompressing views */
    int in_frame;          /* a data or skippable frame is partly decoded */
    uint64_t frame_start;  /* offset of the frame being decoded */
    int frame_is_data;     /* the frame being decoded started with the zstd magic */
    uint64_t frames;       /* data frames completed */
    uint8_t *frame_buf;    /* frame mode: content of the current frame */
    size_t frame_cap;
    /* background reading (NULL when synchronous) */
    prefetch *ahead;
    uint64_t view_offset;  /* input_offset() as of the last result handed out */
    uint64_t view_frames;  /* input_frames() likewise */
};

int input_open(trace_input **out, const char *path)
{
    trace_input *in = calloc(1, sizeof *in);

    *out = NULL;
    if (!in)
        return tea_error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
    in->buf = malloc(INPUT_BUFFER_SIZE);
    in->name = strdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
    in->dctx = ZSTD_createDCtx();
    if (!in->buf || !in->name || !in->dctx) {
        input_close(in);
        return tea_error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
    }
    if (strcmp(path, "-") == 0) {
        in->file = stdin;
    } else {
        in->file = fopen(path, "rb");
        if (!in->file) {
            int saved = errno;
            input_close(in);
            return tea_error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(saved));
        }
        in->owns_file = 1;
    }
    *out = in;
    return TEA_OK;
}

const char *input_name(const trace_input *in)
{
    return in->name;
}

uint64_t input_offset(const trace_input *in)
{
    return in->ahead ? in->view_offset : in->consumed;
}

uint64_t input_frames(const trace_input *in)
{
    return in->ahead ? in->view_frames : in->frames;
}

static void prefetch_stop(trace_input *in);

void input_close(trace_input *in)
{
    if (!in)
        return;
    prefetch_stop(in);
    if (in->owns_file && in->file)
        fclose(in->file);
    ZSTD_freeDCtx(in->dctx);
    free(in->frame_buf);
    free(in->buf);
    free(in->name);
    free(in);
}

/* Tops up the read buffer so that at least `want` bytes are available when the
 * file has them. Moves unconsumed bytes to the front first. */
static int fill(trace_input *in, size_t want)
{
    if (want > INPUT_BUFFER_SIZE)
        want = INPUT_BUFFER_SIZE;
    if (in->len - in->pos >= want || in->eof)
        return TEA_OK;
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->len -= in->pos;
        in->pos = 0;
    }
    while (in->len < want && !in->eof) {
        size_t n = fread(in->buf + in->len, 1, INPUT_BUFFER_SIZE - in->len, in->file);
        in->len += n;
        if (n == 0) {
            if (ferror(in->file))
                return tea_error_set(TEA_ERR_IO, "%s: read failed at byte %llu: %s", in->name,
                                     (unsigned long long)(in->consumed + in->len), strerror(errno));
            in->eof = 1;
        }
    }
    return TEA_OK;
}

static void consume(trace_input *in, size_t n)
{
    in->pos += n;
    in->consumed += n;
}

int input_peek(trace_input *in, uint8_t *dst, size_t want, size_t *got)
{
    int rc = fill(in, want);
    size_t avail = in->len - in->pos;
    if (rc)
        return rc;
    *got = avail < want ? avail : want;
    memcpy(dst, in->buf + in->pos, *got);
    return TEA_OK;
}

int input_read_raw(trace_input *in, void *dst, size_t size, size_t *got)
{
    uint8_t *out = dst;
    size_t done = 0;

    while (done < size) {
        size_t avail;
        int rc = fill(in, 1);
        if (rc)
            return rc;
        avail = in->len - in->pos;
        if (avail == 0)
            break;
        if (avail > size - done)
            avail = size - done;
        memcpy(out + done, in->buf + in->pos, avail);
        consume(in, avail);
        done += avail;
    }
    *got = done;
    return TEA_OK;
}

static uint32_t read_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Error for input that ends inside a frame. */
static int truncated_frame(const trace_input *in)
{
    return tea_error_set(TEA_ERR_FORMAT,
                         "%s: truncated zstd frame starting at byte %llu (file ends at byte %llu)",
                         in->name, (unsigned long long)in->frame_start,
                         (unsigned long long)in->consumed);
}

static int corrupt_frame(const trace_input *in, size_t zstd_code)
{
    return tea_error_set(TEA_ERR_FORMAT, "%s: corrupt zstd data in frame starting at byte %llu: %s",
                         in->name, (unsigned long long)in->frame_start, ZSTD_getErrorName(zstd_code));
}

/* Checks the magic at a frame boundary so that garbage between or after frames
 * is reported as such, not as a zstd internal error. */
static int check_frame_magic(trace_input *in)
{
    int rc = fill(in, 4);
    size_t avail = in->len - in->pos;
    uint32_t magic;

    if (rc)
        return rc;
    if (avail < 4)
        return tea_error_set(TEA_ERR_FORMAT, "%s: %zu stray bytes after the last zstd frame at byte %llu",
                             in->name, avail, (unsigned long long)in->consumed);
    magic = read_le32(in->buf + in->pos);
    if (magic != INPUT_ZSTD_MAGIC && (magic & INPUT_SKIPPABLE_MASK) != INPUT_SKIPPABLE_MAGIC)
        return tea_error_set(TEA_ERR_FORMAT,
                             "%s: not a zstd frame at byte %llu (magic 0x%08x): corrupt or appended data",
                             in->name, (unsigned long long)in->consumed, magic);
    return TEA_OK;
}

/* One call of the streaming decompressor on whatever input is buffered. A call
 * that can make no progress because the file ended means the frame is
 * truncated. */
static int decompress_step(trace_input *in, ZSTD_outBuffer *out, size_t *ret)
{
    ZSTD_inBuffer inb = { in->buf + in->pos, in->len - in->pos, 0 };
    size_t out_before = out->pos;

    *ret = ZSTD_decompressStream(in->dctx, out, &inb);
    consume(in, inb.pos);
    if (ZSTD_isError(*ret)) {
        ZSTD_DCtx_reset(in->dctx, ZSTD_reset_session_only);
        return corrupt_frame(in, *ret);
    }
    if (*ret != 0 && inb.pos == 0 && out->pos == out_before && out->pos < out->size && in->eof
        && in->pos == in->len)
        return truncated_frame(in);
    return TEA_OK;
}

/* input_read_decompressed without the background thread. */
static int read_decompressed_sync(trace_input *in, void *dst, size_t size, size_t *got)
{
    ZSTD_outBuffer out = { dst, size, 0 };

    while (out.pos < out.size) {
        size_t ret;
        int rc;

        if (!in->in_frame) {
            rc = fill(in, 1);
            if (rc)
                return rc;
            if (in->len == in->pos)
                break; /* clean end between frames */
            if ((rc = check_frame_magic(in)))
                return rc;
            in->in_frame = 1;
            in->frame_start = in->consumed;
            in->frame_is_data = read_le32(in->buf + in->pos) == INPUT_ZSTD_MAGIC;
        }
        if ((rc = fill(in, 1)))
            return rc;
        if ((rc = decompress_step(in, &out, &ret)))
            return rc;
        if (ret == 0) {
            /* Frame complete (skippable frames end here too). */
            in->in_frame = 0;
            in->frames += (uint64_t)in->frame_is_data;
        }
    }
    *got = out.pos;
    return TEA_OK;
}

/* Makes sure the frame buffer can hold `size` bytes. */
static int reserve_frame(trace_input *in, size_t size)
{
    size_t cap = in->frame_cap ? in->frame_cap : INPUT_FRAME_INITIAL;
    uint8_t *p;

    if (size <= in->frame_cap)
        return TEA_OK;
    while (cap < size)
        cap *= 2;
    p = realloc(in->frame_buf, cap);
    if (!p)
        return tea_error_set(TEA_ERR_NOMEM, "%s: out of memory for a %zu-byte frame", in->name, size);
    in->frame_buf = p;
    in->frame_cap = cap;
    return TEA_OK;
}

static int read_skippable(trace_input *in, input_frame *frame, uint32_t magic)
{
    uint8_t header[SKIPPABLE_HEADER_SIZE];
    size_t got;
    uint32_t size;
    int rc;

    if ((rc = input_read_raw(in, header, sizeof header, &got)))
        return rc;
    if (got < sizeof header)
        return truncated_frame(in);
    size = read_le32(header + 4);
    if (size > INPUT_MAX_FRAME_SIZE)
        return tea_error_set(TEA_ERR_FORMAT, "%s: skippable frame at byte %llu claims %u bytes (limit %u)",
                             in->name, (unsigned long long)frame->offset, size, INPUT_MAX_FRAME_SIZE);
    if ((rc = reserve_frame(in, size ? size : 1)))
        return rc;
    if ((rc = input_read_raw(in, in->frame_buf, size, &got)))
        return rc;
    if (got < size)
        return truncated_frame(in);
    frame->skippable = 1;
    frame->variant = magic & ~INPUT_SKIPPABLE_MASK;
    frame->data = in->frame_buf;
    frame->size = size;
    return TEA_OK;
}

static int read_data_frame(trace_input *in, input_frame *frame)
{
    ZSTD_outBuffer out;
    size_t ret = 1;
    int rc;

    if ((rc = reserve_frame(in, INPUT_FRAME_INITIAL)))
        return rc;
    out.dst = in->frame_buf;
    out.size = in->frame_cap;
    out.pos = 0;
    while (ret != 0) {
        if ((rc = fill(in, 1)))
            return rc;
        if (out.pos == out.size) {
            if (out.size >= INPUT_MAX_FRAME_SIZE)
                return tea_error_set(TEA_ERR_FORMAT, "%s: frame at byte %llu decompresses to more than %u bytes",
                                     in->name, (unsigned long long)frame->offset, INPUT_MAX_FRAME_SIZE);
            if ((rc = reserve_frame(in, out.size * 2)))
                return rc;
            out.dst = in->frame_buf;
            out.size = in->frame_cap;
        }
        if ((rc = decompress_step(in, &out, &ret)))
            return rc;
    }
    in->frames++;
    frame->skippable = 0;
    frame->variant = 0;
    frame->data = in->frame_buf;
    frame->size = out.pos;
    return TEA_OK;
}

/* input_next_frame without the background thread. */
static int next_frame_sync(trace_input *in, input_frame *frame, int *more)
{
    uint32_t magic;
    int rc;

    *more = 0;
    if ((rc = fill(in, 1)))
        return rc;
    if (in->len == in->pos)
        return TEA_OK;
    if ((rc = check_frame_magic(in)))
        return rc;
    magic = read_le32(in->buf + in->pos);
    frame->offset = in->consumed;
    in->frame_start = in->consumed;
    if (magic == INPUT_ZSTD_MAGIC)
        rc = read_data_frame(in, frame);
    else
        rc = read_skippable(in, frame, magic);
    if (rc)
        return rc;
    frame->compressed_size = in->consumed - frame->offset;
    *more = 1;
    return TEA_OK;
}

/* --- background reading ---------------------------------------------------- */

/* Does one read of the prefetch mode into `slot`, exactly as the synchronous
 * call would, and records its result, message and counters. Returns whether
 * the stream goes on after it (no end, no error). */
static int prefetch_fill(trace_input *in, prefetch *pf, prefetch_slot *slot)
{
    int go_on;

    if (pf->mode == INPUT_PREFETCH_FRAMES) {
        /* Decompress straight into the slot's buffer; the input's own frame
         * buffer may still hold what the caller read before the thread
         * started, so it is set aside meanwhile. */
        uint8_t *own = in->frame_buf;
        size_t own_cap = in->frame_cap;

        in->frame_buf = slot->buf;
        in->frame_cap = slot->cap;
        slot->more = 0;
        slot->rc = next_frame_sync(in, &slot->frame, &slot->more);
        slot->buf = in->frame_buf;
        slot->cap = in->frame_cap;
        in->frame_buf = own;
        in->frame_cap = own_cap;
        go_on = slot->rc == TEA_OK && slot->more;
    } else {
        slot->got = 0;
        slot->rc = TEA_OK;
        if (slot->cap < pf->chunk_size) {
            uint8_t *p = realloc(slot->buf, pf->chunk_size);
            if (!p)
                slot->rc = tea_error_set(TEA_ERR_NOMEM, "%s: out of memory for a %zu-byte buffer", in->name,
                                         pf->chunk_size);
            else {
                slot->buf = p;
                slot->cap = pf->chunk_size;
            }
        }
        if (slot->rc == TEA_OK)
            slot->rc = read_decompressed_sync(in, slot->buf, pf->chunk_size, &slot->got);
        go_on = slot->rc == TEA_OK && slot->got == pf->chunk_size;
    }
    if (slot->rc != TEA_OK)
        snprintf(slot->message, sizeof slot->message, "%s", tea_error_message());
    slot->offset = in->consumed;
    slot->frames = in->frames;
    return go_on;
}

/* The background thread: fills free slots in order until the stream ends, a
 * read fails or the caller stops it. */
static void *prefetch_main(void *arg)
{
    trace_input *in = arg;
    prefetch *pf = in->ahead;
    unsigned tail = 0;

    for (;;) {
        int go_on;

        pthread_mutex_lock(&pf->lock);
        while (!pf->stop && pf->filled + (unsigned)pf->held >= PREFETCH_SLOTS)
            pthread_cond_wait(&pf->changed, &pf->lock);
        if (pf->stop) {
            pthread_mutex_unlock(&pf->lock);
            break;
        }
        pthread_mutex_unlock(&pf->lock);
        /* The slot at `tail` is neither filled nor held: it is ours. */
        go_on = prefetch_fill(in, pf, &pf->slots[tail]);
        tail = (tail + 1) % PREFETCH_SLOTS;
        pthread_mutex_lock(&pf->lock);
        pf->filled++;
        pf->finished = !go_on;
        pthread_cond_broadcast(&pf->changed);
        pthread_mutex_unlock(&pf->lock);
        if (!go_on)
            break;
    }
    return NULL;
}

int input_prefetch_start(trace_input *in, input_prefetch_mode mode, size_t chunk_size)
{
    prefetch *pf;

    if (in->ahead)
        return TEA_OK;
    pf = calloc(1, sizeof *pf);
    if (!pf)
        return TEA_OK; /* reading synchronously is just as correct */
    pf->mode = mode;
    pf->chunk_size = chunk_size;
    if (pthread_mutex_init(&pf->lock, NULL) != 0) {
        free(pf);
        return TEA_OK;
    }
    if (pthread_cond_init(&pf->changed, NULL) != 0) {
        pthread_mutex_destroy(&pf->lock);
        free(pf);
        return TEA_OK;
    }
    /* The caller's view of the counters starts where the file stands now. */
    in->view_offset = in->consumed;
    in->view_frames = in->frames;
    in->ahead = pf;
    if (pthread_create(&pf->thread, NULL, prefetch_main, in) != 0) {
        in->ahead = NULL;
        pthread_cond_destroy(&pf->changed);
        pthread_mutex_destroy(&pf->lock);
        free(pf);
    }
    return TEA_OK;
}

/* Stops and joins the background thread and frees its slots. */
static void prefetch_stop(trace_input *in)
{
    prefetch *pf = in->ahead;

    if (!pf)
        return;
    pthread_mutex_lock(&pf->lock);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->changed);
    pthread_mutex_unlock(&pf->lock);
    pthread_join(pf->thread, NULL);
    pthread_cond_destroy(&pf->changed);
    pthread_mutex_destroy(&pf->lock);
    for (unsigned i = 0; i < PREFETCH_SLOTS; i++)
        free(pf->slots[i].buf);
    free(pf);
    in->ahead = NULL;
}

/* Hands the caller the next slot the thread filled, releasing the one it
 * held, and replays that slot's error (message and code) on the caller's
 * thread. NULL after the thread finished and every slot was taken: the
 * caller then sees the end of the stream again. */
static prefetch_slot *prefetch_take(trace_input *in, int *rc)
{
    prefetch *pf = in->ahead;
    prefetch_slot *slot = NULL;

    *rc = TEA_OK;
    pthread_mutex_lock(&pf->lock);
    pf->held = 0;
    pthread_cond_broadcast(&pf->changed);
    while (pf->filled == 0 && !pf->finished)
        pthread_cond_wait(&pf->changed, &pf->lock);
    if (pf->filled > 0) {
        slot = &pf->slots[pf->next];
        pf->next = (pf->next + 1) % PREFETCH_SLOTS;
        pf->filled--;
        pf->held = 1;
    }
    pthread_mutex_unlock(&pf->lock);
    if (!slot)
        return NULL;
    in->view_offset = slot->offset;
    in->view_frames = slot->frames;
    if (slot->rc != TEA_OK)
        *rc = tea_error_set(slot->rc, "%s", slot->message);
    return slot;
}

int input_next_frame(trace_input *in, input_frame *frame, int *more)
{
    prefetch_slot *slot;
    int rc;

    if (!in->ahead || in->ahead->mode != INPUT_PREFETCH_FRAMES)
        return next_frame_sync(in, frame, more);
    *more = 0;
    slot = prefetch_take(in, &rc);
    if (!slot || rc)
        return rc;
    *more = slot->more;
    if (slot->more)
        *frame = slot->frame;
    return TEA_OK;
}

int input_read_decompressed(trace_input *in, void *dst, size_t size, size_t *got)
{
    const uint8_t *data;
    int rc;

    if (!in->ahead)
        return read_decompressed_sync(in, dst, size, got);
    if ((rc = input_next_chunk(in, size, &data, got)))
        return rc;
    if (*got)
        memcpy(dst, data, *got);
    return TEA_OK;
}

int input_next_chunk(trace_input *in, size_t size, const uint8_t **data, size_t *got)
{
    prefetch_slot *slot;
    int rc;

    *data = NULL;
    *got = 0;
    if (!in->ahead) {
        /* The frame buffer is free in this view: read into it. */
        if ((rc = reserve_frame(in, size)))
            return rc;
        *data = in->frame_buf;
        return read_decompressed_sync(in, in->frame_buf, size, got);
    }
    if (in->ahead->mode != INPUT_PREFETCH_CHUNKS || size != in->ahead->chunk_size)
        return tea_error_set(TEA_ERR_USAGE, "%s: read of %zu bytes does not match the background reader", in->name,
                             size);
    slot = prefetch_take(in, &rc);
    if (!slot || rc)
        return rc;
    *data = slot->buf;
    *got = slot->got;
    return TEA_OK;
}
