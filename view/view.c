/*
 * view.c: rows of PICS by key (see view.h).
 */
#include "view.h"

#include "trace/psv.h"
#include "common/error.h"
#include "common/search.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0

/* Makes a row of every run of components with one key. */
static int make_rows(view *v)
{
    const pics_pairing *pr = &v->pairing;

    v->rows = malloc((pr->count ? pr->count : 1) * sizeof *v->rows);
    if (!v->rows)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < pr->count;) {
        view_row *r = &v->rows[v->row_count++];
        memset(r, 0, sizeof *r);
        r->key = pr->pairs[k].key;
        r->first = k;
        for (; k < pr->count && pr->pairs[k].key == r->key; k++) {
            r->value += pr->pairs[k].a;
            r->golden += pr->pairs[k].b;
            r->count_a += pr->pairs[k].count_a;
            r->diff += pr->pairs[k].diff;
        }
        r->count = k - r->first;
        r->contribution = v->has_golden ? pics_pairing_share(pr, r->diff) : 0.0;
        assert(r->count > 0 && (v->row_count == 1 || r[-1].key < r->key));
    }
    v->shown = v->row_count;
    return TEA_OK;
}

const char *view_component_label(pics_granularity g, uint16_t psv, char *buf, size_t size)
{
    if (g != PICS_GRAN_INSN)
        return trace_psv_label(psv, buf, size);
    snprintf(buf, size, "%s", VIEW_ALL_COMPONENTS);
    return buf;
}

int view_build(view *v, const pics *p, const pics *golden, pics_granularity g, const trace_symmap *ranges)
{
    pics gp = { 0 }, gg = { 0 }, empty = { 0 };
    const trace_symmap *by = pics_granularity_ranged(g) ? ranges : NULL;
    int rc;

    memset(v, 0, sizeof *v);
    if (pics_granularity_ranged(g) && !ranges)
        return error_set(TEA_ERR_USAGE, "%s granularity needs symbols", g == PICS_GRAN_FUNC ? "function" : "call-path");
    v->granularity = g;
    v->ranges = by;
    v->has_golden = golden != NULL;
    if ((rc = pics_group(p, by, g == PICS_GRAN_INSN, &gp)))
        return rc;
    if (golden)
        rc = pics_group(golden, by, g == PICS_GRAN_INSN, &gg);
    else
        rc = pics_init(&empty);
    if (rc == TEA_OK && (rc = pics_pair_up(&gp, golden ? &gg : &empty, &v->pairing)) == TEA_OK) {
        v->cells = v->pairing.pairs;
        rc = make_rows(v);
        assert(rc || view_check(v));
    }
    pics_free(&gp);
    pics_free(&gg);
    pics_free(&empty);
    if (rc)
        view_free(v);
    return rc;
}

double view_error(const view *v)
{
    return pics_pairing_share(&v->pairing, v->pairing.total);
}

double view_contribution(const view *v, const view_row *r)
{
    (void)v;
    return r->contribution;
}

uint64_t view_key_address(const view *v, uint64_t key)
{
    if (!v->ranges)
        return key;
    assert(key <= v->ranges->count);
    return key ? v->ranges->entries[key - 1].start : 0;
}

const char *view_key_name(const view *v, uint64_t key)
{
    if (!v->ranges)
        return NULL;
    assert(key <= v->ranges->count);
    return key ? v->ranges->entries[key - 1].name : VIEW_UNKNOWN_NAME;
}

/* A key and the view it is looked up in (view_lower_bound). */
typedef struct key_in_view {
    const view *v;
    uint64_t key;
} key_in_view;

static int row_below(size_t i, const void *ctx)
{
    const key_in_view *k = ctx;
    return k->v->rows[i].key < k->key;
}

size_t view_lower_bound(const view *v, uint64_t key)
{
    key_in_view k = { v, key };
    return search_lower_bound(v->row_count, row_below, &k);
}

const view_row *view_find(const view *v, uint64_t key)
{
    size_t i = view_lower_bound(v, key);
    return i < v->row_count && v->rows[i].key == key ? &v->rows[i] : NULL;
}

/* The orders (view.h); each ends in the key, so every order is total. */
static int by_key(const view_row *x, const view_row *y)
{
    return x->key < y->key ? -1 : x->key > y->key;
}

static int by_value(const void *a, const void *b)
{
    const view_row *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    if (x->golden != y->golden)
        return x->golden > y->golden ? -1 : 1;
    return by_key(x, y);
}

