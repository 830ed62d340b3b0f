/*
 * test_io.c: reading and writing trace files: round trips in both formats
 * (raw, zstd, several frames, stdin is covered end to end), format detection,
 * and every kind of bad input: empty files, truncation, corruption, wrong
 * version, inconsistent footer, records a writer must refuse.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/native.h"
#include "trace/tracedoctor.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static test_stream model;

static int setup(void **state)
{
    (void)state;
    test_model_stream("mixed", 11, 80000, &model);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stream_free(&model);
    return 0;
}

/* Writes the model stream, reads it back and compares everything. */
static void round_trip(trace_format format, int raw, uint32_t frame_records)
{
    char *path = test_temp_path("roundtrip.trace");
    trace_write_options o = { format, 0, raw, frame_records };
    test_stream back;

    assert_int_equal(test_stream_write(&model, &model.header, &o, path), 0);
    assert_int_equal(test_stream_read(path, NULL, &back), 0);
    assert_streams_equal(&model, &back);
    assert_int_equal(back.stats.format, format);
    assert_int_equal(back.stats.compressed, !raw);
    assert_int_equal(back.totals.records, model.count);
    if (format == TRACE_FORMAT_NATIVE && frame_records)
        assert_int_equal(back.stats.frames, (model.count + frame_records - 1) / frame_records);
    test_stream_free(&back);
    unlink(path);
    free(path);
}

static void native_round_trip(void **state)
{
    (void)state;
    round_trip(TRACE_FORMAT_NATIVE, 0, 0);
    round_trip(TRACE_FORMAT_NATIVE, 0, 1000); /* many frames */
}

static void tracedoctor_round_trip(void **state)
{
    (void)state;
    round_trip(TRACE_FORMAT_TRACEDOCTOR, 0, 0);
    round_trip(TRACE_FORMAT_TRACEDOCTOR, 1, 0);
}

/* Writes `model` natively and returns the file's bytes. */
static void native_bytes(const char *path, uint8_t **data, size_t *size, uint32_t frame_records)
{
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, frame_records };
    assert_int_equal(test_stream_write(&model, &model.header, &o, path), 0);
    test_read_file(path, data, size);
}

static void expect_read_error(const char *path, int code, const char *needle)
{
    test_stream s;
    int rc = test_stream_read(path, NULL, &s);
    if (rc != code)
        fail_msg("expected error %d, got %d (%s)", code, rc, error_message());
    assert_contains(error_message(), needle);
    test_stream_free(&s);
}

static void empty_and_missing_files(void **state)
{
    char *path = test_temp_path("empty.trace");
    (void)state;
    test_write_file(path, "", 0);
    expect_read_error(path, TEA_ERR_FORMAT, "empty file");
    unlink(path);
    expect_read_error(path, TEA_ERR_IO, "cannot open");
    free(path);
}

static void truncated_native_trace(void **state)
{
    char *path = test_temp_path("trunc.tea");
    uint8_t *data;
    size_t size;
    (void)state;

    native_bytes(path, &data, &size, 5000);
    /* a few bytes short: inside the footer frame */
    test_write_file(path, data, size - 5);
    expect_read_error(path, TEA_ERR_FORMAT, "truncated zstd frame starting at byte");
    /* cut exactly at a frame boundary: before the index and footer */
    {
        trace_native_footer f;
        assert_int_equal(
            trace_native_footer_decode(data + size - TRACE_NATIVE_FOOTER_SIZE, TRACE_NATIVE_FOOTER_SIZE, &f), 0);
        test_write_file(path, data, f.index_offset);
        expect_read_error(path, TEA_ERR_FORMAT, "truncated native trace: no footer");
    }
    /* cut in the middle of a data frame */
    test_write_file(path, data, size / 2);
    expect_read_error(path, TEA_ERR_FORMAT, "truncated zstd frame");
    free(data);
    unlink(path);
    free(path);
}

