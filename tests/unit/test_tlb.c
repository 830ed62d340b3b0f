/*
 * test_tlb.c: the TLB hierarchy: exact latencies of an L1 hit, an L2 hit and
 * a walk, secondary misses, walker contention, TLB reach (32 pages hit, 33
 * pages cycled in order all miss), the shared L2 TLB, walker functions.
 */
#include "testutil.h"
#include "common/error.h"
#include "model/memory.h"
#include "model/tlb.h"

#define PAGE 4096u
#define L2_HIT 4u
#define WALK 30u

static model_tlb *make(unsigned walkers)
{
    model_tlb_config cfg;
    model_tlb *t;
    model_tlb_config_defaults(&cfg);
    cfg.walkers = walkers;
    assert_int_equal(model_tlb_create(&t, &cfg), 0);
    return t;
}

static void defaults(void **state)
{
    model_tlb_config cfg;
    (void)state;
    model_tlb_config_defaults(&cfg);
    assert_int_equal(cfg.page_size, 4096);
    assert_int_equal(cfg.itlb_entries, 32);
    assert_int_equal(cfg.itlb_ways, 32);
    assert_int_equal(cfg.dtlb_entries, 32);
    assert_int_equal(cfg.dtlb_ways, 32);
    assert_int_equal(cfg.l2_entries, 1024);
    assert_int_equal(cfg.l2_ways, 4);
    assert_int_equal(cfg.walk_latency, 30);
    assert_int_equal(model_tlb_config_check(&cfg), 0);
    cfg.l2_entries = 1000; /* 250 sets */
    assert_int_equal(model_tlb_config_check(&cfg), TEA_ERR_USAGE);
    assert_contains(error_message(), "l2tlb");
    model_tlb_config_defaults(&cfg);
    cfg.walkers = 0;
    assert_int_equal(model_tlb_config_check(&cfg), TEA_ERR_USAGE);
}

/* Cold: L2 lookup (4) then a walk (30). 10 cycles later the same page waits
 * for the same walk: 24. Afterwards it hits: 0. */
static void latencies(void **state)
{
    model_tlb *t = make(1);
    model_tlb_result r;
    (void)state;
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x7000, 0, &r), L2_HIT + WALK);
    assert_true(r.l1_miss && r.l2_miss);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x7ff8, 10, &r), L2_HIT + WALK - 10);
    assert_true(r.l1_miss && r.l2_miss);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x7100, 100, &r), 0);
    assert_false(r.l1_miss || r.l2_miss);
    assert_int_equal(r.latency, 0);
    assert_int_equal(model_tlb_get_stats(t)->walks, 1);
    assert_int_equal(model_tlb_get_stats(t)->walk_cycles, WALK);
    model_tlb_free(t);
}

/* One walker: a second miss at the same cycle finds the L2 TLB at 4 but the
 * walker busy until 34, so it walks 34-64. Two walkers: both done at 34. */
static void walker_contention(void **state)
{
    model_tlb *t = make(1);
    model_tlb_result r;
    (void)state;
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 1 * PAGE, 0, &r), L2_HIT + WALK);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 2 * PAGE, 0, &r), L2_HIT + 2 * WALK);
    assert_int_equal(model_tlb_get_stats(t)->walker_stalls, 1);
    model_tlb_free(t);

    t = make(2);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 1 * PAGE, 0, &r), L2_HIT + WALK);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 2 * PAGE, 0, &r), L2_HIT + WALK);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 3 * PAGE, 0, &r), L2_HIT + 2 * WALK);
    model_tlb_free(t);
}

/* 32 pages fit the 32-entry L1 D-TLB: after the first round they all hit.
 * 33 pages touched in a cycle evict, under LRU, exactly the page needed
 * next: every access misses the L1 and hits the L2 TLB. */
