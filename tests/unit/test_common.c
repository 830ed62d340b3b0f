/*
 * test_common.c: error messages, the random number generator, atomic output
 * files, the JSON writer, CSV fields and exact arithmetic, and what
 * signals clean up (in a child process: the handlers end it).
 */
#include "testutil.h"
#include "common/cleanup.h"
#include "common/csv.h"
#include "common/error.h"
#include "common/exact.h"
#include "common/hugemem.h"
#include "common/json.h"
#include "common/outfile.h"
#include "common/progress.h"
#include "common/rng.h"
#include "common/stats.h"
#include "common/textline.h"
#include "common/threads.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void error_messages_compose(void **state)
{
    (void)state;
    assert_int_equal(error_set(TEA_ERR_FORMAT, "token %d: bad", 7), TEA_ERR_FORMAT);
    assert_string_equal(error_message(), "token 7: bad");
    assert_int_equal(error_prefix(TEA_ERR_FORMAT, "%s: ", "f.zst"), TEA_ERR_FORMAT);
    assert_string_equal(error_message(), "f.zst: token 7: bad");
    assert_int_equal(error_exit_status(TEA_ERR_USAGE), 2);
    assert_int_equal(error_exit_status(TEA_ERR_FORMAT), 1);
    assert_int_equal(error_exit_status(TEA_OK), 0);
    error_clear();
    assert_string_equal(error_message(), "");
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
    assert_contains(error_message(), "/nonexistent-dir/x");
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
    json_key(&j, "i"); /* inline: an array of arrays of numbers, each on one line, and an empty one */
    json_begin_array(&j);
    json_begin_inline_array(&j);
    json_u64(&j, 3);
    json_u64(&j, 14);
    json_end(&j);
    json_begin_inline_array(&j);
    json_end(&j);
    json_end(&j);
    json_end(&j);
    json_finish(&j);
    fclose(out);
    test_read_file(path, &data, &size);
    data[size] = 0;
    assert_string_equal((char *)data,
                        "{\n  \"a\": 1,\n  \"s\": \"q\\\"\\n\",\n  \"l\": [\n    0.1,\n    null\n  ],\n  \"e\": [],\n"
                        "  \"i\": [\n    [3,14],\n    []\n  ]\n}\n");
    free(data);
    unlink(path);
    free(path);
}

/* Writes fields through `write` (one per call, comma-separated) and returns
 * what came out, malloc'd. */
static char *csv_output(void (*write)(FILE *, const char *), const char *const *fields, size_t n)
{
    char *path = test_temp_path("csv.txt");
    FILE *out = fopen(path, "w");
    uint8_t *data;
    size_t size;

    assert_non_null(out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        write(out, fields[i]);
    }
    fclose(out);
    test_read_file(path, &data, &size);
    data[size] = 0;
    unlink(path);
    free(path);
    return (char *)data;
}

