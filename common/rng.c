/*
 * rng.c: xoshiro256** and a splitmix64-based hash (see rng.h).
 */
#include "rng.h"
#include "exact.h"

#include <assert.h>

/* splitmix64's increment and finalizer constants. */
#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ULL
#define SPLITMIX_MUL1 0xBF58476D1CE4E5B9ULL
#define SPLITMIX_MUL2 0x94D049BB133111EBULL

static uint64_t splitmix_finalize(uint64_t z)
{
    z = (z ^ (z >> 30)) * SPLITMIX_MUL1;
    z = (z ^ (z >> 27)) * SPLITMIX_MUL2;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void rng_seed(rng_state *rng, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ splitmix_finalize(stream + SPLITMIX_GAMMA);
    for (int i = 0; i < 4; i++) {
        x += SPLITMIX_GAMMA;
        rng->s[i] = splitmix_finalize(x);
    }
}

uint64_t rng_next(rng_state *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire's multiply-and-reject method: one multiplication in the common case. */
static uint64_t bounded(uint64_t (*draw)(void *), void *ctx, uint64_t bound)
{
    exact_u128 m;
    uint64_t low;

    assert(bound > 0); /* rng.h: [0, 0) holds nothing to draw */
    m = (exact_u128)draw(ctx) * bound;
    low = (uint64_t)m;
    if (low < bound) {
        uint64_t threshold = -bound % bound;
        while (low < threshold) {
            m = (exact_u128)draw(ctx) * bound;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

static uint64_t draw_state(void *ctx)
{
    return rng_next(ctx);
}

uint64_t rng_below(rng_state *rng, uint64_t bound)
{
    return bounded(draw_state, rng, bound);
}

double rng_unit(rng_state *rng)
{
    return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

int rng_chance(rng_state *rng, double p)
{
    if (p <= 0.0)
        return 0;
    if (p >= 1.0)
        return 1;
    return rng_unit(rng) < p;
}

uint64_t rng_hash64(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t z = splitmix_finalize(seed + SPLITMIX_GAMMA);
    z = splitmix_finalize(z ^ (stream * SPLITMIX_GAMMA + SPLITMIX_MUL1));
    return splitmix_finalize(z ^ (index * SPLITMIX_MUL2 + SPLITMIX_GAMMA));
}

/* Successive draws of one hashed index: a tiny counter chain for rejection. */
typedef struct hash_chain {
    uint64_t seed, stream, index, step;
} hash_chain;

static uint64_t draw_hash(void *ctx)
{
    hash_chain *c = ctx;
    uint64_t v = rng_hash64(c->seed, c->stream, c->index);
    c->seed = v + (++c->step);
    return v;
}

uint64_t rng_hash_below(uint64_t seed, uint64_t stream, uint64_t index, uint64_t bound)
{
    hash_chain chain = { seed, stream, index, 0 };
    return bounded(draw_hash, &chain, bound);
}
