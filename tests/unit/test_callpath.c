/*
 * test_callpath.c: calling contexts (trace/callpath.c) on hand-written
 * instruction streams of a made-up program whose instructions are 4 bytes:
 * main at 0x1000, a at 0x2000, b at 0x3000, leaf at 0x4000, rec at 0x5000,
 * a signal handler at 0x6000, the signal restorer at 0x7000 (functions
 * 0x100 long), a's cold part at 0x8000 (in a), nothing known from 0x9000.
 * Every expected context is derived by hand from docs/semantics.md,
 * "Calling contexts".
 */
#include "common/error.h"
#include "trace/callpath.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

enum { MAIN = 0x1000, A = 0x2000, B = 0x3000, LEAF = 0x4000, REC = 0x5000, HANDLER = 0x6000,
       RESTORER = 0x7000, A_COLD = 0x8000, UNKNOWN = 0x9000 };

static const struct { uint64_t pc; uint8_t kind; } kinds[] = {
    { MAIN + 0x04, TRACE_INSN_CALL },   { MAIN + 0x08, TRACE_INSN_CALL },   { A + 0x04, TRACE_INSN_CALL },
    { A + 0x0c, TRACE_INSN_CALL },      { A + 0x10, TRACE_INSN_RETURN },    { A + 0x14, TRACE_INSN_JUMP },
    { B + 0x04, TRACE_INSN_CALL },      { B + 0x08, TRACE_INSN_RETURN },    { B + 0x0c, TRACE_INSN_JUMP },
    { LEAF + 0x04, TRACE_INSN_RETURN }, { REC + 0x00, TRACE_INSN_JUMP },    { REC + 0x04, TRACE_INSN_CALL },
    { REC + 0x0c, TRACE_INSN_RETURN },  { REC + 0x10, TRACE_INSN_JUMP },    { REC + 0x14, TRACE_INSN_CALL },
    { REC + 0x18, TRACE_INSN_RETURN },  { HANDLER + 0x04, TRACE_INSN_RETURN },
};

/* The direct calls' targets (the others are indirect). */
static const struct { uint64_t pc, target; } targets[] = {
    { MAIN + 0x04, A }, { MAIN + 0x08, B }, { A + 0x04, LEAF }, { A + 0x0c, LEAF }, { B + 0x04, LEAF },
};

static int classify(void *arg, uint64_t pc, trace_insn_class *out)
{
    unsigned *calls = arg;
    (*calls)++;
    out->kind = TRACE_INSN_OTHER;
    out->length = 4;
    out->target = 0;
    out->function = pc >= A_COLD && pc < UNKNOWN ? A : pc < UNKNOWN ? pc & ~(uint64_t)0xfff : 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].pc == pc)
            out->kind = kinds[i].kind;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (targets[i].pc == pc)
            out->target = targets[i].target;
    return 0;
}

typedef struct fixture {
    trace_contexts tree;
    trace_callpath *cp;
    unsigned classified;
} fixture;

static void open_fixture(fixture *f)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(trace_contexts_init(&f->tree), 0);
    assert_int_equal(trace_callpath_create(&f->cp, &f->tree, classify, &f->classified), 0);
}

static void close_fixture(fixture *f)
{
    trace_callpath_free(f->cp);
    trace_contexts_free(&f->tree);
}

/* Steps through `n` PCs and returns the last one's context. */
static uint32_t run(fixture *f, const uint64_t *pcs, size_t n)
{
    uint32_t ctx = UINT32_MAX;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(trace_callpath_step(f->cp, pcs[i], &ctx), 0);
    return ctx;
}

static uint32_t step(fixture *f, uint64_t pc)
{
    return run(f, &pc, 1);
}

