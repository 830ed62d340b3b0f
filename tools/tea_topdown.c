/*
 * tea_topdown.c: `tea topdown`, the commit states and the top-down slot view
 * of a trace, for the whole trace and per function (docs/topdown.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "binary/symbolize.h"
#include "binary/symbols.h"
#include "cli.h"
#include "commands.h"
#include "common/emit.h"
#include "common/error.h"
#include "common/outfile.h"
#include "trace/symmap.h"
#include "trace/pcs.h"
#include "trace/trace.h"
#include "view/report.h"
#include "view/topdown.h"
#include "view/topdown_report.h"
#include "view/view.h"

#include <stdlib.h>
#include <string.h>

/* Functions listed in text by default. */
#define TEXT_DEFAULT_TOP 20


typedef struct request {
    const char *trace_path;
    const char *binary_symbols_path; /* --symbols MAP */
    binary_symbolize_options sym;    /* --elf BINARY, --adjust-vma OFFSET */
    const char *out_path;       /* -o, "-" for stdout */
    int by_function;
    emit_format format;
    uint64_t top;               /* text: functions listed (0: all) */
    trace_open_options open;
} request;


#define TOPDOWN_SYNOPSIS                                                                                \
    "Usage: tea topdown TRACE [--by function [--symbols MAP | --elf BINARY]]\n"                        \
    "                         [--format text|csv|json] [-o OUT]\n\n"                                   \
    "Where the cycles of a trace go, in two views (docs/topdown.md):\n"                                \
    "  commit states  compute, stalled, drained, flushed (cycles; they sum to the span), the\n"        \
    "                 last three split by the events (PSV components) of the µops charged;\n"          \
    "  top-down       commit slots (commit width x cycles) as retiring, bad speculation,\n"            \
    "                 frontend bound, backend bound, split the same way; and TMA's level 2\n"        \
    "                 where the PSV can tell, named as toplev does (Frontend_Bound.\n"             \
    "                 Fetch_Latency/Fetch_Bandwidth, Bad_Speculation.Branch_Mispredicts/\n"       \
    "                 Machine_Clears, Backend_Bound.Memory_Bound/Core_Bound).\n"                  \
    "For the whole trace and, with --by function, for every function of a symbol map or of\n"         \
    "the traced binary (the one the trace header names, or --elf).\n"                                  \
    "Counts are exact integers; printed shares add up to exactly 100%. On a sampled recording\n"     \
    "(tea record --sample-every) the whole trace's shares get ± half their 95% interval over\n"     \
    "groups of its windows (CSV: percent_ci_low, percent_ci_high).\n\n"                            \
    "Options:\n"
#define TOPDOWN_EPILOGUE                                                                                \
    "\n"                                                                                               \
    "CSV columns: function,view,category,component,value,unit,percent. value/unit is cycles\n"         \
    "(view states) or slots (views slots and level2): unit is 1 except for a function's\n"           \
    "states, where a compute cycle is split among its µops (unit = lcm(1..commit width)).\n"        \
    "percent is the share of the scope's total (category 'total': of the whole trace).\n"

/* The functions for --by function: the symbol map, or the symbols of the
 * binary (--elf, else the one the trace header names) in trace PCs. */
/* The help of --adjust-vma says how many records auto reads. */
_Static_assert(TRACE_PCS_DEFAULT_RECORDS == 1u << 20, "tea topdown --help names 2^20 records");

static int load_functions(const request *req, const trace_header *h, trace_symmap *map, char **from)
{
    binary_symbolize_options sym = req->sym;
    uint64_t *pcs = NULL;
    int rc;

    /* --adjust-vma auto: scored on the PCs at the start of the trace, read in a pass of their own */
    if (!req->binary_symbols_path && sym.adjust_vma_auto
        && (rc = trace_pcs_prefix(req->trace_path, &req->open, TRACE_PCS_DEFAULT_RECORDS, &pcs, &sym.auto_pc_count)))
        return rc;
    sym.auto_pcs = pcs;
    rc = view_report_functions(req->binary_symbols_path, &h->program, NULL, NULL, &sym, map, from, NULL);
    if (!rc && !*from) {
        trace_symmap_free(map);
        rc = error_set(TEA_ERR_USAGE, "--by function needs --symbols MAP or --elf BINARY: %s",
                       h->program.binary_path ? "the traced binary cannot be read here" : "the trace names no binary");
    }
    free(pcs);
    return rc;
}

/* --- main ------------------------------------------------------------------- */

