/*
 * parallel.c: frame-parallel replay of a native trace (see parallel.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"
#include "common/error.h"
#include "common/pool.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest error message carried from a worker (common/error.c's buffer). */
#define PARALLEL_MESSAGE_MAX 1024

enum slot_state {
    SLOT_FREE = 0,   /* the calling thread is done with it */
    SLOT_BUSY,       /* a worker is filling it */
    SLOT_DONE        /* filled (or failed), waiting for the calling thread */
};

/*
 * One frame in flight: its bytes, where each batch of its records starts,
 * the batches up to where its part began (decoded), and what the part found.
 * The calling thread needs the records before the part's start; of the
 * others it needs only the batches a tagger wakes in, which it decodes again
 * from the frame's bytes, so a frame in flight costs its bytes (about 4.5 per
 * record for `mixed`) rather than its decoded records (about 56 per record).
 */
typedef struct frame_slot {
    int state;                  /* enum slot_state */
    size_t frame;               /* the frame it holds */
    trace_frame_data data;      /* its decompressed bytes */
    trace_frame_position *positions; /* where the read of batch b began; [used]: the end */
    size_t used, reserved;      /* batches read; positions allocated */
    trace_batch *batches;       /* batches [0, kept) decoded: up to the part's start */
    size_t kept, allocated;     /* batches kept; batches initialized */
    int resumed;                /* the frame has a committing record, where its part began */
    size_t resume_batch;        /* that record: batches[resume_batch].records[resume_record] */
    size_t resume_record;
    tea_replay_mark *mark;      /* where the part stood after the frame */
    trace_totals totals;        /* the frame's records */
    unsigned end_window;        /* ROB entries after its last record */
    int rc;
    char message[PARALLEL_MESSAGE_MAX];
} frame_slot;

typedef struct parallel_run {
    const trace_frames *frames;
    size_t frame_count;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;   /* a slot became DONE */
    pthread_cond_t free_cond;   /* a slot became FREE, or stop was set */
    frame_slot *slots;
    size_t slot_count;
    size_t next_frame;          /* the next frame a worker takes */
    int taggers;                /* the replay has taggers (IBS, SPE, RIS) */
    int stop;                   /* workers must exit */
    progress_meter *meter;      /* records taken in order, or NULL; the calling thread's */
} parallel_run;

typedef struct worker {
    parallel_run *run;
    tea_replay *part;
    trace_frame_reader *reader;
    trace_batch scratch;        /* batches after the part's start: replayed, then dropped */
} worker;

/* Makes room for the position of slot batch `i`. */
static int slot_reserve(frame_slot *s, size_t i)
{
    if (i >= s->reserved) {
        size_t capacity = s->reserved ? 2 * s->reserved : 64;
        trace_frame_position *positions = realloc(s->positions, capacity * sizeof *positions);
        if (!positions)
            return error_set(TEA_ERR_NOMEM, "out of memory for a frame");
        s->positions = positions;
        s->reserved = capacity;
    }
    return TEA_OK;
}

/* What batch b did to the ROB window, from where the reader stood before and
 * after it: no pass over its records. */
static void batch_delta(const frame_slot *s, size_t b, tea_rob_delta *d)
{
    const trace_frame_position *before, *after;

    assert(b < s->used); /* positions[b + 1] is where batch b ended */
    before = &s->positions[b];
    after = &s->positions[b + 1];
    /* The window after = before - retired - squashed + dispatched, none below 0. */
    assert((uint64_t)before->window + (after->totals.dispatched - before->totals.dispatched)
           >= (after->totals.squashed - before->totals.squashed) + after->window);
    d->dispatched = after->totals.dispatched - before->totals.dispatched;
    d->squashed = after->totals.squashed - before->totals.squashed;
    /* window after = window before - retired - squashed + dispatched */
    d->retired = (uint64_t)before->window + d->dispatched - d->squashed - after->window;
    d->last_cycle = after->totals.last_cycle;
}

