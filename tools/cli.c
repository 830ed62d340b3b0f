/*
 * cli.c: shared command-line helpers (see cli.h).
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "cli.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/outdir.h"
#include "common/outfile.h"
#include "pics/scheme.h"
#include "results/results.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
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
    fprintf(stderr, "%s: %s\n", command, error_message());
    return error_exit_status(code);
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

int cli_parse_sample_counts(const char *list, uint64_t *out, size_t max, size_t *count)
{
    char *copy = strdup(list), *save = NULL;
    int rc = TEA_OK;
    if (!copy)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    *count = 0;
    for (char *f = strtok_r(copy, ",", &save); f && !rc; f = strtok_r(NULL, ",", &save)) {
        double k;
        if (cli_parse_hz(f, &k) || k < 1 || k != floor(k) || k > (double)UINT64_MAX / 2)
            rc = error_set(TEA_ERR_USAGE, "invalid sample count '%s' (a whole number, k and M accepted)", f);
        else if (*count == max)
            rc = error_set(TEA_ERR_USAGE, "at most %zu sample counts", max);
        for (size_t i = 0; i < *count && !rc; i++)
            if (out[i] == (uint64_t)k)
                rc = error_set(TEA_ERR_USAGE, "sample count '%s' given twice", f);
        if (!rc)
            out[(*count)++] = (uint64_t)k;
    }
    if (!rc && *count == 0)
        rc = error_set(TEA_ERR_USAGE, "no sample count in '%s'", list);
    free(copy);
    return rc;
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

/* Where the tool lies relative to the tea binary, in the build tree
 * (build/bin/tea, build/libexec/tea/valgrind) and once installed
 * (PREFIX/bin/tea, PREFIX/libexec/tea/valgrind). */
#define CLI_TOOL_SUBDIR "/../libexec/tea/valgrind"

char *cli_tool_dir(void)
{
    char exe[PATH_MAX], dir[PATH_MAX + sizeof CLI_TOOL_SUBDIR], *slash;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/')))
        return NULL;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%s%s", exe, CLI_TOOL_SUBDIR);
    return realpath(dir, NULL);
}

int cli_check_thread_list(const char *command, const char *arg)
{
    const char *p = arg;
    uint64_t n;

    while (strcmp(arg, "all") != 0 && *p) {
        char number[24];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof number)
            return cli_usage_error(command, "invalid thread list '%s' (all, or numbers from 1 with commas)", arg);
        memcpy(number, p, len);
        number[len] = '\0';
        if (cli_parse_u64(number, &n) || n < 1 || n > UINT32_MAX || (p[len] == ',' && !p[len + 1]))
            return cli_usage_error(command, "invalid thread list '%s' (all, or numbers from 1 with commas)", arg);
        p += len + (p[len] == ',');
    }
    return *arg ? CLI_CONTINUE : cli_usage_error(command, "invalid thread list '' (all, or numbers from 1 with commas)");
}

int cli_option_adjust_vma(const char *command, const cli_option *opt, const char *arg)
{
    binary_symbolize_options *sym = opt->dest;
    if (strcmp(arg, "auto") == 0) {
        sym->adjust_vma_auto = 1;
        sym->has_adjust_vma = 0;
        return CLI_CONTINUE;
    }
    sym->adjust_vma_auto = 0;
    if (binary_symbolize_parse_offset(arg, &sym->adjust_vma))
        return cli_usage_error(command, "invalid offset '%s' (hex with 0x, or decimal)", arg);
    sym->has_adjust_vma = 1;
    return CLI_CONTINUE;
}

/* The command column of a program's usage: "flamegraph" and a space. */
#define DISPATCH_NAME_WIDTH 11

const char *const cli_addresses_names[] = { "runtime", "elf", NULL };
const int cli_addresses_values[] = { 0, 1 };

int cli_option_load_bias(const char *command, const cli_option *opt, const char *arg)
{
    if (binary_symbolize_parse_offset(arg, (uint64_t *)opt->dest))
        return cli_usage_error(command, "invalid load bias '%s' (hex with 0x, or decimal)", arg);
    return CLI_CONTINUE;
}

