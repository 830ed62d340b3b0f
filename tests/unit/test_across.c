/*
 * test_across.c: one trace's PICS moved into another trace's addresses
 * (pics/across) and the error against a golden PICS that is not split by
 * the windows (pics_error_jackknife_whole), by hand.
 *
 * The first trace lists the program p at [0x1000, 0x2000) with load bias
 * 0 and libc at [0x7000, 0x8000); the second lists p (same build-id) at
 * [0x5000, 0x6000) with load bias 0x4000 and no libc. So 0x1010 moves to
 * 0x1010 - 0 + 0x4000 = 0x5010; 0x7020 (libc, absent there) and 0x3000
 * (in no object) have no counterpart and keep their cells at the PC with
 * PICS_ACROSS_UNMATCHED set.
 */
#include "testutil.h"
#include "common/error.h"
#include "pics/across.h"
#include "pics/error.h"
#include "trace/psv.h"

#include <string.h>

#define BASE 0   /* the PSV of a cycle without events */
#define ST_L1 1  /* the PSV of ST-L1 alone (bit TRACE_PSV_ST_L1) */

static const trace_object FROM_OBJECTS[] = {
    { "/bin/p", { 0x01, 0x02 }, 2, 0x0, 0x1000, 0x2000 },
    { "/lib/libc.so.6", { 0x0a }, 1, 0x6000, 0x7000, 0x8000 },
};
static const trace_object TO_OBJECTS[] = {
    { "/elsewhere/p", { 0x01, 0x02 }, 2, 0x4000, 0x5000, 0x6000 },
};

/* A list over `items` (not owned: only read). */
static trace_object_list list_of(const trace_object *items, size_t n)
{
    trace_object_list l;
    memset(&l, 0, sizeof l);
    l.items = (trace_object *)items;
    l.count = n;
    return l;
}

/* value in cycles (PICS_UNIT each) */
static void add(pics *p, uint64_t pc, uint16_t psv, uint64_t cycles)
{
    assert_int_equal(pics_add(p, pc, psv, cycles * PICS_UNIT, 1), TEA_OK);
}

static uint64_t cycles_at(const pics *p, uint64_t pc, uint16_t psv)
{
    const pics_cell *c = pics_find(p, pc, psv);
    return c ? c->value / PICS_UNIT : 0;
}

static void moves_by_objects(void **state)
{
    trace_program no_program;
    trace_object_list from_l = list_of(FROM_OBJECTS, 2), to_l = list_of(TO_OBJECTS, 1);
    pics_across_side from = { &no_program, &from_l }, to = { &no_program, &to_l };
    pics in, out, golden;
    pics_across_stats st;
    pics_error_result e;
    (void)state;

    memset(&no_program, 0, sizeof no_program);
    assert_int_equal(pics_init(&in), TEA_OK);
    add(&in, 0x1010, BASE, 10);
    add(&in, 0x1010, ST_L1, 5);
    add(&in, 0x7020, BASE, 7);
    add(&in, 0x3000, BASE, 3);
    assert_int_equal(pics_across_move(&in, &from, &to, &out, &st), TEA_OK);
    assert_int_equal(cycles_at(&out, 0x5010, BASE), 10);
    assert_int_equal(cycles_at(&out, 0x5010, ST_L1), 5);
    assert_int_equal(cycles_at(&out, 0x7020 | PICS_ACROSS_UNMATCHED, BASE), 7);
    assert_int_equal(cycles_at(&out, 0x3000 | PICS_ACROSS_UNMATCHED, BASE), 3);
    assert_int_equal(out.count, 4);
    assert_int_equal(out.total, in.total);
    /* 3 PCs, 2 without counterpart; 25 cycles, 10 of them unmatched */
    assert_int_equal(st.pcs, 3);
    assert_int_equal(st.unmatched_pcs, 2);
    assert_int_equal(st.value, 25 * PICS_UNIT);
    assert_int_equal(st.unmatched_value, 10 * PICS_UNIT);

    /* Against the second trace's golden PICS, 0x5010: base 10, ST-L1 5,
     * and 0x5020: base 10 (C = 25): P = 25 already, so
     * sum |P - G| = 0 + 0 + 10 (0x5020) + 7 + 3 (unmatched) = 20, and the
     * error is 20 / (2 x 25) = 0.4. */
    assert_int_equal(pics_init(&golden), TEA_OK);
    add(&golden, 0x5010, BASE, 10);
    add(&golden, 0x5010, ST_L1, 5);
    add(&golden, 0x5020, BASE, 10);
    assert_int_equal(pics_error_compute(&out, &golden, PICS_GRAN_INSN_COMPONENT, NULL, &e), TEA_OK);
    assert_float_equal(e.error, 0.4, 1e-12);
    pics_error_result_free(&e);
    pics_free(&golden);
    pics_free(&out);
    pics_free(&in);
}

/* An object without a build-id matches by path; a PC that moves outside
 * its counterpart's range (a shorter mapping there) has none. */
