/*
 * branches.c: a loop whose branch depends on random data, so no predictor
 * can learn it: about half of its executions mispredict, and the branch,
 * flushing the wrong path each time, dominates the profile (FL-MB).
 */
#include <stdio.h>
#include <stdlib.h>

#define N 32768
#define REPEAT 40

static __attribute__((noinline)) long count_small(const unsigned char *data, int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++) {
        if (data[i] < 128)   /* taken half the time, at random */
            sum += data[i] * 3 + 1;
        else
            sum -= data[i] >> 2;
    }
    return sum;
}

int main(void)
{
    static unsigned char data[N];
    unsigned state = 12345;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        state = state * 1103515245u + 12345u;
        data[i] = (unsigned char)(state >> 16);
    }
    for (int r = 0; r < REPEAT; r++)
        sum += count_small(data, N);
    printf("branches: %ld\n", sum);
    return 0;
}
