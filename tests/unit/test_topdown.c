/*
 * test_topdown.c: the commit-state and top-down slot views (golden/topdown):
 * the reference scenario worked out by hand, whole and per function; tiny
 * hand-built streams for the frontend, memory-ordering, exception and
 * trailing-cycle rules; exact invariants on every generated workload; the
 * largest-remainder rounding.
 */
#include "testutil.h"
#include "common/error.h"
#include "golden/golden.h"
#include "golden/topdown.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

#define WIDTH 4
#define UNIT 12 /* lcm(1..4) */
#define PSV_MB (1u << TRACE_PSV_FL_MB)
#define PSV_EX (1u << TRACE_PSV_FL_EX)
#define PSV_MO (1u << TRACE_PSV_FL_MO)
#define PSV_L1_LLC ((1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC))
#define PSV_DRL1 (1u << TRACE_PSV_DR_L1)

/* Runs the analysis over records [0, count) of `s`, `step` records per
 * batch (every record once, in order). */
static golden_topdown *run(const test_stream *s, unsigned initial_window, const golden_topdown_options *base,
                           size_t step)
{
    golden_topdown_options o = *base;
    golden_topdown *td;
    o.initial_window = initial_window;
    assert_int_equal(golden_topdown_create(&td, &o), 0);
    for (size_t first = 0; first < s->count; first += step) {
        size_t n = s->count - first < step ? s->count - first : step;
        trace_batch b = test_stream_batch(s, first, n);
        assert_int_equal(golden_topdown_feed(td, &b), 0);
    }
    assert_int_equal(golden_topdown_finish(td), 0);
    return td;
}

/* The value of one component of a category (0 when absent). */
static uint64_t component(const golden_topdown *td, long scope, enum golden_topdown_view view, unsigned category,
                          unsigned psv)
{
    const golden_topdown_component *c;
    size_t n = golden_topdown_get_components(td, scope, view, category, &c);
    for (size_t i = 0; i < n; i++)
        if (c[i].psv == psv)
            return c[i].value;
    return 0;
}

static size_t component_count(const golden_topdown *td, long scope, enum golden_topdown_view view, unsigned category)
{
    const golden_topdown_component *c;
    return golden_topdown_get_components(td, scope, view, category, &c);
}

static void assert_states(const golden_topdown_counts *c, uint64_t compute, uint64_t stalled, uint64_t drained,
                          uint64_t flushed)
{
    assert_int_equal(c->states[GOLDEN_COMPUTE], compute);
    assert_int_equal(c->states[GOLDEN_STALLED], stalled);
    assert_int_equal(c->states[GOLDEN_DRAINED], drained);
    assert_int_equal(c->states[GOLDEN_FLUSHED], flushed);
}

/* Level 2: frontend latency/bandwidth, bad speculation branch/clears,
 * backend memory/core. */
static void assert_level2(const golden_topdown_counts *c, uint64_t latency, uint64_t bandwidth, uint64_t branches,
                          uint64_t clears, uint64_t memory, uint64_t core)
{
    assert_int_equal(c->level2[GOLDEN_TOPDOWN_FETCH_LATENCY], latency);
    assert_int_equal(c->level2[GOLDEN_TOPDOWN_FETCH_BANDWIDTH], bandwidth);
    assert_int_equal(c->level2[GOLDEN_TOPDOWN_BRANCH_MISPREDICTS], branches);
    assert_int_equal(c->level2[GOLDEN_TOPDOWN_MACHINE_CLEARS], clears);
    assert_int_equal(c->level2[GOLDEN_TOPDOWN_MEMORY_BOUND], memory);
    assert_int_equal(c->level2[GOLDEN_TOPDOWN_CORE_BOUND], core);
}

/* Each level-2 pair sums to its level-1 parent. */
static void check_level2_sums(const golden_topdown_counts *c)
{
    uint64_t sum[GOLDEN_TOPDOWN_CATEGORY_COUNT] = { 0 };
    for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++)
        sum[golden_topdown_level2_parent((enum golden_topdown_level2)k)] += c->level2[k];
    assert_true(sum[GOLDEN_TOPDOWN_RETIRING] == 0);
    for (int k = GOLDEN_TOPDOWN_BAD_SPECULATION; k < GOLDEN_TOPDOWN_CATEGORY_COUNT; k++)
        assert_true(sum[k] == c->slots[k]);
}

static void assert_slots(const golden_topdown_counts *c, uint64_t retiring, uint64_t bad, uint64_t frontend,
                         uint64_t backend)
{
    assert_int_equal(c->slots[GOLDEN_TOPDOWN_RETIRING], retiring);
    assert_int_equal(c->slots[GOLDEN_TOPDOWN_BAD_SPECULATION], bad);
    assert_int_equal(c->slots[GOLDEN_TOPDOWN_FRONTEND_BOUND], frontend);
    assert_int_equal(c->slots[GOLDEN_TOPDOWN_BACKEND_BOUND], backend);
}

/* A symbol map of the scenario's code as a locator: f1 holds 0x1000-0x100c,
 * f2 0x1010 and 0x2000, f3 0x3000-0x301c; 0x2004 and 0x3020 are outside. */
static long scenario_locate(void *ctx, uint64_t pc)
{
    (void)ctx;
    if (pc >= 0x1000 && pc < 0x1010)
        return 0;
    if (pc >= 0x1010 && pc < 0x2004)
        return 1;
    if (pc >= 0x3000 && pc < 0x3020)
        return 2;
    return -1;
}

