/*
 * test_bpred.c: the branch predictor: gshare and TAGE learning loop branches
 * (with hand-derived bounds on mispredictions), an alternating pattern and a
 * random one (about half mispredicted); the RAS predicting call/return pairs
 * exactly, and losing exactly the overflowed entries; the BTB; verdicts;
 * determinism.
 */
#include "testutil.h"
#include "common/error.h"
#include "common/rng.h"
#include "model/bpred.h"

#include <string.h>

#define LOOP_PC 0x10040u
#define LOOP_TARGET 0x10000u

static model_bpred *make(unsigned predictor)
{
    model_bpred_config cfg;
    model_bpred *p;
    model_bpred_config_defaults(&cfg);
    cfg.predictor = predictor;
    assert_int_equal(model_bpred_create(&p, &cfg), 0);
    return p;
}

/* Field by field: the struct has padding. */
static void assert_same_prediction(const model_bpred_prediction *a, const model_bpred_prediction *b)
{
    assert_int_equal(a->target, b->target);
    assert_int_equal(a->taken, b->taken);
    assert_int_equal(a->btb_hit, b->btb_hit);
    assert_int_equal(a->provider, b->provider);
}

/* Predicts and updates one conditional branch; returns 1 on a wrong
 * direction. */
static unsigned cond(model_bpred *p, uint64_t pc, int taken)
{
    model_bpred_prediction pred;
    model_bpred_verdict v;
    model_bpred_predict(p, pc, MODEL_BPRED_COND, &pred);
    v = model_bpred_update(p, pc, MODEL_BPRED_COND, taken, LOOP_TARGET);
    assert_int_equal(v, model_bpred_check(&pred, MODEL_BPRED_COND, taken, LOOP_TARGET));
    return pred.taken != (taken != 0);
}

/* `trips` trips of a loop branch taken n-1 times, then not taken; returns the
 * direction mispredictions. */
static unsigned loop(model_bpred *p, unsigned n, unsigned trips)
{
    unsigned wrong = 0;
    for (unsigned t = 0; t < trips; t++)
        for (unsigned k = 0; k < n; k++)
            wrong += cond(p, LOOP_PC, k + 1 < n);
    return wrong;
}

/* gshare with 14 history bits and 2^14 counters (initially weakly not
 * taken). A loop of N = 8 <= 14: once the 14 branches that still see the
 * initial history have passed, each of the N positions has its own fixed
 * history (it holds the last exit) and so its own counter with a fixed
 * outcome, which a 2-bit counter learns after at most 2 misses. Bound:
 * 14 + 2 * 8 in all, none after that. */
static void gshare_learns_a_short_loop(void **state)
{
    model_bpred *p = make(MODEL_BPRED_GSHARE);
    unsigned warm;
    (void)state;
    warm = loop(p, 8, 100);
    assert_true(warm <= 14 + 2 * 8);
    assert_int_equal(loop(p, 8, 1000), 0);
    assert_int_equal(model_bpred_get_stats(p)->branches[MODEL_BPRED_COND], 1100 * 8);
    model_bpred_free(p);
}

/* A loop of N = 20 > 14 history bits: positions 14..19 all see fourteen
 * takens; their shared counter goes T,T,T,T,T,N each trip, saturates taken
 * and mispredicts the exit exactly once per trip. */
static void gshare_long_loop_misses_each_exit(void **state)
{
    model_bpred *p = make(MODEL_BPRED_GSHARE);
    (void)state;
    loop(p, 20, 10);
    assert_int_equal(loop(p, 20, 100), 100);
    model_bpred_free(p);
}

/* TAGE with histories 4..64: every position of a loop of N = 8 or 30 has a
 * distinct history in the tables of history >= N, so after warm-up the
 * provider for each position is an entry that always saw the same outcome,
 * and a single branch cannot be evicted (the only allocations are for it):
 * no mispredictions in steady state. */
static void tage_learns_loops(void **state)
{
    static const unsigned trips[] = { 8, 30 };
    (void)state;
    for (size_t i = 0; i < sizeof trips / sizeof trips[0]; i++) {
        model_bpred *p = make(MODEL_BPRED_TAGE);
        unsigned warm = loop(p, trips[i], 300);
        assert_true(warm > 0);
        assert_int_equal(loop(p, trips[i], 1000), 0);
        assert_true(model_bpred_get_stats(p)->tage_allocations > 0);
        model_bpred_free(p);
    }
}

