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
#include "common/progress.h"
#include "pics/error.h"
#include "trace/trace.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* A PICS operand that may be a tea replay directory (results/results.h), one
 * rule for every command (docs/usage.md, "Words that mean one thing"): a
 * directory stands for its PICS of `scheme` (--scheme S: golden, tea, nci,
 * ibs, spe, ris or SCHEME:all; NULL: golden), DIR/S.pics or its one
 * S-FREQhz.pics; for a scheme other than golden, when `golden` is not NULL
 * (a command that compares) and *golden is NULL, *golden becomes
 * DIR/golden.pics. A line on stderr says which files were taken. The new
 * paths are malloc'd into *owned (two entries, NULL when unused; free
 * both; both NULL after an error). Returns 0 or the TEA_ERR_* code (with
 * its message): a directory that is no replay directory or holds the
 * scheme at several frequencies, an unknown scheme, --scheme with a PICS
 * file. */
int cli_replay_dir_operand(const char *command, const char **path, const char *scheme, const char **golden,
                           char *owned[2]);
/* --scheme S into the const char * at dest: which PICS of a tea replay
 * directory a command takes (cli_replay_dir_operand). */
#define CLI_OPTION_REPLAY_SCHEME(dest_)                                                           \
    CLI_STRING("scheme", 0, "S", dest_, "with a tea replay directory DIR: take DIR/S.pics (golden,\n" \
                                        "default; tea, nci, ibs, spe, ris, SCHEME:all)")

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

/* Parses "1000,2k" (sample counts: whole numbers of 1 or more, k/M
 * suffixes, none twice) into out[0..max), *count of them. Returns 0, or
 * TEA_ERR_USAGE (TEA_ERR_NOMEM) with a message. */
int cli_parse_sample_counts(const char *list, uint64_t *out, size_t max, size_t *count);

/* The command line joined with spaces, arguments quoted where a shell would
 * need it; malloc'd, NULL on allocation failure. */
char *cli_join_command(int argc, char **argv);

/*
 * Declarative option tables.
 *
 * A command describes each option once, in a cli_option table: its names, its
 * argument, how it reads in --help, and what parsing it does (a typed
 * destination or a callback). cli_parse runs getopt_long over the table and
 * cli_print_help prints the command's --help from it. Tables are automatic
 * arrays built where the destinations live, so entries point at them.
 */

/* Returned by cli_parse and option callbacks: go on with the command. */
#define CLI_CONTINUE (-1)

/* Whether an option takes an argument (getopt_long's has_arg). */
typedef enum cli_arg {
    CLI_ARG_NONE = no_argument,
    CLI_ARG_REQUIRED = required_argument,
    CLI_ARG_OPTIONAL = optional_argument
} cli_arg;

/* What an option does with its argument. */
typedef enum cli_type {
    CLI_TYPE_CALL,   /* calls `call` */
    CLI_TYPE_FLAG,   /* sets the int at `dest` to 1 */
    CLI_TYPE_STRING, /* stores the argument in the const char * at `dest` */
    CLI_TYPE_UINT,   /* cli_parse_u64 into the unsigned integer (or int) of `size` bytes at
                        `dest`, in [min, max]; else `error` */
    CLI_TYPE_HZ,     /* cli_parse_hz into the double at `dest`; else `error` */
    CLI_TYPE_ENUM,   /* the index of the argument in `names` (NULL-terminated), or
                        values[index] when `values` is set, into the integer (or enum) of
                        `size` bytes at `dest`; else `error` */
    CLI_TYPE_HELP    /* prints the command's --help to stdout and ends it with status 0 */
} cli_type;

typedef struct cli_option cli_option;
typedef struct cli_command cli_command;

/* An option callback: `command` is argv[0] ("tea replay"), `arg` the
 * argument or NULL. Returns CLI_CONTINUE, or the exit status that ends the
 * command (after printing any problem, e.g. with cli_usage_error). */
typedef int (*cli_option_fn)(const char *command, const cli_option *opt, const char *arg);

/* One option of a command. */
struct cli_option {
    const char *long_name;    /* "output"; every entry has one */
    int short_name;           /* 'o', or 0 */
    cli_arg arg;
    const char *value_name;   /* the argument in --help: "DIR", "HZ[,HZ...]"; NULL for none */
    const char *help;         /* the description; '\n' starts a continuation line, indented to
                                 the help column. NULL: not listed in --help */
    cli_type type;
    void *dest;               /* FLAG, STRING, UINT, HZ, ENUM: where the value goes; CALL: any
                                 data for the callback */
    size_t size;              /* UINT, ENUM: sizeof *dest */
    uint64_t min, max;        /* UINT: the accepted range */
    const char *const *names; /* ENUM: the accepted words, NULL-terminated */
    const int *values;        /* ENUM: the value of each word, or NULL for its index */
    const char *error;        /* UINT, HZ, ENUM: the message of a bad argument, its "%s" standing
                                 for the argument ("invalid seed '%s'"); "%%" is a '%' */
    cli_option_fn call;       /* CALL */
    int *seen;                /* when not NULL, set to 1 each time the option is given */
    int column;               /* the help column of this entry, 0 for the command's */
};

