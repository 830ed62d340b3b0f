/*
 * results_table.h: `pics table`'s table written as Markdown, LaTeX or CSV
 * (results/table.h computes its numbers: cells as means over seeds with
 * their intervals, the mean, max and noise-floor rows).
 *
 * Markdown and LaTeX show errors in percent with a fixed number of
 * decimals, a cell averaged over several seeds as "mean ± half-interval",
 * a missing cell as a dash, and optionally the best (lowest) value of each
 * row in bold; CSV has errors as fractions (9 decimals, trailing zeros
 * dropped), and per scheme its seeds' min, max and interval when some cell
 * averages several seeds (pics table --help says it all to users).
 */
#ifndef TEA_VIEW_RESULTS_TABLE_H
#define TEA_VIEW_RESULTS_TABLE_H

#include "pics/error.h"
#include "results/table.h"

#include <stdio.h>

typedef enum view_results_table_format {
    VIEW_RESULTS_TABLE_MD = 0,
    VIEW_RESULTS_TABLE_LATEX,
    VIEW_RESULTS_TABLE_CSV
} view_results_table_format;

/* How the table is written. */
typedef struct view_results_table_style {
    view_results_table_format format;
    pics_granularity granularity;       /* named in the comment line and CSV rows */
    int decimals;                       /* Markdown and LaTeX: fraction digits of percentages */
    int bold_best;                      /* Markdown and LaTeX: each row's lowest value in bold */
    const char *caption;                /* Markdown: a pandoc caption line; LaTeX: a table float (NULL: none) */
    const char *const *scheme_columns;  /* Markdown and LaTeX: each scheme's column name [scheme_count] */
    const char *const *trace_labels;    /* Markdown and LaTeX: each trace's row label [trace_count] */
} view_results_table_style;

/* Writes `t` to `f` in `st`'s format: a comment line saying what the
 * numbers are (Markdown and LaTeX), the heading, a row per trace, then the
 * mean, max and (with floors) noise-floor rows. 0 or TEA_ERR_NOMEM; write
 * errors stay in the stream's error flag. */
int view_results_table_write(FILE *f, const results_table *t, const view_results_table_style *st);

#endif