/* T, N, T, N...: the last outcome decides the next. gshare: the two
 * steady histories each learn after at most 2 misses, after the first 14
 * branches. TAGE: the bimodal table cannot learn it, a tagged entry can. */
static void alternating_pattern(void **state)
{
    static const unsigned predictors[] = { MODEL_BPRED_GSHARE, MODEL_BPRED_TAGE };
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        model_bpred *p = make(predictors[i]);
        unsigned warm = 0, late = 0;
        for (unsigned n = 0; n < 200; n++)
            warm += cond(p, LOOP_PC, n & 1);
        for (unsigned n = 200; n < 10200; n++)
            late += cond(p, LOOP_PC, n & 1);
        if (predictors[i] == MODEL_BPRED_GSHARE)
            assert_true(warm <= 14 + 2 * 2);
        assert_int_equal(late, 0);
        model_bpred_free(p);
    }
}

/* Independent fair coin flips cannot be predicted: about half are missed
 * (20000 flips: the standard deviation is 0.35 %, so 45-55 % is 14 sigma). */
static void random_pattern(void **state)
{
    static const unsigned predictors[] = { MODEL_BPRED_GSHARE, MODEL_BPRED_TAGE };
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        model_bpred *p = make(predictors[i]);
        rng_state rng;
        unsigned wrong = 0, n = 20000;
        rng_seed(&rng, 7, i);
        for (unsigned k = 0; k < n; k++)
            wrong += cond(p, LOOP_PC, (int)(rng_next(&rng) & 1));
        assert_true(wrong >= n * 45 / 100 && wrong <= n * 55 / 100);
        model_bpred_free(p);
    }
}

#define FUNC(i) (0x100000u + (uint64_t)(i) * 0x1000u)
#define CALL_SITE(i) (FUNC(i) + 0x10u) /* where function i calls function i + 1 */
#define RET_SITE(i) (FUNC(i) + 0x40u)

/* Calls nested `depth` deep from function 0, then the returns; returns the
 * return mispredictions. */
static unsigned nest(model_bpred *p, unsigned first, unsigned depth)
{
    model_bpred_prediction pred;
    unsigned wrong = 0;
    for (unsigned i = first; i < first + depth; i++) {
        model_bpred_predict(p, CALL_SITE(i), MODEL_BPRED_CALL, &pred);
        model_bpred_update(p, CALL_SITE(i), MODEL_BPRED_CALL, 1, FUNC(i + 1));
    }
    for (unsigned i = first + depth; i > first; i--) {
        model_bpred_predict(p, RET_SITE(i), MODEL_BPRED_RETURN, &pred);
        if (model_bpred_update(p, RET_SITE(i), MODEL_BPRED_RETURN, 1, CALL_SITE(i - 1) + 4) != MODEL_BPRED_CORRECT)
            wrong++;
        else
            assert_int_equal(pred.target, CALL_SITE(i - 1) + 4);
    }
    return wrong;
}

/* The RAS predicts every return of a nest within its 32 entries, the first
 * time already. Nested 40 deep, the 8 oldest entries are overwritten: the
 * 32 innermost returns are right and the 8 outermost (never seen before, so
 * unknown to the BTB too) are wrong. */
