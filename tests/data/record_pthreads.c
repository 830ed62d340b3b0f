/*
 * record_pthreads.c: four threads doing different, known work, for
 * tests/e2e/record_every_thread.sh (tea record --thread all). Valgrind
 * numbers the main thread 1 and the others 2-5 in the order they are
 * created here:
 *   2 compute  an arithmetic loop of COMPUTE_LOOPS iterations in registers;
 *   3 chase    a pointer chase through a CHASE_BYTES array (twice the
 *              model's LLC) in one cycle of CHASE_STRIDE elements a step
 *              (a new line and page each time, no next-line prefetch
 *              helps), CHASE_STEPS loads each waiting for the one before
 *              (memory stalls);
 *   4 branchy  a loop of data-dependent, unpredictable branches;
 *   5 waiter   waits on a condition variable until the other three are
 *              done, then ends (few instructions, blocked meanwhile).
 * The main thread starts them, joins them and prints a checksum so that
 * no work is optimized away. With the argument "small" every thread does
 * an eighth of its work (SMALL_DIVISOR), for the checks that need threads
 * but not their weight.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPUTE_LOOPS 500000L
#define CHASE_BYTES (4u << 20)
#define CHASE_STRIDE 4099 /* odd: one cycle through a power-of-2 count */
#define CHASE_STEPS 100000L
#define BRANCHY_LOOPS 300000L
#define SMALL_DIVISOR 8

static long divisor = 1; /* SMALL_DIVISOR with "small" */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;
static uint64_t results[3];

/* Tells the waiter that one more worker is done. */
static void finished(void)
{
    pthread_mutex_lock(&lock);
    done++;
    pthread_cond_signal(&done_cond);
    pthread_mutex_unlock(&lock);
}

static void *compute(void *arg)
{
    uint64_t x = 1;
    (void)arg;
    for (long i = 0; i < COMPUTE_LOOPS / divisor; i++)
        x = x * 6364136223846793005ull + (uint64_t)i;
    results[0] = x;
    finished();
    return NULL;
}

static void *chase(void *arg)
{
    size_t n = CHASE_BYTES / divisor / sizeof(size_t);
    size_t *next = malloc(CHASE_BYTES / divisor), at = 0;
    (void)arg;
    if (!next)
        exit(1);
    for (size_t i = 0; i < n; i++)
        next[i] = (i + CHASE_STRIDE) & (n - 1);
    for (long s = 0; s < CHASE_STEPS / divisor; s++)
        at = next[at];
    results[1] = at;
    free(next);
    finished();
    return NULL;
}

static void *branchy(void *arg)
{
    uint64_t seed = 99, sum = 0;
    (void)arg;
    for (long i = 0; i < BRANCHY_LOOPS / divisor; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        if (seed >> 63)
            sum += seed >> 40;
        else
            sum ^= seed;
    }
    results[2] = sum;
    finished();
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (done < 3)
        pthread_cond_wait(&done_cond, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    void *(*const work[])(void *) = { compute, chase, branchy, waiter };
    pthread_t threads[4];

    if (argc > 1 && strcmp(argv[1], "small") == 0)
        divisor = SMALL_DIVISOR;

    for (int i = 0; i < 4; i++)
        if (pthread_create(&threads[i], NULL, work[i], NULL) != 0)
            return 1;
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    printf("%llu\n", (unsigned long long)(results[0] ^ results[1] ^ results[2]));
    return 0;
}
