/*
 * pics_plot.c: `pics plot`, the top instructions' cycle stacks as an SVG
 * chart: one group per instruction, one stacked bar per PICS file (golden,
 * TEA, IBS, ... like the TEA paper's Figure 6), one segment per component.
 * The numbers are view/stack.h's; this file labels and draws them.
 */
#include "binary/symbolize.h"
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "palette.h"
#include "pics/pics_file.h"
#include "plot/chart.h"
#include "trace/psv.h"
#include "view/report.h"
#include "view/stack.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_DEFAULT_TOP 10
#define PLOT_LABEL_MAX 128
#define PLOT_LOCATION_SHOWN 48 /* bytes of a symbolized location shown under its group */
#define PLOT_ELLIPSIS "..."
#define PLOT_TITLE_MAX 160
#define PLOT_DIGEST_SHOWN 8    /* hex digits of the trace digest in a title without a program */

#define PLOT_SYNOPSIS                                                                               \
    "Usage: pics plot FILE.pics... -o OUT.svg [OPTIONS]\n\n"                                       \
    "Draw the cycle stacks of the top instructions as an SVG chart: a group of bars per\n"         \
    "instruction, one stacked bar per input file (in the order given), one segment per\n"          \
    "component (PSV) with a legend. Sampled PICS are scaled to the golden total. The\n"            \
    "instructions are the top N by cycles of the first golden input, or of the first\n"            \
    "input when none is golden. All inputs must come from the same trace.\n\n"                     \
    "Options:\n"

typedef struct plot_request {
    const char *out_path, *title;
    uint64_t top;
    int percent;
    char **paths;
    size_t files;
    binary_symbolize_options sym; /* --elf, --adjust-vma */
} plot_request;

/* One input file (zeroed entries are safe to free). */
typedef struct plot_input {
    pics_info info;
    pics p;
} plot_input;

/* How a PC is labelled in the chart: function+0xOFFSET with a binary, else
 * its address in hex; cut to PLOT_LOCATION_SHOWN bytes (at a character
 * boundary) with an ellipsis, so that long C++ names do not swamp the chart. */
static char *plot_location(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    char full[BINARY_SYMBOLIZE_TEXT_MAX];
    size_t n;

    assert(size > PLOT_LOCATION_SHOWN + sizeof PLOT_ELLIPSIS - 1); /* room for the cut text */
    binary_symbolize_location(z, pc, full, sizeof full);
    n = strlen(full);
    if (n <= PLOT_LOCATION_SHOWN) {
        memcpy(buf, full, n + 1);
        return buf;
    }
    n = PLOT_LOCATION_SHOWN;
    while (n > 0 && ((unsigned char)full[n] & 0xC0) == 0x80)
        n--; /* not inside a UTF-8 sequence */
    snprintf(buf, size, "%.*s" PLOT_ELLIPSIS, (int)n, full);
    return buf;
}

/* "golden", or the scheme and its frequency ("tea 4kHz"). */
static void bar_label(const pics_info *info, char *buf, size_t size)
{
    char hz[PICS_NAME_MAX];
    if (pics_info_is_golden(info)) {
        snprintf(buf, size, "%s", info->scheme);
        return;
    }
    plot_chart_format_si(info->frequency_hz, hz, sizeof hz);
    snprintf(buf, size, "%s %sHz", info->scheme, hz);
}

/* The file name without its directory. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Fills the bar labels: scheme and frequency, or the file names when two
 * inputs would look the same. */
static void label_bars(const plot_request *req, const plot_input *in, char (*labels)[PLOT_LABEL_MAX])
{
    int clash = 0;
    for (size_t i = 0; i < req->files; i++)
        bar_label(&in[i].info, labels[i], PLOT_LABEL_MAX);
    for (size_t i = 0; i < req->files && !clash; i++)
        for (size_t j = 0; j < i && !clash; j++)
            clash = strcmp(labels[i], labels[j]) == 0;
    if (clash)
        for (size_t i = 0; i < req->files; i++)
            snprintf(labels[i], PLOT_LABEL_MAX, "%s", base_name(req->paths[i]));
}

/* Reads every input and checks that they share one trace. */
static int load_inputs(const plot_request *req, plot_input *in)
{
    int rc;
    for (size_t i = 0; i < req->files; i++) {
        if ((rc = pics_read(req->paths[i], &in[i].info, &in[i].p)))
            return rc;
        if (strcmp(in[i].info.trace_digest, in[0].info.trace_digest) != 0)
            return error_set(TEA_ERR_USAGE, "%s and %s come from different traces (digest %s vs %s)", req->paths[0],
                             req->paths[i], in[0].info.trace_digest, in[i].info.trace_digest);
    }
    return TEA_OK;
}

