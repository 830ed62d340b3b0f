/*
 * json.c: streaming JSON writer (see json.h).
 */
#include "json.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

void json_init(json_writer *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->count[0] = 0;
    j->is_array[0] = 0;
    j->is_inline[0] = 0;
    j->after_key = 0;
}

static void indent(json_writer *j)
{
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

/* Writes the separator that precedes a value (or a key) at the current level. */
static void before_item(json_writer *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (j->count[j->depth] > 0)
            fputc(',', j->out);
        if (!j->is_inline[j->depth])
            indent(j);
        j->count[j->depth]++;
    }
}

/* before_item for a value: in an object, only after its key. */
static void before_value(json_writer *j)
{
    assert(j->depth == 0 || j->is_array[j->depth] || j->after_key); /* an object's member has a key */
    before_item(j);
}

static void begin(json_writer *j, int is_array, int is_inline)
{
    assert(j->depth + 1 < JSON_MAX_DEPTH); /* the documents written nest less deeply */
    assert(!j->is_inline[j->depth]);       /* an inline array holds scalars only */
    before_value(j);
    fputc(is_array ? '[' : '{', j->out);
    if (j->depth + 1 < JSON_MAX_DEPTH) {
        j->depth++;
        j->count[j->depth] = 0;
        j->is_array[j->depth] = is_array;
        j->is_inline[j->depth] = is_inline;
    }
}

void json_begin_object(json_writer *j)
{
    begin(j, 0, 0);
}

void json_begin_array(json_writer *j)
{
    begin(j, 1, 0);
}

void json_begin_inline_array(json_writer *j)
{
    begin(j, 1, 1);
}

void json_end(json_writer *j)
{
    int was_array = j->is_array[j->depth];
    int had_items = j->count[j->depth] > 0 && !j->is_inline[j->depth];

    assert(j->depth > 0 && !j->after_key); /* it closes an open container, and no key waits for its value */
    j->is_inline[j->depth] = 0;
    if (j->depth > 0)
        j->depth--;
    if (had_items)
        indent(j);
    fputc(was_array ? ']' : '}', j->out);
}

static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void json_key(json_writer *j, const char *key)
{
    assert(!j->after_key && (j->depth == 0 || !j->is_array[j->depth])); /* a key names an object's member */
    before_item(j);
    write_escaped(j->out, key);
    fputs(": ", j->out);
    j->after_key = 1;
}

void json_string(json_writer *j, const char *s)
{
    before_value(j);
    if (s)
        write_escaped(j->out, s);
    else
        fputs("null", j->out);
}

void json_u64(json_writer *j, uint64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRIu64, v);
}

void json_i64(json_writer *j, int64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRId64, v);
}

void json_double(json_writer *j, double v)
{
    before_value(j);
    if (isfinite(v)) {
        /* The shortest of %.15g/%.16g/%.17g that reads back exactly. */
        char buf[40];
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, sizeof buf, "%.*g", digits, v);
            if (strtod(buf, NULL) == v)
                break;
        }
        fputs(buf, j->out);
    } else {
        fputs("null", j->out);
    }
}

void json_bool(json_writer *j, int v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void json_null(json_writer *j)
{
    before_value(j);
    fputs("null", j->out);
}

void json_finish(json_writer *j)
{
    fputc('\n', j->out);
}
