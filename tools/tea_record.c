/*
 * tea_record.c: `tea record`, a native trace of a real x86-64 program, made
 * by running it under tea's own Valgrind tool (tearec/tearec.c) and timing
 * every instruction through the core model (like `perf record`, but for
 * commit-stage traces). The recording is record/run's; this file parses
 * the options, finds the tool and prints what the recording says.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "commands.h"
#include "model_options.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "record/run.h"
#include "trace/estimate.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORD_DEFAULT_OUTPUT "record.tea"
/* tea record's exit status when the trace was written but the program
 * exited with a non-zero status or was killed by a signal (docs). */
#define RECORD_EXIT_PROGRAM_FAILED 3
/* Sampling defaults (docs/reproduce.md, "Whole programs"): windows of 10^4
 * timed instructions, each after 2 * 10^5 of warm-up. */
#define RECORD_SAMPLE_LENGTH 10000
#define RECORD_SAMPLE_WARMUP 200000
/* ... and the branches of the last 2 * 10^5 instructions of each
 * fast-forward training the predictor */
#define RECORD_BRANCH_WARMUP 200000
#define RECORD_BRANCH_WARMUP_UNSET UINT64_MAX
#define RECORD_SIMPOINT_INTERVAL 100000000 /* exp-bbv's default --interval-size */
#define RECORD_START_MAX (1ull << 62)      /* the tool counts instructions below this */
/* A full (not sampled) recording past this many instructions notes its
 * rate and --sample-every, once (--hint-after). */
#define RECORD_HINT_AFTER 100000000
#define RECORD_MIPS 1e6                    /* instructions/s per M instructions/s */
#define PERCENT 100.0

typedef struct record_request {
    record_run_options run;                    /* what the driver records */
    int argc_all;
    char **argv_all;                           /* tea's own command line, for the header */
    const char *simpoints_path, *weights_path; /* --simpoints, --weights */
    record_simpoint_list simpoints;            /* their regions, read before recording */
    uint64_t *starts;                          /* each region's first instruction (session.sample_starts) */
    uint32_t *start_threads;                   /* ... and its thread (session.sample_start_threads) */
    int warm_caches;                           /* --warm-caches: 1 yes, 0 no, -1 not given */
} record_request;

#define RECORD_SYNOPSIS                                                                                 \
    "Usage: tea record [OPTIONS] -- PROGRAM [ARGS...]\n\n"                                             \
    "Run an x86-64 program under tea's Valgrind tool (tearec) and write a native trace of\n"          \
    "it: every instruction is decoded once with capstone and timed through the core model\n"          \
    "(4-wide BOOM-like core, caches, TLBs, TAGE predictor; docs/model.md). The trace header\n"        \
    "names the binary, its build-id and load bias so reports find and check it.\n"                    \
    "Recording starts at the program's start, at the entry of --start-at FUNCTION or at\n"              \
    "tea_record_start() (--wait-start; include/tea_record.h), then skips --skip N\n"                    \
    "instructions and warms the model's caches and predictor with --warmup N more; it\n"                \
    "ends after --max-instructions N, at the entry of --stop-at FUNCTION (recorded) or at\n"            \
    "tea_record_stop(). The program then runs on to its end, unless --kill-after.\n"                    \
    "An exec is followed, as perf record follows one: when the program (a wrapper script,\n"           \
    "env, a shim) execs another, the region starts afresh in the new program and the\n"              \
    "trace holds the program that ran last (tea info lists the ones before it).\n"                     \
    "--trace-children also records each forked child's programs into OUT.PID.tea.\n"                 \
    "FUNCTION may be fn_HEX, a function of a stripped object named by its ELF address.\n"              \
    "One thread is recorded (--thread; default the main thread): the summary names every\n"          \
    "thread that ran with its instructions and warns when another one ran most.\n"                    \
    "--thread all (or a list, 1,3) records every thread (those listed) through a core model\n"     \
    "of its own; OUT is then a directory of one trace per thread, thread-N.tea, which tea\n"        \
    "replay and tea info take as one program (docs/model.md, \"Threads\").\n\n"                      \
    "Exit status: 0 when the trace is written and the program exited with 0; 3 when the\n"           \
    "trace is written but the program exited otherwise; 130 (SIGINT) or 143 (SIGTERM) when\n"        \
    "recording was interrupted: the program is ended and the trace keeps what was recorded\n"         \
    "(marked interrupted; a second signal aborts and removes it); 1 and 2 as every command.\n\n"     \
    "Speed: every instruction is timed, at about 10^7 instructions/s, hundreds of\n"              \
    "times slower than the program runs alone: a second of its work takes minutes. For a\n"         \
    "long run, --sample-every N records a sampled whole run many times faster\n"                   \
    "(docs/semantics.md, \"Sampled recordings\"); a full recording says so once it passes\n"        \
    "--hint-after instructions.\n\n"                                                              \
    "Options:\n"