static void dispatch_usage(FILE *out, const char *program, const char *intro, const char *epilogue,
                           const cli_subcommand *table, size_t count)
{
    fprintf(out, "Usage: %s COMMAND [OPTIONS] [ARGS]\n\n%s\n\nCommands:\n", program, intro);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "  %-*s %s\n", DISPATCH_NAME_WIDTH, table[i].name, table[i].summary);
    fprintf(out, "\nRun '%s COMMAND --help' for the options of a command.\n%s", program, epilogue);
}

int cli_option_output_file(const char *command, const cli_option *opt, const char *arg)
{
    if (outfile_check(arg))
        return cli_usage_error(command, "%s", error_message());
    *(const char **)opt->dest = arg;
    return CLI_CONTINUE;
}

int cli_option_output_dir(const char *command, const cli_option *opt, const char *arg)
{
    if (outdir_check(arg))
        return cli_usage_error(command, "%s", error_message());
    *(const char **)opt->dest = arg;
    return CLI_CONTINUE;
}

int cli_option_progress(const char *command, const cli_option *opt, const char *arg)
{
    (void)command, (void)arg;
    *(progress_mode *)opt->dest = strcmp(opt->long_name, "quiet") == 0 ? PROGRESS_OFF : PROGRESS_ON;
    return CLI_CONTINUE;
}

/* A command's status once its standard output is flushed: a write error
 * there (a full disk, a closed pipe, /dev/full) fails the command with a
 * message, whatever it printed. */
static int finish_stdout(const char *command, int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: standard output: write failed: %s\n", command, strerror(errno ? errno : EIO));
        return status ? status : CLI_EXIT_DATA;
    }
    return status;
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
        return finish_stdout(program, CLI_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0) { /* GNU's "PROGRAM (PACKAGE) VERSION", which help2man reads */
        if (strcmp(program, "tea") == 0)
            printf("%s\n", cli_version());
        else
            printf("%s (tea) %s\n", program, TEA_VERSION);
        return finish_stdout(program, CLI_EXIT_OK);
    }
    for (size_t i = 0; i < count; i++) {
        if (strcmp(argv[1], table[i].name) == 0) {
            snprintf(name, sizeof name, "%s %s", program, table[i].name);
            argv[1] = name;
            cleanup_install();
            return finish_stdout(name, table[i].main(argc - 1, argv + 1));
        }
    }
    fprintf(stderr, "%s: unknown command '%s'\nTry '%s --help'.\n", program, argv[1], program);
    return CLI_EXIT_USAGE;
}


/* Declarative option tables (see cli.h). */

int cli_usage_error_arg(const char *command, const char *template_, const char *arg)
{
    fprintf(stderr, "%s: ", command);
    for (const char *t = template_; *t; t++) {
        if (t[0] == '%' && t[1] == 's') {
            fputs(arg ? arg : "", stderr);
            t++;
        } else if (t[0] == '%' && t[1] == '%') {
            fputc('%', stderr);
            t++;
        } else {
            fputc(*t, stderr);
        }
    }
    fprintf(stderr, "\nTry '%s --help'.\n", command);
    return CLI_EXIT_USAGE;
}

/* Stores v in the unsigned integer (or int, or enum) of `size` bytes at
 * dest; v fits it (the option's range says so). */
static void store_uint(void *dest, size_t size, uint64_t v)
{
    if (size == sizeof(uint8_t)) {
        uint8_t x = (uint8_t)v;
        memcpy(dest, &x, size);
    } else if (size == sizeof(uint16_t)) {
        uint16_t x = (uint16_t)v;
        memcpy(dest, &x, size);
    } else if (size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(dest, &x, size);
    } else {
        memcpy(dest, &v, sizeof v);
    }
}

