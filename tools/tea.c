/*
 * tea.c: the `tea` program: trace tools, replay and studies.
 */
#include "cli.h"
#include "commands.h"

static const cli_subcommand subcommands[] = {
    { "info", cmd_tea_info, "describe a trace: format, header, cycles, commit states, events" },
    { "convert", cmd_tea_convert, "convert a trace between the native and TraceDoctor formats" },
    { "gen", cmd_tea_gen, "generate a synthetic trace from a named workload" },
    { "record", cmd_tea_record, "run an x86-64 program under valgrind and record a trace of it" },
    { "simpoint", cmd_tea_simpoint, "pick SimPoint's regions of a program (exp-bbv, k-means, BIC) for tea record" },
    { "replay", cmd_tea_replay, "replay a trace through golden, TEA, NCI-TEA, IBS, SPE and RIS; write PICS" },
    { "sweep", cmd_tea_sweep, "error against sampling frequency: every scheme, frequency and seed in one pass" },
    { "topdown", cmd_tea_topdown, "commit states and top-down slots (retiring, bad speculation, ...) by event" },
    { "stalls", cmd_tea_stalls, "stall-length distribution of µops without events against those with events" },
};

int main(int argc, char **argv)
{
    return cli_dispatch("tea", "Commit-stage trace tools for time-proportional performance analysis.",
                        "Traces are read in either format (detected from content); '-' reads standard input.\n",
                        subcommands, sizeof subcommands / sizeof subcommands[0], argc, argv);
}
