/*
 * tea_info.c: `tea info`, a description of a trace in text or JSON
 * (view/info reads and writes it).
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/progress.h"
#include "view/info.h"

#include <stdio.h>
#include <string.h>

#define INFO_SYNOPSIS                                                                                  \
    "Usage: tea info [--json] [OPTIONS] TRACE\n\n"                                                    \
    "Describe a trace (native or TraceDoctor, raw or zstd; '-' for stdin): its format and\n"           \
    "header, cycle span, records, µops committed, cycles in each commit state (compute,\n"            \
    "stalled, drained, flushed; they sum to the span), event counts, the executable\n"               \
    "objects and the recorded thread (traces of `tea record`), and warnings.\n\n"                    \
    "Options:\n"

int cmd_tea_info(int argc, char **argv)
{
    trace_open_options opts = { 0 };
    view_info rep;
    progress_mode progress = PROGRESS_AUTO;
    progress_meter meter;
    int json = 0, rc;
    const cli_option options[] = {
        CLI_FLAG("json", 0, &json, "print a JSON object instead of text"),
        CLI_OPTIONS_PROGRESS(&progress),
        CLI_TRACE_OPTIONS(&opts),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(INFO_SYNOPSIS, NULL, 21, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing TRACE" : "expected exactly one TRACE");
    /* records read, of the index's total where the file has one */
    progress_start(&meter, progress, stderr, "tea info", "records", 0);
    if (progress_active(&meter))
        progress_restart(&meter, view_info_indexed_records(argv[optind]));
    rc = view_info_read(&rep, argv[optind], &opts, &meter);
    progress_end(&meter);
    if (rc)
        return cli_fail(argv[0], rc);
    if (json)
        view_info_write_json(stdout, &rep);
    else
        view_info_write_text(stdout, &rep);
    view_info_free(&rep);
    return CLI_EXIT_OK;
}
