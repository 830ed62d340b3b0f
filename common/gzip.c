/*
 * gzip.c: bytes written as one gzip member (see gzip.h).
 */
#include "gzip.h"
#include "error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* zlib's window bits, plus 16 for a gzip header and trailer. */
#define GZIP_WINDOW_BITS (MAX_WBITS + 16)
/* zlib's default memory level. */
#define GZIP_MEM_LEVEL 8
/* Fast compression, as Go's runtime/pprof writes its profiles: on a
 * pprof export of 18 million cells (cc1 with calling contexts) level 9
 * took 40 of 68 s. */
#define GZIP_LEVEL Z_BEST_SPEED
/* Bytes compressed per write. */
#define GZIP_CHUNK 65536

struct gzip_stream {
    FILE *f;
    z_stream z;
    unsigned char out[GZIP_CHUNK];
};

int gzip_open(gzip_stream **out, FILE *f)
{
    gzip_stream *g = calloc(1, sizeof *g);
    *out = NULL;
    if (!g)
        return error_set(TEA_ERR_NOMEM, "out of memory (gzip)");
    if (deflateInit2(&g->z, GZIP_LEVEL, Z_DEFLATED, GZIP_WINDOW_BITS, GZIP_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return error_set(TEA_ERR_NOMEM, "out of memory (zlib)");
    }
    g->f = f;
    *out = g;
    return TEA_OK;
}

/* Compresses `size` bytes at `data` (none with Z_FINISH: the end) and
 * writes what zlib gives. */
static int deflate_some(gzip_stream *g, const void *data, size_t size, int flush)
{
    g->z.next_in = (unsigned char *)(uintptr_t)data;
    do {
        /* zlib takes at most UINT_MAX bytes a call */
        size_t take = size > GZIP_CHUNK ? GZIP_CHUNK : size;
        int last = flush == Z_FINISH && take == size;
        g->z.avail_in = (uInt)take;
        size -= take;
        do {
            g->z.next_out = g->out;
            g->z.avail_out = sizeof g->out;
            if (deflate(&g->z, last ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR)
                return error_set(TEA_ERR_IO, "gzip: zlib's deflate failed");
            size_t n = sizeof g->out - g->z.avail_out;
            if (fwrite(g->out, 1, n, g->f) != n)
                return error_set(TEA_ERR_IO, "cannot write the compressed output");
        } while (g->z.avail_out == 0 || (last && g->z.avail_in));
    } while (size);
    return TEA_OK;
}

int gzip_put(gzip_stream *g, const void *data, size_t size)
{
    return size ? deflate_some(g, data, size, Z_NO_FLUSH) : TEA_OK;
}

int gzip_close(gzip_stream *g, int finish)
{
    int rc = finish ? deflate_some(g, "", 0, Z_FINISH) : TEA_OK;
    deflateEnd(&g->z);
    free(g);
    return rc;
}

int gzip_write(FILE *f, const void *data, size_t size)
{
    gzip_stream *g;
    int rc = gzip_open(&g, f);
    if (rc)
        return rc;
    rc = gzip_put(g, data, size);
    int end = gzip_close(g, rc == TEA_OK);
    return rc ? rc : end;
}