static void corrupt_native_trace(void **state)
{
    char *path = test_temp_path("corrupt.tea");
    uint8_t *data;
    size_t size;
    (void)state;

    native_bytes(path, &data, &size, 5000);
    /* Flip bytes inside the first data frame (after the header frame). */
    for (size_t i = size / 4; i < size / 4 + 8; i++)
        data[i] ^= 0x5A;
    test_write_file(path, data, size);
    expect_read_error(path, TEA_ERR_FORMAT, "frame starting at byte");
    free(data);

    /* The footer's commit count disagreeing with the records. */
    native_bytes(path, &data, &size, 0);
    data[size - TRACE_NATIVE_FOOTER_SIZE + 8 + 8 + 32] ^= 1;
    test_write_file(path, data, size);
    expect_read_error(path, TEA_ERR_FORMAT, "footer at byte");
    free(data);

    /* A header that claims a future major version. */
    native_bytes(path, &data, &size, 0);
    data[8 + TRACE_NATIVE_MAGIC_SIZE] = 9;
    test_write_file(path, data, size);
    expect_read_error(path, TEA_ERR_FORMAT, "version 9.0 is not supported");
    free(data);
    unlink(path);
    free(path);
}

static void truncated_tracedoctor_trace(void **state)
{
    char *path = test_temp_path("trunc.td");
    uint8_t *data;
    size_t size;
    (void)state;

    test_read_file(TEA_TEST_DATA "/scenario.bin", &data, &size);
    test_write_file(path, data, size - 3);
    expect_read_error(path, TEA_ERR_FORMAT, "file length is not a multiple of 64 bytes: 61 stray bytes after token 19");
    free(data);

    {
        trace_write_options o = { TRACE_FORMAT_TRACEDOCTOR, 0, 0, 0 };
        assert_int_equal(test_stream_write(&model, &model.header, &o, path), 0);
        test_read_file(path, &data, &size);
        test_write_file(path, data, size - 7);
        expect_read_error(path, TEA_ERR_FORMAT, "truncated zstd frame starting at byte 0");
        /* A damaged checksum: the data decodes, the frame does not verify. */
        data[size - 2] ^= 0xFF;
        test_write_file(path, data, size);
        expect_read_error(path, TEA_ERR_FORMAT, "corrupt zstd data in frame starting at byte 0");
        data[size - 2] ^= 0xFF;
        /* Damage in the middle: caught by zstd or, earlier, by the token checks. */
        data[size / 2] ^= 0xFF;
        data[size / 2 + 1] ^= 0xFF;
        test_write_file(path, data, size);
        expect_read_error(path, TEA_ERR_FORMAT, "byte");
        free(data);
    }
    unlink(path);
    free(path);
}

/* Reads `path` with the background decoder on and off and asserts that both
 * give the same records, totals and statistics or the same error, message
 * and records before it. */
static void assert_background_invisible(const char *path)
{
    test_stream on, off;
    int rc_on, rc_off;
    char message_on[1024];

    rc_on = test_stream_read_background(path, NULL, 1, &on);
    snprintf(message_on, sizeof message_on, "%s", rc_on ? error_message() : "");
    rc_off = test_stream_read_background(path, NULL, 0, &off);
    assert_int_equal(rc_on, rc_off);
    if (rc_off)
        assert_string_equal(message_on, error_message());
    assert_streams_equal(&on, &off);
    if (rc_off == 0) {
        assert_memory_equal(&on.totals, &off.totals, sizeof on.totals);
        assert_int_equal(on.stats.format, off.stats.format);
        assert_int_equal(on.stats.compressed, off.stats.compressed);
        assert_true(on.stats.bytes_in == off.stats.bytes_in);
        assert_true(on.stats.units == off.stats.units);
        assert_true(on.stats.frames == off.stats.frames);
        assert_true(on.stats.memlat_nonzero == off.stats.memlat_nonzero);
        assert_true(on.stats.dcache_misses == off.stats.dcache_misses);
        assert_true(on.stats.index_resyncs == off.stats.index_resyncs);
        assert_int_equal(on.stats.notes.flags, off.stats.notes.flags);
        assert_true(on.stats.notes.counter_wraps == off.stats.notes.counter_wraps);
    }
    test_stream_free(&on);
    test_stream_free(&off);
}

/* The background decoder (on by default on multi-core machines) must not
 * change anything a reader returns: records, totals, statistics, or where
 * and how bad input fails. Checked on whole files of both formats and on
 * truncated and damaged ones. */
