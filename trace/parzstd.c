/*
 * parzstd.c: multi-frame zstd decompressed on several threads (see
 * parzstd.h).
 *
 * Workers claim frames in file order. The one that claims a frame first
 * sizes it from its headers (under the lock, so claims stay in order), then
 * decompresses it into pieces of its own and queues them on the frame's job.
 * The consumer takes the jobs' pieces in order and gives each piece back to
 * its worker. A worker only ever fills the frames it claimed, one after the
 * other, so the frame the consumer waits for always has a worker with
 * pieces to fill: the pieces it lacks are queued on that very frame.
 */
#define _POSIX_C_SOURCE 200809L
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getFrameHeader: a frame's header without its blocks */
#include "parzstd.h"
#include "../common/error.h"
#include "../common/pool.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* A zstd block header (RFC 8878, 3.1.1.2): three bytes, little-endian; bit 0
 * marks the last block, bits 1-2 give the type, bits 3-23 the size. An RLE
 * block's content is one byte whatever its size; type 3 is reserved. */
#define BLOCK_HEADER_SIZE 3
#define BLOCK_TYPE_RLE 1u
#define BLOCK_TYPE_RESERVED 3u
/* The content checksum after the last block, when the header announces it. */
#define CHECKSUM_SIZE 4

enum job_state {
    JOB_EMPTY = 0, /* not claimed yet */
    JOB_ACTIVE,    /* a worker decompresses the frame */
    JOB_DONE,      /* every piece of the frame is queued */
    JOB_FAILED,    /* decompression failed: serial reading takes over here */
    JOB_END        /* no frame here: the file ends, or what is here cannot be sized */
};

typedef struct piece {
    uint8_t *data;      /* TRACE_PARZSTD_PIECE_SIZE bytes */
    size_t size;        /* bytes filled */
    unsigned owner;     /* the worker whose pool it belongs to */
    struct piece *next; /* in a job's queue or a worker's free list */
} piece;

/* One frame in flight, or the end of the frames. */
typedef struct job {
    int state;          /* enum job_state */
    uint64_t offset;    /* the frame's first byte in the file */
    uint64_t size;      /* its compressed bytes */
    int is_data;        /* zstd data frame (1) or skippable (0) */
    piece *head, *tail; /* pieces filled and not yet handed out */
} job;

typedef struct worker {
    trace_parzstd *p;
    unsigned index;
    ZSTD_DCtx *dctx;
    uint8_t *input; /* TRACE_PARZSTD_INPUT_SIZE compressed bytes */
    piece *pieces;  /* its TRACE_PARZSTD_PIECES pieces */
    piece *free_list;
} worker;

struct trace_parzstd {
    int fd;
    uint64_t file_size;
    pthread_mutex_t lock;
    pthread_cond_t consumer_cond; /* a piece was queued or a job finished */
    pthread_cond_t worker_cond;   /* a piece came back, a job was freed, or stop */
    pool_threads threads;  /* the workers' threads, drawn on the thread budget */
    worker *workers;
    unsigned worker_count;
    job *jobs; /* ring of job_count: job k is jobs[k % job_count] */
    size_t job_count;
    uint64_t next_claim;   /* the next job a worker claims */
    uint64_t next_offset;  /* where the next claimed frame starts */
    int claims_ended;      /* a JOB_END or a failure was claimed or seen */
    uint64_t next_take;    /* the job the consumer is on */
    uint64_t taken_in_job; /* its bytes handed out so far */
    piece *held;           /* the piece last handed out */
    uint64_t done_offset;  /* trace_parzstd_position */
    uint64_t done_frames;
    int stop;
};

/* Reads exactly `size` bytes at `offset`: 1 when they were read, 0 on a
 * read error or a file that ends first (no message: see parzstd.h). */