static void csv_fields_quoted_when_needed(void **state)
{
    static const char *const fields[] = { "plain", "", "a,b", "say \"hi\"", "two\nlines", "cr\r", "#x", " y" };
    char *text;
    (void)state;
    /* Commas, quotes and line ends quote a field, quotes doubled; '#' and a
     * leading space do not. */
    text = csv_output(csv_field, fields, sizeof fields / sizeof fields[0]);
    assert_string_equal(text, "plain,,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",#x, y");
    free(text);
    text = csv_output(csv_quoted, fields, 3);
    assert_string_equal(text, "\"plain\",\"\",\"a,b\"");
    free(text);
    assert_false(csv_needs_quotes("0x401000"));
    assert_true(csv_needs_quotes("ST-L1,ST-LLC"));
    /* data fields: also quoted when they start with '#' or a blank */
    text = csv_output(csv_data_field, fields, sizeof fields / sizeof fields[0]);
    assert_string_equal(text, "plain,,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",\"#x\",\" y\"");
    free(text);
}

/* The mean's 95 % interval: hand-computed for {1, 2, 3, 4, 5} (mean 3,
 * s = sqrt(2.5) = 1.5811, t(0.975, 4) = 2.776: 2.776 * 1.5811 / sqrt(5) =
 * 1.9629); undefined for one value; t quantiles from the table and, past 30
 * degrees of freedom, the expansion (t(0.975, 60) = 2.0003, the normal's
 * 1.96 far out). */
static void stats_intervals(void **state)
{
    stats_sample s = { 0 };
    (void)state;
    assert_true(isnan(stats_mean(&s)));
    stats_add(&s, 4.0);
    assert_true(isnan(stats_half_interval95(&s)));
    stats_add(&s, 1.0);
    stats_add(&s, 5.0);
    stats_add(&s, 2.0);
    stats_add(&s, 3.0);
    assert_float_equal(stats_mean(&s), 3.0, 1e-12);
    assert_float_equal(stats_stddev(&s), sqrt(2.5), 1e-12);
    assert_float_equal(stats_half_interval95(&s), 2.776 * sqrt(2.5) / sqrt(5.0), 1e-9);
    assert_float_equal(stats_t975(1), 12.706, 0);
    assert_float_equal(stats_t975(30), 2.042, 0);
    assert_float_equal(stats_t975(60), 2.0003, 2e-4);
    assert_float_equal(stats_t975(1000000), 1.95996, 1e-4);
}

/* A registered directory (a run's outputs being written) is emptied and
 * removed on SIGTERM; a forgotten registration is left alone. */
static void cleanup_removes_directories(void **state)
{
    char *dir = test_temp_path("cleanup.dir"), *kept = test_temp_path("cleanup.kept"), file[4096];
    pid_t worker;
    int status;
    (void)state;

    assert_int_equal(mkdir(dir, 0755), 0);
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/out%d.pics", dir, i);
        test_write_file(file, "x", 1);
    }
    test_write_file(kept, "y", 1);
    worker = fork();
    assert_true(worker >= 0);
    if (worker == 0) {
        cleanup_install();
        cleanup_add_dir(dir);
        cleanup_forget(cleanup_add_file(kept));
        raise(SIGTERM);
        _exit(2); /* not reached */
    }
    assert_int_equal(waitpid(worker, &status, 0), worker);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), cleanup_exit_status(SIGTERM));
    assert_int_equal(access(dir, F_OK), -1);
    assert_int_equal(access(kept, F_OK), 0);
    unlink(kept);
    free(dir);
    free(kept);
}

/* Fields written by csv_data_field split back into the same fields, and
 * every malformed quote is refused. */
