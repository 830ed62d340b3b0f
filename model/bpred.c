/*
 * bpred.c: gshare and TAGE direction predictors, BTB and RAS (see bpred.h).
 *
 * model_bpred_predict() computes everything model_bpred_update() needs (table indices,
 * tags, provider) and keeps it; model_bpred_update() reuses it when it is for the
 * same instruction and recomputes it otherwise, so each branch costs one
 * lookup. TAGE keeps its long histories as circular-shift-register folds
 * (one per table for the index, two for the tag), updated in O(1) per
 * conditional branch from a ring buffer of past outcomes.
 */
#include "bpred.h"
#include "common/error.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GSHARE_LOG 14
#define DEFAULT_GSHARE_HISTORY 14
#define DEFAULT_BIMODAL_LOG 13
#define DEFAULT_TAGE_TABLES 6
#define DEFAULT_TAGE_LOG 10
#define DEFAULT_TAGE_TAG_BITS 9
#define DEFAULT_TAGE_MIN_HISTORY 4
#define DEFAULT_TAGE_MAX_HISTORY 64
#define DEFAULT_BTB_ENTRIES 2048
#define DEFAULT_BTB_WAYS 4
#define DEFAULT_RAS_ENTRIES 32

#define MAX_LOG_SIZE 24          /* largest table: 2^24 entries */
#define MAX_TAGE_LOG_SIZE 20
#define MIN_TAG_BITS 4
#define MAX_TAG_BITS 16
#define MAX_GSHARE_HISTORY 64
#define MAX_BTB_WAYS 64
#define MAX_RAS_ENTRIES 4096

#define DEFAULT_INSN_BYTES 4     /* fall-through distance when the kind carries no size */

/* 2-bit counters: 0-1 predict not taken, 2-3 taken; tables start weakly not taken. */
#define CTR2_MAX 3
#define CTR2_TAKEN 2
#define CTR2_INIT 1
/* TAGE tagged counters: 3-bit signed, >= 0 predicts taken. */
#define CTR3_MIN (-4)
#define CTR3_MAX 3
#define U_MAX 3                  /* 2-bit usefulness */
#define U_RESET_PERIOD (1u << 18) /* updates between halvings of every u */
#define USE_ALT_MIN (-8)         /* 4-bit signed use-alternate-on-weak counter */
#define USE_ALT_MAX 7
#define HIST_RING 1024 /* past outcomes kept: > MODEL_BPRED_MAX_HISTORY, a power of 2 */
#define BISECTION_STEPS 100
#define LFSR_SEED_MIX 0x9e3779b97f4a7c15ull

typedef struct tage_entry {
    uint16_t tag;
    int8_t ctr;      /* 3-bit signed direction counter */
    uint8_t u;       /* usefulness */
} tage_entry;

/* Each TAGE table folds its history by XOR three ways: into the index
 * width (fold 0), the tag width (1) and one bit less (2). The three share
 * a word, fold k at bit FOLD_SHIFT * k with a zero bit above it, so that
 * one push updates all three (push_history). */
#define FOLDS 3
#define FOLD_SHIFT 21 /* > the widest fold: MAX_TAGE_LOG_SIZE */
#define FOLD_BASES (1ull | 1ull << FOLD_SHIFT | 1ull << 2 * FOLD_SHIFT) /* each fold's bit 0 */

/* What a lookup found, kept from predict to update. */
typedef struct lookup {
    uint64_t pc;
    unsigned kind;
    int valid;
    model_bpred_prediction pred;
    uint32_t gshare_index;
    uint32_t bimodal_index;
    uint32_t index[MODEL_BPRED_TAGE_MAX_TABLES];
    uint16_t tag[MODEL_BPRED_TAGE_MAX_TABLES];
    int provider;            /* tagged table that hit, longest first; -1: none */
    int alt;                 /* next one that hit; -1: bimodal */
    uint8_t provider_taken, alt_taken, direction;
    int32_t btb_slot;        /* -1: BTB miss */
} lookup;

