/*
 * pics_diff.c: `pics diff`, where two PICS of one trace differ most: the
 * options, and the lines around the tables of view/diff (which also says
 * how the difference is computed, exactly).
 */
#include "cli.h"
#include "commands.h"
#include "common/emit.h"
#include "common/error.h"
#include "common/json.h"
#include "common/outfile.h"
#include "pics/error.h"
#include "pics/pics_file.h"
#include "view/diff.h"

#include <stdlib.h>
#include <string.h>

#define DIFF_DEFAULT_TEXT_TOP 20 /* rows of the text report; CSV and JSON list all */
#define PERCENT 100.0

#define DIFF_SYNOPSIS                                                                               \
    "Usage: pics diff A.pics B.pics [OPTIONS]\n\n"                                                 \
    "Where two PICS of the same trace differ most, per instruction (or function) and\n"            \
    "component, both scaled to the golden total C: rows sorted by |B - A| (ties by address,\n"     \
    "then PSV) with A, B and B - A in cycles and |B - A| / 2C, a summary per instruction,\n"       \
    "and the total sum |B - A| / 2C. When A is the golden PICS the total equals\n"                 \
    "'pics error B A' at the same granularity.\n\n"                                                \
    "Options:\n"
#define DIFF_EPILOGUE                                                                               \
    "\n"                                                                                           \
    "CSV columns: pc,location,psv,component,a_cycles,b_cycles,diff_cycles,share (share a\n"        \
    "fraction of 2C); JSON: the inputs, \"difference\" (a fraction), \"cells\" and\n"              \
    "\"instructions\" (or \"functions\").\n"

typedef struct diff_request {
    view_diff_options o;
    const char *out_path;
    uint64_t top;    /* 0: the format's default */
    emit_format format;
} diff_request;

/* How many of `n` items to list. */
static size_t shown(const diff_request *req, size_t n)
{
    uint64_t top = req->top ? req->top : req->format == EMIT_TEXT ? DIFF_DEFAULT_TEXT_TOP : UINT64_MAX;
    return n < top ? n : (size_t)top;
}

/* "golden, 1234.000000 cycles" or "tea at 4000 Hz, 120 samples, 3 lost". */
static void describe(FILE *f, const char *path, const pics_info *info)
{
    fprintf(f, "%s: %s", path, info->scheme);
    if (pics_info_is_golden(info))
        fprintf(f, ", golden reference\n");
    else
        fprintf(f, " at %.6g Hz, %llu samples, %llu lost\n", info->frequency_hz, (unsigned long long)info->samples,
                (unsigned long long)pics_info_lost(info));
}

static int write_text(FILE *f, const diff_request *req, view_diff *d)
{
    const char *what = req->o.granularity == PICS_GRAN_FUNC ? "function" : "instruction";
    size_t rows = shown(req, d->cell_count), groups = shown(req, d->v.row_count);
    emit_column cols[VIEW_DIFF_COLUMNS_MAX];
    emit_table table;
    char total[EMIT_CELL_MAX];
    int rc;

    pics_format_cycles(&d->a_info, d->a_info.golden_total, d->a_info.golden_total, 6, total, sizeof total);
    fprintf(f, "A: ");
    describe(f, req->o.a_path, &d->a_info);
    fprintf(f, "B: ");
    describe(f, req->o.b_path, &d->b_info);
    fprintf(f, "trace %s, golden total C = %s cycles, %s granularity\n", d->a_info.trace_digest, total,
            pics_granularity_name(req->o.granularity));
    fprintf(f, "difference: %.4f%% (sum |B - A| / 2C)\n", PERCENT * view_diff_total(d));
    if (rows == 0)
        return TEA_OK;
    fprintf(f, "\nlargest differences (%zu of %zu; %s%s, cycles):\n", rows, d->cell_count, what,
            req->o.granularity == PICS_GRAN_INSN ? ", components summed" : " x component");
    view_diff_cells_table(d, EMIT_TEXT, rows, cols, &table);
    emit_text_heading(f, &table);
    if ((rc = emit_text_rows(f, &table)))
        return rc;
    fprintf(f, "\nper %s (%zu of %zu; share: its part of the difference):\n", what, groups, d->v.row_count);
    view_diff_rows_table(d, EMIT_TEXT, groups, cols, &table);
    emit_text_heading(f, &table);
    return emit_text_rows(f, &table);
}

static int write_csv(FILE *f, const diff_request *req, view_diff *d)
{
    emit_column cols[VIEW_DIFF_COLUMNS_MAX];
    emit_table table;

    view_diff_cells_table(d, EMIT_CSV, shown(req, d->cell_count), cols, &table);
    emit_csv_header(f, &table);
    return emit_csv_rows(f, &table);
}

