/*
 * run.c: the replay driver: samplers from options, one replay of a trace,
 * errors and the results CSV (see run.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "run.h"
#include "parallel.h"
#include "tagger.h"
#include "results/results.h"
#include "common/error.h"
#include "trace/frames.h"

#include <assert.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TRACE_SUFFIXES[] = { ".zst", ".tea", ".td", ".bin", ".trace", NULL };

/* The frequency -> period rule, before clamping: the clock's cycles per
 * sample rounded to the nearest whole cycle (halves up). Every sample point
 * of a run at a frequency follows from it, so it has this one home. */
static double rounded_period(uint64_t clock_hz, double freq_hz, uint64_t every, uint64_t length)
{
    if (every)
        return floor((double)clock_hz * (double)length / (freq_hz * (double)every) + 0.5);
    return floor((double)clock_hz / freq_hz + 0.5);
}

uint64_t tea_run_period(uint64_t clock_hz, double freq_hz)
{
    return tea_run_sampled_period(clock_hz, freq_hz, 0, 0);
}

unsigned tea_run_tagger_phases(uint64_t clock_hz, double freq_hz, uint64_t every, uint64_t length)
{
    double m;
    if (!every)
        return 1;
    m = floor((double)tea_run_period(clock_hz, freq_hz) / (double)tea_run_sampled_period(clock_hz, freq_hz, every, length)
              + 0.5);
    return m < 1 ? 1 : m > TEA_TAGGER_PHASES_MAX ? TEA_TAGGER_PHASES_MAX : (unsigned)m;
}

uint64_t tea_run_sampled_period(uint64_t clock_hz, double freq_hz, uint64_t every, uint64_t length)
{
    double p = rounded_period(clock_hz, freq_hz, every, length);
    if (p < 1)
        return 1;
    if (p >= 18446744073709551616.0) /* 2^64: not representable */
        return UINT64_MAX;
    return (uint64_t)p;
}

double tea_run_frequency_for_samples(uint64_t samples, uint64_t clock_hz, double cycles, double cycle_weight)
{
    /* the highest frequency: one sample per cycle of the trace */
    double fastest = (double)clock_hz / cycle_weight;
    double f = (double)samples * (double)clock_hz / cycles;
    double unit = pow(10.0, floor(log10(f)) - 2); /* three significant digits */

    assert(samples > 0 && cycles > 0 && clock_hz > 0 && cycle_weight > 0);
    f = floor(f / unit + 0.5) * unit;
    return f < fastest ? f : fastest;
}

void tea_run_say_chosen_frequencies(const tea_run *run, const uint64_t *targets, size_t count, FILE *f,
                                    const char *command)
{
    /* rows are scheme-major, then frequency, then seed: the first scheme's
     * rows hold the frequencies in the targets' order */
    size_t k = 0;

    for (size_t i = 0; i < run->row_count && k < count && !strcmp(run->rows[i].label, run->rows[0].label); i++) {
        const tea_sampler_spec *sp = &run->rows[i].spec;
        if (i > 0 && sp->frequency_hz == run->rows[i - 1].spec.frequency_hz)
            continue; /* another seed */
        fprintf(f, "%s: %s: --samples %llu: %.15g Hz (period %llu cycle%s)\n", command, run->name,
                (unsigned long long)targets[k++], sp->frequency_hz, (unsigned long long)sp->period,
                sp->period == 1 ? "" : "s");
    }
}

void tea_run_say_raised_default(const tea_run *run, FILE *f, const char *command)
{
    if (run->default_freq_hz <= 0 || run->row_count == 0)
        return;
    fprintf(f, "%s: %s: the default %.15g Hz gives this trace about %.3g samples; replaying at %.15g Hz, which "
               "gives about %d (--freq %.15g keeps the default)\n",
            command, run->name, run->default_freq_hz, run->default_samples, run->rows[0].spec.frequency_hz,
            TEA_RUN_DEFAULT_SAMPLES, run->default_freq_hz);
}

void tea_run_trace_name(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    size_t len;
    int stripped = 1;

    snprintf(buf, size, "%s", base ? base + 1 : path);
    len = strlen(buf);
    while (stripped) {
        stripped = 0;
        for (const char *const *s = TRACE_SUFFIXES; *s; s++) {
            size_t n = strlen(*s);
            if (len > n && strcmp(buf + len - n, *s) == 0) {
                len -= n;
                buf[len] = '\0';
                stripped = 1;
            }
        }
    }
}

void tea_run_scheme_label(const tea_run_scheme *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", pics_scheme_name(s->scheme), s->all_events ? ":all" : "");
}

/* The samplers: scheme-major, then frequency, then seed. */
/* Largest sampling period accepted (cycles): beyond it a trace would need
 * more than 2^63 cycles for one sample. */
#define RUN_MAX_PERIOD (1ull << 63)
#define TEA_RUN_WARN_SCHEMES_MAX 256 /* characters of scheme labels in one warning */

/* Checks what build_specs would make of the options at `clock_hz`: every
 * frequency gives a period of 1 to 2^63 cycles, and no sampler appears twice
 * (a scheme with and without ":all" under --events all). 0 or TEA_ERR_USAGE. */