struct model_bpred {
    model_bpred_config cfg;
    /* gshare */
    uint8_t *gshare;
    uint32_t gshare_mask;
    uint64_t ghist;          /* newest outcome in bit 0 */
    uint64_t ghist_mask;
    /* TAGE */
    uint8_t *bimodal;
    uint32_t bimodal_mask;
    tage_entry *tables;      /* tage_tables blocks of 2^tage_log_size */
    uint32_t table_mask;
    uint16_t tag_mask;
    unsigned history[MODEL_BPRED_TAGE_MAX_TABLES]; /* history length per table */
    uint64_t folds[MODEL_BPRED_TAGE_MAX_TABLES];    /* the three folds of each table (FOLDS) */
    uint64_t fold_out[MODEL_BPRED_TAGE_MAX_TABLES]; /* where the outcome leaving each fold's window
                                                       sits: bit length % width of each fold */
    uint64_t fold_guards;           /* the bit above each fold: bit width of each */
    unsigned fold_width[FOLDS];     /* bits */
    uint32_t fold_mask[FOLDS];      /* (1 << width) - 1 */
    uint8_t ring[HIST_RING]; /* past conditional outcomes, ring[ring_pos] newest */
    unsigned ring_pos;
    int use_alt;
    uint32_t updates;        /* since the last usefulness halving */
    uint64_t lfsr;
    /* BTB */
    uint64_t *btb_tag;       /* PC of the branch (valid when its stamp is non-zero) */
    uint64_t *btb_target;
    uint64_t *btb_stamp;     /* LRU stamps, 0: empty */
    uint64_t btb_clock;
    uint32_t btb_set_mask;
    unsigned btb_set_bits;   /* log2(sets) */
    unsigned btb_ways;
    /* RAS */
    uint64_t *ras;
    unsigned ras_top, ras_count;
    lookup last;
    model_bpred_stats stats;
};

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* The model_bpred_kind of a kind argument; unknown values count as indirect jumps. */
static unsigned kind_of(unsigned kind)
{
    unsigned k = kind & MODEL_BPRED_KIND_MASK;
    return k < MODEL_BPRED_KIND_COUNT ? k : MODEL_BPRED_INDIRECT;
}

/* The address after the instruction at `pc` (see MODEL_BPRED_SIZED). */
static uint64_t fall_through(uint64_t pc, unsigned kind)
{
    unsigned size = kind >> MODEL_BPRED_SIZE_SHIFT;
    return pc + (size ? size : DEFAULT_INSN_BYTES);
}

void model_bpred_config_defaults(model_bpred_config *cfg)
{
    cfg->predictor = MODEL_BPRED_TAGE;
    cfg->gshare_log_size = DEFAULT_GSHARE_LOG;
    cfg->gshare_history = DEFAULT_GSHARE_HISTORY;
    cfg->bimodal_log_size = DEFAULT_BIMODAL_LOG;
    cfg->tage_tables = DEFAULT_TAGE_TABLES;
    cfg->tage_log_size = DEFAULT_TAGE_LOG;
    cfg->tage_tag_bits = DEFAULT_TAGE_TAG_BITS;
    cfg->tage_min_history = DEFAULT_TAGE_MIN_HISTORY;
    cfg->tage_max_history = DEFAULT_TAGE_MAX_HISTORY;
    cfg->btb_entries = DEFAULT_BTB_ENTRIES;
    cfg->btb_ways = DEFAULT_BTB_WAYS;
    cfg->ras_entries = DEFAULT_RAS_ENTRIES;
    cfg->seed = 0;
}

