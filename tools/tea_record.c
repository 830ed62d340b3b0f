/*
 * tea_record.c: `tea record`, a native trace of a real x86-64 program, made
 * by running it under tea's own Valgrind tool (tearec/tearec.c) and timing
 * every instruction through the core model (like `perf record`, but for
 * commit-stage traces).
 */
#define _GNU_SOURCE
#include "cli.h"
#include "commands.h"
#include "model_options.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/progress.h"
#include "model/core.h"
#include "binary/symbols.h"
#include "record/simpoint.h"
#include "record/session.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECORD_DEFAULT_OUTPUT "record.tea"
#define RECORD_ARCH "x86_64"
#define RECORD_VA_BITS 48
/* Where the tool lies relative to the tea binary, in the build tree
 * (build/bin/tea, build/libexec/tea/valgrind) and once installed
 * (PREFIX/bin/tea, PREFIX/libexec/tea/valgrind). */
#define RECORD_TOOL_SUBDIR "/../libexec/tea/valgrind"
#define RECORD_SUFFIX ".tea"
/* How long the root's recording waits for a child's stream at a time, ms. */
#define RECORD_ACCEPT_MS 10
/* tea record's exit status when the trace was written but the program
 * exited with a non-zero status or was killed by a signal (docs). */
#define RECORD_EXIT_PROGRAM_FAILED 3
/* Names suggested for a --start-at that names no function. */
#define RECORD_SUGGESTIONS 3
#define NS_PER_S 1e9
/* Window ends kept at first (sampling); the list doubles. */
#define RECORD_WINDOWS_INITIAL 64
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
/* Threads a message names; the rest are counted. */
#define RECORD_THREADS_NAMED 8
/* Room for the threads' part of a message. */
#define RECORD_THREADS_TEXT 640
#define PERCENT 100.0

typedef struct record_request {
    const char *out_path;
    trace_write_options write;
    model_config model;
    record_session_options vg;
    progress_mode progress; /* PROGRESS_OFF (-q) also silences the summary */
    int trace_children;
    char **argv;          /* the program and its arguments */
    int argc_all;
    char **argv_all;      /* tea's own command line, for the header */
    const char *simpoints_path, *weights_path; /* --simpoints, --weights */
    uint64_t simpoint_interval;                /* instructions per SimPoint interval */
    record_simpoint_list simpoints;             /* their regions, read before recording */
    uint64_t *starts;                          /* each region's first instruction (vg.sample_starts) */
    int warm_caches;                           /* --warm-caches: 1 yes, 0 no, -1 not given */
    uint64_t hint_after;                       /* --hint-after: note --sample-every past N instructions (0: never) */
} record_request;

/* One process's recording: its stream, the programs it ran, its trace. */
typedef struct record_run {
    const record_request *req;
    const char *out_path;
    record_session *session;
    trace_writer *writer;
    int root;               /* the process tea record started (else a forked child) */
    long pid;
    double region_start;    /* when the traced program's first records came (monotonic s) */
    double region_end;      /* when its region ended */
    trace_exec *execs;      /* the programs run before the traced one */
    size_t exec_count;
    int status;             /* the root's exit status (record_session_wait) */
    uint64_t instructions;  /* recorded of the traced program */
    progress_meter meter;   /* instructions recorded, towards --max-instructions */
    uint64_t *window_ends;  /* sampling: the last cycle of each window ended so far */
    size_t window_count, window_cap;
    uint64_t *weights;      /* SimPoint's regions: the intervals each stands for (set_weights) */
    uint64_t last_cycle;    /* of the last record written */
    uint64_t last_commit;   /* cycle of the last record that committed a µop */
    int have_last_cycle, have_last_commit;
    double started;         /* when the stream's reading began (monotonic s) */
    int hinted;             /* the note on --sample-every was printed */
    trace_thread_count *threads; /* the traced program's threads that ran (the tool's counts) */
    size_t thread_count;
} record_run;

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
    "thread that ran with its instructions and warns when another one ran most.\n\n"                  \
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

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Whether a recording of `req` notes --sample-every once it is long: a
 * full one (not sampled), not quiet, with --hint-after N above 0. */
static int hints_sampling(const record_request *req)
{
    return req->hint_after && !req->vg.sample_every && !req->vg.sample_starts && req->progress != PROGRESS_OFF;
}

/* Notes, once, that the recording passed --hint-after instructions, at
 * the rate measured since the stream's reading began (`instructions` so
 * far), and that --sample-every records a whole run much faster. */
static void hint_sampling(record_run *run, uint64_t instructions)
{
    double elapsed = now() - run->started;

    run->hinted = 1;
    progress_hide(&run->meter);
    fprintf(stderr,
            "tea record: note: past %llu instructions, recorded at %.2f M instructions/s; for a long run, "
            "--sample-every N records a sampled whole run many times faster (10^7 suits 10^10 instructions; "
            "docs/semantics.md)\n",
            (unsigned long long)run->req->hint_after,
            elapsed > 0 ? (double)instructions / elapsed / RECORD_MIPS : 0.0);
}

/* The model's progress callback: instructions recorded so far; past
 * --hint-after of a full recording, the note on --sample-every. */
static void progress(void *ctx, const model_stats *s)
{
    record_run *run = ctx;
    progress_update(&run->meter, s->instructions);
    if (!run->hinted && hints_sampling(run->req) && s->instructions >= run->req->hint_after)
        hint_sampling(run, s->instructions);
}