static int check_specs(const tea_run_options *o, uint64_t clock_hz, const trace_sampling *sampling)
{
    for (size_t f = 0; !o->period && f < o->freq_count; f++) {
        double p = rounded_period(clock_hz, o->freqs[f], sampling->every, sampling->length);
        if (p < 1 && sampling->every)
            return error_set(TEA_ERR_USAGE,
                             "%.6g Hz on a trace sampled %llu in %llu instructions is a sample more often "
                             "than once a cycle of its windows",
                             o->freqs[f], (unsigned long long)sampling->length, (unsigned long long)sampling->every);
        if (p < 1)
            return error_set(TEA_ERR_USAGE,
                             "%.6g Hz is above twice the %llu Hz clock: its period rounds to 0 "
                             "cycles",
                             o->freqs[f], (unsigned long long)clock_hz);
        if (p > (double)RUN_MAX_PERIOD)
            return error_set(TEA_ERR_USAGE, "%.6g Hz at the %llu Hz clock is a period beyond 2^63 cycles", o->freqs[f],
                             (unsigned long long)clock_hz);
    }
    for (size_t a = 0; a < o->scheme_count; a++)
        for (size_t b = a + 1; b < o->scheme_count; b++)
            if (o->schemes[a].scheme == o->schemes[b].scheme
                && (o->schemes[a].all_events || o->all_events) == (o->schemes[b].all_events || o->all_events))
                return error_set(TEA_ERR_USAGE,
                                 "scheme %s asked for twice (with --events all, %s and %s:all "
                                 "are the same)",
                                 pics_scheme_name(o->schemes[a].scheme), pics_scheme_name(o->schemes[a].scheme),
                                 pics_scheme_name(o->schemes[a].scheme));
    return TEA_OK;
}

/* A row for spec `sp`, labelled by its scheme and event set, errors unknown. */
static void init_row(tea_run_row *row, const tea_sampler_spec *sp)
{
    tea_run_scheme labelled = { sp->scheme, sp->all_events };
    row->spec = *sp;
    tea_run_scheme_label(&labelled, row->label, sizeof row->label);
    for (int g = 0; g < TEA_RUN_GRANULARITIES; g++)
        row->error[g] = row->noise_floor[g] = NAN;
    row->error_half = NAN;
}

/* The options' own samplers (the noise floor's pass), copied. */
static int copy_specs(const tea_run_options *o, tea_run *t, tea_sampler_spec **specs)
{
    size_t count = o->spec_count;
    *specs = calloc(count ? count : 1, sizeof **specs);
    t->rows = calloc(count ? count : 1, sizeof *t->rows);
    if (!*specs || !t->rows)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        (*specs)[i] = o->specs[i];
        init_row(&t->rows[i], &o->specs[i]);
    }
    t->row_count = count;
    return TEA_OK;
}

static int build_specs(const tea_run_options *o, const trace_header *h, uint64_t clock_hz, tea_run *t,
                       tea_sampler_spec **specs)
{
    size_t freqs = o->period ? 1 : o->freq_count, n = 0;
    size_t count = o->scheme_count * freqs * o->seed_count;
    const trace_sampling *sampling = &t->objects.run.sampling;
    int rc;

    *specs = NULL;
    if (o->specs)
        return copy_specs(o, t, specs);
    if ((rc = check_specs(o, clock_hz, sampling)))
        return rc;

    *specs = calloc(count ? count : 1, sizeof **specs);
    t->rows = calloc(count ? count : 1, sizeof *t->rows);
    if (!*specs || !t->rows)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t s = 0; s < o->scheme_count; s++) {
        const tea_run_scheme *sc = &o->schemes[s];
        int all = sc->all_events || o->all_events;
        for (size_t f = 0; f < freqs; f++) {
            for (size_t k = 0; k < o->seed_count; k++) {
                tea_sampler_spec *sp = &(*specs)[n];
                if (o->period) {
                    sp->period = o->period;
                    sp->frequency_hz = (double)clock_hz / (double)sp->period;
                } else {
                    sp->period = tea_run_sampled_period(clock_hz, o->freqs[f], sampling->every, sampling->length);
                    sp->frequency_hz = o->freqs[f];
                    /* a periodically sampled trace: taggers at the run's period, in phases */
                    if (pics_scheme_tags(sc->scheme) && !trace_sampling_weighted(sampling)) {
                        sp->phases = tea_run_tagger_phases(clock_hz, o->freqs[f], sampling->every, sampling->length);
                        sp->phase_period = tea_run_period(clock_hz, o->freqs[f]);
                    }
                }
                sp->scheme = sc->scheme;
                sp->jitter = o->jitter;
                sp->seed = o->first_seed + k;
                sp->all_events = all;
                sp->event_mask = all ? TRACE_PSV_MASK_ALL : pics_scheme_native_events(sc->scheme);
                sp->keep_points = o->noise_floor; /* the floors' pass samples them */
                sp->rules = o->sampler_rules;
                sp->llc_latency = h->llc_latency;
                init_row(&t->rows[n], sp);
                t->rows[n].samples_target = o->freq_targets && !o->period ? o->freq_targets[f] : 0;
                n++;
            }
        }
    }
    assert(n == count); /* one sampler per scheme, frequency and seed */
    t->row_count = n;
    return TEA_OK;
}

/* Copies the trace's header and creates the engine with every sampler. */
static int prepare_replay(const tea_run_options *o, tea_run *t, const trace_header *h)
{
    tea_sampler_spec *specs = NULL;
    int rc;

    if ((rc = trace_header_copy(&t->header, h)))
        return rc;
    if (o->open.clock_hz) /* the options' clock overrides the header's */
        t->header.clock_hz = o->open.clock_hz;
    if (!(rc = build_specs(o, &t->header, t->header.clock_hz, t, &specs)))
        rc = tea_replay_create(&t->replay, t->header.initial_window, specs, t->row_count);
    if (!rc)
        tea_replay_set_golden_rules(t->replay, o->rules);
    free(specs);
    return rc;
}