static void ras_call_return_pairs(void **state)
{
    model_bpred *p = make(MODEL_BPRED_TAGE);
    const model_bpred_stats *s = model_bpred_get_stats(p);
    model_bpred_prediction pred;
    (void)state;

    for (int rep = 0; rep < 3; rep++)
        assert_int_equal(nest(p, 0, 10), 0);
    assert_int_equal(s->misfetches[MODEL_BPRED_CALL], 10); /* the calls' first time: BTB misses */
    assert_int_equal(s->mispredicts[MODEL_BPRED_CALL], 0);
    assert_int_equal(nest(p, 100, 40), 8);
    assert_int_equal(s->mispredicts[MODEL_BPRED_RETURN], 8);
    assert_int_equal(s->branches[MODEL_BPRED_RETURN], 70);

    /* a compressed call returns to pc + 2, an x86-64 call rel32 to pc + 5 */
    model_bpred_update(p, 0x2000, MODEL_BPRED_SIZED(MODEL_BPRED_CALL, 2), 1, 0x3000);
    model_bpred_predict(p, 0x3010, MODEL_BPRED_RETURN, &pred);
    assert_int_equal(pred.target, 0x2002);
    model_bpred_update(p, 0x3010, MODEL_BPRED_RETURN, 1, 0x2002);
    model_bpred_update(p, 0x2000, MODEL_BPRED_SIZED(MODEL_BPRED_CALL, 5), 1, 0x3000);
    model_bpred_predict(p, 0x3010, MODEL_BPRED_RETURN, &pred);
    assert_int_equal(pred.target, 0x2005);
    /* an indirect call pushes too */
    model_bpred_update(p, 0x2100, MODEL_BPRED_INDIRECT_CALL, 1, 0x3000);
    model_bpred_predict(p, 0x3010, MODEL_BPRED_RETURN, &pred);
    assert_int_equal(pred.target, 0x2104);
    model_bpred_free(p);

    /* without a RAS, returns come from the BTB: the last target */
    {
        model_bpred_config cfg;
        model_bpred_config_defaults(&cfg);
        cfg.ras_entries = 0;
        assert_int_equal(model_bpred_create(&p, &cfg), 0);
        model_bpred_update(p, 0x2000, MODEL_BPRED_CALL, 1, 0x3000);
        model_bpred_update(p, 0x3010, MODEL_BPRED_RETURN, 1, 0x2004);
        model_bpred_update(p, 0x2800, MODEL_BPRED_CALL, 1, 0x3000);
        model_bpred_predict(p, 0x3010, MODEL_BPRED_RETURN, &pred);
        assert_int_equal(pred.target, 0x2004);
        assert_int_equal(model_bpred_update(p, 0x3010, MODEL_BPRED_RETURN, 1, 0x2804), MODEL_BPRED_MISPREDICT);
        model_bpred_free(p);
    }
}

/* Direct jumps: a BTB miss is a misfetch, then the target is known. Indirect
 * jumps: the BTB predicts the last target. Five jumps in one 4-way set: the
 * least recently used is evicted. */
static void btb(void **state)
{
    model_bpred *p = make(MODEL_BPRED_GSHARE);
    model_bpred_prediction pred;
    /* set = ((pc >> 1) ^ (pc >> 10)) mod 512: both terms are 0 for multiples of 2^19 */
    const uint64_t base = 0x40000000, set_stride = 1u << 19;
    (void)state;

    model_bpred_predict(p, 0x500, MODEL_BPRED_JUMP, &pred);
    assert_true(pred.taken);
    assert_false(pred.btb_hit);
    assert_int_equal(model_bpred_update(p, 0x500, MODEL_BPRED_JUMP, 1, 0x900), MODEL_BPRED_MISFETCH);
    model_bpred_predict(p, 0x500, MODEL_BPRED_JUMP, &pred);
    assert_true(pred.btb_hit);
    assert_int_equal(pred.target, 0x900);
    assert_int_equal(model_bpred_update(p, 0x500, MODEL_BPRED_JUMP, 1, 0x900), MODEL_BPRED_CORRECT);

    assert_int_equal(model_bpred_update(p, 0x600, MODEL_BPRED_INDIRECT, 1, 0xa00), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_update(p, 0x600, MODEL_BPRED_INDIRECT, 1, 0xa00), MODEL_BPRED_CORRECT);
    assert_int_equal(model_bpred_update(p, 0x600, MODEL_BPRED_INDIRECT, 1, 0xb00), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_update(p, 0x600, MODEL_BPRED_INDIRECT, 1, 0xa00), MODEL_BPRED_MISPREDICT);

    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(model_bpred_update(p, base + k * set_stride, MODEL_BPRED_JUMP, 1, 0x80000),
                         MODEL_BPRED_MISFETCH);
    for (unsigned k = 1; k < 5; k++)
        assert_int_equal(model_bpred_update(p, base + k * set_stride, MODEL_BPRED_JUMP, 1, 0x80000),
                         MODEL_BPRED_CORRECT);
    assert_int_equal(model_bpred_update(p, base, MODEL_BPRED_JUMP, 1, 0x80000), MODEL_BPRED_MISFETCH);
    assert_int_equal(model_bpred_get_stats(p)->btb_misses, 1 + 1 + 5 + 1);

    /* a not-taken prediction targets the fall-through */
    model_bpred_predict(p, 0x700, MODEL_BPRED_COND, &pred);
    assert_false(pred.taken);
    assert_int_equal(pred.target, 0x704);
    model_bpred_predict(p, 0x700, MODEL_BPRED_SIZED(MODEL_BPRED_COND, 2), &pred);
    assert_int_equal(pred.target, 0x702);
    model_bpred_predict(p, 0x700, MODEL_BPRED_SIZED(MODEL_BPRED_COND, 6), &pred);
    assert_int_equal(pred.target, 0x706);
    model_bpred_free(p);
}