static void path_and_range(void **state)
{
    static const trace_object from_objects[] = { { "/bin/q", { 0 }, 0, 0x0, 0x1000, 0x3000 } };
    static const trace_object to_objects[] = { { "/bin/q", { 0 }, 0, 0x10000, 0x11000, 0x12000 } };
    trace_program none;
    trace_object_list from_l = list_of(from_objects, 1), to_l = list_of(to_objects, 1);
    pics_across_side from = { &none, &from_l }, to = { &none, &to_l };
    pics in, out;
    pics_across_stats st;
    (void)state;

    memset(&none, 0, sizeof none);
    assert_int_equal(pics_init(&in), TEA_OK);
    add(&in, 0x1800, BASE, 2);  /* 0x11800: inside */
    add(&in, 0x2800, BASE, 4);  /* 0x12800: past the end there */
    assert_int_equal(pics_across_move(&in, &from, &to, &out, &st), TEA_OK);
    assert_int_equal(cycles_at(&out, 0x11800, BASE), 2);
    assert_int_equal(cycles_at(&out, 0x2800 | PICS_ACROSS_UNMATCHED, BASE), 4);
    assert_int_equal(st.unmatched_pcs, 1);
    pics_free(&out);
    pics_free(&in);
}

/* Traces without objects move by the programs' load biases when both know
 * theirs, and keep their PCs when one does not. */
static void program_biases(void **state)
{
    trace_program a, b;
    trace_object_list empty = list_of(NULL, 0);
    pics_across_side from = { &a, &empty }, to = { &b, &empty };
    pics in, out;
    pics_across_stats st;
    (void)state;

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.load_bias = 0x555555554000;
    a.has_load_bias = 1;
    b.load_bias = 0x7f0000000000;
    b.has_load_bias = 1;
    assert_int_equal(pics_init(&in), TEA_OK);
    add(&in, 0x555555555100, BASE, 1);
    assert_int_equal(pics_across_move(&in, &from, &to, &out, &st), TEA_OK);
    assert_int_equal(cycles_at(&out, 0x7f0000001100, BASE), 1);
    assert_int_equal(st.unmatched_pcs, 0);
    pics_free(&out);
    b.has_load_bias = 0;
    assert_int_equal(pics_across_move(&in, &from, &to, &out, &st), TEA_OK);
    assert_int_equal(cycles_at(&out, 0x555555555100, BASE), 1);
    pics_free(&out);
    pics_free(&in);
}

/* Two window groups of a sampled PICS against a whole golden PICS,
 * 0x10: 2 and 0x20: 2 cycles (C = 4). Group 0 is 0x10: 1, group 1 is
 * 0x10: 1 and 0x20: 1.
 *   without group 0: P = 0x10: 1, 0x20: 1, scaled x2 to 2 and 2: e = 0
 *   without group 1: P = 0x10: 1, scaled x4 to 4: (|4 - 2| + 2) / 8 = 0.5
 * mean 0.25, s = sqrt(2 x 0.25^2 / 1) = 0.35355339; the half-width is
 * t(0.975, 1) x (2 - 1) / sqrt(2) x s = 12.706 x 0.25 = 3.1765. */
static void jackknife_against_whole(void **state)
{
    pics groups[2], golden;
    double half = 0;
    (void)state;

    assert_int_equal(pics_init(&groups[0]), TEA_OK);
    assert_int_equal(pics_init(&groups[1]), TEA_OK);
    assert_int_equal(pics_init(&golden), TEA_OK);
    add(&groups[0], 0x10, BASE, 1);
    add(&groups[1], 0x10, BASE, 1);
    add(&groups[1], 0x20, BASE, 1);
    add(&golden, 0x10, BASE, 2);
    add(&golden, 0x20, BASE, 2);
    assert_int_equal(pics_error_jackknife_whole(groups, 2, &golden, PICS_GRAN_INSN_COMPONENT, NULL, &half), TEA_OK);
    assert_float_equal(half, 3.1765, 1e-9);
    pics_free(&groups[0]);
    pics_free(&groups[1]);
    pics_free(&golden);
}

/* test_alloc_each's run: moves a map of 64 PCs (two cells each) in place;
 * after a failure the map is as it was. */
static int move_many(void *ctx)
{
    trace_program none;
    trace_object_list from_l = list_of(FROM_OBJECTS, 2), to_l = list_of(TO_OBJECTS, 1);
    pics_across_side from = { &none, &from_l }, to = { &none, &to_l };
    pics p;
    int rc;
    (void)ctx;

    memset(&none, 0, sizeof none);
    if ((rc = pics_init(&p)))
        return rc;
    for (uint64_t i = 0; i < 64 && !rc; i++)
        if (!(rc = pics_add(&p, 0x1000 + 4 * i, BASE, PICS_UNIT, 1)))
            rc = pics_add(&p, 0x1000 + 4 * i, ST_L1, PICS_UNIT, 1);
    if (!rc && (rc = pics_across_move_in_place(&p, &from, &to, NULL)) == TEA_OK)
        rc = pics_find(&p, 0x5000, BASE) && p.count == 128 ? TEA_OK : TEA_ERR_FORMAT;
    else if (rc == TEA_ERR_NOMEM && p.count == 128 && !pics_find(&p, 0x1000, BASE))
        rc = TEA_ERR_FORMAT; /* the map must be the one before the move */
    pics_free(&p);
    return rc;
}

static void every_allocation_failure(void **state)
{
    (void)state;
    assert_int_equal(test_alloc_each("moving a PICS across traces", move_many, NULL, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moves_by_objects),
        cmocka_unit_test(path_and_range),
        cmocka_unit_test(program_biases),
        cmocka_unit_test(jackknife_against_whole),
        cmocka_unit_test(every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
