/*
 * topdown_report.h: what `tea topdown` prints of its analysis (view/topdown.h)
 * as text, CSV or JSON (docs/topdown.md). The tables go through the one
 * output layer (common/emit.h): the whole trace's commit states, top-down
 * slots and level 2, the table of functions, and CSV's rows of every
 * scope; the JSON document nests each scope's views.
 */
#ifndef TEA_VIEW_TOPDOWN_REPORT_H
#define TEA_VIEW_TOPDOWN_REPORT_H

#include "topdown.h"
#include "common/emit.h"
#include "trace/symmap.h"
#include "trace/trace.h"

#include <stdio.h>

/* Decimals of the percentages: text and CSV (the JSON shares are
 * fractions). */
#define VIEW_TOPDOWN_TEXT_DECIMALS 1
#define VIEW_TOPDOWN_CSV_DECIMALS 2

/* An analysis and what its report says beside it. */
typedef struct view_topdown_report {
    const char *trace_path;      /* as given */
    trace_format format;         /* the trace's */
    const golden_topdown *td;
    const trace_symmap *map;     /* NULL without functions */
    const char *functions_from;  /* the symbol map's or binary's path */
    size_t top;                  /* text: functions listed (0: all) */
    view_topdown_ranking rank;   /* the scopes, ranked at the format's decimals */
} view_topdown_report;

/* Ranks the scopes of `td` for `format` (text's or CSV's decimals). 0 or
 * TEA_ERR_NOMEM. */
int view_topdown_report_init(view_topdown_report *r, const golden_topdown *td, emit_format format);
void view_topdown_report_free(view_topdown_report *r);

/* The report as text, CSV or JSON. 0 or TEA_ERR_NOMEM. */
int view_topdown_report_text(FILE *f, view_topdown_report *r);
int view_topdown_report_csv(FILE *f, view_topdown_report *r);
int view_topdown_report_json(FILE *f, view_topdown_report *r);

#endif
