/*
 * pool.c: worker threads drawn on the thread budget (see pool.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "pool.h"
#include "error.h"
#include "threads.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

unsigned pool_claim(pool_threads *p, unsigned asked, unsigned most, unsigned least)
{
    unsigned n = 0;

    assert(p->claimed == 0 && p->started == 0); /* an empty pool */
    memset(p, 0, sizeof *p);
    if (asked) {
        n = asked < most ? asked : most;
        if (n == 0 || n < least)
            return 0;
        threads_reserve(n); /* asked for: granted even past the processors */
    } else {
        while (n < most && threads_try_one())
            n++;
        if (n < least) {
            threads_release(n);
            return 0;
        }
    }
    p->claimed = n;
    return n;
}

int pool_start(pool_threads *p, pool_task task, void *items, size_t item_size)
{
    assert(p->started == 0);
    if (p->claimed == 0)
        return TEA_OK;
    p->threads = p->claimed == 1 ? &p->one : malloc(p->claimed * sizeof *p->threads);
    if (!p->threads)
        return TEA_ERR_NOMEM;
    for (unsigned i = 0; i < p->claimed; i++) {
        if (pthread_create(&p->threads[i], NULL, task, (char *)items + (size_t)i * item_size) != 0)
            return TEA_ERR_NOMEM;
        p->started++;
    }
    return TEA_OK;
}

void pool_join(pool_threads *p)
{
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    if (p->claimed)
        threads_release(p->claimed);
    if (p->threads != &p->one)
        free(p->threads);
    memset(p, 0, sizeof *p);
}

/* What the threads of one pool_for share. */
typedef struct index_range {
    pthread_mutex_t lock;
    size_t next, count;        /* the next index to take; under `lock` */
    pool_index_task run, done;
    void *ctx;
} index_range;

/* One thread of pool_for: takes indices until none is left. */
static void *run_indices(void *arg)
{
    index_range *r = arg;
    for (;;) {
        size_t i;
        pthread_mutex_lock(&r->lock);
        i = r->next < r->count ? r->next++ : r->count;
        pthread_mutex_unlock(&r->lock);
        if (i == r->count)
            return NULL;
        r->run(r->ctx, i);
        if (r->done) {
            pthread_mutex_lock(&r->lock);
            r->done(r->ctx, i);
            pthread_mutex_unlock(&r->lock);
        }
    }
}

int pool_for(size_t count, unsigned threads, pool_index_task run, pool_index_task done, void *ctx)
{
    index_range r = { .count = count, .run = run, .done = done, .ctx = ctx };
    pool_threads helpers = { 0 };

    if (pthread_mutex_init(&r.lock, NULL))
        return error_set(TEA_ERR_NOMEM, "cannot create a mutex");
    if (threads > 1 && pool_claim(&helpers, threads - 1, threads - 1, 1))
        (void)pool_start(&helpers, run_indices, &r, 0); /* fewer threads: the rest still runs */
    run_indices(&r);
    pool_join(&helpers);
    pthread_mutex_destroy(&r.lock);
    return TEA_OK;
}
