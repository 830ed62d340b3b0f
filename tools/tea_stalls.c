/*
 * tea_stalls.c: `tea stalls`, how long µops hold up commit: the stall-length
 * distribution of µops without events against those with each event
 * (docs/topdown.md).
 */
#include "cli.h"
#include "commands.h"
#include "common/emit.h"
#include "common/error.h"
#include "common/outfile.h"
#include "view/stalls.h"

#include <stdlib.h>
#include <string.h>

typedef struct request {
    const char *trace_path;
    const char *out_path;
    int csv;
    int histogram;              /* CSV: the histogram instead of the summary */
    uint64_t max_length;
    trace_open_options open;
} request;

#define STALLS_SYNOPSIS                                                                                 \
    "Usage: tea stalls TRACE [--format text|csv] [--max-length N] [--histogram] [-o OUT]\n\n"          \
    "The distribution of stall lengths: a µop's stall is the cycles the golden reference\n"           \
    "charges to it before it commits while nothing commits (its Stalled and Drained\n"                \
    "cycles; flush windows belong to the flush cause). Groups: µops without events (base),\n"         \
    "with any event, and with each event. Percentiles are nearest-rank and exact for\n"               \
    "stalls up to --max-length cycles; max and mean are always exact (docs/topdown.md).\n\n"          \
    "Options:\n"

static int print_text(FILE *f, const request *req, view_stalls *v)
{
    const golden_totals *t = &v->totals;
    emit_column cols[VIEW_STALLS_COLUMNS_MAX];
    emit_table table;
    int rc;

    fprintf(f, "trace:    %s (%u-wide commit, %llu cycles)\n", req->trace_path, v->header.commit_width,
            (unsigned long long)(t->last_cycle - t->origin));
    fprintf(f, "stalls:   %llu stalled + %llu drained cycles, %llu of them after the last commit (no µop)\n\n",
            (unsigned long long)t->states[GOLDEN_STALLED], (unsigned long long)t->states[GOLDEN_DRAINED],
            (unsigned long long)t->unattributed);
    view_stalls_summary_table(v, EMIT_TEXT, cols, &table);
    emit_text_heading(f, &table);
    if ((rc = emit_text_rows(f, &table)) || !v->bucket_count)
        return rc;
    fputc('\n', f);
    view_stalls_buckets_table(v, cols, &table);
    emit_text_heading(f, &table);
    return emit_text_rows(f, &table);
}

static int print_csv(FILE *f, const request *req, view_stalls *v)
{
    emit_column cols[VIEW_STALLS_COLUMNS_MAX];
    emit_table table;

    if (req->histogram)
        view_stalls_histogram_table(v, cols, &table);
    else
        view_stalls_summary_table(v, EMIT_CSV, cols, &table);
    emit_csv_header(f, &table);
    return emit_csv_rows(f, &table);
}

/* --max-length N into the uint64_t at opt->dest. */
static int max_length_option(const char *command, const cli_option *opt, const char *arg)
{
    uint64_t v;
    if (cli_parse_u64(arg, &v) || v < 1 || v > GOLDEN_STALLS_MAX_MAX_LENGTH)
        return cli_usage_error(command, "--max-length needs a length of 1 to %u cycles, not '%s'",
                               GOLDEN_STALLS_MAX_MAX_LENGTH, arg);
    *(uint64_t *)opt->dest = v;
    return CLI_CONTINUE;
}

/* Parses the command line into req. Returns CLI_CONTINUE, or the exit status
 * when the command ends here (--help, usage errors). */
static int parse_args(int argc, char **argv, request *req)
{
    static const char *const formats[] = { "text", "csv", NULL };
    char max_length_help[96];
    int rc, format_given = 0;
    const cli_option options[] = {
        { .long_name = "format", .arg = CLI_ARG_REQUIRED, .value_name = "FORMAT",
          .help = "text (default; csv with --histogram) or csv", .type = CLI_TYPE_ENUM, .dest = &req->csv,
          .size = sizeof req->csv, .names = formats, .error = "unknown format '%s' (text or csv)",
          .seen = &format_given },
        CLI_CALL("max-length", 0, "N", max_length_option, &req->max_length, max_length_help),
        CLI_FLAG("histogram", 0, &req->histogram, "the whole histogram as CSV (length,base,any-event,ST-L1,\n"
                                                  "...: one row per length) instead of the summary; a table\n"
                                                  "too long for text, so CSV is implied (the text summary\n"
                                                  "shows log2 buckets)"),
        CLI_OPTION_STDOUT_OUTPUT(&req->out_path),
        CLI_TRACE_OPTIONS(&req->open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(STALLS_SYNOPSIS, NULL, 20, options);

    snprintf(max_length_help, sizeof max_length_help, "longest stall kept exactly in the histograms (default %u)",
             GOLDEN_STALLS_DEFAULT_MAX_LENGTH);
    memset(req, 0, sizeof *req);
    req->out_path = "-";
    req->max_length = GOLDEN_STALLS_DEFAULT_MAX_LENGTH;
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing TRACE" : "expected exactly one TRACE");
    if (req->histogram && !req->csv && format_given)
        return cli_usage_error(argv[0], "--histogram is CSV only (--format text shows the summary's log2 buckets)");
    if (req->histogram)
        req->csv = 1;
    req->trace_path = argv[optind];
    return CLI_CONTINUE;
}

int cmd_tea_stalls(int argc, char **argv)
{
    request req;
    view_stalls v;
    outfile *out = NULL;
    int rc;

    if ((rc = parse_args(argc, argv, &req)) != CLI_CONTINUE)
        return rc;
    if ((rc = view_stalls_read(&v, req.trace_path, &req.open, req.max_length))
        || (rc = outfile_open(&out, req.out_path)))
        goto done;
    rc = req.csv ? print_csv(outfile_stream(out), &req, &v) : print_text(outfile_stream(out), &req, &v);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_stalls_free(&v);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}
