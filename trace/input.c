/*
 * input.c: buffered file input with zstd decompression (see input.h).
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "input.h"
#include "parzstd.h"
#include "../common/error.h"
#include "../common/pool.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

/* Compressed bytes read from the file at a time. */
#define INPUT_BUFFER_SIZE (1u << 20)
/* The buffer asked for a pipe on standard input, halved until the system
 * grants it (Linux's limit without CAP_SYS_RESOURCE,
 * /proc/sys/fs/pipe-max-size, is 1 MiB by default). */
#define INPUT_PIPE_SIZE (8u << 20)
#define INPUT_PIPE_SIZE_MIN (128u << 10)
/* Raw reads at least this large go straight to the caller's buffer. */
#define INPUT_DIRECT_READ (64u << 10)
/* Initial capacity of a frame buffer; it doubles as needed. */
#define INPUT_FRAME_INITIAL (1u << 16)
/* A skippable frame's header: magic and content size, both u32 LE. */
#define SKIPPABLE_HEADER_SIZE 8
/* A zstd frame's header descriptor byte (after the magic) and its content
 * checksum flag (RFC 8878, 3.1.1.1.1). */
#define ZSTD_FHD_OFFSET 4
#define ZSTD_FHD_CHECKSUM 0x04u
/* Longest error message kept from a frame read ahead (the size of
 * common/error.c's per-thread buffer). */
#define LOOKAHEAD_MESSAGE_MAX 1024

/* Decompressed chunks in flight with a background chunk reader: one held by
 * the caller, one being filled ahead of it. */
#define CHUNK_SLOTS 2

/* One chunk read ahead by the background thread: its result exactly as the
 * synchronous call returned it, and the counters as they stood after it. */
typedef struct chunk_slot {
    int rc;                  /* 0 or the TEA_ERR_* code of the read */
    size_t got;              /* bytes read into buf */
    uint8_t *buf;            /* chunk_size bytes owned by the slot */
    uint64_t offset;         /* trace_input_offset() after the read */
    uint64_t frames;         /* trace_input_frames() after the read */
    char message[LOOKAHEAD_MESSAGE_MAX]; /* the error message when rc != 0 */
} chunk_slot;

/* A producer/consumer queue of CHUNK_SLOTS slots between the background
 * thread (which alone touches the file, the read buffer and the zstd context
 * once started) and the caller. */
typedef struct chunk_reader {
    pool_threads thread;     /* the background thread, drawn on the thread budget */
    pthread_mutex_t lock;
    pthread_cond_t changed;  /* a slot was filled or released, or stop was set */
    size_t chunk_size;       /* bytes per read */
    int raw;                 /* chunks of raw bytes (trace_input_prefetch_raw), not decompressed */
    chunk_slot slots[CHUNK_SLOTS];
    unsigned next;           /* slot the caller takes next */
    unsigned filled;         /* slots filled and not yet taken */
    int held;                /* the caller holds the slot before `next` */
    int finished;            /* the thread stopped after an end or an error */
    int stop;                /* the caller is closing: the thread must exit */
} chunk_reader;

/* A growable buffer for one frame's content. */
typedef struct frame_buffer {
    uint8_t *data;
    size_t cap;
} frame_buffer;

/* How far the frame after the last one handed out has been read ahead
 * (trace_input_frame_advance). */
typedef enum lookahead_state {
    LOOKAHEAD_NONE = 0, /* nothing read ahead: trace_input_next_frame reads synchronously */
    LOOKAHEAD_PARTIAL,  /* a data frame is partly decompressed */
    LOOKAHEAD_READY,    /* a whole frame, or the end of the input, awaits */
    LOOKAHEAD_FAILED    /* reading it failed: the error awaits */
} lookahead_state;

/* How the frame read ahead is decompressed. zstd's streaming decoder takes
 * a single-pass shortcut when a whole frame is buffered, its header gives a
 * content size and the output space holds that size; the shortcut may name
 * another error than the block-by-block path for the same corrupt frame. A
 * frame read ahead must therefore take the path the synchronous read takes. */
typedef enum lookahead_path {
    PATH_STEPS = 0,  /* block by block from the read buffer, in steps (no shortcut either way) */
    PATH_WHOLE,      /* the shortcut without a content checksum: one call, as synchronously */
    PATH_COPY        /* the shortcut with a checksum: in steps from a copy of the frame; on
                      * trouble the single pass is redone on the copy for its exact result */
} lookahead_path;

/* The frame read ahead, kept exactly as the synchronous read would have
 * returned it. */
