/*
 * table.h: the rows of a view (view.h) named and written through the one
 * output layer (common/emit.h), as `pics report` prints them: a text table
 * of rows (instructions or functions), or CSV and JSON with one line per
 * cell (row x component). Each column is a common/emit column; the report
 * lists the ones it shows (the object column only when the trace lists its
 * objects, the interval columns only for a sampled trace's windows).
 *
 * A row is named once (its function, location, disassembly, object and
 * source line, through the symbolizer) however many columns and cells ask:
 * the table keeps the names of the row it named last.
 */
#ifndef TEA_VIEW_TABLE_H
#define TEA_VIEW_TABLE_H

#include "interval.h"
#include "report.h"
#include "view.h"
#include "binary/symbolize.h"
#include "common/emit.h"

#include <stddef.h>
#include <stdint.h>

/* Widths of the text table's object and location (function or symbol)
 * columns. */
#define VIEW_TABLE_OBJECT_WIDTH 20
#define VIEW_TABLE_LOCATION_WIDTH 40

/* What a row is called in every format. */
typedef struct view_table_names {
    int has_address;
    uint64_t address;                            /* the PC, or the function's start */
    uint64_t shown;                              /* address as shown (--addresses) */
    char object[BINARY_SYMBOLIZE_TEXT_MAX];      /* the object's file name (traces listing objects) */
    char function[BINARY_SYMBOLIZE_TEXT_MAX];    /* function or [unknown ...] */
    char location[BINARY_SYMBOLIZE_TEXT_MAX];    /* function+0xOFF (insn), the function (func) */
    char disassembly[BINARY_SYMBOLIZE_TEXT_MAX]; /* "" when unavailable or func */
    char source[BINARY_SYMBOLIZE_TEXT_MAX];      /* "" without --source or line */
} view_table_names;

/* Names row `r` of view `v` with the symbolizer: a function row by its
 * function, an instruction by its function, location, disassembly, object
 * and source line. 0, or the symbolizer's error for a source line. */
int view_table_name_row(const view *v, binary_symbolizer *z, const view_row *r, view_table_names *n);

/* What the first PICS's cell counts are (pics/pics.h): a golden PICS's
 * µops committed (instructions), a sampled one's samples, or nothing (a
 * PICS imported without counts). */
typedef enum view_table_counts { VIEW_COUNTS_NONE, VIEW_COUNTS_INSTRUCTIONS, VIEW_COUNTS_SAMPLES } view_table_counts;

/* A view's shown rows as a table: its context, whose columns are those of
 * view_table_text_columns or view_table_cell_columns. */
typedef struct view_table {
    const view_report_input *in;
    const view *v;
    binary_symbolizer *z;
    const view_intervals *iv;   /* share intervals (count 0: none) */
    view_table_counts counts;   /* what the rows' and cells' count_a are */
    size_t *cell_row;           /* per cell of the shown rows (CSV, JSON): its row, */
    size_t *cell_pair;          /* and its index in v->cells */
    size_t cell_count;
    /* the row named last (view_table_names), SIZE_MAX: none yet */
    size_t named;
    view_table_names names;
} view_table;

/* Prepares `t` over the shown rows of `v` (view_select's). 0 or
 * TEA_ERR_NOMEM. */
int view_table_init(view_table *t, const view_report_input *in, const view *v, binary_symbolizer *z,
                    const view_intervals *iv);
void view_table_free(view_table *t);

/* The names of shown row `row` (named once for consecutive asks). 0 or
 * the symbolizer's error. */
int view_table_names_of(view_table *t, size_t row, const view_table_names **names);

/* The most columns the two lists below give. */
#define VIEW_TABLE_COLUMNS_MAX 20

/* The text table's columns, into cols (VIEW_TABLE_COLUMNS_MAX): share,
 * its interval (with intervals), cycles, the row's instructions and cycles
 * per instruction (a golden PICS) or its samples (a sampled one), object (when the symbolizer has
 * objects), location, address and disassembly; a table over t's shown rows
 * with the report's heading and row prefixes. Returns the column count. */
size_t view_table_text_columns(view_table *t, emit_column *cols, emit_table *table);

/* The CSV and JSON columns, one line per cell (rank, address, object,
 * function, location, disassembly, source, component, psv, instructions (a
 * golden PICS's µops that committed in the cell), samples (a sampled
 * PICS's samples in the cell), cycles, share,
 * golden_cycles, golden_share, error_contribution, share_ci_low/high);
 * the table's rows are t's cells. Returns the column count. */
size_t view_table_cell_columns(view_table *t, emit_column *cols, emit_table *table);

/* --- the cells of one PICS (pics export) --------------------------------------------- */

/* A PICS's cells in pics_sorted order (a map's pics_sorted, or a file's
 * pics_read_array), as the context of their table. */
typedef struct view_table_cells {
    const pics_info *info;
    uint64_t total;                  /* the sum of the PICS's values */
    const trace_contexts *contexts;  /* the contexts its cells name (count 0: none) */
    const pics_cell *cells;
    size_t count;
} view_table_cells;

/* The most columns view_table_cells_columns gives. */
#define VIEW_TABLE_CELLS_COLUMNS_MAX 5

/* The columns of a PICS's cells in `format` (CSV: pc, psv, component,
 * cycles with six decimals, scaled to the golden total for a sampled PICS;
 * JSON: the same and each cell's count), a table over c's cells. */
void view_table_cells_columns(view_table_cells *c, emit_format format, emit_column *cols, emit_table *table);

/* --- what contributes to an error (pics error) ----------------------------------------- */

/* The most columns view_table_contribution_columns gives. */
#define VIEW_TABLE_CONTRIBUTION_COLUMNS_MAX 3
/* Columns of a contributor's name in text. */
#define VIEW_TABLE_CONTRIBUTOR_NAME_WIDTH 40

/* The columns of the first `rows` rows of `v` (sorted by contribution) in
 * `format`: the function's name where the view has names (func), the
 * address and the contribution (a percentage in text, a fraction in
 * JSON); a table whose rows are v's. */
void view_table_contribution_columns(view *v, emit_format format, size_t rows, emit_column *cols, emit_table *table);

/* --- an error by component (pics error --by component) --------------------------------- */

/* A view's components (view_components) as a table's context. */
typedef struct view_table_components {
    const view *v;
    const view_component *items;
    size_t count;
    uint64_t total, golden_total;  /* the two PICS's raw totals: the components' sums */
    pics_granularity granularity;  /* for the components' labels */
} view_table_components;

/* The most columns view_table_component_columns gives. */
#define VIEW_TABLE_COMPONENT_COLUMNS_MAX 5

/* Sets `c` over the `n` components `items` of `v`. */
void view_table_components_init(view_table_components *c, const view *v, const view_component *items, size_t n);

/* The columns of c's components: the component's label and PSV, its error
 * contribution (text: a percentage; they sum to the error), and its share
 * of the first PICS's cycles and of the golden PICS's (text: percentages;
 * CSV and JSON: fractions). */
void view_table_component_columns(view_table_components *c, emit_column *cols, emit_table *table);

#endif
