/*
 * session.h: the Valgrind session of tea record: real x86-64 programs as a
 * source of instructions for the core model, through tea's own Valgrind
 * tool (tearec/tearec.c).
 *
 * The tool runs the program and writes binary records (tearec/stream.h) to a
 * pipe this session reads: every executed instruction of one thread in the
 * region of interest with its memory accesses, each instruction's bytes when
 * Valgrind first translates it, and each executable file mapping code runs
 * from. This module turns them into model instructions:
 *   - each static instruction is decoded once, from the bytes the tool sent
 *     (or, for a wrong-path address never translated, from the mapped ELF
 *     file), with capstone into a class (branch kinds, load, store, integer,
 *     multiply, divide, FP, square root, serializing) and the registers it
 *     reads and writes; the decodings are cached by address;
 *   - the branch outcome is the next instruction's address;
 *   - the producer of an instruction is the latest earlier instruction that
 *     wrote one of the registers it reads (register dataflow).
 * Valgrind and the model run in two processes, so the two pipeline on two
 * cores; the tool writes in 1 MiB batches.
 *
 * A process's stream holds every program it runs: an exec starts the next
 * program's part with an EXE record. The source ends at the end of the
 * region or at an exec; record_session_next_program then reads on to the
 * next program, if any. Forked children have streams of their own
 * (record_session_options.children_socket), read with record_session_open_fd.
 */
#ifndef TEA_RECORD_SESSION_H
#define TEA_RECORD_SESSION_H

#include "model/core.h"

#include <stdint.h>
#include <sys/types.h>

typedef struct record_session record_session;

/* The tool's file name in its Valgrind library directory (the launcher runs
 * VALGRIND_LIB/NAME-PLATFORM for --tool=NAME). */
#define RECORD_SESSION_TOOL "tearec"
#define RECORD_SESSION_TOOL_FILE "tearec-amd64-linux"

/* What to record. */
typedef struct record_session_options {
    const char *valgrind;     /* the valgrind launcher (NULL: "valgrind" in PATH) */
    const char *tool_dir;     /* the directory holding RECORD_SESSION_TOOL_FILE (VALGRIND_LIB) */
    uint64_t skip;            /* instructions skipped once started */
    uint64_t max_instructions;/* 0: no limit */
    uint64_t warmup;          /* instructions after the skip that only warm the model (each window's, when sampling) */
    uint64_t sample_every;    /* sampling: a window in every N instructions (0: the region whole) */
    uint64_t sample_length;   /* ... of this many timed instructions */
    const uint64_t *sample_starts; /* listed windows (SimPoint's regions): each window's first timed
                                      instruction, from the region's start, increasing by sample_length
                                      at least; NULL: none (not with sample_every, skip or
                                      max_instructions) */
    size_t sample_start_count;     /* 1 to RECORD_SESSION_STARTS_MAX */
    const uint32_t *sample_start_threads; /* with threads: each listed window's thread (its starts
                                             counted on that thread's instructions), by thread then
                                             start; NULL: the recorded thread's */
    const char *start_at;     /* function whose entry starts recording, or NULL */
    const char *stop_at;      /* function whose entry ends it (entry included), or NULL */
    int wait_start;           /* start at tea_record_start() */
    int kill_after;           /* kill the program when recording ends */
    uint32_t thread;          /* Valgrind's thread number; 0: the main thread (1) */
    const char *threads;      /* several threads instead: "all" or numbers with commas ("1,3"); the
                                 stream names each one's records (SWITCH) and is split
                                 (record_session_split); each thread skips, warms and is sampled on
                                 its own count (listed windows: sample_start_threads); NULL: one */
    const model_config *warm_caches; /* the model whose L1 D, LLC and touched data pages the tool keeps
                                        warm through fast-forwards, handed to the model when one ends
                                        (record_session_set_lines); NULL: none */
    uint64_t branch_warmup;   /* the tool hands the branches of the last N instructions of every
                                 fast-forward to the model's predictor
                                 (record_session_set_branches); 0: none */
    int window_stacks;        /* the tool sends the stack each sampled window starts on
                                 (record_session_set_stacks) */
    const char *children_socket; /* --trace-children: the abstract Unix socket (its name without the
                                    leading NUL) a forked child connects its stream to; NULL: forked
                                    children record nothing and their execs run without Valgrind */
} record_session_options;

/* Most listed windows the tool takes. */
#define RECORD_SESSION_STARTS_MAX 4096

/* Most executable mappings a session keeps (later ones are not listed). */
#define RECORD_SESSION_OBJECTS_MAX 256

/* An executable file mapping code ran from. */
typedef struct record_session_object {
    char *path;               /* as the program mapped it */
    char *build_id;           /* ELF build-id in hex, or NULL (file unreadable or none) */
    uint64_t start, end;      /* the mapping [start, end) */
    uint64_t load_bias;       /* start - the ELF virtual address it maps */
    int have_bias;            /* 0: the file could not be read */
} record_session_object;

