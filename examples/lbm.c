/*
 * lbm.c: a lattice-Boltzmann-like stencil streaming over arrays far larger
 * than the last-level cache, like SPEC's lbm. Every cell update reads its
 * neighbours in the previous plane, this plane and the next one; all of
 * them stream from DRAM, but the first load of each new line in program
 * order is the one the ROB head waits on, so one load dominates the profile
 * (ST-L1, ST-LLC).
 */
#include <stdio.h>
#include <stdlib.h>

#define NX 64
#define NY 64
#define NZ 96                       /* 64 x 64 x 96 cells x 8 B = 3 MiB per array, above the 2 MiB LLC */
#define CELLS ((long)NX * NY * NZ)
#define PLANE ((long)NX * NY)
#define STEPS 2

/* One sweep: each cell relaxes towards the mean of its six neighbours. */
static __attribute__((noinline)) void stream_collide(const double *restrict src, double *restrict dst)
{
    for (long i = PLANE; i < CELLS - PLANE; i++) {
        double c = src[i];
        double n = src[i + PLANE] + src[i - PLANE] + src[i + NX] + src[i - NX] + src[i + 1] + src[i - 1];
        dst[i] = 0.6 * c + 0.4 * (n / 6.0);
    }
}

int main(void)
{
    double *a = malloc(CELLS * sizeof *a), *b = malloc(CELLS * sizeof *b), sum = 0;
    if (!a || !b)
        return 1;
    for (long i = 0; i < CELLS; i++) {
        a[i] = (double)(i % 97);
        b[i] = 0;
    }
    for (int s = 0; s < STEPS; s++) {
        stream_collide(a, b);
        double *t = a;
        a = b;
        b = t;
    }
    for (long i = 0; i < CELLS; i += 4099)
        sum += a[i];
    printf("lbm: %.6f\n", sum);
    free(a);
    free(b);
    return 0;
}
