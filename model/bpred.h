/*
 * bpred.h: the branch predictor of the baseline core: a direction predictor
 * (gshare or TAGE, selectable), a branch target buffer (BTB) and a return
 * address stack (RAS).
 *
 * Use: for every correct-path control-flow instruction, in program order,
 * call bpred_predict() (what the front end would do) and then
 * bpred_update() with the real outcome, before predicting the next one.
 * History, BTB and RAS change only in bpred_update(), so the predictor sees
 * the correct path only — as if every misprediction were repaired perfectly.
 * Wrong-path instructions must not be predicted or updated.
 *
 * Direction (conditional branches only; other kinds are always taken):
 *   gshare  2-bit counters indexed by (pc >> 1) XOR the global history of the
 *           last `gshare_history` conditional outcomes (folded by XOR to the
 *           index width when longer).
 *   TAGE    a bimodal table of 2-bit counters plus `tage_tables` tagged tables
 *           indexed and tagged with hashes of the PC and of geometrically
 *           longer global histories (tage_min_history .. tage_max_history);
 *           3-bit counters, 2-bit usefulness counters (halved every 2^18
 *           updates), a use-alternate-on-weak counter, and one allocation in
 *           a longer table per misprediction (ties broken by a seeded LFSR).
 * The global history holds conditional-branch outcomes only.
 *
 * Targets: the BTB (set-associative, LRU, full-PC tags, indexed by PC bits
 * with the next higher bits XOR-folded in) holds the last target
 * of every taken branch, jump, call and return; returns are predicted from
 * the RAS (a circular stack: overflowing it loses the oldest entry) and fall
 * back to the BTB when it is empty. Calls push their fall-through address,
 * pc + the instruction's size (BPRED_SIZED; 4 bytes when not given).
 *
 * Deterministic: the same configuration (seed included) and the same calls
 * give the same predictions. Not thread safe; no allocation after
 * bpred_create().
 */
#ifndef TEA_MODEL_BPRED_H
#define TEA_MODEL_BPRED_H

#include <stdint.h>

/* Kinds of control-flow instruction. */
typedef enum bpred_kind {
    BPRED_COND = 0,       /* conditional branch, direct target */
    BPRED_JUMP,           /* unconditional direct jump */
    BPRED_CALL,           /* direct call: pushes the RAS */
    BPRED_RETURN,         /* return: pops the RAS */
    BPRED_INDIRECT,       /* indirect jump */
    BPRED_INDIRECT_CALL,  /* indirect call: pushes the RAS */
    BPRED_KIND_COUNT
} bpred_kind;
#define BPRED_KIND_MASK 0x0fu
/* A kind with the instruction's size in bytes (1-255) folded in: it falls
 * through to pc + size (x86-64's variable lengths, RISC-V's compressed
 * instructions). A kind without a size falls through to pc + 4. */
#define BPRED_SIZE_SHIFT 8
#define BPRED_SIZED(kind, size) ((unsigned)(kind) | ((unsigned)(size) << BPRED_SIZE_SHIFT))

/* Direction predictors. */
typedef enum bpred_algorithm { BPRED_GSHARE = 0, BPRED_TAGE = 1 } bpred_algorithm;

#define BPRED_TAGE_MAX_TABLES 12
#define BPRED_MAX_HISTORY 1000 /* longest TAGE history (conditional outcomes) */

typedef struct bpred_config {
    unsigned predictor;         /* bpred_algorithm (BPRED_TAGE) */
    unsigned gshare_log_size;   /* log2 of the gshare counters (14: 16384 entries) */
    unsigned gshare_history;    /* global history bits, 0-64 (14) */
    unsigned bimodal_log_size;  /* TAGE base: log2 of its 2-bit counters (13) */
    unsigned tage_tables;       /* tagged tables, 1-BPRED_TAGE_MAX_TABLES (6) */
    unsigned tage_log_size;     /* log2 entries per tagged table (10) */
    unsigned tage_tag_bits;     /* tag bits, 4-16 (9) */
    unsigned tage_min_history;  /* history of the shortest table (4) */
    unsigned tage_max_history;  /* history of the longest table (64) */
    unsigned btb_entries;       /* BTB entries (2048) */
    unsigned btb_ways;          /* BTB associativity (4) */
    unsigned ras_entries;       /* return address stack entries, 0: none (32) */
    uint64_t seed;              /* TAGE allocation tie-breaks (0) */
} bpred_config;

/* Fills `cfg` with the defaults above. */
void bpred_config_defaults(bpred_config *cfg);

/* Checks a configuration; TEA_ERR_USAGE. */
int bpred_config_check(const bpred_config *cfg);

typedef struct bpred_prediction {
    uint64_t target;   /* predicted next PC: the target when taken (0: unknown, the BTB
                          missed), the fall-through when not taken */
    uint8_t taken;     /* predicted direction (always 1 for non-conditional kinds) */
    uint8_t btb_hit;   /* the BTB knew this PC */
    uint8_t provider;  /* TAGE: tagged table that decided (1-n), 0: bimodal; gshare: 0 */
} bpred_prediction;

/* How a prediction compares with the outcome. */
typedef enum bpred_verdict {
    BPRED_CORRECT = 0,
    BPRED_MISFETCH,    /* a direct branch, jump or call predicted taken, rightly, but with an
                          unknown or stale target: decode can redirect (cheap) */
    BPRED_MISPREDICT   /* wrong direction, or a wrong return/indirect target: known only
                          when the branch executes (pipeline squash) */
} bpred_verdict;

typedef struct bpred_stats {
    uint64_t branches[BPRED_KIND_COUNT];    /* updates per kind */
    uint64_t mispredicts[BPRED_KIND_COUNT]; /* BPRED_MISPREDICT verdicts per kind */
    uint64_t misfetches[BPRED_KIND_COUNT];  /* BPRED_MISFETCH verdicts per kind */
    uint64_t btb_misses;                    /* taken branches the BTB did not know */
    uint64_t tage_allocations;              /* tagged entries allocated */
} bpred_stats;

typedef struct bpred bpred;

/* Creates a predictor with empty tables. TEA_ERR_USAGE, TEA_ERR_NOMEM. */
int bpred_create(bpred **out, const bpred_config *cfg);

void bpred_free(bpred *p);

/* Predicts the control-flow instruction at `pc` of `kind` (bpred_kind, maybe
 * BPRED_SIZED; unknown kinds count as BPRED_INDIRECT). Changes no
 * predictor state. */
void bpred_predict(bpred *p, uint64_t pc, unsigned kind, bpred_prediction *out);

/* Trains with the real outcome (`target`: the next PC when taken; ignored when
 * not taken) and returns the verdict on the prediction bpred_predict() gave
 * (or would have given) for it. */
bpred_verdict bpred_update(bpred *p, uint64_t pc, unsigned kind, int taken, uint64_t target);

/* The verdict on `pred` for an instruction of `kind` with this outcome. */
bpred_verdict bpred_check(const bpred_prediction *pred, unsigned kind, int taken, uint64_t target);

const bpred_stats *bpred_get_stats(const bpred *p);

const bpred_config *bpred_get_config(const bpred *p);

/* The history length of TAGE table `i` (0: shortest), for documentation. */
unsigned bpred_tage_history(const bpred *p, unsigned i);

#endif
