/*
 * workload.c: synthetic programs and their seeded dynamic walks (see
 * workload.h and docs/model.md, "Synthetic workloads").
 *
 * A program is a list of functions, each a loop body of typed 4-byte
 * instructions ending in a backward loop branch and a jump to the next
 * function. The walk says what every dynamic instruction does — its data
 * address, its branch outcome — and the core model decides what happens to
 * it (cache, TLB and page misses, mispredictions, ordering violations).
 */
#include "workload.h"
#include "bpred.h"
#include "elfcode.h"
#include "common/error.h"
#include "common/rng.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define CODE_BASE 0x10000u   /* first instruction address */
#define INSN_BYTES 4
#define MAX_SKIP 6           /* forward branches skip 1..MAX_SKIP instructions */
#define MAX_DEP 3            /* ordinary dependences reach 1..MAX_DEP instructions back */
#define EASY_BRANCH_BIAS 0.03 /* an easy branch goes the other way this often */
#define ACCESS_BYTES 8       /* every load and store moves 8 bytes */
#define CACHE_LINE 64
#define RELOAD_DISTANCE 3    /* a reload reads the slot stored this many instructions before */

/* Data regions: a few KiB that stay in the L1, a working set that fits the
 * LLC, a footprint far larger than the LLC, and the stack. */
#define SMALL_BASE 0x10000000ull
#define MEDIUM_BASE 0x20000000ull
#define LARGE_BASE 0x40000000ull
#define STACK_BASE 0x7ff000000000ull
#define SMALL_BYTES (16ull << 10)
#define MEDIUM_BYTES (512ull << 10)
#define STACK_BYTES (4ull << 10)

/* What steers the walk at an instruction. */
enum insn_kind { KIND_PLAIN, KIND_SKIP, KIND_LOOP, KIND_NEXT_FUNCTION };

/* Walks over a binary's code (model_workload_create_elf). */
#define ELF_CALL_DEPTH 256          /* return addresses kept; deeper calls forget the oldest */
#define ELF_MAX_TRIPS 64            /* a loop branch's iterations per visit: up to this many */
#define ELF_OTHER_CALLEE 0.1        /* an indirect call goes somewhere else this often */
#define ELF_WRONG_PATH_BYTES 4      /* size assumed for bytes that are no known instruction */
#define ELF_NO_INDEX UINT32_MAX

/* How a load or store picks its addresses. */
enum access_pattern {
    ACCESS_STACK,   /* a handful of stack slots */
    ACCESS_STREAM,  /* one region sequentially, one line per access */
    ACCESS_RANDOM,  /* one region at random */
    ACCESS_CHASE,   /* the large region at random, each address depending on the previous load */
    ACCESS_RELOAD   /* the slot a recent store wrote (a spill and its reload) */
};

typedef struct static_insn {
    uint64_t pc;
    uint64_t region_base, region_bytes; /* loads and stores */
    uint64_t counter;     /* dynamic executions so far (stream position) */
    uint8_t cls;          /* model_class */
    uint8_t kind;         /* insn_kind */
    uint8_t skip;         /* KIND_SKIP: instructions skipped when taken */
    uint8_t hard;         /* a data-dependent (hard to predict) branch */
    uint8_t access;       /* access_pattern */
    uint8_t slow_address; /* a store whose address comes from a slow producer */
    uint8_t traps;        /* raises an exception now and then (trap_rate) */
    uint16_t dep;         /* dependence distance (0: none) */
    uint16_t prev_load;   /* chase: distance back to the previous load of the body */
    double p_taken;       /* KIND_SKIP; forward conditional branches of a binary */
    /* walks over a binary */
    uint32_t target;      /* index of a direct branch's target, or ELF_NO_INDEX */
    uint32_t trips;       /* a backward conditional branch: iterations per visit */
    uint32_t remaining;   /* ... left in the current visit (0: not inside the loop) */
    uint32_t callee;      /* an indirect call: index of its usual target */
    uint32_t function;    /* index of the enclosing function, or ELF_NO_INDEX */
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
    unsigned function_align;   /* bytes; functions start at multiples of it */
    double mix[MODEL_CLASS_COUNT]; /* weights of INT MUL DIV FADD FMUL FDIV FSQRT LOAD STORE BRANCH */
    double serial_fraction;    /* static instructions that flush on commit (fences, system calls) */
    double trap_fraction;      /* static instructions that trap (explicit exceptions) */
    double trap_rate;          /* how often such an instruction traps when it runs */
    double medium_share;       /* memory instructions on the LLC-sized working set */
    double large_share;        /* memory instructions on the large footprint */
    double random_share;       /* of those, addresses at random rather than streaming */
    double chase_share;        /* loads chasing pointers through the large footprint */
    double reload_share;       /* loads reloading a recent store (ordering hazards) */
    double hard_branches;      /* forward branches taken at random (50%) */
    double dep_rate;           /* P(an instruction depends on a recent one) */
    uint64_t large_bytes;      /* size of the large footprint */
} workload_params;

