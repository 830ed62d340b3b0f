/*
 * threads.c: a program's rows by thread (see threads.h).
 */
#define _GNU_SOURCE
#include "threads.h"
#include "common/error.h"
#include "common/search.h"
#include "results/results.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0
/* Text widths: a share ("100.00%"), cycles, a thread's name, an address. */
#define SHARE_WIDTH 10
#define CYCLES_WIDTH 16
#define THREAD_WIDTH 14
#define ADDRESS_WIDTH 18

void view_threads_init(view_threads *t, pics_granularity g)
{
    memset(t, 0, sizeof *t);
    t->granularity = g == PICS_GRAN_FUNC ? PICS_GRAN_FUNC : PICS_GRAN_INSN;
}

/* Room for `more` rows. */
static int grow_rows(view_threads *t, size_t more)
{
    view_threads_row *grown = realloc(t->rows, (t->row_count + more ? t->row_count + more : 1) * sizeof *grown);
    if (!grown)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    t->rows = grown;
    return TEA_OK;
}

/* A new core, kept in t->cores; NULL when out of memory (error set). */
static view_threads_core *new_core(view_threads *t)
{
    view_threads_core *c;
    if (t->core_count == t->core_cap) {
        size_t cap = t->core_cap ? 2 * t->core_cap : 8;
        view_threads_core **grown = realloc(t->cores, cap * sizeof *grown);
        if (!grown) {
            error_set(TEA_ERR_NOMEM, "out of memory");
            return NULL;
        }
        t->cores = grown;
        t->core_cap = cap;
    }
    if (!(c = calloc(1, sizeof *c))) {
        error_set(TEA_ERR_NOMEM, "out of memory");
        return NULL;
    }
    t->cores[t->core_count++] = c;
    return c;
}

int view_threads_add(view_threads *t, const char *name, const view_report_input *in, binary_symbolizer *z,
                     const trace_symmap *functions)
{
    view_threads_core *c = new_core(t);
    int rc;

    if (!c)
        return TEA_ERR_NOMEM;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->in = in;
    c->z = z;
    if ((rc = view_build(&c->v, &in->p, NULL, t->granularity, functions)) || (rc = grow_rows(t, c->v.row_count)))
        return rc;
    for (size_t i = 0; i < c->v.row_count; i++) {
        const view_row *r = &c->v.rows[i];
        if (!r->value)
            continue;
        t->rows[t->row_count++] = (view_threads_row){ t->core_count - 1, i, view_report_cycles(in, 0, r->value),
                                                      r->key };
    }
    t->total += view_report_cycles(in, 0, in->p.total);
    t->shown = t->row_count;
    return TEA_OK;
}

/* Loads core `name` of `dir` into `l` and adds it. */
static int load_core(view_threads *t, view_threads_loaded *l, const char *dir, const char *name, const char *file,
                     binary_symbolize_options sym)
{
    char path[PATH_MAX];
    const char *from;
    int rc;

    if ((size_t)snprintf(path, sizeof path, "%s/%s/%s/%s", dir, RESULTS_CORES, name, file) >= sizeof path)
        return error_set(TEA_ERR_USAGE, "%s/%s/%s: path too long", dir, RESULTS_CORES, name);
    if ((rc = view_report_input_load(&l->in, path, NULL))
        || (rc = view_report_symbolize(&l->z, &l->in.info.program, &l->in.info.objects, &l->in.p, &sym)))
        return rc;
    if (t->granularity == PICS_GRAN_FUNC && (rc = view_functions(NULL, l->z, &l->functions, &from)))
        return rc;
    return view_threads_add(t, name, &l->in, l->z, &l->functions);
}

