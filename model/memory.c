/*
 * memory.c: L1 I, L1 D, shared LLC and DRAM (see memory.h).
 *
 * Each L1 line access is one model_cache_access(); a primary miss (and its
 * prefetch) is sent to the LLC at the cycle its L1 MSHR lets it leave, and
 * the LLC's answer completes the L1 request with model_cache_fill(). The L1 keeps
 * "came from DRAM" as the fill info, so a secondary miss knows whether it
 * waits for DRAM.
 */
#include "memory.h"
#include "common/error.h"

#include <assert.h>
#include <stdlib.h>

/* Fill info bit: the line came from DRAM. */
#define INFO_DRAM 1u

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

#define DEFAULT_L1_SIZE (32 * KIB)
#define DEFAULT_L1_WAYS 8
#define DEFAULT_L1_MSHRS 16
#define DEFAULT_LLC_SIZE (2 * MIB)
#define DEFAULT_LLC_WAYS 16
#define DEFAULT_LLC_MSHRS 32
#define DEFAULT_LINE 64
#define DEFAULT_L1I_LATENCY 0
#define DEFAULT_L1D_LATENCY 4
#define DEFAULT_LLC_LATENCY 20
#define DEFAULT_DRAM_LATENCY 180

/* Sv39 page walks: levels, entries per table, bytes per entry and table. */
#define WALK_LEVELS 3
#define PTE_BITS 9
#define PTE_BYTES 8u
#define PT_PAGE_BYTES 4096ull
#define PT_PAGE_SHIFT 12
#define PTE_INDEX_MASK ((1ull << PTE_BITS) - 1)

struct model_mem {
    model_mem_config cfg;
    model_cache *l1i, *l1d, *llc;
    uint64_t line_mask;      /* ~(line_size - 1) */
    model_mem_stats stats;
};

/* Flags gathered over the lines of one access. */
typedef struct access_flags {
    uint8_t miss;     /* some line was not filled in the L1 */
    uint8_t primary;  /* some line was a primary L1 miss */
    uint8_t dram;     /* some line comes from DRAM */
} access_flags;

void model_mem_config_defaults(model_mem_config *cfg)
{
    cfg->l1i.size = DEFAULT_L1_SIZE;
    cfg->l1i.ways = DEFAULT_L1_WAYS;
    cfg->l1i.line_size = DEFAULT_LINE;
    cfg->l1i.mshrs = DEFAULT_L1_MSHRS;
    cfg->l1i.prefetch = 1;
    cfg->l1d = cfg->l1i;
    cfg->llc.size = DEFAULT_LLC_SIZE;
    cfg->llc.ways = DEFAULT_LLC_WAYS;
    cfg->llc.line_size = DEFAULT_LINE;
    cfg->llc.mshrs = DEFAULT_LLC_MSHRS;
    cfg->llc.prefetch = 0;
    cfg->l1i_latency = DEFAULT_L1I_LATENCY;
    cfg->l1d_latency = DEFAULT_L1D_LATENCY;
    cfg->llc_latency = DEFAULT_LLC_LATENCY;
    cfg->dram_latency = DEFAULT_DRAM_LATENCY;
}

int model_mem_config_check(const model_mem_config *cfg)
{
    int rc;
    if ((rc = model_cache_config_check(&cfg->l1i, "l1i")) || (rc = model_cache_config_check(&cfg->l1d, "l1d"))
        || (rc = model_cache_config_check(&cfg->llc, "llc")))
        return rc;
    if (cfg->l1i.line_size != cfg->llc.line_size || cfg->l1d.line_size != cfg->llc.line_size)
        return error_set(TEA_ERR_USAGE, "l1i, l1d and llc line sizes must be equal (%u, %u, %u)", cfg->l1i.line_size,
                         cfg->l1d.line_size, cfg->llc.line_size);
    return TEA_OK;
}

int model_mem_create(model_mem **out, const model_mem_config *cfg)
{
    model_mem *m;
    int rc = model_mem_config_check(cfg);

    *out = NULL;
    if (rc)
        return rc;
    m = calloc(1, sizeof *m);
    if (!m)
        return error_set(TEA_ERR_NOMEM, "memory hierarchy: out of memory");
    m->cfg = *cfg;
    m->line_mask = ~(uint64_t)(cfg->l1d.line_size - 1);
    if ((rc = model_cache_create(&m->l1i, &cfg->l1i, "l1i")) || (rc = model_cache_create(&m->l1d, &cfg->l1d, "l1d"))
        || (rc = model_cache_create(&m->llc, &cfg->llc, "llc"))) {
        model_mem_free(m);
        return rc;
    }
    *out = m;
    return TEA_OK;
}

void model_mem_settle(model_mem *m)
{
    model_cache_settle(m->l1i);
    model_cache_settle(m->l1d);
    model_cache_settle(m->llc);
}

