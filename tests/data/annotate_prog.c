/*
 * annotate_prog.c: a position-independent program for `pics annotate
 * --symbol` on a recorded trace (tests/e2e/annotate_objects.sh): its time
 * goes to libc's malloc and free, to chase_loop, which GCC at -O2 compiles
 * as a clone (chase_loop.constprop.0: its table and step count are
 * constants), and to mix_step, a local function of this program and of
 * annotate_lib.c alike (one name in two objects).
 */
#include <stdio.h>
#include <stdlib.h>

#define NODES 4096
#define STEPS 100000
#define ALLOCS 2000
#define ALLOC_SPREAD 512
#define MIX_ROUNDS 5000

unsigned annotate_lib_mix(unsigned seed, unsigned rounds);

static unsigned next_node[NODES];

/* Follows the chain `steps` times from `start`: a constant table and step
 * count make GCC specialise it (.constprop). */
__attribute__((noinline)) static unsigned chase_loop(const unsigned *next, unsigned start, unsigned steps)
{
    unsigned at = start;
    for (unsigned i = 0; i < steps; i++)
        at = next[at];
    return at;
}

/* One round of a hash; the library has its own mix_step. */
__attribute__((noinline)) static unsigned mix_step(unsigned x, unsigned round)
{
    x ^= x >> 15;
    x *= 0x2c1b3c6du + round;
    return x ^ (x >> 12);
}

int main(int argc, char **argv)
{
    unsigned state = 12345, sum = 0;
    (void)argv;
    for (unsigned i = 0; i < NODES; i++) {
        state = state * 1103515245u + 12345u;
        next_node[i] = (state >> 8) % NODES;
    }
    for (unsigned i = 0; i < ALLOCS; i++) {
        unsigned char *p = malloc(64 + i % ALLOC_SPREAD);
        if (!p)
            return 1;
        p[0] = (unsigned char)i;
        sum += p[0];
        free(p);
    }
    for (unsigned i = 0; i < MIX_ROUNDS; i++)
        sum = mix_step(sum + (unsigned)argc, i);
    sum += annotate_lib_mix(sum, MIX_ROUNDS);
    sum += chase_loop(next_node, 1, STEPS);
    printf("%u\n", sum);
    return 0;
}
