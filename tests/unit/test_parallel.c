/*
 * test_parallel.c: reading a native trace by frames (trace/frames.h) and the
 * frame-parallel replay (tea/parallel.h). The expectation is always the
 * sequential path: the same records, and the same PICS, samples, losses and
 * classification for any number of threads.
 */
#include "testutil.h"
#include "common/error.h"
#include "tea/parallel.h"
#include "tea/schedule.h"
#include "trace/frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U PICS_UNIT
#define CYCLES 60000
/* Small frames, so that a short trace has many, some without commits; and
 * frames of several of the replay's 4096-record batches. */
#define FRAME_RECORDS 257
#define FRAME_RECORDS_LARGE 9000
/* The footer frame's content starts this far from the end of the file. */
#define FOOTER_FROM_END 176
#define FOOTER_COMMITS 48
#define FOOTER_INDEX_OFFSET 168
/* Index frame: skippable header, magic and count, then 48-byte entries. */
#define INDEX_ENTRIES_AT 24
#define INDEX_ENTRY_SIZE 48
#define INDEX_ENTRY_WINDOW 40

static const char *const workloads[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
#define WORKLOADS (sizeof workloads / sizeof workloads[0])

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Writes a model trace in native frames of `frame_records`; returns its
 * path. */
static char *write_framed(const char *workload, uint64_t seed, uint32_t frame_records, test_stream *s)
{
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, frame_records };
    char *path = test_temp_path("framed.tea");
    test_model_stream(workload, seed, CYCLES, s);
    assert_int_equal(test_stream_write(s, &s->header, &o, path), 0);
    return path;
}

/* µops in a row in one context, and the contexts, of the traces with them. */
#define CONTEXT_RUN 5
#define CONTEXTS 6

/* write_framed with calling contexts (context frames before the data frames). */
static char *write_framed_contexts(const char *workload, uint64_t seed, uint32_t frame_records, test_stream *s)
{
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, frame_records };
    char *path = test_temp_path("framed-contexts.tea");
    test_model_stream(workload, seed, CYCLES, s);
    test_stream_set_contexts(s, CONTEXT_RUN, CONTEXTS);
    assert_int_equal(test_stream_write_contexts(s, &s->header, &o, path, CONTEXTS), 0);
    return path;
}

/* Every frame decoded on its own gives the stream's records, and the frames'
 * sequence gives the streaming reader's totals and statistics. */
static void frames_decode_like_the_stream(void **state)
{
    (void)state;
    for (size_t w = 0; w < WORKLOADS; w++) {
        test_stream model, back, streamed;
        trace_frames *f;
        trace_frame_reader *fr;
        trace_batch batch;
        trace_totals *totals, sum;
        trace_read_stats stats;
        unsigned *windows;
        char *path = write_framed(workloads[w], 5, FRAME_RECORDS, &model);
        size_t n;

        test_stream_init(&back);
        assert_int_equal(test_stream_read(path, NULL, &streamed), 0);
        assert_int_equal(trace_frames_open(&f, path), 0);
        assert_int_equal(trace_frame_reader_create(&fr, f), 0);
        assert_int_equal(trace_batch_init(&batch, 100), 0);
        n = trace_frames_count(f);
        assert_int_equal(n, (model.count + FRAME_RECORDS - 1) / FRAME_RECORDS);
        totals = calloc(n, sizeof *totals);
        windows = calloc(n, sizeof *windows);
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(trace_frames_info(f, k)->first_record, k * FRAME_RECORDS);
            assert_int_equal(trace_frame_reader_start(fr, k), 0);
            for (;;) {
                assert_int_equal(trace_frame_reader_read(fr, &batch), 0);
                if (batch.count == 0)
                    break;
                for (size_t i = 0; i < batch.count; i++)
                    test_stream_append(&back, &batch.records[i], batch.uops + batch.records[i].first_uop);
            }
            totals[k] = *trace_frame_reader_totals(fr);
            windows[k] = trace_frame_reader_window(fr);
        }
        back.header = model.header;
        assert_streams_equal(&model, &back);
        assert_int_equal(trace_frames_check_sequence(f, totals, windows, &sum, &stats), 0);
        assert_memory_equal(&sum, &streamed.totals, sizeof sum);
        assert_int_equal(stats.frames, streamed.stats.frames);
        assert_int_equal(stats.units, streamed.stats.units);
        assert_int_equal(stats.bytes_in, streamed.stats.bytes_in);
        assert_int_equal(stats.notes.flags, streamed.stats.notes.flags);
        free(totals);
        free(windows);
        trace_batch_free(&batch);
        trace_frame_reader_free(fr);
        trace_frames_close(f);
        back.header = (trace_header){ 0 };
        test_stream_free(&back);
        test_stream_free(&streamed);
        test_stream_free(&model);
        remove(path);
        free(path);
    }
}

