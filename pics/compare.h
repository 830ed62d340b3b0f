/*
 * compare.h (pics): grouping a PICS's cells and pairing two PICS, the one
 * home of both. The error metric (error.h) and the views the commands print
 * (view/) are built on them.
 *
 * Grouping sums cells under a key: the instruction (the PC), or, with a
 * symbol map, the range holding the PC (1 + its index; 0 for PCs outside
 * every range), optionally with the PSVs merged (one component, PSV 0).
 *
 * Pairing joins two grouped PICS A and B cell by cell: every (key, PSV)
 * present in either, with both raw values and their exact difference over a
 * common denominator. With totals Ta and Tb:
 *
 *     diff = |a * Tb - b * Ta|,   denominator = 2 Ta Tb
 *
 * so that diff / denominator is |a/Ta - b/Tb| / 2 and the diffs sum to the
 * error of error.h (A sampled, B golden: |s C - g S| / 2CS). When one PICS
 * is empty it matches nothing: diff = a + b and the denominator is the
 * other's total (1 when both are empty).
 */
#ifndef TEA_PICS_COMPARE_H
#define TEA_PICS_COMPARE_H

#include "common/exact.h"
#include "pics.h"
#include "trace/symmap.h"

#include <stddef.h>
#include <stdint.h>

/* Sums the cells of `src` into `dst` (initialised here; free it with
 * pics_free) by key: the PC, or with `ranges` 1 + the index of the range
 * holding the PC (0 outside every range); with `merge_psv` every cell goes
 * to PSV 0. Values and counts are summed. Returns 0 or TEA_ERR_NOMEM. */
int pics_group(const pics *src, const trace_symmap *ranges, int merge_psv, pics *dst);

/* One (key, PSV) of two paired PICS. */
typedef struct pics_pair {
    uint64_t key;
    uint64_t a, b;        /* the raw values in A and B (0 where absent) */
    uint64_t count_a;     /* A's cell count (pics.h: golden, µops committed; sampled, samples; 0 where absent) */
    exact_u128 diff;      /* |a Tb - b Ta| (see the top of this file) */
    uint16_t psv;
} pics_pair;

/* Two PICS paired. */
typedef struct pics_pairing {
    pics_pair *pairs;         /* every (key, PSV) of either, sorted by key, then PSV */
    size_t count;
    exact_u128 total;         /* the sum of every pair's diff */
    long double denominator;  /* of every diff (see the top of this file) */
    uint64_t total_a, total_b;
} pics_pairing;

/* Pairs `a` and `b` (grouped or not). Returns 0 or TEA_ERR_NOMEM. */
int pics_pair_up(const pics *a, const pics *b, pics_pairing *out);

/* A diff (or a sum of them) as a share of the denominator. */
double pics_pairing_share(const pics_pairing *p, exact_u128 diff);

/* Frees the pairs. Safe on a zeroed pairing. */
void pics_pairing_free(pics_pairing *p);

#endif
