/*
 * run.c: the record driver (see run.h): one process's stream through the
 * core model into its trace, the programs an exec runs, the run's facts,
 * and the forked children's recordings on threads of their own.
 */
#define _GNU_SOURCE
#include "run.h"
#include "binary/symbolize.h"
#include "binary/symbols.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/outdir.h"
#include "trace/callpath.h"

#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What the trace header says of every recording: tea's Valgrind tool runs
 * x86-64 programs, whose user addresses have 48 bits. */
#define RECORD_ARCH "x86_64"
#define RECORD_VA_BITS 48
#define RECORD_SUFFIX ".tea"
/* How long the root's recording waits for a child's stream at a time, ms. */
#define RECORD_ACCEPT_MS 10
#define NS_PER_S 1e9
/* Window ends kept at first (sampling); the list doubles. */
#define RECORD_WINDOWS_INITIAL 64
/* Room for OUT.PID.tea beyond OUT: the dot and a pid's digits. */
#define RECORD_CHILD_PATH_EXTRA 32

/* One process's recording: its stream, the programs it ran, its trace. */
/* The stacks the tool unwound where sampled windows started
 * (record_session_set_stacks), kept until the tracker reaches each
 * window: window w's return addresses are returns[first[w] ..
 * first[w] + count[w]). */
typedef struct window_stacks {
    uint64_t *returns;
    size_t used, cap;       /* return addresses */
    size_t *first, *count;
    size_t windows, windows_cap;
} window_stacks;

typedef struct process {
    const record_run_options *o;
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
    int hinted;             /* the note on --sample-every was given */
    trace_thread_count *threads; /* the traced program's threads that ran (the tool's counts) */
    size_t thread_count;
    uint32_t tid;           /* the thread recorded (Valgrind's number) */
    struct thread_group *group; /* several threads: the group whose exit status the trace keeps */
    /* o->call_paths: the µops' calling contexts (docs/semantics.md "Calling contexts") */
    trace_contexts contexts;        /* the tree the trace keeps */
    trace_callpath *tracker;        /* its shadow stack, fed the records in commit order */
    binary_symbolizer *classifier;  /* what each address holds, from the objects mapped so far */
    size_t classifier_objects;      /* ... how many it was opened with */
    window_stacks stacks;           /* the stack each sampled window started on (the tool's) */
} process;

/* A forked child's recording: its process, its thread. */
typedef struct child_run {
    process proc;
    record_run_child result;
    pthread_t thread;
    struct child_run *next;
} child_run;

/* The children's streams: taken by a thread while the root records, then by
 * record_run_finish. */
typedef struct children {
    const record_run_options *o;
    record_session_listener *listener;
    pthread_t acceptor;
    int accepting;             /* the acceptor thread runs */
    atomic_int stop;
    pthread_mutex_t lock;
    int have_lock;
    unsigned running;          /* child threads not yet ended */
    child_run *list;           /* the last taken first */
} children;

/* A recorded thread's recording (several threads): its process, reading
 * the thread's stream split from its process's, on a thread of its own. */
typedef struct thread_run {
    process proc;
    record_run_thread result;
    pthread_t thread;
} thread_run;

/* The recorded threads of one process (record_session_split). */
typedef struct thread_group {
    const record_run_options *o;
    long pid;                  /* the process: 0 the root, else a forked child */
    outdir *dir;               /* OUT, a directory of the threads' traces */
    thread_run **runs;
    size_t count, cap;
    pthread_mutex_t lock;
    int have_lock;
    int has_status, status;    /* the program's exit status, once Valgrind ended (under lock) */
} thread_group;

