/*
 * pics_flamegraph.c: `pics flamegraph`, a PICS as an interactive flame graph
 * (one SVG file: click to zoom, search, hover; plot/flame.h). The stacks are
 * those of `pics report --format folded`: function, instruction, component,
 * weighted by whole cycles (view_report_folded_cells).
 */
#include "view/callpath.h"
#include "view/report.h"
#include "binary/symbolize.h"
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outfile.h"
#include "palette.h"
#include "plot/flame.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

#define FLAME_FRAMES 3               /* function, instruction, component (after the callers) */
#define FLAME_MAX_FRAMES (VIEW_CALLPATH_MAX_CALLERS + FLAME_FRAMES)
#define FLAME_CALLER_COLOR "#f7e8c8"    /* lighter sand: callers */
#define FLAME_TITLE_MAX 256
#define FLAME_FUNCTION_COLOR "#f2d9a6"  /* light sand: functions */
#define FLAME_INSN_COLOR "#e3e3e3"      /* light grey: instructions */

#define FLAMEGRAPH_SYNOPSIS                                                                         \
    "Usage: pics flamegraph FILE.pics -o OUT.svg [OPTIONS]\n\n"                                    \
    "Draw a PICS as an interactive flame graph: one SVG file that any browser opens, with\n"       \
    "frames function -> instruction -> component (coloured by component as in pics plot),\n"       \
    "each as wide as its cycles (sampled PICS scaled to the golden total, whole cycles as\n"       \
    "in `pics report --format folded`). Click a frame to zoom, 'Reset zoom' or the root\n"         \
    "to zoom out; 'Search' (or '/', Ctrl-F) highlights frames whose name contains a text\n"        \
    "and shows their share; hovering shows a frame's cycles and share. A URL query does the\n"     \
    "same from a link: OUT.svg?s=TEXT searches, OUT.svg?x=fN zooms into frame fN. A legend\n"      \
    "under the frames names each component's colour, heaviest first.\n\n"                         \
    "Options:\n"

typedef struct flame_request {
    const char *path, *out_path, *title;
    const char *scheme;           /* --scheme: a replay directory's PICS, or NULL */
    binary_symbolize_options sym; /* --elf, --adjust-vma */
    double min_width;             /* --min-width: user units; 0 keeps every frame */
} flame_request;

/* The legend: each component drawn, heaviest first (its colour is its PSV's,
 * palette_component_color), as name and colour. */
typedef struct flame_legend {
    plot_flame_legend entries[TRACE_PSV_VALUES];
    char names[TRACE_PSV_VALUES][TRACE_PSV_LABEL_MAX];
    char colors[TRACE_PSV_VALUES][PLOT_CHART_COLOR_MAX];
    uint64_t weight[TRACE_PSV_VALUES];
    uint16_t order[TRACE_PSV_VALUES];
    size_t count;
} flame_legend;

/* Fills the legend from the stacks' rows: every PSV with weight, heaviest
 * first, ties by PSV. */
static void build_legend(flame_legend *lg, const view_report_folded *rows, size_t n)
{
    memset(lg->weight, 0, sizeof lg->weight);
    lg->count = 0;
    for (size_t i = 0; i < n; i++)
        lg->weight[rows[i].psv] += rows[i].weight;
    for (unsigned psv = 0; psv < TRACE_PSV_VALUES; psv++)
        if (lg->weight[psv]) {
            size_t k = lg->count++;
            while (k > 0 && lg->weight[lg->order[k - 1]] < lg->weight[psv]) { /* insertion, heaviest first */
                lg->order[k] = lg->order[k - 1];
                k--;
            }
            lg->order[k] = (uint16_t)psv;
        }
    for (size_t k = 0; k < lg->count; k++) {
        trace_psv_label(lg->order[k], lg->names[k], sizeof lg->names[k]);
        palette_component_color(lg->order[k], lg->colors[k]);
        lg->entries[k] = (plot_flame_legend){ lg->names[k], lg->colors[k] };
    }
}

/* The frame names of one stack, kept until the SVG is written (the
 * callers' names stay the view_callpath_names'). */
typedef struct flame_names {
    char function[BINARY_SYMBOLIZE_TEXT_MAX];
    char insn[BINARY_SYMBOLIZE_TEXT_MAX];
    char component[TRACE_PSV_LABEL_MAX];
    char color[PLOT_CHART_COLOR_MAX];
    const char **frames;  /* [FLAME_MAX_FRAMES] */
    const char **colors;
} flame_names;

/* Room for one stack's frames and colours. */
static int names_alloc(flame_names *nm)
{
    nm->frames = malloc(FLAME_MAX_FRAMES * sizeof *nm->frames);
    nm->colors = malloc(FLAME_MAX_FRAMES * sizeof *nm->colors);
    return nm->frames && nm->colors ? TEA_OK : error_set(TEA_ERR_NOMEM, "out of memory");
}

/* Fills stack i: the callers of its context, its function, instruction
 * and component, and returns its depth. */
