/*
 * test_samplers.c: every scheme on small hand-built traces, against samples
 * worked out by hand (the derivations are in the comments).
 */
#include "testutil.h"
#include "common/error.h"
#include "pics/pics.h"
#include "tea/replay.h"
#include "tea/schedule.h"
#include "tea/tagger.h"
#include "trace/psv.h"

#include <math.h>
#include <string.h>

#define U PICS_UNIT
#define FLMB (1u << TRACE_PSV_FL_MB)

/* Appends a record whose µops are given as (pc, psv, offset) triples. */
static void rec(test_stream *s, uint64_t cycle, unsigned commits, int exception, unsigned retire, unsigned squash,
                unsigned dispatch, uint8_t flags, const trace_uop *uops)
{
    trace_record r;
    memset(&r, 0, sizeof r);
    r.cycle = cycle;
    r.n_commit = (uint8_t)commits;
    r.flags = (uint8_t)(flags | (exception ? TRACE_REC_EXCEPTION : 0));
    r.retire = (uint8_t)retire;
    r.squash = (uint16_t)squash;
    r.dispatch = (uint16_t)dispatch;
    test_stream_append(s, &r, uops);
}

static tea_sampler_spec spec(pics_scheme scheme, uint64_t period, pics_jitter jitter)
{
    tea_sampler_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.scheme = scheme;
    sp.period = period;
    sp.frequency_hz = 1;
    sp.jitter = jitter;
    sp.seed = 1;
    sp.event_mask = TRACE_PSV_MASK_ALL;
    return sp;
}

static tea_replay *replay(const test_stream *s, unsigned initial_window, const tea_sampler_spec *specs, size_t n)
{
    tea_replay *r;
    trace_batch b = test_stream_batch(s, 0, s->count);
    assert_int_equal(tea_replay_create(&r, initial_window, specs, n), 0);
    assert_int_equal(tea_replay_feed(r, &b), 0);
    assert_int_equal(tea_replay_finish(r), 0);
    return r;
}

/* Asserts that cell (pc, psv) of `p` holds `value` (0: absent). */
static void assert_cell(const pics *p, uint64_t pc, uint16_t psv, uint64_t value)
{
    const pics_cell *c = pics_find(p, pc, psv);
    uint64_t got = c ? c->value : 0;
    if (got != value)
        fail_msg("cell 0x%llx/%u holds %llu/%llu, expected %llu/%llu", (unsigned long long)pc, psv,
                 (unsigned long long)got, U, (unsigned long long)value, U);
}

/*
 * Trace A (initial window 0):
 *   0  origin, dispatches row 0 (A B C D)
 *   1  dispatches row 1 (E F G H)
 *   2  A commits                         (retire 1)
 *   3  B, C commit                       (retire 2)
 *   4  D commits                         (retire 1, row 0 done)
 *   5  E F G H commit                    (retire 4; the ROB is empty)
 *   8  dispatches row 2 (I)
 *   9  REFILL
 *   12 I commits
 * Golden: A = 2 (cycle 1 stalled, cycle 2), B = C = 1/2, D = 1, E..H = 1/4,
 * I = 7 (6-8 drained, 9-11 stalled, 12). Total 12 = the span.
 */
static void build_trace_a(test_stream *s)
{
    const trace_uop a[] = { { 0x10, 0, 0, 0, 0 } }, bc[] = { { 0x14, 0, 0, 0, 0 }, { 0x18, 0, 1, 0, 0 } },
                    d[] = { { 0x1c, 0, 0, 0, 0 } },
                    efgh[] = { { 0x20, 0, 0, 0, 0 }, { 0x24, 0, 1, 0, 0 }, { 0x28, 0, 2, 0, 0 }, { 0x2c, 0, 3, 0, 0 } },
                    i[] = { { 0x30, 1u << TRACE_PSV_ST_L1, 0, 0, 0 } };
    test_stream_init(s);
    rec(s, 0, 0, 0, 0, 0, 4, 0, NULL);
    rec(s, 1, 0, 0, 0, 0, 4, TRACE_REC_REFILL, NULL);
    rec(s, 2, 1, 0, 1, 0, 0, 0, a);
    rec(s, 3, 2, 0, 2, 0, 0, 0, bc);
    rec(s, 4, 1, 0, 1, 0, 0, 0, d);
    rec(s, 5, 4, 0, 4, 0, 0, 0, efgh);
    rec(s, 8, 0, 0, 0, 0, 4, 0, NULL);
    rec(s, 9, 0, 0, 0, 0, 0, TRACE_REC_REFILL, NULL);
    rec(s, 12, 1, 0, 1, 0, 0, 0, i);
}