/* What the session learned about the traced program. */
typedef struct record_session_program {
    char *exec_path;     /* the path the process exec'd: the program, or a script run by its
                            interpreter (absolute; NULL before the stream names one) */
    char *path;          /* the main executable, as mapped */
    char *build_id;      /* its ELF build-id in hex, or NULL */
    uint64_t load_bias;  /* of the main executable (0 for non-PIE) */
    int have_bias;
} record_session_program;

/* Why recording ended (record_session_stats.stop). */
typedef enum record_session_stop {
    RECORD_SESSION_RUNNING = 0,
    RECORD_SESSION_STOP_MAX,     /* --max-instructions */
    RECORD_SESSION_STOP_SYMBOL,  /* --stop-at */
    RECORD_SESSION_STOP_REQUEST, /* tea_record_stop() */
    RECORD_SESSION_STOP_EXIT     /* the program ended */
} record_session_stop;

/* Counters. */
typedef struct record_session_stats {
    uint64_t words;          /* stream words read */
    uint64_t instructions;   /* dynamic instructions handed to the model */
    uint64_t warmed;         /* warm-up instructions handed to the warm callback */
    uint64_t static_insns;   /* distinct instruction addresses decoded */
    uint64_t undecodable;    /* of those, without bytes or not decodable */
    uint64_t objects;        /* executable mappings reported */
    uint64_t lines_placed;   /* cache lines and pages handed to the lines callback (warm_caches) */
    uint64_t branches_trained; /* branches of fast-forwards handed to the branches callback (branch_warmup) */
    uint64_t windows;        /* window boundaries read (sampling): windows - 1 ended */
    uint64_t stacks;         /* windows' stacks read (window_stacks) */
    uint64_t stacks_unwound; /* ... of at least one frame (the others start empty) */
    uint64_t region_instructions; /* listed windows: the recorded thread's instructions from the region's
                                     start to the program's end (the tool's COUNT), when have_count */
    int have_count;
    int stop;                /* record_session_stop */
    uint32_t threads_seen;   /* threads the program had started when recording stopped (0: unknown) */
} record_session_stats;

/* Reads a record stream from file descriptor `fd` (closed by record_session_close;
 * for tests). `name` names the stream in messages. TEA_ERR_NOMEM/IO. */
int record_session_open_fd(record_session **out, int fd, const char *name);

/* Starts `valgrind --tool=tearec` on argv[0..] (NULL-terminated; argv[0] is
 * looked up in PATH) with its records going to a pipe this session reads.
 * The program's own stdin, stdout and stderr are left alone. Errors:
 * TEA_ERR_USAGE (the program is not found or not executable), TEA_ERR_IO
 * (valgrind or the tool missing, cannot start). */
int record_session_spawn(record_session **out, char *const argv[], const record_session_options *opt);

/* Receives each warm-up instruction (--warmup), in order, before the
 * region's first instruction is returned by the source. */
typedef void (*record_session_warm_fn)(void *ctx, const model_insn *insn);

/* Where warm-up instructions go (default: dropped). */
void record_session_set_warm(record_session *v, record_session_warm_fn fn, void *ctx);

/* What a fast-forward kept warm (warm_caches), handed over when it ends. */
typedef enum record_session_warmed {
    RECORD_SESSION_WARMED_L1D = 0, /* the lines of one L1 D set, least recently used first */
    RECORD_SESSION_WARMED_LLC,     /* the same of an LLC set */
    RECORD_SESSION_WARMED_PAGES    /* data pages first touched since the last hand-over */
} record_session_warmed;

/* Receives `count` addresses of `what`. */
typedef void (*record_session_lines_fn)(void *ctx, record_session_warmed what, const uint64_t *addrs, size_t count);

/* Where they go (default: dropped). */
void record_session_set_lines(record_session *v, record_session_lines_fn fn, void *ctx);

/* Receives the branches of a fast-forward (branch_warmup) as they come,
 * oldest first, as model instructions (pc, size, branch kind, whether
 * taken, target): the predictor's training. */
void record_session_set_branches(record_session *v, record_session_warm_fn fn, void *ctx);

/* Receives the stack a sampled window's first instruction runs on
 * (the tool's --call-paths): window `window` (0: the first), the return
 * addresses of its frames innermost first (`count` 0: the tool could not
 * unwind it). 0, or an error that ends the session's reading. */
typedef int (*record_session_stack_fn)(void *ctx, uint64_t window, const uint64_t *returns, size_t count);

/* Where they go (default: dropped). */
void record_session_set_stacks(record_session *v, record_session_stack_fn fn, void *ctx);

/* The model source over this session; valid while it lives. */
model_source record_session_source(record_session *v);

/* The main program (known once its code ran). */
const record_session_program *record_session_get_program(const record_session *v);

/* The executable mappings reported so far, in the order code first ran
 * from them; valid until the next read or close. */
const record_session_object *record_session_objects(const record_session *v, size_t *count);