static void verdicts(void **state)
{
    model_bpred_prediction taken_to_a = { 0xa, 1, 1, 0 }, taken_unknown = { 0, 1, 0, 0 }, not_taken = { 0x4, 0, 0, 0 };
    (void)state;
    assert_int_equal(model_bpred_check(&not_taken, MODEL_BPRED_COND, 0, 0), MODEL_BPRED_CORRECT);
    assert_int_equal(model_bpred_check(&not_taken, MODEL_BPRED_COND, 1, 0xa), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_check(&taken_to_a, MODEL_BPRED_COND, 0, 0), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_check(&taken_to_a, MODEL_BPRED_COND, 1, 0xa), MODEL_BPRED_CORRECT);
    assert_int_equal(model_bpred_check(&taken_unknown, MODEL_BPRED_COND, 1, 0xa), MODEL_BPRED_MISFETCH);
    assert_int_equal(model_bpred_check(&taken_unknown, MODEL_BPRED_JUMP, 1, 0xa), MODEL_BPRED_MISFETCH);
    assert_int_equal(model_bpred_check(&taken_unknown, MODEL_BPRED_CALL, 1, 0xa), MODEL_BPRED_MISFETCH);
    assert_int_equal(model_bpred_check(&taken_unknown, MODEL_BPRED_RETURN, 1, 0xa), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_check(&taken_unknown, MODEL_BPRED_INDIRECT, 1, 0xa), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_check(&taken_unknown, MODEL_BPRED_INDIRECT_CALL, 1, 0xa), MODEL_BPRED_MISPREDICT);
    assert_int_equal(model_bpred_check(&taken_to_a, MODEL_BPRED_SIZED(MODEL_BPRED_RETURN, 2), 1, 0xa),
                     MODEL_BPRED_CORRECT);
}

/* The same configuration and calls give the same predictions; update without
 * a preceding predict behaves the same as with one. */
static void deterministic(void **state)
{
    model_bpred *a = make(MODEL_BPRED_TAGE), *b = make(MODEL_BPRED_TAGE);
    rng_state rng;
    (void)state;
    rng_seed(&rng, 3, 0);
    for (unsigned n = 0; n < 50000; n++) {
        uint64_t pc = 0x1000 + 4 * rng_below(&rng, 64);
        int taken = (pc & 0x40) ? (int)(rng_next(&rng) & 1) : (n % 7 != 0);
        model_bpred_prediction pa, pb;
        model_bpred_predict(a, pc, MODEL_BPRED_COND, &pa);
        model_bpred_predict(b, pc, MODEL_BPRED_COND, &pb);
        assert_same_prediction(&pa, &pb);
        model_bpred_update(a, pc, MODEL_BPRED_COND, taken, 0x800);
        model_bpred_update(b, pc, MODEL_BPRED_COND, taken, 0x800);
    }
    assert_memory_equal(model_bpred_get_stats(a), model_bpred_get_stats(b), sizeof(model_bpred_stats));
    model_bpred_free(a);
    model_bpred_free(b);

    a = make(MODEL_BPRED_TAGE);
    b = make(MODEL_BPRED_TAGE);
    rng_seed(&rng, 4, 0);
    for (unsigned n = 0; n < 20000; n++) {
        uint64_t pc = 0x1000 + 4 * rng_below(&rng, 16);
        int taken = (int)(rng_next(&rng) % 3 != 0);
        model_bpred_prediction pa;
        model_bpred_predict(a, pc, MODEL_BPRED_COND, &pa);
        model_bpred_update(a, pc, MODEL_BPRED_COND, taken, 0x800);
        model_bpred_update(b, pc, MODEL_BPRED_COND, taken, 0x800);
    }
    assert_memory_equal(model_bpred_get_stats(a), model_bpred_get_stats(b), sizeof(model_bpred_stats));
    model_bpred_free(a);
    model_bpred_free(b);
}