/* A command's options and --help text. */
struct cli_command {
    const char *synopsis;     /* printed before the option lines: usage, description, "Options:\n" */
    const char *epilogue;     /* printed after them, or NULL */
    int column;               /* where option descriptions begin ("  -o, --output DIR" padded) */
    int stop_at_operand;      /* options end at the first operand (getopt's '+') */
    const cli_option *options;
    size_t count;
};

/* The cli_command of the option array `options_` (an array, not a pointer),
 * whose descriptions begin at `column`. */
#define CLI_COMMAND(synopsis_, epilogue_, column_, options_) \
    { (synopsis_), (epilogue_), (column_), 0, (options_), sizeof(options_) / sizeof(options_)[0] }

/* Parses the options of argv by `cmd`'s table with getopt_long, running each
 * option's action in command-line order. Returns CLI_CONTINUE with optind at
 * the first operand, or the exit status when the command ends here: 0 after
 * --help, CLI_EXIT_USAGE after an unknown option, a missing argument or a
 * bad value (the problem printed), or what a callback returned. */
int cli_parse(const cli_command *cmd, int argc, char **argv);

/* Prints `cmd`'s --help: the synopsis, one line (and its continuation lines)
 * per listed option in table order, the epilogue. */
void cli_print_help(FILE *out, const cli_command *cmd);

/* Like cli_usage_error with a message template whose "%s" stands for `arg`
 * (see cli_option.error). Returns CLI_EXIT_USAGE. */
int cli_usage_error_arg(const char *command, const char *template_, const char *arg);

/* A macro's value as a string literal: CLI_STR(TRACE_MAX_ROB) is "4096". */
#define CLI_STR(x) CLI_STR_(x)
#define CLI_STR_(x) #x

/* Entry builders. `dest` is checked against the type the entry stores. */
#define CLI_FLAG(lname, sname, dest_, help_)                                                     \
    { .long_name = (lname), .short_name = (sname), .arg = CLI_ARG_NONE, .help = (help_),          \
      .type = CLI_TYPE_FLAG, .dest = (1 ? (dest_) : (int *)0) }
#define CLI_STRING(lname, sname, vname, dest_, help_)                                            \
    { .long_name = (lname), .short_name = (sname), .arg = CLI_ARG_REQUIRED, .value_name = (vname), \
      .help = (help_), .type = CLI_TYPE_STRING, .dest = (1 ? (dest_) : (const char **)0) }
#define CLI_UINT(lname, vname, dest_, lo, hi, err, help_) CLI_UINT_SEEN(lname, vname, dest_, lo, hi, err, NULL, help_)
/* CLI_UINT that also sets the int at `seen_` when the option is given. */
#define CLI_UINT_SEEN(lname, vname, dest_, lo, hi, err, seen_, help_)                              \
    { .long_name = (lname), .arg = CLI_ARG_REQUIRED, .value_name = (vname), .help = (help_),     \
      .type = CLI_TYPE_UINT, .dest = (dest_), .size = sizeof *(dest_), .min = (lo), .max = (hi),  \
      .error = (err), .seen = (seen_) }
#define CLI_ENUM(lname, vname, dest_, names_, values_, err, help_)                                \
    { .long_name = (lname), .arg = CLI_ARG_REQUIRED, .value_name = (vname), .help = (help_),     \
      .type = CLI_TYPE_ENUM, .dest = (dest_), .size = sizeof *(dest_), .names = (names_),        \
      .values = (values_), .error = (err) }
#define CLI_CALL(lname, sname, vname, fn, data, help_)                                           \
    { .long_name = (lname), .short_name = (sname), .arg = (vname) ? CLI_ARG_REQUIRED : CLI_ARG_NONE, \
      .value_name = (vname), .help = (help_), .type = CLI_TYPE_CALL, .dest = (data), .call = (fn) }

/* Options several commands share. */
#define CLI_OPTION_HELP                                                                          \
    { .long_name = "help", .short_name = 'h', .arg = CLI_ARG_NONE, .help = "show this help",     \
      .type = CLI_TYPE_HELP }
/* -o, --output VALUE into the const char * at dest. */
/* -o, --output OUT into the const char * at dest; a path that cannot be an
 * output (empty, a directory, a socket, a link to nothing: common/outfile.h)
 * is refused here, before the command's work. */
