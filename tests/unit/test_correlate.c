/*
 * test_correlate.c: event occurrences against cycle impact (results/correlate):
 * Pearson's r on data worked out by hand, the undefined cases, large values
 * with small differences, the points of a hand-built golden PICS, and the
 * inputs of pics correlate: golden PICS files and replay directories loaded
 * and named, sampled PICS refused, repeated names numbered.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "results/correlate.h"
#include "results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXACT 1e-15 /* r of exactly linear or hand-worked data, to rounding */

/* r of the points (x[i], y[i]). */
static double pearson(const uint64_t *x, const uint64_t *y, size_t n, results_correlate_stats *stats)
{
    results_correlate_point pts[16];
    assert_true(n <= 16);
    for (size_t i = 0; i < n; i++)
        pts[i] = (results_correlate_point){ .occurrences = x[i], .value = y[i] };
    results_correlate_compute(pts, n, stats);
    return stats->r;
}

static void pearson_by_hand(void **state)
{
    (void)state;
    results_correlate_stats s;
    const uint64_t x[] = { 1, 2, 3, 4 }, up[] = { 2, 4, 6, 8 }, down[] = { 8, 6, 4, 2 };
    /* x = 1..5, y = 2 1 4 3 5: deviations (-2 -1 0 1 2) and (-1 -2 1 0 2),
     * sum of products 2 + 2 + 0 + 0 + 4 = 8, sums of squares 10 and 10:
     * r = 8 / 10 = 0.8 */
    const uint64_t x5[] = { 1, 2, 3, 4, 5 }, y5[] = { 2, 1, 4, 3, 5 };
    /* x = 1 2 3, y = 3 1 2: deviations (-1 0 1) and (1 -1 0): r = -1 / 2 */
    const uint64_t x3[] = { 1, 2, 3 }, y3[] = { 3, 1, 2 };

    assert_float_equal(pearson(x, up, 4, &s), 1.0, EXACT);
    assert_int_equal(s.instructions, 4);
    assert_true(s.occurrences == 10);
    assert_true(s.value == 20);
    assert_float_equal(pearson(x, down, 4, &s), -1.0, EXACT);
    assert_float_equal(pearson(x5, y5, 5, &s), 0.8, EXACT);
    assert_float_equal(pearson(y5, x5, 5, &s), 0.8, EXACT); /* symmetric */
    assert_float_equal(pearson(x3, y3, 3, &s), -0.5, EXACT);
}

/* Values near 2^64 with small differences: a one-pass formula in doubles
 * loses every digit of the differences; the shifted two-pass one keeps
 * them. x = 2^63 + (1..5), y = 10^19 + (2 1 4 3 5): still r = 0.8. */
static void pearson_large_values(void **state)
{
    (void)state;
    results_correlate_stats s;
    const uint64_t base_x = 1ull << 63, base_y = 10000000000000000000ull;
    uint64_t x[5], y[5];
    const uint64_t dy[] = { 2, 1, 4, 3, 5 };
    for (int i = 0; i < 5; i++) {
        x[i] = base_x + (uint64_t)i + 1;
        y[i] = base_y + dy[i];
    }
    assert_float_equal(pearson(x, y, 5, &s), 0.8, EXACT);
    /* the sums are exact beyond 64 bits */
    assert_true(s.occurrences == (unsigned __int128)base_x * 5 + 15);
    assert_true(s.value == (unsigned __int128)base_y * 5 + 15);
    /* a point at 0 and one at 2^64 - 1: differences of the full range */
    x[0] = 0;
    x[1] = UINT64_MAX;
    y[0] = 0;
    y[1] = UINT64_MAX;
    assert_float_equal(pearson(x, y, 2, &s), 1.0, EXACT);
}

/* Undefined is NaN, never 0: no points, one point, either side constant. */
static void pearson_undefined(void **state)
{
    (void)state;
    results_correlate_stats s;
    const uint64_t x[] = { 1, 2, 3 }, same[] = { 7, 7, 7 };

    results_correlate_compute(NULL, 0, &s);
    assert_true(isnan(s.r));
    assert_int_equal(s.instructions, 0);
    assert_true(s.occurrences == 0 && s.value == 0);
    assert_true(isnan(pearson(x, x, 1, &s)));
    assert_int_equal(s.instructions, 1);
    assert_true(isnan(pearson(x, same, 3, &s)));
    assert_true(s.value == 21);
    assert_true(isnan(pearson(same, x, 3, &s)));
    assert_true(s.occurrences == 21);
}