static const workload_params workloads[] = {
    { "mixed", "a bit of everything: every commit state and every event",
      40, 24, 64, 5, 60, 1024,
      { 40, 4, 1, 5, 4, 1, 1, 22, 10, 8 },
      0.004, 0.001, 0.02, 0.25, 0.04, 0.3, 0.03, 0.05, 0.3, 0.4, 32ull << 20 },
    { "memory", "pointer chasing and streaming: ST-L1, ST-LLC, ST-TLB, DR-SQ",
      6, 24, 48, 100, 400, 64,
      { 30, 2, 0, 2, 2, 0, 0, 38, 20, 4 },
      0.0, 0.0, 0.0, 0.3, 0.4, 0.4, 0.15, 0.0, 0.1, 0.3, 256ull << 20 },
    { "branchy", "data-dependent branches: FL-MB and wrong-path squashes",
      10, 20, 40, 50, 300, 64,
      { 45, 2, 0, 2, 2, 0, 0, 15, 6, 28 },
      0.0, 0.0, 0.0, 0.05, 0.0, 0.5, 0.0, 0.0, 0.6, 0.5, 64ull << 20 },
    { "frontend", "a large code footprint: DR-L1 and DR-TLB",
      400, 40, 120, 1, 3, 4096,
      { 55, 3, 0, 4, 4, 0, 0, 18, 8, 8 },
      0.0, 0.0, 0.0, 0.05, 0.0, 0.5, 0.0, 0.0, 0.2, 0.3, 64ull << 20 },
    { "flushes", "fences, exceptions and ordering violations: FL-EX, FL-MO",
      8, 24, 48, 20, 100, 64,
      { 45, 3, 3, 3, 3, 0, 0, 24, 12, 8 },
      0.02, 0.01, 0.05, 0.05, 0.05, 0.5, 0.0, 0.3, 0.2, 0.3, 64ull << 20 },
    { "compute", "arithmetic with long-latency divides and square roots, few misses",
      6, 32, 64, 100, 500, 64,
      { 40, 10, 3, 12, 12, 3, 3, 10, 5, 4 },
      0.0, 0.0, 0.0, 0.02, 0.0, 0.5, 0.0, 0.0, 0.2, 0.7, 64ull << 20 },
};
#define WORKLOAD_COUNT (sizeof workloads / sizeof workloads[0])

