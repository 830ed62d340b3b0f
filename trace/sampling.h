/*
 * sampling.h: a sampled recording's windows and what a reader makes of
 * them (docs/semantics.md, "Sampled recordings"; docs/trace-format.md, the
 * run's sampling fields). A recorder fills a trace_sampling and hands it
 * to trace_writer_set_run (trace/objects.h), which checks it with
 * trace_sampling_fault; readers get it back with the run
 * (trace_reader_run) and use the arithmetic below: which window a cycle
 * lies in, the cycles of the whole run a trace stands for, the weight of
 * one cycle, the groups of windows intervals are taken over. How a
 * recording finds its windows (the model's window ends, SimPoint's
 * weights) is the recorder's (record/run.c).
 */
#ifndef TEA_TRACE_SAMPLING_H
#define TEA_TRACE_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

/* How a sampled recording chose what to time (docs/semantics.md, "Sampled
 * recordings"). Periodic (tea record --sample-every): in every period of
 * `every` instructions of the recorded thread, `warmup` instructions warmed
 * the model and the next `length` were timed, then the model drained; each
 * window stands for one period. Weighted (tea record --simpoints): window k
 * times `length` instructions from window_starts[k] on, after up to
 * `warmup` warming ones, and stands for window_weights[k] periods of
 * `every` instructions (SimPoint's intervals: the cluster it represents).
 * The trace holds the windows one after the other; window k's cycles are
 * those after window_ends[k - 1] up to window_ends[k] (the first from the
 * trace's start). every == 0: not sampled. */
typedef struct trace_sampling {
    uint64_t every;                /* instructions per period (weighted: per SimPoint interval) */
    uint64_t length;               /* timed instructions per window (the last may have fewer) */
    uint64_t warmup;               /* most warm-up instructions before each window */
    const uint64_t *window_ends;   /* the last cycle of each window, increasing */
    size_t window_count;
    const uint64_t *window_starts;  /* weighted: each window's first timed instruction after the region's
                                       start, increasing by at least `length`; NULL: periodic */
    const uint64_t *window_weights; /* weighted: periods each window stands for (>= 1); NULL: periodic */
} trace_sampling;

/* Most periods a weighted sampling's windows may stand for in all. */
#define TRACE_WEIGHT_TOTAL_MAX (1ull << 40)

/* Whether `s` is a weighted (SimPoint) sampling. */
static inline int trace_sampling_weighted(const trace_sampling *s)
{
    return s->window_weights != NULL;
}

/* The periods window k stands for: its weight, or 1 for periodic sampling. */
static inline uint64_t trace_sampling_weight(const trace_sampling *s, size_t k)
{
    return s->window_weights ? s->window_weights[k] : 1;
}

/* Most windows a sampled trace may list. */
#define TRACE_WINDOWS_MAX (1u << 22)

/* Interleaved groups of windows (window w in group w mod B) that confidence
 * intervals on a sampled trace are taken over (tea replay's golden PICS, tea
 * topdown): t with 19 degrees of freedom is within 7 % of the normal's
 * 1.96. */
#define TRACE_WINDOW_GROUPS 20

/* How many window groups a sampled trace gets: TRACE_WINDOW_GROUPS, or one
 * per window when there are fewer; 0 (no groups) when it is not sampled,
 * has fewer than two windows or is weighted (SimPoint's regions are chosen,
 * not drawn: no interval comes from their spread). */
unsigned trace_sampling_groups(const trace_sampling *s);

/* The cycles of the whole run that the trace's cycles from `first` to `last`
 * (its first and last record) stand for: unsampled, last - first;
 * periodic, that times every / length; weighted, each window's cycles (those
 * past the last window's end its) times its weight, times every / length. */
double trace_sampling_stands_for(const trace_sampling *s, uint64_t first, uint64_t last);

/* The cycles from `origin` to `last` (a trace's first record and its
 * latest), each counted as often as the weight of its window: window k's
 * cycles after ends[k - 1] (the first's after `origin`) up to ends[k],
 * those past the last end the last window's. UINT64_MAX when the sum does
 * not fit in 64 bits. O(count). */
uint64_t trace_sampling_weighted_cycles(const uint64_t *ends, const uint64_t *weights, size_t count, uint64_t origin,
                                        uint64_t last);

/* trace_sampling_weighted_cycles into *cycles, once the first window is
 * found to end at or after `origin`: 0, or TEA_ERR_FORMAT (naming both
 * cycles) for windows that end before the trace's first record. */
int trace_sampling_weighted_span(const uint64_t *ends, const uint64_t *weights, size_t count, uint64_t origin,
                                 uint64_t last, uint64_t *cycles);

/* The heaviest window's weight: 1 unless weighted. */
uint64_t trace_sampling_heaviest(const trace_sampling *s);

/* The cycles of the whole run that one cycle of a window of weight 1
 * stands for: 1 unsampled, every / length sampled (the highest frequency a
 * trace is sampled at takes one sample per such cycle). */
double trace_sampling_cycle_weight(const trace_sampling *s);

/* The window of a record at `cycle`, searching on from window `from`: the
 * first whose end is at or after `cycle`, or the last window for a cycle
 * past every end. `ends` (increasing) has `windows` >= 1 entries. */
size_t trace_sampling_window_of(const uint64_t *ends, size_t windows, size_t from, uint64_t cycle);

/* What is wrong with sampling `s` as trace_writer_set_run checks it
 * (every > length >= 1, warmup <= every - length, 1 to TRACE_WINDOWS_MAX
 * increasing window ends; weighted: every >= length >= 1, starts
 * increasing by at least `length`, weights of at least 1 summing to at
 * most TRACE_WEIGHT_TOTAL_MAX), in words; NULL when it is sound or absent
 * (every == 0). */
const char *trace_sampling_fault(const trace_sampling *s);

#endif
