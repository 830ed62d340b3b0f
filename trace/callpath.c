/*
 * callpath.c: the calling-context tree and the shadow-stack tracker.
 */
#include "trace/callpath.h"

#include "common/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_MULTIPLIER 0x9E3779B97F4A7C15ull /* 2^64 / golden ratio */
#define MIX_MULTIPLIER_1 0xFF51AFD7ED558CCDull  /* murmur3's 64-bit finalizer */
#define MIX_MULTIPLIER_2 0xC4CEB9FE1A85EC53ull
/* Nodes of a new table, and addresses of a new class cache (powers of two). */
#define CONTEXTS_INITIAL 64u
#define CLASS_SLOTS_INITIAL 1024u
/* Frames the shadow stack keeps: past this, the oldest quarter is dropped
 * (returns into them then match no frame, docs/semantics.md). */
#define CALLPATH_MAX_FRAMES 65536u

static size_t node_hash(uint32_t parent, uint64_t site, uint64_t entry)
{
    /* every input bit reaches the low bits the tables mask (murmur3's
     * finalizer): one call site reached along many paths differs in the
     * parent alone */
    uint64_t h = site ^ (entry * GOLDEN_MULTIPLIER) ^ ((uint64_t)parent * MIX_MULTIPLIER_2);
    h ^= h >> 33;
    h *= MIX_MULTIPLIER_1;
    h ^= h >> 33;
    h *= MIX_MULTIPLIER_2;
    h ^= h >> 33;
    return (size_t)h;
}

/* Makes room for one more node and keeps the index under half full. */
static int contexts_reserve(trace_contexts *t)
{
    if (t->count == t->capacity) {
        uint32_t cap = t->capacity ? t->capacity * 2 : CONTEXTS_INITIAL;
        trace_context *n = realloc(t->nodes, (size_t)cap * sizeof *n);
        if (!n)
            return error_set(TEA_ERR_NOMEM, "out of memory for %u calling contexts", cap);
        t->nodes = n;
        t->capacity = cap;
    }
    if ((size_t)(t->count + 1) * 2 <= t->index_slots)
        return TEA_OK;
    size_t slots = t->index_slots ? t->index_slots * 2 : 2 * CONTEXTS_INITIAL;
    uint32_t *idx = calloc(slots, sizeof *idx);
    if (!idx)
        return error_set(TEA_ERR_NOMEM, "out of memory for the calling-context index");
    for (uint32_t id = 1; id < t->count; id++) {
        const trace_context *c = &t->nodes[id];
        size_t s = node_hash(c->parent, c->site, c->entry) & (slots - 1);
        while (idx[s])
            s = (s + 1) & (slots - 1);
        idx[s] = id + 1;
    }
    free(t->index);
    t->index = idx;
    t->index_slots = slots;
    return TEA_OK;
}

int trace_contexts_init(trace_contexts *t)
{
    memset(t, 0, sizeof *t);
    int rc = contexts_reserve(t);
    if (rc) {
        trace_contexts_free(t);
        return rc;
    }
    t->nodes[0] = (trace_context){ 0, 0, TRACE_CONTEXT_ROOT, 0 };
    t->count = 1;
    return TEA_OK;
}

void trace_contexts_free(trace_contexts *t)
{
    free(t->nodes);
    free(t->index);
    memset(t, 0, sizeof *t);
}

int trace_contexts_intern(trace_contexts *t, uint32_t parent, uint64_t site, uint64_t entry, uint32_t *id)
{
    if (parent >= t->count)
        return error_set(TEA_ERR_USAGE, "calling context %u has no parent %u", t->count, parent);
    size_t mask = t->index_slots - 1;
    size_t s = node_hash(parent, site, entry) & mask;
    for (; t->index[s]; s = (s + 1) & mask) {
        const trace_context *c = &t->nodes[t->index[s] - 1];
        if (c->parent == parent && c->site == site && c->entry == entry) {
            *id = t->index[s] - 1;
            return TEA_OK;
        }
    }
    if (t->count >= TRACE_CONTEXT_MAX)
        return error_set(TEA_ERR_USAGE, "more than %u calling contexts", TRACE_CONTEXT_MAX);
    int rc = contexts_reserve(t);
    if (rc)
        return rc;
    if (t->index_slots - 1 != mask) { /* the index grew: probe again */
        mask = t->index_slots - 1;
        for (s = node_hash(parent, site, entry) & mask; t->index[s]; s = (s + 1) & mask) {
        }
    }
    uint32_t n = t->count++;
    t->nodes[n] = (trace_context){ site, entry, parent, t->nodes[parent].depth + 1 };
    t->index[s] = n + 1;
    *id = n;
    return TEA_OK;
}

