/*
 * simpoint_pick.h: SimPoint's regions picked from basic-block vectors, for
 * tea simpoint, as SimPoint 3 picks them (Hamerly et al., "SimPoint 3.0",
 * 2005):
 *
 *   - the projected intervals (record/bbv.h: normalized, 15 dimensions);
 *   - for every K from 1 to max_k: k-means from `restarts` seeded
 *     initializations (K distinct intervals drawn at random, SimPoint's
 *     "samp"), Lloyd's iterations until no interval changes cluster, the
 *     one of least squared distance kept;
 *   - each K scored by the Bayesian information criterion of a spherical
 *     Gaussian mixture (the X-means form SimPoint uses):
 *       BIC = sum_j n_j ln(n_j / R) - R M / 2 ln(2 pi s2) - SSE / (2 s2)
 *             - p / 2 ln R,
 *     R intervals, M dimensions, n_j the intervals of cluster j, SSE the
 *     squared distances to the centroids, s2 = SSE / (M (R - K)) the
 *     variance per dimension (at least PICK_VARIANCE_MIN), p = (K - 1) +
 *     M K + 1 parameters;
 *   - K the smallest whose BIC reaches `bic_threshold` of the way from the
 *     least to the greatest BIC (SimPoint's -bicThreshold, 0.9);
 *   - each cluster represented by its interval closest to the centroid
 *     (the earliest on a tie), weighted by its share of the intervals.
 *
 * What differs from SimPoint 3: no sub-sampling of the intervals before
 * clustering (every interval is clustered), one iteration cap
 * (RECORD_PICK_ITERATIONS_MAX), and the clusters numbered in the order of
 * their representatives. Deterministic for a seed.
 */
#ifndef TEA_RECORD_SIMPOINT_PICK_H
#define TEA_RECORD_SIMPOINT_PICK_H

#include "bbv.h"
#include "simpoint.h"

#include <stdint.h>

/* SimPoint 3's defaults. */
#define RECORD_PICK_MAX_K_DEFAULT 30
#define RECORD_PICK_RESTARTS_DEFAULT 5
#define RECORD_PICK_BIC_THRESHOLD_DEFAULT 0.9
/* Lloyd's iterations per initialization at most. */
#define RECORD_PICK_ITERATIONS_MAX 100

typedef struct record_pick_options {
    unsigned max_k;       /* 1 or more (more than the intervals: up to them) */
    unsigned restarts;    /* initializations per K, 1 or more */
    double bic_threshold; /* in [0, 1] */
    uint64_t seed;        /* the initializations' */
} record_pick_options;

/* What the picking found for one thread (record_pick_request.threads). */
typedef struct record_pick_thread {
    uint32_t thread;       /* its number by creation, 1 the main thread */
    unsigned k, tried;     /* as record_pick's */
    size_t intervals;      /* its intervals (the last one partial) */
    uint64_t instructions; /* ... and their instructions */
} record_pick_thread;

/* What the picking found. */
typedef struct record_pick {
    record_simpoint_list regions; /* one per cluster, by increasing interval; cluster j the j-th */
    unsigned k;                   /* the clusters chosen */
    unsigned tried;               /* the K scored: 1 to tried */
    double *bic;                  /* bic[K - 1] for each K scored */
    size_t intervals;             /* the run's intervals clustered (every thread's) */
    uint64_t instructions;        /* ... and their instructions (exp-bbv's count) */
    record_pick_thread *threads;  /* with req->threads: each thread's, by number (k, tried, bic unset) */
    size_t thread_count;
} record_pick;

/* Picks regions from `bbv` into *out (freed with record_pick_free). 0,
 * TEA_ERR_USAGE (options out of range), TEA_ERR_NOMEM. */
int record_pick_regions(const record_bbv *bbv, const record_pick_options *opt, record_pick *out);

/* What tea simpoint does: a program's basic-block vectors, its regions
 * picked from them and written. */
typedef struct record_pick_request {
    char *const *argv;          /* the program and its arguments, run under exp-bbv; NULL: read bbv_in */
    const char *bbv_in;         /* exp-bbv's file to pick from instead of running a program */
    const char *bbv_out;        /* where to keep the file exp-bbv writes (NULL: a temporary file, removed) */
    const char *valgrind;       /* NULL: valgrind in PATH */
    const char *threads;        /* "all" or a list "1,3": each thread's regions, from its own vectors
                                   (record_bbv_run_threads; bbv_in, bbv_out: the PREFIX of PREFIX.N),
                                   written in sections (simpoint.h); NULL: the main thread's (exp-bbv) */
    const char *tool_dir;       /* with threads: the tool's directory (record_bbv_run_threads) */
    uint64_t interval;          /* instructions per interval (exp-bbv's --interval-size); with bbv_in,
                                   what the file was made with */
    const char *simpoints_path; /* the regions' file to write (with the interval's comment) */
    const char *weights_path;   /* the weights' file to write */
    record_pick_options pick;
} record_pick_request;

/* Runs req->argv under exp-bbv (or reads req->bbv_in), picks its regions
 * into *out (freed with record_pick_free) and writes SimPoint's two files.
 * With req->threads, each selected thread's on its own (a thread's last,
 * partial interval is clustered too: the vectors are the tool's own, no
 * interval check), in sections; TEA_ERR_USAGE when none of them ran.
 * *exit_status: the program's (0 with bbv_in). Errors as record_bbv_run,
 * record_bbv_read, record_pick_regions and record_simpoint_write give
 * them; no file is written on an error. */
int record_pick_program(const record_pick_request *req, record_pick *out, int *exit_status);

void record_pick_free(record_pick *p);

#endif
