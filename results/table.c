/*
 * table.c: the arithmetic of `pics table` (see table.h).
 */
#include "table.h"
#include "common/error.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Relative difference at which a requested frequency matches a row's. */
#define FREQ_TOLERANCE 1e-9
/* Bytes of the list of frequencies in a message. */
#define FREQ_LIST_MAX 512
/* Between a scheme and a --samples target in a column's label (tea@1000). */
#define SAMPLES_MARK '@'
/* Room a label needs beyond its scheme: the mark, 20 digits, the NUL. */
#define LABEL_SUFFIX_MAX 22

int results_table_check_rules(const results_set *s)
{
    for (size_t i = 1; i < s->count; i++) {
        const results_row *a = &s->rows[0], *b = &s->rows[i];
        if (strcmp(a->rules, b->rules) != 0)
            return error_set(TEA_ERR_USAGE,
                             "%s: line %lu comes from a run under the %s rules, %s: line %lu under the %s ones: "
                             "table them apart",
                             a->file, a->line, a->rules, b->file, b->line, b->rules);
    }
    return TEA_OK;
}

void results_table_free(results_table *t)
{
    free(t->traces);
    free(t->schemes);
    free(t->cells);
    free(t->mean);
    free(t->max);
    free(t->floor);
    free(t->trace_freq);
    free(t->empty);
    free(t->labels);
    free(t->chosen);
    memset(t, 0, sizeof *t);
}

const results_table_cell *results_table_cell_at(const results_table *t, size_t trace, size_t scheme)
{
    assert(trace < t->trace_count && scheme < t->scheme_count); /* a cell of the table */
    return &t->cells[trace * t->scheme_count + scheme];
}

long double results_table_cell_mean(const results_table_cell *c)
{
    return c->seeds ? c->sum / (long double)c->seeds : (long double)NAN;
}

double results_table_cell_half_interval(const results_table_cell *c)
{
    if (c->seeds == 1 && c->has_window_interval)
        return c->window_interval[1] - (double)results_table_cell_mean(c);
    return stats_half_interval95(&c->spread);
}

void results_table_cell_interval(const results_table_cell *c, double *low, double *high)
{
    double mean = (double)results_table_cell_mean(c), half = results_table_cell_half_interval(c);
    if (c->seeds == 1 && c->has_window_interval) {
        *low = c->window_interval[0];
        *high = c->window_interval[1];
        return;
    }
    *low = isnan(half) ? NAN : fmax(mean - half, 0.0);
    *high = isnan(half) ? NAN : mean + half;
}

size_t results_table_missing(const results_table *t, size_t scheme, size_t *shown, size_t shown_max)
{
    size_t missing = 0;
    for (size_t i = 0; i < t->trace_count; i++) {
        if (results_table_cell_at(t, i, scheme)->seeds)
            continue;
        if (missing < shown_max)
            shown[missing] = i;
        missing++;
    }
    return missing;
}

/* --- choosing the frequency ---------------------------------------------------- */

