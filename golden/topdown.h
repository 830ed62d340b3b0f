/*
 * topdown.h: where the cycles of a trace go, in two views (docs/topdown.md).
 *
 *  - Commit states: the golden reference's four states (Compute, Stalled,
 *    Drained, Flushed), in cycles. The cycles of the last three are split by
 *    the component (whole PSV value) of the µop they are charged to.
 *  - Commit slots, the view of Intel's top-down method (TMA) and Arm's
 *    Neoverse top-down: every cycle has W slots (W the commit width), each
 *    Retiring, Bad speculation, Frontend bound or Backend bound. The slots
 *    are split by the component of the µop they are charged to as well.
 *
 * Both are kept for the whole trace and, when the caller supplies a function
 * locator, for every function, for PCs outside every function and for the
 * cycles no µop can be charged with. All counts are exact integers: the
 * states sum to the trace's span, the slots to W times the span, and the
 * functions to the whole trace. Memory is constant in the trace's length
 * (per-function tables grow with the functions and components seen).
 *
 * The analysis runs its own golden reference: feed it every record once, in
 * order (golden_topdown_feed), then call golden_topdown_finish.
 */
#ifndef TEA_GOLDEN_TOPDOWN_H
#define TEA_GOLDEN_TOPDOWN_H

#include "golden/golden.h"
#include "trace/psv.h"
#include "trace/record.h"

#include <stddef.h>
#include <stdint.h>

/* The two views. */
enum golden_topdown_view {
    GOLDEN_TOPDOWN_VIEW_STATES = 0, /* categories: enum golden_state */
    GOLDEN_TOPDOWN_VIEW_SLOTS = 1,  /* categories: enum golden_topdown_category */
    GOLDEN_TOPDOWN_VIEW_COUNT = 2
};

/* The slot categories, TMA's level 1. */
enum golden_topdown_category {
    GOLDEN_TOPDOWN_RETIRING = 0,        /* a µop commits in the slot */
    GOLDEN_TOPDOWN_BAD_SPECULATION = 1, /* lost to a flush and its recovery */
    GOLDEN_TOPDOWN_FRONTEND_BOUND = 2,  /* the ROB had run dry: the front end had delivered nothing to commit */
    GOLDEN_TOPDOWN_BACKEND_BOUND = 3,   /* the next µop was in the ROB but not done */
    GOLDEN_TOPDOWN_CATEGORY_COUNT = 4
};

/*
 * TMA's level 2 of the slots where the PSV can tell (docs/topdown.md,
 * "Level 2"), named as toplev names them; each pair splits one level-1
 * category exactly (Retiring is not split: the trace cannot tell light from
 * heavy operations).
 */
enum golden_topdown_level2 {
    GOLDEN_TOPDOWN_FETCH_LATENCY = 0,      /* Frontend bound: whole cycles with nothing to commit (Drained) */
    GOLDEN_TOPDOWN_FETCH_BANDWIDTH = 1,    /* Frontend bound: the rest of a commit row when the ROB ran dry */
    GOLDEN_TOPDOWN_BRANCH_MISPREDICTS = 2, /* Bad speculation charged to a µop with FL-MB */
    GOLDEN_TOPDOWN_MACHINE_CLEARS = 3,     /* Bad speculation otherwise (FL-EX, exceptions, FL-MO) */
    GOLDEN_TOPDOWN_MEMORY_BOUND = 4,       /* Backend bound charged to a µop with ST-L1, ST-TLB, ST-LLC or DR-SQ */
    GOLDEN_TOPDOWN_CORE_BOUND = 5,         /* Backend bound otherwise */
    GOLDEN_TOPDOWN_LEVEL2_COUNT = 6
};

/* "Frontend_Bound.Fetch_Latency", ..., "Backend_Bound.Core_Bound" (toplev's
 * names), "?" for anything else. */
const char *golden_topdown_level2_name(enum golden_topdown_level2 node);

/* The level-1 category a level-2 node splits. */
enum golden_topdown_category golden_topdown_level2_parent(enum golden_topdown_level2 node);