static void reach(void **state)
{
    model_tlb *t = make(1);
    const model_tlb_stats *s = model_tlb_get_stats(t);
    model_tlb_result r;
    uint64_t cycle = 0;
    (void)state;

    for (unsigned p = 0; p < 32; p++)
        cycle += 1 + model_tlb_translate(t, MODEL_TLB_DATA, 0x100000 + p * PAGE, cycle, &r);
    assert_int_equal(s->l1_misses[MODEL_TLB_DATA], 32);
    assert_int_equal(s->walks, 32);
    for (int round = 0; round < 10; round++)
        for (unsigned p = 0; p < 32; p++) {
            assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x100000 + p * PAGE + 8 * round, cycle++, &r), 0);
            assert_false(r.l1_miss);
        }
    assert_int_equal(s->l1_misses[MODEL_TLB_DATA], 32);
    model_tlb_free(t);

    t = make(1);
    s = model_tlb_get_stats(t);
    cycle = 0;
    for (unsigned p = 0; p < 33; p++)
        cycle += 1 + model_tlb_translate(t, MODEL_TLB_DATA, 0x100000 + p * PAGE, cycle, &r);
    for (int round = 0; round < 10; round++)
        for (unsigned p = 0; p < 33; p++) {
            assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x100000 + p * PAGE, cycle, &r), L2_HIT);
            assert_true(r.l1_miss && !r.l2_miss);
            cycle += 1 + L2_HIT;
        }
    assert_int_equal(s->l1_misses[MODEL_TLB_DATA], 33 * 11);
    assert_int_equal(s->walks, 33);
    assert_int_equal(s->accesses[MODEL_TLB_INST], 0);
    model_tlb_free(t);
}

/* The I- and D-TLBs are separate; the L2 TLB is shared. */
static void l2_is_shared(void **state)
{
    model_tlb *t = make(1);
    model_tlb_result r;
    (void)state;
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_INST, 0x40000, 0, &r), L2_HIT + WALK);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_INST, 0x40004, 100, &r), 0);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x40008, 100, &r), L2_HIT);
    assert_true(r.l1_miss && !r.l2_miss);
    assert_int_equal(model_tlb_get_stats(t)->walks, 1);
    assert_int_equal(model_tlb_get_stats(t)->l1_misses[MODEL_TLB_INST], 1);
    assert_int_equal(model_tlb_get_stats(t)->l1_misses[MODEL_TLB_DATA], 1);
    model_tlb_free(t);
}

static uint32_t seven_cycles(void *ctx, uint64_t vaddr, uint64_t cycle)
{
    (void)vaddr;
    (void)cycle;
    ++*(int *)ctx;
    return 7;
}

/* A walker function replaces the fixed latency; model_mem_page_walk makes walks
 * of neighbouring pages cheap (their entries hit in the L1 D). */
static void walker_functions(void **state)
{
    model_tlb *t = make(1);
    model_mem_config mc;
    model_mem *m;
    model_tlb_result r;
    int calls = 0;
    (void)state;

    model_tlb_set_walker(t, seven_cycles, &calls);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x1000, 0, &r), L2_HIT + 7);
    assert_int_equal(calls, 1);
    model_tlb_set_walker(t, NULL, NULL);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x2000, 100, &r), L2_HIT + WALK);
    model_tlb_free(t);

    t = make(1);
    model_mem_config_defaults(&mc);
    assert_int_equal(model_mem_create(&m, &mc), 0);
    model_tlb_set_walker(t, model_mem_page_walk, m);
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x40001000, 0, &r), L2_HIT + 3 * (4 + 20 + 180));
    assert_int_equal(model_tlb_translate(t, MODEL_TLB_DATA, 0x40002000, 1000, &r), L2_HIT + 3 * 4);
    assert_true(r.l2_miss);
    assert_int_equal(model_mem_get_stats(m)->walks, 2);
    model_mem_free(m);
    model_tlb_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(latencies),
        cmocka_unit_test(walker_contention),
        cmocka_unit_test(reach),
        cmocka_unit_test(l2_is_shared),
        cmocka_unit_test(walker_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