/*
 * The scenario (tests/data/scenario.decoded.txt, 4-wide, cycles 1001..1050)
 * interval by interval, as docs/semantics.md charges it:
 *
 *   1003  0x1000,0x1004 commit (n=2); 1001-1002 Stalled on 0x1000 (base)
 *   1010  0x1008 (ST-L1,ST-LLC) commits; 1004-1009 Stalled on it (6)
 *   1011  0x100c (ST-L1,ST-LLC), 0x1010 (FL-MB) commit (n=2)
 *   1025  0x2000 (DR-L1) commits; 1012-1019 Flushed on 0x1010 (8), refill at
 *         1020, 1020-1024 Stalled on 0x2000 (5)
 *   1030  0x2004 (FL-EX) excepts; 1026-1029 and 1030 itself Stalled on it (5)
 *   1041  0x3000 (base), 0x3004 (ST-TLB), 0x3008 (DR-SQ) commit; 1031-1039
 *         Flushed on 0x2004 (9), refill at 1040, 1040 Stalled on 0x3000 (1)
 *   1042  0x3010-0x301c (base) commit (n=4)
 *   1050  0x3020 (FL-EX) commits; 1043 Drained (ROB empty), 1044-1049
 *         Stalled on it (6)
 *
 * States: compute 7, stalled 25 = base 3 + ST-L1,ST-LLC 6 + DR-L1 5 +
 * FL-EX 11, drained 1 = FL-EX 1, flushed 17 = FL-MB 8 + FL-EX 9.
 *
 * Slots (4 per cycle, 200): retiring = the 14 commits (base 7: 0x1000,
 * 0x1004, 0x3000, 0x3010-0x301c; ST-L1,ST-LLC 2; FL-MB, DR-L1, ST-TLB,
 * DR-SQ, FL-EX one each). The other slots of each cycle:
 *   Flushed cycles: 17 x 4 = 68 bad speculation (FL-MB 32, FL-EX 36);
 *   the exception cycle 1030: 4 bad speculation (FL-EX);
 *   1011 commits 2 and its last µop is a mispredicted branch: 2 bad spec
 *   (FL-MB); 1050 commits 1 and flushes: 3 bad spec (FL-EX);
 *   so bad speculation = 68 + 4 + 2 + 3 = 77 (FL-MB 34, FL-EX 43);
 *   Drained 1043: 4 frontend bound (FL-EX, the µop it waits for);
 *   Stalled cycles but 1030: 24 x 4 = 96 backend bound, plus the unused
 *   slots of compute cycles whose ROB still held entries, charged to the
 *   next µop: 1003 (2, to 0x1008), 1010 (3, to 0x100c), 1025 (3, to 0x2004),
 *   1041 (1, to 0x3010): backend = 96 + 9 = 105, by component base 3x4+1 =
 *   13, ST-L1,ST-LLC 6x4+2+3 = 29, DR-L1 5x4 = 20, FL-EX 10x4+3 = 43.
 * 14 + 77 + 4 + 105 = 200.
 * Level 2: frontend 4 is all a Drained cycle's: fetch latency 4, bandwidth
 * 0; bad speculation: FL-MB 34 branch mispredicts, FL-EX 43 machine clears;
 * backend: ST-L1,ST-LLC 29 memory bound, base 13 + DR-L1 20 + FL-EX 43 = 76
 * core bound.
 */
static void scenario_by_hand(void **state)
{
    test_stream s;
    golden_topdown_options o = { WIDTH, 0, 0, NULL, NULL };
    golden_topdown *td;
    const golden_topdown_summary *sum;
    const golden_topdown_counts *w;
    (void)state;

    assert_int_equal(test_stream_read(TEA_TEST_DATA "/scenario.bin", NULL, &s), 0);
    assert_int_equal(s.header.commit_width, WIDTH);
    td = run(&s, s.header.initial_window, &o, s.count);
    sum = golden_topdown_get_summary(td);
    assert_int_equal(sum->cycles, 50);
    assert_int_equal(sum->slots, 200);
    assert_int_equal(sum->origin, 1000);
    assert_int_equal(sum->last_cycle, 1050);
    assert_int_equal(sum->commits, 14);
    assert_int_equal(sum->exceptions, 1);
    assert_int_equal(sum->unattributed, 0);
    /* Entries: nine dispatching tokens of one row each; squashed: the row
     * dispatched at 1005 (gone by 1008) and the two entries behind the
     * exception at 1030. */
    assert_int_equal(sum->dispatched, 36);
    assert_int_equal(sum->squashed, 6);
    assert_int_equal(golden_topdown_scope_count(td), 0);

    w = golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE);
    assert_int_equal(w->state_unit, 1);
    assert_states(w, 7, 25, 1, 17);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, 0), 3);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, PSV_L1_LLC), 6);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, PSV_DRL1), 5);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, PSV_EX), 11);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED), 4);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_DRAINED, PSV_EX), 1);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_DRAINED), 1);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_FLUSHED, PSV_MB), 8);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_FLUSHED, PSV_EX), 9);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_FLUSHED), 2);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_COMPUTE), 0);
    {
        /* Largest first: FL-EX 11, ST-L1,ST-LLC 6, DR-L1 5, base 3. */
        const golden_topdown_component *c;
        assert_int_equal(
            golden_topdown_get_components(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, &c), 4);
        assert_int_equal(c[0].psv, PSV_EX);
        assert_int_equal(c[1].psv, PSV_L1_LLC);
        assert_int_equal(c[2].psv, PSV_DRL1);
        assert_int_equal(c[3].psv, 0);
    }

    assert_slots(w, 14, 77, 4, 105);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING, 0), 7);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING, PSV_L1_LLC), 2);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING, PSV_EX),
                     1);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING), 7);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BAD_SPECULATION, PSV_MB), 34);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BAD_SPECULATION, PSV_EX), 43);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_FRONTEND_BOUND, PSV_EX), 4);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, 0),
                     13);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, PSV_L1_LLC), 29);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, PSV_DRL1), 20);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, PSV_EX), 43);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND),
                     4);
    assert_level2(w, 4, 0, 34, 43, 29, 76);
    golden_topdown_free(td);
    test_stream_free(&s);
}

