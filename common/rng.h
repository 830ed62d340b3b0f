/*
 * rng.h: the project's only source of randomness.
 *
 * Every random choice (generated workloads, sample-point jitter, LFSR seeds) is
 * drawn from here and is a pure function of a user-visible seed, so the same
 * inputs and seed give byte-identical outputs on every machine.
 *
 * Two flavours: a small sequential generator (xoshiro256**, seeded through
 * splitmix64) and a stateless hash (rng_hash64) for draws that must be
 * computable independently, e.g. the jitter of the k-th sampling window.
 */
#ifndef TEA_COMMON_RNG_H
#define TEA_COMMON_RNG_H

#include <stdint.h>

typedef struct rng_state {
    uint64_t s[4];
} rng_state;

/* Seeds `rng` from a 64-bit seed and a stream number; distinct streams of the
 * same seed are independent. */
void rng_seed(rng_state *rng, uint64_t seed, uint64_t stream);

/* The next 64 uniformly distributed bits. */
uint64_t rng_next(rng_state *rng);

/* A uniform integer in [0, bound); bound must be > 0. Unbiased. */
uint64_t rng_below(rng_state *rng, uint64_t bound);

/* A uniform double in [0, 1) with 53 bits of precision. */
double rng_unit(rng_state *rng);

/* True with probability `p` (clamped to [0, 1]). */
int rng_chance(rng_state *rng, double p);

/* A stateless 64-bit mix of (seed, stream, index): uniform and independent for
 * distinct arguments. */
uint64_t rng_hash64(uint64_t seed, uint64_t stream, uint64_t index);

/* A uniform integer in [0, bound) derived from rng_hash64; bound must be > 0.
 * Unbiased for every bound (rejection on a short counter chain). */
uint64_t rng_hash_below(uint64_t seed, uint64_t stream, uint64_t index, uint64_t bound);

#endif
