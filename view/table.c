/*
 * table.c: a view's rows named and written through common/emit (table.h).
 */
#include "table.h"
#include "common/error.h"
#include "trace/psv.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0
/* The text table's share, cycles and address columns. */
#define SHARE_WIDTH 9         /* "100.00%" in "%8.2f%%" */
#define SHARE_HEADING_WIDTH 8 /* "Overhead" */
#define INTERVAL_HEADING_WIDTH 9 /* "±95%": '±' is two bytes, so 8 columns */
#define CYCLES_WIDTH 16
/* ... and the instructions (or samples) and cycles-per-instruction ones. */
#define COUNT_WIDTH 14
#define CPI_WIDTH 9
#define ADDRESS_WIDTH 18

int view_table_name_row(const view *v, binary_symbolizer *z, const view_row *r, view_table_names *n)
{
    unsigned size;
    int rc;

    memset(n, 0, sizeof *n);
    if (pics_granularity_ranged(v->granularity)) {
        snprintf(n->function, sizeof n->function, "%s", view_key_name(v, r->key));
        n->has_address = r->key != 0;
        n->address = view_key_address(v, r->key);
        snprintf(n->location, sizeof n->location, "%s", n->function);
    } else {
        n->has_address = 1;
        n->address = r->key;
        binary_symbolize_function(z, r->key, n->function, sizeof n->function);
        binary_symbolize_location(z, r->key, n->location, sizeof n->location);
        if (binary_symbolize_disasm(z, r->key, n->disassembly, sizeof n->disassembly, &size))
            n->disassembly[0] = '\0';
        error_clear();
    }
    if (n->has_address)
        binary_symbolize_object(z, n->address, n->object, sizeof n->object);
    n->shown = n->has_address ? binary_symbolize_address(z, n->address) : 0;
    if (n->has_address && (rc = binary_symbolize_source(z, n->address, n->source, sizeof n->source)) < 0)
        return rc;
    return TEA_OK;
}

/* What the first PICS's cell counts are: none where no cell of the view
 * counts anything (a PICS imported without counts). */
static view_table_counts counts_of(const view_report_input *in, const view *v)
{
    int any = 0;
    for (size_t i = 0; i < v->row_count && !any; i++)
        any = v->rows[i].count_a != 0;
    if (!any)
        return VIEW_COUNTS_NONE;
    return pics_info_is_golden(&in->info) ? VIEW_COUNTS_INSTRUCTIONS : VIEW_COUNTS_SAMPLES;
}

int view_table_init(view_table *t, const view_report_input *in, const view *v, binary_symbolizer *z,
                    const view_intervals *iv)
{
    size_t cells = 0, k = 0;

    memset(t, 0, sizeof *t);
    t->in = in;
    t->v = v;
    t->z = z;
    t->iv = iv;
    t->named = SIZE_MAX;
    t->counts = counts_of(in, v);
    for (size_t i = 0; i < v->shown; i++)
        cells += v->rows[i].count;
    if (cells && (!(t->cell_row = malloc(cells * sizeof *t->cell_row))
                  || !(t->cell_pair = malloc(cells * sizeof *t->cell_pair)))) {
        view_table_free(t);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < v->shown; i++)
        for (size_t c = 0; c < v->rows[i].count; c++) {
            t->cell_row[k] = i;
            t->cell_pair[k++] = v->rows[i].first + c;
        }
    assert(k == cells);
    t->cell_count = cells;
    return TEA_OK;
}

void view_table_free(view_table *t)
{
    free(t->cell_row);
    free(t->cell_pair);
    t->cell_row = t->cell_pair = NULL;
    t->cell_count = 0;
}

int view_table_names_of(view_table *t, size_t row, const view_table_names **names)
{
    int rc;

    assert(row < t->v->shown);
    if (t->named != row) {
        t->named = SIZE_MAX;
        if ((rc = view_table_name_row(t->v, t->z, &t->v->rows[row], &t->names)))
            return rc;
        t->named = row;
    }
    *names = &t->names;
    return TEA_OK;
}

