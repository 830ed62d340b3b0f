/*
 * frames.h: random access to the data frames of a native trace file.
 *
 * A native trace's data frames are independent (each starts with an absolute
 * cycle and restarts its PC deltas) and its index gives each frame's file
 * offset, first and last cycle, record count and ROB occupancy at its start
 * (docs/trace-format.md). This module lets several threads decode different
 * frames of one file at once: trace_frames holds what the whole file says
 * (header, index, footer) and is read-only after opening; each thread decodes
 * frames with its own trace_frame_reader.
 *
 * Each frame is checked exactly as the streaming reader checks it (every
 * record against the window, cycles increasing) starting from the occupancy
 * the index gives, and against its index entry at its end. What spans frames
 * (the window and the cycle order from one frame to the next, the footer's
 * totals) is the caller's to check, with trace_frames_check_sequence. Error
 * messages name the file, the record number and the frame's byte offset, but
 * may differ in wording from the streaming reader's: callers that want the
 * streaming reader's exact diagnosis re-read the file with it after a
 * failure.
 */
#ifndef TEA_TRACE_FRAMES_H
#define TEA_TRACE_FRAMES_H

#include "native.h"
#include "objects.h"
#include "record.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>

typedef struct trace_frames trace_frames;

/* What the index says about one data frame. */
typedef struct trace_frame_info {
    uint64_t first_record;  /* number of the frame's first record in the trace */
    uint64_t first_cycle;   /* cycle of its first record */
    uint64_t last_cycle;    /* cycle of its last record */
    uint32_t records;
    unsigned window;        /* ROB entries in flight before its first record */
} trace_frame_info;

/*
 * Opens `path` for decoding by frame: reads the header, the footer and the
 * index, and checks that the data frames (each after its context frame, if
 * any) tile the file between the header
 * and the index. Errors: TEA_ERR_UNSUPPORTED when the file cannot be read
 * this way (standard input, a pipe, a TraceDoctor trace, a native trace with
 * an unusual layout: the streaming reader handles those), TEA_ERR_FORMAT for
 * damaged metadata (the objects frame included), TEA_ERR_IO, TEA_ERR_NOMEM; each with a message.
 */
int trace_frames_open(trace_frames **out, const char *path);

/* trace_frames_open over the `size` bytes at `data`, a whole trace's
 * content, which messages call `name` as they would call the file: the
 * same frames, records and errors as a file of those bytes. The bytes are
 * not copied and must stay unchanged until trace_frames_close (frame
 * readers included). */
int trace_frames_open_memory(trace_frames **out, const void *data, size_t size, const char *name);

/* The trace's header. */
const trace_header *trace_frames_header(const trace_frames *f);

/* Number of data frames. */
size_t trace_frames_count(const trace_frames *f);
/* The executable objects and recorded thread of the trace's objects frame
 * (none, thread unknown, when it has none); valid until close. A damaged
 * objects frame fails trace_frames_open with TEA_ERR_FORMAT. */
void trace_frames_objects(const trace_frames *f, const trace_object **objs, size_t *count, uint32_t *tid,
                          uint32_t *threads_seen);

/* The run's facts of the trace's objects frame (all zeros when it has
 * none); valid until close. */
const trace_run *trace_frames_run(const trace_frames *f);

/* Frame readers created after this give every µop the root context, as
 * if the trace recorded none (tea replay --flat). */
void trace_frames_drop_contexts(trace_frames *f);

/* Index entry `k` (k < trace_frames_count). */
const trace_frame_info *trace_frames_info(const trace_frames *f, size_t k);

/*
 * Checks what spans frames, given the totals and final window of every frame
 * as decoded (frame_totals[k], end_window[k] for all k): each frame starts
 * with the window the previous one left and a cycle after its last one, and
 * the totals add up to the footer's. Stores the trace's totals in *totals and
 * its statistics (as the streaming reader reports them at the end) in
 * *stats. Returns 0 or TEA_ERR_FORMAT with a message.
 */