int trace_contexts_from_nodes(trace_contexts *t, const trace_context *nodes, uint32_t count)
{
    trace_contexts built;
    int rc = trace_contexts_init(&built);

    for (uint32_t i = 1; !rc && i < count; i++) {
        uint32_t id;
        if (nodes[i].parent >= i)
            rc = error_set(TEA_ERR_FORMAT, "calling context %u comes before its parent %u", i, nodes[i].parent);
        else if (!(rc = trace_contexts_intern(&built, nodes[i].parent, nodes[i].site, nodes[i].entry, &id))
                 && id != i)
            rc = error_set(TEA_ERR_FORMAT, "calling context %u repeats context %u", i, id);
    }
    if (rc) {
        trace_contexts_free(&built);
        return rc;
    }
    trace_contexts_free(t);
    *t = built;
    return TEA_OK;
}

int trace_contexts_copy(trace_contexts *dst, const trace_contexts *src)
{
    trace_contexts t;
    memset(&t, 0, sizeof t);
    if (src->count) {
        t.nodes = malloc((size_t)src->capacity * sizeof *t.nodes);
        t.index = malloc(src->index_slots * sizeof *t.index);
        if (!t.nodes || !t.index) {
            trace_contexts_free(&t);
            return error_set(TEA_ERR_NOMEM, "out of memory copying %u calling contexts", src->count);
        }
        memcpy(t.nodes, src->nodes, (size_t)src->count * sizeof *t.nodes);
        memcpy(t.index, src->index, src->index_slots * sizeof *t.index);
        t.count = src->count;
        t.capacity = src->capacity;
        t.index_slots = src->index_slots;
    }
    trace_contexts_free(dst);
    *dst = t;
    return TEA_OK;
}

/* ---- the tracker ---- */

typedef struct class_slot {
    uint64_t pc;
    trace_insn_class cls;
    int used;
} class_slot;

typedef struct frame {
    uint64_t ret;      /* the return address its call pushed (0: none known) */
    uint64_t function; /* the function it runs (its entry's, or the one jumped into) */
    uint32_t node;     /* its context */
    uint32_t arrived;  /* 1: control arrived without a call (a signal handler's frame) */
    uint64_t child_site, child_entry; /* its last call (a loop calls the same again): */
    uint32_t child_node;              /* ... and that call's context, 0 when none yet */
} frame;

/* A context the tracker looked up lately (intern_cached). */
typedef struct recent_node {
    uint64_t site, entry;
    uint32_t parent, id; /* id 0: empty (the root is nobody's child) */
} recent_node;

/* Entries of the tracker's cache of recent lookups (a power of two). */
#define RECENT_NODES 65536u

struct trace_callpath {
    trace_contexts *tree;
    recent_node *recent;  /* direct-mapped by the context's hash: most calls, tail calls and PLT jumps repeat */
    trace_classify_fn classify;
    void *arg;
    class_slot *classes;  /* cache of the classifier's answers */
    size_t class_slots;   /* a power of two */
    size_t class_count;
    frame *frames;        /* the shadow stack, bottom first */
    size_t depth;         /* frames in use (0 before the first instruction) */
    size_t frame_capacity;
    uint64_t prev_pc;
    trace_insn_class prev; /* the previous instruction's class */
    const uint64_t *window_ends; /* a sampled trace's windows (trace_callpath_set_windows), or NULL */
    size_t window_count, window;  /* ... how many, and the one the records are in */
    trace_stack_fn stacks;        /* each window's stack at its start (trace_callpath_set_stacks), or NULL */
    void *stacks_arg;
    int window_fresh;             /* the window's first instruction is next: seed it from `stacks` */
};

void trace_callpath_set_stacks(trace_callpath *cp, trace_stack_fn stacks, void *arg)
{
    cp->stacks = stacks;
    cp->stacks_arg = arg;
    cp->window_fresh = stacks != NULL && cp->depth == 0;
}

void trace_callpath_update_windows(trace_callpath *cp, const uint64_t *ends, size_t count)
{
    assert(count >= cp->window_count); /* windows only ever end */
    cp->window_ends = ends;
    cp->window_count = count;
}

