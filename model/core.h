/*
 * core.h: a trace-driven out-of-order core model that writes commit-stage
 * records.
 *
 * The model times a stream of dynamic instructions through a BOOM-like core
 * (docs/model.md): a front end that fetches up to `fetch_width` µops per cycle
 * into a fetch buffer, in-order dispatch of one ROB row of up to `width` µops
 * per cycle, out-of-order completion after each µop's latency (and its
 * producer's), and in-order commit of up to `width` µops of the head row per
 * cycle. Mispredicted branches fetch and dispatch wrong-path µops until they
 * resolve, then squash them; flush-on-commit µops, exceptions and
 * memory-ordering violations flush the pipeline and refetch. The model emits
 * exactly the records of docs/trace-format.md, so the golden reference of the
 * replay engine is the model's ground truth.
 *
 * What happens to each instruction (cache and TLB misses, misprediction) is
 * decided by its source (model_source); the model only adds timing.
 */
#ifndef TEA_MODEL_CORE_H
#define TEA_MODEL_CORE_H

#include "trace/record.h"

#include <stdint.h>

/* Instruction classes, which select a functional-unit latency. */
typedef enum model_class {
    MODEL_INT = 0,
    MODEL_MUL,
    MODEL_DIV,
    MODEL_FP_ADD,
    MODEL_FP_MUL,
    MODEL_FP_DIV,
    MODEL_FP_SQRT,
    MODEL_LOAD,
    MODEL_STORE,
    MODEL_BRANCH,     /* conditional branch */
    MODEL_JUMP,       /* unconditional direct jump or call */
    MODEL_INDIRECT,   /* indirect jump, return */
    MODEL_SERIAL,     /* fence, CSR write, system call: flushes on commit */
    MODEL_CLASS_COUNT
} model_class;

/* model_uop.flags */
#define MODEL_UOP_TAKEN 0x01u        /* a taken branch or jump: ends the fetch group */
#define MODEL_UOP_MISPREDICT 0x02u   /* the front end guesses wrong: wrong path until it resolves */
#define MODEL_UOP_FLUSH 0x04u        /* flushes the pipeline when it commits (FL-EX) */
#define MODEL_UOP_EXCEPTION 0x08u    /* raises an exception at commit, then re-executes */
#define MODEL_UOP_ORDER_FAIL 0x10u   /* a load that ran ahead of an older store: refetched (FL-MO) */

/* One dynamic µop as its source describes it. */
typedef struct model_uop {
    uint64_t pc;
    uint64_t wrong_pc;       /* mispredicted: where the wrong path starts */
    uint32_t latency;        /* cycles from issue to result (memory included) */
    uint16_t fetch_delay;    /* front-end stall before it can be fetched (I-cache/I-TLB miss) */
    uint16_t psv;            /* events its source decided: ST-*, DR-L1, DR-TLB */
    uint16_t dep;            /* distance back to its producer µop (0: none) */
    uint8_t cls;             /* model_class */
    uint8_t flags;           /* MODEL_UOP_* */
} model_uop;

/* Where µops come from. */
typedef struct model_source {
    /* Fills *u with the next correct-path µop; returns 0 when the program
     * ends, 1 otherwise. */
    int (*next)(void *ctx, model_uop *u);
    /* Fills *u with the µop the front end fetches at `pc` on a wrong path and
     * returns the PC it fetches next. */
    uint64_t (*wrong_path)(void *ctx, uint64_t pc, model_uop *u);
    void *ctx;
} model_source;

/* Core parameters (defaults: the TEA paper's BOOM, docs/semantics.md §7). */
typedef struct model_config {
    unsigned width;              /* dispatch/commit width = µops per ROB row */
    unsigned fetch_width;        /* µops fetched per cycle */
    unsigned rob_size;           /* ROB entries, a multiple of width */
    unsigned lsq_size;           /* loads and stores in flight */
    unsigned fetch_buffer;       /* µops between fetch and dispatch */
    unsigned frontend_latency;   /* cycles from fetch to dispatch */
    unsigned redirect_penalty;   /* cycles to refetch after a misprediction resolves */
    unsigned flush_penalty;      /* cycles to refetch after a flush at commit */
    unsigned exception_penalty;  /* cycles a trap takes before the handler returns */
} model_config;

/* Fills `cfg` with the defaults. */
void model_config_defaults(model_config *cfg);

/* Checks a configuration; TEA_ERR_USAGE with a message when inconsistent. */
int model_config_check(const model_config *cfg);

/* Counters kept while running. */
typedef struct model_stats {
    uint64_t cycles;             /* cycles simulated */
    uint64_t fetched;            /* µops fetched (wrong path included) */
    uint64_t dispatched;         /* µops dispatched into the ROB */
    uint64_t committed;
    uint64_t squashed;           /* µops squashed (wrong path and flushed) */
    uint64_t wrong_path;         /* wrong-path µops dispatched */
    uint64_t exceptions;
    uint64_t flushes;            /* pipeline flushes (commit, exception, ordering) */
    uint64_t max_window;         /* largest ROB occupancy seen (entries) */
    uint64_t in_flight;          /* µops left in the ROB when the run ended */
} model_stats;

/* Receives full batches of records; returns 0 or an error code to stop. */
typedef int (*model_emit_fn)(void *ctx, const trace_batch *batch);

typedef struct model_core model_core;

/* Creates a core. TEA_ERR_USAGE for a bad configuration, TEA_ERR_NOMEM. */
int model_core_create(model_core **out, const model_config *cfg, const model_source *src);

/* Runs from cycle `first_cycle` (the origin record) until the source ends and
 * the pipeline drains, or until the next record would lie beyond
 * first_cycle + max_cycles. Records go to `emit` in batches; the last partial
 * batch is emitted before returning. Returns 0 or the first error of emit. */
int model_core_run(model_core *m, uint64_t first_cycle, uint64_t max_cycles, model_emit_fn emit, void *ctx);

/* Counters so far. */
const model_stats *model_core_stats(const model_core *m);

void model_core_free(model_core *m);

#endif