static size_t fill_stack(flame_names *nm, const view_callpath_names *callers, const binary_symbolizer *z,
                         const view_report_folded *row)
{
    size_t d = view_callpath_callers(callers, row->ctx, nm->frames);
    for (size_t k = 0; k < d; k++)
        nm->colors[k] = FLAME_CALLER_COLOR;
    binary_symbolize_function(z, row->pc, nm->function, sizeof nm->function);
    binary_symbolize_location(z, row->pc, nm->insn, sizeof nm->insn);
    trace_psv_label(row->psv, nm->component, sizeof nm->component);
    palette_component_color(row->psv, nm->color);
    nm->frames[d] = nm->function;
    nm->frames[d + 1] = nm->insn;
    nm->frames[d + 2] = nm->component;
    nm->colors[d] = FLAME_FUNCTION_COLOR;
    nm->colors[d + 1] = FLAME_INSN_COLOR;
    nm->colors[d + 2] = nm->color;
    return d + FLAME_FRAMES;
}

static int run_flamegraph(const flame_request *req)
{
    view_report_input in;
    binary_symbolizer *z = NULL;
    view_report_folded *rows = NULL;
    flame_names *names = NULL;
    plot_flame_stack *stacks = NULL;
    outfile *out = NULL;
    size_t n = 0;
    char title[FLAME_TITLE_MAX];
    plot_flame_options fo = { NULL, "all", "cycles", 0, 0, NULL, 0 };
    flame_legend *legend = NULL;
    view_callpath_names callers;
    size_t depth = FLAME_FRAMES;
    int rc;

    memset(&in, 0, sizeof in);
    memset(&callers, 0, sizeof callers);
    if ((rc = view_report_input_load_stacks(&in, req->path, NULL))
        || (rc = view_report_symbolize(&z, &in.info.program, &in.info.objects, &in.p, &req->sym))
        || (rc = view_report_folded_cells(&in, &rows, &n))
        || (rc = view_callpath_names_init(&callers, &in.p.contexts, z)))
        goto done;
    if (n && (!(names = calloc(n, sizeof *names)) || !(stacks = calloc(n, sizeof *stacks)))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        flame_names *nm = &names[i];
        if ((rc = names_alloc(nm)))
            goto done;
        stacks[i] = (plot_flame_stack){ nm->frames, nm->colors, rows[i].weight,
                                        fill_stack(nm, &callers, z, &rows[i]) };
        if (stacks[i].depth > depth)
            depth = stacks[i].depth;
    }
    if (req->title) {
        fo.title = req->title;
    } else {
        const char *program = palette_program(in.info.program.binary_path);
        snprintf(title, sizeof title, "%s: %s cycles by %sfunction, instruction and component",
                 program ? program : "the trace", in.info.scheme, pics_has_contexts(&in.p) ? "call path, " : "");
        fo.title = title;
    }
    if (!(legend = malloc(sizeof *legend))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    build_legend(legend, rows, n);
    fo.legend = legend->entries;
    fo.legend_count = legend->count;
    fo.min_width = req->min_width > 0 ? req->min_width : -1; /* plot/flame.h: negative keeps all */
    if ((rc = outfile_open(&out, req->out_path)))
        goto done;
    if ((rc = plot_flame_write(outfile_stream(out), &fo, stacks, n, depth)))
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    for (size_t i = 0; names && i < n; i++) {
        free(names[i].frames);
        free(names[i].colors);
    }
    view_callpath_names_free(&callers);
    free(legend);
    free(stacks);
    free(names);
    free(rows);
    binary_symbolize_close(z);
    view_report_input_free(&in);
    return rc;
}

/* --min-width W: a width in user units, 0 or more. */
static int min_width_option(const char *command, const cli_option *opt, const char *arg)
{
    char *end;
    double w = strtod(arg, &end);
    if (end == arg || *end || !(w >= 0) || w > PLOT_FLAME_DEFAULT_WIDTH)
        return cli_usage_error(command, "invalid width '%s' (0 to %g)", arg, PLOT_FLAME_DEFAULT_WIDTH);
    *(double *)opt->dest = w;
    return CLI_CONTINUE;
}

int cmd_pics_flamegraph(int argc, char **argv)
{
    flame_request req;
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT.svg", &req.out_path, "the SVG file (required; - for standard output)"),
        CLI_STRING("title", 0, "TEXT", &req.title, "the heading (default: the program's name and the scheme)"),
        CLI_OPTION_REPLAY_SCHEME(&req.scheme),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary to name functions and instructions with (default:\n"
                                          "the one the trace names, if it exists; else addresses)"),
        CLI_OPTION_ADJUST_VMA(&req.sym, "OFF",
                                 "load bias, runtime address - ELF address (hex with 0x or decimal;\n"
                                 "default: the bias the trace recorded; needed for a PIE without one)"),
        CLI_CALL("min-width", 0, "W", min_width_option, &req.min_width,
                 "frames narrower than W (of the 1200-unit drawing; default\n"
                 "0.1, as flamegraph.pl's --minwidth) are merged into one\n"
                 "'(N others)' frame per parent; 0 keeps every frame"),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(FLAMEGRAPH_SYNOPSIS, NULL, 22, options);

    memset(&req, 0, sizeof req);
    req.min_width = PLOT_FLAME_DEFAULT_MIN_WIDTH;
    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing FILE.pics" : "expected exactly one FILE.pics");
    if (!req.out_path)
        return cli_usage_error(argv[0], "missing -o OUT.svg");
    req.path = argv[optind];
    char *owned[2];
    if ((rc = cli_replay_dir_operand(argv[0], &req.path, req.scheme, NULL, owned)) || (rc = run_flamegraph(&req)))
        rc = cli_fail(argv[0], rc);
    free(owned[0]);
    free(owned[1]);
    return rc;
}
