/*
 * test_table.c: the arithmetic of `pics table` (results/table): cells as
 * the mean over two and three seeds with their 95 % intervals (one cut at
 * 0), a missing cell left out of the mean and max rows, the noise floor
 * row, the choice of the frequency shown (asked, the only one, each trace's
 * own, and the usage errors), traces without attributed cycles, the func
 * granularity without symbols and runs under different rules. Every
 * expected value is worked out by hand in the comments; t(0.975, df) is
 * common/stats.c's three-decimal table (12.706 for df 1, 4.303 for df 2).
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "results/results.h"
#include "results/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func\n"
#define FLOOR_HEADER                                                                                                 \
    "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,"                            \
    "noise_floor_insn_component,noise_floor_insn,noise_floor_func\n"
#define RULES_HEADER "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,rules\n"
/* Tolerance of values worked out by hand in decimal (binary fractions and
 * long double sums differ from them in the last bits only). */
#define CLOSE 1e-12

/* Fails unless `actual` is within CLOSE of `expected` (cmocka's
 * assert_float_equal compares floats). */
#define assert_close(actual, expected) check_close((double)(actual), (expected), #actual, __LINE__)

static void check_close(double actual, double expected, const char *what, int line)
{
    if (!(fabs(actual - expected) <= CLOSE))
        fail_msg("line %d: %s is %.17g, not %.17g", line, what, actual, expected);
}

/* The request of most cases: insn-component errors, no --freq. */
static const results_table_request INSN_COMPONENT = { .granularity = PICS_GRAN_INSN_COMPONENT };

/* Reads `csv` (written to a scratch file) into `s`. */
static void read_csv(results_set *s, const char *name, const char *csv)
{
    char *path = test_temp_path(name);
    test_write_file(path, csv, strlen(csv));
    results_init(s);
    assert_int_equal(results_read(s, path), TEA_OK);
    unlink(path);
    free(path);
}

/* The index of `name` in names[0..n); fails the test when it is absent. */
static size_t index_of(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    fail_msg("no %s", name);
    return n;
}

/* Two seeds, 0.10 and 0.20:
 *   mean = (0.10 + 0.20) / 2 = 0.15, min 0.10, max 0.20
 *   s^2 = ((0.10 - 0.15)^2 + (0.20 - 0.15)^2) / (2 - 1) = 0.005, s = 0.0707107
 *   half = t(0.975, 1) * s / sqrt(2) = 12.706 * 0.05 = 0.6353
 *   interval = [max(0.15 - 0.6353, 0), 0.15 + 0.6353] = [0 (cut), 0.7853]
 * One trace: the mean and max rows are the cell's mean, 0.15; no floor. */