/*
 * The scenario per function (scenario_locate), in twelfths of a cycle:
 *   f1 (0x1000-0x100c): compute 1/2+1/2 (1003) + 1 (1010) + 1/2 (1011) =
 *       5/2 = 30; stalled 2 + 6 = 8; slots: retiring 4, backend 2x4 + 6x4 +
 *       2 (1003's unused, to 0x1008) + 3 (1010's, to 0x100c) = 37.
 *   f2 (0x1010, 0x2000): compute 1/2 + 1 = 18; stalled 5; flushed 8;
 *       slots: retiring 2, bad speculation 8x4 + 2 = 34, backend 5x4 = 20.
 *   f3 (0x3000-0x301c): compute 3x1/3 + 4x1/4 = 2 = 24; stalled 1;
 *       slots: retiring 7, backend 4 + 1 (1041's unused, to 0x3010) = 5.
 *   outside (0x2004, 0x3020): compute 1 = 12; stalled 5 + 6 = 11; drained
 *       1; flushed 9; slots: retiring 1, bad speculation 36 + 4 + 3 = 43,
 *       frontend 4, backend 4x4 + 3 (1025's, to 0x2004) + 6x4 = 43.
 */
static void scenario_per_function(void **state)
{
    test_stream s;
    golden_topdown_options o = { WIDTH, 0, 3, scenario_locate, NULL };
    golden_topdown *td;
    (void)state;

    assert_int_equal(test_stream_read(TEA_TEST_DATA "/scenario.bin", NULL, &s), 0);
    td = run(&s, s.header.initial_window, &o, s.count);
    assert_int_equal(golden_topdown_scope_count(td), 5);
    assert_int_equal(golden_topdown_get_counts(td, 0)->state_unit, UNIT);
    assert_states(golden_topdown_get_counts(td, 0), 30, 8 * UNIT, 0, 0);
    assert_slots(golden_topdown_get_counts(td, 0), 4, 0, 0, 37);
    assert_states(golden_topdown_get_counts(td, 1), 18, 5 * UNIT, 0, 8 * UNIT);
    assert_slots(golden_topdown_get_counts(td, 1), 2, 34, 0, 20);
    assert_states(golden_topdown_get_counts(td, 2), 24, 1 * UNIT, 0, 0);
    assert_slots(golden_topdown_get_counts(td, 2), 7, 0, 0, 5);
    assert_states(golden_topdown_get_counts(td, 3), 12, 11 * UNIT, 1 * UNIT, 9 * UNIT);
    assert_slots(golden_topdown_get_counts(td, 3), 1, 43, 4, 43);
    assert_states(golden_topdown_get_counts(td, 4), 0, 0, 0, 0);
    assert_slots(golden_topdown_get_counts(td, 4), 0, 0, 0, 0);
    assert_null(golden_topdown_get_counts(td, 5));
    /* Components per function: f1's backend slots are all ST-L1,ST-LLC but
     * the 8 of 0x1000's stall; the outside scope's stalled cycles FL-EX. */
    assert_int_equal(component(td, 0, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, 0), 8);
    assert_int_equal(component(td, 0, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, PSV_L1_LLC), 29);
    assert_int_equal(component(td, 1, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_FLUSHED, PSV_MB), 8 * UNIT);
    assert_int_equal(component(td, 3, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, PSV_EX), 11 * UNIT);
    assert_int_equal(component(td, 3, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BAD_SPECULATION, PSV_EX), 43);
    assert_int_equal(component_count(td, 2, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING),
                     3); /* base, ST-TLB, DR-SQ */
    /* The whole trace is the same as without functions. */
    assert_states(golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE), 7, 25, 1, 17);
    assert_slots(golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE), 14, 77, 4, 105);
    golden_topdown_free(td);
    test_stream_free(&s);
}

static void append(test_stream *s, uint64_t cycle, unsigned n, const uint16_t *psv, uint8_t flags, unsigned retire,
                   unsigned squash, unsigned dispatch)
{
    trace_record r;
    trace_uop u[TRACE_MAX_RECORD_UOPS];
    unsigned uops = n + ((flags & TRACE_REC_EXCEPTION) ? 1u : 0u);
    memset(&r, 0, sizeof r);
    memset(u, 0, sizeof u);
    for (unsigned i = 0; i < uops; i++) {
        u[i].pc = 0x100 + 4 * (cycle * 8 + i);
        u[i].psv = psv[i];
        u[i].offset = (uint8_t)i;
    }
    r.cycle = cycle;
    r.n_commit = (uint8_t)n;
    r.flags = flags;
    r.retire = (uint8_t)retire;
    r.squash = (uint16_t)squash;
    r.dispatch = (uint16_t)dispatch;
    test_stream_append(s, &r, u);
}

