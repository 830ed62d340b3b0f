/*
 * test_simpoint_pick.c: SimPoint's regions picked from basic-block vectors
 * (record/bbv.c, record/simpoint_pick.c): two phases of known length
 * found and weighted by their share exactly, the same regions for the same
 * seed, bad exp-bbv files refused naming the line, the written files read
 * back with their interval, files of another interval refused, and every
 * allocation failure survived.
 */
#include "record/simpoint_pick.h"
#include "common/error.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* Phase A (blocks 1 and 2) for intervals [0, 10) and [80, 100), phase B
 * (blocks 3 and 4) for [10, 80): 30 and 70 intervals of 2000
 * instructions, each interval's split between its blocks varying by up
 * to 5 % (no two the same, as in a real run: identical intervals would
 * make clusters of no variance, which the BIC rewards without bound). */
#define PHASE_A_FIRST_END 10
#define PHASE_B_END 80
#define INTERVALS 100
/* Each interval's instructions (the file's counts sum to it). */
#define PHASE_INTERVAL 2000

/* The vectors as exp-bbv writes them, into a new file; its path. */
static char *two_phase_file(void)
{
    char *path = test_temp_path("two-phases.bb");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < INTERVALS; i++) {
        if (i < PHASE_A_FIRST_END || i >= PHASE_B_END)
            fprintf(f, "T:1:%d :2:%d \n", 1000 + i * 37 % 101, 1000 - i * 37 % 101);
        else
            fprintf(f, "T:3:%d :4:%d \n", 1500 + i * 53 % 97, 500 - i * 53 % 97);
    }
    fclose(f);
    return path;
}

static record_pick_options default_options(uint64_t seed)
{
    record_pick_options o = { RECORD_PICK_MAX_K_DEFAULT, RECORD_PICK_RESTARTS_DEFAULT,
                              RECORD_PICK_BIC_THRESHOLD_DEFAULT, seed };
    return o;
}

/* Phase a (0: A, 1: B) of interval i. */
static int phase_of(uint64_t i)
{
    return i >= PHASE_A_FIRST_END && i < PHASE_B_END;
}

/* Both phases picked, no cluster across them (each cluster's members lie
 * in its representative's phase), the phases' weights 30/100 and 70/100;
 * K = 1 scores the lowest BIC. (The BIC of a spherical Gaussian splits a
 * phase whose intervals vary along one direction, as these do: K is 2 or
 * more.) */
static void two_phases_found_and_weighted(void **state)
{
    char *path = two_phase_file();
    record_bbv b;
    record_pick p;
    record_pick_options o = default_options(1);
    double share[2] = { 0, 0 };
    int picked[2] = { 0, 0 };
    (void)state;

    assert_int_equal(record_bbv_read(&b, path, 1), 0);
    assert_int_equal(b.intervals, INTERVALS);
    assert_int_equal(b.instructions, INTERVALS * 2000);
    assert_int_equal(record_pick_regions(&b, &o, &p), 0);
    assert_true(p.k >= 2 && p.k == p.regions.count);
    assert_int_equal(p.tried, RECORD_PICK_MAX_K_DEFAULT);
    for (size_t i = 0; i < p.regions.count; i++) {
        const record_simpoint *r = &p.regions.regions[i];
        assert_int_equal(r->cluster, i); /* numbered in interval order */
        assert_true(i == 0 || r->interval > p.regions.regions[i - 1].interval);
        picked[phase_of(r->interval)] = 1;
        share[phase_of(r->interval)] += r->weight;
    }
    assert_true(picked[0] && picked[1]);
    /* sums of n_j / 100: exact to rounding when no cluster straddles */
    assert_true(share[0] > 0.3 - 1e-12 && share[0] < 0.3 + 1e-12);
    assert_true(share[1] > 0.7 - 1e-12 && share[1] < 0.7 + 1e-12);
    for (unsigned k = 2; k <= p.tried; k++)
        assert_true(p.bic[0] < p.bic[k - 1]);
    record_pick_free(&p);
    record_bbv_free(&b);
    remove(path);
    free(path);
}

/* The same seed picks the same regions; one interval is one region. */
static void deterministic_and_one_interval(void **state)
{
    char *path = two_phase_file(), *one = test_temp_path("one.bb");
    record_bbv b;
    record_pick p, q;
    record_pick_options o = default_options(7);
    (void)state;

    assert_int_equal(record_bbv_read(&b, path, 7), 0);
    assert_int_equal(record_pick_regions(&b, &o, &p), 0);
    assert_int_equal(record_pick_regions(&b, &o, &q), 0);
    assert_int_equal(p.k, q.k);
    for (size_t i = 0; i < p.regions.count; i++) {
        assert_int_equal(p.regions.regions[i].interval, q.regions.regions[i].interval);
        assert_true(p.regions.regions[i].weight == q.regions.regions[i].weight);
    }
    record_pick_free(&p);
    record_pick_free(&q);
    record_bbv_free(&b);

    test_write_file(one, "# a comment\nT:5:100 \n", 21);
    assert_int_equal(record_bbv_read(&b, one, 1), 0);
    assert_int_equal(record_pick_regions(&b, &o, &p), 0);
    assert_int_equal(p.k, 1);
    assert_int_equal(p.tried, 1);
    assert_int_equal(p.regions.count, 1);
    assert_int_equal(p.regions.regions[0].interval, 0);
    assert_true(p.regions.regions[0].weight == 1.0);
    record_pick_free(&p);
    record_bbv_free(&b);
    remove(path);
    remove(one);
    free(path);
    free(one);
}

