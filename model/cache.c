/*
 * cache.c: set-associative cache with true LRU, MSHRs and a next-line
 * prefetcher (see cache.h).
 *
 * Layout: the tags of all lines sit in one array (set-major, `ways` per set)
 * so a lookup scans one or two host cache lines; LRU stamps, fill cycles and
 * flags sit in parallel arrays touched only for the slot found. True LRU is a
 * per-line stamp from a counter that ticks on every touch: the victim is the
 * line with the smallest stamp (never-used slots have stamp 0 and go first,
 * lowest way on ties). The slot of the last line touched is remembered and
 * checked first, which makes runs of accesses to one line (or one page, in a
 * TLB) a single comparison. Small associative caches also keep a hint table
 * (line hash -> slot last seen there); a hint is only a guess, checked
 * against the tag, so stale hints cost a scan, never a wrong answer.
 */
#include "cache.h"
#include "common/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Tag of an empty slot; line numbers (address >> line bits) never reach it. */
#define INVALID_LINE UINT64_MAX

/* Low nibble of the flags byte; the high nibble holds the fill info. */
#define LINE_DIRTY 0x01u
#define LINE_PREFETCHED 0x02u   /* brought by a prefetch, no demand use yet */
#define LINE_STATE_MASK 0x0fu
#define INFO_SHIFT 4

/* Small associative caches (L1s, TLBs: at least HINT_MIN_WAYS ways, at most
 * HINT_MAX_SLOTS lines) keep a hint table of HINT_PER_SLOT entries per line,
 * so that a hit costs one probe instead of a scan of every way. Large caches
 * do without: the table would crowd the host's caches. */
#define HINT_MIN_WAYS 8u
#define HINT_MAX_SLOTS 8192u
#define HINT_PER_SLOT 4u

#define DEFAULT_SIZE (32u * 1024u)
#define DEFAULT_WAYS 8u
#define DEFAULT_LINE 64u
#define DEFAULT_MSHRS 16u

typedef struct mshr_entry {
    uint64_t line;   /* line number being fetched */
    uint64_t fill;   /* cycle the fill completes: busy while > now (0: never used) */
    uint32_t slot;   /* where the line was installed */
    uint8_t info;    /* fill info (model_cache_fill) */
} mshr_entry;

struct model_cache {
    model_cache_config cfg;
    unsigned line_bits;      /* log2(line_size) */
    unsigned ways;
    uint64_t set_mask;       /* sets - 1 */
    uint64_t *tag;           /* line number per slot, INVALID_LINE when empty */
    uint64_t *stamp;         /* LRU stamp per slot (0: never used) */
    uint64_t *ready;         /* cycle the line's fill completes, MODEL_CACHE_PENDING if unknown */
    uint8_t *flags;          /* LINE_* | info << INFO_SHIFT */
    uint64_t clock;          /* LRU counter */
    uint32_t mru;            /* slot touched last */
    uint32_t *hint;          /* highly associative caches: slot last seen per line hash, or NULL */
    uint32_t hint_mask;      /* hint entries - 1 */
    mshr_entry *mshr;
    unsigned mshr_count;
    unsigned mshr_next;      /* where the search for a free MSHR starts */
    int orphans;             /* an MSHR may be filling a line no longer in the array */
    model_cache_stats stats;
};

static int is_pow2_u64(uint64_t x)
{
    return x && !(x & (x - 1));
}