/* The node (parent, site, entry) must exist with that id. */
static void assert_node(const fixture *f, uint32_t id, uint32_t parent, uint64_t site, uint64_t entry)
{
    assert_true(id < f->tree.count);
    assert_int_equal(f->tree.nodes[id].parent, parent);
    assert_int_equal(f->tree.nodes[id].site, site);
    assert_int_equal(f->tree.nodes[id].entry, entry);
    assert_int_equal(f->tree.nodes[id].depth, f->tree.nodes[parent].depth + 1);
}

/* main calls a, which calls leaf from two sites; then main calls b, which
 * calls leaf: four contexts below main, the same ids when a path repeats,
 * each address classified once. */
static void calls_and_returns(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    assert_int_equal(step(&f, MAIN), 1);
    assert_node(&f, 1, TRACE_CONTEXT_ROOT, 0, MAIN);
    assert_int_equal(step(&f, MAIN + 4), 1); /* the call runs in the caller */
    assert_int_equal(step(&f, A), 2);
    assert_node(&f, 2, 1, MAIN + 4, A);
    assert_int_equal(step(&f, A + 4), 2);
    assert_int_equal(step(&f, LEAF), 3);
    assert_node(&f, 3, 2, A + 4, LEAF);
    assert_int_equal(step(&f, LEAF + 4), 3); /* the return runs in the callee */
    assert_int_equal(step(&f, A + 8), 2);
    assert_int_equal(step(&f, A + 0xc), 2);
    assert_int_equal(step(&f, LEAF), 4);
    assert_node(&f, 4, 2, A + 0xc, LEAF);
    assert_int_equal(step(&f, LEAF + 4), 4);
    assert_int_equal(step(&f, A + 0x10), 2);
    assert_int_equal(step(&f, MAIN + 8), 1);
    assert_int_equal(step(&f, B), 5);
    assert_node(&f, 5, 1, MAIN + 8, B);
    assert_int_equal(step(&f, B + 4), 5);
    assert_int_equal(step(&f, LEAF), 6);
    assert_node(&f, 6, 5, B + 4, LEAF);
    assert_int_equal(step(&f, LEAF + 4), 6);
    assert_int_equal(step(&f, B + 8), 5);
    assert_int_equal(step(&f, MAIN + 0xc), 1);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    /* main calls a, a calls leaf from 0x2004 again: the same ids */
    uint64_t again[] = { MAIN + 4, A, A + 4, LEAF };
    assert_int_equal(run(&f, again, 4), 3);
    assert_int_equal(f.tree.count, 7);
    assert_int_equal(f.classified, 14); /* distinct addresses */
    close_fixture(&f);
}

/* a jumps to leaf's entry: leaf takes a's place under main (same call
 * site), and leaf's return goes back to main. */
static void tail_call(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    uint64_t pcs[] = { MAIN + 4, A, A + 0x14 };
    assert_int_equal(run(&f, pcs, 3), 2);
    /* A + 0x14 is a jump: to leaf's entry */
    assert_int_equal(step(&f, LEAF), 3);
    assert_node(&f, 3, 1, MAIN + 4, LEAF);
    assert_int_equal(trace_callpath_depth(f.cp), 2);
    assert_int_equal(step(&f, LEAF + 4), 3);
    assert_int_equal(step(&f, MAIN + 8), 1);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    close_fixture(&f);
}

/* main → a → b; b jumps into the middle of main (longjmp): two frames go. */
static void longjmp_out_of_two_frames(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    uint64_t pcs[] = { MAIN + 4, A, A + 4, B, B + 0xc };
    assert_int_equal(run(&f, pcs, 5), 3);
    assert_int_equal(trace_callpath_depth(f.cp), 3);
    assert_int_equal(step(&f, MAIN + 0x40), 1);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    close_fixture(&f);
}

/* main → a → b → leaf; leaf's return lands in a landing pad of a (no
 * frame's return address): the stack is cut to a. The same into a's cold
 * part, which counts as a. */
