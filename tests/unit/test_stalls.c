/*
 * test_stalls.c: stall-length distributions (golden/stalls): the reference
 * scenario worked out by hand, the nearest-rank percentiles and the
 * histogram limit on hand-made stalls, and exact invariants on every
 * generated workload.
 */
#include "testutil.h"
#include "common/error.h"
#include "golden/golden.h"
#include "golden/stalls.h"
#include "trace/psv.h"

#include <string.h>

/* Runs the golden reference over `s` into a fresh distribution. */
static void run(const test_stream *s, unsigned initial_window, uint64_t max_length, golden_stalls *st, golden *g)
{
    golden_sink sink;
    trace_batch b = test_stream_batch(s, 0, s->count);
    assert_int_equal(golden_stalls_init(st, max_length), 0);
    sink = golden_stalls_sink(st);
    golden_init(g, initial_window);
    golden_feed(g, &b, &sink);
    golden_finish(g, &sink);
}

/* The percentile's length; `expect` is the kind it must be found as, or
 * TEA_ERR_USAGE for arguments refused. */
static uint64_t percentile(const golden_stalls *st, int group, uint64_t num, uint64_t den, int expect)
{
    uint64_t length;
    golden_stalls_percentile_kind kind;
    assert_int_equal(golden_stalls_percentile(st, group, num, den, &length, &kind), expect < 0 ? expect : TEA_OK);
    if (expect >= 0)
        assert_int_equal(kind, expect);
    return length;
}

/*
 * The scenario's stalls (the [refill, cycle) part of each interval, plus the
 * exception's own cycle; see test_topdown.c for the intervals):
 *   0x1000 base 2 (1001-1002), 0x1008 ST-L1,ST-LLC 6 (1004-1009),
 *   0x2000 DR-L1 5 (1020-1024), 0x2004 FL-EX 4 + 1 (1026-1030),
 *   0x3000 base 1 (1040), 0x3020 FL-EX 7 (1043-1049).
 * The other 9 µops commit behind the first of their cycle or right away.
 * base: 7 µops (0x1000, 0x1004, 0x3000, 0x3010-0x301c), stalls {1, 2}:
 *   p50 = 1st of 2 = 1, p90 = ceil(1.8) = 2nd = 2, mean 1.5.
 * any event: 8 µops, stalls {5, 5, 6, 7}: p50 = 2nd = 5, p90 = 4th = 7.
 * FL-EX: 2 µops, stalls {5, 7}; FL-MB: 1 µop (0x1010), no stall.
 * All stalls: 3 + 23 = 26 = stalled 25 + drained 1.
 */
static void scenario_by_hand(void **state)
{
    test_stream s;
    golden_stalls st;
    golden g;
    const golden_stalls_group *base, *any;
    (void)state;

    assert_int_equal(test_stream_read(TEA_TEST_DATA "/scenario.bin", NULL, &s), 0);
    run(&s, s.header.initial_window, GOLDEN_STALLS_DEFAULT_MAX_LENGTH, &st, &g);
    base = &st.groups[GOLDEN_STALLS_BASE];
    any = &st.groups[GOLDEN_STALLS_ANY_EVENT];
    assert_int_equal(base->uops, 7);
    assert_int_equal(base->stalls, 2);
    assert_int_equal(base->cycles, 3);
    assert_int_equal(base->longest, 2);
    assert_int_equal(base->histogram[1], 1);
    assert_int_equal(base->histogram[2], 1);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 50, 100, 0), 1);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 90, 100, 0), 2);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 999, 1000, 0), 2);
    assert_int_equal(any->uops, 8);
    assert_int_equal(any->stalls, 4);
    assert_int_equal(any->cycles, 23);
    assert_int_equal(any->longest, 7);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_ANY_EVENT, 50, 100, 0), 5);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_ANY_EVENT, 90, 100, 0), 7);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_FL_EX)].uops, 2);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_FL_EX)].stalls, 2);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_EVENT(TRACE_PSV_FL_EX), 50, 100, 0), 5);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_EVENT(TRACE_PSV_FL_EX), 99, 100, 0), 7);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_ST_L1)].cycles, 6);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_ST_LLC)].cycles, 6);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_DR_L1)].cycles, 5);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_FL_MB)].uops, 1);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_FL_MB)].stalls, 0);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_EVENT(TRACE_PSV_FL_MB), 50, 100, GOLDEN_STALLS_PERCENTILE_EMPTY), 0);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_ST_TLB)].uops, 1);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_DR_SQ)].uops, 1);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_FL_MO)].uops, 0);
    assert_int_equal(base->cycles + any->cycles,
                     golden_get_totals(&g)->states[GOLDEN_STALLED] + golden_get_totals(&g)->states[GOLDEN_DRAINED]);
    golden_stalls_free(&st);
    test_stream_free(&s);
}

/* Adds a stall of `length` cycles of a µop with `psv` as a one-µop interval. */
static void add_stall(golden_stalls *st, uint16_t psv, uint64_t length)
{
    trace_uop u = { 0x400, psv, 0, 0, 0 };
    golden_interval iv;
    memset(&iv, 0, sizeof iv);
    iv.start = iv.refill = 100;
    iv.cycle = 100 + length;
    iv.uops = &u;
    iv.n_commit = 1;
    golden_stalls_add(st, &iv);
}

