/*
 * pics_table.c: `pics table`, the error of every scheme on every trace as a
 * table (Markdown, LaTeX or CSV) and a grouped-bar chart, like the TEA
 * paper's Figure 5 and its mean/max summary.
 *
 * The inputs are results CSVs (results/results.h): `tea replay` directories
 * (their summary.csv) or files such as `tea sweep` writes, in any mix. The
 * table's numbers (cells as means over seeds, their intervals, the mean,
 * max and noise floor rows) are results/table.h's; this file parses the
 * options and writes them as Markdown, LaTeX, CSV and SVG.
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outfile.h"
#include "palette.h"
#include "plot/chart.h"
#include "results/results.h"
#include "results/table.h"
#include "pics/scheme.h"
#include "view/component_table.h"
#include "view/results_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0L
#define NUMBER_MAX 64
#define NAMES_MAX 256           /* bytes of the trace list in a warning */
#define TITLE_MAX 160
#define MISSING_SHOWN 5          /* traces named in a warning about missing results */
#define TEXT_DEFAULT_DECIMALS 1    /* fraction digits of percentages in md and latex */
#define TEXT_MAX_DECIMALS 9        /* --precision's upper bound */
#define SCHEME_NAME_MAX 64         /* a scheme's column name */

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
    "A cell of one seed on a sampled recording shows its error's interval over the trace's\n"  \
    "window groups instead (summary.csv's error_ci95_low/high; insn-component only).\n"        \
    "Results at several frequencies need --freq, unless each trace has one frequency of\n"    \
    "its own (tea replay --samples K): then each trace is shown at its own, named beside\n"   \
    "it ('gzip (312kHz)'), and CSV rows give it in freq_hz (empty in the mean and max rows).\n"  \
    "--samples K1,K2,... tabulates a sweep over sample counts: columns SCHEME@K, freq_hz\n"    \
    "empty. --by component takes replay directories: per trace a row per component (its\n"   \
    "golden share, each scheme's contribution) and an error row, their sum.\n"                \
    "Results with noise floors (tea replay/sweep --noise-floor) add a last row, 'noise\n"      \
    "floor': per scheme the mean over the traces of its floor, the error an exact\n"          \
    "attribution has at the scheme's own sample points (docs/semantics.md).\n"

/* Most --samples targets. */
#define TABLE_SAMPLES_MAX 16

typedef struct table_request {
    char **inputs;
    size_t input_count;
    view_results_table_format format;
    pics_granularity granularity;
    int has_freq;
    double freq_hz;            /* --freq */
    const char *out_path, *svg_path;
    int names;                 /* --names: TEA, NCI-TEA, ... in md, latex and the SVG */
    uint64_t precision;        /* --precision: decimals of md and latex */
    int bold_best;             /* --bold-best */
    const char *caption;       /* --caption */
    uint64_t samples[TABLE_SAMPLES_MAX]; /* --samples: tea replay --samples targets */
    size_t sample_count;
    int by_component;          /* --by component: the errors split, over replay directories */
} table_request;

/* The table's numbers (results/table.h) and how md, LaTeX and the SVG name
 * each trace and scheme. */
typedef struct table {
    results_table t;
    char **trace_labels;       /* [trace]: "gzip", or with own frequencies "gzip (312 kHz)" */
    const char **scheme_columns; /* [scheme]: the label, or with --names its name in prose */
    char (*scheme_names)[SCHEME_NAME_MAX]; /* [scheme]: the names in prose */
} table;

static void table_free(table *tb)
{
    for (size_t i = 0; tb->trace_labels && i < tb->t.trace_count; i++)
        free(tb->trace_labels[i]);
    free(tb->trace_labels);
    free(tb->scheme_columns);
    free(tb->scheme_names);
    results_table_free(&tb->t);
}

/* The column name of a scheme label: the label, or with --names its name in
 * prose (pics/scheme.h: TEA, NCI-TEA, IBS, SPE, RIS), "IBS (all events)" for
 * ibs:all and "IBS:SUFFIX" for another suffix; labels of no known scheme
 * stay as they are. */
static const char *scheme_column(const table_request *req, const char *label, char *buf, size_t size)
{
    return req->names ? palette_scheme_display(label, buf, size) : label;
}

/* How md, LaTeX and the SVG name each trace (its name, and with own
 * frequencies the frequency after it: "gzip (312 kHz)") and each scheme
 * (scheme_column). */
