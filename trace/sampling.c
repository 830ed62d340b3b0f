/*
 * sampling.c: a sampled recording's windows: their checks and the
 * arithmetic readers do on them (see sampling.h).
 */
#include "sampling.h"
#include "../common/error.h"

#include <assert.h>

/* Checks a weighted sampling's starts and weights; NULL when sound. */
static const char *weights_fault(const trace_sampling *s)
{
    uint64_t total = 0;
    for (size_t k = 0; k < s->window_count; k++) {
        if (k && (s->window_starts[k] < s->window_starts[k - 1]
                  || s->window_starts[k] - s->window_starts[k - 1] < s->length))
            return "the windows' starts do not increase by the timed length";
        if (s->window_weights[k] == 0 || s->window_weights[k] > TRACE_WEIGHT_TOTAL_MAX - total)
            return "a window weight of 0, or weights beyond 2^40 in all";
        total += s->window_weights[k];
    }
    return NULL;
}

const char *trace_sampling_fault(const trace_sampling *s)
{
    if (!s->every)
        return NULL;
    if ((s->window_starts == NULL) != (s->window_weights == NULL))
        return "window starts without weights, or weights without starts";
    if (trace_sampling_weighted(s) ? s->length == 0 || s->length > s->every
                                   : s->length == 0 || s->length >= s->every)
        return trace_sampling_weighted(s) ? "the timed length is not between 1 and the interval"
                                          : "the timed length is not between 1 and the period - 1";
    if (!trace_sampling_weighted(s) && s->warmup > s->every - s->length)
        return "the warm-up and the timed length exceed the period";
    if (s->window_count == 0 || s->window_count > TRACE_WINDOWS_MAX)
        return "no windows, or too many";
    for (size_t k = 1; k < s->window_count; k++)
        if (s->window_ends[k] <= s->window_ends[k - 1])
            return "the window ends do not increase";
    return trace_sampling_weighted(s) ? weights_fault(s) : NULL;
}

unsigned trace_sampling_groups(const trace_sampling *s)
{
    if (!s->every || s->window_count < 2 || trace_sampling_weighted(s))
        return 0;
    return s->window_count < TRACE_WINDOW_GROUPS ? (unsigned)s->window_count : TRACE_WINDOW_GROUPS;
}

double trace_sampling_stands_for(const trace_sampling *s, uint64_t first, uint64_t last)
{
    double scale = s->every ? (double)s->every / (double)s->length : 1.0;
    if (!trace_sampling_weighted(s))
        return (double)(last - first) * scale;
    return (double)trace_sampling_weighted_cycles(s->window_ends, s->window_weights, s->window_count, first, last)
           * scale;
}

uint64_t trace_sampling_weighted_cycles(const uint64_t *ends, const uint64_t *weights, size_t count, uint64_t origin,
                                        uint64_t last)
{
    uint64_t total = 0, from = origin;
    for (size_t k = 0; k < count && from < last; k++) {
        uint64_t to = k + 1 == count || ends[k] > last ? last : ends[k];
        uint64_t cycles = to > from ? to - from : 0;
        if (cycles && (weights[k] > UINT64_MAX / cycles || total > UINT64_MAX - cycles * weights[k]))
            return UINT64_MAX;
        total += cycles * weights[k];
        from = to > from ? to : from;
    }
    return total;
}

int trace_sampling_weighted_span(const uint64_t *ends, const uint64_t *weights, size_t count, uint64_t origin,
                                 uint64_t last, uint64_t *cycles)
{
    assert(count >= 1);
    if (ends[0] < origin)
        return error_set(TEA_ERR_FORMAT, "the first weighted window ends at cycle %llu, before the trace's first "
                                         "record (cycle %llu)",
                         (unsigned long long)ends[0], (unsigned long long)origin);
    *cycles = trace_sampling_weighted_cycles(ends, weights, count, origin, last);
    return TEA_OK;
}

uint64_t trace_sampling_heaviest(const trace_sampling *s)
{
    uint64_t heaviest = 1;
    for (size_t k = 0; trace_sampling_weighted(s) && k < s->window_count; k++)
        if (s->window_weights[k] > heaviest)
            heaviest = s->window_weights[k];
    return heaviest;
}

double trace_sampling_cycle_weight(const trace_sampling *s)
{
    return s->every ? (double)s->every / (double)s->length : 1.0;
}

size_t trace_sampling_window_of(const uint64_t *ends, size_t windows, size_t from, uint64_t cycle)
{
    assert(windows >= 1 && from < windows);
    while (from + 1 < windows && cycle > ends[from])
        from++;
    return from;
}

