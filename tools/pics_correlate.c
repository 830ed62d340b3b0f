/*
 * pics_correlate.c: `pics correlate`, how well an event's count at a static
 * instruction predicts the cycles it costs there (the TEA paper's Figure 7),
 * per golden PICS and pooled over all of them.
 *
 * For each of the nine events, every static instruction with at least
 * --min-count occurrences of it is a point (occurrences, cycles of the
 * components containing the event); r is Pearson's correlation over those
 * points (results/correlate.h). The pooled row ("all") takes the points of
 * every input together: instructions of different traces are different
 * points even at the same address.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "cli.h"
#include "commands.h"
#include "common/csv.h"
#include "common/error.h"
#include "common/exact.h"
#include "common/outfile.h"
#include "palette.h"
#include "plot/chart.h"
#include "results/correlate.h"
#include "pics/pics_file.h"
#include "trace/psv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POOLED_NAME "all"
#define DEFAULT_MIN_COUNT 1
#define CYCLE_DECIMALS 6            /* fraction digits of cycles in CSV */
#define CYCLE_SCALE 1000000u        /* 10^CYCLE_DECIMALS */
#define R_DECIMALS 9                /* fraction digits of r in CSV */
#define UNDEFINED_LABEL "n/a"       /* in place of the bar of an undefined r in the SVG */
#define TEXT_R_DECIMALS 3           /* ... and in the text summary */
#define TEXT_COLUMN_MIN 16          /* width of a trace's column in the text summary */
#define NUMBER_MAX 64

#define CORRELATE_SYNOPSIS                                                                          \
    "Usage: pics correlate GOLDEN.pics... [OPTIONS]\n\n"                                           \
    "For each of the nine events, Pearson's r across static instructions between how often\n"      \
    "the event occurred at the instruction (the golden cells' counts: µops subject to it)\n"       \
    "and the golden cycles charged to the components (PSVs) containing it, like the TEA\n"         \
    "paper's Figure 7. Per input and pooled over all inputs (trace 'all'; instructions of\n"       \
    "different inputs are different points). Only instructions with at least --min-count\n"        \
    "occurrences take part. r is undefined, never 0, when fewer than two instructions\n"          \
    "take part or either side is constant: 'undefined' in the text summary, an empty field\n"    \
    "in CSV (NaN for pandas), 'n/a' in place of the bar in the SVG.\n\n"                         \
    "Inputs are golden PICS files, or directories written by 'tea replay -o DIR' (their\n"         \
    "golden.pics); sampled PICS are refused. A trace is named by the summary.csv beside\n"         \
    "the file when its digest matches a row's, else by the directory of\n"                         \
    "a golden.pics, else by the file name without .pics; repeated names get #2, #3, ...\n\n"       \
    "Options:\n"
#define CORRELATE_EPILOGUE                                                                          \
    "\n"                                                                                           \
    "CSV columns: trace,event,instructions,occurrences,cycles,r (instructions taking part,\n"      \
    "their occurrences and cycles summed, r with " CLI_STR(R_DECIMALS) " decimals).\n"

typedef struct correlate_request {
    char **paths;
    size_t count;
    const char *out_path, *svg_path;
    uint64_t min_count;
} correlate_request;

/* --- output ------------------------------------------------------------------------- */

/* Units (cycles x PICS_UNIT) as cycles with CYCLE_DECIMALS digits, rounded
 * half up, exactly. */
static void format_cycles(exact_u128 units, char *buf, size_t size)
{
    exact_u128 whole = units / PICS_UNIT;
    uint64_t rest = (uint64_t)(units % PICS_UNIT);
    uint64_t fraction = (rest * CYCLE_SCALE + PICS_UNIT / 2) / PICS_UNIT;
    char integer[EXACT_U128_DIGITS_MAX];

    if (fraction == CYCLE_SCALE) {
        whole++;
        fraction = 0;
    }
    exact_format_u128(whole, integer, sizeof integer);
    snprintf(buf, size, "%s.%0*llu", integer, CYCLE_DECIMALS, (unsigned long long)fraction);
}

