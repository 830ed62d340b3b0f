/*
 * test_tracedoctor.c: the TraceDoctor token codec: packing, the PSV mapping,
 * decoding the reference scenario, every validation error, counter wraps,
 * decode(encode(stream)) == stream on model streams, and decoding in runs
 * (into a batch) against decoding token by token.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/psv.h"
#include "trace/tracedoctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROB 192
#define LLC 32
/* Room for an error message kept while the next decode runs. */
#define TEST_MESSAGE_MAX 512

/* Decodes `n` tokens into `out`; returns the first error. */
static int decode_tokens(const trace_td_token *tokens, size_t n, test_stream *out, trace_td_decoder *d)
{
    trace_record rec;
    trace_uop uops[TRACE_MAX_RECORD_UOPS];
    int ready, rc;

    test_stream_init(out);
    trace_td_decoder_init(d, ROB, LLC);
    for (size_t i = 0; i < n; i++) {
        if ((rc = trace_td_decoder_push(d, &tokens[i], &rec, uops, &ready)))
            return rc;
        if (ready)
            test_stream_append(out, &rec, uops);
    }
    trace_td_decoder_finish(d, &rec, uops, &ready);
    if (ready)
        test_stream_append(out, &rec, uops);
    return TEA_OK;
}

/* Appends the batch's records to `out` and empties it. */
static void drain_batch(trace_batch *b, test_stream *out)
{
    for (size_t i = 0; i < b->count; i++)
        test_stream_append(out, &b->records[i], b->uops + b->records[i].first_uop);
    trace_batch_clear(b);
}

/* decode_tokens through trace_td_decoder_push_run into a batch of
 * `capacity` records, emptied into `out` whenever a run finds no room: the
 * first token, and any the run leaves, go through
 * trace_td_decoder_push_bytes. */
static int decode_token_runs(const trace_td_token *tokens, size_t n, size_t capacity, test_stream *out,
                             trace_td_decoder *d)
{
    uint8_t *bytes = calloc(n ? n : 1, TRACE_TD_TOKEN_SIZE);
    trace_batch b;
    size_t pos = 0;
    int rc = TEA_OK, ready;

    assert_non_null(bytes);
    assert_int_equal(trace_batch_init(&b, capacity), 0);
    for (size_t i = 0; i < n; i++)
        trace_td_token_pack(&tokens[i], bytes + i * TRACE_TD_TOKEN_SIZE);
    test_stream_init(out);
    trace_td_decoder_init(d, ROB, LLC);
    while (pos < n && !rc) {
        size_t used = 0;
        trace_record *rec = &b.records[b.count];
        rc = trace_td_decoder_push_run(d, bytes + pos * TRACE_TD_TOKEN_SIZE, n - pos, &b, &used);
        pos += used;
        assert_true(b.count <= b.capacity && b.uop_count <= b.uop_capacity);
        if (rc || used > 0)
            continue;
        if (d->have_pending) { /* no room for a run */
            drain_batch(&b, out);
            continue;
        }
        if (!(rc = trace_td_decoder_push_bytes(d, bytes + pos * TRACE_TD_TOKEN_SIZE, rec,
                                               b.uops + b.uop_count, &ready))) {
            assert_false(ready); /* the first token completes nothing */
            pos++;
        }
    }
    drain_batch(&b, out);
    if (!rc) {
        trace_td_decoder_finish(d, &b.records[0], b.uops, &ready);
        if (ready)
            test_stream_append(out, &b.records[0], b.uops);
    }
    trace_batch_free(&b);
    free(bytes);
    return rc;
}

static trace_td_token token(uint64_t cycle, unsigned state, unsigned head, unsigned tail)
{
    trace_td_token t;
    memset(&t, 0, sizeof t);
    t.cycle = cycle;
    t.rob_state = state;
    t.head = head;
    t.tail = tail;
    return t;
}

static void slot(trace_td_token *t, int i, uint16_t flags, uint64_t pc, uint16_t memlat)
{
    t->flags[i] = flags;
    t->pc[i] = pc;
    t->memlat[i] = memlat;
}