/* A golden PICS built by hand (values in cycles x PICS_UNIT):
 *
 *   0x10 base          5 cycles, 7 µops
 *   0x10 ST-L1         3 cycles, 2 µops
 *   0x10 ST-L1,ST-LLC 10 cycles, 1 µop
 *   0x20 ST-L1         1 cycle,  1 µop
 *   0x30 FL-MB         4 cycles, 3 µops
 *   0x30 ST-L1,FL-EX   2 cycles, 2 µops
 *   0x40 base          9 cycles, 9 µops
 *
 * ST-L1: 0x10 (3 occurrences, 13 cycles), 0x20 (1, 1), 0x30 (2, 2); ST-LLC:
 * 0x10 (1, 10); FL-MB: 0x30 (3, 4); FL-EX: 0x30 (2, 2); no other event.
 * r of ST-L1: deviations (1 -1 0) and (23/3 -13/3 -10/3): products sum to
 * 12, squares to 2 and 798/9, r = 12 / sqrt(2 x 798 / 9) = 36 / sqrt(1596). */
static void points_of_a_golden_pics(void **state)
{
    (void)state;
    static const struct {
        uint64_t pc;
        uint16_t psv;
        uint64_t cycles, count;
    } cells[] = {
        { 0x10, 0, 5, 7 }, { 0x10, 1, 3, 2 }, { 0x10, 5, 10, 1 }, { 0x20, 1, 1, 1 },
        { 0x30, 64, 4, 3 }, { 0x30, 129, 2, 2 }, { 0x40, 0, 9, 9 },
    };
    results_correlate_points points[TRACE_PSV_EVENT_COUNT];
    results_correlate_stats s;
    pics p;

    assert_int_equal(pics_init(&p), TEA_OK);
    for (size_t i = sizeof cells / sizeof cells[0]; i-- > 0;) /* any order */
        assert_int_equal(pics_add(&p, cells[i].pc, cells[i].psv, cells[i].cycles * PICS_UNIT, cells[i].count),
                         TEA_OK);

    memset(points, 0, sizeof points);
    assert_int_equal(results_correlate_collect(&p, 1, points), TEA_OK);
    assert_int_equal(points[TRACE_PSV_ST_L1].count, 3);
    assert_true(points[TRACE_PSV_ST_L1].items[0].occurrences == 3
                && points[TRACE_PSV_ST_L1].items[0].value == 13 * PICS_UNIT);
    assert_true(points[TRACE_PSV_ST_L1].items[1].occurrences == 1
                && points[TRACE_PSV_ST_L1].items[1].value == 1 * PICS_UNIT);
    assert_true(points[TRACE_PSV_ST_L1].items[2].occurrences == 2
                && points[TRACE_PSV_ST_L1].items[2].value == 2 * PICS_UNIT);
    assert_int_equal(points[TRACE_PSV_ST_LLC].count, 1);
    assert_true(points[TRACE_PSV_ST_LLC].items[0].occurrences == 1
                && points[TRACE_PSV_ST_LLC].items[0].value == 10 * PICS_UNIT);
    assert_int_equal(points[TRACE_PSV_FL_MB].count, 1);
    assert_true(points[TRACE_PSV_FL_MB].items[0].occurrences == 3
                && points[TRACE_PSV_FL_MB].items[0].value == 4 * PICS_UNIT);
    assert_int_equal(points[TRACE_PSV_FL_EX].count, 1);
    assert_true(points[TRACE_PSV_FL_EX].items[0].occurrences == 2);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        if (e != TRACE_PSV_ST_L1 && e != TRACE_PSV_ST_LLC && e != TRACE_PSV_FL_MB && e != TRACE_PSV_FL_EX)
            assert_int_equal(points[e].count, 0);

    results_correlate_compute(points[TRACE_PSV_ST_L1].items, points[TRACE_PSV_ST_L1].count, &s);
    assert_float_equal(s.r, 36.0 / sqrt(1596.0), 1e-12);
    assert_true(s.occurrences == 6);
    assert_true(s.value == 16 * PICS_UNIT);
    results_correlate_compute(points[TRACE_PSV_FL_MB].items, points[TRACE_PSV_FL_MB].count, &s);
    assert_true(isnan(s.r)); /* one instruction */
    results_correlate_compute(points[TRACE_PSV_DR_SQ].items, points[TRACE_PSV_DR_SQ].count, &s);
    assert_true(isnan(s.r)); /* never occurs */
    assert_int_equal(s.instructions, 0);

    /* collecting appends: a second PICS (here the same) doubles the points */
    assert_int_equal(results_correlate_collect(&p, 1, points), TEA_OK);
    assert_int_equal(points[TRACE_PSV_ST_L1].count, 6);
    results_correlate_compute(points[TRACE_PSV_ST_L1].items, points[TRACE_PSV_ST_L1].count, &s);
    assert_float_equal(s.r, 36.0 / sqrt(1596.0), 1e-12); /* duplicated points keep r */
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        results_correlate_points_free(&points[e]);

    /* --min-count 2 drops 0x20 from ST-L1 and 0x10 from ST-LLC */
    assert_int_equal(results_correlate_collect(&p, 2, points), TEA_OK);
    assert_int_equal(points[TRACE_PSV_ST_L1].count, 2);
    assert_true(points[TRACE_PSV_ST_L1].items[0].occurrences == 3 && points[TRACE_PSV_ST_L1].items[1].occurrences == 2);
    assert_int_equal(points[TRACE_PSV_ST_LLC].count, 0);
    assert_int_equal(points[TRACE_PSV_FL_EX].count, 1);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        results_correlate_points_free(&points[e]);

    /* --min-count 0: every instruction, (0, 0) where the event is absent */
    assert_int_equal(results_correlate_collect(&p, 0, points), TEA_OK);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        assert_int_equal(points[e].count, 4);
    assert_true(points[TRACE_PSV_ST_L1].items[3].occurrences == 0 && points[TRACE_PSV_ST_L1].items[3].value == 0);
    results_correlate_compute(points[TRACE_PSV_ST_TLB].items, points[TRACE_PSV_ST_TLB].count, &s);
    assert_true(isnan(s.r)); /* all (0, 0) */
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        results_correlate_points_free(&points[e]);
    pics_free(&p);
}

