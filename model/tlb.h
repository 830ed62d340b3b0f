/*
 * tlb.h: the address-translation hierarchy of the baseline core: an L1
 * instruction TLB and an L1 data TLB (32 entries each, fully associative,
 * LRU), a shared L2 TLB (1024 entries, 4-way, LRU) and page-table walkers.
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
 * with tlb_set_walker(); mem_page_walk (memory.h) walks Sv39 page tables
 * through the data caches, so walks whose entries hit in the caches are
 * cheaper (`walk_through_memory` in the configuration asks whoever builds the
 * model to install it). Only 4 KiB pages (superpages are not modelled); one
 * address space (no ASIDs, no flushes).
 *
 * Each TLB is a cache (cache.h) of page translations: lines are pages, the
 * L1 TLBs have unbounded outstanding misses and the L2 TLB has one MSHR per
 * walker. Not thread safe; no allocation after tlb_create().
 */
#ifndef TEA_MODEL_TLB_H
#define TEA_MODEL_TLB_H

#include "cache.h"

#include <stdint.h>

typedef struct tlb_config {
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
    unsigned walk_through_memory; /* 1: the model should install mem_page_walk (tlb ignores it) */
} tlb_config;

/* Fills `cfg` with the defaults above. */
void tlb_config_defaults(tlb_config *cfg);

/* Checks a configuration; TEA_ERR_USAGE. */
int tlb_config_check(const tlb_config *cfg);

/* Which L1 TLB an access uses. */
typedef enum tlb_side { TLB_INST = 0, TLB_DATA = 1 } tlb_side;

typedef struct tlb_result {
    uint32_t latency;     /* extra cycles for the translation */
    uint8_t l1_miss;      /* missed in the L1 TLB (including waiting for a translation on its way) */
    uint8_t l2_miss;      /* the translation needs (or waits for) a page walk */
} tlb_result;

/* Computes the cycles of a page walk for `vaddr` starting at `cycle`. */
typedef uint32_t (*tlb_walk_fn)(void *ctx, uint64_t vaddr, uint64_t cycle);

typedef struct tlb_stats {
    uint64_t accesses[2];  /* per tlb_side */
    uint64_t l1_misses[2]; /* primary and secondary */
    uint64_t l2_accesses;
    uint64_t l2_misses;    /* primary and secondary */
    uint64_t walks;        /* page walks performed */
    uint64_t walk_cycles;  /* their cycles, summed (walker waits excluded) */
    uint64_t walker_stalls; /* walks that waited for a free walker */
} tlb_stats;

typedef struct tlb tlb;

/* Creates empty TLBs. TEA_ERR_USAGE, TEA_ERR_NOMEM. */
int tlb_create(tlb **out, const tlb_config *cfg);

void tlb_free(tlb *t);

/* Uses `fn(ctx, vaddr, cycle)` for the cost of page walks from now on (NULL:
 * back to the fixed walk_latency). */
void tlb_set_walker(tlb *t, tlb_walk_fn fn, void *ctx);

/* Translates `vaddr` for an access at `cycle` on `side`; returns the extra
 * latency, also in out->latency. */
uint32_t tlb_translate(tlb *t, tlb_side side, uint64_t vaddr, uint64_t cycle, tlb_result *out);

const tlb_stats *tlb_get_stats(const tlb *t);

const tlb_config *tlb_get_config(const tlb *t);

#endif
