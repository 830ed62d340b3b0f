/*
 * annotate_lib.c: the shared library of annotate_prog.c, with a local
 * mix_step of its own: one function name in two objects of one trace
 * (tests/e2e/annotate_objects.sh).
 */

/* One round of another hash than the program's mix_step. */
__attribute__((noinline)) static unsigned mix_step(unsigned x, unsigned round)
{
    x += round;
    x ^= x << 7;
    return x * 0x9e3779b1u;
}

/* `rounds` rounds of mix_step from `seed`. */
unsigned annotate_lib_mix(unsigned seed, unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++)
        seed = mix_step(seed, i);
    return seed;
}
