/*
 * cli.h: helpers shared by the `tea` and `pics` command-line programs.
 *
 * Conventions: every command has --help; a usage error prints the problem and
 * a hint to stderr and exits 2; a data or I/O error prints the library's
 * message and exits 1.
 */
#ifndef TEA_TOOLS_CLI_H
#define TEA_TOOLS_CLI_H

#include "binary/symbolize.h"
#include "trace/trace.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_DATA 1
#define CLI_EXIT_USAGE 2

/* Prints "<prog> <cmd>: <message>" and "Try '<prog> <cmd> --help'." to stderr
 * and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the "Try '<command> --help'." hint (after getopt_long reported a bad
 * option) and returns CLI_EXIT_USAGE. */
int cli_usage_hint(const char *command);

/* Prints "<command>: <library error message>" and returns the exit status
 * matching `code` (see error.h). */
int cli_fail(const char *command, int code);

/* Parses a non-negative integer: decimal digits with an optional k/M/G suffix
 * (powers of 1000) or a decimal exponent ("1e8"). Returns 0 or -1. */
int cli_parse_u64(const char *text, uint64_t *out);

/* Parses the name of a trace format to write, "native" or "tracedoctor",
 * into *out. Returns 0, or CLI_EXIT_USAGE after printing the problem. */
int cli_parse_trace_format(const char *command, const char *text, trace_format *out);

/* Parses a frequency in Hz with an optional k/M/G suffix ("4k", "3.2G").
 * Returns 0, or -1 for anything but a finite positive number. */
int cli_parse_hz(const char *text, double *out);

/* The command line joined with spaces, arguments quoted where a shell would
 * need it; malloc'd, NULL on allocation failure. */
char *cli_join_command(int argc, char **argv);

/* getopt_long codes of the options every trace-reading command accepts; they
 * describe TraceDoctor input, which has no header of its own. */
enum {
    CLI_OPT_ROB_SIZE = 0x1000,
    CLI_OPT_LLC_LATENCY,
    CLI_OPT_CLOCK,
    CLI_OPT_FIRST_FREE /* commands number their own long options from here */
};
#define CLI_TRACE_LONG_OPTIONS                                          \
    { "rob-size", required_argument, NULL, CLI_OPT_ROB_SIZE },          \
    { "llc-latency", required_argument, NULL, CLI_OPT_LLC_LATENCY },    \
    { "clock", required_argument, NULL, CLI_OPT_CLOCK }
/* Help text for those options. */
#define CLI_TRACE_OPTIONS_HELP                                                              \
    "  --rob-size N       TraceDoctor input: ROB entries its indices wrap at (default 192)\n" \
    "  --llc-latency N    TraceDoctor input: memlat cycles at which a load missed the LLC\n"  \
    "                     (default 32)\n"                                                    \
    "  --clock HZ         core clock of TraceDoctor input (default 3.2G); replay and\n"  \
    "                     sweep also take it over a native trace's own\n"

/* Handles one of the CLI_OPT_* trace options. Returns 0 when handled, 1 when
 * `opt` is not one of them, or CLI_EXIT_USAGE after printing the problem. */
int cli_trace_option(const char *command, int opt, const char *arg, trace_open_options *o);

/* The long options that choose the binary to symbolize against (pics
 * report, annotate, diff, plot), after the CLI_OPT_* ones; those commands
 * number their own from REPORT_OPT_FIRST_FREE. */
enum {
    REPORT_OPT_ELF = CLI_OPT_FIRST_FREE,
    REPORT_OPT_ADJUST_VMA,
    REPORT_OPT_FIRST_FREE
};
#define REPORT_SYMBOL_LONG_OPTIONS                                  \
    { "elf", required_argument, NULL, REPORT_OPT_ELF },             \
    { "adjust-vma", required_argument, NULL, REPORT_OPT_ADJUST_VMA }

/* Handles --elf or --adjust-vma (symbolize_parse_offset) into `sym`.
 * Returns 0 when handled, 1 when `opt` is neither, or CLI_EXIT_USAGE after
 * printing the problem (as cli_trace_option). */
int report_symbol_option(const char *command, int opt, const char *arg, symbolize_options *sym);

/* One subcommand of a multi-command program. */
typedef struct cli_subcommand {
    const char *name;
    int (*main)(int argc, char **argv); /* argv[0] is "<program> <name>" */
    const char *summary;
} cli_subcommand;

/* Runs the subcommand named by argv[1] (handling --help and --version), or
 * prints the program's usage: `intro` and the table. Returns the exit status. */
int cli_dispatch(const char *program, const char *intro, const char *epilogue, const cli_subcommand *table,
                 size_t count, int argc, char **argv);

/* The program's version string, "tea <version>". */
const char *cli_version(void);

/* Processors this process may run on (its affinity mask, which batch
 * schedulers and taskset set), else those online; at least 1. */
unsigned cli_online_processors(void);

#endif
