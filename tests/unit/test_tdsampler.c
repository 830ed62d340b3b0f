/*
 * test_tdsampler.c: TEA, NCI-TEA and IBS under the TraceDoctor rules on
 * hand-built tokens, against samples worked out by hand (the derivations are
 * in the comments). tests/e2e/rules.sh holds them to the workers' outputs.
 */
#include "testutil.h"
#include "common/error.h"
#include "pics/pics.h"
#include "tea/tdsampler.h"
#include "trace/psv.h"
#include "trace/trace.h"

#include <string.h>

#define U PICS_UNIT
#define C TRACE_TD_ROB_COMMITTING
#define P TRACE_TD_ROB_POPULATED
#define D TRACE_TD_ROB_DISPATCHING
#define E TRACE_TD_ROB_EXCEPTION
#define COMMITS (TRACE_TD_SLOT_COMMITS | TRACE_TD_SLOT_VALID)
#define VALID TRACE_TD_SLOT_VALID
#define LLC_LATENCY 32

/* A token at `cycle` with ROB state `state`, indices head/tail and slots
 * 0-3 with `flags`, each slot's pc 0x100 + 4 * slot. */
static trace_td_token token(uint64_t cycle, unsigned state, unsigned head, unsigned tail, uint16_t f0, uint16_t f1,
                            uint16_t f2, uint16_t f3)
{
    trace_td_token t;
    memset(&t, 0, sizeof t);
    t.cycle = cycle;
    t.rob_state = state;
    t.head = head;
    t.tail = tail;
    t.flags[0] = f0;
    t.flags[1] = f1;
    t.flags[2] = f2;
    t.flags[3] = f3;
    for (unsigned i = 0; i < TRACE_TD_SLOTS; i++)
        t.pc[i] = 0x100 + 4 * i;
    return t;
}

/* A sampler of `scheme` at `period` (all events) fed tokens t[0..n) and
 * finished. */
static void run(tea_td_sampler *s, pics_scheme scheme, uint64_t period, const trace_td_token *t, size_t n)
{
    assert_int_equal(tea_td_sampler_init(s, scheme, period, TRACE_PSV_MASK_ALL, LLC_LATENCY), TEA_OK);
    for (size_t i = 0; i < n; i++)
        tea_td_sampler_token(s, &t[i]);
    assert_int_equal(tea_td_sampler_finish(s), TEA_OK);
}

/* The cell (pc, psv) holds `value` units. */
static void cell(const tea_td_sampler *s, uint64_t pc, uint16_t psv, uint64_t value)
{
    const pics_cell *c = pics_find(&s->pics, pc, psv);
    assert_non_null(c);
    assert_int_equal(c->value, value);
}

/* TEA, period 10. Cycle 10 commits slots 0 and 1 exactly at the point: 1/2
 * each. Point 20 passes in a stall that a commit at 25 ends: all of it to
 * that token's first committing µop (slot 1). Points 30 and 40 pass in the
 * stall ended at 47: one sample (the workers fold them), lost.busy 1. */
static void tea_compute_stall_and_folding(void **state)
{
    tea_td_sampler s;
    trace_td_token t[] = {
        token(10, C, 0, 8, COMMITS, COMMITS, VALID, 0),
        token(25, C, 2, 8, 0, COMMITS, 0, 0),
        token(47, C, 3, 8, 0, 0, 0, COMMITS),
    };
    (void)state;
    run(&s, PICS_SCHEME_TEA, 10, t, sizeof t / sizeof t[0]);
    assert_int_equal(s.samples, 3);
    assert_int_equal(s.lost[PICS_LOST_BUSY], 1);
    cell(&s, 0x100, 0, U / 2);
    cell(&s, 0x104, 0, U / 2 + U);
    cell(&s, 0x10c, 0, U);
    tea_td_sampler_free(&s);
}