void trace_callpath_set_windows(trace_callpath *cp, const uint64_t *ends, size_t count)
{
    cp->window_ends = ends;
    cp->window_count = count;
    cp->window = 0;
}

int trace_callpath_create(trace_callpath **out, trace_contexts *tree, trace_classify_fn classify, void *arg)
{
    *out = NULL;
    trace_callpath *cp = calloc(1, sizeof *cp);
    if (!cp)
        return error_set(TEA_ERR_NOMEM, "out of memory for a call-path tracker");
    cp->tree = tree;
    cp->classify = classify;
    cp->arg = arg;
    cp->class_slots = CLASS_SLOTS_INITIAL;
    cp->classes = calloc(cp->class_slots, sizeof *cp->classes);
    cp->frame_capacity = 64;
    cp->frames = malloc(cp->frame_capacity * sizeof *cp->frames);
    cp->recent = calloc(RECENT_NODES, sizeof *cp->recent);
    if (!cp->classes || !cp->frames || !cp->recent) {
        trace_callpath_free(cp);
        return error_set(TEA_ERR_NOMEM, "out of memory for a call-path tracker");
    }
    *out = cp;
    return TEA_OK;
}

void trace_callpath_free(trace_callpath *cp)
{
    if (!cp)
        return;
    free(cp->classes);
    free(cp->frames);
    free(cp->recent);
    free(cp);
}

size_t trace_callpath_depth(const trace_callpath *cp)
{
    return cp->depth;
}

static size_t class_home(uint64_t pc, size_t slots)
{
    return (size_t)((pc * GOLDEN_MULTIPLIER) >> 24) & (slots - 1);
}

/* Doubles the class cache. */
static int classes_grow(trace_callpath *cp)
{
    size_t slots = cp->class_slots * 2;
    class_slot *n = calloc(slots, sizeof *n);
    if (!n)
        return error_set(TEA_ERR_NOMEM, "out of memory for %zu instruction classes", slots);
    for (size_t i = 0; i < cp->class_slots; i++) {
        if (!cp->classes[i].used)
            continue;
        size_t s = class_home(cp->classes[i].pc, slots);
        while (n[s].used)
            s = (s + 1) & (slots - 1);
        n[s] = cp->classes[i];
    }
    free(cp->classes);
    cp->classes = n;
    cp->class_slots = slots;
    return TEA_OK;
}

/* The class of the instruction at pc, from the cache or the classifier. */
static int class_of(trace_callpath *cp, uint64_t pc, trace_insn_class *out)
{
    size_t mask = cp->class_slots - 1;
    size_t s = class_home(pc, cp->class_slots);
    for (; cp->classes[s].used; s = (s + 1) & mask) {
        if (cp->classes[s].pc == pc) {
            *out = cp->classes[s].cls;
            return TEA_OK;
        }
    }
    trace_insn_class cls = { .function = 0, .kind = TRACE_INSN_OTHER };
    int rc = cp->classify(cp->arg, pc, &cls);
    if (rc)
        return rc;
    if ((cp->class_count + 1) * 2 > cp->class_slots) {
        if ((rc = classes_grow(cp)))
            return rc;
        mask = cp->class_slots - 1;
        for (s = class_home(pc, cp->class_slots); cp->classes[s].used; s = (s + 1) & mask) {
        }
    }
    cp->classes[s] = (class_slot){ pc, cls, 1 };
    cp->class_count++;
    *out = cls;
    return TEA_OK;
}

static frame *top(trace_callpath *cp)
{
    assert(cp->depth > 0);
    return &cp->frames[cp->depth - 1];
}

/* trace_contexts_intern through the cache of recent lookups. */
static int intern_cached(trace_callpath *cp, uint32_t parent, uint64_t site, uint64_t entry, uint32_t *id)
{
    recent_node *r = &cp->recent[node_hash(parent, site, entry) & (RECENT_NODES - 1)];
    int rc;
    if (r->id && r->parent == parent && r->site == site && r->entry == entry) {
        *id = r->id;
        return TEA_OK;
    }
    if ((rc = trace_contexts_intern(cp->tree, parent, site, entry, id)))
        return rc;
    *r = (recent_node){ site, entry, parent, *id };
    return TEA_OK;
}

/* The context of a frame running `function` entered at `entry` from the
 * call at `site` under the frame below it (the root for the bottom frame);
 * frames deeper than TRACE_CONTEXT_MAX_DEPTH share their parent's. */