static void write_csv_rows(FILE *f, const results_correlate_trace *t)
{
    char occurrences[EXACT_U128_DIGITS_MAX], cycles[NUMBER_MAX];
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
        const results_correlate_stats *s = &t->stats[e];
        exact_format_u128(s->occurrences, occurrences, sizeof occurrences);
        format_cycles(s->value, cycles, sizeof cycles);
        csv_data_field(f, t->name);
        fprintf(f, ",%s,%zu,%s,%s,", trace_psv_event_name((enum trace_psv_event)e), s->instructions, occurrences,
                cycles);
        if (!isnan(s->r))
            fprintf(f, "%.*f", R_DECIMALS, s->r);
        fputc('\n', f);
    }
}

static int write_csv(const correlate_request *req, const results_correlate_trace *in,
                     const results_correlate_trace *pooled)
{
    outfile *out;
    int rc;

    if ((rc = outfile_open(&out, req->out_path ? req->out_path : "-")))
        return rc;
    fputs("trace,event,instructions,occurrences,cycles,r\n", outfile_stream(out));
    for (size_t i = 0; i < req->count; i++)
        write_csv_rows(outfile_stream(out), &in[i]);
    write_csv_rows(outfile_stream(out), pooled);
    return outfile_commit(out);
}

/* The traces a summary or chart shows: the inputs, and the pooled row when
 * there are several. */
static size_t shown_count(const correlate_request *req)
{
    return req->count > 1 ? req->count + 1 : req->count;
}

static const results_correlate_trace *shown(const correlate_request *req, const results_correlate_trace *in,
                                            const results_correlate_trace *pooled, size_t i)
{
    return i < req->count ? &in[i] : pooled;
}

/* The text summary: events x traces, r and the instructions taking part. */
static void write_summary(FILE *f, const correlate_request *req, const results_correlate_trace *in,
                          const results_correlate_trace *pooled)
{
    size_t columns = shown_count(req);
    char cell[NUMBER_MAX];

    fprintf(f, "Pearson r across static instructions with >= %llu occurrences (n = instructions):\n",
            (unsigned long long)req->min_count);
    fprintf(f, "%-8s", "event");
    for (size_t c = 0; c < columns; c++) {
        const char *name = shown(req, in, pooled, c)->name;
        int width = (int)(strlen(name) > TEXT_COLUMN_MIN ? strlen(name) : TEXT_COLUMN_MIN);
        fprintf(f, "  %*s", width, name);
    }
    fputc('\n', f);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
        fprintf(f, "%-8s", trace_psv_event_name((enum trace_psv_event)e));
        for (size_t c = 0; c < columns; c++) {
            const results_correlate_trace *t = shown(req, in, pooled, c);
            const results_correlate_stats *s = &t->stats[e];
            int width = (int)(strlen(t->name) > TEXT_COLUMN_MIN ? strlen(t->name) : TEXT_COLUMN_MIN);
            if (isnan(s->r))
                snprintf(cell, sizeof cell, "undefined (n=%zu)", s->instructions);
            else
                snprintf(cell, sizeof cell, "%.*f (n=%zu)", TEXT_R_DECIMALS, s->r, s->instructions);
            fprintf(f, "  %*s", width, cell);
        }
        fputc('\n', f);
    }
}

/* Grouped bars of r: a group per trace (and the pooled one), a bar per
 * event in the event's own colour, the one it has in every figure
 * (palette_component_color of its single-event PSV), named in the legend;
 * negative r hangs below zero. */
