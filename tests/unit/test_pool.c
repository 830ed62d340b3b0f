/*
 * test_pool.c: worker threads on the thread budget (common/pool): claims
 * as asked, as the budget allows and below the least worth having; started
 * threads each get their own item; pool_for runs every index once, with its
 * done calls one at a time, on any number of threads.
 */
#include "testutil.h"
#include "common/error.h"
#include "common/pool.h"
#include "common/threads.h"

#include <stdatomic.h>
#include <string.h>

#define INDICES 1000
#define WORKERS 4

/* A claim as asked is granted whole (even past the budget), cut at `most`,
 * and refused below `least`; the budget's room is what a later claim that
 * asks for nothing can take, and joining gives it back. */
static void claims(void **state)
{
    (void)state;
    unsigned room = threads_processors() - 1; /* the budget: the processors less the main thread */
    pool_threads a = { 0 }, b = { 0 };

    assert_int_equal(pool_claim(&a, 3, 8, 2), 3);
    pool_join(&a);
    assert_int_equal(pool_claim(&a, 20, 8, 2), 8);
    pool_join(&a);
    assert_int_equal(pool_claim(&a, 1, 8, 2), 0); /* one thread: not worth it */
    pool_join(&a);
    /* as the budget allows: all of its room, then nothing */
    assert_int_equal(pool_claim(&a, 0, room + 5, 0), room);
    assert_int_equal(pool_claim(&b, 0, 1, 1), 0);
    pool_join(&b);
    /* asked for: granted past the budget all the same */
    assert_int_equal(pool_claim(&b, 2, 2, 1), 2);
    pool_join(&b);
    pool_join(&a);
    assert_int_equal(pool_claim(&a, 0, room, 1), room);
    pool_join(&a);
}

/* One worker's item: its number, written by its own thread. */
typedef struct item {
    unsigned index;
    unsigned seen;
} item;

static void *note(void *arg)
{
    item *it = arg;
    it->seen = it->index + 1;
    return NULL;
}

/* Each started thread runs the task on its own item; item_size 0 gives
 * them all the same one. */
static void starts_a_thread_per_item(void **state)
{
    (void)state;
    item items[WORKERS];
    pool_threads p = { 0 };

    for (unsigned i = 0; i < WORKERS; i++)
        items[i] = (item){ i, 0 };
    assert_int_equal(pool_claim(&p, WORKERS, WORKERS, 1), WORKERS);
    assert_int_equal(pool_start(&p, note, items, sizeof items[0]), TEA_OK);
    assert_int_equal(p.started, WORKERS);
    pool_join(&p);
    for (unsigned i = 0; i < WORKERS; i++)
        assert_int_equal(items[i].seen, i + 1);
    assert_int_equal(p.claimed, 0);
    /* a pool of one, on one shared item */
    items[0] = (item){ 41, 0 };
    assert_int_equal(pool_claim(&p, 1, 1, 1), 1);
    assert_int_equal(pool_start(&p, note, &items[0], 0), TEA_OK);
    pool_join(&p);
    assert_int_equal(items[0].seen, 42);
    /* nothing claimed: nothing starts, and joining is fine */
    assert_int_equal(pool_start(&p, note, items, sizeof items[0]), TEA_OK);
    assert_int_equal(p.started, 0);
    pool_join(&p);
}

/* What pool_for's tasks share: how often each index ran, and the done
 * calls (serialized by the pool: a plain counter and a check that no two
 * overlap). */
typedef struct range {
    atomic_uint runs[INDICES];
    atomic_int inside_done;
    size_t done_calls;
    int overlapped;
} range;

static void run_index(void *ctx, size_t i)
{
    range *r = ctx;
    atomic_fetch_add(&r->runs[i], 1);
}

static void done_index(void *ctx, size_t i)
{
    range *r = ctx;
    (void)i;
    if (atomic_fetch_add(&r->inside_done, 1) != 0)
        r->overlapped = 1;
    r->done_calls++;
    atomic_fetch_sub(&r->inside_done, 1);
}

/* Every index runs exactly once and is done once, on 1, 2 and 8 threads
 * (more threads than processors: asked for, granted), and on none (an
 * empty range). */
static void runs_every_index_once(void **state)
{
    (void)state;
    static range r;
    const unsigned thread_counts[] = { 1, 2, 8 };

    for (size_t k = 0; k < sizeof thread_counts / sizeof thread_counts[0]; k++) {
        memset(&r, 0, sizeof r);
        assert_int_equal(pool_for(INDICES, thread_counts[k], run_index, done_index, &r), TEA_OK);
        for (size_t i = 0; i < INDICES; i++)
            assert_int_equal(atomic_load(&r.runs[i]), 1);
        assert_int_equal(r.done_calls, INDICES);
        assert_false(r.overlapped);
    }
    memset(&r, 0, sizeof r);
    assert_int_equal(pool_for(0, 4, run_index, NULL, &r), TEA_OK);
    assert_int_equal(r.done_calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(claims),
        cmocka_unit_test(starts_a_thread_per_item),
        cmocka_unit_test(runs_every_index_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
