/*
 * memory.h: the memory hierarchy of the baseline core: split L1 instruction
 * and data caches, a shared last-level cache (LLC) and DRAM.
 *
 * Internal to model/: the core's parts, which core.h puts together (the
 * tests use them too).
 *
 * Defaults follow the TEA paper's BOOM (docs/semantics.md §7): 32 KiB 8-way
 * L1 I and D caches with 64 B lines, 16 MSHRs and a next-line prefetcher; a
 * 2 MiB 16-way LLC with 32 MSHRs; DRAM at a fixed latency.
 *
 * Timing (cycles):
 *   load/store hit in the L1 D          l1d_latency (4)
 *   L1 miss served by the LLC           l1d_latency + llc_latency (4 + 20)
 *   L1 miss served by DRAM              l1d_latency + llc_latency + dram_latency (4 + 20 + 180)
 * plus any wait for an L1 or LLC MSHR, or the rest of an outstanding fill for
 * a secondary miss. Instruction fetch is the same with l1i_latency (0) in
 * place of l1d_latency: a fetch that hits stalls nothing.
 *
 * The LLC is neither inclusive nor exclusive: L1 misses allocate in both; L1
 * evictions do not touch the LLC. Dirty L1 victims are written back to the
 * LLC's copy when it has one and go to DRAM otherwise; dirty LLC victims go
 * to DRAM. Writebacks cost no time (write buffers) but are counted. DRAM has
 * a fixed latency and unbounded bandwidth. L1 prefetches are ordinary reads
 * to the LLC.
 *
 * An access that straddles lines touches each line; its latency is that of
 * the slowest. Not thread safe; no allocation after model_mem_create().
 */
#ifndef TEA_MODEL_MEMORY_H
#define TEA_MODEL_MEMORY_H

#include "cache.h"

#include <stdint.h>

typedef struct model_mem_config {
    model_cache_config l1i;  /* instruction cache */
    model_cache_config l1d;  /* data cache */
    model_cache_config llc;  /* shared last-level cache; same line size as the L1s */
    unsigned l1i_latency;    /* cycles a fetch that hits the L1 I adds (0) */
    unsigned l1d_latency;    /* cycles of a load that hits the L1 D (load to use, 4) */
    unsigned llc_latency;    /* cycles an L1 miss takes when the LLC has the line (20) */
    unsigned dram_latency;   /* cycles an LLC miss adds (180) */
} model_mem_config;

/* Fills `cfg` with the defaults above. */
void model_mem_config_defaults(model_mem_config *cfg);

/* Checks each cache and that the line sizes agree; TEA_ERR_USAGE. */
int model_mem_config_check(const model_mem_config *cfg);

/* What one access cost. */
typedef struct model_mem_result {
    uint32_t latency;   /* load/store: cycles until the data is available;
                           fetch: extra front-end stall cycles */
    uint8_t l1_miss;    /* the L1 did not have a filled line: a primary or secondary miss */
    uint8_t l1_merged;  /* every missing line was a secondary miss (no new request) */
    uint8_t llc_miss;   /* the data comes from DRAM (directly or by merging into such a fill) */
} model_mem_result;

/* Counters beyond those of each cache. */
typedef struct model_mem_stats {
    uint64_t loads, stores, fetches;  /* calls */
    uint64_t straddles;               /* accesses that touched two or more lines */
    uint64_t dram_reads;              /* lines read from DRAM */
    uint64_t dram_writes;             /* lines written to DRAM */
    uint64_t walks;                   /* model_mem_page_walk calls */
} model_mem_stats;

/* The caches of the hierarchy, for model_mem_cache_stats. */
typedef enum model_mem_level { MODEL_MEM_L1I = 0, MODEL_MEM_L1D, MODEL_MEM_LLC, MODEL_MEM_LEVELS } model_mem_level;

typedef struct model_mem model_mem;

/* Creates the hierarchy (all caches empty). TEA_ERR_USAGE, TEA_ERR_NOMEM. */
int model_mem_create(model_mem **out, const model_mem_config *cfg);

void model_mem_free(model_mem *m);

/* Ends every fill in flight in every cache (model_cache_settle): after a
 * warm-up, the hierarchy holds what the warm-up brought, all of it arrived. */
void model_mem_settle(model_mem *m);

/* Places the line holding `addr` in the L1 D or the LLC alone
 * (model_cache_place): caches warmed elsewhere. */
void model_mem_place(model_mem *m, model_mem_level level, uint64_t addr);

/* A load of `size` bytes (at least 1) at `addr` issued at `cycle`. Returns
 * the latency, also in out->latency. */
uint32_t model_mem_load(model_mem *m, uint64_t addr, unsigned size, uint64_t cycle, model_mem_result *out);

/* A store of `size` bytes at `addr` at `cycle` (write-allocate). The latency
 * is the cycles until the line is writable (as for a load); a core with a
 * store buffer may ignore it. */
uint32_t model_mem_store(model_mem *m, uint64_t addr, unsigned size, uint64_t cycle, model_mem_result *out);

/* An instruction fetch of the line holding `pc` at `cycle`. Returns the extra
 * stall cycles (0 for a hit), also in out->latency. */
uint32_t model_mem_fetch(model_mem *m, uint64_t pc, uint64_t cycle, model_mem_result *out);

/* A page walk through the data side of the hierarchy, with the signature of
 * model_tlb_walk_fn (tlb.h) so it can be installed with model_tlb_set_walker(): three
 * dependent 8-byte loads of Sv39 page-table entries of `vaddr`, the first at
 * `cycle`, each at the completion of the previous one. Returns the walk's
 * cycles. The page tables are synthetic: a full radix tree laid out from
 * MODEL_MEM_PAGE_TABLE_BASE, so walks of nearby pages share upper-level entries and
 * hit in the caches. Its loads count in the L1 D and LLC statistics, not
 * in model_mem_stats.loads. `ctx` is the mem. */
uint32_t model_mem_page_walk(void *ctx, uint64_t vaddr, uint64_t cycle);

/* Where the synthetic page tables live (above any Sv39/Sv48 user address). */
#define MODEL_MEM_PAGE_TABLE_BASE 0x4000000000000000ull

const model_mem_stats *model_mem_get_stats(const model_mem *m);

/* Statistics of one cache of the hierarchy. */
const model_cache_stats *model_mem_cache_stats(const model_mem *m, model_mem_level level);

const model_mem_config *model_mem_get_config(const model_mem *m);

#endif
