/*
 * test_results.c: results CSVs (results/results): the schema's rows, comments
 * anywhere, concatenated files with repeated (and reordered) headers,
 * quoting, a replay directory, malformed lines with their line numbers,
 * duplicates, the scheme order, writing and reading back, and the trace
 * names of '# trace' comments.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func\n"
#define HEADER_RULES "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,rules\n"
/* HEADER's columns and the error's interval, the run's estimate, the --samples target. */
#define HEADER_CI "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,error_ci95_low,error_ci95_high\n"
#define HEADER_RUN "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,run_cycles,run_instructions\n"
#define HEADER_NEW "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,error_ci95_low,error_ci95_high,run_cycles,run_cycles_ci95_low,run_cycles_ci95_high,run_instructions,samples_target\n"
#define HEADER_TARGET "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,samples_target\n"
/* HEADER's columns and the trace's identity. */
#define IDENTITY_HEADER                                                                                             \
    "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records\n"
/* IDENTITY_HEADER's columns, the noise floors and the rules (the header of earlier versions). */
#define FLOOR_HEADER                                                                                                \
    "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records,"       \
    "noise_floor_insn_component,noise_floor_insn,noise_floor_func,rules\n"
/* The header results_write_header writes: IDENTITY_HEADER's columns, the noise floors, the rules, the
 * error's interval, the run's estimate and the --samples target. */
#define WRITTEN_HEADER                                                                                              \
    "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records,"       \
    "noise_floor_insn_component,noise_floor_insn,noise_floor_func,rules,error_ci95_low,error_ci95_high,"             \
    "run_cycles,run_cycles_ci95_low,run_cycles_ci95_high,run_instructions,samples_target\n"

/* Writes `text` to a scratch file and returns its malloc'd path. */
static char *scratch(const char *name, const char *text)
{
    char *path = test_temp_path(name);
    test_write_file(path, text, strlen(text));
    return path;
}

/* The schema's example: comments, the header, a row with every error and
 * one without error_func. */
static void reads_rows_of_the_schema(void **state)
{
    (void)state;
    char *path = scratch("basic.csv", "# tea 0.1.0 replay: tea replay lbm.tea -o out\n"
                                      "# trace lbm: /path/lbm.tea, digest 3cdd478deb2f956d, 15015862 cycles\n" HEADER
                                      "lbm,tea,4000,1,2500,0,0.044997647,0.035638817,0.012000000\n"
                                      "lbm,ibs:all,4000,1,2450,50,0.189869360,0.189869360,\n");
    results_set s;
    results_init(&s);
    assert_int_equal(results_read(&s, path), TEA_OK);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.rows[0].trace, "lbm");
    assert_string_equal(s.rows[0].scheme, "tea");
    assert_true(s.rows[0].freq_hz == 4000.0);
    assert_int_equal(s.rows[0].seed, 1);
    assert_int_equal(s.rows[0].samples, 2500);
    assert_int_equal(s.rows[0].lost, 0);
    assert_true(s.rows[0].error[PICS_GRAN_INSN_COMPONENT] == 0.044997647);
    assert_true(s.rows[0].error[PICS_GRAN_INSN] == 0.035638817);
    assert_true(s.rows[0].error[PICS_GRAN_FUNC] == 0.012);
    assert_int_equal(s.rows[0].line, 4);
    assert_string_equal(s.rows[0].file, path);
    assert_string_equal(s.rows[1].scheme, "ibs:all");
    assert_int_equal(s.rows[1].lost, 50);
    assert_true(isnan(s.rows[1].error[PICS_GRAN_FUNC]));
    assert_int_equal(s.rows[1].line, 5);
    results_free(&s);
    assert_int_equal(s.count, 0);
    unlink(path);
    free(path);
}

/* `cat a.csv b.csv`: comments between rows, the header again (the second
 * file orders its columns differently and has a column this reader does not
 * know), CRLF line ends, blank lines and quoted fields. */