static void tokens_pack_and_unpack(void **state)
{
    trace_td_token t = token(0xABCDEF12345ull, 0xA, 0x12, 0xFE), u;
    uint8_t bytes[TRACE_TD_TOKEN_SIZE];
    (void)state;
    for (int i = 0; i < TRACE_TD_SLOTS; i++) {
        slot(&t, i, (uint16_t)(0x800 | i), 0x8000000000000000ull + (uint64_t)i, (uint16_t)(100 + i));
        t.isslat[i] = (uint16_t)(7 * i);
    }
    trace_td_token_pack(&t, bytes);
    /* Field positions from docs/semantics.md §6. */
    assert_int_equal(bytes[0], 0x45);
    assert_int_equal(bytes[5] >> 4, 0xA);
    assert_int_equal(bytes[6], 0x12);
    assert_int_equal(bytes[7], 0xFE);
    assert_int_equal(bytes[8 + 2], 0x01);
    assert_int_equal(bytes[16 + 8 + 7], 0x80);
    assert_int_equal(bytes[48 + 6], 103);
    assert_int_equal(bytes[56 + 2], 7);
    trace_td_token_unpack(bytes, &u);
    assert_true(u.cycle == t.cycle && u.rob_state == t.rob_state && u.head == t.head && u.tail == t.tail);
    assert_memory_equal(u.flags, t.flags, sizeof t.flags);
    assert_memory_equal(u.pc, t.pc, sizeof t.pc);
    assert_memory_equal(u.memlat, t.memlat, sizeof t.memlat);
    assert_memory_equal(u.isslat, t.isslat, sizeof t.isslat);
}

static void slot_flags_fold_to_psv(void **state)
{
    (void)state;
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_DCACHE_MISS, 31, LLC), 1u << TRACE_PSV_ST_L1);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_DCACHE_MISS, 32, LLC),
                     (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC));
    assert_int_equal(trace_td_slot_psv(0, 500, LLC), 0); /* memlat alone is no miss */
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_DTLB_SMISS, 0, LLC), 1u << TRACE_PSV_ST_TLB);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_DTLB_PMISS, 0, LLC), 1u << TRACE_PSV_ST_TLB);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_ICACHE_MISS, 0, LLC), 1u << TRACE_PSV_DR_L1);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_ITLB_SMISS | TRACE_TD_SLOT_ITLB_PMISS, 0, LLC),
                     1u << TRACE_PSV_DR_TLB);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_LSU_FULL, 0, LLC), 1u << TRACE_PSV_DR_SQ);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_BR_MISS, 0, LLC), 1u << TRACE_PSV_FL_MB);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_FLUSHS, 0, LLC), 1u << TRACE_PSV_FL_EX);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_REFETCHED, 0, LLC), 1u << TRACE_PSV_FL_MO);
    assert_int_equal(trace_td_slot_psv(TRACE_TD_SLOT_COMMITS | TRACE_TD_SLOT_VALID, 0, LLC), 0);
}

/* The reference vector, decoded; expectations worked out by hand from
 * scenario.decoded.txt (see docs/trace-format.md). */
