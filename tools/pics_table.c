/*
 * pics_table.c: `pics table`, the error of every scheme on every trace as a
 * table (Markdown, LaTeX or CSV) and a grouped-bar chart, like the TEA
 * paper's Figure 5 and its mean/max summary.
 *
 * The inputs are results CSVs (results/results.h): `tea replay` directories
 * (their summary.csv) or files such as `tea sweep` writes, in any mix. Rows
 * are traces in the order they first appear, columns the scheme labels in
 * results_scheme_compare order; a cell is the mean over seeds of the error at
 * the chosen granularity and frequency, and the `mean` and `max` rows are the
 * mean and maximum over the traces of the cells above them.
 */
#include "cli.h"
#include "commands.h"
#include "common/csv.h"
#include "common/stats.h"
#include "common/error.h"
#include "common/outfile.h"
#include "palette.h"
#include "plot/chart.h"
#include "results/results.h"
#include "pics/scheme.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0L
#define FREQ_TOLERANCE 1e-9      /* relative difference at which --freq matches a row's freq_hz */
#define CSV_DECIMALS 9           /* fraction digits of error fractions in CSV, before trailing zeros go */
#define NUMBER_MAX 64
#define FREQ_LIST_MAX 512       /* bytes of the frequency list in a message */
#define NAMES_MAX 256           /* bytes of the trace list in a warning */
#define TITLE_MAX 160
#define MISSING_SHOWN 5          /* traces named in a warning about missing results */
#define MEAN_LABEL "mean"
#define MAX_LABEL "max"
#define FLOOR_LABEL "noise floor"
#define MD_MISSING "\xe2\x80\x93"  /* an en dash */
#define LATEX_MISSING "--"         /* an en dash in LaTeX */
#define TEXT_DEFAULT_DECIMALS 1    /* fraction digits of percentages in md and latex */
#define TEXT_MAX_DECIMALS 9        /* --precision's upper bound */
#define SCHEME_NAME_MAX 64         /* a scheme's column name */

typedef enum table_format { TABLE_MD = 0, TABLE_LATEX, TABLE_CSV } table_format;

#define TABLE_SYNOPSIS                                                                              \
    "Usage: pics table RESULTS... [OPTIONS]\n\n"                                                   \
    "The error of every scheme on every trace as a table, like the TEA paper's Figure 5:\n"        \
    "one row per trace (in the order they first appear in the inputs), one column per\n"           \
    "scheme (tea, nci, ibs, spe, ris, then variants such as ibs:all, then others by\n"             \
    "name), each cell the error in % as the mean over the seeds, then a 'mean' and a\n"            \
    "'max' row over the traces. A missing trace/scheme pair shows as a dash (empty in\n"           \
    "CSV) and is left out of that column's mean and max, with a warning.\n\n"                      \
    "RESULTS are directories written by 'tea replay -o DIR' (their summary.csv) or\n"              \
    "results CSV files ('tea sweep -o OUT.csv', or several concatenated), in any mix.\n\n"         \
    "Options:\n"
#define TABLE_EPILOGUE                                                                              \
    "\n"                                                                                           \
    "CSV: the header 'trace,granularity,freq_hz,SCHEME,...' and rows only, errors as\n"          \
    "fractions (0.05 is 5 %); when some cell averages several seeds, also SCHEME_min,\n"         \
    "SCHEME_max, SCHEME_ci_low and SCHEME_ci_high per scheme (the lowest and highest\n"          \
    "seed's error and the 95 % interval of their mean by Student's t, cut at 0; empty\n"      \
    "in the mean and max rows). Markdown and LaTeX show such a cell as 'mean ± half-interval'.\n" \
    "Results at several frequencies need --freq, unless each trace has one frequency of\n"    \
    "its own (tea replay --samples K): then each trace is shown at its own, named beside\n"   \
    "it ('gzip (312kHz)'), and CSV rows give it in freq_hz (empty in the mean and max rows).\n"  \
    "Results with noise floors (tea replay/sweep --noise-floor) add a last row, 'noise\n"      \
    "floor': per scheme the mean over the traces of its floor, the error an exact\n"          \
    "attribution has at the scheme's own sample points (docs/semantics.md).\n"

