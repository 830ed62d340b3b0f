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

#include <assert.h>
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
#define MAX_WALKERS MODEL_CACHE_MAX_MSHRS

struct model_tlb {
    model_tlb_config cfg;
    model_cache *l1[2]; /* per model_tlb_side */
    model_cache *l2;
    model_tlb_walk_fn walk; /* NULL: fixed walk_latency */
    void *walk_ctx;
    model_tlb_stats stats;
};

void model_tlb_config_defaults(model_tlb_config *cfg)
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
static model_cache_config as_cache(const model_tlb_config *cfg, unsigned entries, unsigned ways, unsigned mshrs)
{
    model_cache_config c;
    c.size = (uint64_t)entries * cfg->page_size;
    c.ways = ways;
    c.line_size = cfg->page_size;
    c.mshrs = mshrs;
    c.prefetch = 0;
    return c;
}

int model_tlb_config_check(const model_tlb_config *cfg)
{
    model_cache_config c;
    int rc;
    if (cfg->walkers < 1 || cfg->walkers > MAX_WALKERS)
        return error_set(TEA_ERR_USAGE, "tlb: walkers %u outside 1-%u", cfg->walkers, MAX_WALKERS);
    if (cfg->walk_through_memory > 1)
        return error_set(TEA_ERR_USAGE, "tlb: walk_through_memory must be 0 or 1");
    c = as_cache(cfg, cfg->itlb_entries, cfg->itlb_ways, 0);
    if ((rc = model_cache_config_check(&c, "itlb")))
        return rc;
    c = as_cache(cfg, cfg->dtlb_entries, cfg->dtlb_ways, 0);
    if ((rc = model_cache_config_check(&c, "dtlb")))
        return rc;
    c = as_cache(cfg, cfg->l2_entries, cfg->l2_ways, cfg->walkers);
    return model_cache_config_check(&c, "l2tlb");
}

int model_tlb_create(model_tlb **out, const model_tlb_config *cfg)
{
    model_tlb *t;
    model_cache_config c;
    int rc = model_tlb_config_check(cfg);

    *out = NULL;
    if (rc)
        return rc;
    t = calloc(1, sizeof *t);
    if (!t)
        return error_set(TEA_ERR_NOMEM, "tlb: out of memory");
    t->cfg = *cfg;
    c = as_cache(cfg, cfg->itlb_entries, cfg->itlb_ways, 0);
    rc = model_cache_create(&t->l1[MODEL_TLB_INST], &c, "itlb");
    if (!rc) {
        c = as_cache(cfg, cfg->dtlb_entries, cfg->dtlb_ways, 0);
        rc = model_cache_create(&t->l1[MODEL_TLB_DATA], &c, "dtlb");
    }
    if (!rc) {
        c = as_cache(cfg, cfg->l2_entries, cfg->l2_ways, cfg->walkers);
        rc = model_cache_create(&t->l2, &c, "l2tlb");
    }
    if (rc) {
        model_tlb_free(t);
        return rc;
    }
    *out = t;
    return TEA_OK;
}

void model_tlb_settle(model_tlb *t)
{
    model_cache_settle(t->l1[0]);
    model_cache_settle(t->l1[1]);
    model_cache_settle(t->l2);
}

void model_tlb_free(model_tlb *t)
{
    if (!t)
        return;
    model_cache_free(t->l1[MODEL_TLB_INST]);
    model_cache_free(t->l1[MODEL_TLB_DATA]);
    model_cache_free(t->l2);
    free(t);
}

void model_tlb_set_walker(model_tlb *t, model_tlb_walk_fn fn, void *ctx)
{
    t->walk = fn;
    t->walk_ctx = ctx;
}

/* Looks up the L2 TLB for an L1 miss that leaves at `start`; returns the
 * cycle the translation reaches the L1 TLB and sets *walked when it needs a
 * walk. */
static uint64_t l2_lookup(model_tlb *t, uint64_t vaddr, uint64_t start, unsigned *walked)
{
    model_cache_result r;
    uint64_t known = start + t->cfg.l2_latency; /* the L2 TLB has answered */
    uint64_t walk;

    t->stats.l2_accesses++;
    switch (model_cache_access(t->l2, vaddr, 0, known, &r)) {
    case MODEL_CACHE_HIT: *walked = 0; return known;
    case MODEL_CACHE_MERGED:
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
        model_cache_fill(t->l2, &r.miss, r.miss.start + walk, INFO_WALK);
        *walked = 1;
        return r.miss.start + walk;
    }
}

uint32_t model_tlb_translate(model_tlb *t, model_tlb_side side, uint64_t vaddr, uint64_t cycle, model_tlb_result *out)
{
    model_cache *l1;
    model_cache_result r;
    uint64_t ready;
    unsigned walked;

    assert(side == MODEL_TLB_INST || side == MODEL_TLB_DATA);
    l1 = t->l1[side];
    t->stats.accesses[side]++;
    switch (model_cache_access(l1, vaddr, 0, cycle, &r)) {
    case MODEL_CACHE_HIT:
        out->latency = 0;
        out->l1_miss = out->l2_miss = 0;
        return 0;
    case MODEL_CACHE_MERGED:
        ready = r.ready;
        walked = r.fill_info & INFO_WALK;
        break;
    default:
        ready = l2_lookup(t, vaddr, r.miss.start, &walked);
        model_cache_fill(l1, &r.miss, ready, walked ? INFO_WALK : 0);
        break;
    }
    assert(ready >= cycle); /* a translation is not ready before it is asked for */
    t->stats.l1_misses[side]++;
    out->l1_miss = 1;
    out->l2_miss = walked != 0;
    out->latency = ready - cycle > UINT32_MAX ? UINT32_MAX : (uint32_t)(ready - cycle);
    return out->latency;
}

const model_tlb_stats *model_tlb_get_stats(const model_tlb *t)
{
    return &t->stats;
}

const model_tlb_config *model_tlb_get_config(const model_tlb *t)
{
    return &t->cfg;
}
