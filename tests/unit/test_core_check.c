/*
 * test_core_check.c: the core model's ROB checker (model_core_check) holds
 * after every batch of every built-in workload, and catches each kind of
 * damage to the ROB. The model's state is private to model/core.c, so this
 * test includes that file (white-box): it defines the model_core_*
 * functions itself, and the tea_model archive's core.o is never linked in.
 */
#include "../../model/core.c"

#include "testutil.h"
#include "model/workload.h"

/* Cycles each workload runs. */
#define CHECK_CYCLES 30000u

/* The emit callback: the ROB after each batch, and how many batches. */
typedef struct batches {
    const model_core *core;
    size_t count;
} batches;

static int check_batch(void *ctx, const trace_batch *batch)
{
    batches *b = ctx;
    (void)batch;
    assert_int_equal(model_core_check(b->core), 1);
    b->count++;
    return TEA_OK;
}

/* A core on `workload`, run for CHECK_CYCLES cycles with the checker after
 * every batch; the caller frees both. */
static model_core *run_core(const char *workload, model_workload **w)
{
    model_config cfg;
    model_source src;
    model_core *m;
    batches b = { NULL, 0 };

    model_config_defaults(&cfg);
    assert_int_equal(model_workload_create(w, workload, 7), 0);
    src = model_workload_source(*w);
    assert_int_equal(model_core_create(&m, &cfg, &src), 0);
    assert_int_equal(model_core_check(m), 1);
    b.core = m;
    assert_int_equal(model_core_run(m, 0, CHECK_CYCLES, check_batch, &b), 0);
    assert_true(b.count > 0);
    assert_int_equal(model_core_check(m), 1);
    return m;
}

static void every_workload_sound(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        model_workload *w;
        model_core *m = run_core(names[i], &w);
        model_core_free(m);
        model_workload_free(w);
    }
}

/* The first valid correct-path entry from the head, as an offset, or the
 * ROB's size when none. */
static unsigned first_valid(const model_core *m, unsigned from)
{
    for (unsigned k = from; k < m->window; k++) {
        const rob_entry *e = &m->rob[(m->head + k) % m->core.rob_size];
        if (e->valid && !e->wrong_path)
            return k;
    }
    return m->core.rob_size;
}

/* Each kind of damage, on a copy of the state left by a run (the ROB array
 * is shared: each change to an entry is undone before the next). */
static void damage_caught(void **state)
{
    model_workload *w;
    model_core *m = run_core("mixed", &w);
    model_core bad;
    unsigned size = m->core.rob_size, k, j;
    rob_entry saved;
    (void)state;

    assert_true(m->window > 0); /* a ROB with µops in flight to damage */
    bad = *m;
    bad.window++;
    assert_int_equal(model_core_check(&bad), 0);
    bad = *m;
    bad.head = size;
    assert_int_equal(model_core_check(&bad), 0);
    bad = *m;
    bad.tail_row = (bad.tail_row + 1) % bad.rows;
    assert_int_equal(model_core_check(&bad), 0);
    bad = *m;
    bad.lsq_used++;
    assert_int_equal(model_core_check(&bad), 0);
    bad = *m;
    bad.rows_used = bad.rows + 1;
    assert_int_equal(model_core_check(&bad), 0);

    /* A valid entry outside the window. */
    if (m->window < size) {
        rob_entry *e = &m->rob[(m->head + m->window) % size];
        saved = *e;
        e->valid = 1;
        assert_int_equal(model_core_check(m), 0);
        *e = saved;
    }
    /* Two correct-path µops out of program order. */
    k = first_valid(m, 0);
    j = k < size ? first_valid(m, k + 1) : size;
    if (j < size) {
        rob_entry *a = &m->rob[(m->head + k) % size], *b = &m->rob[(m->head + j) % size];
        uint64_t seq = a->seq;
        a->seq = b->seq;
        b->seq = seq;
        assert_int_equal(model_core_check(m), 0);
        b->seq = a->seq;
        a->seq = seq;
    }
    /* A wrong-path µop with no mispredicted branch pending before it. */
    if (k < size && !m->mispredict_pending) {
        rob_entry *e = &m->rob[(m->head + k) % size];
        e->wrong_path = 1;
        assert_int_equal(model_core_check(m), 0);
        e->wrong_path = 0;
    }
    assert_int_equal(model_core_check(m), 1);
    assert_int_equal(model_core_check(NULL), 0);
    model_core_free(m);
    model_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_workload_sound),
        cmocka_unit_test(damage_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