/* Makes slot batch `i` usable for records to keep. */
static int slot_batch(frame_slot *s, size_t i)
{
    if (i >= s->allocated) {
        size_t capacity = s->allocated ? 2 * s->allocated : 4;
        trace_batch *bigger = realloc(s->batches, capacity * sizeof *bigger);
        if (!bigger)
            return error_set(TEA_ERR_NOMEM, "out of memory for a frame");
        memset(bigger + s->allocated, 0, (capacity - s->allocated) * sizeof *bigger);
        s->batches = bigger;
        for (size_t k = s->allocated; k < capacity; k++) {
            if (trace_batch_init(&s->batches[k], TEA_PARALLEL_BATCH_RECORDS)) {
                s->allocated = k;
                return error_set(TEA_ERR_NOMEM, "out of memory for a frame");
            }
        }
        s->allocated = capacity;
    }
    return TEA_OK;
}

/* Looks for the frame's first committing record in `batch`, batch b of the
 * slot, with `*window` the ROB occupancy before the batch (after the record
 * when found, else after the batch); positions the worker's part after it. */
static void find_resume(worker *w, frame_slot *s, const trace_batch *batch, size_t b, unsigned *window)
{
    for (size_t i = 0; i < batch->count; i++) {
        const trace_record *rec = &batch->records[i];
        *window = *window - rec->retire - rec->squash + rec->dispatch;
        if (rec->n_commit) {
            s->resumed = 1;
            s->resume_batch = b;
            s->resume_record = i;
            tea_replay_part_resume(w->part, rec, batch->uops, *window);
            return;
        }
    }
}

/* Decodes frame k into the slot and replays it from its first committing
 * record on with the worker's part, batch by batch while each is in the
 * cache. */
static int replay_frame(worker *w, frame_slot *s, size_t k)
{
    unsigned window = trace_frames_info(w->run->frames, k)->window;
    int rc;

    s->used = s->kept = 0;
    s->resumed = 0;
    if ((rc = trace_frame_reader_start(w->reader, k)))
        return rc;
    for (;;) {
        trace_batch *batch, view;
        if ((rc = slot_reserve(s, s->used)) || (!s->resumed && (rc = slot_batch(s, s->kept))))
            return rc;
        trace_frame_reader_tell(w->reader, &s->positions[s->used]);
        batch = s->resumed ? &w->scratch : &s->batches[s->kept];
        if ((rc = trace_frame_reader_read(w->reader, batch)))
            return rc;
        if (batch->count == 0)
            break;
        if (!s->resumed)
            s->kept++;
        if (!s->resumed)
            find_resume(w, s, batch, s->used, &window);
        if (s->resumed) {
            view = *batch;
            if (s->resume_batch == s->used) {
                view.records += s->resume_record + 1;
                view.count -= s->resume_record + 1;
            }
            if ((rc = tea_replay_feed(w->part, &view)))
                return rc;
        }
        s->used++;
    }
    /* Batches are kept up to the one holding the part's first record. */
    assert(s->resumed ? s->resume_batch + 1 == s->kept : s->kept == s->used);
    s->totals = *trace_frame_reader_totals(w->reader);
    s->end_window = trace_frame_reader_window(w->reader);
    trace_frame_reader_hand_over(w->reader, &s->data);
    if (s->resumed)
        tea_replay_mark_take(s->mark, w->part);
    return TEA_OK;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    parallel_run *run = w->run;

    for (;;) {
        frame_slot *s;
        size_t k;
        int rc;

        pthread_mutex_lock(&run->lock);
        while (!run->stop && run->next_frame < run->frame_count
               && run->slots[run->next_frame % run->slot_count].state != SLOT_FREE)
            pthread_cond_wait(&run->free_cond, &run->lock);
        if (run->stop || run->next_frame >= run->frame_count) {
            pthread_mutex_unlock(&run->lock);
            break;
        }
        k = run->next_frame++;
        s = &run->slots[k % run->slot_count];
        s->state = SLOT_BUSY;
        s->frame = k;
        pthread_mutex_unlock(&run->lock);

        rc = replay_frame(w, s, k);

        pthread_mutex_lock(&run->lock);
        s->rc = rc;
        if (rc)
            snprintf(s->message, sizeof s->message, "%s", error_message());
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&run->done_cond);
        pthread_mutex_unlock(&run->lock);
        if (rc)
            break;
    }
    return NULL;
}

/* The calling thread's share of frame k: the records before the part began
 * with the whole replay, the taggers over the rest (decoding again the
 * batches they wake in, with `reader` into `scratch`), then the part's end. */