void model_mem_place(model_mem *m, model_mem_level level, uint64_t addr)
{
    assert(level == MODEL_MEM_L1D || level == MODEL_MEM_LLC);
    model_cache_place(level == MODEL_MEM_L1D ? m->l1d : m->llc, addr);
}

void model_mem_free(model_mem *m)
{
    if (!m)
        return;
    model_cache_free(m->l1i);
    model_cache_free(m->l1d);
    model_cache_free(m->llc);
    free(m);
}

/* Dirty LLC victims go to DRAM. */
static void llc_writebacks(model_mem *m, const model_cache_result *r)
{
    m->stats.dram_writes += r->writebacks;
}

/* Dirty L1 victims update the LLC's copy, or go to DRAM without one. */
static void l1_writebacks(model_mem *m, const model_cache_result *r)
{
    for (unsigned i = 0; i < r->writebacks; i++)
        if (!model_cache_writeback(m->llc, r->writeback_addr[i]))
            m->stats.dram_writes++;
}

/* Sends an L1 request for the line at `addr` to the LLC at `start`; returns
 * the cycle the line reaches the L1 and sets *dram when it comes from DRAM. */
static uint64_t llc_request(model_mem *m, uint64_t addr, uint64_t start, unsigned *dram)
{
    model_cache_result r;
    uint64_t at_l1 = start + m->cfg.llc_latency;
    uint64_t fill;

    switch (model_cache_access(m->llc, addr, 0, start, &r)) {
    case MODEL_CACHE_HIT: *dram = 0; return at_l1;
    case MODEL_CACHE_MERGED:
        *dram = 1; /* LLC fills come from DRAM */
        return r.ready > at_l1 ? r.ready : at_l1;
    default:
        llc_writebacks(m, &r);
        assert(r.miss.start >= start); /* the LLC's miss leaves no earlier than the request arrives */
        fill = r.miss.start + m->cfg.llc_latency + m->cfg.dram_latency;
        model_cache_fill(m->llc, &r.miss, fill, INFO_DRAM);
        m->stats.dram_reads++;
        if (r.has_prefetch) {
            model_cache_fill(m->llc, &r.prefetch, r.prefetch.start + m->cfg.llc_latency + m->cfg.dram_latency,
                             INFO_DRAM);
            m->stats.dram_reads++;
        }
        *dram = 1;
        return fill;
    }
}

/* The rest of an L1 access that did not hit (r: its result): a secondary
 * miss waits for its fill; a primary miss (and its prefetch) goes to the
 * LLC. Returns the cycle the line is available and accumulates the flags. */
__attribute__((noinline)) /* keeps the hit path of l1_line short */
static uint64_t
l1_not_hit(model_mem *m, model_cache *l1, const model_cache_result *r, access_flags *f)
{
    uint64_t fill;
    unsigned dram;

    f->miss = 1;
    if (r->outcome == MODEL_CACHE_MERGED) {
        f->dram |= (r->fill_info & INFO_DRAM) != 0;
        return r->ready;
    }
    l1_writebacks(m, r);
    f->primary = 1;
    fill = llc_request(m, r->miss.addr, r->miss.start, &dram);
    assert(fill >= r->miss.start); /* a line arrives after it is asked for */
    model_cache_fill(l1, &r->miss, fill, dram ? INFO_DRAM : 0);
    f->dram |= (uint8_t)dram;
    if (r->has_prefetch) {
        uint64_t pfill = llc_request(m, r->prefetch.addr, r->prefetch.start, &dram);
        assert(pfill >= r->prefetch.start); /* so does the prefetched one */
        model_cache_fill(l1, &r->prefetch, pfill, dram ? INFO_DRAM : 0);
    }
    return fill;
}

/* One L1 line access at `cycle`; returns the cycle the line is available in
 * the L1 and accumulates the flags. */
static inline uint64_t l1_line(model_mem *m, model_cache *l1, uint64_t addr, int is_write, uint64_t cycle,
                               access_flags *f)
{
    model_cache_result r;
    if (model_cache_access(l1, addr, is_write, cycle, &r) == MODEL_CACHE_HIT)
        return cycle;
    return l1_not_hit(m, l1, &r, f);
}

/* The lines after the first of an access that straddles lines: accesses
 * each of (first, last] at `cycle`; returns the latest availability, at
 * least `avail`. */
static uint64_t l1_rest(model_mem *m, model_cache *l1, uint64_t first, uint64_t last, int is_write, uint64_t cycle,
                        uint64_t avail, access_flags *f)
{
    uint64_t line_size = ~m->line_mask + 1;
    m->stats.straddles++;
    for (uint64_t a = first + line_size; a <= last && a != 0; a += line_size) {
        uint64_t t = l1_line(m, l1, a, is_write, cycle, f);
        if (t > avail)
            avail = t;
    }
    return avail;
}

