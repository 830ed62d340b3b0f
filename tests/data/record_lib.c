/*
 * record_lib.c: a program whose time is in the C library (qsort and its
 * comparison calls, memcpy, memset), for tests/e2e/record.sh: every PC it
 * records must lie in an object the trace lists, libc among them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 4000
#define ROUNDS 3
#define BYTES 65536

static int compare(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    static int v[COUNT];
    static char src[BYTES], dst[BYTES];
    unsigned s = 1;

    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < COUNT; i++) {
            s = s * 1103515245u + 12345u;
            v[i] = (int)(s >> 8);
        }
        qsort(v, COUNT, sizeof v[0], compare);
        memset(src, r, sizeof src);
        memcpy(dst, src, sizeof dst);
    }
    printf("%d %d\n", v[0], dst[1]);
    return 0;
}