typedef struct table_request {
    char **inputs;
    size_t input_count;
    table_format format;
    pics_granularity granularity;
    int has_freq;
    double freq_hz;            /* --freq */
    const char *out_path, *svg_path;
    int names;                 /* --names: TEA, NCI-TEA, ... in md, latex and the SVG */
    uint64_t precision;        /* --precision: decimals of md and latex */
    int bold_best;             /* --bold-best */
    const char *caption;       /* --caption */
} table_request;

/* One trace x scheme: the runs (seeds) averaged. */
typedef struct table_cell {
    size_t seeds;
    long double sum;           /* of the error fractions */
    double min, max;           /* fractions */
    stats_sample spread;       /* the seeds' errors, for the 95 % interval of their mean */
    long double floor_sum;     /* of the noise floors (fractions) of the seeds that have one */
    size_t floor_seeds;
} table_cell;

/* The table, pointing into the results' rows. */
typedef struct table {
    const char **traces, **schemes;
    size_t trace_count, scheme_count;
    table_cell *cells;         /* [trace][scheme] */
    long double *mean, *max;   /* [scheme], fractions over the traces with a value; NaN: none */
    long double *floor;        /* [scheme], the mean over the traces of their mean noise floor; NaN: none */
    int floors;                /* some run has a noise floor (tea replay --noise-floor): the floor row */
    double freq_hz;            /* the one frequency shown, or NaN with own_freqs */
    int own_freqs;             /* each trace at its own frequency (tea replay --samples) */
    double *trace_freq;        /* [trace]: the trace's frequency (own_freqs) */
    char **trace_labels;       /* [trace]: how md, LaTeX and the SVG name it ("gzip (312 kHz)") */
    int spread;                /* some cell averages more than one seed */
} table;

static void table_free(table *t)
{
    for (size_t i = 0; t->trace_labels && i < t->trace_count; i++)
        free(t->trace_labels[i]);
    free(t->trace_labels);
    free(t->trace_freq);
    free(t->traces);
    free(t->schemes);
    free(t->cells);
    free(t->mean);
    free(t->max);
    free(t->floor);
}

static const table_cell *cell_at(const table *t, size_t trace, size_t scheme)
{
    return &t->cells[trace * t->scheme_count + scheme];
}

/* --- choosing the frequency ------------------------------------------------------- */

/* Index of `name` in names[0..n), or n. */
static size_t find_name(const char *const *names, size_t n, const char *name)
{
    size_t i = 0;
    while (i < n && strcmp(names[i], name) != 0)
        i++;
    return i;
}


static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int freq_matches(double row_hz, double wanted_hz)
{
    return fabs(row_hz - wanted_hz) <= FREQ_TOLERANCE * wanted_hz;
}

/* Own frequencies: when every trace's rows are at one frequency, each
 * trace is shown at its own (traces replayed with --samples K). 1 when so,
 * with t->trace_freq filled; 0 when some trace has several. */
static int own_frequencies(const results_set *s, table *t)
{
    char *seen = calloc(t->trace_count ? t->trace_count : 1, 1);
    int own = 1;

    if (!seen)
        return -1;
    for (size_t i = 0; i < s->count && own; i++) {
        size_t trace = find_name(t->traces, t->trace_count, s->rows[i].trace);
        if (!seen[trace]++)
            t->trace_freq[trace] = s->rows[i].freq_hz;
        else
            own = t->trace_freq[trace] == s->rows[i].freq_hz;
    }
    free(seen);
    return own;
}

/* The frequency to show: --freq when some row has it, else the only one,
 * else each trace's own when each has one. A choice to make is a usage
 * error listing the frequencies there are. Needs the trace names
 * (collect_names). Returns an exit status. */
