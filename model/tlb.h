/*
 * tlb.h: the address-translation hierarchy of the baseline core: an L1
 * instruction TLB and an L1 data TLB (32 entries each, fully associative,
 * LRU), a shared L2 TLB (1024 entries, 4-way, LRU) and page-table walkers.
 *
 * Internal to model/: the core's parts, which core.h puts together (the
 * tests use them too).
 *
 * Timing (cycles added to the access that translates):
 *   L1 TLB hit                     0 (looked up in parallel with the cache)
 *   L1 miss, L2 TLB hit            l2_latency (4)
 *   L2 TLB miss                    l2_latency + walk (30 by default)
 * plus, for a miss, any wait for a free walker (`walkers` walks in flight),
 * and for an access to a page whose translation is still on its way (a
 * secondary miss), the rest of that wait.
 *
 * The walk costs `walk_latency` cycles unless a walker function is installed
 * with model_tlb_set_walker(); model_mem_page_walk (memory.h) walks Sv39 page tables
 * through the data caches, so walks whose entries hit in the caches are
 * cheaper (`walk_through_memory` in the configuration asks whoever builds the
 * model to install it). Only 4 KiB pages (superpages are not modelled); one
 * address space (no ASIDs, no flushes).
 *
 * Each TLB is a cache (cache.h) of page translations: lines are pages, the
 * L1 TLBs have unbounded outstanding misses and the L2 TLB has one MSHR per
 * walker. Not thread safe; no allocation after model_tlb_create().
 */
#ifndef TEA_MODEL_TLB_H
#define TEA_MODEL_TLB_H

#include "cache.h"

#include <stdint.h>

typedef struct model_tlb_config {
    unsigned page_size;        /* bytes, a power of 2 (4096) */
    unsigned itlb_entries;     /* L1 I-TLB entries (32) */
    unsigned itlb_ways;        /* its associativity; = entries: fully associative (32) */
    unsigned dtlb_entries;     /* L1 D-TLB entries (32) */
    unsigned dtlb_ways;        /* (32) */
    unsigned l2_entries;       /* shared L2 TLB entries (1024) */
    unsigned l2_ways;          /* (4) */
    unsigned l2_latency;       /* cycles an L1 TLB miss that hits the L2 TLB adds (4) */
    unsigned walk_latency;     /* cycles of a page walk without a walker function (30) */
    unsigned walkers;          /* page walks in flight at once (1) */
    unsigned walk_through_memory; /* 1: the model should install model_mem_page_walk (tlb ignores it) */
} model_tlb_config;

/* Fills `cfg` with the defaults above. */
void model_tlb_config_defaults(model_tlb_config *cfg);

/* Checks a configuration; TEA_ERR_USAGE. */
int model_tlb_config_check(const model_tlb_config *cfg);

/* Which L1 TLB an access uses. */
typedef enum model_tlb_side { MODEL_TLB_INST = 0, MODEL_TLB_DATA = 1 } model_tlb_side;

typedef struct model_tlb_result {
    uint32_t latency;     /* extra cycles for the translation */
    uint8_t l1_miss;      /* missed in the L1 TLB (including waiting for a translation on its way) */
    uint8_t l2_miss;      /* the translation needs (or waits for) a page walk */
} model_tlb_result;

/* Computes the cycles of a page walk for `vaddr` starting at `cycle`. */
typedef uint32_t (*model_tlb_walk_fn)(void *ctx, uint64_t vaddr, uint64_t cycle);

typedef struct model_tlb_stats {
    uint64_t accesses[2];  /* per model_tlb_side */
    uint64_t l1_misses[2]; /* primary and secondary */
    uint64_t l2_accesses;
    uint64_t l2_misses;    /* primary and secondary */
    uint64_t walks;        /* page walks performed */
    uint64_t walk_cycles;  /* their cycles, summed (walker waits excluded) */
    uint64_t walker_stalls; /* walks that waited for a free walker */
} model_tlb_stats;

typedef struct model_tlb model_tlb;

/* Creates empty TLBs. TEA_ERR_USAGE, TEA_ERR_NOMEM. */
int model_tlb_create(model_tlb **out, const model_tlb_config *cfg);

void model_tlb_free(model_tlb *t);

/* Ends every translation and walk in flight (model_cache_settle on each TLB). */
void model_tlb_settle(model_tlb *t);

/* Uses `fn(ctx, vaddr, cycle)` for the cost of page walks from now on (NULL:
 * back to the fixed walk_latency). */
void model_tlb_set_walker(model_tlb *t, model_tlb_walk_fn fn, void *ctx);

/* Translates `vaddr` for an access at `cycle` on `side`; returns the extra
 * latency, also in out->latency. */
uint32_t model_tlb_translate(model_tlb *t, model_tlb_side side, uint64_t vaddr, uint64_t cycle, model_tlb_result *out);

const model_tlb_stats *model_tlb_get_stats(const model_tlb *t);

const model_tlb_config *model_tlb_get_config(const model_tlb *t);

#endif
