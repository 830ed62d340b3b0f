/*
 * core.h: a trace-driven out-of-order core model that writes commit-stage
 * records.
 *
 * The model times a stream of dynamic instructions through a BOOM-like core
 * (docs/model.md): a front end that fetches up to `fetch_width` µops per cycle
 * through an L1 instruction cache and TLB, predicting branches with a real
 * predictor (TAGE or gshare, BTB, return stack); in-order dispatch of one ROB
 * row of up to `width` µops per cycle, held when the load/store queue is full;
 * execution after each µop's functional-unit latency, loads and stores going
 * through the data TLBs and the cache hierarchy (model/memory.h, model/tlb.h);
 * and in-order commit of up to `width` µops of the head row per cycle.
 * Mispredicted branches fetch and dispatch wrong-path µops until they resolve;
 * flush-on-commit µops, exceptions (including a page fault on the first touch
 * of a data page) and memory-ordering violations flush and refetch.
 *
 * The source of instructions only says what each instruction does (class,
 * addresses, branch outcome); every event of the PSV comes from the model's
 * structures, for the reason the PSV names. The model emits exactly the
 * records of docs/trace-format.md, so the golden reference of the replay
 * engine is the model's ground truth.
 */
#ifndef TEA_MODEL_CORE_H
#define TEA_MODEL_CORE_H

#include "config.h"
#include "trace/record.h"

#include <stdint.h>
#include <stddef.h>

/* Instruction classes: they select a functional-unit latency. */
typedef enum model_class {
    MODEL_INT = 0,
    MODEL_MUL,
    MODEL_DIV,
    MODEL_FP_ADD,
    MODEL_FP_MUL,
    MODEL_FP_DIV,
    MODEL_FP_SQRT,
    MODEL_LOAD,       /* reads memory at `addr` (and may also write it: MODEL_INSN_STORE) */
    MODEL_STORE,      /* writes memory at `addr` */
    MODEL_BRANCH,     /* any control transfer; see model_insn.branch */
    MODEL_SERIAL,     /* fence, system call, CSR write: flushes the pipeline at commit */
    MODEL_CLASS_COUNT
} model_class;

/* model_insn.flags */
#define MODEL_INSN_TAKEN 0x01u   /* control flow goes to `target` */
#define MODEL_INSN_FLUSH 0x02u   /* flushes the pipeline when it commits (FL-EX) */
#define MODEL_INSN_TRAP 0x04u    /* raises an exception when it reaches commit, then re-executes */
#define MODEL_INSN_STORE 0x08u   /* a load that also writes `addr` (read-modify-write) */

/* model_insn.branch: none, or 1 + model_bpred_kind. */
#define MODEL_BRANCH_NONE 0

/* One dynamic instruction as its source knows it: what it does, not what
 * happens to it in the core. */
typedef struct model_insn {
    uint64_t pc;
    uint64_t target;     /* control flow: where it goes when taken */
    uint64_t addr;       /* loads and stores: the effective address */
    uint16_t mem_size;   /* bytes accessed (loads and stores) */
    uint16_t dep;        /* distance back to the instruction producing its input (0: none) */
    uint8_t size;        /* instruction bytes */
    uint8_t cls;         /* model_class */
    uint8_t branch;      /* MODEL_BRANCH_NONE or 1 + model_bpred_kind */
    uint8_t flags;       /* MODEL_INSN_* */
} model_insn;

/* model_source.next's answer for a window boundary of a sampled recording:
 * no instruction; the core drains (every instruction in flight commits)
 * before it asks again, and tells model_core_set_window. */
#define MODEL_SOURCE_WINDOW 2

/* Where instructions come from. */
typedef struct model_source {
    /* Fills *insn with the next correct-path instruction; returns 1, 0 at the
     * end of the program, MODEL_SOURCE_WINDOW, or a negative TEA_ERR_* code
     * (message set). */
    int (*next)(void *ctx, model_insn *insn);
    /* Fills *insn with the instruction the front end finds at `pc` when it
     * fetches down a wrong path (its `size` says where the next one is). */
    void (*wrong_path)(void *ctx, uint64_t pc, model_insn *insn);
    void *ctx;
} model_source;