/* Accesses every line of [addr, addr + size) at `cycle`; returns the cycle
 * the last of them is available. */
static inline uint64_t l1_range(model_mem *m, model_cache *l1, uint64_t addr, unsigned size, int is_write,
                                uint64_t cycle, access_flags *f)
{
    uint64_t first = addr & m->line_mask;
    uint64_t last = (addr + (size ? size - 1 : 0)) & m->line_mask;
    uint64_t avail = l1_line(m, l1, addr, is_write, cycle, f);

    if (__builtin_expect(last != first, 0))
        avail = l1_rest(m, l1, first, last, is_write, cycle, avail, f);
    return avail;
}

/* Fills *out from the availability cycle and the flags. */
static uint32_t finish(uint64_t avail, uint64_t cycle, unsigned base_latency, const access_flags *f,
                       model_mem_result *out)
{
    uint64_t wait = avail > cycle ? avail - cycle : 0;
    uint64_t latency = wait + base_latency;
    out->latency = latency > UINT32_MAX ? UINT32_MAX : (uint32_t)latency;
    out->l1_miss = f->miss;
    out->l1_merged = f->miss && !f->primary;
    out->llc_miss = f->dram;
    return out->latency;
}

uint32_t model_mem_load(model_mem *m, uint64_t addr, unsigned size, uint64_t cycle, model_mem_result *out)
{
    access_flags f = { 0, 0, 0 };
    uint64_t avail = l1_range(m, m->l1d, addr, size, 0, cycle, &f);
    m->stats.loads++;
    return finish(avail, cycle, m->cfg.l1d_latency, &f, out);
}

uint32_t model_mem_store(model_mem *m, uint64_t addr, unsigned size, uint64_t cycle, model_mem_result *out)
{
    access_flags f = { 0, 0, 0 };
    uint64_t avail = l1_range(m, m->l1d, addr, size, 1, cycle, &f);
    m->stats.stores++;
    return finish(avail, cycle, m->cfg.l1d_latency, &f, out);
}

uint32_t model_mem_fetch(model_mem *m, uint64_t pc, uint64_t cycle, model_mem_result *out)
{
    access_flags f = { 0, 0, 0 };
    uint64_t avail = l1_line(m, m->l1i, pc, 0, cycle, &f);
    m->stats.fetches++;
    return finish(avail, cycle, m->cfg.l1i_latency, &f, out);
}

/* The address of the page-table entry that translates `vaddr` at `level`
 * (0: root) in the synthetic radix tree: the root table is page 0, the
 * level-1 tables follow (one per root entry), then the level-2 tables. */
static uint64_t pte_address(uint64_t vaddr, unsigned level)
{
    uint64_t vpn2 = (vaddr >> (PT_PAGE_SHIFT + 2 * PTE_BITS)) & PTE_INDEX_MASK;
    uint64_t vpn1 = (vaddr >> (PT_PAGE_SHIFT + PTE_BITS)) & PTE_INDEX_MASK;
    uint64_t vpn0 = (vaddr >> PT_PAGE_SHIFT) & PTE_INDEX_MASK;
    uint64_t table, index;

    assert(level < WALK_LEVELS);
    switch (level) {
    case 0:
        table = 0;
        index = vpn2;
        break;
    case 1:
        table = 1 + vpn2;
        index = vpn1;
        break;
    default:
        table = 1 + (1ull << PTE_BITS) + (vpn2 << PTE_BITS) + vpn1;
        index = vpn0;
        break;
    }
    return MODEL_MEM_PAGE_TABLE_BASE + table * PT_PAGE_BYTES + index * PTE_BYTES;
}

uint32_t model_mem_page_walk(void *ctx, uint64_t vaddr, uint64_t cycle)
{
    model_mem *m = ctx;
    uint64_t t = cycle;

    m->stats.walks++;
    for (unsigned level = 0; level < WALK_LEVELS; level++) {
        access_flags f = { 0, 0, 0 };
        model_mem_result r;
        uint64_t avail = l1_line(m, m->l1d, pte_address(vaddr, level), 0, t, &f);
        t += finish(avail, t, m->cfg.l1d_latency, &f, &r);
    }
    return t - cycle > UINT32_MAX ? UINT32_MAX : (uint32_t)(t - cycle);
}

const model_mem_stats *model_mem_get_stats(const model_mem *m)
{
    return &m->stats;
}

const model_cache_stats *model_mem_cache_stats(const model_mem *m, model_mem_level level)
{
    switch (level) {
    case MODEL_MEM_L1I: return model_cache_get_stats(m->l1i);
    case MODEL_MEM_L1D: return model_cache_get_stats(m->l1d);
    default: return model_cache_get_stats(m->llc);
    }
}

const model_mem_config *model_mem_get_config(const model_mem *m)
{
    return &m->cfg;
}
