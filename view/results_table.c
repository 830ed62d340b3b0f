/*
 * results_table.c: pics table's Markdown, LaTeX and CSV (results_table.h).
 */
#include "results_table.h"

#include "common/csv.h"
#include "common/error.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0L
#define CSV_DECIMALS 9           /* fraction digits of error fractions in CSV, before trailing zeros go */
#define NUMBER_MAX 64
#define TITLE_MAX 320
#define MD_MISSING "\xe2\x80\x93"  /* an en dash */
#define LATEX_MISSING "--"         /* an en dash in LaTeX */

/* A fraction times `scale` (1, or PERCENT) with `decimals` digits; `trim`
 * drops trailing zeros (and a trailing point). "" for NaN. */
static void format_scaled(long double fraction, long double scale, int decimals, int trim, char *buf, size_t size)
{
    size_t n;
    if (isnan(fraction)) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, size, "%.*Lf", decimals, fraction * scale);
    if (!trim || !strchr(buf, '.'))
        return;
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
}

/* A fraction as a percentage with `decimals` digits (see format_scaled). */
static void format_percent(long double fraction, int decimals, int trim, char *buf, size_t size)
{
    format_scaled(fraction, PERCENT, decimals, trim, buf, size);
}

/* A fraction as it is, as CSV writes errors (docs/pics-format.md, "Units"). */
static void format_fraction(long double fraction, char *buf, size_t size)
{
    format_scaled(fraction, 1, CSV_DECIMALS, 1, buf, size);
}

/* Text with LaTeX's special characters escaped. */
static void latex_escape(FILE *f, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '\\':
            fputs("\\textbackslash{}", f);
            break;
        case '~':
            fputs("\\textasciitilde{}", f);
            break;
        case '^':
            fputs("\\textasciicircum{}", f);
            break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            fputc('\\', f);
            fputc(*p, f);
            break;
        default:
            fputc(*p, f);
        }
    }
}

/* Text with the characters Markdown would take as table or emphasis syntax
 * escaped. */
static void md_escape(FILE *f, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (strchr("\\|*_`<>[]", *p))
            fputc('\\', f);
        fputc(*p, f);
    }
}

/* Room for what the table is at: a frequency, or how it is chosen. */
#define FREQ_TEXT_MAX 96

/* What the numbers are, for the comment line of every format. */
static void describe(const view_results_table_style *st, const results_table *t, char *buf, size_t size)
{
    char where[FREQ_TEXT_MAX];
    const char *interval = !t->spread ? ""
                           : t->window_intervals ? " ± the 95 % interval of that mean (Student's t; of one seed on "
                                                   "a sampled trace, the jackknife over its window groups)"
                                                 : " ± the 95 % interval of that mean (Student's t)";

    if (t->by_samples)
        snprintf(where, sizeof where, "a column per scheme and tea replay --samples target (SCHEME@K)");
    else if (t->own_freqs)
        snprintf(where, sizeof where, "each trace at its own frequency");
    else
        snprintf(where, sizeof where, "%.15g Hz", t->freq_hz);
    snprintf(buf, size, "pics table: error (%%) at %s granularity, %s, mean over seeds%s",
             pics_granularity_name(st->granularity), where, interval);
}

/* ",LABEL" + suffix as one CSV field. */
static int write_suffixed_field(FILE *f, const char *label, const char *suffix)
{
    size_t n = strlen(label) + strlen(suffix) + 1;
    char *name = malloc(n);
    if (!name)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    snprintf(name, n, "%s%s", label, suffix);
    fputc(',', f);
    csv_data_field(f, name);
    free(name);
    return TEA_OK;
}

/* The granularity and frequency columns of a CSV row (`trace`'s own
 * frequency with own_freqs; empty in the mean and max rows then). */
static void write_csv_context(FILE *f, const view_results_table_style *st, const results_table *t, size_t trace)
{
    fprintf(f, ",%s,", pics_granularity_name(st->granularity));
    if (t->by_samples)
        return; /* each trace x target at its own: empty */
    if (!t->own_freqs)
        fprintf(f, "%.15g", t->freq_hz);
    else if (trace < t->trace_count)
        fprintf(f, "%.15g", t->trace_freq[trace]);
}