/* Nearest rank on 1..100 and on 1..20 with a histogram of 10. */
static void percentiles_by_hand(void **state)
{
    golden_stalls st;
    (void)state;

    assert_int_equal(golden_stalls_init(&st, 1000), 0);
    for (uint64_t len = 100; len >= 1; len--)
        add_stall(&st, 0, len);
    add_stall(&st, 0, 0); /* a µop that did not stall */
    assert_int_equal(st.groups[GOLDEN_STALLS_BASE].uops, 101);
    assert_int_equal(st.groups[GOLDEN_STALLS_BASE].stalls, 100);
    /* rank = ceil(100 p): the p-th smallest of 1..100. */
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 50, 100, 0), 50);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 90, 100, 0), 90);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 99, 100, 0), 99);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 999, 1000, 0), 100); /* ceil(99.9) = 100 */
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 1, 1000, 0), 1);     /* ceil(0.1) = 1 */
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 0, 100, TEA_ERR_USAGE), 0);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_BASE, 101, 100, TEA_ERR_USAGE), 0);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_GROUP_COUNT, 1, 2, TEA_ERR_USAGE), 0);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_ANY_EVENT, 1, 2, GOLDEN_STALLS_PERCENTILE_EMPTY), 0);
    golden_stalls_free(&st);

    /* 1..20 with lengths above 10 beyond the histogram: p50 is the 10th
     * (10, exact), p90 the 18th (beyond: a lower bound of 11), p99.9 the
     * 20th, the longest, exact. A µop with two events is in both groups. */
    assert_int_equal(golden_stalls_init(&st, 10), 0);
    for (uint64_t len = 1; len <= 20; len++)
        add_stall(&st, (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_TLB), len);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_ST_L1)].overflow, 10);
    assert_int_equal(st.groups[GOLDEN_STALLS_EVENT(TRACE_PSV_ST_TLB)].stalls, 20);
    assert_int_equal(st.groups[GOLDEN_STALLS_ANY_EVENT].cycles, 210);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_EVENT(TRACE_PSV_ST_L1), 50, 100, 0), 10);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_EVENT(TRACE_PSV_ST_L1), 90, 100, 1), 11);
    assert_int_equal(percentile(&st, GOLDEN_STALLS_EVENT(TRACE_PSV_ST_L1), 999, 1000, 0), 20);
    golden_stalls_free(&st);

    assert_int_equal(golden_stalls_init(&st, 0), TEA_ERR_USAGE);
    assert_int_equal(golden_stalls_init(&st, (uint64_t)GOLDEN_STALLS_MAX_MAX_LENGTH + 1), TEA_ERR_USAGE);
    golden_stalls_free(&st);
    assert_string_equal(golden_stalls_group_name(GOLDEN_STALLS_BASE), "base");
    assert_string_equal(golden_stalls_group_name(GOLDEN_STALLS_ANY_EVENT), "any-event");
    assert_string_equal(golden_stalls_group_name(GOLDEN_STALLS_EVENT(TRACE_PSV_FL_MO)), "FL-MO");
}

/* Every workload: the stalls sum to the attributed Stalled and Drained
 * cycles, every committed or excepted µop after the origin is counted once
 * in base or any-event, histograms and overflow count every stall, and
 * each event's stalls are some of any-event's. */
static void invariants_on_every_workload(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        test_stream s;
        golden_stalls st;
        golden g;
        const golden_totals *t;
        uint64_t uops = 0;

        test_model_stream(names[i], 3, 60000, &s);
        run(&s, 0, 64, &st, &g);
        t = golden_get_totals(&g);
        for (size_t r = 1; r < s.count; r++)
            uops += trace_record_uops(&s.records[r]);
        assert_true(st.groups[GOLDEN_STALLS_BASE].cycles + st.groups[GOLDEN_STALLS_ANY_EVENT].cycles
                    == t->states[GOLDEN_STALLED] + t->states[GOLDEN_DRAINED] - t->unattributed);
        assert_true(st.groups[GOLDEN_STALLS_BASE].uops + st.groups[GOLDEN_STALLS_ANY_EVENT].uops == uops);
        assert_true(st.groups[GOLDEN_STALLS_BASE].stalls > 0);
        for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++) {
            const golden_stalls_group *gr = &st.groups[grp];
            uint64_t counted = gr->overflow, cycles = 0, length;
            for (uint64_t len = 1; len <= st.max_length; len++) {
                counted += gr->histogram[len];
                cycles += len * gr->histogram[len];
            }
            assert_true(counted == gr->stalls);
            assert_true(gr->overflow || cycles == gr->cycles);
            assert_true(gr->stalls <= gr->uops);
            if (grp >= GOLDEN_STALLS_FIRST_EVENT) {
                assert_true(gr->stalls <= st.groups[GOLDEN_STALLS_ANY_EVENT].stalls);
                assert_true(gr->longest <= st.groups[GOLDEN_STALLS_ANY_EVENT].longest);
            }
            /* Percentiles are ordered and the top one is the longest stall. */
            if (gr->stalls) {
                uint64_t p50, p99;
                golden_stalls_percentile_kind k50, k99, k;
                int r50 = golden_stalls_percentile(&st, grp, 50, 100, &p50, &k50);
                int r99 = golden_stalls_percentile(&st, grp, 99, 100, &p99, &k99);
                assert_true(r50 == TEA_OK && r99 == TEA_OK && k50 != GOLDEN_STALLS_PERCENTILE_EMPTY
                            && k99 != GOLDEN_STALLS_PERCENTILE_EMPTY && p50 <= p99);
                assert_int_equal(golden_stalls_percentile(&st, grp, 1, 1, &length, &k), TEA_OK);
                assert_int_equal(k, GOLDEN_STALLS_PERCENTILE_EXACT);
                assert_true(length == gr->longest);
            }
        }
        golden_stalls_free(&st);
        test_stream_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenario_by_hand),
        cmocka_unit_test(percentiles_by_hand),
        cmocka_unit_test(invariants_on_every_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
