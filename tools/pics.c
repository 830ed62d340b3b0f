/*
 * pics.c: the `pics` program: per-instruction cycle stacks, their error,
 * merging, and (with issue 5) symbols and reports.
 */
#include "cli.h"
#include "commands.h"

static const cli_subcommand subcommands[] = {
    { "export", cmd_pics_export, "print a PICS as CSV or JSON, cycles scaled to the golden total" },
    { "error", cmd_pics_error, "the error of a sampled PICS against the golden one, and its top contributors" },
    { "merge", cmd_pics_merge, "sum PICS files of the same scheme and settings" },
    { "plot", cmd_pics_plot, "the top instructions' cycle stacks of several PICS as an SVG bar chart" },
    { "flamegraph", cmd_pics_flamegraph, "a PICS as an interactive flame graph (SVG: zoom, search, hover)" },
    { "diff", cmd_pics_diff, "where two PICS of one trace differ most, per instruction and component" },
    { "report", cmd_pics_report, "the hottest instructions or functions with their cycle stacks, symbolized" },
    { "annotate", cmd_pics_annotate, "a function's whole disassembly with each instruction's cycles and stack" },
    { "table", cmd_pics_table, "the error of every scheme on every trace as a Markdown, LaTeX or CSV table" },
    { "correlate", cmd_pics_correlate, "per event, how its count at each instruction tracks its cycle cost" },
    { "import", cmd_pics_import, "a TraceDoctor worker's CSV (tea_gold, tea/pebs/ibs_sampler) as a PICS" },
};

int main(int argc, char **argv)
{
    return cli_dispatch("pics", "Per-instruction cycle stacks (PICS): inspect, compare, report and tabulate them.",
                        "PICS files are written by 'tea replay' (format: docs/pics-format.md).\n", subcommands,
                        sizeof subcommands / sizeof subcommands[0], argc, argv);
}
