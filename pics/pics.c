/*
 * pics.c: the PICS hash map (see pics.h).
 */
#include "pics.h"
#include "common/error.h"
#include "common/hugemem.h"
#include "trace/psv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define PICS_INITIAL_CAPACITY 1024u
/* Grow when more than half the slots are in use: short probes. */
#define PICS_LOAD_NUM 1u
#define PICS_LOAD_DEN 2u


int pics_init(pics *p)
{
    memset(p, 0, sizeof *p);
    p->slots = calloc(PICS_INITIAL_CAPACITY, sizeof *p->slots);
    if (!p->slots)
        return error_set(TEA_ERR_NOMEM, "out of memory for a PICS");
    p->capacity = PICS_INITIAL_CAPACITY;
    return TEA_OK;
}

void pics_free(pics *p)
{
    free(p->slots);
    trace_contexts_free(&p->contexts);
    memset(p, 0, sizeof *p);
}

/* A zeroed table of `n` cells; a large one in huge pages (common/hugemem.h:
 * a table of millions of cells, calling contexts, is touched at random). */
static pics_cell *table_alloc(size_t n)
{
    return hugemem_calloc(n, sizeof(pics_cell));
}

/* Reinserts every cell into a table of `capacity` slots (a power of two). */
static int rehash(pics *p, size_t capacity)
{
    pics bigger = { 0 };
    bigger.capacity = capacity;
    bigger.slots = table_alloc(bigger.capacity);
    if (!bigger.slots)
        return error_set(TEA_ERR_NOMEM, "out of memory for a PICS of %zu cells", p->count);
    for (size_t i = 0; i < p->capacity; i++) {
        const pics_cell *c = &p->slots[i];
        size_t s;
        if (!c->used)
            continue;
        s = pics_slot_of_ctx(&bigger, c->ctx, c->pc, c->psv);
        while (bigger.slots[s].used)
            s = (s + 1) & (bigger.capacity - 1);
        bigger.slots[s] = *c;
    }
    bigger.count = p->count;
    bigger.total = p->total;
    bigger.contexts = p->contexts;
    assert((bigger.capacity & (bigger.capacity - 1)) == 0); /* slot_of masks with capacity - 1 */
    free(p->slots);
    *p = bigger;
    return TEA_OK;
}

/* Doubles the table. */
static int grow(pics *p)
{
    return rehash(p, p->capacity * 2);
}

int pics_reserve(pics *p, size_t cells)
{
    size_t capacity = p->capacity;
    if (cells > PICS_RESERVE_MAX)
        cells = PICS_RESERVE_MAX;
    while (cells * PICS_LOAD_DEN > capacity * PICS_LOAD_NUM)
        capacity *= 2;
    return capacity == p->capacity ? TEA_OK : rehash(p, capacity);
}

int pics_add_probe(pics *p, uint32_t ctx, uint64_t pc, uint16_t psv, uint64_t value, uint64_t count)
{
    size_t s = pics_slot_of_ctx(p, ctx, pc, psv);
    pics_cell *c;

    for (;;) {
        c = &p->slots[s];
        if (!c->used)
            break;
        if (c->pc == pc && c->psv == psv && c->ctx == ctx) {
            c->value += value;
            c->count += count;
            p->total += value;
            return TEA_OK;
        }
        s = (s + 1) & (p->capacity - 1);
    }
    if ((p->count + 1) * PICS_LOAD_DEN > p->capacity * PICS_LOAD_NUM) {
        int rc = grow(p);
        if (rc)
            return rc;
        return pics_add_probe(p, ctx, pc, psv, value, count);
    }
    c->used = 1;
    c->ctx = ctx;
    c->pc = pc;
    c->psv = psv;
    c->value = value;
    c->count = count;
    p->count++;
    p->total += value;
    /* The load factor stays at or below PICS_LOAD_NUM / PICS_LOAD_DEN, so
     * every probe meets an empty slot. */
    assert(p->count * PICS_LOAD_DEN <= p->capacity * PICS_LOAD_NUM);
    return TEA_OK;
}

