/*
 * component_table.c: pics table --by component (see component_table.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "component_table.h"
#include "view.h"
#include "common/csv.h"
#include "common/error.h"
#include "pics/pics_file.h"
#include "results/results.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const view_component_table_schemes[VIEW_COMPONENT_TABLE_SCHEMES] = { "tea", "nci", "ibs", "spe", "ris" };

/* Room for a component's name ("ST-L1,ST-TLB,ST-LLC,..."). */
#define COMPONENT_NAME_MAX 96
#define PERCENT 100.0

void view_component_table_free(view_component_table *t)
{
    for (size_t i = 0; i < t->trace_count; i++)
        free(t->traces[i]);
    free(t->traces);
    free(t->errors);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* The row of (trace, psv), added when missing (golden share `share`). */
static int row_of(view_component_table *t, size_t *room, size_t trace, uint16_t psv, double share,
                  view_component_table_row **out)
{
    for (size_t i = t->row_count; i-- > 0 && t->rows[i].trace == trace;)
        if (t->rows[i].psv == psv) {
            *out = &t->rows[i];
            return TEA_OK;
        }
    if (t->row_count == *room) {
        size_t grown_room = *room ? 2 * *room : 32;
        view_component_table_row *grown = realloc(t->rows, grown_room * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        t->rows = grown;
        *room = grown_room;
    }
    *out = &t->rows[t->row_count++];
    (*out)->trace = trace;
    (*out)->psv = psv;
    (*out)->golden_share = share;
    for (int s = 0; s < VIEW_COMPONENT_TABLE_SCHEMES; s++)
        (*out)->contribution[s] = NAN;
    return TEA_OK;
}

/* Scheme s's PICS against the golden one `gp` (read from `golden_path`)
 * into the rows of `trace`, and its error. */
static int add_scheme(view_component_table *t, size_t *room, size_t trace, int s, const char *pics_path,
                      const pics_info *gi, const pics *gp)
{
    static const trace_symmap no_ranges;
    pics_info si;
    pics sp = { 0 };
    view v = { 0 };
    view_component *items = NULL;
    size_t n = 0;
    double sum = 0;
    int rc;

    pics_info_init(&si);
    if ((rc = pics_read(pics_path, &si, &sp)))
        goto done;
    if (strcmp(si.trace_digest, gi->trace_digest) != 0) {
        rc = error_set(TEA_ERR_USAGE, "%s comes from another trace than its directory's golden PICS", pics_path);
        goto done;
    }
    if ((rc = view_build(&v, &sp, gp, PICS_GRAN_INSN_COMPONENT, &no_ranges)) || (rc = view_components(&v, &items, &n)))
        goto done;
    for (size_t i = 0; i < n && !rc; i++) {
        view_component_table_row *row = NULL;
        double share = gp->total ? (double)items[i].golden / (double)gp->total : 0;
        if (!(rc = row_of(t, room, trace, items[i].psv, share, &row))) {
            row->contribution[s] = items[i].contribution;
            sum += items[i].contribution;
        }
    }
    t->errors[trace * VIEW_COMPONENT_TABLE_SCHEMES + s] = sum;
done:
    free(items);
    view_free(&v);
    pics_free(&sp);
    pics_info_free(&si);
    return rc;
}

/* Whether the results of `set` name scheme `label`. */
static int has_scheme(const results_set *set, const char *label)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->rows[i].scheme, label) == 0)
            return 1;
    return 0;
}

static int by_trace_share_psv(const void *x, const void *y)
{
    const view_component_table_row *a = x, *b = y;
    if (a->trace != b->trace)
        return a->trace < b->trace ? -1 : 1;
    if (a->golden_share != b->golden_share)
        return a->golden_share > b->golden_share ? -1 : 1;
    return a->psv < b->psv ? -1 : a->psv > b->psv;
}

