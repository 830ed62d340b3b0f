/*
 * test_simpoint.c: SimPoint's region files (record/simpoint.c): regions
 * paired with their clusters' weights and sorted by interval; every kind of
 * bad file refused naming the file (and line); weights made integers.
 */
#include "record/simpoint.h"
#include "common/error.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Writes `points` and `weights` to two files and reads them; the paths are
 * freed. */
static int read_pair(const char *points, const char *weights, record_simpoint_list *l)
{
    char *p = test_temp_path("simpoints"), *w = test_temp_path("weights");
    int rc;
    test_write_file(p, points, strlen(points));
    test_write_file(w, weights, strlen(weights));
    rc = record_simpoint_read(l, p, w);
    remove(p);
    remove(w);
    free(p);
    free(w);
    return rc;
}

/* SimPoint 3's output, regions out of order, a comment and a blank line:
 * sorted by interval, each with its cluster's weight. */
static void reads_regions_in_interval_order(void **state)
{
    record_simpoint_list l;
    uint64_t n[3];
    (void)state;
    assert_int_equal(read_pair("57 0\n# a comment\n\n3 2\n120 1\n", "0.5 0\n0.3125 1\n0.1875 2\n", &l), 0);
    assert_int_equal(l.count, 3);
    assert_int_equal(l.regions[0].interval, 3);
    assert_int_equal(l.regions[0].cluster, 2);
    assert_true(l.regions[0].weight == 0.1875);
    assert_int_equal(l.regions[1].interval, 57);
    assert_true(l.regions[1].weight == 0.5);
    assert_int_equal(l.regions[2].interval, 120);
    assert_true(l.regions[2].weight == 0.3125);
    /* 16 intervals: 3, 8 and 5 exactly; 17: 3.1875 -> 3, 8.5 -> 9 (halves up), 5.3125 -> 5 */
    record_simpoint_integer_weights(&l, 16, n);
    assert_true(n[0] == 3 && n[1] == 8 && n[2] == 5);
    record_simpoint_integer_weights(&l, 17, n);
    assert_true(n[0] == 3 && n[1] == 9 && n[2] == 5);
    /* a weight too small for one interval still stands for one */
    record_simpoint_integer_weights(&l, 1, n);
    assert_true(n[0] == 1 && n[1] == 1 && n[2] == 1);
    record_simpoint_free(&l);
}

/* Each bad pair is refused with a message that says what and where. */
static void refuses_bad_files(void **state)
{
    static const struct {
        const char *points, *weights, *message;
    } bad[] = {
        { "3 0\nx 1\n", "0.5 0\n0.5 1\n", "simpoints, line 2: expected \"INTERVAL CLUSTER\"" },
        { "3 0\n", "1.5 0\n", "weights, line 1: expected \"WEIGHT CLUSTER\" with 0 < WEIGHT <= 1" },
        { "3 0\n", "0 0\n", "with 0 < WEIGHT <= 1" },
        { "3 0 7\n", "1 0\n", "simpoints, line 1" },
        { "3 0\n4 1\n", "0.5 0\n", "has 2 regions and" },
        { "3 0\n4 1\n", "0.5 0\n0.5 2\n", "cluster 1 (interval 4) has no weight" },
        { "3 0\n3 1\n", "0.5 0\n0.5 1\n", "interval 3 is given twice" },
        { "3 0\n4 0\n", "0.5 0\n0.5 0\n", "cluster 0 has two weights" },
        { "3 0\n4 1\n", "0.6 0\n0.6 1\n", "the weights sum to 1.2, more than 1" },
        { "# nothing\n", "1 0\n", "no region" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        record_simpoint_list l;
        assert_int_equal(read_pair(bad[i].points, bad[i].weights, &l), TEA_ERR_FORMAT);
        if (!strstr(error_message(), bad[i].message))
            fail_msg("case %zu: '%s' does not say '%s'", i, error_message(), bad[i].message);
        assert_null(l.regions);
    }
    {
        record_simpoint_list l;
        assert_int_equal(record_simpoint_read(&l, "/nonexistent/simpoints", "/nonexistent/weights"), TEA_ERR_IO);
        assert_non_null(strstr(error_message(), "/nonexistent/simpoints"));
    }
}

/* Weights that SimPoint rounded, summing to a little over one, and a subset
 * of the clusters (SimPoint's -coveragePct), summing to less, are taken. */
static void takes_rounded_and_partial_weights(void **state)
{
    record_simpoint_list l;
    (void)state;
    assert_int_equal(read_pair("1 0\n2 1\n3 2\n", "0.333334 0\n0.333334 1\n0.333334 2\n", &l), 0);
    record_simpoint_free(&l);
    assert_int_equal(read_pair("1 0\n", "0.9 0\n", &l), 0);
    assert_int_equal(l.count, 1);
    record_simpoint_free(&l);
}

/* Regions against the run the tool counted. Regions at intervals 5 and 58
 * (files made at 10^7 given as 10^6, say): a run of 580 intervals has its
 * first tenth end at interval 58, which the last region ends with (58 + 1
 * = 59 > 58: it fits); at 590 intervals (59 x 10 = 590) every region lies
 * in the first tenth and is refused, naming the interval. 58 intervals
 * leave the last region (interval 58) past the end. Regions 0 and 1 fit
 * a run of 19 intervals, not one of 20; one region (one cluster) may lie
 * anywhere. */
static void checks_the_regions_fit_the_run(void **state)
{
    record_simpoint_list l;
    (void)state;
    assert_int_equal(read_pair("5 0\n58 1\n", "0.5 0\n0.5 1\n", &l), 0);
    assert_int_equal(record_simpoint_check_fit(&l, 580, 1000000), TEA_OK);
    assert_int_equal(record_simpoint_check_fit(&l, 590, 1000000), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "every SimPoint region lies in the first tenth of the run: the last is "
                                            "interval 58 of the run's 590 intervals of --simpoint-interval 1000000"));
    assert_int_equal(record_simpoint_check_fit(&l, 58, 1000000), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "1 of the 2 SimPoint regions lie past the program's end: the run has 58 "
                                            "intervals of --simpoint-interval 1000000 instructions"));
    record_simpoint_free(&l);
    assert_int_equal(read_pair("0 0\n1 1\n", "0.5 0\n0.5 1\n", &l), 0);
    assert_int_equal(record_simpoint_check_fit(&l, 19, 100), TEA_OK);
    assert_int_equal(record_simpoint_check_fit(&l, 20, 100), TEA_ERR_USAGE);
    record_simpoint_free(&l);
    assert_int_equal(read_pair("0 0\n", "1 0\n", &l), 0);
    assert_int_equal(record_simpoint_check_fit(&l, 1000, 100), TEA_OK);
    record_simpoint_free(&l);
}