static void background_decoding_is_invisible(void **state)
{
    static const trace_write_options outputs[] = {
        { TRACE_FORMAT_NATIVE, 0, 0, 0 },
        { TRACE_FORMAT_NATIVE, 0, 0, 700 }, /* many frames */
        { TRACE_FORMAT_TRACEDOCTOR, 0, 0, 0 },
        { TRACE_FORMAT_TRACEDOCTOR, 0, 1, 0 },
    };
    char *path = test_temp_path("background.trace");
    (void)state;

    for (size_t k = 0; k < sizeof outputs / sizeof outputs[0]; k++) {
        uint8_t *data;
        size_t size;

        assert_int_equal(test_stream_write(&model, &model.header, &outputs[k], path), 0);
        assert_background_invisible(path);
        test_read_file(path, &data, &size);
        /* truncated at several places, including inside the first frame */
        for (size_t cut = 1; cut <= 7; cut++) {
            test_write_file(path, data, size * cut / 8 + cut);
            assert_background_invisible(path);
        }
        /* damaged bytes in the middle */
        data[size / 2] ^= 0x5A;
        data[size / 2 + 3] ^= 0xA5;
        test_write_file(path, data, size);
        assert_background_invisible(path);
        free(data);
    }
    unlink(path);
    free(path);
}

/* Reads `path` with the background decoder on, switching to batches of
 * another capacity after the first read (the reader then hands out what it
 * decoded ahead by copying and goes on synchronously), and returns the
 * records in `s`. */
static int read_changing_capacity(const char *path, test_stream *s)
{
    enum { FIRST_CAPACITY = 1024, LATER_CAPACITY = 100 };
    trace_reader *r;
    trace_batch first, later, *batch = &first;
    int rc;

    test_stream_init(s);
    assert_int_equal(trace_reader_open(&r, path, NULL), 0);
    trace_reader_set_background(r, 1);
    assert_int_equal(trace_batch_init(&first, FIRST_CAPACITY), 0);
    assert_int_equal(trace_batch_init(&later, LATER_CAPACITY), 0);
    for (;;) {
        if ((rc = trace_reader_read(r, batch)) || batch->count == 0)
            break;
        assert_true(batch->count <= batch->capacity);
        for (size_t i = 0; i < batch->count; i++)
            test_stream_append(s, &batch->records[i], batch->uops + batch->records[i].first_uop);
        batch = &later;
    }
    if (rc == 0) {
        s->totals = *trace_reader_totals(r);
        s->stats = *trace_reader_stats(r);
    }
    trace_batch_free(&first);
    trace_batch_free(&later);
    trace_reader_close(r);
    return rc;
}

/* A reader whose caller changes the batch capacity mid-stream returns the
 * same records and totals as one read synchronously, in both formats. */
static void batch_capacity_may_change(void **state)
{
    static const trace_write_options outputs[] = {
        { TRACE_FORMAT_NATIVE, 0, 0, 700 },
        { TRACE_FORMAT_TRACEDOCTOR, 0, 1, 0 },
    };
    char *path = test_temp_path("capacity.trace");
    (void)state;

    for (size_t k = 0; k < sizeof outputs / sizeof outputs[0]; k++) {
        test_stream changing, sync;

        assert_int_equal(test_stream_write(&model, &model.header, &outputs[k], path), 0);
        assert_int_equal(read_changing_capacity(path, &changing), 0);
        assert_int_equal(test_stream_read_background(path, NULL, 0, &sync), 0);
        assert_streams_equal(&changing, &sync);
        assert_memory_equal(&changing.totals, &sync.totals, sizeof sync.totals);
        assert_true(changing.stats.units == sync.stats.units);
        assert_true(changing.stats.frames == sync.stats.frames);
        test_stream_free(&changing);
        test_stream_free(&sync);
    }
    unlink(path);
    free(path);
}

/* A TraceDoctor file read in batches of a few records (1: token by token
 * only; 2 and 3: runs cut short by the batch's end; 7) fills every batch
 * but the last, and gives the records, totals and token count of one read
 * in large batches, raw and compressed. */