int model_bpred_config_check(const model_bpred_config *cfg)
{
    if (cfg->predictor != MODEL_BPRED_GSHARE && cfg->predictor != MODEL_BPRED_TAGE)
        return error_set(TEA_ERR_USAGE, "bpred: unknown predictor %u", cfg->predictor);
    if (cfg->gshare_log_size < 1 || cfg->gshare_log_size > MAX_LOG_SIZE)
        return error_set(TEA_ERR_USAGE, "bpred: gshare_log_size %u outside 1-%d", cfg->gshare_log_size, MAX_LOG_SIZE);
    if (cfg->gshare_history > MAX_GSHARE_HISTORY)
        return error_set(TEA_ERR_USAGE, "bpred: gshare_history %u above %d", cfg->gshare_history, MAX_GSHARE_HISTORY);
    if (cfg->bimodal_log_size < 1 || cfg->bimodal_log_size > MAX_LOG_SIZE)
        return error_set(TEA_ERR_USAGE, "bpred: bimodal_log_size %u outside 1-%d", cfg->bimodal_log_size, MAX_LOG_SIZE);
    if (cfg->tage_tables < 1 || cfg->tage_tables > MODEL_BPRED_TAGE_MAX_TABLES)
        return error_set(TEA_ERR_USAGE, "bpred: tage_tables %u outside 1-%d", cfg->tage_tables,
                         MODEL_BPRED_TAGE_MAX_TABLES);
    if (cfg->tage_log_size < 1 || cfg->tage_log_size > MAX_TAGE_LOG_SIZE)
        return error_set(TEA_ERR_USAGE, "bpred: tage_log_size %u outside 1-%d", cfg->tage_log_size, MAX_TAGE_LOG_SIZE);
    if (cfg->tage_tag_bits < MIN_TAG_BITS || cfg->tage_tag_bits > MAX_TAG_BITS)
        return error_set(TEA_ERR_USAGE, "bpred: tage_tag_bits %u outside %d-%d", cfg->tage_tag_bits, MIN_TAG_BITS,
                         MAX_TAG_BITS);
    if (cfg->tage_min_history < 1 || cfg->tage_max_history > MODEL_BPRED_MAX_HISTORY
        || cfg->tage_max_history < cfg->tage_min_history + cfg->tage_tables - 1)
        return error_set(TEA_ERR_USAGE,
                         "bpred: TAGE histories %u-%u must rise by at least 1 per table (%u tables), "
                         "within 1-%d",
                         cfg->tage_min_history, cfg->tage_max_history, cfg->tage_tables, MODEL_BPRED_MAX_HISTORY);
    if (cfg->btb_ways < 1 || cfg->btb_ways > MAX_BTB_WAYS || cfg->btb_entries % cfg->btb_ways
        || !is_pow2(cfg->btb_entries / cfg->btb_ways))
        return error_set(TEA_ERR_USAGE,
                         "bpred: BTB of %u entries and %u ways (1-%d) needs a power-of-2 "
                         "number of sets",
                         cfg->btb_entries, cfg->btb_ways, MAX_BTB_WAYS);
    if (cfg->ras_entries > MAX_RAS_ENTRIES)
        return error_set(TEA_ERR_USAGE, "bpred: ras_entries %u above %d", cfg->ras_entries, MAX_RAS_ENTRIES);
    return TEA_OK;
}

/* r^n by repeated multiplication. */
static double power(double r, unsigned n)
{
    double x = 1.0;
    while (n--)
        x *= r;
    return x;
}

/* Fills the geometric series of history lengths from min to max, rounded,
 * made strictly increasing (the check guarantees room for that). */
static void geometric_histories(unsigned *h, unsigned n, unsigned min, unsigned max)
{
    double lo = 1.0, hi = (double)max / min, r;

    h[0] = min;
    if (n == 1)
        return;
    for (int i = 0; i < BISECTION_STEPS; i++) { /* r^(n-1) = max/min */
        double mid = (lo + hi) / 2;
        if (power(mid, n - 1) * min < max)
            lo = mid;
        else
            hi = mid;
    }
    r = (lo + hi) / 2;
    for (unsigned i = 1; i < n; i++) {
        h[i] = (unsigned)(min * power(r, i) + 0.5);
        if (h[i] <= h[i - 1])
            h[i] = h[i - 1] + 1;
    }
    h[n - 1] = max;
    for (unsigned i = n - 1; i-- > 0;)
        if (h[i] >= h[i + 1])
            h[i] = h[i + 1] - 1;
}

