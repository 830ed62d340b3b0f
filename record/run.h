/*
 * run.h: the record driver, as tea/run.h is the replay driver: options in,
 * a trace out. It runs a program under tea's Valgrind tool (the session,
 * record/session.h), times every instruction the tool sends through the
 * core model (model/core.h) and writes a native trace: the header (the
 * binary, its build-id and load bias), the records, every executable
 * object, the recorded thread, and the run's facts (the programs exec'd
 * away from, the exit status, the interrupting signal, the region's wall
 * time, a sampled recording's windows and SimPoint weights, the threads'
 * counts; trace/objects.h).
 *
 * An exec is followed: what was recorded of the program left is dropped
 * and the region starts afresh in the next one, so the trace holds the
 * program that ran last. With trace_children, each forked child that runs
 * a program of its own is recorded on a thread of its own into
 * OUT.PID.tea, the child's process id before the suffix.
 *
 * `tea record` parses its options into record_run_options, calls
 * record_run_program, prints the summary and warnings from the record_run,
 * calls record_run_finish and prints what each child wrote. What happens
 * while recording (an exec, a note, a warning) comes to the options' note
 * callback when it happens, so that the command prints it in order.
 * Nothing here prints.
 */
#ifndef TEA_RECORD_RUN_H
#define TEA_RECORD_RUN_H

#include "session.h"
#include "simpoint.h"
#include "common/progress.h"
#include "model/core.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* What a note says (record_run_note.kind). */
typedef enum record_run_note_kind {
    /* A full recording (not sampled) passed options.hint_after
     * instructions: `instructions` so far, at `rate` instructions per
     * second since the stream's reading began. Once, the root only. */
    RECORD_RUN_NOTE_HINT = 0,
    /* Process `pid` exec'd `next` (NULL: unknown) from `path`; the
     * `instructions` recorded of `path` are dropped. */
    RECORD_RUN_NOTE_EXEC,
    /* --start-at recorded nothing in the root: `path` is the object that
     * has the function (it was never reached), or NULL when none of the
     * program's `count` objects has it; then `names` holds up to
     * RECORD_RUN_SUGGESTIONS close names (`name_count`). Just before the
     * error "no instruction was recorded". */
    RECORD_RUN_NOTE_START_AT,
    /* SimPoint's regions: the program's instruction count is unknown (the
     * recording ended early): the regions' weights are taken of `count`
     * intervals, the last region's. */
    RECORD_RUN_NOTE_COUNT_UNKNOWN,
    /* Taking a forked child's stream failed: `message`. */
    RECORD_RUN_NOTE_CHILD_ERROR
} record_run_note_kind;

/* Most close names a RECORD_RUN_NOTE_START_AT note gives. */
#define RECORD_RUN_SUGGESTIONS 3

/* Something that happened while recording; valid during the callback. */
typedef struct record_run_note {
    record_run_note_kind kind;
    long pid;                 /* the process it concerns: 0 the root, else a forked child */
    const char *path;         /* EXEC: the program left; START_AT: the object with the function */
    const char *next;         /* EXEC: the program exec'd (NULL: unknown) */
    const char *message;      /* CHILD_ERROR */
    const char *const *names; /* START_AT: close names */
    size_t name_count;
    uint64_t instructions;    /* HINT: recorded so far; EXEC: dropped */
    uint64_t count;           /* START_AT: objects; COUNT_UNKNOWN: intervals */
    double rate;              /* HINT: instructions per second (0 when no time passed) */
} record_run_note;

/* Receives the notes. Called from the thread that records the process
 * (the caller's for the root, a thread of its own for each child, the
 * children's acceptor for CHILD_ERROR): several may run at once. */
typedef void (*record_run_note_fn)(void *ctx, const record_run_note *note);

/* What to record. The pointers are the caller's and must stay valid until
 * record_run_finish. */
typedef struct record_run_options {
    const char *out_path;           /* the trace (children: OUT.PID.tea, ".tea" replaced) */
    trace_write_options write;
    model_config model;             /* the core model (checked: model_config_check) */
    record_session_options session; /* what the tool records: the region, sampling, thread, tool_dir */
    char *const *argv;              /* the program and its arguments, NULL-terminated */
    int trace_children;             /* record forked children's programs too */
    const char *generator;          /* the trace header's generator */
    const char *command_line;       /* the header's command line */
    const char *command;            /* names the progress line ("tea record") */
    progress_mode progress;         /* the progress line of the root's instructions on stderr */
    uint64_t hint_after;            /* a full recording passing this many instructions notes
                                       RECORD_RUN_NOTE_HINT (0: never) */
    const record_simpoint_list *simpoints; /* listed windows (session.sample_starts): the regions they
                                              time, whose weights the trace keeps; NULL otherwise */
    uint64_t simpoint_interval;     /* instructions per SimPoint interval (with simpoints) */
    int call_paths;                 /* each µop's calling context, and the tree, in the trace
                                       (docs/semantics.md "Calling contexts") */
    record_run_note_fn note;        /* NULL: notes are dropped */
    void *note_ctx;
} record_run_options;