static void tracedoctor_batches_fill_at_any_capacity(void **state)
{
    static const size_t capacities[] = { 1, 2, 3, 7 };
    char *path = test_temp_path("small-batches.trace");
    (void)state;

    for (int raw = 0; raw <= 1; raw++) {
        trace_write_options o = { TRACE_FORMAT_TRACEDOCTOR, 0, raw, 0 };
        test_stream large;
        assert_int_equal(test_stream_write(&model, &model.header, &o, path), 0);
        assert_int_equal(test_stream_read(path, NULL, &large), 0);
        for (size_t c = 0; c < sizeof capacities / sizeof capacities[0]; c++) {
            trace_reader *r;
            trace_batch batch;
            test_stream small;
            int short_batches = 0;
            test_stream_init(&small);
            assert_int_equal(trace_reader_open(&r, path, NULL), 0);
            assert_int_equal(trace_batch_init(&batch, capacities[c]), 0);
            for (;;) {
                assert_int_equal(trace_reader_read(r, &batch), 0);
                if (batch.count == 0)
                    break;
                short_batches += batch.count < capacities[c];
                for (size_t i = 0; i < batch.count; i++)
                    test_stream_append(&small, &batch.records[i], batch.uops + batch.records[i].first_uop);
            }
            assert_true(short_batches <= 1); /* the last one only */
            assert_streams_equal(&large, &small);
            assert_memory_equal(trace_reader_totals(r), &large.totals, sizeof large.totals);
            assert_true(trace_reader_stats(r)->units == large.stats.units);
            trace_batch_free(&batch);
            trace_reader_close(r);
            test_stream_free(&small);
        }
        assert_streams_equal(&model, &large);
        test_stream_free(&large);
    }
    unlink(path);
    free(path);
}

static void format_is_detected_from_content(void **state)
{
    char *path = test_temp_path("scenario.zst"); /* misleading name: raw tokens */
    uint8_t *data;
    size_t size;
    test_stream s;
    (void)state;
    test_read_file(TEA_TEST_DATA "/scenario.bin", &data, &size);
    test_write_file(path, data, size);
    assert_int_equal(test_stream_read(path, NULL, &s), 0);
    assert_int_equal(s.stats.format, TRACE_FORMAT_TRACEDOCTOR);
    assert_int_equal(s.stats.compressed, 0);
    assert_int_equal(s.totals.last_cycle - s.totals.first_cycle, 50);
    test_stream_free(&s);
    free(data);
    unlink(path);
    free(path);
}

/* What a token sink saw. */
typedef struct sink_seen {
    const uint8_t *file;   /* the raw tokens, to compare with */
    size_t tokens;         /* handed out so far */
    int wrong;             /* a token out of order, or on another thread */
    pthread_t caller;
} sink_seen;

static void count_token(void *ctx, const uint8_t *token)
{
    sink_seen *s = ctx;
    if (memcmp(token, s->file + s->tokens * TRACE_TD_TOKEN_SIZE, TRACE_TD_TOKEN_SIZE) != 0
        || !pthread_equal(pthread_self(), s->caller))
        s->wrong = 1;
    s->tokens++;
}

/* A token sink gets every token of a TraceDoctor file once, in order, on
 * the caller's thread (the background reader on or off), from the one
 * decoded at open on; it is set before the first read, and refused for a
 * native trace and when NULL. */
