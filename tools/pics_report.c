/*
 * pics_report.c: `pics report`, the hottest instructions (or functions) of
 * a PICS with their cycle stacks, symbolized, optionally next to the golden
 * reference with each one's error contribution; as text (like `perf report
 * --stdio`), CSV, JSON or flame-graph folded stacks (docs/report-format.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "view/interval.h"
#include "view/report.h"
#include "view/table.h"
#include "view/threads.h"
#include "view/view.h"
#include "binary/symbolize.h"
#include "view/callpath.h"
#include "cli.h"
#include "commands.h"
#include "common/csv.h"
#include "common/error.h"
#include "common/exact.h"
#include "common/json.h"
#include "common/outfile.h"
#include "pics/error.h"
#include "results/results.h"
#include "pics/scheme.h"
#include "trace/psv.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_DEFAULT_TOP 10
#define PERCENT 100.0

/* --- rows --------------------------------------------------------------------------- */

typedef enum report_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_FOLDED } report_format;
typedef enum report_sort { SORT_CYCLES, SORT_ERROR, SORT_THREAD } report_sort;

typedef struct report_request {
    const char *path, *golden_path, *out_path;
    const char *scheme;           /* --scheme: a replay directory's PICS, or NULL */
    binary_symbolize_options sym;
    uint64_t top;                 /* rows shown; 0: all */
    double percent_limit;         /* rows below this share (percent) are hidden */
    pics_granularity granularity; /* rows and the error's cells (docs/usage.md, "Granularities") */
    report_sort sort;
    report_format format;
    int threads;                  /* --threads: a program's rows by thread (view/threads.h) */
    int children;                 /* --children: functions with their callees (view/callpath.h) */
    const char *dir;              /* the operand, when a replay directory */
} report_request;

/* Everything computed before printing. */
typedef struct report_data {
    view_report_input in;
    binary_symbolizer *z;
    trace_symmap groups; /* function granularity: functions and section gaps */
    view v;             /* the rows, sorted and cut as asked */
    view_intervals iv;  /* a sampled trace's golden PICS: the share intervals (view/interval.h) */
    view_table t;       /* the shown rows, named, as columns (view/table.h) */
} report_data;

/* The rows: the view of the PICS (and the golden one), sorted and cut. */
static int build_view(const report_request *req, report_data *d)
{
    int rc;
    if (d->in.has_golden && (rc = pics_error_check(&d->in.g, req->granularity, &d->groups)))
        return rc;
    if ((rc = view_build(&d->v, &d->in.p, d->in.has_golden ? &d->in.g : NULL, req->granularity, &d->groups))
        || (rc = view_intervals_build(&d->iv, d->in.groups, d->in.group_count, req->granularity, &d->groups)))
        return rc;
    view_sort(&d->v, req->sort == SORT_ERROR ? VIEW_ORDER_CONTRIBUTION : VIEW_ORDER_VALUE);
    if ((rc = view_select(&d->v, req->top, req->percent_limit)))
        return rc;
    return view_table_init(&d->t, &d->in, &d->v, d->z, &d->iv);
}

/* --- text ---------------------------------------------------------------------------- */

/* The file name of a path (for the compact source column). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The lines under a row of the text table: its source line, its cycle
 * stack and, with a golden PICS, its error contribution; a blank line. */
static int text_after_row(FILE *f, void *ctx, size_t row)
{
    view_table *t = ctx;
    const view_row *r = &t->v->rows[row];
    const view_table_names *n;
    char golden[VIEW_REPORT_NUMBER_MAX];
    int rc;

    if ((rc = view_table_names_of(t, row, &n)))
        return rc;
    if (n->source[0])
        fprintf(f, "%12s%s\n", "", base_name(n->source));
    view_report_print_stack(f, t->in, t->v->granularity, &t->v->cells[r->first], r->count, 12);
    if (t->in->has_golden) {
        view_report_cycles_text(t->in, 1, r->golden, VIEW_REPORT_TEXT_DIGITS, golden, sizeof golden);
        fprintf(f, "%12serror contribution %.4f%% (golden %s cycles, %.2f%% of the total)\n", "",
                PERCENT * view_contribution(t->v, r), golden, PERCENT * view_report_share(t->in, 1, r->golden));
    }
    fputc('\n', f);
    return TEA_OK;
}

