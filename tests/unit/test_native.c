/*
 * test_native.c: the native format's pieces: header fields, record encoding
 * (every flag, extreme addresses), footer and index, malformed bytes, and the
 * fused decoder (trace_native_decode_batch) against the reference path.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/native.h"

#include <stdlib.h>
#include <zstd.h>
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
    strcpy(h.program.arch, "x86_64");
    h.va_bits = 48;
    h.llc_latency = 45;
    h.initial_window = 16;
    h.program.load_bias = 0x555555554000ull;
    h.program.has_load_bias = 1;
    assert_int_equal(trace_header_set(&h.generator, "gen 1"), 0);
    assert_int_equal(trace_header_set(&h.command_line, "tea record -- ./a.out"), 0);
    assert_int_equal(trace_header_set(&h.program.binary_path, "/usr/bin/a.out"), 0);
    assert_int_equal(trace_header_set(&h.program.build_id, "0123abcd"), 0);
    assert_int_equal(trace_native_header_encode(&h, &buf), 0);
    assert_int_equal(trace_native_header_decode(buf.data, buf.size, &back), 0);
    assert_int_equal(back.commit_width, 8);
    assert_int_equal(back.rob_size, 256);
    assert_true(back.clock_hz == 2000000000ull);
    assert_string_equal(back.program.arch, "x86_64");
    assert_int_equal(back.va_bits, 48);
    assert_int_equal(back.llc_latency, 45);
    assert_int_equal(back.initial_window, 16);
    assert_true(back.program.has_load_bias && back.program.load_bias == 0x555555554000ull);
    assert_string_equal(back.generator, "gen 1");
    assert_string_equal(back.command_line, "tea record -- ./a.out");
    assert_string_equal(back.program.binary_path, "/usr/bin/a.out");
    assert_string_equal(back.program.build_id, "0123abcd");
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
    uin[1][0] = (trace_uop){ 0xFFFFFFFFFFFFFFF0ull, 0, 0, 0, 0 };
    uin[1][1] = (trace_uop){ 0x10, 0x1FF, 1, 0, 0 };
    in[2].cycle = in[1].cycle + 100000; /* exception after a commit, offsets with a gap */
    in[2].n_commit = 1;
    in[2].flags = TRACE_REC_EXCEPTION | TRACE_REC_REFILL;
    in[2].retire = 3;
    uin[2][0] = (trace_uop){ 0, 0, 0, 0, 0 };
    uin[2][1] = (trace_uop){ 0x8000000000000000ull, 1u << TRACE_PSV_FL_EX, 2, 0, 0 };
    in[3].cycle = in[2].cycle + 3; /* squash and an unusual dispatch count */
    in[3].squash = 300;
    in[4].cycle = in[3].cycle + 1;
    in[4].dispatch = 7;
    in[5].cycle = UINT64_MAX; /* the largest cycle */
    in[5].n_commit = 16;
    in[5].retire = 16;
    for (int k = 0; k < 16; k++)
        uin[5][k] = (trace_uop){ 0x1000 + 4u * (unsigned)k, (uint16_t)k, (uint8_t)k, 0, 0 };

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

/* Decodes a frame of records as the readers do: with the fused decoder
 * (when `fused`) and the reference path for every record it leaves, or with
 * the reference path alone. Batches hold `capacity` records. Keeps the
 * records accepted in `out`, the totals and the window after them; returns
 * the first error. */
static int decode_frame(const uint8_t *data, size_t size, const trace_header *h, int fused, size_t capacity,
                        test_stream *out, trace_totals *totals, unsigned *window)
{
    trace_native_codec c;
    trace_native_stream st;
    trace_batch b;
    size_t pos = 0;
    int rc = TEA_OK;

    memset(totals, 0, sizeof *totals);
    st = (trace_native_stream){ (unsigned)h->rob_size, (unsigned)h->initial_window, 0, totals };
    test_stream_init(out);
    assert_int_equal(trace_batch_init(&b, capacity), 0);
    trace_native_codec_frame_start(&c, (unsigned)h->commit_width);
    while (pos < size && !rc) {
        trace_record rec;
        trace_uop u[TRACE_MAX_RECORD_UOPS];
        unsigned after;

        trace_batch_clear(&b);
        if (fused && trace_native_decode_batch(&c, data, size, &pos, &st, &b) > 0) {
            for (size_t i = 0; i < b.count; i++)
                test_stream_append(out, &b.records[i], b.uops + b.records[i].first_uop);
            continue;
        }
        if ((rc = trace_native_decode_record(&c, data, size, &pos, &rec, u)))
            break;
        if (totals->records && rec.cycle <= st.last_cycle)
            rc = TEA_ERR_FORMAT;
        else if (!(rc = trace_record_check_read(&rec, u, (unsigned)h->commit_width, (unsigned)h->rob_size, st.window,
                                                &after))) {
            st.window = after;
            st.last_cycle = rec.cycle;
            trace_totals_add(totals, &rec, u);
            test_stream_append(out, &rec, u);
        }
    }
    *window = st.window;
    trace_batch_free(&b);
    return rc;
}