/* Index of `name` in names[0..n), or n. */
static size_t find_name(const char *const *names, size_t n, const char *name)
{
    size_t i = 0;
    while (i < n && strcmp(names[i], name) != 0)
        i++;
    return i;
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int freq_matches(double row_hz, double wanted_hz)
{
    return fabs(row_hz - wanted_hz) <= FREQ_TOLERANCE * wanted_hz;
}

/* Own frequencies: when every trace's rows are at one frequency, each
 * trace is shown at its own (traces replayed with --samples K). 1 when so,
 * with t->trace_freq filled; 0 when some trace has several; TEA_ERR_NOMEM. */
static int own_frequencies(const results_set *s, results_table *t)
{
    char *seen = calloc(t->trace_count ? t->trace_count : 1, 1);
    int own = 1;

    if (!seen || !(t->trace_freq = calloc(t->trace_count ? t->trace_count : 1, sizeof *t->trace_freq))) {
        free(seen);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->count && own; i++) {
        size_t trace = find_name(t->traces, t->trace_count, s->rows[i].trace);
        assert(trace < t->trace_count); /* collect_names listed every row's trace */
        if (!seen[trace]++)
            t->trace_freq[trace] = s->rows[i].freq_hz;
        else
            own = t->trace_freq[trace] == s->rows[i].freq_hz;
    }
    free(seen);
    if (!own) {
        free(t->trace_freq);
        t->trace_freq = NULL;
    }
    return own;
}

/* The frequency to show (table.h): sets t->freq_hz, or t->own_freqs with
 * t->trace_freq. Needs the trace names (collect_names). */
static int choose_frequency(const results_table_request *req, const results_set *s, results_table *t)
{
    double *all = malloc(s->count * sizeof *all);
    size_t distinct = 0, used = 0;
    char list[FREQ_LIST_MAX];
    int rc = TEA_OK;

    if (!all)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < s->count; i++)
        all[i] = s->rows[i].freq_hz;
    qsort(all, s->count, sizeof *all, compare_doubles);
    for (size_t i = 0; i < s->count; i++)
        if (distinct == 0 || all[distinct - 1] != all[i])
            all[distinct++] = all[i];
    list[0] = '\0';
    for (size_t i = 0; i < distinct && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.15g", i ? ", " : "", all[i]);
    if (req->has_freq) {
        size_t i = 0;
        while (i < distinct && !freq_matches(all[i], req->freq_hz))
            i++;
        if (i == distinct)
            rc = error_set(TEA_ERR_USAGE, "no results at %.15g Hz; the results have %s Hz", req->freq_hz, list);
        else
            t->freq_hz = req->freq_hz;
    } else if (distinct > 1) {
        int own = own_frequencies(s, t);
        if (own < 0)
            rc = own;
        else if (own)
            t->own_freqs = 1, t->freq_hz = NAN;
        else
            rc = error_set(TEA_ERR_USAGE,
                           "the results hold %zu frequencies (%s Hz): choose one with --freq (traces "
                           "at one frequency each, as tea replay --samples makes them, combine)",
                           distinct, list);
    } else {
        assert(distinct == 1); /* results_table_build refused an empty set */
        t->freq_hz = all[0];
    }
    free(all);
    return rc;
}

/* --- building the table ---------------------------------------------------------- */

/* Column labels: schemes in results_scheme_compare order; SCHEME@K (by
 * samples) by scheme, then K increasing. */
static int compare_schemes(const void *x, const void *y)
{
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    const char *at_a = strrchr(a, SAMPLES_MARK), *at_b = strrchr(b, SAMPLES_MARK);
    char sa[PICS_NAME_MAX], sb[PICS_NAME_MAX];
    unsigned long long ka, kb;
    int c;

    if (!at_a || !at_b)
        return results_scheme_compare(a, b);
    snprintf(sa, sizeof sa, "%.*s", (int)(at_a - a), a);
    snprintf(sb, sizeof sb, "%.*s", (int)(at_b - b), b);
    if ((c = results_scheme_compare(sa, sb)))
        return c;
    ka = strtoull(at_a + 1, NULL, 10);
    kb = strtoull(at_b + 1, NULL, 10);
    return ka < kb ? -1 : ka > kb;
}

/* Whether `target` is one of the request's --samples targets. */
static int wanted_target(const results_table_request *req, uint64_t target)
{
    for (size_t i = 0; i < req->sample_count; i++)
        if (req->samples[i] == target)
            return 1;
    return 0;
}

/* The rows of the request's --samples targets into t->chosen (shallow
 * copies), *out the set of them; with several targets each row's scheme
 * becomes its column's label, SCHEME@K, in t->labels. */
static int choose_targets(const results_table_request *req, const results_set *s, results_table *t,
                          results_set *out)
{
    size_t n = 0, used = 0, room = 0;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->count; i++)
        room += strlen(s->rows[i].scheme) + LABEL_SUFFIX_MAX;
    t->chosen = malloc((s->count ? s->count : 1) * sizeof *t->chosen);
    t->labels = malloc(room ? room : 1);
    if (!t->chosen || !t->labels)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    t->by_samples = req->sample_count > 1;
    for (size_t i = 0; i < s->count; i++) {
        results_row *r = &t->chosen[n];
        if (!s->rows[i].samples_target || !wanted_target(req, s->rows[i].samples_target))
            continue;
        *r = s->rows[i];
        if (t->by_samples) {
            int len = snprintf(t->labels + used, room - used, "%s%c%llu", r->scheme, SAMPLES_MARK,
                               (unsigned long long)r->samples_target);
            assert(len > 0 && (size_t)len < room - used); /* room has each label's suffix */
            r->scheme = t->labels + used;
            used += (size_t)len + 1;
        }
        n++;
    }
    if (n == 0)
        return error_set(TEA_ERR_USAGE, "no results of tea replay --samples %llu%s (the results hold runs at "
                                        "--freq, or of other targets)",
                         (unsigned long long)req->samples[0], req->sample_count > 1 ? " or the others asked for" : "");
    out->rows = t->chosen;
    out->count = n;
    return TEA_OK;
}

/* The traces (first appearance) and schemes (table order) of every row, at
 * any frequency. */
static int collect_names(const results_set *s, results_table *t)
{
    t->traces = malloc(s->count * sizeof *t->traces);
    t->schemes = malloc(s->count * sizeof *t->schemes);
    if (!t->traces || !t->schemes)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < s->count; i++) {
        const results_row *r = &s->rows[i];
        if (find_name(t->traces, t->trace_count, r->trace) == t->trace_count)
            t->traces[t->trace_count++] = r->trace;
        if (find_name(t->schemes, t->scheme_count, r->scheme) == t->scheme_count)
            t->schemes[t->scheme_count++] = r->scheme;
    }
    qsort(t->schemes, t->scheme_count, sizeof *t->schemes, compare_schemes);
    return TEA_OK;
}

/* Adds the rows at the table's frequency into the cells; notes each trace
 * without attributed cycles once, at its first such row. */