/* Training (an update with no prediction before it, which skips the BTB
 * for a conditional branch not taken) leaves both predictors as predict
 * then update does, with the same verdicts, over every kind: conditional
 * branches with two targets, jumps, calls, returns and indirect jumps
 * with changing targets, taken and not. */
static void update_alone_is_predict_then_update(void **state)
{
    static const unsigned predictors[] = { MODEL_BPRED_TAGE, MODEL_BPRED_GSHARE };
    (void)state;
    for (unsigned i = 0; i < sizeof predictors / sizeof predictors[0]; i++) {
        model_bpred *a = make(predictors[i]), *b = make(predictors[i]);
        rng_state rng;
        rng_seed(&rng, 5, i);
        for (unsigned n = 0; n < 100000; n++) {
            uint64_t pc = 0x4000 + 2 * rng_below(&rng, 512);
            unsigned kind = MODEL_BPRED_SIZED(rng_below(&rng, MODEL_BPRED_KIND_COUNT), 2 + (pc & 7));
            int cond = (kind & MODEL_BPRED_KIND_MASK) == MODEL_BPRED_COND;
            int taken = cond ? (pc & 0x10 ? (int)(rng_next(&rng) & 1) : (n % 5 != 0)) : 1;
            uint64_t target = 0x9000 + 16 * rng_below(&rng, cond ? 2 : 8);
            model_bpred_prediction pa;
            model_bpred_predict(a, pc, kind, &pa);
            assert_int_equal(model_bpred_update(a, pc, kind, taken, target),
                             model_bpred_update(b, pc, kind, taken, target));
        }
        assert_memory_equal(model_bpred_get_stats(a), model_bpred_get_stats(b), sizeof(model_bpred_stats));
        for (uint64_t pc = 0x4000; pc < 0x4400; pc += 2) {
            model_bpred_prediction pa, pb;
            unsigned kind = (unsigned)(pc >> 1) % MODEL_BPRED_KIND_COUNT;
            model_bpred_predict(a, pc, kind, &pa);
            model_bpred_predict(b, pc, kind, &pb);
            assert_same_prediction(&pa, &pb);
        }
        model_bpred_free(a);
        model_bpred_free(b);
    }
}

/* Defaults, and the geometric history series 4 * 16^(i/5): 4, 6.96, 12.1,
 * 21.1, 36.8, 64, rounded. */
static void configuration(void **state)
{
    static const unsigned expected[] = { 4, 7, 12, 21, 37, 64 };
    model_bpred_config cfg;
    model_bpred *p;
    (void)state;
    model_bpred_config_defaults(&cfg);
    assert_int_equal(cfg.predictor, MODEL_BPRED_TAGE);
    assert_int_equal(cfg.btb_entries, 2048);
    assert_int_equal(cfg.ras_entries, 32);
    assert_int_equal(model_bpred_create(&p, &cfg), 0);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(model_bpred_tage_history(p, i), expected[i]);
    model_bpred_free(p);

    cfg.tage_tables = 8;
    cfg.tage_min_history = 2;
    cfg.tage_max_history = 5; /* no room for 8 increasing lengths */
    assert_int_equal(model_bpred_config_check(&cfg), TEA_ERR_USAGE);
    cfg.tage_max_history = 9; /* exactly room: 2..9 */
    assert_int_equal(model_bpred_create(&p, &cfg), 0);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(model_bpred_tage_history(p, i), 2 + i);
    model_bpred_free(p);
    model_bpred_config_defaults(&cfg);
    cfg.btb_entries = 3000;
    assert_int_equal(model_bpred_config_check(&cfg), TEA_ERR_USAGE);
    assert_contains(error_message(), "BTB");
    model_bpred_config_defaults(&cfg);
    cfg.predictor = 7;
    assert_int_equal(model_bpred_create(&p, &cfg), TEA_ERR_USAGE);
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gshare_learns_a_short_loop),
        cmocka_unit_test(gshare_long_loop_misses_each_exit),
        cmocka_unit_test(tage_learns_loops),
        cmocka_unit_test(alternating_pattern),
        cmocka_unit_test(random_pattern),
        cmocka_unit_test(ras_call_return_pairs),
        cmocka_unit_test(btb),
        cmocka_unit_test(verdicts),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(update_alone_is_predict_then_update),
        cmocka_unit_test(configuration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
