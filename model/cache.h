/*
 * cache.h: a set-associative cache with true LRU replacement, miss status
 * holding registers (MSHRs) and an optional next-line prefetcher.
 *
 * Internal to model/: the core's parts, which core.h puts together (the
 * tests use them too).
 *
 * The cache keeps tags and timing, not data. Each line carries the cycle its
 * fill completes, so a line that was requested but has not arrived yet is
 * present with a future `ready` cycle; an access to it is a secondary miss
 * that merges into the outstanding request.
 *
 * A primary miss is handled in two steps, because only the caller knows the
 * next level: model_cache_access() picks the victim, allocates an MSHR and returns
 * the cycle at which the request may leave (later than the access when every
 * MSHR is busy: it waits for the earliest fill); the caller asks the next
 * level and completes the request with model_cache_fill(), giving the cycle the
 * line arrives. Until then the line is pending (ready = MODEL_CACHE_PENDING).
 *
 * MSHRs: `mshrs` entries, each busy from its allocation until its fill cycle.
 * mshrs = 0 means unbounded (no MSHR accounting). Exact MSHR timing assumes
 * accesses arrive in non-decreasing cycle order; an access from the past
 * (an earlier cycle than one already seen) finds every MSHR whose fill lies
 * after its cycle busy, even one allocated later: conservative, never
 * optimistic.
 *
 * Next-line prefetcher (option): on a primary demand miss of line L, line L+1
 * is requested too unless it is present or outstanding. A prefetch uses an
 * MSHR of the same pool, but only one that is free when the demand request
 * leaves: it never waits and never delays a demand miss, and is dropped when
 * none is free. It is completed with model_cache_fill() like a demand miss. Lines
 * brought by a prefetch are inserted as most recently used.
 *
 * Writes: write-back, write-allocate. Evicting a dirty line reports a
 * writeback (the caller decides what it costs).
 *
 * Not thread safe; no allocation after model_cache_create().
 */
#ifndef TEA_MODEL_CACHE_H
#define TEA_MODEL_CACHE_H

#include <stdint.h>

/* `ready` of a line whose fill cycle is not known yet. */
#define MODEL_CACHE_PENDING UINT64_MAX
/* Fill-info values are 4 bits, stored with the line for the caller. */
#define MODEL_CACHE_INFO_MAX 15u
/* Maximum associativity. */
#define MODEL_CACHE_MAX_WAYS 64u
/* Maximum MSHRs. */
#define MODEL_CACHE_MAX_MSHRS 256u
/* Most lines a modelled cache may have: 2^24 (a 1 GiB cache of 64-byte
 * lines), about 400 MB of model state, all allocated up front. */
#define MODEL_CACHE_MAX_LINES (1ull << 24)

typedef struct model_cache_config {
    uint64_t size;        /* capacity in bytes: sets * ways * line_size, sets a power of 2 */
    unsigned ways;        /* associativity (entries per set), 1 to MODEL_CACHE_MAX_WAYS */
    unsigned line_size;   /* bytes per line, a power of 2 */
    unsigned mshrs;       /* outstanding primary misses (entries); 0 = unbounded */
    unsigned prefetch;    /* 1: next-line prefetcher on demand misses */
} model_cache_config;

/* Fills `cfg` with a 32 KiB, 8-way, 64 B-line cache with 16 MSHRs and no
 * prefetcher. */
void model_cache_config_defaults(model_cache_config *cfg);

/* Checks a configuration; TEA_ERR_USAGE naming `name` (e.g. "l1d") and the
 * problem when inconsistent. */
int model_cache_config_check(const model_cache_config *cfg, const char *name);

typedef enum model_cache_outcome {
    MODEL_CACHE_HIT = 0, /* present and filled by `cycle` */
    MODEL_CACHE_MERGED,  /* secondary miss: waits for an outstanding fill */
    MODEL_CACHE_MISS     /* primary miss: a new request to the next level */
} model_cache_outcome;

/* A request to the next level, to be completed with model_cache_fill(). */
typedef struct model_cache_request {
    uint64_t addr;        /* line address (byte address of the line's first byte) */
    uint64_t start;       /* cycle the request may leave (after any MSHR wait) */
    uint32_t slot;        /* internal: the line's slot */
    int32_t mshr;         /* internal: its MSHR, -1 when unbounded */
} model_cache_request;