/*
 * The ROB running dry, and a memory-ordering refetch (4-wide, ROB empty at
 * first):
 *   0  origin, dispatches 2 entries
 *   3  two base µops commit, the ROB is empty after them
 *   6  dispatches 1
 *   8  a µop with FL-MO commits (ROB empty again)
 *  10  dispatches 1
 *  12  a base µop commits (ROB empty)
 * States: 1-2 Stalled (ROB 2), 4-6 Drained and 7 Stalled (waiting for the
 * FL-MO µop), 9-10 Drained and 11 Stalled: compute 3, stalled 4 (base 3,
 * FL-MO 1), drained 5 (FL-MO 3, base 2).
 * Slots (48): retiring 4 (base 3, FL-MO 1). Backend: 1-2, 7, 11 = 16
 * (base 12, FL-MO 4). The unused slots of 3 (2), 8 (3) and 12 (3) find
 * the ROB empty: frontend bound, charged to the next µop. The FL-MO µop's
 * frontend slots (its 3 drained cycles and 3's 2 slots = 14) are recovery
 * from the memory-ordering flush: bad speculation. Frontend: 8's 3 and the
 * 2 drained cycles x 4 (base 11), and 12's 3 with no next µop (charged to
 * nobody): 14. 4 + 14 + 14 + 16 = 48.
 * Level 2: fetch latency = the 2 drained cycles x 4 = 8 (whole cycles with
 * nothing to commit), fetch bandwidth = the rest of rows 8 and 12 = 6; the
 * 14 bad speculation slots are machine clears (FL-MO); backend all core
 * bound (no memory event).
 */
static void frontend_and_memory_ordering(void **state)
{
    static const uint16_t base[2] = { 0, 0 }, mo[1] = { PSV_MO };
    test_stream s;
    golden_topdown_options o = { WIDTH, 0, 0, NULL, NULL };
    golden_topdown *td;
    const golden_topdown_counts *w;
    (void)state;

    test_stream_init(&s);
    append(&s, 0, 0, NULL, 0, 0, 0, 2);
    append(&s, 3, 2, base, 0, 2, 0, 0);
    append(&s, 6, 0, NULL, 0, 0, 0, 1);
    append(&s, 8, 1, mo, 0, 1, 0, 0);
    append(&s, 10, 0, NULL, 0, 0, 0, 1);
    append(&s, 12, 1, base, 0, 1, 0, 0);
    td = run(&s, 0, &o, 1);
    w = golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE);
    assert_states(w, 3, 4, 5, 0);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, 0), 3);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, PSV_MO), 1);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_DRAINED, PSV_MO), 3);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_DRAINED, 0), 2);
    assert_slots(w, 4, 14, 14, 16);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BAD_SPECULATION, PSV_MO), 14);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_FRONTEND_BOUND, 0),
                     11);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_FRONTEND_BOUND,
                               GOLDEN_TOPDOWN_NO_UOP),
                     3);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, 0),
                     12);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND, PSV_MO), 4);
    assert_level2(w, 8, 6, 0, 14, 0, 16);
    assert_int_equal(golden_topdown_get_summary(td)->unattributed, 0);
    golden_topdown_free(td);
    test_stream_free(&s);
}

/*
 * An exception in a cycle that also commits (4-wide, ROB empty at first):
 *   0  origin, dispatches 4
 *   2  a base µop commits and the next excepts (FL-EX); 2 entries retire,
 *      2 are squashed
 *   5  refill: dispatches 4
 *   6  four base µops commit
 * States: 1 Stalled (on the base µop), 2 Compute, 3-4 Flushed (on the
 * excepting µop), 5 Drained (the refill cycle starts with an empty ROB), 6
 * Compute: 2/1/1/2. Slots (24): retiring 5; backend 4 (cycle 1); cycle 2's
 * 3 unused slots are lost to the exception's flush: bad speculation 3 +
 * 2 x 4 = 11 (FL-EX); frontend 4 (cycle 5, base).
 */
static void exception_with_commits(void **state)
{
    static const uint16_t one_then_exception[2] = { 0, PSV_EX }, four[4] = { 0, 0, 0, 0 };
    test_stream s;
    golden_topdown_options o = { WIDTH, 0, 0, NULL, NULL };
    golden_topdown *td;
    const golden_topdown_summary *sum;
    (void)state;

    test_stream_init(&s);
    append(&s, 0, 0, NULL, 0, 0, 0, 4);
    append(&s, 2, 1, one_then_exception, TRACE_REC_EXCEPTION, 2, 2, 0);
    append(&s, 5, 0, NULL, TRACE_REC_REFILL, 0, 0, 4);
    append(&s, 6, 4, four, 0, 4, 0, 0);
    td = run(&s, 0, &o, 2);
    assert_states(golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE), 2, 1, 1, 2);
    assert_slots(golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE), 5, 11, 4, 4);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BAD_SPECULATION, PSV_EX), 11);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_FLUSHED, PSV_EX), 2);
    sum = golden_topdown_get_summary(td);
    assert_int_equal(sum->commits, 5);
    assert_int_equal(sum->exceptions, 1);
    assert_int_equal(sum->dispatched, 8);
    assert_int_equal(sum->squashed, 2);
    golden_topdown_free(td);
    test_stream_free(&s);
}