static void reads_concatenated_files(void **state)
{
    (void)state;
    char *path = scratch("cat.csv", "# first file\r\n" HEADER "lbm,tea,4000,1,10,0,0.5,0.25,\r\n"
                                    "\n"
                                    "# tea 0.1.0 sweep: ...\n"
                                    "scheme,trace,seed,freq_hz,future,error_insn\n"
                                    "# trace \"a,b\": x, digest 0123456789abcdef\n"
                                    "nci,\"a,b\",7,1e6,whatever,0.125\n"
                                    "\"tea\",\"say \"\"hi\"\"\",2,100,,1\n");
    results_set s;
    results_init(&s);
    assert_int_equal(results_read(&s, path), TEA_OK);
    assert_int_equal(s.count, 3);
    assert_string_equal(s.rows[0].trace, "lbm");
    assert_true(s.rows[0].error[PICS_GRAN_INSN] == 0.25);
    assert_string_equal(s.rows[1].trace, "a,b");
    assert_string_equal(s.rows[1].scheme, "nci");
    assert_true(s.rows[1].freq_hz == 1e6);
    assert_int_equal(s.rows[1].seed, 7);
    assert_int_equal(s.rows[1].samples, 0); /* no such column there */
    assert_true(isnan(s.rows[1].error[PICS_GRAN_INSN_COMPONENT]));
    assert_true(s.rows[1].error[PICS_GRAN_INSN] == 0.125);
    assert_int_equal(s.rows[1].line, 8);
    assert_string_equal(s.rows[2].trace, "say \"hi\"");
    assert_true(s.rows[2].error[PICS_GRAN_INSN] == 1.0);
    assert_int_equal(s.rows[2].line, 9);
    results_free(&s);
    unlink(path);
    free(path);
}

/* A directory stands for its summary.csv; files append to one set. */
static void reads_a_replay_directory(void **state)
{
    (void)state;
    static const char summary_text[] = HEADER "mcf,spe,4000,3,1,2,0.1,0.2,0.3\n";
    char *dir = test_temp_path("replaydir"), *summary, *other;
    size_t n = strlen(dir) + sizeof "/summary.csv";
    results_set s;

    assert_int_equal(mkdir(dir, 0755), 0);
    summary = malloc(n);
    assert_non_null(summary);
    snprintf(summary, n, "%s/summary.csv", dir);
    test_write_file(summary, summary_text, strlen(summary_text));
    other = scratch("other.csv", HEADER "lbm,ris,4000,1,1,2,0.4,0.5,0.6\n");
    results_init(&s);
    assert_int_equal(results_read(&s, dir), TEA_OK);
    assert_int_equal(results_read(&s, other), TEA_OK);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.rows[0].file, summary);
    assert_string_equal(s.rows[0].trace, "mcf");
    assert_int_equal(s.rows[0].seed, 3);
    assert_true(s.rows[0].error[PICS_GRAN_FUNC] == 0.3);
    assert_string_equal(s.rows[1].file, other);
    assert_int_equal(s.rows[1].line, 2);
    results_free(&s);
    unlink(summary);
    unlink(other);
    rmdir(dir);
    free(summary);
    free(other);
    free(dir);
}

/* Every malformed file is refused with its line; rows of earlier files
 * stay, the broken file's rows go. */