/* --- the text table: one line per row ------------------------------------------------ */

static int text_share(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table *t = ctx;
    (void)format;
    emit_printf(cell, "%.2f%%", PERCENT * view_report_share(t->in, 0, t->v->rows[row].value));
    return TEA_OK;
}

static int text_interval(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table *t = ctx;
    (void)format;
    emit_printf(cell, "±%6.2f%%", PERCENT * view_intervals_half(t->iv, t->v->rows[row].key, -1));
    return TEA_OK;
}

static int text_cycles(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table *t = ctx;
    (void)format;
    view_report_cycles_text(t->in, 0, t->v->rows[row].value, VIEW_REPORT_TEXT_DIGITS, cell->text, EMIT_CELL_MAX);
    return TEA_OK;
}

/* A row's instructions (golden) or samples (sampled). */
static int text_count(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table *t = ctx;
    (void)format;
    emit_printf(cell, "%" PRIu64, t->v->rows[row].count_a);
    return TEA_OK;
}

/* A golden row's cycles per instruction ("-" for a row without commits:
 * the cycles of a flush's or a drain's cells, for one). */
static int text_cpi(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table *t = ctx;
    const view_row *r = &t->v->rows[row];
    (void)format;
    if (r->count_a)
        emit_printf(cell, "%.3f", view_report_cycles(t->in, 0, r->value) / (double)r->count_a);
    else
        emit_text(cell, "-");
    return TEA_OK;
}

static int text_object(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_names *n;
    int rc = view_table_names_of(ctx, row, &n);
    (void)format;
    if (!rc)
        emit_text(cell, n->object[0] ? n->object : "-");
    return rc;
}

static int text_location(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_names *n;
    int rc = view_table_names_of(ctx, row, &n);
    (void)format;
    if (!rc)
        view_report_fit(n->location, VIEW_TABLE_LOCATION_WIDTH, cell->text, EMIT_CELL_MAX);
    return rc;
}

/* A call path in full, the row's last column. */
static int text_call_path(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_names *n;
    int rc = view_table_names_of(ctx, row, &n);
    (void)format;
    if (!rc)
        emit_text(cell, n->location);
    return rc;
}

static int text_address(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_names *n;
    int rc = view_table_names_of(ctx, row, &n);
    (void)format;
    if (rc)
        return rc;
    if (n->has_address)
        emit_printf(cell, "0x%" PRIx64, n->shown);
    else
        emit_text(cell, "-");
    return TEA_OK;
}

static int text_disassembly(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table *t = ctx;
    const view_table_names *n;
    int rc = view_table_names_of(ctx, row, &n);
    (void)format;
    if (!rc && !pics_granularity_ranged(t->v->granularity))
        emit_text(cell, n->disassembly[0] ? n->disassembly : "-");
    return rc;
}