/* Runs the action of option `o` on `arg`: CLI_CONTINUE or an exit status. */
static int run_option(const cli_command *cmd, const cli_option *o, const char *command, const char *arg)
{
    uint64_t v;
    double hz;

    if (o->seen)
        *o->seen = 1;
    switch (o->type) {
    case CLI_TYPE_CALL:
        return o->call(command, o, arg);
    case CLI_TYPE_FLAG:
        *(int *)o->dest = 1;
        return CLI_CONTINUE;
    case CLI_TYPE_STRING:
        *(const char **)o->dest = arg;
        return CLI_CONTINUE;
    case CLI_TYPE_UINT:
        if (cli_parse_u64(arg, &v) || v < o->min || v > o->max)
            return cli_usage_error_arg(command, o->error, arg);
        store_uint(o->dest, o->size, v);
        return CLI_CONTINUE;
    case CLI_TYPE_HZ:
        if (cli_parse_hz(arg, &hz))
            return cli_usage_error_arg(command, o->error, arg);
        *(double *)o->dest = hz;
        return CLI_CONTINUE;
    case CLI_TYPE_ENUM:
        for (size_t i = 0; o->names[i]; i++) {
            if (strcmp(arg, o->names[i]) == 0) {
                store_uint(o->dest, o->size, o->values ? (uint64_t)o->values[i] : (uint64_t)i);
                return CLI_CONTINUE;
            }
        }
        return cli_usage_error_arg(command, o->error, arg);
    case CLI_TYPE_HELP:
        cli_print_help(stdout, cmd);
        return CLI_EXIT_OK;
    }
    return CLI_EXIT_USAGE;
}

/* getopt_long's value for entry i: its short name, else a code past every
 * character. */
#define LONG_ONLY_CODE 0x1000

static int option_code(const cli_option *o, size_t i)
{
    return o->short_name ? o->short_name : LONG_ONLY_CODE + (int)i;
}