static int by_contribution(const void *a, const void *b)
{
    const view_row *x = a, *y = b;
    if (x->contribution != y->contribution)
        return x->contribution > y->contribution ? -1 : 1;
    return by_value(a, b);
}

static int by_contribution_key(const void *a, const void *b)
{
    const view_row *x = a, *y = b;
    if (x->contribution != y->contribution)
        return x->contribution > y->contribution ? -1 : 1;
    return by_key(x, y);
}

static int by_diff_key(const void *a, const void *b)
{
    const view_row *x = a, *y = b;
    if (x->diff != y->diff)
        return x->diff > y->diff ? -1 : 1;
    return by_key(x, y);
}

static int by_key_only(const void *a, const void *b)
{
    return by_key(a, b);
}

/* A comparison of two rows for qsort. */
typedef int (*row_compare)(const void *, const void *);

/* The comparison that sorts rows in `order`. */
static row_compare order_compare(view_order order)
{
    return order == VIEW_ORDER_VALUE                ? by_value
           : order == VIEW_ORDER_CONTRIBUTION       ? by_contribution
           : order == VIEW_ORDER_CONTRIBUTION_KEY ? by_contribution_key
           : order == VIEW_ORDER_DIFF_KEY           ? by_diff_key
                                                    : by_key_only;
}

void view_sort(view *v, view_order order)
{
    qsort(v->rows, v->row_count, sizeof *v->rows, order_compare(order));
    v->shown = v->row_count;
    v->order = order;
    assert(view_check(v));
}

/* value / total, 0 for an empty PICS. */
static double share(uint64_t value, uint64_t total)
{
    return total ? (double)value / (double)total : 0.0;
}

/* Whether row r reaches the percent limit in either PICS. */
static int reaches(const view *v, const view_row *r, double percent_limit)
{
    double s = PERCENT * share(r->value, v->pairing.total_a);
    double g = v->has_golden ? PERCENT * share(r->golden, v->pairing.total_b) : 0.0;
    return s >= percent_limit || (v->has_golden && g >= percent_limit);
}

int view_select(view *v, uint64_t top, double percent_limit)
{
    view_row *others = malloc((v->row_count ? v->row_count : 1) * sizeof *others);
    size_t kept = 0, dropped = 0;

    if (!others)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < v->row_count; i++) {
        if (reaches(v, &v->rows[i], percent_limit))
            v->rows[kept++] = v->rows[i];
        else
            others[dropped++] = v->rows[i];
    }
    assert(kept + dropped == v->row_count);
    memcpy(v->rows + kept, others, dropped * sizeof *others);
    free(others);
    v->shown = top && kept > top ? (size_t)top : kept;
    assert(view_check(v));
    return TEA_OK;
}

/* Largest difference first, then key and PSV. */
static int cell_by_diff(const void *a, const void *b)
{
    const pics_pair *x = *(const pics_pair *const *)a, *y = *(const pics_pair *const *)b;
    if (x->diff != y->diff)
        return x->diff > y->diff ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->psv < y->psv ? -1 : x->psv > y->psv;
}

int view_cells_by_diff(const view *v, const pics_pair ***out, size_t *n)
{
    const pics_pair **cells = malloc((v->pairing.count ? v->pairing.count : 1) * sizeof *cells);

    *out = NULL;
    *n = 0;
    if (!cells)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < v->pairing.count; i++)
        cells[i] = &v->pairing.pairs[i];
    qsort(cells, v->pairing.count, sizeof *cells, cell_by_diff);
    *out = cells;
    *n = v->pairing.count;
    return TEA_OK;
}

/* Components by difference, largest first, then by PSV. */
static int component_by_diff(const void *a, const void *b)
{
    const view_component *x = a, *y = b;
    if (x->diff != y->diff)
        return x->diff > y->diff ? -1 : 1;
    return x->psv < y->psv ? -1 : x->psv > y->psv;
}

