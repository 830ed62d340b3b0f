/*
 * sgemm.c: single-precision matrix multiply, naive and blocked.
 *
 * `sgemm naive` computes one row of C = A x B with 1024 x 1024 matrices,
 * walking B column by column: B (4 MiB) is larger than the LLC and a column
 * spans 1024 cache lines, so every B load misses the L1, the LLC and the
 * L1 TLB, and the B load dominates (ST-L1, ST-TLB, ST-LLC).
 *
 * `sgemm blocked` multiplies 128 x 128 matrices in 32 x 32 tiles: a tile of
 * B stays in the L1 cache while all 128 rows use it, the loads hit, and what
 * remains is arithmetic (base). (Blocking needs reuse: on the one-row band
 * of the naive run every B element is used once only, so the blocked run
 * uses whole matrices, small enough to record in seconds.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAIVE_N 1024
#define NAIVE_ROWS 1
#define BLOCKED_N 128
#define TILE 32

/* C[rows x n] += A[rows x n] * B[n x n], row-major, naive order. */
static __attribute__((noinline)) void sgemm_naive(const float *a, const float *b, float *c, int n, int rows)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++) {
            float acc = c[i * n + j];
            for (int k = 0; k < n; k++)
                acc += a[i * n + k] * b[k * n + j];
            c[i * n + j] = acc;
        }
}

/* The same in tiles of TILE x TILE (n a multiple of TILE). */
static __attribute__((noinline)) void sgemm_blocked(const float *a, const float *b, float *c, int n, int rows)
{
    for (int kk = 0; kk < n; kk += TILE)
        for (int jj = 0; jj < n; jj += TILE)
            for (int i = 0; i < rows; i++)
                for (int k = kk; k < kk + TILE; k++) {
                    float x = a[i * n + k];
                    for (int j = jj; j < jj + TILE; j++)
                        c[i * n + j] += x * b[k * n + j];
                }
}

int main(int argc, char **argv)
{
    int blocked = argc > 1 && strcmp(argv[1], "blocked") == 0;
    int n = blocked ? BLOCKED_N : NAIVE_N, rows = blocked ? BLOCKED_N : NAIVE_ROWS;
    float *a = calloc((size_t)rows * n, sizeof *a), *b = malloc((size_t)n * n * sizeof *b);
    float *c = calloc((size_t)rows * n, sizeof *c);
    double sum = 0;

    if (!a || !b || !c)
        return 1;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            b[k * n + j] = (float)((k + j * 3) % 11) * 0.5f;
    for (int i = 0; i < rows; i++)
        for (int k = 0; k < n; k++)
            a[i * n + k] = (float)((i * 7 + k) % 13) * 0.25f;
    if (blocked)
        sgemm_blocked(a, b, c, n, rows);
    else
        sgemm_naive(a, b, c, n, rows);
    for (int i = 0; i < rows * n; i++)
        sum += c[i];
    printf("sgemm %s: %.3f\n", blocked ? "blocked" : "naive", sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
