/*
 * topdown.c (view): tea topdown's analysis as a view (see topdown.h).
 */
#include "topdown.h"
#include "common/stats.h"
#include "trace/objects.h"
#include "common/error.h"
#include "common/search.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Finds the function of a PC, trying the previous range first: the index
 * of the first range with its name (ranges that share a name are one
 * function), or -1 when no range holds the PC. */
typedef struct locator {
    const trace_symmap *map;
    const size_t *canonical;    /* [range] the first range with its name */
    long last;                  /* the last range found, or -1 */
} locator;

static long locate_function(void *ctx, uint64_t pc)
{
    locator *l = ctx;
    long f;
    if (l->last < 0 || pc < l->map->entries[l->last].start || pc >= l->map->entries[l->last].end) {
        if ((f = trace_symmap_find(l->map, pc)) < 0)
            return -1;
        l->last = f;
    }
    return (long)l->canonical[l->last];
}

/* Orders range indices by name, then index; ctx: the map. */
static int compare_names(const void *a, const void *b, void *ctx)
{
    const trace_symmap *map = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(map->entries[x].name, map->entries[y].name);
    return c ? c : (x > y) - (x < y);
}

/* Fills canonical[i] with the first range named like range i. */
static int canonical_ranges(const trace_symmap *map, size_t **out)
{
    size_t *order, *canonical;

    *out = NULL;
    order = malloc((map->count ? map->count : 1) * sizeof *order);
    canonical = malloc((map->count ? map->count : 1) * sizeof *canonical);
    if (!order || !canonical) {
        free(order);
        free(canonical);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < map->count; i++)
        order[i] = i;
    search_sort(order, map->count, sizeof *order, compare_names, (void *)map);
    for (size_t i = 0; i < map->count; i++) {
        canonical[order[i]] = i && strcmp(map->entries[order[i]].name, map->entries[order[i - 1]].name) == 0
                                  ? canonical[order[i - 1]]
                                  : order[i];
        assert(canonical[order[i]] <= order[i]); /* ties sorted by index: the first comes first */
    }
    free(order);
    *out = canonical;
    return TEA_OK;
}

/* A sampled trace whose windows the reader knows (a file's): the analysis
 * keeps groups of them (golden_topdown_group_windows), or weights them
 * (golden_topdown_weight_windows), as tea replay does. */
static int group_windows(trace_reader *reader, golden_topdown *td, int *weighted)
{
    const trace_run *run;
    unsigned groups;
    int rc;

    if ((rc = trace_reader_run(reader, &run)))
        return rc;
    *weighted = trace_sampling_weighted(&run->sampling);
    if (*weighted)
        return golden_topdown_weight_windows(td, run->sampling.window_ends, run->sampling.window_weights,
                                             run->sampling.window_count);
    groups = trace_sampling_groups(&run->sampling);
    return groups ? golden_topdown_group_windows(td, run->sampling.window_ends, run->sampling.window_count, groups)
                  : TEA_OK;
}

/* Half the 95 % interval (percent) of the share that `part` takes of the
 * `view` total, over the window groups; NaN without groups. `part` is a
 * category of `view` (level2 0) or a level-2 node (level2 1). */
static double groups_half_percent(const golden_topdown *td, enum golden_topdown_view view, int level2,
                                  unsigned part)
{
    unsigned count;
    const golden_topdown_counts *groups = golden_topdown_get_group_counts(td, &count);
    stats_sample s;

    if (!count)
        return NAN;
    memset(&s, 0, sizeof s);
    for (unsigned k = 0; k < count; k++) {
        uint64_t total = view_topdown_total(&groups[k], view);
        uint64_t value = level2 ? groups[k].level2[part] : view_topdown_values(&groups[k], view)[part];
        stats_add(&s, total ? 100.0 * (double)value / (double)total : 0.0);
    }
    return stats_half_interval95(&s);
}

double view_topdown_half_percent(const golden_topdown *td, enum golden_topdown_view view, unsigned category)
{
    return groups_half_percent(td, view, 0, category);
}

double view_topdown_level2_half_percent(const golden_topdown *td, enum golden_topdown_level2 node)
{
    return groups_half_percent(td, GOLDEN_TOPDOWN_VIEW_SLOTS, 1, (unsigned)node);
}

