/*
 * error_report.c: pics error's text and JSON (error_report.h).
 */
#include "error_report.h"

#include "table.h"
#include "common/emit.h"
#include "common/error.h"
#include "common/json.h"

#include <math.h>
#include <stdlib.h>

#define PERCENT 100.0

/* The rows of the view that contribute to the error (they come first). */
static size_t contributors(const view *v)
{
    size_t n = 0;
    while (n < v->row_count && v->rows[n].diff != 0)
        n++;
    return n;
}

/* The contributors listed: at most r->top. */
static size_t shown(const view_error_report *r)
{
    size_t count = contributors(r->v);
    return count < r->top ? count : (size_t)r->top;
}

/* The error line, with the sampled PICS's scheme, rate and samples. */
static void error_line(FILE *f, const view_error_report *r)
{
    const pics_info *si = r->sampled;
    fprintf(f, "error: %.4f%% (%s granularity; %s", PERCENT * view_error(r->v),
            pics_granularity_name(r->v->granularity), si->scheme);
    if (!pics_info_is_golden(si))
        fprintf(f, " at %.6g Hz, %llu samples, %llu lost", si->frequency_hz, (unsigned long long)si->samples,
                (unsigned long long)pics_info_lost(si));
    fprintf(f, ", against %s)\n", r->golden_path);
}

/* The error by component, as a table under a heading line (text) or the
 * "components" array (JSON, at the writer's position). */
static int write_components(FILE *f, json_writer *j, const view_error_report *r)
{
    view_component *items;
    view_table_components c;
    emit_column cols[VIEW_TABLE_COMPONENT_COLUMNS_MAX];
    emit_table table;
    size_t n;
    int rc;

    if ((rc = view_components(r->v, &items, &n)))
        return rc;
    view_table_components_init(&c, r->v, items, n);
    view_table_component_columns(&c, cols, &table);
    if (j) {
        json_key(j, "components");
        rc = emit_json_rows(j, &table);
    } else {
        fprintf(f, "error by component (contributions add up to the error):\n");
        emit_text_heading(f, &table);
        rc = emit_text_rows(f, &table);
    }
    free(items);
    return rc;
}

int view_error_report_write_text(FILE *f, const view_error_report *r)
{
    size_t top = shown(r);
    emit_column cols[VIEW_TABLE_CONTRIBUTION_COLUMNS_MAX];
    emit_table table;
    int rc;

    error_line(f, r);
    if (!isnan(r->half))
        fprintf(f, "95 %% interval: %.4f%% ± %.4f%% (jackknife over the %llu window groups of the sampled trace)\n",
                PERCENT * view_error(r->v), PERCENT * r->half, (unsigned long long)r->sampled->groups);
    if (r->across)
        fprintf(f, "across traces: %llu of %llu instructions of %s (%.4f%% of its cycles) have no counterpart in %s's "
                   "objects\n", (unsigned long long)r->across->unmatched_pcs, (unsigned long long)r->across->pcs,
                r->sampled_path, PERCENT * pics_across_unmatched_share(r->across), r->golden_path);
    if (r->by_component && (rc = write_components(f, NULL, r)))
        return rc;
    if (top) {
        fprintf(f, "top %zu contributors:\n", top);
        view_table_contribution_columns(r->v, EMIT_TEXT, top, cols, &table);
        if ((rc = emit_text_rows(f, &table)))
            return rc;
    }
    if (!isnan(r->floor))
        fprintf(f, "noise floor: %.4f%% (an exact attribution of the same %llu sample points; the scheme's bias is "
                   "about %+.4f points)\n",
                PERCENT * r->floor, (unsigned long long)r->floor_info->samples,
                PERCENT * (view_error(r->v) - r->floor));
    return TEA_OK;
}

int view_error_report_write_json(FILE *f, const view_error_report *r)
{
    emit_column cols[VIEW_TABLE_CONTRIBUTION_COLUMNS_MAX];
    emit_table table;
    json_writer j;
    int rc;

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "error");
    json_double(&j, view_error(r->v));
    json_key(&j, "granularity");
    json_string(&j, pics_granularity_name(r->v->granularity));
    if (!isnan(r->floor)) {
        json_key(&j, "noise_floor");
        json_double(&j, r->floor);
    }
    if (!isnan(r->half)) {
        json_key(&j, "error_ci95");
        json_double(&j, r->half);
    }
    if (r->across) {
        json_key(&j, "unmatched_instructions");
        json_u64(&j, r->across->unmatched_pcs);
        json_key(&j, "unmatched_share");
        json_double(&j, pics_across_unmatched_share(r->across));
    }
    if (r->by_component && (rc = write_components(f, &j, r)))
        return rc;
    json_key(&j, r->v->granularity == PICS_GRAN_CALLPATH ? "call_paths"
                 : r->v->granularity == PICS_GRAN_FUNC ? "functions"
                                                        : "instructions");
    view_table_contribution_columns(r->v, EMIT_JSON, shown(r), cols, &table);
    if ((rc = emit_json_rows(&j, &table)))
        return rc;
    json_end(&j);
    json_finish(&j);
    return TEA_OK;
}
