/*
 * test_native.c: the native format's pieces: header fields, record encoding
 * (every flag, extreme addresses), footer and index, and malformed bytes.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/native.h"

#include <stdlib.h>
#include <string.h>

#define WIDTH 4

static void header_round_trips(void **state)
{
    trace_header h, back;
    trace_native_buffer buf = { 0 };
    (void)state;

    trace_header_init(&h);
    h.commit_width = 8;
    h.rob_size = 256;
    h.clock_hz = 2000000000ull;
    strcpy(h.arch, "x86_64");
    h.va_bits = 48;
    h.llc_latency = 45;
    h.initial_window = 16;
    h.load_bias = 0x555555554000ull;
    h.has_load_bias = 1;
    assert_int_equal(trace_header_set(&h.generator, "gen 1"), 0);
    assert_int_equal(trace_header_set(&h.command_line, "tea record -- ./a.out"), 0);
    assert_int_equal(trace_header_set(&h.binary_path, "/usr/bin/a.out"), 0);
    assert_int_equal(trace_header_set(&h.build_id, "0123abcd"), 0);
    assert_int_equal(trace_native_header_encode(&h, &buf), 0);
    assert_int_equal(trace_native_header_decode(buf.data, buf.size, &back), 0);
    assert_int_equal(back.commit_width, 8);
    assert_int_equal(back.rob_size, 256);
    assert_true(back.clock_hz == 2000000000ull);
    assert_string_equal(back.arch, "x86_64");
    assert_int_equal(back.va_bits, 48);
    assert_int_equal(back.llc_latency, 45);
    assert_int_equal(back.initial_window, 16);
    assert_true(back.has_load_bias && back.load_bias == 0x555555554000ull);
    assert_string_equal(back.generator, "gen 1");
    assert_string_equal(back.command_line, "tea record -- ./a.out");
    assert_string_equal(back.binary_path, "/usr/bin/a.out");
    assert_string_equal(back.build_id, "0123abcd");
    assert_null(back.source_format);
    trace_header_free(&back);

    /* A major version this reader does not know. */
    buf.data[8] = 2;
    assert_int_equal(trace_native_header_decode(buf.data, buf.size, &back), TEA_ERR_FORMAT);
    assert_contains(error_message(), "version 2.0 is not supported");
    trace_header_free(&back);
    buf.data[8] = 1;
    /* A field running past the end. */
    assert_int_equal(trace_native_header_decode(buf.data, buf.size - 3, &back), TEA_ERR_FORMAT);
    assert_contains(error_message(), "overruns");
    trace_header_free(&back);
    buf.data[0] = 'X';
    assert_int_equal(trace_native_header_decode(buf.data, buf.size, &back), TEA_ERR_FORMAT);
    assert_contains(error_message(), "bad magic");
    trace_header_free(&back);
    trace_header_free(&h);
    trace_native_buffer_free(&buf);
}

/* Encodes records into one frame and decodes them back. */
static void records_round_trip(void **state)
{
    trace_record in[6], out;
    trace_uop uin[6][TRACE_MAX_RECORD_UOPS], uout[TRACE_MAX_RECORD_UOPS];
    uint8_t frame[6 * TRACE_NATIVE_MAX_RECORD_BYTES];
    trace_native_codec enc, dec;
    size_t len = 0, pos = 0;
    (void)state;

    memset(in, 0, sizeof in);
    memset(uin, 0, sizeof uin);
    in[0].cycle = 123456789012345ull; /* origin: absolute */
    in[0].dispatch = WIDTH;
    in[1].cycle = in[0].cycle + 1;    /* commits, one with a PSV, trailing empty entries */
    in[1].n_commit = 2;
    in[1].retire = 4;
    uin[1][0] = (trace_uop){ 0xFFFFFFFFFFFFFFF0ull, 0, 0, 0 };
    uin[1][1] = (trace_uop){ 0x10, 0x1FF, 1, 0 };
    in[2].cycle = in[1].cycle + 100000; /* exception after a commit, offsets with a gap */
    in[2].n_commit = 1;
    in[2].flags = TRACE_REC_EXCEPTION | TRACE_REC_REFILL;
    in[2].retire = 3;
    uin[2][0] = (trace_uop){ 0, 0, 0, 0 };
    uin[2][1] = (trace_uop){ 0x8000000000000000ull, 1u << TRACE_PSV_FL_EX, 2, 0 };
    in[3].cycle = in[2].cycle + 3; /* squash and an unusual dispatch count */
    in[3].squash = 300;
    in[4].cycle = in[3].cycle + 1;
    in[4].dispatch = 7;
    in[5].cycle = UINT64_MAX; /* the largest cycle */
    in[5].n_commit = 16;
    in[5].retire = 16;
    for (int k = 0; k < 16; k++)
        uin[5][k] = (trace_uop){ 0x1000 + 4u * (unsigned)k, (uint16_t)k, (uint8_t)k, 0 };

    trace_native_codec_frame_start(&enc, WIDTH);
    for (int i = 0; i < 6; i++)
        len += trace_native_encode_record(&enc, &in[i], uin[i], frame + len);
    trace_native_codec_frame_start(&dec, WIDTH);
    for (int i = 0; i < 6; i++) {
        unsigned n = trace_record_uops(&in[i]);
        assert_int_equal(trace_native_decode_record(&dec, frame, len, &pos, &out, uout), 0);
        assert_true(out.cycle == in[i].cycle);
        assert_int_equal(out.n_commit, in[i].n_commit);
        assert_int_equal(out.flags, in[i].flags);
        assert_int_equal(out.retire, in[i].retire);
        assert_int_equal(out.squash, in[i].squash);
        assert_int_equal(out.dispatch, in[i].dispatch);
        for (unsigned k = 0; k < n; k++) {
            assert_true(uout[k].pc == uin[i][k].pc);
            assert_int_equal(uout[k].psv, uin[i][k].psv);
            assert_int_equal(uout[k].offset, uin[i][k].offset);
        }
    }
    assert_int_equal(pos, len);
}

