/*
 * topdown.c: commit states and commit slots of a trace, per component and
 * per function (see topdown.h; the mapping is in docs/topdown.md).
 */
#include "topdown.h"
#include "common/error.h"
#include "common/search.h"
#include "common/exact.h"
#include "trace/objects.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Records handed to golden_intervals at a time. */
#define TOPDOWN_RUN 256
/* Initial slots of the per-function component table (a power of two). */
#define TOPDOWN_TABLE_INITIAL 1024u
/* Bits of a table key: the PSV (or GOLDEN_TOPDOWN_NO_UOP), then view and category. */
#define TOPDOWN_KEY_PSV_BITS 10
#define TOPDOWN_KEY_CATEGORY_BITS 3


/* One cell of the per-function table: key 0 marks an empty slot. */
typedef struct table_cell {
    uint64_t key;    /* (scope + 1, view * 4 + category, component) packed */
    uint64_t value;  /* cycles in 1/unit (states) or slots */
} table_cell;

/* A sorted run of components: one (scope, view, category). */
typedef struct component_run {
    uint64_t key;    /* the packed key with component 0 */
    size_t first;    /* index into the sorted component array */
    size_t count;
} component_run;

struct golden_topdown {
    golden g;
    unsigned width;               /* commit slots per cycle */
    uint64_t unit;                /* lcm(1..width) */
    unsigned window;              /* ROB entries after the previous record */
    int started;                  /* the origin record was seen */
    int finished;
    int failed;                   /* an allocation failed; only free is allowed */
    int per_function;             /* a locator was given: keep the scopes */

    /* Lost slots of the last compute cycle that wait for the next µop. */
    uint64_t pending_slots;
    enum golden_topdown_category pending_category;
    uint64_t pending_weight;                /* ... at the weight and in the group of the */
    golden_topdown_counts *pending_group;   /* window the cycle is in */

    golden_topdown_summary summary;
    golden_topdown_counts whole;

    /* Window groups of a sampled trace (golden_topdown_group_windows): the
     * whole trace's counts of the windows of each group. */
    golden_topdown_counts *group_counts; /* [groups], NULL without */
    unsigned groups;
    const uint64_t *window_ends;  /* each window's last cycle, increasing */
    size_t windows;
    size_t window_at;             /* the window of the record being charged */
    golden_topdown_counts *group; /* group_counts[window_at % groups], or NULL */
    const uint64_t *weights;      /* weighted windows (golden_topdown_weight_windows), or NULL */
    uint64_t weight;              /* the weight of the record being charged: every charge counts so often */
    uint64_t unweighted[GOLDEN_STATE_COUNT]; /* the cycles charged per state, each once */
    uint64_t whole_components[GOLDEN_TOPDOWN_VIEW_COUNT][GOLDEN_TOPDOWN_CATEGORIES][GOLDEN_TOPDOWN_COMPONENTS];

    /* Per function (only with a locator). */
    size_t functions;             /* F; scopes are F + 2 */
    golden_topdown_locate_fn locate;
    void *locate_ctx;
    golden_topdown_counts *scopes; /* [F + 2] */
    table_cell *table;            /* open addressing, `table_capacity` a power of two */
    size_t table_capacity, table_used;

    /* Sorted components after finish. */
    golden_topdown_component *sorted;
    size_t sorted_count;
    component_run *runs;
    size_t run_count;
};

const char *golden_topdown_category_name(enum golden_topdown_category category)
{
    static const char *const names[GOLDEN_TOPDOWN_CATEGORY_COUNT] = { "retiring", "bad_speculation", "frontend_bound",
                                                                      "backend_bound" };
    return (unsigned)category < GOLDEN_TOPDOWN_CATEGORY_COUNT ? names[category] : "?";
}