static int print_text(FILE *f, const report_request *req, report_data *d)
{
    const char *what = req->granularity == PICS_GRAN_CALLPATH ? "call paths"
                       : req->granularity == PICS_GRAN_FUNC ? "functions"
                                                             : "instructions";
    emit_column cols[VIEW_TABLE_COLUMNS_MAX];
    emit_table table;
    uint64_t shown_value = 0;

    view_report_print_header(f, "pics report", &d->in, d->z);
    if (d->in.has_golden)
        fprintf(f, "# golden %s: error %.4f%% at %s granularity\n", req->golden_path, PERCENT * view_error(&d->v),
                pics_granularity_name(req->granularity));
    for (size_t i = 0; i < d->v.shown; i++)
        shown_value += d->v.rows[i].value;
    fprintf(f, "# %zu of %zu %s, by %s%s: %.2f%% of the total\n", d->v.shown, d->v.row_count, what,
            req->sort == SORT_ERROR ? "error contribution" : "cycles",
            req->percent_limit > 0 ? " (with a percent limit)" : "",
            PERCENT * view_report_share(&d->in, 0, shown_value));
    if (d->iv.count)
        fprintf(f, "# shares ± the 95 %% interval over %zu groups of the sampled trace's windows\n", d->iv.count);
    view_table_text_columns(&d->t, cols, &table);
    table.after_row = text_after_row;
    fputs("#\n", f);
    emit_text_heading(f, &table);
    fputs("#\n", f);
    return emit_text_rows(f, &table);
}

/* --- csv ------------------------------------------------------------------------------- */

static int print_csv(FILE *f, report_data *d)
{
    emit_column cols[VIEW_TABLE_COLUMNS_MAX];
    emit_table table;

    view_table_cell_columns(&d->t, cols, &table);
    emit_csv_header(f, &table);
    return emit_csv_rows(f, &table);
}

/* --- json ------------------------------------------------------------------------------- */

static void json_hex(json_writer *j, uint64_t v)
{
    char text[VIEW_REPORT_NUMBER_MAX];
    snprintf(text, sizeof text, "0x%" PRIx64, v);
    json_string(j, text);
}

static void json_header(json_writer *j, const report_request *req, const report_data *d)
{
    static const pics_provenance_member described[] = {
        PICS_PROV_FILE,   PICS_PROV_SCHEME,   PICS_PROV_TRACE_BEGIN, PICS_PROV_DIGEST,
        PICS_PROV_ARCH,   PICS_PROV_BINARY,   PICS_PROV_BUILD_ID,    PICS_PROV_LOAD_BIAS,
        PICS_PROV_OBJECTS, PICS_PROV_TRACE_END,
    };
    static const pics_provenance_member sampled[] = { PICS_PROV_FREQUENCY, PICS_PROV_PERIOD, PICS_PROV_SAMPLES,
                                                      PICS_PROV_LOST, PICS_PROV_TOTAL_CYCLES };
    const pics_info *i = &d->in.info;
    const binary_symbols *s = binary_symbolize_symbols(d->z);

    pics_provenance_json(j, i, req->path, described, sizeof described / sizeof described[0]);
    json_key(j, "binary");
    json_string(j, binary_symbolize_binary(d->z));
    json_key(j, "load_bias");
    if (s)
        json_hex(j, binary_symbols_bias(s));
    else
        json_null(j);
    pics_provenance_json(j, i, req->path, sampled, sizeof sampled / sizeof sampled[0]);
    json_key(j, "granularity");
    json_string(j, pics_granularity_name(req->granularity));
    json_key(j, "sort");
    json_string(j, req->sort == SORT_ERROR ? "error" : "cycles");
    json_key(j, "golden");
    json_string(j, req->golden_path);
    json_key(j, "error");
    if (d->in.has_golden)
        json_double(j, view_error(&d->v));
    else
        json_null(j);
    json_key(j, "groups");
    json_u64(j, d->v.row_count);
    json_key(j, "shown");
    json_u64(j, d->v.shown);
}

static int print_json(FILE *f, const report_request *req, report_data *d)
{
    emit_column cols[VIEW_TABLE_COLUMNS_MAX];
    emit_table table;
    json_writer j;
    int rc;

    view_table_cell_columns(&d->t, cols, &table);
    json_init(&j, f);
    json_begin_object(&j);
    json_header(&j, req, d);
    json_key(&j, "rows");
    if ((rc = emit_json_rows(&j, &table)))
        return rc;
    json_end(&j);
    json_finish(&j);
    return TEA_OK;
}