static void scenario_decodes_as_worked_out(void **state)
{
    uint8_t *bytes;
    size_t size;
    trace_td_token tokens[20];
    trace_td_decoder d;
    test_stream s;
    const trace_record *r;
    (void)state;

    test_read_file(TEA_TEST_DATA "/scenario.bin", &bytes, &size);
    assert_int_equal(size, 20 * TRACE_TD_TOKEN_SIZE);
    for (int i = 0; i < 20; i++)
        trace_td_token_unpack(bytes + i * TRACE_TD_TOKEN_SIZE, &tokens[i]);
    free(bytes);
    assert_int_equal(decode_tokens(tokens, 20, &s, &d), 0);
    assert_int_equal(s.count, 20);
    assert_int_equal(d.initial_window, 0);
    assert_int_equal(d.stats.index_resyncs, 0);
    assert_int_equal(d.stats.memlat_nonzero, 2);

    r = &s.records[3]; /* 1003: two commits of row 0, two empty banks retire too */
    assert_int_equal(r->cycle, 1003);
    assert_int_equal(r->n_commit, 2);
    assert_int_equal(r->retire, 4);
    assert_int_equal(s.uops[r->first_uop].pc, 0x1000);
    assert_int_equal(s.uops[r->first_uop + 1].offset, 1);
    assert_int_equal(s.records[5].squash, 4); /* 1006: the tail rolls back 16 -> 12 before 1008 */
    r = &s.records[8]; /* 1011: the load missing the LLC and the mispredicted branch */
    assert_int_equal(s.uops[r->first_uop].psv, (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC));
    assert_int_equal(s.uops[r->first_uop + 1].psv, 1u << TRACE_PSV_FL_MB);
    assert_int_equal(s.records[11].flags, TRACE_REC_REFILL); /* 1020 POPULATED */
    r = &s.records[13]; /* 1030: 0x2004 excepts from bank 1 (head 13) */
    assert_int_equal(r->flags, TRACE_REC_EXCEPTION);
    assert_int_equal(r->retire, 1);
    assert_int_equal(r->squash, 2);
    assert_int_equal(s.uops[r->first_uop].pc, 0x2004);
    assert_int_equal(s.uops[r->first_uop].offset, 0);
    assert_int_equal(s.uops[r->first_uop].psv, 1u << TRACE_PSV_FL_EX);
    r = &s.records[16]; /* 1041: three commits, DTLB and LSU-full */
    assert_int_equal(s.uops[r->first_uop + 1].psv, 1u << TRACE_PSV_ST_TLB);
    assert_int_equal(s.uops[r->first_uop + 2].psv, 1u << TRACE_PSV_DR_SQ);
    assert_int_equal(s.records[19].dispatch, TRACE_TD_SLOTS);
    test_stream_free(&s);
}

/* Decoding `tokens` fails with a message containing `needle`, token by
 * token and in runs alike (the same message and the same records before). */
static void expect_error(const trace_td_token *tokens, size_t n, const char *needle)
{
    trace_td_decoder d, run_d;
    test_stream s, run_s;
    char message[TEST_MESSAGE_MAX];

    assert_int_equal(decode_tokens(tokens, n, &s, &d), TEA_ERR_FORMAT);
    assert_contains(error_message(), needle);
    snprintf(message, sizeof message, "%s", error_message());
    assert_int_equal(decode_token_runs(tokens, n, 16, &run_s, &run_d), TEA_ERR_FORMAT);
    assert_string_equal(error_message(), message);
    assert_streams_equal(&s, &run_s);
    assert_int_equal(run_d.tokens, d.tokens);
    test_stream_free(&s);
    test_stream_free(&run_s);
}

static void invalid_tokens_are_rejected(void **state)
{
    trace_td_token t[3];
    (void)state;

    t[0] = token(100, 0, 0, 8);
    t[1] = token(99, 0, 0, 8);
    expect_error(t, 2, "token 1 (uncompressed byte 64): cycle counter goes backwards");
    t[1] = token(100, 0, 0, 8);
    expect_error(t, 2, "goes nowhere");

    t[1] = token(101, TRACE_TD_ROB_COMMITTING, 0, 8);
    slot(&t[1], 0, TRACE_TD_SLOT_VALID, 0x10, 0);
    expect_error(t, 2, "COMMITTING token (state 0x1) has no committing slot");

    t[1] = token(101, TRACE_TD_ROB_EXCEPTION, 0, 8);
    expect_error(t, 2, "EXCEPTION token (state 0x8) has no valid slot");

    t[1] = token(101, 0, 0, 8);
    slot(&t[1], 0, TRACE_TD_SLOT_COMMITS | TRACE_TD_SLOT_VALID, 0x10, 0);
    expect_error(t, 2, "not COMMITTING");

    t[1] = token(101, TRACE_TD_ROB_COMMITTING, 1, 8);
    slot(&t[1], 0, TRACE_TD_SLOT_COMMITS | TRACE_TD_SLOT_VALID, 0x10, 0);
    expect_error(t, 2, "slot 0 commits but the ROB head is at bank 1");

    t[1] = token(101, TRACE_TD_ROB_COMMITTING, 0, 8);
    slot(&t[1], 0, TRACE_TD_SLOT_VALID, 0x10, 0);
    slot(&t[1], 1, TRACE_TD_SLOT_COMMITS | TRACE_TD_SLOT_VALID, 0x14, 0);
    expect_error(t, 2, "slot 1 commits after uncommitted valid slot 0");

    t[1] = token(101, 0, 200, 8);
    expect_error(t, 2, "ROB index 200 is outside a 192-entry ROB");
}

