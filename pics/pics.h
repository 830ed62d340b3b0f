/*
 * pics.h: per-instruction cycle stacks (PICS) as plain data.
 *
 * A PICS maps (static instruction address, PSV) to cycles, or, with
 * calling contexts (trace/callpath.h), (context, address, PSV): a flat
 * PICS's cells are all in the root context (0). Cycles are exact
 * fixed-point integers in units of 1/PICS_UNIT cycle; PICS_UNIT is a multiple
 * of lcm(1..16), so splitting a cycle among up to 16 committing µops is exact
 * and sums never round. A sampled PICS keeps raw sample weights (one sample is
 * PICS_UNIT) and is scaled to the golden total only when exported or compared,
 * so merging sampled PICS is exact too.
 *
 * The map is an open-addressing hash table; cells are sorted only when
 * written (pics_sorted).
 */
#ifndef TEA_PICS_PICS_H
#define TEA_PICS_PICS_H

#include "trace/callpath.h"

#include <stddef.h>
#include <stdint.h>

/* One cycle in PICS units: lcm(1..16) = 720720. */
#define PICS_UNIT 720720ull

typedef struct pics_cell {
    uint64_t pc;     /* static instruction address */
    uint64_t value;  /* golden: cycles x PICS_UNIT; sampled: sample weight x PICS_UNIT */
    uint64_t count;  /* golden: µops that committed or excepted with this PC and PSV;
                        sampled: samples that landed in the cell */
    uint16_t psv;    /* nine-bit PSV (already masked to the scheme's events) */
    uint8_t used;    /* slot occupied */
    uint8_t pad_;
    uint32_t ctx;    /* calling context (an id of the map's `contexts`; 0: the root, or none) */
} pics_cell;

typedef struct pics {
    pics_cell *slots;
    size_t capacity;   /* a power of two */
    size_t count;      /* cells in use */
    uint64_t total;    /* sum of all values */
    trace_contexts contexts; /* the contexts the cells name; count 0 (zeroed): none, a flat PICS */
} pics;

/* An empty map. Returns 0 or TEA_ERR_NOMEM. */
int pics_init(pics *p);

void pics_free(pics *p);

/* The slot where the probe for (ctx, pc, psv) starts. */
static inline size_t pics_slot_of_ctx(const pics *p, uint32_t ctx, uint64_t pc, uint16_t psv)
{
    const uint64_t multiplier = 0x9E3779B97F4A7C15ull; /* 2^64 / golden ratio */
    return (size_t)(((pc ^ ((uint64_t)psv << 52) ^ ((uint64_t)ctx << 24)) * multiplier) >> 32) & (p->capacity - 1);
}

/* The slot where the probe for (pc, psv) in the root context starts. */
static inline size_t pics_slot_of(const pics *p, uint64_t pc, uint16_t psv)
{
    return pics_slot_of_ctx(p, TRACE_CONTEXT_ROOT, pc, psv);
}

/* Most cells pics_reserve makes room for at once (a bigger map still
 * grows as cells come): 2^24 cells, a table of 1 GiB. */
#define PICS_RESERVE_MAX ((size_t)1 << 24)

/* Makes room for `cells` cells (at most PICS_RESERVE_MAX) without growing
 * again: what a reader that knows the count does before adding them. 0 or
 * TEA_ERR_NOMEM. */
int pics_reserve(pics *p, size_t cells);

/* pics_add_ctx's general path: probing, inserting, growing. */
int pics_add_probe(pics *p, uint32_t ctx, uint64_t pc, uint16_t psv, uint64_t value, uint64_t count);

/* Adds `value` and `count` to cell (ctx, pc, psv), creating it. Returns 0
 * or TEA_ERR_NOMEM. Inline because the golden reference calls it for every
 * µop; the common case (the cell exists at its home slot) costs one probe. */