typedef struct lookahead {
    lookahead_state state;
    frame_buffer buf;        /* its content */
    trace_input_frame frame; /* what trace_input_next_frame returns (data set on hand-out) */
    int more;                /* a frame was read (0: clean end of input) */
    lookahead_path path;     /* data frame: how it is decompressed */
    size_t pos;              /* data frame: bytes decompressed so far */
    size_t ret;              /* data frame: zstd's last return (0: complete) */
    frame_buffer src;        /* PATH_COPY: the compressed frame */
    size_t src_size;         /* PATH_COPY: its bytes */
    size_t src_pos;          /* PATH_COPY: bytes of it zstd took */
    int rc;                  /* LOOKAHEAD_FAILED: the error code */
    uint64_t shown_offset;   /* trace_input_offset() before the frame read ahead */
    uint64_t shown_frames;   /* trace_input_frames() likewise */
    char message[LOOKAHEAD_MESSAGE_MAX]; /* LOOKAHEAD_FAILED: the error message */
} lookahead;

struct trace_input {
    FILE *file;
    char *name;
    int owns_file;
    int memory;            /* the file is a stream over the caller's bytes (fmemopen) */
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
    frame_buffer frame;    /* content of the current frame, or the current chunk */
    size_t frame_cap;      /* frame.cap as it would be without reading ahead: the output
                            * space zstd is offered, which decides its shortcut */
    lookahead ahead;       /* frame mode: the next frame, read ahead in steps */
    /* chunks decompressed on a background thread (NULL when synchronous) */
    chunk_reader *chunks;
    uint64_t view_offset; /* trace_input_offset() as of the last chunk handed out */
    uint64_t view_frames; /* trace_input_frames() likewise */
    /* decompressed view: content handed out since the first frame, which began at
     * stream_origin (once stream_started) */
    uint64_t delivered;
    int stream_started;
    uint64_t stream_origin;
    /* the frames of a multi-frame file decompressed on several threads (NULL
     * otherwise), the rest of its last piece, and the stream's bytes still to
     * drop because the serial reader handed them out before it started */
    trace_parzstd *par;
    const uint8_t *par_data;
    size_t par_left;
    uint64_t par_skip;
};

/* A pipe's buffer grown to INPUT_PIPE_SIZE where the system allows: with
 * the default 64 KiB a producer that works as hard as the reader (zstd -dc)
 * and the reader wait on each other at every few blocks. Best effort. */
static void widen_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        for (unsigned size = INPUT_PIPE_SIZE; size >= INPUT_PIPE_SIZE_MIN; size /= 2)
            if (fcntl(fd, F_SETPIPE_SZ, (int)size) >= 0)
                break;
#else
    (void)fd;
#endif
}

/* A new input without a stream yet: its read buffer, its name for
 * messages and its zstd context. `path` names it in the error. */
static int input_new(trace_input **out, const char *path, const char *name)
{
    trace_input *in = calloc(1, sizeof *in);

    *out = NULL;
    if (!in)
        return error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
    in->buf = malloc(INPUT_BUFFER_SIZE);
    in->name = strdup(name);
    in->dctx = ZSTD_createDCtx();
    if (!in->buf || !in->name || !in->dctx) {
        trace_input_close(in);
        return error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
    }
    *out = in;
    return TEA_OK;
}

int trace_input_open_memory(trace_input **out, const void *data, size_t size, const char *name)
{
    static char no_bytes[1]; /* what an empty buffer reads from */
    trace_input *in;
    int rc;

    if ((rc = input_new(&in, name, name)))
        return rc;
    /* A stream over the caller's bytes, read only ("r"): every view reads
     * it as it reads a file, so the bytes give what a file of them gives.
     * It has no descriptor, so a multi-frame file's frames are read
     * serially (the same content, par_start). */
    in->file = fmemopen(size ? (void *)(uintptr_t)data : no_bytes, size, "r");
    if (!in->file) {
        int saved = errno;
        trace_input_close(in);
        return error_set(TEA_ERR_IO, "%s: cannot read from memory: %s", name, strerror(saved));
    }
    in->owns_file = 1;
    in->memory = 1;
    *out = in;
    return TEA_OK;
}

int trace_input_open(trace_input **out, const char *path)
{
    trace_input *in;
    int rc;

    if ((rc = input_new(&in, path, strcmp(path, "-") == 0 ? "<stdin>" : path)))
        return rc;
    if (strcmp(path, "-") == 0) {
        in->file = stdin;
        widen_pipe(fileno(stdin));
    } else {
        in->file = fopen(path, "rb");
        if (!in->file) {
            int saved = errno;
            trace_input_close(in);
            return error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(saved));
        }
        in->owns_file = 1;
    }
    *out = in;
    return TEA_OK;
}

const char *trace_input_name(const trace_input *in)
{
    return in->name;
}

uint64_t trace_input_offset(const trace_input *in)
{
    if (in->chunks || in->par)
        return in->view_offset;
    return in->ahead.state != LOOKAHEAD_NONE ? in->ahead.shown_offset : in->consumed;
}

uint64_t trace_input_frames(const trace_input *in)
{
    if (in->chunks || in->par)
        return in->view_frames;
    return in->ahead.state != LOOKAHEAD_NONE ? in->ahead.shown_frames : in->frames;
}