_Static_assert(MAX_TAGE_LOG_SIZE < FOLD_SHIFT && MAX_TAG_BITS < FOLD_SHIFT && FOLDS * FOLD_SHIFT <= 64,
               "each fold and the bit above it fit in FOLD_SHIFT bits");

/* Sets up the folds of the histories of every table (all zero). */
static void folds_init(model_bpred *p)
{
    const model_bpred_config *cfg = &p->cfg;
    p->fold_width[0] = cfg->tage_log_size;
    p->fold_width[1] = cfg->tage_tag_bits;
    p->fold_width[2] = cfg->tage_tag_bits - 1;
    p->fold_guards = 0;
    for (unsigned k = 0; k < FOLDS; k++) {
        p->fold_mask[k] = (1u << p->fold_width[k]) - 1;
        p->fold_guards |= 1ull << (FOLD_SHIFT * k + p->fold_width[k]);
    }
    for (unsigned i = 0; i < cfg->tage_tables; i++) {
        p->folds[i] = 0;
        p->fold_out[i] = 0;
        for (unsigned k = 0; k < FOLDS; k++)
            p->fold_out[i] |= 1ull << (FOLD_SHIFT * k + p->history[i] % p->fold_width[k]);
    }
}

/* Fold k of table i. */
static inline uint32_t fold_value(const model_bpred *p, unsigned i, unsigned k)
{
    return (uint32_t)(p->folds[i] >> (FOLD_SHIFT * k)) & p->fold_mask[k];
}

/* Pushes the newest outcome into the three folds of table i and removes the
 * one that left its window: shift in (each fold's top bit moves to the zero
 * bit above it), cancel the old outcome where it landed, and wrap each
 * fold's bit `width` around to its bit 0. */
static inline void folds_push(model_bpred *p, unsigned i, unsigned newest, unsigned oldest)
{
    uint64_t v = (p->folds[i] << 1) ^ (FOLD_BASES & -(uint64_t)newest);
    uint64_t wrap;
    v ^= p->fold_out[i] & -(uint64_t)oldest;
    wrap = v & p->fold_guards;
    v ^= wrap;
    for (unsigned k = 0; k < FOLDS; k++)
        v ^= (wrap >> p->fold_width[k]) & (1ull << FOLD_SHIFT * k);
    p->folds[i] = v;
}