static void cycle_counter_wraps_are_unwrapped(void **state)
{
    trace_td_token t[3];
    trace_td_decoder d;
    test_stream s;
    (void)state;
    t[0] = token(TRACE_TD_CYCLE_MASK - 5, 0, 0, 0);
    t[1] = token(TRACE_TD_CYCLE_MASK, 0, 0, 0);
    t[2] = token(4, 0, 0, 0); /* 5 cycles after the previous one, past the wrap */
    assert_int_equal(decode_tokens(t, 3, &s, &d), 0);
    assert_int_equal(d.stats.counter_wraps, 1);
    assert_int_equal(s.records[2].cycle, (1ull << TRACE_TD_CYCLE_BITS) + 4);
    assert_int_equal(s.records[2].cycle - s.records[1].cycle, 5);
    test_stream_free(&s);
}

/* Encodes a stream to tokens and decodes them again. */
static void assert_token_round_trip(const test_stream *in, unsigned initial_window)
{
    trace_td_encoder e;
    trace_td_decoder d;
    trace_td_token *tokens = calloc(in->count, sizeof *tokens);
    test_stream out;

    assert_non_null(tokens);
    trace_td_encoder_init(&e, ROB, LLC);
    for (size_t i = 0; i < in->count; i++) {
        int rc = trace_td_encoder_encode(&e, &in->records[i], in->uops + in->records[i].first_uop, initial_window, NULL,
                                         &tokens[i]);
        if (rc)
            fail_msg("record %zu (cycle %llu) cannot be encoded: %s", i, (unsigned long long)in->records[i].cycle,
                     error_message());
    }
    assert_int_equal(decode_tokens(tokens, in->count, &out, &d), 0);
    assert_int_equal(d.initial_window, initial_window);
    assert_int_equal(d.stats.index_resyncs, 0);
    assert_streams_equal(in, &out);
    test_stream_free(&out);
    free(tokens);
}

static void model_streams_survive_tokens(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        test_stream s;
        test_model_stream(names[i], 3, 60000, &s);
        assert_true(s.count > 1000);
        assert_token_round_trip(&s, 0);
        test_stream_free(&s);
    }
}

/* Decoding in runs gives what decoding token by token gives: the same
 * records, µops and statistics, whatever the batch's capacity (2: no room
 * for a run once a record is in it). A token that breaks a rule in the
 * middle of a run stops it there with the same message. */