static void chunks_stop(trace_input *in);
static void par_stop(trace_input *in);

void trace_input_close(trace_input *in)
{
    if (!in)
        return;
    chunks_stop(in);
    par_stop(in);
    if (in->owns_file && in->file)
        fclose(in->file);
    ZSTD_freeDCtx(in->dctx);
    free(in->frame.data);
    free(in->ahead.buf.data);
    free(in->ahead.src.data);
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
                return error_set(TEA_ERR_IO, "%s: read failed at byte %llu: %s", in->name,
                                 (unsigned long long)(in->consumed + in->len), strerror(errno));
            in->eof = 1;
        }
    }
    assert(in->pos <= in->len && in->len <= INPUT_BUFFER_SIZE); /* unconsumed bytes are buf[pos..len) */
    return TEA_OK;
}

static void consume(trace_input *in, size_t n)
{
    assert(n <= in->len - in->pos); /* only bytes read can be consumed */
    in->pos += n;
    in->consumed += n;
}

int trace_input_peek(trace_input *in, uint8_t *dst, size_t want, size_t *got)
{
    int rc = fill(in, want);
    size_t avail = in->len - in->pos;
    if (rc)
        return rc;
    *got = avail < want ? avail : want;
    memcpy(dst, in->buf + in->pos, *got);
    return TEA_OK;
}

/* Raw bytes from the file, on whichever thread reads it. Bytes already
 * buffered (peeked) come first; once the buffer is empty, large requests
 * are read straight into `dst`, saving a copy of every byte. */
