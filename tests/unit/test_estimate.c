/*
 * test_estimate.c: a sampled trace's estimate of the whole run
 * (view/estimate): the windows' commits counted across batches, periodic
 * windows with their Student-t interval (commits counted, or taken as
 * `length` when unknown), a window without commits folded into the one
 * before, and weighted (SimPoint) windows ending at their last commit, with
 * no interval. The expected values are worked out by hand in the comments;
 * t(0.975, df) is common/stats.c's (4.303 for df 2, 12.706 for df 1).
 */
#include "testutil.h"
#include "trace/estimate.h"

#include <math.h>
#include <string.h>

#define CLOSE 1e-6

static void check_close(double actual, double expected, int line)
{
    if (!(fabs(actual - expected) <= CLOSE))
        fail_msg("line %d: %.17g, not %.17g", line, actual, expected);
}
#define assert_close(actual, expected) check_close((actual), (expected), __LINE__)

/* Three windows of 100 instructions, one every 1000, ending at cycles 150,
 * 400 and 700. */
static const uint64_t ENDS[] = { 150, 400, 700 };
static const trace_sampling PERIODIC = { .every = 1000, .length = 100, .warmup = 10, .window_ends = ENDS,
                                         .window_count = 3 };

/* Records at cycles 10 (2 commits), 150 (1) | 151 (3), 400 (0), 500 (4),
 * 800 (1: past the last end, so the last window's), in two batches:
 *   window 0: 2 + 1 = 3, last commit at 150
 *   window 1: 3 (400 commits nothing), last commit at 151
 *   window 2: 4 + 1 = 5, last commit at 800 */
static void counts_the_windows_commits(void **state)
{
    (void)state;
    trace_record records[6];
    const uint64_t cycles[6] = { 10, 150, 151, 400, 500, 800 };
    const uint8_t commits[6] = { 2, 1, 3, 0, 4, 1 };
    uint64_t insns[6] = { 0 };
    trace_estimate_counter c;

    memset(records, 0, sizeof records);
    for (size_t i = 0; i < 6; i++) {
        records[i].cycle = cycles[i];
        records[i].n_commit = commits[i];
    }
    trace_batch first = { .records = records, .count = 2 }, second = { .records = records + 2, .count = 4 };
    trace_estimate_counter_init(&c, &PERIODIC, insns);
    trace_estimate_count(&c, &first);
    trace_estimate_count(&c, &second);
    assert_int_equal(insns[0], 3);
    assert_int_equal(insns[1], 3);
    assert_int_equal(insns[2], 5);
    assert_int_equal(insns[3], 150);
    assert_int_equal(insns[4], 151);
    assert_int_equal(insns[5], 800);
}

/* Periodic, 100 commits a window, the trace from cycle 0:
 *   cycles per µop: 150 / 100 = 1.5, (400 - 150) / 100 = 2.5, (700 - 400) / 100 = 3
 *   mean 7 / 3; the windows stand for 3 x 1000 = 3000 instructions
 *   cycles = 7 / 3 x 3000 = 7000
 *   s^2 = ((1.5 - 7/3)^2 + (2.5 - 7/3)^2 + (3 - 7/3)^2) / 2 = (25/36 + 1/36 + 16/36) / 2 = 7/12
 *   half = 4.303 x sqrt(7/12) / sqrt(3) x 3000 = 5692.334
 * The same without the counts (a trace from a pipe): the first two windows
 * hold `length`, 100, and the last the rest of 300 commits, 100. */
static void periodic_windows(void **state)
{
    (void)state;
    const uint64_t insns[6] = { 100, 100, 100, 140, 390, 690 };
    const trace_totals t = { .first_cycle = 0, .last_cycle = 700, .commits = 300 };
    trace_estimate e;

    trace_estimate_run(&e, &PERIODIC, &t, insns);
    assert_close(e.cycles, 7000);
    assert_close(e.half, 4.303 * sqrt(7.0 / 12) / sqrt(3.0) * 3000);
    assert_close(e.half, 5692.3339457554675);
    assert_close(e.instructions, 3000);
    assert_int_equal(e.lightest, 1);
    assert_int_equal(e.heaviest, 1);
    trace_estimate_run(&e, &PERIODIC, &t, NULL);
    assert_close(e.cycles, 7000);
    assert_close(e.half, 5692.3339457554675);
}

