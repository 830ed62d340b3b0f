/*
 * replay.h: one pass over a record stream feeding the golden reference and
 * any number of samplers.
 *
 * The engine runs the golden reference (golden/golden.h) and builds the
 * golden PICS from its intervals. TEA is the golden reference sampled: at
 * each sample point it charges exactly what golden charges for that cycle
 * (all committing µops 1/n each, else the µop golden charges), so TEA with
 * a period of one cycle equals golden by construction. NCI-TEA charges the
 * first µop that commits at or after the point. IBS, SPE and RIS follow
 * tagged ROB entries (tea/tagger.h). Samplers are cheap when idle: the engine
 * keeps the earliest cycle any of them needs and skips them until then, so
 * work is O(records + samples), and many frequencies cost little more than
 * one.
 */
#ifndef TEA_TEA_REPLAY_H
#define TEA_TEA_REPLAY_H

#include "pics/scheme.h"
#include "golden/golden.h"
#include "pics/pics.h"
#include "pics/pics_file.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* One sampler to run. */
typedef struct tea_sampler_spec {
    pics_scheme scheme;      /* TEA, NCI, IBS, SPE or RIS */
    uint64_t period;        /* cycles between sample points (>= 1) */
    double frequency_hz;    /* clock / period, for reporting */
    pics_jitter jitter;
    uint64_t seed;
    uint16_t event_mask;    /* PSV bits reported */
    int all_events;         /* the mask is "all" rather than the scheme's native set */
    int keep_points;        /* IBS, SPE, RIS: keep the cycle each sample stands for
                               (tea_replay_sampler_points, for a noise floor) */
    golden_rules rules;     /* the sampler's rule set: GOLDEN_RULES_TRACEDOCTOR makes TEA, NCI-TEA
                               and IBS the TraceDoctor workers' (tea/tdsampler.h), fed tokens by
                               tea_replay_token instead of records (no jitter, listed or points) */
    unsigned llc_latency;   /* tracedoctor rules: memory latency (cycles) from which a data-cache
                               miss is ST-LLC (the trace header's) */
    unsigned phases;        /* IBS, SPE, RIS: units pooled, each taking every phases-th sample point
                               with a tag of its own (tea/tagger.h; 0 or 1: one unit, the paper's);
                               on a sampled trace the run's period over the trace's (tea/run.h) */
    uint64_t phase_period;  /* with phases > 1: each unit's period, the run's (0: phases x period) */
    int listed;             /* TEA only: sample exactly `points` instead of the period's schedule */
    const uint64_t *points; /* listed: the cycles (non-decreasing; the caller's, read until the */
    uint64_t point_count;   /* replay and its parts are freed) */
} tea_sampler_spec;

typedef struct tea_replay tea_replay;

/* Prepares a replay of a trace whose ROB holds `initial_window` entries
 * before its first record. Errors: TEA_ERR_USAGE (a golden spec, period 0,
 * a listed spec of another scheme than TEA or with decreasing points, more
 * than TEA_TAGGER_PHASES_MAX phases),
 * TEA_ERR_NOMEM. */
int tea_replay_create(tea_replay **out, unsigned initial_window, const tea_sampler_spec *specs, size_t count);

/* True when a sampler follows the tracedoctor rules: the replay then needs
 * the trace's tokens (tea_replay_token). */
int tea_replay_reads_tokens(const tea_replay *r);

/* Feeds one TraceDoctor token (64 packed bytes), in trace order, to the
 * samplers of the tracedoctor rules; a trace_token_sink (trace/trace.h)
 * whose context is the replay. May run before the first batch. */
void tea_replay_token(void *replay, const uint8_t *token);

/* Chooses the golden reference's rule set (golden/golden.h), which TEA then
 * samples; call before the first batch. Default: GOLDEN_RULES_DEFAULT. */
void tea_replay_set_golden_rules(tea_replay *r, golden_rules rules);

/* The longest trace (last cycle - first) a replay can attribute: a PICS
 * counts cycles in 1/PICS_UNIT units in 64 bits. */
#define TEA_REPLAY_MAX_SPAN (UINT64_MAX / PICS_UNIT)