static int consume_frame(tea_replay *whole, int taggers, frame_slot *s, trace_frame_reader *reader,
                         trace_batch *scratch)
{
    for (size_t b = 0; b < s->used; b++) {
        tea_rob_delta delta;
        int rc = TEA_OK;
        if (!s->resumed || b < s->resume_batch) {
            rc = tea_replay_feed(whole, &s->batches[b]);
        } else if (b == s->resume_batch) {
            const trace_batch *batch = &s->batches[b];
            trace_batch head = *batch;
            head.count = s->resume_record + 1;
            if (!(rc = tea_replay_feed(whole, &head)))
                rc = tea_replay_feed_taggers(whole, batch, head.count, batch->count - head.count);
        } else if (taggers && (batch_delta(s, b, &delta), !tea_replay_taggers_skip(whole, &delta))) {
            trace_frame_reader_seek(reader, &s->data, &s->positions[b]);
            if (!(rc = trace_frame_reader_read(reader, scratch)))
                rc = tea_replay_feed_taggers(whole, scratch, 0, scratch->count);
        }
        if (rc)
            return rc;
    }
    if (s->resumed)
        tea_replay_adopt(whole, s->mark);
    return TEA_OK;
}

/* Takes every frame in order as the workers finish them. */
static int consume_frames(parallel_run *run, tea_replay *whole, trace_frame_reader *reader, trace_batch *scratch,
                          trace_totals *frame_totals, unsigned *end_window)
{
    int rc = TEA_OK;

    for (size_t k = 0; k < run->frame_count && !rc; k++) {
        frame_slot *s = &run->slots[k % run->slot_count];

        pthread_mutex_lock(&run->lock);
        while (!(s->state == SLOT_DONE && s->frame == k))
            pthread_cond_wait(&run->done_cond, &run->lock);
        pthread_mutex_unlock(&run->lock);
        if (s->rc)
            rc = error_set(s->rc, "%s", s->message);
        else
            rc = consume_frame(whole, run->taggers, s, reader, scratch);
        frame_totals[k] = s->totals;
        end_window[k] = s->end_window;
        if (!rc) {
            const trace_frame_info *info = trace_frames_info(run->frames, k);
            progress_update(run->meter, info->first_record + info->records);
        }
        pthread_mutex_lock(&run->lock);
        s->state = SLOT_FREE;
        if (rc)
            run->stop = 1;
        pthread_cond_broadcast(&run->free_cond);
        pthread_mutex_unlock(&run->lock);
    }
    return rc;
}

static void free_slots(parallel_run *run)
{
    for (size_t i = 0; run->slots && i < run->slot_count; i++) {
        frame_slot *s = &run->slots[i];
        for (size_t b = 0; b < s->allocated; b++)
            trace_batch_free(&s->batches[b]);
        free(s->batches);
        free(s->positions);
        trace_frame_data_free(&s->data);
        tea_replay_mark_free(s->mark);
    }
    free(run->slots);
}

/* The cycle of the trace's first record, as the index says (each frame's
 * first cycle is checked when it is decoded). */
static uint64_t trace_origin(const trace_frames *f)
{
    for (size_t k = 0; k < trace_frames_count(f); k++)
        if (trace_frames_info(f, k)->records)
            return trace_frames_info(f, k)->first_cycle;
    return 0;
}

int tea_parallel_suits(const tea_replay *whole, const trace_frames *f)
{
    const uint64_t period = tea_replay_tagger_period(whole);
    const size_t count = trace_frames_count(f);
    const trace_frame_info *last;
    uint64_t records, origin;
    double cycles_per_batch;

    if (period == UINT64_MAX || !count)
        return 1;
    last = trace_frames_info(f, count - 1);
    records = last->first_record + last->records;
    origin = trace_origin(f);
    if (!records || last->last_cycle < origin)
        return 1;
    /* Only speed depends on this estimate, never a result. */
    cycles_per_batch = ((double)(last->last_cycle - origin) + 1) / (double)records * TEA_PARALLEL_BATCH_RECORDS;
    return (double)period >= TEA_PARALLEL_TAG_BATCHES * cycles_per_batch;
}