struct model_workload {
    const workload_params *params;
    uint64_t seed;
    static_insn *insns;
    uint32_t insn_count;
    function *functions;
    uint32_t function_count;
    int32_t *by_address;       /* (pc - CODE_BASE) / 4 -> instruction index, -1 in padding */
    uint64_t code_words;
    rng_state rng;
    /* walk */
    uint32_t func, pos, iteration;
    uint64_t chase_addr;       /* last address of the pointer chase */
    uint64_t recent_stores[RELOAD_DISTANCE + 1]; /* addresses of the last stores */
    unsigned store_ring;
    /* walks over a binary (NULL code: a synthetic program) */
    const model_elfcode *code;
    uint32_t cur;                           /* index of the next instruction */
    uint32_t calls[ELF_CALL_DEPTH];         /* return indices, a ring */
    unsigned call_top, call_depth;
    uint32_t *function_end;                 /* per function: index past its last instruction */
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
    for (int c = 0; c <= MODEL_BRANCH; c++)
        total += p->mix[c];
    x = rng_unit(rng) * total;
    for (int c = 0; c <= MODEL_BRANCH; c++) {
        if (x < p->mix[c])
            return (uint8_t)c;
        x -= p->mix[c];
    }
    return MODEL_INT;
}

/* Chooses where a load or store goes. */
static void place_access(model_workload *w, static_insn *s)
{
    const workload_params *p = w->params;
    double x = rng_unit(&w->rng);

    s->access = ACCESS_STACK;
    s->region_base = STACK_BASE;
    s->region_bytes = STACK_BYTES;
    if (x < p->medium_share) {
        s->region_base = MEDIUM_BASE;
        s->region_bytes = MEDIUM_BYTES;
        s->access = rng_chance(&w->rng, p->random_share) ? ACCESS_RANDOM : ACCESS_STREAM;
    } else if (x < p->medium_share + p->large_share) {
        s->region_base = LARGE_BASE;
        s->region_bytes = p->large_bytes;
        s->access = rng_chance(&w->rng, p->random_share) ? ACCESS_RANDOM : ACCESS_STREAM;
    } else if (x < p->medium_share + p->large_share + 0.2) {
        s->region_base = SMALL_BASE;
        s->region_bytes = SMALL_BYTES;
        s->access = ACCESS_RANDOM;
    }
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
            s->cls = MODEL_BRANCH;
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
                s->skip = (uint8_t)(body - i - 1);
            assert(i + s->skip < body); /* a taken skip lands inside the body */
            s->hard = (uint8_t)rng_chance(&w->rng, p->hard_branches);
            s->p_taken = s->hard ? 0.5 : (rng_chance(&w->rng, 0.5) ? EASY_BRANCH_BIAS : 1.0 - EASY_BRANCH_BIAS);
            if (s->skip == 0) {
                s->cls = MODEL_INT;
                s->kind = KIND_PLAIN;
            }
        } else if (s->cls == MODEL_LOAD) {
            place_access(w, s);
            if (last_load >= 0 && rng_chance(&w->rng, p->chase_share)) {
                s->access = ACCESS_CHASE;
                s->prev_load = (uint16_t)(i - (uint32_t)last_load);
            } else if (rng_chance(&w->rng, p->reload_share)) {
                s->access = ACCESS_RELOAD;
            }
            last_load = (int)i;
        } else if (s->cls == MODEL_STORE) {
            place_access(w, s);
            /* Stores whose address comes late set up ordering hazards for reloads. */
            s->slow_address = (uint8_t)rng_chance(&w->rng, p->reload_share);
        }
        if (s->cls != MODEL_BRANCH && rng_chance(&w->rng, p->trap_fraction))
            s->traps = 1;
        if (s->access != ACCESS_CHASE && i > 0 && rng_chance(&w->rng, p->dep_rate))
            s->dep = (uint16_t)(1 + rng_below(&w->rng, i < MAX_DEP ? i : MAX_DEP));
    }
    *pc = (*pc + p->function_align - 1) / p->function_align * p->function_align;
}