#define CLI_OPTION_OUTPUT(vname, dest_, help_) \
    CLI_CALL("output", 'o', vname, cli_option_output_file, (1 ? (dest_) : (const char **)0), help_)
/* -o, --output DIR of a command that writes a directory of files
 * (common/outdir.h): empty or a non-directory is refused here. */
#define CLI_OPTION_OUTPUT_DIR(dest_, help_) \
    CLI_CALL("output", 'o', "DIR", cli_option_output_dir, (1 ? (dest_) : (const char **)0), help_)
int cli_option_output_file(const char *command, const cli_option *opt, const char *arg);
int cli_option_output_dir(const char *command, const cli_option *opt, const char *arg);
/* -o, --output OUT of a command that writes to standard output without it. */
#define CLI_OPTION_STDOUT_OUTPUT(dest_) CLI_OPTION_OUTPUT("OUT", dest_, "write to OUT instead of standard output")
/* --elf BINARY into the const char * at dest. */
#define CLI_OPTION_ELF(dest_, help_) CLI_STRING("elf", 0, "BINARY", dest_, help_)
/* --symbols MAP into the const char * at dest. */
#define CLI_OPTION_SYMBOLS(dest_, help_) CLI_STRING("symbols", 0, "MAP", dest_, help_)
/* --seed N (any 64-bit value) into the uint64_t at dest. */
#define CLI_OPTION_SEED(vname, dest_, help_)                                                     \
    CLI_UINT("seed", vname, dest_, 0, UINT64_MAX, "invalid seed '%s'", help_)
/* --svg OUT.svg into the const char * at dest. */
#define CLI_OPTION_SVG(dest_, help_) CLI_STRING("svg", 0, "OUT.svg", dest_, help_)
/* --golden GOLDEN.pics into the const char * at dest. */
#define CLI_OPTION_GOLDEN(dest_, help_) CLI_STRING("golden", 0, "GOLDEN.pics", dest_, help_)
/* A trace format to write ("native", "tracedoctor", cli_parse_trace_format)
 * into the trace_format at dest. */
#define CLI_OPTION_TRACE_FORMAT(lname, dest_, help_)                                             \
    CLI_CALL(lname, 0, "FORMAT", cli_option_trace_format, (1 ? (dest_) : (trace_format *)0), help_)
int cli_option_trace_format(const char *command, const cli_option *opt, const char *arg);
/* --granularity G: a pics_granularity by its name (pics_granularity_parse)
 * into the pics_granularity at dest. */
#define CLI_OPTION_GRANULARITY(dest_, help_)                                                     \
    CLI_CALL("granularity", 0, "G", cli_option_granularity, (1 ? (dest_) : (pics_granularity *)0), help_)
int cli_option_granularity(const char *command, const cli_option *opt, const char *arg);
/* --level N: a zstd level 1-22 into the int at dest. */
#define CLI_OPTION_ZSTD_LEVEL(dest_, help_)                                                      \
    CLI_UINT("level", "N", (1 ? (dest_) : (int *)0), 1, 22, "invalid zstd level '%s' (1-22)", help_)

/* The options every trace-reading command accepts; they describe TraceDoctor
 * input, which has no header of its own: --rob-size, --llc-latency and
 * --clock into the trace_open_options at `open_`. Their help has its own
 * column (21), whatever the command's. */
#define CLI_TRACE_OPTIONS(open_)                                                                 \
    { .long_name = "rob-size", .arg = CLI_ARG_REQUIRED, .value_name = "N",                       \
      .help = "TraceDoctor input: ROB entries its indices wrap at (default 192)",                \
      .type = CLI_TYPE_CALL, .dest = (1 ? (open_) : (trace_open_options *)0),                    \
      .call = cli_option_rob_size, .column = CLI_TRACE_OPTIONS_COLUMN },                         \
    { .long_name = "llc-latency", .arg = CLI_ARG_REQUIRED, .value_name = "N",                    \
      .help = "TraceDoctor input: memlat cycles at which a load missed the LLC\n(default 32)",    \
      .type = CLI_TYPE_CALL, .dest = (open_), .call = cli_option_llc_latency,                    \
      .column = CLI_TRACE_OPTIONS_COLUMN },                                                      \
    { .long_name = "clock", .arg = CLI_ARG_REQUIRED, .value_name = "HZ",                         \
      .help = "core clock of TraceDoctor input (default 3.2G); replay and\n"                     \
              "sweep also take it over a native trace's own",                                    \
      .type = CLI_TYPE_CALL, .dest = (open_), .call = cli_option_clock,                          \
      .column = CLI_TRACE_OPTIONS_COLUMN }