int tea_parallel_replay(tea_replay *whole, const trace_frames *f, unsigned threads, trace_totals *totals,
                        trace_read_stats *stats, progress_meter *meter)
{
    parallel_run run;
    worker *workers = NULL;
    trace_frame_reader *reader = NULL;  /* the calling thread's, for batches taggers wake in */
    trace_batch scratch = { 0 };
    pool_threads threads_pool = { 0 };
    trace_totals *frame_totals = NULL;
    unsigned *end_window = NULL;
    size_t count = trace_frames_count(f);
    int rc = TEA_OK, sync_ok = 0;

    if (threads < 1 || threads > TEA_PARALLEL_MAX_THREADS)
        return error_set(TEA_ERR_USAGE, "the thread count must be 1 to %d, not %u", TEA_PARALLEL_MAX_THREADS, threads);
    /* The index's cycles are checked against every frame as it is read. */
    if (count && (rc = tea_replay_check_span(trace_origin(f), trace_frames_info(f, count - 1)->last_cycle)))
        return rc;
    /* the index gives the whole file's records: the meter's total */
    progress_restart(meter, count ? trace_frames_info(f, count - 1)->first_record
                                        + trace_frames_info(f, count - 1)->records
                                  : 0);
    memset(&run, 0, sizeof run);
    run.frames = f;
    run.frame_count = count;
    run.meter = meter;
    run.slot_count = (size_t)threads + 1;
    run.taggers = tea_replay_has_taggers(whole);
    run.slots = calloc(run.slot_count, sizeof *run.slots);
    workers = calloc(threads, sizeof *workers);
    frame_totals = calloc(count ? count : 1, sizeof *frame_totals);
    end_window = calloc(count ? count : 1, sizeof *end_window);
    if (!run.slots || !workers || !frame_totals || !end_window) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < run.slot_count && !rc; i++)
        rc = tea_replay_mark_create(&run.slots[i].mark, whole);
    for (unsigned i = 0; i < threads && !rc && count; i++) {
        workers[i].run = &run;
        if (!(rc = tea_replay_create_part(&workers[i].part, whole, trace_origin(f)))
            && !(rc = trace_frame_reader_create(&workers[i].reader, f))
            && trace_batch_init(&workers[i].scratch, TEA_PARALLEL_BATCH_RECORDS))
            rc = error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if (!rc && run.taggers && !(rc = trace_frame_reader_create(&reader, f))
        && trace_batch_init(&scratch, TEA_PARALLEL_BATCH_RECORDS))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    if (rc)
        goto done;
    if (pthread_mutex_init(&run.lock, NULL) || pthread_cond_init(&run.done_cond, NULL)
        || pthread_cond_init(&run.free_cond, NULL)) {
        rc = error_set(TEA_ERR_NOMEM, "cannot create the replay's locks");
        goto done;
    }
    sync_ok = 1;
    pool_claim(&threads_pool, threads, threads, 1); /* asked for: granted even past the processors */
    if (count && pool_start(&threads_pool, worker_main, workers, sizeof *workers)) {
        pthread_mutex_lock(&run.lock);
        run.stop = 1;
        pthread_cond_broadcast(&run.free_cond);
        pthread_mutex_unlock(&run.lock);
        rc = error_set(TEA_ERR_NOMEM, "cannot start a replay thread");
    }
    if (!rc)
        rc = consume_frames(&run, whole, reader, &scratch, frame_totals, end_window);
    pool_join(&threads_pool);
    for (unsigned i = 0; i < threads && !rc && count; i++)
        rc = tea_replay_absorb(whole, workers[i].part);
    if (!rc)
        rc = trace_frames_check_sequence(f, frame_totals, end_window, totals, stats);
done:
    if (sync_ok) {
        pthread_mutex_destroy(&run.lock);
        pthread_cond_destroy(&run.done_cond);
        pthread_cond_destroy(&run.free_cond);
    }
    for (unsigned i = 0; workers && i < threads; i++) {
        tea_replay_free(workers[i].part);
        trace_frame_reader_free(workers[i].reader);
        trace_batch_free(&workers[i].scratch);
    }
    free(workers);
    trace_frame_reader_free(reader);
    trace_batch_free(&scratch);
    free_slots(&run);
    free(frame_totals);
    free(end_window);
    return rc;
}
