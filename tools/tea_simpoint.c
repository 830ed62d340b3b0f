/*
 * tea_simpoint.c: `tea simpoint`, SimPoint's regions of a program for tea
 * record --simpoints (record/simpoint_pick picks them).
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "record/simpoint_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMPOINT_SYNOPSIS                                                                              \
    "Usage: tea simpoint [OPTIONS] -- PROGRAM [ARGS...]\n"                                            \
    "       tea simpoint [OPTIONS] --bbv FILE\n\n"                                                     \
    "Pick SimPoint's regions of a program: run it under Valgrind's exp-bbv (a basic-block\n"         \
    "vector per interval of N instructions), cluster the intervals as SimPoint 3 does\n"              \
    "(random projection to 15 dimensions, k-means for K = 1 to --max-k, the BIC to choose K)\n"       \
    "and write PREFIX.simpoints and PREFIX.weights, SimPoint's two files, for\n"                      \
    "tea record --simpoints; the interval is named in PREFIX.simpoints, and tea record takes\n"       \
    "it from there (docs/semantics.md, \"SimPoint\"). With --thread, each thread's regions\n"         \
    "from its own vectors (tea's Valgrind tool writes one file per thread), for\n"                    \
    "tea record --thread.\n\n"                                                                        \
    "Options:\n"

/* Default instructions per interval: 10^3 intervals in a run of 10^10. */
#define SIMPOINT_INTERVAL_DEFAULT 10000000
#define SIMPOINT_PREFIX_DEFAULT "simpoint"
#define SIMPOINT_SEED_DEFAULT 1

/* PREFIX and a suffix, malloc'd. */
static char *with_suffix(const char *prefix, const char *suffix)
{
    char *s = malloc(strlen(prefix) + strlen(suffix) + 1);
    if (s)
        sprintf(s, "%s%s", prefix, suffix);
    return s;
}

/* The regions of thread `thread` (0: all, the list has no threads). */
static void print_regions(const record_simpoint_list *l, uint32_t thread)
{
    for (size_t i = 0, k = 0; i < l->count; i++)
        if (l->regions[i].thread == thread)
            printf("  region %zu: interval %llu, weight %.4f\n", k++, (unsigned long long)l->regions[i].interval,
                   l->regions[i].weight);
}

/* The summary: the intervals, K and the regions (each thread's). */
static void print_summary(const record_pick_request *req, const record_pick *p, char *const *argv)
{
    if (!req->threads) {
        printf("%zu intervals of %llu instructions (%llu in all); K = %u of 1 to %u by the BIC\n", p->intervals,
               (unsigned long long)req->interval, (unsigned long long)p->instructions, p->k, p->tried);
        print_regions(&p->regions, 0);
    }
    for (size_t t = 0; t < p->thread_count; t++) {
        const record_pick_thread *th = &p->threads[t];
        printf("thread %u: %zu intervals of %llu instructions (%llu in all); K = %u of 1 to %u by the BIC\n",
               (unsigned)th->thread, th->intervals, (unsigned long long)req->interval,
               (unsigned long long)th->instructions, th->k, th->tried);
        print_regions(&p->regions, th->thread);
    }
    /* tea record's --thread N alone is one thread by Valgrind's number, with
     * no sections: a list of one is recorded as all (the threads without a
     * section time nothing) */
    printf("wrote %s and %s; record them with\n  tea record%s%s --simpoints %s --weights %s --", req->simpoints_path,
           req->weights_path, req->threads ? " --thread " : "",
           !req->threads ? "" : strchr(req->threads, ',') ? req->threads : "all", req->simpoints_path,
           req->weights_path);
    for (; argv && *argv; argv++)
        printf(" %s", *argv);
    printf("%s\n", argv ? "" : " PROGRAM [ARGS...]");
}