static void compute_stall_and_drain(void **state)
{
    test_stream s;
    tea_sampler_spec specs[3] = { spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE), spec(PICS_SCHEME_TEA, 3, PICS_JITTER_NONE),
                                  spec(PICS_SCHEME_NCI, 3, PICS_JITTER_NONE) };
    tea_replay *r;
    const golden_totals *g;
    (void)state;

    build_trace_a(&s);
    r = replay(&s, 0, specs, 3);
    g = tea_replay_golden_totals(r);
    assert_int_equal(g->states[GOLDEN_COMPUTE], 5);  /* 2, 3, 4, 5, 12 */
    assert_int_equal(g->states[GOLDEN_DRAINED], 3);  /* 6, 7, 8 */
    assert_int_equal(g->states[GOLDEN_STALLED], 4);  /* 1, 9, 10, 11 */
    assert_cell(tea_replay_golden(r), 0x10, 0, 2 * U);
    assert_cell(tea_replay_golden(r), 0x14, 0, U / 2);
    assert_cell(tea_replay_golden(r), 0x18, 0, U / 2);
    assert_cell(tea_replay_golden(r), 0x1c, 0, U);
    assert_cell(tea_replay_golden(r), 0x24, 0, U / 4);
    assert_cell(tea_replay_golden(r), 0x30, 1, 7 * U);
    assert_true(tea_replay_golden(r)->total == 12 * U);
    /* TEA at period 1 is golden, cell for cell. */
    for (size_t i = 0; i < tea_replay_golden(r)->capacity; i++) {
        const pics_cell *c = &tea_replay_golden(r)->slots[i];
        if (c->used)
            assert_cell(tea_replay_sampler_pics(r, 0), c->pc, c->psv, c->value);
    }
    assert_int_equal(tea_replay_sampler_samples(r, 0), 12);
    /* Period 3, no jitter: points 3, 6, 9, 12. TEA: 3 splits between B and
     * C, 6 and 9 go to I (drained, stalled), 12 to I committing. */
    assert_int_equal(tea_replay_sampler_samples(r, 1), 4);
    assert_cell(tea_replay_sampler_pics(r, 1), 0x14, 0, U / 2);
    assert_cell(tea_replay_sampler_pics(r, 1), 0x18, 0, U / 2);
    assert_cell(tea_replay_sampler_pics(r, 1), 0x30, 1, 3 * U);
    /* NCI: the whole sample at 3 goes to B, the first µop committing then. */
    assert_cell(tea_replay_sampler_pics(r, 2), 0x14, 0, U);
    assert_cell(tea_replay_sampler_pics(r, 2), 0x18, 0, 0);
    assert_cell(tea_replay_sampler_pics(r, 2), 0x30, 1, 3 * U);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * Trace B: a mispredicted branch (initial window 0).
 *   0  origin, dispatches row 0: entries 0 X, 1 BR, 2-3 wrong path
 *   1  dispatches row 1: entries 4-7, wrong path
 *   3  the branch resolves: row 1 squashed (4 entries)
 *   4  X and BR commit (retire 4: the killed banks 2-3 go with the row)
 *   7  dispatches row 2: entry 4 Y (the tail rolled back to 4)
 *   8  REFILL
 *   10 Y commits
 * Golden: X = 3 + 1/2; BR = 1/2 + 3 (5-7 flushed); Y = 3 (8, 9 and 10).
 */
static void build_trace_b(test_stream *s)
{
    const trace_uop xb[] = { { 0x40, 0, 0, 0, 0 }, { 0x44, FLMB, 1, 0, 0 } }, y[] = { { 0x80, 0, 0, 0, 0 } };
    test_stream_init(s);
    rec(s, 0, 0, 0, 0, 0, 4, 0, NULL);
    rec(s, 1, 0, 0, 0, 0, 4, TRACE_REC_REFILL, NULL);
    rec(s, 3, 0, 0, 0, 4, 0, 0, NULL);
    rec(s, 4, 2, 0, 4, 0, 0, 0, xb);
    rec(s, 7, 0, 0, 0, 0, 4, 0, NULL);
    rec(s, 8, 0, 0, 0, 0, 0, TRACE_REC_REFILL, NULL);
    rec(s, 10, 1, 0, 1, 0, 0, 0, y);
}