/* Opens the writer at the first batch: by then the program is known. */
static int open_writer(record_run *run)
{
    const record_request *req = run->req;
    const record_session_program *prog = record_session_get_program(run->session);
    char generator[96];
    char *command = cli_join_command(req->argc_all, req->argv_all);
    trace_header h;
    int rc;

    trace_header_init(&h);
    snprintf(h.program.arch, sizeof h.program.arch, "%s", RECORD_ARCH);
    h.va_bits = RECORD_VA_BITS;
    h.commit_width = req->model.core.width;
    h.rob_size = req->model.core.rob_size;
    snprintf(generator, sizeof generator, "%s (tea record, valgrind tearec)", cli_version());
    h.program.load_bias = prog->load_bias;
    h.program.has_load_bias = prog->have_bias;
    if (!command || trace_header_set(&h.generator, generator) || trace_header_set(&h.command_line, command)
        || trace_header_set(&h.program.binary_path, prog->path) || trace_header_set(&h.program.build_id, prog->build_id))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    else
        rc = trace_writer_open(&run->writer, run->out_path, &h, &req->write);
    trace_header_free(&h);
    free(command);
    run->region_start = now();
    return rc;
}

static int emit(void *ctx, const trace_batch *batch)
{
    record_run *run = ctx;
    int rc;
    if (!run->writer && (rc = open_writer(run)))
        return rc;
    if ((rc = trace_writer_write(run->writer, batch)))
        return error_prefix(rc, "%s: ", run->out_path);
    if (batch->count) {
        run->last_cycle = batch->records[batch->count - 1].cycle;
        run->have_last_cycle = 1;
    }
    for (size_t i = batch->count; i-- > 0;)
        if (batch->records[i].n_commit) {
            run->last_commit = batch->records[i].cycle;
            run->have_last_commit = 1;
            break;
        }
    return TEA_OK;
}