static void refuses_bad_lines(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int code;
        const char *message;
    } cases[] = {
        { HEADER "lbm,tea,4000,1,1,0,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: 8 fields where the header has 9" },
        { HEADER "lbm,tea,4000,1,1,0,0.1,0.1,0.1\nlbm,tea,abc,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT,
          "line 3: freq_hz 'abc' is not a frequency" },
        { HEADER "lbm,tea,0,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: freq_hz '0'" },
        { HEADER "lbm,tea,inf,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: freq_hz 'inf'" },
        { HEADER "lbm,tea,4000,-1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: seed '-1' is not an unsigned" },
        { HEADER "lbm,tea,4000,1.5,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: seed '1.5'" },
        { HEADER "lbm,tea,4000,1,x,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: samples 'x'" },
        { HEADER "lbm,tea,4000,1,1,0,1.5,0.1,0.1\n", TEA_ERR_FORMAT,
          "line 2: error_insn_component '1.5' is not a fraction from 0 to 1" },
        { HEADER "lbm,tea,4000,1,1,0,0.1,-0.1,0.1\n", TEA_ERR_FORMAT, "line 2: error_insn '-0.1'" },
        { HEADER "lbm,tea,4000,1,1,0,0.1,0.1,nan\n", TEA_ERR_FORMAT, "line 2: error_func 'nan'" },
        { HEADER "lbm,tea,4000,1,1,0,0.1,0.1, 0.1\n", TEA_ERR_FORMAT, "line 2: error_func ' 0.1'" },
        { HEADER ",tea,4000,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: empty trace name" },
        { HEADER "lbm,,4000,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: empty scheme" },
        { HEADER "\"lbm,tea,4000,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: malformed quoting" },
        { HEADER "\"lbm\"x,tea,4000,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: malformed quoting" },
        { HEADER "lb\"m,tea,4000,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT, "line 2: malformed quoting" },
        { "# comment\nlbm,tea,4000,1,1,0,0.1,0.1,0.1\n", TEA_ERR_FORMAT,
          "line 2: expected the header 'trace,scheme,freq_hz,seed,...' (no column trace, scheme, freq_hz, seed)" },
        { "scheme,freq_hz,period,samples,lost,error_insn_component,error_insn\ntea,4000,1,1,0,0.1,0.1\n",
          TEA_ERR_FORMAT, "line 1: expected the header 'trace,scheme,freq_hz,seed,...' (no column trace, seed)" },
        { "trace,scheme,freq_hz,seed,seed\n", TEA_ERR_FORMAT, "line 1: column 'seed' appears twice" },
        { "# only comments\n\n", TEA_ERR_FORMAT, "no header line" },
        { HEADER_RULES "lbm,tea,4000,1,1,0,0.1,0.1,0.1,Tracedoctor\n", TEA_ERR_FORMAT,
          "line 2: rules 'Tracedoctor' is neither default nor tracedoctor" },
        { "", TEA_ERR_FORMAT, "no header line" },
        { HEADER_CI "lbm,tea,4000,1,1,0,0.1,0.1,0.1,0.05,\n", TEA_ERR_FORMAT,
          "line 2: error_ci95_low and error_ci95_high: both or neither" },
        { HEADER_CI "lbm,tea,4000,1,1,0,0.1,0.1,0.1,0.2,0.1\n", TEA_ERR_FORMAT, "low <= high" },
        { HEADER_CI "lbm,tea,4000,1,1,0,0.1,0.1,0.1,0.05,1.5\n", TEA_ERR_FORMAT,
          "line 2: error_ci95_high '1.5' is not a number from 0 to 1" },
        { HEADER_RUN "lbm,tea,4000,1,1,0,0.1,0.1,0.1,1e9,\n", TEA_ERR_FORMAT,
          "line 2: run_cycles and run_instructions go together" },
        { HEADER_RUN "lbm,tea,4000,1,1,0,0.1,0.1,0.1,-5,7\n", TEA_ERR_FORMAT,
          "line 2: run_cycles '-5' is not a number of 0 or more" },
        { HEADER_TARGET "lbm,tea,4000,1,1,0,0.1,0.1,0.1,0\n", TEA_ERR_FORMAT,
          "line 2: samples_target '0' is not an integer of 1 or more" },
    };
    char *good = scratch("good.csv", HEADER "lbm,tea,4000,1,1,0,0.1,0.1,0.1\n");

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = scratch("bad.csv", cases[i].text);
        results_set s;
        results_init(&s);
        assert_int_equal(results_read(&s, good), TEA_OK);
        assert_int_equal(results_read(&s, path), cases[i].code);
        assert_contains(error_message(), path);
        assert_contains(error_message(), cases[i].message);
        assert_int_equal(s.count, 1);
        assert_string_equal(s.rows[0].trace, "lbm");
        results_free(&s);
        unlink(path);
        free(path);
    }
    {
        results_set s;
        char *missing = test_temp_path("missing.csv");
        results_init(&s);
        assert_int_equal(results_read(&s, missing), TEA_ERR_IO);
        assert_contains(error_message(), "cannot open");
        results_free(&s);
        free(missing);
    }
    unlink(good);
    free(good);
}

/* A run given twice with the same figures counts once (the first is kept,
 * order unchanged); with other figures it is refused naming both lines. */