/* Categories per view (both views have four). */
#define GOLDEN_TOPDOWN_CATEGORIES 4

/* The component of cycles and slots that no µop can be charged with (after
 * the last commit of the trace); components 0..511 are PSV values. */
#define GOLDEN_TOPDOWN_NO_UOP TRACE_PSV_VALUES
#define GOLDEN_TOPDOWN_COMPONENTS (TRACE_PSV_VALUES + 1)

/* Scope of the whole trace, for the accessors below. */
#define GOLDEN_TOPDOWN_WHOLE (-1L)

/* "retiring", "bad_speculation", "frontend_bound", "backend_bound". */
const char *golden_topdown_category_name(enum golden_topdown_category category);

/* Maps a PC to its function: an index in [0, functions) or -1 when the PC
 * lies outside every function. */
typedef long (*golden_topdown_locate_fn)(void *ctx, uint64_t pc);

typedef struct golden_topdown_options {
    unsigned commit_width;      /* the trace header's commit width (1..TRACE_MAX_WIDTH) */
    unsigned initial_window;    /* ROB entries before the first record (header) */
    size_t functions;           /* functions `locate` knows (maybe 0) */
    golden_topdown_locate_fn locate; /* NULL: no per-function tables */
    void *locate_ctx;
} golden_topdown_options;

/* The totals of one scope. */
typedef struct golden_topdown_counts {
    uint64_t state_unit;                     /* states are in 1/state_unit cycles: 1 for the
                                                whole trace, golden_topdown_unit(W) for a function,
                                                where a compute cycle is split among its µops */
    uint64_t states[GOLDEN_STATE_COUNT];     /* per commit state, in 1/state_unit cycles */
    uint64_t slots[GOLDEN_TOPDOWN_CATEGORY_COUNT]; /* commit slots per category */
    uint64_t level2[GOLDEN_TOPDOWN_LEVEL2_COUNT];  /* the same slots split at level 2 (each pair sums
                                               to its parent's slots) */
} golden_topdown_counts;

/* Whole-trace facts. */
typedef struct golden_topdown_summary {
    unsigned commit_width;   /* W: slots per cycle */
    uint64_t origin;         /* cycle of the first record (not itself counted) */
    uint64_t last_cycle;     /* cycle of the last record */
    uint64_t cycles;         /* the span, last_cycle - origin (weighted windows: the cycles they stand for) */
    uint64_t slots;          /* W x cycles */
    uint64_t commits;        /* µops committed after the origin (the retiring slots) */
    uint64_t exceptions;     /* µops that excepted after the origin */
    uint64_t dispatched;     /* ROB entries allocated, the origin's included */
    uint64_t squashed;       /* ROB entries squashed (wrong path), the origin's included */
    uint64_t unattributed;   /* cycles after the last commit charged to no µop */
} golden_topdown_summary;

/* One entry of a category's split by component. */
typedef struct golden_topdown_component {
    uint16_t psv;            /* PSV value, or GOLDEN_TOPDOWN_NO_UOP */
    uint64_t value;          /* cycles (in the scope's state_unit) or slots */
} golden_topdown_component;

typedef struct golden_topdown golden_topdown;

/* lcm(1..width): the unit (per cycle) in which splitting a compute cycle
 * among up to `width` µops is exact. 0 for a width outside 1..TRACE_MAX_WIDTH. */
uint64_t golden_topdown_unit(unsigned width);

/* Creates an analysis. Errors: TEA_ERR_USAGE (a commit width outside
 * 1..TRACE_MAX_WIDTH), TEA_ERR_NOMEM. */
int golden_topdown_create(golden_topdown **out, const golden_topdown_options *opts);

/* Consumes a batch of records validated by a reader (trace_reader_read or
 * equivalent), following the previous batch. Returns 0, TEA_ERR_NOMEM (the
 * analysis then only allows golden_topdown_free), TEA_ERR_USAGE after
 * golden_topdown_finish, and with weighted windows TEA_ERR_FORMAT (the
 * first ends before the first record) or TEA_ERR_UNSUPPORTED (the weighted
 * counts would overflow 64 bits). */