/* Batches read again from the positions told before them, from bytes handed
 * over to another reader and in reverse order, are the batches first read,
 * with the same totals after them (and the same calling contexts, of a
 * trace with them); the first reader goes on to other frames with the
 * buffer it got in exchange. */
#define AGAIN_FRAME 500
#define AGAIN_BATCH 50
#define AGAIN_MAX_BATCHES (AGAIN_FRAME / AGAIN_BATCH + 2)
static void frames_read_again_from_positions(void **state)
{
    (void)state;
    for (size_t run = 0; run < 2 * WORKLOADS; run++) {
        size_t w = run % WORKLOADS;
        test_stream model, first[AGAIN_MAX_BATCHES];
        trace_frame_position at[AGAIN_MAX_BATCHES];
        trace_totals after[AGAIN_MAX_BATCHES];
        trace_frame_data data = { 0 };
        trace_frames *f;
        trace_frame_reader *fr, *again;
        trace_batch batch;
        char *path = run < WORKLOADS ? write_framed(workloads[w], 7, AGAIN_FRAME, &model)
                                     : write_framed_contexts(workloads[w], 7, AGAIN_FRAME, &model);
        size_t most = 0; /* batches in the longest frame */

        assert_int_equal(trace_frames_open(&f, path), 0);
        assert_int_equal(trace_frame_reader_create(&fr, f), 0);
        assert_int_equal(trace_frame_reader_create(&again, f), 0);
        assert_int_equal(trace_batch_init(&batch, AGAIN_BATCH), 0);
        assert_true(trace_frames_count(f) >= 2);
        for (size_t k = 0; k < trace_frames_count(f); k++) {
            size_t used = 0;
            assert_int_equal(trace_frame_reader_start(fr, k), 0);
            for (;;) {
                assert_true(used < AGAIN_MAX_BATCHES);
                trace_frame_reader_tell(fr, &at[used]);
                assert_int_equal(trace_frame_reader_read(fr, &batch), 0);
                if (batch.count == 0)
                    break;
                test_stream_init(&first[used]);
                for (size_t i = 0; i < batch.count; i++)
                    test_stream_append(&first[used], &batch.records[i], batch.uops + batch.records[i].first_uop);
                after[used++] = *trace_frame_reader_totals(fr);
            }
            assert_true(used >= 1);
            most = used > most ? used : most;
            trace_frame_reader_hand_over(fr, &data);
            assert_int_equal(data.frame, k);
            for (size_t b = used; b-- > 0;) {
                test_stream back;
                test_stream_init(&back);
                trace_frame_reader_seek(again, &data, &at[b]);
                assert_int_equal(trace_frame_reader_read(again, &batch), 0);
                for (size_t i = 0; i < batch.count; i++)
                    test_stream_append(&back, &batch.records[i], batch.uops + batch.records[i].first_uop);
                assert_streams_equal(&first[b], &back);
                assert_memory_equal(trace_frame_reader_totals(again), &after[b], sizeof after[b]);
                test_stream_free(&back);
                test_stream_free(&first[b]);
            }
        }
        assert_true(most > 1);
        trace_frame_data_free(&data);
        trace_batch_free(&batch);
        trace_frame_reader_free(again);
        trace_frame_reader_free(fr);
        trace_frames_close(f);
        test_stream_free(&model);
        remove(path);
        free(path);
    }
}