/* --- folded ------------------------------------------------------------------------------ */


/* Copies a frame name, replacing what would break the folded syntax (';'
 * separates frames, a line ends at a newline). */
static void frame_name(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (src[i] == ';' || src[i] == '\n' || src[i] == '\r') ? '_' : src[i];
    dst[i] = '\0';
}

/* Writes every cell of `stacks` (a PICS read with its contexts) as
 * "CALLER;...;function;location;COMPONENT weight" (the callers of the
 * cell's calling context, root first), the weights those of
 * view_report_folded_cells (whole cycles summing to the total rounded);
 * cells of contexts whose callers have the same names are one line
 * (view_report_folded_merge). An instruction's names are looked up once
 * for its run of cells (they come by PC). */
static int write_folded(FILE *f, const view_report_input *stacks, const binary_symbolizer *z)
{
    view_callpath_names names;
    view_report_folded *rows = NULL;
    uint32_t *canon = NULL;
    size_t n = 0;
    char fn[BINARY_SYMBOLIZE_TEXT_MAX], loc[BINARY_SYMBOLIZE_TEXT_MAX];
    int rc;

    memset(&names, 0, sizeof names);
    if ((rc = view_callpath_names_init(&names, &stacks->p.contexts, z))
        || (rc = view_report_folded_cells(stacks, &rows, &n))
        || (rc = view_callpath_canonical(&names, &canon))
        || (rc = view_report_folded_merge(rows, &n, canon)))
        goto done;
    for (size_t i = 0; i < n; i++) {
        char label[TRACE_PSV_LABEL_MAX], caller[BINARY_SYMBOLIZE_TEXT_MAX];
        const char *callers[VIEW_CALLPATH_MAX_CALLERS];
        size_t depth = view_callpath_callers(&names, rows[i].ctx, callers);
        for (size_t k = 0; k < depth; k++) {
            frame_name(caller, sizeof caller, callers[k]);
            fputs(caller, f);
            fputc(';', f);
        }
        if (i == 0 || rows[i].pc != rows[i - 1].pc) {
            char function[BINARY_SYMBOLIZE_TEXT_MAX], location[BINARY_SYMBOLIZE_TEXT_MAX];
            binary_symbolize_function(z, rows[i].pc, function, sizeof function);
            binary_symbolize_location(z, rows[i].pc, location, sizeof location);
            frame_name(fn, sizeof fn, function);
            frame_name(loc, sizeof loc, location);
        }
        fprintf(f, "%s;%s;%s %" PRIu64 "\n", fn, loc, trace_psv_label(rows[i].psv, label, sizeof label),
                rows[i].weight);
    }
done:
    free(canon);
    free(rows);
    view_callpath_names_free(&names);
    return rc;
}

/* The folded stacks of a report that read the PICS as a view (with
 * --golden, which checked the pair): the file is read again keeping its
 * contexts. */
static int print_folded(FILE *f, report_data *d)
{
    view_report_input stacks;
    int rc = view_report_input_load_stacks(&stacks, d->in.path, NULL);
    if (!rc)
        rc = write_folded(f, &stacks, d->z);
    view_report_input_free(&stacks);
    return rc;
}

/* pics report --format folded without --golden: the PICS read once, with
 * its contexts, named and written; no view built. */
static int run_folded(const report_request *req)
{
    view_report_input in;
    binary_symbolizer *z = NULL;
    binary_symbolize_options sym = req->sym;
    outfile *out = NULL;
    int rc;

    sym.note_stripped = 1;
    if ((rc = view_report_input_load_stacks(&in, req->path, NULL)))
        return rc;
    if (!(rc = view_report_symbolize(&z, &in.info.program, &in.info.objects, &in.p, &sym))
        && !(rc = outfile_open(&out, req->out_path))) {
        if ((rc = write_folded(outfile_stream(out), &in, z)))
            outfile_abort(out);
        else
            rc = outfile_commit(out);
    }
    binary_symbolize_close(z);
    view_report_input_free(&in);
    return rc;
}

/* --- the command ---------------------------------------------------------------------------- */

