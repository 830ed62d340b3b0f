/*
 * test_config.c: the model configuration layer: defaults, a sample file,
 * errors naming the file and line (unknown keys, malformed and out-of-range
 * values), --set strings, cross-key checks, and writing the effective
 * configuration in a form that reads back to the same configuration.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "model/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sample[] =
    "# a sample model configuration\n"
    "\n"
    "core.width = 2          # narrow core\n"
    "core.rob_size=96\n"
    "   core.lat_div   =   20   \n"
    "l1d.size = 64KiB\n"
    "l1d.ways = 16\n"
    "l1d.prefetch = off\n"
    "llc.size = 4M\n"
    "llc.latency = 0x18\n"
    "dram.latency = 010      # decimal, not octal\n"
    "tlb.walk_through_memory = yes\n"
    "l2tlb.entries = 2048\n"
    "bpred.predictor = gshare\n"
    "bpred.gshare_history = 20\n"
    "bpred.seed = 18446744073709551615\n"
    "\t\n"
    "# the end\n";

static void defaults_are_boom_like(void **state)
{
    model_config c;
    (void)state;
    model_config_defaults(&c);
    assert_int_equal(c.core.width, 4);
    assert_int_equal(c.core.fetch_width, 8);
    assert_int_equal(c.core.rob_size, 192);
    assert_int_equal(c.core.lsq_size, 64);
    assert_int_equal(c.core.lat_mul, 3);
    assert_int_equal(c.core.lat_div, 16);
    assert_int_equal(c.core.lat_fp_add, 4);
    assert_int_equal(c.core.lat_fp_mul, 4);
    assert_int_equal(c.core.lat_fp_div, 14);
    assert_int_equal(c.core.lat_fp_sqrt, 20);
    assert_int_equal(c.mem.l1d.size, 32768);
    assert_int_equal(c.mem.llc.size, 2u << 20);
    assert_int_equal(c.tlb.dtlb_entries, 32);
    assert_int_equal(c.bpred.predictor, MODEL_BPRED_TAGE);
    assert_int_equal(model_config_check(&c), 0);
}

static void reads_a_sample_file(void **state)
{
    char *path = test_temp_path("sample.cfg");
    model_config c;
    (void)state;
    test_write_file(path, sample, strlen(sample));
    model_config_defaults(&c);
    assert_int_equal(model_config_load(&c, path), 0);
    assert_int_equal(c.core.width, 2);
    assert_int_equal(c.core.rob_size, 96);
    assert_int_equal(c.core.lat_div, 20);
    assert_int_equal(c.core.fetch_width, 8); /* untouched */
    assert_int_equal(c.mem.l1d.size, 65536);
    assert_int_equal(c.mem.l1d.ways, 16);
    assert_int_equal(c.mem.l1d.prefetch, 0);
    assert_int_equal(c.mem.l1i.prefetch, 1);
    assert_int_equal(c.mem.llc.size, 4u << 20);
    assert_int_equal(c.mem.llc_latency, 24);
    assert_int_equal(c.mem.dram_latency, 10);
    assert_int_equal(c.tlb.walk_through_memory, 1);
    assert_int_equal(c.tlb.l2_entries, 2048);
    assert_int_equal(c.bpred.predictor, MODEL_BPRED_GSHARE);
    assert_int_equal(c.bpred.gshare_history, 20);
    assert_true(c.bpred.seed == UINT64_MAX);
    assert_int_equal(model_config_check(&c), 0);
    free(path);

    assert_int_equal(model_config_load(&c, "/nonexistent/model.cfg"), TEA_ERR_IO);
    assert_contains(error_message(), "/nonexistent/model.cfg");
}

/* Parses `text` as file "t.cfg" and expects TEA_ERR_USAGE with a message
 * holding each of the NULL-terminated needles. */
static void expect_error(const char *text, ...)
{
    model_config c;
    va_list ap;
    const char *needle;
    model_config_defaults(&c);
    if (model_config_parse_text(&c, text, "t.cfg") != TEA_ERR_USAGE)
        fail_msg("accepted: %s", text);
    va_start(ap, text);
    while ((needle = va_arg(ap, const char *)))
        assert_contains(error_message(), needle);
    va_end(ap);
}