static void malformed_records_fail(void **state)
{
    trace_record r;
    trace_uop u[TRACE_MAX_RECORD_UOPS];
    trace_native_codec c;
    size_t pos;
    const uint8_t truncated[] = { 0x01, 0x05 };                  /* one commit, no µop bytes */
    const uint8_t bad_ext[] = { 0x80, 0x40, 0x01 };              /* unknown extension bit */
    const uint8_t overlong[] = { 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F };
    const uint8_t bad_psv[] = { 0x01, 0x00, 0x09, 0x80, 0x04 };  /* PSV 512 */
    (void)state;

    trace_native_codec_frame_start(&c, WIDTH);
    pos = 0;
    assert_int_equal(trace_native_decode_record(&c, truncated, sizeof truncated, &pos, &r, u), TEA_ERR_FORMAT);
    assert_contains(error_message(), "truncated");
    pos = 0;
    assert_int_equal(trace_native_decode_record(&c, bad_ext, sizeof bad_ext, &pos, &r, u), TEA_ERR_FORMAT);
    assert_contains(error_message(), "unknown record flags");
    pos = 0;
    assert_int_equal(trace_native_decode_record(&c, overlong, sizeof overlong, &pos, &r, u), TEA_ERR_FORMAT);
    assert_contains(error_message(), "over-long");
    pos = 0;
    assert_int_equal(trace_native_decode_record(&c, bad_psv, sizeof bad_psv, &pos, &r, u), TEA_ERR_FORMAT);
    assert_contains(error_message(), "PSV 512");
}

static void footer_and_index_round_trip(void **state)
{
    trace_native_footer f, g;
    trace_native_index_entry e = { 1234, 567, 10, 20, 30, 40, 50, 0 }, e2;
    uint8_t bytes[TRACE_NATIVE_FOOTER_SIZE], entry[TRACE_NATIVE_INDEX_ENTRY_SIZE];
    (void)state;

    memset(&f, 0, sizeof f);
    f.totals.records = 1;
    f.totals.first_cycle = 2;
    f.totals.last_cycle = 3;
    f.totals.commits = 4;
    f.totals.exceptions = 5;
    f.totals.dispatched = 6;
    f.totals.squashed = 7;
    f.totals.refills = 8;
    for (int i = 0; i < TRACE_PSV_EVENT_COUNT; i++)
        f.totals.events[i] = 100u + (unsigned)i;
    f.notes.flags = TRACE_NOTE_ST_LLC_UNAVAILABLE;
    f.notes.counter_wraps = 9;
    f.data_frames = 10;
    f.index_offset = 11;
    trace_native_footer_encode(&f, bytes);
    assert_int_equal(trace_native_footer_decode(bytes, sizeof bytes, &g), 0);
    assert_memory_equal(&f, &g, sizeof f);
    bytes[0] ^= 1;
    assert_int_equal(trace_native_footer_decode(bytes, sizeof bytes, &g), TEA_ERR_FORMAT);

    trace_native_index_entry_encode(&e, entry);
    trace_native_index_entry_decode(entry, &e2);
    assert_true(e2.offset == 1234 && e2.compressed_size == 567 && e2.first_cycle == 10 && e2.last_cycle == 20);
    assert_true(e2.records == 30 && e2.content_size == 40 && e2.window == 50);
    assert_true(trace_native_index_digest(0, &e) != trace_native_index_digest(1, &e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_round_trips),
        cmocka_unit_test(records_round_trip),
        cmocka_unit_test(malformed_records_fail),
        cmocka_unit_test(footer_and_index_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