const char *golden_topdown_level2_name(enum golden_topdown_level2 node)
{
    static const char *const names[GOLDEN_TOPDOWN_LEVEL2_COUNT] = {
        "Frontend_Bound.Fetch_Latency",   "Frontend_Bound.Fetch_Bandwidth", "Bad_Speculation.Branch_Mispredicts",
        "Bad_Speculation.Machine_Clears", "Backend_Bound.Memory_Bound",     "Backend_Bound.Core_Bound",
    };
    return (unsigned)node < GOLDEN_TOPDOWN_LEVEL2_COUNT ? names[node] : "?";
}

enum golden_topdown_category golden_topdown_level2_parent(enum golden_topdown_level2 node)
{
    assert((unsigned)node < GOLDEN_TOPDOWN_LEVEL2_COUNT);
    return node <= GOLDEN_TOPDOWN_FETCH_BANDWIDTH  ? GOLDEN_TOPDOWN_FRONTEND_BOUND
           : node <= GOLDEN_TOPDOWN_MACHINE_CLEARS ? GOLDEN_TOPDOWN_BAD_SPECULATION
                                                   : GOLDEN_TOPDOWN_BACKEND_BOUND;
}

/* The PSV events that make Backend-bound slots Memory bound: the µop missed
 * in the data cache, the data TLB or the LLC, or waited for a full load or
 * store queue (TMA's Store_Bound is under Memory_Bound). */
#define TOPDOWN_MEMORY_EVENTS                                                                                          \
    ((1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_TLB) | (1u << TRACE_PSV_ST_LLC) | (1u << TRACE_PSV_DR_SQ))

/* The level-2 node of slots of `category` charged to `component`;
 * `whole_cycle` when they are all W slots of a cycle in which nothing
 * commits. -1 (no node) for Retiring, which is not split. */
