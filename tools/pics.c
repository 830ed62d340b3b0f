/*
 * pics.c: the `pics` program: per-instruction cycle stacks, their error,
 * merging, and (with issue 5) symbols and reports.
 */
#include "cli.h"
#include "commands.h"

static const cli_subcommand subcommands[] = {
    { "export", pics_export_main, "print a PICS as CSV or JSON, cycles scaled to the golden total" },
    { "error", pics_error_main, "the error of a sampled PICS against the golden one, and its top contributors" },
    { "merge", pics_merge_main, "sum PICS files of the same scheme and settings" },
    { "plot", pics_plot_main, "the top instructions' cycle stacks of several PICS as an SVG bar chart" },
    { "flamegraph", pics_flamegraph_main, "a PICS as an interactive flame graph (SVG: zoom, search, hover)" },
    { "diff", pics_diff_main, "where two PICS of one trace differ most, per instruction and component" },
    { "report", pics_report_main, "the hottest instructions or functions with their cycle stacks, symbolized" },
    { "annotate", pics_annotate_main, "a function's whole disassembly with each instruction's cycles and stack" },
    { "table", pics_table_main, "the error of every scheme on every trace as a Markdown, LaTeX or CSV table" },
    { "correlate", pics_correlate_main, "per event, how its count at each instruction tracks its cycle cost" },
};

int main(int argc, char **argv)
{
    return cli_dispatch("pics", "Per-instruction cycle stacks (PICS): inspect, compare, report and tabulate them.",
                        "PICS files are written by 'tea replay' (format: docs/pics-format.md).\n", subcommands,
                        sizeof subcommands / sizeof subcommands[0], argc, argv);
}