int model_bpred_create(model_bpred **out, const model_bpred_config *cfg)
{
    model_bpred *p;
    size_t tage_size;
    unsigned btb_sets;
    int rc = model_bpred_config_check(cfg);

    *out = NULL;
    if (rc)
        return rc;
    p = calloc(1, sizeof *p);
    if (!p)
        return error_set(TEA_ERR_NOMEM, "bpred: out of memory");
    p->cfg = *cfg;
    p->gshare_mask = (1u << cfg->gshare_log_size) - 1;
    p->ghist_mask = cfg->gshare_history >= 64 ? UINT64_MAX : (1ull << cfg->gshare_history) - 1;
    p->bimodal_mask = (1u << cfg->bimodal_log_size) - 1;
    p->table_mask = (1u << cfg->tage_log_size) - 1;
    p->tag_mask = (uint16_t)((1u << cfg->tage_tag_bits) - 1);
    tage_size = (size_t)cfg->tage_tables << cfg->tage_log_size;
    btb_sets = cfg->btb_entries / cfg->btb_ways;
    p->btb_set_mask = btb_sets - 1;
    while ((1u << p->btb_set_bits) < btb_sets)
        p->btb_set_bits++;
    p->btb_ways = cfg->btb_ways;
    if (cfg->predictor == MODEL_BPRED_GSHARE) {
        p->gshare = malloc((size_t)p->gshare_mask + 1);
    } else {
        p->bimodal = malloc((size_t)p->bimodal_mask + 1);
        p->tables = calloc(tage_size, sizeof *p->tables);
    }
    p->btb_tag = calloc(cfg->btb_entries, sizeof *p->btb_tag);
    p->btb_target = calloc(cfg->btb_entries, sizeof *p->btb_target);
    p->btb_stamp = calloc(cfg->btb_entries, sizeof *p->btb_stamp);
    p->ras = calloc(cfg->ras_entries ? cfg->ras_entries : 1, sizeof *p->ras);
    if ((cfg->predictor == MODEL_BPRED_GSHARE ? !p->gshare : (!p->bimodal || !p->tables)) || !p->btb_tag
        || !p->btb_target || !p->btb_stamp || !p->ras) {
        model_bpred_free(p);
        return error_set(TEA_ERR_NOMEM, "bpred: out of memory");
    }
    if (p->gshare)
        memset(p->gshare, CTR2_INIT, (size_t)p->gshare_mask + 1);
    if (p->bimodal)
        memset(p->bimodal, CTR2_INIT, (size_t)p->bimodal_mask + 1);
    geometric_histories(p->history, cfg->tage_tables, cfg->tage_min_history, cfg->tage_max_history);
    for (unsigned i = 0; i < cfg->tage_tables; i++) {
        /* Strictly longer histories, each within the ring of past outcomes. */
        assert(p->history[i] < HIST_RING && (i == 0 || p->history[i - 1] < p->history[i]));
    }
    folds_init(p);
    p->lfsr = cfg->seed ^ LFSR_SEED_MIX;
    if (!p->lfsr)
        p->lfsr = LFSR_SEED_MIX;
    *out = p;
    return TEA_OK;
}

void model_bpred_free(model_bpred *p)
{
    if (!p)
        return;
    free(p->gshare);
    free(p->bimodal);
    free(p->tables);
    free(p->btb_tag);
    free(p->btb_target);
    free(p->btb_stamp);
    free(p->ras);
    free(p);
}

/* The next pseudo-random bit (xorshift64), for allocation tie-breaks. */
static unsigned lfsr_bit(model_bpred *p)
{
    uint64_t x = p->lfsr;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p->lfsr = x;
    return (unsigned)(x & 1);
}

/* The history folded by XOR into `bits` bits. */
static inline uint32_t fold64(uint64_t h, unsigned bits)
{
    uint32_t f = 0;
    uint64_t mask = (1ull << bits) - 1;
    while (h) {
        f ^= (uint32_t)(h & mask);
        h >>= bits;
    }
    return f;
}

/* gshare direction lookup. */
static void gshare_lookup(const model_bpred *p, uint64_t pc, lookup *l)
{
    uint32_t index = ((uint32_t)(pc >> 1) ^ fold64(p->ghist & p->ghist_mask, p->cfg.gshare_log_size))
                     & p->gshare_mask;
    l->gshare_index = index;
    l->direction = p->gshare[index] >= CTR2_TAKEN;
    l->pred.provider = 0;
}

_Static_assert(MODEL_BPRED_TAGE_MAX_TABLES <= sizeof(unsigned) * CHAR_BIT, "a bit per TAGE table in an unsigned");

/* The index of the highest set bit of `x`, -1 when none. */
static inline int highest_bit(unsigned x)
{
    return x ? (int)(sizeof x * CHAR_BIT - 1) - __builtin_clz(x) : -1;
}

/* TAGE direction lookup: indices and tags of every table, the longest
 * matching table (provider), the next one (alternate) and the decision. */