/* Encodes records [0, count) of `s` into one frame; returns its size. */
static size_t encode_frame(const test_stream *s, size_t count, uint8_t **out)
{
    trace_native_codec c;
    size_t len = 0;

    *out = malloc(count * TRACE_NATIVE_MAX_RECORD_BYTES + 1);
    assert_non_null(*out);
    trace_native_codec_frame_start(&c, (unsigned)s->header.commit_width);
    for (size_t i = 0; i < count; i++)
        len += trace_native_encode_record(&c, &s->records[i], s->uops + s->records[i].first_uop, *out + len);
    return len;
}

/* The fused decoder and the reference path agree on `data`, for batches of
 * several capacities: the same records, totals, window and verdict. Returns
 * the records accepted. */
static size_t assert_decoders_agree(const uint8_t *data, size_t size, const trace_header *h)
{
    static const size_t capacities[] = { 1, 7, 64, TRACE_BATCH_RECORDS };
    test_stream ref, fused;
    trace_totals ref_totals, fused_totals;
    unsigned ref_window, fused_window;
    int ref_rc = decode_frame(data, size, h, 0, 1, &ref, &ref_totals, &ref_window);
    size_t accepted = ref.count;

    for (size_t i = 0; i < sizeof capacities / sizeof capacities[0]; i++) {
        int rc = decode_frame(data, size, h, 1, capacities[i], &fused, &fused_totals, &fused_window);
        assert_int_equal(rc, ref_rc);
        assert_streams_equal(&fused, &ref);
        assert_memory_equal(&fused_totals, &ref_totals, sizeof ref_totals);
        assert_int_equal(fused_window, ref_window);
        test_stream_free(&fused);
    }
    test_stream_free(&ref);
    return accepted;
}

/* Every workload's records, and damaged copies of them, decode the same
 * through the fused decoder as through the reference path. */
static void fused_decoder_matches_reference(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    (void)state;

    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        test_stream s;
        uint8_t *frame;
        size_t len;

        test_model_stream(names[n], 3, 20000, &s);
        len = encode_frame(&s, s.count, &frame);
        assert_int_equal(assert_decoders_agree(frame, len, &s.header), s.count);
        for (int damage = 0; damage < 40; damage++) {
            size_t at;
            uint8_t was;
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            at = (size_t)(rng % len);
            was = frame[at];
            frame[at] = (uint8_t)(was ^ (uint8_t)(1u << (rng >> 61)) ^ (uint8_t)(rng >> 40));
            assert_decoders_agree(frame, len, &s.header);
            frame[at] = was;
        }
        free(frame);
        test_stream_free(&s);
    }
}

/* Plain records whose cycles reach 2^64 - 1 decode the same both ways, and
 * a one-byte cycle delta past it is refused at the same record. */