/* 0 when a trace from `origin` to `last` fits TEA_REPLAY_MAX_SPAN, else
 * TEA_ERR_UNSUPPORTED with a message saying so (never a wrapped total). */
int tea_replay_check_span(uint64_t origin, uint64_t last);

/* Consumes a batch of validated records. 0, TEA_ERR_NOMEM, or
 * TEA_ERR_UNSUPPORTED for a trace longer than TEA_REPLAY_MAX_SPAN. */
int tea_replay_feed(tea_replay *r, const trace_batch *batch);

/* Ends the trace: trailing cycles, pending samples. 0 or TEA_ERR_NOMEM. */
int tea_replay_finish(tea_replay *r);

/*
 * Window groups: on a sampled trace (docs/semantics.md, "Sampled
 * recordings"), the golden PICS is also kept split by groups of windows,
 * for confidence intervals: window w (records up to ends[w], the windows'
 * last cycles, increasing) charges group w mod `groups`. Interleaved groups
 * are systematic subsamples of the run, each an estimate of the whole, so
 * the spread of any quantity (a share, a total) over the groups gives its
 * interval (t with groups - 1 degrees of freedom). Records past the last
 * window's end stay in its group. The golden PICS is the groups' sum, and
 * so is each cycle sampler's and tagger's (tea_replay_sampler_groups).
 * Call before the first batch, on a replay fed as one stream (not with
 * parts). `ends` must stay valid until the last batch is fed. Errors: TEA_ERR_USAGE (fewer
 * than two groups, fewer windows than groups), TEA_ERR_NOMEM.
 */
int tea_replay_group_windows(tea_replay *r, const uint64_t *ends, size_t windows, unsigned groups);

/*
 * Weighted windows: on a weighted sampled trace (a SimPoint recording,
 * trace_sampling's window_weights), window w (records up to ends[w]; those
 * past the last end stay in the last) stands for weights[w] periods of the
 * run. The golden reference charges each interval that closes in window w
 * weights[w] times, and every periodic sampler (not a listed one) samples
 * window w at its period over weights[w] (tea_schedule_set_windows), so
 * that every PICS estimates the whole run's with as many samples in each
 * window as the run has in what it stands for. A trace whose weighted
 * cycles exceed TEA_REPLAY_MAX_SPAN is refused at the batch that reaches
 * it (TEA_ERR_UNSUPPORTED), one whose first window ends before its first
 * record at the first batch (TEA_ERR_FORMAT). Not with window groups; same conditions
 * otherwise, but the replay keeps copies of `ends` and `weights`. Errors:
 * TEA_ERR_USAGE (no windows, a weight of 0, ends that do not increase),
 * TEA_ERR_NOMEM.
 */
int tea_replay_weight_windows(tea_replay *r, const uint64_t *ends, const uint64_t *weights, size_t windows);

/* The golden PICS of each group (complete after finish), *count of them
 * (0 and NULL without groups). */
const pics *tea_replay_golden_groups(const tea_replay *r, unsigned *count);

/* Sampler i's PICS of each group: its samples taken while the windows of
 * that group were fed (a tagged µop's in the window it commits in), which
 * sum to its PICS; *count of them (0 and NULL without groups, and for the
 * tracedoctor rules' samplers, which never see a sampled trace). For the
 * interval of an error (pics_error_jackknife). */
const pics *tea_replay_sampler_groups(const tea_replay *r, size_t i, unsigned *count);

/* The golden PICS (complete after finish). */
const pics *tea_replay_golden(const tea_replay *r);

/* The golden reference's classification totals. */
const golden_totals *tea_replay_golden_totals(const tea_replay *r);

/* Sampler `i`'s raw PICS, its samples and losses. */
const pics *tea_replay_sampler_pics(const tea_replay *r, size_t i);

/* Gives the golden PICS and every sampler's a copy of the calling contexts
 * their cells name (the µops' contexts of the records fed: trace/callpath.h).
 * 0 or TEA_ERR_NOMEM. */
int tea_replay_set_contexts(tea_replay *r, const trace_contexts *contexts);
uint64_t tea_replay_sampler_samples(const tea_replay *r, size_t i);

