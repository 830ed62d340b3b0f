/*
 * exact.c: 128-bit decimal output and largest-remainder rounding (see
 * exact.h).
 */
#include "exact.h"
#include "error.h"

#include <assert.h>
#include <stdlib.h>

char *exact_format_u128(exact_u128 v, char *buf, size_t size)
{
    char digits[EXACT_U128_DIGITS_MAX];
    size_t n = 0;

    if (size == 0)
        return buf;
    do {
        digits[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v && n < sizeof digits);
    assert(v == 0); /* the digits hold any 128-bit value */
    for (size_t i = 0; i < n && i + 1 < size; i++)
        buf[i] = digits[n - 1 - i];
    buf[n < size ? n : size - 1] = '\0';
    return buf;
}

/* A candidate for a leftover unit: its remainder and its index. */
typedef struct remainder {
    exact_u128 rem;
    size_t index;
} remainder;

/* Orders remainders largest first, then by index. */
static int compare_remainders(const void *a, const void *b)
{
    const remainder *x = a, *y = b;
    if (x->rem != y->rem)
        return x->rem > y->rem ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int exact_round_shares(const exact_u128 *num, size_t n, exact_u128 den, exact_u128 target, uint64_t *out)
{
    exact_u128 given = 0;
    remainder *rems;

    assert(den > 0);
    for (size_t i = 0; i < n; i++) {
        out[i] = (uint64_t)(num[i] / den);
        given += out[i];
    }
    if (given >= target || n == 0)
        return TEA_OK;
    if (!(rems = malloc(n * sizeof *rems)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        rems[i] = (remainder){ num[i] % den, i };
    qsort(rems, n, sizeof *rems, compare_remainders);
    for (size_t k = 0; given < target && k < n; k++, given++)
        out[rems[k].index]++;
    assert(given <= target); /* a unit each at most, and only units the target lacks */
    free(rems);
    return TEA_OK;
}
