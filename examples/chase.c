/*
 * chase.c: the pointer-chasing stride kernel of Arm's Neoverse N1
 * performance-analysis study: a 16 MiB array walked through dependent loads,
 * each index read from the element before. Every load waits for the previous
 * one and misses the caches and the TLBs: one load dominates (ST-L1, ST-TLB,
 * ST-LLC).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_BYTES (16u << 20)
#define ELEMENTS (ARRAY_BYTES / sizeof(uint64_t))
#define STRIDE 4099                /* elements between consecutive visits: a new page nearly every step */
#define STEPS 600000

static __attribute__((noinline)) uint64_t chase(const uint64_t *next, uint64_t start, long steps)
{
    uint64_t p = start;
    for (long s = 0; s < steps; s++)
        p = next[p];
    return p;
}

int main(void)
{
    uint64_t *next = malloc(ARRAY_BYTES);
    if (!next)
        return 1;
    for (uint64_t i = 0; i < ELEMENTS; i++)
        next[i] = (i + STRIDE) % ELEMENTS;
    printf("chase: %llu\n", (unsigned long long)chase(next, 0, STEPS));
    free(next);
    return 0;
}
