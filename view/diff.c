/*
 * diff.c: two PICS paired and their differences as columns (diff.h).
 */
#include "diff.h"
#include "report.h"
#include "common/error.h"
#include "trace/psv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0
#define CYCLE_DIGITS 6  /* fraction digits of cycles in every format */
#define SHARE_DIGITS 10 /* fraction digits of shares in CSV (emit_fixed writes at most 9) */
/* The text tables' column widths. */
#define COMPONENT_WIDTH 20
#define CYCLES_WIDTH 16
#define SHARE_WIDTH 9 /* "%8.4f%%" */

int view_diff_open(view_diff *d, const view_diff_options *o)
{
    const char *from;
    int rc;

    memset(d, 0, sizeof *d);
    d->o = *o;
    pics_info_init(&d->a_info);
    pics_info_init(&d->b_info);
    if ((rc = pics_read(o->a_path, &d->a_info, &d->a)) || (rc = pics_read(o->b_path, &d->b_info, &d->b)))
        return rc;
    if (strcmp(d->a_info.trace_digest, d->b_info.trace_digest) != 0)
        return error_set(TEA_ERR_USAGE, "%s and %s come from different traces (digest %s vs %s)", o->a_path,
                         o->b_path, d->a_info.trace_digest, d->b_info.trace_digest);
    if (d->a_info.golden_total != d->b_info.golden_total)
        return error_set(TEA_ERR_FORMAT, "%s and %s disagree on the golden total (%llu vs %llu units)", o->a_path,
                         o->b_path, (unsigned long long)d->a_info.golden_total,
                         (unsigned long long)d->b_info.golden_total);
    /* --adjust-vma auto scores the first file's PCs */
    if ((rc = view_report_symbolize(&d->z, &d->a_info.program, &d->a_info.objects, &d->a, &o->sym)))
        return rc;
    /* the functions: for func, and to name instructions by a --symbols map */
    if (o->granularity == PICS_GRAN_FUNC || o->symbols_path) {
        if ((rc = view_functions(o->symbols_path, d->z, &d->syms, &from)))
            return rc;
        if (!from)
            return error_set(TEA_ERR_USAGE, "--granularity func needs --symbols MAP or a binary (--elf BINARY)");
    }
    if ((rc = view_build(&d->v, &d->a, &d->b, o->granularity, &d->syms)))
        return rc;
    view_sort(&d->v, VIEW_ORDER_DIFF_KEY);
    return view_cells_by_diff(&d->v, &d->cells, &d->cell_count);
}

void view_diff_close(view_diff *d)
{
    free(d->cells);
    view_free(&d->v);
    trace_symmap_free(&d->syms);
    binary_symbolize_close(d->z);
    pics_info_free(&d->a_info);
    pics_info_free(&d->b_info);
    pics_free(&d->a);
    pics_free(&d->b);
    memset(d, 0, sizeof *d);
}

double view_diff_total(const view_diff *d)
{
    return view_error(&d->v);
}

/* --- one line: a cell (with its PSV) or a row ------------------------------------------ */

typedef struct diff_line {
    uint64_t group;   /* a row's key: the PC, or 1 + the function's index (0: outside every one) */
    uint64_t a, b;    /* the two PICS's values (raw units) */
    exact_u128 diff;
    uint16_t psv;
} diff_line;

/* Line `i` of the cells table (cells 1) or the rows table (cells 0). */
static diff_line line_of(const view_diff *d, int cells, size_t i)
{
    diff_line l;
    if (cells) {
        const pics_pair *c = d->cells[i];
        l = (diff_line){ c->key, c->a, c->b, c->diff, c->psv };
    } else {
        const view_row *r = &d->v.rows[i];
        l = (diff_line){ r->key, r->value, r->golden, r->diff, 0 };
    }
    return l;
}

/* How a group is shown: the function's name (func); for an instruction
 * NAME+0xOFF inside a symbol of --symbols, else what the symbolizer makes of
 * it (function+0xOFF with a binary, the address in hex without). */