static void dedupes_identical_and_refuses_inconsistent_repeats(void **state)
{
    (void)state;
    char *a = scratch("dup-a.csv", HEADER "lbm,tea,4000,1,1,0,0.1,0.1,\n"
                                          "lbm,tea,4000,2,1,0,0.3,0.1,\n"
                                          "nab,tea,4000,1,1,0,0.2,0.1,\n");
    char *b = scratch("dup-b.csv", HEADER "lbm,tea,4000,1,1,0,0.1,0.1,\n"
                                          "lbm,tea,4e3,1,1,0,0.1,0.1,\n"
                                          "mcf,tea,4000,1,1,0,0.2,0.1,\n");
    char *c = scratch("dup-c.csv", HEADER "nab,tea,4000,1,1,0,0.2,0.1,0.05\n");
    results_set s;

    results_init(&s);
    assert_int_equal(results_read(&s, a), TEA_OK);
    assert_int_equal(results_read(&s, b), TEA_OK);
    assert_int_equal(s.count, 6);
    assert_int_equal(results_dedupe(&s), TEA_OK);
    assert_int_equal(s.count, 4);
    assert_string_equal(s.rows[0].trace, "lbm");
    assert_int_equal(s.rows[0].seed, 1);
    assert_string_equal(s.rows[0].file, a);
    assert_int_equal(s.rows[1].seed, 2);
    assert_string_equal(s.rows[2].trace, "nab");
    assert_string_equal(s.rows[3].trace, "mcf");
    /* an empty error_func against a filled one is a different figure */
    assert_int_equal(results_read(&s, c), TEA_OK);
    assert_int_equal(results_dedupe(&s), TEA_ERR_FORMAT);
    assert_contains(error_message(), c);
    assert_contains(error_message(), "line 2: trace nab, scheme tea at 4000 Hz, seed 1 repeats");
    assert_contains(error_message(), a);
    assert_contains(error_message(), "line 4 with other values");
    results_free(&s);
    unlink(a);
    unlink(b);
    unlink(c);
    free(a);
    free(b);
    free(c);
}

/* A run with a noise floor repeats the same run without one: one row, with
 * the floor; two different floors are different figures. */
static void dedupe_keeps_the_noise_floor(void **state)
{
    (void)state;
    char *plain = scratch("floor-a.csv", HEADER "lbm,ibs,4000,1,5,1,0.4,0.3,\n");
    char *floored = scratch("floor-b.csv", FLOOR_HEADER "lbm,ibs,4000,1,5,1,0.4,0.3,,,,,0.2,0.1,,\n");
    char *other = scratch("floor-c.csv", FLOOR_HEADER "lbm,ibs,4000,1,5,1,0.4,0.3,,,,,0.25,0.1,,\n");
    results_set s;

    results_init(&s);
    assert_int_equal(results_read(&s, plain), TEA_OK);
    assert_int_equal(results_read(&s, floored), TEA_OK);
    assert_int_equal(results_dedupe(&s), TEA_OK);
    assert_int_equal(s.count, 1);
    assert_string_equal(s.rows[0].file, plain);
    assert_true(s.rows[0].noise_floor[PICS_GRAN_INSN_COMPONENT] == 0.2);
    assert_true(s.rows[0].noise_floor[PICS_GRAN_INSN] == 0.1);
    assert_true(isnan(s.rows[0].noise_floor[PICS_GRAN_FUNC]));
    assert_int_equal(results_read(&s, other), TEA_OK);
    assert_int_equal(results_dedupe(&s), TEA_ERR_FORMAT);
    results_free(&s);
    unlink(plain);
    unlink(floored);
    unlink(other);
    free(plain);
    free(floored);
    free(other);
}

/* A repeat's error interval, run and --samples target go to the kept row
 * that lacks them (an older file without the columns read first); two
 * different targets are different runs' figures. */
static void dedupe_keeps_the_new_columns(void **state)
{
    (void)state;
    char *old_row = scratch("new-a.csv", HEADER "lbm,ibs,4000,1,5,1,0.4,0.3,\n");
    char *new_row = scratch("new-b.csv", HEADER_NEW "lbm,ibs,4000,1,5,1,0.4,0.3,,0.3,0.5,2e9,,,3e9,1000\n");
    char *other = scratch("new-c.csv", HEADER_NEW "lbm,ibs,4000,1,5,1,0.4,0.3,,,,,,,,2000\n");
    results_set s;

    results_init(&s);
    assert_int_equal(results_read(&s, old_row), TEA_OK);
    assert_int_equal(results_read(&s, new_row), TEA_OK);
    assert_int_equal(results_dedupe(&s), TEA_OK);
    assert_int_equal(s.count, 1);
    assert_int_equal(s.rows[0].samples_target, 1000);
    assert_true(s.rows[0].has_error_ci95 && s.rows[0].error_ci95[0] == 0.3 && s.rows[0].error_ci95[1] == 0.5);
    assert_true(s.rows[0].has_run && s.rows[0].run_cycles == 2e9 && s.rows[0].run_instructions == 3e9);
    assert_int_equal(results_read(&s, other), TEA_OK);
    assert_int_equal(results_dedupe(&s), TEA_ERR_FORMAT);
    results_free(&s);
    unlink(old_row);
    unlink(new_row);
    unlink(other);
    free(old_row);
    free(new_row);
    free(other);
}

