/*
 * decode_ab.c: two builds of the native record decoder (trace/native.c),
 * A and B, timed in alternating passes over the same decompressed frames of
 * one trace, so that a host whose speed drifts between runs (shared virtual
 * machines drift by 10-20 % from one run to the next) slows both alike.
 * bench/decode-ab compiles each build with its entry points renamed
 * (A_decode_batch, B_decode_record, ...) and links them in here.
 *
 * A pass decodes every frame from its own window, as a frame-parallel
 * worker does: trace_native_decode_batch, and the reference path for the
 * records it leaves. Prints each build's best and median nanoseconds per
 * record and B's time over A's, after checking that both decoded the same
 * records with the same totals.
 *
 * Usage: tea-bench-decode-ab TRACE FRAMES PASSES
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "common/error.h"
#include "trace/frames.h"
#include "trace/native.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Room for either build's codec, whose size may differ from this one's. */
#define CODEC_ROOM 16384
#define MAX_PASSES 99

typedef void (*frame_start_fn)(trace_native_codec *, unsigned);
typedef int (*decode_record_fn)(trace_native_codec *, const uint8_t *, size_t, size_t *, trace_record *, trace_uop *);
typedef size_t (*decode_batch_fn)(trace_native_codec *, const uint8_t *, size_t, size_t *, trace_native_stream *,
                                  trace_batch *);

#define DECLARE_BUILD(V)                                                                                               \
    void V##_frame_start(trace_native_codec *c, unsigned width);                                                       \
    int V##_decode_record(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos, trace_record *r,       \
                          trace_uop *uops);                                                                            \
    size_t V##_decode_batch(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos,                      \
                            trace_native_stream *s, trace_batch *batch);
DECLARE_BUILD(A)
DECLARE_BUILD(B)

typedef struct decoder {
    frame_start_fn frame_start;
    decode_record_fn decode_record;
    decode_batch_fn decode_batch;
} decoder;

typedef struct frame {
    uint8_t *data;
    size_t size;
    unsigned window; /* ROB entries before its first record */
} frame;

/* What a pass decoded, for comparing the builds. */
typedef struct outcome {
    trace_totals totals;
    uint64_t digest; /* of every record's cycle, retire count and last µop PC */
} outcome;

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Folds a full batch into the digest and empties it. */
static void drain(trace_batch *b, outcome *out)
{
    for (size_t i = 0; i < b->count; i++) {
        const trace_record *r = &b->records[i];
        const unsigned n = trace_record_uops(r);
        const uint64_t pc = n ? b->uops[r->first_uop + n - 1].pc : 0;
        out->digest = (out->digest ^ r->cycle ^ (uint64_t)r->retire << 56 ^ pc) * 0x100000001B3ull;
    }
    trace_batch_clear(b);
}

/* Decodes every frame with `d`; returns the seconds taken, or -1 on an error. */
static double pass(const decoder *d, const trace_header *h, const frame *frames, size_t count, trace_batch *b,
                   outcome *out)
{
    static _Alignas(64) unsigned char codec_room[CODEC_ROOM];
    trace_native_codec *c = (trace_native_codec *)(void *)codec_room;
    const double start = seconds_now();

    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < count; k++) {
        trace_native_stream s = { h->rob_size, frames[k].window, 0, &out->totals };
        size_t pos = 0;

        d->frame_start(c, h->commit_width);
        while (pos < frames[k].size) {
            trace_record rec;
            if (!trace_batch_has_room(b))
                drain(b, out);
            if (d->decode_batch(c, frames[k].data, frames[k].size, &pos, &s, b))
                continue;
            if (d->decode_record(c, frames[k].data, frames[k].size, &pos, &rec, b->uops + b->uop_count))
                return -1;
            s.window = s.window - rec.retire - rec.squash + rec.dispatch;
            trace_totals_add(&out->totals, &rec, b->uops + b->uop_count);
            trace_batch_commit(b, &rec);
        }
    }
    drain(b, out);
    return seconds_now() - start;
}

/* Decompresses the first `count` data frames of `f` with the library's
 * frame reader, which checks each against the index, and keeps each one's
 * bytes and window. Returns 0, or -1 with the library's message printed. */
static int load_frames(const trace_frames *f, frame *frames, size_t count, trace_batch *b)
{
    trace_frame_reader *fr = NULL;
    int rc = trace_frame_reader_create(&fr, f);

    for (size_t k = 0; !rc && k < count; k++) {
        trace_frame_data data = { 0 };
        if ((rc = trace_frame_reader_start(fr, k)))
            break;
        /* hand_over gives the bytes once the frame has been read to its end */
        while (!(rc = trace_frame_reader_read(fr, b)) && b->count)
            ;
        if (rc)
            break;
        trace_frame_reader_hand_over(fr, &data);
        frames[k].data = data.bytes;
        frames[k].size = data.size;
        frames[k].window = trace_frames_info(f, k)->window;
    }
    trace_batch_clear(b);
    trace_frame_reader_free(fr);
    if (rc)
        fprintf(stderr, "tea-bench-decode-ab: %s\n", error_message());
    return rc ? -1 : 0;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static const decoder builds[2] = { { A_frame_start, A_decode_record, A_decode_batch },
                                       { B_frame_start, B_decode_record, B_decode_batch } };
    double times[2][MAX_PASSES];
    outcome outcomes[2];
    trace_frames *f;
    trace_batch b;
    frame *frames;
    size_t want;
    int passes;

    if (argc != 4 || (want = strtoul(argv[2], NULL, 10)) == 0 || (passes = atoi(argv[3])) < 1 || passes > MAX_PASSES) {
        fprintf(stderr, "usage: tea-bench-decode-ab TRACE FRAMES PASSES (1-%d)\n", MAX_PASSES);
        return 2;
    }
    if (trace_frames_open(&f, argv[1])) {
        fprintf(stderr, "tea-bench-decode-ab: %s is not a native trace with an index\n", argv[1]);
        return 1;
    }
    if (want > trace_frames_count(f))
        want = trace_frames_count(f);
    frames = calloc(want, sizeof *frames);
    if (!frames || trace_batch_init(&b, TRACE_BATCH_RECORDS / 4) || load_frames(f, frames, want, &b)) {
        fprintf(stderr, "tea-bench-decode-ab: cannot read the frames of %s\n", argv[1]);
        return 1;
    }
    for (int p = 0; p < passes; p++)
        for (int v = 0; v < 2; v++)
            if ((times[v][p] = pass(&builds[v], trace_frames_header(f), frames, want, &b, &outcomes[v])) < 0) {
                fprintf(stderr, "tea-bench-decode-ab: build %c failed to decode %s\n", "AB"[v], argv[1]);
                return 1;
            }
    if (memcmp(&outcomes[0], &outcomes[1], sizeof outcomes[0]) != 0) {
        fprintf(stderr, "tea-bench-decode-ab: the builds decoded different records or totals\n");
        return 1;
    }
    for (int v = 0; v < 2; v++)
        qsort(times[v], (size_t)passes, sizeof times[v][0], by_value);
    {
        const double records = (double)outcomes[0].totals.records;
        printf("%zu frames, %.0f records, %d passes each, alternating\n", want, records, passes);
        for (int v = 0; v < 2; v++)
            printf("%c  best %6.2f  median %6.2f ns/record\n", "AB"[v], times[v][0] * 1e9 / records,
                   times[v][passes / 2] * 1e9 / records);
        printf("B/A  best %.3f  median %.3f\n", times[1][0] / times[0][0], times[1][passes / 2] / times[0][passes / 2]);
    }
    return 0;
}