/* TEA across an empty ROB. A mispredicted branch (slot 0, BR_MISS) commits
 * at 5; point 10 passes before the refill at 12: the branch (FL-MB) takes
 * it, at once. Then a plain µop commits at 15; point 20 passes before the
 * refill at 23: no flush cause, so deferred to the first µop committing
 * after (slot 2 at 26). A refill that also commits exactly at a point (30)
 * is an ordinary commit: 1/1 to slot 0. */
static void tea_refills(void **state)
{
    tea_td_sampler s;
    trace_td_token t[] = {
        token(5, C, 0, 4, COMMITS | TRACE_TD_SLOT_BR_MISS, 0, 0, 0),
        token(12, P, 4, 8, 0, 0, 0, 0),
        token(15, C, 4, 8, COMMITS, VALID, 0, 0),
        token(23, P, 8, 12, 0, 0, 0, 0),
        token(26, C, 8, 12, 0, 0, COMMITS, 0),
        token(30, C | P, 12, 16, COMMITS, 0, 0, 0),
    };
    (void)state;
    run(&s, PICS_SCHEME_TEA, 10, t, sizeof t / sizeof t[0]);
    assert_int_equal(s.samples, 3);
    cell(&s, 0x100, 1u << TRACE_PSV_FL_MB, U);
    cell(&s, 0x108, 0, U);
    cell(&s, 0x100, 0, U);
    tea_td_sampler_free(&s);
}

/* TEA at an exception: the excepting µop (the first VALID slot, 1) alone,
 * with FL-EX only; and an exception is a flush cause for a point passed
 * before the refill that follows it. A point still pending at the end is
 * lost ("end"). Period 10: point 10 hits the exception at 10 exactly;
 * point 20 passes before the refill at 21 (to the excepting µop again);
 * point 30 falls exactly on a refill that commits nothing (stalled: for the
 * next commit), and the trace ends first. */
static void tea_exception(void **state)
{
    tea_td_sampler s;
    trace_td_token t[] = {
        token(10, E, 1, 4, 0, VALID | TRACE_TD_SLOT_DCACHE_MISS, VALID, 0),
        token(21, P, 0, 4, 0, 0, 0, 0),
        token(30, P, 0, 4, 0, 0, 0, 0),
    };
    (void)state;
    run(&s, PICS_SCHEME_TEA, 10, t, sizeof t / sizeof t[0]);
    assert_int_equal(s.samples, 2);
    cell(&s, 0x104, 1u << TRACE_PSV_FL_EX, 2 * U);
    assert_int_equal(s.lost[PICS_LOST_END], 1);
    tea_td_sampler_free(&s);
}

/* NCI-TEA (pebs_sampler), period 10: point 10 arms at a dispatch-only token
 * (every token counts) and the first committing token after (14) gives its
 * first committing µop (slot 2) one sample; points 20 and 30 fold into the
 * sample of the commit at 31 (slot 0, a load that missed with memlat 40:
 * ST-L1 and ST-LLC). Exceptions are not commits. */
static void nci_folds(void **state)
{
    tea_td_sampler s;
    trace_td_token t[] = {
        token(11, D, 0, 0, 0, 0, 0, 0),
        token(12, E, 0, 4, VALID, 0, 0, 0),
        token(14, C, 0, 4, 0, 0, COMMITS, COMMITS),
        token(31, C, 4, 8, COMMITS | TRACE_TD_SLOT_DCACHE_MISS, 0, 0, 0),
    };
    (void)state;
    t[3].memlat[0] = 40;
    run(&s, PICS_SCHEME_NCI, 10, t, sizeof t / sizeof t[0]);
    assert_int_equal(s.samples, 2);
    assert_int_equal(s.lost[PICS_LOST_BUSY], 1);
    cell(&s, 0x108, 0, U);
    cell(&s, 0x100, (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC), U);
    tea_td_sampler_free(&s);
}

