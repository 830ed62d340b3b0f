/*
 * view.h: rows to show from one PICS or a pair, as perf's hists are built
 * from samples by sort keys.
 *
 * A view groups the cells of a PICS (and, in a pair, of a second PICS: the
 * golden reference, or the other side of a diff) by a key and pairs them
 * (pics/compare.h): every row is an instruction or a range of a map
 * (functions, objects), with its values in both PICS, its components (the
 * cycle stack: one cell per PSV, or one cell when the granularity merges
 * the PSVs) and its exact difference, whose share of the pairing's
 * denominator is the row's error contribution. The rows' differences sum to
 * the error of pics/error.h at the same granularity: `pics error` prints a
 * view's total. A view is then sorted (by value, by difference) and cut (a
 * percent limit, a number of rows); the commands only print views.
 *
 * Keys: by instruction, the row's key is the PC; by a map (functions,
 * objects), 1 + the index of the range holding the PC, and 0 for the PCs
 * outside every range ("[unknown]").
 */
#ifndef TEA_VIEW_VIEW_H
#define TEA_VIEW_VIEW_H

#include "binary/symbolize.h"
#include "common/exact.h"
#include "pics/compare.h"
#include "pics/error.h"
#include "pics/pics.h"
#include "trace/symmap.h"

#include <stddef.h>
#include <stdint.h>

/* The name of the row of PCs outside every range of the map. */
#define VIEW_UNKNOWN_NAME "[unknown]"

/* One row: an instruction or a range. */
typedef struct view_row {
    uint64_t key;          /* the PC, or 1 + the range's index (0: outside every range) */
    uint64_t value;        /* raw sum in the first PICS */
    uint64_t golden;       /* raw sum in the second PICS (0 without one) */
    uint64_t count_a;      /* the first PICS's cell counts summed: a golden PICS's µops committed
                              (instructions), a sampled one's samples */
    exact_u128 diff;       /* the sum of its components' differences (pics/compare.h) */
    double contribution;   /* diff as a share of the pairing's denominator (0 without a second PICS) */
    size_t first, count;   /* its components: view.cells[first .. first + count) */
} view_row;

/* The orders rows are sorted in. */
typedef enum view_order {
    VIEW_ORDER_KEY,              /* by key (as built) */
    VIEW_ORDER_VALUE,            /* largest value first, then largest golden value, then key (pics report) */
    VIEW_ORDER_CONTRIBUTION,     /* largest contribution first, then as VIEW_ORDER_VALUE (pics report --sort error) */
    VIEW_ORDER_CONTRIBUTION_KEY, /* largest contribution first, then key (pics error) */
    VIEW_ORDER_DIFF_KEY          /* largest exact difference first, then key (pics diff) */
} view_order;

typedef struct view {
    pics_granularity granularity;
    const trace_symmap *ranges; /* the map rows are keyed by (NULL: by instruction); not owned */
    int has_golden;            /* built from a pair */
    pics_pairing pairing;      /* the components of every row, by key then PSV */
    const pics_pair *cells;    /* = pairing.pairs */
    view_row *rows;            /* in the order of the last sort */
    size_t row_count;
    size_t shown;              /* rows selected by view_select (all, until then) */
    view_order order;          /* the order of the last sort (VIEW_ORDER_KEY as built) */
} view;

/* Builds the view of `p` (and `golden`, when not NULL) at granularity `g`:
 * PICS_GRAN_INSN_COMPONENT (rows by instruction, a component per PSV),
 * PICS_GRAN_INSN (by instruction, the PSVs merged) or PICS_GRAN_FUNC (by
 * the ranges of `ranges`, a component per PSV; `ranges` may also be an
 * object map). Rows come sorted by key. Errors: TEA_ERR_USAGE for
 * PICS_GRAN_FUNC without ranges, TEA_ERR_NOMEM. */
int view_build(view *v, const pics *p, const pics *golden, pics_granularity g, const trace_symmap *ranges);

/* The label of a cell's component at granularity `g`: its PSV's label
 * (trace_psv_label), or VIEW_ALL_COMPONENTS when `g` sums the components
 * (PICS_GRAN_INSN), whose merged cell has no PSV of its own. */