static void tage_lookup(const model_bpred *p, uint64_t pc, lookup *l)
{
    unsigned n = p->cfg.tage_tables;
    uint32_t pch = (uint32_t)(pc >> 1);
    uint32_t pc_mix = pch ^ (pch >> p->cfg.tage_log_size);
    unsigned hits = 0; /* bit i: table i's entry has the tag (no branch per table: they are unpredictable) */

    l->bimodal_index = pch & p->bimodal_mask;
    for (unsigned i = 0; i < n; i++) {
        l->index[i] = (pc_mix ^ fold_value(p, i, 0) ^ (i << 1)) & p->table_mask;
        l->tag[i] = (uint16_t)((pch ^ fold_value(p, i, 1) ^ (fold_value(p, i, 2) << 1)) & p->tag_mask);
        hits |= (unsigned)(p->tables[((size_t)i << p->cfg.tage_log_size) + l->index[i]].tag == l->tag[i]) << i;
    }
    l->provider = highest_bit(hits);
    if (l->provider >= 0)
        hits &= ~(1u << l->provider);
    l->alt = highest_bit(hits);
    assert(l->provider < 0 || l->alt < l->provider); /* the alternate has the shorter history */
    if (l->alt >= 0)
        l->alt_taken = p->tables[((size_t)l->alt << p->cfg.tage_log_size) + l->index[l->alt]].ctr >= 0;
    else
        l->alt_taken = p->bimodal[l->bimodal_index] >= CTR2_TAKEN;
    if (l->provider >= 0) {
        int8_t ctr = p->tables[((size_t)l->provider << p->cfg.tage_log_size) + l->index[l->provider]].ctr;
        int weak = ctr == 0 || ctr == -1;
        l->provider_taken = ctr >= 0;
        l->direction = weak && p->use_alt >= 0 ? l->alt_taken : l->provider_taken;
        l->pred.provider = (uint8_t)(l->provider + 1);
    } else {
        l->provider_taken = l->alt_taken;
        l->direction = l->alt_taken;
        l->pred.provider = 0;
    }
}

/* The first BTB slot of the set of `pc`: the PC (in 2-byte units) with its
 * next higher bits folded in, so that code at page-aligned strides does not
 * crowd into one set. */
static inline uint32_t btb_set_base(const model_bpred *p, uint64_t pc)
{
    uint64_t h = (pc >> 1) ^ (pc >> (1 + p->btb_set_bits));
    return (uint32_t)(h & p->btb_set_mask) * p->btb_ways;
}

/* The BTB slot holding `pc`, or -1. */
static int32_t btb_find(const model_bpred *p, uint64_t pc)
{
    uint32_t base = btb_set_base(p, pc);
    for (unsigned w = 0; w < p->btb_ways; w++)
        if (p->btb_tag[base + w] == pc && p->btb_stamp[base + w])
            return (int32_t)(base + w);
    return -1;
}

/* Records the target of a taken branch at `pc` (slot: its BTB slot or -1). */
static void btb_update(model_bpred *p, uint64_t pc, int32_t slot, uint64_t target)
{
    if (slot < 0) {
        uint32_t base = btb_set_base(p, pc);
        slot = (int32_t)base;
        for (unsigned w = 1; w < p->btb_ways; w++)
            if (p->btb_stamp[base + w] < p->btb_stamp[slot])
                slot = (int32_t)(base + w);
        p->btb_tag[slot] = pc;
    }
    assert((uint32_t)slot < p->cfg.btb_entries);
    p->btb_target[slot] = target;
    p->btb_stamp[slot] = ++p->btb_clock;
}

/* The lookup for (pc, kind) into p->last; without `with_btb` (only for a
 * conditional branch about to be trained as not taken, whose verdict and
 * training need no target) the BTB is left alone and counts as a miss. */
