/*
 * pics.c: the `pics` program: per-instruction cycle stacks, their error,
 * symbols and reports. Its commands arrive with issue 3 (export, error,
 * merge) and issue 5 (report, annotate, diff, plot).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "Usage: pics COMMAND [OPTIONS] FILE...\n\n"
                 "Per-instruction cycle stacks (PICS): export, error, merge, report.\n\n"
                 "No command is available yet: the PICS commands arrive with the replay engine\n"
                 "(issue 3: export, error, merge) and the reports (issue 5: report, annotate,\n"
                 "diff, plot).\n");
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("%s\n", cli_version());
        return CLI_EXIT_OK;
    }
    usage(stderr);
    return CLI_EXIT_USAGE;
}