/* A recording of SimPoint's regions read from a stream names its weights
 * only at its end, after its cycles were counted unweighted: refused.
 * `weighted`: the weights were known at the start. */
static int check_weights_known(trace_reader *reader, int weighted)
{
    const trace_run *run;
    int rc;
    if ((rc = trace_reader_run(reader, &run)))
        return rc;
    if (trace_sampling_weighted(&run->sampling) && !weighted)
        return error_set(TEA_ERR_UNSUPPORTED, "a recording of SimPoint's regions (--simpoints) read from a pipe: its "
                                              "weights are listed at its end, too late; give the file itself");
    return TEA_OK;
}

int view_topdown_analyse(trace_reader *reader, const trace_symmap *map, golden_topdown **out)
{
    trace_batch batch = { 0 };
    golden_topdown_options opts;
    locator loc = { map, NULL, -1 };
    size_t *canonical = NULL;
    golden_topdown *td = NULL;
    int rc, weighted = 0;

    TEA_ASSERT_ARG(reader != NULL);
    TEA_ASSERT_ARG(out != NULL);
    *out = NULL;
    memset(&opts, 0, sizeof opts);
    opts.commit_width = trace_reader_header(reader)->commit_width;
    opts.initial_window = trace_reader_header(reader)->initial_window;
    if (map) {
        if ((rc = canonical_ranges(map, &canonical)))
            return rc;
        loc.canonical = canonical;
        opts.functions = map->count;
        opts.locate = locate_function;
        opts.locate_ctx = &loc;
    }
    if ((rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)) || (rc = golden_topdown_create(&td, &opts))
        || (rc = group_windows(reader, td, &weighted)))
        goto done;
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        if ((rc = golden_topdown_feed(td, &batch)))
            goto done;
    }
    if ((rc = check_weights_known(reader, weighted)))
        goto done;
    rc = golden_topdown_finish(td);
done:
    if (rc)
        golden_topdown_free(td);
    else
        *out = td;
    free(canonical);
    trace_batch_free(&batch);
    return rc;
}

uint64_t view_topdown_power_of_ten(int decimals)
{
    uint64_t p = 1;
    while (decimals-- > 0)
        p *= 10;
    return p;
}

const char *view_topdown_category_name(enum golden_topdown_view view, unsigned category)
{
    return view == GOLDEN_TOPDOWN_VIEW_STATES ? golden_state_name((enum golden_state)category)
                                              : golden_topdown_category_name((enum golden_topdown_category)category);
}

const uint64_t *view_topdown_values(const golden_topdown_counts *c, enum golden_topdown_view view)
{
    return view == GOLDEN_TOPDOWN_VIEW_STATES ? c->states : c->slots;
}

uint64_t view_topdown_total(const golden_topdown_counts *c, enum golden_topdown_view view)
{
    const uint64_t *v = view_topdown_values(c, view);
    uint64_t sum = 0;
    for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++)
        sum += v[k];
    return sum;
}