#define CLI_TRACE_OPTIONS_COLUMN 21
/* Their callbacks: `opt->dest` is the trace_open_options. */
int cli_option_rob_size(const char *command, const cli_option *opt, const char *arg);
int cli_option_llc_latency(const char *command, const cli_option *opt, const char *arg);
int cli_option_clock(const char *command, const cli_option *opt, const char *arg);

/* --adjust-vma OFFSET into the binary_symbolize_options at `sym`, read by the one
 * offset parser (binary_symbolize_parse_offset: hex with 0x or decimal, a leading
 * '-' taken modulo 2^64), or "auto" (sym->adjust_vma_auto: inferred from the
 * PCs, symbolize.h): pics report, annotate, diff, plot, tea topdown, replay,
 * sweep. */
#define CLI_OPTION_ADJUST_VMA(sym, vname, help_)                                                                       \
    CLI_CALL("adjust-vma", 0, vname, cli_option_adjust_vma, (1 ? (sym) : (binary_symbolize_options *)0), help_)
int cli_option_adjust_vma(const char *command, const cli_option *opt, const char *arg);
/* --adjust-vma OFF|auto as the commands that show a PICS take it (auto
 * scores the PCs of the PICS shown). */
#define CLI_OPTION_ADJUST_VMA_AUTO(sym)                                                              \
    CLI_OPTION_ADJUST_VMA(sym, "OFF|auto",                                                           \
                          "load bias, runtime address - ELF address (hex with 0x or decimal;\n"     \
                          "default: the bias the trace recorded; needed for a PIE without one);\n"  \
                          "auto infers it from the PICS's PCs and prints it")

/* --no-demangle into the binary_symbolize_options at `sym`: C++ names as in the
 * file instead of demangled (binary/symbols.h). */
#define CLI_OPTION_NO_DEMANGLE(sym)                                                                                    \
    CLI_FLAG("no-demangle", 0, &(1 ? (sym) : (binary_symbolize_options *)0)->no_demangle,                              \
             "show C++ names mangled, as in the binary (default: demangled)")

/* --addresses elf|runtime into the binary_symbolize_options at `sym`: addresses
 * shown as in the ELF file (objdump -d) or as the program ran (default). */
#define CLI_OPTION_ADDRESSES(sym)                                                                                      \
    CLI_ENUM("addresses", "KIND", &(1 ? (sym) : (binary_symbolize_options *)0)->elf_addresses, cli_addresses_names,    \
             cli_addresses_values, "unknown address kind '%s' (elf or runtime)",                                       \
             "elf: addresses and branch targets as in the ELF file, as\n"                                              \
             "objdump -d shows them; runtime (default): as the program ran")
extern const char *const cli_addresses_names[];
extern const int cli_addresses_values[];

/* --load-bias B: where a binary is loaded (runtime minus ELF address), read
 * by the --adjust-vma parser, into the uint64_t at dest; the int at `seen_`
 * is set when given: tea gen, tea convert. */
#define CLI_OPTION_LOAD_BIAS(dest_, seen_, help_)                                                     \
    { .long_name = "load-bias", .arg = CLI_ARG_REQUIRED, .value_name = "B", .help = (help_),          \
      .type = CLI_TYPE_CALL, .dest = (1 ? (dest_) : (uint64_t *)0), .call = cli_option_load_bias,     \
      .seen = (seen_) }
int cli_option_load_bias(const char *command, const cli_option *opt, const char *arg);

/* -q, --quiet and --progress: the progress_mode at dest (common/progress.h)
 * becomes PROGRESS_OFF or PROGRESS_ON; without either it stays as the
 * command set it (PROGRESS_AUTO: a progress line on stderr when it is a
 * terminal). Two entries. */
#define CLI_OPTIONS_PROGRESS(dest_)                                                               \
    CLI_CALL("quiet", 'q', NULL, cli_option_progress, (1 ? (dest_) : (progress_mode *)0),         \
             "no progress line on standard error"),                                              \
    CLI_CALL("progress", 0, NULL, cli_option_progress, (dest_),                                  \
             "a progress line on standard error even when it is not a\nterminal (default: only on a terminal)")
int cli_option_progress(const char *command, const cli_option *opt, const char *arg);

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

/* The directory of tea's Valgrind tool (VALGRIND_LIB for tea record and
 * tea simpoint --thread), beside the tea binary's: ../libexec/tea/valgrind
 * from its directory, in the build tree and once installed; malloc'd, or
 * NULL when it is not there. */
char *cli_tool_dir(void);

/* Checks a list of threads: "all", or numbers from 1 with one comma
 * between (1,3). CLI_CONTINUE, or a usage error's exit status (said). */
int cli_check_thread_list(const char *command, const char *arg);


#endif
