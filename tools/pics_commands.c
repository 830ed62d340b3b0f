/*
 * pics_commands.c: `pics export`, `pics error` and `pics merge`.
 */
#include "view/callpath.h"
#include "view/error_report.h"
#include "view/pprof.h"
#include "view/speedscope.h"
#include "view/report.h"
#include "view/table.h"
#include "view/view.h"
#include "cli.h"
#include "commands.h"
#include "common/emit.h"
#include "common/error.h"
#include "common/gzip.h"
#include "common/json.h"
#include "common/outfile.h"
#include "pics/across.h"
#include "pics/error.h"
#include "pics/pics_file.h"
#include "trace/symmap.h"
#include "results/results.h"
#include "trace/psv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERROR_DEFAULT_TOP 10


/* --- export ------------------------------------------------------------------ */

#define EXPORT_SYNOPSIS                                                                                 \
    "Usage: pics export FILE.pics [--format csv|json|pprof] [-o OUT]\n\n"                              \
    "Print the cells of a PICS, cycles scaled to the golden total for sampled PICS.\n"                 \
    "CSV columns: pc,psv,component,cycles (pc in hex, psv 0-511, component its label,\n"               \
    "cycles with six decimals, rows sorted by pc then psv). pprof: a gzip-compressed\n"              \
    "profile.proto for pprof (-top, -diff_base, -tagfocus component=ST-LLC), each\n"                 \
    "instruction a location in its function, cycles and instructions (golden) or\n"                 \
    "samples as sample types, the component a label (docs/pics-format.md, \"pprof\").\n"            \
    "speedscope: its JSON file, a stack function;instruction;component per cell.\n\n"                \
    "Options:\n"

static int export_csv(FILE *f, view_table_cells *c)
{
    emit_column cols[VIEW_TABLE_CELLS_COLUMNS_MAX];
    emit_table table;

    view_table_cells_columns(c, EMIT_CSV, cols, &table);
    emit_csv_header(f, &table);
    return emit_csv_rows(f, &table);
}

/* What pics export --format json says of the PICS before its cells. */
static const pics_provenance_member EXPORT_PROVENANCE[] = {
    PICS_PROV_SCHEME,      PICS_PROV_TRACE_BEGIN, PICS_PROV_DIGEST,  PICS_PROV_FIRST_CYCLE, PICS_PROV_LAST_CYCLE,
    PICS_PROV_BINARY,      PICS_PROV_OBJECTS,     PICS_PROV_TRACE_END, PICS_PROV_TOTAL_CYCLES, PICS_PROV_FREQUENCY,
    PICS_PROV_PERIOD,      PICS_PROV_SEED,        PICS_PROV_JITTER,  PICS_PROV_EVENTS,      PICS_PROV_SAMPLES,
    PICS_PROV_LOST,
};

static int export_json(FILE *f, view_table_cells *c)
{
    emit_column cols[VIEW_TABLE_CELLS_COLUMNS_MAX];
    emit_table table;
    json_writer j;
    int rc;

    json_init(&j, f);
    json_begin_object(&j);
    pics_provenance_json(&j, c->info, NULL, EXPORT_PROVENANCE, sizeof EXPORT_PROVENANCE / sizeof EXPORT_PROVENANCE[0]);
    json_key(&j, "cells");
    view_table_cells_columns(c, EMIT_JSON, cols, &table);
    if ((rc = emit_json_rows(&j, &table)))
        return rc;
    json_end(&j);
    json_finish(&j);
    return TEA_OK;
}

/* The export's symbols (pprof): the functions and, with --source, the
 * source lines of the binary the PICS names (or --elf) and its objects. */
typedef struct export_symbols {
    binary_symbolize_options sym;
    trace_symmap functions;
    binary_symbolizer *z;
    char *from;
} export_symbols;

/* A piece of the profile, to the gzip stream (a view_pprof_sink). */
static int pprof_piece(void *ctx, const void *data, size_t size)
{
    return gzip_put(ctx, data, size);
}

/* The PICS as pprof's profile, gzip-compressed as it is encoded
 * (view/pprof.h): the profile is never whole in memory. */
