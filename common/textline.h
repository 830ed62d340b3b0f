/*
 * textline.h: reading text files line by line with a bound on the length,
 * so that a file without newlines (/dev/zero, a binary file given by
 * mistake) ends in an error instead of growing memory until the process is
 * killed. The one line reader of the text formats (PICS files, results
 * CSVs).
 */
#ifndef TEA_COMMON_TEXTLINE_H
#define TEA_COMMON_TEXTLINE_H

#include <stddef.h>
#include <stdio.h>

/* Longest line the text readers accept (bytes, without the newline), and
 * the same as text for messages. */
#define TEXTLINE_MAX 65536
#define TEXTLINE_MAX_TEXT "65536"

/* Outcome of textline_read besides a line. */
enum {
    TEXTLINE_EOF = 0,        /* no more lines */
    TEXTLINE_OK = 1,         /* a line in *buf (NUL-terminated, newline removed), its length in *len */
    TEXTLINE_TOO_LONG = -1,  /* longer than `max` */
    TEXTLINE_NUL = -2,       /* holds a NUL byte: not a text file */
    TEXTLINE_IO = -3,        /* a read error (errno says which) */
    TEXTLINE_NOMEM = -4
};

/* Reads the next line of `f` into *buf (grown as needed, at most max + 1
 * bytes; free it when done). A last line without a newline counts. */
int textline_read(FILE *f, char **buf, size_t *cap, size_t max, size_t *len);

#endif