/* The cycles sampler i's samples stand for, when it is a tagger (IBS, SPE,
 * RIS) whose spec asked to keep them: one per sample, non-decreasing
 * (tea/tagger.h), valid until the replay is freed; NULL with *count 0
 * otherwise (TEA and NCI-TEA: their points are their schedule's). The
 * noise floor's TEA samples exactly these. */
const uint64_t *tea_replay_sampler_points(const tea_replay *r, size_t i, uint64_t *count);
const uint64_t *tea_replay_sampler_lost(const tea_replay *r, size_t i);

/* Fills the provenance of the golden PICS (i == SIZE_MAX) or of sampler i's
 * PICS, for a trace with header `h` and totals `t`. 0 or TEA_ERR_NOMEM. */
int tea_replay_describe(const tea_replay *r, size_t i, const trace_header *h, const trace_totals *t,
                        pics_info *info);


/*
 * Frame-parallel replay (tea/parallel.h). A committing record leaves the
 * golden reference and the cycle samplers (TEA, NCI-TEA) in a state that
 * depends only on that record, the ROB occupancy after it and the sample
 * schedules, so the records after it can be replayed by a *part* on another
 * thread before the earlier ones are. A part has the golden reference and
 * the cycle samplers of the whole replay, with PICS of its own, and no
 * taggers; the whole replay runs the taggers over every record, in order.
 *
 * Creates a part of `whole` (before or after `whole` starts) for a trace
 * whose first record is at cycle `origin`. 0, TEA_ERR_NOMEM.
 */
int tea_replay_create_part(tea_replay **out, const tea_replay *whole, uint64_t origin);

/* Positions a part just after record `rec` (its µops in uops[rec->first_uop
 * ...]), which commits at least one µop, with `window_after` ROB entries in
 * flight after it: where the whole replay's golden reference and cycle
 * samplers stand once they consumed that record. The part's PICS keep what
 * they have. */
void tea_replay_part_resume(tea_replay *part, const trace_record *rec, const trace_uop *uops, unsigned window_after);

/* Where a part's golden reference and cycle samplers stand. */
typedef struct tea_replay_mark tea_replay_mark;

/* A mark for parts of `whole`. 0 or TEA_ERR_NOMEM. */
int tea_replay_mark_create(tea_replay_mark **out, const tea_replay *whole);

/* Records where `part` stands now. */
void tea_replay_mark_take(tea_replay_mark *m, const tea_replay *part);

void tea_replay_mark_free(tea_replay_mark *m);

/* Runs only the whole replay's taggers over records [first, first + count)
 * of `batch`, whose golden and cycle-sampler work a part does. 0 or
 * TEA_ERR_NOMEM. */
int tea_replay_feed_taggers(tea_replay *whole, const trace_batch *batch, size_t first, size_t count);

/* What a run of records does to the ROB window, for skipping runs that no
 * tagger needs. */
typedef struct tea_rob_delta {
    uint64_t last_cycle;   /* cycle of the run's last record */
    uint64_t retired;      /* entries leaving at the head */
    uint64_t squashed;     /* entries squashed at the tail */
    uint64_t dispatched;   /* entries dispatched */
} tea_rob_delta;

/* True when the replay has tagging samplers (IBS, SPE, RIS). */
int tea_replay_has_taggers(const tea_replay *r);

/* The shortest sampling period of its tagging samplers, in cycles (about
 * how often one of them wakes), or UINT64_MAX when it has none. */
uint64_t tea_replay_tagger_period(const tea_replay *r);

/* When no tagger of the whole replay wakes during a run of records with
 * delta `d`, moves the taggers' view of the ROB past the run and returns 1;
 * otherwise returns 0 and changes nothing (feed the run with
 * tea_replay_feed_taggers). O(1). */
int tea_replay_taggers_skip(tea_replay *whole, const tea_rob_delta *d);

/* Moves the whole replay's golden reference and cycle samplers to the mark,
 * as if they had consumed the records the part consumed since its resume. */
void tea_replay_adopt(tea_replay *whole, const tea_replay_mark *m);

/* Adds everything a part built (golden and cycle-sampler PICS, samples, the
 * golden classification) to the whole replay, once the part is done. 0 or
 * TEA_ERR_NOMEM. */
int tea_replay_absorb(tea_replay *whole, tea_replay *part);

void tea_replay_free(tea_replay *r);

#endif
