/*
 * search.c: the sort with a context (see search.h), through glibc's qsort_r.
 */
#define _GNU_SOURCE /* qsort_r */
#include "search.h"

#include <stdlib.h>

void search_sort(void *base, size_t count, size_t size, search_compare_fn compare, void *ctx)
{
    if (count > 1)
        qsort_r(base, count, size, compare, ctx);
}