static int write_svg(const correlate_request *req, const results_correlate_trace *in,
                     const results_correlate_trace *pooled)
{
    size_t G = shown_count(req);
    double *values = malloc(G * TRACE_PSV_EVENT_COUNT * sizeof *values);
    const char **groups = malloc(G * sizeof *groups);
    const char *series[TRACE_PSV_EVENT_COUNT], *colors[TRACE_PSV_EVENT_COUNT];
    char color_text[TRACE_PSV_EVENT_COUNT][PLOT_CHART_COLOR_MAX];
    int rc;

    if (!values || !groups) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
        series[e] = trace_psv_event_name((enum trace_psv_event)e);
        palette_component_color((uint16_t)(1u << e), color_text[e]);
        colors[e] = color_text[e];
    }
    for (size_t g = 0; g < G; g++) {
        groups[g] = shown(req, in, pooled, g)->name;
        for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
            values[g * TRACE_PSV_EVENT_COUNT + (size_t)e] = shown(req, in, pooled, g)->stats[e].r;
    }
    {
        const plot_chart_grouped_bars chart = {
            .title = "Event occurrences against cycle impact per instruction (Pearson r)",
            .y_label = "Pearson r",
            .format = PLOT_CHART_NUMBER_PLAIN,
            .groups = G,
            .series = TRACE_PSV_EVENT_COUNT,
            .group_labels = groups,
            .series_labels = series,
            .series_colors = colors,
            .values = values,
            .missing_label = UNDEFINED_LABEL,
        };
        rc = plot_chart_save_grouped_bars(req->svg_path, &chart);
    }
done:
    free(values);
    free(groups);
    return rc;
}

static int run_correlate(const correlate_request *req, const char *command)
{
    results_correlate_trace *in = calloc(req->count, sizeof *in), pooled;
    int rc = TEA_OK;

    memset(&pooled, 0, sizeof pooled);
    if (!in || !(pooled.name = strdup(POOLED_NAME))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < req->count && rc == TEA_OK; i++)
        rc = results_correlate_load(&in[i], &pooled, req->paths[i], req->min_count);
    if (rc || (rc = results_correlate_unique_names(in, req->count)))
        goto done;
    for (size_t i = 0; i < req->count; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(in[i].digest, in[j].digest) == 0)
                fprintf(stderr, "%s: warning: %s and %s are the same trace (digest %s); the pooled row counts it "
                        "twice\n", command, in[j].name, in[i].name, in[i].digest);
        results_correlate_finish(&in[i]);
    }
    results_correlate_finish(&pooled);
    if ((req->svg_path && (rc = write_svg(req, in, &pooled))) || (rc = write_csv(req, in, &pooled)))
        goto done;
    /* The summary never mixes with a CSV on standard output. */
    write_summary(req->out_path && strcmp(req->out_path, "-") != 0 ? stdout : stderr, req, in, &pooled);
done:
    for (size_t i = 0; in && i < req->count; i++)
        results_correlate_trace_free(&in[i]);
    free(in);
    results_correlate_trace_free(&pooled);
    return rc;
}

int cmd_pics_correlate(int argc, char **argv)
{
    correlate_request req = { .min_count = DEFAULT_MIN_COUNT };
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &req.out_path, "write the CSV to OUT (the text summary then goes to standard\n"
                                                "output; without -o the CSV goes to standard output and the\n"
                                                "summary to standard error)"),
        CLI_OPTION_SVG(&req.svg_path, "grouped bars of r: a group per trace, a bar per event in\n"
                                      "its component colour (as in pics plot and the flame\n"
                                      "graph; no bar where r is undefined)"),
        CLI_UINT("min-count", "N", &req.min_count, 0, UINT64_MAX, "invalid count '%s' for --min-count",
                 "least occurrences of an event at an instruction for it to count\n"
                 "(default " CLI_STR(DEFAULT_MIN_COUNT) "; 0 takes every instruction of the PICS)"),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(CORRELATE_SYNOPSIS, CORRELATE_EPILOGUE, 21, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind == argc)
        return cli_usage_error(argv[0], "expected at least one golden PICS file or replay directory");
    req.paths = &argv[optind];
    req.count = (size_t)(argc - optind);
    if ((rc = run_correlate(&req, argv[0])))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