/* --thread all or a list, into the string at opt->dest. */
static int thread_list_option(const char *command, const cli_option *opt, const char *arg)
{
    if (cli_check_thread_list(command, arg) != CLI_CONTINUE)
        return CLI_EXIT_USAGE;
    *(const char **)opt->dest = arg;
    return CLI_CONTINUE;
}

int cmd_tea_simpoint(int argc, char **argv)
{
    record_pick_request req = { 0 };
    record_pick picked;
    const char *prefix = SIMPOINT_PREFIX_DEFAULT;
    unsigned max_k = RECORD_PICK_MAX_K_DEFAULT;
    int rc, exit_status;
    const cli_option options[] = {
        CLI_STRING("output", 'o', "PREFIX", &prefix, "write PREFIX.simpoints and PREFIX.weights (default\n"
                                                      SIMPOINT_PREFIX_DEFAULT ")"),
        CLI_UINT("interval", "N", &req.interval, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "instructions per interval, exp-bbv's --interval-size\n(default " CLI_STR(SIMPOINT_INTERVAL_DEFAULT) ")"),
        CLI_UINT("max-k", "K", &max_k, 1, 1000, "invalid cluster count '%s' (1-1000)",
                 "the most clusters tried (default " CLI_STR(RECORD_PICK_MAX_K_DEFAULT) ", SimPoint's)"),
        CLI_OPTION_SEED("S", &req.pick.seed, "the projection's and k-means' seed (default " CLI_STR(SIMPOINT_SEED_DEFAULT) ")"),
        CLI_STRING("bbv", 0, "FILE", &req.bbv_in, "pick from exp-bbv's FILE instead of running a program\n(made with --interval's N; with --thread, FILE.N)"),
        CLI_STRING("keep-bbv", 0, "FILE", &req.bbv_out, "keep exp-bbv's file as FILE (with --thread, FILE.N)"),
        CLI_CALL("thread", 0, "all|LIST", thread_list_option, &req.threads,
                 "each thread's regions (all, or a list 1,3; numbered by\ncreation, as tea record --thread), in sections"),
        CLI_STRING("valgrind", 0, "PATH", &req.valgrind, "the valgrind to run (default: valgrind in PATH)"),
        CLI_OPTION_HELP,
    };
    /* Options end at the program to run. */
    const cli_command command = { SIMPOINT_SYNOPSIS, NULL, 21, 1, options, sizeof options / sizeof options[0] };

    req.interval = SIMPOINT_INTERVAL_DEFAULT;
    req.pick.seed = SIMPOINT_SEED_DEFAULT;
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (!req.bbv_in && optind >= argc)
        return cli_usage_error(argv[0], "missing PROGRAM (use: tea simpoint [OPTIONS] -- PROGRAM [ARGS...])");
    if (req.bbv_in && (optind < argc || req.bbv_out))
        return cli_usage_error(argv[0], "--bbv FILE takes no PROGRAM and no --keep-bbv");
    req.argv = req.bbv_in ? NULL : argv + optind;
    req.pick.max_k = max_k;
    req.pick.restarts = RECORD_PICK_RESTARTS_DEFAULT;
    req.pick.bic_threshold = RECORD_PICK_BIC_THRESHOLD_DEFAULT;
    req.tool_dir = req.threads ? cli_tool_dir() : NULL;
    req.simpoints_path = with_suffix(prefix, ".simpoints");
    req.weights_path = with_suffix(prefix, ".weights");
    if (!req.simpoints_path || !req.weights_path)
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    else
        rc = record_pick_program(&req, &picked, &exit_status);
    if (rc) {
        exit_status = cli_fail(argv[0], rc);
    } else {
        if (exit_status)
            fprintf(stderr, "%s: note: %s exited with status %d\n", argv[0], req.argv[0], exit_status);
        print_summary(&req, &picked, (char *const *)req.argv);
        record_pick_free(&picked);
        exit_status = CLI_EXIT_OK;
    }
    free((char *)req.simpoints_path);
    free((char *)req.weights_path);
    free((char *)req.tool_dir);
    return exit_status;
}
