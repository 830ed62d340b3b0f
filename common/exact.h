/*
 * exact.h: exact integer arithmetic beyond 64 bits, and rounding shares to
 * integers that add up exactly.
 *
 * The project keeps cycles as exact fixed-point integers (pics.h) and
 * compares, scales and sums them without rounding; products of two 64-bit
 * quantities need 128 bits. This is the one home of the 128-bit types (a GCC
 * and Clang extension on 64-bit targets) and of the largest-remainder
 * method used wherever printed or exported shares must add up to a total.
 */
#ifndef TEA_COMMON_EXACT_H
#define TEA_COMMON_EXACT_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 exact_u128;
typedef __int128 exact_i128;

/* Decimal digits of the largest exact_u128 (39) and a NUL. */
#define EXACT_U128_DIGITS_MAX 40

/* Writes `v` in decimal into `buf` (EXACT_U128_DIGITS_MAX bytes suffice;
 * a smaller buffer gets the leading digits) and returns `buf`. */
char *exact_format_u128(exact_u128 v, char *buf, size_t size);

/*
 * Rounds the fractions num[i] / den (den > 0) to integers out[i] that add up
 * to `target` by the largest-remainder method: every out[i] is the floor of
 * its fraction, and the units still missing to reach `target` go, one each,
 * to the largest remainders num[i] mod den, the earlier index first on ties.
 * When `target` is at least the sum of the floors and at most that sum plus
 * n, every out[i] is its fraction's floor or ceiling and the outputs add up
 * to `target`; a smaller target leaves the floors, a larger one gives every
 * entry one more unit at most. Returns 0 or TEA_ERR_NOMEM (message set;
 * `out` then holds the floors).
 */
int exact_round_shares(const exact_u128 *num, size_t n, exact_u128 den, exact_u128 target, uint64_t *out);

#endif