int cli_parse(const cli_command *cmd, int argc, char **argv)
{
    struct option *longs = calloc(cmd->count + 1, sizeof *longs);
    char *shorts = malloc(3 * cmd->count + 2), *s = shorts;
    int opt, rc = CLI_CONTINUE;

    if (!longs || !shorts) {
        free(longs);
        free(shorts);
        return cli_fail(argv[0], error_set(TEA_ERR_NOMEM, "out of memory"));
    }
    if (cmd->stop_at_operand)
        *s++ = '+';
    for (size_t i = 0; i < cmd->count; i++) {
        const cli_option *o = &cmd->options[i];
        longs[i] = (struct option){ o->long_name, (int)o->arg, NULL, option_code(o, i) };
        if (o->short_name) {
            *s++ = (char)o->short_name;
            for (int colons = (int)o->arg; colons > 0; colons--)
                *s++ = ':';
        }
    }
    *s = '\0';
    optind = 0; /* 0, not 1: getopt starts afresh, '+' included, also on a second parse */
    while (rc == CLI_CONTINUE && (opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        size_t i = 0;
        while (i < cmd->count && option_code(&cmd->options[i], i) != opt)
            i++;
        rc = i < cmd->count ? run_option(cmd, &cmd->options[i], argv[0], optarg) : cli_usage_hint(argv[0]);
    }
    free(longs);
    free(shorts);
    return rc;
}

void cli_print_help(FILE *out, const cli_command *cmd)
{
    fputs(cmd->synopsis, out);
    for (size_t i = 0; i < cmd->count; i++) {
        const cli_option *o = &cmd->options[i];
        int column = o->column ? o->column : cmd->column, width;

        if (!o->help)
            continue;
        width = fprintf(out, "  ");
        if (o->short_name)
            width += fprintf(out, "-%c, ", o->short_name);
        width += fprintf(out, "--%s", o->long_name);
        if (o->value_name)
            width += fprintf(out, " %s", o->value_name);
        fprintf(out, "%*s", width < column ? column - width : 1, "");
        for (const char *h = o->help; *h; h++) {
            fputc(*h, out);
            if (*h == '\n')
                fprintf(out, "%*s", column, "");
        }
        fputc('\n', out);
    }
    if (cmd->epilogue)
        fputs(cmd->epilogue, out);
}

int cli_option_trace_format(const char *command, const cli_option *opt, const char *arg)
{
    int rc = cli_parse_trace_format(command, arg, opt->dest);
    return rc ? rc : CLI_CONTINUE;
}

int cli_option_granularity(const char *command, const cli_option *opt, const char *arg)
{
    if (pics_granularity_parse(arg, opt->dest))
        return cli_usage_error(command, "%s", error_message());
    return CLI_CONTINUE;
}

int cli_option_rob_size(const char *command, const cli_option *opt, const char *arg)
{
    uint64_t v;
    if (cli_parse_u64(arg, &v) || v == 0 || v > TRACE_MAX_ROB)
        return cli_usage_error(command, "invalid ROB size '%s' (1-%d entries)", arg, TRACE_MAX_ROB);
    ((trace_open_options *)opt->dest)->rob_size = (unsigned)v;
    return CLI_CONTINUE;
}

int cli_option_llc_latency(const char *command, const cli_option *opt, const char *arg)
{
    uint64_t v;
    if (cli_parse_u64(arg, &v) || v == 0 || v > UINT16_MAX)
        return cli_usage_error(command, "invalid LLC-miss latency '%s' (1-65535 cycles)", arg);
    ((trace_open_options *)opt->dest)->llc_latency = (unsigned)v;
    return CLI_CONTINUE;
}

int cli_option_clock(const char *command, const cli_option *opt, const char *arg)
{
    double hz;
    if (cli_parse_hz(arg, &hz) || hz < 1 || hz > 1e12)
        return cli_usage_error(command, "invalid clock frequency '%s'", arg);
    ((trace_open_options *)opt->dest)->clock_hz = (uint64_t)(hz + 0.5);
    return CLI_CONTINUE;
}

/* The scheme of --scheme S ("golden", "SCHEME" or "SCHEME:all"), or
 * TEA_ERR_USAGE. */
static int parse_replay_scheme(const char *label, pics_scheme *s)
{
    const char *colon = strchr(label, ':');
    size_t len = colon ? (size_t)(colon - label) : strlen(label);

    if (!pics_scheme_find(label, len, s)
        || (colon && (*s == PICS_SCHEME_GOLDEN || strcmp(colon + 1, PICS_SCHEME_ALL_EVENTS) != 0)))
        return error_set(TEA_ERR_USAGE, "unknown scheme '%s' for --scheme (golden, tea, nci, ibs, spe, ris, "
                                        "SCHEME:" PICS_SCHEME_ALL_EVENTS ")",
                         label);
    return TEA_OK;
}

/* DIR/golden.pics of a replay directory (malloc'd), or TEA_ERR_USAGE when
 * it has none (*golden NULL). */
static int replay_dir_golden(const char *dir, char **golden)
{
    if (!(*golden = results_dir_file(dir, RESULTS_GOLDEN)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (access(*golden, F_OK) != 0) {
        free(*golden);
        *golden = NULL;
        return error_set(TEA_ERR_USAGE, "%s is a directory without %s, not a tea replay directory: pass a PICS file",
                         dir, RESULTS_GOLDEN);
    }
    return TEA_OK;
}

int cli_replay_dir_operand(const char *command, const char **path, const char *scheme, const char **golden,
                           char *owned[2])
{
    const char *dir = *path;
    pics_scheme s;
    int rc;

    owned[0] = owned[1] = NULL;
    if (scheme && (rc = parse_replay_scheme(scheme, &s)))
        return rc;
    if (!results_is_dir(dir))
        return scheme ? error_set(TEA_ERR_USAGE, "--scheme %s takes a PICS of a tea replay directory, and %s is "
                                                 "none: give the directory, or no --scheme",
                                  scheme, dir)
                      : TEA_OK;
    if (!scheme || s == PICS_SCHEME_GOLDEN) {
        if ((rc = replay_dir_golden(dir, &owned[1])))
            return rc;
        *path = owned[1];
        fprintf(stderr, "%s: %s is a tea replay directory: taking its %s%s\n", command, dir, *path,
                scheme ? "" : " (--scheme S for another scheme's PICS)");
        return TEA_OK;
    }
    if ((rc = results_dir_pics(dir, scheme, pics_scheme_display_name(s), &owned[0], &owned[1])))
        return rc;
    *path = owned[0];
    if (golden && !*golden) {
        *golden = owned[1];
        fprintf(stderr, "%s: %s is a tea replay directory: reporting %s against %s\n", command, dir, *path, *golden);
    } else {
        fprintf(stderr, "%s: %s is a tea replay directory: taking its %s\n", command, dir, *path);
    }
    return TEA_OK;
}