static int compare_labels(const void *x, const void *y)
{
    return results_scheme_compare(*(const char *const *)x, *(const char *const *)y);
}

static void orders_schemes(void **state)
{
    (void)state;
    const char *labels[] = { "zzz", "ris", "ibs:all", "tea", "golden", "nci:all", "tea:all", "spe", "nci",
                             "ibs", "ibs:b", "abc", "teas" };
    const char *expected[] = { "tea", "nci", "ibs", "spe", "ris", "tea:all", "nci:all", "ibs:all", "ibs:b",
                               "abc", "golden", "teas", "zzz" };
    qsort(labels, sizeof labels / sizeof labels[0], sizeof labels[0], compare_labels);
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        assert_string_equal(labels[i], expected[i]);
    assert_int_equal(results_scheme_compare("ibs", "ibs"), 0);
    assert_string_equal(results_error_column(PICS_GRAN_INSN_COMPONENT), "error_insn_component");
    assert_string_equal(results_error_column(PICS_GRAN_INSN), "error_insn");
    assert_string_equal(results_error_column(PICS_GRAN_FUNC), "error_func");
    assert_string_equal(results_floor_column(PICS_GRAN_INSN_COMPONENT), "noise_floor_insn_component");
    assert_string_equal(results_floor_column(PICS_GRAN_FUNC), "noise_floor_func");
}

/* What results_write_row writes reads back to the same row; names that
 * need it are quoted (a leading '#' would otherwise make a comment). */