/* The model's window callback (sampling): a window ended at last_cycle. */
static int window_ended(void *ctx, uint64_t last_cycle)
{
    record_run *run = ctx;

    if (run->window_count == run->window_cap) {
        size_t cap = run->window_cap ? 2 * run->window_cap : RECORD_WINDOWS_INITIAL;
        uint64_t *grown = realloc(run->window_ends, cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        run->window_ends = grown;
        run->window_cap = cap;
    }
    if (run->window_count == TRACE_WINDOWS_MAX)
        return error_set(TEA_ERR_USAGE, "more than %u windows: choose a larger --sample-every", TRACE_WINDOWS_MAX);
    assert(run->window_count == 0 || last_cycle > run->window_ends[run->window_count - 1]);
    run->window_ends[run->window_count++] = last_cycle;
    return TEA_OK;
}

/* The tool's directory: beside the tea binary's (RECORD_TOOL_SUBDIR), or
 * NULL when it is not there. */
static char *find_tool_dir(void)
{
    char exe[PATH_MAX], dir[PATH_MAX + sizeof RECORD_TOOL_SUBDIR], *slash, *real;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/')))
        return NULL;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%s%s", exe, RECORD_TOOL_SUBDIR);
    real = realpath(dir, NULL);
    return real;
}

/* Why recording ended, for the summary. */
static const char *stop_reason(int stop)
{
    switch (stop) {
    case RECORD_SESSION_STOP_MAX: return "stopped at --max-instructions";
    case RECORD_SESSION_STOP_SYMBOL: return "stopped at the --stop-at function";
    case RECORD_SESSION_STOP_REQUEST: return "stopped by tea_record_stop()";
    case RECORD_SESSION_STOP_EXIT: return "recorded to the program's end";
    default:
        return cleanup_interrupted() ? "interrupted" : "the stream ended early";
    }
}

/* The value of hex digit `c`, or -1. */
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Adds every executable mapping the tool reported to the trace, with its
 * build-id and load bias when its file could be read. */
static int add_objects(record_run *run)
{
    size_t count;
    const record_session_object *objs = record_session_objects(run->session, &count);

    for (size_t i = 0; i < count; i++) {
        trace_object o;
        int rc;
        memset(&o, 0, sizeof o);
        o.path = objs[i].path;
        o.start = objs[i].start;
        o.end = objs[i].end;
        o.load_bias = objs[i].have_bias ? objs[i].load_bias : 0;
        if (objs[i].build_id) {
            size_t n = strlen(objs[i].build_id) / 2;
            if (n > TRACE_BUILD_ID_MAX)
                n = 0;
            for (size_t k = 0; k < n; k++) {
                int hi = hex_digit(objs[i].build_id[2 * k]), lo = hex_digit(objs[i].build_id[2 * k + 1]);
                if (hi < 0 || lo < 0) {
                    n = 0;
                    break;
                }
                o.build_id[k] = (uint8_t)(hi << 4 | lo);
            }
            o.build_id_len = (uint32_t)n;
        }
        if ((rc = trace_writer_add_object(run->writer, &o)))
            return error_prefix(rc, "%s: ", o.path);
    }
    return TEA_OK;
}

/* A warm-up instruction: to the core's caches, TLBs and predictor. */
static void warm(void *ctx, const model_insn *insn)
{
    model_core_warm(ctx, insn);
}

/* What the tool kept warm through a fast-forward: a cache set's lines or
 * touched pages. */
static void place_lines(void *ctx, record_session_warmed what, const uint64_t *addrs, size_t count)
{
    if (what == RECORD_SESSION_WARMED_PAGES)
        model_core_touch_pages(ctx, addrs, count);
    else
        model_core_place_lines(ctx, what == RECORD_SESSION_WARMED_LLC, addrs, count);
}

/* A branch of a fast-forward's end: to the core's predictor. */
static void train_branch(void *ctx, const model_insn *insn)
{
    model_core_train_branch(ctx, insn);
}

/* --- --start-at that recorded nothing ------------------------------------- */

/* Whether object `path` has a function `name` (or fn_HEX at that ELF
 * address); *fn_name gets a close name when it has none. */
static int object_has_function(const char *path, const char *name, const char **close, size_t *nclose,
                               binary_symbols **keep)
{
    binary_symbols *s;
    size_t idx;

    *keep = NULL;
    if (binary_symbols_open(&s, path)) {
        error_clear();
        return 0;
    }
    if (binary_symbols_find_name(s, name, &idx, 1)) {
        binary_symbols_close(s);
        return 1;
    }
    if (*nclose < RECORD_SUGGESTIONS)
        *nclose += binary_symbols_suggest(s, name, close + *nclose, RECORD_SUGGESTIONS - *nclose);
    *keep = s; /* the suggestions point into it */
    return 0;
}

/* Says why a --start-at recorded nothing: no object of the program has the
 * function (with close names), or it was never reached. */
static void explain_start_at(const record_run *run)
{
    const char *name = run->req->vg.start_at, *close[RECORD_SUGGESTIONS];
    binary_symbols *keep[RECORD_SESSION_OBJECTS_MAX];
    size_t count, nclose = 0, nkeep = 0;
    const record_session_object *objs = record_session_objects(run->session, &count);
    const char *where = NULL;

    for (size_t i = 0; i < count && !where; i++) {
        binary_symbols *s;
        if (object_has_function(objs[i].path, name, close, &nclose, &s))
            where = objs[i].path;
        else if (s)
            keep[nkeep++] = s;
    }
    if (where)
        fprintf(stderr, "tea record: --start-at %s: the function (in %s) was never reached\n", name, where);
    else {
        fprintf(stderr, "tea record: --start-at %s: no function of that name in the program's %zu objects", name,
                count);
        for (size_t i = 0; i < nclose; i++)
            fprintf(stderr, "%s%s", i ? ", " : " (did you mean: ", close[i]);
        fprintf(stderr, "%s\n", nclose ? ")" : "");
    }
    for (size_t i = 0; i < nkeep; i++)
        binary_symbols_close(keep[i]);
}

/* --- the program's threads ------------------------------------------------- */

/* The thread the request records (Valgrind's number). */
static uint32_t recorded_tid(const record_request *req)
{
    return req->vg.thread ? req->vg.thread : 1;
}

/* Keeps the tool's counts of the traced program's threads (none from a
 * stream that ended early). */
static int take_threads(record_run *run)
{
    size_t count;
    const record_session_thread *t = record_session_threads(run->session, &count);

    free(run->threads);
    run->threads = NULL;
    run->thread_count = 0;
    if (!count)
        return TEA_OK;
    if (!(run->threads = malloc(count * sizeof *run->threads)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        run->threads[i].tid = t[i].tid;
        run->threads[i].instructions = t[i].instructions;
    }
    run->thread_count = count;
    return TEA_OK;
}

/* Appends printf-style text to the `size` bytes at buf, of which *len are
 * used; what does not fit is cut. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len + 1 >= size)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

/* Appends the threads that ran and their instructions, "1 (recorded)
 * 153012, 2 2050021 instructions" (the first RECORD_THREADS_NAMED, then
 * how many more). */
static void append_threads(const record_run *run, char *buf, size_t size, size_t *len)
{
    uint32_t tid = recorded_tid(run->req);

    for (size_t i = 0; i < run->thread_count && i < RECORD_THREADS_NAMED; i++)
        append(buf, size, len, "%s%lu%s %llu", i ? ", " : "", (unsigned long)run->threads[i].tid,
               run->threads[i].tid == tid ? " (recorded)" : "", (unsigned long long)run->threads[i].instructions);
    if (run->thread_count > RECORD_THREADS_NAMED)
        append(buf, size, len, " and %zu more threads'", run->thread_count - RECORD_THREADS_NAMED);
    append(buf, size, len, " instructions");
}

/* What the threads tell of a recording that recorded nothing, as the end
 * of its error: the recorded thread never ran, or another one ran and
 * --thread records it; "" when the tool did not count them, or the
 * recorded thread ran alone. */
static void explain_threads(const record_run *run, char *buf, size_t size)
{
    uint32_t tid = recorded_tid(run->req), busiest;
    uint64_t all, mine;
    size_t len = 0;

    buf[0] = '\0';
    trace_threads_sum(run->threads, run->thread_count, tid, &all, &mine, &busiest);
    if (!run->thread_count || (busiest == tid && run->thread_count == 1))
        return;
    if (!mine)
        append(buf, size, &len, "; thread %lu never ran (threads that ran: ", (unsigned long)tid);
    else
        append(buf, size, &len, "; threads that ran: ");
    append_threads(run, buf, size, &len);
    if (busiest != tid)
        append(buf, size, &len, "; --thread %lu records thread %lu, which ran most", (unsigned long)busiest,
               (unsigned long)busiest);
    if (!mine)
        append(buf, size, &len, ")");
}

/* Warns when the recorded thread ran under half of the program's
 * instructions, naming the thread that ran most and --thread. */
static void warn_thread_share(const record_run *run)
{
    uint32_t tid = recorded_tid(run->req), busiest;
    uint64_t all, mine, most = 0;

    trace_threads_sum(run->threads, run->thread_count, tid, &all, &mine, &busiest);
    if (run->thread_count < 2 || !mine || mine >= all - mine)
        return;
    for (size_t i = 0; i < run->thread_count; i++)
        if (run->threads[i].tid == busiest)
            most = run->threads[i].instructions;
    fprintf(stderr, "tea record: warning: thread %lu (recorded) ran %.3g %% of the program's %llu instructions; ",
            (unsigned long)tid, PERCENT * (double)mine / (double)all, (unsigned long long)all);
    if (busiest != tid)
        fprintf(stderr, "thread %lu ran %.3g %%: --thread %lu records it\n", (unsigned long)busiest,
                PERCENT * (double)most / (double)all, (unsigned long)busiest);
    else
        fprintf(stderr, "the rest ran in %zu other threads (one thread is recorded: --thread)\n",
                run->thread_count - 1);
}

/* --- one process's stream ---------------------------------------------------- */

/* Runs the model over the current program's part of the stream, into a
 * new trace (opened at its first records). */
static int run_program(record_run *run, model_core **core)
{
    model_source src = record_session_source(run->session);
    int rc;

    if ((rc = model_core_create(core, &run->req->model, &src)))
        return rc;
    record_session_set_warm(run->session, warm, *core);
    record_session_set_lines(run->session, place_lines, *core);
    record_session_set_branches(run->session, train_branch, *core);
    model_core_set_window(*core, window_ended, run);
    run->window_count = 0; /* a program exec'd away from leaves none */
    run->have_last_cycle = run->have_last_commit = 0;
    if (run->root)
        model_core_set_progress(*core, progress, run);
    rc = model_core_run(*core, 0, 0, emit, run);
    run->region_end = now();
    run->instructions = record_session_get_stats(run->session)->instructions;
    return rc;
}

/* The process exec'd: what was recorded of the program it left is dropped
 * and the program is listed in the run. */
static int note_exec(record_run *run, const char *left, uint64_t instructions)
{
    trace_exec *grown = realloc(run->execs, (run->exec_count + 1) * sizeof *grown);
    char *path = strdup(left ? left : "?");

    if (grown)
        run->execs = grown;
    if (!grown || !path) {
        free(path);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    grown[run->exec_count].path = path;
    grown[run->exec_count++].instructions = instructions;
    trace_writer_abort(run->writer);
    run->writer = NULL;
    if (run->req->progress != PROGRESS_OFF) {
        const char *next = record_session_get_program(run->session)->exec_path;
        if (run->root)
            fprintf(stderr, "tea record: %s exec'd %s (%llu instructions recorded before, dropped): recording it\n",
                    path, next ? next : "?", (unsigned long long)instructions);
        else
            fprintf(stderr, "tea record: child %ld: %s exec'd %s\n", run->pid, path, next ? next : "?");
    }
    progress_restart(&run->meter, run->req->vg.max_instructions);
    return TEA_OK;
}

/* Reads a process's stream to its end: every program it runs in turn, the
 * last one's region into the trace. */
static int follow_programs(record_run *run, model_core **core)
{
    int rc, exec;

    for (;;) {
        uint64_t recorded;
        char *left;
        if ((rc = run_program(run, core)))
            return rc;
        recorded = run->instructions;
        left = record_session_get_program(run->session)->exec_path
                   ? strdup(record_session_get_program(run->session)->exec_path)
                   : NULL;
        rc = record_session_next_program(run->session, &exec);
        if (rc == TEA_OK && exec) {
            model_core_free(*core);
            *core = NULL;
            rc = note_exec(run, left, recorded);
        }
        free(left);
        if (rc || !exec)
            return rc;
    }
}

/* SimPoint's regions: each window's start and the intervals it stands
 * for, round(weight x the run's intervals), the run's intervals counted by
 * the tool to the program's end (a run cut short, by the last region's). */
static int set_weights(record_run *run, trace_sampling *s)
{
    const record_request *req = run->req;
    const record_session_stats *vs = record_session_get_stats(run->session);
    uint64_t interval = req->simpoint_interval, intervals;

    assert(run->window_count <= req->simpoints.count); /* one window per region at most */
    if (vs->have_count) {
        intervals = vs->region_instructions / interval + (vs->region_instructions % interval != 0);
    } else {
        intervals = req->simpoints.regions[req->simpoints.count - 1].interval + 1;
        fprintf(stderr, "tea record: warning: the program's instruction count is unknown (the recording "
                        "ended early): the regions' weights are taken of %llu intervals, the last region's\n",
                (unsigned long long)intervals);
    }
    if (!(run->weights = calloc(req->simpoints.count, sizeof *run->weights)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    record_simpoint_integer_weights(&req->simpoints, intervals, run->weights);
    if (vs->have_count && run->window_count < req->simpoints.count)
        fprintf(stderr, "tea record: warning: %zu of the %zu SimPoint regions lie past the program's end (%llu "
                        "instructions): are the files for this program and input?\n",
                req->simpoints.count - run->window_count, req->simpoints.count,
                (unsigned long long)vs->region_instructions);
    s->every = interval;
    s->window_starts = req->starts;
    s->window_weights = run->weights;
    return TEA_OK;
}

/* The sampling of a sampled recording: the windows that ended and the
 * last one, which the trace's end ends. Instructions committed after the
 * last window that ended make a last, partial window; cycles without
 * commits (the core's last drain) join the window before them, so the
 * windows' cycles add up to the trace's. */
static int set_sampling(record_run *run, trace_sampling *s)
{
    const record_session_options *vg = &run->req->vg;
    uint64_t *last_end = run->window_count ? &run->window_ends[run->window_count - 1] : NULL;
    int rc;

    if (run->have_last_cycle && (!last_end || (run->have_last_commit && run->last_commit > *last_end))) {
        if ((rc = window_ended(run, run->last_cycle)))
            return rc;
    } else if (run->have_last_cycle && run->last_cycle > *last_end) {
        *last_end = run->last_cycle;
    }
    s->every = vg->sample_every;
    s->length = vg->sample_length;
    s->warmup = vg->warmup;
    s->window_ends = run->window_ends;
    s->window_count = run->window_count;
    return vg->sample_starts ? set_weights(run, s) : TEA_OK;
}

/* Writes the run's facts, objects and thread and finishes the trace. */
static int finish_trace(record_run *run)
{
    const record_session_stats *vs = record_session_get_stats(run->session);
    trace_run facts;
    int rc;

    memset(&facts, 0, sizeof facts);
    facts.execs = run->execs;
    facts.exec_count = run->exec_count;
    facts.interrupted = (uint32_t)cleanup_interrupted();
    if (run->root && run->status >= 0 && !facts.interrupted) {
        facts.has_exit_status = 1;
        facts.exit_status = (uint32_t)run->status;
    }
    if (run->region_end > run->region_start)
        facts.region_ns = (uint64_t)((run->region_end - run->region_start) * NS_PER_S);
    if ((run->req->vg.sample_every || run->req->vg.sample_starts) && (rc = set_sampling(run, &facts.sampling)))
        return rc;
    if (run->thread_count > 1) { /* a program of one thread keeps the trace it had */
        facts.threads = run->threads;
        facts.thread_count = run->thread_count;
    }
    if ((rc = add_objects(run)) || (rc = trace_writer_set_run(run->writer, &facts)))
        return rc;
    if (vs->threads_seen && (rc = trace_writer_set_thread(run->writer, recorded_tid(run->req), vs->threads_seen)))
        return rc;
    rc = trace_writer_finish(run->writer, NULL);
    run->writer = NULL;
    return rc;
}

/* Records one process's stream into its trace. `root`: the process tea
 * record started, whose Valgrind is waited for (run->status as
 * record_session_wait). */
static int record_stream(record_run *run, model_core **core)
{
    int rc;

    run->status = 0;
    run->started = now();
    if (run->root)
        progress_start(&run->meter, run->req->progress, stderr, "tea record", "instructions",
                       run->req->vg.max_instructions);
    rc = follow_programs(run, core);
    progress_end(&run->meter);
    if (rc == TEA_OK)
        rc = take_threads(run);
    if (rc == TEA_OK && run->root)
        rc = record_session_wait(run->session, &run->status);
    if (rc == TEA_OK && (!run->writer || run->instructions == 0)) {
        char threads[RECORD_THREADS_TEXT];
        if (run->root && run->req->vg.start_at && !cleanup_interrupted())
            explain_start_at(run);
        explain_threads(run, threads, sizeof threads);
        rc = error_set(TEA_ERR_IO, "no instruction was recorded (%s)%s%s",
                       stop_reason(record_session_get_stats(run->session)->stop),
                       run->req->vg.sample_every   ? "; with --sample-every N, a region shorter than N "
                                                     "instructions has no window"
                       : run->req->vg.sample_starts ? "; the SimPoint regions lie past the program's end"
                                                   : "",
                       threads);
    }
    if (rc == TEA_OK)
        rc = finish_trace(run);
    return rc;
}

static void free_run(record_run *run)
{
    trace_writer_abort(run->writer);
    run->writer = NULL;
    record_session_close(run->session);
    run->session = NULL;
    for (size_t i = 0; i < run->exec_count; i++)
        free((char *)run->execs[i].path);
    free(run->execs);
    run->execs = NULL;
    run->exec_count = 0;
    free(run->window_ends);
    run->window_ends = NULL;
    run->window_count = run->window_cap = 0;
    free(run->weights);
    run->weights = NULL;
    free(run->threads);
    run->threads = NULL;
    run->thread_count = 0;
}

/* --- --trace-children -------------------------------------------------------- */

/* A forked child's recording: its stream, its thread, its trace. */
typedef struct child_run {
    record_run run;
    char *out_path;            /* OUT.PID.tea */
    pthread_t thread;
    int rc;
    int programs;              /* it ran a program of its own (an exec) */
    char message[256];         /* the error, when rc != 0 */
    struct child_run *next;
} child_run;

/* The children's streams: taken by a thread while the root records, then by
 * children_finish. */
typedef struct children {
    const record_request *req;
    record_session_listener *listener;
    pthread_t acceptor;
    int accepting;             /* the acceptor thread runs */
    atomic_int stop;
    pthread_mutex_t lock;
    unsigned running;          /* child threads not yet ended */
    child_run *list;
    size_t forks_without_program;
} children;

/* OUT.PID.tea of `out` ("x.tea" gives "x.PID.tea"). */
static char *child_output(const char *out, long pid)
{
    size_t n = strlen(out), stem = n;
    char *path;
    if (n > strlen(RECORD_SUFFIX) && !strcmp(out + n - strlen(RECORD_SUFFIX), RECORD_SUFFIX))
        stem = n - strlen(RECORD_SUFFIX);
    if (!(path = malloc(n + 32)))
        return NULL;
    snprintf(path, n + 32, "%.*s.%ld%s", (int)stem, out, pid, RECORD_SUFFIX);
    return path;
}

typedef struct child_arg {
    children *ch;
    child_run *c;
} child_arg;

/* A child's thread: models its stream into its own trace. A child that
 * never ran a program (a fork that did not exec) leaves nothing. */
static void *child_main(void *arg)
{
    child_arg a = *(child_arg *)arg;
    child_run *c = a.c;
    model_core *core = NULL;

    free(arg);
    c->rc = record_stream(&c->run, &core);
    c->programs = record_session_get_program(c->run.session)->exec_path != NULL;
    if (c->rc)
        snprintf(c->message, sizeof c->message, "%s", error_message());
    model_core_free(core);
    free_run(&c->run);
    pthread_mutex_lock(&a.ch->lock);
    a.ch->running--;
    pthread_mutex_unlock(&a.ch->lock);
    return NULL;
}

/* Starts a thread recording a child's stream. */
static int start_child(children *ch, record_session *session, pid_t pid)
{
    child_run *c = calloc(1, sizeof *c);
    child_arg *arg = malloc(sizeof *arg);

    if (cleanup_interrupted())
        kill(pid, SIGKILL); /* connected while recording was being interrupted */
    if (!c || !arg || !(c->out_path = child_output(ch->req->out_path, pid))) {
        free(c);
        free(arg);
        record_session_close(session);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    c->run.req = ch->req;
    c->run.out_path = c->out_path;
    c->run.session = session;
    c->run.pid = pid;
    *arg = (child_arg){ ch, c };
    pthread_mutex_lock(&ch->lock);
    if (pthread_create(&c->thread, NULL, child_main, arg) != 0) {
        pthread_mutex_unlock(&ch->lock);
        record_session_close(session);
        free(c->out_path);
        free(c);
        free(arg);
        return error_set(TEA_ERR_IO, "cannot start a thread");
    }
    ch->running++;
    c->next = ch->list;
    ch->list = c;
    pthread_mutex_unlock(&ch->lock);
    return TEA_OK;
}

/* Takes one child's stream if one comes within timeout_ms; *took = 1 then. */
static int take_child(children *ch, int timeout_ms, int *took)
{
    record_session *session;
    pid_t pid;
    int rc = record_session_accept(ch->listener, timeout_ms, &session, &pid);

    *took = rc == TEA_OK && session;
    if (rc || !session)
        return rc;
    return start_child(ch, session, pid);
}

/* The acceptor thread, while the root records. */
static void *accept_children(void *arg)
{
    children *ch = arg;
    int took;
    while (!atomic_load(&ch->stop))
        if (take_child(ch, RECORD_ACCEPT_MS, &took))
            fprintf(stderr, "tea record: %s\n", error_message());
    return NULL;
}

/* Opens the socket children connect to and starts taking their streams. */
static int children_start(children *ch, const record_request *req)
{
    int rc;
    memset(ch, 0, sizeof *ch);
    ch->req = req;
    atomic_init(&ch->stop, 0);
    pthread_mutex_init(&ch->lock, NULL);
    if ((rc = record_session_listen(&ch->listener)))
        return rc;
    if (pthread_create(&ch->acceptor, NULL, accept_children, ch) != 0)
        return error_set(TEA_ERR_IO, "cannot start a thread");
    ch->accepting = 1;
    return TEA_OK;
}

/* Once the root has ended: takes the streams of children still to come
 * until every child's stream has ended and none waits to connect. */
static void children_drain(children *ch)
{
    int took;
    if (ch->accepting) {
        atomic_store(&ch->stop, 1);
        pthread_join(ch->acceptor, NULL);
        ch->accepting = 0;
    }
    for (;;) {
        unsigned running;
        pthread_mutex_lock(&ch->lock);
        running = ch->running;
        pthread_mutex_unlock(&ch->lock);
        if (take_child(ch, running ? RECORD_ACCEPT_MS : 0, &took))
            fprintf(stderr, "tea record: %s\n", error_message());
        else if (!running && !took)
            break;
    }
}

/* Waits for every child's recording, says what each wrote, and closes the
 * socket. */
static void children_finish(children *ch, int quiet)
{
    if (!ch->listener)
        return;
    children_drain(ch);
    while (ch->list) {
        child_run *c = ch->list;
        ch->list = c->next;
        pthread_join(c->thread, NULL);
        if (!c->programs)
            ch->forks_without_program++;
        else if (c->rc)
            fprintf(stderr, "tea record: child %ld: %s\n", c->run.pid, c->message);
        else if (!quiet)
            fprintf(stderr, "tea record: child %ld: %s: %llu instructions\n", c->run.pid, c->out_path,
                    (unsigned long long)c->run.instructions);
        free(c->out_path);
        free(c);
    }
    if (ch->forks_without_program && !quiet)
        fprintf(stderr, "tea record: %zu forked process%s ran no program of %s own (nothing to record)\n",
                ch->forks_without_program, ch->forks_without_program == 1 ? "" : "es",
                ch->forks_without_program == 1 ? "its" : "their");
    record_session_listener_close(ch->listener);
    ch->listener = NULL;
    pthread_mutex_destroy(&ch->lock);
}

/* --- the command ------------------------------------------------------------- */

/* The summary line (unless -q), with the threads that ran when there
 * were several. */
static void summarize(const record_run *run, const model_core *core)
{
    const model_stats *s = model_core_stats(core);
    const record_session_stats *vs = record_session_get_stats(run->session);
    double region = run->region_end - run->region_start;

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
    if (run->thread_count > 1) {
        char threads[RECORD_THREADS_TEXT];
        size_t len = 0;
        append(threads, sizeof threads, &len, "threads ran: ");
        append_threads(run, threads, sizeof threads, &len);
        fprintf(stderr, "%s; ", threads);
    }
    fprintf(stderr, "%s\n", stop_reason(vs->stop));
}

/* What tea record ends with once the trace is written. */
static int finished_status(const record_run *run)
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
        if (run->req->progress != PROGRESS_OFF)
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

/* Records the program (and, with --trace-children, its children); *exit is
 * the command's exit status when the root's trace is written. */
static int record(record_request *req, int *exit_status)
{
    record_run run;
    model_core *core = NULL;
    char *tool_dir = find_tool_dir();
    children ch;
    size_t leftovers;
    int rc;

    memset(&run, 0, sizeof run);
    run.req = req;
    run.out_path = req->out_path;
    run.root = 1;
    memset(&ch, 0, sizeof ch);
    req->vg.tool_dir = tool_dir;
    cleanup_keep_on_interrupt();
    if ((rc = record_session_adopt_orphans()))
        goto done;
    if (req->trace_children) {
        if ((rc = children_start(&ch, req)))
            goto done;
        req->vg.children_socket = record_session_listener_name(ch.listener);
    }
    if ((rc = record_session_spawn(&run.session, req->argv, &req->vg)))
        goto done;
    rc = record_stream(&run, &core);
    if (rc == TEA_OK) {
        if (req->progress != PROGRESS_OFF)
            summarize(&run, core);
        warn_thread_share(&run);
        *exit_status = finished_status(&run);
    }
done:
    free_run(&run);
    model_core_free(core);
    if (cleanup_interrupted())
        record_session_kill_leftovers(tool_dir); /* children still running end too */
    children_finish(&ch, req->progress == PROGRESS_OFF);
    leftovers = record_session_kill_leftovers(tool_dir);
    if (leftovers && req->progress != PROGRESS_OFF)
        fprintf(stderr, "tea record: ended %zu process%s the program left running under Valgrind\n", leftovers,
                leftovers == 1 ? "" : "es");
    free(tool_dir);
    return rc;
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
    req->starts = NULL;
}

/* Reads and checks --simpoints/--weights (`warmup` as check_sampling's):
 * the tool then times sample_length (default: the interval) instructions
 * from each region's first one. A usage error's exit status, or 0. */
static int check_simpoints(const char *prog, record_request *req, uint64_t warmup)
{
    record_session_options *vg = &req->vg;
    const record_simpoint_list *l = &req->simpoints;
    int rc;

    if (!req->simpoints_path && !req->weights_path) {
        if (req->simpoint_interval)
            return cli_usage_error(prog, "--simpoint-interval needs --simpoints and --weights");
        return 0;
    }
    if (!req->simpoints_path || !req->weights_path)
        return cli_usage_error(prog, "--simpoints and --weights go together");
    if (vg->sample_every || vg->skip || vg->max_instructions || vg->stop_at || vg->warmup)
        return cli_usage_error(prog, "--simpoints does not go with --sample-every, --skip, --max-instructions, "
                                     "--stop-at or --warmup (use --sample-warmup)");
    if (!req->simpoint_interval)
        req->simpoint_interval = RECORD_SIMPOINT_INTERVAL;
    if (!vg->sample_length)
        vg->sample_length = req->simpoint_interval;
    if (vg->sample_length > req->simpoint_interval)
        return cli_usage_error(prog, "--sample-length %llu is over --simpoint-interval %llu",
                               (unsigned long long)vg->sample_length, (unsigned long long)req->simpoint_interval);
    if ((rc = record_simpoint_read(&req->simpoints, req->simpoints_path, req->weights_path)))
        return cli_fail(prog, rc);
    if (!(req->starts = calloc(l->count, sizeof *req->starts)))
        return cli_fail(prog, error_set(TEA_ERR_NOMEM, "out of memory"));
    for (size_t k = 0; k < l->count; k++) {
        if (l->regions[k].interval >= RECORD_START_MAX / req->simpoint_interval)
            return cli_usage_error(prog, "%s: interval %llu of %llu instructions starts beyond 2^62",
                                   req->simpoints_path, (unsigned long long)l->regions[k].interval,
                                   (unsigned long long)req->simpoint_interval);
        req->starts[k] = l->regions[k].interval * req->simpoint_interval;
    }
    vg->sample_starts = req->starts;
    vg->sample_start_count = l->count;
    if (warmup == UINT64_MAX)
        warmup = RECORD_SAMPLE_WARMUP;
    /* all: whatever lies between a region and the one before it, at most its start */
    vg->warmup = warmup == SAMPLE_WARMUP_ALL || warmup > req->starts[l->count - 1] ? req->starts[l->count - 1]
                                                                                   : warmup;
    return 0;
}

int cmd_tea_record(int argc, char **argv)
{
    record_request req;
    uint64_t sample_warmup = UINT64_MAX; /* unset */
    int rc, exit_status = CLI_EXIT_OK, fast_forwards;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &req.out_path, "trace to write (default record.tea)"),
        CLI_OPTION_TRACE_FORMAT("format", &req.write.format, "native (default) or tracedoctor"),
        MODEL_OPTIONS_CONFIG(&req.model, "core model parameters ('key = value'; tea gen --print-config)"),
        MODEL_OPTIONS_SET(&req.model),
        CLI_UINT("max-instructions", "N", &req.vg.max_instructions, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "stop recording after N instructions"),
        CLI_UINT("skip", "N", &req.vg.skip, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "skip N instructions once started (run at about the speed\nof valgrind --tool=none, not recorded)"),
        CLI_UINT("warmup", "N", &req.vg.warmup, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "then warm the model with N instructions (not recorded)"),
        CLI_UINT("sample-every", "N", &req.vg.sample_every, 2, UINT64_MAX, "invalid instruction count '%s'",
                 "sampled recording: time a window in every N instructions\n(after --skip); the windows estimate the whole run\n(10^7 suits a run of 10^10; docs/semantics.md)"),
        CLI_UINT("sample-length", "L", &req.vg.sample_length, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "timed instructions per window (default " CLI_STR(RECORD_SAMPLE_LENGTH) ")"),
        CLI_CALL("sample-warmup", 0, "W|all", sample_warmup_option, &sample_warmup,
                 "instructions warming the model before each window\n(default " CLI_STR(RECORD_SAMPLE_WARMUP) ", at most N - L); all: every\ninstruction between windows (functional warming: the\nleast bias, at about half a full recording's time)"),
        CLI_CALL("warm-caches", 0, "yes|no", warm_caches_option, &req.warm_caches,
                 "keep the model's L1 D, LLC and touched pages warm through\nevery fast-forward: the tool updates copies of them with\neach access, and each window starts from them (default\nyes when sampling, no with --skip alone or --sample-warmup\nall; docs/semantics.md)"),
        CLI_UINT("branch-warmup", "N", &req.vg.branch_warmup, 0, RECORD_START_MAX - 1, "invalid instruction count '%s'",
                 "train the model's branch predictor with the branches of\nthe last N instructions of every fast-forward, as the tool\nruns them (default " CLI_STR(
                     RECORD_BRANCH_WARMUP) " when sampling, 0 with --skip\nalone or --sample-warmup all; docs/semantics.md)"),
        CLI_STRING("simpoints", 0, "FILE", &req.simpoints_path,
                   "time SimPoint's regions instead (SimPoint 3's -saveSimpoints\nfile: 'INTERVAL CLUSTER' lines), "
                   "each standing for its\ncluster's intervals (needs --weights; docs/semantics.md)"),
        CLI_STRING("weights", 0, "FILE", &req.weights_path,
                   "SimPoint 3's -saveSimpointWeights file ('WEIGHT CLUSTER')"),
        CLI_UINT("simpoint-interval", "N", &req.simpoint_interval, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "instructions per SimPoint interval, exp-bbv's\n--interval-size (default " CLI_STR(
                     RECORD_SIMPOINT_INTERVAL) "); each region\ntimes --sample-length of them (default all)"),
        CLI_STRING("start-at", 0, "FUNCTION", &req.vg.start_at, "start recording at FUNCTION's entry (any object)"),
        CLI_STRING("stop-at", 0, "FUNCTION", &req.vg.stop_at, "stop recording at FUNCTION's entry (recorded)"),
        CLI_FLAG("wait-start", 0, &req.vg.wait_start, "start recording at tea_record_start() (include/tea_record.h)"),
        CLI_FLAG("kill-after", 0, &req.vg.kill_after, "kill the program when recording stops"),
        CLI_FLAG("trace-children", 0, &req.trace_children,
                 "also record the programs of forked child processes, each\nchild into OUT.PID.tea (the same region options apply)"),
        CLI_UINT("thread", "N", &req.vg.thread, 1, UINT32_MAX, "invalid thread number '%s'",
                 "record Valgrind's thread N (default 1, the main thread)"),
        CLI_UINT("hint-after", "N", &req.hint_after, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "once a full (not sampled) recording passes N instructions,\nnote its rate and --sample-every on stderr (default\n" CLI_STR(
                     RECORD_HINT_AFTER) "; 0: never)"),
        CLI_STRING("valgrind", 0, "PATH", &req.vg.valgrind, "the valgrind to run (default: valgrind in PATH)"),
        CLI_OPTIONS_PROGRESS(&req.progress),
        CLI_OPTION_HELP,
    };
    /* Options end at the program to record. */
    const cli_command command = { RECORD_SYNOPSIS, NULL, 27, 1, options, sizeof options / sizeof options[0] };

    memset(&req, 0, sizeof req);
    req.out_path = RECORD_DEFAULT_OUTPUT;
    req.write.format = TRACE_FORMAT_NATIVE;
    req.argc_all = argc;
    req.argv_all = argv;
    req.warm_caches = -1;
    req.hint_after = RECORD_HINT_AFTER;
    req.vg.branch_warmup = RECORD_BRANCH_WARMUP_UNSET;
    model_config_defaults(&req.model);
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind >= argc)
        return cli_usage_error(argv[0], "missing PROGRAM (use: tea record [OPTIONS] -- PROGRAM [ARGS...])");
    if (model_config_check(&req.model))
        return cli_usage_error(argv[0], "%s", error_message());
    if ((rc = check_simpoints(argv[0], &req, sample_warmup))
        || (rc = check_sampling(argv[0], &req.vg, sample_warmup))) {
        free_request(&req);
        return rc;
    }
    /* warm caches and predictor: on when sampling with a fast-forward
     * between windows (not with --sample-warmup all, which leaves none) */
    fast_forwards = (req.vg.sample_every || req.simpoints_path) && sample_warmup != SAMPLE_WARMUP_ALL;
    if (req.warm_caches < 0)
        req.warm_caches = fast_forwards;
    if (req.warm_caches)
        req.vg.warm_caches = &req.model;
    if (req.vg.branch_warmup == RECORD_BRANCH_WARMUP_UNSET)
        req.vg.branch_warmup = fast_forwards ? RECORD_BRANCH_WARMUP : 0;
    req.argv = argv + optind;
    if ((rc = record(&req, &exit_status))) {
        exit_status = cli_fail(argv[0], rc);
        if (cleanup_interrupted())
            exit_status = cleanup_exit_status(cleanup_interrupted());
    }
    free_request(&req);
    return exit_status;
}