static tea_sampler_spec spec(pics_scheme scheme, uint64_t period, pics_jitter jitter)
{
    tea_sampler_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.scheme = scheme;
    sp.period = period;
    sp.frequency_hz = 1;
    sp.jitter = jitter;
    sp.seed = 3;
    sp.event_mask = TRACE_PSV_MASK_ALL;
    return sp;
}

/* Every scheme, periods from one cycle (every cycle sampled: points in
 * every frame's prefix and part) to longer than a frame. */
static size_t all_specs(tea_sampler_spec *specs)
{
    size_t n = 0;
    specs[n++] = spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE);
    specs[n++] = spec(PICS_SCHEME_NCI, 1, PICS_JITTER_NONE);
    for (pics_scheme s = PICS_SCHEME_TEA; s < PICS_SCHEME_COUNT; s++) {
        specs[n++] = spec(s, 61, PICS_JITTER_NONE);
        specs[n++] = spec(s, 173, PICS_JITTER_INTERVAL);
        specs[n++] = spec(s, 997, PICS_JITTER_START);
    }
    return n;
}

/* Tagging samplers alone with periods longer than a batch, so that the
 * calling thread skips whole batches between their tags. */
static size_t sparse_specs(tea_sampler_spec *specs)
{
    size_t n = 0;
    specs[n++] = spec(PICS_SCHEME_SPE, 20011, PICS_JITTER_INTERVAL);
    specs[n++] = spec(PICS_SCHEME_IBS, 30011, PICS_JITTER_NONE);
    specs[n++] = spec(PICS_SCHEME_RIS, 25013, PICS_JITTER_START);
    return n;
}

/* TEA and NCI-TEA alone: no taggers, nothing for the calling thread to do
 * after a frame's prefix. */
static size_t cycle_specs(tea_sampler_spec *specs)
{
    size_t n = 0;
    specs[n++] = spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE);
    specs[n++] = spec(PICS_SCHEME_NCI, 61, PICS_JITTER_INTERVAL);
    return n;
}

/* A trace of `count` records that commit nothing, one every `stride`
 * cycles from cycle 0, in frames of FRAME_RECORDS records. */
static char *write_spaced(size_t count, uint64_t stride)
{
    test_stream model, spaced;
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    char *path = test_temp_path("spaced.tea");

    test_model_stream("compute", 1, 1000, &model);
    test_stream_init(&spaced);
    for (size_t i = 0; i < count; i++) {
        trace_record r;
        memset(&r, 0, sizeof r);
        r.cycle = i * stride;
        test_stream_append(&spaced, &r, NULL);
    }
    assert_int_equal(test_stream_write(&spaced, &model.header, &o, path), 0);
    test_stream_free(&model);
    test_stream_free(&spaced);
    return path;
}

/* Whether frames suit the replay of a trace of `count` records spaced
 * `stride` cycles apart, with `specs`. */
static int suits(size_t count, uint64_t stride, const tea_sampler_spec *specs, size_t n_specs)
{
    char *path = write_spaced(count, stride);
    trace_frames *f;
    tea_replay *r;
    int answer;

    assert_int_equal(trace_frames_open(&f, path), 0);
    assert_int_equal(tea_replay_create(&r, 0, specs, n_specs), 0);
    answer = tea_parallel_suits(r, f);
    tea_replay_free(r);
    trace_frames_close(f);
    remove(path);
    free(path);
    return answer;
}

/* Frames suit a replay unless a tagger's period is below
 * TEA_PARALLEL_TAG_BATCHES batches' worth of the trace's mean cycles per
 * record. By hand: 4096 records one per cycle give 1024 cycles a batch, so
 * the bound is 2048 cycles; one every 3 cycles span 3 * 4095 + 1 = 12286
 * cycles, 3071.5 a batch, a bound of 6143. Cycle samplers never matter. */