static int frame_node(trace_callpath *cp, uint32_t parent, uint64_t site, uint64_t entry, uint32_t *node)
{
    if (cp->tree->nodes[parent].depth >= TRACE_CONTEXT_MAX_DEPTH) {
        *node = parent;
        return TEA_OK;
    }
    return intern_cached(cp, parent, site, entry, node);
}

/* Pushes a frame for a call at `site` entering `entry`, returning to `ret`. */
static int push(trace_callpath *cp, uint64_t site, uint64_t entry, uint64_t function, uint64_t ret)
{
    if (cp->depth == CALLPATH_MAX_FRAMES) {
        size_t drop = CALLPATH_MAX_FRAMES / 4;
        memmove(cp->frames, cp->frames + drop, (cp->depth - drop) * sizeof *cp->frames);
        cp->depth -= drop;
    }
    if (cp->depth == cp->frame_capacity) {
        size_t cap = cp->frame_capacity * 2;
        frame *n = realloc(cp->frames, cap * sizeof *n);
        if (!n)
            return error_set(TEA_ERR_NOMEM, "out of memory for a shadow stack of %zu frames", cap);
        cp->frames = n;
        cp->frame_capacity = cap;
    }
    frame *caller = top(cp);
    uint32_t node = caller->child_node;
    if (!node || caller->child_site != site || caller->child_entry != entry) {
        /* a call not the frame's last one: the tree's index (a lookup that
         * misses the caches on a big tree; most calls repeat the last) */
        int rc = frame_node(cp, caller->node, site, entry, &node);
        if (rc)
            return rc;
        caller->child_site = site;
        caller->child_entry = entry;
        caller->child_node = node;
    }
    cp->frames[cp->depth++] = (frame){ ret, function, node, 0, 0, 0, 0 };
    return TEA_OK;
}

/* The top frame now runs `function` entered at `entry` (a tail call or a
 * jump into another function): its context becomes its parent's child with
 * the same call site. */
static int retarget(trace_callpath *cp, uint64_t entry, uint64_t function)
{
    frame *f = top(cp);
    const trace_context *c = &cp->tree->nodes[f->node];
    f->function = function;
    f->child_node = 0; /* another function: its calls are other contexts */
    if (cp->depth > TRACE_CONTEXT_MAX_DEPTH)
        return TEA_OK; /* a frame sharing its ancestor's context keeps it */
    return intern_cached(cp, c->parent, c->site, entry, &f->node);
}

/* The innermost frame below the top running `function`, as a depth to cut
 * the stack to (0: none). */
static size_t ancestor_running(const trace_callpath *cp, uint64_t function)
{
    for (size_t i = cp->depth - 1; i > 0; i--)
        if (cp->frames[i - 1].function == function)
            return i;
    return 0;
}

/* Control reached `pc` by a jump from the top frame's function (or by a
 * return that matched no frame): nothing when it stays in the function; a
 * tail call when it lands on a function's start; a return to an ancestor
 * (longjmp) when it lands inside an ancestor's function; otherwise the top
 * frame now runs the function jumped into. */
static int jump_to(trace_callpath *cp, uint64_t pc, const trace_insn_class *to)
{
    if (to->function == 0 || to->function == top(cp)->function)
        return TEA_OK;
    if (pc != to->function) {
        size_t cut = ancestor_running(cp, to->function);
        if (cut) {
            cp->depth = cut;
            return TEA_OK;
        }
    }
    return retarget(cp, to->function, to->function);
}

/* A return to `pc`: to the innermost frame whose call pushed pc; else into
 * the innermost frame (the top one included) running pc's function
 * (exceptions land in the catching function); else, from a signal
 * handler's frame, back to the interrupted frame (the return goes to the
 * signal's restorer, which then resumes it); else it pops one frame (the
 * bottom one stays) and is a jump to pc. */
static int return_to(trace_callpath *cp, uint64_t pc, const trace_insn_class *to)
{
    for (size_t i = cp->depth; i > 1; i--) {
        if (cp->frames[i - 1].ret == pc) {
            cp->depth = i - 1;
            return TEA_OK;
        }
    }
    if (to->function != 0) {
        for (size_t i = cp->depth; i > 0; i--) {
            if (cp->frames[i - 1].function == to->function) {
                cp->depth = i;
                return TEA_OK;
            }
        }
    }
    if (cp->depth > 1 && top(cp)->arrived) {
        cp->depth--;
        return TEA_OK;
    }
    if (cp->depth > 1)
        cp->depth--;
    return jump_to(cp, pc, to);
}

