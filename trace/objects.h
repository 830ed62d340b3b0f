/*
 * objects.h: the executable objects (main binary, shared libraries, dlopen'ed
 * code) and the recorded thread a trace carries (docs/trace-format.md,
 * "Objects frame").
 *
 * A recorder adds each executable mapping it sees with
 * trace_writer_add_object, at any time before trace_writer_finish (objects
 * can appear during the run); a native trace keeps them in an objects frame
 * before its footer. Readers expose them with trace_reader_objects.
 * TraceDoctor traces carry none.
 *
 * The run's facts (trace_run) ride with the objects; among them a sampled
 * recording's windows, whose type, checks and arithmetic are in
 * sampling.h.
 */
#ifndef TEA_TRACE_OBJECTS_H
#define TEA_TRACE_OBJECTS_H

#include "callpath.h"
#include "sampling.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>

#define TRACE_BUILD_ID_MAX 64            /* bytes */
/* Longest object path kept, in bytes (no NUL). */
#define TRACE_OBJECT_PATH_MAX 4096
/* Most objects one trace may carry. */
#define TRACE_OBJECTS_MAX 65536
/* threads_seen when the recorded thread is unknown (set_thread never called). */
#define TRACE_THREAD_UNKNOWN 0

typedef struct trace_object {
    const char *path;                    /* the mapped file's path as the program saw it */
    uint8_t build_id[TRACE_BUILD_ID_MAX];
    uint32_t build_id_len;               /* 0: unknown */
    uint64_t load_bias;                  /* run-time address minus the ELF file's virtual address */
    uint64_t start, end;                 /* executable range [start, end) at run time */
} trace_object;

/* Writer: any time before trace_writer_finish; the strings are copied.
 * Errors: TEA_ERR_USAGE for an object without a path, a path longer than
 * TRACE_OBJECT_PATH_MAX or holding a line break (PICS files keep one
 * object per line), a build-id longer than
 * TRACE_BUILD_ID_MAX, end < start, or more than TRACE_OBJECTS_MAX objects;
 * TEA_ERR_NOMEM. Objects are kept in the order added. A TraceDoctor
 * writer accepts them and writes nothing of them (tokens have no place). */
int trace_writer_add_object(trace_writer *w, const trace_object *obj);

/* Writer: which thread was recorded (its id) and how many threads the
 * program had in all (threads_seen >= 1). The last call wins; a native
 * trace keeps it with the objects. Errors: TEA_ERR_USAGE for threads_seen 0. */
int trace_writer_set_thread(trace_writer *w, uint32_t tid, uint32_t threads_seen);

/* Reader: the objects the trace carries (0 for formats/files without any); valid until close.
 * For a native file read from a seekable file they are available right after open. */
/* Read from a pipe or standard input, they are available once
 * trace_reader_read has returned the end of the trace (none before); safe
 * with the background decoder. */
int trace_reader_objects(trace_reader *r, const trace_object **objs, size_t *count);

/* Reader: the recorded thread; *threads_seen is TRACE_THREAD_UNKNOWN (and
 * *tid 0) when the trace does not say. Same availability as the objects. */
int trace_reader_thread(trace_reader *r, uint32_t *tid, uint32_t *threads_seen);

/* Writes the build-id of `obj` as lower-case hex into `out` (size at least
 * 2 * TRACE_BUILD_ID_MAX + 1); "" when unknown. */
void trace_object_build_id_hex(const trace_object *obj, char *out, size_t size);

/* --- what a recorder knows of the run ------------------------------------ */

/* A program the recorded process ran before the traced one: it exec'd away
 * from it, and what was recorded of it was dropped. */
typedef struct trace_exec {
    const char *path;          /* as the process exec'd it (absolute) */
    uint64_t instructions;     /* instructions recorded of it before the exec */
} trace_exec;

/* A thread of the recorded program and the instructions it ran. */
typedef struct trace_thread_count {
    uint32_t tid;              /* the recorder's number for it (tea record: Valgrind's, 1 the main thread) */
    uint64_t instructions;     /* from the program's start until recording stopped */
} trace_thread_count;

/* Most threads a run lists. */
#define TRACE_THREADS_MAX 65536

/* A recording of several threads (tea record --thread all) is a directory
 * of one trace per thread, named thread-N.tea, N the thread's number
 * (docs/trace-format.md, "Several threads or cores"). */
#define TRACE_THREAD_FILE_PREFIX "thread-"
#define TRACE_THREAD_FILE_SUFFIX ".tea"

/* Whether `name` (a file name, no directory) is such a thread's trace;
 * its number into *tid (when not NULL). */
int trace_thread_file(const char *name, uint32_t *tid);

/* What `count` threads ran: *all, the instructions of them all (UINT64_MAX
 * when the sum does not fit), *of_tid those of thread `tid` (0 when it is
 * not listed), and *busiest the number of the thread that ran most (the
 * lowest number among equals; 0 when count is 0). */
void trace_threads_sum(const trace_thread_count *threads, size_t count, uint32_t tid, uint64_t *all,
                       uint64_t *of_tid, uint32_t *busiest);

/* The run of a recording: kept with the objects (a native trace's objects
 * frame, docs/trace-format.md), since most of it is known only at the end.
 * All zeros: nothing known. */