static void csv_split_round_trip(void **state)
{
    static const char *const fields[] = { "plain", "", "a,b", "say \"hi\"", "#x", " y", "" };
    const size_t n = sizeof fields / sizeof fields[0];
    static const char *const bad[] = { "\"open", "\"a\"b", "a\"b", "x,\"y" };
    csv_fields f = { 0 };
    char *text;
    (void)state;
    text = csv_output(csv_data_field, fields, n);
    assert_int_equal(csv_split(&f, text, strlen(text)), TEA_OK);
    assert_int_equal(f.count, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(f.items[i], fields[i]);
    free(text);
    assert_int_equal(csv_split(&f, "", 0), TEA_OK); /* one empty field */
    assert_int_equal(f.count, 1);
    assert_string_equal(f.items[0], "");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(csv_split(&f, bad[i], strlen(bad[i])), CSV_MALFORMED);
    csv_fields_free(&f);
    assert_null(f.items);
}

static void exact_u128_decimal(void **state)
{
    char buf[EXACT_U128_DIGITS_MAX], small[4];
    exact_u128 max = ~(exact_u128)0;
    (void)state;
    assert_string_equal(exact_format_u128(0, buf, sizeof buf), "0");
    assert_string_equal(exact_format_u128(18446744073709551615ull, buf, sizeof buf), "18446744073709551615");
    /* 2^64 = 18446744073709551616 */
    assert_string_equal(exact_format_u128((exact_u128)1 << 64, buf, sizeof buf), "18446744073709551616");
    /* 2^128 - 1 = 340282366920938463463374607431768211455, 39 digits */
    assert_string_equal(exact_format_u128(max, buf, sizeof buf), "340282366920938463463374607431768211455");
    /* a short buffer keeps the leading digits */
    assert_string_equal(exact_format_u128(123456, small, sizeof small), "123");
}

static void exact_round_shares_largest_remainder(void **state)
{
    uint64_t out[4];
    (void)state;
    {
        /* 1/3 each of 100: floors 33, 33, 33 (remainders equal); the one
         * missing unit goes to the first. */
        const exact_u128 num[] = { 100, 100, 100 };
        assert_int_equal(exact_round_shares(num, 3, 3, 100, out), TEA_OK);
        assert_int_equal(out[0], 34);
        assert_int_equal(out[1], 33);
        assert_int_equal(out[2], 33);
    }
    {
        /* 10.2, 20.7, 69.1 of 100 (den 10): floors 10, 20, 69 = 99; the
         * largest remainder is 20.7's. */
        const exact_u128 num[] = { 102, 207, 691 };
        assert_int_equal(exact_round_shares(num, 3, 10, 100, out), TEA_OK);
        assert_int_equal(out[0], 10);
        assert_int_equal(out[1], 21);
        assert_int_equal(out[2], 69);
    }
    {
        /* 0.5, 0.5, 0.5, 0.5 rounded to 1 in all: floors 0; the earliest of
         * the equal remainders gets it. */
        const exact_u128 num[] = { 1, 1, 1, 1 };
        assert_int_equal(exact_round_shares(num, 4, 2, 1, out), TEA_OK);
        assert_int_equal(out[0], 1);
        assert_int_equal(out[1] + out[2] + out[3], 0);
    }
    {
        /* A numerator beyond 64 bits: 2^69 / 2^6 = 2^63 exactly, the
         * target reached by the floors alone. */
        const exact_u128 num[] = { (exact_u128)1 << 69 };
        assert_int_equal(exact_round_shares(num, 1, 64, (exact_u128)1 << 63, out), TEA_OK);
        assert_true(out[0] == 1ull << 63);
    }
}

/* The thread budget: one thread per processor less the main one; helper
 * threads only while there is room, asked-for threads even past it. */
static void thread_budget(void **state)
{
    unsigned room = threads_processors() - 1;
    (void)state;
    assert_true(threads_processors() >= 1);
    for (unsigned i = 0; i < room; i++)
        assert_int_equal(threads_try_one(), 1);
    assert_int_equal(threads_try_one(), 0);
    threads_reserve(3); /* overdrawn */
    threads_release(3);
    assert_int_equal(threads_try_one(), 0);
    threads_release(1);
    assert_int_equal(threads_try_one(), 1);
    threads_release(room);
}

/* Bounded lines: a long line is refused, a NUL byte flagged, the last line
 * counts without its newline. */
static void textline_bounds(void **state)
{
    char *path = test_temp_path("lines.txt"), *buf = NULL;
    size_t cap = 0, len;
    FILE *f;
    (void)state;
    static const char text[] = "ab\n\nxyz0123456789\nc\0d\nlast";
    test_write_file(path, text, sizeof text - 1);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(textline_read(f, &buf, &cap, 10, &len), TEXTLINE_OK);
    assert_string_equal(buf, "ab");
    assert_int_equal(textline_read(f, &buf, &cap, 10, &len), TEXTLINE_OK);
    assert_int_equal(len, 0);
    assert_int_equal(textline_read(f, &buf, &cap, 10, &len), TEXTLINE_TOO_LONG);
    fclose(f);
    f = fopen(path, "r");
    for (int i = 0; i < 3; i++)
        assert_int_equal(textline_read(f, &buf, &cap, 100, &len), TEXTLINE_OK);
    assert_int_equal(textline_read(f, &buf, &cap, 100, &len), TEXTLINE_NUL);
    assert_int_equal(textline_read(f, &buf, &cap, 100, &len), TEXTLINE_OK);
    assert_string_equal(buf, "last");
    assert_int_equal(textline_read(f, &buf, &cap, 100, &len), TEXTLINE_EOF);
    fclose(f);
    free(buf);
    unlink(path);
    free(path);
}

/* The text a file holds, malloc'd. */
static char *file_text(FILE *f)
{
    long size;
    char *text;
    fflush(f);
    size = ftell(f);
    assert_true(size >= 0);
    text = calloc((size_t)size + 1, 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    return text;
}

static void progress_counts_formatted(void **state)
{
    char buf[16];
    (void)state;
    progress_format_count(buf, sizeof buf, 0);
    assert_string_equal(buf, "0");
    progress_format_count(buf, sizeof buf, 999);
    assert_string_equal(buf, "999");
    progress_format_count(buf, sizeof buf, 999.5); /* rounds to 1000: a suffix */
    assert_string_equal(buf, "1.00k");
    progress_format_count(buf, sizeof buf, 1234);
    assert_string_equal(buf, "1.23k");
    progress_format_count(buf, sizeof buf, 45600000);
    assert_string_equal(buf, "45.6M");
    progress_format_count(buf, sizeof buf, 2e8);
    assert_string_equal(buf, "200M");
    progress_format_count(buf, sizeof buf, 3e12);
    assert_string_equal(buf, "3.00T");
}

/* Modes: auto draws nothing on a file (not a terminal), off nothing
 * anywhere, on draws a line that progress_end clears. */
static void progress_modes_and_line(void **state)
{
    progress_meter m;
    FILE *f = tmpfile();
    char *text;
    (void)state;
    assert_non_null(f);

    progress_start(&m, PROGRESS_AUTO, f, "tea gen", "cycles", 100);
    assert_false(progress_active(&m));
    progress_update(&m, 50);
    progress_end(&m);
    progress_start(&m, PROGRESS_OFF, f, "tea gen", "cycles", 100);
    assert_false(progress_active(&m));
    progress_update(&m, 50);
    progress_end(&m);
    text = file_text(f);
    assert_string_equal(text, "");
    free(text);

    progress_start(&m, PROGRESS_ON, f, "tea gen", "cycles", 200);
    assert_true(progress_active(&m));
    progress_update(&m, 0); /* below the first check: nothing */
    text = file_text(f);
    assert_string_equal(text, "");
    free(text);
    fseek(f, 0, SEEK_END);
    progress_update(&m, 50); /* the first check draws at once */
    assert_true(m.next_check > 50);
    text = file_text(f);
    assert_non_null(strstr(text, "\rtea gen:  25.0% 50 of 200 cycles, "));
    assert_non_null(strstr(text, " cycles/s, "));
    assert_non_null(strstr(text, " left"));
    assert_int_equal((size_t)m.width, strlen(text) - 1);
    free(text);
    fseek(f, 0, SEEK_END);
    progress_end(&m);
    assert_false(progress_active(&m));
    text = file_text(f);
    /* the line, then '\r', as many spaces as it had and '\r' */
    {
        size_t n = strlen(text), line = strchr(text + 1, '\r') - text - 1;
        assert_int_equal(n, 2 * line + 3);
        for (size_t i = line + 2; i < n - 1; i++)
            assert_int_equal(text[i], ' ');
        assert_int_equal(text[n - 1], '\r');
    }
    free(text);
    progress_end(&m); /* twice: nothing more */
    progress_end(NULL);
    progress_update(NULL, 1);
    fclose(f);

    /* An unknown total: the count and the rate. */
    f = tmpfile();
    assert_non_null(f);
    progress_start(&m, PROGRESS_ON, f, "tea convert", "records", 0);
    progress_update(&m, 4096);
    text = file_text(f);
    assert_non_null(strstr(text, "\rtea convert: 4.10k records, "));
    assert_null(strstr(text, "%"));
    free(text);
    /* Restarted with a total (a stream read again): the share of it. */
    progress_restart(&m, 8192);
    progress_update(&m, 4096);
    assert_true(m.next_check > 4096);
    progress_end(&m);
    fclose(f);
}

/* A process that sleeps until killed; its pid. */
static pid_t sleeper(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

/* Under cleanup_keep_on_interrupt the first SIGINT kills the registered
 * child and keeps the registered file (cleanup_interrupted says SIGINT);
 * the second removes the file and ends the process with 130. Without it,
 * one SIGTERM does both and ends with 143. Each case runs in a child,
 * which reports what it saw through its exit status. */
static void cleanup_signals(void **state)
{
    char *path = test_temp_path("cleanup.keep");
    (void)state;

    for (int keep = 0; keep < 2; keep++) {
        pid_t worker;
        int status;
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
        worker = fork();
        assert_true(worker >= 0);
        if (worker == 0) {
            pid_t child = sleeper();
            int reaped;
            if (keep)
                cleanup_keep_on_interrupt();
            else
                cleanup_install();
            cleanup_add_file(path);
            cleanup_add_child(child);
            raise(keep ? SIGINT : SIGTERM); /* without keep: does not return */
            reaped = waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
            if (!reaped || cleanup_interrupted() != SIGINT || access(path, F_OK) != 0)
                _exit(1);
            raise(SIGINT);
            _exit(2); /* not reached */
        }
        assert_int_equal(waitpid(worker, &status, 0), worker);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), keep ? cleanup_exit_status(SIGINT) : cleanup_exit_status(SIGTERM));
        assert_int_equal(access(path, F_OK), -1); /* removed in the end */
    }
    assert_int_equal(cleanup_exit_status(SIGINT), 130);
    free(path);
}

/* hugemem_calloc: a table under HUGEMEM_MIN_BYTES from calloc, one of 3 MiB
 * aligned to 2 MiB; both zeroed and writable to their last byte; a count
 * whose size overflows refused. */
static void hugemem_tables(void **state)
{
    const size_t big = 3u << 20;
    uint8_t *small = hugemem_calloc(100, 8), *large = hugemem_calloc(big / 8, 8);
    (void)state;
    assert_non_null(small);
    assert_non_null(large);
    assert_int_equal((uintptr_t)large % HUGEMEM_MIN_BYTES, 0);
    for (size_t i = 0; i < 800; i++)
        assert_int_equal(small[i], 0);
    for (size_t i = 0; i < big; i += 4096)
        assert_int_equal(large[i], 0);
    assert_int_equal(large[big - 1], 0);
    large[big - 1] = 1;
    small[799] = 1;
    assert_null(hugemem_calloc(SIZE_MAX / 4, 8));
    free(small);
    free(large);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_messages_compose),
        cmocka_unit_test(rng_is_deterministic_and_seed_dependent),
        cmocka_unit_test(rng_below_is_uniform),
        cmocka_unit_test(outfile_commit_and_abort),
        cmocka_unit_test(json_writer_output),
        cmocka_unit_test(csv_fields_quoted_when_needed),
        cmocka_unit_test(exact_u128_decimal),
        cmocka_unit_test(exact_round_shares_largest_remainder),
        cmocka_unit_test(thread_budget),
        cmocka_unit_test(textline_bounds),
        cmocka_unit_test(hugemem_tables),
        cmocka_unit_test(progress_counts_formatted),
        cmocka_unit_test(progress_modes_and_line),
        cmocka_unit_test(cleanup_signals),
        cmocka_unit_test(csv_split_round_trip),
        cmocka_unit_test(cleanup_removes_directories),
        cmocka_unit_test(stats_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