static void parallel_suits_unless_taggers_wake_every_batch(void **state)
{
    const size_t records = 4096;
    tea_sampler_spec specs[3];

    (void)state;
    assert_int_equal(TEA_PARALLEL_BATCH_RECORDS, 1024);
    assert_int_equal(TEA_PARALLEL_TAG_BATCHES, 2);
    specs[0] = spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE);
    specs[1] = spec(PICS_SCHEME_NCI, 1, PICS_JITTER_NONE);
    assert_true(suits(records, 1, specs, 2));
    specs[2] = spec(PICS_SCHEME_IBS, 2047, PICS_JITTER_NONE);
    assert_false(suits(records, 1, specs, 3));
    specs[2] = spec(PICS_SCHEME_SPE, 2048, PICS_JITTER_NONE);
    assert_true(suits(records, 1, specs, 3));
    /* A trace of 1024 records on consecutive cycles spans 1024 cycles, not
     * 1023: the same bound. */
    specs[2] = spec(PICS_SCHEME_IBS, 2047, PICS_JITTER_NONE);
    assert_false(suits(1024, 1, specs, 3));
    specs[2] = spec(PICS_SCHEME_IBS, 2048, PICS_JITTER_NONE);
    assert_true(suits(1024, 1, specs, 3));
    specs[2] = spec(PICS_SCHEME_RIS, 6142, PICS_JITTER_NONE);
    assert_false(suits(records, 3, specs, 3));
    specs[2] = spec(PICS_SCHEME_RIS, 6143, PICS_JITTER_NONE);
    assert_true(suits(records, 3, specs, 3));
    /* The shortest tagger decides. */
    specs[0] = spec(PICS_SCHEME_IBS, 1u << 20, PICS_JITTER_NONE);
    specs[1] = spec(PICS_SCHEME_SPE, 100, PICS_JITTER_NONE);
    assert_false(suits(records, 3, specs, 3));
}

/* The frame-parallel replay equals the sequential one for 1 to 5 threads,
 * with small and large frames, with sparse tagging samplers and without
 * taggers, under both golden rule sets (alternating per group of runs). */
static void parallel_replay_equals_sequential(void **state)
{
    tea_sampler_spec specs[2 + 3 * PICS_SCHEME_COUNT];

    (void)state;
    for (size_t run = 0; run < 4 * WORKLOADS; run++) {
        size_t w = run % WORKLOADS;
        size_t n_specs = run < 2 * WORKLOADS ? all_specs(specs)
                         : run < 3 * WORKLOADS ? sparse_specs(specs) : cycle_specs(specs);
        test_stream model;
        char *path = write_framed(workloads[w], 9, run < WORKLOADS ? FRAME_RECORDS : FRAME_RECORDS_LARGE, &model);
        trace_batch all = test_stream_batch(&model, 0, model.count);
        tea_replay *seq;
        test_stream streamed;
        golden_rules rules = (golden_rules)(run / WORKLOADS % GOLDEN_RULES_COUNT);

        assert_int_equal(test_stream_read(path, NULL, &streamed), 0);
        assert_int_equal(tea_replay_create(&seq, model.header.initial_window, specs, n_specs), 0);
        tea_replay_set_golden_rules(seq, rules);
        assert_int_equal(tea_replay_feed(seq, &all), 0);
        assert_int_equal(tea_replay_finish(seq), 0);
        for (unsigned threads = 1; threads <= 5; threads += 2) {
            trace_frames *f;
            tea_replay *par;
            trace_totals totals;
            trace_read_stats stats;
            const golden_totals *a = tea_replay_golden_totals(seq), *b;

            assert_int_equal(trace_frames_open(&f, path), 0);
            assert_int_equal(tea_replay_create(&par, model.header.initial_window, specs, n_specs), 0);
            tea_replay_set_golden_rules(par, rules);
            assert_int_equal(tea_parallel_replay(par, f, threads, &totals, &stats, NULL), 0);
            assert_int_equal(tea_replay_finish(par), 0);
            assert_memory_equal(&totals, &streamed.totals, sizeof totals);
            assert_pics_match(tea_replay_golden(seq), tea_replay_golden(par), 1, workloads[w]);
            b = tea_replay_golden_totals(par);
            assert_memory_equal(a->states, b->states, sizeof a->states);
            assert_int_equal(a->attributed, b->attributed);
            assert_int_equal(a->unattributed, b->unattributed);
            assert_int_equal(a->origin, b->origin);
            assert_int_equal(a->last_cycle, b->last_cycle);
            for (size_t i = 0; i < n_specs; i++) {
                assert_pics_match(tea_replay_sampler_pics(seq, i), tea_replay_sampler_pics(par, i), 1,
                                  workloads[w]);
                assert_int_equal(tea_replay_sampler_samples(seq, i), tea_replay_sampler_samples(par, i));
                assert_memory_equal(tea_replay_sampler_lost(seq, i), tea_replay_sampler_lost(par, i),
                                    PICS_LOST_REASONS * sizeof(uint64_t));
            }
            /* Period one: TEA is golden, frame-parallel too (counts differ:
             * golden counts µops, TEA samples). */
            if (specs[0].scheme == PICS_SCHEME_TEA && specs[0].period == 1)
                assert_pics_match(tea_replay_golden(par), tea_replay_sampler_pics(par, 0), 0, workloads[w]);
            tea_replay_free(par);
            trace_frames_close(f);
        }
        tea_replay_free(seq);
        test_stream_free(&streamed);
        test_stream_free(&model);
        remove(path);
        free(path);
    }
}