#define REPORT_SYNOPSIS                                                                             \
    "Usage: pics report FILE.pics [OPTIONS]\n\n"                                                   \
    "The instructions (or functions) of a PICS that take the most time, each with its cycle\n"     \
    "stack, symbolized against the traced binary: a golden PICS's rows with their instructions\n"  \
    "(commits) and cycles per instruction, a sampled one's with their samples; with --golden,\n"   \
    "the golden stack beside it and each one's contribution to the error. Formats:\n"             \
    "docs/report-format.md.\n\n"                                                                 \
    "FILE may be a 'tea replay -o DIR' directory: its golden.pics is reported, or with\n"         \
    "--scheme S its S.pics (or its one S-FREQhz.pics) against its golden.pics (unless\n"         \
    "--golden names another); with several frequencies the message lists the files to\n"       \
    "pass (docs/usage.md, \"Words that mean one thing\").\n\n"                                 \
    "Options:\n"

/* --granularity callpath: the cells read (view_report_input_load_array)
 * keyed by call path into the PICS and the golden one, the function map
 * replaced by the map of the paths (view/callpath.h). */
static int key_by_call_path(report_data *d)
{
    const view_callpath_input in[2] = { { &d->in.p.contexts, d->in.cells, d->in.cell_count },
                                        { &d->in.g.contexts, d->in.gcells, d->in.gcell_count } };
    pics out[2];
    int rc = view_callpath_key_all(in, 2, &d->groups, out);
    if (rc)
        return rc;
    pics_free(&d->in.p);
    pics_free(&d->in.g);
    d->in.p = out[0];
    d->in.g = out[1];
    free(d->in.cells);
    free(d->in.gcells);
    d->in.cells = d->in.gcells = NULL;
    d->in.cell_count = d->in.gcell_count = 0;
    return TEA_OK;
}

static int run_report(const report_request *req)
{
    uint64_t *pcs = NULL; /* --adjust-vma auto over an array's cells */
    report_data d;
    binary_symbolize_options sym;
    const char *from;
    outfile *out = NULL;
    int rc;

    if (req->format == FORMAT_FOLDED && !req->golden_path)
        return run_folded(req);
    memset(&d, 0, sizeof d);
    if ((rc = req->granularity == PICS_GRAN_CALLPATH ? view_report_input_load_array(&d.in, req->path, req->golden_path)
                                                     : view_report_input_load(&d.in, req->path, req->golden_path)))
        return rc;
    sym = req->sym;

    sym.note_stripped = 1;
    if (d.in.cells && sym.adjust_vma_auto /* cells as an array: auto scores their PCs */
        && (rc = pics_cells_distinct_pcs(d.in.cells, d.in.cell_count, &pcs, &sym.auto_pc_count)))
        goto done;
    sym.auto_pcs = pcs ? pcs : sym.auto_pcs;
    if ((rc = view_report_symbolize(&d.z, &d.in.info.program, &d.in.info.objects, &d.in.p, &sym))) /* auto: the PCs shown */
        goto done;
    if (pics_granularity_ranged(req->granularity) && (rc = view_functions(NULL, d.z, &d.groups, &from)))
        goto done;
    if (req->granularity == PICS_GRAN_CALLPATH && (rc = key_by_call_path(&d)))
        goto done;
    if ((rc = build_view(req, &d)))
        goto done;
    if ((rc = outfile_open(&out, req->out_path)))
        goto done;
    switch (req->format) {
    case FORMAT_TEXT:
        rc = print_text(outfile_stream(out), req, &d);
        break;
    case FORMAT_CSV:
        rc = print_csv(outfile_stream(out), &d);
        break;
    case FORMAT_JSON:
        rc = print_json(outfile_stream(out), req, &d);
        break;
    case FORMAT_FOLDED:
        rc = print_folded(outfile_stream(out), &d);
        break;
    }
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_free(&d.v);
    view_table_free(&d.t);
    view_intervals_free(&d.iv);
    trace_symmap_free(&d.groups);
    binary_symbolize_close(d.z);
    view_report_input_free(&d.in);
    free(pcs);
    return rc;
}

/* --- functions with their callees (--children) --------------------------------------------- */

/* Prints the rows of --children: each function's total (with its
 * callees) and self cycles, shares of the PICS's total, and for a golden
 * PICS its instructions and cycles per instruction (self). */
