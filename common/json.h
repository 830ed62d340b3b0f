/*
 * json.h: a minimal streaming JSON writer.
 *
 * Keeps track of nesting and commas so callers only say what to write:
 *   json_begin_object(&j); json_key(&j, "cycles"); json_u64(&j, 50); json_end(&j);
 * Output goes to a FILE*; strings are escaped per RFC 8259. Two-space
 * indentation, one member per line; an inline array (of scalars: numbers,
 * strings) on one line, "[1,2,3]", for long lists of numbers.
 */
#ifndef TEA_COMMON_JSON_H
#define TEA_COMMON_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    FILE *out;
    int depth;
    int count[JSON_MAX_DEPTH];   /* members written at each level */
    int is_array[JSON_MAX_DEPTH];
    int is_inline[JSON_MAX_DEPTH]; /* an inline array: items on one line */
    int after_key;               /* a key was written, its value comes next */
} json_writer;

void json_init(json_writer *j, FILE *out);
void json_begin_object(json_writer *j);
void json_begin_array(json_writer *j);
/* An array of scalars written on one line (no containers in it). */
void json_begin_inline_array(json_writer *j);
void json_end(json_writer *j);             /* closes the innermost object or array */
void json_key(json_writer *j, const char *key);
void json_string(json_writer *j, const char *s); /* NULL writes null */
void json_u64(json_writer *j, uint64_t v);
void json_i64(json_writer *j, int64_t v);
/* Writes a finite double with up to 17 significant digits; NaN and
 * infinities become null. */
void json_double(json_writer *j, double v);
void json_bool(json_writer *j, int v);
void json_null(json_writer *j);
/* Ends the document with a newline. */
void json_finish(json_writer *j);

#endif
