/* Properties of the trace formats, checked on every trace the streaming
 * reader accepts (a difference aborts, which the fuzzer reports as a crash):
 *
 *  - round trip: its records written natively (in frames of a few records,
 *    with their calling contexts and tree) read back the same, through the
 *    streaming reader and through the frame
 *    reader (stream against frames: a differential check of the two
 *    decoders); written as TraceDoctor tokens, where the format can express
 *    them, they read back the same too, and so does their native rewrite
 *    (native -> TraceDoctor -> native);
 *  - replay: golden and TEA PICS of the native rewrite by one thread and by
 *    frames on two threads are the same cells (tea/run.h).
 */
#include "fuzz.h"

#include "pics/pics.h"
#include "tea/replay.h"
#include "tea/run.h"
#include "trace/frames.h"
#include "trace/objects.h"
#include "trace/record.h"
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records per frame of the native rewrite: several frames from short inputs. */
#define ROUNDTRIP_FRAME_RECORDS 64
/* Records per batch read. */
#define ROUNDTRIP_BATCH 256
/* The sampling period of the replay check (cycles). */
#define ROUNDTRIP_PERIOD 7

/* Every record of a trace, with its µops, in one growing batch, and its
 * calling-context tree (what a native rewrite must carry with them). */
typedef struct recording {
    trace_batch all;
    trace_header header;
    trace_object_list objects; /* its run's contexts only */
    int ok;
} recording;

/* Stops the run: a property does not hold. */
static void violated(const char *what)
{
    fprintf(stderr, "fuzz_roundtrip: %s\n", what);
    abort();
}

/* Appends one record and its µops to `b`, which has room. */
static void push(trace_batch *b, const trace_record *r, const trace_uop *uops)
{
    trace_record copy = *r;
    memcpy(b->uops + b->uop_count, uops, trace_record_uops(r) * sizeof *uops);
    trace_batch_commit(b, &copy);
}

/* Appends a batch's records to `all` (grown as needed); 0 or -1. */
static int append(trace_batch *all, const trace_batch *b)
{
    for (size_t i = 0; i < b->count; i++) {
        const trace_record *r = &b->records[i];
        if (!all->capacity || !trace_batch_has_room(all)) {
            trace_batch grown;
            if (trace_batch_init(&grown, all->capacity ? 2 * all->capacity : ROUNDTRIP_BATCH))
                return -1;
            for (size_t k = 0; k < all->count; k++)
                push(&grown, &all->records[k], all->uops + all->records[k].first_uop);
            trace_batch_free(all);
            *all = grown;
        }
        push(all, r, b->uops + r->first_uop);
    }
    return 0;
}

/* Reads the trace at `path`, or when `path` is NULL the `size` bytes at
 * `data`, whole with the streaming reader into `rec`. */
static void read_stream(const char *path, const uint8_t *data, size_t size, recording *rec)
{
    trace_reader *r = NULL;
    trace_batch b;
    int rc;

    memset(rec, 0, sizeof *rec);
    trace_header_init(&rec->header);
    if (trace_batch_init(&b, ROUNDTRIP_BATCH))
        return;
    rc = path ? trace_reader_open(&r, path, NULL) : trace_reader_open_memory(&r, data, size, FUZZ_INPUT_NAME, NULL);
    if (rc == 0 && (rc = trace_header_copy(&rec->header, trace_reader_header(r))) == 0) {
        trace_reader_set_background(r, 0);
        while ((rc = trace_reader_read(r, &b)) == 0 && b.count > 0)
            if (append(&rec->all, &b)) {
                rc = -1;
                break;
            }
    }
    if (rc == 0) {
        const trace_run *run;
        trace_run contexts;
        memset(&contexts, 0, sizeof contexts);
        if ((rc = trace_reader_run(r, &run)) == 0) {
            contexts.contexts = run->contexts;
            contexts.context_count = run->context_count;
            rc = trace_object_list_set_run(&rec->objects, &contexts);
        }
    }
    rec->ok = rc == 0;
    trace_reader_close(r);
    trace_batch_free(&b);
}

/* Reads a native file frame by frame into `rec`. */
static void read_frames(const char *path, recording *rec)
{
    trace_frames *f = NULL;
    trace_frame_reader *fr = NULL;
    trace_batch b;
    int rc = -1;

    memset(rec, 0, sizeof *rec);
    trace_header_init(&rec->header);
    if (trace_batch_init(&b, ROUNDTRIP_BATCH))
        return;
    if (trace_frames_open(&f, path) == 0 && trace_frame_reader_create(&fr, f) == 0) {
        rc = 0;
        for (size_t k = 0; k < trace_frames_count(f) && rc == 0; k++) {
            if ((rc = trace_frame_reader_start(fr, k)))
                break;
            while ((rc = trace_frame_reader_read(fr, &b)) == 0 && b.count > 0)
                if (append(&rec->all, &b)) {
                    rc = -1;
                    break;
                }
        }
    }
    rec->ok = rc == 0;
    trace_frame_reader_free(fr);
    trace_frames_close(f);
    trace_batch_free(&b);
}

/* True when two recordings hold the same records and µops (their
 * contexts too when `contexts`: TraceDoctor tokens hold none). */