static void print_children(FILE *f, const report_request *req, const view_report_input *in,
                           const binary_symbolizer *z, const view_callpath_function *rows, size_t n, uint64_t total)
{
    const double sum = pics_value_cycles(&in->info, total, total);
    const int golden = pics_info_is_golden(&in->info);
    size_t shown = req->top && req->top < n ? (size_t)req->top : n;
    json_writer j;

    if (req->format == FORMAT_CSV) {
        fputs("function,total_cycles,total_share,self_cycles,self_share,instructions,cpi\n", f);
    } else if (req->format == FORMAT_JSON) {
        json_init(&j, f);
        json_begin_object(&j);
        json_key(&j, "file");
        json_string(&j, in->path);
        json_key(&j, "total_cycles");
        json_double(&j, sum);
        json_key(&j, "functions");
        json_begin_array(&j);
    } else {
        view_report_print_header(f, "pics report", in, z);
        fprintf(f, "# %zu of %zu functions with their callees (a function's total: every cell whose stack holds it)\n#\n",
                shown, n);
        fprintf(f, "# %9s %9s %16s %16s%s  %s\n#\n", "Children", "Self", "Cycles", "Self cycles",
                golden ? "    Instructions     CPI" : "", "Function");
    }
    for (size_t i = 0; i < shown; i++) {
        const view_callpath_function *r = &rows[i];
        double t = pics_value_cycles(&in->info, total, r->total), s = pics_value_cycles(&in->info, total, r->self);
        double cpi = golden && r->self_count ? s / (double)r->self_count : NAN;
        if (req->format == FORMAT_CSV) {
            csv_field(f, r->name);
            fprintf(f, ",%.6f,%.9f,%.6f,%.9f,", t, sum ? t / sum : 0.0, s, sum ? s / sum : 0.0);
            if (golden)
                fprintf(f, "%llu,%.6f", (unsigned long long)r->self_count, isnan(cpi) ? 0.0 : cpi);
            else
                fputc(',', f);
            fputc('\n', f);
        } else if (req->format == FORMAT_JSON) {
            json_begin_object(&j);
            json_key(&j, "function");
            json_string(&j, r->name);
            json_key(&j, "total_cycles");
            json_double(&j, t);
            json_key(&j, "self_cycles");
            json_double(&j, s);
            json_key(&j, "instructions");
            if (golden)
                json_u64(&j, r->self_count);
            else
                json_null(&j);
            json_end(&j);
        } else {
            fprintf(f, "  %8.2f%% %8.2f%% %16.3f %16.3f", sum ? PERCENT * t / sum : 0.0,
                    sum ? PERCENT * s / sum : 0.0, t, s);
            if (golden && r->self_count)
                fprintf(f, " %15llu %7.3f", (unsigned long long)r->self_count, cpi);
            else if (golden)
                fprintf(f, " %15s %7s", "0", "-");
            fprintf(f, "  %s\n", r->name);
        }
    }
    if (req->format == FORMAT_JSON) {
        json_end(&j);
        json_end(&j);
        json_finish(&j);
    }
}

/* pics report --children: the PICS's cells with their contexts, the
 * functions of the binary, every function's total and self. */
static int run_children(const report_request *req)
{
    view_report_input in;
    binary_symbolizer *z = NULL;
    trace_symmap functions = { 0 };
    view_callpath_function *rows = NULL;
    uint64_t *pcs = NULL; /* --adjust-vma auto */
    size_t n = 0;
    const char *from;
    uint64_t total = 0;
    outfile *out = NULL;
    binary_symbolize_options sym = req->sym;
    int rc;

    sym.note_stripped = 1;
    if ((rc = view_report_input_load_array(&in, req->path, NULL)))
        return rc;
    for (size_t i = 0; i < in.cell_count; i++)
        total += in.cells[i].value;
    if (!pics_has_contexts(&in.p))
        rc = error_set(TEA_ERR_USAGE, "%s has no calling contexts: --children needs a PICS of tea replay "
                                      "--call-paths", req->path);
    if (!rc && sym.adjust_vma_auto && !(rc = pics_cells_distinct_pcs(in.cells, in.cell_count, &pcs, &sym.auto_pc_count)))
        sym.auto_pcs = pcs;
    if (!rc && !(rc = view_report_symbolize(&z, &in.info.program, &in.info.objects, NULL, &sym))
        && !(rc = view_functions(NULL, z, &functions, &from))
        && !(rc = view_callpath_children(&in.p.contexts, in.cells, in.cell_count, &functions, &rows, &n))
        && !(rc = outfile_open(&out, req->out_path))) {
        print_children(outfile_stream(out), req, &in, z, rows, n, total);
        rc = outfile_commit(out);
    }
    free(rows);
    free(pcs);
    trace_symmap_free(&functions);
    binary_symbolize_close(z);
    view_report_input_free(&in);
    return rc;
}