struct record_run_state {
    record_run_options options; /* with the session's children socket */
    process root;
    model_core *core;
    children ch;
    thread_group group;
    int finished;               /* record_run_finish ran */
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Hands `n` to the options' note callback, if any. */
static void say(const record_run_options *o, const record_run_note *n)
{
    if (o->note)
        o->note(o->note_ctx, n);
}

/* The thread the options record (Valgrind's number). */
static uint32_t recorded_tid(const record_run_options *o)
{
    return o->session.thread ? o->session.thread : 1;
}

/* Whether a recording notes --sample-every once it is long: a full one
 * (not sampled) with hint_after above 0, not quiet. */
static int hints_sampling(const record_run_options *o)
{
    return o->hint_after && !o->session.sample_every && !o->session.sample_starts && o->progress != PROGRESS_OFF;
}

/* Notes, once, that the recording passed hint_after instructions, at the
 * rate measured since the stream's reading began (`instructions` so far). */
static void hint_sampling(process *p, uint64_t instructions)
{
    double elapsed = now() - p->started;
    record_run_note n = { .kind = RECORD_RUN_NOTE_HINT, .pid = p->pid, .instructions = instructions };

    p->hinted = 1;
    n.rate = elapsed > 0 ? (double)instructions / elapsed : 0.0;
    progress_hide(&p->meter);
    say(p->o, &n);
}

/* The model's progress callback: instructions recorded so far; past
 * hint_after of a full recording, the note on --sample-every. */
static void progress(void *ctx, const model_stats *s)
{
    process *p = ctx;
    progress_update(&p->meter, s->instructions);
    if (!p->hinted && hints_sampling(p->o) && s->instructions >= p->o->hint_after)
        hint_sampling(p, s->instructions);
}

/* Opens the writer at the first batch: by then the program is known. */
static int open_writer(process *p)
{
    const record_run_options *o = p->o;
    const record_session_program *prog = record_session_get_program(p->session);
    trace_header h;
    int rc;

    trace_header_init(&h);
    snprintf(h.program.arch, sizeof h.program.arch, "%s", RECORD_ARCH);
    h.va_bits = RECORD_VA_BITS;
    h.commit_width = o->model.core.width;
    h.rob_size = o->model.core.rob_size;
    h.program.load_bias = prog->load_bias;
    h.program.has_load_bias = prog->have_bias;
    if (trace_header_set(&h.generator, o->generator) || trace_header_set(&h.command_line, o->command_line)
        || trace_header_set(&h.program.binary_path, prog->path) || trace_header_set(&h.program.build_id, prog->build_id))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    else
        rc = trace_writer_open(&p->writer, p->out_path, &h, &o->write);
    trace_header_free(&h);
    p->region_start = now();
    return rc;
}

static int add_contexts(process *p, const trace_batch *batch);

/* The model's records: into the trace, opened at the first batch; the
 * last cycle and the last committing one are kept (set_sampling). */
static int emit(void *ctx, const trace_batch *batch)
{
    process *p = ctx;
    int rc;
    if (!p->writer && (rc = open_writer(p)))
        return rc;
    assert(p->writer); /* open_writer succeeded */
    if (p->o->call_paths && (rc = add_contexts(p, batch)))
        return error_prefix(rc, "%s: calling contexts: ", p->out_path);
    if ((rc = trace_writer_write(p->writer, batch)))
        return error_prefix(rc, "%s: ", p->out_path);
    if (batch->count) {
        p->last_cycle = batch->records[batch->count - 1].cycle;
        p->have_last_cycle = 1;
    }
    for (size_t i = batch->count; i-- > 0;)
        if (batch->records[i].n_commit) {
            p->last_commit = batch->records[i].cycle;
            p->have_last_commit = 1;
            break;
        }
    return TEA_OK;
}

/* The model's window callback (sampling): a window ended at last_cycle. */
static int window_ended(void *ctx, uint64_t last_cycle)
{
    process *p = ctx;

    if (p->window_count == p->window_cap) {
        size_t cap = p->window_cap ? 2 * p->window_cap : RECORD_WINDOWS_INITIAL;
        uint64_t *grown = realloc(p->window_ends, cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        p->window_ends = grown;
        p->window_cap = cap;
    }
    if (p->window_count == TRACE_WINDOWS_MAX)
        return error_set(TEA_ERR_USAGE, "more than %u windows: choose a larger --sample-every", TRACE_WINDOWS_MAX);
    assert(p->window_count < p->window_cap); /* room for one more end */
    assert(p->window_count == 0 || last_cycle > p->window_ends[p->window_count - 1]);
    p->window_ends[p->window_count++] = last_cycle;
    return TEA_OK;
}

const char *record_run_stop_reason(int stop)
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

/* An executable mapping the tool reported, as a trace keeps it: with its
 * build-id and load bias when its file could be read. */
static void session_object(const record_session_object *obj, trace_object *o)
{
    memset(o, 0, sizeof *o);
    o->path = obj->path;
    o->start = obj->start;
    o->end = obj->end;
    o->load_bias = obj->have_bias ? obj->load_bias : 0;
    if (obj->build_id) {
        size_t n = strlen(obj->build_id) / 2;
        if (n > TRACE_BUILD_ID_MAX)
            n = 0;
        for (size_t k = 0; k < n; k++) {
            int hi = hex_digit(obj->build_id[2 * k]), lo = hex_digit(obj->build_id[2 * k + 1]);
            if (hi < 0 || lo < 0) {
                n = 0;
                break;
            }
            o->build_id[k] = (uint8_t)(hi << 4 | lo);
        }
        o->build_id_len = (uint32_t)n;
    }
}

/* Adds every executable mapping the tool reported to the trace. */
static int add_objects(process *p)
{
    size_t count;
    const record_session_object *objs = record_session_objects(p->session, &count);

    for (size_t i = 0; i < count; i++) {
        trace_object o;
        int rc;
        session_object(&objs[i], &o);
        if ((rc = trace_writer_add_object(p->writer, &o)))
            return error_prefix(rc, "%s: ", o.path);
    }
    return TEA_OK;
}

/* (Re)opens the classifier over the program and the objects mapped so far:
 * binary/ decodes the instructions from their files, as tea replay
 * --call-paths does from a trace's objects. */
static int open_classifier(process *p)
{
    const record_session_program *prog = record_session_get_program(p->session);
    binary_symbolize_options opts;
    trace_object_list objects;
    trace_program program;
    size_t count;
    const record_session_object *objs = record_session_objects(p->session, &count);
    int rc = TEA_OK;

    memset(&opts, 0, sizeof opts);
    memset(&objects, 0, sizeof objects);
    memset(&program, 0, sizeof program);
    opts.command = p->o->command;
    program.binary_path = prog->path;
    program.build_id = prog->build_id;
    program.load_bias = prog->load_bias;
    program.has_load_bias = prog->have_bias;
    for (size_t i = 0; i < count && rc == TEA_OK; i++) {
        trace_object o;
        session_object(&objs[i], &o);
        rc = trace_object_list_add(&objects, &o);
    }
    binary_symbolize_close(p->classifier);
    p->classifier = NULL;
    if (rc == TEA_OK)
        rc = binary_symbolize_open(&p->classifier, &program, &objects, &opts);
    trace_object_list_free(&objects);
    p->classifier_objects = count;
    return rc;
}

/* The tracker's classifier: reopened whenever the program mapped more
 * code (an object is reported before its code runs). */
static int classify(void *ctx, uint64_t pc, trace_insn_class *out)
{
    process *p = ctx;
    size_t count;
    int rc;

    record_session_objects(p->session, &count);
    if ((!p->classifier || count != p->classifier_objects) && (rc = open_classifier(p)))
        return rc;
    return binary_symbolize_classify(p->classifier, pc, out);
}

/* Whether the tool sends the stack each sampled window starts on: call
 * paths in a sampled recording. */
static int wants_window_stacks(const record_run_options *o)
{
    return o->call_paths && (o->session.sample_every || o->session.sample_starts);
}

/* The session's stacks callback: the stack window `window` starts on. */
static int stack_arrived(void *ctx, uint64_t window, const uint64_t *returns, size_t count)
{
    window_stacks *w = &((process *)ctx)->stacks;
    if (window < w->windows)
        return error_set(TEA_ERR_FORMAT, "the tool sent window %llu's stack twice", (unsigned long long)window);
    while (w->windows <= window) { /* windows the tool sent none for have none */
        if (w->windows == w->windows_cap) {
            size_t cap = w->windows_cap ? 2 * w->windows_cap : RECORD_WINDOWS_INITIAL;
            size_t *first = realloc(w->first, cap * sizeof *first);
            if (first)
                w->first = first;
            size_t *counts = first ? realloc(w->count, cap * sizeof *counts) : NULL;
            if (!counts)
                return error_set(TEA_ERR_NOMEM, "out of memory for the windows' stacks");
            w->count = counts;
            w->windows_cap = cap;
        }
        w->first[w->windows] = w->used;
        w->count[w->windows++] = 0;
    }
    if (w->used + count > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : RECORD_WINDOWS_INITIAL;
        while (cap < w->used + count)
            cap *= 2;
        uint64_t *grown = realloc(w->returns, cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory for the windows' stacks");
        w->returns = grown;
        w->cap = cap;
    }
    memcpy(w->returns + w->used, returns, count * sizeof *returns);
    w->count[window] = count;
    w->used += count;
    return TEA_OK;
}

/* The tracker's stacks callback: window `window`'s, none when the tool
 * sent none. */
static int window_stack(void *arg, size_t window, const uint64_t **returns, size_t *count)
{
    const window_stacks *w = &((process *)arg)->stacks;
    *returns = NULL;
    *count = 0;
    if (window < w->windows) {
        *returns = w->returns + w->first[window];
        *count = w->count[window];
    }
    return TEA_OK;
}

static void free_window_stacks(window_stacks *w)
{
    free(w->returns);
    free(w->first);
    free(w->count);
    memset(w, 0, sizeof *w);
}

/* The calling contexts of a batch of the model's records, before they are
 * written: the tracker's shadow stack over the committed instructions,
 * each sampled window from the stack the tool unwound where it started
 * (the fast-forward before it is not followed). */
static int add_contexts(process *p, const trace_batch *batch)
{
    int rc;
    if (!p->tracker) {
        if ((rc = trace_contexts_init(&p->contexts))
            || (rc = trace_callpath_create(&p->tracker, &p->contexts, classify, p)))
            return rc;
        if (wants_window_stacks(p->o))
            trace_callpath_set_stacks(p->tracker, window_stack, p);
    }
    trace_callpath_update_windows(p->tracker, p->window_ends, p->window_count);
    /* the model's batch is the recorder's to annotate: only its µops' contexts change */
    return trace_callpath_batch(p->tracker, (trace_batch *)batch);
}

static void free_contexts(process *p)
{
    trace_callpath_free(p->tracker);
    p->tracker = NULL;
    binary_symbolize_close(p->classifier);
    p->classifier = NULL;
    p->classifier_objects = 0;
    trace_contexts_free(&p->contexts);
    free_window_stacks(&p->stacks);
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
 * address); else up to RECORD_RUN_SUGGESTIONS close names join `close`,
 * and *keep holds the symbols they point into. */
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
    if (*nclose < RECORD_RUN_SUGGESTIONS)
        *nclose += binary_symbols_suggest(s, name, close + *nclose, RECORD_RUN_SUGGESTIONS - *nclose);
    assert(*nclose <= RECORD_RUN_SUGGESTIONS); /* suggest writes no more than the room it is given */
    *keep = s; /* the suggestions point into it */
    return 0;
}

/* Notes why a --start-at recorded nothing: no object of the program has
 * the function (with close names), or it was never reached. */
static void explain_start_at(const process *p)
{
    const char *close[RECORD_RUN_SUGGESTIONS];
    binary_symbols *keep[RECORD_SESSION_OBJECTS_MAX];
    size_t count, nclose = 0, nkeep = 0;
    const record_session_object *objs = record_session_objects(p->session, &count);
    record_run_note n = { .kind = RECORD_RUN_NOTE_START_AT, .pid = p->pid };

    assert(count <= RECORD_SESSION_OBJECTS_MAX); /* the session keeps no more objects: keep[] has room */
    for (size_t i = 0; i < count && !n.path; i++) {
        binary_symbols *s;
        if (object_has_function(objs[i].path, p->o->session.start_at, close, &nclose, &s))
            n.path = objs[i].path;
        else if (s)
            keep[nkeep++] = s;
    }
    n.count = count;
    n.names = close;
    n.name_count = n.path ? 0 : nclose;
    say(p->o, &n);
    for (size_t i = 0; i < nkeep; i++)
        binary_symbols_close(keep[i]);
}

/* --- the program's threads ------------------------------------------------- */

/* Keeps the tool's counts of the traced program's threads (none from a
 * stream that ended early). */
static int take_threads(process *p)
{
    size_t count;
    const record_session_thread *t = record_session_threads(p->session, &count);

    free(p->threads);
    p->threads = NULL;
    p->thread_count = 0;
    if (!count)
        return TEA_OK;
    if (!(p->threads = malloc(count * sizeof *p->threads)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        p->threads[i].tid = t[i].tid;
        p->threads[i].instructions = t[i].instructions;
    }
    p->thread_count = count;
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
    assert(*len < size); /* the NUL stays inside the buffer */
}

/* Appends `count` threads and their instructions, thread `tid` marked
 * recorded (record_run_describe_threads). */
static void append_threads(const trace_thread_count *threads, size_t count, uint32_t tid, char *buf, size_t size,
                           size_t *len)
{
    for (size_t i = 0; i < count && i < RECORD_RUN_THREADS_NAMED; i++)
        append(buf, size, len, "%s%lu%s %llu", i ? ", " : "", (unsigned long)threads[i].tid,
               threads[i].tid == tid ? " (recorded)" : "", (unsigned long long)threads[i].instructions);
    if (count > RECORD_RUN_THREADS_NAMED)
        append(buf, size, len, " and %zu more threads'", count - RECORD_RUN_THREADS_NAMED);
    append(buf, size, len, " instructions");
}

void record_run_describe_threads(const record_run *run, char *buf, size_t size, size_t *len)
{
    append_threads(run->threads, run->thread_count, run->tid, buf, size, len);
}

/* What the threads tell of a recording that recorded nothing, as the end
 * of its error: the recorded thread never ran, or another one ran and
 * --thread records it; "" when the tool did not count them, or the
 * recorded thread ran alone. */
static void explain_threads(const process *p, char *buf, size_t size)
{
    uint32_t tid = p->tid, busiest;
    uint64_t all, mine;
    size_t len = 0;

    buf[0] = '\0';
    trace_threads_sum(p->threads, p->thread_count, tid, &all, &mine, &busiest);
    if (!p->thread_count || (busiest == tid && p->thread_count == 1))
        return;
    if (!mine)
        append(buf, size, &len, "; thread %lu never ran (threads that ran: ", (unsigned long)tid);
    else
        append(buf, size, &len, "; threads that ran: ");
    append_threads(p->threads, p->thread_count, tid, buf, size, &len);
    if (busiest != tid)
        append(buf, size, &len, "; --thread %lu records thread %lu, which ran most", (unsigned long)busiest,
               (unsigned long)busiest);
    if (!mine)
        append(buf, size, &len, ")");
}

int record_run_thread_share(const record_run *run, record_run_share *share)
{
    memset(share, 0, sizeof *share);
    trace_threads_sum(run->threads, run->thread_count, run->tid, &share->all, &share->recorded, &share->busiest);
    assert(share->recorded <= share->all); /* the sum saturates: all - recorded never wraps */
    for (size_t i = 0; i < run->thread_count; i++)
        if (run->threads[i].tid == share->busiest)
            share->busiest_instructions = run->threads[i].instructions;
    share->others = run->thread_count ? run->thread_count - 1 : 0;
    return run->thread_count >= 2 && share->recorded && share->recorded < share->all - share->recorded;
}

/* --- one process's stream ---------------------------------------------------- */

/* Runs the model over the current program's part of the stream, into a
 * new trace (opened at its first records). */
static int run_program(process *p, model_core **core)
{
    model_source src = record_session_source(p->session);
    int rc;

    if ((rc = model_core_create(core, &p->o->model, &src)))
        return rc;
    record_session_set_warm(p->session, warm, *core);
    record_session_set_lines(p->session, place_lines, *core);
    record_session_set_branches(p->session, train_branch, *core);
    if (wants_window_stacks(p->o))
        record_session_set_stacks(p->session, stack_arrived, p);
    model_core_set_window(*core, window_ended, p);
    p->window_count = 0; /* a program exec'd away from leaves none */
    free_window_stacks(&p->stacks);
    p->have_last_cycle = p->have_last_commit = 0;
    if (p->root)
        model_core_set_progress(*core, progress, p);
    rc = model_core_run(*core, 0, 0, emit, p);
    p->region_end = now();
    p->instructions = record_session_get_stats(p->session)->instructions;
    return rc;
}

/* The process exec'd: what was recorded of the program it left is dropped
 * and the program is listed in the run. */
static int note_exec(process *p, const char *left, uint64_t instructions)
{
    trace_exec *grown = realloc(p->execs, (p->exec_count + 1) * sizeof *grown);
    char *path = strdup(left ? left : "?");
    record_run_note n = { .kind = RECORD_RUN_NOTE_EXEC, .pid = p->pid, .instructions = instructions };

    if (grown)
        p->execs = grown;
    if (!grown || !path) {
        free(path);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    grown[p->exec_count].path = path;
    grown[p->exec_count++].instructions = instructions;
    trace_writer_abort(p->writer);
    p->writer = NULL;
    free_contexts(p); /* the contexts of the program left, with its records */
    n.path = path;
    n.next = record_session_get_program(p->session)->exec_path;
    say(p->o, &n);
    progress_restart(&p->meter, p->o->session.max_instructions);
    return TEA_OK;
}

/* Reads a process's stream to its end: every program it runs in turn, the
 * last one's region into the trace. */
static int follow_programs(process *p, model_core **core)
{
    int rc, exec;

    for (;;) {
        uint64_t recorded;
        char *left;
        if ((rc = run_program(p, core)))
            return rc;
        recorded = p->instructions;
        left = record_session_get_program(p->session)->exec_path
                   ? strdup(record_session_get_program(p->session)->exec_path)
                   : NULL;
        rc = record_session_next_program(p->session, &exec);
        if (rc == TEA_OK && exec) {
            model_core_free(*core);
            *core = NULL;
            rc = note_exec(p, left, recorded);
        }
        free(left);
        if (rc || !exec)
            return rc;
    }
}

/* SimPoint's regions (a thread's, when the list has threads): each
 * window's start and the intervals it stands for, round(weight x the
 * run's intervals), the run's intervals counted by
 * the tool to the program's end (a run cut short, by the last region's);
 * regions that do not fit the run counted are refused
 * (record_simpoint_check_fit). */
static int set_weights(process *p, trace_sampling *s)
{
    const record_run_options *o = p->o;
    const record_session_stats *vs = record_session_get_stats(p->session);
    const uint64_t *starts = o->session.sample_starts;
    uint64_t interval = o->simpoint_interval, intervals;
    record_simpoint_list view = *o->simpoints;
    const record_simpoint_list *l = &view;
    int rc;

    if (record_simpoint_threaded(o->simpoints)) { /* a thread's regions, and its starts beside them */
        record_simpoint_thread(o->simpoints, p->tid, &view);
        if (view.count)
            starts += view.regions - o->simpoints->regions;
    }
    if (!l->count) /* the tool's stream, not this code, said so */
        return error_set(TEA_ERR_FORMAT, "the tool reported windows of thread %u, which has no SimPoint region",
                         (unsigned)p->tid);
    assert(interval);
    if (p->window_count > l->count) /* the tool's stream, not this code, said so */
        return error_set(TEA_ERR_FORMAT, "the tool reported %zu windows for %zu SimPoint regions", p->window_count,
                         l->count);
    if (vs->have_count) {
        intervals = vs->region_instructions / interval + (vs->region_instructions % interval != 0);
        if ((rc = record_simpoint_check_fit(l, intervals, interval)))
            return rc;
    } else {
        record_run_note n = { .kind = RECORD_RUN_NOTE_COUNT_UNKNOWN, .pid = p->pid };
        intervals = l->regions[l->count - 1].interval + 1;
        n.count = intervals;
        say(o, &n);
    }
    if (!(p->weights = calloc(l->count, sizeof *p->weights)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    record_simpoint_integer_weights(l, intervals, p->weights);
    s->every = interval;
    s->window_starts = starts;
    s->window_weights = p->weights;
    return TEA_OK;
}

/* The sampling of a sampled recording: the windows that ended and the
 * last one, which the trace's end ends. Instructions committed after the
 * last window that ended make a last, partial window; cycles without
 * commits (the core's last drain) join the window before them, so the
 * windows' cycles add up to the trace's. */
static int set_sampling(process *p, trace_sampling *s)
{
    const record_session_options *so = &p->o->session;
    uint64_t *last_end = p->window_count ? &p->window_ends[p->window_count - 1] : NULL;
    int rc;

    if (p->have_last_cycle && (!last_end || (p->have_last_commit && p->last_commit > *last_end))) {
        if ((rc = window_ended(p, p->last_cycle)))
            return rc;
    } else if (p->have_last_cycle && p->last_cycle > *last_end) {
        *last_end = p->last_cycle;
    }
    /* the windows reach the trace's last cycle */
    assert(!p->have_last_cycle || (p->window_count && p->window_ends[p->window_count - 1] >= p->last_cycle));
    s->every = so->sample_every;
    s->length = so->sample_length;
    s->warmup = so->warmup;
    s->window_ends = p->window_ends;
    s->window_count = p->window_count;
    return so->sample_starts ? set_weights(p, s) : TEA_OK;
}

/* Writes the run's facts, objects and thread and finishes the trace. */
static int finish_trace(process *p)
{
    const record_session_stats *vs = record_session_get_stats(p->session);
    trace_run facts;
    uint32_t *counts = NULL;
    int rc;

    memset(&facts, 0, sizeof facts);
    facts.execs = p->execs;
    facts.exec_count = p->exec_count;
    facts.interrupted = (uint32_t)cleanup_interrupted();
    if (p->group) { /* a thread's recording ends once Valgrind did */
        pthread_mutex_lock(&p->group->lock);
        p->status = p->group->has_status ? p->group->status : -1;
        pthread_mutex_unlock(&p->group->lock);
    }
    if ((p->root || p->group) && p->status >= 0 && !facts.interrupted) {
        facts.has_exit_status = 1;
        facts.exit_status = (uint32_t)p->status;
    }
    if (p->region_end > p->region_start)
        facts.region_ns = (uint64_t)((p->region_end - p->region_start) * NS_PER_S);
    if ((p->o->session.sample_every || p->o->session.sample_starts) && (rc = set_sampling(p, &facts.sampling)))
        return rc;
    if (p->thread_count > 1) { /* a program of one thread keeps the trace it had */
        facts.threads = p->threads;
        facts.thread_count = p->thread_count;
    }
    if (p->tracker) {
        facts.contexts = p->contexts.nodes;
        facts.context_count = p->contexts.count;
    }
    if (p->tracker && p->stacks.windows) { /* the windows' stacks, so that a replay rebuilds the same contexts */
        if (!(counts = malloc(p->stacks.windows * sizeof *counts)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        for (size_t w = 0; w < p->stacks.windows; w++) {
            assert(p->stacks.first[w] == (w ? p->stacks.first[w - 1] + p->stacks.count[w - 1] : 0));
            counts[w] = (uint32_t)p->stacks.count[w];
        }
        facts.stack_counts = counts;
        facts.stack_returns = p->stacks.returns;
        facts.stack_windows = p->stacks.windows;
    }
    rc = add_objects(p);
    if (!rc)
        rc = trace_writer_set_run(p->writer, &facts);
    free(counts);
    if (rc)
        return rc;
    if (vs->threads_seen && (rc = trace_writer_set_thread(p->writer, p->tid, vs->threads_seen)))
        return rc;
    rc = trace_writer_finish(p->writer, NULL);
    p->writer = NULL;
    return rc;
}

/* Records one process's stream into its trace. The root's Valgrind is
 * waited for (p->status as record_session_wait). */
static int record_stream(process *p, model_core **core)
{
    const record_run_options *o = p->o;
    int rc;

    p->status = 0;
    p->started = now();
    if (p->root)
        progress_start(&p->meter, o->progress, stderr, o->command, "instructions", o->session.max_instructions);
    rc = follow_programs(p, core);
    progress_end(&p->meter);
    if (rc == TEA_OK)
        rc = take_threads(p);
    if (rc == TEA_OK && p->root)
        rc = record_session_wait(p->session, &p->status);
    if (rc == TEA_OK && p->group && (!p->writer || p->instructions == 0))
        return TEA_OK; /* a thread that timed nothing (no whole window) leaves no trace */
    if (rc == TEA_OK && (!p->writer || p->instructions == 0)) {
        char threads[RECORD_RUN_THREADS_TEXT];
        if (p->root && o->session.start_at && !cleanup_interrupted())
            explain_start_at(p);
        explain_threads(p, threads, sizeof threads);
        rc = error_set(TEA_ERR_IO, "no instruction was recorded (%s)%s%s",
                       record_run_stop_reason(record_session_get_stats(p->session)->stop),
                       o->session.sample_every    ? "; with --sample-every N, a region shorter than N "
                                                    "instructions has no window"
                       : o->session.sample_starts ? "; the SimPoint regions lie past the program's end"
                                                  : "",
                       threads);
    }
    if (rc == TEA_OK)
        rc = finish_trace(p);
    return rc;
}

static void free_process(process *p)
{
    trace_writer_abort(p->writer);
    p->writer = NULL;
    record_session_close(p->session);
    p->session = NULL;
    for (size_t i = 0; i < p->exec_count; i++)
        free((char *)p->execs[i].path);
    free(p->execs);
    p->execs = NULL;
    p->exec_count = 0;
    free(p->window_ends);
    p->window_ends = NULL;
    p->window_count = p->window_cap = 0;
    free(p->weights);
    p->weights = NULL;
    free(p->threads);
    p->threads = NULL;
    p->thread_count = 0;
    free_contexts(p);
}

/* --- forked children (trace_children) ---------------------------------------- */

/* OUT.PID.tea of `out` ("x.tea" gives "x.PID.tea"). */
static char *child_output(const char *out, long pid)
{
    size_t n = strlen(out), stem = n;
    char *path;
    if (n > strlen(RECORD_SUFFIX) && !strcmp(out + n - strlen(RECORD_SUFFIX), RECORD_SUFFIX))
        stem = n - strlen(RECORD_SUFFIX);
    if (!(path = malloc(n + RECORD_CHILD_PATH_EXTRA)))
        return NULL;
    snprintf(path, n + RECORD_CHILD_PATH_EXTRA, "%.*s.%ld%s", (int)stem, out, pid, RECORD_SUFFIX);
    return path;
}

typedef struct child_arg {
    children *ch;
    child_run *c;
} child_arg;

static int record_group(thread_group *g, const record_run_options *o, record_session *session, const char *out_path,
                        record_run_thread **recorded, size_t *count, uint64_t *instructions, int *status);
static void threads_finish(thread_group *g);

/* A child of several threads (tea record --thread all): its threads into
 * the directory OUT.PID.tea, as the root's are; it ran a program when a
 * thread of it was recorded. */
static int record_child_threads(child_run *c)
{
    thread_group *g = calloc(1, sizeof *g);
    record_run_thread *recorded = NULL;
    size_t count = 0;
    int rc, status;

    if (!g)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    g->pid = c->proc.pid;
    rc = record_group(g, c->proc.o, c->proc.session, c->result.out_path, &recorded, &count,
                      &c->result.instructions, &status);
    c->result.ran_program = g->count > 0;
    for (size_t k = 0; k < count; k++)
        free(recorded[k].out_path);
    free(recorded);
    threads_finish(g);
    free(g);
    return rc;
}

/* A child's thread: models its stream into its own trace. A child that
 * never ran a program (a fork that did not exec) leaves nothing. */
static void *child_main(void *arg)
{
    child_arg a = *(child_arg *)arg;
    child_run *c = a.c;
    model_core *core = NULL;

    free(arg);
    if (c->proc.o->session.threads) {
        c->result.rc = record_child_threads(c);
        if (c->result.rc == TEA_ERR_IO && !c->result.ran_program)
            c->result.rc = TEA_OK; /* a fork that ran no program of its own: nothing to record */
    } else {
        c->result.rc = record_stream(&c->proc, &core);
        c->result.ran_program = record_session_get_program(c->proc.session)->exec_path != NULL;
        c->result.instructions = c->proc.instructions;
    }
    if (c->result.rc)
        snprintf(c->result.message, sizeof c->result.message, "%s", error_message());
    model_core_free(core);
    free_process(&c->proc);
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
    if (!c || !arg || !(c->result.out_path = child_output(ch->o->out_path, pid))) {
        free(c);
        free(arg);
        record_session_close(session);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    c->proc.o = ch->o;
    c->proc.tid = recorded_tid(ch->o);
    c->proc.out_path = c->result.out_path;
    c->proc.session = session;
    c->proc.pid = pid;
    c->result.pid = pid;
    *arg = (child_arg){ ch, c };
    pthread_mutex_lock(&ch->lock);
    if (pthread_create(&c->thread, NULL, child_main, arg) != 0) {
        pthread_mutex_unlock(&ch->lock);
        record_session_close(session);
        free(c->result.out_path);
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

/* Notes that taking a child's stream failed (the calling thread's error). */
static void child_error(const children *ch)
{
    record_run_note n = { .kind = RECORD_RUN_NOTE_CHILD_ERROR, .message = error_message() };
    say(ch->o, &n);
}

/* The acceptor thread, while the root records. */
static void *accept_children(void *arg)
{
    children *ch = arg;
    int took;
    while (!atomic_load(&ch->stop))
        if (take_child(ch, RECORD_ACCEPT_MS, &took))
            child_error(ch);
    return NULL;
}

/* Opens the socket children connect to and starts taking their streams. */
static int children_start(children *ch, const record_run_options *o)
{
    int rc;
    memset(ch, 0, sizeof *ch);
    ch->o = o;
    atomic_init(&ch->stop, 0);
    pthread_mutex_init(&ch->lock, NULL);
    ch->have_lock = 1;
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
            child_error(ch);
        else if (!running && !took)
            break;
    }
}

/* Waits for every child's recording, moves each one's result to `run`
 * (the last taken first), and closes the socket. */
static void children_finish(children *ch, record_run *run)
{
    size_t count = 0;

    if (ch->listener) {
        children_drain(ch);
        for (child_run *c = ch->list; c; c = c->next)
            count++;
        run->children = count ? calloc(count, sizeof *run->children) : NULL;
        while (ch->list) {
            child_run *c = ch->list;
            ch->list = c->next;
            pthread_join(c->thread, NULL);
            if (!c->result.ran_program)
                run->forks_without_program++;
            if (run->children)
                run->children[run->child_count++] = c->result;
            else
                free(c->result.out_path);
            free(c);
        }
        assert(ch->running == 0); /* every child's thread was joined */
        assert(!run->children || run->child_count == count); /* each child's result moved */
        record_session_listener_close(ch->listener);
        ch->listener = NULL;
    }
    if (ch->have_lock)
        pthread_mutex_destroy(&ch->lock);
    ch->have_lock = 0;
}

/* --- several threads ------------------------------------------------------------ */

/* Whether a name in OUT is one of a several-thread recording's traces. */
static int is_thread_trace(const char *name)
{
    return trace_thread_file(name, NULL);
}

/* A recorded thread's thread: models its stream into its own trace. */
static void *thread_main(void *arg)
{
    thread_run *t = arg;
    model_core *core = NULL;

    t->result.rc = record_stream(&t->proc, &core);
    t->result.instructions = t->proc.instructions;
    if (core)
        t->result.model = *model_core_stats(core);
    t->result.session = *record_session_get_stats(t->proc.session);
    if (t->result.rc)
        snprintf(t->result.message, sizeof t->result.message, "%s", error_message());
    model_core_free(core);
    return NULL;
}

/* record_session_split's callback: thread `tid`'s stream, recorded on a
 * thread of its own into OUT/thread-TID.tea. */
static int start_thread(void *ctx, uint32_t tid, int fd)
{
    thread_group *g = ctx;
    const char *dir = outdir_path(g->dir);
    size_t size = strlen(dir) + strlen(TRACE_THREAD_FILE_PREFIX) + strlen(TRACE_THREAD_FILE_SUFFIX) + 16;
    char name[32];
    thread_run *t = calloc(1, sizeof *t);
    int rc;

    if (!t || !(t->result.out_path = malloc(size))) {
        free(t);
        close(fd);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    snprintf(t->result.out_path, size, "%s/%s%u%s", dir, TRACE_THREAD_FILE_PREFIX, (unsigned)tid,
             TRACE_THREAD_FILE_SUFFIX);
    snprintf(name, sizeof name, "thread %u's stream", (unsigned)tid);
    t->result.tid = tid;
    t->proc.o = g->o;
    t->proc.pid = g->pid;
    t->proc.tid = tid;
    t->proc.group = g;
    t->proc.out_path = t->result.out_path;
    if ((rc = record_session_open_fd(&t->proc.session, fd, name))) {
        free(t->result.out_path);
        free(t);
        close(fd);
        return rc;
    }
    if (g->count == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        thread_run **grown = realloc(g->runs, cap * sizeof *grown);
        if (!grown) {
            free_process(&t->proc);
            free(t->result.out_path);
            free(t);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        g->runs = grown;
        g->cap = cap;
    }
    if (pthread_create(&t->thread, NULL, thread_main, t) != 0) {
        free_process(&t->proc);
        free(t->result.out_path);
        free(t);
        return error_set(TEA_ERR_IO, "cannot start a thread");
    }
    g->runs[g->count++] = t;
    return TEA_OK;
}

/* The program's threads (the tool's counts, which every thread's stream
 * carries) from the first recorded thread's. */
static void take_group_threads(thread_group *g, record_run *out)
{
    const process *p = &g->runs[0]->proc;
    if (!p->thread_count || !(out->threads = malloc(p->thread_count * sizeof *out->threads)))
        return;
    memcpy(out->threads, p->threads, p->thread_count * sizeof *out->threads);
    out->thread_count = p->thread_count;
}

/* The threads' recordings once their streams ended: joined, their results
 * in *recorded (paths as they will be once `out_path` is in place), their
 * instructions summed, the first failure returned. */
static int join_threads(thread_group *g, const char *out_path, record_run_thread **recorded, size_t *count,
                        uint64_t *instructions)
{
    int rc = TEA_OK;
    size_t n = g->count ? g->count : 1, dest = strlen(out_path), temp = strlen(outdir_path(g->dir));

    for (size_t k = 0; k < g->count; k++)
        pthread_join(g->runs[k]->thread, NULL);
    if (!(*recorded = calloc(n, sizeof **recorded)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < g->count; k++) {
        record_run_thread *r = &(*recorded)[(*count)++];
        const char *file = g->runs[k]->result.out_path + temp;
        *r = g->runs[k]->result;
        r->out_path = NULL;
        if (!r->rc && r->instructions == 0)
            continue; /* timed nothing: no trace */
        if (!(r->out_path = malloc(dest + strlen(file) + 1)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        snprintf(r->out_path, dest + strlen(file) + 1, "%s%s", out_path, file);
        *instructions += r->instructions;
        if (r->rc && !rc)
            rc = error_set(r->rc, "thread %u: %s", (unsigned)r->tid, r->message);
    }
    return rc;
}

/* One process's threads (several, tea record --thread all): `session`'s
 * stream split into one per recorded thread (record_session_split), each
 * recorded on a thread of its own into OUT_PATH/thread-N.tea, which
 * appears once every one is written; Valgrind waited for (*status, as
 * record_session_wait gives it); the threads' results in *recorded. */
static int record_group(thread_group *g, const record_run_options *o, record_session *session, const char *out_path,
                        record_run_thread **recorded, size_t *count, uint64_t *instructions, int *status)
{
    record_session_splitter *sp = NULL;
    int rc, wait_rc, join_rc;

    g->o = o;
    pthread_mutex_init(&g->lock, NULL);
    g->have_lock = 1;
    *status = 0;
    if ((rc = outdir_open(&g->dir, out_path, is_thread_trace)))
        return rc;
    rc = record_session_split(session, start_thread, g, &sp);
    wait_rc = record_session_wait(session, status);
    pthread_mutex_lock(&g->lock);
    g->has_status = !wait_rc;
    g->status = *status;
    pthread_mutex_unlock(&g->lock);
    record_session_splitter_close(sp); /* each thread's reader sees its end */
    if (!rc)
        rc = wait_rc;
    if (!rc && g->count == 0)
        rc = error_set(TEA_ERR_IO, "no instruction was recorded (no recorded thread ran in the region)");
    join_rc = join_threads(g, out_path, recorded, count, instructions);
    if (!rc)
        rc = join_rc;
    if (rc) {
        outdir_abort(g->dir);
        g->dir = NULL;
        return rc;
    }
    rc = outdir_commit(g->dir);
    g->dir = NULL;
    return rc;
}

/* Several threads of the root: record_group, and what the summary says. */
static int record_threads(record_run *out)
{
    record_run_state *st = out->state;
    thread_group *g = &st->group;
    int rc;

    st->root.started = now();
    rc = record_group(g, &st->options, st->root.session, st->options.out_path, &out->recorded,
                      &out->recorded_count, &out->instructions, &out->status);
    out->region_seconds = now() - st->root.started;
    for (size_t k = 0; k < out->recorded_count; k++) {
        const record_run_thread *r = &out->recorded[k];
        out->model.cycles += r->model.cycles;
        out->model.instructions += r->model.instructions;
        out->model.committed += r->model.committed;
    }
    if (out->recorded_count) {
        out->session = out->recorded[0].session;
        take_group_threads(g, out);
    }
    return rc;
}

/* --- the driver ---------------------------------------------------------------- */

/* Starts `out` for options `o`: a copy of them, the root's process. */
static int begin(const record_run_options *o, record_run *out)
{
    memset(out, 0, sizeof *out);
    out->out_path = o->out_path;
    out->tid = recorded_tid(o);
    if (!(out->state = calloc(1, sizeof *out->state)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    out->state->options = *o;
    out->state->root.o = &out->state->options;
    out->state->root.out_path = o->out_path;
    out->state->root.root = 1;
    out->state->root.tid = out->tid;
    return TEA_OK;
}

/* Records the root's session into its trace and keeps what the summary
 * says in `out`. */
static int record_root(record_run *out)
{
    record_run_state *st = out->state;
    process *root = &st->root;
    int rc = record_stream(root, &st->core);

    out->instructions = root->instructions;
    out->status = root->status;
    out->region_seconds = root->region_end - root->region_start;
    out->session = *record_session_get_stats(root->session);
    if (st->core)
        out->model = *model_core_stats(st->core);
    if (root->thread_count) {
        if (!(out->threads = malloc(root->thread_count * sizeof *out->threads)))
            return rc ? rc : error_set(TEA_ERR_NOMEM, "out of memory");
        memcpy(out->threads, root->threads, root->thread_count * sizeof *out->threads);
        out->thread_count = root->thread_count;
    }
    return rc;
}

int record_run_program(const record_run_options *o, record_run *out)
{
    record_run_state *st;
    int rc;

    if ((rc = begin(o, out)))
        return rc;
    st = out->state;
    cleanup_keep_on_interrupt();
    if ((rc = record_session_adopt_orphans()))
        return rc;
    if (o->trace_children) {
        if ((rc = children_start(&st->ch, &st->options)))
            return rc;
        st->options.session.children_socket = record_session_listener_name(st->ch.listener);
    }
    st->options.session.window_stacks = wants_window_stacks(o);
    if ((rc = record_session_spawn(&st->root.session, o->argv, &st->options.session)))
        return rc;
    return o->session.threads ? record_threads(out) : record_root(out);
}

int record_run_stream(const record_run_options *o, record_session *session, record_run *out)
{
    int rc;

    if ((rc = begin(o, out))) {
        record_session_close(session);
        return rc;
    }
    out->state->root.session = session;
    return o->session.threads ? record_threads(out) : record_root(out);
}

/* Frees the recorded threads' processes (joined by record_threads). */
static void threads_finish(thread_group *g)
{
    for (size_t k = 0; k < g->count; k++) {
        free_process(&g->runs[k]->proc);
        free(g->runs[k]->result.out_path);
        free(g->runs[k]);
    }
    free(g->runs);
    g->runs = NULL;
    g->count = g->cap = 0;
    outdir_abort(g->dir);
    g->dir = NULL;
    if (g->have_lock)
        pthread_mutex_destroy(&g->lock);
    g->have_lock = 0;
}

void record_run_finish(record_run *run)
{
    record_run_state *st = run->state;
    const char *tool_dir;

    if (!st || st->finished)
        return;
    st->finished = 1;
    tool_dir = st->options.session.tool_dir;
    free_process(&st->root);
    model_core_free(st->core);
    st->core = NULL;
    if (cleanup_interrupted())
        record_session_kill_leftovers(tool_dir); /* children still running end too */
    children_finish(&st->ch, run);
    threads_finish(&st->group);
    run->leftovers += record_session_kill_leftovers(tool_dir);
}

void record_run_free(record_run *run)
{
    record_run_finish(run);
    for (size_t i = 0; i < run->child_count; i++)
        free(run->children[i].out_path);
    free(run->children);
    for (size_t i = 0; i < run->recorded_count; i++)
        free(run->recorded[i].out_path);
    free(run->recorded);
    free(run->threads);
    free(run->state);
    memset(run, 0, sizeof *run);
}