static void runs_decode_as_token_by_token(void **state)
{
    static const size_t capacities[] = { 2, 3, 7, 4096 };
    test_stream s;
    trace_td_encoder e;
    trace_td_token *tokens;
    (void)state;

    test_model_stream("flushes", 5, 20000, &s);
    assert_true(s.count > 1000);
    assert_non_null(tokens = calloc(s.count, sizeof *tokens));
    trace_td_encoder_init(&e, ROB, LLC);
    for (size_t i = 0; i < s.count; i++)
        assert_int_equal(trace_td_encoder_encode(&e, &s.records[i], s.uops + s.records[i].first_uop, 0, NULL,
                                                 &tokens[i]), 0);
    for (size_t c = 0; c < sizeof capacities / sizeof capacities[0]; c++) {
        trace_td_decoder d, run_d;
        test_stream one, runs;
        assert_int_equal(decode_tokens(tokens, s.count, &one, &d), 0);
        assert_int_equal(decode_token_runs(tokens, s.count, capacities[c], &runs, &run_d), 0);
        assert_streams_equal(&one, &runs);
        assert_streams_equal(&s, &runs);
        assert_memory_equal(&d.stats, &run_d.stats, sizeof d.stats);
        assert_int_equal(d.tokens, run_d.tokens);
        test_stream_free(&one);
        test_stream_free(&runs);
    }
    /* token 777 repeats the cycle before it: records 0-775 come out, then its error */
    tokens[777].cycle = tokens[776].cycle;
    expect_error(tokens, s.count, "token 777 (uncompressed byte 49728): cycle counter goes nowhere");
    free(tokens);
    test_stream_free(&s);
}

/* A ROB that fills completely (head == tail) and drains again, starting from
 * a trace that begins with entries already in flight. */
static void full_rob_is_told_from_empty(void **state)
{
    test_stream s;
    trace_record r;
    trace_uop u[TRACE_TD_SLOTS];
    unsigned window = 8;
    uint64_t cycle = 10, pc = 0x400;
    (void)state;

    memset(u, 0, sizeof u); /* every field compared, the context included */
    test_stream_init(&s);
    for (int i = 0; window + TRACE_TD_SLOTS <= ROB; i++) { /* dispatch until full */
        memset(&r, 0, sizeof r);
        r.cycle = cycle++;
        r.dispatch = TRACE_TD_SLOTS;
        window += TRACE_TD_SLOTS;
        test_stream_append(&s, &r, u);
    }
    memset(&r, 0, sizeof r); /* a cycle with a full ROB and nothing moving */
    r.cycle = cycle += 7;
    test_stream_append(&s, &r, u);
    while (window > 0) { /* drain row by row, three µops and one empty bank each */
        memset(&r, 0, sizeof r);
        r.cycle = ++cycle;
        r.n_commit = 3;
        r.retire = TRACE_TD_SLOTS;
        for (int k = 0; k < 3; k++) {
            u[k].pc = pc += 4;
            u[k].psv = (uint16_t)(k == 0 ? (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC) : 0);
            u[k].offset = (uint8_t)k;
        }
        window -= TRACE_TD_SLOTS;
        test_stream_append(&s, &r, u);
    }
    assert_token_round_trip(&s, 8);
    test_stream_free(&s);
}

/* Streams that TraceDoctor tokens cannot express are refused, not mangled. */
static void inexpressible_records_are_refused(void **state)
{
    trace_td_encoder e;
    trace_td_token t;
    trace_record r;
    trace_uop u = { 0x10, 1u << TRACE_PSV_ST_LLC, 0, 0, 0 };
    (void)state;

    trace_td_encoder_init(&e, ROB, LLC);
    memset(&r, 0, sizeof r);
    r.dispatch = 3;
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 0, NULL, &t), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "dispatch of 3 entries");

    trace_td_encoder_init(&e, ROB, LLC);
    r.dispatch = 0;
    r.n_commit = 1;
    r.retire = 1;
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 4, NULL, &t), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "ST-LLC without ST-L1");

    trace_td_encoder_init(&e, ROB, LLC);
    u.psv = 0;
    u.offset = 5;
    r.retire = 6;
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 8, NULL, &t), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "outside the head row");

    /* BOOM never commits and excepts in one cycle: no token for it */
    {
        trace_uop two[2] = { { 0x10, 0, 0, 0, 0 }, { 0x14, 1u << TRACE_PSV_FL_EX, 1, 0, 0 } };
        trace_td_encoder_init(&e, ROB, LLC);
        memset(&r, 0, sizeof r);
        r.n_commit = 1;
        r.flags = TRACE_REC_EXCEPTION;
        r.retire = 2;
        assert_int_equal(trace_td_encoder_encode(&e, &r, two, 4, NULL, &t), TEA_ERR_UNSUPPORTED);
        assert_contains(error_message(), "excepts in a cycle in which others commit");
    }
}