/* --- by thread ------------------------------------------------------------------------------ */

/* Writes the rows by thread in the requested format. */
static int print_threads(FILE *f, const report_request *req, view_threads *t, int objects)
{
    emit_column cols[VIEW_THREADS_COLUMNS_MAX];
    emit_table table;
    json_writer j;
    int rc;

    view_threads_columns(t, objects, cols, &table);
    switch (req->format) {
    case FORMAT_CSV:
        emit_csv_header(f, &table);
        return emit_csv_rows(f, &table);
    case FORMAT_JSON:
        json_init(&j, f);
        json_begin_object(&j);
        json_key(&j, "directory");
        json_string(&j, req->dir);
        json_key(&j, "cores");
        json_u64(&j, t->core_count);
        json_key(&j, "total_cycles");
        json_double(&j, t->total);
        json_key(&j, "rows");
        if ((rc = emit_json_rows(&j, &table)))
            return rc;
        json_end(&j);
        json_finish(&j);
        return TEA_OK;
    default:
        fprintf(f, "# pics report of %s by thread: %zu cores, each one's %s\n", req->dir, t->core_count,
                strrchr(req->path, '/') ? strrchr(req->path, '/') + 1 : req->path);
        fprintf(f, "# total %.3f cycles (the cores' summed; shares are of it)\n", t->total);
        fprintf(f, "# %zu of %zu %s, by %s\n#\n", t->shown, t->row_count,
                req->granularity == PICS_GRAN_FUNC ? "functions" : "instructions",
                req->sort == SORT_THREAD ? "thread, then cycles" : "cycles");
        emit_text_heading(f, &table);
        fputs("#\n", f);
        return emit_text_rows(f, &table);
    }
}

/* pics report DIR --threads: every core's rows in one table. */
static int run_threads_report(const report_request *req)
{
    const char *slash = strrchr(req->path, '/');
    binary_symbolize_options sym = req->sym;
    view_threads t;
    outfile *out = NULL;
    int rc;

    sym.note_stripped = 1;
    view_threads_init(&t, req->granularity);
    if ((rc = view_threads_load(&t, req->dir, slash ? slash + 1 : req->path, &sym)))
        goto done;
    view_threads_sort(&t, req->sort == SORT_THREAD);
    if ((rc = view_threads_select(&t, req->top, req->percent_limit)) || (rc = outfile_open(&out, req->out_path)))
        goto done;
    if ((rc = print_threads(outfile_stream(out), req, &t, view_threads_has_objects(&t))))
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_threads_free(&t);
    return rc;
}

/* --percent-limit P: a percentage from 0 to 100 into the double at
 * opt->dest. */
static int percent_limit_option(const char *command, const cli_option *opt, const char *arg)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v >= 0 && v <= PERCENT))
        return cli_usage_error(command, "invalid percentage '%s' (0 to 100)", arg);
    *(double *)opt->dest = v;
    return CLI_CONTINUE;
}