/* Writes a PICS with one cell (0x10, ST-L1: `cycles` cycles in `uops`
 * µops) under `scheme` and digest `digest` to `path`. */
static void write_pics(const char *path, const char *scheme, const char *digest, uint64_t cycles, uint64_t uops)
{
    pics_info info;
    pics p;

    pics_info_init(&info);
    snprintf(info.scheme, sizeof info.scheme, "%s", scheme);
    snprintf(info.trace_digest, sizeof info.trace_digest, "%s", digest);
    if (strcmp(scheme, "golden") != 0)
        info.frequency_hz = 4000, info.period = 1000, info.clock_hz = 4000000;
    assert_int_equal(pics_init(&p), TEA_OK);
    assert_int_equal(pics_add(&p, 0x10, 1u << TRACE_PSV_ST_L1, cycles * PICS_UNIT, uops), TEA_OK);
    info.golden_total = p.total;
    assert_int_equal(pics_write(path, &info, &p), TEA_OK);
    pics_free(&p);
    pics_info_free(&info);
}

/* Three inputs: a replay directory "run" (its golden.pics, named by the
 * directory), a golden PICS "lbm.pics" whose summary.csv beside it names
 * its digest "lbm-ref", and a golden PICS "other.pics" named by its file.
 * Each has one point for ST-L1, (2, 3), (4, 5), (6, 7) cycles; the pooled
 * points are all three, in reading order. r of the pooled ST-L1 points:
 * deviations (-2 0 2) and (-2 0 2) x PICS_UNIT: r = 1. A sampled PICS is
 * refused; a repeated name becomes NAME#2, NAME#3. */
