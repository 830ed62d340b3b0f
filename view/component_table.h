/*
 * component_table.h: `pics table --by component`: where each scheme's
 * error comes from, over tea replay directories. For each directory (a
 * trace) and each scheme with a PICS in it (tea, nci, ibs, spe, ris, in
 * that order), the error at instruction x component granularity split by
 * component as `pics error --by component` splits it (view_components):
 * per component its share of the golden PICS and each scheme's
 * contribution, the contributions of a scheme adding up to its error.
 * Written as Markdown or CSV, errors and shares in percent (Markdown) or
 * fractions (CSV).
 */
#ifndef TEA_VIEW_COMPONENT_TABLE_H
#define TEA_VIEW_COMPONENT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The schemes a directory may hold, in column order. */
#define VIEW_COMPONENT_TABLE_SCHEMES 5

/* One trace's component: its golden share and each scheme's contribution. */
typedef struct view_component_table_row {
    size_t trace;              /* index into traces */
    uint16_t psv;
    double golden_share;       /* fraction of the golden PICS's cycles */
    double contribution[VIEW_COMPONENT_TABLE_SCHEMES]; /* fractions; NaN: the scheme has no PICS there */
} view_component_table_row;

typedef struct view_component_table {
    char **traces;             /* each directory's trace name (its summary.csv's, else the directory) */
    size_t trace_count;
    double *errors;            /* [trace][scheme]: each scheme's error (the sum of its contributions); NaN: none */
    view_component_table_row *rows; /* by trace, then golden share (largest first), then PSV */
    size_t row_count;
} view_component_table;

/* The scheme labels of the columns. */
extern const char *const view_component_table_schemes[VIEW_COMPONENT_TABLE_SCHEMES];

/* Builds the table of the replay directories dirs[0..n). Errors:
 * TEA_ERR_USAGE (not a replay directory, a scheme with several PICS in
 * one, a PICS of another trace), TEA_ERR_IO, TEA_ERR_FORMAT (a PICS file),
 * TEA_ERR_NOMEM. The table is to be freed with view_component_table_free
 * in every case. */
int view_component_table_build(view_component_table *t, char *const *dirs, size_t n);

/* Writes `t` as Markdown (percent, `decimals` places) or CSV (`csv`:
 * fractions, full precision). 0, or TEA_ERR_IO when `f` failed. */
int view_component_table_write(FILE *f, const view_component_table *t, int csv, unsigned decimals);

void view_component_table_free(view_component_table *t);

#endif