/* Forgets a replay that failed, so that it can be redone. */
static void discard_replay(tea_run *t)
{
    tea_replay_free(t->replay);
    t->replay = NULL;
    free(t->rows);
    t->rows = NULL;
    t->row_count = 0;
    trace_header_free(&t->header);
    trace_header_init(&t->header);
    trace_object_list_free(&t->objects);
}

/* Keeps a copy of the trace's executable objects and recorded thread, for
 * the PICS provenance, and of its run (a sampled recording's windows). */
static int keep_objects(tea_run *t, const trace_object *objs, size_t count, uint32_t tid, uint32_t threads_seen,
                        const trace_run *run)
{
    int rc;
    trace_object_list_free(&t->objects);
    for (size_t i = 0; i < count; i++)
        if ((rc = trace_object_list_add(&t->objects, &objs[i])))
            return rc;
    t->objects.tid = tid;
    t->objects.threads_seen = threads_seen;
    return trace_object_list_set_run(&t->objects, run);
}

/* A sampled trace read from a pipe says so only at its end, after it was
 * replayed as if whole: refused, naming what to do. */
static int check_sampling_known(const tea_run *t, const trace_run *at_end)
{
    if (at_end->sampling.every && !t->objects.run.sampling.every)
        return error_set(TEA_ERR_UNSUPPORTED,
                         "%s: a sampled recording (--sample-every, --simpoints) read from a pipe: its windows are "
                         "listed at its end, too late; replay the file itself",
                         t->path);
    return TEA_OK;
}

/* The windows of a sampled trace: weighted ones weight the replay
 * (tea_replay_weight_windows), periodic ones split it by groups
 * (tea_replay_group_windows; trace_sampling_groups says how many). */
static int group_windows(tea_run *t)
{
    const trace_sampling *s = &t->objects.run.sampling;
    unsigned groups = trace_sampling_groups(s);
    if (trace_sampling_weighted(s))
        return tea_replay_weight_windows(t->replay, s->window_ends, s->window_weights, s->window_count);
    return groups ? tea_replay_group_windows(t->replay, s->window_ends, s->window_count, groups) : TEA_OK;
}

/* Reads the trace once as a stream, feeding the engine. A trace the engine
 * refuses (too long for a PICS) is still read to its end, so that the file's
 * own errors are reported first, as tea info reports them. */
/* A trace's windows' stacks (trace_run.stack_counts) for the tracker:
 * where each window's return addresses begin. */
typedef struct run_stacks {
    const trace_run *run;
    size_t *first;  /* [run->stack_windows] */
} run_stacks;

/* The offsets of each window's stack in run->stack_returns. 0 or
 * TEA_ERR_NOMEM. */
static int run_stacks_init(run_stacks *rs, const trace_run *run)
{
    size_t at = 0;
    rs->run = run;
    rs->first = NULL;
    if (!run->stack_windows)
        return TEA_OK;
    if (!(rs->first = malloc(run->stack_windows * sizeof *rs->first)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t w = 0; w < run->stack_windows; w++) {
        rs->first[w] = at;
        at += run->stack_counts[w];
    }
    return TEA_OK;
}

/* The tracker's stacks callback (trace/callpath.h): window `window`'s
 * stack as the recording kept it, none past the listed windows. */
static int run_stack(void *arg, size_t window, const uint64_t **returns, size_t *count)
{
    const run_stacks *rs = arg;
    *returns = NULL;
    *count = 0;
    if (window < rs->run->stack_windows) {
        *returns = rs->run->stack_returns + rs->first[window];
        *count = rs->run->stack_counts[window];
    }
    return TEA_OK;
}

static int replay_stream(const tea_run_options *o, tea_run *t)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    char refused[512] = "";   /* why the engine refused the trace, reported once the file is read */
    trace_callpath *tracker = NULL; /* o->classify: the calling contexts of the µops */
    run_stacks stacks = { NULL, NULL };
    uint64_t records = 0;
    int rc, refusal = TEA_OK;

    trace_open_options open = o->open;

    open.threads = o->threads ? o->threads : 1; /* for the frames of a multi-frame .zst */
    if ((rc = trace_reader_open(&reader, t->path, &open)))
        return rc;
    if (o->sampler_rules == GOLDEN_RULES_TRACEDOCTOR && trace_reader_format(reader) != TRACE_FORMAT_TRACEDOCTOR) {
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: the tracedoctor rules read TraceDoctor tokens, and this is a %s "
                                            "trace: convert it with tea convert --to tracedoctor",
                       t->path, trace_format_name(trace_reader_format(reader)));
        goto done;
    }
    progress_restart(o->meter, 0);
    {
        /* a file's run is known at open (a pipe's only at its end) */
        const trace_run *run;
        if ((rc = trace_reader_run(reader, &run)) || (rc = trace_object_list_set_run(&t->objects, run)))
            goto done;
    }
    if ((rc = prepare_replay(o, t, trace_reader_header(reader))) || (rc = group_windows(t))
        || (rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    if (tea_replay_reads_tokens(t->replay) && (rc = trace_reader_set_token_sink(reader, tea_replay_token, t->replay)))
        goto done;
    if (o->classify && ((rc = trace_contexts_init(&t->contexts))
                        || (rc = trace_callpath_create(&tracker, &t->contexts, o->classify, o->classify_arg))))
        goto done;
    if (tracker) /* a sampled trace's windows start from the stacks it kept, else empty */
        trace_callpath_set_windows(tracker, t->objects.run.sampling.window_ends, t->objects.run.sampling.window_count);
    if (tracker && t->objects.run.stack_windows) {
        if ((rc = run_stacks_init(&stacks, &t->objects.run)))
            goto done;
        trace_callpath_set_stacks(tracker, run_stack, &stacks);
    }
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        records += batch.count;
        progress_update(o->meter, records);
        if (refusal)
            continue;
        if (tracker && (rc = trace_callpath_batch(tracker, &batch)))
            goto done;
        if (o->flat && !tracker)
            for (size_t i = 0; i < batch.uop_count; i++)
                batch.uops[i].ctx = TRACE_CONTEXT_ROOT;
        if ((rc = tea_replay_feed(t->replay, &batch)) == TEA_ERR_UNSUPPORTED) {
            refusal = rc;
            snprintf(refused, sizeof refused, "%s", error_message());
            rc = TEA_OK;
        } else if (rc) {
            goto done;
        }
    }
    if (refusal) {
        rc = error_set(refusal, "%s: %s", t->path, refused);
    } else {
        /* read at the end: a trace from a pipe has its objects only then */
        const trace_object *objs;
        const trace_run *run;
        size_t count;
        uint32_t tid, threads;
        if (!(rc = trace_reader_objects(reader, &objs, &count)) && !(rc = trace_reader_thread(reader, &tid, &threads))
            && !(rc = trace_reader_run(reader, &run)) && !(rc = check_sampling_known(t, run)))
            rc = keep_objects(t, objs, count, tid, threads, run);

    }
    t->totals = *trace_reader_totals(reader);
done:
    trace_callpath_free(tracker);
    free(stacks.first);
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}

