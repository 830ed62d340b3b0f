/*
 * gzip.c: bytes written as one gzip member (see gzip.h).
 */
#include "gzip.h"
#include "error.h"

#include <stdint.h>
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

int gzip_write(FILE *f, const void *data, size_t size)
{
    unsigned char out[GZIP_CHUNK];
    z_stream z;
    int flush, zrc, rc = TEA_OK;

    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, GZIP_LEVEL, Z_DEFLATED, GZIP_WINDOW_BITS, GZIP_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
        return error_set(TEA_ERR_NOMEM, "out of memory (zlib)");
    z.next_in = (unsigned char *)(uintptr_t)data;
    do {
        /* zlib takes at most UINT_MAX bytes a call */
        size_t take = size > GZIP_CHUNK ? GZIP_CHUNK : size;
        z.avail_in = (uInt)take;
        size -= take;
        flush = size ? Z_NO_FLUSH : Z_FINISH;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            zrc = deflate(&z, flush);
            if (zrc == Z_STREAM_ERROR) {
                rc = error_set(TEA_ERR_IO, "gzip: zlib's deflate failed");
                break;
            }
            if (fwrite(out, 1, sizeof out - z.avail_out, f) != sizeof out - z.avail_out) {
                rc = error_set(TEA_ERR_IO, "cannot write the compressed output");
                break;
            }
        } while (z.avail_out == 0);
    } while (!rc && flush != Z_FINISH);
    deflateEnd(&z);
    return rc;
}
