/*
 * test_cli.c: declarative option tables (tools/cli.h): typed destinations,
 * enumerations with values, callbacks that end the command, operands, and
 * the --help text laid out from the table.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "tools/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What parsing a command line leaves. */
typedef struct parsed {
    int flag, seen, status;
    const char *name;
    uint64_t count;
    unsigned small;
    int color;
    double hz;
} parsed;

static int calls;

/* A callback that ends the command with status 7 on "stop". */
static int stop_option(const char *command, const cli_option *opt, const char *arg)
{
    (void)command, (void)opt;
    calls++;
    return strcmp(arg, "stop") == 0 ? 7 : CLI_CONTINUE;
}

static const char *const colors[] = { "red", "green", "blue", NULL };
static const int color_values[] = { 10, 20, 30 };

/* Parses argv (NULL-terminated, argv[0] "prog cmd") into *p; returns
 * cli_parse's result and the stderr it printed in err (malloc'd). */
static int parse(parsed *p, int stop_at_operand, char **argv, char **err)
{
    const cli_option options[] = {
        CLI_FLAG("flag", 'f', &p->flag, "a flag"),
        CLI_STRING("name", 'n', "NAME", &p->name, "a name"),
        CLI_UINT("count", "N", &p->count, 1, 100, "invalid count '%s' (1-100, 100%%)", "a count"),
        CLI_UINT("small", "N", &p->small, 0, 70000, "invalid small '%s'", "an unsigned"),
        { .long_name = "color", .arg = CLI_ARG_REQUIRED, .value_name = "C", .help = "a color",
          .type = CLI_TYPE_ENUM, .dest = &p->color, .size = sizeof p->color, .names = colors,
          .values = color_values, .error = "unknown color '%s'", .seen = &p->seen },
        { .long_name = "hz", .arg = CLI_ARG_REQUIRED, .value_name = "HZ", .help = "a frequency",
          .type = CLI_TYPE_HZ, .dest = &p->hz, .error = "invalid frequency '%s'" },
        CLI_CALL("call", 0, "ARG", stop_option, NULL, "a callback"),
        CLI_OPTION_HELP,
    };
    cli_command command = CLI_COMMAND("Usage: prog cmd\n", NULL, 20, options);
    char *path = test_temp_path("stderr");
    FILE *f;
    int argc = 0, saved = dup(STDERR_FILENO), rc;
    long size;

    while (argv[argc])
        argc++;
    command.stop_at_operand = stop_at_operand;
    fflush(stderr);
    assert_non_null(freopen(path, "w+", stderr));
    rc = cli_parse(&command, argc, argv);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    assert_non_null(f = fopen(path, "r"));
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    *err = calloc(1, (size_t)size + 1);
    assert_int_equal(fread(*err, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    unlink(path);
    free(path);
    return rc;
}

static void typed_destinations(void **state)
{
    char *argv[] = { "prog cmd", "-f", "--name=x", "--count", "1e2", "--small", "65536", "--color", "blue",
                     "--hz", "4kHz", "operand", NULL };
    parsed p = { 0 };
    char *err;
    (void)state;
    assert_int_equal(parse(&p, 0, argv, &err), CLI_CONTINUE);
    assert_string_equal(err, "");
    assert_int_equal(p.flag, 1);
    assert_string_equal(p.name, "x");
    assert_int_equal(p.count, 100);
    assert_int_equal(p.small, 65536);
    assert_int_equal(p.color, 30);
    assert_int_equal(p.seen, 1);
    assert_true(p.hz == 4000.0);
    assert_int_equal(optind, 11);
    free(err);
}

static void bad_values_are_usage_errors(void **state)
{
    char *range[] = { "prog cmd", "--count", "101", NULL };
    char *word[] = { "prog cmd", "--color", "pink", NULL };
    char *hz[] = { "prog cmd", "--hz", "0", NULL };
    char *unknown[] = { "prog cmd", "--bogus", NULL };
    parsed p = { 0 };
    char *err;
    (void)state;
    assert_int_equal(parse(&p, 0, range, &err), CLI_EXIT_USAGE);
    assert_string_equal(err, "prog cmd: invalid count '101' (1-100, 100%)\nTry 'prog cmd --help'.\n");
    free(err);
    assert_int_equal(parse(&p, 0, word, &err), CLI_EXIT_USAGE);
    assert_string_equal(err, "prog cmd: unknown color 'pink'\nTry 'prog cmd --help'.\n");
    assert_int_equal(p.seen, 1);
    free(err);
    assert_int_equal(parse(&p, 0, hz, &err), CLI_EXIT_USAGE);
    assert_string_equal(err, "prog cmd: invalid frequency '0'\nTry 'prog cmd --help'.\n");
    free(err);
    assert_int_equal(parse(&p, 0, unknown, &err), CLI_EXIT_USAGE);
    assert_non_null(strstr(err, "--bogus"));
    assert_non_null(strstr(err, "Try 'prog cmd --help'.\n"));
    free(err);
}

static void callbacks_run_in_order_and_may_end_the_command(void **state)
{
    char *argv[] = { "prog cmd", "--call", "go", "--call", "stop", "--count", "0", NULL };
    parsed p = { 0 };
    char *err;
    (void)state;
    calls = 0;
    assert_int_equal(parse(&p, 0, argv, &err), 7);
    assert_int_equal(calls, 2);
    assert_string_equal(err, ""); /* --count 0 was never looked at */
    free(err);
}

static void options_may_end_at_the_first_operand(void **state)
{
    char *argv[] = { "prog cmd", "-f", "program", "-n", "x", NULL };
    parsed p = { 0 };
    char *err;
    (void)state;
    assert_int_equal(parse(&p, 1, argv, &err), CLI_CONTINUE);
    assert_int_equal(optind, 2);
    assert_null(p.name);
    free(err);
}

static void help_is_laid_out_from_the_table(void **state)
{
    const char *out = NULL, *hidden = NULL;
    int quiet = 0;
    trace_open_options open = { 0 };
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &out, "the output\nover two lines"),
        CLI_FLAG("quiet", 'q', &quiet, "no progress"),
        CLI_STRING("a-very-long-option-name", 0, "VALUE", &hidden, "squeezed"),
        CLI_STRING("hidden", 0, "X", &hidden, NULL),
        CLI_TRACE_OPTIONS(&open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND("Usage: prog cmd\n\nOptions:\n", "\nThe end.\n", 18, options);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    (void)state;
    assert_non_null(f);
    cli_print_help(f, &command);
    fclose(f);
    assert_string_equal(text, "Usage: prog cmd\n\nOptions:\n"
                              "  -o, --output OUT the output\n" /* as wide as the column: one space */
                              "                  over two lines\n"
                              "  -q, --quiet     no progress\n"
                              "  --a-very-long-option-name VALUE squeezed\n"
                              "  --rob-size N       TraceDoctor input: ROB entries its indices wrap at (default 192)\n"
                              "  --llc-latency N    TraceDoctor input: memlat cycles at which a load missed the LLC\n"
                              "                     (default 32)\n"
                              "  --clock HZ         core clock of TraceDoctor input (default 3.2G); replay and\n"
                              "                     sweep also take it over a native trace's own\n"
                              "  -h, --help      show this help\n"
                              "\nThe end.\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_destinations),
        cmocka_unit_test(bad_values_are_usage_errors),
        cmocka_unit_test(callbacks_run_in_order_and_may_end_the_command),
        cmocka_unit_test(options_may_end_at_the_first_operand),
        cmocka_unit_test(help_is_laid_out_from_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
