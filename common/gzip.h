/*
 * gzip.h: bytes written as one gzip member (RFC 1952), through zlib, for
 * pprof's profiles (pics export --format pprof). Deterministic: no file
 * name, a modification time of 0, the same bytes for the same input.
 */
#ifndef TEA_COMMON_GZIP_H
#define TEA_COMMON_GZIP_H

#include <stddef.h>
#include <stdio.h>

/* Writes `size` bytes of `data` to `f`, compressed. 0, TEA_ERR_NOMEM,
 * TEA_ERR_IO (a write failed). */
int gzip_write(FILE *f, const void *data, size_t size);

#endif
