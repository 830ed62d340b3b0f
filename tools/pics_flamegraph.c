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
#include "common/strtab.h"
#include "palette.h"
#include "plot/flame.h"
#include "trace/psv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define FLAME_FRAMES 3               /* function, instruction, component (after the callers) */
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

/* The frames of every stack, each name kept once: a calling context's
 * callers (the view_callpath_names' strings) as one prefix array shared by
 * its stacks, functions' and instructions' names in a strtab, a
 * component's label and colour per PSV; a stack's own frames are three
 * pointers (function, instruction, component). Millions of cells of a
 * context PICS then cost a few words each. */
typedef struct flame_frames {
    const view_callpath_names *callers;
    const binary_symbolizer *z;
    /* callers per context id: prefix[ctx] (NULL until asked), depth[ctx] */
    const char ***prefix;
    size_t *prefix_depth;
    size_t contexts;
    const char **caller_colors;          /* VIEW_CALLPATH_MAX_CALLERS of FLAME_CALLER_COLOR */
    strtab names;                        /* the functions' and instructions' names, each once */
    uint64_t named_pc;                   /* the PC named last (rows come by PC), */
    const char *function, *insn;         /* ... its names (NULL: none named yet) */
    char component[TRACE_PSV_VALUES][TRACE_PSV_LABEL_MAX];
    char color[TRACE_PSV_VALUES][PLOT_CHART_COLOR_MAX];
    const char *own_colors[TRACE_PSV_VALUES][FLAME_FRAMES]; /* function, instruction, component */
    const char **own;                    /* [3 x stacks] */
} flame_frames;

static void frames_free(flame_frames *f)
{
    for (size_t c = 0; f->prefix && c < f->contexts; c++)
        free(f->prefix[c]);
    free(f->prefix);
    free(f->prefix_depth);
    free(f->caller_colors);
    strtab_free(&f->names);
    free(f->own);
    memset(f, 0, sizeof *f);
}

/* Prepares the tables for `n` stacks over `contexts` (0: a flat PICS). */
static int frames_init(flame_frames *f, const view_callpath_names *callers, const binary_symbolizer *z,
                       size_t contexts, size_t n)
{
    memset(f, 0, sizeof *f);
    f->callers = callers;
    f->z = z;
    f->contexts = contexts;
    strtab_init(&f->names);
    f->caller_colors = malloc(VIEW_CALLPATH_MAX_CALLERS * sizeof *f->caller_colors);
    f->own = malloc((n ? n : 1) * FLAME_FRAMES * sizeof *f->own);
    if (contexts) {
        f->prefix = calloc(contexts, sizeof *f->prefix);
        f->prefix_depth = calloc(contexts, sizeof *f->prefix_depth);
    }
    if (!f->caller_colors || !f->own || (contexts && (!f->prefix || !f->prefix_depth))) {
        frames_free(f);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < VIEW_CALLPATH_MAX_CALLERS; k++)
        f->caller_colors[k] = FLAME_CALLER_COLOR;
    for (unsigned psv = 0; psv < TRACE_PSV_VALUES; psv++) {
        trace_psv_label((uint16_t)psv, f->component[psv], sizeof f->component[psv]);
        palette_component_color((uint16_t)psv, f->color[psv]);
        f->own_colors[psv][0] = FLAME_FUNCTION_COLOR;
        f->own_colors[psv][1] = FLAME_INSN_COLOR;
        f->own_colors[psv][2] = f->color[psv];
    }
    return TEA_OK;
}

/* The callers of context `ctx`, named once per context. */
static int frames_prefix(flame_frames *f, uint32_t ctx, const char *const **prefix, size_t *depth)
{
    const char *names[VIEW_CALLPATH_MAX_CALLERS];
    *prefix = NULL;
    *depth = 0;
    if (!f->contexts)
        return TEA_OK;
    assert(ctx < f->contexts); /* a PICS's cells name contexts of its tree */
    if (!f->prefix[ctx]) {
        size_t d = view_callpath_callers(f->callers, ctx, names);
        if (!(f->prefix[ctx] = malloc((d ? d : 1) * sizeof *f->prefix[ctx])))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        memcpy(f->prefix[ctx], names, d * sizeof *names);
        f->prefix_depth[ctx] = d;
    }
    *prefix = f->prefix[ctx];
    *depth = f->prefix_depth[ctx];
    return TEA_OK;
}

/* The function and location names of `pc`, each name kept once; a PC is
 * named once, as rows come by PC (pics_sorted's order). */
static int frames_names(flame_frames *f, uint64_t pc, const char **function, const char **insn)
{
    if (!f->function || pc != f->named_pc) {
        char fn[BINARY_SYMBOLIZE_TEXT_MAX], loc[BINARY_SYMBOLIZE_TEXT_MAX];
        long kf, kl;
        assert(!f->function || pc > f->named_pc); /* rows by PC: never one named before */
        binary_symbolize_function(f->z, pc, fn, sizeof fn);
        binary_symbolize_location(f->z, pc, loc, sizeof loc);
        if ((kf = strtab_index(&f->names, fn)) < 0 || (kl = strtab_index(&f->names, loc)) < 0)
            return TEA_ERR_NOMEM; /* the message is strtab_index's */
        f->function = f->names.text[kf];
        f->insn = f->names.text[kl];
        f->named_pc = pc;
    }
    *function = f->function;
    *insn = f->insn;
    return TEA_OK;
}

/* Stack i of `row`: the callers of its context as its prefix, then its
 * function, instruction and component. */
static int frames_stack(flame_frames *f, size_t i, const view_report_folded *row, plot_flame_stack *out)
{
    const char **own = f->own + i * FLAME_FRAMES;
    const char *const *prefix;
    size_t depth;
    int rc;
    if ((rc = frames_prefix(f, row->ctx, &prefix, &depth)) || (rc = frames_names(f, row->pc, &own[0], &own[1])))
        return rc;
    own[2] = f->component[row->psv];
    *out = (plot_flame_stack){ .frames = own, .colors = f->own_colors[row->psv], .weight = row->weight,
                               .depth = depth + FLAME_FRAMES, .prefix = prefix,
                               .prefix_colors = f->caller_colors, .prefix_depth = depth };
    return TEA_OK;
}

static int run_flamegraph(const flame_request *req)
{
    view_report_input in;
    binary_symbolizer *z = NULL;
    view_report_folded *rows = NULL;
    uint32_t *canon = NULL;
    flame_frames frames;
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
    memset(&frames, 0, sizeof frames);
    if ((rc = view_report_input_load_stacks(&in, req->path, NULL))
        || (rc = view_report_symbolize(&z, &in.info.program, &in.info.objects, &in.p, &req->sym))
        || (rc = view_report_folded_cells(&in, &rows, &n))
        || (rc = view_callpath_names_init(&callers, &in.p.contexts, z))
        || (rc = view_callpath_canonical(&callers, &canon))
        || (rc = view_report_folded_merge(rows, &n, canon)))
        goto done;
    if ((rc = frames_init(&frames, &callers, z, in.p.contexts.count, n)))
        goto done;
    if (n && !(stacks = calloc(n, sizeof *stacks))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if ((rc = frames_stack(&frames, i, &rows[i], &stacks[i])))
            goto done;
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
    frames_free(&frames);
    free(canon);
    view_callpath_names_free(&callers);
    free(legend);
    free(stacks);
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