static int fill_cells(const results_table_request *req, const results_set *s, results_table *t)
{
    size_t n = t->trace_count * t->scheme_count;
    char *noted = calloc(t->trace_count ? t->trace_count : 1, 1); /* traces in t->empty */
    int rc = TEA_OK;

    t->cells = calloc(n ? n : 1, sizeof *t->cells);
    t->empty = malloc((t->trace_count ? t->trace_count : 1) * sizeof *t->empty);
    if (!t->cells || !t->empty || !noted) {
        free(noted);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->count && rc == TEA_OK; i++) {
        const results_row *r = &s->rows[i];
        double e = r->error[req->granularity];
        size_t trace = find_name(t->traces, t->trace_count, r->trace);
        results_table_cell *c;
        assert(trace < t->trace_count); /* collect_names listed every row's trace */
        if (!t->by_samples && !freq_matches(r->freq_hz, t->own_freqs ? t->trace_freq[trace] : t->freq_hz))
            continue;
        if (isnan(e) && req->granularity == PICS_GRAN_FUNC) {
            rc = error_set(TEA_ERR_FORMAT,
                           "%s: line %lu: no %s for trace %s, scheme %s (the run had no "
                           "function symbols; choose another --granularity)",
                           r->file, r->line, results_error_column(req->granularity), r->trace, r->scheme);
            break;
        }
        if (isnan(e)) {
            /* A trace with no attributed cycles has no error: its row stays empty. */
            if (!noted[trace]++) {
                assert(t->empty_count < t->trace_count); /* one entry per trace at most */
                t->empty[t->empty_count++] = r;
            }
            continue;
        }
        c = &t->cells[trace * t->scheme_count + find_name(t->schemes, t->scheme_count, r->scheme)];
        if (c->seeds == 0 || e < c->min)
            c->min = e;
        if (c->seeds == 0 || e > c->max)
            c->max = e;
        c->sum += e;
        c->seeds++;
        stats_add(&c->spread, e);
        c->has_window_interval = r->has_error_ci95 && req->granularity == PICS_GRAN_INSN_COMPONENT;
        if (c->has_window_interval)
            memcpy(c->window_interval, r->error_ci95, sizeof c->window_interval);
        if (c->seeds > 1)
            t->spread = 1;
        if (!isnan(r->noise_floor[req->granularity])) {
            c->floor_sum += r->noise_floor[req->granularity];
            c->floor_seeds++;
            t->floors = 1;
        }
    }
    free(noted);
    return rc;
}

/* Whether some cell of one seed shows its window interval: the table then
 * has intervals (spread). */
static void note_window_intervals(results_table *t)
{
    for (size_t i = 0; i < t->trace_count * t->scheme_count; i++)
        if (t->cells[i].seeds == 1 && t->cells[i].has_window_interval)
            t->window_intervals = t->spread = 1;
}

/* The summary rows (table.h): per scheme, the mean and max of the cells'
 * means over the traces that have one, and the mean over the traces with a
 * noise floor of each one's mean floor over its seeds. */
static int summarize(results_table *t)
{
    size_t schemes = t->scheme_count ? t->scheme_count : 1;

    t->mean = malloc(schemes * sizeof *t->mean);
    t->max = malloc(schemes * sizeof *t->max);
    t->floor = malloc(schemes * sizeof *t->floor);
    if (!t->mean || !t->max || !t->floor)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t s = 0; s < t->scheme_count; s++) {
        long double sum = 0, max = 0, floor_sum = 0;
        size_t covered = 0, floors = 0;
        for (size_t i = 0; i < t->trace_count; i++) {
            const results_table_cell *c = results_table_cell_at(t, i, s);
            if (c->floor_seeds) {
                floor_sum += c->floor_sum / (long double)c->floor_seeds;
                floors++;
            }
            if (c->seeds == 0)
                continue;
            long double v = c->sum / (long double)c->seeds;
            sum += v;
            max = covered == 0 || v > max ? v : max;
            covered++;
        }
        t->mean[s] = covered ? sum / (long double)covered : (long double)NAN;
        t->max[s] = covered ? max : (long double)NAN;
        t->floor[s] = floors ? floor_sum / (long double)floors : (long double)NAN;
    }
    return TEA_OK;
}

int results_table_build(results_table *t, const results_set *s, const results_table_request *req)
{
    int rc;

    results_set chosen;

    memset(t, 0, sizeof *t);
    if (s->count == 0)
        return error_set(TEA_ERR_FORMAT, "no results");
    if (req->sample_count) {
        if ((rc = choose_targets(req, s, t, &chosen)))
            return rc;
        s = &chosen;
    }
    if ((rc = collect_names(s, t)))
        return rc;
    if (t->by_samples)
        t->freq_hz = NAN;
    else if ((rc = choose_frequency(req, s, t)))
        return rc;
    if ((rc = fill_cells(req, s, t)))
        return rc;
    note_window_intervals(t);
    return summarize(t);
}