/* Directory `dir`'s trace (index `trace`): its name and every scheme's rows. */
static int add_dir(view_component_table *t, size_t *room, size_t trace, const char *dir)
{
    results_set set;
    pics_info gi;
    pics gp = { 0 };
    char *golden = NULL;
    size_t first = t->row_count;
    int rc;

    results_init(&set);
    pics_info_init(&gi);
    if (!results_is_dir(dir)) {
        rc = error_set(TEA_ERR_USAGE, "%s: --by component takes tea replay directories", dir);
        goto done;
    }
    if ((rc = results_read(&set, dir)))
        goto done;
    t->traces[trace] = strdup(set.count ? set.rows[0].trace : dir);
    if (!t->traces[trace]) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int s = 0; s < VIEW_COMPONENT_TABLE_SCHEMES && !rc; s++) {
        char *pics_path = NULL, *golden_path = NULL;
        t->errors[trace * VIEW_COMPONENT_TABLE_SCHEMES + s] = NAN;
        if (!has_scheme(&set, view_component_table_schemes[s]))
            continue;
        rc = results_dir_pics(dir, view_component_table_schemes[s], view_component_table_schemes[s], &pics_path,
                              &golden_path);
        if (!rc && !golden && !(rc = pics_read(golden_path, &gi, &gp)) && !pics_info_is_golden(&gi))
            rc = error_set(TEA_ERR_USAGE, "%s is a %s PICS, not the golden one", golden_path, gi.scheme);
        if (!rc && !golden) {
            golden = golden_path;
            golden_path = NULL;
        }
        if (!rc)
            rc = add_scheme(t, room, trace, s, pics_path, &gi, &gp);
        free(pics_path);
        free(golden_path);
    }
    if (!rc)
        qsort(t->rows + first, t->row_count - first, sizeof *t->rows, by_trace_share_psv);
done:
    free(golden);
    pics_free(&gp);
    pics_info_free(&gi);
    results_free(&set);
    return rc;
}

int view_component_table_build(view_component_table *t, char *const *dirs, size_t n)
{
    size_t room = 0;
    int rc = TEA_OK;

    memset(t, 0, sizeof *t);
    t->traces = calloc(n ? n : 1, sizeof *t->traces);
    t->errors = calloc((n ? n : 1) * VIEW_COMPONENT_TABLE_SCHEMES, sizeof *t->errors);
    if (!t->traces || !t->errors)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        t->trace_count = i + 1;
        rc = add_dir(t, &room, i, dirs[i]);
    }
    return rc;
}

/* A fraction in the format's unit: ",F" (CSV) or " | P" (Markdown); empty
 * or a dash when unknown. */
static void write_value(FILE *f, double x, int csv, unsigned decimals)
{
    if (csv)
        isnan(x) ? fputc(',', f) : fprintf(f, ",%.9g", x);
    else
        isnan(x) ? fputs(" | -", f) : fprintf(f, " | %.*f", (int)decimals, PERCENT * x);
}

/* The first cell of a row: the trace and the component (CSV: and its PSV). */
static void write_head(FILE *f, const char *trace, const char *component, const char *psv, int csv)
{
    if (csv) {
        csv_data_field(f, trace);
        fputc(',', f);
        csv_data_field(f, component);
        fprintf(f, ",%s", psv);
    } else {
        fprintf(f, "| %s | %s", trace, component);
    }
}

int view_component_table_write(FILE *f, const view_component_table *t, int csv, unsigned decimals)
{
    if (csv) {
        fputs("trace,component,psv,golden_share", f);
        for (int s = 0; s < VIEW_COMPONENT_TABLE_SCHEMES; s++)
            fprintf(f, ",%s", view_component_table_schemes[s]);
        fputc('\n', f);
    } else {
        fputs("<!-- pics table --by component: each scheme's error (%, insn-component) split by the component "
              "of its cells; a scheme's contributions add up to its error -->\n| trace | component | golden",
              f);
        for (int s = 0; s < VIEW_COMPONENT_TABLE_SCHEMES; s++)
            fprintf(f, " | %s", view_component_table_schemes[s]);
        fputs(" |\n|:---|:---|---:|---:|---:|---:|---:|---:|\n", f);
    }
    for (size_t i = 0; i < t->row_count; i++) {
        const view_component_table_row *r = &t->rows[i];
        char name[COMPONENT_NAME_MAX], psv[16];
        view_component_label(PICS_GRAN_INSN_COMPONENT, r->psv, name, sizeof name);
        snprintf(psv, sizeof psv, "%u", (unsigned)r->psv);
        write_head(f, t->traces[r->trace], name, psv, csv);
        write_value(f, r->golden_share, csv, decimals);
        for (int s = 0; s < VIEW_COMPONENT_TABLE_SCHEMES; s++)
            write_value(f, r->contribution[s], csv, decimals);
        if (!csv)
            fputs(" |", f);
        fputc('\n', f);
        if (i + 1 < t->row_count && t->rows[i + 1].trace == r->trace)
            continue;
        /* the trace's last component: then its errors, the contributions' sums */
        write_head(f, t->traces[r->trace], csv ? "error" : "**error**", "", csv);
        write_value(f, 1.0, csv, decimals);
        for (int s = 0; s < VIEW_COMPONENT_TABLE_SCHEMES; s++)
            write_value(f, t->errors[r->trace * VIEW_COMPONENT_TABLE_SCHEMES + s], csv, decimals);
        if (!csv)
            fputs(" |", f);
        fputc('\n', f);
    }
    return ferror(f) ? error_set(TEA_ERR_IO, "cannot write the table") : TEA_OK;
}