/* Counters kept while running. */
typedef struct model_stats {
    uint64_t cycles;             /* cycles simulated */
    uint64_t instructions;       /* correct-path instructions taken from the source */
    uint64_t fetched;            /* µops fetched (wrong path included) */
    uint64_t dispatched;         /* µops dispatched into the ROB */
    uint64_t committed;
    uint64_t squashed;           /* µops squashed (wrong path and flushed) */
    uint64_t wrong_path;         /* wrong-path µops dispatched */
    uint64_t exceptions;         /* µops that excepted (traps and page faults) */
    uint64_t page_faults;        /* first touches of a data page */
    uint64_t mispredicts;        /* branches resolved as mispredicted */
    uint64_t misfetches;         /* branches redirected at decode (BTB misses) */
    uint64_t order_failures;     /* loads refetched after running ahead of an older store */
    uint64_t flushes;            /* pipeline flushes (commit, exception, ordering) */
    uint64_t max_window;         /* largest ROB occupancy seen (entries) */
    uint64_t in_flight;          /* µops left in the ROB when the run ended */
    uint64_t warmed;             /* instructions given to model_core_warm */
} model_stats;

/* Receives full batches of records; returns 0 or an error code to stop. */
typedef int (*model_emit_fn)(void *ctx, const trace_batch *batch);

/* Progress callback: called every MODEL_PROGRESS_INSNS instructions. */
typedef void (*model_progress_fn)(void *ctx, const model_stats *stats);
#define MODEL_PROGRESS_INSNS (1u << 20)

typedef struct model_core model_core;

/* Creates a core with its caches, TLBs and predictor. TEA_ERR_USAGE for a bad
 * configuration (model_config_check), TEA_ERR_NOMEM. */
int model_core_create(model_core **out, const model_config *cfg, const model_source *src);

/* Reports progress to `fn` while running (NULL: none). */
void model_core_set_progress(model_core *m, model_progress_fn fn, void *ctx);

/* Window callback: the window before a MODEL_SOURCE_WINDOW boundary ended
 * with the record at `last_cycle` (its last commit); the next one starts
 * after it. */
typedef int (*model_window_fn)(void *ctx, uint64_t last_cycle);

/* Tells `fn` of every window boundary (NULL: none). Its error stops the run. */
void model_core_set_window(model_core *m, model_window_fn fn, void *ctx);

/* Runs from cycle `first_cycle` (the origin record) until the source ends and
 * the pipeline drains, or until the next record would lie beyond
 * first_cycle + max_cycles (0: no limit). A trace never ends on a squash.
 * Records go to `emit` in batches; the last partial batch is emitted before
 * returning. Returns 0, the source's error, or the first error of emit. */
int model_core_run(model_core *m, uint64_t first_cycle, uint64_t max_cycles, model_emit_fn emit, void *ctx);

/* Warms the caches, TLBs and branch predictor with `insn` as if it had run
 * before the first cycle (and marks its data page touched), without timing
 * it or emitting anything: the warm-up of a fast-forward (tea record
 * --warmup). Call before model_core_run, or from the source's `next` while
 * it runs, before returning the instructions it warms ahead of. The caches'
 * and predictor's statistics count these accesses too. */
void model_core_warm(model_core *m, const model_insn *insn);

/* Places `count` lines (their addresses) in the L1 D (in_llc 0) or the
 * LLC (1), each most recently used in turn, untimed: the contents of
 * caches kept warm through a fast-forward elsewhere (tea record
 * --warm-caches), given least recently used first per set. Call where
 * model_core_warm may be called. */
void model_core_place_lines(model_core *m, int in_llc, const uint64_t *addrs, size_t count);

/* Trains the branch predictor with branch `insn` (its pc, size, branch
 * kind, whether taken and target), untimed: a branch of a fast-forward
 * (tea record --branch-warmup). Nothing else of the core changes. Call
 * where model_core_warm may be called. */
void model_core_train_branch(model_core *m, const model_insn *insn);

/* Marks the data pages holding `addrs` touched, untimed (no page fault
 * when the core.page_faults model is on): pages a fast-forward touched
 * first (tea record --warm-caches). */
void model_core_touch_pages(model_core *m, const uint64_t *addrs, size_t count);

/* Counters so far. */
const model_stats *model_core_stats(const model_core *m);

/* The structures, for their statistics. */
const struct model_mem *model_core_memory(const model_core *m);
const struct model_tlb *model_core_tlb(const model_core *m);
const struct model_bpred *model_core_bpred(const model_core *m);

void model_core_free(model_core *m);

/*
 * Whether the model's ROB is sound between cycles: head and tail within
 * the ROB, the rows in use from the head's row to the tail, the window
 * (entries from the head to the end of the last row) what they hold, no
 * entry valid outside it, the load/store queue counting the memory µops in
 * it, the correct-path µops in program order (sequence numbers increasing
 * from the head), and the wrong-path ones only behind a mispredicted
 * branch that is pending. Returns 1 when sound, 0 otherwise, so that
 * assert(model_core_check(m)) reads as the claim; O(ROB entries), for
 * phase boundaries of Debug builds (each batch handed out) and for tests.
 */
int model_core_check(const model_core *m);

#endif
