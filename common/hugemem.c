/*
 * hugemem.c: zeroed tables in transparent huge pages (see hugemem.h).
 */
#define _DEFAULT_SOURCE /* madvise */
#include "hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *hugemem_calloc(size_t n, size_t size)
{
    size_t bytes;
    void *t;
    if (size && n > SIZE_MAX / size)
        return NULL;
    bytes = n * size;
    if (bytes < HUGEMEM_MIN_BYTES)
        return calloc(n, size);
    /* aligned_alloc wants a multiple of the alignment */
    bytes = (bytes + HUGEMEM_MIN_BYTES - 1) / HUGEMEM_MIN_BYTES * HUGEMEM_MIN_BYTES;
    if (!(t = aligned_alloc(HUGEMEM_MIN_BYTES, bytes)))
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(t, bytes, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#endif
    memset(t, 0, bytes);
    return t;
}