/* Reads a native trace file by frames on several threads. TEA_ERR_UNSUPPORTED
 * when the file cannot be read that way, or when the samplers make the
 * streaming reader faster (tea_parallel_suits). */
static int replay_frames(const tea_run_options *o, tea_run *t, unsigned threads)
{
    trace_frames *frames = NULL;
    trace_read_stats stats;
    int rc;

    if ((rc = trace_frames_open(&frames, t->path)))
        return rc == TEA_ERR_NOMEM ? rc : TEA_ERR_UNSUPPORTED;
    {
        const trace_object *objs;
        size_t object_count;
        uint32_t tid, threads_seen;
        trace_frames_objects(frames, &objs, &object_count, &tid, &threads_seen);
        if (o->flat)
            trace_frames_drop_contexts(frames);
        if (!(rc = keep_objects(t, objs, object_count, tid, threads_seen, trace_frames_run(frames)))
            && (trace_sampling_groups(&t->objects.run.sampling)
                || trace_sampling_weighted(&t->objects.run.sampling)))
            rc = TEA_ERR_UNSUPPORTED; /* windows followed: as a stream (a sampled trace is short) */
        else if (!rc && !(rc = prepare_replay(o, t, trace_frames_header(frames))))
            rc = tea_parallel_suits(t->replay, frames)
                     ? tea_parallel_replay(t->replay, frames, threads, &t->totals, &stats, o->meter)
                     : TEA_ERR_UNSUPPORTED;
    }
    trace_frames_close(frames);
    return rc;
}

/* Each sampler's samples and losses, once the replay is finished. */
static void collect_samples(tea_run *t)
{
    for (size_t i = 0; i < t->row_count; i++) {
        tea_run_row *row = &t->rows[i];
        const uint64_t *lost = tea_replay_sampler_lost(t->replay, i);
        row->samples = tea_replay_sampler_samples(t->replay, i);
        row->lost = 0;
        for (int r = 0; r < PICS_LOST_REASONS; r++)
            row->lost += lost[r];
    }
}

/* The trace's extent from a native file's index alone, without reading its
 * records: the cycles it stands for (a sampled recording's whole run), its
 * clock and a cycle's weight. TEA_ERR_UNSUPPORTED for a trace without an
 * index (TraceDoctor tokens, standard input). */
int tea_run_indexed_extent(const char *path, double *cycles, uint64_t *clock_hz, double *cycle_weight)
{
    trace_frames *frames = NULL;
    int rc;

    if ((rc = trace_frames_open(&frames, path)))
        return rc;
    size_t n = trace_frames_count(frames);
    const trace_sampling *sampling = &trace_frames_run(frames)->sampling;
    if (n)
        *cycles = trace_sampling_stands_for(sampling, trace_frames_info(frames, 0)->first_cycle,
                                            trace_frames_info(frames, n - 1)->last_cycle);
    *clock_hz = trace_frames_header(frames)->clock_hz;
    *cycle_weight = trace_sampling_cycle_weight(sampling);
    trace_frames_close(frames);
    return TEA_OK;
}

/* What --samples needs of a trace before its replay: its cycles (last -
 * first), clock and sampling. A native file's index has them; any other
 * file is read once; standard input cannot be. */