/* Replays `path` by frames on two threads; returns the error code. */
static int replay_damaged(const char *path, const test_stream *model)
{
    tea_sampler_spec specs[2 + 3 * PICS_SCHEME_COUNT];
    size_t n_specs = all_specs(specs);
    trace_frames *f;
    tea_replay *r;
    trace_totals totals;
    trace_read_stats stats;
    int rc = trace_frames_open(&f, path);

    if (rc)
        return rc;
    assert_int_equal(tea_replay_create(&r, model->header.initial_window, specs, n_specs), 0);
    rc = tea_parallel_replay(r, f, 2, &totals, &stats, NULL);
    tea_replay_free(r);
    trace_frames_close(f);
    return rc;
}

/* Damage that only one frame, the index or the footer shows is caught,
 * with the file named; a file that is not a whole native trace is left to
 * the streaming reader. */
static void damaged_traces_are_caught(void **state)
{
    test_stream model;
    char *path = write_framed("mixed", 11, FRAME_RECORDS, &model);
    char *bad = test_temp_path("damaged.tea");
    uint8_t *data, *copy, *window;
    size_t size;
    uint64_t index_offset;
    trace_frames *f;

    (void)state;
    test_read_file(path, &data, &size);
    copy = malloc(size);
    index_offset = le64(data + size - FOOTER_FROM_END + FOOTER_INDEX_OFFSET);

    /* A flipped byte inside a data frame (the zstd checksum or the
     * decoder notices). */
    memcpy(copy, data, size);
    copy[index_offset / 2] ^= 0x5A;
    test_write_file(bad, copy, size);
    assert_int_equal(replay_damaged(bad, &model), TEA_ERR_FORMAT);
    assert_contains(error_message(), bad);

    /* A frame's starting window in the index that its predecessor does not
     * leave. */
    memcpy(copy, data, size);
    window = &copy[index_offset + INDEX_ENTRIES_AT + 3 * INDEX_ENTRY_SIZE + INDEX_ENTRY_WINDOW];
    *window = *window ? *window - 1 : 1;
    test_write_file(bad, copy, size);
    assert_int_equal(replay_damaged(bad, &model), TEA_ERR_FORMAT);
    assert_contains(error_message(), bad);

    /* A footer whose totals disagree with the records. */
    memcpy(copy, data, size);
    copy[size - FOOTER_FROM_END + FOOTER_COMMITS] ^= 0x01;
    test_write_file(bad, copy, size);
    assert_int_equal(replay_damaged(bad, &model), TEA_ERR_FORMAT);
    assert_contains(error_message(), "footer");

    /* Cut short, empty, standard input: not readable by frame. */
    test_write_file(bad, data, size - 1);
    assert_int_equal(trace_frames_open(&f, bad), TEA_ERR_UNSUPPORTED);
    test_write_file(bad, data, 0);
    assert_int_equal(trace_frames_open(&f, bad), TEA_ERR_UNSUPPORTED);
    assert_int_equal(trace_frames_open(&f, "-"), TEA_ERR_UNSUPPORTED);

    free(copy);
    free(data);
    remove(bad);
    remove(path);
    free(bad);
    free(path);
    test_stream_free(&model);
}

