/*
 * report.h: what `pics report`, `pics annotate`, `pics diff` and `pics plot`
 * share: loading a PICS with its optional golden reference, cycle text, the
 * '#' header lines, and the cycle stacks of one instruction or function.
 * (Their --elf and --adjust-vma options are parsed by tools/cli.)
 */
#ifndef TEA_VIEW_REPORT_H
#define TEA_VIEW_REPORT_H

#include "binary/symbolize.h"
#include "pics/compare.h"
#include "pics/error.h"
#include "pics/pics.h"
#include "pics/pics_file.h"

#include <stdint.h>
#include <stdio.h>

/* Fraction digits of cycles in text output and in CSV/JSON. */
#define VIEW_REPORT_TEXT_DIGITS 3
#define VIEW_REPORT_DATA_DIGITS 6
/* Room for a formatted cycle count. */
#define VIEW_REPORT_NUMBER_MAX 64

/* A PICS and, optionally, the golden PICS of the same trace. */
typedef struct view_report_input {
    const char *path;          /* FILE.pics */
    const char *golden_path;   /* --golden, or NULL */
    pics_info info, ginfo;
    pics p, g;                 /* g is empty without --golden */
    int has_golden;
    pics *groups;              /* p's window groups (a sampled trace's golden PICS), or NULL */
    uint64_t group_count;      /* info.groups when groups is not NULL, else 0 */
    pics_cell *cells, *gcells; /* view_report_input_load_array: the cells of p and g as read (p and g
                                  hold their contexts, no cell), until the command keys them */
    size_t cell_count, gcell_count;
} view_report_input;

/* Opens the symbolizer of a traced `program` and the `objects` its trace
 * recorded (a PICS's info->program and info->objects, or a trace's header
 * and objects), with `opts`; --adjust-vma auto scores the PCs of `shown`
 * (the PICS the command shows; NULL: opts->auto_pcs or none). Errors: those
 * of binary_symbolize_open, TEA_ERR_NOMEM. */
int view_report_symbolize(binary_symbolizer **z, const trace_program *program, const trace_object_list *objects,
                          const pics *shown, const binary_symbolize_options *opts);

/* The function map of a traced program, by the one policy every command
 * follows: the symbol map at `symbols_path` (--symbols) when given without
 * --elf; else the functions of the program's binary (--elf, else the one it
 * names) and of the objects its trace recorded, through a symbolizer
 * opened for them (view_report_symbolize: --adjust-vma auto scores
 * `shown`'s PCs), grouped as view_functions groups them (with --elf and
 * --symbols both, the map still comes from --symbols). *from is where they
 * came from: the map's path or the binary's (malloc'd; NULL when neither,
 * and `out` may then hold the objects' functions alone). With `z` not NULL
 * the symbolizer is kept there (NULL when none was opened); the caller
 * closes it. Errors: the map's, the symbolizer's, TEA_ERR_NOMEM; `out` is
 * empty and *from NULL after one. */
int view_report_functions(const char *symbols_path, const trace_program *program, const trace_object_list *objects,
                          const pics *shown, const binary_symbolize_options *opts, trace_symmap *out, char **from,
                          binary_symbolizer **z);

/* Reads `path` (with its window groups, pics_read_groups) and, when
 * `golden_path` is not NULL, the golden PICS, and
 * checks that the second is a golden PICS of the same trace (digest).
 * Errors: those of pics_read; TEA_ERR_USAGE for a golden PICS that is not
 * golden or of another trace. Frees everything on failure. */
int view_report_input_load(view_report_input *in, const char *path, const char *golden_path);

/* view_report_input_load keeping the calling contexts of both PICS
 * (pics_read_contexts; a flat PICS has none), without window groups: what
 * the views that draw stacks or rows by call path load. */
int view_report_input_load_stacks(view_report_input *in, const char *path, const char *golden_path);

/* view_report_input_load_stacks with the cells as arrays (pics_read_array:
 * in->cells, in->gcells; p and g hold the contexts alone), for commands
 * that key millions of cells (--granularity callpath) rather than show them. */
int view_report_input_load_array(view_report_input *in, const char *path, const char *golden_path);

void view_report_input_free(view_report_input *in);

/* The exact cycles a raw value of the PICS (golden: of the golden PICS)
 * stands for, rounded to `digits` fraction digits, into buf. */
void view_report_cycles_text(const view_report_input *in, int golden, uint64_t value, int digits, char *buf,
                               size_t size);

/* The same as a double. */
double view_report_cycles(const view_report_input *in, int golden, uint64_t value);

/* value / total of the PICS (golden: of the golden PICS), 0 when empty. */
double view_report_share(const view_report_input *in, int golden, uint64_t value);

/* Prints the '#' lines that describe the inputs: trace, binary, scheme,
 * sampling, samples and losses, total cycles. */
void view_report_print_header(FILE *f, const char *command, const view_report_input *in,
                                const binary_symbolizer *z);

/* Prints the component lines of one stack (text format; the components of
 * a view's row: a the PICS's raw value, b the golden one's), each indented
 * by `indent` spaces: component, cycles and share of the stack, and with a
 * golden PICS the golden cycles and share side by side. */
void view_report_print_stack(FILE *f, const view_report_input *in, pics_granularity g, const pics_pair *c, size_t n,
                             int indent);

/* One cell of a PICS as a flame-graph stack: its instruction, component and
 * cycles as a whole number. */
typedef struct view_report_folded {
    uint64_t pc;
    uint16_t psv;
    uint32_t ctx;     /* the cell's calling context (0: the root, a flat PICS's) */
    uint64_t weight;
} view_report_folded;

/* The cells of in->p (not the golden PICS) in pics_sorted order with their
 * cycles as whole numbers (pics_whole_cycles: rounded cumulatively, each
 * its exact value rounded down or up, summing to the total cycles rounded,
 * a function's within one cycle of its exact sum). Cells whose weight is
 * 0 are left out. *out is malloc'd (NULL when *n is 0). What `pics report
 * --format folded` and `pics flamegraph` draw. 0 or TEA_ERR_NOMEM. */
int view_report_folded_cells(const view_report_input *in, view_report_folded **out, size_t *n);

/* Merges the rows of `rows` (view_report_folded_cells's order) that draw
 * the same stack: one PC and PSV in contexts of one canonical id
 * (view_callpath_canonical's `canon`; NULL: nothing to merge). Each
 * group's weights are summed into its first row, the others removed; the
 * order is otherwise kept, and the weights still sum to the total. 0 or
 * TEA_ERR_NOMEM. */
int view_report_folded_merge(view_report_folded *rows, size_t *n, const uint32_t *canon);

/* Longest name view_report_fit works on (bytes, NUL included). */
#define VIEW_REPORT_NAME_MAX BINARY_SYMBOLIZE_TEXT_MAX

/* Fits a function name or location ("NAME" or "NAME+0xOFF") into `width`
 * columns of a text table, readably: C++ template argument lists are
 * collapsed to "<...>" (outermost first, each whole), then the parameter
 * list to "(...)", and only then the start is cut to "..." so that the end
 * (the function's own name, the offset) stays. Text that fits is copied as
 * it is; CSV and JSON outputs carry the full name. Writes into out
 * (truncated to size) and returns out. */
char *view_report_fit(const char *text, size_t width, char *out, size_t size);

#endif