/* `text` as a file read by record_bbv_read: its code, the message in msg. */
static int read_text(const char *text, char *msg, size_t size)
{
    char *path = test_temp_path("bad.bb");
    record_bbv b;
    int rc;
    test_write_file(path, text, strlen(text));
    rc = record_bbv_read(&b, path, 1);
    snprintf(msg, size, "%s", rc ? error_message() : "");
    remove(path);
    free(path);
    return rc;
}

/* Malformed entries, zero counts and no interval are refused naming the
 * line; a missing file is an I/O error. */
static void bad_files_refused(void **state)
{
    char msg[512];
    record_bbv b;
    (void)state;

    assert_int_equal(read_text("T:1:10 \nT:2:0 \n", msg, sizeof msg), TEA_ERR_FORMAT);
    assert_non_null(strstr(msg, "line 2"));
    assert_int_equal(read_text("T:1:10 :x:3\n", msg, sizeof msg), TEA_ERR_FORMAT);
    assert_non_null(strstr(msg, "line 1"));
    assert_int_equal(read_text("T\n", msg, sizeof msg), TEA_ERR_FORMAT);
    assert_int_equal(read_text("# nothing\n", msg, sizeof msg), TEA_ERR_FORMAT);
    assert_non_null(strstr(msg, "no interval"));
    assert_int_equal(read_text("T:1:18446744073709551615 :2:1\n", msg, sizeof msg), TEA_ERR_FORMAT);
    assert_int_equal(record_bbv_read(&b, "/nonexistent/bb.out", 1), TEA_ERR_IO);
    assert_non_null(strstr(error_message(), "/nonexistent/bb.out"));
}

/* The request of record_pick_program on the two-phase file. */
typedef struct program_case {
    char *bb, *simpoints, *weights;
} program_case;

static record_pick_request request_of(const program_case *c)
{
    record_pick_request r = { 0 };
    r.bbv_in = c->bb;
    r.interval = PHASE_INTERVAL;
    r.simpoints_path = c->simpoints;
    r.weights_path = c->weights;
    r.pick = default_options(1);
    return r;
}

/* The two files read back: the regions picked, the interval named. */
static void written_files_read_back(void **state)
{
    program_case c = { two_phase_file(), test_temp_path("p.simpoints"), test_temp_path("p.weights") };
    record_pick_request r = request_of(&c);
    record_pick p;
    record_simpoint_list l;
    int exit_status = -1;
    (void)state;

    assert_int_equal(record_pick_program(&r, &p, &exit_status), 0);
    assert_int_equal(exit_status, 0);
    assert_int_equal(p.intervals, INTERVALS);
    assert_int_equal(record_simpoint_read(&l, c.simpoints, c.weights), 0);
    assert_int_equal(l.interval, PHASE_INTERVAL);
    assert_int_equal(l.count, p.regions.count);
    for (size_t i = 0; i < l.count; i++) {
        assert_int_equal(l.regions[i].interval, p.regions.regions[i].interval);
        assert_true(l.regions[i].weight - p.regions.regions[i].weight < 1e-9
                    && p.regions.regions[i].weight - l.regions[i].weight < 1e-9);
    }
    record_simpoint_free(&l);
    record_pick_free(&p);
    remove(c.simpoints);
    remove(c.weights);
    /* files made with another interval are refused, naming it, and nothing is written */
    r.interval = 10 * PHASE_INTERVAL;
    assert_int_equal(record_pick_program(&r, &p, &exit_status), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "hold 2000 instructions on average, not the --interval 20000"));
    assert_int_equal(access(c.simpoints, F_OK), -1);
    assert_int_equal(access(c.weights, F_OK), -1);
    remove(c.bb);
    free(c.bb);
    free(c.simpoints);
    free(c.weights);
}

/* test_alloc_each's run: the whole of record_pick_program from a file. */
static int pick_from_file(void *ctx)
{
    record_pick_request r = request_of(ctx);
    record_pick p;
    int exit_status, rc = record_pick_program(&r, &p, &exit_status);
    if (!rc)
        record_pick_free(&p);
    return rc;
}

static void every_allocation_failure(void **state)
{
    program_case c = { two_phase_file(), test_temp_path("a.simpoints"), test_temp_path("a.weights") };
    (void)state;
    assert_int_equal(test_alloc_each("picking SimPoint regions", pick_from_file, &c, NULL), 0);
    remove(c.bb);
    remove(c.simpoints);
    remove(c.weights);
    free(c.bb);
    free(c.simpoints);
    free(c.weights);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_phases_found_and_weighted),
        cmocka_unit_test(deterministic_and_one_interval),
        cmocka_unit_test(bad_files_refused),
        cmocka_unit_test(written_files_read_back),
        cmocka_unit_test(every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