static void exception_through_three(void **state)
{
    fixture f;
    (void)state;
    for (int cold = 0; cold < 2; cold++) {
        open_fixture(&f);
        uint64_t pcs[] = { MAIN + 4, A, A + 4, B, B + 4, LEAF, LEAF + 4 };
        assert_int_equal(run(&f, pcs, 7), 4);
        assert_int_equal(trace_callpath_depth(f.cp), 4);
        assert_int_equal(step(&f, cold ? A_COLD + 0x10 : A + 0x40), 2);
        assert_int_equal(trace_callpath_depth(f.cp), 2);
        close_fixture(&f);
    }
}

/* rec calls itself 300 times (`call rec` at 0x5004, its return address
 * 0x5008, then `ret` at 0x500c after a jump): contexts stop at depth 256,
 * and 301 returns bring the stack back to main. */
static void deep_recursion(void **state)
{
    fixture f;
    const unsigned calls = 300;
    uint32_t ctx = 0;
    (void)state;
    open_fixture(&f);
    assert_int_equal(step(&f, MAIN + 4), 1);
    for (unsigned i = 0; i <= calls; i++) {
        step(&f, REC);
        ctx = step(&f, REC + 4);
    }
    assert_int_equal(trace_callpath_depth(f.cp), calls + 2);
    assert_int_equal(f.tree.nodes[ctx].depth, TRACE_CONTEXT_MAX_DEPTH);
    assert_int_equal(f.tree.count, 1 + TRACE_CONTEXT_MAX_DEPTH); /* root, main, rec at depths 2..256 */
    step(&f, REC); /* the base case: rec + 0 jumps to rec + 0xc */
    step(&f, REC + 0xc);
    for (unsigned i = 0; i <= calls; i++) {
        step(&f, REC + 8);
        step(&f, REC + 0xc);
    }
    assert_int_equal(trace_callpath_depth(f.cp), 2);
    assert_int_equal(step(&f, MAIN + 8), 1);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    close_fixture(&f);
}

/* `call rec; ret` recursion (a second entry at rec + 0x10 that branches
 * to its return at 0x18 or calls itself from 0x14, returning to 0x18): a
 * return landing on a return at the same address is a new instruction,
 * so each return pops one frame. */
static void return_onto_return(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    uint64_t down[] = { MAIN + 4, REC + 0x10, REC + 0x14, REC + 0x10, REC + 0x14, REC + 0x10 };
    assert_int_equal(run(&f, down, 6), 4);
    assert_int_equal(trace_callpath_depth(f.cp), 4);
    assert_int_equal(step(&f, REC + 0x18), 4);
    assert_int_equal(step(&f, REC + 0x18), 3);
    assert_int_equal(step(&f, REC + 0x18), 2);
    assert_int_equal(step(&f, MAIN + 8), 1);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    close_fixture(&f);
}

/* A handler starts without a call (a new frame called from the
 * interrupted instruction), returns to the restorer (the interrupted
 * frame again), which resumes main. */
static void signal_handler(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    assert_int_equal(step(&f, MAIN), 1);
    assert_int_equal(step(&f, HANDLER), 2);
    assert_node(&f, 2, 1, MAIN, HANDLER);
    assert_int_equal(step(&f, HANDLER + 4), 2);
    assert_int_equal(step(&f, RESTORER), 1);
    assert_int_equal(step(&f, RESTORER + 4), 1);
    assert_int_equal(step(&f, MAIN + 0x20), 1);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    close_fixture(&f);
}

/* A trace starting inside leaf: its returns reach callers never seen,
 * which replace the bottom frame as children of the root; an address in no
 * function changes nothing. */
static void returns_above_the_start(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    assert_int_equal(step(&f, LEAF), 1);
    assert_node(&f, 1, TRACE_CONTEXT_ROOT, 0, LEAF);
    assert_int_equal(step(&f, LEAF + 4), 1);
    assert_int_equal(step(&f, A + 0x10), 2);
    assert_node(&f, 2, TRACE_CONTEXT_ROOT, 0, A);
    assert_int_equal(step(&f, MAIN + 0x10), 3);
    assert_node(&f, 3, TRACE_CONTEXT_ROOT, 0, MAIN);
    assert_int_equal(step(&f, UNKNOWN), 3);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    close_fixture(&f);
}