static void rejects_bad_lines_naming_file_and_line(void **state)
{
    (void)state;
    expect_error("core.width = 4\n# comment\nbogus.key = 1\n", "t.cfg:3", "unknown key 'bogus.key'", NULL);
    expect_error("\n\ncore.width = four\n", "t.cfg:3", "core.width", "four", NULL);
    expect_error("core.width = -1\n", "t.cfg:1", NULL);
    expect_error("core.width = 4x\n", "t.cfg:1", NULL);
    expect_error("core.width = 4 4\n", "t.cfg:1", NULL);
    expect_error("core.width = 0\n", "t.cfg:1", "outside", NULL);
    expect_error("core.width = 99999999999999999999999\n", "t.cfg:1", NULL);
    expect_error("l1d.ways = 8K\n", "t.cfg:1", NULL);          /* suffixes are for sizes */
    expect_error("l1d.size = 32 KiB\n", "t.cfg:1", NULL);
    expect_error("l1d.size = 0x\n", "t.cfg:1", NULL);
    expect_error("l1d.size = 0x-4\n", "t.cfg:1", NULL);
    expect_error("l1d.prefetch = maybe\n", "t.cfg:1", "l1d.prefetch", NULL);
    expect_error("bpred.predictor = perceptron\n", "t.cfg:1", "gshare or tage", NULL);
    expect_error("x\ncore.width\n", "t.cfg:1", "key = value", NULL);
    expect_error("core.width =\n", "t.cfg:1", NULL);
    expect_error(" = 4\n", "t.cfg:1", NULL);
    expect_error("core.width = 2\r\nl1d.size = 1G\r\nl1d.wayz = 2\r\n", "t.cfg:3", "l1d.wayz", NULL);
}

static void set_strings(void **state)
{
    model_config c;
    (void)state;
    model_config_defaults(&c);
    assert_int_equal(model_config_set_string(&c, "l1d.size=64KiB"), 0);
    assert_int_equal(c.mem.l1d.size, 65536);
    assert_int_equal(model_config_set_string(&c, " bpred.predictor = gshare "), 0);
    assert_int_equal(c.bpred.predictor, MODEL_BPRED_GSHARE);
    assert_int_equal(model_config_set_string(&c, "nokey=1"), TEA_ERR_USAGE);
    assert_contains(error_message(), "--set");
    assert_contains(error_message(), "nokey");
    assert_int_equal(model_config_set_string(&c, "l1d.size"), TEA_ERR_USAGE);
    assert_contains(error_message(), "key=value");
    assert_int_equal(model_config_set(&c, "core.rob_size", "128", "here"), 0);
    assert_int_equal(c.core.rob_size, 128);
}

static void check_catches_inconsistencies(void **state)
{
    model_config c;
    (void)state;
    model_config_defaults(&c);
    assert_int_equal(model_config_set_string(&c, "core.rob_size=190"), 0); /* parses, but not rows of 4 */
    assert_int_equal(model_config_check(&c), TEA_ERR_USAGE);
    assert_contains(error_message(), "core.rob_size");
    model_config_defaults(&c);
    assert_int_equal(model_config_set_string(&c, "l1d.size=48K"), 0);
    assert_int_equal(model_config_check(&c), TEA_ERR_USAGE);
    assert_contains(error_message(), "l1d");
    model_config_defaults(&c);
    assert_int_equal(model_config_set_string(&c, "llc.line_size=128"), 0);
    assert_int_equal(model_config_check(&c), TEA_ERR_USAGE);
    model_config_defaults(&c);
    assert_int_equal(model_config_set_string(&c, "bpred.tage_max_history=6"), 0);
    assert_int_equal(model_config_check(&c), TEA_ERR_USAGE);
    model_config_defaults(&c);
    assert_int_equal(model_config_set_string(&c, "core.fetch_buffer=4"), 0);
    assert_int_equal(model_config_check(&c), TEA_ERR_USAGE);
}

/* The written configuration to a malloc'd string. */
static char *written(const model_config *c)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    assert_int_equal(model_config_write(c, f), 0);
    fclose(f);
    return buf;
}

/* Writing lists every key; reading it back into defaults reproduces the
 * configuration, so writing again gives the same text. */
static void write_reads_back(void **state)
{
    model_config c, d;
    char *a, *b;
    (void)state;
    model_config_defaults(&c);
    assert_int_equal(model_config_parse_text(&c, sample, "sample"), 0);
    assert_int_equal(model_config_set_string(&c, "llc.size=1536KiB"), 0); /* not a power of 2: still written exactly */
    a = written(&c);
    assert_contains(a, "core.width                   = 2");
    assert_contains(a, "l1d.size                     = 64KiB");
    assert_contains(a, "llc.size                     = 1536KiB");
    assert_contains(a, "bpred.predictor              = gshare");
    assert_contains(a, "core.lat_fp_sqrt");
    assert_contains(a, "tlb.walk_latency");
    model_config_defaults(&d);
    if (model_config_parse_text(&d, a, "written"))
        fail_msg("%s", error_message());
    b = written(&d);
    assert_string_equal(a, b);
    free(a);
    free(b);

    model_config_defaults(&c);
    a = written(&c);
    assert_contains(a, "llc.size                     = 2MiB");
    assert_contains(a, "bpred.predictor              = tage");
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_boom_like),
        cmocka_unit_test(reads_a_sample_file),
        cmocka_unit_test(rejects_bad_lines_naming_file_and_line),
        cmocka_unit_test(set_strings),
        cmocka_unit_test(check_catches_inconsistencies),
        cmocka_unit_test(write_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