typedef struct trace_run {
    const trace_exec *execs;   /* the programs run before the traced one, in order */
    size_t exec_count;
    int has_exit_status;
    uint32_t exit_status;      /* the program's, as a shell reports it: 0-255, 128 + N for signal N */
    uint32_t interrupted;      /* the signal that interrupted the recording (2 SIGINT, 15 SIGTERM), 0: none */
    uint64_t region_ns;        /* wall time of the recorded region, ns (0: unknown) */
    trace_sampling sampling;   /* every == 0: the region was recorded whole */
    const trace_thread_count *threads; /* the threads that ran, by increasing number (tea record lists
                                          them when several ran); NULL: unknown */
    size_t thread_count;
    const trace_context *contexts; /* the calling-context tree the recorder built (trace/callpath.h:
                                      nodes in id order, the root first; docs/semantics.md "Calling
                                      contexts"): the µops' contexts are ids into it; NULL: none */
    uint32_t context_count;        /* nodes, the root included (0: none) */
    const uint32_t *stack_counts;  /* a sampled recording with contexts: window w's stack where it
                                      started (the tool's unwinding) is the next stack_counts[w]
                                      (at most TRACE_CONTEXT_MAX_DEPTH) return addresses of
                                      stack_returns, innermost first; NULL: none kept */
    const uint64_t *stack_returns;
    size_t stack_windows;          /* windows listed (0: none) */
} trace_run;

/* Most programs a run lists before the traced one. */
#define TRACE_EXECS_MAX 4096

/* Writer: the run's facts (deep copy; the last call wins). Errors:
 * TEA_ERR_USAGE for more than TRACE_EXECS_MAX programs or a path as
 * trace_writer_add_object refuses it, for threads that are more than
 * TRACE_THREADS_MAX, numbered 0 or not in increasing order, for sampling that is not
 * every > length >= 1, warmup <= every - length, 1 to TRACE_WINDOWS_MAX
 * increasing window ends (weighted: every >= length >= 1, starts and weights
 * as trace_sampling says, weights summing to at most
 * TRACE_WEIGHT_TOTAL_MAX), TEA_ERR_NOMEM. A TraceDoctor writer
 * accepts it and writes nothing of it. */
int trace_writer_set_run(trace_writer *w, const trace_run *run);

/* Reader: the run's facts (all zeros when the trace has none); same
 * availability as the objects; valid until close. */
int trace_reader_run(trace_reader *r, const trace_run **run);

/* --- the list the readers and writers keep (tools may keep copies) ------- */

/* A growable list of objects that owns its paths, the thread and the run.
 * Start from all zeros. */
typedef struct trace_object_list {
    trace_object *items;
    size_t count, capacity;
    uint32_t tid;
    uint32_t threads_seen;  /* TRACE_THREAD_UNKNOWN: no thread recorded */
    trace_run run;          /* owns its programs and their paths */
} trace_object_list;

/* Appends a deep copy of `obj` after the checks trace_writer_add_object
 * documents. */
int trace_object_list_add(trace_object_list *l, const trace_object *obj);
/* Replaces the list's run with a deep copy of `run`, after the checks
 * trace_writer_set_run documents. */
int trace_object_list_set_run(trace_object_list *l, const trace_run *run);
/* True when the list has anything to store (objects, a thread or a run). */
int trace_object_list_present(const trace_object_list *l);
/* True when the run holds anything. */
int trace_run_present(const trace_run *run);
/* Frees the paths and the array; the list is empty afterwards. */
void trace_object_list_free(trace_object_list *l);

/* --- internal to trace/ (reader.c, writer.c, frames.c) ------------------ */

/* Eight-byte magic of the objects frame. */
#define TRACE_OBJECTS_MAGIC "TEAOBJCT"

/* Serializes the objects frame's content (magic, thread, objects, then the
 * run's fields when it has any) and appends it to *data (realloc'd; *size
 * grows). */
int trace_object_list_encode(const trace_object_list *l, uint8_t **data, size_t *size);

/* Parses an objects frame's content into `l` (emptied first). On
 * TEA_ERR_FORMAT the message is "content byte N: what is wrong" and *bad is
 * N, the byte offset within `data`; the caller prefixes the file and the
 * frame's offset ("F: objects frame at byte B, "). */
int trace_object_list_decode(const uint8_t *data, size_t size, trace_object_list *l, size_t *bad);

/* Reads the objects frame of the native trace at `path` through its footer,
 * without reading the records (the streaming reader's preload). Leaves `l`
 * empty and returns 0 when `path` is not a regular file or has no footer,
 * index or objects frame where the footer says (the streaming reader
 * diagnoses such files when it gets there). TEA_ERR_FORMAT for a damaged
 * objects frame, naming the file and the frame's byte offset;
 * TEA_ERR_NOMEM. Implemented in frames.c. */
int trace_objects_preload(const char *path, trace_object_list *l);

/* trace_objects_preload over the `size` bytes at `data`, a whole trace's
 * content, which messages call `name`. Implemented in frames.c. */
int trace_objects_preload_memory(const void *data, size_t size, const char *name, trace_object_list *l);

#endif
