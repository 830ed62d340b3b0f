/*
 * pool.h: worker threads drawn on the process's thread budget (threads.h),
 * the one way the libraries and tools start them.
 *
 * A pool is claimed, started and joined:
 *
 *   pool_claim   takes threads from the budget: the count a user asked for
 *                (tea sweep -j, --threads), granted even past the budget,
 *                or, when none was asked for, as many as the budget has
 *                room for; fewer than the least that is worth it gives none;
 *   pool_start   starts the threads claimed, thread i running
 *                task(&items[i]): long-lived workers with their own state
 *                (frame-parallel replay, the frames of a multi-frame zstd
 *                file, a reader's helper decoding ahead);
 *   pool_join    waits for the threads started and gives the claim back.
 *
 * pool_for runs a task on every index of a range on several threads, the
 * calling thread among them (tea sweep's traces). Only thread start and
 * join go through the pool: the work and its synchronisation are the
 * caller's, so the pool changes neither results nor speed.
 */
#ifndef TEA_COMMON_POOL_H
#define TEA_COMMON_POOL_H

#include <pthread.h>
#include <stddef.h>

/* A thread's work: runs on its own thread with its item (as pthread_create
 * takes it; the result is ignored). */
typedef void *(*pool_task)(void *item);

/* A pool's threads. Zero-initialize before the first use (pool_threads p = { 0 });
 * pool_join leaves it so again. The fields are the pool's own. */
typedef struct pool_threads {
    unsigned claimed;          /* threads taken from the budget */
    unsigned started;          /* threads running until pool_join */
    pthread_t *threads;        /* [claimed] when claimed > 1 */
    pthread_t one;             /* the thread of a pool of one (no allocation) */
    pool_task task;
    void *items;               /* task's items: items + i * item_size for thread i */
    size_t item_size;
} pool_threads;

/* Claims threads from the process's budget into an empty pool: `asked`
 * when it is not 0 (a user's count: granted even past the budget), at most
 * `most`; else as many as the budget has room for, at most `most`. A claim
 * of fewer than `least` threads is given back whole. Returns the threads
 * claimed (0 to `most`). */
unsigned pool_claim(pool_threads *p, unsigned asked, unsigned most, unsigned least);

/* Starts the threads claimed: thread i runs task(items + i * item_size)
 * (item_size 0: every thread gets `items`). 0 when all started, else
 * TEA_ERR_NOMEM without a message (memory or a thread could not be had):
 * the threads started (p->started of them) run on, and the caller must
 * make them return (its own stop flag) and call pool_join. */
int pool_start(pool_threads *p, pool_task task, void *items, size_t item_size);

/* Waits for every thread started, gives the claim back to the budget and
 * empties the pool (a pool never claimed or started is fine). */
void pool_join(pool_threads *p);

/* A task of pool_for on index `i` of its range; `ctx` is pool_for's. */
typedef void (*pool_index_task)(void *ctx, size_t i);

/* Runs run(ctx, i) for every i in [0, count) on `threads` threads, the
 * calling thread one of them (threads - 1 are claimed as asked for; fewer
 * when some cannot start: the others do their share). Indices are taken in
 * increasing order, each by one thread; after each, done(ctx, i) (may be
 * NULL) runs under the pool's lock, so that the done calls never overlap.
 * Returns when every index is done: 0, or TEA_ERR_NOMEM (with a message)
 * when not even the lock could be made, and nothing ran. */
int pool_for(size_t count, unsigned threads, pool_index_task run, pool_index_task done, void *ctx);

#endif
