/*
 * tea_record.c: `tea record`, a native trace of a real x86-64 program, made
 * by running it under tea's own Valgrind tool (record/tearec.c) and timing
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
#include "model/vgrecord.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#define RECORD_FIFO_SUFFIX ".fifo"
/* How often the children's FIFO directory is looked at. */
#define RECORD_WATCH_NS 10000000L

typedef struct record_request {
    const char *out_path;
    trace_write_options write;
    model_config model;
    model_vgrecord_options vg;
    progress_mode progress; /* PROGRESS_OFF (-q) also silences the summary */
    int trace_children;
    char **argv;          /* the program and its arguments */
    int argc_all;
    char **argv_all;      /* tea's own command line, for the header */
} record_request;

/* Everything the emit and progress callbacks need. */
typedef struct record_run {
    const record_request *req;
    const char *out_path;
    model_vgrecord *session;
    trace_writer *writer;
    double start;
    progress_meter meter;   /* instructions recorded, towards --max-instructions */
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
    "--trace-children records each program a child executes into OUT.PID.tea.\n\n"                      \
    "Options:\n"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The model's progress callback: instructions recorded so far. */
static void progress(void *ctx, const model_stats *s)
{
    record_run *run = ctx;
    progress_update(&run->meter, s->instructions);
}

/* Opens the writer at the first batch: by then the program is known. */
static int open_writer(record_run *run)
{
    const record_request *req = run->req;
    const model_vgrecord_program *prog = model_vgrecord_get_program(run->session);
    char generator[96];
    char *command = cli_join_command(req->argc_all, req->argv_all);
    trace_header h;
    int rc;

    trace_header_init(&h);
    snprintf(h.arch, sizeof h.arch, "%s", RECORD_ARCH);
    h.va_bits = RECORD_VA_BITS;
    h.commit_width = req->model.core.width;
    h.rob_size = req->model.core.rob_size;
    snprintf(generator, sizeof generator, "%s (tea record, valgrind tearec)", cli_version());
    h.load_bias = prog->load_bias;
    h.has_load_bias = prog->have_bias;
    if (!command || trace_header_set(&h.generator, generator) || trace_header_set(&h.command_line, command)
        || trace_header_set(&h.binary_path, prog->path) || trace_header_set(&h.build_id, prog->build_id))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    else
        rc = trace_writer_open(&run->writer, run->out_path, &h, &req->write);
    trace_header_free(&h);
    free(command);
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
    case MODEL_VGRECORD_STOP_MAX: return "stopped at --max-instructions";
    case MODEL_VGRECORD_STOP_SYMBOL: return "stopped at the --stop-at function";
    case MODEL_VGRECORD_STOP_REQUEST: return "stopped by tea_record_stop()";
    case MODEL_VGRECORD_STOP_EXIT: return "recorded to the program's end";
    default:
        return "the stream ended early";
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
    const model_vgrecord_object *objs = model_vgrecord_objects(run->session, &count);

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

/* Runs the model over the session's stream to its end and finishes the
 * trace (objects, thread). `root`: the process tea record started, whose
 * Valgrind is waited for (*status as model_vgrecord_wait) before finishing. */
static int run_model(record_run *run, model_core **core, int root, int *status)
{
    model_source src = model_vgrecord_source(run->session);
    int rc;

    *status = 0;
    if ((rc = model_core_create(core, &run->req->model, &src)))
        return rc;
    model_vgrecord_set_warm(run->session, warm, *core);
    if (root) {
        progress_start(&run->meter, run->req->progress, stderr, "tea record", "instructions",
                       run->req->vg.max_instructions);
        model_core_set_progress(*core, progress, run);
    }
    rc = model_core_run(*core, 0, 0, emit, run);
    progress_end(&run->meter);
    if (rc == TEA_OK && root)
        rc = model_vgrecord_wait(run->session, status);
    if (rc == TEA_OK && (!run->writer || model_vgrecord_get_stats(run->session)->instructions == 0))
        rc = error_set(TEA_ERR_IO, "no instruction was recorded (%s)",
                       stop_reason(model_vgrecord_get_stats(run->session)->stop));
    if (rc == TEA_OK)
        rc = add_objects(run);
    if (rc == TEA_OK && model_vgrecord_get_stats(run->session)->threads_seen)
        rc = trace_writer_set_thread(run->writer, run->req->vg.thread ? run->req->vg.thread : 1,
                                     model_vgrecord_get_stats(run->session)->threads_seen);
    if (rc == TEA_OK) {
        rc = trace_writer_finish(run->writer, NULL);
        run->writer = NULL;
    }
    return rc;
}

/* --- --trace-children ------------------------------------------------------ */

/* A child process's recording: its FIFO, its thread, its trace. */
typedef struct child_run {
    record_run run;
    char *fifo;
    char *out_path;            /* OUT.PID.tea */
    long pid;
    pthread_t thread;
    int rc;
    uint64_t instructions;
    char message[256];         /* the error, when rc != 0 */
    struct child_run *next;
} child_run;

/* Children's FIFOs appear in `dir`; a watcher thread starts a child_run for
 * each. */
typedef struct children {
    const record_request *req;
    char dir[PATH_MAX];
    pthread_t watcher;
    int watching;
    atomic_int stop;
    child_run *list;
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

/* A child's thread: opens its FIFO (waiting for the tool to open the other
 * end), then models its stream into its own trace. */
static void *child_main(void *arg)
{
    child_run *c = arg;
    model_core *core = NULL;
    int status, fd = open(c->fifo, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        c->rc = error_set(TEA_ERR_IO, "%s: %s", c->fifo, strerror(errno));
    } else {
        unlink(c->fifo);
        if ((c->rc = model_vgrecord_open_fd(&c->run.session, fd, c->fifo)) == TEA_OK) {
            c->rc = run_model(&c->run, &core, 0, &status);
            c->instructions = model_vgrecord_get_stats(c->run.session)->instructions;
        } else {
            close(fd);
        }
    }
    if (c->rc)
        snprintf(c->message, sizeof c->message, "%s", error_message());
    trace_writer_abort(c->run.writer);
    c->run.writer = NULL;
    model_core_free(core);
    model_vgrecord_close(c->run.session);
    c->run.session = NULL;
    return NULL;
}

/* Starts a child_run for every new FIFO in the directory. */
static void scan_children(children *ch)
{
    DIR *d = opendir(ch->dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        child_run *c;
        int known = 0;
        if (end == e->d_name || strcmp(end, RECORD_FIFO_SUFFIX))
            continue;
        for (c = ch->list; c; c = c->next)
            known |= c->pid == pid;
        if (known || !(c = calloc(1, sizeof *c)))
            continue;
        c->pid = pid;
        c->fifo = malloc(strlen(ch->dir) + strlen(e->d_name) + 2);
        c->out_path = child_output(ch->req->out_path, pid);
        if (!c->fifo || !c->out_path) {
            free(c->fifo);
            free(c->out_path);
            free(c);
            continue;
        }
        sprintf(c->fifo, "%s/%s", ch->dir, e->d_name);
        c->run.req = ch->req;
        c->run.out_path = c->out_path;
        c->run.start = now();
        if (pthread_create(&c->thread, NULL, child_main, c) != 0) {
            free(c->fifo);
            free(c->out_path);
            free(c);
            continue;
        }
        c->next = ch->list;
        ch->list = c;
    }
    closedir(d);
}

static void *watch_children(void *arg)
{
    children *ch = arg;
    const struct timespec pause = { 0, RECORD_WATCH_NS };
    while (!atomic_load(&ch->stop)) {
        scan_children(ch);
        nanosleep(&pause, NULL);
    }
    scan_children(ch);
    return NULL;
}

/* Makes the FIFO directory and starts watching it. */
static int children_start(children *ch, const record_request *req)
{
    const char *tmp = getenv("TMPDIR");
    memset(ch, 0, sizeof *ch);
    ch->req = req;
    atomic_init(&ch->stop, 0);
    snprintf(ch->dir, sizeof ch->dir, "%s/tea-record-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(ch->dir))
        return error_set(TEA_ERR_IO, "cannot create a directory for the children's streams: %s", strerror(errno));
    cleanup_add_dir(ch->dir);
    if (pthread_create(&ch->watcher, NULL, watch_children, ch) != 0) {
        rmdir(ch->dir);
        return error_set(TEA_ERR_IO, "cannot start a thread");
    }
    ch->watching = 1;
    return TEA_OK;
}

/* Waits for every child's recording (they end when the children do), says
 * what each wrote, and removes the directory. */
static void children_finish(children *ch, int quiet)
{
    if (!ch->watching)
        return;
    atomic_store(&ch->stop, 1);
    pthread_join(ch->watcher, NULL);
    while (ch->list) {
        child_run *c = ch->list;
        ch->list = c->next;
        pthread_join(c->thread, NULL);
        if (c->rc)
            fprintf(stderr, "tea record: child %ld: %s\n", c->pid, c->message);
        else if (!quiet)
            fprintf(stderr, "tea record: child %ld: %s: %llu instructions\n", c->pid, c->out_path,
                    (unsigned long long)c->instructions);
        free(c->fifo);
        free(c->out_path);
        free(c);
    }
    rmdir(ch->dir);
    ch->watching = 0;
}

static int record(record_request *req)
{
    record_run run = { req, req->out_path, NULL, NULL, now(), { 0 } };
    model_core *core = NULL;
    char *tool_dir = find_tool_dir();
    children ch;
    int rc, status = 0;

    memset(&ch, 0, sizeof ch);
    req->vg.tool_dir = tool_dir;
    if (req->trace_children) {
        if ((rc = children_start(&ch, req)))
            goto done;
        req->vg.children_dir = ch.dir;
    }
    if ((rc = model_vgrecord_spawn(&run.session, req->argv, &req->vg)))
        goto done;
    rc = run_model(&run, &core, 1, &status);
    if (rc == TEA_OK && req->progress != PROGRESS_OFF) {
        const model_stats *s = model_core_stats(core);
        const model_vgrecord_stats *vs = model_vgrecord_get_stats(run.session);
        double elapsed = now() - run.start;
        fprintf(stderr,
                "tea record: %s: %llu instructions in %llu cycles (IPC %.2f), %.2f M instructions/s; "
                "%llu static instructions (%llu not decodable), %llu objects; %s\n",
                req->out_path, (unsigned long long)s->instructions, (unsigned long long)s->cycles,
                s->cycles ? (double)s->committed / (double)s->cycles : 0.0,
                elapsed > 0 ? (double)s->instructions / elapsed / 1e6 : 0.0,
                (unsigned long long)vs->static_insns, (unsigned long long)vs->undecodable,
                (unsigned long long)vs->objects, stop_reason(vs->stop));
        if (status == -1)
            fprintf(stderr, "tea record: the program was killed after recording (--kill-after)\n");
        else if (status != 0)
            fprintf(stderr, "tea record: warning: the program exited with status %d\n", status);
    }
done:
    trace_writer_abort(run.writer);
    model_core_free(core);
    model_vgrecord_close(run.session);
    children_finish(&ch, req->progress == PROGRESS_OFF);
    free(tool_dir);
    return rc;
}

int cmd_tea_record(int argc, char **argv)
{
    record_request req;
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &req.out_path, "trace to write (default record.tea)"),
        CLI_OPTION_TRACE_FORMAT("format", &req.write.format, "native (default) or tracedoctor"),
        MODEL_OPTIONS_CONFIG(&req.model, "core model parameters ('key = value'; tea gen --print-config)"),
        MODEL_OPTIONS_SET(&req.model),
        CLI_UINT("max-instructions", "N", &req.vg.max_instructions, 1, UINT64_MAX, "invalid instruction count '%s'",
                 "stop recording after N instructions"),
        CLI_UINT("skip", "N", &req.vg.skip, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "skip N instructions once started (run, not recorded)"),
        CLI_UINT("warmup", "N", &req.vg.warmup, 0, UINT64_MAX, "invalid instruction count '%s'",
                 "then warm the model with N instructions (not recorded)"),
        CLI_STRING("start-at", 0, "FUNCTION", &req.vg.start_at, "start recording at FUNCTION's entry (any object)"),
        CLI_STRING("stop-at", 0, "FUNCTION", &req.vg.stop_at, "stop recording at FUNCTION's entry (recorded)"),
        CLI_FLAG("wait-start", 0, &req.vg.wait_start, "start recording at tea_record_start() (include/tea_record.h)"),
        CLI_FLAG("kill-after", 0, &req.vg.kill_after, "kill the program when recording stops"),
        CLI_FLAG("trace-children", 0, &req.trace_children,
                 "record each program a child process executes into OUT.PID.tea\n(the same region options apply)"),
        CLI_UINT("thread", "N", &req.vg.thread, 1, UINT32_MAX, "invalid thread number '%s'",
                 "record Valgrind's thread N (default 1, the main thread)"),
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
    model_config_defaults(&req.model);
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind >= argc)
        return cli_usage_error(argv[0], "missing PROGRAM (use: tea record [OPTIONS] -- PROGRAM [ARGS...])");
    if (model_config_check(&req.model))
        return cli_usage_error(argv[0], "%s", error_message());
    req.argv = argv + optind;
    if ((rc = record(&req)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