int tea_run_extent(const tea_run_options *o, const char *path, double *cycles, uint64_t *clock_hz,
                   double *cycle_weight)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    int rc;

    *cycles = 0;
    *clock_hz = 0;
    *cycle_weight = 1;
    if ((rc = tea_run_indexed_extent(path, cycles, clock_hz, cycle_weight)) == TEA_OK) {
        /* known from the index */
    } else if (rc != TEA_ERR_UNSUPPORTED) {
        return rc;
    } else if (strcmp(path, "-") == 0) {
        return error_set(TEA_ERR_USAGE, "--samples needs the trace's length before replaying it, and standard "
                                        "input cannot be read twice: give a file or --freq");
    } else {
        if ((rc = trace_reader_open(&reader, path, &o->open)) || (rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
            goto done;
        do
            rc = trace_reader_read(reader, &batch);
        while (!rc && batch.count);
        if (rc)
            goto done;
        *cycles = (double)(trace_reader_totals(reader)->last_cycle - trace_reader_totals(reader)->first_cycle);
        *clock_hz = trace_reader_header(reader)->clock_hz;
    done:
        trace_batch_free(&batch);
        trace_reader_close(reader);
        if (rc)
            return rc;
    }
    if (o->open.clock_hz)
        *clock_hz = o->open.clock_hz;
    if (*cycles == 0)
        return error_set(TEA_ERR_USAGE, "%s: a trace of no cycles has no frequency for --samples", path);
    return TEA_OK;
}

int tea_run_choose_frequencies(const tea_run_options *o, const char *name, double cycles, uint64_t clock_hz,
                               double cycle_weight, double *freqs, tea_run_options *chosen)
{
    for (size_t k = 0; k < o->sample_target_count; k++) {
        freqs[k] = tea_run_frequency_for_samples(o->sample_targets[k], clock_hz, cycles, cycle_weight);
        for (size_t j = 0; j < k; j++)
            if (freqs[j] == freqs[k])
                return error_set(TEA_ERR_USAGE, "%s: --samples %llu and %llu give the same frequency, %.15g Hz",
                                 name, (unsigned long long)o->sample_targets[j],
                                 (unsigned long long)o->sample_targets[k], freqs[k]);
    }
    *chosen = *o;
    chosen->freqs = freqs;
    chosen->freq_count = o->sample_target_count;
    chosen->freq_targets = o->sample_targets;
    chosen->sample_target_count = 0;
    return TEA_OK;
}

/* --samples: the options with one frequency per target for the trace at
 * `path`, into `freqs` (sample_target_count of them). */
static int choose_frequencies(const tea_run_options *o, const char *path, double *freqs, tea_run_options *chosen)
{
    uint64_t clock_hz = 0;
    double cycles = 0, cycle_weight = 1;
    int rc;

    if ((rc = tea_run_extent(o, path, &cycles, &clock_hz, &cycle_weight)))
        return rc;
    return tea_run_choose_frequencies(o, path, cycles, clock_hz, cycle_weight, freqs, chosen);
}

/* The noise floor's sampler for row i: TEA with all nine events at the
 * row's own points (tea_run_trace's comment in run.h). */
static tea_sampler_spec floor_spec(const tea_run *run, size_t i)
{
    tea_sampler_spec sp = run->rows[i].spec;
    sp.scheme = PICS_SCHEME_TEA;
    sp.all_events = 0;
    sp.event_mask = pics_scheme_native_events(PICS_SCHEME_TEA);
    if (pics_scheme_tags(run->rows[i].spec.scheme)) {
        static const uint64_t none[1];
        sp.listed = 1;
        sp.points = tea_replay_sampler_points(run->replay, i, &sp.point_count);
        if (!sp.points)
            sp.points = none; /* a tagger that took no sample */
    }
    return sp;
}

/* The second pass over the trace that gives every sampler its noise floor
 * (run->floor). */
static int replay_floors(const tea_run_options *o, tea_run *run)
{
    tea_run_options fo = *o;
    tea_sampler_spec *specs;
    int rc;

    if (strcmp(run->path, "-") == 0)
        return error_set(TEA_ERR_USAGE, "--noise-floor reads the trace a second time, and standard input "
                                        "cannot be: give a file");
    if (!(specs = calloc(run->row_count ? run->row_count : 1, sizeof *specs))
        || !(run->floor = calloc(1, sizeof *run->floor))) {
        free(specs);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < run->row_count; i++)
        specs[i] = floor_spec(run, i);
    fo.specs = specs;
    fo.spec_count = run->row_count;
    fo.noise_floor = 0;
    rc = tea_run_trace(&fo, run->path, run->floor);
    free(specs); /* the replay keeps its own copy; the points are run->replay's */
    if (!rc && strcmp(run->floor->digest, run->digest) != 0)
        rc = error_set(TEA_ERR_IO, "%s: the trace changed between the replay and its noise floor's pass",
                       run->path);
    return rc;
}

/* The default frequency raised (docs/usage.md, "Sample counts"): when `o`
 * runs the command's default, the trace's index gives its length and the
 * default would give fewer than o->default_min_samples sample points, the
 * options at the frequency that gives that many, with *from_hz the default
 * and *default_samples its points; else *from_hz is 0. */
int tea_run_default_may_rise(const tea_run_options *o)
{
    return o->default_min_samples && !o->period && o->freq_count == 1 && !o->sample_target_count && !o->specs;
}

double tea_run_raised_default(const tea_run_options *o, double cycles, uint64_t clock_hz, double cycle_weight)
{
    double freq;
    if (cycles <= 0 || clock_hz == 0 || o->freqs[0] * cycles / (double)clock_hz >= (double)o->default_min_samples)
        return 0;
    freq = tea_run_frequency_for_samples(o->default_min_samples, clock_hz, cycles, cycle_weight);
    return freq > o->freqs[0] ? freq : 0;
}

static int raise_default_frequency(const tea_run_options *o, const char *path, double *freq, tea_run_options *raised,
                                   double *from_hz, double *default_samples)
{
    double cycles = 0, cycle_weight = 1;
    uint64_t clock_hz = 0;
    int rc;

    *from_hz = 0;
    if (!tea_run_default_may_rise(o))
        return TEA_OK;
    /* No index, or one that cannot be read: the length is unknown before the
     * replay, and the default stands (the replay reports what is wrong,
     * with the message every reader gives). */
    if ((rc = tea_run_indexed_extent(path, &cycles, &clock_hz, &cycle_weight)))
        return rc == TEA_ERR_NOMEM ? rc : TEA_OK;
    if (o->open.clock_hz)
        clock_hz = o->open.clock_hz;
    if (!(*freq = tea_run_raised_default(o, cycles, clock_hz, cycle_weight)))
        return TEA_OK;
    *from_hz = o->freqs[0];
    *default_samples = o->freqs[0] * cycles / (double)clock_hz;
    *raised = *o;
    raised->freqs = freq;
    raised->default_min_samples = 0;
    return TEA_OK;
}

/* A sampled trace's run estimated from its windows, as tea info gives it:
 * the trace read once more (a sampled trace is a small part of its run;
 * one read from a pipe was refused before its replay); not in the noise
 * floor's pass (o->specs), whose rows are the first pass's. */
static int estimate_run(const tea_run_options *o, tea_run *t)
{
    const trace_sampling *s = &t->objects.run.sampling;
    int rc;
    if (!s->every || !s->window_count || strcmp(t->path, "-") == 0 || o->specs)
        return TEA_OK;
    rc = trace_estimate_file(t->path, &o->open, &t->estimate, &t->sampled);
    if (rc == TEA_ERR_NOMEM)
        return rc;
    /* a second read that fails (a FIFO, a file replaced) costs only the estimate */
    if (rc)
        t->sampled = 0;
    return TEA_OK;
}

int tea_run_trace(const tea_run_options *o, const char *path, tea_run *out)
{
    double raised_freq, from_hz = 0, default_samples = 0;
    tea_run_options raised;
    int raise_rc = raise_default_frequency(o, path, &raised_freq, &raised, &from_hz, &default_samples);

    if (raise_rc || from_hz > 0) {
        int rc = raise_rc;
        if (!rc)
            rc = tea_run_trace(&raised, path, out);
        else {
            memset(out, 0, sizeof *out);
            trace_header_init(&out->header);
        }
        out->default_freq_hz = from_hz;
        out->default_samples = default_samples;
        return rc;
    }
    if (o->sample_target_count) {
        tea_run_options chosen;
        double *freqs = calloc(o->sample_target_count, sizeof *freqs);
        int rc = freqs ? choose_frequencies(o, path, freqs, &chosen) : error_set(TEA_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = tea_run_trace(&chosen, path, out);
        else {
            memset(out, 0, sizeof *out);
            trace_header_init(&out->header);
        }
        free(freqs);
        return rc;
    }

    unsigned threads = o->threads;
    int rc = TEA_ERR_UNSUPPORTED;

    memset(out, 0, sizeof *out);
    trace_header_init(&out->header);
    out->path = path;
    tea_run_trace_name(path, out->name, sizeof out->name);
    /* tokens, and calling contexts, come only from a stream */
    if (threads > 1 && o->sampler_rules != GOLDEN_RULES_TRACEDOCTOR && !o->classify) {
        rc = replay_frames(o, out, threads > TEA_PARALLEL_MAX_THREADS ? TEA_PARALLEL_MAX_THREADS : threads);
        if (rc && rc != TEA_ERR_NOMEM)
            discard_replay(out);
    }
    if (rc && rc != TEA_ERR_NOMEM)
        rc = replay_stream(o, out);
    if (rc || (rc = tea_replay_finish(out->replay)))
        return rc;
    /* the contexts the trace recorded, unless rebuilt or dropped */
    if (!o->classify && !o->flat && out->objects.run.context_count > 1
        && (rc = trace_contexts_from_nodes(&out->contexts, out->objects.run.contexts,
                                           out->objects.run.context_count)))
        return error_prefix(rc, "%s: ", path);
    if (out->contexts.count > 1 && (rc = tea_replay_set_contexts(out->replay, &out->contexts)))
        return rc;
    trace_digest(&out->header, &out->totals, out->digest);
    collect_samples(out);
    if ((rc = estimate_run(o, out)))
        return rc;
    if (o->noise_floor && !o->specs)
        return replay_floors(o, out);
    return TEA_OK;
}

/* Row i's error_half: the jackknife over the window groups of a sampled
 * trace, as pics error gives it (NaN without groups). */
static int error_interval(tea_run *run, size_t i, const pics *reference)
{
    unsigned golden_count = 0, count = 0;
    const pics *golden_groups = tea_replay_golden_groups(run->replay, &golden_count);
    const pics *sampled = tea_replay_sampler_groups(run->replay, i, &count);
    double half;
    int rc;

    run->rows[i].error_half = NAN;
    if (reference->total == 0 || count < 2 || count != golden_count)
        return TEA_OK;
    rc = pics_error_jackknife(sampled, golden_groups, count, PICS_GRAN_INSN_COMPONENT, NULL, &half);
    if (rc == TEA_ERR_NOMEM)
        return rc;
    /* a golden PICS left empty without a group has no interval, as in pics error */
    if (rc == TEA_OK)
        run->rows[i].error_half = half;
    return TEA_OK;
}

int tea_run_errors_of(const pics *sampled, const pics *reference, const trace_symmap *functions,
                      double error[TEA_RUN_GRANULARITIES])
{
    for (int g = 0; g < TEA_RUN_GRANULARITIES; g++) {
        pics_granularity gran = (pics_granularity)g;
        pics_error_result e;
        int rc;
        error[g] = NAN;
        if (reference->total == 0 || (gran == PICS_GRAN_FUNC && functions->count == 0))
            continue;
        if ((rc = pics_error_compute(sampled, reference, gran, functions, &e)))
            return rc;
        error[g] = e.error;
        pics_error_result_free(&e);
    }
    return TEA_OK;
}

int tea_run_errors(tea_run *run, const trace_symmap *functions)
{
    static const trace_symmap none;
    const pics *reference = tea_replay_golden(run->replay);
    int rc;

    if (!functions)
        functions = &none;
    if (run->floor) {
        if ((rc = tea_run_errors(run->floor, functions)))
            return rc;
        assert(run->floor->row_count == run->row_count); /* one floor per sampler */
        for (size_t i = 0; i < run->row_count; i++)
            memcpy(run->rows[i].noise_floor, run->floor->rows[i].error, sizeof run->rows[i].noise_floor);
    }
    for (size_t i = 0; i < run->row_count; i++) {
        if ((rc = error_interval(run, i, reference))
            || (rc = tea_run_errors_of(tea_replay_sampler_pics(run->replay, i), reference, functions,
                                       run->rows[i].error)))
            return rc;
    }
    return TEA_OK;
}

int tea_run_describe(const tea_run *run, size_t i, pics_info *info)
{
    const trace_object_list *l = &run->objects;
    int rc = tea_replay_describe(run->replay, i, &run->header, &run->totals, info);
    if (!rc && (rc = pics_info_set_objects(info, l->items, l->count, l->tid, l->threads_seen)))
        pics_info_free(info);
    return rc;
}

int tea_run_describe_floor(const tea_run *run, size_t i, pics_info *info)
{
    const trace_object_list *l = &run->objects;
    int rc;

    assert(run->floor && i < run->floor->row_count);
    /* the run's header: the binary a command stamped into it (--elf) */
    if ((rc = tea_replay_describe(run->floor->replay, i, &run->header, &run->totals, info)))
        return rc;
    if ((rc = pics_info_set_objects(info, l->items, l->count, l->tid, l->threads_seen))) {
        pics_info_free(info);
        return rc;
    }
    snprintf(info->noise_floor_of, sizeof info->noise_floor_of, "%s", run->rows[i].label);
    return TEA_OK;
}

void tea_run_csv_begin(FILE *f)
{
    results_write_header(f);
}

void tea_run_csv_trace(FILE *f, const tea_run *run)
{
    for (size_t i = 0; i < run->row_count; i++) {
        const tea_run_row *row = &run->rows[i];
        results_row r = {
            .trace = (char *)run->name,
            .scheme = (char *)row->label,
            .freq_hz = row->spec.frequency_hz,
            .seed = row->spec.seed,
            .samples = row->samples,
            .lost = row->lost,
            .samples_target = row->samples_target,
            .digest = (char *)run->digest,
            .cycles = run->totals.last_cycle - run->totals.first_cycle,
            .records = run->totals.records,
        };
        snprintf(r.rules, sizeof r.rules, "%s", golden_rules_name(row->spec.rules));
        if (!isnan(row->error_half) && !isnan(row->error[PICS_GRAN_INSN_COMPONENT])) {
            double e = row->error[PICS_GRAN_INSN_COMPONENT];
            r.has_error_ci95 = 1;
            r.error_ci95[0] = e - row->error_half < 0 ? 0 : e - row->error_half;
            r.error_ci95[1] = e + row->error_half > 1 ? 1 : e + row->error_half;
        }
        if (run->sampled && isfinite(run->estimate.cycles) && isfinite(run->estimate.instructions)) {
            const trace_estimate *est = &run->estimate;
            int interval = isfinite(est->half);
            r.has_run = 1;
            r.run_cycles = est->cycles;
            /* no run has fewer than 0 cycles: the foot cut there, as the error's */
            r.run_cycles_ci95[0] = !interval ? NAN : est->cycles > est->half ? est->cycles - est->half : 0;
            r.run_cycles_ci95[1] = !interval ? NAN : est->cycles + est->half;
            r.run_instructions = est->instructions;
        }
        static_assert(TEA_RUN_GRANULARITIES == RESULTS_GRANULARITIES, "one error column per granularity");
        for (int g = 0; g < TEA_RUN_GRANULARITIES; g++) {
            r.error[g] = row->error[g];
            r.noise_floor[g] = row->noise_floor[g];
        }
        results_write_row(f, &r);
    }
}

int tea_run_json_path(const char *csv_path, char **json_path)
{
    size_t n = strlen(csv_path), suffix = strlen(TEA_RUN_CSV_SUFFIX);
    size_t keep = n >= suffix && strcmp(csv_path + n - suffix, TEA_RUN_CSV_SUFFIX) == 0 ? n - suffix : n;
    size_t size = keep + strlen(TEA_RUN_JSON_SUFFIX) + 1;

    if (!(*json_path = malloc(size)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    snprintf(*json_path, size, "%.*s%s", (int)keep, csv_path, TEA_RUN_JSON_SUFFIX);
    return TEA_OK;
}

void tea_run_json_begin(json_writer *j, const char *tool, const char *what, const char *command_line)
{
    json_begin_object(j);
    json_key(j, "tool");
    json_string(j, tool);
    json_key(j, "command");
    json_string(j, what);
    json_key(j, "command_line");
    json_string(j, command_line);
    json_key(j, "traces");
    json_begin_array(j);
}

void tea_run_json_trace(json_writer *j, const tea_run *run)
{
    json_begin_object(j);
    json_key(j, "name");
    json_string(j, run->name);
    json_key(j, "path");
    json_string(j, run->path);
    if (run->cores) {
        json_key(j, "cores");
        json_u64(j, run->cores);
    }
    json_key(j, "digest");
    json_string(j, run->digest);
    json_key(j, "cycles");
    json_u64(j, run->totals.last_cycle - run->totals.first_cycle);
    json_key(j, "records");
    json_u64(j, run->totals.records);
    json_key(j, "binary");
    json_string(j, run->header.program.binary_path);
    json_end(j);
}

void tea_run_json_end(json_writer *j)
{
    json_end(j);
    json_end(j);
    json_finish(j);
}

/* `x` > 0 rounded up to two significant digits (16384 -> 17000). */
static double round_up_two_digits(double x)
{
    double unit = pow(10.0, floor(log10(x)) - 1);
    return ceil(x / unit - 1e-9) * unit;
}

size_t tea_run_warn_few_samples(const tea_run *run, FILE *f, const char *command, const char *freq_option)
{
    uint64_t cycles = run->totals.last_cycle - run->totals.first_cycle, clock = run->header.clock_hz;
    const trace_sampling *sampling = &run->objects.run.sampling;
    double whole = trace_sampling_stands_for(sampling, run->totals.first_cycle, run->totals.last_cycle);
    double fastest = (double)clock / trace_sampling_cycle_weight(sampling);
    size_t warnings = 0;

    for (size_t i = 0; i < run->row_count; i++) {
        double freq = run->rows[i].spec.frequency_hz, want = 0;
        uint64_t fewest = UINT64_MAX;
        char schemes[TEA_RUN_WARN_SCHEMES_MAX] = "";
        size_t used = 0;
        int seen = 0;

        for (size_t k = 0; k < i && !seen; k++)
            seen = run->rows[k].spec.frequency_hz == freq;
        if (seen)
            continue; /* this frequency was looked at with row k */
        for (size_t k = i; k < run->row_count; k++) {
            const tea_run_row *row = &run->rows[k];
            int listed = 0;
            if (row->spec.frequency_hz != freq || row->samples >= TEA_RUN_MIN_SAMPLES)
                continue;
            if (row->samples < fewest)
                fewest = row->samples;
            if (row->samples > 0 && freq * TEA_RUN_MIN_SAMPLES / (double)row->samples > want)
                want = freq * TEA_RUN_MIN_SAMPLES / (double)row->samples;
            for (size_t j = i; j < k && !listed; j++) /* each label once (several seeds) */
                listed = run->rows[j].spec.frequency_hz == freq && run->rows[j].samples < TEA_RUN_MIN_SAMPLES
                         && strcmp(run->rows[j].label, row->label) == 0;
            if (!listed && used < sizeof schemes)
                used += (size_t)snprintf(schemes + used, sizeof schemes - used, "%s%s", used ? ", " : "", row->label);
        }
        if (fewest == UINT64_MAX)
            continue;
        if (cycles > 0 && (double)clock * TEA_RUN_MIN_SAMPLES / whole > want)
            want = (double)clock * TEA_RUN_MIN_SAMPLES / whole;
        fprintf(f, "%s: warning: %s: at %.15g Hz %s took fewer than %d samples (as few as %llu): too few for the "
                   "error to mean much; ",
                command, run->name, freq, schemes, TEA_RUN_MIN_SAMPLES, (unsigned long long)fewest);
        if (cycles < TEA_RUN_MIN_SAMPLES || want > fastest)
            fprintf(f, "the trace is too short for that even at one sample per cycle");
        else if (!freq_option) /* the K whose frequency is `want`: K = want * whole / clock */
            fprintf(f, "use --samples %.15g or more", round_up_two_digits(want * whole / (double)clock));
        else
            fprintf(f, "use %s %.15g or more", freq_option, round_up_two_digits(want));
        if (sampling->every)
            fprintf(f, " (a sampled trace of %llu cycles standing for %.3g, at %llu Hz)\n", (unsigned long long)cycles,
                    whole, (unsigned long long)clock);
        else
            fprintf(f, " (a trace of %llu cycles at %llu Hz)\n", (unsigned long long)cycles, (unsigned long long)clock);
        warnings++;
    }
    return warnings;
}

void tea_run_free(tea_run *run)
{
    if (run->floor) {
        tea_run_free(run->floor);
        free(run->floor);
    }
    tea_replay_free(run->replay);
    trace_contexts_free(&run->contexts);
    free(run->rows);
    trace_header_free(&run->header);
    trace_object_list_free(&run->objects);
    memset(run, 0, sizeof *run);
}