/* The VALID bits of `t`'s slots as a bank mask. */
static unsigned valid_banks(const trace_td_token *t)
{
    unsigned m = 0;
    for (unsigned b = 0; b < TRACE_TD_SLOTS; b++)
        m |= ((t->flags[b] & TRACE_TD_SLOT_VALID) != 0) << b;
    return m;
}

/* VALID shows the head row's occupied entries, in every token (BOOM's
 * instr_valids). With the producer's bank mask: exactly those; without one:
 * every entry of the row in the window from where the record's retirement
 * ends. A mask that contradicts the record is refused. */
static void valid_bits_show_the_head_row(void **state)
{
    trace_td_encoder e;
    trace_td_token t;
    trace_record r;
    trace_uop u = { 0x10, 0, 1, 0, 0 };
    uint16_t held;
    (void)state;

    /* a stall with 8 entries in flight: the whole head row, or the two held */
    memset(&r, 0, sizeof r);
    r.cycle = 1;
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, NULL, 8, NULL, &t), TEA_OK);
    assert_int_equal(valid_banks(&t), 0xF);
    held = 0x3;
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, NULL, 8, &held, &t), TEA_OK);
    assert_int_equal(valid_banks(&t), 0x3);
    /* an empty ROB shows none */
    held = 0;
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, NULL, 0, &held, &t), TEA_OK);
    assert_int_equal(valid_banks(&t), 0);

    /* bank 1 commits, bank 0 was empty (retired with it), bank 2 stops the
     * head, bank 3 is empty: without a mask 2 and 3 show, with one only 2 */
    r.n_commit = 1;
    r.retire = 2;
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 8, NULL, &t), TEA_OK);
    assert_int_equal(valid_banks(&t), 0xE);
    assert_int_equal(t.flags[1] & TRACE_TD_SLOT_COMMITS, TRACE_TD_SLOT_COMMITS);
    held = 0x6;
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 8, &held, &t), TEA_OK);
    assert_int_equal(valid_banks(&t), 0x6);

    /* masks that contradict the record */
    held = 0x4; /* the committing bank 1 empty */
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 8, &held, &t), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "commits or excepts from an empty entry (bank 1)");
    held = 0x7; /* bank 0 occupied, yet retired without committing */
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, &u, 8, &held, &t), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "an occupied entry (bank 0) retires without committing");
    memset(&r, 0, sizeof r);
    r.cycle = 1;
    held = 0x1; /* a µop in an empty ROB */
    trace_td_encoder_init(&e, ROB, LLC);
    assert_int_equal(trace_td_encoder_encode(&e, &r, NULL, 0, &held, &t), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "outside the ROB window");
}

/* A token with both COMMITTING and EXCEPTION (not from BOOM) is read one way:
 * the committing slots commit, and the first valid slot after them, from the
 * head bank on, is the excepting µop, with FL-EX and its own events. */