/* A PC's "function" is its 64-byte block number modulo 8, of which 7 is
 * outside every function: seven functions and some PCs outside them. */
static long block_locate(void *ctx, uint64_t pc)
{
    long f = (long)((pc >> 6) % 8);
    (void)ctx;
    return f == 7 ? -1 : f;
}

/*
 * After the last commit (4-wide): a mispredicted branch commits at 5 after
 * 4 Stalled cycles, its flush window runs to the refill at 8, then 8-10
 * wait for a µop that never commits. States: compute 1, stalled 4 + 3,
 * flushed 2. Slots (40): retiring 1; backend 16 (FL-MB) + 12 charged to
 * nobody; bad speculation 3 (the branch's row) + 8. Per function the last
 * 3 cycles go to the unattributed scope.
 */
static void trailing_cycles(void **state)
{
    static const uint16_t branch[1] = { PSV_MB };
    test_stream s;
    golden_topdown_options o = { WIDTH, 0, 7, block_locate, NULL };
    golden_topdown *td;
    const golden_topdown_counts *unattributed;
    (void)state;

    test_stream_init(&s);
    append(&s, 0, 0, NULL, 0, 0, 0, 4);
    append(&s, 5, 1, branch, 0, 1, 0, 0);
    append(&s, 8, 0, NULL, TRACE_REC_REFILL, 0, 0, 0);
    append(&s, 10, 0, NULL, 0, 0, 0, 0);
    td = run(&s, 4, &o, 3);
    assert_states(golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE), 1, 7, 0, 2);
    assert_slots(golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE), 1, 11, 0, 28);
    assert_int_equal(component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_BACKEND_BOUND,
                               GOLDEN_TOPDOWN_NO_UOP),
                     12);
    assert_int_equal(
        component(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, GOLDEN_STALLED, GOLDEN_TOPDOWN_NO_UOP), 3);
    assert_int_equal(golden_topdown_get_summary(td)->unattributed, 3);
    assert_int_equal(golden_topdown_scope_count(td), 9);
    unattributed = golden_topdown_get_counts(td, 8);
    assert_states(unattributed, 0, 3 * UNIT, 0, 0);
    assert_slots(unattributed, 0, 0, 0, 12);
    golden_topdown_free(td);
    test_stream_free(&s);
}

/* Sums one view over the scopes. */
static void check_scopes_sum_to_whole(const golden_topdown *td)
{
    const golden_topdown_counts *w = golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE);
    size_t scopes = golden_topdown_scope_count(td);
    for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++) {
        uint64_t states = 0, slots = 0;
        for (size_t sc = 0; sc < scopes; sc++) {
            const golden_topdown_counts *c = golden_topdown_get_counts(td, (long)sc);
            states += c->states[k];
            slots += c->slots[k];
            /* Components of a scope sum to its category (compute: unsplit). */
            if (k != GOLDEN_COMPUTE) {
                const golden_topdown_component *comp;
                size_t n = golden_topdown_get_components(td, (long)sc, GOLDEN_TOPDOWN_VIEW_STATES, (unsigned)k, &comp);
                uint64_t sum = 0;
                for (size_t i = 0; i < n; i++)
                    sum += comp[i].value;
                assert_true(sum == c->states[k]);
            }
            {
                const golden_topdown_component *comp;
                size_t n = golden_topdown_get_components(td, (long)sc, GOLDEN_TOPDOWN_VIEW_SLOTS, (unsigned)k, &comp);
                uint64_t sum = 0;
                for (size_t i = 0; i < n; i++)
                    sum += comp[i].value;
                assert_true(sum == c->slots[k]);
            }
        }
        assert_true(states == w->states[k] * UNIT);
        assert_true(slots == w->slots[k]);
    }
}

/* Every workload: the states are the golden reference's and sum to the span,
 * the slots sum to W x span, retiring slots are the commits, components sum
 * to their categories, the functions to the whole trace, and the result does
 * not depend on how the records are batched. */