/* A forked child's recording (record_run_finish). */
typedef struct record_run_child {
    long pid;
    char *out_path;           /* OUT.PID.tea */
    int ran_program;          /* it exec'd a program of its own; else it left nothing */
    int rc;                   /* 0: its trace is written */
    char message[256];        /* the error, when rc != 0 */
    uint64_t instructions;    /* recorded */
} record_run_child;

/* A recorded thread's recording (several threads, session.threads): its
 * trace is OUT/thread-TID.tea. */
typedef struct record_run_thread {
    uint32_t tid;             /* Valgrind's number */
    char *out_path;           /* OUT/thread-TID.tea; NULL when it timed nothing (sampled: no whole
                                 window) and left no trace */
    int rc;                   /* 0: its trace is written (or it had none to write) */
    char message[256];        /* the error, when rc != 0 */
    uint64_t instructions;    /* recorded */
    model_stats model;        /* its core's counters */
    record_session_stats session; /* its stream's */
} record_run_thread;

typedef struct record_run_state record_run_state;

/* A recording's outcome. */
typedef struct record_run {
    const char *out_path;      /* the options' */
    uint32_t tid;              /* the thread recorded (Valgrind's number, 1 the main thread) */
    uint64_t instructions;     /* recorded of the traced program */
    model_stats model;         /* the core model's counters at the end */
    record_session_stats session; /* the session's (static instructions, objects, why it stopped) */
    double region_seconds;     /* wall time from the traced program's first records to its region's end */
    int status;                /* the program's exit status (128 + signal; -1 when killed after
                                  recording, --kill-after) */
    trace_thread_count *threads; /* the threads of the program that ran, by number (none when unknown) */
    size_t thread_count;
    record_run_thread *recorded; /* several threads: each recorded thread's, in the order they first ran
                                    (out_path, model and session above: their sums, the first's) */
    size_t recorded_count;
    record_run_child *children; /* record_run_finish: the forked children, the last taken first */
    size_t child_count;
    size_t forks_without_program; /* children that ran no program of their own (nothing recorded) */
    size_t leftovers;          /* processes left running under Valgrind that were ended */
    record_run_state *state;   /* the sessions, the core and the children's threads until finish */
} record_run;

/*
 * Records o->argv: spawns Valgrind (o->session; forked children connect to
 * a socket of their own with trace_children), follows the process's
 * programs, and writes the last one's region to o->out_path. Children go
 * on being recorded until record_run_finish. `out` is initialized here and
 * needs record_run_finish and record_run_free, also after an error.
 * Errors: the session's (TEA_ERR_USAGE for a program not found, TEA_ERR_IO
 * for Valgrind or its tool missing), the writer's (naming the file),
 * TEA_ERR_IO "no instruction was recorded (WHY)..." (saying why, with the
 * threads that ran), TEA_ERR_NOMEM.
 */
int record_run_program(const record_run_options *o, record_run *out);

/*
 * The same for a stream already open (record_session_open_fd: a file of
 * the tool's records, or a pipe), read as the root's: no Valgrind is
 * spawned or waited for (status 0), no child is taken. `session` is
 * owned by `out` from here on, also after an error.
 */
int record_run_stream(const record_run_options *o, record_session *session, record_run *out);

/*
 * Once the root is recorded (or failed): closes its session, waits for
 * every child's recording (taking the streams of children still to
 * connect until none is left), fills out->children, and ends the
 * processes the program left running under Valgrind (out->leftovers).
 */
void record_run_finish(record_run *run);

void record_run_free(record_run *run);

/* Why recording stopped (record_session_stats.stop), as the summary says
 * it: "stopped at --max-instructions", ..., "interrupted" or "the stream
 * ended early" for a stream without a STOP. */
const char *record_run_stop_reason(int stop);

/* Appends the threads that ran and their instructions to the `size` bytes
 * at buf, of which *len are used (what does not fit is cut): "1
 * (recorded) 153012, 2 2050021 instructions", the first
 * RECORD_RUN_THREADS_NAMED, then how many more. */
void record_run_describe_threads(const record_run *run, char *buf, size_t size, size_t *len);

/* Threads a description names; the rest are counted. */
#define RECORD_RUN_THREADS_NAMED 8
/* Room for a description of the threads. */
#define RECORD_RUN_THREADS_TEXT 640

/* How the program's instructions fell to its threads. */
typedef struct record_run_share {
    uint64_t all;            /* every thread's (UINT64_MAX when the sum overflows) */
    uint64_t recorded;       /* the recorded thread's */
    uint32_t busiest;        /* the thread that ran most (the lowest number among equals) */
    uint64_t busiest_instructions;
    size_t others;           /* threads that ran besides the recorded one */
} record_run_share;

/* Fills *share and returns 1 when the recorded thread ran, but under half
 * of the instructions of two threads or more (tea record warns and names
 * --thread); else 0. */
int record_run_thread_share(const record_run *run, record_run_share *share);

#endif
