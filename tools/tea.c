/*
 * tea.c: the `tea` program: trace tools, replay and studies.
 */
#include "cli.h"
#include "commands.h"

static const cli_subcommand subcommands[] = {
    { "info", tea_info_main, "describe a trace: format, header, cycles, commit states, events" },
    { "convert", tea_convert_main, "convert a trace between the native and TraceDoctor formats" },
    { "gen", tea_gen_main, "generate a synthetic trace from a named workload" },
    { "record", tea_record_main, "run an x86-64 program under valgrind and record a trace of it" },
    { "replay", tea_replay_main, "replay a trace through golden, TEA, NCI-TEA, IBS, SPE and RIS; write PICS" },
    { "sweep", tea_sweep_main, "error against sampling frequency: every scheme, frequency and seed in one pass" },
    { "topdown", tea_topdown_main, "commit states and top-down slots (retiring, bad speculation, ...) by event" },
    { "stalls", tea_stalls_main, "stall-length distribution of µops without events against those with events" },
};

int main(int argc, char **argv)
{
    return cli_dispatch("tea", "Commit-stage trace tools for time-proportional performance analysis.",
                        "Traces are read in either format (detected from content); '-' reads standard input.\n",
                        subcommands, sizeof subcommands / sizeof subcommands[0], argc, argv);
}