static int level2_of(enum golden_topdown_category category, unsigned component, int whole_cycle)
{
    unsigned events = component == GOLDEN_TOPDOWN_NO_UOP ? 0 : component;
    switch (category) {
    case GOLDEN_TOPDOWN_FRONTEND_BOUND:
        return whole_cycle ? GOLDEN_TOPDOWN_FETCH_LATENCY : GOLDEN_TOPDOWN_FETCH_BANDWIDTH;
    case GOLDEN_TOPDOWN_BAD_SPECULATION:
        return events & (1u << TRACE_PSV_FL_MB) ? GOLDEN_TOPDOWN_BRANCH_MISPREDICTS : GOLDEN_TOPDOWN_MACHINE_CLEARS;
    case GOLDEN_TOPDOWN_BACKEND_BOUND:
        return events & TOPDOWN_MEMORY_EVENTS ? GOLDEN_TOPDOWN_MEMORY_BOUND : GOLDEN_TOPDOWN_CORE_BOUND;
    default:
        assert(category == GOLDEN_TOPDOWN_RETIRING);
        return -1;
    }
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

uint64_t golden_topdown_unit(unsigned width)
{
    uint64_t l = 1;
    if (width < 1 || width > TRACE_MAX_WIDTH)
        return 0;
    for (uint64_t k = 2; k <= width; k++)
        l = l / gcd(l, k) * k;
    return l;
}

int golden_topdown_create(golden_topdown **out, const golden_topdown_options *opts)
{
    golden_topdown *td;
    size_t scopes;

    *out = NULL;
    if (!golden_topdown_unit(opts->commit_width))
        return error_set(TEA_ERR_USAGE, "commit width %u is outside 1..%u", opts->commit_width, TRACE_MAX_WIDTH);
    if (!(td = calloc(1, sizeof *td)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    td->width = opts->commit_width;
    td->unit = golden_topdown_unit(opts->commit_width);
    td->window = opts->initial_window;
    td->weight = 1;
    td->whole.state_unit = 1;
    td->summary.commit_width = opts->commit_width;
    golden_init(&td->g, opts->initial_window);
    if (opts->locate) {
        scopes = opts->functions + 2;
        td->per_function = 1;
        td->functions = opts->functions;
        td->locate = opts->locate;
        td->locate_ctx = opts->locate_ctx;
        td->table_capacity = TOPDOWN_TABLE_INITIAL;
        td->scopes = calloc(scopes, sizeof *td->scopes);
        td->table = calloc(td->table_capacity, sizeof *td->table);
        if (!td->scopes || !td->table) {
            golden_topdown_free(td);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < scopes; i++)
            td->scopes[i].state_unit = td->unit;
    }
    *out = td;
    return TEA_OK;
}

static uint64_t pack_key(size_t scope, unsigned view_category, unsigned component)
{
    return (((uint64_t)scope + 1) << (TOPDOWN_KEY_PSV_BITS + TOPDOWN_KEY_CATEGORY_BITS))
         | ((uint64_t)view_category << TOPDOWN_KEY_PSV_BITS) | component;
}

static size_t key_slot(uint64_t key, size_t capacity)
{
    const uint64_t multiplier = 0x9E3779B97F4A7C15ull; /* 2^64 / golden ratio */
    return (size_t)((key * multiplier) >> 32) & (capacity - 1);
}

/* Doubles the per-function table. */
static int table_grow(golden_topdown *td)
{
    size_t capacity = td->table_capacity * 2;
    table_cell *cells = calloc(capacity, sizeof *cells);
    if (!cells)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < td->table_capacity; i++) {
        size_t s;
        if (!td->table[i].key)
            continue;
        s = key_slot(td->table[i].key, capacity);
        while (cells[s].key)
            s = (s + 1) & (capacity - 1);
        cells[s] = td->table[i];
    }
    free(td->table);
    td->table = cells;
    td->table_capacity = capacity;
    return TEA_OK;
}

/* Adds `value` to a cell of the per-function table, creating it. */
static void table_add(golden_topdown *td, size_t scope, unsigned view_category, unsigned component, uint64_t value)
{
    uint64_t key = pack_key(scope, view_category, component);
    size_t s;

    if (td->failed)
        return;
    s = key_slot(key, td->table_capacity);
    while (td->table[s].key && td->table[s].key != key)
        s = (s + 1) & (td->table_capacity - 1);
    if (!td->table[s].key) {
        if (2 * (td->table_used + 1) > td->table_capacity) {
            if (table_grow(td)) {
                td->failed = 1;
                return;
            }
            table_add(td, scope, view_category, component, value);
            return;
        }
        td->table[s].key = key;
        td->table_used++;
    }
    td->table[s].value += value;
}

/* The scope of a µop's PC: its function, or the "outside" scope. */
static size_t scope_of(const golden_topdown *td, uint64_t pc)
{
    long f = td->locate(td->locate_ctx, pc);
    return f >= 0 && (size_t)f < td->functions ? (size_t)f : td->functions;
}

/* The scope of cycles no µop can be charged with. */
static size_t unattributed_scope(const golden_topdown *td)
{
    return td->functions + 1;
}

/* Charges `cycles` whole cycles in a non-compute state, with the component
 * of the µop they go to, to the whole trace and to `scope`. */
static void charge_state(golden_topdown *td, size_t scope, enum golden_state state, unsigned component, uint64_t cycles)
{
    if (!cycles)
        return;
    td->unweighted[state] += cycles;
    cycles *= td->weight;
    td->whole.states[state] += cycles;
    if (td->group)
        td->group->states[state] += cycles;
    td->whole_components[GOLDEN_TOPDOWN_VIEW_STATES][state][component] += cycles;
    if (td->per_function) {
        td->scopes[scope].states[state] += cycles * td->unit;
        table_add(td, scope, GOLDEN_TOPDOWN_VIEW_STATES * GOLDEN_TOPDOWN_CATEGORIES + state, component,
                  cycles * td->unit);
    }
}

/* Charges `slots` slots of a category to the whole trace and to `scope`
 * (`whole_cycle`: they are all the slots of cycles in which nothing
 * commits, for level 2). Frontend-bound slots of a µop refetched after a
 * memory-ordering violation are recovery from that flush: bad speculation
 * (docs/topdown.md). */
static void charge_slots(golden_topdown *td, size_t scope, enum golden_topdown_category category, unsigned component,
                         uint64_t slots, int whole_cycle)
{
    int node;
    if (!slots)
        return;
    slots *= td->weight;
    if (category == GOLDEN_TOPDOWN_FRONTEND_BOUND && component != GOLDEN_TOPDOWN_NO_UOP
        && (component & (1u << TRACE_PSV_FL_MO)))
        category = GOLDEN_TOPDOWN_BAD_SPECULATION;
    node = level2_of(category, component, whole_cycle);
    if (td->group) {
        td->group->slots[category] += slots;
        if (node >= 0)
            td->group->level2[node] += slots;
    }
    if (node >= 0) {
        td->whole.level2[node] += slots;
        if (td->per_function)
            td->scopes[scope].level2[node] += slots;
    }
    td->whole.slots[category] += slots;
    td->whole_components[GOLDEN_TOPDOWN_VIEW_SLOTS][category][component] += slots;
    if (td->per_function) {
        td->scopes[scope].slots[category] += slots;
        table_add(td, scope, GOLDEN_TOPDOWN_VIEW_SLOTS * GOLDEN_TOPDOWN_CATEGORIES + category, component, slots);
    }
}

/* Charges the slots the last compute cycle left (pending_slots) to
 * `scope` and `component`, at the weight and in the window group of that
 * cycle, so that every cycle's W slots count where the cycle does. */
static void charge_pending(golden_topdown *td, size_t scope, unsigned component)
{
    uint64_t weight = td->weight;
    golden_topdown_counts *group = td->group;

    td->weight = td->pending_weight;
    td->group = td->pending_group;
    charge_slots(td, scope, td->pending_category, component, td->pending_slots, 0);
    td->weight = weight;
    td->group = group;
    td->pending_slots = 0;
}

/* The µop's scope (the "outside" one when there are no functions, unused). */
static size_t uop_scope(const golden_topdown *td, const trace_uop *u)
{
    return td->per_function ? scope_of(td, u->pc) : 0;
}

/* Charges one golden interval: its flush window, the wait for its first
 * µop, and its own cycle. `rob_after_retire` is the ROB occupancy after the
 * closing record's retirement (unused for the trailing flush window). */
static void charge_interval(golden_topdown *td, const golden_interval *iv, unsigned rob_after_retire)
{
    const unsigned w = td->width;
    uint64_t flushed = iv->refill - iv->start;

    /* The interval's parts in order; its drained cycles are among those waited. */
    assert(iv->start <= iv->refill
           && (!iv->uops || (iv->refill <= iv->cycle && iv->drained <= iv->cycle - iv->refill)));
    if (flushed) {
        size_t s = uop_scope(td, &iv->flush_cause);
        unsigned c = iv->flush_cause.psv & TRACE_PSV_MASK_ALL;
        charge_state(td, s, GOLDEN_FLUSHED, c, flushed);
        charge_slots(td, s, GOLDEN_TOPDOWN_BAD_SPECULATION, c, flushed * w, 1);
    }
    if (!iv->uops)
        return;
    {
        const trace_uop *head = &iv->uops[0];
        size_t s = uop_scope(td, head);
        uint64_t waiting = iv->cycle - iv->refill;
        uint64_t stalled = waiting - iv->drained;
        unsigned n = iv->n_commit, uops = n + (iv->exception ? 1u : 0u);
        const trace_uop *last = &iv->uops[uops - 1];
        unsigned c = head->psv & TRACE_PSV_MASK_ALL; /* the component of the µop waited for */

        /* Slots the previous compute cycle could not fill wait for this µop. */
        charge_pending(td, s, c);
        charge_state(td, s, GOLDEN_DRAINED, c, iv->drained);
        charge_slots(td, s, GOLDEN_TOPDOWN_FRONTEND_BOUND, c, iv->drained * w, 1);
        charge_state(td, s, GOLDEN_STALLED, c, stalled);
        charge_slots(td, s, GOLDEN_TOPDOWN_BACKEND_BOUND, c, stalled * w, 1);
        if (n == 0) {
            /* An exception's own cycle: Stalled, and all its slots are lost
             * to the flush it starts. */
            charge_state(td, s, GOLDEN_STALLED, c, 1);
            charge_slots(td, s, GOLDEN_TOPDOWN_BAD_SPECULATION, c, w, 1);
            td->summary.exceptions++;
            return;
        }
        td->unweighted[GOLDEN_COMPUTE]++;
        td->whole.states[GOLDEN_COMPUTE] += td->weight;
        if (td->group)
            td->group->states[GOLDEN_COMPUTE]++;
        td->summary.commits += n;
        td->summary.exceptions += iv->exception;
        for (unsigned i = 0; i < n; i++) {
            size_t si = uop_scope(td, &iv->uops[i]);
            if (td->per_function)
                td->scopes[si].states[GOLDEN_COMPUTE] += td->unit / n * td->weight;
            charge_slots(td, si, GOLDEN_TOPDOWN_RETIRING, iv->uops[i].psv & TRACE_PSV_MASK_ALL, 1, 0);
        }
        if (n < w) {
            if (iv->exception || (last->psv & TRACE_PSV_FLUSH_CAUSE_MASK)) {
                /* The rest of the row is lost to the flush that follows. */
                charge_slots(td, uop_scope(td, last), GOLDEN_TOPDOWN_BAD_SPECULATION, last->psv & TRACE_PSV_MASK_ALL,
                             w - n, 0);
            } else {
                /* Nothing else could commit: the ROB ran dry, or the next µop
                 * was not done. Charged to that µop, known at its commit. */
                td->pending_slots = w - n;
                td->pending_weight = td->weight;
                td->pending_group = td->group;
                td->pending_category =
                    rob_after_retire == 0 ? GOLDEN_TOPDOWN_FRONTEND_BOUND : GOLDEN_TOPDOWN_BACKEND_BOUND;
            }
        }
    }
}

/* With window groups or weights: moves to the window of a record at
 * `cycle` (records past the last window's end stay in it). */
static void enter_window(golden_topdown *td, uint64_t cycle)
{
    td->window_at = trace_sampling_window_of(td->window_ends, td->windows, td->window_at, cycle);
    if (td->groups)
        td->group = &td->group_counts[td->window_at % td->groups];
    if (td->weights)
        td->weight = td->weights[td->window_at];
}

int golden_topdown_weight_windows(golden_topdown *td, const uint64_t *ends, const uint64_t *weights, size_t windows)
{
    assert(!td->started && !td->groups && !td->weights); /* before the first batch, once */
    if (windows == 0)
        return error_set(TEA_ERR_USAGE, "weighted windows: none given");
    for (size_t k = 0; k < windows; k++)
        if (weights[k] == 0)
            return error_set(TEA_ERR_USAGE, "weighted window %zu: a weight of 0", k);
    td->window_ends = ends;
    td->weights = weights;
    td->windows = windows;
    td->window_at = 0;
    td->weight = weights[0];
    return TEA_OK;
}

int golden_topdown_group_windows(golden_topdown *td, const uint64_t *ends, size_t windows, unsigned groups)
{
    assert(!td->started && !td->groups && !td->weights); /* before the first batch, once */
    if (groups < 2 || windows < groups)
        return error_set(TEA_ERR_USAGE, "%u groups of %zu windows: need at least two groups and a window for each",
                         groups, windows);
    if (!(td->group_counts = calloc(groups, sizeof *td->group_counts)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (unsigned k = 0; k < groups; k++)
        td->group_counts[k].state_unit = 1;
    td->groups = groups;
    td->window_ends = ends;
    td->windows = windows;
    td->window_at = 0;
    td->group = &td->group_counts[0];
    return TEA_OK;
}

const golden_topdown_counts *golden_topdown_get_group_counts(const golden_topdown *td, unsigned *count)
{
    *count = td->groups;
    return td->group_counts;
}

/* Feeds a run of at most TOPDOWN_RUN records: golden intervals first, then
 * the records in order, each commit or exception paired with its interval. */
static void feed_run(golden_topdown *td, const trace_record *records, size_t count, const trace_uop *uops)
{
    golden_interval intervals[TOPDOWN_RUN];
    size_t n = golden_intervals(&td->g, records, count, uops, intervals), k = 0;

    for (size_t i = 0; i < count; i++) {
        const trace_record *r = &records[i];
        unsigned after_retire = td->window - r->retire;
        if (!td->started) {
            td->started = 1;
            td->summary.origin = r->cycle;
        } else if (trace_record_uops(r) && k < n) {
            if (td->window_ends)
                enter_window(td, r->cycle);
            charge_interval(td, &intervals[k++], after_retire);
        }
        td->summary.dispatched += r->dispatch;
        td->summary.squashed += r->squash;
        td->window = after_retire - r->squash + r->dispatch;
        td->summary.last_cycle = r->cycle;
    }
}

/* Weighted windows: the first ends at or after the trace's first record,
 * and every count the batch ending at `last` can reach (the weighted
 * cycles times the larger of the width and a function's unit) fits in 64
 * bits. 0, TEA_ERR_FORMAT or TEA_ERR_UNSUPPORTED. */
static int check_weighted(const golden_topdown *td, uint64_t origin, uint64_t last)
{
    uint64_t cycles, scale = td->unit > td->width ? td->unit : td->width;
    int rc;
    if ((rc = trace_sampling_weighted_span(td->window_ends, td->weights, td->windows, origin, last, &cycles)))
        return rc;
    if (cycles > UINT64_MAX / scale)
        return error_set(TEA_ERR_UNSUPPORTED, "the trace's weighted windows stand for more cycles than 64-bit "
                                              "counts of commit slots hold");
    return TEA_OK;
}

int golden_topdown_feed(golden_topdown *td, const trace_batch *batch)
{
    int rc;
    if (td->failed || td->finished)
        return td->failed ? TEA_ERR_NOMEM : error_set(TEA_ERR_USAGE, "golden_topdown_feed after golden_topdown_finish");
    if (td->weights && batch->count
        && (rc = check_weighted(td, td->started ? td->summary.origin : batch->records[0].cycle,
                                batch->records[batch->count - 1].cycle)))
        return rc;
    for (size_t first = 0; first < batch->count; first += TOPDOWN_RUN) {
        size_t run = batch->count - first < TOPDOWN_RUN ? batch->count - first : TOPDOWN_RUN;
        feed_run(td, batch->records + first, run, batch->uops);
    }
    return td->failed ? error_set(TEA_ERR_NOMEM, "out of memory") : TEA_OK;
}

/* Receives golden_finish's trailing flush window. */
static void trailing_interval(void *ctx, const golden_interval *iv)
{
    charge_interval(ctx, iv, 0);
}

/* Orders components largest first, then by PSV. */
static int compare_components(const void *a, const void *b)
{
    const golden_topdown_component *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return (x->psv > y->psv) - (x->psv < y->psv);
}

/* Orders table cells by (scope, view, category), the component bits masked. */
static int compare_cells(const void *a, const void *b)
{
    const table_cell *x = a, *y = b;
    uint64_t kx = x->key >> TOPDOWN_KEY_PSV_BITS, ky = y->key >> TOPDOWN_KEY_PSV_BITS;
    return (kx > ky) - (kx < ky);
}

/* Builds the sorted component runs: the whole trace's from the dense
 * arrays, the functions' from the table. */
static int sort_components(golden_topdown *td)
{
    size_t whole = 0, total, at = 0, runs_max;
    table_cell *cells = NULL;
    size_t used = 0;

    for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT; v++)
        for (int c = 0; c < GOLDEN_TOPDOWN_CATEGORIES; c++)
            for (unsigned p = 0; p < GOLDEN_TOPDOWN_COMPONENTS; p++)
                whole += td->whole_components[v][c][p] != 0;
    total = whole + td->table_used;
    runs_max = GOLDEN_TOPDOWN_VIEW_COUNT * GOLDEN_TOPDOWN_CATEGORIES + td->table_used;
    td->sorted = malloc((total ? total : 1) * sizeof *td->sorted);
    td->runs = malloc(runs_max * sizeof *td->runs);
    if (td->table_used)
        cells = malloc(td->table_used * sizeof *cells);
    if (!td->sorted || !td->runs || (td->table_used && !cells)) {
        free(cells);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    /* Whole trace: scope key 0. */
    for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT; v++) {
        for (int c = 0; c < GOLDEN_TOPDOWN_CATEGORIES; c++) {
            component_run *run = &td->runs[td->run_count++];
            run->key = ((uint64_t)(v * GOLDEN_TOPDOWN_CATEGORIES + c)) << TOPDOWN_KEY_PSV_BITS;
            run->first = at;
            for (unsigned p = 0; p < GOLDEN_TOPDOWN_COMPONENTS; p++)
                if (td->whole_components[v][c][p])
                    td->sorted[at++] = (golden_topdown_component){ (uint16_t)p, td->whole_components[v][c][p] };
            run->count = at - run->first;
            qsort(td->sorted + run->first, run->count, sizeof *td->sorted, compare_components);
        }
    }
    for (size_t i = 0; i < td->table_capacity; i++)
        if (td->table && td->table[i].key)
            cells[used++] = td->table[i];
    if (used)
        qsort(cells, used, sizeof *cells, compare_cells);
    for (size_t i = 0; i < used;) {
        uint64_t group = cells[i].key >> TOPDOWN_KEY_PSV_BITS;
        component_run *run = &td->runs[td->run_count++];
        run->key = group << TOPDOWN_KEY_PSV_BITS;
        assert(run[-1].key < run->key); /* runs sorted by key, for golden_topdown_get_components */
        run->first = at;
        for (; i < used && cells[i].key >> TOPDOWN_KEY_PSV_BITS == group; i++)
            td->sorted[at++] =
                (golden_topdown_component){ (uint16_t)(cells[i].key & ((1u << TOPDOWN_KEY_PSV_BITS) - 1)),
                                            cells[i].value };
        run->count = at - run->first;
        qsort(td->sorted + run->first, run->count, sizeof *td->sorted, compare_components);
    }
    td->sorted_count = at;
    /* Every non-zero component of the whole trace and every table cell is one. */
    assert(at == total && td->run_count <= runs_max);
    free(cells);
    return TEA_OK;
}

int golden_topdown_finish(golden_topdown *td)
{
    golden_sink sink = { trailing_interval, td };
    const golden_totals *gt;
    uint64_t tail_stalled, tail_drained;
    int rc;

    if (td->failed)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (td->finished)
        return TEA_OK;
    td->finished = 1;
    golden_finish(&td->g, &sink);
    gt = golden_get_totals(&td->g);
    /* The golden reference classified at least the cycles charged so far. */
    assert(gt->states[GOLDEN_STALLED] >= td->unweighted[GOLDEN_STALLED]
           && gt->states[GOLDEN_DRAINED] >= td->unweighted[GOLDEN_DRAINED]);
    /* The cycles after the last commit that wait for a µop that never
     * commits: classified, but charged to nobody. */
    tail_stalled = gt->states[GOLDEN_STALLED] - td->unweighted[GOLDEN_STALLED];
    tail_drained = gt->states[GOLDEN_DRAINED] - td->unweighted[GOLDEN_DRAINED];
    charge_state(td, unattributed_scope(td), GOLDEN_STALLED, GOLDEN_TOPDOWN_NO_UOP, tail_stalled);
    charge_slots(td, unattributed_scope(td), GOLDEN_TOPDOWN_BACKEND_BOUND, GOLDEN_TOPDOWN_NO_UOP,
                 tail_stalled * td->width, 1);
    charge_state(td, unattributed_scope(td), GOLDEN_DRAINED, GOLDEN_TOPDOWN_NO_UOP, tail_drained);
    charge_slots(td, unattributed_scope(td), GOLDEN_TOPDOWN_FRONTEND_BOUND, GOLDEN_TOPDOWN_NO_UOP,
                 tail_drained * td->width, 1);
    charge_pending(td, unattributed_scope(td), GOLDEN_TOPDOWN_NO_UOP);
    if (td->failed)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    td->summary.cycles = td->started ? td->summary.last_cycle - td->summary.origin : 0;
    if (td->weights) { /* the cycles the windows stand for: every state's, weighted */
        td->summary.cycles = 0;
        for (int k = 0; k < GOLDEN_STATE_COUNT; k++)
            td->summary.cycles += td->whole.states[k];
    }
    td->summary.slots = td->summary.cycles * td->width;
    td->summary.unattributed = gt->unattributed;
    if ((rc = sort_components(td))) {
        td->failed = 1;
        return rc;
    }
    return TEA_OK;
}

const golden_topdown_summary *golden_topdown_get_summary(const golden_topdown *td)
{
    return &td->summary;
}

const golden_totals *golden_topdown_get_golden(const golden_topdown *td)
{
    return golden_get_totals(&td->g);
}

size_t golden_topdown_scope_count(const golden_topdown *td)
{
    return td->per_function ? td->functions + 2 : 0;
}

const golden_topdown_counts *golden_topdown_get_counts(const golden_topdown *td, long scope)
{
    if (scope == GOLDEN_TOPDOWN_WHOLE)
        return &td->whole;
    if (scope < 0 || (size_t)scope >= golden_topdown_scope_count(td))
        return NULL;
    return &td->scopes[scope];
}

/* A key looked up in the analysis's runs (search.h). */
typedef struct key_in_runs {
    const golden_topdown *td;
    uint64_t key;
} key_in_runs;

static int run_below(size_t i, const void *ctx)
{
    const key_in_runs *k = ctx;
    return k->td->runs[i].key < k->key;
}

size_t golden_topdown_get_components(const golden_topdown *td, long scope, enum golden_topdown_view view,
                                     unsigned category, const golden_topdown_component **out)
{
    uint64_t key;
    size_t lo;
    key_in_runs k = { td, 0 };

    *out = NULL;
    if (!td->finished || td->failed || (unsigned)view >= GOLDEN_TOPDOWN_VIEW_COUNT
        || category >= GOLDEN_TOPDOWN_CATEGORIES)
        return 0;
    if (scope != GOLDEN_TOPDOWN_WHOLE && (scope < 0 || (size_t)scope >= golden_topdown_scope_count(td)))
        return 0;
    key = scope == GOLDEN_TOPDOWN_WHOLE ? 0 : pack_key((size_t)scope, 0, 0);
    key |= (uint64_t)(view * GOLDEN_TOPDOWN_CATEGORIES + category) << TOPDOWN_KEY_PSV_BITS;
    /* The runs are sorted by key: the whole trace's (scope key 0) first. */
    k.key = key;
    lo = search_lower_bound(td->run_count, run_below, &k);
    if (lo == td->run_count || td->runs[lo].key != key)
        return 0;
    *out = td->sorted + td->runs[lo].first;
    return td->runs[lo].count;
}

void golden_topdown_free(golden_topdown *td)
{
    if (!td)
        return;
    free(td->scopes);
    free(td->table);
    free(td->sorted);
    free(td->runs);
    free(td->group_counts);
    free(td);
}

int golden_topdown_apportion(const uint64_t *counts, size_t n, uint64_t units, uint64_t *out)
{
    exact_u128 sum = 0, *num;
    int rc;

    for (size_t i = 0; i < n; i++)
        sum += counts[i];
    if (!sum) {
        for (size_t i = 0; i < n; i++)
            out[i] = 0;
        return TEA_OK;
    }
    /* counts[i] x units / sum, rounded by the largest remainder. */
    if (!(num = malloc(n * sizeof *num)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        num[i] = (exact_u128)counts[i] * units;
    rc = exact_round_shares(num, n, sum, units, out);
    free(num);
    return rc;
}