const pics_cell *pics_find_ctx(const pics *p, uint32_t ctx, uint64_t pc, uint16_t psv)
{
    size_t s = pics_slot_of_ctx(p, ctx, pc, psv);
    while (p->slots[s].used) {
        if (p->slots[s].pc == pc && p->slots[s].psv == psv && p->slots[s].ctx == ctx)
            return &p->slots[s];
        s = (s + 1) & (p->capacity - 1);
    }
    return NULL;
}

const pics_cell *pics_find(const pics *p, uint64_t pc, uint16_t psv)
{
    return pics_find_ctx(p, TRACE_CONTEXT_ROOT, pc, psv);
}

int pics_set_contexts(pics *p, const trace_contexts *contexts)
{
    return trace_contexts_copy(&p->contexts, contexts);
}

int pics_flatten(pics *p)
{
    pics flat;
    int rc;
    if (!pics_has_contexts(p))
        return TEA_OK;
    if ((rc = pics_init(&flat)))
        return rc;
    for (size_t i = 0; i < p->capacity; i++) {
        const pics_cell *c = &p->slots[i];
        if (c->used && (rc = pics_add(&flat, c->pc, c->psv, c->value, c->count))) {
            pics_free(&flat);
            return rc;
        }
    }
    assert(flat.total == p->total); /* the flat PICS is the exact sum over contexts */
    pics_free(p);
    *p = flat;
    return TEA_OK;
}

int pics_check(const pics *p)
{
    size_t used = 0;
    uint64_t sum = 0;

    if (!p || !p->slots || p->capacity == 0 || (p->capacity & (p->capacity - 1)) != 0
        || p->count * PICS_LOAD_DEN > p->capacity * PICS_LOAD_NUM)
        return 0;
    for (size_t i = 0; i < p->capacity; i++) {
        const pics_cell *c = &p->slots[i];
        if (!c->used)
            continue;
        /* The probe for the cell's key must end at this very slot: an
         * empty slot before it would hide it, a slot of the same key before
         * it would be a duplicate. */
        if (c->psv & ~TRACE_PSV_MASK_ALL || pics_find_ctx(p, c->ctx, c->pc, c->psv) != c
            || (pics_has_contexts(p) && c->ctx >= p->contexts.count)) /* (a replay's PICS get the table last) */
            return 0;
        used++;
        sum += c->value;
    }
    return used == p->count && sum == p->total;
}

/* Cells sorted by a radix sort of RADIX_BITS-bit digits: the ctx's, the
 * PSV's, then the PC's (least significant first); fewer cells by qsort. */
#define RADIX_BITS 11u
#define RADIX_BUCKETS (1u << RADIX_BITS)
#define RADIX_CTX_DIGITS 3u  /* 32 bits */
#define RADIX_PSV_DIGITS 2u  /* 16 bits */
#define RADIX_PC_DIGITS 6u   /* 64 bits */
#define RADIX_DIGITS (RADIX_CTX_DIGITS + RADIX_PSV_DIGITS + RADIX_PC_DIGITS)
#define RADIX_MIN_CELLS 4096u

/* Digit `d` (0: the least significant) of a cell's (pc, psv, ctx) key. */
static inline size_t radix_digit(const pics_cell *c, unsigned d)
{
    uint64_t part;
    unsigned shift;
    if (d < RADIX_CTX_DIGITS) {
        part = c->ctx;
        shift = d * RADIX_BITS;
    } else if (d < RADIX_CTX_DIGITS + RADIX_PSV_DIGITS) {
        part = c->psv;
        shift = (d - RADIX_CTX_DIGITS) * RADIX_BITS;
    } else {
        part = c->pc;
        shift = (d - RADIX_CTX_DIGITS - RADIX_PSV_DIGITS) * RADIX_BITS;
    }
    return shift < 64 ? (size_t)(part >> shift) & (RADIX_BUCKETS - 1) : 0;
}

static int compare_cells(const void *a, const void *b);

