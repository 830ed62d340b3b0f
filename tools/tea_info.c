/*
 * tea_info.c: `tea info`, a description of a trace in text or JSON
 * (view/info reads and writes it).
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/progress.h"
#include "results/results.h"
#include "tea/program.h"
#include "view/info.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>

#define INFO_SYNOPSIS                                                                                  \
    "Usage: tea info [--json] [OPTIONS] TRACE\n\n"                                                    \
    "Describe a trace (native or TraceDoctor, raw or zstd; '-' for stdin): its format and\n"           \
    "header, cycle span, records, µops committed, cycles in each commit state (compute,\n"            \
    "stalled, drained, flushed; they sum to the span), event counts, the executable\n"               \
    "objects and the recorded thread (traces of `tea record`), and warnings.\n"                      \
    "A directory of a program's cores (tea record --thread all's thread-N.tea, FireSim's\n"          \
    "TRACEFILE0-C0 ...) lists each core's instructions, cycles and IPC, and their sums.\n\n"        \
    "Options:\n"

/* A directory of a program's cores: each read, then listed. */
static int info_program(const char *prog, const char *dir, const trace_open_options *opts, int json)
{
    char **paths = NULL, name[TEA_RUN_NAME_MAX];
    size_t count = 0, read = 0;
    view_info *cores = NULL;
    int rc;

    if (!(rc = tea_program_core_files(dir, &paths, &count)) && !(cores = calloc(count, sizeof *cores)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    for (; !rc && read < count; read++)
        if ((rc = view_info_read(&cores[read], paths[read], opts, NULL)))
            break;
    if (!rc) {
        tea_program_name(NULL, dir, name, sizeof name);
        if (json)
            view_info_write_program_json(stdout, name, cores, count);
        else
            view_info_write_program_text(stdout, name, cores, count);
    }
    for (size_t k = 0; k < read; k++)
        view_info_free(&cores[k]);
    free(cores);
    tea_program_core_files_free(paths, count);
    return rc ? cli_fail(prog, rc) : CLI_EXIT_OK;
}

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
    if (results_is_dir(argv[optind]))
        return info_program(argv[0], argv[optind], &opts, json);
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
