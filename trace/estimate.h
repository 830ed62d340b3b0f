/*
 * estimate.h: a sampled trace's estimate of the whole run (`tea info`).
 *
 * A sampled recording (tea record --sample, --simpoints) times windows of
 * `length` instructions; each stands for a period of `every` instructions,
 * or, weighted (SimPoint), for `weight` such periods. The run's cycles are
 * estimated from each window's cycles per committed µop:
 *
 *     periodic:  mean over the windows of cycles/µops x every x windows,
 *                +- t(0.975, windows - 1) x s / sqrt(windows) x every x
 *                windows (Student's t over the windows, common/stats.h;
 *                no interval for one window)
 *     weighted:  the sum over the windows of weight x cycles x every /
 *                length, with no interval (chosen regions, not a random
 *                sample): a window times `length` of its interval's
 *                `every` instructions as SimPoint counts them (a
 *                rep-prefixed string instruction once)
 *
 * The instructions are the model's commits in every mode (each pass of a
 * rep-prefixed string instruction one, as tea record counts them
 * elsewhere): every x the windows (periodic), the sum over the windows of
 * weight x µops x every / length (weighted), so that instructions over
 * cycles is the IPC a whole recording gives. (Without the windows' counts,
 * from a pipe, every window but the last is taken to hold `length` µops,
 * and the last the rest.)
 *
 * A window's cycles run from the previous window's end (the first from the
 * trace's first cycle) to its own end; a weighted window ends, as the golden
 * reference weights it, at its last commit, the cycles after it waiting for
 * the next window's first µop. A window without commits (the core's last
 * drain) adds its cycles to the window before it.
 */
#ifndef TEA_TRACE_ESTIMATE_H
#define TEA_TRACE_ESTIMATE_H

#include "trace/objects.h"
#include "trace/record.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Counts each window's commits from the records, as a scan reads them:
 * insns[k] the µops window k committed, insns[window_count + k] the cycle
 * of its last commit. The caller owns `insns` (2 x window_count, zeroed). */
typedef struct trace_estimate_counter {
    const trace_sampling *s;
    uint64_t *insns;
    size_t k;                  /* the window of the last record counted */
} trace_estimate_counter;

/* A counter for the windows of `s` (known at the trace's open) into
 * `insns`. */
void trace_estimate_counter_init(trace_estimate_counter *c, const trace_sampling *s, uint64_t *insns);

/* Starts counting the windows of the trace `reader` reads when they are
 * known at its open (a sampled trace file): *insns is then calloc'd (2 x
 * the windows; the caller frees it) and `c` counts into it. *insns stays
 * NULL for a trace that is not sampled or names its windows only at its
 * end (a pipe). 0, the reader's error or TEA_ERR_NOMEM. */
int trace_estimate_counter_open(trace_estimate_counter *c, trace_reader *reader, uint64_t **insns);

/* Counts the records of `batch` (the next of the trace, in order). */
void trace_estimate_count(trace_estimate_counter *c, const trace_batch *batch);

/* The estimate of a sampled run. */
typedef struct trace_estimate {
    double cycles;             /* the whole run's cycles */
    double half;               /* half the 95 % interval of `cycles`; NaN: none */
    double instructions;       /* the instructions the windows stand for (above), the model's
                                  commits: every x the windows (periodic), the weighted windows'
                                  µops scaled (weighted) */
    double periods;            /* the periods (SimPoint's intervals) the windows stand for: the
                                  windows (periodic), their weights' sum (weighted) */
    uint64_t lightest;         /* the lightest and heaviest window's weight (1 and 1 periodic) */
    uint64_t heaviest;
} trace_estimate;

/* The estimate of the run of sampling `s` (every > 0, at least one window)
 * from the trace's totals `t` and the windows' commits `insns` counted by a
 * trace_estimate_counter; without them (NULL: a trace from a pipe names its
 * windows only at its end) every window but the last is taken to hold
 * `length` µops and the last the rest of the trace's commits. */
void trace_estimate_run(trace_estimate *e, const trace_sampling *s, const trace_totals *t, const uint64_t *insns);

/* The estimate of the run the trace at `path` stands for, as tea info
 * gives it (its windows' commits counted), reading the trace once: 0 with
 * *sampled set when the trace is sampled (periodic or SimPoint), 0 with
 * *sampled 0 (and `e` untouched) when it is not; errors of the reader,
 * TEA_ERR_NOMEM. For the summaries of tea record and tea replay, which
 * give the run beside the windows' own figures. */
int trace_estimate_file(const char *path, const trace_open_options *opts, trace_estimate *e, int *sampled);

#endif