/* Control reached an instruction of `to` without a control transfer (a signal handler
 * starting, or sigreturn resuming): back into a frame running its function
 * when there is one, else a new frame called from the interrupted address. */
static int arrive_at(trace_callpath *cp, const trace_insn_class *to)
{
    if (to->function == 0 || to->function == top(cp)->function)
        return TEA_OK;
    size_t cut = ancestor_running(cp, to->function);
    if (cut) {
        cp->depth = cut;
        return TEA_OK;
    }
    int rc = push(cp, cp->prev_pc, to->function, to->function, 0);
    if (rc == TEA_OK)
        top(cp)->arrived = 1;
    return rc;
}

int trace_callpath_step(trace_callpath *cp, uint64_t pc, uint32_t *ctx)
{
    trace_insn_class cls;
    int rc;
    if (cp->depth > 0 && pc == cp->prev_pc && cp->prev.kind != TRACE_INSN_RETURN) {
        *ctx = top(cp)->node;
        return TEA_OK;
    }
    if ((rc = class_of(cp, pc, &cls)))
        return rc;
    if (cp->depth == 0) {
        uint32_t node;
        uint64_t function = cls.function ? cls.function : pc;
        if ((rc = trace_contexts_intern(cp->tree, TRACE_CONTEXT_ROOT, 0, function, &node)))
            return rc;
        cp->frames[0] = (frame){ 0, cls.function, node, 0, 0, 0, 0 };
        cp->depth = 1;
    } else {
        int fell_through = cp->prev.length && pc == cp->prev_pc + cp->prev.length;
        switch (cp->prev.kind) {
        case TRACE_INSN_CALL:
            rc = push(cp, cp->prev_pc, pc, cls.function, cp->prev_pc + cp->prev.length);
            break;
        case TRACE_INSN_RETURN:
            rc = return_to(cp, pc, &cls);
            break;
        case TRACE_INSN_JUMP:
            rc = fell_through ? TEA_OK : jump_to(cp, pc, &cls);
            break;
        default:
            rc = fell_through || cp->prev.length == 0 ? TEA_OK : arrive_at(cp, &cls);
            break;
        }
        if (rc)
            return rc;
    }
    cp->prev_pc = pc;
    cp->prev = cls;
    *ctx = top(cp)->node;
    return TEA_OK;
}

/* The lengths a call instruction may have, the likeliest first (x86-64:
 * call rel32 5, call *disp32(%rip) 6, call *%reg 2 or 3, ...; RISC-V: jal
 * and jalr 4, c.jalr 2), tried backwards from a return address. */