int golden_topdown_feed(golden_topdown *td, const trace_batch *batch);

/* Ends the trace: charges the trailing cycles and sorts the components.
 * Returns 0 or TEA_ERR_NOMEM. Calling it again does nothing. */
int golden_topdown_finish(golden_topdown *td);

/* The whole-trace facts (complete after golden_topdown_finish). */
const golden_topdown_summary *golden_topdown_get_summary(const golden_topdown *td);

/* The golden reference's totals, for cross-checks. */
const golden_totals *golden_topdown_get_golden(const golden_topdown *td);

/* Scopes besides the whole trace: the functions 0..F-1, then F for PCs
 * outside every function and F+1 for what no µop can be charged with; 0
 * without a locator. */
size_t golden_topdown_scope_count(const golden_topdown *td);

/* The totals of `scope` (GOLDEN_TOPDOWN_WHOLE or 0..golden_topdown_scope_count-1), or NULL
 * when out of range. */
const golden_topdown_counts *golden_topdown_get_counts(const golden_topdown *td, long scope);

/* The split of one category of one view in one scope by component, largest
 * first (ties by PSV), zero entries left out; the values sum to the
 * category's total, except for the compute state, which is not split.
 * Stores a pointer valid until golden_topdown_free in *out and returns the count;
 * 0 before golden_topdown_finish or for an unknown scope, view or category. */
size_t golden_topdown_get_components(const golden_topdown *td, long scope, enum golden_topdown_view view,
                                     unsigned category, const golden_topdown_component **out);

/*
 * Window groups of a sampled trace (docs/semantics.md, "Sampled
 * recordings"), as tea_replay_group_windows keeps them for the golden PICS:
 * the whole trace's counts (states, slots, level 2) are also kept per group,
 * the charges of window w (the records up to ends[w]) going to group w mod
 * `groups`; charges after the last window's end stay in its group. The
 * spread of a category's share over the groups gives its interval. Call
 * before the first batch; `ends` must stay valid until the last batch is
 * fed. Errors: TEA_ERR_USAGE (fewer than two groups, fewer windows than
 * groups), TEA_ERR_NOMEM.
 */
int golden_topdown_group_windows(golden_topdown *td, const uint64_t *ends, size_t windows, unsigned groups);

/*
 * Weighted windows of a SimPoint recording (docs/semantics.md, "Sampled
 * recordings"), as tea_replay_weight_windows weights the golden PICS: every
 * charge of window w (the records up to ends[w], those past the last end
 * the last window's) counts weights[w] times, in the whole trace, the
 * functions and the components, and the summary's cycles and slots are the
 * ones the windows stand for (its commits and the span stay the trace's).
 * No groups. Call before the first batch; `ends` and `weights` must stay
 * valid until golden_topdown_finish. Errors: TEA_ERR_USAGE (no windows, a
 * weight of 0).
 */
int golden_topdown_weight_windows(golden_topdown *td, const uint64_t *ends, const uint64_t *weights, size_t windows);

/* Each group's whole-trace counts (complete after finish; state_unit 1), and
 * *count of them (0 and NULL without groups). */
const golden_topdown_counts *golden_topdown_get_group_counts(const golden_topdown *td, unsigned *count);

/* Frees the analysis. Safe on NULL. */
void golden_topdown_free(golden_topdown *td);

/* Rounds the shares counts[i] / sum(counts) to integers that add up to
 * exactly `units` (largest-remainder method: every result is the share's
 * floor or ceiling, the leftover units going to the largest remainders,
 * earlier entries first on ties). With a zero sum every result is 0. Used
 * to print percentages that add up to 100 at the printed precision.
 * Returns 0 or TEA_ERR_NOMEM. */
int golden_topdown_apportion(const uint64_t *counts, size_t n, uint64_t units, uint64_t *out);

#endif