static void invariants_on_every_workload(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        test_stream s;
        golden g;
        trace_batch b;
        golden_topdown_options o = { 0, 0, 7, block_locate, NULL };
        golden_topdown *td, *one_by_one;
        const golden_topdown_counts *w;
        const golden_topdown_summary *sum;
        const golden_totals *gt;
        uint64_t span, states = 0, slots = 0;

        test_model_stream(names[i], 11, 60000, &s);
        assert_int_equal(s.header.commit_width, WIDTH);
        o.commit_width = s.header.commit_width;
        td = run(&s, 0, &o, s.count);
        one_by_one = run(&s, 0, &o, 1);
        golden_init(&g, 0);
        b = test_stream_batch(&s, 0, s.count);
        golden_feed(&g, &b, NULL);
        golden_finish(&g, NULL);
        gt = golden_get_totals(&g);
        span = s.records[s.count - 1].cycle - s.records[0].cycle;
        w = golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE);
        sum = golden_topdown_get_summary(td);
        for (int k = 0; k < GOLDEN_STATE_COUNT; k++) {
            assert_true(w->states[k] == gt->states[k]);
            states += w->states[k];
            slots += w->slots[k];
        }
        assert_true(states == span);
        assert_true(sum->cycles == span);
        assert_true(slots == span * WIDTH);
        assert_true(sum->slots == slots);
        assert_true(w->slots[GOLDEN_TOPDOWN_RETIRING] == sum->commits);
        assert_true(w->slots[GOLDEN_TOPDOWN_RETIRING] > 0 && w->slots[GOLDEN_TOPDOWN_BACKEND_BOUND] > 0);
        check_scopes_sum_to_whole(td);
        check_level2_sums(w);
        for (size_t sc = 0; sc < golden_topdown_scope_count(td); sc++)
            check_level2_sums(golden_topdown_get_counts(td, (long)sc));
        /* Whole-trace components sum to their categories. */
        for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT; v++) {
            for (unsigned k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++) {
                const golden_topdown_component *comp;
                size_t n =
                    golden_topdown_get_components(td, GOLDEN_TOPDOWN_WHOLE, (enum golden_topdown_view)v, k, &comp);
                uint64_t csum = 0;
                if (v == GOLDEN_TOPDOWN_VIEW_STATES && k == GOLDEN_COMPUTE)
                    continue;
                for (size_t j = 0; j < n; j++) {
                    csum += comp[j].value;
                    if (j)
                        assert_true(comp[j - 1].value >= comp[j].value);
                }
                assert_true(csum == (v == GOLDEN_TOPDOWN_VIEW_STATES ? w->states[k] : w->slots[k]));
            }
        }
        /* Batching does not matter. */
        assert_memory_equal(golden_topdown_get_counts(one_by_one, GOLDEN_TOPDOWN_WHOLE), w, sizeof *w);
        assert_memory_equal(golden_topdown_get_summary(one_by_one), sum, sizeof *sum);
        for (size_t sc = 0; sc < golden_topdown_scope_count(td); sc++)
            assert_memory_equal(golden_topdown_get_counts(one_by_one, (long)sc),
                                golden_topdown_get_counts(td, (long)sc), sizeof *w);
        golden_topdown_free(td);
        golden_topdown_free(one_by_one);
        test_stream_free(&s);
    }
}

/*
 * Window groups: on every workload, the trace cut into seven windows at
 * arbitrary cycles and kept in three groups, the groups' counts sum to the
 * whole trace's (states, slots, level 2), whatever the batching, and each
 * group holds only its windows: with one window per group (three windows),
 * a group's compute cycles are the commit cycles of its window, counted
 * from the records.
 */
static void window_groups(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        test_stream s;
        golden_topdown_options o = { 0, 0, 0, NULL, NULL };
        uint64_t ends[7], first, span;
        golden_topdown *td;
        const golden_topdown_counts *w, *g;
        unsigned count;

        test_model_stream(names[i], 5, 30000, &s);
        o.commit_width = s.header.commit_width;
        first = s.records[0].cycle;
        span = s.records[s.count - 1].cycle - first;
        for (size_t k = 0; k < 7; k++)
            ends[k] = first + span * (k * k + 1) / 50; /* uneven windows, the last one ending early */
        for (size_t step = 1; step <= s.count; step = step == 1 ? s.count : s.count + 1) {
            golden_topdown_options oo = o;
            assert_int_equal(golden_topdown_create(&td, &oo), 0);
            assert_int_equal(golden_topdown_group_windows(td, ends, 7, 3), 0);
            for (size_t at = 0; at < s.count; at += step) {
                size_t n = s.count - at < step ? s.count - at : step;
                trace_batch b = test_stream_batch(&s, at, n);
                assert_int_equal(golden_topdown_feed(td, &b), 0);
            }
            assert_int_equal(golden_topdown_finish(td), 0);
            w = golden_topdown_get_counts(td, GOLDEN_TOPDOWN_WHOLE);
            g = golden_topdown_get_group_counts(td, &count);
            assert_int_equal(count, 3);
            for (int k = 0; k < GOLDEN_STATE_COUNT; k++)
                assert_true(g[0].states[k] + g[1].states[k] + g[2].states[k] == w->states[k]);
            for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORY_COUNT; k++)
                assert_true(g[0].slots[k] + g[1].slots[k] + g[2].slots[k] == w->slots[k]);
            for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++)
                assert_true(g[0].level2[k] + g[1].level2[k] + g[2].level2[k] == w->level2[k]);
            golden_topdown_free(td);
        }
        /* three windows in three groups: compute cycles are commit cycles */
        {
            uint64_t commit_cycles[3] = { 0, 0, 0 };
            assert_int_equal(golden_topdown_create(&td, &o), 0);
            assert_int_equal(golden_topdown_group_windows(td, ends + 2, 3, 3), 0);
            {
                trace_batch b = test_stream_batch(&s, 0, s.count);
                assert_int_equal(golden_topdown_feed(td, &b), 0);
            }
            assert_int_equal(golden_topdown_finish(td), 0);
            for (size_t r = 1; r < s.count; r++) {
                size_t k = 0;
                if (!s.records[r].n_commit)
                    continue;
                while (k < 2 && s.records[r].cycle > ends[2 + k])
                    k++;
                commit_cycles[k]++;
            }
            g = golden_topdown_get_group_counts(td, &count);
            for (size_t k = 0; k < 3; k++)
                assert_true(g[k].states[GOLDEN_COMPUTE] == commit_cycles[k]);
            golden_topdown_free(td);
        }
        assert_int_equal(golden_topdown_create(&td, &o), 0);
        assert_int_equal(golden_topdown_group_windows(td, ends, 7, 1), TEA_ERR_USAGE);
        assert_int_equal(golden_topdown_group_windows(td, ends, 2, 3), TEA_ERR_USAGE);
        golden_topdown_free(td);
        test_stream_free(&s);
    }
}