static int read_raw_sync(trace_input *in, void *dst, size_t size, size_t *got)
{
    uint8_t *out = dst;
    size_t done = 0;

    while (done < size) {
        size_t avail;
        int rc;
        if (in->pos == in->len && !in->eof && size - done >= INPUT_DIRECT_READ) {
            size_t want = size - done, n = fread(out + done, 1, want, in->file);
            in->consumed += n;
            done += n;
            if (n < want) {
                if (ferror(in->file))
                    return error_set(TEA_ERR_IO, "%s: read failed at byte %llu: %s", in->name,
                                     (unsigned long long)in->consumed, strerror(errno));
                in->eof = 1;
            }
            continue;
        }
        if ((rc = fill(in, 1)))
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
    return error_set(TEA_ERR_FORMAT, "%s: truncated zstd frame starting at byte %llu (file ends at byte %llu)",
                     in->name, (unsigned long long)in->frame_start, (unsigned long long)in->consumed);
}

static int corrupt_frame(const trace_input *in, size_t zstd_code)
{
    return error_set(TEA_ERR_FORMAT, "%s: corrupt zstd data in frame starting at byte %llu: %s", in->name,
                     (unsigned long long)in->frame_start, ZSTD_getErrorName(zstd_code));
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
        return error_set(TEA_ERR_FORMAT, "%s: %zu stray bytes after the last zstd frame at byte %llu", in->name, avail,
                         (unsigned long long)in->consumed);
    magic = read_le32(in->buf + in->pos);
    if (magic != TRACE_INPUT_ZSTD_MAGIC && (magic & TRACE_INPUT_SKIPPABLE_MASK) != TRACE_INPUT_SKIPPABLE_MAGIC)
        return error_set(TEA_ERR_FORMAT, "%s: not a zstd frame at byte %llu (magic 0x%08x): corrupt or appended data",
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

/* trace_input_read_decompressed without the background thread. */
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
            if (!in->stream_started) {
                in->stream_started = 1;
                in->stream_origin = in->consumed;
            }
            in->in_frame = 1;
            in->frame_start = in->consumed;
            in->frame_is_data = read_le32(in->buf + in->pos) == TRACE_INPUT_ZSTD_MAGIC;
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
    in->delivered += out.pos;
    return TEA_OK;
}

/* Grows a buffer to `size` bytes (at least), doubling from
 * INPUT_FRAME_INITIAL. */
static int grow_buffer(trace_input *in, frame_buffer *fb, size_t size)
{
    size_t cap = fb->cap ? fb->cap : INPUT_FRAME_INITIAL;
    uint8_t *p;

    if (size <= fb->cap)
        return TEA_OK;
    while (cap < size)
        cap *= 2;
    p = realloc(fb->data, cap);
    if (!p)
        return error_set(TEA_ERR_NOMEM, "%s: out of memory for a %zu-byte frame", in->name, size);
    fb->data = p;
    fb->cap = cap;
    return TEA_OK;
}

/* Makes the frame capacity hold `size` bytes, growing it as the frame buffer
 * always grew, and makes `fb` (the frame buffer, or the buffer of the frame
 * read ahead) at least that large. */
static int reserve_frame(trace_input *in, frame_buffer *fb, size_t size)
{
    size_t cap = in->frame_cap ? in->frame_cap : INPUT_FRAME_INITIAL;
    int rc;

    if (size <= in->frame_cap)
        cap = in->frame_cap;
    while (cap < size)
        cap *= 2;
    if ((rc = grow_buffer(in, fb, cap)))
        return rc;
    in->frame_cap = cap;
    assert(cap >= size && fb->cap >= cap); /* the output space offered fits the buffer */
    return TEA_OK;
}

/* Reads the skippable frame at the read position whole into `fb`. */
static int read_skippable(trace_input *in, frame_buffer *fb, trace_input_frame *frame, uint32_t magic)
{
    uint8_t header[SKIPPABLE_HEADER_SIZE];
    size_t got;
    uint32_t size;
    int rc;

    if ((rc = read_raw_sync(in, header, sizeof header, &got)))
        return rc;
    if (got < sizeof header)
        return truncated_frame(in);
    size = read_le32(header + 4);
    if (size > TRACE_INPUT_MAX_FRAME_SIZE)
        return error_set(TEA_ERR_FORMAT, "%s: skippable frame at byte %llu claims %u bytes (limit %u)", in->name,
                         (unsigned long long)frame->offset, size, TRACE_INPUT_MAX_FRAME_SIZE);
    if ((rc = reserve_frame(in, fb, size ? size : 1)))
        return rc;
    if ((rc = read_raw_sync(in, fb->data, size, &got)))
        return rc;
    if (got < size)
        return truncated_frame(in);
    frame->skippable = 1;
    frame->variant = magic & ~TRACE_INPUT_SKIPPABLE_MASK;
    frame->data = fb->data;
    frame->size = size;
    return TEA_OK;
}

/* Goes on decompressing the data frame at the read position (it starts at
 * file offset `offset`) into `fb`, from byte *pos on, until the frame is
 * complete (*ret == 0, zstd's last return) or *pos reaches `stop`; the frame
 * capacity grows as needed. A whole frame is one call with stop = SIZE_MAX.
 * Several calls read the same bytes into the same buffers at the same file
 * offsets (the read buffer is refilled only when empty) and decompress them
 * alike, provided the first one offers the output space a single call would
 * whenever that decides zstd's shortcut (see lookahead_path). */
static int data_frame_step(trace_input *in, frame_buffer *fb, uint64_t offset, size_t *pos, size_t *ret,
                           size_t stop)
{
    int rc;

    while (*ret != 0 && *pos < stop) {
        ZSTD_outBuffer out;

        if ((rc = fill(in, 1)))
            return rc;
        if (*pos == in->frame_cap) {
            if (in->frame_cap >= TRACE_INPUT_MAX_FRAME_SIZE)
                return error_set(TEA_ERR_FORMAT, "%s: frame at byte %llu decompresses to more than %u bytes", in->name,
                                 (unsigned long long)offset, TRACE_INPUT_MAX_FRAME_SIZE);
            if ((rc = reserve_frame(in, fb, in->frame_cap * 2)))
                return rc;
        }
        out.dst = fb->data;
        out.size = stop < in->frame_cap ? stop : in->frame_cap;
        out.pos = *pos;
        rc = decompress_step(in, &out, ret);
        *pos = out.pos;
        assert(*pos <= in->frame_cap && in->frame_cap <= fb->cap); /* zstd wrote inside the buffer */
        if (rc)
            return rc;
    }
    return TEA_OK;
}

/* Reads the whole data frame at the read position into `fb`. */
static int read_data_frame(trace_input *in, frame_buffer *fb, trace_input_frame *frame)
{
    size_t pos = 0, ret = 1;
    int rc;

    if ((rc = reserve_frame(in, fb, INPUT_FRAME_INITIAL)))
        return rc;
    if ((rc = data_frame_step(in, fb, frame->offset, &pos, &ret, SIZE_MAX)))
        return rc;
    in->frames++;
    frame->skippable = 0;
    frame->variant = 0;
    frame->data = fb->data;
    frame->size = pos;
    return TEA_OK;
}

/* Starts reading the next frame into `fb`. At a clean end of input
 * returns with *more = 0. Otherwise checks the frame's magic and sets
 * frame->offset; a skippable frame is then read whole (*more = 1), while
 * for a data frame only *data = 1 is set, its reading left to the caller. */
static int frame_begin(trace_input *in, frame_buffer *fb, trace_input_frame *frame, int *more, int *data)
{
    uint32_t magic;
    int rc;

    *more = 0;
    *data = 0;
    if ((rc = fill(in, 1)))
        return rc;
    if (in->len == in->pos)
        return TEA_OK;
    if ((rc = check_frame_magic(in)))
        return rc;
    magic = read_le32(in->buf + in->pos);
    frame->offset = in->consumed;
    in->frame_start = in->consumed;
    if (magic == TRACE_INPUT_ZSTD_MAGIC) {
        *data = 1;
        return TEA_OK;
    }
    if ((rc = read_skippable(in, fb, frame, magic)))
        return rc;
    frame->compressed_size = in->consumed - frame->offset;
    *more = 1;
    return TEA_OK;
}

/* trace_input_next_frame without a frame read ahead. */
static int next_frame_sync(trace_input *in, trace_input_frame *frame, int *more)
{
    int data, rc;

    if ((rc = frame_begin(in, &in->frame, frame, more, &data)) || !data)
        return rc;
    if ((rc = read_data_frame(in, &in->frame, frame)))
        return rc;
    frame->compressed_size = in->consumed - frame->offset;
    *more = 1;
    return TEA_OK;
}

/* Keeps the error just recorded for the trace_input_next_frame that reaches it. */
static int lookahead_fail(trace_input *in, int rc)
{
    in->ahead.state = LOOKAHEAD_FAILED;
    in->ahead.rc = rc;
    snprintf(in->ahead.message, sizeof in->ahead.message, "%s", error_message());
    return 0;
}

/* The path the synchronous read takes for the data frame at the read
 * position (see lookahead_path): the shortcut needs the whole frame
 * buffered, a content size in its header and the frame capacity to hold it.
 * Sets *size to the frame's compressed bytes for the shortcut. */
static lookahead_path choose_path(const trace_input *in, size_t *size)
{
    const uint8_t *p = in->buf + in->pos;
    size_t avail = in->len - in->pos, c = ZSTD_findFrameCompressedSize(p, avail);
    unsigned long long content;

    *size = 0;
    if (ZSTD_isError(c) || c > avail)
        return PATH_STEPS;
    content = ZSTD_getFrameContentSize(p, avail);
    if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR || content > in->frame_cap)
        return PATH_STEPS;
    *size = c;
    return (p[ZSTD_FHD_OFFSET] & ZSTD_FHD_CHECKSUM) ? PATH_COPY : PATH_WHOLE;
}

/* Starts reading the data frame at the read position ahead: its path, and
 * for PATH_COPY the copy of its compressed bytes, which leave the input. */
static int lookahead_begin_data(trace_input *in, lookahead *a)
{
    int rc;

    if ((rc = reserve_frame(in, &a->buf, INPUT_FRAME_INITIAL)))
        return rc;
    a->more = 1;
    a->pos = 0;
    a->ret = 1;
    a->path = choose_path(in, &a->src_size);
    if (a->path == PATH_COPY) {
        if ((rc = grow_buffer(in, &a->src, a->src_size)))
            return rc;
        memcpy(a->src.data, in->buf + in->pos, a->src_size);
        consume(in, a->src_size);
        a->src_pos = 0;
    }
    return TEA_OK;
}

/* PATH_COPY: the single pass the synchronous read makes over the copy, for
 * its exact result when decompressing in steps failed or would outgrow
 * the frame capacity (which a single pass never does). */
static int copy_single_pass(trace_input *in, lookahead *a)
{
    size_t n = ZSTD_decompressDCtx(in->dctx, a->buf.data, in->frame_cap, a->src.data, a->src_size);

    if (ZSTD_isError(n))
        return corrupt_frame(in, n);
    a->pos = n;
    a->ret = 0;
    return TEA_OK;
}

/* PATH_COPY: decompresses the copy until the frame is complete or a->pos
 * reaches `stop`. Anything unusual (an error, output beyond the frame
 * capacity, no progress, a frame ending before the copy does) is settled by
 * the single pass. */
static int copy_step(trace_input *in, lookahead *a, size_t stop)
{
    while (a->ret != 0 && a->pos < stop) {
        ZSTD_inBuffer inb = { a->src.data + a->src_pos, a->src_size - a->src_pos, 0 };
        ZSTD_outBuffer out = { a->buf.data, stop < in->frame_cap ? stop : in->frame_cap, a->pos };
        size_t before = a->pos;

        a->ret = ZSTD_decompressStream(in->dctx, &out, &inb);
        a->src_pos += inb.pos;
        a->pos = out.pos;
        if (ZSTD_isError(a->ret)) {
            ZSTD_DCtx_reset(in->dctx, ZSTD_reset_session_only);
            return copy_single_pass(in, a);
        }
        if (a->ret != 0 ? a->pos == in->frame_cap || (inb.pos == 0 && a->pos == before)
                        : a->src_pos != a->src_size) {
            ZSTD_DCtx_reset(in->dctx, ZSTD_reset_session_only);
            return copy_single_pass(in, a);
        }
    }
    return TEA_OK;
}

int trace_input_frame_advance(trace_input *in, size_t budget)
{
    lookahead *a = &in->ahead;
    size_t stop;
    int data, rc;

    if (a->state == LOOKAHEAD_READY || a->state == LOOKAHEAD_FAILED)
        return 0;
    if (a->state == LOOKAHEAD_NONE) {
        /* What the caller sees stays as of the frame it holds. */
        a->shown_offset = in->consumed;
        a->shown_frames = in->frames;
        a->state = LOOKAHEAD_READY;
        if ((rc = frame_begin(in, &a->buf, &a->frame, &a->more, &data)))
            return lookahead_fail(in, rc);
        if (!data)
            return 0;
        if ((rc = lookahead_begin_data(in, a)))
            return lookahead_fail(in, rc);
        a->state = LOOKAHEAD_PARTIAL;
    }
    stop = budget > SIZE_MAX - a->pos ? SIZE_MAX : a->pos + budget;
    if (a->path == PATH_COPY) {
        rc = copy_step(in, a, stop);
    } else {
        if (a->path == PATH_WHOLE)
            stop = SIZE_MAX;
        rc = data_frame_step(in, &a->buf, a->frame.offset, &a->pos, &a->ret, stop);
    }
    if (rc)
        return lookahead_fail(in, rc);
    if (a->ret != 0)
        return 1;
    in->frames++;
    a->frame.skippable = 0;
    a->frame.variant = 0;
    a->frame.size = a->pos;
    a->frame.compressed_size = in->consumed - a->frame.offset;
    a->state = LOOKAHEAD_READY;
    return 0;
}

int trace_input_next_frame(trace_input *in, trace_input_frame *frame, int *more)
{
    lookahead *a = &in->ahead;
    frame_buffer held;

    if (a->state == LOOKAHEAD_NONE)
        return next_frame_sync(in, frame, more);
    while (trace_input_frame_advance(in, SIZE_MAX))
        ;
    assert(a->state == LOOKAHEAD_READY || a->state == LOOKAHEAD_FAILED); /* advanced to the end */
    *more = 0;
    if (a->state == LOOKAHEAD_FAILED) {
        a->state = LOOKAHEAD_NONE;
        return error_set(a->rc, "%s", a->message);
    }
    a->state = LOOKAHEAD_NONE;
    /* The frame read ahead becomes the current one; the buffer of the
     * previous one (no longer valid) takes the next. */
    held = in->frame;
    in->frame = a->buf;
    a->buf = held;
    *more = a->more;
    if (a->more) {
        *frame = a->frame;
        frame->data = in->frame.data;
    }
    return TEA_OK;
}

/* Reads one chunk into `slot` exactly as the synchronous call would, and
 * records its result, message and counters. Returns whether the stream goes
 * on after it (no end, no error). */
static int chunk_fill(trace_input *in, chunk_reader *cr, chunk_slot *slot)
{
    slot->got = 0;
    slot->rc = cr->raw ? read_raw_sync(in, slot->buf, cr->chunk_size, &slot->got)
                       : read_decompressed_sync(in, slot->buf, cr->chunk_size, &slot->got);
    if (slot->rc != TEA_OK)
        snprintf(slot->message, sizeof slot->message, "%s", error_message());
    slot->offset = in->consumed;
    slot->frames = in->frames;
    assert(slot->got <= cr->chunk_size); /* the slot's buffer holds chunk_size bytes */
    return slot->rc == TEA_OK && slot->got == cr->chunk_size;
}

/* The background thread: fills free slots in order until the stream ends, a
 * read fails or the caller stops it. */
static void *chunk_main(void *arg)
{
    trace_input *in = arg;
    chunk_reader *cr = in->chunks;
    unsigned tail = 0;

    for (;;) {
        int go_on;

        pthread_mutex_lock(&cr->lock);
        while (!cr->stop && cr->filled + (unsigned)cr->held >= CHUNK_SLOTS)
            pthread_cond_wait(&cr->changed, &cr->lock);
        if (cr->stop) {
            pthread_mutex_unlock(&cr->lock);
            break;
        }
        pthread_mutex_unlock(&cr->lock);
        /* The slot at `tail` is neither filled nor held: it is ours. */
        go_on = chunk_fill(in, cr, &cr->slots[tail]);
        tail = (tail + 1) % CHUNK_SLOTS;
        pthread_mutex_lock(&cr->lock);
        cr->filled++;
        assert(cr->filled + (unsigned)cr->held <= CHUNK_SLOTS); /* only a free slot was filled */
        cr->finished = !go_on;
        pthread_cond_broadcast(&cr->changed);
        pthread_mutex_unlock(&cr->lock);
        if (!go_on)
            break;
    }
    return NULL;
}

/* Frees a chunk reader whose thread is not running. */
static void chunks_free(chunk_reader *cr)
{
    for (unsigned i = 0; i < CHUNK_SLOTS; i++)
        free(cr->slots[i].buf);
    free(cr);
}

/* --- frames decompressed on several threads --------------------------------- */

/* Starts decompressing the frames of a multi-frame regular file on several
 * threads, from the file's first frame: the `asked` count when the user set
 * one, else as many as the thread budget has room for (trace/parzstd.h);
 * the content the serial reader has handed out already is dropped from the
 * front. TEA_ERR_UNSUPPORTED (or NOMEM) leaves the input as it was. */
static int par_start(trace_input *in, unsigned asked)
{
    struct stat st;
    int rc;

    if (!in->owns_file || in->memory || (in->stream_started && in->stream_origin != 0)
        || fstat(fileno(in->file), &st) != 0 || !S_ISREG(st.st_mode))
        return TEA_ERR_UNSUPPORTED;
    if ((rc = trace_parzstd_start(&in->par, fileno(in->file), (uint64_t)st.st_size, asked)))
        return rc;
    in->par_skip = in->delivered;
    in->par_left = 0;
    in->view_offset = in->consumed;
    in->view_frames = in->frames;
    return TEA_OK;
}

/* Stops the frame threads, if any. */
static void par_stop(trace_input *in)
{
    if (!in->par)
        return;
    trace_parzstd_free(in->par);
    in->par = NULL;
    in->par_left = 0;
}

/* After the frame threads stopped at `end`: the serial reader goes on at
 * that frame, dropping the content handed out already, so that what follows
 * (and any error, with its message) is exactly what serial reading gives. */
static int par_resume_serial(trace_input *in, const trace_parzstd_end *end)
{
    uint64_t skip = end->skip + in->par_skip;

    par_stop(in);
    if (fseeko(in->file, (off_t)end->offset, SEEK_SET) != 0)
        return error_set(TEA_ERR_IO, "%s: cannot seek to byte %llu: %s", in->name, (unsigned long long)end->offset,
                         strerror(errno));
    in->pos = in->len = 0;
    in->eof = 0;
    in->consumed = end->offset;
    in->in_frame = 0;
    in->frames = end->frames;
    ZSTD_DCtx_reset(in->dctx, ZSTD_reset_session_only);
    while (skip) {
        size_t want = skip < INPUT_BUFFER_SIZE ? (size_t)skip : INPUT_BUFFER_SIZE, got;
        int rc;
        if ((rc = reserve_frame(in, &in->frame, want)) || (rc = read_decompressed_sync(in, in->frame.data, want, &got)))
            return rc;
        if (got == 0)
            break;
        skip -= got;
    }
    return TEA_OK;
}

/* The next bytes of content from the frame threads, at most `size`: 1 with
 * *data and *got, or 0 when they are done (the serial reader then takes
 * over; an error there is returned through *rc). */
static int par_next(trace_input *in, size_t size, const uint8_t **data, size_t *got, int *rc)
{
    *rc = TEA_OK;
    while (in->par) {
        const uint8_t *piece;
        size_t n;
        trace_parzstd_end end;

        if (in->par_left) {
            n = in->par_left < size ? in->par_left : size;
            *data = in->par_data;
            *got = n;
            in->par_data += n;
            in->par_left -= n;
            in->delivered += n;
            return 1;
        }
        if (!trace_parzstd_next(in->par, &piece, &n, &end)) {
            *rc = par_resume_serial(in, &end);
            return 0;
        }
        trace_parzstd_position(in->par, &in->view_offset, &in->view_frames);
        if (in->par_skip >= n) {
            in->par_skip -= n;
            continue;
        }
        in->par_data = piece + in->par_skip;
        in->par_left = n - (size_t)in->par_skip;
        in->par_skip = 0;
    }
    return 0;
}

/* --- chunks decompressed in the background, one thread ----------------------- */

/* Starts the background chunk reader (raw or decompressing); stays
 * synchronous when anything fails. */
static void chunks_start(trace_input *in, size_t chunk_size, int raw)
{
    chunk_reader *cr;
    int started;

    if (!(cr = calloc(1, sizeof *cr)))
        return;
    cr->chunk_size = chunk_size;
    cr->raw = raw;
    for (unsigned i = 0; i < CHUNK_SLOTS; i++)
        if (!(cr->slots[i].buf = malloc(chunk_size))) {
            chunks_free(cr);
            return;
        }
    if (pthread_mutex_init(&cr->lock, NULL) != 0) {
        chunks_free(cr);
        return;
    }
    if (pthread_cond_init(&cr->changed, NULL) != 0) {
        pthread_mutex_destroy(&cr->lock);
        chunks_free(cr);
        return;
    }
    /* The caller's view of the counters starts where the file stands now. */
    in->view_offset = in->consumed;
    in->view_frames = in->frames;
    in->chunks = cr;
    /* a processor to spare (common/threads.h)? */
    started = pool_claim(&cr->thread, 0, 1, 1) && pool_start(&cr->thread, chunk_main, in, 0) == TEA_OK;
    if (!started)
        pool_join(&cr->thread); /* gives back a claim whose thread could not start */
    if (!started) { /* read synchronously */
        in->chunks = NULL;
        pthread_cond_destroy(&cr->changed);
        pthread_mutex_destroy(&cr->lock);
        chunks_free(cr);
    }
}

int trace_input_prefetch_chunks(trace_input *in, size_t chunk_size, unsigned frame_threads)
{
    if (in->par || in->chunks || in->ahead.state != LOOKAHEAD_NONE || par_start(in, frame_threads) == TEA_OK)
        return TEA_OK; /* already started, frame-parallel, or synchronous (just as correct) */
    chunks_start(in, chunk_size, 0);
    return TEA_OK;
}

int trace_input_prefetch_raw(trace_input *in, size_t chunk_size)
{
    if (!in->par && !in->chunks && in->ahead.state == LOOKAHEAD_NONE)
        chunks_start(in, chunk_size, 1);
    return TEA_OK;
}

/* Stops and joins the background thread and frees its slots. */
static void chunks_stop(trace_input *in)
{
    chunk_reader *cr = in->chunks;

    if (!cr)
        return;
    pthread_mutex_lock(&cr->lock);
    cr->stop = 1;
    pthread_cond_broadcast(&cr->changed);
    pthread_mutex_unlock(&cr->lock);
    pool_join(&cr->thread);
    pthread_cond_destroy(&cr->changed);
    pthread_mutex_destroy(&cr->lock);
    chunks_free(cr);
    in->chunks = NULL;
}

/* Hands the caller the next slot the thread filled, releasing the one it
 * held, and replays that slot's error (message and code) on the caller's
 * thread. NULL after the thread finished and every slot was taken: the
 * caller then sees the end of the stream again. */
static chunk_slot *chunk_take(trace_input *in, int *rc)
{
    chunk_reader *cr = in->chunks;
    chunk_slot *slot = NULL;

    *rc = TEA_OK;
    pthread_mutex_lock(&cr->lock);
    cr->held = 0;
    pthread_cond_broadcast(&cr->changed);
    while (cr->filled == 0 && !cr->finished)
        pthread_cond_wait(&cr->changed, &cr->lock);
    if (cr->filled > 0) {
        slot = &cr->slots[cr->next];
        cr->next = (cr->next + 1) % CHUNK_SLOTS;
        cr->filled--;
        cr->held = 1;
    }
    pthread_mutex_unlock(&cr->lock);
    if (!slot)
        return NULL;
    in->view_offset = slot->offset;
    in->view_frames = slot->frames;
    if (slot->rc != TEA_OK)
        *rc = error_set(slot->rc, "%s", slot->message);
    return slot;
}

int trace_input_read_decompressed(trace_input *in, void *dst, size_t size, size_t *got)
{
    const uint8_t *data;
    int rc = TEA_OK;

    if (in->par) {
        size_t n, more = 0;
        *got = 0;
        while (*got < size && par_next(in, size - *got, &data, &n, &rc)) {
            memcpy((uint8_t *)dst + *got, data, n);
            *got += n;
        }
        /* Short of `size` only when the serial reader took over: it reads the rest. */
        if (!rc && *got < size)
            rc = read_decompressed_sync(in, (uint8_t *)dst + *got, size - *got, &more);
        *got += more;
        return rc;
    }
    if (!in->chunks)
        return read_decompressed_sync(in, dst, size, got);
    if ((rc = trace_input_next_chunk(in, size, &data, got)))
        return rc;
    if (*got)
        memcpy(dst, data, *got);
    return TEA_OK;
}

/* The next chunk of the serial views, raw or decompressed: the background
 * reader's next slot, or without one a synchronous read into the frame
 * buffer (free in these views). */
static int serial_chunk(trace_input *in, size_t size, int raw, const uint8_t **data, size_t *got)
{
    chunk_slot *slot;
    int rc = TEA_OK;

    if (!in->chunks) {
        if ((rc = reserve_frame(in, &in->frame, size)))
            return rc;
        *data = in->frame.data;
        return raw ? read_raw_sync(in, in->frame.data, size, got) : read_decompressed_sync(in, in->frame.data, size, got);
    }
    if (size != in->chunks->chunk_size || in->chunks->raw != raw)
        return error_set(TEA_ERR_USAGE, "%s: read of %zu %sbytes does not match the background reader", in->name,
                         size, raw ? "raw " : "");
    slot = chunk_take(in, &rc);
    if (!slot || rc)
        return rc;
    *data = slot->buf;
    *got = slot->got;
    return TEA_OK;
}

int trace_input_next_raw_chunk(trace_input *in, size_t size, const uint8_t **data, size_t *got)
{
    *data = NULL;
    *got = 0;
    return serial_chunk(in, size, 1, data, got);
}

int trace_input_next_chunk(trace_input *in, size_t size, const uint8_t **data, size_t *got)
{
    int rc = TEA_OK;

    *data = NULL;
    *got = 0;
    if (in->par && par_next(in, size, data, got, &rc))
        return TEA_OK;
    if (rc)
        return rc;
    return serial_chunk(in, size, 0, data, got);
}