static int choose_frequency(const table_request *req, const results_set *s, const char *command, table *t)
{
    double *hz = &t->freq_hz;
    double *all = malloc(s->count * sizeof *all);
    size_t distinct = 0;
    char list[FREQ_LIST_MAX];
    size_t used = 0;
    int status = CLI_EXIT_OK;

    if (!all)
        return cli_fail(command, error_set(TEA_ERR_NOMEM, "out of memory"));
    for (size_t i = 0; i < s->count; i++)
        all[i] = s->rows[i].freq_hz;
    qsort(all, s->count, sizeof *all, compare_doubles);
    for (size_t i = 0; i < s->count; i++)
        if (distinct == 0 || all[distinct - 1] != all[i])
            all[distinct++] = all[i];
    list[0] = '\0';
    for (size_t i = 0; i < distinct && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.15g", i ? ", " : "", all[i]);
    if (req->has_freq) {
        size_t i = 0;
        while (i < distinct && !freq_matches(all[i], req->freq_hz))
            i++;
        if (i == distinct)
            status = cli_usage_error(command, "no results at %.15g Hz; the results have %s Hz", req->freq_hz, list);
        else
            *hz = req->freq_hz;
    } else if (distinct > 1) {
        int own = (t->trace_freq = calloc(t->trace_count, sizeof *t->trace_freq)) ? own_frequencies(s, t) : -1;
        if (own < 0)
            status = cli_fail(command, error_set(TEA_ERR_NOMEM, "out of memory"));
        else if (own)
            t->own_freqs = 1, *hz = NAN;
        else
            status = cli_usage_error(command,
                                     "the results hold %zu frequencies (%s Hz): choose one with --freq (traces "
                                     "at one frequency each, as tea replay --samples makes them, combine)",
                                     distinct, list);
    } else {
        *hz = all[0];
    }
    free(all);
    return status;
}

/* --- building the table ----------------------------------------------------------- */

static int compare_schemes(const void *x, const void *y)
{
    return results_scheme_compare(*(const char *const *)x, *(const char *const *)y);
}

/* The traces (first appearance) and schemes (table order) of every row, at
 * any frequency, so that the table's shape does not depend on --freq. */
static int collect_names(const results_set *s, table *t)
{
    t->traces = malloc(s->count * sizeof *t->traces);
    t->schemes = malloc(s->count * sizeof *t->schemes);
    if (!t->traces || !t->schemes)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < s->count; i++) {
        const results_row *r = &s->rows[i];
        if (find_name(t->traces, t->trace_count, r->trace) == t->trace_count)
            t->traces[t->trace_count++] = r->trace;
        if (find_name(t->schemes, t->scheme_count, r->scheme) == t->scheme_count)
            t->schemes[t->scheme_count++] = r->scheme;
    }
    qsort(t->schemes, t->scheme_count, sizeof *t->schemes, compare_schemes);
    return TEA_OK;
}

/* Averages the rows at the table's frequency into the cells. */
static int fill_cells(const table_request *req, const char *command, const results_set *s, table *t)
{
    size_t n = t->trace_count * t->scheme_count;
    char *warned = calloc(t->trace_count ? t->trace_count : 1, 1); /* traces said to have no cycles */

    t->cells = calloc(n, sizeof *t->cells);
    t->mean = malloc(t->scheme_count * sizeof *t->mean);
    t->max = malloc(t->scheme_count * sizeof *t->max);
    t->floor = malloc(t->scheme_count * sizeof *t->floor);
    if (!t->cells || !t->mean || !t->max || !t->floor || !warned) {
        free(warned);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->count; i++) {
        const results_row *r = &s->rows[i];
        double e = r->error[req->granularity];
        size_t trace = find_name(t->traces, t->trace_count, r->trace);
        table_cell *c;
        if (!freq_matches(r->freq_hz, t->own_freqs ? t->trace_freq[trace] : t->freq_hz))
            continue;
        if (isnan(e) && req->granularity == PICS_GRAN_FUNC) {
            free(warned);
            return error_set(TEA_ERR_FORMAT,
                             "%s: line %lu: no %s for trace %s, scheme %s (the run had no "
                             "function symbols; choose another --granularity)",
                             r->file, r->line, results_error_column(req->granularity), r->trace, r->scheme);
        }
        if (isnan(e)) {
            /* A trace with no attributed cycles has no error: its row stays empty. */
            if (!warned[trace]++)
                fprintf(stderr, "%s: warning: trace %s (%s, line %lu) has no attributed cycles: its row is empty\n",
                        command, r->trace, r->file, r->line);
            continue;
        }
        c = &t->cells[trace * t->scheme_count + find_name(t->schemes, t->scheme_count, r->scheme)];
        if (c->seeds == 0 || e < c->min)
            c->min = e;
        if (c->seeds == 0 || e > c->max)
            c->max = e;
        c->sum += e;
        c->seeds++;
        stats_add(&c->spread, e);
        if (c->seeds > 1)
            t->spread = 1;
        if (!isnan(r->noise_floor[req->granularity])) {
            c->floor_sum += r->noise_floor[req->granularity];
            c->floor_seeds++;
            t->floors = 1;
        }
    }
    free(warned);
    return TEA_OK;
}

