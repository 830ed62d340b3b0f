/*
 * report.h: what `pics report`, `pics annotate`, `pics diff` and `pics plot`
 * share (implemented in pics_report.c): loading a PICS with its optional
 * golden reference, the --elf and --adjust-vma options, the '#' header
 * lines, and the cycle stacks of one instruction or function.
 */
#ifndef TEA_TOOLS_REPORT_H
#define TEA_TOOLS_REPORT_H

#include "cli.h"
#include "pics/pics.h"
#include "pics/pics_file.h"
#include "symbolize.h"

#include <stdint.h>
#include <stdio.h>

/* Fraction digits of cycles in text output and in CSV/JSON. */
#define REPORT_TEXT_DIGITS 3
#define REPORT_DATA_DIGITS 6
/* Room for a formatted cycle count. */
#define REPORT_NUMBER_MAX 64

/* A PICS and, optionally, the golden PICS of the same trace. */
typedef struct report_input {
    const char *path;          /* FILE.pics */
    const char *golden_path;   /* --golden, or NULL */
    pics_info info, ginfo;
    pics p, g;                 /* g is empty without --golden */
    int has_golden;
} report_input;

/* Reads `path` and, when `golden_path` is not NULL, the golden PICS, and
 * checks that the second is a golden PICS of the same trace (digest).
 * Errors: those of pics_read; TEA_ERR_USAGE for a golden PICS that is not
 * golden or of another trace. Frees everything on failure. */
int report_input_load(report_input *in, const char *path, const char *golden_path);

void report_input_free(report_input *in);

/* Parses an --adjust-vma OFFSET: hex with 0x or decimal, optionally
 * negative (taken modulo 2^64). Returns 0 or -1. */
int report_parse_offset(const char *text, uint64_t *out);

/* The long options that choose the binary to symbolize against, after the
 * CLI_OPT_* ones; each command numbers its own from REPORT_OPT_FIRST_FREE. */
enum {
    REPORT_OPT_ELF = CLI_OPT_FIRST_FREE,
    REPORT_OPT_ADJUST_VMA,
    REPORT_OPT_FIRST_FREE
};
#define REPORT_SYMBOL_LONG_OPTIONS                                  \
    { "elf", required_argument, NULL, REPORT_OPT_ELF },             \
    { "adjust-vma", required_argument, NULL, REPORT_OPT_ADJUST_VMA }

/* Handles --elf or --adjust-vma into `sym`. Returns 0 when handled, 1 when
 * `opt` is neither, or CLI_EXIT_USAGE after printing the problem (as
 * cli_trace_option). */
int report_symbol_option(const char *command, int opt, const char *arg, symbolize_options *sym);

/* --adjust-vma VALUE as a cli_option entry (cli.h): report_symbol_option
 * into the symbolize_options at `sym`. */
#define REPORT_OPTION_ADJUST_VMA(sym, vname, help_) \
    CLI_CALL("adjust-vma", 0, vname, report_option_adjust_vma, (1 ? (sym) : (symbolize_options *)0), help_)
int report_option_adjust_vma(const char *command, const cli_option *opt, const char *arg);

/* The exact cycles a raw value of the PICS (golden: of the golden PICS)
 * stands for, rounded to `digits` fraction digits, into buf. */
void report_cycles_text(const report_input *in, int golden, uint64_t value, int digits, char *buf, size_t size);

/* The same as a double. */
double report_cycles(const report_input *in, int golden, uint64_t value);

/* value / total of the PICS (golden: of the golden PICS), 0 when empty. */
double report_share(const report_input *in, int golden, uint64_t value);

/* Prints the '#' lines that describe the inputs: trace, binary, scheme,
 * sampling, samples and losses, total cycles. */
void report_print_header(FILE *f, const char *command, const report_input *in, const symbolizer *z);

/* One component of a stack: its raw values in the PICS and in the golden
 * PICS (0 when absent). */
typedef struct report_component {
    uint16_t psv;
    uint64_t value, golden;
} report_component;

/* Prints the component lines of one stack (text format), each indented by
 * `indent` spaces: component, cycles and share of the stack, and with a
 * golden PICS the golden cycles and share side by side. */
void report_print_stack(FILE *f, const report_input *in, const report_component *c, size_t n, int indent);

#endif
