/*
 * estimate.c: a sampled trace's estimate of the whole run (see estimate.h).
 */
#include "estimate.h"
#include "common/error.h"
#include "common/stats.h"

#include <math.h>
#include <stdlib.h>

void trace_estimate_counter_init(trace_estimate_counter *c, const trace_sampling *s, uint64_t *insns)
{
    *c = (trace_estimate_counter){ s, insns, 0 };
}

int trace_estimate_counter_open(trace_estimate_counter *c, trace_reader *reader, uint64_t **insns)
{
    const trace_run *run;
    int rc;

    *insns = NULL;
    if ((rc = trace_reader_run(reader, &run)) || !run->sampling.every || !run->sampling.window_count)
        return rc;
    if (!(*insns = calloc(2 * run->sampling.window_count, sizeof **insns)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    trace_estimate_counter_init(c, &run->sampling, *insns);
    return TEA_OK;
}

void trace_estimate_count(trace_estimate_counter *c, const trace_batch *batch)
{
    uint64_t *last_commit = c->insns + c->s->window_count;
    for (size_t i = 0; i < batch->count; i++) {
        const trace_record *r = &batch->records[i];
        while (c->k + 1 < c->s->window_count && r->cycle > c->s->window_ends[c->k])
            c->k++;
        c->insns[c->k] += r->n_commit;
        if (r->n_commit)
            last_commit[c->k] = r->cycle;
    }
}

/* The periods the windows stand for: the windows (periodic) or their
 * weights' sum (weighted). */
static double stands_for(const trace_sampling *s)
{
    double periods = 0;
    for (size_t k = 0; k < s->window_count; k++)
        periods += (double)trace_sampling_weight(s, k);
    return periods;
}

/* The lightest window's weight. */
static uint64_t lightest(const trace_sampling *s)
{
    uint64_t w = UINT64_MAX;
    for (size_t k = 0; k < s->window_count; k++)
        if (trace_sampling_weight(s, k) < w)
            w = trace_sampling_weight(s, k);
    return w;
}

void trace_estimate_run(trace_estimate *e, const trace_sampling *s, const trace_totals *t, const uint64_t *insns)
{
    stats_sample cpi = { 0 };
    uint64_t before = t->first_cycle, timed = s->length * (s->window_count - 1);
    uint64_t held_cycles = 0, held_insns = 0, held_weight = 0; /* the window being gathered */
    double weighted_cycles = 0, weighted_insns = 0; /* weighted windows: the sums of weight x cycles, x µops */

    for (size_t k = 0; k < s->window_count; k++) {
        uint64_t n = insns                     ? insns[k]
                     : k + 1 < s->window_count ? s->length
                     : t->commits > timed      ? t->commits - timed
                                               : 0;
        /* weighted windows end at their last commit (estimate.h) */
        uint64_t end = trace_sampling_weighted(s) && insns && n && k + 1 < s->window_count
                           ? insns[s->window_count + k]
                           : s->window_ends[k];
        if (n && held_insns) {
            stats_add(&cpi, (double)held_cycles / (double)held_insns);
            weighted_cycles += (double)held_weight * (double)held_cycles;
            weighted_insns += (double)held_weight * (double)held_insns;
            held_cycles = held_insns = 0;
        }
        if (!held_insns)
            held_weight = trace_sampling_weight(s, k);
        held_cycles += end - before;
        held_insns += n;
        before = end;
    }
    if (held_insns) {
        stats_add(&cpi, (double)held_cycles / (double)held_insns);
        weighted_cycles += (double)held_weight * (double)held_cycles;
        weighted_insns += (double)held_weight * (double)held_insns;
    }
    e->periods = stands_for(s);
    e->instructions = (double)s->every * e->periods;
    e->lightest = lightest(s);
    e->heaviest = trace_sampling_heaviest(s);
    if (trace_sampling_weighted(s)) {
        /* chosen regions, not a random sample: no interval; each window's
         * L instructions (SimPoint's count) stand for its interval's I */
        double scale = s->length ? (double)s->every / (double)s->length : 1;
        e->cycles = weighted_cycles * scale;
        e->instructions = weighted_insns * scale;
        e->half = NAN;
        return;
    }
    e->cycles = stats_mean(&cpi) * e->instructions;
    e->half = stats_half_interval95(&cpi) * e->instructions;
}

int trace_estimate_file(const char *path, const trace_open_options *opts, trace_estimate *e, int *sampled)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    trace_estimate_counter counter;
    const trace_run *run;
    uint64_t *insns = NULL;
    int rc;

    *sampled = 0;
    if ((rc = trace_reader_open(&reader, path, opts)))
        return rc;
    if ((rc = trace_estimate_counter_open(&counter, reader, &insns)) || !insns)
        goto done; /* not sampled, or its windows only at its end (a pipe): nothing to count by */
    if ((rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    while (!(rc = trace_reader_read(reader, &batch)) && batch.count)
        trace_estimate_count(&counter, &batch);
    if (!rc && !(rc = trace_reader_run(reader, &run))) {
        trace_estimate_run(e, &run->sampling, trace_reader_totals(reader), insns);
        *sampled = 1;
    }
done:
    trace_batch_free(&batch);
    trace_reader_close(reader);
    free(insns);
    return rc;
}