#define VIEW_ALL_COMPONENTS "(all)"
const char *view_component_label(pics_granularity g, uint16_t psv, char *buf, size_t size);

/* The view's total difference as a share: the error of pics/error.h when
 * the second PICS is the golden one. */
double view_error(const view *v);

/* A row's difference as a share: its error contribution. */
double view_contribution(const view *v, const view_row *r);

/* The first address of a row's key: the PC, or its range's start (0
 * outside every range). */
uint64_t view_key_address(const view *v, uint64_t key);

/* The range name of a row's key (VIEW_UNKNOWN_NAME outside every range),
 * or NULL for a view by instruction. */
const char *view_key_name(const view *v, uint64_t key);

/* The position of the first row whose key is not below `key`
 * (row_count when none); only while the rows are in key order. */
size_t view_lower_bound(const view *v, uint64_t key);

/* The row of `key`, or NULL; only while the rows are in key order. */
const view_row *view_find(const view *v, uint64_t key);

/* Sorts every row (view_select's cut is undone). */
void view_sort(view *v, view_order order);

/* Moves to the front, in their order, the rows with at least
 * `percent_limit` percent of the first PICS's total, or of the golden total
 * (pairs), and of them takes at most `top` (0: all): rows[0 .. shown) are
 * the rows to show; row_count still counts every row. 0 or TEA_ERR_NOMEM. */
int view_select(view *v, uint64_t top, double percent_limit);

/* Every component sorted by difference, largest first, then by key and PSV
 * (pics diff's rows): a malloc'd array of `n` pointers into v->cells.
 * 0 or TEA_ERR_NOMEM. */
int view_cells_by_diff(const view *v, const pics_pair ***out, size_t *n);

/* One component's part of a view (pics error --by component): its cells
 * (one PSV) summed over every row. */
typedef struct view_component {
    uint16_t psv;
    uint64_t value, golden;  /* raw sums in the first and second PICS */
    exact_u128 diff;         /* the sum of its cells' differences */
    double contribution;     /* diff as a share of the pairing's denominator */
} view_component;

/* The components of `v`'s cells, largest difference first, then by PSV,
 * in a malloc'd array of *n (NULL with *n = 0 for an empty view). Their
 * differences sum to the view's, so their contributions sum to view_error;
 * their values and golden values to the two PICS's totals. At
 * PICS_GRAN_INSN, whose cells merge the components, there is one. 0 or
 * TEA_ERR_NOMEM. */
int view_components(const view *v, view_component **out, size_t *n);

void view_free(view *v);

/*
 * Whether `v` is a sound view: every row a whole run of components of one
 * key (nothing of its key outside first .. first + count), its value,
 * golden value and difference their sums and its contribution its
 * difference's share; one row per run of components (as many rows as runs,
 * and the rows' first components sum, and sum squared, as the runs' do), so
 * that the rows cover every component once; the rows' sums the pairing's
 * totals; the shown rows sorted as v->order says (strictly: every order
 * ends in the key) and the rows view_select cut off in at most two sorted
 * runs; shown <= row_count. Returns 1 when sound, 0 otherwise, so that
 * assert(view_check(v)) reads as the claim; O(components), for phase
 * boundaries of Debug builds (after building, sorting, selecting) and for
 * tests.
 */
int view_check(const view *v);

/* The functions a command groups by, from the first of: the symbol map at
 * `symbols_path` (--symbols: "START END NAME" lines), else what the
 * symbolizer `z` knows (the binary of --elf or the one the trace names, and
 * the objects the trace lists), each object's functions with the gaps of
 * its sections as "[unknown SECTION]" ranges. *from is where they came
 * from: the map's path or the binary's (NULL when neither: the map then
 * holds the objects' functions, if any, and the caller says what it
 * needs). `z` may be NULL. Errors: those of trace_symmap_load, TEA_ERR_NOMEM. */
int view_functions(const char *symbols_path, const binary_symbolizer *z, trace_symmap *out, const char **from);

#endif
