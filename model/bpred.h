/*
 * bpred.h: the branch predictor of the baseline core: a direction predictor
 * (gshare or TAGE, selectable), a branch target buffer (BTB) and a return
 * address stack (RAS).
 *
 * Internal to model/: the core's parts, which core.h puts together (the
 * tests use them too).
 *
 * Use: for every correct-path control-flow instruction, in program order,
 * call model_bpred_predict() (what the front end would do) and then
 * model_bpred_update() with the real outcome, before predicting the next one.
 * To train without a prediction (warming), call model_bpred_update() alone:
 * the same state and verdict, looking up only what the outcome needs.
 * History, BTB and RAS change only in model_bpred_update(), so the predictor sees
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
 * pc + the instruction's size (MODEL_BPRED_SIZED; 4 bytes when not given).
 *
 * Deterministic: the same configuration (seed included) and the same calls
 * give the same predictions. Not thread safe; no allocation after
 * model_bpred_create().
 */
#ifndef TEA_MODEL_BPRED_H
#define TEA_MODEL_BPRED_H

#include <stdint.h>

/* Kinds of control-flow instruction. */
typedef enum model_bpred_kind {
    MODEL_BPRED_COND = 0,      /* conditional branch, direct target */
    MODEL_BPRED_JUMP,          /* unconditional direct jump */
    MODEL_BPRED_CALL,          /* direct call: pushes the RAS */
    MODEL_BPRED_RETURN,        /* return: pops the RAS */
    MODEL_BPRED_INDIRECT,      /* indirect jump */
    MODEL_BPRED_INDIRECT_CALL, /* indirect call: pushes the RAS */
    MODEL_BPRED_KIND_COUNT
} model_bpred_kind;
#define MODEL_BPRED_KIND_MASK 0x0fu
/* A kind with the instruction's size in bytes (1-255) folded in: it falls
 * through to pc + size (x86-64's variable lengths, RISC-V's compressed
 * instructions). A kind without a size falls through to pc + 4. */
#define MODEL_BPRED_SIZE_SHIFT 8
#define MODEL_BPRED_SIZED(kind, size) ((unsigned)(kind) | ((unsigned)(size) << MODEL_BPRED_SIZE_SHIFT))

/* Direction predictors. */
typedef enum model_bpred_algorithm { MODEL_BPRED_GSHARE = 0, MODEL_BPRED_TAGE = 1 } model_bpred_algorithm;

#define MODEL_BPRED_TAGE_MAX_TABLES 12
#define MODEL_BPRED_MAX_HISTORY 1000 /* longest TAGE history (conditional outcomes) */

typedef struct model_bpred_config {
    unsigned predictor;         /* model_bpred_algorithm (MODEL_BPRED_TAGE) */
    unsigned gshare_log_size;   /* log2 of the gshare counters (14: 16384 entries) */
    unsigned gshare_history;    /* global history bits, 0-64 (14) */
    unsigned bimodal_log_size;  /* TAGE base: log2 of its 2-bit counters (13) */
    unsigned tage_tables;       /* tagged tables, 1-MODEL_BPRED_TAGE_MAX_TABLES (6) */
    unsigned tage_log_size;     /* log2 entries per tagged table (10) */
    unsigned tage_tag_bits;     /* tag bits, 4-16 (9) */
    unsigned tage_min_history;  /* history of the shortest table (4) */
    unsigned tage_max_history;  /* history of the longest table (64) */
    unsigned btb_entries;       /* BTB entries (2048) */
    unsigned btb_ways;          /* BTB associativity (4) */
    unsigned ras_entries;       /* return address stack entries, 0: none (32) */
    uint64_t seed;              /* TAGE allocation tie-breaks (0) */
} model_bpred_config;

/* Fills `cfg` with the defaults above. */
void model_bpred_config_defaults(model_bpred_config *cfg);

/* Checks a configuration; TEA_ERR_USAGE. */
int model_bpred_config_check(const model_bpred_config *cfg);

typedef struct model_bpred_prediction {
    uint64_t target;   /* predicted next PC: the target when taken (0: unknown, the BTB
                          missed), the fall-through when not taken */
    uint8_t taken;     /* predicted direction (always 1 for non-conditional kinds) */
    uint8_t btb_hit;   /* the BTB knew this PC */
    uint8_t provider;  /* TAGE: tagged table that decided (1-n), 0: bimodal; gshare: 0 */
} model_bpred_prediction;

/* How a prediction compares with the outcome. */
typedef enum model_bpred_verdict {
    MODEL_BPRED_CORRECT = 0,
    MODEL_BPRED_MISFETCH,  /* a direct branch, jump or call predicted taken, rightly, but with an
                        unknown or stale target: decode can redirect (cheap) */
    MODEL_BPRED_MISPREDICT /* wrong direction, or a wrong return/indirect target: known only
                        when the branch executes (pipeline squash) */
} model_bpred_verdict;

typedef struct model_bpred_stats {
    uint64_t branches[MODEL_BPRED_KIND_COUNT];    /* updates per kind */
    uint64_t mispredicts[MODEL_BPRED_KIND_COUNT]; /* MODEL_BPRED_MISPREDICT verdicts per kind */
    uint64_t misfetches[MODEL_BPRED_KIND_COUNT];  /* MODEL_BPRED_MISFETCH verdicts per kind */
    uint64_t btb_misses;                    /* taken branches the BTB did not know */
    uint64_t tage_allocations;              /* tagged entries allocated */
} model_bpred_stats;

typedef struct model_bpred model_bpred;

/* Creates a predictor with empty tables. TEA_ERR_USAGE, TEA_ERR_NOMEM. */
int model_bpred_create(model_bpred **out, const model_bpred_config *cfg);

void model_bpred_free(model_bpred *p);

/* Predicts the control-flow instruction at `pc` of `kind` (model_bpred_kind, maybe
 * MODEL_BPRED_SIZED; unknown kinds count as MODEL_BPRED_INDIRECT). Changes no
 * predictor state. */
void model_bpred_predict(model_bpred *p, uint64_t pc, unsigned kind, model_bpred_prediction *out);

/* Trains with the real outcome (`target`: the next PC when taken; ignored when
 * not taken) and returns the verdict on the prediction model_bpred_predict() gave
 * (or would have given) for it. Without a model_bpred_predict() of the same
 * branch just before, it looks up only what the outcome needs (training). */
model_bpred_verdict model_bpred_update(model_bpred *p, uint64_t pc, unsigned kind, int taken, uint64_t target);

/* The verdict on `pred` for an instruction of `kind` with this outcome. */
model_bpred_verdict model_bpred_check(const model_bpred_prediction *pred, unsigned kind, int taken, uint64_t target);

const model_bpred_stats *model_bpred_get_stats(const model_bpred *p);

const model_bpred_config *model_bpred_get_config(const model_bpred *p);

/* The history length of TAGE table `i` (0: shortest), for documentation. */
unsigned model_bpred_tage_history(const model_bpred *p, unsigned i);

#endif
