/*
 * test_common.c: error messages, the random number generator, atomic output
 * files and the JSON writer.
 */
#include "testutil.h"
#include "common/error.h"
#include "common/json.h"
#include "common/outfile.h"
#include "common/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void error_messages_compose(void **state)
{
    (void)state;
    assert_int_equal(tea_error_set(TEA_ERR_FORMAT, "token %d: bad", 7), TEA_ERR_FORMAT);
    assert_string_equal(tea_error_message(), "token 7: bad");
    assert_int_equal(tea_error_prefix(TEA_ERR_FORMAT, "%s: ", "f.zst"), TEA_ERR_FORMAT);
    assert_string_equal(tea_error_message(), "f.zst: token 7: bad");
    assert_int_equal(tea_error_exit_status(TEA_ERR_USAGE), 2);
    assert_int_equal(tea_error_exit_status(TEA_ERR_FORMAT), 1);
    assert_int_equal(tea_error_exit_status(TEA_OK), 0);
    tea_error_clear();
    assert_string_equal(tea_error_message(), "");
}

static void rng_is_deterministic_and_seed_dependent(void **state)
{
    rng_state a, b, c;
    int differs = 0;
    (void)state;
    rng_seed(&a, 42, 0);
    rng_seed(&b, 42, 0);
    rng_seed(&c, 43, 0);
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        differs |= x != rng_next(&c);
    }
    assert_true(differs);
    assert_true(rng_hash64(1, 2, 3) == rng_hash64(1, 2, 3));
    assert_true(rng_hash64(1, 2, 3) != rng_hash64(1, 2, 4));
}

/* rng_below must be uniform: a chi-square over 10 buckets stays below the
 * 0.999 quantile (27.88 for 9 degrees of freedom). */
static void rng_below_is_uniform(void **state)
{
    enum { BUCKETS = 10, DRAWS = 100000 };
    unsigned counts[BUCKETS] = { 0 }, hash_counts[BUCKETS] = { 0 };
    double chi = 0, hash_chi = 0, expected = (double)DRAWS / BUCKETS;
    rng_state r;
    (void)state;
    rng_seed(&r, 7, 0);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = rng_below(&r, BUCKETS), h = rng_hash_below(7, 1, (uint64_t)i, BUCKETS);
        assert_true(v < BUCKETS && h < BUCKETS);
        counts[v]++;
        hash_counts[h]++;
    }
    for (int b = 0; b < BUCKETS; b++) {
        chi += (counts[b] - expected) * (counts[b] - expected) / expected;
        hash_chi += (hash_counts[b] - expected) * (hash_counts[b] - expected) / expected;
    }
    assert_true(chi < 27.88);
    assert_true(hash_chi < 27.88);
    assert_int_equal(rng_below(&r, 1), 0);
}

static void outfile_commit_and_abort(void **state)
{
    char *path = test_temp_path("outfile.txt");
    outfile *f;
    uint8_t *data;
    size_t size;
    (void)state;

    unlink(path);
    assert_int_equal(outfile_open(&f, path), 0);
    assert_int_equal(outfile_write(f, "hello", 5), 0);
    assert_int_equal(access(path, F_OK), -1); /* nothing visible before commit */
    assert_int_equal(outfile_commit(f), 0);
    test_read_file(path, &data, &size);
    assert_int_equal(size, 5);
    assert_memory_equal(data, "hello", 5);
    free(data);

    assert_int_equal(outfile_open(&f, path), 0);
    assert_int_equal(outfile_write(f, "partial", 7), 0);
    outfile_abort(f);
    test_read_file(path, &data, &size); /* the old content survives */
    assert_int_equal(size, 5);
    free(data);
    unlink(path);

    assert_int_equal(outfile_open(&f, "/nonexistent-dir/x"), TEA_ERR_IO);
    assert_contains(tea_error_message(), "/nonexistent-dir/x");
    free(path);
}

static void json_writer_output(void **state)
{
    char *path = test_temp_path("json.txt");
    FILE *out = fopen(path, "w");
    json_writer j;
    uint8_t *data;
    size_t size;
    (void)state;

    assert_non_null(out);
    json_init(&j, out);
    json_begin_object(&j);
    json_key(&j, "a");
    json_u64(&j, 1);
    json_key(&j, "s");
    json_string(&j, "q\"\n");
    json_key(&j, "l");
    json_begin_array(&j);
    json_double(&j, 0.1);
    json_null(&j);
    json_end(&j);
    json_key(&j, "e");
    json_begin_array(&j);
    json_end(&j);
    json_end(&j);
    json_finish(&j);
    fclose(out);
    test_read_file(path, &data, &size);
    data[size] = 0;
    assert_string_equal((char *)data,
                        "{\n  \"a\": 1,\n  \"s\": \"q\\\"\\n\",\n  \"l\": [\n    0.1,\n    null\n  ],\n  \"e\": []\n}\n");
    free(data);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_messages_compose),
        cmocka_unit_test(rng_is_deterministic_and_seed_dependent),
        cmocka_unit_test(rng_below_is_uniform),
        cmocka_unit_test(outfile_commit_and_abort),
        cmocka_unit_test(json_writer_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