/* The CSV: a header line and rows only (pics table --help), errors as fractions. */
static int write_csv(FILE *f, const view_results_table_style *st, const results_table *t)
{
    char number[NUMBER_MAX];
    int rc;

    fputs("trace,granularity,freq_hz", f);
    for (size_t s = 0; s < t->scheme_count; s++) {
        fputc(',', f);
        csv_data_field(f, t->schemes[s]);
    }
    for (size_t s = 0; t->spread && s < t->scheme_count; s++) {
        if ((rc = write_suffixed_field(f, t->schemes[s], "_min"))
            || (rc = write_suffixed_field(f, t->schemes[s], "_max"))
            || (rc = write_suffixed_field(f, t->schemes[s], "_ci_low"))
            || (rc = write_suffixed_field(f, t->schemes[s], "_ci_high")))
            return rc;
    }
    fputc('\n', f);
    for (size_t i = 0; i < t->trace_count; i++) {
        csv_data_field(f, t->traces[i]);
        write_csv_context(f, st, t, i);
        for (size_t s = 0; s < t->scheme_count; s++) {
            format_fraction(results_table_cell_mean(results_table_cell_at(t, i, s)), number, sizeof number);
            fprintf(f, ",%s", number);
        }
        for (size_t s = 0; t->spread && s < t->scheme_count; s++) {
            const results_table_cell *c = results_table_cell_at(t, i, s);
            format_fraction(c->seeds ? c->min : NAN, number, sizeof number);
            fprintf(f, ",%s", number);
            format_fraction(c->seeds ? c->max : NAN, number, sizeof number);
            fprintf(f, ",%s", number);
            double low, high;
            results_table_cell_interval(c, &low, &high);
            format_fraction(low, number, sizeof number);
            fprintf(f, ",%s", number);
            format_fraction(high, number, sizeof number);
            fprintf(f, ",%s", number);
        }
        fputc('\n', f);
    }
    for (int row = 0; row < 2 + t->floors; row++) {
        const long double *v = row == 0 ? t->mean : row == 1 ? t->max : t->floor;
        fputs(row == 0 ? RESULTS_TABLE_MEAN : row == 1 ? RESULTS_TABLE_MAX : RESULTS_TABLE_FLOOR, f);
        write_csv_context(f, st, t, SIZE_MAX);
        for (size_t s = 0; s < t->scheme_count; s++) {
            format_fraction(v[s], number, sizeof number);
            fprintf(f, ",%s", number);
        }
        for (size_t s = 0; t->spread && s < t->scheme_count; s++)
            fputs(",,,,", f);
        fputc('\n', f);
    }
    return TEA_OK;
}

/* One Markdown or LaTeX body row: `label` (already escaped) and values with
 * `decimals` digits; with `bold_best`, every value shown as the row's
 * lowest (the best error; ties all) is bold. */
static void write_text_row(FILE *f, view_results_table_format format, const char *label, const char *escaped_label,
                           const long double *values, const double *halves, size_t count, int decimals,
                           int bold_best)
{
    const char *sep = format == VIEW_RESULTS_TABLE_MD ? " | " : " & ";
    char number[NUMBER_MAX], best[NUMBER_MAX] = "";
    long double lowest = NAN;

    for (size_t s = 0; bold_best && s < count; s++)
        if (!isnan(values[s]) && (isnan(lowest) || values[s] < lowest))
            lowest = values[s];
    format_percent(lowest, decimals, 0, best, sizeof best);
    if (format == VIEW_RESULTS_TABLE_MD)
        fputs("| ", f);
    if (escaped_label)
        fputs(escaped_label, f);
    else if (format == VIEW_RESULTS_TABLE_MD)
        md_escape(f, label);
    else
        latex_escape(f, label);
    for (size_t s = 0; s < count; s++) {
        format_percent(values[s], decimals, 0, number, sizeof number);
        fputs(sep, f);
        if (!number[0])
            fputs(format == VIEW_RESULTS_TABLE_MD ? MD_MISSING : LATEX_MISSING, f);
        else if (best[0] && strcmp(number, best) == 0)
            fprintf(f, format == VIEW_RESULTS_TABLE_MD ? "**%s**" : "\\textbf{%s}", number);
        else
            fputs(number, f);
        if (number[0] && halves && !isnan(halves[s])) {
            char half[NUMBER_MAX];
            format_percent(halves[s], decimals, 0, half, sizeof half);
            fprintf(f, format == VIEW_RESULTS_TABLE_MD ? " ± %s" : " $\\pm$ %s", half);
        }
    }
    fputs(format == VIEW_RESULTS_TABLE_MD ? " |\n" : " \\\\\n", f);
}

