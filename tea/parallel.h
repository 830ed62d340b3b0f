/*
 * parallel.h: replaying a native trace file by frames on several threads.
 *
 * Worker threads each take the next data frame, decode and check it, and run
 * the golden reference and the cycle samplers (TEA, NCI-TEA) over it from
 * its first committing record on, as a part of the replay (tea/replay.h).
 * The calling thread takes the frames in order: it replays each frame's
 * records up to that first committing record with the whole replay, runs
 * the tagging samplers (IBS, SPE, RIS) over all of them, and moves the whole
 * replay to where the frame's part ended. Every PICS, sample count and
 * classification is therefore exactly that of a sequential replay (integer
 * sums do not depend on their order), for any number of threads.
 *
 * Memory: workers replay each TEA_PARALLEL_BATCH_RECORDS batch from a
 * scratch batch of their own and keep only what the calling thread needs:
 * the frame's decompressed bytes, where each batch starts in them, and the
 * batches up to the first committing record. The calling thread decodes
 * again the few batches a tagger wakes in (trace_frame_reader_seek). At most
 * threads + 1 frames are in flight, each about the size of the frame's bytes
 * (about 4.5 bytes per record for `mixed`: 1.2 MB for the writer's
 * 2^18-record frames). Taggers that wake in nearly every batch would make
 * the calling thread decode everything again: tea_parallel_suits tells.
 */
#ifndef TEA_TEA_PARALLEL_H
#define TEA_TEA_PARALLEL_H

#include "replay.h"
#include "common/progress.h"
#include "trace/frames.h"

/* Most worker threads one replay uses. */
#define TEA_PARALLEL_MAX_THREADS 256

/* Records per batch in the workers and the calling thread, which must agree:
 * a frame's batches are where the calling thread may start decoding again
 * for a tagger, so smaller ones mean fewer records decoded twice (a quarter
 * of TRACE_BATCH_RECORDS: with IBS, SPE and RIS at eight frequencies up to
 * 32 kHz the calling thread decoded again half the records). */
#define TEA_PARALLEL_BATCH_RECORDS (TRACE_BATCH_RECORDS / 4)

/*
 * Feeds every record of the trace `f` to the replay `whole` (created for
 * that trace's initial window and not fed yet) using `threads` worker
 * threads (1 to TEA_PARALLEL_MAX_THREADS), and checks the frames' sequence
 * against the index and footer. On success the caller finishes the replay
 * (tea_replay_finish) as after a sequential feed; *totals and *stats are what
 * the streaming reader reports at the end of the trace. Errors: whatever
 * decoding or checking a frame raised (TEA_ERR_FORMAT, TEA_ERR_IO, with the
 * message of trace_frame_reader_read), TEA_ERR_NOMEM, TEA_ERR_USAGE (a bad
 * thread count); the replay is then unusable. `meter` (common/progress.h;
 * NULL: none) is restarted towards the index's record count and given the
 * records taken so far, frame by frame in order, from the calling thread;
 * results do not depend on it.
 */
int tea_parallel_replay(tea_replay *whole, const trace_frames *f, unsigned threads, trace_totals *totals,
                        trace_read_stats *stats, progress_meter *meter);

/*
 * Whether replaying `f` by frames suits the replay `whole`: not when a
 * tagging sampler wakes about once per TEA_PARALLEL_TAG_BATCHES batches'
 * worth of cycles or more often (judged from the index's mean cycles per
 * record), since the calling thread then decodes nearly every batch again
 * and replays alone what the workers replayed beside it; the streaming
 * reader, which decodes each record once on a thread of its own, is then
 * faster. Results are the same either way.
 */
int tea_parallel_suits(const tea_replay *whole, const trace_frames *f);

/* See tea_parallel_suits. On the 10^8-cycle `mixed` trace of bench/replay
 * (2,138 cycles per 1,024-record batch) with IBS alone, frames broke even
 * with the stream at a period of 4,000 cycles, were 1.35x slower at 1,000
 * and 1.14x faster at 5,000. */
#define TEA_PARALLEL_TAG_BATCHES 2

#endif