int model_workload_create(model_workload **out, const char *name, uint64_t seed)
{
    const workload_params *p;
    model_workload *w;
    uint64_t pc = CODE_BASE;
    size_t max_insns;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(name != NULL);
    p = find_params(name);
    *out = NULL;
    if (!p)
        return error_set(TEA_ERR_USAGE, "unknown workload '%s' (see tea gen --list)", name);
    if (!(w = calloc(1, sizeof *w)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    w->params = p;
    w->seed = seed;
    max_insns = (size_t)p->functions * (p->body_max + 2);
    w->insns = calloc(max_insns, sizeof *w->insns);
    w->functions = calloc(p->functions, sizeof *w->functions);
    if (!w->insns || !w->functions) {
        model_workload_free(w);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    rng_seed(&w->rng, seed, 0);
    for (unsigned f = 0; f < p->functions; f++)
        build_function(w, &w->functions[f], &pc);
    assert(w->insn_count <= max_insns); /* each function within body_max + 2 */
    w->function_count = p->functions;
    w->code_words = (pc - CODE_BASE) / INSN_BYTES;
    w->by_address = malloc(w->code_words * sizeof *w->by_address);
    if (!w->by_address) {
        model_workload_free(w);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (uint64_t i = 0; i < w->code_words; i++)
        w->by_address[i] = -1;
    for (uint32_t i = 0; i < w->insn_count; i++)
        w->by_address[(w->insns[i].pc - CODE_BASE) / INSN_BYTES] = (int32_t)i;
    w->chase_addr = LARGE_BASE;
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
    free(w->by_address);
    free(w->function_end);
    free(w);
}

void model_workload_address_range(const model_workload *w, uint64_t *lo, uint64_t *hi)
{
    if (w->code) {
        const model_elfcode_insn *last = &w->code->insns[w->code->insn_count - 1];
        *lo = w->code->insns[0].pc;
        *hi = last->pc + last->size - 1;
        return;
    }
    *lo = w->insns[0].pc;
    *hi = w->insns[w->insn_count - 1].pc + INSN_BYTES - 1;
}

/* The address a load or store of `s` touches this time. */
static uint64_t next_address(model_workload *w, static_insn *s)
{
    uint64_t n = s->counter++, lines = s->region_bytes / CACHE_LINE;
    switch (s->access) {
    case ACCESS_STREAM:
        return s->region_base + (n % lines) * CACHE_LINE;
    case ACCESS_RANDOM:
        return s->region_base + rng_below(&w->rng, s->region_bytes / ACCESS_BYTES) * ACCESS_BYTES;
    case ACCESS_CHASE:
        w->chase_addr = LARGE_BASE + rng_below(&w->rng, w->params->large_bytes / ACCESS_BYTES) * ACCESS_BYTES;
        return w->chase_addr;
    case ACCESS_RELOAD:
        return w->recent_stores[(w->store_ring + 1) % (RELOAD_DISTANCE + 1)];
    default:
        return s->region_base + rng_below(&w->rng, s->region_bytes / ACCESS_BYTES) * ACCESS_BYTES;
    }
}

/* The next correct-path instruction of the walk. */
static int workload_next(void *ctx, model_insn *u)
{
    model_workload *w = ctx;
    function *f = &w->functions[w->func];
    static_insn *s;
    int taken = 0;

    assert(w->func < w->function_count && w->pos < f->length); /* the walk stays in its function */
    s = &w->insns[f->first + w->pos];

    memset(u, 0, sizeof *u);
    u->pc = s->pc;
    u->size = INSN_BYTES;
    u->cls = s->cls;
    u->dep = s->dep;
    switch (s->kind) {
    case KIND_SKIP:
        taken = rng_chance(&w->rng, s->p_taken);
        u->branch = 1 + MODEL_BPRED_COND;
        u->target = s->pc + (uint64_t)(s->skip + 1) * INSN_BYTES;
        w->pos += taken ? 1u + s->skip : 1u;
        break;
    case KIND_LOOP:
        taken = w->iteration + 1 < f->trips;
        u->branch = 1 + MODEL_BPRED_COND;
        u->target = w->insns[f->first].pc;
        if (taken) {
            w->pos = 0;
            w->iteration++;
        } else {
            w->pos++;
        }
        break;
    case KIND_NEXT_FUNCTION:
        taken = 1;
        u->branch = 1 + MODEL_BPRED_JUMP;
        w->func = (w->func + 1) % w->function_count;
        u->target = w->insns[w->functions[w->func].first].pc;
        w->pos = 0;
        w->iteration = 0;
        break;
    default:
        w->pos++;
        if (s->cls == MODEL_SERIAL)
            u->flags |= MODEL_INSN_FLUSH;
        if (s->traps && rng_chance(&w->rng, w->params->trap_rate))
            u->flags |= MODEL_INSN_TRAP;
        if (s->cls == MODEL_LOAD || s->cls == MODEL_STORE) {
            u->addr = next_address(w, s);
            u->mem_size = ACCESS_BYTES;
            if (s->access == ACCESS_CHASE)
                u->dep = s->prev_load;
            if (s->cls == MODEL_STORE) {
                w->store_ring = (w->store_ring + 1) % (RELOAD_DISTANCE + 1);
                w->recent_stores[w->store_ring] = u->addr;
                if (s->slow_address)
                    u->dep = 1; /* the address comes from the instruction just before */
            }
        }
        break;
    }
    if (taken)
        u->flags |= MODEL_INSN_TAKEN;
    return 1;
}

/* A wrong-path instruction at `pc`: the static instruction there, or an
 * integer operation in padding or outside the program. */
static void workload_wrong_path(void *ctx, uint64_t pc, model_insn *u)
{
    model_workload *w = ctx;
    uint64_t word = (pc - CODE_BASE) / INSN_BYTES;
    int32_t index = (pc >= CODE_BASE && word < w->code_words) ? w->by_address[word] : -1;

    memset(u, 0, sizeof *u);
    u->pc = pc;
    u->size = INSN_BYTES;
    u->cls = index >= 0 ? w->insns[index].cls : MODEL_INT;
    if (u->cls == MODEL_SERIAL || u->cls == MODEL_BRANCH)
        u->cls = MODEL_INT;
}

/* --- walks over a binary ---------------------------------------------------- */

/* Decides, once per static instruction of a binary, what its dynamic
 * instances do: loop trip counts, branch biases, indirect-call targets,
 * memory access patterns, dependences, traps. */
static void plan_elf_insn(model_workload *w, uint32_t i, uint32_t enclosing, int *last_load)
{
    const workload_params *p = w->params;
    const model_elfcode *c = w->code;
    const model_elfcode_insn *e = &c->insns[i];
    static_insn *s = &w->insns[i];
    long t;

    s->pc = e->pc;
    s->cls = e->cls;
    s->function = enclosing;
    s->target = ELF_NO_INDEX;
    if (e->branch != MODEL_BRANCH_NONE) {
        unsigned kind = e->branch - 1u;
        if (e->target && (t = model_elfcode_find(c, e->target)) >= 0)
            s->target = (uint32_t)t;
        if (kind == MODEL_BPRED_COND && e->target <= e->pc) {
            s->trips = 1 + (uint32_t)rng_below(&w->rng, ELF_MAX_TRIPS);
        } else if (kind == MODEL_BPRED_COND) {
            s->hard = (uint8_t)rng_chance(&w->rng, p->hard_branches);
            s->p_taken = s->hard ? 0.5 : (rng_chance(&w->rng, 0.5) ? EASY_BRANCH_BIAS : 1.0 - EASY_BRANCH_BIAS);
        } else if (kind == MODEL_BPRED_INDIRECT_CALL && c->function_count) {
            s->callee = (uint32_t)c->functions[rng_below(&w->rng, c->function_count)].first;
        }
        return;
    }
    if (s->cls == MODEL_LOAD) {
        place_access(w, s);
        if (*last_load >= 0 && i - (uint32_t)*last_load <= UINT16_MAX && rng_chance(&w->rng, p->chase_share)) {
            s->access = ACCESS_CHASE;
            s->prev_load = (uint16_t)(i - (uint32_t)*last_load);
        } else if (rng_chance(&w->rng, p->reload_share)) {
            s->access = ACCESS_RELOAD;
        }
        *last_load = (int)i;
    } else if (s->cls == MODEL_STORE) {
        place_access(w, s);
        s->slow_address = (uint8_t)rng_chance(&w->rng, p->reload_share);
    }
    if (s->cls != MODEL_SERIAL && rng_chance(&w->rng, p->trap_fraction))
        s->traps = 1;
    if (s->access != ACCESS_CHASE && rng_chance(&w->rng, p->dep_rate))
        s->dep = (uint16_t)(1 + rng_below(&w->rng, MAX_DEP));
}

int model_workload_create_elf(model_workload **out, const char *name, uint64_t seed, const model_elfcode *code)
{
    const workload_params *p = find_params(name);
    model_workload *w;
    size_t f = 0;
    int last_load = -1;

    *out = NULL;
    if (!p)
        return error_set(TEA_ERR_USAGE, "unknown workload '%s' (see tea gen --list)", name);
    if (code->insn_count >= ELF_NO_INDEX)
        return error_set(TEA_ERR_UNSUPPORTED, "%zu instructions: too many for a walk", code->insn_count);
    if (!(w = calloc(1, sizeof *w)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    w->params = p;
    w->seed = seed;
    w->code = code;
    w->insns = calloc(code->insn_count, sizeof *w->insns);
    w->function_end = calloc(code->function_count ? code->function_count : 1, sizeof *w->function_end);
    if (!w->insns || !w->function_end) {
        model_workload_free(w);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    w->insn_count = (uint32_t)code->insn_count;
    rng_seed(&w->rng, seed, 0);
    for (uint32_t i = 0; i < w->insn_count; i++) {
        uint64_t pc = code->insns[i].pc;
        while (f < code->function_count && code->functions[f].end <= pc)
            f++;
        if (f < code->function_count && code->functions[f].start <= pc) {
            w->function_end[f] = i + 1;
            if (pc == code->functions[f].start)
                last_load = -1;
        }
        plan_elf_insn(w, i, f < code->function_count && code->functions[f].start <= pc ? (uint32_t)f : ELF_NO_INDEX,
                      &last_load);
    }
    w->cur = (uint32_t)code->entry;
    w->chase_addr = LARGE_BASE;
    rng_seed(&w->rng, seed, 1);
    *out = w;
    return TEA_OK;
}

/* The instruction after index i in memory, or the entry point when the code
 * ends there (the end of a section, bytes that decode to nothing). */
static uint32_t elf_fall_through(const model_workload *w, uint32_t i)
{
    const model_elfcode_insn *e = &w->code->insns[i];
    if (i + 1 < w->insn_count && w->code->insns[i + 1].pc == e->pc + e->size)
        return i + 1;
    return (uint32_t)w->code->entry;
}

/* Where a return goes: the latest remembered call's successor, or the entry
 * point when none is left (the program starts over). */
static uint32_t elf_pop_return(model_workload *w)
{
    uint32_t to;
    if (!w->call_depth)
        return (uint32_t)w->code->entry;
    to = w->calls[w->call_top];
    w->call_top = (w->call_top + ELF_CALL_DEPTH - 1) % ELF_CALL_DEPTH;
    w->call_depth--;
    return to;
}

static void elf_push_return(model_workload *w, uint32_t to)
{
    w->call_top = (w->call_top + 1) % ELF_CALL_DEPTH;
    w->calls[w->call_top] = to;
    if (w->call_depth < ELF_CALL_DEPTH)
        w->call_depth++;
}

/* Where a control transfer at index i goes this time, and whether it is
 * taken. Calls remember their successor; returns, and jumps that leave the
 * known code, go back to the latest caller. Indirect jumps (switch tables)
 * land on a random instruction of their function. */
static uint32_t elf_branch(model_workload *w, uint32_t i, int *taken)
{
    static_insn *s = &w->insns[i];
    const model_elfcode_insn *e = &w->code->insns[i];
    uint32_t fall = elf_fall_through(w, i);

    *taken = 1;
    switch (e->branch - 1u) {
    case MODEL_BPRED_COND:
        if (s->target == ELF_NO_INDEX) {
            *taken = 0;
        } else if (s->trips) {
            if (s->remaining == 0)
                s->remaining = s->trips;
            *taken = --s->remaining > 0;
        } else {
            *taken = rng_chance(&w->rng, s->p_taken);
        }
        return *taken ? s->target : fall;
    case MODEL_BPRED_JUMP: return s->target != ELF_NO_INDEX && s->target != i ? s->target : elf_pop_return(w);
    case MODEL_BPRED_CALL: elf_push_return(w, fall); return s->target != ELF_NO_INDEX ? s->target : fall;
    case MODEL_BPRED_INDIRECT_CALL:
        elf_push_return(w, fall);
        if (!w->code->function_count)
            return fall;
        if (rng_chance(&w->rng, ELF_OTHER_CALLEE))
            return (uint32_t)w->code->functions[rng_below(&w->rng, w->code->function_count)].first;
        return s->callee;
    case MODEL_BPRED_INDIRECT:
        if (s->function != ELF_NO_INDEX) {
            uint32_t first = (uint32_t)w->code->functions[s->function].first;
            assert(w->function_end[s->function] > first); /* the jump's own function holds it */
            return first + (uint32_t)rng_below(&w->rng, w->function_end[s->function] - first);
        }
        return elf_pop_return(w);
    default:
        return elf_pop_return(w);
    }
}

/* The next correct-path instruction of a walk over a binary. */
static int elf_next(void *ctx, model_insn *u)
{
    model_workload *w = ctx;
    uint32_t i = w->cur;
    static_insn *s = &w->insns[i];
    const model_elfcode_insn *e = &w->code->insns[i];
    int taken = 0;

    memset(u, 0, sizeof *u);
    u->pc = e->pc;
    u->size = e->size;
    u->cls = e->cls;
    u->dep = s->dep;
    u->branch = e->branch;
    if (e->branch != MODEL_BRANCH_NONE) {
        w->cur = elf_branch(w, i, &taken);
        u->target = taken ? w->code->insns[w->cur].pc : e->target;
        if (taken)
            u->flags |= MODEL_INSN_TAKEN;
        return 1;
    }
    w->cur = elf_fall_through(w, i);
    assert(w->cur < w->insn_count);
    if (s->cls == MODEL_SERIAL)
        u->flags |= MODEL_INSN_FLUSH;
    if (s->traps && rng_chance(&w->rng, w->params->trap_rate))
        u->flags |= MODEL_INSN_TRAP;
    if (s->cls == MODEL_LOAD || s->cls == MODEL_STORE) {
        u->addr = next_address(w, s);
        u->mem_size = ACCESS_BYTES;
        if (e->rmw)
            u->flags |= MODEL_INSN_STORE;
        if (s->access == ACCESS_CHASE)
            u->dep = s->prev_load;
        if (s->cls == MODEL_STORE || e->rmw) {
            w->store_ring = (w->store_ring + 1) % (RELOAD_DISTANCE + 1);
            w->recent_stores[w->store_ring] = u->addr;
            if (s->slow_address)
                u->dep = 1;
        }
    }
    return 1;
}

/* A wrong-path instruction at `pc` of a binary: the instruction there, or
 * an integer operation where the bytes are no known instruction. */
static void elf_wrong_path(void *ctx, uint64_t pc, model_insn *u)
{
    model_workload *w = ctx;
    long i = model_elfcode_find(w->code, pc);

    memset(u, 0, sizeof *u);
    u->pc = pc;
    u->size = i >= 0 ? w->code->insns[i].size : ELF_WRONG_PATH_BYTES;
    u->cls = i >= 0 ? w->code->insns[i].cls : MODEL_INT;
    if (u->cls == MODEL_SERIAL || u->cls == MODEL_BRANCH)
        u->cls = MODEL_INT;
}

model_source model_workload_source(model_workload *w)
{
    model_source src = { workload_next, workload_wrong_path, w };
    if (w->code) {
        src.next = elf_next;
        src.wrong_path = elf_wrong_path;
    }
    return src;
}
