/*
 * workload.c: synthetic programs and their seeded dynamic walks (see
 * workload.h and docs/model.md, "Synthetic workloads").
 */
#include "workload.h"
#include "common/error.h"
#include "common/rng.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

/* Latencies (cycles) of the baseline core's units and memory hierarchy. */
#define LAT_INT 1
#define LAT_MUL 3
#define LAT_DIV 16
#define LAT_FP_ADD 4
#define LAT_FP_MUL 4
#define LAT_FP_DIV 14
#define LAT_FP_SQRT 20
#define LAT_L1_HIT 4
#define LAT_LLC_HIT 20      /* L1 miss served by the LLC */
#define LAT_DRAM 180        /* LLC miss */
#define LAT_PAGE_WALK 30    /* TLB miss */
#define LAT_STORE 1
#define LAT_BRANCH 1
#define LAT_SERIAL 4

#define CODE_BASE 0x10000u  /* first instruction address */
#define INSN_BYTES 4
#define LINE_BYTES 64
#define PAGE_BYTES 4096
#define MAX_SKIP 6          /* forward branches skip 1..MAX_SKIP instructions */
#define MAX_DEP 3           /* ordinary dependences reach 1..MAX_DEP µops back */
#define LOOP_EXIT_MISPREDICT 0.5
#define EASY_BRANCH_BIAS 0.05 /* taken probability of an easy branch (or 1 - it) */

/* Static instruction kinds that steer the walk. */
enum insn_kind { KIND_PLAIN, KIND_SKIP, KIND_LOOP, KIND_NEXT_FUNCTION };

typedef struct static_insn {
    uint64_t pc;
    uint8_t cls;          /* model_class */
    uint8_t kind;         /* insn_kind */
    uint8_t skip;         /* KIND_SKIP: instructions skipped when taken */
    uint8_t delinquent;   /* a load that misses often */
    uint8_t chase;        /* a load that depends on the previous load */
    uint8_t hard;         /* a data-dependent (hard to predict) branch */
    uint16_t dep;         /* dependence distance (0: none) */
    uint16_t prev_load;   /* chase: distance back to the previous load in the body */
    double p_taken;       /* KIND_SKIP */
} static_insn;

typedef struct function {
    uint32_t first;       /* index of its first instruction */
    uint32_t length;      /* instructions, loop branch and jump included */
    uint32_t trips;       /* loop iterations per visit */
} function;

typedef struct workload_params {
    const char *name;
    const char *description;
    unsigned functions, body_min, body_max, trips_min, trips_max;
    unsigned function_align;  /* bytes; functions start at multiples of it */
    double mix[MODEL_CLASS_COUNT]; /* weights of the classes of plain instructions */
    double serial_fraction;   /* static instructions that flush on commit */
    double delinquent_loads;  /* static loads that miss often */
    double l1_miss_hot;       /* per instance, delinquent loads */
    double l1_miss_cold;      /* per instance, other loads */
    double llc_miss;          /* P(LLC miss | L1 miss) */
    double dtlb_miss;         /* per dynamic load */
    double chase_loads;       /* static loads that depend on the previous load */
    double hard_branches;     /* static forward branches that are data dependent */
    double hard_mispredict;   /* per instance */
    double easy_mispredict;   /* per instance */
    double icache_line_miss;  /* P(fetch miss) entering a new line */
    double icache_dram;       /* P(that miss goes to DRAM) */
    double itlb_page_miss;    /* P(I-TLB miss) entering a new page */
    double exception_rate;    /* per dynamic load */
    double order_fail_rate;   /* per dynamic load */
    double dep_rate;          /* P(a plain µop depends on a recent one) */
} workload_params;