size_t view_table_text_columns(view_table *t, emit_column *cols, emit_table *table)
{
    int func = pics_granularity_ranged(t->v->granularity);
    size_t n = 0;

    cols[n++] = (emit_column){ "share", "Overhead", SHARE_WIDTH, SHARE_HEADING_WIDTH, " ", EMIT_CSV_RAW, text_share, 0 };
    if (t->iv->count)
        cols[n++] = (emit_column){ "share_ci", "±95%", 0, INTERVAL_HEADING_WIDTH, " ", EMIT_CSV_RAW, text_interval, 0 };
    cols[n++] = (emit_column){ "cycles", "Cycles", CYCLES_WIDTH, 0, "  ", EMIT_CSV_RAW, text_cycles, 0 };
    switch (t->counts) {
    case VIEW_COUNTS_INSTRUCTIONS:
        cols[n++] = (emit_column){ "instructions", "Instructions", COUNT_WIDTH, 0, " ", EMIT_CSV_RAW, text_count, 0 };
        cols[n++] = (emit_column){ "cpi", "CPI", CPI_WIDTH, 0, "  ", EMIT_CSV_RAW, text_cpi, 0 };
        break;
    case VIEW_COUNTS_SAMPLES:
        cols[n++] = (emit_column){ "samples", "Samples", COUNT_WIDTH, 0, "  ", EMIT_CSV_RAW, text_count, 0 };
        break;
    case VIEW_COUNTS_NONE:
        break;
    }
    if (t->v->granularity == PICS_GRAN_CALLPATH) { /* no object or address: a path of functions, in full */
        cols[n++] = (emit_column){ "call_path", "Call path", 0, 0, NULL, EMIT_CSV_FIELD, text_call_path, 0 };
        goto done;
    }
    if (binary_symbolize_has_objects(t->z))
        cols[n++] = (emit_column){ "object", "Object", -VIEW_TABLE_OBJECT_WIDTH, 0, " ", EMIT_CSV_FIELD, text_object, 0 };
    cols[n++] = (emit_column){ "location", func ? "Function" : "Symbol", -VIEW_TABLE_LOCATION_WIDTH, 0, " ",
                               EMIT_CSV_FIELD, text_location, 0 };
    cols[n++] = (emit_column){ "address", "Address", -ADDRESS_WIDTH, 0, " ", EMIT_CSV_RAW, text_address, 0 };
    cols[n++] = (emit_column){ "disassembly", func ? "" : "Disassembly", 0, 0, NULL, EMIT_CSV_FIELD,
                               text_disassembly, 0 };
done:
    assert(n <= VIEW_TABLE_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = t;
    table->rows = t->v->shown;
    table->heading_prefix = "# ";
    table->row_prefix = "  ";
    return n;
}

/* --- CSV and JSON: one line per cell ------------------------------------------------- */

/* The view's cell `cell` (of t->cell_row's order) and its row. */
static const pics_pair *cell_at(const view_table *t, size_t cell, const view_row **row)
{
    assert(cell < t->cell_count);
    *row = &t->v->rows[t->cell_row[cell]];
    assert(t->cell_pair[cell] >= (*row)->first && t->cell_pair[cell] < (*row)->first + (*row)->count);
    return &t->v->cells[t->cell_pair[cell]];
}

/* The names of cell `cell`'s row. */
static int cell_names(view_table *t, size_t cell, const view_table_names **n)
{
    return view_table_names_of(t, t->cell_row[cell], n);
}

/* A text cell that JSON shows as null when it is empty. */
static void text_or_null(emit_cell *cell, const char *text)
{
    emit_text(cell, text);
    if (!text || !*text)
        cell->json = EMIT_JSON_NULL;
}

/* A fraction: 9 decimals in CSV, a number in JSON. */
static void fraction(emit_cell *cell, double v)
{
    emit_printf(cell, "%.9f", v);
    cell->json = EMIT_JSON_DOUBLE;
    cell->number = v;
}

static int cell_rank(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table *t = ctx;
    (void)format;
    emit_printf(out, "%zu", t->cell_row[cell] + 1);
    out->json = EMIT_JSON_U64;
    out->count = t->cell_row[cell] + 1;
    return TEA_OK;
}

static int cell_address(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table_names *n;
    int rc = cell_names(ctx, cell, &n);
    (void)format;
    if (rc)
        return rc;
    if (n->has_address)
        emit_printf(out, "0x%" PRIx64, n->shown);
    else
        out->json = EMIT_JSON_NULL;
    return TEA_OK;
}

static int cell_object(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table_names *n;
    int rc = cell_names(ctx, cell, &n);
    (void)format;
    if (!rc)
        text_or_null(out, n->object);
    return rc;
}

static int cell_function(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table_names *n;
    int rc = cell_names(ctx, cell, &n);
    (void)format;
    if (!rc)
        emit_text(out, n->function);
    return rc;
}

static int cell_location(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table_names *n;
    int rc = cell_names(ctx, cell, &n);
    (void)format;
    if (!rc)
        emit_text(out, n->location);
    return rc;
}

static int cell_disassembly(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table_names *n;
    int rc = cell_names(ctx, cell, &n);
    (void)format;
    if (!rc)
        text_or_null(out, n->disassembly);
    return rc;
}

static int cell_source(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table_names *n;
    int rc = cell_names(ctx, cell, &n);
    (void)format;
    if (!rc)
        text_or_null(out, n->source);
    return rc;
}

static int cell_component(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table *t = ctx;
    const view_row *r;
    const pics_pair *c = cell_at(t, cell, &r);
    (void)format;
    view_component_label(t->v->granularity, c->psv, out->text, EMIT_CELL_MAX);
    return TEA_OK;
}

static int cell_psv(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_row *r;
    const pics_pair *c = cell_at(ctx, cell, &r);
    (void)format;
    emit_printf(out, "%u", c->psv);
    out->json = EMIT_JSON_U64;
    out->count = c->psv;
    return TEA_OK;
}

/* Cycles of the PICS (golden 0) or the golden one (golden 1); empty and
 * null without a golden PICS. */
static void cycles_cell(const view_table *t, uint64_t value, int golden, emit_cell *out)
{
    if (golden && !t->in->has_golden) {
        out->json = EMIT_JSON_NULL;
        return;
    }
    view_report_cycles_text(t->in, golden, value, VIEW_REPORT_DATA_DIGITS, out->text, EMIT_CELL_MAX);
    out->json = EMIT_JSON_DOUBLE;
    out->number = view_report_cycles(t->in, golden, value);
}

static int cell_cycles(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_row *r;
    const pics_pair *c = cell_at(ctx, cell, &r);
    (void)format;
    cycles_cell(ctx, c->a, 0, out);
    return TEA_OK;
}

/* The cell's count as the column `kind` counts (instructions or samples):
 * empty and null where the PICS counts the other or nothing. */
static void count_cell(const view_table *t, size_t cell, view_table_counts kind, emit_cell *out)
{
    const view_row *r;
    const pics_pair *c = cell_at(t, cell, &r);
    if (t->counts != kind) {
        out->json = EMIT_JSON_NULL;
        return;
    }
    emit_printf(out, "%" PRIu64, c->count_a);
    out->json = EMIT_JSON_U64;
    out->count = c->count_a;
}

static int cell_instructions(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    (void)format;
    count_cell(ctx, cell, VIEW_COUNTS_INSTRUCTIONS, out);
    return TEA_OK;
}

static int cell_samples(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    (void)format;
    count_cell(ctx, cell, VIEW_COUNTS_SAMPLES, out);
    return TEA_OK;
}

static int cell_share(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table *t = ctx;
    const view_row *r;
    const pics_pair *c = cell_at(t, cell, &r);
    (void)format;
    fraction(out, view_report_share(t->in, 0, c->a));
    return TEA_OK;
}

static int cell_golden_cycles(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_row *r;
    const pics_pair *c = cell_at(ctx, cell, &r);
    (void)format;
    cycles_cell(ctx, c->b, 1, out);
    return TEA_OK;
}

static int cell_golden_share(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table *t = ctx;
    const view_row *r;
    const pics_pair *c = cell_at(t, cell, &r);
    (void)format;
    if (t->in->has_golden)
        fraction(out, view_report_share(t->in, 1, c->b));
    else
        out->json = EMIT_JSON_NULL;
    return TEA_OK;
}

static int cell_contribution(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    const view_table *t = ctx;
    const view_row *r;
    const pics_pair *c = cell_at(t, cell, &r);
    (void)format;
    if (t->in->has_golden)
        fraction(out, pics_pairing_share(&t->v->pairing, c->diff));
    else
        out->json = EMIT_JSON_NULL;
    return TEA_OK;
}

/* The share's interval, low (high 0) or high end: CSV has the column
 * always (empty where there is no interval), JSON only for a sampled
 * trace's windows. The low end is cut at 0. */
static void interval_cell(const view_table *t, size_t cell, emit_format format, int high, emit_cell *out)
{
    const view_row *r;
    const pics_pair *c = cell_at(t, cell, &r);
    double share = view_report_share(t->in, 0, c->a), half = view_intervals_half(t->iv, r->key, c->psv);
    double end = high ? share + half : fmax(share - half, 0.0);

    if (format == EMIT_JSON && !t->iv->count) {
        out->json = EMIT_JSON_OMIT;
        return;
    }
    if (format != EMIT_JSON && isnan(half))
        return;
    fraction(out, end);
}

static int cell_interval_low(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    interval_cell(ctx, cell, format, 0, out);
    return TEA_OK;
}

static int cell_interval_high(void *ctx, size_t cell, emit_format format, emit_cell *out)
{
    interval_cell(ctx, cell, format, 1, out);
    return TEA_OK;
}

/* --- the cells of one PICS (pics export) --------------------------------------------- */

#define EXPORT_DIGITS 6 /* fraction digits of exported cycles */

static int export_pc(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const view_table_cells *c = ctx;
    (void)format;
    emit_printf(cell, "0x%llx", (unsigned long long)c->cells[i].pc);
    return TEA_OK;
}

static int export_psv(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const view_table_cells *c = ctx;
    (void)format;
    emit_printf(cell, "%u", c->cells[i].psv);
    cell->json = EMIT_JSON_U64;
    cell->count = c->cells[i].psv;
    return TEA_OK;
}

static int export_component(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const view_table_cells *c = ctx;
    (void)format;
    trace_psv_label(c->cells[i].psv, cell->text, EMIT_CELL_MAX);
    return TEA_OK;
}

static int export_cycles(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const view_table_cells *c = ctx;
    (void)format;
    pics_format_cycles(c->info, c->total, c->cells[i].value, EXPORT_DIGITS, cell->text, EMIT_CELL_MAX);
    cell->json = EMIT_JSON_DOUBLE;
    cell->number = pics_value_cycles(c->info, c->total, c->cells[i].value);
    return TEA_OK;
}

static int export_count(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const view_table_cells *c = ctx;
    (void)format;
    emit_printf(cell, "%llu", (unsigned long long)c->cells[i].count);
    cell->json = EMIT_JSON_U64;
    cell->count = c->cells[i].count;
    return TEA_OK;
}

void view_table_cells_columns(view_table_cells *c, emit_format format, emit_column *cols, emit_table *table)
{
    size_t n = 0;

    cols[n++] = (emit_column){ "pc", NULL, 0, 0, NULL, EMIT_CSV_RAW, export_pc, 0 };
    cols[n++] = (emit_column){ "psv", NULL, 0, 0, NULL, EMIT_CSV_RAW, export_psv, 0 };
    cols[n++] = (emit_column){ "component", NULL, 0, 0, NULL, EMIT_CSV_FIELD, export_component, 0 };
    cols[n++] = (emit_column){ "cycles", NULL, 0, 0, NULL, EMIT_CSV_RAW, export_cycles, 0 };
    if (format == EMIT_JSON)
        cols[n++] = (emit_column){ "count", NULL, 0, 0, NULL, EMIT_CSV_RAW, export_count, 0 };
    assert(n <= VIEW_TABLE_CELLS_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = c;
    table->rows = c->count;
}

/* --- what contributes to an error (pics error) ----------------------------------------- */

/* The text width of a contributor's address ("0x" and 16 digits). */
#define CONTRIBUTOR_ADDRESS_WIDTH 18
/* The text width of a contribution ("%8.4f%%"). */
#define CONTRIBUTION_WIDTH 9

static int contributor_name(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view *v = ctx;
    const char *name = view_key_name(v, v->rows[row].key);
    if (format == EMIT_TEXT)
        view_report_fit(name, VIEW_TABLE_CONTRIBUTOR_NAME_WIDTH, cell->text, EMIT_CELL_MAX);
    else
        emit_text(cell, name);
    return TEA_OK;
}

static int contributor_path(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view *v = ctx;
    (void)format;
    emit_text(cell, view_key_name(v, v->rows[row].key));
    return TEA_OK;
}

static int contributor_address(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view *v = ctx;
    (void)format;
    emit_printf(cell, "0x%llx", (unsigned long long)view_key_address(v, v->rows[row].key));
    return TEA_OK;
}

static int contribution(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view *v = ctx;
    double c = view_contribution(v, &v->rows[row]);
    if (format == EMIT_TEXT)
        emit_printf(cell, "%.4f%%", PERCENT * c);
    else
        emit_fixed(c, EMIT_FIXED_MAX_DECIMALS, cell->text, EMIT_CELL_MAX);
    cell->json = EMIT_JSON_DOUBLE;
    cell->number = c;
    return TEA_OK;
}

void view_table_contribution_columns(view *v, emit_format format, size_t rows, emit_column *cols, emit_table *table)
{
    size_t n = 0;

    assert(rows <= v->row_count);
    if (v->granularity == PICS_GRAN_CALLPATH) /* a path in full, no address */
        cols[n++] = (emit_column){ "call_path", NULL, 0, 0, " ", EMIT_CSV_FIELD, contributor_path, 0 };
    else if (v->ranges) /* a view by function has names */
        cols[n++] = (emit_column){ "function", NULL, -VIEW_TABLE_CONTRIBUTOR_NAME_WIDTH, 0, " ", EMIT_CSV_FIELD,
                                   contributor_name, 0 };
    if (v->granularity != PICS_GRAN_CALLPATH)
        cols[n++] = (emit_column){ "address", NULL, -CONTRIBUTOR_ADDRESS_WIDTH, 0, " ", EMIT_CSV_RAW,
                                   contributor_address, 0 };
    cols[n++] = (emit_column){ "contribution", NULL, CONTRIBUTION_WIDTH, 0, NULL, EMIT_CSV_RAW, contribution, 0 };
    assert(n <= VIEW_TABLE_CONTRIBUTION_COLUMNS_MAX);
    (void)format;
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = v;
    table->rows = rows;
    table->row_prefix = "  ";
}

size_t view_table_cell_columns(view_table *t, emit_column *cols, emit_table *table)
{
    size_t n = 0;

    cols[n++] = (emit_column){ "rank", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_rank, 0 };
    if (t->v->granularity == PICS_GRAN_CALLPATH) { /* a path of functions: no address, object or line */
        cols[n++] = (emit_column){ "call_path", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_function, 0 };
    } else {
        cols[n++] = (emit_column){ "address", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_address, 0 };
        if (binary_symbolize_has_objects(t->z))
            cols[n++] = (emit_column){ "object", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_object, 0 };
        cols[n++] = (emit_column){ "function", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_function, 0 };
        cols[n++] = (emit_column){ "location", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_location, 0 };
        cols[n++] = (emit_column){ "disassembly", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_disassembly, 0 };
        cols[n++] = (emit_column){ "source", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_source, 0 };
    }
    cols[n++] = (emit_column){ "component", NULL, 0, 0, NULL, EMIT_CSV_FIELD, cell_component, 0 };
    cols[n++] = (emit_column){ "psv", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_psv, 0 };
    cols[n++] = (emit_column){ "instructions", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_instructions, 0 };
    cols[n++] = (emit_column){ "samples", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_samples, 0 };
    cols[n++] = (emit_column){ "cycles", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_cycles, 0 };
    cols[n++] = (emit_column){ "share", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_share, 0 };
    cols[n++] = (emit_column){ "golden_cycles", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_golden_cycles, 0 };
    cols[n++] = (emit_column){ "golden_share", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_golden_share, 0 };
    cols[n++] = (emit_column){ "error_contribution", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_contribution, 0 };
    cols[n++] = (emit_column){ "share_ci_low", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_interval_low, 0 };
    cols[n++] = (emit_column){ "share_ci_high", NULL, 0, 0, NULL, EMIT_CSV_RAW, cell_interval_high, 0 };
    assert(n <= VIEW_TABLE_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = t;
    table->rows = t->cell_count;
    return n;
}

/* --- an error by component (pics error --by component) --------------------------------- */

/* The text width of a component's label (ST-L1,ST-TLB,ST-LLC,DR-L1,FL-EX and
 * more fit; longer labels push their row's columns on). */
#define COMPONENT_LABEL_WIDTH 32
/* The text width of a component's contribution: its heading's. */
#define COMPONENT_CONTRIBUTION_WIDTH 12
/* The text width of a share ("100.00%"). */
#define COMPONENT_SHARE_WIDTH 8

void view_table_components_init(view_table_components *c, const view *v, const view_component *items, size_t n)
{
    memset(c, 0, sizeof *c);
    c->v = v;
    c->items = items;
    c->count = n;
    c->granularity = v->granularity;
    for (size_t i = 0; i < n; i++) {
        c->total += items[i].value;
        c->golden_total += items[i].golden;
    }
}

static int component_label(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_components *c = ctx;
    char label[TRACE_PSV_LABEL_MAX];
    (void)format;
    emit_text(cell, view_component_label(c->granularity, c->items[row].psv, label, sizeof label));
    return TEA_OK;
}

static int component_psv(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_components *c = ctx;
    (void)format;
    emit_printf(cell, "%u", (unsigned)c->items[row].psv);
    cell->json = EMIT_JSON_U64;
    cell->count = c->items[row].psv;
    return TEA_OK;
}

/* A fraction: a percentage with `decimals` digits in text, else
 * EMIT_FIXED_MAX_DECIMALS digits (and a JSON number). */
static void fraction_cell(emit_cell *cell, emit_format format, double x, int decimals)
{
    if (format == EMIT_TEXT)
        emit_printf(cell, "%.*f%%", decimals, PERCENT * x);
    else
        emit_fixed(x, EMIT_FIXED_MAX_DECIMALS, cell->text, EMIT_CELL_MAX);
    cell->json = EMIT_JSON_DOUBLE;
    cell->number = x;
}

static int component_contribution(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_components *c = ctx;
    fraction_cell(cell, format, c->items[row].contribution, 4);
    return TEA_OK;
}

static int component_share(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_table_components *c = ctx;
    uint64_t part = cell->index ? c->items[row].golden : c->items[row].value;
    uint64_t whole = cell->index ? c->golden_total : c->total;
    fraction_cell(cell, format, whole ? (double)part / (double)whole : 0.0, 2);
    return TEA_OK;
}

void view_table_component_columns(view_table_components *c, emit_column *cols, emit_table *table)
{
    size_t n = 0;

    cols[n++] = (emit_column){ "component", NULL, -COMPONENT_LABEL_WIDTH, 0, " ", EMIT_CSV_FIELD, component_label, 0 };
    cols[n++] = (emit_column){ "psv", NULL, 3, 0, " ", EMIT_CSV_RAW, component_psv, 0 };
    cols[n++] = (emit_column){ "contribution", NULL, COMPONENT_CONTRIBUTION_WIDTH, 0, " ", EMIT_CSV_RAW,
                               component_contribution, 0 };
    cols[n++] = (emit_column){ "share", NULL, COMPONENT_SHARE_WIDTH, 0, " ", EMIT_CSV_RAW, component_share, 0 };
    cols[n++] = (emit_column){ "golden_share", "golden", COMPONENT_SHARE_WIDTH, 0, NULL, EMIT_CSV_RAW, component_share, 1 };
    assert(n <= VIEW_TABLE_COMPONENT_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = c;
    table->rows = c->count;
    table->heading_prefix = "  ";
    table->row_prefix = "  ";
}
