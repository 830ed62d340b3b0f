/*
 * hugemem.h: zeroed tables big enough to want transparent huge pages.
 *
 * A hash table of many megabytes probed at random (a PICS of millions of
 * cells, tea record's table of decoded instructions) misses the TLB on
 * nearly every probe with 4 KiB pages, and each page faults alone. A table
 * of HUGEMEM_MIN_BYTES or more is aligned to that size and advised
 * MADV_HUGEPAGE: where the kernel grants transparent huge pages on advice
 * (Debian's default, "madvise"), it gets 2 MiB pages; elsewhere nothing
 * changes. Smaller tables come from calloc. Either way free() frees it.
 */
#ifndef TEA_COMMON_HUGEMEM_H
#define TEA_COMMON_HUGEMEM_H

#include <stddef.h>

/* Bytes from which a table asks for huge pages, and their alignment. */
#define HUGEMEM_MIN_BYTES ((size_t)2 << 20)

/* A zeroed array of `n` elements of `size` bytes (NULL when out of memory
 * or when n x size overflows). */
void *hugemem_calloc(size_t n, size_t size);

#endif