/* A batch: an excepting µop at the callee's first instruction gets the
 * callee's context without moving the tracker; committed again, it is the
 * callee's first instruction. */
static void batch_with_exception(void **state)
{
    fixture f;
    trace_batch b;
    trace_record rec;
    (void)state;
    open_fixture(&f);
    assert_int_equal(trace_batch_init(&b, 8), 0);
    memset(&rec, 0, sizeof rec);
    rec.cycle = 1;
    rec.n_commit = 2;
    rec.retire = 2;
    b.uops[0] = (trace_uop){ MAIN, 0, 0, 0, 99 };
    b.uops[1] = (trace_uop){ MAIN + 4, 0, 1, 0, 99 };
    trace_batch_commit(&b, &rec);
    rec.cycle = 2;
    rec.n_commit = 0;
    rec.retire = 1;
    rec.flags = TRACE_REC_EXCEPTION;
    b.uops[2] = (trace_uop){ A, 1u << 8, 0, 0, 99 };
    trace_batch_commit(&b, &rec);
    rec.cycle = 3;
    rec.n_commit = 1;
    rec.flags = 0;
    b.uops[3] = (trace_uop){ A, 0, 0, 0, 99 };
    trace_batch_commit(&b, &rec);
    assert_int_equal(trace_callpath_batch(f.cp, &b), 0);
    assert_int_equal(b.uops[0].ctx, 1);
    assert_int_equal(b.uops[1].ctx, 1);
    assert_int_equal(b.uops[2].ctx, 2);
    assert_int_equal(b.uops[3].ctx, 2);
    assert_int_equal(trace_callpath_depth(f.cp), 2);
    assert_node(&f, 2, 1, MAIN + 4, A);
    assert_int_equal(f.tree.count, 3);
    trace_batch_free(&b);
    close_fixture(&f);
}

/* A sampled trace's windows: the call before the fast-forward leaves no
 * frame; the next window's first instruction is under the root. */
static void windows_start_empty(void **state)
{
    fixture f;
    trace_batch b;
    trace_record rec;
    const uint64_t ends[] = { 1 };
    (void)state;
    open_fixture(&f);
    trace_callpath_set_windows(f.cp, ends, 1);
    assert_int_equal(trace_batch_init(&b, 8), 0);
    memset(&rec, 0, sizeof rec);
    rec.cycle = 1;
    rec.n_commit = 1;
    rec.retire = 1;
    b.uops[0] = (trace_uop){ MAIN + 4, 0, 0, 0, 0 };
    trace_batch_commit(&b, &rec);
    rec.cycle = 5; /* the next window */
    b.uops[1] = (trace_uop){ A, 0, 0, 0, 0 };
    trace_batch_commit(&b, &rec);
    assert_int_equal(trace_callpath_batch(f.cp, &b), 0);
    assert_int_equal(b.uops[0].ctx, 1);
    assert_int_equal(b.uops[1].ctx, 2);
    assert_node(&f, 2, TRACE_CONTEXT_ROOT, 0, A);
    assert_int_equal(trace_callpath_depth(f.cp), 1);
    trace_batch_free(&b);
    close_fixture(&f);
}

/* A stack unwound at leaf (called from a+4, a called from main+4):
 * seeding gives the contexts stepping from main's start gives, and the
 * returns go where the seeded return addresses say. */