/* Skipping past a cycle lands where taking every point up to it does. */
static void schedule_skip_matches_take(void **state)
{
    static const pics_jitter jitters[] = { PICS_JITTER_NONE, PICS_JITTER_START, PICS_JITTER_INTERVAL };
    static const uint64_t periods[] = { 1, 2, 7, 100, 4096 };
    (void)state;
    for (size_t j = 0; j < 3; j++) {
        for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
            for (uint64_t c = 995; c < 995 + 3 * periods[p] + 5; c++) {
                tea_schedule taken, skipped;
                tea_schedule_init(&taken, 1000, periods[p], jitters[j], 42, periods[p]);
                tea_schedule_init(&skipped, 1000, periods[p], jitters[j], 42, periods[p]);
                tea_schedule_take(&taken, c);
                tea_schedule_skip_past(&skipped, c);
                assert_true(skipped.next > c);
                assert_int_equal(taken.next, skipped.next);
                assert_int_equal(taken.window, skipped.window);
            }
        }
    }
}

/* A list schedule: taking up to any cycle counts the listed points at or
 * before it (a repeated cycle twice), and skipping past it lands where
 * taking does; after the last point none comes. */
static void schedule_of_listed_points(void **state)
{
    static const uint64_t points[] = { 5, 9, 9, 12, 40 };
    enum { COUNT = sizeof points / sizeof points[0] };
    (void)state;
    for (uint64_t c = 0; c < 45; c++) {
        tea_schedule taken, skipped;
        uint64_t expected = 0;
        for (size_t i = 0; i < COUNT; i++)
            expected += points[i] <= c;
        tea_schedule_init_points(&taken, points, COUNT);
        tea_schedule_init_points(&skipped, points, COUNT);
        assert_int_equal(taken.next, 5);
        assert_int_equal(tea_schedule_take(&taken, c), expected);
        assert_int_equal(tea_schedule_take(&taken, c), 0);
        tea_schedule_skip_past(&skipped, c);
        assert_int_equal(taken.next, skipped.next);
        assert_int_equal(taken.point_index, skipped.point_index);
        assert_true(skipped.next > c);
    }
    {
        tea_schedule none;
        tea_schedule_init_points(&none, points, 0);
        assert_int_equal(none.next, TEA_SCHEDULE_NEVER);
        assert_int_equal(tea_schedule_take(&none, UINT64_MAX - 1), 0);
    }
}

/* Taking every point up to any cycle counts exactly the points a
 * point-by-point walk finds, for every jitter, in steps of any size, and a
 * 2^62-cycle gap is counted at once (window k's point lies in window k). */
static void schedule_take_counts_every_point_at_once(void **state)
{
    static const pics_jitter jitters[] = { PICS_JITTER_NONE, PICS_JITTER_START, PICS_JITTER_INTERVAL };
    static const uint64_t periods[] = { 1, 3, 97, 4096 };
    enum { POINTS = 600 };
    (void)state;
    for (size_t j = 0; j < 3; j++) {
        for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
            uint64_t points[POINTS], last = 500, taken = 0, seen = 0;
            tea_schedule walk, jump, gap;
            tea_schedule_init(&walk, 500, periods[p], jitters[j], 7, 11);
            for (size_t i = 0; i < POINTS; i++) {
                points[i] = walk.next;
                assert_int_equal(tea_schedule_take(&walk, walk.next), 1);
                assert_true(i == 0 || points[i] > points[i - 1]);
            }
            tea_schedule_init(&jump, 500, periods[p], jitters[j], 7, 11);
            for (uint64_t step = 1; last < points[POINTS - 1]; step = step * 3 % 1000 + 1) {
                last += step;
                if (last > points[POINTS - 1])
                    last = points[POINTS - 1];
                taken += tea_schedule_take(&jump, last);
                while (seen < POINTS && points[seen] <= last)
                    seen++;
                assert_int_equal(taken, seen);
                assert_true(jump.next > last);
            }
            tea_schedule_init(&gap, 0, periods[p], jitters[j], 7, 11);
            taken = tea_schedule_take(&gap, 1ull << 62);
            assert_true(taken >= ((1ull << 62) - 1) / periods[p] && taken <= (1ull << 62) / periods[p] + 1);
            assert_true(gap.next > (1ull << 62));
        }
    }
}

