/*
 * gzip.h: bytes written as one gzip member (RFC 1952), through zlib, for
 * pprof's profiles (pics export --format pprof). Deterministic: no file
 * name, a modification time of 0, the same bytes for the same input.
 */
#ifndef TEA_COMMON_GZIP_H
#define TEA_COMMON_GZIP_H

#include <stddef.h>
#include <stdio.h>

/* A member written piece by piece: gzip_open, gzip_put any number of
 * times, gzip_close. The same bytes out however the input is split. */
typedef struct gzip_stream gzip_stream;

/* Starts a member on `f`. 0 or TEA_ERR_NOMEM. */
int gzip_open(gzip_stream **out, FILE *f);

/* Compresses `size` more bytes, writing what is ready. 0, TEA_ERR_IO. */
int gzip_put(gzip_stream *g, const void *data, size_t size);

/* Ends the member (its trailer) when `finish`, and frees `g` in every
 * case. 0, TEA_ERR_IO. */
int gzip_close(gzip_stream *g, int finish);

/* Writes `size` bytes of `data` to `f`, compressed, as one member. 0,
 * TEA_ERR_NOMEM, TEA_ERR_IO (a write failed). */
int gzip_write(FILE *f, const void *data, size_t size);

#endif