/* IBS, period 10. Point 10: the dispatch at 11 tags tail index 8; at 12 the
 * head row is 4 (tag outside it: waits); at 13 the head is 9 (row 8, tag
 * inside) and the token commits: slot 1's µop. Point 20: tag 12 at 20; the
 * tail falls back to 12 at 22 (tag >= tail: squashed). Point 30: tag 16 at
 * 30, then head 16 = tail 16 with no VALID slot at 31: an empty ROB, lost
 * as empty. Point 40: tag 20 at 40, point 50 comes before it commits and
 * drops it (busy); nothing dispatches after. */
static void ibs_tags(void **state)
{
    tea_td_sampler s;
    trace_td_token t[] = {
        token(11, D, 4, 8, 0, 0, 0, 0),
        token(12, C, 4, 12, COMMITS, 0, 0, 0),
        token(13, C, 9, 12, 0, COMMITS, 0, 0),
        token(20, D, 9, 12, 0, VALID, 0, 0),
        token(22, 0, 9, 12, 0, VALID, 0, 0),
        token(30, D, 16, 16, 0, 0, 0, 0),
        token(31, 0, 16, 16, 0, 0, 0, 0),
        token(40, D, 16, 20, VALID, 0, 0, 0),
        token(50, 0, 16, 24, VALID, 0, 0, 0),
    };
    (void)state;
    run(&s, PICS_SCHEME_IBS, 10, t, sizeof t / sizeof t[0]);
    assert_int_equal(s.samples, 1);
    cell(&s, 0x104, 0, U);
    assert_int_equal(s.lost[PICS_LOST_SQUASHED], 1);
    assert_int_equal(s.lost[PICS_LOST_EMPTY], 1);
    assert_int_equal(s.lost[PICS_LOST_BUSY], 1);
    assert_int_equal(s.lost[PICS_LOST_END], 1); /* tagging for point 50 when the trace ends */
    tea_td_sampler_free(&s);
}

/* A full ROB shows equal indices too: with a VALID slot in the head row the
 * tag stays (the tail wrapped behind the head), and commits later. */
static void ibs_full_rob_keeps_tag(void **state)
{
    tea_td_sampler s;
    trace_td_token t[] = {
        token(10, D, 0, 188, VALID, 0, 0, 0),
        token(11, 0, 0, 0, VALID, 0, 0, 0),
        token(12, C, 188, 0, COMMITS, 0, 0, 0),
    };
    (void)state;
    run(&s, PICS_SCHEME_IBS, 10, t, sizeof t / sizeof t[0]);
    assert_int_equal(s.samples, 1);
    cell(&s, 0x100, 0, U);
    tea_td_sampler_free(&s);
}

/* Only the schemes with a worker, and a period of at least one cycle. */
static void refuses_other_schemes(void **state)
{
    tea_td_sampler s;
    (void)state;
    assert_int_equal(tea_td_sampler_init(&s, PICS_SCHEME_SPE, 10, 0x1FF, LLC_LATENCY), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "spe has no TraceDoctor worker"));
    assert_int_equal(tea_td_sampler_init(&s, PICS_SCHEME_RIS, 10, 0x1FF, LLC_LATENCY), TEA_ERR_USAGE);
    assert_int_equal(tea_td_sampler_init(&s, PICS_SCHEME_GOLDEN, 10, 0x1FF, LLC_LATENCY), TEA_ERR_USAGE);
    assert_int_equal(tea_td_sampler_init(&s, PICS_SCHEME_TEA, 0, 0x1FF, LLC_LATENCY), TEA_ERR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tea_compute_stall_and_folding),
        cmocka_unit_test(tea_refills),
        cmocka_unit_test(tea_exception),
        cmocka_unit_test(nci_folds),
        cmocka_unit_test(ibs_tags),
        cmocka_unit_test(ibs_full_rob_keeps_tag),
        cmocka_unit_test(refuses_other_schemes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