/* Class weights: INT MUL DIV FADD FMUL FDIV FSQRT LOAD STORE BRANCH (forward branches). */
static const workload_params workloads[] = {
    { "mixed", "a bit of everything: every commit state and every event",
      40, 24, 64, 5, 60, 1024,
      { 40, 4, 1, 5, 4, 1, 1, 22, 10, 8 },
      0.004, 0.25, 0.30, 0.01, 0.35, 0.004, 0.2, 0.35, 0.25, 0.01, 0.01, 0.2, 0.3, 0.0004, 0.002, 0.4 },
    { "memory", "pointer chasing and streaming: ST-L1, ST-LLC, ST-TLB, DR-SQ",
      6, 24, 48, 100, 400, 64,
      { 30, 2, 0, 2, 2, 0, 0, 38, 20, 4 },
      0.0, 0.6, 0.5, 0.02, 0.6, 0.02, 0.5, 0.1, 0.3, 0.003, 0.0, 0.0, 0.0, 0.0, 0.0005, 0.3 },
    { "branchy", "data-dependent branches: FL-MB and wrong-path squashes",
      10, 20, 40, 50, 300, 64,
      { 45, 2, 0, 2, 2, 0, 0, 15, 6, 28 },
      0.0, 0.1, 0.2, 0.005, 0.2, 0.002, 0.1, 0.6, 0.35, 0.01, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5 },
    { "frontend", "a large code footprint: DR-L1 and DR-TLB",
      400, 40, 120, 1, 3, 64,
      { 55, 3, 0, 4, 4, 0, 0, 18, 8, 8 },
      0.0, 0.05, 0.1, 0.005, 0.2, 0.002, 0.0, 0.2, 0.1, 0.005, 0.25, 0.15, 0.08, 0.0, 0.0, 0.3 },
    { "flushes", "fences, exceptions and ordering failures: FL-EX, FL-MO",
      8, 24, 48, 20, 100, 64,
      { 45, 3, 0, 3, 3, 0, 0, 24, 12, 8 },
      0.02, 0.1, 0.2, 0.005, 0.2, 0.002, 0.0, 0.2, 0.05, 0.003, 0.0, 0.0, 0.0, 0.004, 0.02, 0.3 },
    { "compute", "arithmetic with long-latency divides and square roots, few misses",
      6, 32, 64, 100, 500, 64,
      { 40, 10, 3, 12, 12, 3, 3, 10, 5, 4 },
      0.0, 0.02, 0.1, 0.001, 0.1, 0.001, 0.0, 0.2, 0.02, 0.002, 0.0, 0.0, 0.0, 0.0, 0.0, 0.7 },
};
#define WORKLOAD_COUNT (sizeof workloads / sizeof workloads[0])

struct model_workload {
    const workload_params *params;
    static_insn *insns;
    uint32_t insn_count;
    function *functions;
    uint32_t function_count;
    rng_state rng;
    /* walk */
    uint32_t func, pos, iteration;
    uint64_t last_line, last_page;
};