/*
 * Weighted windows: on every workload cut into seven windows of weights
 * 1..7 (the 2nd window 13), every whole-trace count (states, slots, level
 * 2) is the weighted sum of the windows' counts taken as seven groups of
 * one window, and the summary's cycles are the weighted states' sum.
 */
static void weighted_windows(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    static const uint64_t weights[7] = { 1, 13, 3, 4, 5, 6, 7 };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        test_stream s;
        golden_topdown_options o = { 0, 0, 0, NULL, NULL };
        uint64_t ends[7], first, span, cycles = 0;
        golden_topdown *grouped, *weighted;
        const golden_topdown_counts *w, *g;
        trace_batch b;
        unsigned count;

        test_model_stream(names[i], 5, 30000, &s);
        o.commit_width = s.header.commit_width;
        first = s.records[0].cycle;
        span = s.records[s.count - 1].cycle - first;
        for (size_t k = 0; k < 7; k++)
            ends[k] = first + span * (k * k + 1) / 50;
        b = test_stream_batch(&s, 0, s.count);
        assert_int_equal(golden_topdown_create(&grouped, &o), 0);
        assert_int_equal(golden_topdown_group_windows(grouped, ends, 7, 7), 0);
        assert_int_equal(golden_topdown_feed(grouped, &b), 0);
        assert_int_equal(golden_topdown_finish(grouped), 0);
        assert_int_equal(golden_topdown_create(&weighted, &o), 0);
        assert_int_equal(golden_topdown_weight_windows(weighted, ends, weights, 7), 0);
        assert_int_equal(golden_topdown_feed(weighted, &b), 0);
        assert_int_equal(golden_topdown_finish(weighted), 0);
        w = golden_topdown_get_counts(weighted, GOLDEN_TOPDOWN_WHOLE);
        g = golden_topdown_get_group_counts(grouped, &count);
        assert_int_equal(count, 7);
        for (int k = 0; k < GOLDEN_STATE_COUNT; k++) {
            uint64_t sum = 0;
            for (unsigned j = 0; j < 7; j++)
                sum += weights[j] * g[j].states[k];
            assert_true(w->states[k] == sum);
            cycles += sum;
        }
        for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORY_COUNT; k++) {
            uint64_t sum = 0;
            for (unsigned j = 0; j < 7; j++)
                sum += weights[j] * g[j].slots[k];
            assert_true(w->slots[k] == sum);
        }
        for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++) {
            uint64_t sum = 0;
            for (unsigned j = 0; j < 7; j++)
                sum += weights[j] * g[j].level2[k];
            assert_true(w->level2[k] == sum);
        }
        assert_true(golden_topdown_get_summary(weighted)->cycles == cycles);
        {
            /* every cycle's W slots count where the cycle does */
            uint64_t slots = 0;
            for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORY_COUNT; k++)
                slots += w->slots[k];
            assert_true(slots == golden_topdown_get_summary(weighted)->slots);
        }
        assert_true(golden_topdown_get_summary(grouped)->cycles == span);
        assert_int_equal(golden_topdown_get_summary(weighted)->commits, golden_topdown_get_summary(grouped)->commits);
        golden_topdown_free(grouped);
        golden_topdown_free(weighted);
        test_stream_free(&s);
    }
    {
        golden_topdown *td;
        golden_topdown_options o = { 4, 0, 0, NULL, NULL };
        const uint64_t ends[2] = { 10, 20 }, zero[2] = { 1, 0 }, heavy[2] = { 1ull << 60, 1ull << 60 };
        test_stream s;
        trace_batch b;
        assert_int_equal(golden_topdown_create(&td, &o), 0);
        assert_int_equal(golden_topdown_weight_windows(td, ends, zero, 2), TEA_ERR_USAGE);
        assert_int_equal(golden_topdown_weight_windows(td, ends, zero, 0), TEA_ERR_USAGE);
        golden_topdown_free(td);
        /* windows ending before the first record, and weights whose counts
         * overflow, are refused at the first batch */
        test_model_stream("mixed", 5, 3000, &s);
        o.commit_width = s.header.commit_width;
        b = test_stream_batch(&s, 0, s.count);
        assert_int_equal(golden_topdown_create(&td, &o), 0);
        {
            /* the trace from record 10 on, its window ending at record 5's cycle */
            const uint64_t early[1] = { s.records[5].cycle };
            trace_batch late = test_stream_batch(&s, 10, s.count - 10);
            assert_true(s.records[5].cycle < s.records[10].cycle);
            assert_int_equal(golden_topdown_weight_windows(td, early, zero, 1), 0);
            assert_int_equal(golden_topdown_feed(td, &late), TEA_ERR_FORMAT);
        }
        golden_topdown_free(td);
        assert_int_equal(golden_topdown_create(&td, &o), 0);
        {
            const uint64_t at[2] = { s.records[s.count / 2].cycle, s.records[s.count - 1].cycle };
            assert_int_equal(golden_topdown_weight_windows(td, at, heavy, 2), 0);
            assert_int_equal(golden_topdown_feed(td, &b), TEA_ERR_UNSUPPORTED);
        }
        golden_topdown_free(td);
        test_stream_free(&s);
    }
}

