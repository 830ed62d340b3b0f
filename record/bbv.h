/*
 * bbv.h: basic-block vectors, for tea simpoint. Valgrind's exp-bbv tool
 * counts, in every interval of a fixed number of instructions, the
 * instructions each basic block executed and writes one line per interval:
 *
 *   T:ID:COUNT :ID:COUNT ...
 *
 * (ID a block's number from 1, COUNT its instructions in the interval; a
 * rep-prefixed string instruction counts once, not once per pass). This
 * module runs a program under exp-bbv and reads such a file into points
 * ready for clustering: each interval's vector normalized to sum 1 and
 * projected to RECORD_BBV_DIMS dimensions by a seeded random projection
 * (each block's direction uniform in [-1, 1) per dimension, drawn from the
 * block's ID and the seed), as SimPoint 3 does before k-means.
 */
#ifndef TEA_RECORD_BBV_H
#define TEA_RECORD_BBV_H

#include <stddef.h>
#include <stdint.h>

/* SimPoint 3's projected dimensions. */
#define RECORD_BBV_DIMS 15

/* The projected intervals of a run, in the run's order. */
typedef struct record_bbv {
    double *points;     /* intervals x RECORD_BBV_DIMS, row by row */
    size_t intervals;   /* rows */
    uint64_t instructions; /* all the intervals' counts summed (exp-bbv's unit) */
} record_bbv;

/* Most intervals a file may hold (10^10 instructions in intervals of 10^5). */
#define RECORD_BBV_INTERVALS_MAX 100000

/* Reads exp-bbv's file `path` into *out (freed with record_bbv_free),
 * projected with `seed`. Lines not starting with 'T' are skipped. Errors
 * name the file and line: TEA_ERR_IO, TEA_ERR_FORMAT (a malformed entry, a
 * count of 0, an interval with no instruction, no interval, more than
 * RECORD_BBV_INTERVALS_MAX), TEA_ERR_NOMEM. */
int record_bbv_read(record_bbv *out, const char *path, uint64_t seed);

/* Runs `argv` (argv[0] the program, found in PATH as execvp does) under
 * `valgrind` (NULL: "valgrind" in PATH) --tool=exp-bbv with intervals of
 * `interval` instructions, its vectors written to `bb_path`; the program's
 * own output passes through. 0 once the program ran to its end and the
 * vectors are there (whatever its exit status, returned in
 * *exit_status); TEA_ERR_USAGE when valgrind or the program cannot be
 * run, TEA_ERR_IO when valgrind wrote no vectors or a signal ended the
 * program. */
int record_bbv_run(const char *valgrind, uint64_t interval, const char *bb_path, char *const argv[],
                   int *exit_status);

/* Runs `argv` as record_bbv_run does, but under this project's tool
 * (RECORD_SESSION_TOOL from `tool_dir`, its --bbv-out mode), which writes
 * each thread's vectors to PREFIX.N, N the thread's number by creation (1
 * the main thread, never reused; exp-bbv's per-thread files are by
 * Valgrind's thread slot, which a new thread takes over from one that
 * ended). Errors as record_bbv_run's; TEA_ERR_IO too when the tool is not
 * in `tool_dir`. */
int record_bbv_run_threads(const char *tool_dir, const char *valgrind, uint64_t interval, const char *prefix,
                           char *const argv[], int *exit_status);

void record_bbv_free(record_bbv *b);

#endif