int view_topdown_rows(const golden_topdown *td, long scope, enum golden_topdown_view view, int decimals,
                      size_t max_components, view_topdown_row **rows, size_t *count)
{
    const golden_topdown_counts *c = golden_topdown_get_counts(td, scope);
    const uint64_t *values = view_topdown_values(c, view);
    uint64_t shares[GOLDEN_TOPDOWN_CATEGORIES];
    size_t cap = GOLDEN_TOPDOWN_CATEGORIES, n = 0;
    view_topdown_row *out;
    int rc;

    for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++) {
        const golden_topdown_component *comp;
        size_t m = golden_topdown_get_components(td, scope, view, (unsigned)k, &comp);
        cap += m + 1;
    }
    if (!(out = calloc(cap, sizeof *out)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if ((rc = golden_topdown_apportion(values, GOLDEN_TOPDOWN_CATEGORIES, 100 * view_topdown_power_of_ten(decimals), shares)))
        goto fail;
    for (unsigned k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++) {
        const golden_topdown_component *comp;
        size_t m = golden_topdown_get_components(td, scope, view, k, &comp), shown;
        uint64_t *cv, *cs;
        out[n++] = (view_topdown_row){ view_topdown_category_name(view, k), 0, 0, 0, values[k], shares[k] };
        if (!m)
            continue;
        cv = malloc(2 * m * sizeof *cv);
        if (!cv) {
            rc = error_set(TEA_ERR_NOMEM, "out of memory");
            goto fail;
        }
        cs = cv + m;
        for (size_t i = 0; i < m; i++)
            cv[i] = comp[i].value;
        rc = golden_topdown_apportion(cv, m, shares[k], cs);
        if (rc) {
            free(cv);
            goto fail;
        }
        shown = max_components && m > max_components ? max_components - 1 : m;
        for (size_t i = 0; i < shown; i++)
            out[n++] = (view_topdown_row){ view_topdown_category_name(view, k), 1, comp[i].psv, 0, comp[i].value, cs[i] };
        if (shown < m) {
            view_topdown_row others = { view_topdown_category_name(view, k), 1, 0, m - shown, 0, 0 };
            for (size_t i = shown; i < m; i++) {
                others.value += comp[i].value;
                others.share += cs[i];
            }
            out[n++] = others;
        }
        free(cv);
    }
    assert(n <= cap); /* a row per category, per component shown and per category's others */
    *rows = out;
    *count = n;
    return TEA_OK;
fail:
    free(out);
    return rc;
}

const char *view_topdown_scope_name(const trace_symmap *map, long scope)
{
    size_t f = map ? map->count : 0;
    if (scope == GOLDEN_TOPDOWN_WHOLE)
        return VIEW_TOPDOWN_WHOLE;
    if ((size_t)scope < f)
        return map->entries[scope].name;
    return (size_t)scope == f ? VIEW_TOPDOWN_OUTSIDE : VIEW_TOPDOWN_UNATTRIBUTED;
}

/* Orders scopes by cycles, most first, then by index; ctx: the analysis. */
static int compare_scopes(const void *a, const void *b, void *ctx)
{
    const golden_topdown *td = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint64_t cx = view_topdown_total(golden_topdown_get_counts(td, (long)x), GOLDEN_TOPDOWN_VIEW_STATES);
    uint64_t cy = view_topdown_total(golden_topdown_get_counts(td, (long)y), GOLDEN_TOPDOWN_VIEW_STATES);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return (x > y) - (x < y);
}

int view_topdown_rank(view_topdown_ranking *ctx, const golden_topdown *td, int decimals)
{
    memset(ctx, 0, sizeof *ctx);
    size_t scopes = golden_topdown_scope_count(td);
    uint64_t *cycles;
    int rc = TEA_OK;

    if (!scopes)
        return TEA_OK;
    ctx->order = malloc(scopes * sizeof *ctx->order);
    ctx->scope_share = malloc(scopes * sizeof *ctx->scope_share);
    ctx->scope_slot_share = malloc(scopes * sizeof *ctx->scope_slot_share);
    cycles = malloc(2 * scopes * sizeof *cycles);
    if (!ctx->order || !ctx->scope_share || !ctx->scope_slot_share || !cycles) {
        free(cycles);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t s = 0; s < scopes; s++) {
        const golden_topdown_counts *c = golden_topdown_get_counts(td, (long)s);
        cycles[s] = view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_STATES);
        cycles[scopes + s] = view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_SLOTS);
        if (cycles[s] || cycles[scopes + s])
            ctx->order[ctx->order_count++] = s;
    }
    if (!(rc = golden_topdown_apportion(cycles, scopes, 100 * view_topdown_power_of_ten(decimals), ctx->scope_share)))
        rc = golden_topdown_apportion(cycles + scopes, scopes, 100 * view_topdown_power_of_ten(decimals), ctx->scope_slot_share);
    search_sort(ctx->order, ctx->order_count, sizeof *ctx->order, compare_scopes, (void *)td);
    free(cycles);
    return rc;
}

void view_topdown_ranking_free(view_topdown_ranking *r)
{
    free(r->order);
    free(r->scope_share);
    free(r->scope_slot_share);
    memset(r, 0, sizeof *r);
}