static unsigned log2_u64(uint64_t x)
{
    unsigned n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

void model_cache_config_defaults(model_cache_config *cfg)
{
    cfg->size = DEFAULT_SIZE;
    cfg->ways = DEFAULT_WAYS;
    cfg->line_size = DEFAULT_LINE;
    cfg->mshrs = DEFAULT_MSHRS;
    cfg->prefetch = 0;
}

int model_cache_config_check(const model_cache_config *cfg, const char *name)
{
    uint64_t set_bytes;
    if (!is_pow2_u64(cfg->line_size))
        return error_set(TEA_ERR_USAGE, "%s: line size %u is not a power of 2", name, cfg->line_size);
    if (cfg->ways < 1 || cfg->ways > MODEL_CACHE_MAX_WAYS)
        return error_set(TEA_ERR_USAGE, "%s: associativity %u outside 1-%u", name, cfg->ways, MODEL_CACHE_MAX_WAYS);
    set_bytes = (uint64_t)cfg->ways * cfg->line_size;
    if (cfg->size == 0 || cfg->size % set_bytes || !is_pow2_u64(cfg->size / set_bytes))
        return error_set(TEA_ERR_USAGE, "%s: size %llu bytes is not a power-of-2 number of sets of %u ways of %u bytes",
                         name, (unsigned long long)cfg->size, cfg->ways, cfg->line_size);
    if (cfg->size / cfg->line_size > MODEL_CACHE_MAX_LINES)
        return error_set(TEA_ERR_USAGE, "%s: %llu lines, at most %llu (e.g. 1 GiB of 64-byte lines)", name,
                         (unsigned long long)(cfg->size / cfg->line_size), (unsigned long long)MODEL_CACHE_MAX_LINES);
    if (cfg->mshrs > MODEL_CACHE_MAX_MSHRS)
        return error_set(TEA_ERR_USAGE, "%s: %u MSHRs, at most %u", name, cfg->mshrs, MODEL_CACHE_MAX_MSHRS);
    if (cfg->prefetch > 1)
        return error_set(TEA_ERR_USAGE, "%s: prefetch must be 0 or 1", name);
    return TEA_OK;
}

int model_cache_create(model_cache **out, const model_cache_config *cfg, const char *name)
{
    model_cache *c;
    uint64_t slots;
    int rc = model_cache_config_check(cfg, name);

    *out = NULL;
    if (rc)
        return rc;
    slots = cfg->size / cfg->line_size;
    c = calloc(1, sizeof *c);
    if (!c)
        return error_set(TEA_ERR_NOMEM, "%s: out of memory", name);
    c->cfg = *cfg;
    c->line_bits = log2_u64(cfg->line_size);
    c->ways = cfg->ways;
    c->set_mask = slots / cfg->ways - 1;
    c->tag = malloc(slots * sizeof *c->tag);
    c->stamp = calloc(slots, sizeof *c->stamp);
    c->ready = calloc(slots, sizeof *c->ready);
    c->flags = calloc(slots, sizeof *c->flags);
    c->mshr_count = cfg->mshrs;
    c->mshr = calloc(cfg->mshrs ? cfg->mshrs : 1, sizeof *c->mshr);
    if (cfg->ways >= HINT_MIN_WAYS && slots <= HINT_MAX_SLOTS) {
        uint64_t n = 1;
        while (n < slots * HINT_PER_SLOT)
            n <<= 1;
        c->hint = calloc(n, sizeof *c->hint); /* slot 0: checked against the tag anyway */
        c->hint_mask = (uint32_t)(n - 1);
    }
    if (!c->tag || !c->stamp || !c->ready || !c->flags || !c->mshr || (cfg->ways >= HINT_MIN_WAYS && slots <= HINT_MAX_SLOTS && !c->hint)) {
        model_cache_free(c);
        return error_set(TEA_ERR_NOMEM, "%s: out of memory", name);
    }
    for (uint64_t i = 0; i < slots; i++)
        c->tag[i] = INVALID_LINE;
    for (unsigned i = 0; i < c->mshr_count; i++)
        c->mshr[i].line = INVALID_LINE;
    *out = c;
    return TEA_OK;
}

void model_cache_free(model_cache *c)
{
    if (!c)
        return;
    free(c->tag);
    free(c->stamp);
    free(c->ready);
    free(c->flags);
    free(c->mshr);
    free(c->hint);
    free(c);
}

/* The hint-table entry of `line`. */
static inline uint32_t hint_index(const model_cache *c, uint64_t line)
{
    return (uint32_t)(line ^ (line >> 16)) & c->hint_mask;
}

/* The slot holding `line`, or -1. Checks the last slot touched first (and
 * the hint table where there is one), then compares every way of the set
 * without an early exit: a fixed trip count and a conditional move, so the
 * host predicts the loop perfectly whichever way hits. */
static inline int64_t find_slot(const model_cache *c, uint64_t line)
{
    uint64_t base;
    const uint64_t *tags;
    int64_t found = -1;
    if (c->tag[c->mru] == line)
        return c->mru;
    if (c->hint) {
        uint32_t h = c->hint[hint_index(c, line)];
        if (c->tag[h] == line)
            return h;
    }
    base = (line & c->set_mask) * c->ways;
    tags = c->tag + base;
    for (unsigned w = 0; w < c->ways; w++)
        found = tags[w] == line ? (int64_t)(base + w) : found;
    return found;
}

/* The LRU slot of the set `line` maps to (empty slots first, lowest way on
 * ties), found without branches on the stamps. */
static uint32_t victim_slot(const model_cache *c, uint64_t line)
{
    uint64_t base = (line & c->set_mask) * c->ways;
    const uint64_t *stamps = c->stamp + base;
    uint64_t best = 0, oldest = stamps[0];
    for (unsigned w = 1; w < c->ways; w++) {
        uint64_t st = stamps[w];
        best = st < oldest ? w : best;
        oldest = st < oldest ? st : oldest;
    }
    return (uint32_t)(base + best);
}

/* Replaces the line in `slot` by `line` (pending, most recently used) at
 * `cycle`, accounting for the victim and reporting it when dirty. */
static void install(model_cache *c, uint32_t slot, uint64_t line, uint8_t state, uint64_t cycle,
                    model_cache_result *out)
{
    uint64_t old = c->tag[slot];

    assert(slot / c->ways == (line & c->set_mask)); /* the line's own set, the only one find_slot scans */
    if (old != INVALID_LINE) {
        uint8_t f = c->flags[slot];
        if (c->ready[slot] > cycle)
            c->orphans = 1; /* its MSHR now fills a line that is gone */
        c->stats.evictions++;
        if (f & LINE_DIRTY) {
            c->stats.writebacks++;
            /* A demand miss and its prefetch evict a line each at most. */
            assert(out->writebacks < sizeof out->writeback_addr / sizeof out->writeback_addr[0]);
            out->writeback_addr[out->writebacks++] = old << c->line_bits;
        }
        if (f & LINE_PREFETCHED)
            c->stats.prefetch_unused++;
    }
    c->tag[slot] = line;
    if (c->hint)
        c->hint[hint_index(c, line)] = slot;
    c->stamp[slot] = ++c->clock;
    c->ready[slot] = MODEL_CACHE_PENDING;
    c->flags[slot] = state;
    c->mru = slot;
}

/* The MSHR with an outstanding fill of `line` (absent from the array) at
 * `cycle`, or -1. Only a line evicted before its fill can be outstanding and
 * absent, so without such orphans there is nothing to scan for; a scan
 * forgets the orphans once all of them have completed. */
static int find_mshr(model_cache *c, uint64_t line, uint64_t cycle)
{
    int found = -1, orphans = 0;
    if (!c->orphans)
        return -1;
    for (unsigned i = 0; i < c->mshr_count; i++) {
        const mshr_entry *e = &c->mshr[i];
        if (e->fill <= cycle)
            continue;
        if (e->line == line)
            found = (int)i;
        if (c->tag[e->slot] != e->line)
            orphans = 1;
    }
    c->orphans = orphans;
    return found;
}

/* An MSHR free at `cycle`, or -1. The search starts after the last one
 * taken, so that MSHRs taken in turn are found at once. */
static int free_mshr(const model_cache *c, uint64_t cycle)
{
    unsigned i = c->mshr_next;
    for (unsigned k = 0; k < c->mshr_count; k++) {
        if (c->mshr[i].fill <= cycle)
            return (int)i;
        if (++i == c->mshr_count)
            i = 0;
    }
    return -1;
}

/* Takes MSHR `idx` for a request of `line` installed in `slot`. */
static void claim_mshr(model_cache *c, int idx, uint64_t line, uint32_t slot)
{
    mshr_entry *e;

    assert(idx >= 0 && (unsigned)idx < c->mshr_count);
    e = &c->mshr[idx];
    e->line = line;
    e->fill = MODEL_CACHE_PENDING;
    e->slot = slot;
    e->info = 0;
    c->mshr_next = (unsigned)idx + 1 == c->mshr_count ? 0 : (unsigned)idx + 1;
}

/* The MSHR that frees first (all are busy). */
static int earliest_mshr(const model_cache *c)
{
    unsigned best = 0;
    for (unsigned i = 1; i < c->mshr_count; i++)
        if (c->mshr[i].fill < c->mshr[best].fill)
            best = i;
    return (int)best;
}

/* Issues the next-line prefetch of `line` for a demand miss leaving at
 * `start` whose line went to `demand_slot`, if the line is absent and an
 * MSHR is free then. */
static void issue_prefetch(model_cache *c, uint64_t line, uint64_t start, uint32_t demand_slot, model_cache_result *out)
{
    int idx = -1;
    uint32_t slot;

    if (find_slot(c, line) >= 0 || find_mshr(c, line, start) >= 0)
        return;
    if (c->mshr_count) {
        idx = free_mshr(c, start);
        if (idx < 0) {
            c->stats.prefetch_dropped++;
            return;
        }
    }
    slot = victim_slot(c, line);
    if (slot == demand_slot) { /* a one-line set: the prefetch would evict the demand line */
        c->stats.prefetch_dropped++;
        return;
    }
    install(c, slot, line, LINE_PREFETCHED, start, out);
    c->mru = demand_slot; /* the demand line is the one likely touched next */
    if (idx >= 0)
        claim_mshr(c, idx, line, slot);
    c->stats.prefetches++;
    out->has_prefetch = 1;
    out->prefetch.addr = line << c->line_bits;
    out->prefetch.start = start;
    out->prefetch.slot = slot;
    out->prefetch.mshr = idx;
}

/* The tag-miss path of model_cache_access: merge into an outstanding MSHR of an
 * evicted line, or allocate a line and an MSHR (waiting for one if all are
 * busy) and possibly a prefetch. */
__attribute__((noinline)) /* keeps the hit path in model_cache_access short */
static model_cache_outcome
access_miss(model_cache *c, uint64_t line, int is_write, uint64_t cycle, model_cache_result *out)
{
    uint8_t state = is_write ? LINE_DIRTY : 0;
    uint64_t start = cycle;
    uint32_t slot;
    int idx = -1;

    if (c->mshr_count) {
        int m = find_mshr(c, line, cycle);
        if (m >= 0) { /* evicted while outstanding: reinstall it, still waiting */
            mshr_entry *e = &c->mshr[m];
            slot = victim_slot(c, line);
            install(c, slot, line, (uint8_t)(state | (e->info << INFO_SHIFT)), cycle, out);
            c->ready[slot] = e->fill;
            e->slot = slot;
            c->stats.merged++;
            out->ready = e->fill;
            out->fill_info = e->info;
            out->outcome = MODEL_CACHE_MERGED;
            return MODEL_CACHE_MERGED;
        }
        idx = free_mshr(c, cycle);
        if (idx < 0) {
            idx = earliest_mshr(c);
            start = c->mshr[idx].fill;
            c->stats.mshr_stalls++;
            c->stats.mshr_stall_cycles += start - cycle;
        }
    }
    slot = victim_slot(c, line);
    install(c, slot, line, state, cycle, out);
    if (idx >= 0)
        claim_mshr(c, idx, line, slot);
    assert(start >= cycle); /* a miss leaves when asked, or when an MSHR frees later */
    c->stats.misses++;
    out->miss.addr = line << c->line_bits;
    out->miss.start = start;
    out->miss.slot = slot;
    out->miss.mshr = idx;
    out->ready = start;
    out->outcome = MODEL_CACHE_MISS;
    if (c->cfg.prefetch)
        issue_prefetch(c, line + 1, start, slot, out);
    return MODEL_CACHE_MISS;
}

model_cache_outcome model_cache_access(model_cache *c, uint64_t addr, int is_write, uint64_t cycle,
                                       model_cache_result *out)
{
    uint64_t line = addr >> c->line_bits;
    int64_t s = find_slot(c, line);

    c->stats.accesses++;
    c->stats.writes += is_write != 0;
    out->writebacks = 0;
    out->has_prefetch = 0;
    out->prefetched = 0;
    out->fill_info = 0;
    if (s >= 0) {
        uint8_t f = c->flags[s];
        c->stamp[s] = ++c->clock;
        c->mru = (uint32_t)s;
        if (c->hint) /* refresh it: a scan may have found the line */
            c->hint[hint_index(c, line)] = (uint32_t)s;
        if (is_write)
            f |= LINE_DIRTY;
        if (f & LINE_PREFETCHED) {
            f &= (uint8_t)~LINE_PREFETCHED;
            out->prefetched = 1;
            c->stats.prefetch_useful++;
            c->stats.prefetch_late += c->ready[s] > cycle;
        }
        c->flags[s] = f;
        if (c->ready[s] <= cycle) {
            c->stats.hits++;
            out->ready = cycle;
            out->outcome = MODEL_CACHE_HIT;
            return MODEL_CACHE_HIT;
        }
        c->stats.merged++;
        out->ready = c->ready[s];
        out->fill_info = f >> INFO_SHIFT;
        out->outcome = MODEL_CACHE_MERGED;
        return MODEL_CACHE_MERGED;
    }
    return access_miss(c, line, is_write, cycle, out);
}

void model_cache_fill(model_cache *c, const model_cache_request *req, uint64_t fill_cycle, unsigned info)
{
    uint64_t line = req->addr >> c->line_bits;
    uint32_t slot = req->slot;

    info &= MODEL_CACHE_INFO_MAX;
    assert(slot <= c->set_mask * c->ways + (c->ways - 1)); /* a slot of this cache's array */
    if (req->mshr >= 0 && (unsigned)req->mshr < c->mshr_count && c->mshr[req->mshr].line == line) {
        mshr_entry *e = &c->mshr[req->mshr];
        e->fill = fill_cycle;
        e->info = (uint8_t)info;
        slot = e->slot; /* it may have been reinstalled elsewhere */
    }
    if (c->tag[slot] == line) {
        c->ready[slot] = fill_cycle;
        c->flags[slot] = (uint8_t)((c->flags[slot] & LINE_STATE_MASK) | (info << INFO_SHIFT));
    }
}

int model_cache_probe(const model_cache *c, uint64_t addr)
{
    return find_slot(c, addr >> c->line_bits) >= 0;
}

int model_cache_writeback(model_cache *c, uint64_t addr)
{
    int64_t s = find_slot(c, addr >> c->line_bits);
    if (s < 0)
        return 0;
    c->flags[s] |= LINE_DIRTY;
    return 1;
}

void model_cache_place(model_cache *c, uint64_t addr)
{
    uint64_t line = addr >> c->line_bits;
    int64_t s = find_slot(c, line);
    uint32_t slot;

    if (s >= 0) {
        slot = (uint32_t)s;
    } else {
        slot = victim_slot(c, line);
        if (c->tag[slot] != INVALID_LINE && c->ready[slot] != 0)
            c->orphans = 1; /* a fill in flight may still name the slot */
    }
    c->tag[slot] = line;
    if (c->hint)
        c->hint[hint_index(c, line)] = slot;
    c->stamp[slot] = ++c->clock;
    c->ready[slot] = 0;
    c->flags[slot] = 0;
    c->mru = slot;
}

void model_cache_settle(model_cache *c)
{
    uint64_t slots = (c->set_mask + 1) * c->ways;
    for (uint64_t i = 0; i < slots; i++)
        if (c->tag[i] != INVALID_LINE)
            c->ready[i] = 0;
    for (unsigned i = 0; i < c->mshr_count; i++) {
        c->mshr[i].line = INVALID_LINE;
        c->mshr[i].fill = 0;
    }
    c->mshr_next = 0;
    c->orphans = 0;
    assert(model_cache_mshrs_busy(c, 0) == 0);
}

unsigned model_cache_mshrs_busy(const model_cache *c, uint64_t cycle)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->mshr_count; i++)
        n += c->mshr[i].fill > cycle;
    return n;
}

const model_cache_stats *model_cache_get_stats(const model_cache *c)
{
    return &c->stats;
}

const model_cache_config *model_cache_get_config(const model_cache *c)
{
    return &c->cfg;
}