/* Weighted windows: window k (after ends[k - 1], from the origin for the
 * first) gets weight / P points per cycle, P = 12: weights 1, 4, 6 and 24
 * over 30, 30, 40 and (the last, on without end) 30 cycles give 2.5 (2 or
 * 3 by the jitter), 10, 20 and 60 points, two in every cycle of the last;
 * taking in steps of any size and skipping past a cycle agree with a walk
 * cycle by cycle. */
static void schedule_of_weighted_windows(void **state)
{
    static const pics_jitter jitters[] = { PICS_JITTER_NONE, PICS_JITTER_START, PICS_JITTER_INTERVAL };
    static const uint64_t ends[] = { 130, 160, 200, 210 }, weights[] = { 1, 4, 6, 24 };
    enum { WINDOWS = 4, LAST = 230 };
    (void)state;
    for (size_t j = 0; j < 3; j++) {
        uint64_t upto[LAST + 1] = { 0 }, in_window[WINDOWS] = { 0 }, total = 0;
        tea_schedule walk;
        tea_schedule_init(&walk, 100, 12, jitters[j], 7, 12);
        tea_schedule_set_windows(&walk, ends, weights, WINDOWS);
        for (uint64_t c = 95; c <= LAST; c++) {
            uint64_t n = tea_schedule_take(&walk, c);
            size_t k = 0;
            while (k + 1 < WINDOWS && c > ends[k])
                k++;
            in_window[k] += n;
            total += n;
            upto[c] = total;
            assert_true(walk.next > c);
            assert_true(c <= 100 || c > 200 || n <= 1); /* fewer than one point per cycle before the last */
        }
        assert_true(in_window[0] == 2 || (in_window[0] == 3 && jitters[j] != PICS_JITTER_NONE));
        assert_int_equal(in_window[1], 10);
        assert_int_equal(in_window[2], 20);
        assert_int_equal(in_window[3], 2 * (LAST - 200));
        for (uint64_t c = 95; c < LAST; c += 1 + c % 7) {
            tea_schedule taken, skipped;
            tea_schedule_init(&taken, 100, 12, jitters[j], 7, 12);
            tea_schedule_set_windows(&taken, ends, weights, WINDOWS);
            skipped = taken;
            assert_int_equal(tea_schedule_take(&taken, c), upto[c]);
            tea_schedule_skip_past(&skipped, c);
            assert_true(skipped.next > c);
            assert_int_equal(taken.next, skipped.next);
            assert_int_equal(taken.win, skipped.win);
            assert_int_equal(tea_schedule_take(&taken, LAST), upto[LAST] - upto[c]);
        }
    }
    {
        tea_schedule one;
        tea_schedule_init(&one, 100, 12, PICS_JITTER_NONE, 7, 12);
        tea_schedule_set_windows(&one, ends, weights, WINDOWS);
        assert_true(tea_schedule_period_at(&one, 0) == 12.0);
        assert_true(tea_schedule_period_at(&one, 150) == 3.0);
        assert_true(tea_schedule_period_at(&one, 5000) == 0.5);
        /* jitter none: window 1's points are every 3 cycles from 133 */
        assert_int_equal(tea_schedule_take(&one, 132), 2);
        assert_int_equal(one.next, 133);
        assert_int_equal(tea_schedule_take(&one, 139), 3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(schedule_of_weighted_windows),
        cmocka_unit_test(frames_decode_like_the_stream),
        cmocka_unit_test(frames_read_again_from_positions),
        cmocka_unit_test(parallel_replay_equals_sequential),
        cmocka_unit_test(parallel_suits_unless_taggers_wake_every_batch),
        cmocka_unit_test(damaged_traces_are_caught),
        cmocka_unit_test(schedule_skip_matches_take),
        cmocka_unit_test(schedule_take_counts_every_point_at_once),
        cmocka_unit_test(schedule_of_listed_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