static char *location_of(const view_diff *d, uint64_t group, char *buf, size_t size)
{
    if (d->o.granularity == PICS_GRAN_FUNC) {
        snprintf(buf, size, "%s", view_key_name(&d->v, group));
        return buf;
    }
    if (d->o.symbols_path) {
        long i = trace_symmap_find(&d->syms, group);
        if (i >= 0)
            snprintf(buf, size, "%s+0x%llx", d->syms.entries[i].name,
                     (unsigned long long)(group - d->syms.entries[i].start));
        else
            snprintf(buf, size, "0x%llx", (unsigned long long)group);
        return buf;
    }
    return binary_symbolize_location(d->z, group, buf, size);
}

/* The cycles of `value` in PICS a (b 0) or b. */
static double cycles_of(const view_diff *d, int b, uint64_t value)
{
    return b ? pics_value_cycles(&d->b_info, d->b.total, value) : pics_value_cycles(&d->a_info, d->a.total, value);
}

/* --- the columns ---------------------------------------------------------------------- */

/* Line `row` of the list a table's context names, and its diff. */
static diff_line table_line(void *ctx, size_t row, view_diff **d)
{
    const view_diff_list *t = ctx;
    *d = t->d;
    return line_of(t->d, t->cells, row);
}

static int col_pc(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    view_diff *d;
    diff_line l = table_line(ctx, row, &d);
    (void)format;
    emit_printf(cell, "0x%llx", (unsigned long long)view_key_address(&d->v, l.group));
    return TEA_OK;
}

static int col_location(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    view_diff *d;
    diff_line l = table_line(ctx, row, &d);
    char location[EMIT_CELL_MAX];

    if (format == EMIT_TEXT)
        view_report_fit(location_of(d, l.group, location, sizeof location), VIEW_DIFF_LOCATION_WIDTH, cell->text,
                        EMIT_CELL_MAX);
    else
        location_of(d, l.group, cell->text, EMIT_CELL_MAX);
    return TEA_OK;
}

static int col_psv(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    view_diff *d;
    diff_line l = table_line(ctx, row, &d);
    (void)format;
    emit_printf(cell, "%u", l.psv);
    cell->json = EMIT_JSON_U64;
    cell->count = l.psv;
    return TEA_OK;
}

static int col_component(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    view_diff *d;
    diff_line l = table_line(ctx, row, &d);
    (void)format;
    view_component_label(d->v.granularity, l.psv, cell->text, EMIT_CELL_MAX);
    return TEA_OK;
}

/* A's (which 0), B's (1) or B - A's (2) cycles: exact decimals, or a
 * number in JSON. */
static void cycles_cell(void *ctx, size_t row, emit_format format, int which, emit_cell *cell)
{
    view_diff *d;
    diff_line l = table_line(ctx, row, &d);
    double a = cycles_of(d, 0, l.a), b = cycles_of(d, 1, l.b), v = which == 0 ? a : which == 1 ? b : b - a;

    if (format == EMIT_JSON) {
        cell->json = EMIT_JSON_DOUBLE;
        cell->number = v;
    } else if (which == 0) {
        pics_format_cycles(&d->a_info, d->a.total, l.a, CYCLE_DIGITS, cell->text, EMIT_CELL_MAX);
    } else if (which == 1) {
        pics_format_cycles(&d->b_info, d->b.total, l.b, CYCLE_DIGITS, cell->text, EMIT_CELL_MAX);
    } else {
        emit_fixed(v, CYCLE_DIGITS, cell->text, EMIT_CELL_MAX);
    }
}

static int col_a(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    cycles_cell(ctx, row, format, 0, cell);
    return TEA_OK;
}

static int col_b(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    cycles_cell(ctx, row, format, 1, cell);
    return TEA_OK;
}

static int col_diff(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    cycles_cell(ctx, row, format, 2, cell);
    return TEA_OK;
}