int cmd_pics_report(int argc, char **argv)
{
    static const char *const sorts[] = { "cycles", "error", "thread", NULL };
    static const int sort_values[] = { SORT_CYCLES, SORT_ERROR, SORT_THREAD };
    static const char *const formats[] = { "text", "csv", "json", "folded", NULL };
    static const int format_values[] = { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_FOLDED };
    report_request req;
    int rc;
    const cli_option options[] = {
        CLI_OPTION_GOLDEN(&req.golden_path, "the golden PICS of the same trace: golden stacks and the error"),
        CLI_OPTION_REPLAY_SCHEME(&req.scheme),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary to symbolize with (default: the one the trace names,\n"
                                          "if it exists; else PCs are shown as addresses)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&req.sym),
        CLI_OPTION_NO_DEMANGLE(&req.sym),
        CLI_OPTION_ADDRESSES(&req.sym),
        CLI_UINT("top", "N", &req.top, 0, UINT64_MAX, "invalid count '%s'",
                 "rows to show (default " CLI_STR(REPORT_DEFAULT_TOP) "; 0: all)"),
        CLI_ENUM("sort", "KEY", &req.sort, sorts, sort_values, "unknown sort key '%s' (cycles, error or thread)",
                 "cycles (default), error contribution (needs --golden), or\n"
                 "thread (with --threads: by thread, then cycles)"),
        CLI_FLAG("children", 0, &req.children, "functions with their callees, as perf report --children: each\n"
                                               "one's total (every cell whose call path holds it) and\n"
                                               "self cycles, with a golden PICS's instructions and CPI;\n"
                                               "a PICS of tea replay --call-paths"),
        CLI_FLAG("threads", 0, &req.threads, "with a program's replay directory (tea replay of several\n"
                                             "threads or cores): every core's rows in one table, a\n"
                                             "thread column, shares of the program's cycles"),
        CLI_OPTION_GRANULARITY(&req.granularity, "rows: insn-component (default: instructions with their\n"
                                                 "stacks), insn (instructions, components summed), func\n"
                                                 "(stacks summed per function) or callpath (per call path\n"
                                                 "'main;a;leaf', a PICS of tea replay --call-paths);\n"
                                                 "docs/usage.md"),
        CLI_CALL("percent-limit", 0, "P", percent_limit_option, &req.percent_limit,
                 "hide rows below P % of the total (in the PICS and in the golden one)"),
        CLI_ENUM("format", "F", &req.format, formats, format_values,
                 "unknown format '%s' (text, csv, json or folded)",
                 "text (default), csv, json, or folded (flame-graph stacks\n"
                 "'function;function+0xOFF;COMPONENT cycles' of every cell)"),
        CLI_FLAG("source", 0, &req.sym.source, "show source file:line (DWARF)"),
        CLI_OPTION_STDOUT_OUTPUT(&req.out_path),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(REPORT_SYNOPSIS, NULL, 25, options);

    memset(&req, 0, sizeof req);
    req.out_path = "-";
    req.top = REPORT_DEFAULT_TOP;
    req.granularity = PICS_GRAN_INSN_COMPONENT;
    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing FILE.pics" : "expected exactly one FILE.pics");
    req.path = argv[optind];
    req.dir = results_is_dir(req.path) ? req.path : NULL;
    char *owned[2];
    if ((rc = cli_replay_dir_operand(argv[0], &req.path, req.scheme, &req.golden_path, owned)))
        return cli_fail(argv[0], rc);
    if (req.sort == SORT_ERROR && (!req.golden_path || req.threads))
        rc = cli_usage_error(argv[0], "--sort error needs --golden GOLDEN.pics (and no --threads)");
    else if ((req.threads || req.sort == SORT_THREAD) && (!req.dir || req.format == FORMAT_FOLDED || !req.threads))
        rc = cli_usage_error(argv[0], "--threads (and --sort thread with it) takes a program's tea replay "
                                      "directory, in text, csv or json");
    else if (req.children && (req.golden_path || req.threads || req.format == FORMAT_FOLDED || req.sort != SORT_CYCLES
                              || req.granularity != PICS_GRAN_INSN_COMPONENT))
        rc = cli_usage_error(argv[0], "--children ranks functions by cycles, in text, csv or json: not with --golden, "
                                      "--threads, --sort, --granularity or --format folded");
    else if (req.children && (rc = run_children(&req)))
        rc = cli_fail(argv[0], rc);
    else if (req.children)
        rc = CLI_EXIT_OK;
    else if (req.threads && req.granularity == PICS_GRAN_CALLPATH)
        rc = cli_usage_error(argv[0], "--threads shows instructions or functions, not --granularity callpath");
    else if (req.threads && (rc = run_threads_report(&req)))
        rc = cli_fail(argv[0], rc);
    else if (req.threads)
        rc = CLI_EXIT_OK;
    else if ((rc = run_report(&req)))
        rc = cli_fail(argv[0], rc);
    else
        rc = CLI_EXIT_OK;
    free(owned[0]);
    free(owned[1]);
    return rc;
}