/* A window without commits adds its cycles to the one before it: commits
 * 100, 0, 100 give the points (150 + 250) / 100 = 4 and 300 / 100 = 3:
 *   cycles = 3.5 x 3000 = 10500
 *   s^2 = (0.5^2 + 0.5^2) / 1 = 0.5; half = 12.706 x sqrt(0.5) / sqrt(2) x 3000 = 12.706 x 0.5 x 3000 = 19059 */
static void a_window_without_commits(void **state)
{
    (void)state;
    const uint64_t insns[6] = { 100, 0, 100, 140, 0, 690 };
    const trace_totals t = { .first_cycle = 0, .last_cycle = 700, .commits = 200 };
    trace_estimate e;

    trace_estimate_run(&e, &PERIODIC, &t, insns);
    assert_close(e.cycles, 10500);
    assert_close(e.half, 19059);
}

/* One window: its cycles per µop times the instructions, no interval:
 * 150 / 100 x 1000 = 1500. */
static void one_window(void **state)
{
    (void)state;
    const trace_sampling one = { .every = 1000, .length = 100, .window_ends = ENDS, .window_count = 1 };
    const uint64_t insns[2] = { 100, 140 };
    const trace_totals t = { .first_cycle = 0, .last_cycle = 150, .commits = 100 };
    trace_estimate e;

    trace_estimate_run(&e, &one, &t, insns);
    assert_close(e.cycles, 1500);
    assert_true(isnan(e.half));
}

/* Weighted windows (weights 2 and 5, every 1000), ending at cycles 300 and
 * 900, the first with its last commit at 250: the first window ends there,
 * the cycles after it wait for the second's first µop:
 *   250 / 100 = 2.5 and (900 - 250) / 100 = 6.5 cycles per µop
 *   cycles = (2 x 2.5 + 5 x 6.5) x 1000 = 37500, no interval
 *   instructions = (2 + 5) x 1000 = 7000; weights 2 to 5
 * Without the counts the windows end at their ends: 300 / 100 = 3 and
 * 600 / 100 = 6: (2 x 3 + 5 x 6) x 1000 = 36000. */
static void weighted_windows(void **state)
{
    (void)state;
    static const uint64_t ends[] = { 300, 900 }, starts[] = { 0, 5000 }, weights[] = { 2, 5 };
    const trace_sampling s = { .every = 1000, .length = 100, .window_ends = ends, .window_count = 2,
                               .window_starts = starts, .window_weights = weights };
    const uint64_t insns[4] = { 100, 100, 250, 880 };
    const trace_totals t = { .first_cycle = 0, .last_cycle = 900, .commits = 200 };
    trace_estimate e;

    trace_estimate_run(&e, &s, &t, insns);
    assert_close(e.cycles, 37500);
    assert_true(isnan(e.half));
    assert_close(e.instructions, 7000);
    assert_int_equal(e.lightest, 2);
    assert_int_equal(e.heaviest, 5);
    trace_estimate_run(&e, &s, &t, NULL);
    assert_close(e.cycles, 36000);
}

/* A SimPoint window that commits more µops than its L = 100 instructions
 * (rep string passes: SimPoint counts the instruction once, the model each
 * pass): the first window's 125 commits in 250 cycles stand for its
 * interval's 1000 instructions (SimPoint's) as 10 x (250 cycles, 125
 * commits): cycles (2 x 250 + 5 x 650) x 1000 / 100 = 37500, the same as
 * without the passes; instructions, in commits, (2 x 125 + 5 x 100) x 10 =
 * 7500; the periods (intervals) stay 2 + 5. */
static void weighted_windows_count_commits(void **state)
{
    (void)state;
    static const uint64_t ends[] = { 300, 900 }, starts[] = { 0, 5000 }, weights[] = { 2, 5 };
    const trace_sampling s = { .every = 1000, .length = 100, .window_ends = ends, .window_count = 2,
                               .window_starts = starts, .window_weights = weights };
    const uint64_t insns[4] = { 125, 100, 250, 880 };
    const trace_totals t = { .first_cycle = 0, .last_cycle = 900, .commits = 225 };
    trace_estimate e;

    trace_estimate_run(&e, &s, &t, insns);
    assert_close(e.cycles, 37500);
    assert_close(e.instructions, 7500);
    assert_close(e.periods, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_the_windows_commits),
        cmocka_unit_test(periodic_windows),
        cmocka_unit_test(a_window_without_commits),
        cmocka_unit_test(one_window),
        cmocka_unit_test(weighted_windows),
        cmocka_unit_test(weighted_windows_count_commits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
