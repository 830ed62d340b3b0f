/*
 * record_threads.c: the program tests/e2e/record_threads.sh records, two
 * threads of which the second does the work. The main thread (Valgrind's
 * thread 1) starts a worker (thread 2) and waits for it; the worker runs
 *
 *   work:  1: dec %rcx; jnz 1b
 *
 * with %rcx = LOOPS: 2 LOOPS instructions (assembly, so that the count is
 * known by hand), besides what starting and ending a thread takes, which
 * does not depend on LOOPS. The main thread runs the loader, the C
 * library's start and end and the two calls: about 1.3 x 10^5
 * instructions with Debian 12's glibc, far fewer than the worker's for
 * the LOOPS the test uses.
 *
 * Usage: record_threads MODE LOOPS
 *   MODE worker: the loop on the worker thread, while the main thread waits
 *   MODE alone:  the loop on the main thread, which starts no other
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs the loop `loops` times (at least once). */
static void *work(void *arg)
{
    unsigned long count = (unsigned long)(size_t)arg;
    __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(count));
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned long loops;
    pthread_t worker;

    if (argc != 3 || (strcmp(argv[1], "worker") && strcmp(argv[1], "alone"))) {
        fprintf(stderr, "usage: record_threads worker|alone LOOPS\n");
        return 2;
    }
    loops = strtoul(argv[2], NULL, 10);
    if (loops == 0) {
        fprintf(stderr, "record_threads: LOOPS must be at least 1\n");
        return 2;
    }
    if (!strcmp(argv[1], "alone")) {
        work((void *)(size_t)loops);
        return 0;
    }
    if (pthread_create(&worker, NULL, work, (void *)(size_t)loops) != 0 || pthread_join(worker, NULL) != 0) {
        fprintf(stderr, "record_threads: cannot run the worker thread\n");
        return 1;
    }
    return 0;
}