static inline int pics_add_ctx(pics *p, uint32_t ctx, uint64_t pc, uint16_t psv, uint64_t value, uint64_t count)
{
    pics_cell *c = &p->slots[pics_slot_of_ctx(p, ctx, pc, psv)];
    if (c->pc == pc && c->psv == psv && c->ctx == ctx && c->used) {
        c->value += value;
        c->count += count;
        p->total += value;
        return 0;
    }
    return pics_add_probe(p, ctx, pc, psv, value, count);
}

/* pics_add_ctx in the root context: a flat PICS's cell (pc, psv). */
static inline int pics_add(pics *p, uint64_t pc, uint16_t psv, uint64_t value, uint64_t count)
{
    return pics_add_ctx(p, TRACE_CONTEXT_ROOT, pc, psv, value, count);
}

/*
 * An accumulation cache in front of a PICS: a small direct-mapped table of
 * partial sums that fits in the L1 cache. Hot loops add to it; a cell that
 * is evicted, and every cell at pics_cache_flush, is added to the target map.
 * The target is exact only after a flush.
 */
#define PICS_CACHE_SLOTS 8192u /* a power of two */
/* The PSV of an empty cache slot: no PSV reaches it (PSVs are below 512), so
 * the hit test needs no occupancy check (cache slots leave `used` at 0). */
#define PICS_CACHE_EMPTY_PSV 0xFFFFu

typedef struct pics_cache {
    pics_cell slots[PICS_CACHE_SLOTS];
    pics *target;
    int rc;          /* first error of an eviction (TEA_ERR_NOMEM) */
    uint64_t scale;  /* every sum goes to the target times this (a weighted window's weight; 1) */
} pics_cache;

/* Empties the cache and points it at `target`, at scale 1. */
void pics_cache_init(pics_cache *c, pics *target);

/* Evicts the entry at `e` and installs (ctx, pc, psv) there. */
void pics_cache_replace(pics_cache *c, pics_cell *e, uint32_t ctx, uint64_t pc, uint16_t psv, uint64_t value,
                        uint64_t count);

/* log2(PICS_CACHE_SLOTS) */
#define PICS_CACHE_SLOT_BITS 13
_Static_assert(PICS_CACHE_SLOTS == 1u << PICS_CACHE_SLOT_BITS, "the cache's slot bits");

/* log2(sizeof(pics_cell)) */
#define PICS_CELL_SHIFT 5
_Static_assert(sizeof(pics_cell) == 1u << PICS_CELL_SHIFT, "a cell's size is a power of two");

/* Where the cache keeps (pc, psv): its slot's byte offset in the slot array.
 * Mapped directly from the PC, like an instruction cache, so that the
 * instructions of a loop sit in neighbouring slots and do not evict one
 * another: bits 2 and up of the PC pick the slot, and its two low bits go
 * to the top bits of the index, so that instructions a byte (x86) or a
 * halfword (compressed RISC-V) apart differ. The PSV is hashed in, so that
 * one instruction's PSVs spread out, and so is the context (its hash's top
 * bits), so that one instruction's contexts do too (the root context adds
 * nothing). Each term is shifted straight to its place in the offset (the
 * mask drops the bits below a slot), which saves scaling the index. */
static inline size_t pics_cache_offset(uint32_t ctx, uint64_t pc, uint16_t psv)
{
    const uint32_t multiplier = 0x9E3779B1u; /* 2^32 / golden ratio */
    return (size_t)((pc << (PICS_CELL_SHIFT - 2)) ^ (pc << (PICS_CACHE_SLOT_BITS - 2 + PICS_CELL_SHIFT))
                    ^ ((uint32_t)psv * multiplier >> (16 - PICS_CELL_SHIFT))
                    ^ ((size_t)((uint32_t)(ctx * multiplier) >> (32 - PICS_CACHE_SLOT_BITS)) << PICS_CELL_SHIFT))
           & ((size_t)(PICS_CACHE_SLOTS - 1) << PICS_CELL_SHIFT);
}