static int run_plot(const plot_request *req)
{
    plot_input *in = calloc(req->files, sizeof *in);
    view_stack_input *stack_in = calloc(req->files, sizeof *stack_in);
    view_stack stack = { 0 };
    size_t reference;
    char (*group_text)[PLOT_LABEL_MAX] = NULL, (*bar_text)[PLOT_LABEL_MAX] = NULL;
    char segment_text[TRACE_PSV_VALUES][TRACE_PSV_LABEL_MAX], segment_color[TRACE_PSV_VALUES][PLOT_CHART_COLOR_MAX];
    const char **group_labels = NULL, **bar_labels = NULL, *segment_labels[TRACE_PSV_VALUES],
               *segment_colors[TRACE_PSV_VALUES];
    char title[PLOT_TITLE_MAX];
    binary_symbolizer *z = NULL;
    binary_symbolize_options sym;
    int rc;

    if (!in || !stack_in) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = load_inputs(req, in)))
        goto done;
    for (size_t i = 0; i < req->files; i++)
        stack_in[i] = (view_stack_input){ &in[i].info, &in[i].p };
    reference = view_stack_reference(stack_in, req->files);
    sym = req->sym;
    /* --adjust-vma auto scores the reference's PCs */
    if ((rc = view_report_symbolize(&z, &in[reference].info.program, &in[reference].info.objects, &in[reference].p, &sym)))
        goto done;
    if ((rc = view_stack_build(&stack, stack_in, req->files, reference, req->top, req->percent)))
        goto done;
    if (stack.groups == 0) {
        rc = error_set(TEA_ERR_FORMAT, "%s: no instruction to plot (the PICS is empty)", req->paths[reference]);
        goto done;
    }
    group_text = malloc(stack.groups * sizeof *group_text);
    group_labels = malloc(stack.groups * sizeof *group_labels);
    bar_text = malloc(req->files * sizeof *bar_text);
    bar_labels = malloc(req->files * sizeof *bar_labels);
    if (!group_text || !group_labels || !bar_text || !bar_labels) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < stack.segments; k++) {
        trace_psv_label(stack.psvs[k], segment_text[k], TRACE_PSV_LABEL_MAX);
        palette_component_color(stack.psvs[k], segment_color[k]);
        segment_labels[k] = segment_text[k];
        segment_colors[k] = segment_color[k];
    }
    for (size_t g = 0; g < stack.groups; g++)
        group_labels[g] = plot_location(z, stack.pcs[g], group_text[g], PLOT_LABEL_MAX);
    label_bars(req, in, bar_text);
    for (size_t b = 0; b < req->files; b++)
        bar_labels[b] = bar_text[b];
    if (palette_program(in[0].info.program.binary_path)) {
        snprintf(title, sizeof title, "%s: cycle stacks of the top %zu instructions",
                 palette_program(in[0].info.program.binary_path), stack.groups);
    } else {
        snprintf(title, sizeof title, "Cycle stacks of the top %zu instructions (trace %.*s)", stack.groups,
                 PLOT_DIGEST_SHOWN, in[0].info.trace_digest);
    }

    {
        const plot_chart_stacked_bars chart = {
            .title = req->title ? req->title : title,
            .y_label = req->percent ? "% of all cycles" : "cycles",
            .value_unit = "cycles",
            .format = req->percent ? PLOT_CHART_NUMBER_PERCENT : PLOT_CHART_NUMBER_PLAIN,
            .groups = stack.groups,
            .bars = req->files,
            .segments = stack.segments,
            .group_labels = group_labels,
            .bar_labels = bar_labels,
            .segment_labels = segment_labels,
            .segment_colors = segment_colors,
            .values = stack.values,
        };
        rc = plot_chart_save_stacked_bars(req->out_path, &chart);
    }
done:
    binary_symbolize_close(z);
    for (size_t i = 0; in && i < req->files; i++) {
        /* Also after a failed pics_read, which may leave its map allocated. */
        pics_info_free(&in[i].info);
        pics_free(&in[i].p);
    }
    free(in);
    free(stack_in);
    view_stack_free(&stack);
    free(group_text);
    free(group_labels);
    free(bar_text);
    free(bar_labels);
    return rc;
}

int cmd_pics_plot(int argc, char **argv)
{
    static const char *const units[] = { "cycles", "percent", NULL };
    plot_request req = { .top = PLOT_DEFAULT_TOP };
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &req.out_path, "the SVG file (required; - for standard output)"),
        CLI_UINT("top", "N", &req.top, 1, UINT64_MAX, "invalid count '%s' for --top (at least 1)",
                 "how many instructions (default " CLI_STR(PLOT_DEFAULT_TOP) ", at least 1)"),
        CLI_ENUM("unit", "UNIT", &req.percent, units, NULL, "unknown unit '%s' (cycles or percent)",
                 "cycles (default) or percent (of the golden total)"),
        CLI_STRING("title", 0, "TEXT", &req.title, "the chart's title"),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary to name instructions with (function+0xOFFSET; default:\n"
                                          "the one the trace names, if it exists; else addresses)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&req.sym),
        CLI_OPTION_NO_DEMANGLE(&req.sym),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(PLOT_SYNOPSIS, NULL, 20, options);

    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (!req.out_path)
        return cli_usage_error(argv[0], "missing -o OUT.svg");
    if (optind == argc)
        return cli_usage_error(argv[0], "expected at least one FILE.pics");
    req.paths = &argv[optind];
    req.files = (size_t)(argc - optind);
    if ((rc = run_plot(&req)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
