/*
 * error_report.h: what `pics error` prints of a view of a PICS against the
 * golden one (view.h), as text or one JSON object: the error at its
 * granularity, its 95 % interval and noise floor when known, what
 * --across-traces could not match, the error by component (--by
 * component) and the largest contributors.
 */
#ifndef TEA_VIEW_ERROR_REPORT_H
#define TEA_VIEW_ERROR_REPORT_H

#include "view.h"
#include "pics/across.h"
#include "pics/pics_file.h"

#include <stdint.h>
#include <stdio.h>

typedef struct view_error_report {
    const char *sampled_path, *golden_path;
    const pics_info *sampled;         /* the first PICS's provenance */
    view *v;                          /* the pair's view at its granularity, by contribution */
    uint64_t top;                     /* contributors listed at most */
    double half;                      /* the error's 95 % half-width; NaN: none */
    double floor;                     /* the noise floor's error; NaN: none */
    const pics_info *floor_info;      /* the noise floor's provenance (with floor) */
    const pics_across_stats *across;  /* --across-traces: what moving found; NULL: one trace */
    int by_component;                 /* the error split by component */
} view_error_report;

/* Writes the report as text lines (error, interval, unmatched, components,
 * contributors, noise floor) or as one JSON object. 0, TEA_ERR_NOMEM or an
 * error of the output layer; write errors stay in the stream's flag. */
int view_error_report_write_text(FILE *f, const view_error_report *r);
int view_error_report_write_json(FILE *f, const view_error_report *r);

#endif