static void seed_as_stepped(void **state)
{
    fixture f;
    const uint64_t returns[] = { A + 8, MAIN + 8 };
    uint32_t ctx;
    (void)state;
    open_fixture(&f);
    assert_int_equal(trace_callpath_seed(f.cp, LEAF, returns, 2), 0);
    assert_int_equal(trace_callpath_depth(f.cp), 3);
    assert_int_equal(step(&f, LEAF), 3);
    assert_node(&f, 1, TRACE_CONTEXT_ROOT, 0, MAIN);
    assert_node(&f, 2, 1, MAIN + 4, A);
    assert_node(&f, 3, 2, A + 4, LEAF);
    assert_int_equal(step(&f, LEAF + 4), 3);
    assert_int_equal(step(&f, A + 8), 2); /* leaf's return, to the seeded a+8 */
    assert_int_equal(step(&f, A + 0x0c), 2);
    assert_int_equal(step(&f, LEAF), 4);
    assert_node(&f, 4, 2, A + 0x0c, LEAF);
    assert_int_equal(step(&f, LEAF + 4), 4);
    assert_int_equal(step(&f, A + 0x10), 2);
    assert_int_equal(step(&f, MAIN + 8), 1); /* a's return, to the seeded main+8 */
    /* the same path stepped from main's start: the same ids */
    trace_callpath_free(f.cp);
    assert_int_equal(trace_callpath_create(&f.cp, &f.tree, classify, &f.classified), 0);
    uint64_t pcs[] = { MAIN, MAIN + 4, A, A + 4, LEAF };
    assert_int_equal(run(&f, pcs, 5), 3);
    assert_int_equal(f.tree.count, 5);
    /* a seeded window starting on a call: the call is followed */
    assert_int_equal(trace_callpath_seed(f.cp, A + 4, (const uint64_t[]){ MAIN + 8 }, 1), 0);
    assert_int_equal(step(&f, A + 4), 2);
    assert_int_equal(trace_callpath_step(f.cp, LEAF, &ctx), 0);
    assert_int_equal(ctx, 3);
    close_fixture(&f);
}

/* Seeding's unusual frames: a frame running another function than its
 * call's target (a tail call) is retargeted; an indirect call's callee is
 * the function it runs; a return address with no call before it drops
 * itself and every frame outside it; no return address, an empty stack. */
static void seed_unusual_frames(void **state)
{
    fixture f;
    (void)state;
    open_fixture(&f);
    /* at leaf, called from main+4 (whose call targets a): a tail-called leaf */
    assert_int_equal(trace_callpath_seed(f.cp, LEAF + 4, (const uint64_t[]){ MAIN + 8 }, 1), 0);
    assert_int_equal(step(&f, LEAF + 4), 3);
    assert_node(&f, 1, TRACE_CONTEXT_ROOT, 0, MAIN);
    assert_node(&f, 3, 1, MAIN + 4, LEAF);
    /* at rec+8, called from rec+4 (no target: indirect) */
    assert_int_equal(trace_callpath_seed(f.cp, REC + 8, (const uint64_t[]){ REC + 8 }, 1), 0);
    assert_int_equal(step(&f, REC + 8), 5);
    assert_node(&f, 4, TRACE_CONTEXT_ROOT, 0, REC);
    assert_node(&f, 5, 4, REC + 4, REC);
    /* at leaf from a+4, then an address after no call: a is the bottom */
    assert_int_equal(trace_callpath_seed(f.cp, LEAF, (const uint64_t[]){ A + 8, UNKNOWN + 0x40 }, 2), 0);
    assert_int_equal(trace_callpath_depth(f.cp), 2);
    assert_int_equal(step(&f, LEAF), 7);
    assert_node(&f, 6, TRACE_CONTEXT_ROOT, 0, A);
    assert_node(&f, 7, 6, A + 4, LEAF);
    /* nothing known: the instruction's function under the root */
    assert_int_equal(trace_callpath_seed(f.cp, B, NULL, 0), 0);
    assert_int_equal(trace_callpath_depth(f.cp), 0);
    assert_int_equal(step(&f, B), 8);
    assert_node(&f, 8, TRACE_CONTEXT_ROOT, 0, B);
    close_fixture(&f);
}

