/*
 * input.h: buffered reading of a trace file or standard input, with zstd.
 *
 * Internal to trace/. Offers three views of the same input:
 *   - raw bytes (uncompressed TraceDoctor tokens);
 *   - the decompressed concatenation of all zstd frames, skippable frames
 *     skipped (compressed TraceDoctor tokens, and what `zstd -dc` prints);
 *   - frame by frame, skippable frames included (native traces).
 * Every error message names the file and the compressed byte offset of the
 * frame or byte concerned. Memory stays bounded: one read buffer, plus in frame
 * mode one frame's content (at most TRACE_INPUT_MAX_FRAME_SIZE bytes), or two and a
 * compressed frame while the next frame is read ahead (trace_input_frame_advance),
 * plus two chunks when a background thread decompresses them ahead, or what
 * the threads of a multi-frame file hold (parzstd.h). Not
 * thread-safe: one thread at a time uses an input (the chunk reader's thread
 * aside).
 */
#ifndef TEA_TRACE_INPUT_H
#define TEA_TRACE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_INPUT_ZSTD_MAGIC 0xFD2FB528u
#define TRACE_INPUT_SKIPPABLE_MAGIC 0x184D2A50u /* ..5F: the low nibble is a variant */
#define TRACE_INPUT_SKIPPABLE_MASK 0xFFFFFFF0u
/* Largest decompressed frame or skippable frame accepted, against hostile sizes. */
#define TRACE_INPUT_MAX_FRAME_SIZE (256u << 20)

typedef struct trace_input trace_input;

/* Opens `path`, or standard input for "-". TEA_ERR_IO with the system's
 * reason when the file cannot be opened. */
int trace_input_open(trace_input **out, const char *path);

/* Opens the `size` bytes at `data` as the content of a file called `name`
 * in messages; the bytes are not copied and must stay unchanged until
 * trace_input_close. Every view gives what it gives for a file of those
 * bytes (a multi-frame file's frames are decompressed on one thread).
 * TEA_ERR_NOMEM, TEA_ERR_IO when the C library cannot make the stream. */
int trace_input_open_memory(trace_input **out, const void *data, size_t size, const char *name);

/* The name used in messages ("<stdin>" for "-"). */
const char *trace_input_name(const trace_input *in);

/* Copies up to `want` bytes from the current position without consuming them;
 * *got < want only at end of input. */
int trace_input_peek(trace_input *in, uint8_t *dst, size_t want, size_t *got);

/* Reads up to `size` raw bytes into a buffer of the input's own, like
 * trace_input_next_chunk for raw input: *data is valid until the next
 * call; *got < size only at the end of the input. Once a background raw
 * reader runs (trace_input_prefetch_raw) every call must ask for its size. */
int trace_input_next_raw_chunk(trace_input *in, size_t size, const uint8_t **data, size_t *got);

/* Starts reading raw bytes ahead of the caller on a background thread, in
 * chunks of `chunk_size` at most two in flight, for
 * trace_input_next_raw_chunk (the only raw view afterwards;
 * trace_input_close stops the thread). Results, errors and
 * trace_input_offset() are exactly what synchronous reading gives. When no
 * thread can be started, reading stays synchronous. Returns 0. */
int trace_input_prefetch_raw(trace_input *in, size_t chunk_size);

/* Reads up to `size` bytes of decompressed content from consecutive zstd
 * frames, skipping skippable frames; *got is 0 only at the end of the input.
 * Errors: TEA_ERR_FORMAT for corrupt or truncated frames or trailing garbage. */
int trace_input_read_decompressed(trace_input *in, void *dst, size_t size, size_t *got);

/* One frame returned by trace_input_next_frame. */
typedef struct trace_input_frame {
    int skippable;           /* 1: skippable frame, 0: zstd data frame */
    unsigned variant;        /* skippable magic variant (0..15) */
    uint64_t offset;         /* compressed byte offset of the frame's first byte */
    uint64_t compressed_size;/* bytes the frame occupies in the file */
    const uint8_t *data;     /* content (decompressed for data frames) */
    size_t size;             /* content bytes; valid until the next call */
} trace_input_frame;

/* Reads the next whole frame. Returns 0 with *more = 0 at a clean end of input
 * (between frames). Errors: TEA_ERR_FORMAT for an unknown magic, a truncated
 * or corrupt frame, or a frame above TRACE_INPUT_MAX_FRAME_SIZE. */
int trace_input_next_frame(trace_input *in, trace_input_frame *frame, int *more);

/* Reads up to `size` bytes of decompressed content like
 * trace_input_read_decompressed, but into a buffer of the input's own: *data is
 * valid until the next call. While the frames of a multi-frame file are
 * decompressed on several threads (trace_input_prefetch_chunks) a chunk may
 * be shorter than `size`, ending where a frame's content ends; *got is 0 only
 * at the end of the input. Every call must ask for the same size once a
 * background chunk reader runs. */
int trace_input_next_chunk(trace_input *in, size_t size, const uint8_t **data, size_t *got);

/* Starts decompressing ahead of the caller, for trace_input_next_chunk (and
 * trace_input_read_decompressed); only those two views may be used
 * afterwards, and trace_input_close stops the threads.
 *   - A regular file of several zstd frames (pzstd's output, or pieces
 *     compressed one by one and concatenated) has its frames decompressed on
 *     `frame_threads` threads at once (0: as many as the thread budget has
 *     room for; fewer than two: the single thread below), see parzstd.h. The
 *     content, and every error (same code and message, at the same point of
 *     the stream), are exactly what synchronous reading gives; chunks may end
 *     early at frame boundaries, and trace_input_offset() and
 *     trace_input_frames() count whole frames handed out (the same totals at
 *     the end).
 *   - Otherwise one background thread decompresses chunks of `chunk_size`
 *     bytes, at most two in flight, while the caller works on the previous
 *     one. Results, errors, trace_input_offset() and trace_input_frames() are
 *     exactly what synchronous reading gives.
 * When no thread can be started, reading stays synchronous. Returns 0. */
int trace_input_prefetch_chunks(trace_input *in, size_t chunk_size, unsigned frame_threads);

/* Reads ahead, in steps, the frame that the next trace_input_next_frame returns,
 * while the caller still works on the current one: decompresses at most
 * `budget` more bytes of it (a skippable frame is read whole in one step).
 * That trace_input_next_frame finishes what is left and returns exactly what it
 * would have read without the steps, errors included (same code and
 * message); until then trace_input_offset() and trace_input_frames() do not count the
 * frame read ahead. Only for the frame view. Returns 1 while the next frame
 * is incomplete, 0 once it is read, its reading failed or the input ended. */
int trace_input_frame_advance(trace_input *in, size_t budget);

/* Bytes consumed from the file so far. */
uint64_t trace_input_offset(const trace_input *in);

/* zstd data frames completed so far (both decompressing views). */
uint64_t trace_input_frames(const trace_input *in);

/* Closes the file (not standard input) and frees. Safe on NULL. */
void trace_input_close(trace_input *in);

#endif