/* The cache slot of (pc, psv) in the root context (see pics_cache_offset). */
static inline size_t pics_cache_slot(uint64_t pc, uint16_t psv)
{
    return pics_cache_offset(TRACE_CONTEXT_ROOT, pc, psv) >> PICS_CELL_SHIFT;
}

/* Adds to cell (ctx, pc, psv) through the cache. Errors surface at flush. */
static inline void pics_cache_add(pics_cache *c, uint32_t ctx, uint64_t pc, uint16_t psv, uint64_t value,
                                  uint64_t count)
{
    pics_cell *e = (pics_cell *)(void *)((unsigned char *)c->slots + pics_cache_offset(ctx, pc, psv));
    if (__builtin_expect(e->pc == pc && e->psv == psv && e->ctx == ctx, 1)) {
        e->value += value;
        e->count += count;
        return;
    }
    pics_cache_replace(c, e, ctx, pc, psv, value, count);
}

/* Adds every cached sum to the target and empties the cache. Returns 0 or
 * the first TEA_ERR_NOMEM seen since the last flush. */
int pics_cache_flush(pics_cache *c);

/* The cell for (ctx, pc, psv), or NULL. */
const pics_cell *pics_find_ctx(const pics *p, uint32_t ctx, uint64_t pc, uint16_t psv);

/* The cell for (pc, psv) in the root context (a flat PICS's), or NULL. */
const pics_cell *pics_find(const pics *p, uint64_t pc, uint16_t psv);

/* Gives `p` a copy of the contexts its cells name (replacing any). 0 or
 * TEA_ERR_NOMEM. */
int pics_set_contexts(pics *p, const trace_contexts *contexts);

/* True when `p` has calling contexts. */
static inline int pics_has_contexts(const pics *p)
{
    return p->contexts.count > 0;
}

/* Sums the cells of every context into the root context's and drops the
 * contexts: the flat PICS, the same total, a no-op without contexts.
 * Returns 0 or TEA_ERR_NOMEM (the map is then unchanged). */
int pics_flatten(pics *p);

/* All cells sorted by (pc, psv, ctx) in a malloc'd array of p->count cells (NULL
 * with *n = 0 for an empty map). Returns 0 or TEA_ERR_NOMEM. */
int pics_sorted(const pics *p, pics_cell **cells, size_t *n);

/* The distinct PCs of the map's cells, ascending, in a malloc'd array
 * (NULL with *n = 0 for an empty map): what --adjust-vma auto scores the
 * candidate load biases with (binary/symbolize.h). 0 or TEA_ERR_NOMEM. */
int pics_distinct_pcs(const pics *p, uint64_t **pcs, size_t *n);

/* pics_distinct_pcs of `n` cells sorted by PC (pics_sorted's, or a file's
 * as pics_read_array gives them): a malloc'd array (never NULL on
 * success). 0 or TEA_ERR_NOMEM. */
int pics_cells_distinct_pcs(const pics_cell *cells, size_t n, uint64_t **pcs, size_t *count);

/* Adds every cell of `src` to `dst`; the contexts of `src` are added to
 * those of `dst` (by their paths: ids are renumbered), a flat `src`'s cells
 * going to the root context. Returns 0 or TEA_ERR_NOMEM. */
int pics_merge_into(pics *dst, const pics *src);

/*
 * Whether `p` is a sound map: slots allocated, the capacity a power of two,
 * the load at most one half, `count` the occupied slots, every occupied
 * slot found by a probe from its home slot (so no empty slot cuts a probe
 * short and no key sits in two slots), nine-bit PSVs, and `total` the sum
 * of the values (modulo 2^64, as pics_add adds them). Returns 1 when sound,
 * 0 otherwise, so that assert(pics_check(p)) reads as the claim; O(capacity)
 * probes, for phase boundaries of Debug builds and for tests.
 */
int pics_check(const pics *p);

#endif