static void commit_and_exception_token_is_read_one_way(void **state)
{
    trace_td_token tokens[3];
    test_stream s;
    trace_td_decoder d;
    const trace_record *r;
    const trace_uop *u;
    (void)state;

    tokens[0] = token(100, TRACE_TD_ROB_DISPATCHING, 0, 0);
    slot(&tokens[0], 0, TRACE_TD_SLOT_VALID, 0x1000, 0);
    tokens[1] = token(101, TRACE_TD_ROB_POPULATED, 0, 4);
    slot(&tokens[1], 0, TRACE_TD_SLOT_VALID, 0x1000, 0);
    slot(&tokens[1], 1, TRACE_TD_SLOT_VALID | TRACE_TD_SLOT_DTLB_SMISS, 0x1004, 0);
    slot(&tokens[1], 2, TRACE_TD_SLOT_VALID, 0x1008, 0);
    tokens[2] = token(103, TRACE_TD_ROB_COMMITTING | TRACE_TD_ROB_EXCEPTION, 0, 4);
    slot(&tokens[2], 0, TRACE_TD_SLOT_COMMITS | TRACE_TD_SLOT_VALID, 0x1000, 0);
    slot(&tokens[2], 1, TRACE_TD_SLOT_VALID | TRACE_TD_SLOT_DTLB_SMISS, 0x1004, 0);
    slot(&tokens[2], 2, TRACE_TD_SLOT_VALID, 0x1008, 0);
    assert_int_equal(decode_tokens(tokens, 3, &s, &d), 0);
    assert_int_equal(s.count, 3);
    r = &s.records[2];
    u = &s.uops[r->first_uop];
    assert_int_equal(r->n_commit, 1);
    assert_true(r->flags & TRACE_REC_EXCEPTION);
    assert_int_equal(r->retire, 2); /* the commit and the excepting entry */
    assert_int_equal(u[0].pc, 0x1000);
    assert_int_equal(u[1].pc, 0x1004);
    assert_int_equal(u[1].psv, (1u << TRACE_PSV_ST_TLB) | (1u << TRACE_PSV_FL_EX));
    test_stream_free(&s);
}

/* A worker's signature folds like a token slot's flags (by hand, from the
 * bit assignment in trace/tracedoctor.h): bit 0 ST-LLC, 0x20 ST-L1, 0xC0
 * ST-TLB, 0x4 DR-L1, 0x18 DR-TLB, 0x100 DR-SQ, 0x400 FL-MB, 0x800 and 0x1000
 * FL-EX, 0x200 FL-MO; bits 1 and 13-15 fold to nothing. */
static void worker_signatures_fold_to_psvs(void **state)
{
    (void)state;
    assert_int_equal(trace_td_signature_psv(0x20), 1u << TRACE_PSV_ST_L1);
    assert_int_equal(trace_td_signature_psv(0x21), (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC));
    assert_int_equal(trace_td_signature_psv(0x40), 1u << TRACE_PSV_ST_TLB);
    assert_int_equal(trace_td_signature_psv(0x80), 1u << TRACE_PSV_ST_TLB);
    assert_int_equal(trace_td_signature_psv(0x4), 1u << TRACE_PSV_DR_L1);
    assert_int_equal(trace_td_signature_psv(0x18), 1u << TRACE_PSV_DR_TLB);
    assert_int_equal(trace_td_signature_psv(0x100), 1u << TRACE_PSV_DR_SQ);
    assert_int_equal(trace_td_signature_psv(0x400), 1u << TRACE_PSV_FL_MB);
    assert_int_equal(trace_td_signature_psv(0x800), 1u << TRACE_PSV_FL_EX);
    assert_int_equal(trace_td_signature_psv(0x1000), 1u << TRACE_PSV_FL_EX);
    assert_int_equal(trace_td_signature_psv(0x200), 1u << TRACE_PSV_FL_MO);
    assert_int_equal(trace_td_signature_psv(0x2 | 0xE000), 0);
    assert_int_equal(trace_td_signature_psv(0x1), 1u << TRACE_PSV_ST_LLC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tokens_pack_and_unpack),
        cmocka_unit_test(slot_flags_fold_to_psv),
        cmocka_unit_test(scenario_decodes_as_worked_out),
        cmocka_unit_test(invalid_tokens_are_rejected),
        cmocka_unit_test(cycle_counter_wraps_are_unwrapped),
        cmocka_unit_test(model_streams_survive_tokens),
        cmocka_unit_test(runs_decode_as_token_by_token),
        cmocka_unit_test(full_rob_is_told_from_empty),
        cmocka_unit_test(inexpressible_records_are_refused),
        cmocka_unit_test(valid_bits_show_the_head_row),
        cmocka_unit_test(commit_and_exception_token_is_read_one_way),
        cmocka_unit_test(worker_signatures_fold_to_psvs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