static void flush_after_mispredict(void **state)
{
    test_stream s;
    tea_sampler_spec specs[2] = { spec(PICS_SCHEME_TEA, 2, PICS_JITTER_NONE), spec(PICS_SCHEME_NCI, 2, PICS_JITTER_NONE) };
    tea_replay *r;
    (void)state;

    build_trace_b(&s);
    r = replay(&s, 0, specs, 2);
    assert_int_equal(tea_replay_golden_totals(r)->states[GOLDEN_FLUSHED], 3);
    assert_cell(tea_replay_golden(r), 0x40, 0, 3 * U + U / 2);
    assert_cell(tea_replay_golden(r), 0x44, FLMB, 3 * U + U / 2);
    assert_cell(tea_replay_golden(r), 0x80, 0, 3 * U);
    /* Points 2, 4, 6, 8, 10. TEA: 2 -> X; 4 -> X, BR half each; 6 -> BR
     * (flushed); 8, 10 -> Y. */
    assert_cell(tea_replay_sampler_pics(r, 0), 0x40, 0, U + U / 2);
    assert_cell(tea_replay_sampler_pics(r, 0), 0x44, FLMB, U / 2 + U);
    assert_cell(tea_replay_sampler_pics(r, 0), 0x80, 0, 2 * U);
    /* NCI: 2, 4 -> X; the flush cycle 6 lands on Y, the first correct-path
     * µop, as do 8 and 10. The branch gets nothing. */
    assert_cell(tea_replay_sampler_pics(r, 1), 0x40, 0, 2 * U);
    assert_cell(tea_replay_sampler_pics(r, 1), 0x44, FLMB, 0);
    assert_cell(tea_replay_sampler_pics(r, 1), 0x80, 0, 3 * U);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * IBS on trace B, period 1 (points 1..10):
 *   record 1: point 1 arms; row 1 is dispatched: entry 4 (wrong path) tagged
 *   record 3: points 2, 3 busy; the squash removes entry 4: lost (squashed)
 *   record 4: point 4 arms; no dispatch
 *   record 7: points 5, 6, 7 busy (armed); row 2 dispatched: entry 4 (Y) tagged
 *   record 8: point 8 busy; record 10: points 9, 10 busy, Y commits: a sample.
 * Samples 1 (Y), lost: 1 squashed, 8 busy.
 */
static void ibs_tag_squashed(void **state)
{
    test_stream s;
    tea_sampler_spec sp = spec(PICS_SCHEME_IBS, 1, PICS_JITTER_NONE);
    tea_replay *r;
    const uint64_t *lost;
    (void)state;

    build_trace_b(&s);
    r = replay(&s, 0, &sp, 1);
    lost = tea_replay_sampler_lost(r, 0);
    assert_int_equal(tea_replay_sampler_samples(r, 0), 1);
    assert_cell(tea_replay_sampler_pics(r, 0), 0x80, 0, U);
    assert_int_equal(lost[PICS_LOST_SQUASHED], 1);
    assert_int_equal(lost[PICS_LOST_BUSY], 8);
    assert_int_equal(lost[PICS_LOST_EMPTY] + lost[PICS_LOST_EXCEPTION] + lost[PICS_LOST_END], 0);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * SPE on trace B, period 2 (cycle points 2, 4, ...):
 *   record 3: point 2 arms (SPE's first sample comes from a cycle point)
 *   record 4: point 4 busy (armed)
 *   record 7: point 6 busy; row 2 (entries 9-12 in dispatch order) arrives:
 *     entry 4 (Y, the 9th dispatched) is tagged; SPE now counts entries:
 *     interval = round(2 x 12 dispatched / 7 cycles) = 3 starting after the
 *     9th, so it expires at the 12th, in this same row while Y is in flight:
 *     a collision (busy). The next interval expires at the 15th entry, never
 *     dispatched.
 *   record 10: Y commits: a sample.
 */
static void spe_collision(void **state)
{
    test_stream s;
    tea_sampler_spec sp = spec(PICS_SCHEME_SPE, 2, PICS_JITTER_NONE);
    tea_replay *r;
    const uint64_t *lost;
    (void)state;

    build_trace_b(&s);
    r = replay(&s, 0, &sp, 1);
    lost = tea_replay_sampler_lost(r, 0);
    assert_int_equal(tea_replay_sampler_samples(r, 0), 1);
    assert_cell(tea_replay_sampler_pics(r, 0), 0x80, 0, U);
    assert_int_equal(lost[PICS_LOST_BUSY], 3);
    assert_int_equal(lost[PICS_LOST_SQUASHED] + lost[PICS_LOST_EMPTY] + lost[PICS_LOST_END], 0);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * RIS marks the entry `skip` entries after the first one dispatched at or
 * after its sample point, skip being the low four bits of the next state of
 * its 16-bit Galois LFSR (taps 0xB400). A trace of 16 rows of four µops,
 * entry e at pc 0x1000 + 4e, all committing in order, shows where the mark
 * fell.
 */
static void ris_mark(void **state)
{
    test_stream s;
    tea_sampler_spec sp = spec(PICS_SCHEME_RIS, 3, PICS_JITTER_NONE);
    tea_tagger probe;
    tea_replay *r;
    unsigned lfsr, skip;
    uint64_t cycle = 0;
    (void)state;

    /* The LFSR's first draw for this seed and period, by the documented rule. */
    assert_int_equal(tea_tagger_init(&probe, PICS_SCHEME_RIS, 3, PICS_JITTER_NONE, 1, TRACE_PSV_MASK_ALL, 0, 1, 0), 0);
    lfsr = probe.lfsr;
    tea_tagger_free(&probe);
    lfsr = (lfsr >> 1) ^ ((lfsr & 1u) ? 0xB400u : 0u);
    skip = lfsr & 0xFu;

    /* cycle 0: origin, row 0 dispatched; cycles 1..15: one row each; cycles
     * 20..35: each row commits whole. The point at 3 arms; row 3 (entries
     * 12-15) is the first dispatched at or after it. */
    test_stream_init(&s);
    for (unsigned row = 0; row < 16; row++)
        rec(&s, cycle++, 0, 0, 0, 0, 4, 0, NULL);
    cycle = 20;
    for (unsigned row = 0; row < 16; row++) {
        trace_uop u[4];
        for (unsigned k = 0; k < 4; k++)
            u[k] = (trace_uop){ 0x1000 + 4 * (4 * row + k), 0, (uint8_t)k, 0, 0 };
        rec(&s, cycle++, 4, 0, 4, 0, 0, 0, u);
    }
    r = replay(&s, 0, &sp, 1);
    assert_true(tea_replay_sampler_samples(r, 0) >= 1);
    assert_cell(tea_replay_sampler_pics(r, 0), 0x1000 + 4 * (12 + skip), 0, U);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * A load stalls the ROB head for 100 cycles: with a period of 10 every one of
 * the ten points in the stall counts (none are merged), for TEA and NCI, with
 * or without jitter.
 */
static void many_points_in_one_stall(void **state)
{
    test_stream s;
    const trace_uop load[] = { { 0x500, (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC), 0, 0, 0 } };
    tea_sampler_spec specs[3] = { spec(PICS_SCHEME_TEA, 10, PICS_JITTER_NONE),
                                  spec(PICS_SCHEME_TEA, 10, PICS_JITTER_INTERVAL),
                                  spec(PICS_SCHEME_NCI, 10, PICS_JITTER_START) };
    tea_replay *r;
    (void)state;

    test_stream_init(&s);
    rec(&s, 0, 0, 0, 0, 0, 4, 0, NULL);
    rec(&s, 100, 1, 0, 1, 0, 0, 0, load);
    r = replay(&s, 0, specs, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(tea_replay_sampler_samples(r, i), 10);
        assert_cell(tea_replay_sampler_pics(r, i), 0x500, load[0].psv, 10 * U);
        assert_int_equal(pics_find(tea_replay_sampler_pics(r, i), 0x500, load[0].psv)->count, 10);
    }
    tea_replay_free(r);
    test_stream_free(&s);
}

/* NCI on the reference scenario, period 1: each point goes whole to the first
 * µop committing at or after it; the exception at 1030 is not a commit. */
static void nci_skips_exceptions(void **state)
{
    test_stream s;
    tea_sampler_spec sp = spec(PICS_SCHEME_NCI, 1, PICS_JITTER_NONE);
    tea_replay *r;
    const pics *p;
    (void)state;

    assert_int_equal(test_stream_read(TEA_TEST_DATA "/scenario.bin", NULL, &s), 0);
    r = replay(&s, s.header.initial_window, &sp, 1);
    p = tea_replay_sampler_pics(r, 0);
    assert_cell(p, 0x1000, 0, 3 * U);      /* 1001-1003 */
    assert_cell(p, 0x1008, 5, 7 * U);      /* 1004-1010 */
    assert_cell(p, 0x100c, 5, U);          /* 1011 */
    assert_cell(p, 0x2000, 8, 14 * U);     /* 1012-1025 */
    assert_cell(p, 0x2004, 128, 0);        /* excepts: never sampled */
    assert_cell(p, 0x3000, 0, 16 * U);     /* 1026-1041 */
    assert_cell(p, 0x3010, 0, U);          /* 1042 */
    assert_cell(p, 0x3020, 128, 8 * U);    /* 1043-1050 */
    assert_true(p->total == 50 * U);
    tea_replay_free(r);
    test_stream_free(&s);
}

/* Events outside a scheme's set are masked off (IBS has no FL-EX, SPE no
 * DR-L1), and with all events they stay. */
static void event_sets_mask_psvs(void **state)
{
    test_stream s;
    tea_sampler_spec specs[2] = { spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE), spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE) };
    tea_replay *r;
    (void)state;

    specs[0].event_mask = pics_scheme_native_events(PICS_SCHEME_SPE);
    assert_int_equal(test_stream_read(TEA_TEST_DATA "/scenario.bin", NULL, &s), 0);
    r = replay(&s, s.header.initial_window, specs, 2);
    /* 0x2000 has DR-L1, which SPE cannot report: it becomes base. */
    assert_cell(tea_replay_sampler_pics(r, 0), 0x2000, 0, 6 * U);
    assert_cell(tea_replay_sampler_pics(r, 0), 0x2000, 8, 0);
    assert_cell(tea_replay_sampler_pics(r, 1), 0x2000, 8, 6 * U);
    assert_int_equal(pics_scheme_native_events(PICS_SCHEME_IBS) & (1u << TRACE_PSV_FL_EX), 0);
    assert_int_equal(pics_scheme_native_events(PICS_SCHEME_RIS) & (1u << TRACE_PSV_DR_SQ), 1u << TRACE_PSV_DR_SQ);
    tea_replay_free(r);
    test_stream_free(&s);
}

/* The scheme table: names, order, display names, lookups and the loss
 * reasons' names (the PICS file keys). */
/* A TEA spec sampling exactly the cycles `points`. */
static tea_sampler_spec listed(const uint64_t *points, uint64_t count)
{
    tea_sampler_spec sp = spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE);
    sp.listed = 1;
    sp.points = points;
    sp.point_count = count;
    return sp;
}

/*
 * A listed TEA samples exactly its points. On trace A the list {3, 6, 9, 12}
 * is period 3 without jitter (compute_stall_and_drain): the same cells. The
 * list {9, 9, 20}: cycle 9 (stalled, to I) counts twice; 20 lies past the
 * trace's last cycle (12) and is lost at its end. Only TEA takes a list,
 * and its points may not decrease.
 */
static void listed_points(void **state)
{
    static const uint64_t periodic[] = { 3, 6, 9, 12 }, twice[] = { 9, 9, 20 }, backwards[] = { 6, 3 };
    tea_sampler_spec specs[3] = { spec(PICS_SCHEME_TEA, 3, PICS_JITTER_NONE), listed(periodic, 4), listed(twice, 3) };
    tea_sampler_spec wrong;
    test_stream s;
    tea_replay *r;
    uint64_t n;
    (void)state;

    build_trace_a(&s);
    r = replay(&s, 0, specs, 3);
    assert_int_equal(tea_replay_sampler_samples(r, 1), 4);
    assert_true(tea_replay_sampler_pics(r, 1)->total == tea_replay_sampler_pics(r, 0)->total);
    for (size_t i = 0; i < tea_replay_sampler_pics(r, 0)->capacity; i++) {
        const pics_cell *c = &tea_replay_sampler_pics(r, 0)->slots[i];
        if (c->used)
            assert_cell(tea_replay_sampler_pics(r, 1), c->pc, c->psv, c->value);
    }
    assert_int_equal(tea_replay_sampler_samples(r, 2), 2);
    assert_cell(tea_replay_sampler_pics(r, 2), 0x30, 1, 2 * U);
    assert_int_equal(tea_replay_sampler_lost(r, 2)[PICS_LOST_END], 1);
    assert_null(tea_replay_sampler_points(r, 0, &n)); /* TEA's points are its schedule's */
    assert_int_equal(n, 0);
    tea_replay_free(r);

    wrong = listed(backwards, 2);
    assert_int_equal(tea_replay_create(&r, 0, &wrong, 1), TEA_ERR_USAGE);
    wrong = listed(periodic, 4);
    wrong.scheme = PICS_SCHEME_NCI;
    assert_int_equal(tea_replay_create(&r, 0, &wrong, 1), TEA_ERR_USAGE);
    test_stream_free(&s);
}

/*
 * The cycles a tagger's samples stand for, the noise floor's points (kept
 * only when the spec asks). Trace
 * B, IBS at period 1 (ibs_tag_squashed): its one sample was armed by point
 * 4, where X and BR commit, so TEA at {4} gives each half a sample. SPE at
 * period 2 (spe_collision): its one sample was armed by point 2, a cycle of
 * the stall before X commits, so TEA at {2} gives X the whole sample.
 */
static void tagger_points(void **state)
{
    tea_sampler_spec specs[2] = { spec(PICS_SCHEME_IBS, 1, PICS_JITTER_NONE), spec(PICS_SCHEME_SPE, 2,
                                                                                    PICS_JITTER_NONE) };
    tea_sampler_spec floors[2];
    const uint64_t *points;
    uint64_t n;
    test_stream s;
    tea_replay *r, *f;
    (void)state;

    build_trace_b(&s);
    r = replay(&s, 0, specs, 2); /* points not asked for: none kept */
    assert_null(tea_replay_sampler_points(r, 0, &n));
    assert_int_equal(n, 0);
    tea_replay_free(r);
    specs[0].keep_points = specs[1].keep_points = 1;
    r = replay(&s, 0, specs, 2);
    points = tea_replay_sampler_points(r, 0, &n);
    assert_int_equal(n, 1);
    assert_int_equal(points[0], 4);
    floors[0] = listed(points, n);
    points = tea_replay_sampler_points(r, 1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(points[0], 2);
    floors[1] = listed(points, n);
    f = replay(&s, 0, floors, 2);
    assert_cell(tea_replay_sampler_pics(f, 0), 0x40, 0, U / 2);
    assert_cell(tea_replay_sampler_pics(f, 0), 0x44, FLMB, U / 2);
    assert_cell(tea_replay_sampler_pics(f, 1), 0x40, 0, U);
    assert_true(tea_replay_sampler_pics(f, 1)->total == U);
    tea_replay_free(f);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * Window groups (tea_replay_group_windows) on trace A, golden (A = 2, B = C
 * = 1/2, D = 1, E..H = 1/4, I = 7): windows ending at cycles 3, 5 and 12 in
 * two groups. Window 0 (intervals closing at 2 and 3: A, B, C, 3 cycles)
 * and window 2 (I, 7) go to group 0, window 1 (D at 4, E..H at 5: 2
 * cycles) to group 1. The golden PICS is their sum, the same as without
 * groups. One group, or more groups than windows, is refused.
 */
static void window_groups(void **state)
{
    static const uint64_t ends[] = { 3, 5, 12 };
    tea_sampler_spec sp = spec(PICS_SCHEME_TEA, 1, PICS_JITTER_NONE);
    tea_sampler_spec two[2] = { sp, spec(PICS_SCHEME_IBS, 2, PICS_JITTER_NONE) };
    trace_batch b;
    test_stream s;
    tea_replay *r, *plain;
    const pics *groups, *sampled;
    unsigned count;
    (void)state;

    build_trace_a(&s);
    b = test_stream_batch(&s, 0, s.count);
    assert_int_equal(tea_replay_create(&r, 0, two, 2), 0);
    assert_int_equal(tea_replay_group_windows(r, ends, 3, 2), 0);
    assert_int_equal(tea_replay_feed(r, &b), 0);
    assert_int_equal(tea_replay_finish(r), 0);
    groups = tea_replay_golden_groups(r, &count);
    assert_int_equal(count, 2);
    assert_true(groups[0].total == 10 * U);
    assert_true(groups[1].total == 2 * U);
    assert_cell(&groups[0], 0x10, 0, 2 * U);
    assert_cell(&groups[0], 0x18, 0, U / 2);
    assert_cell(&groups[0], 0x30, 1, 7 * U);
    assert_cell(&groups[0], 0x1c, 0, 0);
    assert_cell(&groups[1], 0x1c, 0, U);
    assert_cell(&groups[1], 0x2c, 0, U / 4);
    /* TEA at period 1 samples every cycle: its groups are the golden's, cell
     * for cell; IBS's groups sum to its PICS */
    sampled = tea_replay_sampler_groups(r, 0, &count);
    assert_int_equal(count, 2);
    for (unsigned k = 0; k < 2; k++) {
        assert_true(sampled[k].total == groups[k].total);
        for (size_t i = 0; i < groups[k].capacity; i++)
            if (groups[k].slots[i].used)
                assert_cell(&sampled[k], groups[k].slots[i].pc, groups[k].slots[i].psv, groups[k].slots[i].value);
    }
    sampled = tea_replay_sampler_groups(r, 1, &count);
    assert_int_equal(count, 2);
    assert_true(sampled[0].total + sampled[1].total == tea_replay_sampler_pics(r, 1)->total);
    assert_true(tea_replay_sampler_pics(r, 1)->total > 0);
    plain = replay(&s, 0, &sp, 1);
    assert_true(tea_replay_golden(r)->total == tea_replay_golden(plain)->total);
    for (size_t i = 0; i < tea_replay_golden(plain)->capacity; i++) {
        const pics_cell *c = &tea_replay_golden(plain)->slots[i];
        if (c->used)
            assert_cell(tea_replay_golden(r), c->pc, c->psv, c->value);
    }
    assert_null(tea_replay_golden_groups(plain, &count));
    assert_int_equal(count, 0);
    assert_null(tea_replay_sampler_groups(plain, 0, &count));
    assert_int_equal(count, 0);
    tea_replay_free(plain);
    tea_replay_free(r);

    assert_int_equal(tea_replay_create(&r, 0, &sp, 1), 0);
    assert_int_equal(tea_replay_group_windows(r, ends, 3, 1), TEA_ERR_USAGE);
    assert_int_equal(tea_replay_group_windows(r, ends, 3, 4), TEA_ERR_USAGE);
    tea_replay_free(r);
    test_stream_free(&s);
}

/*
 * Weighted windows on trace A, ends 3, 5, 12 and weights 1, 3, 6. Golden:
 * window 0 (A 2, B C 1/2: 3 cycles) once, window 1 (D 1, E..H 1/4) three
 * times, window 2 (I 7) six times: 3 + 6 + 42 = 51 cycles. TEA at base
 * period 6 (jitter none) samples window 0 at 6 (its first point, 6, lies
 * past its end 3: none), window 1 from cycle 3 at 2 (cycle 5: E..H share
 * it), window 2 from cycle 5 at 1 (cycles 6-12: I, 7 samples). One window
 * of weight 1 is today's replay, golden and TEA cell for cell.
 */
static void weighted_windows(void **state)
{
    static const uint64_t ends[] = { 3, 5, 12 }, weights[] = { 1, 3, 6 }, one_end[] = { 12 }, one[] = { 1 };
    tea_sampler_spec sp[2] = { spec(PICS_SCHEME_TEA, 6, PICS_JITTER_NONE), spec(PICS_SCHEME_IBS, 2, PICS_JITTER_NONE) };
    trace_batch b;
    test_stream s;
    tea_replay *r, *plain;
    const pics *g, *tea;
    (void)state;

    build_trace_a(&s);
    b = test_stream_batch(&s, 0, s.count);
    assert_int_equal(tea_replay_create(&r, 0, sp, 2), 0);
    assert_int_equal(tea_replay_weight_windows(r, ends, weights, 3), 0);
    assert_int_equal(tea_replay_feed(r, &b), 0);
    assert_int_equal(tea_replay_finish(r), 0);
    g = tea_replay_golden(r);
    assert_true(g->total == 51 * U);
    assert_cell(g, 0x10, 0, 2 * U);
    assert_cell(g, 0x14, 0, U / 2);
    assert_cell(g, 0x1c, 0, 3 * U);
    assert_cell(g, 0x24, 0, 3 * U / 4);
    assert_cell(g, 0x30, 1, 42 * U);
    assert_int_equal(pics_find(g, 0x30, 1)->count, 6); /* I commits once, for six */
    tea = tea_replay_sampler_pics(r, 0);
    assert_int_equal(tea_replay_sampler_samples(r, 0), 8);
    assert_true(tea->total == 8 * U);
    assert_cell(tea, 0x10, 0, 0);
    assert_cell(tea, 0x20, 0, U / 4);
    assert_cell(tea, 0x2c, 0, U / 4);
    assert_cell(tea, 0x30, 1, 7 * U);
    {
        /* IBS follows the windows too: each of its points (a schedule at
         * period 2 with the same windows, up to the last cycle) is a
         * sample or a loss */
        tea_schedule points;
        const uint64_t *lost = tea_replay_sampler_lost(r, 1);
        uint64_t n = tea_replay_sampler_samples(r, 1);
        tea_schedule_init(&points, 0, 2, PICS_JITTER_NONE, 1, 2);
        tea_schedule_set_windows(&points, ends, weights, 3);
        for (int k = 0; k < PICS_LOST_REASONS; k++)
            n += lost[k];
        assert_int_equal(n, tea_schedule_take(&points, 12));
        assert_true(n > 12); /* windows of weight 3 and 6 take more than a point per two cycles */
    }
    tea_replay_free(r);

    assert_int_equal(tea_replay_create(&r, 0, sp, 2), 0);
    assert_int_equal(tea_replay_weight_windows(r, one_end, one, 1), 0);
    assert_int_equal(tea_replay_feed(r, &b), 0);
    assert_int_equal(tea_replay_finish(r), 0);
    plain = replay(&s, 0, sp, 2);
    for (size_t k = 0; k < 3; k++) {
        const pics *want = k == 0 ? tea_replay_golden(plain) : tea_replay_sampler_pics(plain, k - 1);
        const pics *got = k == 0 ? tea_replay_golden(r) : tea_replay_sampler_pics(r, k - 1);
        assert_true(got->total == want->total);
        for (size_t i = 0; i < want->capacity; i++)
            if (want->slots[i].used)
                assert_cell(got, want->slots[i].pc, want->slots[i].psv, want->slots[i].value);
    }
    tea_replay_free(plain);
    tea_replay_free(r);

    assert_int_equal(tea_replay_create(&r, 0, sp, 1), 0);
    assert_int_equal(tea_replay_weight_windows(r, ends, (const uint64_t[]){ 1, 0, 1 }, 3), TEA_ERR_USAGE);
    assert_int_equal(tea_replay_weight_windows(r, ends, weights, 0), TEA_ERR_USAGE);
    tea_replay_free(r);
    test_stream_free(&s);
}

static void scheme_table(void **state)
{
    static const char *const names[] = { "golden", "tea", "nci", "ibs", "spe", "ris" };
    static const char *const display[] = { "golden", "TEA", "NCI-TEA", "IBS", "SPE", "RIS" };
    pics_scheme s;
    (void)state;
    assert_int_equal(PICS_SCHEME_COUNT, 6);
    for (int i = 0; i < PICS_SCHEME_COUNT; i++) {
        assert_string_equal(pics_scheme_name((pics_scheme)i), names[i]);
        assert_string_equal(pics_scheme_display_name((pics_scheme)i), display[i]);
        assert_int_equal(pics_scheme_parse(names[i], &s), TEA_OK);
        assert_int_equal(s, i);
    }
    assert_string_equal(pics_scheme_name(PICS_SCHEME_COUNT), "?");
    /* find takes a prefix of a longer label ("ibs:all") and sets no error */
    assert_true(pics_scheme_find("ibs:all", 3, &s));
    assert_int_equal(s, PICS_SCHEME_IBS);
    assert_false(pics_scheme_find("ib", 2, &s));
    assert_false(pics_scheme_find("ibs:all", 7, &s));
    assert_int_equal(pics_scheme_parse("pebs", &s), TEA_ERR_USAGE);
    assert_string_equal(error_message(), "unknown scheme 'pebs' (golden, tea, nci, ibs, spe, ris)");
    assert_int_equal(pics_scheme_native_events(PICS_SCHEME_TEA), TRACE_PSV_MASK_ALL);
    assert_string_equal(pics_lost_name(PICS_LOST_BUSY), "busy");
    assert_string_equal(pics_lost_name(PICS_LOST_END), "end");
    assert_string_equal(pics_lost_name(PICS_LOST_REASONS), "?");
}

/*
 * Phases (tea/tagger.h): a pipeline where each cycle dispatches one entry
 * and commits the one dispatched LIFETIME (10) cycles before, so that
 * every tag lives exactly that long once picked. Four units at period 5
 * are four units at 20: for each scheme, the share of busy points of four
 * units at 5 is one unit's at 20, of four times the points, with and
 * without the run's jitter (interval: within 3 points, 4 x 4000 points
 * pooled). IBS by hand (its tag is picked at its point, and points are
 * taken before commits): one unit at 20 never finds its tag pending; at 5
 * it does at two points of three; two units at 5 (each at 10) at one of
 * two. Several units keep their points in order (the noise floor samples
 * them as a list).
 */
#define PIPE_LIFETIME 10
#define PIPE_CYCLES 80000

static void build_pipeline(test_stream *s)
{
    test_stream_init(s);
    for (uint64_t c = 0; c < PIPE_CYCLES; c++) {
        trace_uop u = { 0x1000 + 4 * (c % 16), 0, 0, 0, 0 };
        if (c < PIPE_LIFETIME)
            rec(s, c, 0, 0, 0, 0, 1, 0, NULL);
        else
            rec(s, c, 1, 0, 1, 0, 1, 0, &u);
    }
}

/* Replays sampler `sp` on `s`: its points (samples + losses), its busy
 * losses and samples; checks its kept points are in order. */
static void replay_one(const test_stream *s, const tea_sampler_spec *sp, uint64_t *points, uint64_t *busy,
                       uint64_t *samples)
{
    tea_sampler_spec kept = *sp;
    tea_replay *r;
    const uint64_t *lost, *pts;
    uint64_t count;

    kept.keep_points = 1;
    r = replay(s, 0, &kept, 1);
    lost = tea_replay_sampler_lost(r, 0);
    *samples = *points = tea_replay_sampler_samples(r, 0);
    for (int k = 0; k < PICS_LOST_REASONS; k++)
        *points += lost[k];
    *busy = lost[PICS_LOST_BUSY];
    pts = tea_replay_sampler_points(r, 0, &count);
    assert_int_equal(count, *samples);
    for (uint64_t k = 1; k < count; k++)
        assert_true(pts[k - 1] <= pts[k]);
    tea_replay_free(r);
}

/* Four units at period 5 against one at 20, with `jitter`, within `tolerance`. */
static void four_units_as_one(const test_stream *s, pics_scheme scheme, pics_jitter jitter, double tolerance)
{
    tea_sampler_spec one = spec(scheme, 20, jitter), four = spec(scheme, 5, jitter);
    uint64_t n1, b1, s1, n4, b4, s4; /* points, busy losses, samples */

    four.phases = 4;
    replay_one(s, &one, &n1, &b1, &s1);
    replay_one(s, &four, &n4, &b4, &s4);
    assert_true(n4 + 8 >= 4 * n1 && n4 <= 4 * n1 + 8);
    assert_true(fabs((double)b4 / (double)n4 - (double)b1 / (double)n1) <= tolerance);
}

static void phases_sample_at_the_run_period(void **state)
{
    static const pics_scheme schemes[] = { PICS_SCHEME_IBS, PICS_SCHEME_SPE, PICS_SCHEME_RIS };
    tea_sampler_spec one20 = spec(PICS_SCHEME_IBS, 20, PICS_JITTER_NONE), one5 = spec(PICS_SCHEME_IBS, 5, PICS_JITTER_NONE);
    tea_sampler_spec two5 = one5;
    uint64_t n, busy, samples;
    test_stream s;
    (void)state;

    build_pipeline(&s);
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
        four_units_as_one(&s, schemes[i], PICS_JITTER_NONE, 0.01);
        four_units_as_one(&s, schemes[i], PICS_JITTER_INTERVAL, 0.03);
    }
    /* a trace shorter than the units' period (16000 units at 10: each unit's
     * period 160000, twice the trace): the units together still take a
     * point every 10 cycles, 8000 of them, evenly (no jitter) or on average */
    for (int jitter = 0; jitter < 2; jitter++) {
        tea_sampler_spec many = spec(PICS_SCHEME_IBS, 10, jitter ? PICS_JITTER_INTERVAL : PICS_JITTER_NONE);
        many.phases = 16000;
        replay_one(&s, &many, &n, &busy, &samples);
        assert_true(jitter ? n > 7600 && n < 8400 : n + 2 >= PIPE_CYCLES / 10 && n <= PIPE_CYCLES / 10);
    }
    replay_one(&s, &one20, &n, &busy, &samples);
    assert_int_equal(busy, 0);
    replay_one(&s, &one5, &n, &busy, &samples);
    assert_true(busy * 3 + 6 >= 2 * n && busy * 3 <= 2 * n + 6); /* two points in three */
    two5.phases = 2;
    replay_one(&s, &two5, &n, &busy, &samples);
    assert_true(busy * 2 + 4 >= n && busy * 2 <= n + 4); /* one in two */
    test_stream_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compute_stall_and_drain),
        cmocka_unit_test(flush_after_mispredict),
        cmocka_unit_test(ibs_tag_squashed),
        cmocka_unit_test(spe_collision),
        cmocka_unit_test(ris_mark),
        cmocka_unit_test(many_points_in_one_stall),
        cmocka_unit_test(nci_skips_exceptions),
        cmocka_unit_test(event_sets_mask_psvs),
        cmocka_unit_test(listed_points),
        cmocka_unit_test(tagger_points),
        cmocka_unit_test(window_groups),
        cmocka_unit_test(weighted_windows),
        cmocka_unit_test(scheme_table),
        cmocka_unit_test(phases_sample_at_the_run_period),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