static int read_at(int fd, uint64_t offset, void *dst, size_t size)
{
    uint8_t *out = dst;
    while (size) {
        ssize_t n = pread(fd, out, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        out += n;
        offset += (uint64_t)n;
        size -= (size_t)n;
    }
    return 1;
}

int trace_parzstd_frame_size(int fd, uint64_t file_size, uint64_t offset, uint64_t *size, int *is_data)
{
    uint8_t head[ZSTD_FRAMEHEADERSIZE_MAX];
    size_t avail = file_size - offset < sizeof head ? (size_t)(file_size - offset) : sizeof head;
    ZSTD_frameHeader fh;
    uint64_t pos;

    if (offset >= file_size || !read_at(fd, offset, head, avail) || ZSTD_getFrameHeader(&fh, head, avail) != 0)
        return 0;
    if (fh.frameType == ZSTD_skippableFrame) {
        pos = offset + ZSTD_SKIPPABLEHEADERSIZE + fh.frameContentSize; /* headerSize is not set for these */
        *is_data = 0;
    } else {
        int last = 0;
        pos = offset + fh.headerSize;
        while (!last) {
            uint8_t b[BLOCK_HEADER_SIZE];
            uint32_t header, type, block_size;
            if (pos + BLOCK_HEADER_SIZE > file_size || !read_at(fd, pos, b, sizeof b))
                return 0;
            header = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
            last = header & 1u;
            type = (header >> 1) & 3u;
            block_size = header >> 3;
            if (type == BLOCK_TYPE_RESERVED)
                return 0;
            pos += BLOCK_HEADER_SIZE + (type == BLOCK_TYPE_RLE ? 1u : block_size);
        }
        pos += fh.checksumFlag ? CHECKSUM_SIZE : 0;
        *is_data = 1;
    }
    if (pos > file_size)
        return 0;
    *size = pos - offset;
    assert(*size > 0); /* a frame has a header */
    return 1;
}

/* Waits for a free piece of worker w (lock held); NULL when stopping. */
static piece *take_free_piece(worker *w)
{
    trace_parzstd *p = w->p;
    piece *pc;

    while (!p->stop && !w->free_list)
        pthread_cond_wait(&p->worker_cond, &p->lock);
    if (p->stop)
        return NULL;
    pc = w->free_list;
    w->free_list = pc->next;
    pc->next = NULL;
    pc->size = 0;
    return pc;
}

/* Queues a filled piece on job j (lock held). */
static void queue_piece(trace_parzstd *p, job *j, piece *pc)
{
    pc->next = NULL;
    if (j->tail)
        j->tail->next = pc;
    else
        j->head = pc;
    j->tail = pc;
    pthread_cond_broadcast(&p->consumer_cond);
}

/* Decompresses the data frame of job j into pieces queued on it. Returns 1
 * when the frame decompressed whole and ended exactly where its headers
 * said, 0 otherwise (an error, or stop). Called without the lock. */
static int decompress_job(worker *w, job *j)
{
    trace_parzstd *p = w->p;
    uint64_t pos = j->offset, end = j->offset + j->size;
    ZSTD_inBuffer in = { w->input, 0, 0 };
    piece *pc = NULL;
    size_t ret = 1;
    int whole = 1;

    ZSTD_DCtx_reset(w->dctx, ZSTD_reset_session_only);
    for (;;) {
        ZSTD_outBuffer out;
        if (in.pos == in.size && pos < end) {
            size_t n = end - pos < TRACE_PARZSTD_INPUT_SIZE ? (size_t)(end - pos) : TRACE_PARZSTD_INPUT_SIZE;
            if (!read_at(p->fd, pos, w->input, n)) {
                whole = 0;
                break;
            }
            in = (ZSTD_inBuffer){ w->input, n, 0 };
            pos += n;
        }
        if (!pc) {
            pthread_mutex_lock(&p->lock);
            pc = take_free_piece(w);
            pthread_mutex_unlock(&p->lock);
            if (!pc) {
                whole = 0;
                break;
            }
        }
        out = (ZSTD_outBuffer){ pc->data, TRACE_PARZSTD_PIECE_SIZE, pc->size };
        ret = ZSTD_decompressStream(w->dctx, &out, &in);
        pc->size = out.pos;
        if (ZSTD_isError(ret)) {
            whole = 0;
            break;
        }
        if (pc->size == TRACE_PARZSTD_PIECE_SIZE) {
            pthread_mutex_lock(&p->lock);
            queue_piece(p, j, pc);
            pthread_mutex_unlock(&p->lock);
            pc = NULL;
        }
        if (ret == 0) { /* the frame is complete: it must end where its headers said */
            whole = in.pos == in.size && pos == end;
            break;
        }
        if (in.pos == in.size && pos == end && out.pos < out.size) { /* input gone, frame not done */
            whole = 0;
            break;
        }
    }
    pthread_mutex_lock(&p->lock);
    if (pc && pc->size && whole) {
        queue_piece(p, j, pc);
    } else if (pc) {
        pc->next = w->free_list;
        w->free_list = pc;
    }
    pthread_mutex_unlock(&p->lock);
    return whole;
}

/* Claims the next job and sizes its frame (lock held). NULL when claims have
 * ended or the ring is full and stop was set. */
static job *claim_job(trace_parzstd *p)
{
    job *j;
    uint64_t size;
    int is_data;

    while (!p->stop && !p->claims_ended && p->next_claim - p->next_take >= p->job_count)
        pthread_cond_wait(&p->worker_cond, &p->lock);
    if (p->stop || p->claims_ended)
        return NULL;
    j = &p->jobs[p->next_claim++ % p->job_count];
    memset(j, 0, sizeof *j);
    j->offset = p->next_offset;
    if (p->next_offset >= p->file_size
        || !trace_parzstd_frame_size(p->fd, p->file_size, p->next_offset, &size, &is_data)) {
        j->state = JOB_END;
        p->claims_ended = 1;
        pthread_cond_broadcast(&p->consumer_cond);
        pthread_cond_broadcast(&p->worker_cond);
        return NULL;
    }
    j->state = JOB_ACTIVE;
    j->size = size;
    j->is_data = is_data;
    p->next_offset += size;
    return j;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    trace_parzstd *p = w->p;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        job *j = claim_job(p);
        int whole = 1;
        if (!j)
            break;
        pthread_mutex_unlock(&p->lock);
        if (j->is_data)
            whole = decompress_job(w, j);
        pthread_mutex_lock(&p->lock);
        assert(j->state == JOB_ACTIVE); /* only its worker finishes a claimed job */
        j->state = whole ? JOB_DONE : JOB_FAILED;
        if (!whole) /* the frames after it are left to the serial reader */
            p->claims_ended = 1;
        pthread_cond_broadcast(&p->consumer_cond);
        pthread_cond_broadcast(&p->worker_cond);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Stops and joins the workers and frees everything but the struct. */
static void teardown(trace_parzstd *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->worker_cond);
    pthread_mutex_unlock(&p->lock);
    pool_join(&p->threads);
    for (unsigned i = 0; p->workers && i < p->worker_count; i++) {
        worker *w = &p->workers[i];
        for (unsigned k = 0; w->pieces && k < TRACE_PARZSTD_PIECES; k++)
            free(w->pieces[k].data);
        free(w->pieces);
        free(w->input);
        ZSTD_freeDCtx(w->dctx);
    }
    free(p->workers);
    free(p->jobs);
    pthread_cond_destroy(&p->worker_cond);
    pthread_cond_destroy(&p->consumer_cond);
    pthread_mutex_destroy(&p->lock);
}

/* Allocates worker w's context, read buffer and pieces. 0, or
 * TEA_ERR_NOMEM (no message: the caller reads serially). */
static int worker_init(trace_parzstd *p, worker *w, unsigned index)
{
    w->p = p;
    w->index = index;
    w->dctx = ZSTD_createDCtx();
    w->input = malloc(TRACE_PARZSTD_INPUT_SIZE);
    w->pieces = calloc(TRACE_PARZSTD_PIECES, sizeof *w->pieces);
    if (!w->dctx || !w->input || !w->pieces)
        return TEA_ERR_NOMEM;
    for (unsigned k = 0; k < TRACE_PARZSTD_PIECES; k++) {
        piece *pc = &w->pieces[k];
        if (!(pc->data = malloc(TRACE_PARZSTD_PIECE_SIZE)))
            return TEA_ERR_NOMEM;
        pc->owner = index;
        pc->next = w->free_list;
        w->free_list = pc;
    }
    return TEA_OK;
}

int trace_parzstd_start(trace_parzstd **out, int fd, uint64_t file_size, unsigned asked)
{
    trace_parzstd *p;
    uint64_t first_size;
    unsigned workers;
    int is_data, rc = TEA_OK;

    *out = NULL;
    if (!trace_parzstd_frame_size(fd, file_size, 0, &first_size, &is_data) || first_size == file_size)
        return TEA_ERR_UNSUPPORTED;
    if (!(p = calloc(1, sizeof *p)))
        return TEA_ERR_NOMEM;
    /* Fewer than two workers: nothing to share. */
    if (!(workers = pool_claim(&p->threads, asked, TRACE_PARZSTD_MAX_WORKERS, 2))) {
        free(p);
        return TEA_ERR_UNSUPPORTED;
    }
    if (pthread_mutex_init(&p->lock, NULL)) {
        pool_join(&p->threads);
        free(p);
        return TEA_ERR_NOMEM;
    }
    if (pthread_cond_init(&p->consumer_cond, NULL)) {
        pthread_mutex_destroy(&p->lock);
        pool_join(&p->threads);
        free(p);
        return TEA_ERR_NOMEM;
    }
    if (pthread_cond_init(&p->worker_cond, NULL)) {
        pthread_cond_destroy(&p->consumer_cond);
        pthread_mutex_destroy(&p->lock);
        pool_join(&p->threads);
        free(p);
        return TEA_ERR_NOMEM;
    }
    p->fd = fd;
    p->file_size = file_size;
    p->worker_count = workers;
    /* Two jobs per worker: one being decompressed, one whose pieces wait. */
    p->job_count = 2 * (size_t)workers;
    p->workers = calloc(workers, sizeof *p->workers);
    p->jobs = calloc(p->job_count, sizeof *p->jobs);
    if (!p->workers || !p->jobs)
        rc = TEA_ERR_NOMEM;
    for (unsigned i = 0; !rc && i < workers; i++)
        rc = worker_init(p, &p->workers[i], i);
    if (!rc)
        rc = pool_start(&p->threads, worker_main, p->workers, sizeof *p->workers);
    if (rc) {
        teardown(p);
        free(p);
        return rc;
    }
    *out = p;
    return TEA_OK;
}

/* Gives the piece handed out last back to its worker (lock held). */
static void give_back(trace_parzstd *p)
{
    piece *pc = p->held;
    worker *w;

    if (!pc)
        return;
    assert(pc->owner < p->worker_count);
    w = &p->workers[pc->owner];
    pc->next = w->free_list;
    w->free_list = pc;
    p->held = NULL;
    pthread_cond_broadcast(&p->worker_cond);
}

int trace_parzstd_next(trace_parzstd *p, const uint8_t **data, size_t *size, trace_parzstd_end *end)
{
    int found = 0;

    pthread_mutex_lock(&p->lock);
    give_back(p);
    for (;;) {
        job *j = &p->jobs[p->next_take % p->job_count];
        /* The jobs in flight fit the ring: workers claim at most job_count ahead. */
        assert(p->next_take <= p->next_claim && p->next_claim - p->next_take <= p->job_count);
        if (p->next_take >= p->next_claim || (j->state == JOB_ACTIVE && !j->head)) {
            pthread_cond_wait(&p->consumer_cond, &p->lock);
            continue;
        }
        if (j->head) {
            piece *pc = j->head;
            j->head = pc->next;
            if (!j->head)
                j->tail = NULL;
            p->held = pc;
            p->taken_in_job += pc->size;
            *data = pc->data;
            *size = pc->size;
            found = 1;
            break;
        }
        if (j->state == JOB_DONE) {
            p->done_offset = j->offset + j->size;
            p->done_frames += (uint64_t)j->is_data;
            p->taken_in_job = 0;
            j->state = JOB_EMPTY;
            p->next_take++;
            pthread_cond_broadcast(&p->worker_cond);
            continue;
        }
        /* JOB_FAILED or JOB_END: the serial reader goes on from this frame. */
        end->offset = j->offset;
        end->frames = p->done_frames;
        end->skip = p->taken_in_job;
        break;
    }
    pthread_mutex_unlock(&p->lock);
    return found;
}

void trace_parzstd_position(const trace_parzstd *p, uint64_t *offset, uint64_t *frames)
{
    *offset = p->done_offset;
    *frames = p->done_frames;
}

void trace_parzstd_free(trace_parzstd *p)
{
    if (!p)
        return;
    teardown(p);
    free(p);
}