/* Whether the command is quiet (-q): no summary, notes or progress. */
static int quiet(const record_request *req)
{
    return req->run.progress == PROGRESS_OFF;
}

/* Prints what the recording says while it runs (record_run_note). */
static void print_note(void *ctx, const record_run_note *n)
{
    const record_request *req = ctx;

    switch (n->kind) {
    case RECORD_RUN_NOTE_HINT:
        if (quiet(req))
            break;
        fprintf(stderr,
                "tea record: note: past %llu instructions, recorded at %.2f M instructions/s; for a long run, "
                "--sample-every N records a sampled whole run many times faster (10^7 suits 10^10 instructions; "
                "docs/semantics.md)\n",
                (unsigned long long)req->run.hint_after, n->rate / RECORD_MIPS);
        break;
    case RECORD_RUN_NOTE_EXEC:
        if (quiet(req))
            break;
        if (!n->pid)
            fprintf(stderr, "tea record: %s exec'd %s (%llu instructions recorded before, dropped): recording it\n",
                    n->path, n->next ? n->next : "?", (unsigned long long)n->instructions);
        else
            fprintf(stderr, "tea record: child %ld: %s exec'd %s\n", n->pid, n->path, n->next ? n->next : "?");
        break;
    case RECORD_RUN_NOTE_START_AT:
        if (n->path) {
            fprintf(stderr, "tea record: --start-at %s: the function (in %s) was never reached\n",
                    req->run.session.start_at, n->path);
            break;
        }
        fprintf(stderr, "tea record: --start-at %s: no function of that name in the program's %zu objects",
                req->run.session.start_at, (size_t)n->count);
        for (size_t i = 0; i < n->name_count; i++)
            fprintf(stderr, "%s%s", i ? ", " : " (did you mean: ", n->names[i]);
        fprintf(stderr, "%s\n", n->name_count ? ")" : "");
        break;
    case RECORD_RUN_NOTE_COUNT_UNKNOWN:
        fprintf(stderr, "tea record: warning: the program's instruction count is unknown (the recording "
                        "ended early): the regions' weights are taken of %llu intervals, the last region's\n",
                (unsigned long long)n->count);
        break;
    case RECORD_RUN_NOTE_CHILD_ERROR:
        fprintf(stderr, "tea record: %s\n", n->message);
        break;
    }
}

/* The summary line (unless -q), with the threads that ran when there
 * were several. */
static void summarize(const record_run *run)
{
    const model_stats *s = &run->model;
    const record_session_stats *vs = &run->session;
    double region = run->region_seconds;

    fprintf(stderr,
            "tea record: %s: %llu instructions in %llu cycles (IPC %.2f), %.2f M instructions/s; "
            "%llu static instructions (%llu not decodable), %llu objects; ",
            run->out_path, (unsigned long long)s->instructions, (unsigned long long)s->cycles,
            s->cycles ? (double)s->committed / (double)s->cycles : 0.0,
            region > 0 ? (double)s->instructions / region / 1e6 : 0.0, (unsigned long long)vs->static_insns,
            (unsigned long long)vs->undecodable, (unsigned long long)vs->objects);
    if (vs->warmed || vs->branches_trained)
        fprintf(stderr, "%llu warming instructions, %llu fast-forward branches trained; ",
                (unsigned long long)vs->warmed, (unsigned long long)vs->branches_trained);
    if (vs->stacks)
        fprintf(stderr, "%llu of %llu windows started from the stack unwound there; ",
                (unsigned long long)vs->stacks_unwound, (unsigned long long)vs->stacks);
    if (run->thread_count > 1) {
        char threads[RECORD_RUN_THREADS_TEXT];
        size_t len = (size_t)snprintf(threads, sizeof threads, "threads ran: ");
        record_run_describe_threads(run, threads, sizeof threads, &len);
        fprintf(stderr, "%s; ", threads);
    }
    fprintf(stderr, "%s\n", record_run_stop_reason(vs->stop));
}

