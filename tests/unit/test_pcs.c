/*
 * test_pcs.c: trace/pcs, the distinct PCs at the start of a trace read back
 * from a file of several frames, against the model's records in memory
 * (every µop of the first N records, commits and exceptions, each PC once,
 * ascending).
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/pcs.h"

#include <stdlib.h>
#include <string.h>

/* Records per data frame: several frames in the test trace. */
#define FRAME_RECORDS 1000

static test_stream model;
static char *trace_path;

static int setup(void **state)
{
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    (void)state;
    test_model_stream("mixed", 9, 30000, &model);
    trace_path = test_temp_path("pcs.tea");
    assert_int_equal(test_stream_write(&model, &model.header, &o, trace_path), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stream_free(&model);
    free(trace_path);
    return 0;
}

/* How many distinct PCs the first `records` records hold, and whether `pc`
 * is one of them: a linear scan, independent of the code under test. */
static int holds(size_t records, uint64_t pc)
{
    for (size_t i = 0; i < records && i < model.count; i++) {
        const trace_record *r = &model.records[i];
        for (unsigned k = 0; k < trace_record_uops(r); k++)
            if (model.uops[r->first_uop + k].pc == pc)
                return 1;
    }
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* How many distinct PCs the first `records` records hold: all of them
 * copied, sorted, and the changes counted. */
static size_t count_distinct(size_t records)
{
    uint64_t *all = malloc((model.uop_count + 1) * sizeof *all);
    size_t n = 0, distinct = 0;
    assert_non_null(all);
    for (size_t i = 0; i < records && i < model.count; i++) {
        const trace_record *r = &model.records[i];
        for (unsigned k = 0; k < trace_record_uops(r); k++)
            all[n++] = model.uops[r->first_uop + k].pc;
    }
    qsort(all, n, sizeof *all, compare_u64);
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || all[i] != all[i - 1];
    free(all);
    return distinct;
}

/* The PCs of the first `records` records: distinct, ascending, each in the
 * trace's prefix, as many as the plain count finds. */
static void check_prefix(uint64_t records)
{
    uint64_t *pcs = NULL;
    size_t n = 0;
    assert_int_equal(trace_pcs_prefix(trace_path, NULL, records, &pcs, &n), 0);
    assert_int_equal(n, count_distinct((size_t)records));
    for (size_t i = 0; i < n; i++) {
        assert_true(holds((size_t)records, pcs[i]));
        if (i)
            assert_true(pcs[i - 1] < pcs[i]);
    }
    free(pcs);
}

static void prefixes(void **state)
{
    (void)state;
    assert_true(model.count > 3 * FRAME_RECORDS);
    check_prefix(1);
    check_prefix(FRAME_RECORDS + 7);         /* across a frame boundary */
    check_prefix(TRACE_PCS_DEFAULT_RECORDS); /* the whole trace */
}

static void no_records_and_errors(void **state)
{
    uint64_t *pcs = (uint64_t *)1;
    size_t n = 1;
    (void)state;
    assert_int_equal(trace_pcs_prefix(trace_path, NULL, 0, &pcs, &n), 0);
    assert_null(pcs);
    assert_int_equal(n, 0);
    assert_int_equal(trace_pcs_prefix("-", NULL, 10, &pcs, &n), TEA_ERR_USAGE);
    assert_contains(error_message(), "standard input");
    assert_true(trace_pcs_prefix("/nonexistent/trace.tea", NULL, 10, &pcs, &n) < 0);
    assert_null(pcs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefixes),
        cmocka_unit_test(no_records_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