static int same_records(const recording *a, const recording *b, int contexts)
{
    if (a->all.count != b->all.count || a->all.uop_count != b->all.uop_count)
        return 0;
    for (size_t i = 0; i < a->all.count; i++) {
        const trace_record *x = &a->all.records[i], *y = &b->all.records[i];
        const trace_uop *ux = a->all.uops + x->first_uop, *uy = b->all.uops + y->first_uop;
        if (x->cycle != y->cycle || x->n_commit != y->n_commit || x->flags != y->flags || x->retire != y->retire
            || x->squash != y->squash || x->dispatch != y->dispatch)
            return 0;
        for (size_t k = 0; k < trace_record_uops(x); k++)
            if (ux[k].pc != uy[k].pc || ux[k].psv != uy[k].psv || ux[k].offset != uy[k].offset
                || (contexts && ux[k].ctx != uy[k].ctx))
                return 0;
    }
    return 1;
}

static void recording_free(recording *rec)
{
    trace_object_list_free(&rec->objects);
    trace_batch_free(&rec->all);
    trace_header_free(&rec->header);
}

/* Writes the recording to `path` in `format`; 0 when written, nonzero when
 * the format cannot express it (or the file cannot be made). */
static int write_trace(const recording *rec, const char *path, trace_format format)
{
    trace_write_options o = { format, 0, 0, ROUNDTRIP_FRAME_RECORDS };
    trace_writer *w = NULL;
    int rc;
    if ((rc = trace_writer_open(&w, path, &rec->header, &o)))
        return rc;
    if ((format == TRACE_FORMAT_NATIVE && (rc = trace_writer_set_run(w, &rec->objects.run)))
        || (rc = trace_writer_write(w, &rec->all))) {
        trace_writer_abort(w);
        return rc;
    }
    return trace_writer_finish(w, NULL);
}

/* True when two PICS hold the same cells. */
static int same_pics(const pics *a, const pics *b)
{
    if (a->count != b->count || a->total != b->total)
        return 0;
    for (size_t i = 0; i < a->capacity; i++) {
        const pics_cell *c = &a->slots[i], *o;
        if (c->used
            && (!(o = pics_find_ctx(b, c->ctx, c->pc, c->psv)) || o->value != c->value || o->count != c->count))
            return 0;
    }
    return 1;
}

/* Replays `path` with TEA at a short period on `threads` threads. */
static int replay(const char *path, unsigned threads, tea_run *out)
{
    static const tea_run_scheme tea = { PICS_SCHEME_TEA, 0 };
    tea_run_options o;
    memset(&o, 0, sizeof o);
    o.schemes = &tea;
    o.scheme_count = 1;
    o.period = ROUNDTRIP_PERIOD;
    o.seed_count = 1;
    o.jitter = PICS_JITTER_NONE;
    o.threads = threads;
    return tea_run_trace(&o, path, out);
}

/* One thread and two give the same PICS. */
static void check_threads(const char *path)
{
    tea_run one, two;
    int a, b;
    memset(&one, 0, sizeof one);
    memset(&two, 0, sizeof two);
    a = replay(path, 1, &one);
    b = replay(path, 2, &two);
    if ((a == 0) != (b == 0))
        violated("one thread and two threads disagree on whether the trace replays");
    if (a == 0 && (!same_pics(tea_replay_golden(one.replay), tea_replay_golden(two.replay))
                   || !same_pics(tea_replay_sampler_pics(one.replay, 0), tea_replay_sampler_pics(two.replay, 0))))
        violated("one thread and two threads give different PICS");
    tea_run_free(&one);
    tea_run_free(&two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char native[FUZZ_PATH_MAX], td[FUZZ_PATH_MAX], back[FUZZ_PATH_MAX];
    recording orig, again;

    read_stream(NULL, data, size, &orig);
    if (!orig.ok || fuzz_write_temp(NULL, 0, native)) {
        recording_free(&orig);
        return 0;
    }
    if (write_trace(&orig, native, TRACE_FORMAT_NATIVE) == 0) {
        read_stream(native, NULL, 0, &again);
        if (!again.ok || !same_records(&orig, &again, 1))
            violated("a native rewrite reads back differently (streaming reader)");
        recording_free(&again);
        read_frames(native, &again);
        if (!again.ok || !same_records(&orig, &again, 1))
            violated("a native rewrite reads back differently by frames than as a stream");
        recording_free(&again);
        check_threads(native);
        if (fuzz_write_temp(NULL, 0, td) == 0) {
            if (write_trace(&orig, td, TRACE_FORMAT_TRACEDOCTOR) == 0) {
                read_stream(td, NULL, 0, &again);
                if (!again.ok || !same_records(&orig, &again, 0))
                    violated("TraceDoctor tokens read back differently");
                if (fuzz_write_temp(NULL, 0, back) == 0) {
                    if (write_trace(&again, back, TRACE_FORMAT_NATIVE) == 0) {
                        recording twice;
                        read_stream(back, NULL, 0, &twice);
                        if (!twice.ok || !same_records(&orig, &twice, 0))
                            violated("native -> TraceDoctor -> native changed the records");
                        recording_free(&twice);
                    }
                    fuzz_remove_temp(back);
                }
                recording_free(&again);
            }
            fuzz_remove_temp(td);
        }
    }
    fuzz_remove_temp(native);
    recording_free(&orig);
    return 0;
}