static void do_lookup(model_bpred *p, uint64_t pc, unsigned kind, int with_btb)
{
    lookup *l = &p->last;
    unsigned k = kind_of(kind);
    uint64_t fall = fall_through(pc, kind);
    uint64_t btb_target;

    l->pc = pc;
    l->kind = kind;
    l->valid = 1;
    l->btb_slot = with_btb ? btb_find(p, pc) : -1;
    l->pred.btb_hit = l->btb_slot >= 0;
    btb_target = l->btb_slot >= 0 ? p->btb_target[l->btb_slot] : 0;
    l->pred.provider = 0;
    if (k == MODEL_BPRED_COND) {
        if (p->cfg.predictor == MODEL_BPRED_GSHARE)
            gshare_lookup(p, pc, l);
        else
            tage_lookup(p, pc, l);
        l->pred.taken = l->direction;
        l->pred.target = l->direction ? btb_target : fall;
        return;
    }
    l->pred.taken = 1;
    if (k == MODEL_BPRED_RETURN && p->ras_count)
        l->pred.target = p->ras[p->ras_top];
    else
        l->pred.target = btb_target;
}

void model_bpred_predict(model_bpred *p, uint64_t pc, unsigned kind, model_bpred_prediction *out)
{
    do_lookup(p, pc, kind, 1);
    *out = p->last.pred;
}

model_bpred_verdict model_bpred_check(const model_bpred_prediction *pred, unsigned kind, int taken, uint64_t target)
{
    unsigned k = kind_of(kind);
    if (!taken)
        return pred->taken ? MODEL_BPRED_MISPREDICT : MODEL_BPRED_CORRECT;
    if (!pred->taken)
        return MODEL_BPRED_MISPREDICT;
    if (pred->target == target)
        return MODEL_BPRED_CORRECT;
    return k == MODEL_BPRED_COND || k == MODEL_BPRED_JUMP || k == MODEL_BPRED_CALL ? MODEL_BPRED_MISFETCH
                                                                                   : MODEL_BPRED_MISPREDICT;
}

static void ctr2_update(uint8_t *c, int taken)
{
    if (taken && *c < CTR2_MAX)
        (*c)++;
    else if (!taken && *c > 0)
        (*c)--;
}

static void ctr3_update(int8_t *c, int taken)
{
    if (taken && *c < CTR3_MAX)
        (*c)++;
    else if (!taken && *c > CTR3_MIN)
        (*c)--;
}

/* Allocates one entry for a mispredicted branch in a table longer than the
 * provider whose entry is not useful (the first such table, or the second
 * one on a coin flip); when none is free, ages the candidates instead. */
static void tage_allocate(model_bpred *p, const lookup *l, int taken)
{
    unsigned n = p->cfg.tage_tables;
    int first = -1, second = -1;
    for (unsigned i = (unsigned)(l->provider + 1); i < n; i++) {
        tage_entry *e = &p->tables[((size_t)i << p->cfg.tage_log_size) + l->index[i]];
        if (e->u)
            continue;
        if (first < 0) {
            first = (int)i;
        } else {
            second = (int)i;
            break;
        }
    }
    if (first < 0) {
        for (unsigned i = (unsigned)(l->provider + 1); i < n; i++) {
            tage_entry *e = &p->tables[((size_t)i << p->cfg.tage_log_size) + l->index[i]];
            if (e->u)
                e->u--;
        }
        return;
    }
    if (second >= 0 && lfsr_bit(p))
        first = second;
    {
        tage_entry *e = &p->tables[((size_t)first << p->cfg.tage_log_size) + l->index[first]];
        e->tag = l->tag[first];
        e->ctr = taken ? 0 : -1;
        e->u = 0;
        p->stats.tage_allocations++;
    }
}

