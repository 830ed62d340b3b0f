/*
 * textline.c: bounded line reading (see textline.h).
 */
#define _POSIX_C_SOURCE 200809L /* getc_unlocked */
#include "textline.h"

#include <assert.h>
#include <stdlib.h>

/* First buffer size; doubled up to max + 1. */
#define TEXTLINE_FIRST 256

int textline_read(FILE *f, char **buf, size_t *cap, size_t max, size_t *len)
{
    size_t n = 0;
    int c, nul = 0;

    /* a character at a time, without taking the stream's lock for each
     * (18 million PICS lines: 5 s of 11 with getc) */
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (n == max)
            return TEXTLINE_TOO_LONG;
        if (n + 1 >= *cap) {
            size_t want = *cap ? 2 * *cap : TEXTLINE_FIRST;
            char *grown;
            if (want > max + 1)
                want = max + 1;
            if (!(grown = realloc(*buf, want)))
                return TEXTLINE_NOMEM;
            *buf = grown;
            *cap = want;
        }
        nul |= c == '\0';
        (*buf)[n++] = (char)c;
    }
    if (c == EOF && ferror(f))
        return TEXTLINE_IO;
    if (c == EOF && n == 0)
        return TEXTLINE_EOF;
    if (n + 1 > *cap) { /* an empty line into an empty buffer */
        char *grown = realloc(*buf, TEXTLINE_FIRST);
        if (!grown)
            return TEXTLINE_NOMEM;
        *buf = grown;
        *cap = TEXTLINE_FIRST;
    }
    assert(n <= max && n < *cap); /* the line and its NUL fit the buffer */
    (*buf)[n] = '\0';
    *len = n;
    return nul ? TEXTLINE_NUL : TEXTLINE_OK;
}
