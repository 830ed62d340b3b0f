/*
 * threads.h: one budget for the threads of a process.
 *
 * The processors this process may run on are shared by every thread the
 * tools start: tea sweep's jobs (-j), a replay's frame workers (--threads)
 * and the readers' background decoders. Threads a user asked for are always
 * granted (threads_reserve may overdraw the budget); helper threads that only
 * speed things up (a reader decoding ahead) are started only while the
 * budget has room (threads_try_one), so `tea sweep -j 2 --threads 2` on two
 * processors does not add background readers on top. Results never depend
 * on the budget: it only decides how many threads do the same work.
 */
#ifndef TEA_COMMON_THREADS_H
#define TEA_COMMON_THREADS_H

/* The processors this process may use (its CPU affinity, else those
 * online), at least 1. */
unsigned threads_processors(void);

/* Takes `n` threads from the budget, even past it. Thread-safe. */
void threads_reserve(unsigned n);

/* Takes one thread when the budget has room: 1, else 0. Thread-safe. */
int threads_try_one(void);

/* Gives `n` threads back. Thread-safe. */
void threads_release(unsigned n);

#endif