static void two_seeds_and_an_interval_cut_at_zero(void **state)
{
    (void)state;
    results_set s;
    results_table t;
    double low, high;

    read_csv(&s, "two.csv", HEADER "gcc,tea,1000,1,10,0,0.10,0.10,\n"
                                   "gcc,tea,1000,2,10,0,0.20,0.20,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_OK);
    assert_int_equal(t.trace_count, 1);
    assert_int_equal(t.scheme_count, 1);
    assert_true(t.freq_hz == 1000.0);
    assert_false(t.own_freqs);
    assert_true(t.spread);
    assert_false(t.floors);
    const results_table_cell *c = results_table_cell_at(&t, 0, 0);
    assert_int_equal(c->seeds, 2);
    assert_close((double)results_table_cell_mean(c), 0.15);
    assert_true(c->min == 0.10 && c->max == 0.20);
    assert_close(results_table_cell_half_interval(c), 0.6353);
    results_table_cell_interval(c, &low, &high);
    assert_true(low == 0.0);
    assert_close(high, 0.7853);
    assert_close((double)t.mean[0], 0.15);
    assert_close((double)t.max[0], 0.15);
    assert_true(isnan((double)t.floor[0]));
    assert_int_equal(results_table_missing(&t, 0, NULL, 0), 0);
    results_table_free(&t);
    results_free(&s);
}

/* Three seeds, 0.10, 0.12 and 0.14:
 *   mean = 0.36 / 3 = 0.12
 *   s^2 = (0.02^2 + 0 + 0.02^2) / (3 - 1) = 0.0004, s = 0.02
 *   half = t(0.975, 2) * s / sqrt(3) = 4.303 * 0.02 / 1.7320508 = 0.0496868
 *   interval = [0.12 - 0.0496868, 0.12 + 0.0496868] = [0.0703132, 0.1696868]
 * A second trace with one seed has no interval (NaN) and keeps spread on. */
static void three_seeds(void **state)
{
    (void)state;
    results_set s;
    results_table t;
    double low, high, half = 4.303 * 0.02 / sqrt(3.0);

    read_csv(&s, "three.csv", HEADER "lbm,tea,4000,1,10,0,0.10,0.5,\n"
                                     "lbm,tea,4000,2,10,0,0.12,0.5,\n"
                                     "lbm,tea,4000,3,10,0,0.14,0.5,\n"
                                     "mcf,tea,4000,1,10,0,0.30,0.5,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_OK);
    assert_int_equal(t.trace_count, 2);
    assert_string_equal(t.traces[0], "lbm");
    assert_string_equal(t.traces[1], "mcf");
    const results_table_cell *c = results_table_cell_at(&t, 0, 0);
    assert_int_equal(c->seeds, 3);
    assert_close((double)results_table_cell_mean(c), 0.12);
    assert_close(results_table_cell_half_interval(c), 0.049686764166459);
    assert_close(results_table_cell_half_interval(c), half);
    results_table_cell_interval(c, &low, &high);
    assert_close(low, 0.0703132358335408);
    assert_close(high, 0.1696867641664592);
    /* mcf: one seed, 0.30; no interval */
    c = results_table_cell_at(&t, 1, 0);
    assert_int_equal(c->seeds, 1);
    assert_true(isnan(results_table_cell_half_interval(c)));
    results_table_cell_interval(c, &low, &high);
    assert_true(isnan(low) && isnan(high));
    /* mean row (0.12 + 0.30) / 2 = 0.21; max row 0.30 */
    assert_close((double)t.mean[0], 0.21);
    assert_close((double)t.max[0], 0.30);
    results_table_free(&t);
    results_free(&s);
}

/* Traces a, b, c; ibs has no row for b. The columns go tea, ibs (the
 * scheme order), whatever order the rows give them in.
 *   tea: 0.1, 0.3, 0.2 -> mean 0.6 / 3 = 0.2, max 0.3
 *   ibs: 0.4, -, 0.6   -> mean 1.0 / 2 = 0.5, max 0.6; b missing (1 of 3) */
static void a_missing_cell(void **state)
{
    (void)state;
    results_set s;
    results_table t;
    size_t shown[2] = { 99, 99 };

    read_csv(&s, "missing.csv", HEADER "a,ibs,1000,1,10,0,0.4,0,\n"
                                       "a,tea,1000,1,10,0,0.1,0,\n"
                                       "b,tea,1000,1,10,0,0.3,0,\n"
                                       "c,tea,1000,1,10,0,0.2,0,\n"
                                       "c,ibs,1000,1,10,0,0.6,0,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_OK);
    assert_int_equal(t.trace_count, 3);
    assert_int_equal(t.scheme_count, 2);
    assert_string_equal(t.schemes[0], "tea");
    assert_string_equal(t.schemes[1], "ibs");
    assert_false(t.spread);
    assert_int_equal(results_table_cell_at(&t, 1, 1)->seeds, 0);
    assert_true(isnan((double)results_table_cell_mean(results_table_cell_at(&t, 1, 1))));
    assert_close((double)t.mean[0], 0.2);
    assert_close((double)t.max[0], 0.3);
    assert_close((double)t.mean[1], 0.5);
    assert_close((double)t.max[1], 0.6);
    assert_int_equal(results_table_missing(&t, 0, shown, 2), 0);
    assert_int_equal(results_table_missing(&t, 1, shown, 2), 1);
    assert_int_equal(shown[0], 1); /* b */
    assert_int_equal(shown[1], 99);
    results_table_free(&t);
    results_free(&s);
}

/* The noise floor row: trace a's seeds have floors 0.01 and 0.03 (its mean
 * 0.02), trace b's only one seed has one, 0.05 (its mean 0.05): the row is
 * (0.02 + 0.05) / 2 = 0.035. The errors' rows: a (0.1 + 0.2) / 2 = 0.15,
 * b (0.3 + 0.3) / 2 = 0.3: mean (0.15 + 0.3) / 2 = 0.225, max 0.3. */
static void a_floor_row(void **state)
{
    (void)state;
    results_set s;
    results_table t;

    read_csv(&s, "floor.csv", FLOOR_HEADER "a,tea,1000,1,10,0,0.1,0,,0.01,0,\n"
                                           "a,tea,1000,2,10,0,0.2,0,,0.03,0,\n"
                                           "b,tea,1000,1,10,0,0.3,0,,0.05,0,\n"
                                           "b,tea,1000,2,10,0,0.3,0,,,,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_OK);
    assert_true(t.floors);
    assert_int_equal(results_table_cell_at(&t, 0, 0)->floor_seeds, 2);
    assert_int_equal(results_table_cell_at(&t, 1, 0)->floor_seeds, 1);
    assert_close((double)t.floor[0], 0.035);
    assert_close((double)t.mean[0], 0.225);
    assert_close((double)t.max[0], 0.3);
    /* b's two equal seeds: s = 0, an interval of width 0 */
    assert_close(results_table_cell_half_interval(results_table_cell_at(&t, 1, 0)), 0.0);
    results_table_free(&t);
    results_free(&s);
}

/* The frequency shown: two frequencies for trace a need a choice; asked
 * for, only that frequency's rows count (4000 Hz: 0.4); a frequency no row
 * has is refused with the list. */
static void chooses_the_frequency(void **state)
{
    (void)state;
    results_set s;
    results_table t;
    const results_table_request at_4k = { .granularity = PICS_GRAN_INSN_COMPONENT, .has_freq = 1, .freq_hz = 4000.0 };
    const results_table_request at_2k = { .granularity = PICS_GRAN_INSN_COMPONENT, .has_freq = 1, .freq_hz = 2000.0 };

    read_csv(&s, "freqs.csv", HEADER "a,tea,1000,1,10,0,0.1,0,\n"
                                     "a,tea,4000,1,10,0,0.4,0,\n"
                                     "b,tea,1000,1,10,0,0.2,0,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_ERR_USAGE);
    assert_contains(error_message(), "the results hold 2 frequencies (1000, 4000 Hz): choose one with --freq");
    results_table_free(&t);
    assert_int_equal(results_table_build(&t, &s, &at_2k), TEA_ERR_USAGE);
    assert_string_equal(error_message(), "no results at 2000 Hz; the results have 1000, 4000 Hz");
    results_table_free(&t);
    assert_int_equal(results_table_build(&t, &s, &at_4k), TEA_OK);
    assert_true(t.freq_hz == 4000.0);
    assert_int_equal(t.trace_count, 2); /* the shape comes from every row */
    assert_close((double)results_table_cell_mean(results_table_cell_at(&t, 0, 0)), 0.4);
    assert_int_equal(results_table_cell_at(&t, 1, 0)->seeds, 0); /* b has no row at 4000 Hz */
    assert_int_equal(results_table_missing(&t, 0, NULL, 0), 1);
    results_table_free(&t);
    results_free(&s);
}

/* Each trace at one frequency of its own (tea replay --samples): each is
 * shown at its own, and the table's frequency is NaN. */
static void each_trace_at_its_own_frequency(void **state)
{
    (void)state;
    results_set s;
    results_table t;

    read_csv(&s, "own.csv", HEADER "a,tea,1000,1,10,0,0.1,0,\n"
                                   "b,tea,312000,1,10,0,0.2,0,\n"
                                   "a,tea,1000,2,10,0,0.3,0,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_OK);
    assert_true(t.own_freqs);
    assert_true(isnan(t.freq_hz));
    assert_true(t.trace_freq[0] == 1000.0 && t.trace_freq[1] == 312000.0);
    assert_close((double)results_table_cell_mean(results_table_cell_at(&t, 0, 0)), 0.2);
    assert_close((double)results_table_cell_mean(results_table_cell_at(&t, 1, 0)), 0.2);
    results_table_free(&t);
    results_free(&s);
}

/* A trace without attributed cycles (empty errors) is named once, at its
 * first row, and its cells stay missing; at func granularity an empty
 * error is the run's missing symbols: an error naming the line. */
static void empty_traces_and_missing_symbols(void **state)
{
    (void)state;
    results_set s;
    results_table t;
    const results_table_request func = { .granularity = PICS_GRAN_FUNC };

    read_csv(&s, "empty.csv", HEADER "a,tea,1000,1,10,0,0.1,0,0.05\n"
                                     "z,tea,1000,1,0,0,,,\n"
                                     "z,ibs,1000,1,0,0,,,\n");
    assert_int_equal(results_table_build(&t, &s, &INSN_COMPONENT), TEA_OK);
    assert_int_equal(t.empty_count, 1);
    assert_string_equal(t.empty[0]->trace, "z");
    assert_int_equal(t.empty[0]->line, 3);
    size_t z = index_of(t.traces, t.trace_count, "z"), ibs = index_of(t.schemes, t.scheme_count, "ibs");
    assert_int_equal(results_table_cell_at(&t, z, 0)->seeds, 0);
    assert_true(isnan((double)t.mean[ibs])); /* no trace has an ibs error */
    assert_true(isnan((double)t.max[ibs]));
    results_table_free(&t);
    assert_int_equal(results_table_build(&t, &s, &func), TEA_ERR_FORMAT);
    assert_contains(error_message(),
                    ": line 3: no error_func for trace z, scheme tea (the run had no function symbols");
    results_table_free(&t);
    results_free(&s);
}

/* Rows of runs under other rules are refused, naming both lines. */
static void refuses_mixed_rules(void **state)
{
    (void)state;
    results_set s;

    read_csv(&s, "rules.csv", RULES_HEADER "a,tea,1000,1,10,0,0.1,0,,default\n"
                                           "a,tea,1000,2,10,0,0.1,0,,tracedoctor\n");
    assert_int_equal(results_table_check_rules(&s), TEA_ERR_USAGE);
    assert_contains(error_message(), ": line 2 comes from a run under the default rules");
    assert_contains(error_message(), ": line 3 under the tracedoctor ones: table them apart");
    results_free(&s);
    read_csv(&s, "same-rules.csv", RULES_HEADER "a,tea,1000,1,10,0,0.1,0,,tracedoctor\n");
    assert_int_equal(results_table_check_rules(&s), TEA_OK);
    results_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_seeds_and_an_interval_cut_at_zero),
        cmocka_unit_test(three_seeds),
        cmocka_unit_test(a_missing_cell),
        cmocka_unit_test(a_floor_row),
        cmocka_unit_test(chooses_the_frequency),
        cmocka_unit_test(each_trace_at_its_own_frequency),
        cmocka_unit_test(empty_traces_and_missing_symbols),
        cmocka_unit_test(refuses_mixed_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