static void writes_rows_that_read_back(void **state)
{
    (void)state;
    results_row rows[2] = {
        { .trace = "a,b",
          .scheme = "ibs:all",
          .freq_hz = 3333.333333333333,
          .seed = 18446744073709551615ull,
          .samples = 5,
          .lost = 6,
          .error = { 0.044997647, 1, NAN },
          .digest = "3cdd478deb2f956d",
          .cycles = 15015862,
          .records = 5353921,
          .noise_floor = { 0.031, 0.02, NAN },
          .rules = "tracedoctor",
          .has_error_ci95 = 1,
          .error_ci95 = { 0.03, 0.06 },
          .has_run = 1,
          .run_cycles = 1.5e9,
          .run_cycles_ci95 = { 1.25e9, 1.75e9 },
          .run_instructions = 2e9,
          .samples_target = 100000 },
        { .trace = "#x",
          .scheme = "say \"hi\"",
          .freq_hz = 1e6,
          .seed = 0,
          .error = { 0, 0.5, 0.25 },
          .noise_floor = { NAN, NAN, NAN },
          .has_run = 1,
          .run_cycles = 3e6,
          .run_cycles_ci95 = { NAN, NAN },
          .run_instructions = 4e6 },
    };
    char *path = test_temp_path("written.csv");
    FILE *f = fopen(path, "w");
    results_set s;
    uint8_t *text;
    size_t size;

    assert_non_null(f);
    results_write_header(f);
    for (int i = 0; i < 2; i++)
        results_write_row(f, &rows[i]);
    assert_int_equal(fclose(f), 0);
    test_read_file(path, &text, &size);
#define WRITTEN WRITTEN_HEADER "\"a,b\",ibs:all,3333.33333333333,18446744073709551615,5,6,0.044997647,1.000000000,," \
                               "3cdd478deb2f956d,15015862,5353921,0.031000000,0.020000000,,tracedoctor," \
                               "0.030000000,0.060000000,1500000000,1250000000,1750000000,2000000000,100000\n" \
                               "\"#x\",\"say \"\"hi\"\"\",1000000,0,0,0,0.000000000," \
                               "0.500000000,0.250000000,,,,,,,default,,,3000000,,,4000000,\n"
    assert_int_equal(size, strlen(WRITTEN));
    assert_memory_equal(text, WRITTEN, size);
#undef WRITTEN
    free(text);
    results_init(&s);
    assert_int_equal(results_read(&s, path), TEA_OK);
    assert_int_equal(s.count, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(s.rows[i].trace, rows[i].trace);
        assert_string_equal(s.rows[i].scheme, rows[i].scheme);
        assert_int_equal(s.rows[i].seed, rows[i].seed);
        assert_int_equal(s.rows[i].samples, rows[i].samples);
        for (int g = 0; g < RESULTS_GRANULARITIES; g++) {
            assert_int_equal(isnan(s.rows[i].error[g]), isnan(rows[i].error[g]));
            if (!isnan(rows[i].error[g]))
                assert_true(s.rows[i].error[g] == rows[i].error[g]);
            assert_int_equal(isnan(s.rows[i].noise_floor[g]), isnan(rows[i].noise_floor[g]));
            if (!isnan(rows[i].noise_floor[g]))
                assert_true(s.rows[i].noise_floor[g] == rows[i].noise_floor[g]);
        }
    }
    assert_true(fabs(s.rows[0].freq_hz - rows[0].freq_hz) < 1e-9);
    assert_string_equal(s.rows[0].digest, "3cdd478deb2f956d");
    /* the interval, the run and the target read back; the second row's run has no interval */
    assert_true(s.rows[0].has_error_ci95 && s.rows[0].error_ci95[0] == 0.03 && s.rows[0].error_ci95[1] == 0.06);
    assert_true(s.rows[0].has_run && s.rows[0].run_cycles == 1.5e9 && s.rows[0].run_instructions == 2e9);
    assert_true(s.rows[0].run_cycles_ci95[0] == 1.25e9 && s.rows[0].run_cycles_ci95[1] == 1.75e9);
    assert_int_equal(s.rows[0].samples_target, 100000);
    assert_false(s.rows[1].has_error_ci95);
    assert_true(s.rows[1].has_run && s.rows[1].run_cycles == 3e6 && isnan(s.rows[1].run_cycles_ci95[0]));
    assert_int_equal(s.rows[1].samples_target, 0);
    assert_int_equal(s.rows[0].cycles, 15015862);
    assert_int_equal(s.rows[0].records, 5353921);
    assert_string_equal(s.rows[0].rules, "tracedoctor");
    assert_string_equal(s.rows[1].rules, "default"); /* written for a row without rules */
    assert_null(s.rows[1].digest);
    assert_int_equal(s.rows[1].cycles, 0);
    assert_int_equal(s.rows[1].records, 0);
    results_free(&s);
    unlink(path);
    free(path);
}

/* The digest column names the trace: the first row with that digest. */
static void finds_trace_names_in_the_digest_column(void **state)
{
    (void)state;
    char *path = scratch("digests.csv", IDENTITY_HEADER "lbm,tea,4000,1,5,0,0.5,0.5,,3cdd478deb2f956d,100,50\n"
                                                       "\"my, trace\",tea,4000,1,5,0,0.5,0.5,,00000000000000ff,100,50\n"
                                                       "other,tea,4000,1,5,0,0.5,0.5,,00000000000000ff,100,50\n"
                                                       "nodigest,tea,4000,1,5,0,0.5,0.5,,,,\n");
    char *name;

    assert_int_equal(results_trace_name(path, "3cdd478deb2f956d", &name), TEA_OK);
    assert_string_equal(name, "lbm");
    free(name);
    assert_int_equal(results_trace_name(path, "00000000000000ff", &name), TEA_OK);
    assert_string_equal(name, "my, trace");
    free(name);
    assert_int_equal(results_trace_name(path, "1111111111111111", &name), TEA_OK);
    assert_null(name);
    unlink(path);
    free(path);
}

