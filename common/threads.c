/*
 * threads.c: the process's thread budget (see threads.h).
 */
#define _GNU_SOURCE
#include "threads.h"

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static pthread_mutex_t budget_lock = PTHREAD_MUTEX_INITIALIZER;
static long budget_left;        /* threads that may still start; below 0 when overdrawn */
static long budget_start;       /* budget_left when nothing is taken */
static int budget_ready;

unsigned threads_processors(void)
{
    cpu_set_t set;
    long n;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

/* The budget starts with one thread per processor, less the main thread.
 * Call with budget_lock held. */
static void ready(void)
{
    if (!budget_ready) {
        budget_left = budget_start = (long)threads_processors() - 1;
        budget_ready = 1;
    }
}

void threads_reserve(unsigned n)
{
    pthread_mutex_lock(&budget_lock);
    ready();
    budget_left -= (long)n;
    pthread_mutex_unlock(&budget_lock);
}

int threads_try_one(void)
{
    int granted;
    pthread_mutex_lock(&budget_lock);
    ready();
    granted = budget_left > 0;
    budget_left -= granted;
    pthread_mutex_unlock(&budget_lock);
    return granted;
}

void threads_release(unsigned n)
{
    pthread_mutex_lock(&budget_lock);
    ready();
    budget_left += (long)n;
    assert(budget_left <= budget_start); /* no thread is given back twice */
    pthread_mutex_unlock(&budget_lock);
}