static const uint8_t CALL_LENGTHS[] = { 5, 6, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* The call instruction that pushed return address `ret`: the first of
 * CALL_LENGTHS whose bytes before `ret` decode as a call of that length.
 * 0 and *site set, or 1 when none does, or the classifier's error. */
static int call_before(trace_callpath *cp, uint64_t ret, uint64_t *site, trace_insn_class *cls)
{
    for (size_t i = 0; i < sizeof CALL_LENGTHS; i++) {
        int rc;
        if (ret < CALL_LENGTHS[i])
            continue;
        if ((rc = class_of(cp, ret - CALL_LENGTHS[i], cls)))
            return rc;
        if (cls->kind == TRACE_INSN_CALL && cls->length == CALL_LENGTHS[i]) {
            *site = ret - CALL_LENGTHS[i];
            return TEA_OK;
        }
    }
    return 1;
}

/* A frame the call at `site` (class `call`) pushed, running now at `at`
 * (class `now`): entered at the call's target, or, for an indirect call,
 * at the start of the function it runs; retargeted when it runs another
 * function than the one called (a tail call, a PLT stub's jump), as
 * trace_callpath_step would have. */
static int seed_frame(trace_callpath *cp, uint64_t site, const trace_insn_class *call, uint64_t ret,
                      const trace_insn_class *now)
{
    uint64_t entry = call->target ? call->target : now->function;
    trace_insn_class callee;
    int rc;
    if (!entry)
        entry = site; /* an indirect call into code of no known function: its site names it */
    if ((rc = class_of(cp, entry, &callee)) || (rc = push(cp, site, entry, callee.function, ret)))
        return rc;
    if (now->function && now->function != callee.function)
        rc = retarget(cp, now->function, now->function);
    return rc;
}

int trace_callpath_seed(trace_callpath *cp, uint64_t pc, const uint64_t *returns, size_t count)
{
    uint64_t sites[TRACE_CONTEXT_MAX_DEPTH];
    trace_insn_class calls[TRACE_CONTEXT_MAX_DEPTH], bottom;
    size_t kept = 0;
    int rc;

    cp->depth = 0;
    if (count > TRACE_CONTEXT_MAX_DEPTH)
        count = TRACE_CONTEXT_MAX_DEPTH; /* the innermost: deeper contexts share their ancestor's anyway */
    for (; kept < count; kept++) {
        if ((rc = call_before(cp, returns[kept], &sites[kept], &calls[kept])) < 0)
            return rc;
        if (rc)
            break; /* no call before it: an unwinding the code does not confirm */
    }
    if (kept == 0)
        return TEA_OK; /* the next step starts an empty stack at pc */
    /* the bottom frame: the outermost caller kept, under the root */
    if ((rc = class_of(cp, sites[kept - 1], &bottom)))
        return rc;
    {
        uint32_t node;
        uint64_t function = bottom.function ? bottom.function : sites[kept - 1];
        if ((rc = trace_contexts_intern(cp->tree, TRACE_CONTEXT_ROOT, 0, function, &node)))
            return rc;
        cp->frames[0] = (frame){ 0, bottom.function, node, 0, 0, 0, 0 };
        cp->depth = 1;
    }
    /* each call from the outermost in: its callee runs at the next call's site, or at pc */
    for (size_t k = kept; k-- > 0;) {
        uint64_t at = k ? sites[k - 1] : pc;
        trace_insn_class here;
        if ((rc = class_of(cp, at, &here)) || (rc = seed_frame(cp, sites[k], &calls[k], returns[k], &here)))
            return rc;
    }
    /* no instruction before pc: its step keeps the stack (a control
     * transfer of unknown length falls through nowhere) */
    cp->prev_pc = 0;
    cp->prev = (trace_insn_class){ .function = 0, .kind = TRACE_INSN_OTHER };
    return TEA_OK;
}

int trace_callpath_peek(trace_callpath *cp, uint64_t pc, uint32_t *ctx)
{
    if (cp->depth == 0 || cp->depth == CALLPATH_MAX_FRAMES) /* nothing to restore, or a push would drop frames */
        return trace_callpath_step(cp, pc, ctx);
    size_t depth = cp->depth;
    frame saved = *top(cp);
    uint64_t prev_pc = cp->prev_pc;
    trace_insn_class prev = cp->prev;
    int rc = trace_callpath_step(cp, pc, ctx);
    cp->depth = depth;
    *top(cp) = saved;
    cp->prev_pc = prev_pc;
    cp->prev = prev;
    return rc;
}

int trace_callpath_batch(trace_callpath *cp, trace_batch *batch)
{
    for (size_t r = 0; r < batch->count; r++) {
        const trace_record *rec = &batch->records[r];
        trace_uop *u = batch->uops + rec->first_uop;
        int rc = TEA_OK;
        while (cp->window < cp->window_count && rec->cycle > cp->window_ends[cp->window]) {
            cp->window++; /* a fast-forward: its calls and returns were not seen */
            cp->depth = 0;
            cp->window_fresh = cp->stacks != NULL;
        }
        if (cp->window_fresh && (rec->n_commit || (rec->flags & TRACE_REC_EXCEPTION))) {
            /* the window's first instruction: the stack the fast-forward left */
            const uint64_t *returns = NULL;
            size_t n = 0;
            cp->window_fresh = 0;
            if ((rc = cp->stacks(cp->stacks_arg, cp->window, &returns, &n))
                || (rc = trace_callpath_seed(cp, u[0].pc, returns, n)))
                return rc;
        }
        for (unsigned i = 0; i < rec->n_commit && rc == TEA_OK; i++)
            rc = trace_callpath_step(cp, u[i].pc, &u[i].ctx);
        if (rc == TEA_OK && (rec->flags & TRACE_REC_EXCEPTION))
            rc = trace_callpath_peek(cp, u[rec->n_commit].pc, &u[rec->n_commit].ctx);
        if (rc)
            return rc;
    }
    return TEA_OK;
}