/*
 * The Markdown or LaTeX table. With --caption, Markdown gets a pandoc
 * caption line ("Table: TEXT") after the table and LaTeX a floating table
 * environment with \caption{TEXT} around the tabular.
 */
static int write_text(FILE *f, const view_results_table_style *st, const results_table *t)
{
    char what[TITLE_MAX];
    long double *row = malloc((t->scheme_count ? t->scheme_count : 1) * sizeof *row);
    double *halves = malloc((t->scheme_count ? t->scheme_count : 1) * sizeof *halves);
    int md = st->format == VIEW_RESULTS_TABLE_MD, decimals = st->decimals;

    if (!row || !halves) {
        free(row);
        free(halves);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }

    describe(st, t, what, sizeof what);
    if (md) {
        fprintf(f, "<!-- %s -->\n| trace", what);
        for (size_t s = 0; s < t->scheme_count; s++) {
            fputs(" | ", f);
            md_escape(f, st->scheme_columns[s]);
        }
        fputs(" |\n|:---", f);
        for (size_t s = 0; s < t->scheme_count; s++)
            fputs("|---:", f);
        fputs("|\n", f);
    } else {
        fprintf(f, "%% %s\n", what);
        if (st->caption) {
            fputs("\\begin{table}\n\\centering\n\\caption{", f);
            latex_escape(f, st->caption);
            fputs("}\n", f);
        }
        fputs("\\begin{tabular}{l", f);
        for (size_t s = 0; s < t->scheme_count; s++)
            fputc('r', f);
        fputs("}\n\\toprule\ntrace", f);
        for (size_t s = 0; s < t->scheme_count; s++) {
            fputs(" & ", f);
            latex_escape(f, st->scheme_columns[s]);
        }
        fputs(" \\\\\n\\midrule\n", f);
    }
    for (size_t i = 0; i < t->trace_count; i++) {
        for (size_t s = 0; s < t->scheme_count; s++) {
            row[s] = results_table_cell_mean(results_table_cell_at(t, i, s));
            halves[s] = results_table_cell_half_interval(results_table_cell_at(t, i, s));
        }
        write_text_row(f, st->format, st->trace_labels[i], NULL, row, halves, t->scheme_count, decimals,
                       st->bold_best);
    }
    if (!md)
        fputs("\\midrule\n", f);
    write_text_row(f, st->format, RESULTS_TABLE_MEAN, md ? "**" RESULTS_TABLE_MEAN "**" : RESULTS_TABLE_MEAN, t->mean, NULL,
                   t->scheme_count, decimals, st->bold_best);
    write_text_row(f, st->format, RESULTS_TABLE_MAX, md ? "**" RESULTS_TABLE_MAX "**" : RESULTS_TABLE_MAX, t->max, NULL, t->scheme_count,
                   decimals, st->bold_best);
    if (t->floors)
        write_text_row(f, st->format, RESULTS_TABLE_FLOOR, md ? "*" RESULTS_TABLE_FLOOR "*" : "\\textit{" RESULTS_TABLE_FLOOR "}",
                       t->floor, NULL, t->scheme_count, decimals, 0);
    if (!md)
        fputs("\\bottomrule\n\\end{tabular}\n", f);
    if (!md && st->caption)
        fputs("\\end{table}\n", f);
    if (md && st->caption) {
        fputs("\nTable: ", f);
        md_escape(f, st->caption);
        fputc('\n', f);
    }
    free(row);
    free(halves);
    return TEA_OK;
}

int view_results_table_write(FILE *f, const results_table *t, const view_results_table_style *st)
{
    assert(st->format == VIEW_RESULTS_TABLE_CSV || (st->scheme_columns && st->trace_labels));
    if (st->format == VIEW_RESULTS_TABLE_CSV)
        return write_csv(f, st, t);
    return write_text(f, st, t);
}
