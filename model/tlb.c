/*
 * tlb.c: L1 I/D TLBs, a shared L2 TLB and page walkers (see tlb.h).
 *
 * The TLBs are caches whose lines are pages. An L1 miss looks up the L2 TLB
 * after l2_latency cycles; an L2 miss takes a walker (an L2 MSHR, waiting for
 * the earliest one when all are busy) and completes when the walk does. The
 * fill info of an L1 line records whether its translation needed a walk, so
 * a secondary L1 miss reports l2_miss correctly.
 */
#include "tlb.h"
#include "common/error.h"

#include <stdlib.h>

/* Fill info bit: the translation came from a page walk. */
#define INFO_WALK 1u

#define DEFAULT_PAGE 4096u
#define DEFAULT_L1_ENTRIES 32u
#define DEFAULT_L2_ENTRIES 1024u
#define DEFAULT_L2_WAYS 4u
#define DEFAULT_L2_LATENCY 4u
#define DEFAULT_WALK_LATENCY 30u
#define DEFAULT_WALKERS 1u
/* Walkers are the L2 TLB's MSHRs. */
#define MAX_WALKERS CACHE_MAX_MSHRS

struct tlb {
    tlb_config cfg;
    cache *l1[2];      /* per tlb_side */
    cache *l2;
    tlb_walk_fn walk;  /* NULL: fixed walk_latency */
    void *walk_ctx;
    tlb_stats stats;
};

void tlb_config_defaults(tlb_config *cfg)
{
    cfg->page_size = DEFAULT_PAGE;
    cfg->itlb_entries = cfg->itlb_ways = DEFAULT_L1_ENTRIES;
    cfg->dtlb_entries = cfg->dtlb_ways = DEFAULT_L1_ENTRIES;
    cfg->l2_entries = DEFAULT_L2_ENTRIES;
    cfg->l2_ways = DEFAULT_L2_WAYS;
    cfg->l2_latency = DEFAULT_L2_LATENCY;
    cfg->walk_latency = DEFAULT_WALK_LATENCY;
    cfg->walkers = DEFAULT_WALKERS;
    cfg->walk_through_memory = 0;
}

/* The cache configuration of a TLB of `entries` pages. */
static cache_config as_cache(const tlb_config *cfg, unsigned entries, unsigned ways, unsigned mshrs)
{
    cache_config c;
    c.size = (uint64_t)entries * cfg->page_size;
    c.ways = ways;
    c.line_size = cfg->page_size;
    c.mshrs = mshrs;
    c.prefetch = 0;
    return c;
}

int tlb_config_check(const tlb_config *cfg)
{
    cache_config c;
    int rc;
    if (cfg->walkers < 1 || cfg->walkers > MAX_WALKERS)
        return tea_error_set(TEA_ERR_USAGE, "tlb: walkers %u outside 1-%u", cfg->walkers, MAX_WALKERS);
    if (cfg->walk_through_memory > 1)
        return tea_error_set(TEA_ERR_USAGE, "tlb: walk_through_memory must be 0 or 1");
    c = as_cache(cfg, cfg->itlb_entries, cfg->itlb_ways, 0);
    if ((rc = cache_config_check(&c, "itlb")))
        return rc;
    c = as_cache(cfg, cfg->dtlb_entries, cfg->dtlb_ways, 0);
    if ((rc = cache_config_check(&c, "dtlb")))
        return rc;
    c = as_cache(cfg, cfg->l2_entries, cfg->l2_ways, cfg->walkers);
    return cache_config_check(&c, "l2tlb");
}

int tlb_create(tlb **out, const tlb_config *cfg)
{
    tlb *t;
    cache_config c;
    int rc = tlb_config_check(cfg);

    *out = NULL;
    if (rc)
        return rc;
    t = calloc(1, sizeof *t);
    if (!t)
        return tea_error_set(TEA_ERR_NOMEM, "tlb: out of memory");
    t->cfg = *cfg;
    c = as_cache(cfg, cfg->itlb_entries, cfg->itlb_ways, 0);
    rc = cache_create(&t->l1[TLB_INST], &c, "itlb");
    if (!rc) {
        c = as_cache(cfg, cfg->dtlb_entries, cfg->dtlb_ways, 0);
        rc = cache_create(&t->l1[TLB_DATA], &c, "dtlb");
    }
    if (!rc) {
        c = as_cache(cfg, cfg->l2_entries, cfg->l2_ways, cfg->walkers);
        rc = cache_create(&t->l2, &c, "l2tlb");
    }
    if (rc) {
        tlb_free(t);
        return rc;
    }
    *out = t;
    return TEA_OK;
}

void tlb_free(tlb *t)
{
    if (!t)
        return;
    cache_free(t->l1[TLB_INST]);
    cache_free(t->l1[TLB_DATA]);
    cache_free(t->l2);
    free(t);
}

void tlb_set_walker(tlb *t, tlb_walk_fn fn, void *ctx)
{
    t->walk = fn;
    t->walk_ctx = ctx;
}

/* Looks up the L2 TLB for an L1 miss that leaves at `start`; returns the
 * cycle the translation reaches the L1 TLB and sets *walked when it needs a
 * walk. */
static uint64_t l2_lookup(tlb *t, uint64_t vaddr, uint64_t start, unsigned *walked)
{
    cache_result r;
    uint64_t known = start + t->cfg.l2_latency; /* the L2 TLB has answered */
    uint64_t walk;

    t->stats.l2_accesses++;
    switch (cache_access(t->l2, vaddr, 0, known, &r)) {
    case CACHE_HIT:
        *walked = 0;
        return known;
    case CACHE_MERGED:
        t->stats.l2_misses++;
        *walked = 1;
        return r.ready;
    default:
        t->stats.l2_misses++;
        t->stats.walks++;
        if (r.miss.start > known)
            t->stats.walker_stalls++;
        walk = t->walk ? t->walk(t->walk_ctx, vaddr, r.miss.start) : t->cfg.walk_latency;
        t->stats.walk_cycles += walk;
        cache_fill(t->l2, &r.miss, r.miss.start + walk, INFO_WALK);
        *walked = 1;
        return r.miss.start + walk;
    }
}

uint32_t tlb_translate(tlb *t, tlb_side side, uint64_t vaddr, uint64_t cycle, tlb_result *out)
{
    cache *l1 = t->l1[side];
    cache_result r;
    uint64_t ready;
    unsigned walked;

    t->stats.accesses[side]++;
    switch (cache_access(l1, vaddr, 0, cycle, &r)) {
    case CACHE_HIT:
        out->latency = 0;
        out->l1_miss = out->l2_miss = 0;
        return 0;
    case CACHE_MERGED:
        ready = r.ready;
        walked = r.fill_info & INFO_WALK;
        break;
    default:
        ready = l2_lookup(t, vaddr, r.miss.start, &walked);
        cache_fill(l1, &r.miss, ready, walked ? INFO_WALK : 0);
        break;
    }
    t->stats.l1_misses[side]++;
    out->l1_miss = 1;
    out->l2_miss = walked != 0;
    out->latency = ready - cycle > UINT32_MAX ? UINT32_MAX : (uint32_t)(ready - cycle);
    return out->latency;
}

const tlb_stats *tlb_get_stats(const tlb *t)
{
    return &t->stats;
}

const tlb_config *tlb_get_config(const tlb *t)
{
    return &t->cfg;
}
