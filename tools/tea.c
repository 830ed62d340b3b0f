/*
 * tea.c: the `tea` program: trace tools, replay and studies.
 */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

typedef struct subcommand {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    { "info", tea_info_main, "describe a trace: format, header, cycles, commit states, events" },
    { "convert", tea_convert_main, "convert a trace between the native and TraceDoctor formats" },
    { "gen", tea_gen_main, "generate a synthetic trace from a named workload" },
};
#define SUBCOMMAND_COUNT (sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *out)
{
    fprintf(out, "Usage: tea COMMAND [OPTIONS] [ARGS]\n\n"
                 "Commit-stage trace tools for time-proportional performance analysis.\n\nCommands:\n");
    for (size_t i = 0; i < SUBCOMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out, "\nRun 'tea COMMAND --help' for the options of a command.\n"
                 "Traces are read in either format (detected from content); '-' reads standard input.\n");
}

int main(int argc, char **argv)
{
    char name[64];

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("%s\n", cli_version());
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < SUBCOMMAND_COUNT; i++) {
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            snprintf(name, sizeof name, "tea %s", subcommands[i].name);
            argv[1] = name;
            return subcommands[i].main(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "tea: unknown command '%s'\nTry 'tea --help'.\n", argv[1]);
    return CLI_EXIT_USAGE;
}
