/*
 * diff.h: where two PICS of one trace differ (`pics diff`), as a view and
 * its columns in the one output layer (common/emit.h).
 *
 * Both PICS are read as shares of their totals (a cell's value over the
 * PICS's sum; scaled to the golden total C these are the cells' cycles), and
 * every (instruction or function, component) is compared exactly: with TA
 * and TB the two totals, |B - A| / 2C of a cell is |b x TA - a x TB| /
 * (2 TA TB) in 128-bit integers, the same arithmetic as pics/error.c. So
 * when A is the golden PICS the summed difference is `pics error B A` at
 * the same granularity (instruction x component, instruction with the
 * components summed, or function x component) to the last bit.
 */
#ifndef TEA_VIEW_DIFF_H
#define TEA_VIEW_DIFF_H

#include "view.h"
#include "binary/symbolize.h"
#include "common/emit.h"
#include "pics/pics.h"
#include "pics/pics_file.h"
#include "trace/symmap.h"

#include <stddef.h>

/* What to compare. */
typedef struct view_diff_options {
    const char *a_path, *b_path;
    const char *symbols_path;      /* --symbols MAP, or NULL */
    pics_granularity granularity;
    binary_symbolize_options sym;  /* --elf, --adjust-vma */
} view_diff_options;

/* One of a diff's two lists, as the context of its table. */
typedef struct view_diff_list {
    struct view_diff *d;
    int cells;                 /* the cells (1) or the rows (0) */
} view_diff_list;

/* Two PICS paired, with their rows and cells by difference. */
typedef struct view_diff {
    view_diff_options o;
    pics_info a_info, b_info;
    pics a, b;
    binary_symbolizer *z;      /* the binary, when there is one */
    trace_symmap syms;         /* --symbols, or the binary's functions for func */
    view v;                    /* A paired with B; its rows (groups) by difference */
    const pics_pair **cells;   /* its cells by difference */
    size_t cell_count;
    view_diff_list lists[2];   /* the tables' contexts: rows, cells */
} view_diff;

/* Reads both PICS, checks that they can be compared (the same trace and
 * golden total), opens their symbols and pairs them. Errors: those of
 * pics_read and the symbolizer; TEA_ERR_USAGE for PICS of different
 * traces or func without functions; TEA_ERR_FORMAT for golden totals that
 * disagree. view_diff_close frees what it made either way. */
int view_diff_open(view_diff *d, const view_diff_options *o);
void view_diff_close(view_diff *d);

/* The difference |B - A| / 2C, summed over every cell. */
double view_diff_total(const view_diff *d);

/* The most columns a diff table has. */
#define VIEW_DIFF_COLUMNS_MAX 8
/* Columns of the location in the text tables. */
#define VIEW_DIFF_LOCATION_WIDTH 28

/* The table of the `rows` largest cells in `format` (text: location,
 * component, A, B, B-A, share in percent; CSV: pc, location, psv,
 * component, a_cycles, b_cycles, diff_cycles, share; JSON: pc, location,
 * psv, component, a, b, diff, share), into cols (VIEW_DIFF_COLUMNS_MAX)
 * and *table. */
void view_diff_cells_table(view_diff *d, emit_format format, size_t rows, emit_column *cols, emit_table *table);

/* The same for the `rows` largest instructions or functions: without psv
 * and component. */
void view_diff_rows_table(view_diff *d, emit_format format, size_t rows, emit_column *cols, emit_table *table);

#endif