/* Whether the file at `path` holds exactly `text`. */
static void assert_file_is(const char *path, const char *text)
{
    uint8_t *data;
    size_t size;
    test_read_file(path, &data, &size);
    assert_int_equal(size, strlen(text));
    assert_memory_equal(data, text, size);
    free(data);
}

/* Threads' sections (tea simpoint --thread): each thread's regions with
 * its own clusters' weights (cluster 0 in both threads, each thread's
 * weights summing to 1), sorted by thread then interval; a thread's view;
 * written back as the same sections. */
static void reads_and_writes_threads_sections(void **state)
{
    record_simpoint_list l, view;
    char *p = test_temp_path("threads.simpoints"), *w = test_temp_path("threads.weights");
    (void)state;
    assert_int_equal(read_pair("# interval 1000\n# thread 3\n9 0\n# thread 1\n4 1\n2 0\n",
                               "# thread 1\n0.25 0\n0.75 1\n# thread 3\n1 0\n", &l),
                     0);
    assert_int_equal(l.count, 3);
    assert_true(record_simpoint_threaded(&l));
    assert_true(l.regions[0].thread == 1 && l.regions[0].interval == 2 && l.regions[0].weight == 0.25);
    assert_true(l.regions[1].thread == 1 && l.regions[1].interval == 4 && l.regions[1].weight == 0.75);
    assert_true(l.regions[2].thread == 3 && l.regions[2].interval == 9 && l.regions[2].weight == 1);
    record_simpoint_thread(&l, 3, &view);
    assert_true(view.count == 1 && view.regions == l.regions + 2 && view.interval == 1000);
    record_simpoint_thread(&l, 2, &view);
    assert_true(view.count == 0 && !view.regions);
    assert_int_equal(record_simpoint_write(&l, p, w), 0);
    assert_file_is(p, "# interval 1000 instructions (exp-bbv's --interval-size)\n# thread 1\n2 0\n4 1\n"
                      "# thread 3\n9 0\n");
    assert_file_is(w, "# thread 1\n0.25 0\n0.75 1\n# thread 3\n1 0\n");
    record_simpoint_free(&l);
    assert_int_equal(read_pair("1 0\n", "1 0\n", &l), 0);
    assert_false(record_simpoint_threaded(&l));
    record_simpoint_free(&l);
    remove(p);
    remove(w);
    free(p);
    free(w);
}

/* Sections checked per thread: a thread's weights over 1, a cluster with
 * no weight in its own thread (thread 1 has cluster 1's), lines outside sections beside sections, a
 * bad thread number. */
static void refuses_bad_threads_sections(void **state)
{
    static const struct {
        const char *points, *weights, *message;
    } bad[] = {
        { "# thread 1\n3 0\n4 1\n", "# thread 1\n0.6 0\n0.6 1\n", "the weights (thread 1) sum to 1.2" },
        { "# thread 1\n3 0\n5 1\n# thread 2\n3 1\n", "# thread 1\n0.5 0\n0.5 1\n# thread 2\n1 0\n",
          "cluster 1 (thread 2) (interval 3) has no weight" },
        { "3 0\n# thread 2\n3 0\n", "1 0\n# thread 2\n1 0\n", "every line in a \"# thread N\" section, or none" },
        { "# thread 0\n3 0\n", "# thread 0\n1 0\n", "simpoints, line 1: expected \"# thread N\" with N from 1" },
        { "# thread 2\n3 0\n3 1\n", "# thread 2\n0.5 0\n0.5 1\n", "interval 3 (thread 2) is given twice" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        record_simpoint_list l;
        assert_int_equal(read_pair(bad[i].points, bad[i].weights, &l), TEA_ERR_FORMAT);
        if (!strstr(error_message(), bad[i].message))
            fail_msg("case %zu: '%s' does not say '%s'", i, error_message(), bad[i].message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_regions_in_interval_order),
        cmocka_unit_test(refuses_bad_files),
        cmocka_unit_test(takes_rounded_and_partial_weights),
        cmocka_unit_test(checks_the_regions_fit_the_run),
        cmocka_unit_test(reads_and_writes_threads_sections),
        cmocka_unit_test(refuses_bad_threads_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