static void token_sink_sees_every_token(void **state)
{
    char *raw = test_temp_path("sink.td"), *native = test_temp_path("sink.tea");
    trace_write_options o = { TRACE_FORMAT_TRACEDOCTOR, 0, 1, 0 };
    uint8_t *data;
    size_t size;
    (void)state;

    assert_int_equal(test_stream_write(&model, &model.header, &o, raw), 0);
    test_read_file(raw, &data, &size);
    for (int background = 0; background <= 1; background++) {
        trace_reader *r;
        trace_batch batch;
        sink_seen seen = { data, 0, 0, pthread_self() };
        assert_int_equal(trace_reader_open(&r, raw, NULL), TEA_OK);
        trace_reader_set_background(r, background);
        assert_int_equal(trace_reader_set_token_sink(r, NULL, NULL), TEA_ERR_USAGE);
        assert_int_equal(trace_reader_set_token_sink(r, count_token, &seen), TEA_OK);
        assert_true(seen.tokens >= 1); /* the first, decoded at open */
        assert_int_equal(trace_batch_init(&batch, 64), TEA_OK);
        assert_int_equal(trace_reader_read(r, &batch), TEA_OK);
        assert_int_equal(trace_reader_set_token_sink(r, count_token, &seen), TEA_ERR_USAGE);
        while (batch.count > 0)
            assert_int_equal(trace_reader_read(r, &batch), TEA_OK);
        assert_int_equal(seen.tokens, size / TRACE_TD_TOKEN_SIZE);
        assert_false(seen.wrong);
        trace_batch_free(&batch);
        trace_reader_close(r);
    }
    o.format = TRACE_FORMAT_NATIVE;
    o.raw = 0;
    assert_int_equal(test_stream_write(&model, &model.header, &o, native), 0);
    {
        trace_reader *r;
        sink_seen seen = { data, 0, 0, pthread_self() };
        assert_int_equal(trace_reader_open(&r, native, NULL), TEA_OK);
        assert_int_equal(trace_reader_set_token_sink(r, count_token, &seen), TEA_ERR_UNSUPPORTED);
        assert_int_equal(seen.tokens, 0);
        trace_reader_close(r);
    }
    free(data);
    unlink(raw);
    unlink(native);
    free(raw);
    free(native);
}

static void writers_refuse_impossible_records(void **state)
{
    char *path = test_temp_path("refuse.tea");
    trace_write_options native = { TRACE_FORMAT_NATIVE, 0, 0, 0 }, td = { TRACE_FORMAT_TRACEDOCTOR, 0, 0, 0 };
    trace_header h;
    trace_writer *w;
    test_stream s;
    trace_record r;
    trace_batch b;
    (void)state;

    trace_header_init(&h);
    h.commit_width = 8;
    h.rob_size = 256;
    assert_int_equal(trace_writer_open(&w, path, &h, &td), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "8-wide");

    /* Cycle numbers must increase; nothing is left behind on failure. */
    unlink(path);
    trace_header_init(&h);
    test_stream_init(&s);
    memset(&r, 0, sizeof r);
    r.cycle = 5;
    test_stream_append(&s, &r, NULL);
    test_stream_append(&s, &r, NULL);
    assert_int_equal(trace_writer_open(&w, path, &h, &native), 0);
    b = test_stream_batch(&s, 0, 2);
    assert_int_equal(trace_writer_write(w, &b), TEA_ERR_FORMAT);
    assert_contains(error_message(), "does not follow");
    trace_writer_abort(w);
    assert_int_equal(access(path, F_OK), -1);
    test_stream_free(&s);

    /* Commits from an empty ROB. */
    test_stream_init(&s);
    r.cycle = 1;
    r.n_commit = 1;
    r.retire = 1;
    {
        trace_uop u = { 0x10, 0, 0, 0, 0 };
        test_stream_append(&s, &r, &u);
    }
    assert_int_equal(trace_writer_open(&w, path, &h, &native), 0);
    b = test_stream_batch(&s, 0, 1);
    assert_int_equal(trace_writer_write(w, &b), TEA_ERR_FORMAT);
    assert_contains(error_message(), "1 entries retire from a ROB holding 0");
    trace_writer_abort(w);
    test_stream_free(&s);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(native_round_trip),
        cmocka_unit_test(tracedoctor_round_trip),
        cmocka_unit_test(empty_and_missing_files),
        cmocka_unit_test(truncated_native_trace),
        cmocka_unit_test(corrupt_native_trace),
        cmocka_unit_test(truncated_tracedoctor_trace),
        cmocka_unit_test(background_decoding_is_invisible),
        cmocka_unit_test(batch_capacity_may_change),
        cmocka_unit_test(tracedoctor_batches_fill_at_any_capacity),
        cmocka_unit_test(format_is_detected_from_content),
        cmocka_unit_test(writers_refuse_impossible_records),
        cmocka_unit_test(token_sink_sees_every_token),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
