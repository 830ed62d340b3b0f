/*
 * test_sampling.c: a sampled recording's window arithmetic
 * (trace/sampling.c) on windows small enough to count by hand: the window
 * of a cycle, the weighted cycles of a span and what a trace stands for
 * (unsampled, periodic, weighted), the weight of one cycle, the heaviest
 * window, the window groups, and the checks trace_writer_set_run applies.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/sampling.h"

#include <string.h>

/* Three windows ending at cycles 10, 20 and 30, of weights 1, 2 and 3. */
static const uint64_t ENDS[] = { 10, 20, 30 };
static const uint64_t WEIGHTS[] = { 1, 2, 3 };
static const uint64_t STARTS[] = { 0, 500, 900 };

static trace_sampling periodic(void)
{
    trace_sampling s;
    memset(&s, 0, sizeof s);
    s.every = 100;
    s.length = 10;
    s.warmup = 50;
    s.window_ends = ENDS;
    s.window_count = 3;
    return s;
}

static trace_sampling weighted(void)
{
    trace_sampling s = periodic();
    s.warmup = 0;
    s.window_starts = STARTS;
    s.window_weights = WEIGHTS;
    return s;
}

/* The first window ending at or after the cycle, searching from `from`;
 * past every end, the last. */
static void window_of(void **state)
{
    (void)state;
    assert_int_equal(trace_sampling_window_of(ENDS, 3, 0, 5), 0);
    assert_int_equal(trace_sampling_window_of(ENDS, 3, 0, 10), 0);
    assert_int_equal(trace_sampling_window_of(ENDS, 3, 0, 11), 1);
    assert_int_equal(trace_sampling_window_of(ENDS, 3, 0, 30), 2);
    assert_int_equal(trace_sampling_window_of(ENDS, 3, 0, 35), 2);
    assert_int_equal(trace_sampling_window_of(ENDS, 3, 1, 5), 1); /* never back */
}

/* Cycles from the origin, each counted by its window's weight. */
static void weighted_cycles(void **state)
{
    static const uint64_t heavy[] = { UINT64_MAX };
    uint64_t cycles = 0;
    (void)state;

    /* 10 x 1 + 10 x 2 + 10 x 3 */
    assert_int_equal(trace_sampling_weighted_cycles(ENDS, WEIGHTS, 3, 0, 30), 60);
    /* 10 x 1 + 10 x 2 + 5 x 3 */
    assert_int_equal(trace_sampling_weighted_cycles(ENDS, WEIGHTS, 3, 0, 25), 45);
    /* past the last end: the last window's weight, 10 + 20 + 20 x 3 */
    assert_int_equal(trace_sampling_weighted_cycles(ENDS, WEIGHTS, 3, 0, 40), 90);
    /* from cycle 5: 5 x 1 + 20 + 30 */
    assert_int_equal(trace_sampling_weighted_cycles(ENDS, WEIGHTS, 3, 5, 30), 55);
    assert_int_equal(trace_sampling_weighted_cycles(ENDS, heavy, 1, 0, 10), UINT64_MAX);

    assert_int_equal(trace_sampling_weighted_span(ENDS, WEIGHTS, 3, 0, 30, &cycles), TEA_OK);
    assert_int_equal(cycles, 60);
    assert_int_equal(trace_sampling_weighted_span(ENDS, WEIGHTS, 3, 11, 30, &cycles), TEA_ERR_FORMAT);
    assert_string_equal(error_message(), "the first weighted window ends at cycle 10, before the trace's first "
                                         "record (cycle 11)");
}

/* What a trace from cycle 0 to 30 stands for, and one cycle's weight. */
static void stands_for(void **state)
{
    trace_sampling none, p = periodic(), w = weighted();
    (void)state;

    memset(&none, 0, sizeof none);
    assert_true(trace_sampling_stands_for(&none, 0, 30) == 30.0);
    assert_true(trace_sampling_stands_for(&p, 0, 30) == 300.0); /* x 100 / 10 */
    assert_true(trace_sampling_stands_for(&w, 0, 30) == 600.0); /* 60 weighted x 100 / 10 */
    assert_true(trace_sampling_cycle_weight(&none) == 1.0);
    assert_true(trace_sampling_cycle_weight(&p) == 10.0);
    assert_int_equal(trace_sampling_heaviest(&p), 1);
    assert_int_equal(trace_sampling_heaviest(&w), 3);
    assert_int_equal(trace_sampling_weight(&p, 2), 1);
    assert_int_equal(trace_sampling_weight(&w, 2), 3);
}

/* Window groups: one per window up to TRACE_WINDOW_GROUPS; none unsampled,
 * for one window, or weighted. */
static void groups(void **state)
{
    uint64_t many[TRACE_WINDOW_GROUPS + 5];
    trace_sampling none, p = periodic(), w = weighted();
    (void)state;

    memset(&none, 0, sizeof none);
    for (size_t k = 0; k < TRACE_WINDOW_GROUPS + 5; k++)
        many[k] = 10 * (k + 1);
    assert_int_equal(trace_sampling_groups(&none), 0);
    assert_int_equal(trace_sampling_groups(&p), 3);
    assert_int_equal(trace_sampling_groups(&w), 0);
    p.window_count = 1;
    assert_int_equal(trace_sampling_groups(&p), 0);
    p.window_ends = many;
    p.window_count = TRACE_WINDOW_GROUPS + 5;
    assert_int_equal(trace_sampling_groups(&p), TRACE_WINDOW_GROUPS);
}

/* The checks a writer applies: sound samplings pass, each fault is named. */
static void faults(void **state)
{
    static const uint64_t unordered[] = { 10, 10, 30 };
    static const uint64_t zero_weight[] = { 1, 0, 3 };
    static const uint64_t close_starts[] = { 0, 5, 900 };
    trace_sampling none, s;
    (void)state;

    memset(&none, 0, sizeof none);
    assert_null(trace_sampling_fault(&none));
    s = periodic();
    assert_null(trace_sampling_fault(&s));
    s = weighted();
    assert_null(trace_sampling_fault(&s));

    s = periodic();
    s.length = 100;
    assert_string_equal(trace_sampling_fault(&s), "the timed length is not between 1 and the period - 1");
    s = periodic();
    s.warmup = 91;
    assert_string_equal(trace_sampling_fault(&s), "the warm-up and the timed length exceed the period");
    s = periodic();
    s.window_ends = unordered;
    assert_string_equal(trace_sampling_fault(&s), "the window ends do not increase");
    s = periodic();
    s.window_count = 0;
    assert_string_equal(trace_sampling_fault(&s), "no windows, or too many");
    s = weighted();
    s.length = 101;
    assert_string_equal(trace_sampling_fault(&s), "the timed length is not between 1 and the interval");
    s = weighted();
    s.window_weights = zero_weight;
    assert_string_equal(trace_sampling_fault(&s), "a window weight of 0, or weights beyond 2^40 in all");
    s = weighted();
    s.window_starts = close_starts;
    assert_string_equal(trace_sampling_fault(&s), "the windows' starts do not increase by the timed length");
    s = weighted();
    s.window_starts = NULL;
    assert_string_equal(trace_sampling_fault(&s), "window starts without weights, or weights without starts");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_of),
        cmocka_unit_test(weighted_cycles),
        cmocka_unit_test(stands_for),
        cmocka_unit_test(groups),
        cmocka_unit_test(faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
