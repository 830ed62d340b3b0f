/*
 * cli.c: shared command-line helpers (see cli.h).
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "cli.h"
#include "common/error.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", command);
    return CLI_EXIT_USAGE;
}

int cli_usage_hint(const char *command)
{
    fprintf(stderr, "Try '%s --help'.\n", command);
    return CLI_EXIT_USAGE;
}

int cli_fail(const char *command, int code)
{
    fprintf(stderr, "%s: %s\n", command, tea_error_message());
    return tea_error_exit_status(code);
}

/* Multiplier of a k/M/G suffix, 1 for none, 0 for anything else. */
static double suffix_scale(const char *s)
{
    if (*s == '\0')
        return 1;
    if (s[1] != '\0')
        return 0;
    switch (*s) {
    case 'k':
    case 'K':
        return 1e3;
    case 'M':
        return 1e6;
    case 'G':
        return 1e9;
    default:
        return 0;
    }
}

int cli_parse_trace_format(const char *command, const char *text, trace_format *out)
{
    if (strcmp(text, trace_format_name(TRACE_FORMAT_NATIVE)) == 0)
        *out = TRACE_FORMAT_NATIVE;
    else if (strcmp(text, trace_format_name(TRACE_FORMAT_TRACEDOCTOR)) == 0)
        *out = TRACE_FORMAT_TRACEDOCTOR;
    else
        return cli_usage_error(command, "unknown format '%s' (native or tracedoctor)", text);
    return 0;
}

int cli_parse_u64(const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v;
    double d, scale;

    if (!text || !*text || *text == '-' || *text == '+')
        return -1;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno == 0 && *end == '\0') {
        *out = v;
        return 0;
    }
    errno = 0;
    d = strtod(text, &end);
    scale = suffix_scale(end);
    if (errno || end == text || scale == 0)
        return -1;
    d *= scale;
    if (!isfinite(d) || d < 0 || d >= 18446744073709551616.0 || d != floor(d))
        return -1;
    *out = (uint64_t)d;
    return 0;
}

int cli_parse_hz(const char *text, double *out)
{
    char *end;
    double d, scale;

    if (!text || !*text)
        return -1;
    errno = 0;
    d = strtod(text, &end);
    if (errno || end == text)
        return -1;
    {
        /* Accept an optional "Hz" after the suffix: "4k", "4kHz", "3.2GHz". */
        char suffix[4] = "";
        size_t len = strlen(end);
        if (len >= 2 && strcmp(end + len - 2, "Hz") == 0)
            len -= 2;
        if (len >= sizeof suffix)
            return -1;
        memcpy(suffix, end, len);
        suffix[len] = '\0';
        scale = suffix_scale(suffix);
    }
    d *= scale;
    if (scale == 0 || !isfinite(d) || d <= 0)
        return -1;
    *out = d;
    return 0;
}

/* Whether an argument needs quoting to survive a POSIX shell. */
static int needs_quotes(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *s))
            return 1;
    return 0;
}

char *cli_join_command(int argc, char **argv)
{
    size_t size = 1;
    char *out, *p;

    for (int i = 0; i < argc; i++)
        size += 4 * strlen(argv[i]) + 3;
    if (!(out = malloc(size)))
        return NULL;
    p = out;
    for (int i = 0; i < argc; i++) {
        if (i)
            *p++ = ' ';
        if (i == 0 || !needs_quotes(argv[i])) { /* argv[0] is "tea <command>" */
            p = stpcpy(p, argv[i]);
            continue;
        }
        *p++ = '\'';
        for (const char *s = argv[i]; *s; s++) {
            if (*s == '\'') {
                p = stpcpy(p, "'\\''");
            } else {
                *p++ = *s;
            }
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

const char *cli_version(void)
{
    return "tea " TEA_VERSION;
}

int cli_trace_option(const char *command, int opt, const char *arg, trace_open_options *o)
{
    uint64_t v;
    double hz;

    switch (opt) {
    case CLI_OPT_ROB_SIZE:
        if (cli_parse_u64(arg, &v) || v == 0 || v > TRACE_MAX_ROB)
            return cli_usage_error(command, "invalid ROB size '%s' (1-%d entries)", arg, TRACE_MAX_ROB);
        o->rob_size = (unsigned)v;
        return 0;
    case CLI_OPT_LLC_LATENCY:
        if (cli_parse_u64(arg, &v) || v == 0 || v > UINT16_MAX)
            return cli_usage_error(command, "invalid LLC-miss latency '%s' (1-65535 cycles)", arg);
        o->llc_latency = (unsigned)v;
        return 0;
    case CLI_OPT_CLOCK:
        if (cli_parse_hz(arg, &hz) || hz < 1 || hz > 1e12)
            return cli_usage_error(command, "invalid clock frequency '%s'", arg);
        o->clock_hz = (uint64_t)(hz + 0.5);
        return 0;
    default:
        return 1;
    }
}

int report_symbol_option(const char *command, int opt, const char *arg, symbolize_options *sym)
{
    switch (opt) {
    case REPORT_OPT_ELF:
        sym->elf_path = arg;
        return 0;
    case REPORT_OPT_ADJUST_VMA:
        if (symbolize_parse_offset(arg, &sym->adjust_vma))
            return cli_usage_error(command, "invalid offset '%s' (hex with 0x, or decimal)", arg);
        sym->has_adjust_vma = 1;
        return 0;
    default:
        return 1;
    }
}

static void dispatch_usage(FILE *out, const char *program, const char *intro, const char *epilogue,
                           const cli_subcommand *table, size_t count)
{
    fprintf(out, "Usage: %s COMMAND [OPTIONS] [ARGS]\n\n%s\n\nCommands:\n", program, intro);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "  %-10s %s\n", table[i].name, table[i].summary);
    fprintf(out, "\nRun '%s COMMAND --help' for the options of a command.\n%s", program, epilogue);
}

int cli_dispatch(const char *program, const char *intro, const char *epilogue, const cli_subcommand *table,
                 size_t count, int argc, char **argv)
{
    char name[64];

    if (argc < 2) {
        dispatch_usage(stderr, program, intro, epilogue, table, count);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        dispatch_usage(stdout, program, intro, epilogue, table, count);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("%s\n", cli_version());
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < count; i++) {
        if (strcmp(argv[1], table[i].name) == 0) {
            snprintf(name, sizeof name, "%s %s", program, table[i].name);
            argv[1] = name;
            return table[i].main(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "%s: unknown command '%s'\nTry '%s --help'.\n", program, argv[1], program);
    return CLI_EXIT_USAGE;
}

unsigned cli_online_processors(void)
{
    /* The processors this process may run on (a batch job's allocation,
     * taskset), else those online. */
    cpu_set_t set;
    long n;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}
