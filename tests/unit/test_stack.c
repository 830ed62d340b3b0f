/*
 * test_stack.c: the cycle stacks of `pics plot` (view/stack): the
 * reference's top instructions by cycles (ties by address), the components
 * any input has at them, values in cycles (a sampled PICS scaled to the
 * golden total) and in percent, the reference input, --top and an empty
 * reference. The expected values are worked out by hand in the comments.
 */
#include "testutil.h"
#include "common/error.h"
#include "pics/pics_file.h"
#include "view/stack.h"

#include <math.h>
#include <string.h>

/* Cycles as a golden PICS's values. */
#define CYCLES(n) ((uint64_t)(n) * PICS_UNIT)
#define CLOSE 1e-9
#define ST 1u   /* a PSV with one event */
#define DR 4u   /* another */
#define FL 2u   /* a third, only at an instruction outside the top */

/*
 * The golden PICS G (190 cycles):     the sampled PICS S (tea, 5 samples):
 *   0x100 base 60, ST 20  (80)          0x100 ST 3 samples
 *   0x200 base 50         (50)          0x400 DR 1
 *   0x300 FL 10           (10)          0x300 FL 1
 *   0x400 base 50         (50)
 * S scales to the golden total: a sample stands for 190 / 5 = 38 cycles.
 * The top three by cycles: 0x100 (80), then 0x200 and 0x400 (50 each, by
 * address); their components in PSV order: base (0), ST (1), DR (4); FL is
 * only at 0x300, outside the top.
 */
typedef struct fixture {
    pics golden, sampled;
    pics_info golden_info, sampled_info;
} fixture;

static void make(fixture *f)
{
    pics_info_init(&f->golden_info);
    pics_info_init(&f->sampled_info);
    strcpy(f->golden_info.scheme, "golden");
    strcpy(f->sampled_info.scheme, "tea");
    f->golden_info.golden_total = f->sampled_info.golden_total = CYCLES(190);
    assert_int_equal(pics_init(&f->golden), TEA_OK);
    assert_int_equal(pics_init(&f->sampled), TEA_OK);
    assert_int_equal(pics_add(&f->golden, 0x100, 0, CYCLES(60), 60), TEA_OK);
    assert_int_equal(pics_add(&f->golden, 0x100, ST, CYCLES(20), 20), TEA_OK);
    assert_int_equal(pics_add(&f->golden, 0x200, 0, CYCLES(50), 50), TEA_OK);
    assert_int_equal(pics_add(&f->golden, 0x300, FL, CYCLES(10), 10), TEA_OK);
    assert_int_equal(pics_add(&f->golden, 0x400, 0, CYCLES(50), 50), TEA_OK);
    assert_int_equal(pics_add(&f->sampled, 0x100, ST, 3, 3), TEA_OK);
    assert_int_equal(pics_add(&f->sampled, 0x400, DR, 1, 1), TEA_OK);
    assert_int_equal(pics_add(&f->sampled, 0x300, FL, 1, 1), TEA_OK);
}

static void unmake(fixture *f)
{
    pics_free(&f->golden);
    pics_free(&f->sampled);
    pics_info_free(&f->golden_info);
    pics_info_free(&f->sampled_info);
}

/* The value of bar b, segment k of group g. */
static double at(const view_stack *s, size_t g, size_t b, size_t k)
{
    return s->values[(g * s->bars + b) * s->segments + k];
}

/* Inputs S, G: the reference is G (the first golden input). Values in
 * cycles, [group][bar S, G][base, ST, DR]:
 *   0x100  S: 0, 3 x 38 = 114, 0   G: 60, 20, 0
 *   0x200  S: 0, 0, 0              G: 50, 0, 0
 *   0x400  S: 0, 0, 1 x 38 = 38    G: 50, 0, 0 */
static void stacks_in_cycles(void **state)
{
    (void)state;
    fixture f;
    view_stack s;
    const double expected[3][2][3] = { { { 0, 114, 0 }, { 60, 20, 0 } },
                                       { { 0, 0, 0 }, { 50, 0, 0 } },
                                       { { 0, 0, 38 }, { 50, 0, 0 } } };

    make(&f);
    const view_stack_input in[] = { { &f.sampled_info, &f.sampled }, { &f.golden_info, &f.golden } };
    assert_int_equal(view_stack_reference(in, 2), 1);
    assert_int_equal(view_stack_reference(in, 1), 0); /* no golden input: the first */
    assert_int_equal(view_stack_build(&s, in, 2, 1, 3, 0), TEA_OK);
    assert_int_equal(s.groups, 3);
    assert_int_equal(s.bars, 2);
    assert_true(s.pcs[0] == 0x100 && s.pcs[1] == 0x200 && s.pcs[2] == 0x400);
    assert_int_equal(s.segments, 3);
    assert_true(s.psvs[0] == 0 && s.psvs[1] == ST && s.psvs[2] == DR);
    for (size_t g = 0; g < 3; g++)
        for (size_t b = 0; b < 2; b++)
            for (size_t k = 0; k < 3; k++)
                if (fabs(at(&s, g, b, k) - expected[g][b][k]) > CLOSE)
                    fail_msg("group %zu bar %zu segment %zu: %.17g, not %.17g", g, b, k, at(&s, g, b, k),
                             expected[g][b][k]);
    view_stack_free(&s);
    unmake(&f);
}

/* In percent of the golden total, 190 cycles: S's 114 cycles at 0x100 are
 * 60 %, G's base there 60 / 190 = 31.578947 %. --top 1: 0x100 alone, whose
 * components are base and ST. */
static void stacks_in_percent_and_top_one(void **state)
{
    (void)state;
    fixture f;
    view_stack s;

    make(&f);
    const view_stack_input in[] = { { &f.sampled_info, &f.sampled }, { &f.golden_info, &f.golden } };
    assert_int_equal(view_stack_build(&s, in, 2, 1, 1, 1), TEA_OK);
    assert_int_equal(s.groups, 1);
    assert_true(s.pcs[0] == 0x100);
    assert_int_equal(s.segments, 2);
    assert_true(s.psvs[0] == 0 && s.psvs[1] == ST);
    assert_true(fabs(at(&s, 0, 0, 1) - 60.0) <= CLOSE);
    assert_true(fabs(at(&s, 0, 1, 0) - 100.0 * 60 / 190) <= CLOSE);
    assert_true(fabs(at(&s, 0, 1, 0) - 31.578947368421) <= 1e-9);
    assert_true(fabs(at(&s, 0, 1, 1) - 100.0 * 20 / 190) <= CLOSE);
    view_stack_free(&s);
    unmake(&f);
}

/* An empty reference PICS has no instruction to stack. */
static void an_empty_reference(void **state)
{
    (void)state;
    fixture f;
    pics empty;
    view_stack s;

    make(&f);
    assert_int_equal(pics_init(&empty), TEA_OK);
    const view_stack_input in[] = { { &f.golden_info, &empty }, { &f.sampled_info, &f.sampled } };
    assert_int_equal(view_stack_build(&s, in, 2, 0, 10, 0), TEA_OK);
    assert_int_equal(s.groups, 0);
    assert_int_equal(s.segments, 0);
    view_stack_free(&s);
    pics_free(&empty);
    unmake(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stacks_in_cycles),
        cmocka_unit_test(stacks_in_percent_and_top_one),
        cmocka_unit_test(an_empty_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
