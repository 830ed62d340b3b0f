/*
 * test_invariants.c: the structures' checkers (pics_check, golden_check,
 * view_check) hold on every state the libraries reach and catch each kind
 * of corruption; in a Debug build a corrupted structure met at a phase
 * boundary aborts through assert, and an invalid argument through
 * TEA_ASSERT_ARG, which in Release returns TEA_ERR_USAGE instead; a map
 * stays sound whichever allocation fails while it grows (through the fault
 * tests' helper, testutil.h). The core model's checker is tested in
 * test_core_check.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include "common/error.h"
#include "golden/golden.h"
#include "pics/pics.h"
#include "pics/pics_file.h"
#include "view/view.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define U PICS_UNIT
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* Cells in the map of map_of_many: enough to grow it twice from 1,024 slots. */
#define MANY_CELLS 2000u
/* Records per batch fed to the golden reference. */
#define GOLDEN_BATCH 64u

/* A map of `n` cells: PCs 4 bytes apart, PSVs 0..3, value i + 1 units. */
static void map_of_many(pics *p, size_t n)
{
    assert_int_equal(pics_init(p), TEA_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(pics_add(p, 0x1000 + 4 * (i / 4), (uint16_t)(i % 4), (i + 1) * U, 1), TEA_OK);
}

/* A copy of `p` with slots of its own, to corrupt. */
static void copy_map(pics *dst, const pics *src)
{
    *dst = *src;
    dst->slots = malloc(src->capacity * sizeof *dst->slots);
    assert_non_null(dst->slots);
    memcpy(dst->slots, src->slots, src->capacity * sizeof *dst->slots);
}

/* The first slot at or after `from` (cyclically) that is empty or used, as asked. */
static size_t slot_where(const pics *p, size_t from, int used)
{
    for (size_t k = 0; k < p->capacity; k++) {
        size_t s = (from + k) & (p->capacity - 1);
        if (p->slots[s].used == used)
            return s;
    }
    fail_msg("no %s slot", used ? "used" : "empty");
    return 0;
}

/* Every state pics_add and pics_merge_into leave is sound; each kind of
 * damage is caught: a wrong count, a wrong total, a capacity that is no
 * power of two, a PSV of ten bits, a key in two slots, a cell its probe
 * cannot reach (an empty slot before it), a load above one half. */
static void pics_checker(void **state)
{
    pics p, q, bad;
    size_t s, spare;
    (void)state;

    assert_int_equal(pics_init(&p), TEA_OK);
    assert_int_equal(pics_check(&p), 1);
    pics_free(&p);
    map_of_many(&p, MANY_CELLS);
    assert_int_equal(pics_check(&p), 1);
    assert_int_equal(p.count, MANY_CELLS);
    assert_true(p.capacity >= 2 * MANY_CELLS); /* grown twice: 4096 slots */
    map_of_many(&q, 10);
    assert_int_equal(pics_merge_into(&q, &p), TEA_OK);
    assert_int_equal(pics_check(&q), 1);
    pics_free(&q);

    copy_map(&bad, &p);
    bad.count++;
    assert_int_equal(pics_check(&bad), 0);
    bad.count--;
    bad.total += 1;
    assert_int_equal(pics_check(&bad), 0);
    bad.total -= 1;
    assert_int_equal(pics_check(&bad), 1);
    bad.capacity -= 1;
    assert_int_equal(pics_check(&bad), 0);
    bad.capacity += 1;
    s = slot_where(&bad, 0, 1);
    bad.slots[s].psv = 0x200;
    assert_int_equal(pics_check(&bad), 0);
    pics_free(&bad);

    /* A key in two slots: a used cell copied into an empty slot (counted,
     * and its value in the total, so only the duplicate is wrong). */
    copy_map(&bad, &p);
    s = slot_where(&bad, 0, 1);
    spare = slot_where(&bad, s, 0);
    bad.slots[spare] = bad.slots[s];
    bad.count++;
    bad.total += bad.slots[s].value;
    assert_int_equal(pics_check(&bad), 0);
    pics_free(&bad);

    /* A cell moved out of its probe's reach: from its home slot to an
     * empty slot past the next empty one. */
    copy_map(&bad, &p);
    s = slot_where(&bad, 0, 1);
    while (s != pics_slot_of(&bad, bad.slots[s].pc, bad.slots[s].psv))
        s = slot_where(&bad, s + 1, 1);
    spare = slot_where(&bad, slot_where(&bad, s, 0) + 1, 0);
    bad.slots[spare] = bad.slots[s];
    memset(&bad.slots[s], 0, sizeof bad.slots[s]);
    assert_int_equal(pics_check(&bad), 0);
    pics_free(&bad);

    /* A count above half the capacity: over the load limit. */
    copy_map(&bad, &p);
    bad.count = bad.capacity / 2 + 1;
    assert_int_equal(pics_check(&bad), 0);
    pics_free(&bad);

    assert_int_equal(pics_check(NULL), 0);
    pics_free(&p);
}

/* test_alloc_each's run: a map grown to MANY_CELLS cells; whatever
 * allocation fails, the map stays sound and holds what was added before. */
static int grow_map(void *ctx)
{
    pics p;
    size_t i;
    int rc;
    (void)ctx;

    if ((rc = pics_init(&p)))
        return rc;
    for (i = 0; i < MANY_CELLS; i++)
        if ((rc = pics_add(&p, 0x1000 + 4 * i, 0, U, 1)))
            break;
    assert_int_equal(pics_check(&p), 1);
    assert_int_equal(p.count, i);
    assert_true(p.total == i * U);
    pics_free(&p);
    return rc;
}

static void pics_sound_after_allocation_failure(void **state)
{
    unsigned long n;
    (void)state;
    assert_int_equal(test_alloc_each("a map growing", grow_map, NULL, &n), 0);
    assert_int_equal(n, 3); /* the first slots and two doublings */
}

/* The golden reference over a model trace with flushes, refills and
 * exceptions, batch by batch: sound after every batch and at the end;
 * then each kind of damage is caught. */
static void golden_checker(void **state)
{
    test_stream s;
    golden g, bad;
    size_t refills = 0;
    (void)state;

    test_model_stream("flushes", 3, 20000, &s);
    golden_init(&g, s.header.initial_window);
    assert_int_equal(golden_check(&g), 1);
    for (size_t first = 0; first < s.count; first += GOLDEN_BATCH) {
        size_t n = s.count - first < GOLDEN_BATCH ? s.count - first : GOLDEN_BATCH;
        trace_batch b = test_stream_batch(&s, first, n);
        golden_feed(&g, &b, NULL);
        assert_int_equal(golden_check(&g), 1);
    }
    for (size_t i = 0; i < s.count; i++)
        refills += (s.records[i].flags & TRACE_REC_REFILL) != 0;
    assert_true(refills > 0); /* the states after refills were checked too */

    bad = g;
    bad.pending_stalled++;
    assert_int_equal(golden_check(&bad), 0);
    bad = g;
    bad.window = TRACE_MAX_ROB + 1;
    assert_int_equal(golden_check(&bad), 0);
    bad = g;
    bad.flush_pending = 0;
    bad.refilled = 1;
    assert_int_equal(golden_check(&bad), 0);
    bad = g;
    bad.totals.last_cycle++;
    assert_int_equal(golden_check(&bad), 0);
    bad = g;
    bad.rules = GOLDEN_RULES_COUNT;
    assert_int_equal(golden_check(&bad), 0);
    bad = g;
    bad.boundary = bad.last_cycle + 1;
    assert_int_equal(golden_check(&bad), 0);
    bad = g;
    bad.flush_pending = 1;
    bad.refilled = 1;
    bad.refill_cycle = bad.boundary; /* a refill that closed no window */
    assert_int_equal(golden_check(&bad), 0);

    golden_finish(&g, NULL);
    assert_int_equal(golden_check(&g), 1);
    bad = g;
    bad.pending_drained = 1;
    assert_int_equal(golden_check(&bad), 0);
    golden_init(&bad, 0);
    bad.pending_stalled = 1; /* cycles before the origin */
    assert_int_equal(golden_check(&bad), 0);
    assert_int_equal(golden_check(NULL), 0);
    test_stream_free(&s);
}

/* Golden, 12 cycles: (0x100, base) 6, (0x100, ST-L1) 2, (0x200, base) 4,
 * (0x300, base) 0 (a cell with a count only); sampled, 4 samples:
 * (0x100, base) 1, (0x200, base) 2, (0x400, ST-L1) 1. Rows 0x100 (two
 * components), 0x200, 0x300, 0x400. */
typedef struct cell_spec {
    uint64_t pc;
    uint16_t psv;
    uint64_t units;
} cell_spec;

static const cell_spec golden_cells[] = { { 0x100, 0, 6 }, { 0x100, 1, 2 }, { 0x200, 0, 4 }, { 0x300, 0, 0 } };
static const cell_spec sampled_cells[] = { { 0x100, 0, 1 }, { 0x200, 0, 2 }, { 0x400, 1, 1 } };

static void build(pics *p, const cell_spec *cells, size_t n)
{
    assert_int_equal(pics_init(p), TEA_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(pics_add(p, cells[i].pc, cells[i].psv, cells[i].units * U, 1), TEA_OK);
}

/* A copy of `v` with rows of its own, to corrupt. */
static void copy_view(view *dst, const view *src)
{
    *dst = *src;
    dst->rows = malloc(src->row_count * sizeof *dst->rows);
    assert_non_null(dst->rows);
    memcpy(dst->rows, src->rows, src->row_count * sizeof *dst->rows);
}

/* Sound in every order, after every cut; each kind of damage is caught. */
static void view_checker(void **state)
{
    static const view_order orders[] = { VIEW_ORDER_KEY, VIEW_ORDER_VALUE, VIEW_ORDER_CONTRIBUTION,
                                         VIEW_ORDER_CONTRIBUTION_KEY, VIEW_ORDER_DIFF_KEY };
    pics g, s;
    view v, bad;
    view_row row;
    (void)state;

    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));
    assert_int_equal(view_build(&v, &s, &g, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    assert_int_equal(v.row_count, 4);
    assert_int_equal(view_check(&v), 1);
    for (size_t i = 0; i < COUNT(orders); i++) {
        view_sort(&v, orders[i]);
        assert_int_equal(view_check(&v), 1);
        assert_int_equal(view_select(&v, 1, 10.0), TEA_OK); /* a cut by the limit, then by the count */
        assert_int_equal(v.shown, 1);
        assert_int_equal(view_check(&v), 1);
    }
    view_sort(&v, VIEW_ORDER_KEY);

    copy_view(&bad, &v);
    bad.rows[0].value++;
    assert_int_equal(view_check(&bad), 0);
    memcpy(bad.rows, v.rows, v.row_count * sizeof *bad.rows);
    bad.rows[1].contribution *= 2;
    assert_int_equal(view_check(&bad), 0);
    memcpy(bad.rows, v.rows, v.row_count * sizeof *bad.rows);
    row = bad.rows[1]; /* out of key order */
    bad.rows[1] = bad.rows[2];
    bad.rows[2] = row;
    assert_int_equal(view_check(&bad), 0);
    memcpy(bad.rows, v.rows, v.row_count * sizeof *bad.rows);
    bad.rows[1] = bad.rows[2]; /* a row twice, another missing */
    assert_int_equal(view_check(&bad), 0);
    memcpy(bad.rows, v.rows, v.row_count * sizeof *bad.rows);
    bad.rows[0].count = 1; /* a component of 0x100 left out */
    bad.rows[0].value = v.cells[0].a;
    bad.rows[0].golden = v.cells[0].b;
    bad.rows[0].diff = v.cells[0].diff;
    bad.rows[0].contribution = pics_pairing_share(&v.pairing, v.cells[0].diff);
    assert_int_equal(view_check(&bad), 0);
    memcpy(bad.rows, v.rows, v.row_count * sizeof *bad.rows);
    bad.shown = bad.row_count + 1;
    assert_int_equal(view_check(&bad), 0);
    bad.shown = bad.row_count;
    bad.order = VIEW_ORDER_VALUE; /* rows in key order claimed in value order */
    assert_int_equal(view_check(&bad), 0);
    bad.order = VIEW_ORDER_KEY;
    assert_int_equal(view_check(&bad), 1);
    free(bad.rows);

    assert_int_equal(view_check(NULL), 0);
    view_free(&v);
    pics_free(&g);
    pics_free(&s);
}

#ifndef NDEBUG
/* Runs `child` in a child process and returns the signal that ended it
 * (0 when it exited). Its standard error goes to /dev/null: an assert's
 * message is expected there. */
static int signal_of(void (*child)(void))
{
    int status;
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(2);
        child();
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* A merge from a map whose count is off: pics_merge_into asserts that both
 * maps are sound before it starts. */
static void merge_corrupted(void)
{
    pics a, b;
    map_of_many(&a, 10);
    map_of_many(&b, 10);
    b.count++;
    (void)pics_merge_into(&a, &b);
}

/* A PICS read into a NULL map. */
static void read_into_null(void)
{
    pics_info info;
    (void)pics_read("unused.pics", &info, NULL);
}

#endif

/* In a Debug build (assert active) a corrupted structure met at a phase
 * boundary aborts the process, and so does an invalid argument. */
static void debug_build_aborts(void **state)
{
    (void)state;
#ifdef NDEBUG
    print_message("skipped: a build with NDEBUG (Release) compiles the checkers' asserts out\n");
    skip();
#else
    assert_int_equal(signal_of(merge_corrupted), SIGABRT);
    assert_int_equal(signal_of(read_into_null), SIGABRT);
#endif
}

/* In Release, TEA_ASSERT_ARG returns a usage error naming the function and
 * the argument's condition. */
static void release_argument_errors(void **state)
{
    (void)state;
#ifdef NDEBUG
    pics_info info;
    assert_int_equal(pics_read("unused.pics", &info, NULL), TEA_ERR_USAGE);
    assert_contains(error_message(), "pics_read");
    assert_contains(error_message(), "invalid argument: p");
#else
    print_message("skipped: in a Debug build TEA_ASSERT_ARG aborts (debug_build_aborts)\n");
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pics_checker),       cmocka_unit_test(pics_sound_after_allocation_failure),
        cmocka_unit_test(golden_checker),     cmocka_unit_test(view_checker),
        cmocka_unit_test(debug_build_aborts), cmocka_unit_test(release_argument_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