static void loads_and_names_inputs(void **state)
{
    (void)state;
    char *dir = test_temp_path("run"), *base = test_temp_path("inputs");
    char golden[512], lbm[512], summary[512], other[512], sampled[512];
    results_correlate_trace t[3], pooled, extra;
    FILE *f;

    memset(t, 0, sizeof t);
    memset(&pooled, 0, sizeof pooled);
    memset(&extra, 0, sizeof extra);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(mkdir(base, 0700), 0);
    snprintf(golden, sizeof golden, "%s/%s", dir, RESULTS_GOLDEN);
    snprintf(lbm, sizeof lbm, "%s/lbm.pics", base);
    snprintf(summary, sizeof summary, "%s/%s", base, RESULTS_SUMMARY);
    snprintf(other, sizeof other, "%s/other.pics", base);
    snprintf(sampled, sizeof sampled, "%s/tea.pics", base);
    write_pics(golden, "golden", "00000000000000aa", 3, 2);
    write_pics(lbm, "golden", "00000000000000bb", 5, 4);
    write_pics(other, "golden", "00000000000000cc", 7, 6);
    write_pics(sampled, "tea", "00000000000000cc", 1, 1);
    assert_non_null(f = fopen(summary, "w"));
    fputs("trace,scheme,freq_hz,seed,error_insn_component,digest\n"
          "lbm-ref,tea,4000,1,0.1,00000000000000bb\n",
          f);
    fclose(f);

    assert_int_equal(results_correlate_load(&t[0], &pooled, dir, 1), TEA_OK);
    assert_int_equal(results_correlate_load(&t[1], &pooled, lbm, 1), TEA_OK);
    assert_int_equal(results_correlate_load(&t[2], &pooled, other, 1), TEA_OK);
    assert_string_equal(t[0].name, strrchr(dir, '/') + 1);
    assert_string_equal(t[0].digest, "00000000000000aa");
    assert_string_equal(t[1].name, "lbm-ref");
    assert_string_equal(t[2].name, "other");
    assert_int_equal(t[1].points[TRACE_PSV_ST_L1].count, 1);
    assert_true(t[1].points[TRACE_PSV_ST_L1].items[0].occurrences == 4
                && t[1].points[TRACE_PSV_ST_L1].items[0].value == 5 * PICS_UNIT);
    assert_int_equal(pooled.points[TRACE_PSV_ST_L1].count, 3);
    results_correlate_finish(&pooled);
    assert_int_equal(pooled.stats[TRACE_PSV_ST_L1].instructions, 3);
    assert_true(pooled.stats[TRACE_PSV_ST_L1].occurrences == 12);
    assert_true(pooled.stats[TRACE_PSV_ST_L1].value == 15 * PICS_UNIT);
    assert_float_equal(pooled.stats[TRACE_PSV_ST_L1].r, 1.0, EXACT);
    results_correlate_finish(&t[0]);
    assert_true(isnan(t[0].stats[TRACE_PSV_ST_L1].r)); /* one point */

    assert_int_equal(results_correlate_load(&extra, &pooled, sampled, 1), TEA_ERR_FORMAT);
    assert_contains(error_message(), "tea.pics: a sampled PICS (scheme tea); correlation needs the golden reference");
    assert_int_equal(pooled.points[TRACE_PSV_ST_L1].count, 3); /* nothing added */

    /* other, lbm-ref, other, other -> other, lbm-ref, other#2, other#3 */
    free(t[0].name);
    assert_non_null(t[0].name = strdup("other"));
    free(t[1].name);
    assert_non_null(t[1].name = strdup("lbm-ref"));
    results_correlate_trace renamed[4] = { t[0], t[1], t[2], { 0 } };
    assert_non_null(renamed[3].name = strdup("other"));
    assert_int_equal(results_correlate_unique_names(renamed, 4), TEA_OK);
    assert_string_equal(renamed[0].name, "other");
    assert_string_equal(renamed[1].name, "lbm-ref");
    assert_string_equal(renamed[2].name, "other#2");
    assert_string_equal(renamed[3].name, "other#3");

    for (size_t i = 0; i < 4; i++)
        results_correlate_trace_free(&renamed[i]);
    results_correlate_trace_free(&pooled);
    results_correlate_trace_free(&extra);
    assert_null(pooled.name);
    unlink(golden);
    unlink(lbm);
    unlink(summary);
    unlink(other);
    unlink(sampled);
    rmdir(dir);
    rmdir(base);
    free(dir);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pearson_by_hand),
        cmocka_unit_test(pearson_large_values),
        cmocka_unit_test(pearson_undefined),
        cmocka_unit_test(points_of_a_golden_pics),
        cmocka_unit_test(loads_and_names_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