/* |B - A| / 2C: a percentage in text, a fraction in CSV and JSON. */
static int col_share(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    view_diff *d;
    diff_line l = table_line(ctx, row, &d);
    double share = pics_pairing_share(&d->v.pairing, l.diff);

    if (format == EMIT_TEXT) {
        emit_printf(cell, "%.4f%%", PERCENT * share);
    } else if (format == EMIT_CSV) {
        emit_fixed(share, SHARE_DIGITS, cell->text, EMIT_CELL_MAX);
    } else {
        cell->json = EMIT_JSON_DOUBLE;
        cell->number = share;
    }
    return TEA_OK;
}

/* The columns of one table: the text, CSV or JSON list of the cells table
 * (cells 1) or the rows table. */
static size_t columns(view_diff *d, emit_format format, int cells, emit_column *cols)
{
    const char *what = d->o.granularity == PICS_GRAN_FUNC ? "function" : "instruction";
    size_t n = 0;

    if (format == EMIT_TEXT) {
        cols[n++] = (emit_column){ "location", what, -VIEW_DIFF_LOCATION_WIDTH, 0, " ", EMIT_CSV_FIELD, col_location, 0 };
        if (cells)
            cols[n++] = (emit_column){ "component", NULL, -COMPONENT_WIDTH, 0, " ", EMIT_CSV_FIELD, col_component, 0 };
        cols[n++] = (emit_column){ "a", "A", CYCLES_WIDTH, 0, " ", EMIT_CSV_RAW, col_a, 0 };
        cols[n++] = (emit_column){ "b", "B", CYCLES_WIDTH, 0, " ", EMIT_CSV_RAW, col_b, 0 };
        cols[n++] = (emit_column){ "diff", "B-A", CYCLES_WIDTH, 0, " ", EMIT_CSV_RAW, col_diff, 0 };
        cols[n++] = (emit_column){ "share", NULL, SHARE_WIDTH, 0, NULL, EMIT_CSV_RAW, col_share, 0 };
    } else {
        int csv = format == EMIT_CSV;
        cols[n++] = (emit_column){ "pc", NULL, 0, 0, NULL, EMIT_CSV_RAW, col_pc, 0 };
        cols[n++] = (emit_column){ "location", NULL, 0, 0, NULL, EMIT_CSV_FIELD, col_location, 0 };
        if (cells) {
            cols[n++] = (emit_column){ "psv", NULL, 0, 0, NULL, EMIT_CSV_RAW, col_psv, 0 };
            cols[n++] = (emit_column){ "component", NULL, 0, 0, NULL, EMIT_CSV_FIELD, col_component, 0 };
        }
        cols[n++] = (emit_column){ csv ? "a_cycles" : "a", NULL, 0, 0, NULL, EMIT_CSV_RAW, col_a, 0 };
        cols[n++] = (emit_column){ csv ? "b_cycles" : "b", NULL, 0, 0, NULL, EMIT_CSV_RAW, col_b, 0 };
        cols[n++] = (emit_column){ csv ? "diff_cycles" : "diff", NULL, 0, 0, NULL, EMIT_CSV_RAW, col_diff, 0 };
        cols[n++] = (emit_column){ "share", NULL, 0, 0, NULL, EMIT_CSV_RAW, col_share, 0 };
    }
    assert(n <= VIEW_DIFF_COLUMNS_MAX);
    return n;
}

/* Fills a table of `rows` lines of one list. */
static void table_of(view_diff *d, emit_format format, int cells, size_t rows, emit_column *cols, emit_table *table)
{
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = columns(d, format, cells, cols);
    d->lists[cells] = (view_diff_list){ d, cells };
    table->ctx = &d->lists[cells];
    table->rows = rows;
    table->heading_prefix = "  ";
    table->row_prefix = "  ";
}

void view_diff_cells_table(view_diff *d, emit_format format, size_t rows, emit_column *cols, emit_table *table)
{
    assert(rows <= d->cell_count);
    table_of(d, format, 1, rows, cols, table);
}

void view_diff_rows_table(view_diff *d, emit_format format, size_t rows, emit_column *cols, emit_table *table)
{
    assert(rows <= d->v.row_count);
    table_of(d, format, 0, rows, cols, table);
}