/* After a sampled recording's summary (whose instructions and cycles are
 * the windows'), the run its windows stand for, as tea info estimates it.
 * A trace that cannot be read back costs only this line. */
static void summarize_run(const record_run *run)
{
    const trace_open_options opts = { 0 };
    trace_estimate e;
    int sampled;

    if (trace_estimate_file(run->out_path, &opts, &e, &sampled) || !sampled)
        return;
    fprintf(stderr, "tea record: %s: the run: estimated %.6g cycles", run->out_path, e.cycles);
    if (!isnan(e.half))
        fprintf(stderr, " +- %.3g (95 %%)", e.half);
    fprintf(stderr, " for %.6g instructions (the figures above are its windows')\n", e.instructions);
}

/* Warns when the recorded thread ran under half of the program's
 * instructions, naming the thread that ran most and --thread. */
static void warn_thread_share(const record_run *run)
{
    record_run_share share;

    if (!record_run_thread_share(run, &share))
        return;
    fprintf(stderr, "tea record: warning: thread %lu (recorded) ran %.3g %% of the program's %llu instructions; ",
            (unsigned long)run->tid, PERCENT * (double)share.recorded / (double)share.all,
            (unsigned long long)share.all);
    if (share.busiest != run->tid)
        fprintf(stderr, "thread %lu ran %.3g %%: --thread %lu records it\n", (unsigned long)share.busiest,
                PERCENT * (double)share.busiest_instructions / (double)share.all, (unsigned long)share.busiest);
    else
        fprintf(stderr, "the rest ran in %zu other threads (one thread is recorded: --thread)\n", share.others);
}

/* With several threads: each thread's line (unless quiet) and the errors. */
static void summarize_threads(const record_run *run, int quiet_run)
{
    for (size_t k = 0; k < run->recorded_count; k++) {
        const record_run_thread *t = &run->recorded[k];
        if (t->rc)
            fprintf(stderr, "tea record: thread %u: %s\n", (unsigned)t->tid, t->message);
        else if (!t->out_path && !quiet_run)
            fprintf(stderr, "tea record: thread %u: timed nothing (it ran no whole window): no trace\n",
                    (unsigned)t->tid);
        else if (!quiet_run)
            fprintf(stderr, "tea record: thread %u: %s: %llu instructions in %llu cycles (IPC %.2f)\n",
                    (unsigned)t->tid, t->out_path, (unsigned long long)t->instructions,
                    (unsigned long long)t->model.cycles,
                    t->model.cycles ? (double)t->model.committed / (double)t->model.cycles : 0.0);
    }
}

/* What tea record ends with once the trace is written. */
static int finished_status(const record_run *run, int quiet_run)
{
    int sig = cleanup_interrupted();

    if (sig) {
        fprintf(stderr, "tea record: interrupted (%s): the program was ended; %s keeps the %llu instructions "
                        "recorded until then\n",
                sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal", run->out_path,
                (unsigned long long)run->instructions);
        return cleanup_exit_status(sig);
    }
    if (run->status == -1) {
        if (!quiet_run)
            fprintf(stderr, "tea record: the program was killed after recording (--kill-after)\n");
        return CLI_EXIT_OK;
    }
    if (run->status != 0) {
        fprintf(stderr, "tea record: the program %s %d; the trace is written (exit status %d)\n",
                run->status > 128 ? "was killed by signal" : "exited with status",
                run->status > 128 ? run->status - 128 : run->status, RECORD_EXIT_PROGRAM_FAILED);
        return RECORD_EXIT_PROGRAM_FAILED;
    }
    return CLI_EXIT_OK;
}

/* What each forked child wrote, and the processes the program left under
 * Valgrind (quiet: only the children's errors). */
