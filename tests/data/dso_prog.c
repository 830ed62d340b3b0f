/*
 * dso_prog.c: a position-independent program that spends its time in shared
 * objects: libc's qsort (with a comparison callback here) and memcpy, and
 * dso_checksum in a library of its own (dso_lib.c). tests/e2e/dso.sh
 * records it with tea record and checks that the reports name the
 * functions of each object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUES 3000
#define BYTES (64 * 1024)
#define COPIES 4

unsigned dso_checksum(const unsigned char *data, size_t size);

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    static int values[VALUES];
    static unsigned char src[BYTES], dst[BYTES];
    unsigned state = 12345, sum = 0;
    for (int i = 0; i < VALUES; i++) {
        state = state * 1103515245u + 12345u;
        values[i] = (int)(state >> 8);
    }
    qsort(values, VALUES, sizeof values[0], compare_ints);
    for (int k = 0; k < COPIES; k++) {
        memset(src, k, sizeof src);
        memcpy(dst, src, sizeof dst);
        sum += dso_checksum(dst, sizeof dst);
    }
    printf("%d %d %u\n", values[0], values[VALUES - 1], sum);
    return 0;
}