int view_components(const view *v, view_component **out, size_t *n)
{
    view_component *by_psv = calloc(TRACE_PSV_VALUES, sizeof *by_psv);
    exact_u128 diff = 0;
    size_t used = 0;

    *out = NULL;
    *n = 0;
    if (!by_psv)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < v->pairing.count; i++) {
        const pics_pair *c = &v->pairing.pairs[i];
        view_component *k = &by_psv[c->psv & TRACE_PSV_MASK_ALL];
        k->psv = c->psv;
        k->value += c->a;
        k->golden += c->b;
        k->diff += c->diff;
    }
    for (size_t psv = 0; psv < TRACE_PSV_VALUES; psv++) {
        view_component *k = &by_psv[psv];
        if (!k->value && !k->golden && !k->diff)
            continue;
        k->contribution = pics_pairing_share(&v->pairing, k->diff);
        diff += k->diff;
        by_psv[used++] = *k; /* compacted in place: used <= psv */
    }
    assert(diff == v->pairing.total); /* every cell in one component */
    if (!used) {
        free(by_psv);
        return TEA_OK;
    }
    qsort(by_psv, used, sizeof *by_psv, component_by_diff);
    *out = by_psv;
    *n = used;
    return TEA_OK;
}

void view_free(view *v)
{
    pics_pairing_free(&v->pairing);
    free(v->rows);
    memset(v, 0, sizeof *v);
}

int view_functions(const char *symbols_path, const binary_symbolizer *z, trace_symmap *out, const char **from)
{
    memset(out, 0, sizeof *out);
    *from = symbols_path;
    if (symbols_path)
        return trace_symmap_load(out, symbols_path);
    if (!z)
        return TEA_OK;
    *from = binary_symbolize_binary(z);
    return binary_symbolize_symmap(z, BINARY_SYMBOLS_MAP_SECTION_GAPS, out);
}

/* Whether row r of `v` is the whole run of its key's components, with
 * their sums and its difference's share. */
static int row_sound(const view *v, const view_row *r)
{
    const pics_pairing *pr = &v->pairing;
    uint64_t value = 0, golden = 0;
    exact_u128 diff = 0;

    if (r->count == 0 || r->first >= pr->count || r->count > pr->count - r->first
        || (r->first > 0 && pr->pairs[r->first - 1].key == r->key)
        || (r->first + r->count < pr->count && pr->pairs[r->first + r->count].key == r->key)
        || (v->ranges && r->key > v->ranges->count))
        return 0;
    for (size_t k = r->first; k < r->first + r->count; k++) {
        if (pr->pairs[k].key != r->key)
            return 0;
        value += pr->pairs[k].a;
        golden += pr->pairs[k].b;
        diff += pr->pairs[k].diff;
    }
    return value == r->value && golden == r->golden && diff == r->diff
           && r->contribution == (v->has_golden ? pics_pairing_share(pr, r->diff) : 0.0);
}

int view_check(const view *v)
{
    const pics_pairing *pr;
    row_compare cmp;
    uint64_t value = 0, golden = 0, run_sum = 0, run_squares = 0, row_sum = 0, row_squares = 0;
    exact_u128 diff = 0;
    size_t runs = 0, covered = 0, descents = 0;

    if (!v || v->shown > v->row_count || (unsigned)v->order > VIEW_ORDER_DIFF_KEY)
        return 0;
    pr = &v->pairing;
    if (v->cells != pr->pairs || v->row_count > pr->count || (v->row_count && !v->rows) || (pr->count && !pr->pairs))
        return 0;
    /* The runs of components, by their first component. */
    for (size_t k = 0; k < pr->count; k++) {
        if (k > 0 && pr->pairs[k].key == pr->pairs[k - 1].key)
            continue;
        runs++;
        run_sum += k;
        run_squares += (uint64_t)k * k;
    }
    for (size_t i = 0; i < v->row_count; i++) {
        const view_row *r = &v->rows[i];
        if (!row_sound(v, r))
            return 0;
        covered += r->count;
        value += r->value;
        golden += r->golden;
        diff += r->diff;
        row_sum += r->first;
        row_squares += (uint64_t)r->first * r->first;
    }
    /* Rows that are runs, as many as the runs and with the same firsts:
     * each run is one row (a row twice would leave a run out, and change
     * the sums). */
    if (runs != v->row_count || row_sum != run_sum || row_squares != run_squares || covered != pr->count
        || value != pr->total_a || golden != pr->total_b || diff != pr->total)
        return 0;
    cmp = order_compare(v->order);
    for (size_t i = 1; i < v->row_count; i++) {
        int c = cmp(&v->rows[i - 1], &v->rows[i]);
        if (c == 0 || (c > 0 && i < v->shown))
            return 0;
        /* Past the shown rows: those view_select kept but cut, then those
         * it dropped, each run in order. */
        if (c > 0 && i > v->shown && ++descents > 1)
            return 0;
    }
    return 1;
}
