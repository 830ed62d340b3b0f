/*
 * parzstd.h: the frames of a multi-frame zstd file, decompressed on several
 * threads and handed out in stream order.
 *
 * Internal to trace/ (input.c's decompressed view). A file written by pzstd,
 * or pieces compressed one by one and concatenated, holds several zstd
 * frames; each decompresses on its own, so several threads can decompress
 * consecutive frames at once while one consumer takes their content in
 * order. Frame boundaries come from the frame and block headers alone
 * (trace_parzstd_frame_size), so a thread can start the next frame before
 * the previous one is decompressed.
 *
 * Errors are not reported here: a frame that fails, or that cannot be sized
 * (corrupt or truncated headers, bytes that are no frame), ends the parallel
 * part, and trace_parzstd_next says where, so that the caller reads on
 * serially from that frame and reports exactly what a serial read reports.
 *
 * Memory: per worker, a compressed read buffer of TRACE_PARZSTD_INPUT_SIZE bytes,
 * TRACE_PARZSTD_PIECES pieces of TRACE_PARZSTD_PIECE_SIZE decompressed bytes, and a zstd
 * context (whose window the frames decide, as for the serial reader).
 */
#ifndef TEA_TRACE_PARZSTD_H
#define TEA_TRACE_PARZSTD_H

#include <stddef.h>
#include <stdint.h>

/* Decompressed bytes per piece handed out. */
#define TRACE_PARZSTD_PIECE_SIZE (1u << 20)
/* Pieces a worker may fill ahead of the consumer: how much of a frame it
 * can decompress before the consumer reaches that frame (16 MiB; pzstd's
 * frames hold 4 to 32 MiB). */
#define TRACE_PARZSTD_PIECES 16u
/* Compressed bytes a worker reads from the file at a time. */
#define TRACE_PARZSTD_INPUT_SIZE (1u << 20)
/* Most workers one file gets. */
#define TRACE_PARZSTD_MAX_WORKERS 64u

typedef struct trace_parzstd trace_parzstd;

/* Where the parallel part ended (trace_parzstd_next returned 0). */
typedef struct trace_parzstd_end {
    uint64_t offset; /* file offset where serial reading must go on: the file's
                        size after the last frame, else the start of the frame
                        that failed or could not be sized */
    uint64_t frames; /* zstd data frames wholly handed out before it */
    uint64_t skip;   /* bytes of that frame's content already handed out */
} trace_parzstd_end;

/* The bytes the frame at `offset` of the file `fd` (`file_size` bytes)
 * occupies, from its frame and block headers, and whether it is a zstd data
 * frame (1) or a skippable frame (0). Returns 1 with *size and *is_data, or
 * 0 when there is no whole, well-formed frame there (no message: the serial
 * reader then says why). */
int trace_parzstd_frame_size(int fd, uint64_t file_size, uint64_t offset, uint64_t *size, int *is_data);

/* Starts threads decompressing the frames of the regular file `fd` of
 * `file_size` bytes from its first byte, drawn on the process's thread
 * budget (common/pool.h): `asked` of them when it is not 0 (a user's
 * --threads: granted even past the budget), else as many as the budget has
 * room for; at most TRACE_PARZSTD_MAX_WORKERS. TEA_ERR_UNSUPPORTED when
 * fewer than two threads would run, or the file's first frame is all of it
 * (one frame: nothing to share) or cannot be sized; TEA_ERR_NOMEM when
 * memory or threads are short. Either way the caller reads serially. The file descriptor must
 * stay open until trace_parzstd_free. */
int trace_parzstd_start(trace_parzstd **out, int fd, uint64_t file_size, unsigned asked);

/* Hands out the next piece of decompressed content in stream order: returns
 * 1 with *data and *size (at least 1 byte, valid until the next call), or 0
 * with *end filled when the frames that could be decompressed here are all
 * handed out. */
int trace_parzstd_next(trace_parzstd *p, const uint8_t **data, size_t *size, trace_parzstd_end *end);

/* The file offset after the last frame wholly handed out, and the zstd data
 * frames among those frames. */
void trace_parzstd_position(const trace_parzstd *p, uint64_t *offset, uint64_t *frames);

/* Stops the threads and frees everything. Safe on NULL. */
void trace_parzstd_free(trace_parzstd *p);

#endif