static void unit_and_errors(void **state)
{
    golden_topdown *td = NULL;
    golden_topdown_options o = { 0, 0, 0, NULL, NULL };
    (void)state;
    assert_int_equal(golden_topdown_unit(1), 1);
    assert_int_equal(golden_topdown_unit(4), 12);
    assert_int_equal(golden_topdown_unit(8), 840);
    assert_int_equal(golden_topdown_unit(16), 720720);
    assert_int_equal(golden_topdown_unit(0), 0);
    assert_int_equal(golden_topdown_unit(17), 0);
    assert_int_equal(golden_topdown_create(&td, &o), TEA_ERR_USAGE);
    assert_null(td);
    o.commit_width = 17;
    assert_int_equal(golden_topdown_create(&td, &o), TEA_ERR_USAGE);
    assert_string_equal(golden_topdown_category_name(GOLDEN_TOPDOWN_BAD_SPECULATION), "bad_speculation");
    assert_string_equal(golden_topdown_level2_name(GOLDEN_TOPDOWN_FETCH_LATENCY), "Frontend_Bound.Fetch_Latency");
    assert_string_equal(golden_topdown_level2_name(GOLDEN_TOPDOWN_CORE_BOUND), "Backend_Bound.Core_Bound");
    assert_string_equal(golden_topdown_level2_name(GOLDEN_TOPDOWN_LEVEL2_COUNT), "?");
    assert_int_equal(golden_topdown_level2_parent(GOLDEN_TOPDOWN_MACHINE_CLEARS), GOLDEN_TOPDOWN_BAD_SPECULATION);
    /* An empty trace: nothing anywhere, no components. */
    o.commit_width = WIDTH;
    assert_int_equal(golden_topdown_create(&td, &o), 0);
    assert_int_equal(golden_topdown_finish(td), 0);
    assert_int_equal(golden_topdown_get_summary(td)->cycles, 0);
    assert_int_equal(golden_topdown_get_summary(td)->slots, 0);
    assert_int_equal(component_count(td, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING), 0);
    assert_int_equal(component_count(td, 0, GOLDEN_TOPDOWN_VIEW_SLOTS, GOLDEN_TOPDOWN_RETIRING), 0);
    assert_null(golden_topdown_get_counts(td, 0));
    golden_topdown_free(td);
    golden_topdown_free(NULL);
}

/* Largest remainders: results are floors or ceilings and add up exactly. */
static void apportion(void **state)
{
    uint64_t out[8];
    static const uint64_t thirds[3] = { 1, 1, 1 }, uneven[4] = { 7, 25, 1, 17 }, zeros[2] = { 0, 0 };
    static const uint64_t tie[3] = { 1, 2, 1 };
    (void)state;
    assert_int_equal(golden_topdown_apportion(thirds, 3, 1000, out), 0);
    assert_int_equal(out[0], 334); /* equal remainders: the first gets the unit */
    assert_int_equal(out[1], 333);
    assert_int_equal(out[2], 333);
    assert_int_equal(golden_topdown_apportion(uneven, 4, 1000, out), 0); /* 140, 500, 20, 340: exact */
    assert_int_equal(out[0], 140);
    assert_int_equal(out[1], 500);
    assert_int_equal(out[2], 20);
    assert_int_equal(out[3], 340);
    assert_int_equal(golden_topdown_apportion(tie, 3, 3, out), 0); /* 0.75, 1.5, 0.75: two leftovers */
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 1);
    assert_int_equal(golden_topdown_apportion(zeros, 2, 1000, out), 0);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    /* Pseudo-random counts: the sum is exact, each within one unit. */
    for (unsigned seed = 1; seed < 200; seed++) {
        uint64_t c[8], total = 0, given = 0, x = seed * 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < 8; i++) {
            x ^= x >> 29;
            x *= 0xBF58476D1CE4E5B9ull;
            c[i] = (x >> 40) % (seed * 37 + 1);
            total += c[i];
        }
        assert_int_equal(golden_topdown_apportion(c, 8, 10000, out), 0);
        for (int i = 0; i < 8; i++) {
            given += out[i];
            if (total) {
                assert_true((unsigned __int128)out[i] * total <= (unsigned __int128)c[i] * 10000 + total);
                assert_true((unsigned __int128)out[i] * total + total >= (unsigned __int128)c[i] * 10000);
            }
        }
        assert_int_equal(given, total ? 10000 : 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenario_by_hand),
        cmocka_unit_test(scenario_per_function),
        cmocka_unit_test(frontend_and_memory_ordering),
        cmocka_unit_test(exception_with_commits),
        cmocka_unit_test(trailing_cycles),
        cmocka_unit_test(invariants_on_every_workload),
        cmocka_unit_test(window_groups),
        cmocka_unit_test(weighted_windows),
        cmocka_unit_test(unit_and_errors),
        cmocka_unit_test(apportion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
