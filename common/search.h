/*
 * search.h: the one lower-bound search and the one sort with a context.
 *
 * search_lower_bound finds, in anything sorted (an array, a table of
 * ranges), the first position whose item is not below a key: the caller
 * says what "below" means for position i. search_sort sorts with a
 * comparison that receives a context, so that no comparison needs
 * file-static state.
 */
#ifndef TEA_COMMON_SEARCH_H
#define TEA_COMMON_SEARCH_H

#include <assert.h>
#include <stddef.h>

/* Whether the item at position `i` is below the key `ctx` describes. */
typedef int (*search_below_fn)(size_t i, const void *ctx);

/* The first position in [0, count) whose item is not below the key, or
 * `count` when every item is; `below` must be true for a prefix of the
 * positions and false for the rest (the items are sorted). Inline, so that
 * a constant `below` is inlined too. */
static inline size_t search_lower_bound(size_t count, search_below_fn below, const void *ctx)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (below(mid, ctx))
            lo = mid + 1;
        else
            hi = mid;
    }
    /* The items are sorted: the answer is where `below` turns false. */
    assert((lo == 0 || below(lo - 1, ctx)) && (lo == count || !below(lo, ctx)));
    return lo;
}

/* A comparison of two items with a context (negative, 0, positive). */
typedef int (*search_compare_fn)(const void *a, const void *b, void *ctx);

/* Sorts `count` items of `size` bytes at `base` by `compare` (not stable:
 * give a total order). */
void search_sort(void *base, size_t count, size_t size, search_compare_fn compare, void *ctx);

#endif