static int label_table(const table_request *req, table *tb)
{
    const results_table *t = &tb->t;
    size_t schemes = t->scheme_count ? t->scheme_count : 1;
    if (!(tb->trace_labels = calloc(t->trace_count ? t->trace_count : 1, sizeof *tb->trace_labels))
        || !(tb->scheme_columns = calloc(schemes, sizeof *tb->scheme_columns))
        || !(tb->scheme_names = calloc(schemes, sizeof *tb->scheme_names)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t s = 0; s < t->scheme_count; s++)
        tb->scheme_columns[s] = scheme_column(req, t->schemes[s], tb->scheme_names[s], sizeof tb->scheme_names[s]);
    for (size_t i = 0; i < t->trace_count; i++) {
        char hz[NUMBER_MAX] = "";
        size_t n;
        if (t->own_freqs)
            plot_chart_format_si(t->trace_freq[i], hz, sizeof hz);
        n = strlen(t->traces[i]) + strlen(hz) + sizeof " (Hz)";
        if (!(tb->trace_labels[i] = malloc(n)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        if (t->own_freqs)
            snprintf(tb->trace_labels[i], n, "%s (%sHz)", t->traces[i], hz);
        else
            snprintf(tb->trace_labels[i], n, "%s", t->traces[i]);
    }
    return TEA_OK;
}

/* The warnings: each trace without attributed cycles, then each scheme
 * missing some trace (its mean and max cover the others). */
static void warn(const char *command, const results_table *t)
{
    for (size_t i = 0; i < t->empty_count; i++)
        fprintf(stderr, "%s: warning: trace %s (%s, line %lu) has no attributed cycles: its row is empty\n",
                command, t->empty[i]->trace, t->empty[i]->file, t->empty[i]->line);
    for (size_t s = 0; s < t->scheme_count; s++) {
        size_t shown[MISSING_SHOWN], missing = results_table_missing(t, s, shown, MISSING_SHOWN);
        char names[NAMES_MAX];
        size_t used = 0;

        if (!missing)
            continue;
        names[0] = '\0';
        for (size_t k = 0; k < missing && k < MISSING_SHOWN && used < sizeof names; k++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", t->traces[shown[k]]);
        char at[NUMBER_MAX + sizeof " at  Hz"] = "";
        if (!t->own_freqs && !t->by_samples)
            snprintf(at, sizeof at, " at %.15g Hz", t->freq_hz);
        fprintf(stderr, "%s: warning: scheme %s has no result%s for %zu of %zu traces (%s%s); its %s "
                "and %s cover %zu\n", command, t->schemes[s], at, missing, t->trace_count, names,
                missing > MISSING_SHOWN ? ", ..." : "", RESULTS_TABLE_MEAN, RESULTS_TABLE_MAX, t->trace_count - missing);
    }
}

/* --- writing ---------------------------------------------------------------------- */

/* The grouped bars: traces and the mean x schemes, in percent. */
static int write_svg(const table_request *req, const table *tb)
{
    const results_table *t = &tb->t;
    size_t groups = t->trace_count + 1, S = t->scheme_count;
    double *values = malloc(groups * S * sizeof *values);
    double *low = t->spread ? malloc(groups * S * sizeof *low) : NULL;
    double *high = t->spread ? malloc(groups * S * sizeof *high) : NULL;
    const char **group_labels = malloc(groups * sizeof *group_labels);
    const char **colors = malloc(S * sizeof *colors);
    char title[TITLE_MAX], hz[NUMBER_MAX];
    int rc;

    if (!values || !group_labels || !colors || (t->spread && (!low || !high))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t g = 0; g < groups; g++) {
        group_labels[g] = g < t->trace_count ? tb->trace_labels[g] : RESULTS_TABLE_MEAN;
        for (size_t s = 0; s < S; s++) {
            size_t k = g * S + s;
            if (g == t->trace_count) {
                values[k] = (double)(t->mean[s] * PERCENT);
                if (low)
                    low[k] = high[k] = NAN;
                continue;
            }
            const results_table_cell *c = results_table_cell_at(t, g, s);
            values[k] = (double)(results_table_cell_mean(c) * PERCENT);
            if (low) {
                results_table_cell_interval(c, &low[k], &high[k]);
                low[k] *= PERCENT;
                high[k] *= PERCENT;
            }
        }
    }
    for (size_t s = 0; s < S; s++)
        colors[s] = palette_scheme_color(t->schemes[s], s);
    if (t->by_samples) {
        snprintf(title, sizeof title, "Error per trace, scheme and --samples target (%s granularity)",
                 pics_granularity_name(req->granularity));
    } else if (t->own_freqs) {
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
            .series_labels = tb->scheme_columns,
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
    return rc;
}

static int write_table(const table_request *req, const table *tb)
{
    const view_results_table_style style = {
        .format = req->format,
        .granularity = req->granularity,
        .decimals = (int)req->precision,
        .bold_best = req->bold_best,
        .caption = req->caption,
        .scheme_columns = tb->scheme_columns,
        .trace_labels = (const char *const *)tb->trace_labels,
    };
    outfile *out;
    int rc;

    if ((rc = outfile_open(&out, req->out_path ? req->out_path : "-")))
        return rc;
    if ((rc = view_results_table_write(outfile_stream(out), &tb->t, &style))) {
        outfile_abort(out);
        return rc;
    }
    return outfile_commit(out);
}

/* --by component: the replay directories' errors split by component
 * (view/component_table.h), written as Markdown or CSV. */
static int run_component_table(const table_request *req, const char *command)
{
    view_component_table t;
    outfile *out = NULL;
    int rc;

    if (req->format == VIEW_RESULTS_TABLE_LATEX || req->svg_path || req->sample_count || req->has_freq
        || req->granularity != PICS_GRAN_INSN_COMPONENT)
        return cli_usage_error(command, "--by component writes md or csv of replay directories at insn-component "
                                        "granularity (no --svg, --samples or --freq: one run per directory)");
    rc = view_component_table_build(&t, req->inputs, req->input_count);
    if (!rc && !(rc = outfile_open(&out, req->out_path ? req->out_path : "-"))) {
        if ((rc = view_component_table_write(outfile_stream(out), &t, req->format == VIEW_RESULTS_TABLE_CSV,
                                             (unsigned)req->precision)))
            outfile_abort(out);
        else
            rc = outfile_commit(out);
    }
    view_component_table_free(&t);
    return rc ? (rc == TEA_ERR_USAGE ? cli_usage_error(command, "%s", error_message()) : cli_fail(command, rc))
              : CLI_EXIT_OK;
}

/* Reads the inputs, builds the table and writes it. Returns an exit status. */
static int run_table(const table_request *req, const char *command)
{
    const results_table_request what = { req->granularity, req->has_freq, req->freq_hz, req->samples,
                                         req->sample_count };
    results_set s;
    table tb;
    int rc = TEA_OK, status = CLI_EXIT_OK;

    results_init(&s);
    memset(&tb, 0, sizeof tb);
    for (size_t i = 0; i < req->input_count && rc == TEA_OK; i++)
        rc = results_read(&s, req->inputs[i]);
    if (rc == TEA_OK)
        rc = results_table_check_rules(&s);
    if (rc == TEA_OK)
        rc = results_dedupe(&s);
    if (rc == TEA_OK && s.count == 0)
        rc = error_set(TEA_ERR_FORMAT, "no results in %s%s", req->inputs[0], req->input_count > 1 ? " ..." : "");
    if (rc == TEA_OK && (rc = results_table_build(&tb.t, &s, &what)) == TEA_ERR_USAGE)
        status = cli_usage_error(command, "%s", error_message()); /* the frequency to choose */
    else if (rc == TEA_OK && (rc = label_table(req, &tb)) == TEA_OK) {
        warn(command, &tb.t);
        if ((req->svg_path && (rc = write_svg(req, &tb))) || (rc = write_table(req, &tb)))
            status = cli_fail(command, rc);
    }
    if (rc && status == CLI_EXIT_OK)
        status = cli_fail(command, rc);
    table_free(&tb);
    results_free(&s);
    return status;
}

/* --samples K[,K...]: the targets to tabulate. */
static int samples_option(const char *command, const cli_option *opt, const char *arg)
{
    table_request *req = opt->dest;
    if (cli_parse_sample_counts(arg, req->samples, TABLE_SAMPLES_MAX, &req->sample_count))
        return cli_usage_error(command, "--samples: %s", error_message());
    return CLI_CONTINUE;
}

int cmd_pics_table(int argc, char **argv)
{
    static const char *const formats[] = { "md", "latex", "csv", NULL };
    static const int format_values[] = { VIEW_RESULTS_TABLE_MD, VIEW_RESULTS_TABLE_LATEX, VIEW_RESULTS_TABLE_CSV };
    static const char *const by_names[] = { "component", NULL };
    static const int by_values[] = { 1 };
    table_request req = { .format = VIEW_RESULTS_TABLE_MD, .granularity = PICS_GRAN_INSN_COMPONENT,
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
        CLI_ENUM("by", "WHAT", &req.by_component, by_names, by_values, "unknown split '%s' (component)",
                 "component: each scheme's error split by the components of\nits cells (pics error --by component), "
                 "over tea replay\ndirectories: a row per trace and component"),
        CLI_CALL("samples", 0, "K[,K...]", samples_option, &req,
                 "only the runs of tea replay --samples K (each trace at its own\nfrequency for K); several K: "
                 "a column per scheme and K\n(SCHEME@K), as a sweep over sample counts"),
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
    if (req.granularity == PICS_GRAN_CALLPATH)
        return cli_usage_error(argv[0], "--granularity callpath is pics report's and pics error's (PICS of tea "
                                        "replay --call-paths)");
    if (optind == argc)
        return cli_usage_error(argv[0], "expected at least one results CSV or replay directory");
    req.inputs = &argv[optind];
    req.input_count = (size_t)(argc - optind);
    return req.by_component ? run_component_table(&req, argv[0]) : run_table(&req, argv[0]);
}
