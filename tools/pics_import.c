/*
 * pics_import.c: `pics import --tracedoctor KIND FILE -o OUT.pics`: what the
 * TEA authors' TraceDoctor workers wrote during a FireSim run, as a PICS
 * (pics/tdimport.h).
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "pics/pics_file.h"
#include "pics/tdimport.h"
#include "trace/trace.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define IMPORT_SYNOPSIS                                                                                 \
    "Usage: pics import --tracedoctor KIND FILE -o OUT.pics [OPTIONS]\n\n"                              \
    "Turn the CSV a TraceDoctor worker of the TEA authors (tracedoctor_tea.cc, FireSim\n"             \
    "branch tea) wrote during a run into a PICS, so that pics report, error, plot,\n"                  \
    "flamegraph and diff work on runs that kept no trace. KIND: tea_gold (the golden\n"               \
    "reference, the tracedoctor rule set), tea_sampler (TEA), pebs_sampler (NCI-TEA)\n"              \
    "or ibs_sampler (IBS).\n\n"                                                                        \
    "Options:\n"
#define IMPORT_EPILOGUE                                                                                 \
    "\n"                                                                                               \
    "Signatures fold to the nine-event PSV; golden cycles are exact (the files print\n"              \
    "multiples of 1/24). A TEA sample in none of the stalled, deferred and OIR states is\n"          \
    "split among its listed micro-ops, any other sample goes whole to its first; IBS keeps\n"        \
    "its own events (docs/pics-format.md, \"TraceDoctor worker outputs\"). The CSVs name no\n"      \
    "trace: imports of one run compare with each other (pics error SAMPLED GOLDEN), and\n"         \
    "--like takes the trace's identity from a PICS of it (a replay's golden.pics).\n"

int cmd_pics_import(int argc, char **argv)
{
    const char *kind_name = NULL, *out_path = NULL, *like_path = NULL;
    double clock_hz = (double)TRACE_DEFAULT_CLOCK_HZ;
    uint64_t period = 0;
    pics_td_import_options o = { 0 };
    pics_info like, info;
    pics like_cells = { 0 }, p = { 0 };
    pics_td_kind kind;
    int rc;
    const cli_option options[] = {
        CLI_STRING("tracedoctor", 0, "KIND", &kind_name,
                   "the worker that wrote FILE: tea_gold, tea_sampler, pebs_sampler\n"
                   "or ibs_sampler (required)"),
        CLI_OPTION_OUTPUT("OUT", &out_path, "the PICS to write (required)"),
        CLI_UINT("period", "CYCLES", &period, 1, UINT64_MAX, "invalid period '%s' (cycles, at least 1)",
                 "the worker's samplingPeriod (required for the samplers)"),
        { .long_name = "clock", .arg = CLI_ARG_REQUIRED, .value_name = "HZ",
          .help = "the core's clock (default 3.2G), for the sampling frequency",
          .type = CLI_TYPE_HZ, .dest = &clock_hz, .error = "invalid clock '%s' (Hz, with an optional k, M or G)" },
        CLI_STRING("like", 0, "PICS", &like_path,
                   "copy the trace's identity (digest, span, binary, objects,\n"
                   "clock) and golden total from a PICS of the same run"),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(IMPORT_SYNOPSIS, IMPORT_EPILOGUE, 22, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (!kind_name)
        return cli_usage_error(argv[0], "missing --tracedoctor KIND");
    if (!out_path)
        return cli_usage_error(argv[0], "missing -o OUT.pics");
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected exactly one FILE");
    if (!(clock_hz >= 1 && clock_hz < 18446744073709551616.0))
        return cli_usage_error(argv[0], "--clock must be at least 1 Hz");
    if ((rc = pics_td_kind_parse(kind_name, &kind)))
        return cli_fail(argv[0], rc);
    if (kind != PICS_TD_GOLD && !period)
        return cli_usage_error(argv[0], "a sampler's file needs --period CYCLES (its samplingPeriod)");
    o.clock_hz = (uint64_t)llround(clock_hz);
    o.period = period;
    pics_info_init(&like);
    if (like_path) {
        if ((rc = pics_read(like_path, &like, &like_cells)))
            return cli_fail(argv[0], rc);
        o.like = &like;
    }
    if (!(rc = pics_td_import(argv[optind], kind, &o, &info, &p))) {
        rc = pics_write(out_path, &info, &p);
        pics_info_free(&info);
        pics_free(&p);
    }
    pics_info_free(&like);
    pics_free(&like_cells);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}