/* Trains TAGE with the outcome of the branch looked up in `l`. */
static void tage_train(model_bpred *p, const lookup *l, int taken)
{
    size_t table_size = (size_t)1 << p->cfg.tage_log_size;

    if (l->provider >= 0) {
        tage_entry *e = &p->tables[l->provider * table_size + l->index[l->provider]];
        int weak = e->ctr == 0 || e->ctr == -1;
        if (weak && l->provider_taken != l->alt_taken) {
            if (l->alt_taken == taken && p->use_alt < USE_ALT_MAX)
                p->use_alt++;
            else if (l->alt_taken != taken && p->use_alt > USE_ALT_MIN)
                p->use_alt--;
        }
        if (l->provider_taken != l->alt_taken) {
            if (l->provider_taken == taken && e->u < U_MAX)
                e->u++;
            else if (l->provider_taken != taken && e->u > 0)
                e->u--;
        }
        ctr3_update(&e->ctr, taken);
    } else {
        ctr2_update(&p->bimodal[l->bimodal_index], taken);
    }
    if (l->direction != taken && l->provider < (int)p->cfg.tage_tables - 1)
        tage_allocate(p, l, taken);
    if (++p->updates == U_RESET_PERIOD) {
        size_t total = (size_t)p->cfg.tage_tables * table_size;
        for (size_t i = 0; i < total; i++)
            p->tables[i].u >>= 1;
        p->updates = 0;
    }
}

/* Appends a conditional outcome to the global histories. */
static void push_history(model_bpred *p, int taken)
{
    unsigned t = taken != 0;
    p->ghist = (p->ghist << 1) | t;
    if (p->cfg.predictor != MODEL_BPRED_TAGE)
        return;
    p->ring_pos = (p->ring_pos + 1) & (HIST_RING - 1);
    p->ring[p->ring_pos] = (uint8_t)t;
    for (unsigned i = 0; i < p->cfg.tage_tables; i++) {
        unsigned oldest = p->ring[(p->ring_pos - p->history[i]) & (HIST_RING - 1)];
        folds_push(p, i, t, oldest);
    }
}

model_bpred_verdict model_bpred_update(model_bpred *p, uint64_t pc, unsigned kind, int taken, uint64_t target)
{
    lookup *l = &p->last;
    unsigned k = kind_of(kind);
    model_bpred_verdict v;

    if (!l->valid || l->pc != pc || l->kind != kind)
        do_lookup(p, pc, kind, taken || k != MODEL_BPRED_COND);
    v = model_bpred_check(&l->pred, kind, taken, target);
    p->stats.branches[k]++;
    p->stats.mispredicts[k] += v == MODEL_BPRED_MISPREDICT;
    p->stats.misfetches[k] += v == MODEL_BPRED_MISFETCH;
    if (k == MODEL_BPRED_COND) {
        if (p->cfg.predictor == MODEL_BPRED_GSHARE)
            ctr2_update(&p->gshare[l->gshare_index], taken);
        else
            tage_train(p, l, taken);
        push_history(p, taken);
    }
    if (taken) {
        p->stats.btb_misses += l->btb_slot < 0;
        btb_update(p, pc, l->btb_slot, target);
    }
    if (p->cfg.ras_entries) {
        if (k == MODEL_BPRED_CALL || k == MODEL_BPRED_INDIRECT_CALL) {
            p->ras_top = (p->ras_top + 1) % p->cfg.ras_entries;
            p->ras[p->ras_top] = fall_through(pc, kind);
            if (p->ras_count < p->cfg.ras_entries)
                p->ras_count++;
        } else if (k == MODEL_BPRED_RETURN && p->ras_count) {
            p->ras_top = (p->ras_top + p->cfg.ras_entries - 1) % p->cfg.ras_entries;
            p->ras_count--;
        }
        assert(p->ras_top < p->cfg.ras_entries && p->ras_count <= p->cfg.ras_entries);
    }
    l->valid = 0;
    return v;
}

const model_bpred_stats *model_bpred_get_stats(const model_bpred *p)
{
    return &p->stats;
}

const model_bpred_config *model_bpred_get_config(const model_bpred *p)
{
    return &p->cfg;
}

unsigned model_bpred_tage_history(const model_bpred *p, unsigned i)
{
    return i < p->cfg.tage_tables ? p->history[i] : 0;
}