/* The stacks callback of a sampled batch: window 0 none, window 1 main+8's. */
static int window_stacks(void *arg, size_t window, const uint64_t **returns, size_t *count)
{
    static const uint64_t from_main[] = { MAIN + 0x0c };
    unsigned *asked = arg;
    (*asked)++;
    *returns = window == 1 ? from_main : NULL;
    *count = window == 1 ? 1 : 0;
    return 0;
}

/* A sampled batch with stacks: each window's first instruction asks for
 * its window's stack once; the second window starts in b under main. */
static void windows_start_from_stacks(void **state)
{
    fixture f;
    trace_batch b;
    trace_record rec;
    const uint64_t ends[] = { 1 };
    unsigned asked = 0;
    (void)state;
    open_fixture(&f);
    trace_callpath_set_windows(f.cp, ends, 1);
    trace_callpath_set_stacks(f.cp, window_stacks, &asked);
    assert_int_equal(trace_batch_init(&b, 8), 0);
    memset(&rec, 0, sizeof rec);
    rec.cycle = 1;
    rec.n_commit = 1;
    rec.retire = 1;
    b.uops[0] = (trace_uop){ A, 0, 0, 0, 0 };
    trace_batch_commit(&b, &rec);
    rec.cycle = 5; /* the next window */
    b.uops[1] = (trace_uop){ B + 4, 0, 0, 0, 0 };
    trace_batch_commit(&b, &rec);
    b.uops[2] = (trace_uop){ LEAF, 0, 0, 0, 0 };
    trace_batch_commit(&b, &rec);
    assert_int_equal(trace_callpath_batch(f.cp, &b), 0);
    assert_int_equal(asked, 2);
    assert_int_equal(b.uops[0].ctx, 1);
    assert_node(&f, 1, TRACE_CONTEXT_ROOT, 0, A);
    assert_int_equal(b.uops[1].ctx, 3);
    assert_node(&f, 2, TRACE_CONTEXT_ROOT, 0, MAIN);
    assert_node(&f, 3, 2, MAIN + 8, B);
    assert_int_equal(b.uops[2].ctx, 4);
    assert_node(&f, 4, 3, B + 4, LEAF);
    trace_batch_free(&b);
    close_fixture(&f);
}

/* Interning: the same triple the same id, a copy equal, a missing parent
 * refused, 100,000 nodes through many index growths. */
static void interning(void **state)
{
    trace_contexts t, c;
    uint32_t id, again;
    (void)state;
    assert_int_equal(trace_contexts_init(&t), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(trace_contexts_intern(&t, 0, 0x10, 0x20, &id), 0);
    assert_int_equal(id, 1);
    assert_int_equal(trace_contexts_intern(&t, 5, 0x10, 0x20, &id), TEA_ERR_USAGE);
    error_clear();
    for (uint32_t i = 0; i < 100000; i++) {
        assert_int_equal(trace_contexts_intern(&t, i / 2, i, 0x40, &id), 0);
        assert_int_equal(id, i + 2);
    }
    assert_int_equal(trace_contexts_copy(&c, &t), 0);
    for (uint32_t i = 0; i < 100000; i += 997) {
        assert_int_equal(trace_contexts_intern(&c, i / 2, i, 0x40, &again), 0);
        assert_int_equal(again, i + 2);
    }
    assert_int_equal(c.count, 100002);
    trace_contexts_free(&c);
    trace_contexts_free(&t);
    trace_contexts_free(&t); /* a zeroed table */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calls_and_returns),        cmocka_unit_test(tail_call),
        cmocka_unit_test(longjmp_out_of_two_frames), cmocka_unit_test(exception_through_three),
        cmocka_unit_test(deep_recursion),           cmocka_unit_test(return_onto_return),
        cmocka_unit_test(signal_handler),           cmocka_unit_test(returns_above_the_start),
        cmocka_unit_test(batch_with_exception),     cmocka_unit_test(interning),
        cmocka_unit_test(windows_start_empty),      cmocka_unit_test(seed_as_stepped),
        cmocka_unit_test(seed_unusual_frames),      cmocka_unit_test(windows_start_from_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