const record_session_stats *record_session_get_stats(const record_session *v);

/* Most threads a session lists (a stream naming more is refused). */
#define RECORD_SESSION_THREADS_MAX 65536

/* A thread of the program and the instructions it ran (the tool's THREAD
 * records, tearec/stream.h). */
typedef struct record_session_thread {
    uint32_t tid;          /* Valgrind's number (1: the main thread) */
    uint64_t instructions; /* from the program's start until recording stopped, counted by whole
                              blocks (each pass of a rep string instruction one) */
} record_session_thread;

/* The threads of the current program that ran an instruction, in
 * increasing order of their number, once recording stopped (*count = 0
 * before, and for a stream of a tool that predates the counts); valid
 * until the next read or close. */
const record_session_thread *record_session_threads(const record_session *v, size_t *count);

/* After the source has ended (the region is over, the stream ended, or
 * the process exec'd), reads on to the next program the process runs.
 * *exec = 1 when there is one: the session now describes that program (its
 * objects, program and statistics start afresh; the source can run again);
 * 0 at the end of the stream. Errors as the source's. */
int record_session_next_program(record_session *v, int *exec);

/* --- several threads ------------------------------------------------------------ */

/* Receives a recorded thread's stream when its first record comes: `fd`
 * reads a stream of the tool's format holding that thread's records and
 * every record of the program's (its program, objects, code, thread counts
 * and STOP), as a one-thread recording's stream would (open it with
 * record_session_open_fd, which takes it over). 0, or an error code that
 * ends the split. */
typedef int (*record_session_thread_fn)(void *ctx, uint32_t tid, int fd);

typedef struct record_session_splitter record_session_splitter;

/*
 * Reads the stream of a session spawned with `threads` to its end and
 * splits it into one stream per recorded thread: a thread's INSN, WARM,
 * LOAD, STORE, WINDOW, LINES, COUNT and STACK records (those after a SWITCH
 * naming it) go to its own stream, every other record to all
 * of them (to a thread that starts later, the program's, objects' and
 * code records sent so far first). Writing blocks while a thread's reader
 * lags; a reader that closes its end is dropped. The streams stay open in
 * *out until record_session_splitter_close, so that the caller can wait
 * for Valgrind (record_session_wait) before the threads' readers see
 * their ends. *out is set also after an error. Errors: the stream's
 * (TEA_ERR_FORMAT, TEA_ERR_IO), the callback's, TEA_ERR_NOMEM.
 */
int record_session_split(record_session *v, record_session_thread_fn on_thread, void *ctx,
                         record_session_splitter **out);

/* Closes every thread's stream (its reader sees the end) and frees `sp`.
 * Safe on NULL. */
void record_session_splitter_close(record_session_splitter *sp);

/* Waits for Valgrind (and so the program) to end. *status is the program's
 * exit status (128 + signal number; -1 when it was killed after recording,
 * --kill-after). Errors: TEA_ERR_IO when Valgrind did not run. */
int record_session_wait(record_session *v, int *status);

/* Closes the stream, kills Valgrind if it still runs, frees everything. */
void record_session_close(record_session *v);

/* --- forked children (--trace-children) ---------------------------------- */

/* A Unix socket in the abstract namespace (no file) that forked children
 * connect their streams to, each right after its fork (tearec/tearec.c). */
typedef struct record_session_listener record_session_listener;

/* Opens the socket. TEA_ERR_IO, TEA_ERR_NOMEM. */
int record_session_listen(record_session_listener **out);

/* Its name, for record_session_options.children_socket. */
const char *record_session_listener_name(const record_session_listener *l);

/* Waits up to timeout_ms (0: not at all) for a child's stream: *child is a
 * session reading it (NULL when none came), *pid the child's process (by
 * the socket's peer credentials), which an interrupt kills
 * (common/cleanup.h). Streams are taken in the order they connected, and a
 * child connects before it closes its parent's stream, so once every stream
 * read so far has ended, a call with timeout 0 that finds none means no
 * process is left to connect. Errors: TEA_ERR_IO, TEA_ERR_NOMEM. */
int record_session_accept(record_session_listener *l, int timeout_ms, record_session **child, pid_t *pid);

/* Closes the socket. Safe on NULL. */
void record_session_listener_close(record_session_listener *l);

/* --- processes left behind ------------------------------------------------- */

/* Makes this process the reaper of the program's orphans (Linux's child
 * subreaper), so that record_session_kill_leftovers finds every process the
 * program started. Call before record_session_spawn. TEA_ERR_IO. */
int record_session_adopt_orphans(void);

/* Kills (SIGKILL) every process descended from this one that runs tea's
 * tool from `tool_dir` (a forked copy of the program still running under
 * Valgrind), so that no Valgrind outlives tea record, and reaps the
 * adopted processes that have ended; returns how many it killed. Call once
 * the program's own process has been waited for. */
size_t record_session_kill_leftovers(const char *tool_dir);

#endif