int view_threads_load(view_threads *t, const char *dir, const char *file, const binary_symbolize_options *sym)
{
    char **names = NULL;
    size_t count = 0;
    int rc;

    if ((rc = results_dir_cores(dir, &names, &count)))
        return rc;
    if (!(t->loaded = calloc(count, sizeof *t->loaded)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t k = 0; !rc && k < count; k++) {
        binary_symbolize_options one = *sym;
        one.note_stripped = sym->note_stripped && k == 0; /* the cores share their binaries: said once */
        t->loaded_count = k + 1;
        rc = load_core(t, &t->loaded[k], dir, names[k], file, one);
    }
    results_dir_cores_free(names, count);
    return rc;
}

int view_threads_has_objects(const view_threads *t)
{
    for (size_t k = 0; k < t->core_count; k++)
        if (t->cores[k]->z && binary_symbolize_has_objects(t->cores[k]->z))
            return 1;
    return 0;
}

/* Largest cycles first, by thread first when `ctx` says so; ties by core
 * and key. */
static int row_before(const void *a, const void *b, void *ctx)
{
    const view_threads_row *x = a, *y = b;
    int by_thread = *(const int *)ctx;
    if (by_thread && x->core != y->core)
        return x->core < y->core ? -1 : 1;
    if (x->cycles != y->cycles)
        return x->cycles > y->cycles ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

void view_threads_sort(view_threads *t, int by_thread)
{
    search_sort(t->rows, t->row_count, sizeof *t->rows, row_before, &by_thread);
    t->shown = t->row_count;
}

int view_threads_select(view_threads *t, uint64_t top, double percent_limit)
{
    size_t kept = 0;
    int rc;

    for (size_t i = 0; i < t->row_count; i++)
        if (t->total > 0 && PERCENT * t->rows[i].cycles / t->total >= percent_limit)
            t->rows[kept++] = t->rows[i];
    t->row_count = kept;
    t->shown = top && top < kept ? (size_t)top : kept;
    free(t->names);
    if (!(t->names = calloc(t->shown ? t->shown : 1, sizeof *t->names)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < t->shown; i++) {
        const view_threads_core *c = t->cores[t->rows[i].core];
        if ((rc = view_table_name_row(&c->v, c->z, &c->v.rows[t->rows[i].row], &t->names[i])))
            return rc;
    }
    return TEA_OK;
}

/* --- columns ---------------------------------------------------------------------------- */

static int cell_share(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_threads *t = ctx;
    double share = t->total > 0 ? t->rows[row].cycles / t->total : 0;
    if (format == EMIT_TEXT) {
        emit_printf(cell, "%.2f%%", PERCENT * share);
    } else {
        emit_printf(cell, "%.9f", share);
        cell->json = EMIT_JSON_DOUBLE;
        cell->number = share;
    }
    return TEA_OK;
}

static int cell_cycles(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_threads *t = ctx;
    const view_threads_row *r = &t->rows[row];
    const view_threads_core *c = t->cores[r->core];
    char text[VIEW_REPORT_NUMBER_MAX];
    view_report_cycles_text(c->in, 0, c->v.rows[r->row].value,
                            format == EMIT_TEXT ? VIEW_REPORT_TEXT_DIGITS : VIEW_REPORT_DATA_DIGITS, text, sizeof text);
    emit_text(cell, text);
    cell->json = EMIT_JSON_DOUBLE;
    cell->number = r->cycles;
    return TEA_OK;
}

static int cell_thread(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_threads *t = ctx;
    (void)format;
    emit_text(cell, t->cores[t->rows[row].core]->name);
    return TEA_OK;
}

static int cell_object(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_threads *t = ctx;
    (void)format;
    emit_text(cell, t->names[row].object);
    return TEA_OK;
}

static int cell_location(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_threads *t = ctx;
    char fit[VIEW_REPORT_NAME_MAX];
    if (format == EMIT_TEXT) /* text fits its column; CSV and JSON keep the whole name */
        emit_text(cell, view_report_fit(t->names[row].location, VIEW_TABLE_LOCATION_WIDTH, fit, sizeof fit));
    else
        emit_text(cell, t->names[row].location);
    return TEA_OK;
}

static int cell_address(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const view_threads *t = ctx;
    (void)format;
    if (t->names[row].has_address)
        emit_printf(cell, "0x%" PRIx64, t->names[row].shown);
    else
        cell->json = EMIT_JSON_NULL;
    return TEA_OK;
}

size_t view_threads_columns(view_threads *t, int objects, emit_column *cols, emit_table *table)
{
    int func = t->granularity == PICS_GRAN_FUNC;
    size_t n = 0;

    cols[n++] = (emit_column){ "share", "Overhead", SHARE_WIDTH, 0, " ", EMIT_CSV_RAW, cell_share, 0 };
    cols[n++] = (emit_column){ "cycles", "Cycles", CYCLES_WIDTH, 0, "  ", EMIT_CSV_RAW, cell_cycles, 0 };
    cols[n++] = (emit_column){ "thread", "Thread", -THREAD_WIDTH, 0, " ", EMIT_CSV_FIELD, cell_thread, 0 };
    if (objects)
        cols[n++] = (emit_column){ "object", "Object", -VIEW_TABLE_OBJECT_WIDTH, 0, " ", EMIT_CSV_FIELD,
                                   cell_object, 0 };
    cols[n++] = (emit_column){ "location", func ? "Function" : "Symbol", -VIEW_TABLE_LOCATION_WIDTH, 0, " ",
                               EMIT_CSV_FIELD, cell_location, 0 };
    cols[n++] = (emit_column){ "address", "Address", 0, 0, NULL, EMIT_CSV_RAW, cell_address, 0 };
    assert(n <= VIEW_THREADS_COLUMNS_MAX);
    memset(table, 0, sizeof *table);
    table->columns = cols;
    table->column_count = n;
    table->ctx = t;
    table->rows = t->shown;
    table->heading_prefix = "# ";
    table->row_prefix = "  ";
    return n;
}

void view_threads_free(view_threads *t)
{
    for (size_t k = 0; k < t->core_count; k++) {
        view_free(&t->cores[k]->v);
        free(t->cores[k]);
    }
    free(t->cores);
    for (size_t k = 0; k < t->loaded_count; k++) {
        view_report_input_free(&t->loaded[k].in);
        binary_symbolize_close(t->loaded[k].z);
        trace_symmap_free(&t->loaded[k].functions);
    }
    free(t->loaded);
    free(t->rows);
    free(t->names);
    memset(t, 0, sizeof *t);
}