/* How md, LaTeX and the SVG name each trace: its name, and with own
 * frequencies the frequency after it ("gzip (312 kHz)"). */
static int label_traces(table *t)
{
    if (!(t->trace_labels = calloc(t->trace_count ? t->trace_count : 1, sizeof *t->trace_labels)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < t->trace_count; i++) {
        char hz[NUMBER_MAX] = "";
        size_t n;
        if (t->own_freqs)
            plot_chart_format_si(t->trace_freq[i], hz, sizeof hz);
        n = strlen(t->traces[i]) + strlen(hz) + sizeof " (Hz)";
        if (!(t->trace_labels[i] = malloc(n)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        if (t->own_freqs)
            snprintf(t->trace_labels[i], n, "%s (%sHz)", t->traces[i], hz);
        else
            snprintf(t->trace_labels[i], n, "%s", t->traces[i]);
    }
    return TEA_OK;
}

/* The noise floor row: per scheme, the mean over the traces of each one's
 * mean floor over its seeds (traces without a floor left out). */
static void summarize_floors(table *t)
{
    for (size_t s = 0; s < t->scheme_count; s++) {
        long double sum = 0;
        size_t covered = 0;
        for (size_t i = 0; i < t->trace_count; i++) {
            const table_cell *c = cell_at(t, i, s);
            if (c->floor_seeds) {
                sum += c->floor_sum / (long double)c->floor_seeds;
                covered++;
            }
        }
        t->floor[s] = covered ? sum / (long double)covered : (long double)NAN;
    }
}

/* The mean and max rows, and a warning for every scheme missing a trace. */
static void summarize(const char *command, table *t)
{
    summarize_floors(t);
    for (size_t s = 0; s < t->scheme_count; s++) {
        long double sum = 0, max = 0;
        size_t covered = 0, missing = 0;
        char names[NAMES_MAX];
        size_t used = 0;

        names[0] = '\0';
        for (size_t i = 0; i < t->trace_count; i++) {
            const table_cell *c = cell_at(t, i, s);
            long double v;
            if (c->seeds == 0) {
                if (missing++ < MISSING_SHOWN && used < sizeof names)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", missing > 1 ? ", " : "",
                                             t->traces[i]);
                continue;
            }
            v = c->sum / (long double)c->seeds;
            sum += v;
            max = covered == 0 || v > max ? v : max;
            covered++;
        }
        t->mean[s] = covered ? sum / (long double)covered : (long double)NAN;
        t->max[s] = covered ? max : (long double)NAN;
        if (missing)
            fprintf(stderr, "%s: warning: scheme %s has no result%s%.15g%s for %zu of %zu traces (%s%s); its %s "
                    "and %s cover %zu\n", command, t->schemes[s], t->own_freqs ? "" : " at ",
                    t->own_freqs ? 0.0 : t->freq_hz, t->own_freqs ? "" : " Hz", missing, t->trace_count, names,
                    missing > MISSING_SHOWN ? ", ..." : "", MEAN_LABEL, MAX_LABEL, covered);
    }
}

/* --- writing ---------------------------------------------------------------------- */

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

static long double cell_mean(const table_cell *c)
{
    return c->seeds ? c->sum / (long double)c->seeds : (long double)NAN;
}

/* Half the 95 % interval of the cell's mean over its seeds (fraction); NaN
 * for one seed. */
static double cell_half_interval(const table_cell *c)
{
    return stats_half_interval95(&c->spread);
}

/* The cell's 95 % interval (fractions), its foot cut at 0 since no error is
 * negative; NaN for one seed. */
static void cell_interval(const table_cell *c, double *low, double *high)
{
    double mean = (double)cell_mean(c), half = cell_half_interval(c);
    *low = isnan(half) ? NAN : fmax(mean - half, 0.0);
    *high = isnan(half) ? NAN : mean + half;
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

/* What the numbers are, for the comment line of every format. */
static void describe(const table_request *req, const table *t, char *buf, size_t size)
{
    if (t->own_freqs)
        snprintf(buf, size, "pics table: error (%%) at %s granularity, each trace at its own frequency, mean over "
                 "seeds%s", pics_granularity_name(req->granularity),
                 t->spread ? " ± the 95 % interval of that mean (Student's t)" : "");
    else
        snprintf(buf, size, "pics table: error (%%) at %s granularity, %.15g Hz, mean over seeds%s",
                 pics_granularity_name(req->granularity), t->freq_hz,
                 t->spread ? " ± the 95 % interval of that mean (Student's t)" : "");
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
static void write_csv_context(FILE *f, const table_request *req, const table *t, size_t trace)
{
    fprintf(f, ",%s,", pics_granularity_name(req->granularity));
    if (!t->own_freqs)
        fprintf(f, "%.15g", t->freq_hz);
    else if (trace < t->trace_count)
        fprintf(f, "%.15g", t->trace_freq[trace]);
}

/* The CSV: a header line and rows only (TABLE_EPILOGUE), errors as fractions. */
static int write_csv(FILE *f, const table_request *req, const table *t)
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
        write_csv_context(f, req, t, i);
        for (size_t s = 0; s < t->scheme_count; s++) {
            format_fraction(cell_mean(cell_at(t, i, s)), number, sizeof number);
            fprintf(f, ",%s", number);
        }
        for (size_t s = 0; t->spread && s < t->scheme_count; s++) {
            const table_cell *c = cell_at(t, i, s);
            format_fraction(c->seeds ? c->min : NAN, number, sizeof number);
            fprintf(f, ",%s", number);
            format_fraction(c->seeds ? c->max : NAN, number, sizeof number);
            fprintf(f, ",%s", number);
            double low, high;
            cell_interval(c, &low, &high);
            format_fraction(low, number, sizeof number);
            fprintf(f, ",%s", number);
            format_fraction(high, number, sizeof number);
            fprintf(f, ",%s", number);
        }
        fputc('\n', f);
    }
    for (int row = 0; row < 2 + t->floors; row++) {
        const long double *v = row == 0 ? t->mean : row == 1 ? t->max : t->floor;
        fputs(row == 0 ? MEAN_LABEL : row == 1 ? MAX_LABEL : FLOOR_LABEL, f);
        write_csv_context(f, req, t, SIZE_MAX);
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
static void write_text_row(FILE *f, table_format format, const char *label, const char *escaped_label,
                           const long double *values, const double *halves, size_t count, int decimals,
                           int bold_best)
{
    const char *sep = format == TABLE_MD ? " | " : " & ";
    char number[NUMBER_MAX], best[NUMBER_MAX] = "";
    long double lowest = NAN;

    for (size_t s = 0; bold_best && s < count; s++)
        if (!isnan(values[s]) && (isnan(lowest) || values[s] < lowest))
            lowest = values[s];
    format_percent(lowest, decimals, 0, best, sizeof best);
    if (format == TABLE_MD)
        fputs("| ", f);
    if (escaped_label)
        fputs(escaped_label, f);
    else if (format == TABLE_MD)
        md_escape(f, label);
    else
        latex_escape(f, label);
    for (size_t s = 0; s < count; s++) {
        format_percent(values[s], decimals, 0, number, sizeof number);
        fputs(sep, f);
        if (!number[0])
            fputs(format == TABLE_MD ? MD_MISSING : LATEX_MISSING, f);
        else if (best[0] && strcmp(number, best) == 0)
            fprintf(f, format == TABLE_MD ? "**%s**" : "\\textbf{%s}", number);
        else
            fputs(number, f);
        if (number[0] && halves && !isnan(halves[s])) {
            char half[NUMBER_MAX];
            format_percent(halves[s], decimals, 0, half, sizeof half);
            fprintf(f, format == TABLE_MD ? " ± %s" : " $\\pm$ %s", half);
        }
    }
    fputs(format == TABLE_MD ? " |\n" : " \\\\\n", f);
}

/* The column name of a scheme label: the label, or with --names its name in
 * prose (pics/scheme.h: TEA, NCI-TEA, IBS, SPE, RIS), "IBS (all events)" for
 * ibs:all and "IBS:SUFFIX" for another suffix; labels of no known scheme
 * stay as they are. */
static const char *scheme_column(const table_request *req, const char *label, char *buf, size_t size)
{
    return req->names ? palette_scheme_display(label, buf, size) : label;
}

/*
 * The Markdown or LaTeX table. With --caption, Markdown gets a pandoc
 * caption line ("Table: TEXT") after the table and LaTeX a floating table
 * environment with \caption{TEXT} around the tabular.
 */
static int write_text(FILE *f, const table_request *req, const table *t)
{
    char what[TITLE_MAX], name[SCHEME_NAME_MAX];
    long double *row = malloc((t->scheme_count ? t->scheme_count : 1) * sizeof *row);
    double *halves = malloc((t->scheme_count ? t->scheme_count : 1) * sizeof *halves);
    int md = req->format == TABLE_MD, decimals = (int)req->precision;

    if (!row || !halves) {
        free(row);
        free(halves);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }

    describe(req, t, what, sizeof what);
    if (md) {
        fprintf(f, "<!-- %s -->\n| trace", what);
        for (size_t s = 0; s < t->scheme_count; s++) {
            fputs(" | ", f);
            md_escape(f, scheme_column(req, t->schemes[s], name, sizeof name));
        }
        fputs(" |\n|:---", f);
        for (size_t s = 0; s < t->scheme_count; s++)
            fputs("|---:", f);
        fputs("|\n", f);
    } else {
        fprintf(f, "%% %s\n", what);
        if (req->caption) {
            fputs("\\begin{table}\n\\centering\n\\caption{", f);
            latex_escape(f, req->caption);
            fputs("}\n", f);
        }
        fputs("\\begin{tabular}{l", f);
        for (size_t s = 0; s < t->scheme_count; s++)
            fputc('r', f);
        fputs("}\n\\toprule\ntrace", f);
        for (size_t s = 0; s < t->scheme_count; s++) {
            fputs(" & ", f);
            latex_escape(f, scheme_column(req, t->schemes[s], name, sizeof name));
        }
        fputs(" \\\\\n\\midrule\n", f);
    }
    for (size_t i = 0; i < t->trace_count; i++) {
        for (size_t s = 0; s < t->scheme_count; s++) {
            row[s] = cell_mean(cell_at(t, i, s));
            halves[s] = cell_half_interval(cell_at(t, i, s));
        }
        write_text_row(f, req->format, t->trace_labels[i], NULL, row, halves, t->scheme_count, decimals,
                       req->bold_best);
    }
    if (!md)
        fputs("\\midrule\n", f);
    write_text_row(f, req->format, MEAN_LABEL, md ? "**" MEAN_LABEL "**" : MEAN_LABEL, t->mean, NULL,
                   t->scheme_count, decimals, req->bold_best);
    write_text_row(f, req->format, MAX_LABEL, md ? "**" MAX_LABEL "**" : MAX_LABEL, t->max, NULL, t->scheme_count,
                   decimals, req->bold_best);
    if (t->floors)
        write_text_row(f, req->format, FLOOR_LABEL, md ? "*" FLOOR_LABEL "*" : "\\textit{" FLOOR_LABEL "}",
                       t->floor, NULL, t->scheme_count, decimals, 0);
    if (!md)
        fputs("\\bottomrule\n\\end{tabular}\n", f);
    if (!md && req->caption)
        fputs("\\end{table}\n", f);
    if (md && req->caption) {
        fputs("\nTable: ", f);
        md_escape(f, req->caption);
        fputc('\n', f);
    }
    free(row);
    free(halves);
    return TEA_OK;
}

/* The grouped bars: traces and the mean x schemes, in percent. */
static int write_svg(const table_request *req, const table *t)
{
    size_t groups = t->trace_count + 1, S = t->scheme_count;
    double *values = malloc(groups * S * sizeof *values);
    double *low = t->spread ? malloc(groups * S * sizeof *low) : NULL;
    double *high = t->spread ? malloc(groups * S * sizeof *high) : NULL;
    const char **group_labels = malloc(groups * sizeof *group_labels);
    const char **colors = malloc(S * sizeof *colors);
    const char **series_labels = malloc(S * sizeof *series_labels);
    char (*names)[SCHEME_NAME_MAX] = malloc(S * sizeof *names);
    char title[TITLE_MAX], hz[NUMBER_MAX];
    int rc;

    if (!values || !group_labels || !colors || !series_labels || !names || (t->spread && (!low || !high))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t g = 0; g < groups; g++) {
        group_labels[g] = g < t->trace_count ? t->trace_labels[g] : MEAN_LABEL;
        for (size_t s = 0; s < S; s++) {
            size_t k = g * S + s;
            if (g == t->trace_count) {
                values[k] = (double)(t->mean[s] * PERCENT);
                if (low)
                    low[k] = high[k] = NAN;
                continue;
            }
            const table_cell *c = cell_at(t, g, s);
            values[k] = (double)(cell_mean(c) * PERCENT);
            if (low) {
                cell_interval(c, &low[k], &high[k]);
                low[k] *= PERCENT;
                high[k] *= PERCENT;
            }
        }
    }
    for (size_t s = 0; s < S; s++) {
        colors[s] = palette_scheme_color(t->schemes[s], s);
        series_labels[s] = scheme_column(req, t->schemes[s], names[s], sizeof names[s]);
    }
    if (t->own_freqs) {
        snprintf(title, sizeof title, "Error per trace and scheme (%s granularity, each trace at its own frequency)",
                 pics_granularity_name(req->granularity));
    } else {
        plot_chart_format_si(t->freq_hz, hz, sizeof hz);
        snprintf(title, sizeof title, "Error per trace and scheme (%s granularity, %sHz)",
                 pics_granularity_name(req->granularity), hz);
    }
    {
        const plot_chart_grouped_bars chart = {
            .title = title,
            .y_label = "error (%)",
            .value_unit = NULL,
            .format = PLOT_CHART_NUMBER_PERCENT,
            .groups = groups,
            .series = S,
            .group_labels = group_labels,
            .series_labels = series_labels,
            .series_colors = colors,
            .values = values,
            .low = low,
            .high = high,
        };
        rc = plot_chart_save_grouped_bars(req->svg_path, &chart);
    }
done:
    free(values);
    free(low);
    free(high);
    free(group_labels);
    free(colors);
    free(series_labels);
    free(names);
    return rc;
}

static int write_table(const table_request *req, const table *t)
{
    outfile *out;
    int rc;

    if ((rc = outfile_open(&out, req->out_path ? req->out_path : "-")))
        return rc;
    if (req->format == TABLE_CSV)
        rc = write_csv(outfile_stream(out), req, t);
    else
        rc = write_text(outfile_stream(out), req, t);
    if (rc) {
        outfile_abort(out);
        return rc;
    }
    return outfile_commit(out);
}

/* Refuses results of runs under different rules (tea replay --rules): their
 * errors measure different samplers. */
static int same_rules(const results_set *s)
{
    for (size_t i = 1; i < s->count; i++) {
        const results_row *a = &s->rows[0], *b = &s->rows[i];
        if (strcmp(a->rules, b->rules) != 0)
            return error_set(TEA_ERR_USAGE,
                             "%s: line %lu comes from a run under the %s rules, %s: line %lu under the %s ones: "
                             "table them apart",
                             a->file, a->line, a->rules, b->file, b->line, b->rules);
    }
    return TEA_OK;
}

/* Reads the inputs, builds the table and writes it. Returns an exit status. */
static int run_table(const table_request *req, const char *command)
{
    results_set s;
    table t;
    int rc = TEA_OK, status;

    results_init(&s);
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < req->input_count && rc == TEA_OK; i++)
        rc = results_read(&s, req->inputs[i]);
    if (rc == TEA_OK)
        rc = same_rules(&s);
    if (rc == TEA_OK)
        rc = results_dedupe(&s);
    if (rc == TEA_OK && s.count == 0)
        rc = error_set(TEA_ERR_FORMAT, "no results in %s%s", req->inputs[0], req->input_count > 1 ? " ..." : "");
    if (rc) {
        status = cli_fail(command, rc);
        goto done;
    }
    if ((rc = collect_names(&s, &t))) {
        status = cli_fail(command, rc);
        goto done;
    }
    if ((status = choose_frequency(req, &s, command, &t)) != CLI_EXIT_OK)
        goto done;
    if ((rc = fill_cells(req, command, &s, &t)) || (rc = label_traces(&t))) {
        status = cli_fail(command, rc);
        goto done;
    }
    summarize(command, &t);
    if ((req->svg_path && (rc = write_svg(req, &t))) || (rc = write_table(req, &t)))
        status = cli_fail(command, rc);
done:
    table_free(&t);
    results_free(&s);
    return status;
}

int cmd_pics_table(int argc, char **argv)
{
    static const char *const formats[] = { "md", "latex", "csv", NULL };
    static const int format_values[] = { TABLE_MD, TABLE_LATEX, TABLE_CSV };
    table_request req = { .format = TABLE_MD, .granularity = PICS_GRAN_INSN_COMPONENT,
                          .precision = TEXT_DEFAULT_DECIMALS };
    int rc;
    const cli_option options[] = {
        CLI_ENUM("format", "FORMAT", &req.format, formats, format_values, "unknown format '%s' (md, latex or csv)",
                 "md (GitHub Markdown, default), latex (a booktabs tabular) or csv;\n"
                 "md and latex show one decimal (--precision), csv the full precision"),
        CLI_OPTION_GRANULARITY(&req.granularity, "the error column: insn-component (default), insn or func"),
        { .long_name = "freq", .arg = CLI_ARG_REQUIRED, .value_name = "HZ",
          .help = "the sampling frequency to show (k/M/G suffixes), required when\nthe results hold several",
          .type = CLI_TYPE_HZ, .dest = &req.freq_hz, .error = "invalid frequency '%s' (Hz, with an optional k, M or G)",
          .seen = &req.has_freq },
        CLI_OPTION_SVG(&req.svg_path, "also draw the table as grouped bars (traces and the mean x\n"
                                      "schemes; whiskers: the 95 % interval over the seeds)"),
        CLI_FLAG("names", 0, &req.names, "name the schemes as in prose (TEA, NCI-TEA, IBS, SPE, RIS;\n"
                                         "IBS (all events) for ibs:all) in md, latex and the SVG;\n"
                                         "CSV keeps the labels"),
        CLI_UINT("precision", "N", &req.precision, 0, TEXT_MAX_DECIMALS,
                 "invalid precision '%s' (0-" CLI_STR(TEXT_MAX_DECIMALS) " decimals)",
                 "decimals of the percentages in md and latex (default " CLI_STR(TEXT_DEFAULT_DECIMALS) ")"),
        CLI_FLAG("bold-best", 0, &req.bold_best, "set the lowest error of each row in bold (md, latex; every\n"
                                                 "cell that shows the lowest value at --precision)"),
        CLI_STRING("caption", 0, "TEXT", &req.caption, "a caption: 'Table: TEXT' after the Markdown table (pandoc),\n"
                                                       "a table environment with \\caption{TEXT} in LaTeX"),
        CLI_OPTION_OUTPUT("OUT", &req.out_path, "write the table to OUT instead of standard output"),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(TABLE_SYNOPSIS, TABLE_EPILOGUE, 20, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind == argc)
        return cli_usage_error(argv[0], "expected at least one results CSV or replay directory");
    req.inputs = &argv[optind];
    req.input_count = (size_t)(argc - optind);
    return run_table(&req, argv[0]);
}