/* Sorts `n` cells by (pc, psv, ctx): one pass counts every digit, then
 * each digit that differs between cells is a stable counting pass between
 * the cells and a buffer of as many (digits all cells share are skipped:
 * the PC's high bits, a flat PICS's contexts). 0 or TEA_ERR_NOMEM. */
static int sort_cells(pics_cell *cells, size_t n)
{
    size_t (*counts)[RADIX_BUCKETS];
    pics_cell *buf, *from = cells, *to;

    if (n < RADIX_MIN_CELLS) {
        qsort(cells, n, sizeof *cells, compare_cells);
        return TEA_OK;
    }
    counts = calloc(RADIX_DIGITS, sizeof *counts);
    buf = malloc(n * sizeof *buf);
    if (!counts || !buf) {
        free(counts);
        free(buf);
        return error_set(TEA_ERR_NOMEM, "out of memory sorting %zu cells", n);
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned d = 0; d < RADIX_DIGITS; d++)
            counts[d][radix_digit(&cells[i], d)]++;
    to = buf;
    for (unsigned d = 0; d < RADIX_DIGITS; d++) {
        size_t sum = 0;
        if (counts[d][radix_digit(&from[0], d)] == n)
            continue; /* every cell has this digit */
        for (size_t b = 0; b < RADIX_BUCKETS; b++) {
            size_t c = counts[d][b];
            counts[d][b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            to[counts[d][radix_digit(&from[i], d)]++] = from[i];
        pics_cell *t = from;
        from = to;
        to = t;
    }
    if (from != cells)
        memcpy(cells, from, n * sizeof *cells);
    free(counts);
    free(buf);
    return TEA_OK;
}

static int compare_cells(const void *a, const void *b)
{
    const pics_cell *x = a, *y = b;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    if (x->psv != y->psv)
        return (int)x->psv - (int)y->psv;
    return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

int pics_sorted(const pics *p, pics_cell **cells, size_t *n)
{
    size_t k = 0;
    *cells = NULL;
    *n = 0;
    assert(pics_check(p)); /* before its cells are written or paired */
    if (p->count == 0)
        return TEA_OK;
    *cells = malloc(p->count * sizeof **cells);
    if (!*cells)
        return error_set(TEA_ERR_NOMEM, "out of memory sorting %zu cells", p->count);
    for (size_t i = 0; i < p->capacity; i++)
        if (p->slots[i].used)
            (*cells)[k++] = p->slots[i];
    assert(k == p->count);
    if (sort_cells(*cells, k)) {
        free(*cells);
        *cells = NULL;
        return TEA_ERR_NOMEM;
    }
    for (size_t i = 1; i < k; i++)
        assert(compare_cells(&(*cells)[i - 1], &(*cells)[i]) < 0);
    *n = k;
    return TEA_OK;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int pics_distinct_pcs(const pics *p, uint64_t **pcs, size_t *n)
{
    uint64_t *v = NULL;
    size_t k = 0;

    *pcs = NULL;
    *n = 0;
    if (p->count && !(v = malloc(p->count * sizeof *v)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < p->capacity; i++)
        if (p->slots[i].used)
            v[k++] = p->slots[i].pc;
    assert(k == p->count);
    if (k)
        qsort(v, k, sizeof *v, compare_u64);
    for (size_t i = 0; i < k; i++)
        if (*n == 0 || v[*n - 1] != v[i])
            v[(*n)++] = v[i];
    *pcs = v;
    return TEA_OK;
}

/* The id in dst's contexts of each of `from`'s (created when missing;
 * parents come before children, so one pass in id order), in a malloc'd
 * array. */
static int map_contexts(pics *dst, const trace_contexts *from, uint32_t **out)
{
    int rc;
    *out = NULL;
    if (!pics_has_contexts(dst) && (rc = trace_contexts_init(&dst->contexts)))
        return rc;
    uint32_t *ids = malloc((size_t)from->count * sizeof *ids);
    if (!ids)
        return error_set(TEA_ERR_NOMEM, "out of memory for %u calling contexts", from->count);
    ids[0] = TRACE_CONTEXT_ROOT;
    for (uint32_t i = 1; i < from->count; i++) {
        const trace_context *c = &from->nodes[i];
        assert(c->parent < i);
        if ((rc = trace_contexts_intern(&dst->contexts, ids[c->parent], c->site, c->entry, &ids[i]))) {
            free(ids);
            return rc;
        }
    }
    *out = ids;
    return TEA_OK;
}

int pics_cells_distinct_pcs(const pics_cell *cells, size_t n, uint64_t **pcs, size_t *count)
{
    *count = 0;
    if (!(*pcs = malloc((n ? n : 1) * sizeof **pcs)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        assert(i == 0 || cells[i].pc >= cells[i - 1].pc); /* sorted by PC */
        if (i == 0 || cells[i].pc != cells[i - 1].pc)
            (*pcs)[(*count)++] = cells[i].pc;
    }
    return TEA_OK;
}

int pics_merge_into(pics *dst, const pics *src)
{
    uint64_t before = dst->total;

    assert(pics_check(src) && pics_check(dst));
    /* Every cell is at most its PICS's total: totals that fit mean cells that fit. */
    if (dst->total + src->total < dst->total)
        return error_set(TEA_ERR_UNSUPPORTED,
                         "the merged PICS would exceed 2^64 units (%llu cycles at 1/%llu "
                         "cycle): refused rather than wrapped",
                         (unsigned long long)(UINT64_MAX / PICS_UNIT), (unsigned long long)PICS_UNIT);
    uint32_t *ids = NULL;
    int rc;
    if (pics_has_contexts(src) && (rc = map_contexts(dst, &src->contexts, &ids)))
        return rc;
    for (size_t i = 0; i < src->capacity; i++) {
        const pics_cell *c = &src->slots[i];
        /* a source without a table keeps its ids: a replay's window groups, merged
         * before the replay gives its PICS the table (a flat one's are all 0) */
        if (c->used && (rc = pics_add_ctx(dst, ids ? ids[c->ctx] : c->ctx, c->pc, c->psv, c->value, c->count))) {
            free(ids);
            return rc;
        }
    }
    free(ids);
    assert(dst->total == before + src->total); /* merging conserves cycles  */
    assert(pics_check(dst));
    (void)before; /* unused when NDEBUG compiles the assertion out */
    return TEA_OK;
}

void pics_cache_init(pics_cache *c, pics *target)
{
    memset(c->slots, 0, sizeof c->slots);
    for (size_t i = 0; i < PICS_CACHE_SLOTS; i++)
        c->slots[i].psv = PICS_CACHE_EMPTY_PSV;
    c->target = target;
    c->rc = TEA_OK;
    c->scale = 1;
}

void pics_cache_replace(pics_cache *c, pics_cell *e, uint32_t ctx, uint64_t pc, uint16_t psv, uint64_t value,
                        uint64_t count)
{
    int rc;
    assert(psv != PICS_CACHE_EMPTY_PSV); /* PSVs are below 512: the empty mark is never a cell's */
    if (e->psv != PICS_CACHE_EMPTY_PSV
        && (rc = pics_add_ctx(c->target, e->ctx, e->pc, e->psv, e->value * c->scale, e->count * c->scale))
        && !c->rc)
        c->rc = rc;
    e->ctx = ctx;
    e->pc = pc;
    e->psv = psv;
    e->value = value;
    e->count = count;
}

int pics_cache_flush(pics_cache *c)
{
    for (size_t i = 0; i < PICS_CACHE_SLOTS; i++) {
        pics_cell *e = &c->slots[i];
        int rc;
        if (e->psv != PICS_CACHE_EMPTY_PSV
            && (rc = pics_add_ctx(c->target, e->ctx, e->pc, e->psv, e->value * c->scale, e->count * c->scale))
            && !c->rc)
            c->rc = rc;
        e->psv = PICS_CACHE_EMPTY_PSV;
    }
    /* No pics_check here: a sampled replay flushes at every window (up to
     * TRACE_WINDOWS_MAX), and a check of the whole target each time would
     * make Debug builds quadratic; the replay checks at its end. */
    return c->rc;
}