static int export_pprof(FILE *f, view_table_cells *c, export_symbols *s, const char *command_line)
{
    view_pprof_input in;
    gzip_stream *g = NULL;
    int rc = view_report_functions(NULL, &c->info->program, &c->info->objects, NULL, &s->sym, &s->functions,
                                   &s->from, &s->z);

    if (rc)
        return rc;
    memset(&in, 0, sizeof in);
    in.pics = *c;
    in.functions = s->functions.count ? &s->functions : NULL;
    in.z = s->sym.source ? s->z : NULL;
    in.comments = command_line ? &command_line : NULL;
    in.comment_count = command_line != NULL;
    if ((rc = gzip_open(&g, f)))
        return rc;
    rc = view_pprof_encode(&in, pprof_piece, g);
    int end = gzip_close(g, rc == TEA_OK);
    return rc ? rc : end;
}

/* The PICS as speedscope's JSON file (view/speedscope.h). */
static int export_speedscope(FILE *f, view_table_cells *c, export_symbols *s)
{
    view_speedscope_input in;
    int rc = view_report_symbolize(&s->z, &c->info->program, &c->info->objects, NULL, &s->sym);

    if (rc)
        return rc;
    memset(&in, 0, sizeof in);
    in.pics = *c;
    in.z = s->z;
    in.exporter = cli_version();
    return view_speedscope_write(f, &in);
}

enum { EXPORT_CSV, EXPORT_JSON, EXPORT_PPROF, EXPORT_SPEEDSCOPE };