typedef struct model_cache_result {
    uint64_t ready;       /* hit: the access cycle; merged: the fill cycle waited for;
                             miss: miss.start */
    model_cache_request miss;     /* MODEL_CACHE_MISS: the demand request */
    model_cache_request prefetch; /* has_prefetch: the next-line prefetch */
    uint64_t writeback_addr[2]; /* line addresses of dirty victims (demand, prefetch) */
    uint8_t outcome;            /* model_cache_outcome */
    uint8_t has_prefetch; /* a prefetch was issued and must be completed */
    uint8_t writebacks;   /* dirty victims evicted (0-2), in writeback_addr */
    uint8_t prefetched;   /* first demand use of a line a prefetch brought */
    uint8_t fill_info;    /* merged: the info given to model_cache_fill for that line */
} model_cache_result;

typedef struct model_cache_stats {
    uint64_t accesses;         /* demand accesses */
    uint64_t writes;           /* of which writes */
    uint64_t hits;             /* line present and filled */
    uint64_t misses;           /* primary misses (requests to the next level) */
    uint64_t merged;           /* secondary misses (no new request) */
    uint64_t mshr_stalls;      /* primary misses that waited for a free MSHR */
    uint64_t mshr_stall_cycles; /* cycles they waited, summed */
    uint64_t prefetches;       /* prefetch requests issued */
    uint64_t prefetch_dropped; /* prefetches not issued: no free MSHR */
    uint64_t prefetch_useful;  /* prefetched lines later used by a demand access */
    uint64_t prefetch_late;    /* of those, used before their fill (merged) */
    uint64_t prefetch_unused;  /* prefetched lines evicted without a demand use */
    uint64_t evictions;        /* valid lines replaced */
    uint64_t writebacks;       /* dirty lines replaced */
} model_cache_stats;

typedef struct model_cache model_cache;

/* Creates an empty cache. TEA_ERR_USAGE for a bad configuration (message
 * names `name`), TEA_ERR_NOMEM. */
int model_cache_create(model_cache **out, const model_cache_config *cfg, const char *name);

void model_cache_free(model_cache *c);

/* A demand access of the byte at `addr` at `cycle`; updates LRU, dirty bits
 * and statistics and fills *out. On MODEL_CACHE_MISS the caller must complete
 * out->miss (and out->prefetch when has_prefetch) with model_cache_fill(). */
model_cache_outcome model_cache_access(model_cache *c, uint64_t addr, int is_write, uint64_t cycle,
                                       model_cache_result *out);

/* Completes a request: its line arrives at `fill_cycle` (frees the MSHR from
 * then on). `info` (0 to MODEL_CACHE_INFO_MAX) is kept with the line and handed to
 * accesses that merge into this fill (e.g. "came from DRAM"). A line evicted
 * before its fill is left alone; the MSHR still completes. */
void model_cache_fill(model_cache *c, const model_cache_request *req, uint64_t fill_cycle, unsigned info);

/* 1 when the line holding `addr` is present (filled or pending); no side
 * effects. */
int model_cache_probe(const model_cache *c, uint64_t addr);

/* A dirty line written back from the level above: marks the line holding
 * `addr` dirty and returns 1 when present; returns 0 (nothing changes) when
 * absent. Does not touch LRU or statistics. */
int model_cache_writeback(model_cache *c, uint64_t addr);

/* Makes the line holding `addr` present, filled (ready at cycle 0) and
 * most recently used, as a warm-up's access would leave it but without a
 * prefetch, a dirty bit, a prefetched mark or statistics (a dirty victim
 * is dropped: its writeback costs no time); a line already present is
 * reset the same way.
 * For caches warmed elsewhere (tea record --warm-caches): placing a set's
 * lines least recently used first rebuilds its LRU order. */
void model_cache_place(model_cache *c, uint64_t addr);

/* Ends every fill and request in flight: each line present is filled (ready
 * at cycle 0) and every MSHR free, contents, LRU order and statistics kept.
 * After a warm-up (model_core_warm, whose accesses all happen at cycle 0
 * and so queue behind one another far into the future), this leaves the
 * cache as if the warm-up had run long before the timed region. */
void model_cache_settle(model_cache *c);

/* MSHRs busy at `cycle` (0 when unbounded). */
unsigned model_cache_mshrs_busy(const model_cache *c, uint64_t cycle);

const model_cache_stats *model_cache_get_stats(const model_cache *c);

/* The configuration the cache was created with. */
const model_cache_config *model_cache_get_config(const model_cache *c);

#endif