/* Describes one input in JSON. */
static void json_input(json_writer *j, const char *path, const pics_info *info)
{
    static const pics_provenance_member described[] = { PICS_PROV_FILE, PICS_PROV_SCHEME, PICS_PROV_FREQUENCY,
                                                        PICS_PROV_SAMPLES, PICS_PROV_LOST };
    json_begin_object(j);
    pics_provenance_json(j, info, path, described, sizeof described / sizeof described[0]);
    json_end(j);
}

static int write_json(FILE *f, const diff_request *req, view_diff *d)
{
    emit_column cols[VIEW_DIFF_COLUMNS_MAX];
    emit_table table;
    json_writer j;
    int rc;

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "a");
    json_input(&j, req->o.a_path, &d->a_info);
    json_key(&j, "b");
    json_input(&j, req->o.b_path, &d->b_info);
    json_key(&j, "trace");
    json_string(&j, d->a_info.trace_digest);
    json_key(&j, "granularity");
    json_string(&j, pics_granularity_name(req->o.granularity));
    json_key(&j, "total_cycles");
    json_double(&j, (double)d->a_info.golden_total / (double)(d->a_info.unit ? d->a_info.unit : PICS_UNIT));
    json_key(&j, "difference");
    json_double(&j, view_diff_total(d));
    json_key(&j, "cells");
    view_diff_cells_table(d, EMIT_JSON, shown(req, d->cell_count), cols, &table);
    if ((rc = emit_json_rows(&j, &table)))
        return rc;
    json_key(&j, req->o.granularity == PICS_GRAN_FUNC ? "functions" : "instructions");
    view_diff_rows_table(d, EMIT_JSON, shown(req, d->v.row_count), cols, &table);
    if ((rc = emit_json_rows(&j, &table)))
        return rc;
    json_end(&j);
    json_finish(&j);
    return TEA_OK;
}

static int run_diff(const diff_request *req)
{
    view_diff d;
    outfile *out = NULL;
    int rc;

    if ((rc = view_diff_open(&d, &req->o)) || (rc = outfile_open(&out, req->out_path)))
        goto done;
    if (req->format == EMIT_CSV)
        rc = write_csv(outfile_stream(out), req, &d);
    else if (req->format == EMIT_JSON)
        rc = write_json(outfile_stream(out), req, &d);
    else
        rc = write_text(outfile_stream(out), req, &d);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_diff_close(&d);
    return rc;
}

int cmd_pics_diff(int argc, char **argv)
{
    static const char *const formats[] = { "text", "csv", "json", NULL };
    static const int format_values[] = { EMIT_TEXT, EMIT_CSV, EMIT_JSON };
    diff_request req = { .out_path = "-", .o.granularity = PICS_GRAN_INSN_COMPONENT, .format = EMIT_TEXT };
    int rc;
    const cli_option options[] = {
        CLI_UINT("top", "N", &req.top, 1, UINT64_MAX, "invalid count '%s' for --top (at least 1)",
                 "rows and instructions to list (default: " CLI_STR(DIFF_DEFAULT_TEXT_TOP) " in text, all in CSV\n"
                                                                                           "and JSON; at least 1)"),
        CLI_OPTION_GRANULARITY(&req.o.granularity, "insn-component (instruction x component, default), insn\n"
                                                 "(instruction, components summed) or func (function x\n"
                                                 "component; functions from --symbols, else from the binary)"),
        CLI_OPTION_SYMBOLS(&req.o.symbols_path,
                           "symbol map: lines 'START END NAME' (END exclusive); instructions\n"
                           "are shown as NAME+0xOFFSET (it wins over the binary)"),
        CLI_OPTION_ELF(&req.o.sym.elf_path, "the binary to name instructions and functions with (default: the\n"
                                          "one the trace names, if it exists; else addresses)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&req.o.sym),
        CLI_OPTION_NO_DEMANGLE(&req.o.sym),
        CLI_ENUM("format", "FORMAT", &req.format, formats, format_values, "unknown format '%s' (text, csv or json)",
                 "text (default), csv or json"),
        CLI_OPTION_STDOUT_OUTPUT(&req.out_path),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(DIFF_SYNOPSIS, DIFF_EPILOGUE, 20, options);

    req.o.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (req.o.granularity == PICS_GRAN_CALLPATH)
        return cli_usage_error(argv[0], "--granularity callpath is pics report's and pics error's (PICS of tea "
                                        "replay --call-paths)");
    if (argc - optind != 2)
        return cli_usage_error(argv[0], "expected A.pics B.pics");
    req.o.a_path = argv[optind];
    req.o.b_path = argv[optind + 1];
    if ((rc = run_diff(&req)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