static void fused_decoder_cycle_limit(void **state)
{
    const trace_uop row[4] = { { 0x1000, 0, 0, 0, 0 }, { 0x1004, 0, 1, 0, 0 }, { 0x1008, 0, 2, 0, 0 }, { 0x100c, 0, 3, 0, 0 } };
    test_stream s;
    trace_record r;
    uint8_t *frame;
    size_t len, before_wrap;
    (void)state;

    test_stream_init(&s);
    s.header.commit_width = WIDTH;
    s.header.rob_size = 64;
    s.header.initial_window = 0;
    memset(&r, 0, sizeof r);
    r.cycle = UINT64_MAX - 3 * 300;
    r.dispatch = WIDTH;
    test_stream_append(&s, &r, row);
    /* Each record commits the row dispatched before it and dispatches
     * another, three cycles later: 300 of them end at 2^64 - 1. */
    r.n_commit = WIDTH;
    r.retire = WIDTH;
    while (r.cycle < UINT64_MAX) {
        r.cycle += 3;
        test_stream_append(&s, &r, row);
    }
    before_wrap = s.count;
    /* Cycle 2^64 - 1 + 5 wraps to 4: encoded as a delta of 5. */
    for (int i = 0; i < 300; i++) {
        r.cycle += 5;
        test_stream_append(&s, &r, row);
    }
    len = encode_frame(&s, s.count, &frame);
    assert_int_equal(assert_decoders_agree(frame, len, &s.header), before_wrap);
    free(frame);
    /* Without the wrap, every record. */
    len = encode_frame(&s, before_wrap, &frame);
    assert_int_equal(assert_decoders_agree(frame, len, &s.header), before_wrap);
    free(frame);
    test_stream_free(&s);
}


/* A context frame's content for hand-made varints `raw` (magic, zstd,
 * with a checksum unless `checksum` is 0). */
static size_t context_frame(const uint8_t *raw, size_t n, int checksum, uint8_t *out, size_t cap)
{
    size_t got;
    memcpy(out, TRACE_NATIVE_CONTEXTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(cctx);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum);
    got = ZSTD_compress2(cctx, out + TRACE_NATIVE_MAGIC_SIZE, cap - TRACE_NATIVE_MAGIC_SIZE, raw, n);
    ZSTD_freeCCtx(cctx);
    assert_false(ZSTD_isError(got));
    return TRACE_NATIVE_MAGIC_SIZE + got;
}

/* Context frames: the changes noted from µops, encoded, decoded and
 * applied give every µop its context back; a frame all in the root has
 * none; damaged ones are refused. */