int trace_frames_check_sequence(const trace_frames *f, const trace_totals *frame_totals, const unsigned *end_window,
                                trace_totals *totals, trace_read_stats *stats);

/* Closes the file and frees everything. Safe on NULL. */
void trace_frames_close(trace_frames *f);

typedef struct trace_frame_reader trace_frame_reader;

/* A decoder for frames of `f`, for one thread at a time. 0 or TEA_ERR_NOMEM. */
int trace_frame_reader_create(trace_frame_reader **out, const trace_frames *f);

/* Reads and decompresses frame `k`, ready for trace_frame_reader_read.
 * Errors: TEA_ERR_IO, TEA_ERR_FORMAT (corrupt or truncated zstd data, a
 * frame that disagrees with its index entry), TEA_ERR_NOMEM. */
int trace_frame_reader_start(trace_frame_reader *fr, size_t k);

/* Fills `batch` (after clearing it) with the frame's next records; at the end
 * of the frame batch->count is 0 and the frame has been checked against its
 * index entry. Errors: TEA_ERR_FORMAT with the record number and the frame's
 * byte offset. After an error only trace_frame_reader_start is allowed. */
int trace_frame_reader_read(trace_frame_reader *fr, trace_batch *batch);

/* Totals of the current frame's records read so far. */
const trace_totals *trace_frame_reader_totals(const trace_frame_reader *fr);

/* ROB entries in flight after the records read so far. */
unsigned trace_frame_reader_window(const trace_frame_reader *fr);

void trace_frame_reader_free(trace_frame_reader *fr);

/*
 * Reading records again. A thread that replays a frame need not keep every
 * record it decoded for another thread that may want some of them later:
 * it notes where the reader stood before each read (trace_frame_reader_tell),
 * then hands the frame's decompressed bytes over (trace_frame_reader_hand_over),
 * and the other thread reads the batch from any noted position with a reader
 * of its own (trace_frame_reader_seek, then trace_frame_reader_read). Reads
 * from a position give exactly the records, totals and checks of the read
 * that followed it, given a batch of the same capacity.
 */

/* Where a frame reader stands between two reads. Plain data. */
typedef struct trace_frame_position {
    size_t frame;               /* the frame being read */
    size_t pos;                 /* bytes of its content consumed */
    uint64_t prev_cycle;        /* the decoder's delta bases (cycle, PC) */
    uint64_t prev_pc;
    int frame_started;          /* the frame's first record was read */
    int done;                   /* the end of the frame was reached and checked */
    unsigned window;            /* ROB entries before the next record */
    uint64_t last_cycle;        /* cycle of the previous record */
    trace_totals totals;        /* the frame's records before the position */
    size_t context_next;        /* its calling contexts: the next change to apply, */
    uint64_t context_uops;      /* ... the µops seen, */
    uint32_t context_ctx;       /* ... and the context of the last */
} trace_frame_position;

/* A frame's decompressed bytes, owned by whoever holds the struct. Start
 * from all zeros. */
typedef struct trace_frame_data {
    size_t frame;
    uint8_t *bytes;
    size_t size, capacity;
    trace_native_contexts contexts; /* the frame's calling contexts (none: all in the root) */
} trace_frame_data;

/* Stores where the reader stands (after trace_frame_reader_start). */
void trace_frame_reader_tell(const trace_frame_reader *fr, trace_frame_position *at);

/* Moves the current frame's bytes and calling contexts into `data` (whose
 * old buffers the reader keeps for its next frame), once the reader has
 * read the frame to its end.
 * The reader then needs trace_frame_reader_start again. */
void trace_frame_reader_hand_over(trace_frame_reader *fr, trace_frame_data *data);

/* Sets the reader to read `data` (which must outlive the reads) from `at`, a
 * position told by a reader of the same trace on the same frame. */
void trace_frame_reader_seek(trace_frame_reader *fr, const trace_frame_data *data, const trace_frame_position *at);

/* Frees the bytes of `data` and zeroes it. */
void trace_frame_data_free(trace_frame_data *data);

#endif