/* The '# trace NAME: ...' comment with a matching digest names the trace. */
static void finds_trace_names_in_comments(void **state)
{
    (void)state;
    char *path = scratch("names.csv", "# tea 0.1.0 replay: tea replay lbm.tea -o out\n"
                                      "# trace lbm: /data/lbm.tea, digest 3cdd478deb2f956d, 15015862 cycles\n" HEADER
                                      "# trace my trace: t: x.tea, digest 00000000000000ff\n"
                                      "# trace nab: nab.tea, digest 00000000000000aa\n");
    char *name, *missing = test_temp_path("no-such.csv");

    assert_int_equal(results_trace_name(path, "3cdd478deb2f956d", &name), TEA_OK);
    assert_string_equal(name, "lbm");
    free(name);
    assert_int_equal(results_trace_name(path, "00000000000000ff", &name), TEA_OK);
    assert_string_equal(name, "my trace");
    free(name);
    assert_int_equal(results_trace_name(path, "00000000000000aa", &name), TEA_OK);
    assert_string_equal(name, "nab");
    free(name);
    /* a prefix of a digest, another digest, a missing file: no name */
    assert_int_equal(results_trace_name(path, "00000000000000a", &name), TEA_OK);
    assert_null(name);
    assert_int_equal(results_trace_name(path, "1111111111111111", &name), TEA_OK);
    assert_null(name);
    assert_int_equal(results_trace_name(missing, "3cdd478deb2f956d", &name), TEA_OK);
    assert_null(name);
    unlink(path);
    free(path);
    free(missing);
}

/* The files of a replay directory: the sampler file names (':' as '-',
 * the frequency with several), and the TEA PICS a directory holds: tea.pics,
 * the one tea-FREQhz.pics, or a refusal that lists several or says none. */
static void names_the_files_of_a_replay_directory(void **state)
{
    char name[RESULTS_NAME_MAX], *dir = test_temp_path("layout"), *found = NULL, *golden = NULL, *path;
    (void)state;

    results_pics_name("ibs:all", 1, 4000, name, sizeof name);
    assert_string_equal(name, "ibs-all-4000hz.pics");
    results_pics_name("tea", 0, 4000, name, sizeof name);
    assert_string_equal(name, "tea.pics");
    assert_true(results_is_dir_file("summary.json"));
    assert_true(results_is_dir_file("x.pics"));
    assert_false(results_is_dir_file(".pics"));
    assert_false(results_is_dir_file("notes.txt"));
    path = results_dir_file("out/", "golden.pics");
    assert_string_equal(path, "out/golden.pics");
    free(path);

    assert_int_equal(mkdir(dir, 0755), 0);
    assert_true(results_is_dir(dir));
    /* no golden.pics: not a replay directory */
    assert_int_equal(results_dir_pics(dir, "tea", "TEA", &found, &golden), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "without golden.pics"));
    path = results_dir_file(dir, "golden.pics");
    test_write_file(path, "", 0);
    free(path);
    assert_int_equal(results_dir_pics(dir, "tea", "TEA", &found, &golden), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "without TEA PICS"));
    /* one frequency: taken; two: listed in name order */
    path = results_dir_file(dir, "tea-4000hz.pics");
    test_write_file(path, "", 0);
    free(path);
    assert_int_equal(results_dir_pics(dir, "tea", "TEA", &found, &golden), TEA_OK);
    assert_non_null(strstr(found, "/tea-4000hz.pics"));
    assert_non_null(strstr(golden, "/golden.pics"));
    free(found);
    free(golden);
    path = results_dir_file(dir, "tea-1e+06hz.pics");
    test_write_file(path, "", 0);
    free(path);
    assert_int_equal(results_dir_pics(dir, "tea", "TEA", &found, &golden), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "at 2 frequencies: pass one of tea-1e+06hz.pics, tea-4000hz.pics"));
    assert_null(found);
    assert_null(golden);
    for (const char *const *n = (const char *const[]){ "golden.pics", "tea-4000hz.pics", "tea-1e+06hz.pics", NULL }; *n;
         n++) {
        path = results_dir_file(dir, *n);
        unlink(path);
        free(path);
    }
    rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_rows_of_the_schema),
        cmocka_unit_test(reads_concatenated_files),
        cmocka_unit_test(reads_a_replay_directory),
        cmocka_unit_test(refuses_bad_lines),
        cmocka_unit_test(dedupes_identical_and_refuses_inconsistent_repeats),
        cmocka_unit_test(dedupe_keeps_the_noise_floor),
        cmocka_unit_test(dedupe_keeps_the_new_columns),
        cmocka_unit_test(orders_schemes),
        cmocka_unit_test(writes_rows_that_read_back),
        cmocka_unit_test(finds_trace_names_in_comments),
        cmocka_unit_test(finds_trace_names_in_the_digest_column),
        cmocka_unit_test(names_the_files_of_a_replay_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