int cmd_pics_export(int argc, char **argv)
{
    static const char *const formats[] = { "csv", "json", "pprof", "speedscope", NULL };
    static const int format_values[] = { EXPORT_CSV, EXPORT_JSON, EXPORT_PPROF, EXPORT_SPEEDSCOPE };
    const char *out_path = "-";
    int format = EXPORT_CSV, rc;
    export_symbols syms;
    char *command_line = NULL;
    pics_info info;
    pics p = { 0 };
    pics_cell *cells = NULL;
    size_t n = 0;
    uint64_t total = 0, *pcs = NULL;
    outfile *out = NULL;
    const cli_option options[] = {
        CLI_ENUM("format", "FORMAT", &format, formats, format_values,
                 "unknown format '%s' (csv, json, pprof or speedscope)", "csv (default), json, pprof or speedscope"),
        CLI_OPTION_ELF(&syms.sym.elf_path, "pprof, speedscope: the binary to symbolize with (default:\n"
                                           "the one the trace names, if it exists; else addresses)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&syms.sym),
        CLI_OPTION_NO_DEMANGLE(&syms.sym),
        CLI_FLAG("source", 0, &syms.sym.source, "pprof: each location's source file and line (DWARF)"),
        CLI_OPTION_STDOUT_OUTPUT(&out_path),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(EXPORT_SYNOPSIS, NULL, 20, options);

    memset(&syms, 0, sizeof syms);
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing FILE.pics" : "expected exactly one FILE.pics");
    if ((format == EXPORT_CSV || format == EXPORT_JSON)
        && (syms.sym.elf_path || syms.sym.source || syms.sym.no_demangle || syms.sym.has_adjust_vma
            || syms.sym.adjust_vma_auto))
        return cli_usage_error(argv[0], "--elf, --adjust-vma, --no-demangle and --source go with --format pprof "
                                        "or speedscope");
    if (format == EXPORT_SPEEDSCOPE && syms.sym.source)
        return cli_usage_error(argv[0], "--source goes with --format pprof");
    /* the viewers draw stacks: their exports keep the calling contexts, the
     * cells as the file has them (sorted, perhaps millions); the others the
     * flat PICS */
    if (format == EXPORT_PPROF || format == EXPORT_SPEEDSCOPE) {
        rc = pics_read_array(argv[optind], &info, &p, &cells, &n, &total);
        if (!rc && syms.sym.adjust_vma_auto && !(rc = pics_cells_distinct_pcs(cells, n, &pcs, &syms.sym.auto_pc_count)))
            syms.sym.auto_pcs = pcs;
    } else if (!(rc = pics_read(argv[optind], &info, &p))) {
        total = p.total;
        rc = pics_sorted(&p, &cells, &n);
    }
    if (rc) {
        free(cells);
        pics_info_free(&info);
        pics_free(&p);
        return cli_fail(argv[0], rc);
    }
    if (!(rc = outfile_open(&out, out_path))) {
        view_table_cells c = { &info, total, &p.contexts, cells, n };
        if (format == EXPORT_PPROF) {
            command_line = cli_join_command(argc, argv);
            rc = export_pprof(outfile_stream(out), &c, &syms, command_line);
        } else if (format == EXPORT_SPEEDSCOPE) {
            rc = export_speedscope(outfile_stream(out), &c, &syms);
        } else {
            rc = format == EXPORT_JSON ? export_json(outfile_stream(out), &c) : export_csv(outfile_stream(out), &c);
        }
        if (rc)
            outfile_abort(out);
        else
            rc = outfile_commit(out);
    }
    free(cells);
    free(pcs);
    free(command_line);
    trace_symmap_free(&syms.functions);
    binary_symbolize_close(syms.z);
    free(syms.from);
    pics_info_free(&info);
    pics_free(&p);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}

/* --- error ------------------------------------------------------------------- */

#define ERROR_SYNOPSIS                                                                                  \
    "Usage: pics error SAMPLED.pics GOLDEN.pics [OPTIONS]\n\n"                                         \
    "The error of a sampled PICS against the golden PICS of the same trace, sum |P - G| / 2C\n"        \
    "(P scaled to the golden total C), then the instructions (or functions) contributing most.\n"      \
    "With --across-traces, SAMPLED may be a PICS of another trace of the same program (a\n"            \
    "sampled or SimPoint recording, another core configuration), golden ones included.\n\n"            \
    "Options:\n"

#define ERROR_EPILOGUE                                                                                  \
    "\n"                                                                                               \
    "With a noise floor (--floor, or SAMPLED.floor.pics beside SAMPLED.pics), a second\n"             \
    "line gives its error: that of the golden reference's own attribution of the cycles\n"          \
    "the scheme sampled, with its losses (docs/semantics.md, \"Noise floor\"). The error\n"          \
    "above it is sampling noise; the rest is the scheme's bias. JSON: \"noise_floor\".\n"            \
    "On a sampled recording (tea record --sample-every), whose PICS tea replay splits by\n"           \
    "groups of windows, a line under the error gives its 95 % interval: the jackknife\n"           \
    "over the groups, which covers both the choice of windows and the scheme's samples\n"          \
    "in them (docs/semantics.md, \"Sampled recordings\"). JSON: \"error_ci95\" (half-width).\n"      \
    "--across-traces matches PCs through the objects both traces list; a line says how\n"          \
    "many instructions had no counterpart (their cycles count fully against the error;\n"       \
    "JSON: \"unmatched_instructions\", \"unmatched_share\"; docs/semantics.md, \"Across traces\").\n"

typedef struct error_request {
    const char *sampled_path, *golden_path, *binary_symbols_path;
    const char *floor_path;        /* --floor, or NULL: SAMPLED.floor.pics when it exists */
    binary_symbolize_options sym;  /* --elf, --adjust-vma: the functions of func granularity */
    pics_granularity granularity;
    uint64_t top;
    int json;
    int across;                    /* --across-traces */
    int by_component;              /* --by component */
} error_request;

/* The functions of func granularity, as tea replay computed error_func:
 * --symbols MAP, else the functions of --elf or of the binary the golden
 * PICS records (and its objects). TEA_ERR_USAGE when there are none. */
static int load_functions(const error_request *req, const pics_info *golden, trace_symmap *syms)
{
    char *from = NULL;
    int rc = view_report_functions(req->binary_symbols_path, &golden->program, &golden->objects, NULL, &req->sym,
                                   syms, &from, NULL);

    if (!rc && !from && syms->count == 0)
        rc = error_set(TEA_ERR_USAGE, "--granularity func needs functions: %s names no binary that can be read; "
                                      "pass --elf BINARY or --symbols MAP",
                       req->golden_path);
    free(from);
    return rc;
}

/* The noise floor of the sampled PICS `si` (tea replay --noise-floor): the
 * file of --floor, else SAMPLED.floor.pics when there is one (*found 0
 * when neither). It must be the floor of the same scheme and events at the
 * same points of the same trace. */
static int read_floor(const error_request *req, const pics_info *si, pics_info *fi, pics *fp, int *found)
{
    char *auto_path = NULL;
    const char *path = req->floor_path;
    char label[2 * PICS_NAME_MAX];
    int rc;

    *found = 0;
    if (!path) {
        if (si->noise_floor_of[0] || pics_info_is_golden(si))
            return TEA_OK;
        if ((rc = results_floor_path(req->sampled_path, &auto_path)))
            return rc;
        if (access(auto_path, F_OK) != 0) {
            free(auto_path);
            return TEA_OK;
        }
        path = auto_path;
    }
    snprintf(label, sizeof label, "%s%s", si->scheme, strcmp(si->events, "all") == 0 ? ":all" : "");
    if ((rc = pics_read(path, fi, fp)))
        goto done;
    if (!fi->noise_floor_of[0])
        rc = error_set(TEA_ERR_USAGE, "%s is not a noise floor (no noise_floor_of; tea replay --noise-floor writes "
                                      "them)", path);
    else if (strcmp(fi->noise_floor_of, label) != 0 || fi->period != si->period || fi->seed != si->seed
             || strcmp(fi->jitter, si->jitter) != 0 || strcmp(fi->trace_digest, si->trace_digest) != 0)
        rc = error_set(TEA_ERR_USAGE,
                       "%s is the noise floor of %s at period %llu, seed %llu on trace %s, not of %s's %s at "
                       "period %llu, seed %llu on trace %s",
                       path, fi->noise_floor_of, (unsigned long long)fi->period, (unsigned long long)fi->seed,
                       fi->trace_digest, req->sampled_path, label, (unsigned long long)si->period,
                       (unsigned long long)si->seed, si->trace_digest);
    else
        rc = pics_info_same_rules(fi, path, si, req->sampled_path);
    *found = rc == TEA_OK;
done:
    free(auto_path);
    return rc;
}

/* --across-traces: the sampled PICS, its window groups and its noise floor
 * moved from the sampled trace's addresses (si) into the golden trace's
 * (gi), in place. */
static int move_across(const pics_info *si, const pics_info *gi, pics *sp, pics *sgroups, pics *fp, int has_floor,
                       pics_across_stats *st)
{
    const pics_across_side from = { &si->program, &si->objects }, to = { &gi->program, &gi->objects };
    int rc = pics_across_move_in_place(sp, &from, &to, st);
    for (uint64_t k = 0; !rc && sgroups && k < si->groups; k++)
        rc = pics_across_move_in_place(&sgroups[k], &from, &to, NULL);
    return !rc && has_floor ? pics_across_move_in_place(fp, &from, &to, NULL) : rc;
}

static int run_error(const error_request *req)
{
    pics_info si, gi, fi;
    pics sp = { 0 }, gp = { 0 }, fp = { 0 };
    pics *sgroups = NULL, *ggroups = NULL; /* window groups of a sampled trace's PICS (both files') */
    trace_symmap syms = { 0 };
    view v = { 0 };
    double floor = NAN, half = NAN;
    pics_across_stats across = { 0 };
    pics_cell *scells = NULL, *gcells = NULL; /* --granularity callpath: the cells as read */
    size_t scount = 0, gcount = 0;
    uint64_t stotal = 0, gtotal = 0;
    int rc, has_floor = 0;

    pics_info_init(&si);
    pics_info_init(&gi);
    pics_info_init(&fi);
    if (req->granularity == PICS_GRAN_CALLPATH) { /* cells by context: no window groups, no floor */
        if ((rc = pics_read_array(req->sampled_path, &si, &sp, &scells, &scount, &stotal))
            || (rc = pics_read_array(req->golden_path, &gi, &gp, &gcells, &gcount, &gtotal)))
            goto done;
    } else if ((rc = pics_read_groups(req->sampled_path, &si, &sp, &sgroups))
               || (rc = pics_read_groups(req->golden_path, &gi, &gp, &ggroups))
               || (rc = read_floor(req, &si, &fi, &fp, &has_floor))) {
        goto done;
    }
    if (!pics_info_is_golden(&gi)) {
        rc = error_set(TEA_ERR_USAGE, "%s is a %s PICS, not the golden one", req->golden_path, gi.scheme);
        goto done;
    }
    if (!req->across && strcmp(si.trace_digest, gi.trace_digest) != 0) {
        rc = error_set(TEA_ERR_USAGE, "%s and %s come from different traces (digest %s vs %s); --across-traces "
                                      "compares PICS of different traces of one program",
                       req->sampled_path, req->golden_path, si.trace_digest, gi.trace_digest);
        goto done;
    }
    if ((rc = pics_info_same_rules(&si, req->sampled_path, &gi, req->golden_path)))
        goto done;
    if (req->across && (rc = move_across(&si, &gi, &sp, sgroups, &fp, has_floor, &across)))
        goto done;
    if (pics_granularity_ranged(req->granularity) && (rc = load_functions(req, &gi, &syms)))
        goto done;
    if (req->granularity == PICS_GRAN_CALLPATH) {
        const view_callpath_input in[2] = { { &sp.contexts, scells, scount }, { &gp.contexts, gcells, gcount } };
        pics out[2];
        if ((rc = view_callpath_key_all(in, 2, &syms, out)))
            goto done;
        pics_free(&sp);
        pics_free(&gp);
        sp = out[0];
        gp = out[1];
    }
    if ((rc = pics_error_check(&gp, req->granularity, &syms))
        || (rc = view_build(&v, &sp, &gp, req->granularity, &syms)))
        goto done;
    view_sort(&v, VIEW_ORDER_CONTRIBUTION_KEY);
    if (has_floor) {
        pics_error_result e;
        if ((rc = pics_error_compute(&fp, &gp, req->granularity, &syms, &e)))
            goto done;
        floor = e.error;
        pics_error_result_free(&e);
    }
    /* the same windows on both sides (a sampled trace's replay), or across
     * traces the sampled side's against the whole golden PICS; an interval
     * that cannot be had costs only its line */
    if (req->across ? sgroups && si.groups >= 2 : sgroups && ggroups && si.groups == gi.groups) {
        rc = req->across
                 ? pics_error_jackknife_whole(sgroups, (unsigned)si.groups, &gp, req->granularity, &syms, &half)
                 : pics_error_jackknife(sgroups, ggroups, (unsigned)si.groups, req->granularity, &syms, &half);
        if (rc == TEA_ERR_NOMEM)
            goto done;
        if (rc)
            fprintf(stderr, "pics error: note: no interval: %s\n", error_message());
        rc = TEA_OK;
    } else if (!req->across && (sgroups || ggroups)) {
        fprintf(stderr, "pics error: note: no interval: %s has %llu window groups, %s %llu\n", req->sampled_path,
                (unsigned long long)si.groups, req->golden_path, (unsigned long long)gi.groups);
    }
    {
        const view_error_report report = { req->sampled_path, req->golden_path, &si, &v, req->top, half, floor,
                                           &fi, req->across ? &across : NULL, req->by_component };
        rc = (req->json ? view_error_report_write_json : view_error_report_write_text)(stdout, &report);
    }
done:
    free(scells);
    free(gcells);
    pics_groups_free(sgroups, si.groups);
    pics_groups_free(ggroups, gi.groups);
    view_free(&v);
    trace_symmap_free(&syms);
    pics_info_free(&si);
    pics_info_free(&gi);
    pics_info_free(&fi);
    pics_free(&sp);
    pics_free(&gp);
    pics_free(&fp);
    return rc;
}

int cmd_pics_error(int argc, char **argv)
{
    static const char *const error_by_names[] = { "component", NULL };
    static const int error_by_values[] = { 1 };
    error_request req;
    int rc;
    const cli_option options[] = {
        CLI_OPTION_GRANULARITY(&req.granularity, "insn-component (instruction x component, default), insn\n"
                                                 "(instruction only, components summed), func (function x\n"
                                                 "component) or callpath (call path x component: PICS of\n"
                                                 "tea replay --call-paths)"),
        CLI_OPTION_SYMBOLS(&req.binary_symbols_path, "symbol map for func: lines 'START END NAME' (END exclusive;\n"
                                                     "default: the functions of the binary the PICS records)"),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary whose functions func groups by (default: the\n"
                                          "one the PICS records, if it exists)"),
        CLI_OPTION_ADJUST_VMA(&req.sym, "OFF", "with --elf: runtime minus ELF address (default: the\n"
                                               "PICS's bias, else 0 for a non-PIE)"),
        CLI_UINT("top", "N", &req.top, 0, UINT64_MAX, "invalid count '%s'",
                 "how many contributors to list (default " CLI_STR(ERROR_DEFAULT_TOP) ")"),
        CLI_STRING("floor", 0, "FLOOR.pics", &req.floor_path,
                   "the sampled PICS's noise floor (default: SAMPLED.floor.pics\n"
                   "when it exists, as tea replay --noise-floor writes it)"),
        CLI_FLAG("json", 0, &req.json, "print {\"error\": fraction, \"instructions\": [...]} instead"),
        CLI_ENUM("by", "WHAT", &req.by_component, error_by_names, error_by_values,
                 "unknown split '%s' (component)", "split the error into the cells it comes from: component\n"
                                                    "(one line per component; they add up to the error)"),
        CLI_FLAG("across-traces", 0, &req.across, "SAMPLED may come from another trace of the same program:\n"
                                                  "its PCs move into GOLDEN's addresses by their objects"),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(ERROR_SYNOPSIS, ERROR_EPILOGUE, 20, options);

    memset(&req, 0, sizeof req);
    req.granularity = PICS_GRAN_INSN_COMPONENT;
    req.top = ERROR_DEFAULT_TOP;
    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (argc - optind != 2)
        return cli_usage_error(argv[0], "expected SAMPLED.pics GOLDEN.pics");
    if (req.by_component && req.granularity == PICS_GRAN_INSN)
        return cli_usage_error(argv[0], "--by component needs the components: --granularity insn-component or func");
    if (req.granularity == PICS_GRAN_CALLPATH && (req.across || req.floor_path))
        return cli_usage_error(argv[0], "--granularity callpath compares two PICS of one trace: not with "
                                        "--across-traces or --floor");
    req.sampled_path = argv[optind];
    req.golden_path = argv[optind + 1];
    if ((rc = run_error(&req)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}

/* --- merge ------------------------------------------------------------------- */

#define MERGE_SYNOPSIS                                                                                  \
    "Usage: pics merge A.pics B.pics... -o OUT.pics\n\n"                                               \
    "Sum PICS of the same scheme and sampling settings (e.g. one per trace of a batch job):\n"         \
    "cells, samples, losses and golden totals add, exactly.\n\n"                                       \
    "Options:\n"

int cmd_pics_merge(int argc, char **argv)
{
    const char *out_path = NULL;
    pics_info acc_info;
    pics acc = { 0 };
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &out_path, "the merged PICS (required)"),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(MERGE_SYNOPSIS, NULL, 20, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (!out_path)
        return cli_usage_error(argv[0], "missing -o OUT.pics");
    if (argc - optind < 1)
        return cli_usage_error(argv[0], "expected at least one PICS file");
    if ((rc = pics_read(argv[optind], &acc_info, &acc)))
        return cli_fail(argv[0], rc);
    for (int i = optind + 1; i < argc && rc == TEA_OK; i++) {
        pics_info info;
        pics p;
        if ((rc = pics_read(argv[i], &info, &p)))
            break;
        if ((rc = pics_info_merge(&acc_info, &info)))
            error_prefix(rc, "%s: ", argv[i]);
        else
            rc = pics_merge_into(&acc, &p);
        pics_info_free(&info);
        pics_free(&p);
    }
    if (rc == TEA_OK)
        rc = pics_write(out_path, &acc_info, &acc);
    pics_info_free(&acc_info);
    pics_free(&acc);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}
