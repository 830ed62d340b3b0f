/*
 * threads.h: a program's rows by thread (`pics report DIR --threads`): the
 * instructions or functions of every core of a program's replay (its
 * threads, or FireSim's cores: DIR/cores/NAME, tea/program.h) in one
 * table with a thread column, each row's cycles that core's, its share a
 * share of the program's cycles (the cores' sums), sorted by cycles or by
 * thread.
 *
 * Each core is added from its own PICS (view_report_input) with its own
 * symbolizer and, at function granularity, its functions; a row's
 * components are summed (a core's stacks are in its own report).
 */
#ifndef TEA_VIEW_THREADS_H
#define TEA_VIEW_THREADS_H

#include "report.h"
#include "table.h"
#include "view.h"
#include "common/emit.h"

#include <stddef.h>
#include <stdint.h>

/* The longest core name kept (a core's directory name). */
#define VIEW_THREADS_NAME_MAX 128

/* A core: its view (instructions, or functions), its input and symbolizer
 * (the caller's, alive as long as the table). */
typedef struct view_threads_core {
    char name[VIEW_THREADS_NAME_MAX];
    view v;
    const view_report_input *in;
    binary_symbolizer *z;
} view_threads_core;

/* A row: one instruction or function of one core. */
typedef struct view_threads_row {
    size_t core;              /* its core, in the order the cores were added */
    size_t row;               /* its row in the core's view */
    double cycles;            /* the core's cycles there (a sampled PICS scaled to the core's golden total) */
    uint64_t key;             /* the row's key (the PC, or 1 + the function's range) */
} view_threads_row;

/* What view_threads_load opened for a core and the table frees. */
typedef struct view_threads_loaded {
    view_report_input in;
    binary_symbolizer *z;
    trace_symmap functions;
} view_threads_loaded;

/* Every core's rows. */
typedef struct view_threads {
    view_threads_core **cores;
    size_t core_count, core_cap;
    view_threads_loaded *loaded;  /* view_threads_load's cores (NULL otherwise) */
    size_t loaded_count;
    view_threads_row *rows;   /* sorted by view_threads_sort; rows[0 .. shown) are shown */
    size_t row_count, shown;
    view_table_names *names;  /* the shown rows' (view_threads_select) */
    double total;             /* the program's cycles: every core's total */
    pics_granularity granularity;
} view_threads;

/* An empty table of rows at granularity `g` (PICS_GRAN_FUNC: functions;
 * else instructions). */
void view_threads_init(view_threads *t, pics_granularity g);

/* Adds core `name`'s rows: every instruction (or function of
 * `functions`) of in->p, named with `z`. 0, TEA_ERR_USAGE (functions
 * missing at PICS_GRAN_FUNC), TEA_ERR_NOMEM, the symbolizer's error. */
int view_threads_add(view_threads *t, const char *name, const view_report_input *in, binary_symbolizer *z,
                     const trace_symmap *functions);

/* Adds every core of a program's replay directory `dir` (its cores/ in
 * natural order, results_dir_cores): each core's PICS named `file`
 * (golden.pics, tea.pics, ... as the directory's own), symbolized with
 * `sym` (the note on stripped binaries once) and, by function, its
 * functions (view_functions). Errors: results_dir_cores's, the PICS
 * reader's, the symbolizer's, TEA_ERR_NOMEM. */
int view_threads_load(view_threads *t, const char *dir, const char *file, const binary_symbolize_options *sym);

/* Whether any core's symbolizer lists executable objects (the object
 * column's use). */
int view_threads_has_objects(const view_threads *t);

/* Sorts the rows, largest cycles first, or by thread (the cores' order)
 * and then by cycles; ties by address. */
void view_threads_sort(view_threads *t, int by_thread);

/* Shows the first rows holding at least `percent_limit` percent of the
 * program's cycles, at most `top` of them (0: all), and names them. 0,
 * TEA_ERR_NOMEM, the symbolizer's error. */
int view_threads_select(view_threads *t, uint64_t top, double percent_limit);

/* The columns of the shown rows (VIEW_THREADS_COLUMNS_MAX): share of the
 * program (text: a percentage; CSV and JSON: a fraction), cycles, thread,
 * object (when `objects`), location and address; a table over t's shown
 * rows. Returns the column count. */
#define VIEW_THREADS_COLUMNS_MAX 7
size_t view_threads_columns(view_threads *t, int objects, emit_column *cols, emit_table *table);

void view_threads_free(view_threads *t);

#endif