static void context_frames(void **state)
{
    const uint32_t ctx[] = { 0, 0, 5, 5, 7, 0, 0, 2 };
    enum { N = sizeof ctx / sizeof ctx[0] };
    trace_uop u[N], back[N];
    trace_native_contexts c, d;
    trace_native_buffer out = { NULL, 0, 0 };
    ZSTD_CCtx *cctx = NULL; /* made by the first encode, kept for the next */
    uint8_t frame[256];
    /* two changes: gaps 1 and 0 (µops 1 and 2), contexts +3 (zigzag 6) and +0 */
    const uint8_t same_twice[] = { 2, 1, 0, 6, 0 };
    const uint8_t trailing[] = { 1, 0, 6, 9 };
    const uint8_t none[] = { 0 };
    (void)state;

    memset(&c, 0, sizeof c);
    memset(&d, 0, sizeof d);
    memset(u, 0, sizeof u);
    for (unsigned i = 0; i < N; i++)
        u[i].ctx = ctx[i];
    /* noted in two parts (two records): changes at µops 2, 4, 5, 7 */
    assert_int_equal(trace_native_contexts_note(&c, u, 3), 0);
    assert_int_equal(trace_native_contexts_note(&c, u + 3, N - 3), 0);
    assert_int_equal(c.count, 4);
    assert_int_equal(c.changes[0].uop, 2);
    assert_int_equal(c.changes[0].ctx, 5);
    assert_int_equal(c.changes[1].uop, 4);
    assert_int_equal(c.changes[2].uop, 5);
    assert_int_equal(c.changes[2].ctx, 0);
    assert_int_equal(c.changes[3].uop, 7);
    assert_int_equal(c.max_ctx, 7);
    assert_int_equal(trace_native_contexts_encode(&c, &cctx, &out), 0);
    assert_memory_equal(out.data, "TEACTXCH", 8);
    assert_int_equal(trace_native_contexts_decode(&d, out.data, out.size, N), 0);
    assert_int_equal(d.count, 4);
    memset(back, 0xFF, sizeof back);
    trace_native_contexts_apply(&d, back, 5);
    trace_native_contexts_apply(&d, back + 5, N - 5);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(back[i].ctx, ctx[i]);
    assert_int_equal(trace_native_contexts_check(&d, 8), 0);
    assert_int_equal(trace_native_contexts_check(&d, 7), TEA_ERR_FORMAT);
    assert_contains(error_message(), "context 7, the trace has 7");
    /* a frame shorter than its changes say */
    assert_int_equal(trace_native_contexts_decode(&d, out.data, out.size, N), 0);
    trace_native_contexts_apply(&d, back, 6);
    assert_int_equal(trace_native_contexts_check(&d, 8), TEA_ERR_FORMAT);
    assert_contains(error_message(), "a change at µop 7 of a frame of 6 µops");
    /* all in the root: no frame */
    trace_native_contexts_frame_start(&c);
    memset(u, 0, sizeof u);
    assert_int_equal(trace_native_contexts_note(&c, u, N), 0);
    assert_int_equal(c.count, 0);
    assert_int_equal(trace_native_contexts_encode(&c, &cctx, &out), 0);
    assert_int_equal(out.size, 0);
    /* damaged */
    assert_int_equal(trace_native_contexts_decode(&d, (const uint8_t *)"TEACTXCX????", 12, N), TEA_ERR_FORMAT);
    assert_contains(error_message(), "without its magic");
    assert_int_equal(trace_native_contexts_decode(&d, (const uint8_t *)"TEACTXCH\x28\xb5\x2f\xfd", 12, N),
                     TEA_ERR_FORMAT);
    assert_int_equal(trace_native_contexts_decode(&d, frame, context_frame(same_twice, sizeof same_twice, 1, frame,
                                                                            sizeof frame), N),
                     TEA_ERR_FORMAT);
    assert_contains(error_message(), "change 1 changes nothing");
    assert_int_equal(trace_native_contexts_decode(&d, frame, context_frame(trailing, sizeof trailing, 1, frame,
                                                                            sizeof frame), N),
                     TEA_ERR_FORMAT);
    assert_contains(error_message(), "1 bytes after its changes");
    assert_int_equal(trace_native_contexts_decode(&d, frame, context_frame(none, sizeof none, 1, frame, sizeof frame), N),
                     TEA_ERR_FORMAT);
    assert_contains(error_message(), "0 changes");
    assert_int_equal(d.count, 0); /* a refused frame leaves no change behind */
    /* more changes than the data frame has bytes, or one beyond them: refused before allocating */
    assert_int_equal(trace_native_contexts_encode(&c, &cctx, &out), 0);
    {
        const uint8_t two[] = { 2, 0, 0, 6, 2 };   /* changes at µops 0 and 1 */
        size_t n = context_frame(two, sizeof two, 1, frame, sizeof frame);
        assert_int_equal(trace_native_contexts_decode(&d, frame, n, 2), 0);
        assert_int_equal(trace_native_contexts_decode(&d, frame, n, 1), TEA_ERR_FORMAT);
        assert_contains(error_message(), "2 changes in 5 bytes, for a data frame of 1");
        const uint8_t far[] = { 1, 9, 6 };         /* a change at µop 9 */
        n = context_frame(far, sizeof far, 1, frame, sizeof frame);
        assert_int_equal(trace_native_contexts_decode(&d, frame, n, 9), TEA_ERR_FORMAT);
        assert_contains(error_message(), "change 0 beyond the data frame");
    }
    /* no checksum; a damaged checksum */
    assert_int_equal(trace_native_contexts_decode(&d, frame, context_frame(trailing, 3, 0, frame, sizeof frame), N),
                     TEA_ERR_FORMAT);
    assert_contains(error_message(), "with a checksum");
    assert_int_equal(trace_native_contexts_encode(&c, &cctx, &out), 0); /* c: all in the root again */
    {
        size_t n = context_frame(trailing, 3, 1, frame, sizeof frame);
        assert_int_equal(trace_native_contexts_decode(&d, frame, n, N), 0);
        frame[n - 1] ^= 0x40;
        assert_int_equal(trace_native_contexts_decode(&d, frame, n, N), TEA_ERR_FORMAT);
        assert_contains(error_message(), "checksum");
    }
    trace_native_buffer_free(&out);
    ZSTD_freeCCtx(cctx);
    trace_native_contexts_free(&c);
    trace_native_contexts_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_round_trips),
        cmocka_unit_test(records_round_trip),
        cmocka_unit_test(malformed_records_fail),
        cmocka_unit_test(footer_and_index_round_trip),
        cmocka_unit_test(fused_decoder_matches_reference),
        cmocka_unit_test(fused_decoder_cycle_limit),
        cmocka_unit_test(context_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