static void print_children(const record_run *run, int quiet_run)
{
    for (size_t i = 0; i < run->child_count; i++) {
        const record_run_child *c = &run->children[i];
        if (!c->ran_program)
            continue;
        if (c->rc)
            fprintf(stderr, "tea record: child %ld: %s\n", c->pid, c->message);
        else if (!quiet_run)
            fprintf(stderr, "tea record: child %ld: %s: %llu instructions\n", c->pid, c->out_path,
                    (unsigned long long)c->instructions);
    }
    if (run->forks_without_program && !quiet_run)
        fprintf(stderr, "tea record: %zu forked process%s ran no program of %s own (nothing to record)\n",
                run->forks_without_program, run->forks_without_program == 1 ? "" : "es",
                run->forks_without_program == 1 ? "its" : "their");
    if (run->leftovers && !quiet_run)
        fprintf(stderr, "tea record: ended %zu process%s the program left running under Valgrind\n", run->leftovers,
                run->leftovers == 1 ? "" : "es");
}

/* Records the program (and, with --trace-children, its children); *exit is
 * the command's exit status when the root's trace is written. */
static int record(record_request *req, int *exit_status)
{
    record_run run;
    char *tool_dir = cli_tool_dir();
    char generator[96];
    char *command = cli_join_command(req->argc_all, req->argv_all);
    int rc;

    snprintf(generator, sizeof generator, "%s (tea record, valgrind tearec)", cli_version());
    req->run.generator = generator;
    req->run.command_line = command;
    req->run.command = "tea record";
    req->run.session.tool_dir = tool_dir;
    req->run.note = print_note;
    req->run.note_ctx = req;
    if (!command) {
        free(tool_dir);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    rc = record_run_program(&req->run, &run);
    if (rc == TEA_OK) {
        if (run.recorded_count) {
            summarize_threads(&run, quiet(req));
            if (!quiet(req))
                summarize(&run);
        } else {
            if (!quiet(req)) {
                summarize(&run);
                summarize_run(&run);
            }
            warn_thread_share(&run);
        }
        *exit_status = finished_status(&run, quiet(req));
    }
    record_run_finish(&run);
    print_children(&run, quiet(req));
    record_run_free(&run);
    free(command);
    free(tool_dir);
    return rc;
}

/* --thread N, all, or a list N,N,... into the record_session_options at
 * opt->dest. */
static int thread_option(const char *command, const cli_option *opt, const char *arg)
{
    record_session_options *vg = opt->dest;
    uint64_t n;

    if (strcmp(arg, "all") != 0 && !strchr(arg, ',')) {
        if (cli_parse_u64(arg, &n) || n < 1 || n > UINT32_MAX)
            return cli_usage_error(command, "invalid thread number '%s'", arg);
        vg->thread = (uint32_t)n;
        vg->threads = NULL;
        return CLI_CONTINUE;
    }
    if (cli_check_thread_list(command, arg) != CLI_CONTINUE)
        return CLI_EXIT_USAGE;
    vg->threads = arg;
    return CLI_CONTINUE;
}

/* --sample-warmup all: every instruction between two windows warms the
 * model (functional warming). */
#define SAMPLE_WARMUP_ALL (UINT64_MAX - 1)

/* --sample-warmup W|all into the uint64_t at opt->dest. */
static int sample_warmup_option(const char *command, const cli_option *opt, const char *arg)
{
    uint64_t *dest = opt->dest;
    if (strcmp(arg, "all") == 0) {
        *dest = SAMPLE_WARMUP_ALL;
        return CLI_CONTINUE;
    }
    if (cli_parse_u64(arg, dest) || *dest >= SAMPLE_WARMUP_ALL)
        return cli_usage_error(command, "invalid instruction count '%s' (or all)", arg);
    return CLI_CONTINUE;
}

/* --warm-caches yes|no into the int at opt->dest. */
static int warm_caches_option(const char *command, const cli_option *opt, const char *arg)
{
    int *dest = opt->dest;
    if (strcmp(arg, "yes") == 0)
        *dest = 1;
    else if (strcmp(arg, "no") == 0)
        *dest = 0;
    else
        return cli_usage_error(command, "--warm-caches takes yes or no, not '%s'", arg);
    return CLI_CONTINUE;
}

/* Completes and checks the sampling options (`warmup`: --sample-warmup,
 * UINT64_MAX when not given, SAMPLE_WARMUP_ALL for all); a usage error's
 * exit status, or 0. */
static int check_sampling(const char *prog, record_session_options *vg, uint64_t warmup)
{
    if (vg->sample_starts)
        return 0; /* SimPoint's regions: check_simpoints */
    if (!vg->sample_every) {
        if (vg->sample_length || warmup != UINT64_MAX)
            return cli_usage_error(prog, "--sample-length and --sample-warmup need --sample-every");
        return 0;
    }
    if (vg->warmup)
        return cli_usage_error(prog, "--warmup and --sample-every do not go together: use --sample-warmup");
    if (!vg->sample_length)
        vg->sample_length = RECORD_SAMPLE_LENGTH < vg->sample_every ? RECORD_SAMPLE_LENGTH : vg->sample_every / 2;
    if (vg->sample_length >= vg->sample_every)
        return cli_usage_error(prog, "--sample-length %llu is not below --sample-every %llu",
                               (unsigned long long)vg->sample_length, (unsigned long long)vg->sample_every);
    if (warmup == UINT64_MAX)
        warmup = RECORD_SAMPLE_WARMUP < vg->sample_every - vg->sample_length ? RECORD_SAMPLE_WARMUP
                                                                           : vg->sample_every - vg->sample_length;
    if (warmup == SAMPLE_WARMUP_ALL)
        warmup = vg->sample_every - vg->sample_length;
    if (warmup > vg->sample_every - vg->sample_length)
        return cli_usage_error(prog, "--sample-warmup %llu and --sample-length %llu exceed --sample-every %llu",
                               (unsigned long long)warmup, (unsigned long long)vg->sample_length,
                               (unsigned long long)vg->sample_every);
    vg->warmup = warmup;
    return 0;
}

/* Frees what the request read (SimPoint's regions). */
static void free_request(record_request *req)
{
    record_simpoint_free(&req->simpoints);
    free(req->starts);
    free(req->start_threads);
    req->starts = NULL;
    req->start_threads = NULL;
}

/* Reads and checks --simpoints/--weights (`warmup` as check_sampling's):
 * the tool then times sample_length (default: the interval) instructions
 * from each region's first one. A usage error's exit status, or 0. */
static int check_simpoints(const char *prog, record_request *req, uint64_t warmup)
{
    record_session_options *vg = &req->run.session;
    const record_simpoint_list *l = &req->simpoints;
    uint64_t last_start = 0;
    int rc;

    if (!req->simpoints_path && !req->weights_path) {
        if (req->run.simpoint_interval)
            return cli_usage_error(prog, "--simpoint-interval needs --simpoints and --weights");
        return 0;
    }
    if (!req->simpoints_path || !req->weights_path)
        return cli_usage_error(prog, "--simpoints and --weights go together");
    if (vg->sample_every || vg->skip || vg->max_instructions || vg->stop_at || vg->warmup)
        return cli_usage_error(prog, "--simpoints does not go with --sample-every, --skip, --max-instructions, "
                                     "--stop-at or --warmup (use --sample-warmup)");
    if ((rc = record_simpoint_read(&req->simpoints, req->simpoints_path, req->weights_path)))
        return cli_fail(prog, rc);
    if (vg->threads && !record_simpoint_threaded(l))
        return cli_usage_error(prog, "--thread %s times each thread's own regions: %s has no \"%sN\" sections (tea "
                                     "simpoint --thread makes them)",
                               vg->threads, req->simpoints_path, RECORD_SIMPOINT_THREAD_COMMENT);
    if (!vg->threads && record_simpoint_threaded(l))
        return cli_usage_error(prog, "%s holds threads' regions (\"%sN\" sections): record them with --thread all "
                                     "or a list",
                               req->simpoints_path, RECORD_SIMPOINT_THREAD_COMMENT);
    /* the interval the files name (tea simpoint's) is the one they were made for */
    if (l->interval && req->run.simpoint_interval && l->interval != req->run.simpoint_interval)
        return cli_usage_error(prog, "%s was made for intervals of %llu instructions, not --simpoint-interval %llu",
                               req->simpoints_path, (unsigned long long)l->interval,
                               (unsigned long long)req->run.simpoint_interval);
    if (!req->run.simpoint_interval)
        req->run.simpoint_interval = l->interval ? l->interval : RECORD_SIMPOINT_INTERVAL;
    if (!vg->sample_length)
        vg->sample_length = req->run.simpoint_interval;
    if (vg->sample_length > req->run.simpoint_interval)
        return cli_usage_error(prog, "--sample-length %llu is over --simpoint-interval %llu",
                               (unsigned long long)vg->sample_length, (unsigned long long)req->run.simpoint_interval);
    if (!(req->starts = calloc(l->count, sizeof *req->starts))
        || !(req->start_threads = calloc(l->count, sizeof *req->start_threads)))
        return cli_fail(prog, error_set(TEA_ERR_NOMEM, "out of memory"));
    for (size_t k = 0; k < l->count; k++) {
        if (l->regions[k].interval >= RECORD_START_MAX / req->run.simpoint_interval)
            return cli_usage_error(prog, "%s: interval %llu of %llu instructions starts beyond 2^62",
                                   req->simpoints_path, (unsigned long long)l->regions[k].interval,
                                   (unsigned long long)req->run.simpoint_interval);
        req->starts[k] = l->regions[k].interval * req->run.simpoint_interval;
        req->start_threads[k] = l->regions[k].thread;
        last_start = req->starts[k] > last_start ? req->starts[k] : last_start;
    }
    vg->sample_starts = req->starts;
    vg->sample_start_threads = vg->threads ? req->start_threads : NULL;
    req->run.simpoints = l;
    vg->sample_start_count = l->count;
    if (warmup == UINT64_MAX)
        warmup = RECORD_SAMPLE_WARMUP;
    /* all: whatever lies between a region and the one before it, at most its start */
    vg->warmup = warmup == SAMPLE_WARMUP_ALL || warmup > last_start ? last_start : warmup;
    return 0;
}

int cmd_tea_record(int argc, char **argv)
{
    record_request req;
    uint64_t sample_warmup = UINT64_MAX; /* unset */
    record_session_options *const vg = &req.run.session; /* what the tool records */
    int rc, exit_status = CLI_EXIT_OK, fast_forwards;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &req.run.out_path, "trace to write (default record.tea)"),
        CLI_OPTION_TRACE_FORMAT("format", &req.run.write.format, "native (default) or tracedoctor"),
        MODEL_OPTIONS_CONFIG(&req.run.model, "core model parameters ('key = value'; tea gen --print-config)"),
        MODEL_OPTIONS_SET(&req.run.model),
        CLI_UINT("max-instructions", "N", &vg->max_instructions, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "stop recording after N instructions"),
        CLI_UINT("skip", "N", &vg->skip, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "skip N instructions once started (run at about the speed\nof valgrind --tool=none, not recorded)"),
        CLI_UINT("warmup", "N", &vg->warmup, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "then warm the model with N instructions (not recorded)"),
        CLI_UINT("sample-every", "N", &vg->sample_every, 2, UINT64_MAX, "invalid instruction count '%s'",
                 "sampled recording: time a window in every N instructions\n(after --skip); the windows estimate the whole run\n(10^7 suits a run of 10^10; docs/semantics.md)"),
        CLI_UINT("sample-length", "L", &vg->sample_length, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "timed instructions per window (default " CLI_STR(RECORD_SAMPLE_LENGTH) ")"),
        CLI_CALL("sample-warmup", 0, "W|all", sample_warmup_option, &sample_warmup,
                 "instructions warming the model before each window\n(default " CLI_STR(RECORD_SAMPLE_WARMUP) ", at most N - L); all: every\ninstruction between windows (functional warming: the\nleast bias, at about half a full recording's time)"),
        CLI_CALL("warm-caches", 0, "yes|no", warm_caches_option, &req.warm_caches,
                 "keep the model's L1 D, LLC and touched pages warm through\nevery fast-forward: the tool updates copies of them with\neach access, and each window starts from them (default\nyes when sampling, no with --skip alone or --sample-warmup\nall; docs/semantics.md)"),
        CLI_UINT("branch-warmup", "N", &vg->branch_warmup, 0, RECORD_START_MAX - 1, "invalid instruction count '%s'",
                 "train the model's branch predictor with the branches of\nthe last N instructions of every fast-forward, as the tool\nruns them (default " CLI_STR(
                     RECORD_BRANCH_WARMUP) " when sampling, 0 with --skip\nalone or --sample-warmup all; docs/semantics.md)"),
        CLI_STRING("simpoints", 0, "FILE", &req.simpoints_path,
                   "time SimPoint's regions instead (SimPoint 3's -saveSimpoints\nfile: 'INTERVAL CLUSTER' lines), "
                   "each standing for its\ncluster's intervals (needs --weights; docs/semantics.md;\nwith --thread, tea simpoint --thread's sections)"),
        CLI_STRING("weights", 0, "FILE", &req.weights_path,
                   "SimPoint 3's -saveSimpointWeights file ('WEIGHT CLUSTER')"),
        CLI_UINT("simpoint-interval", "N", &req.run.simpoint_interval, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "instructions per SimPoint interval, exp-bbv's\n--interval-size (default: the one FILE names, as tea\nsimpoint writes it, else " CLI_STR(
                     RECORD_SIMPOINT_INTERVAL) "); each region\ntimes --sample-length of them (default all)"),
        CLI_STRING("start-at", 0, "FUNCTION", &vg->start_at, "start recording at FUNCTION's entry (any object)"),
        CLI_STRING("stop-at", 0, "FUNCTION", &vg->stop_at, "stop recording at FUNCTION's entry (recorded)"),
        CLI_FLAG("wait-start", 0, &vg->wait_start, "start recording at tea_record_start() (include/tea_record.h)"),
        CLI_FLAG("kill-after", 0, &vg->kill_after, "kill the program when recording stops"),
        CLI_FLAG("trace-children", 0, &req.run.trace_children,
                 "also record the programs of forked child processes, each\nchild into OUT.PID.tea (the same region options apply)"),
        CLI_FLAG("call-paths", 0, &req.run.call_paths,
                 "each instruction's calling context in the trace (its\nprogram's code decoded as it commits; docs/semantics.md,\n\"Calling contexts\"): tea replay keys the PICS by call path"),
        CLI_CALL("thread", 0, "N|all|LIST", thread_option, vg,
                 "record Valgrind's thread N (default 1, the main thread);\nall, or a list 1,3: each of those threads into\nOUT/thread-N.tea (OUT a directory), sampled on its own count"),
        CLI_UINT("hint-after", "N", &req.run.hint_after, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "once a full (not sampled) recording passes N instructions,\nnote its rate and --sample-every on stderr (default\n" CLI_STR(
                     RECORD_HINT_AFTER) "; 0: never)"),
        CLI_STRING("valgrind", 0, "PATH", &vg->valgrind, "the valgrind to run (default: valgrind in PATH)"),
        CLI_OPTIONS_PROGRESS(&req.run.progress),
        CLI_OPTION_HELP,
    };
    /* Options end at the program to record. */
    const cli_command command = { RECORD_SYNOPSIS, NULL, 27, 1, options, sizeof options / sizeof options[0] };

    memset(&req, 0, sizeof req);
    req.run.out_path = RECORD_DEFAULT_OUTPUT;
    req.run.write.format = TRACE_FORMAT_NATIVE;
    req.argc_all = argc;
    req.argv_all = argv;
    req.warm_caches = -1;
    req.run.hint_after = RECORD_HINT_AFTER;
    req.run.session.branch_warmup = RECORD_BRANCH_WARMUP_UNSET;
    model_config_defaults(&req.run.model);
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind >= argc)
        return cli_usage_error(argv[0], "missing PROGRAM (use: tea record [OPTIONS] -- PROGRAM [ARGS...])");
    if (model_config_check(&req.run.model))
        return cli_usage_error(argv[0], "%s", error_message());
    if ((rc = check_simpoints(argv[0], &req, sample_warmup))
        || (rc = check_sampling(argv[0], &req.run.session, sample_warmup))) {
        free_request(&req);
        return rc;
    }
    /* warm caches and predictor: on when sampling with a fast-forward
     * between windows (not with --sample-warmup all, which leaves none) */
    fast_forwards = (req.run.session.sample_every || req.simpoints_path) && sample_warmup != SAMPLE_WARMUP_ALL;
    if (req.warm_caches < 0)
        req.warm_caches = fast_forwards;
    if (req.warm_caches)
        req.run.session.warm_caches = &req.run.model;
    if (req.run.session.branch_warmup == RECORD_BRANCH_WARMUP_UNSET)
        req.run.session.branch_warmup = fast_forwards ? RECORD_BRANCH_WARMUP : 0;
    req.run.argv = argv + optind;
    if ((rc = record(&req, &exit_status))) {
        exit_status = cli_fail(argv[0], rc);
        if (cleanup_interrupted())
            exit_status = cleanup_exit_status(cleanup_interrupted());
    }
    free_request(&req);
    return exit_status;
}
