/*
 * nab.c: square roots next to frequently flushing operations, like SPEC's
 * nab, where reading and writing the floating-point flags flushes the
 * pipeline and the square root keeps issuing late. Here a fence every few
 * iterations flushes; after each flush the square root, with its long
 * latency, is what the refilled ROB waits on.
 *
 * `nab nofence` runs the same loop without the fence: the fix the profile
 * points to, like building SPEC's nab with -ffast-math (docs/reproduce.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define REPEAT 150
#define FLUSH_EVERY 8

static __attribute__((noinline)) double distances(const double *x, const double *y, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        double d = sqrt(x[i] * x[i] + y[i] * y[i]);
        total += d;
        if ((i & (FLUSH_EVERY - 1)) == 0)
            __asm__ volatile("lfence" ::: "memory"); /* a serializing neighbour */
    }
    return total;
}

/* distances() without the serializing fence. */
static __attribute__((noinline)) double distances_nofence(const double *x, const double *y, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += sqrt(x[i] * x[i] + y[i] * y[i]);
    return total;
}

int main(int argc, char **argv)
{
    int nofence = argc > 1 && strcmp(argv[1], "nofence") == 0;
    static double x[N], y[N];
    double sum = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (double)(i % 89) + 0.5;
        y[i] = (double)(i % 61) + 0.25;
    }
    for (int r = 0; r < REPEAT; r++)
        sum += nofence ? distances_nofence(x, y, N) : distances(x, y, N);
    printf("nab: %.3f\n", sum);
    return 0;
}
