/*
 * annotate.h: `pics annotate` as a view: one function's (or address
 * range's) whole disassembly, every instruction of its range whether it
 * took time or not, each with its cycles, share and cycle stack (like
 * `perf annotate --stdio`), with the golden cycles and each instruction's
 * error contribution beside them when there is a golden PICS, and the
 * source lines' text with --source.
 */
#ifndef TEA_VIEW_ANNOTATE_H
#define TEA_VIEW_ANNOTATE_H

#include "report.h"
#include "view.h"
#include "binary/symbolize.h"

#include <stddef.h>
#include <stdio.h>

/* Functions of one name annotated at most (local functions of several
 * files or objects may share a name, a function may have clones). */
#define VIEW_ANNOTATE_MAX_MATCHES 16

/* The source file --source read last and where its lines start. */
typedef struct view_annotate_source {
    char *path;                /* NULL before the first */
    char *text;                /* its bytes, NULL when unreadable */
    size_t *starts;            /* offset of each line in text */
    size_t lines;
} view_annotate_source;

/* A PICS opened to annotate functions of its binary and objects. */
typedef struct view_annotate {
    view_report_input in;
    binary_symbolizer *z;
    view v;                    /* by instruction, paired with the golden PICS when given */
    size_t at;                 /* the walk through a function: its next row */
    view_annotate_source src;  /* --source: the text of the lines */
    /* what --symbol designates: a range of its own, or the functions found */
    int is_range;
    const binary_symbols *range_syms;
    binary_symbols_function range;
    char range_label[BINARY_SYMBOLIZE_TEXT_MAX];
    binary_symbolize_match found[VIEW_ANNOTATE_MAX_MATCHES];
    size_t matches;            /* found (binary_symbolize_find's count: more than were kept when above the
                                  maximum) */
} view_annotate;

/* Opens `path` (and `golden_path`, or NULL) with the symbolizer of `opts`
 * and finds what `symbol` designates: NAME (binary_symbolize_find: the
 * function, its aliases and GCC's clones in the binary and every object of
 * the trace) or 0xSTART-0xEND (a range of its own, for stripped code).
 * Errors: those of reading and symbolizing, TEA_ERR_USAGE for no binary,
 * an unknown name or a bad range, TEA_ERR_UNSUPPORTED for an object the
 * disassembler cannot read. What a name found besides itself (more
 * functions than are annotated, GCC's clones, several objects) is noted on
 * `notes` (opts->command first; NULL: not noted) as soon as it is known,
 * before a later step can fail. view_annotate_close frees what it made
 * either way. */
int view_annotate_open(view_annotate *a, const char *path, const char *golden_path, const char *symbol,
                       const binary_symbolize_options *opts, FILE *notes);
void view_annotate_close(view_annotate *a);

/* Functions to annotate: the range, or the matches kept (at most
 * VIEW_ANNOTATE_MAX_MATCHES). */
size_t view_annotate_count(const view_annotate *a);

/* Writes function `i`'s annotation. 0 or an error of the symbolizer's. */
int view_annotate_write(FILE *f, view_annotate *a, size_t i);

#endif