static const char *const workload_name_list[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute", NULL };

const char *const *model_workload_names(void)
{
    return workload_name_list;
}

static const workload_params *find_params(const char *name)
{
    for (size_t i = 0; i < WORKLOAD_COUNT; i++)
        if (strcmp(workloads[i].name, name) == 0)
            return &workloads[i];
    return NULL;
}

const char *model_workload_description(const char *name)
{
    const workload_params *p = find_params(name);
    return p ? p->description : NULL;
}

/* Draws a plain instruction class from the workload's mix. */
static uint8_t draw_class(const workload_params *p, rng_state *rng)
{
    double total = 0, x;
    for (int c = 0; c < MODEL_CLASS_COUNT; c++)
        total += p->mix[c];
    x = rng_unit(rng) * total;
    for (int c = 0; c < MODEL_CLASS_COUNT; c++) {
        if (x < p->mix[c])
            return (uint8_t)c;
        x -= p->mix[c];
    }
    return MODEL_INT;
}

/* Lays out one function: a loop body, its backward branch and a jump to the
 * next function. */
static void build_function(model_workload *w, function *f, uint64_t *pc)
{
    const workload_params *p = w->params;
    uint32_t body = p->body_min + (uint32_t)rng_below(&w->rng, p->body_max - p->body_min + 1);
    int last_load = -1;

    f->first = w->insn_count;
    f->length = body + 2;
    f->trips = p->trips_min + (uint32_t)rng_below(&w->rng, p->trips_max - p->trips_min + 1);
    for (uint32_t i = 0; i < f->length; i++) {
        static_insn *s = &w->insns[w->insn_count++];
        memset(s, 0, sizeof *s);
        s->pc = *pc;
        *pc += INSN_BYTES;
        if (i == body) {
            s->cls = MODEL_BRANCH;
            s->kind = KIND_LOOP;
            continue;
        }
        if (i == body + 1) {
            s->cls = MODEL_JUMP;
            s->kind = KIND_NEXT_FUNCTION;
            continue;
        }
        if (rng_chance(&w->rng, p->serial_fraction)) {
            s->cls = MODEL_SERIAL;
            continue;
        }
        s->cls = draw_class(p, &w->rng);
        if (s->cls == MODEL_BRANCH) {
            s->kind = KIND_SKIP;
            s->skip = (uint8_t)(1 + rng_below(&w->rng, MAX_SKIP));
            if (i + s->skip >= body) /* stay inside the body */
                s->skip = (uint8_t)(body - i - 1 > 0 ? body - i - 1 : 0);
            s->hard = (uint8_t)rng_chance(&w->rng, p->hard_branches);
            s->p_taken = s->hard ? 0.5 : (rng_chance(&w->rng, 0.5) ? EASY_BRANCH_BIAS : 1.0 - EASY_BRANCH_BIAS);
            if (s->skip == 0)
                s->kind = KIND_PLAIN;
        } else if (s->cls == MODEL_LOAD) {
            s->delinquent = (uint8_t)rng_chance(&w->rng, p->delinquent_loads);
            if (last_load >= 0 && rng_chance(&w->rng, p->chase_loads)) {
                s->chase = 1;
                s->prev_load = (uint16_t)(i - (uint32_t)last_load);
            }
            last_load = (int)i;
        }
        if (!s->chase && i > 0 && rng_chance(&w->rng, p->dep_rate))
            s->dep = (uint16_t)(1 + rng_below(&w->rng, i < MAX_DEP ? i : MAX_DEP));
    }
    /* The next function starts on a new cache line (or a coarser boundary). */
    *pc = (*pc + p->function_align - 1) / p->function_align * p->function_align;
}

int model_workload_create(model_workload **out, const char *name, uint64_t seed)
{
    const workload_params *p = find_params(name);
    model_workload *w;
    uint64_t pc = CODE_BASE;
    size_t max_insns;

    *out = NULL;
    if (!p)
        return tea_error_set(TEA_ERR_USAGE, "unknown workload '%s' (see tea gen --list)", name);
    if (!(w = calloc(1, sizeof *w)))
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    w->params = p;
    max_insns = (size_t)p->functions * (p->body_max + 2);
    w->insns = calloc(max_insns, sizeof *w->insns);
    w->functions = calloc(p->functions, sizeof *w->functions);
    if (!w->insns || !w->functions) {
        model_workload_free(w);
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    }
    rng_seed(&w->rng, seed, 0);
    for (unsigned f = 0; f < p->functions; f++)
        build_function(w, &w->functions[f], &pc);
    w->function_count = p->functions;
    w->last_line = w->last_page = UINT64_MAX;
    /* The walk uses its own stream so program shape and behaviour vary independently. */
    rng_seed(&w->rng, seed, 1);
    *out = w;
    return TEA_OK;
}

void model_workload_free(model_workload *w)
{
    if (!w)
        return;
    free(w->insns);
    free(w->functions);
    free(w);
}

void model_workload_address_range(const model_workload *w, uint64_t *lo, uint64_t *hi)
{
    *lo = w->insns[0].pc;
    *hi = w->insns[w->insn_count - 1].pc + INSN_BYTES - 1;
}

static uint32_t class_latency(uint8_t cls)
{
    static const uint32_t latency[MODEL_CLASS_COUNT] = {
        LAT_INT, LAT_MUL, LAT_DIV, LAT_FP_ADD, LAT_FP_MUL, LAT_FP_DIV, LAT_FP_SQRT,
        LAT_L1_HIT, LAT_STORE, LAT_BRANCH, LAT_BRANCH, LAT_BRANCH, LAT_SERIAL,
    };
    return cls < MODEL_CLASS_COUNT ? latency[cls] : LAT_INT;
}

/* Decides what happens to one dynamic load: misses, latency, exceptions. */
static void load_outcome(model_workload *w, const static_insn *s, model_uop *u)
{
    const workload_params *p = w->params;
    double l1 = s->delinquent ? p->l1_miss_hot : p->l1_miss_cold;

    u->latency = LAT_L1_HIT;
    if (rng_chance(&w->rng, p->dtlb_miss)) {
        u->psv |= 1u << PSV_ST_TLB;
        u->latency += LAT_PAGE_WALK;
    }
    if (rng_chance(&w->rng, l1)) {
        u->psv |= 1u << PSV_ST_L1;
        if (rng_chance(&w->rng, p->llc_miss)) {
            u->psv |= 1u << PSV_ST_LLC;
            u->latency += LAT_DRAM;
        } else {
            u->latency += LAT_LLC_HIT;
        }
    }
    if (rng_chance(&w->rng, p->exception_rate))
        u->flags |= MODEL_UOP_EXCEPTION;
    else if (!(u->psv & (1u << PSV_ST_L1)) && rng_chance(&w->rng, p->order_fail_rate))
        u->flags |= MODEL_UOP_ORDER_FAIL;
    if (s->chase)
        u->dep = s->prev_load;
}

/* Front-end misses when the walk enters a new line or page. */
static void fetch_outcome(model_workload *w, model_uop *u)
{
    const workload_params *p = w->params;
    uint64_t line = u->pc / LINE_BYTES, page = u->pc / PAGE_BYTES;

    if (line != w->last_line) {
        w->last_line = line;
        if (rng_chance(&w->rng, p->icache_line_miss)) {
            u->psv |= 1u << PSV_DR_L1;
            u->fetch_delay = (uint16_t)(rng_chance(&w->rng, p->icache_dram) ? LAT_DRAM : LAT_LLC_HIT);
        }
    }
    if (page != w->last_page) {
        w->last_page = page;
        if (rng_chance(&w->rng, p->itlb_page_miss)) {
            u->psv |= 1u << PSV_DR_TLB;
            u->fetch_delay = (uint16_t)(u->fetch_delay + LAT_PAGE_WALK);
        }
    }
}

/* The next correct-path µop of the walk. */
static int workload_next(void *ctx, model_uop *u)
{
    model_workload *w = ctx;
    const workload_params *p = w->params;
    function *f = &w->functions[w->func];
    const static_insn *s = &w->insns[f->first + w->pos];
    int taken = 0;

    memset(u, 0, sizeof *u);
    u->pc = s->pc;
    u->cls = s->cls;
    u->latency = class_latency(s->cls);
    u->dep = s->dep;
    fetch_outcome(w, u);
    switch (s->kind) {
    case KIND_SKIP:
        taken = rng_chance(&w->rng, s->p_taken);
        if (rng_chance(&w->rng, s->hard ? p->hard_mispredict : p->easy_mispredict)) {
            u->flags |= MODEL_UOP_MISPREDICT;
            u->wrong_pc = taken ? s->pc + INSN_BYTES : s->pc + (uint64_t)(s->skip + 1) * INSN_BYTES;
        }
        w->pos += taken ? 1u + s->skip : 1u;
        break;
    case KIND_LOOP:
        taken = w->iteration + 1 < f->trips;
        if ((!taken && rng_chance(&w->rng, LOOP_EXIT_MISPREDICT))
            || (taken && rng_chance(&w->rng, p->easy_mispredict))) {
            u->flags |= MODEL_UOP_MISPREDICT;
            u->wrong_pc = taken ? s->pc + INSN_BYTES : w->insns[f->first].pc;
        }
        if (taken) {
            w->pos = 0;
            w->iteration++;
        } else {
            w->pos++;
        }
        break;
    case KIND_NEXT_FUNCTION:
        taken = 1;
        w->func = (w->func + 1) % w->function_count;
        w->pos = 0;
        w->iteration = 0;
        break;
    default:
        w->pos++;
        if (s->cls == MODEL_LOAD)
            load_outcome(w, s, u);
        else if (s->cls == MODEL_SERIAL)
            u->flags |= MODEL_UOP_FLUSH;
        break;
    }
    if (taken)
        u->flags |= MODEL_UOP_TAKEN;
    return 1;
}

/* A wrong-path µop at `pc`: the wrong path runs sequentially from the
 * mispredicted target and borrows the class of some static instruction; it
 * has no events and is squashed before it could matter. */
static uint64_t workload_wrong_path(void *ctx, uint64_t pc, model_uop *u)
{
    model_workload *w = ctx;
    uint64_t index = (pc - CODE_BASE) / INSN_BYTES;
    const static_insn *s;

    index %= w->insn_count;
    s = &w->insns[index];
    memset(u, 0, sizeof *u);
    u->pc = pc;
    u->cls = s->cls == MODEL_SERIAL ? MODEL_INT : s->cls;
    u->latency = class_latency(u->cls);
    return pc + INSN_BYTES;
}

model_source model_workload_source(model_workload *w)
{
    model_source src = { workload_next, workload_wrong_path, w };
    return src;
}