/* Parses the command line into req. Returns CLI_CONTINUE, or the exit status
 * when the command ends here (--help, usage errors). */
static int parse_args(int argc, char **argv, request *req)
{
    static const char *const scopes[] = { "trace", "function", NULL };
    static const char *const formats[] = { "text", "csv", "json", NULL };
    static const int format_values[] = { EMIT_TEXT, EMIT_CSV, EMIT_JSON };
    int rc, by_given = 0;
    const cli_option options[] = {
        { .long_name = "by",
          .arg = CLI_ARG_REQUIRED,
          .value_name = "SCOPE",
          .help = "trace (default) or function",
          .type = CLI_TYPE_ENUM,
          .dest = &req->by_function,
          .size = sizeof req->by_function,
          .names = scopes,
          .error = "unknown scope '%s' (trace or function)",
          .seen = &by_given },
        CLI_OPTION_SYMBOLS(&req->binary_symbols_path,
                           "functions from a symbol map: lines 'START END NAME' (END exclusive)"),
        CLI_OPTION_ELF(&req->sym.elf_path, "functions from this binary's symbols (default: the binary the trace\n"
                                           "names, when it is readable)"),
        CLI_OPTION_ADJUST_VMA(&req->sym, "OFF|auto",
                              "load bias, runtime address - ELF address (default: the trace's); auto:\n"
                              "inferred from the PCs of the trace's first 2^20 records"),
        CLI_OPTION_NO_DEMANGLE(&req->sym),
        CLI_ENUM("format", "FORMAT", &req->format, formats, format_values, "unknown format '%s' (text, csv or json)",
                 "text (default), csv or json"),
        CLI_UINT("top", "N", &req->top, 0, UINT64_MAX, "--top needs a count, not '%s'",
                 "text: functions listed (default " CLI_STR(TEXT_DEFAULT_TOP) ", 0 for all)"),
        CLI_OPTION_STDOUT_OUTPUT(&req->out_path),
        CLI_TRACE_OPTIONS(&req->open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(TOPDOWN_SYNOPSIS, TOPDOWN_EPILOGUE, 21, options);

    memset(req, 0, sizeof *req);
    req->out_path = "-";
    req->top = TEXT_DEFAULT_TOP;
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing TRACE" : "expected exactly one TRACE");
    req->trace_path = argv[optind];
    if ((req->binary_symbols_path || req->sym.elf_path) && !by_given)
        req->by_function = 1;
    if ((req->binary_symbols_path || req->sym.elf_path || req->sym.has_adjust_vma) && !req->by_function)
        return cli_usage_error(argv[0], "--symbols, --elf and --adjust-vma are only used with --by function");
    if (req->binary_symbols_path && (req->sym.elf_path || req->sym.has_adjust_vma))
        return cli_usage_error(argv[0], "--symbols excludes --elf and --adjust-vma");
    req->sym.command = argv[0];
    return CLI_CONTINUE;
}

int cmd_tea_topdown(int argc, char **argv)
{
    request req;
    view_topdown_report r;
    trace_symmap map = { 0 };
    trace_reader *reader = NULL;
    golden_topdown *td = NULL;
    outfile *out = NULL;
    char *from = NULL;
    int rc;

    if ((rc = parse_args(argc, argv, &req)) != CLI_CONTINUE)
        return rc;
    memset(&r, 0, sizeof r);
    if ((rc = trace_reader_open(&reader, req.trace_path, &req.open)))
        goto done;
    if (req.by_function && (rc = load_functions(&req, trace_reader_header(reader), &map, &from)))
        goto done;
    if ((rc = view_topdown_analyse(reader, req.by_function ? &map : NULL, &td)))
        goto done;
    r.trace_path = req.trace_path;
    r.format = trace_reader_stats(reader)->format;
    r.map = req.by_function ? &map : NULL;
    r.functions_from = from;
    r.top = (size_t)req.top;
    if ((rc = view_topdown_report_init(&r, td, req.format)) || (rc = outfile_open(&out, req.out_path)))
        goto done;
    if (req.format == EMIT_TEXT)
        rc = view_topdown_report_text(outfile_stream(out), &r);
    else if (req.format == EMIT_CSV)
        rc = view_topdown_report_csv(outfile_stream(out), &r);
    else
        rc = view_topdown_report_json(outfile_stream(out), &r);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_topdown_report_free(&r);
    golden_topdown_free(td);
    trace_reader_close(reader);
    free(from);
    trace_symmap_free(&map);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}
