/*
 * csv.c: CSV fields, quoted and split (see csv.h).
 */
#include "csv.h"
#include "error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int csv_needs_quotes(const char *text)
{
    return strpbrk(text, ",\"\r\n") != NULL;
}

void csv_field(FILE *f, const char *text)
{
    if (csv_needs_quotes(text))
        csv_quoted(f, text);
    else
        fputs(text, f);
}

void csv_quoted(FILE *f, const char *text)
{
    fputc('"', f);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', f);
        fputc(*text, f);
    }
    fputc('"', f);
}

void csv_data_field(FILE *f, const char *text)
{
    if (!csv_needs_quotes(text) && text[0] != '#' && text[0] != ' ')
        fputs(text, f);
    else
        csv_quoted(f, text);
}

void csv_fields_free(csv_fields *f)
{
    free(f->items);
    free(f->text);
    memset(f, 0, sizeof *f);
}

int csv_split(csv_fields *f, const char *line, size_t length)
{
    size_t out = 0, i = 0;

    if (length + 1 > f->text_capacity) {
        char *t = realloc(f->text, length + 1);
        if (!t)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        f->text = t;
        f->text_capacity = length + 1;
    }
    f->count = 0;
    for (;;) {
        size_t start = out;
        if (f->count == f->capacity) {
            size_t cap = f->capacity ? 2 * f->capacity : 16;
            char **items = realloc(f->items, cap * sizeof *items);
            if (!items)
                return error_set(TEA_ERR_NOMEM, "out of memory");
            f->items = items;
            f->capacity = cap;
        }
        if (i < length && line[i] == '"') {
            i++;
            for (;;) {
                if (i >= length)
                    return CSV_MALFORMED; /* no closing quote */
                if (line[i] == '"') {
                    if (i + 1 < length && line[i + 1] == '"') {
                        f->text[out++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                f->text[out++] = line[i++];
            }
            if (i < length && line[i] != ',')
                return CSV_MALFORMED; /* text after the closing quote */
        } else {
            while (i < length && line[i] != ',') {
                if (line[i] == '"')
                    return CSV_MALFORMED; /* a quote inside an unquoted field */
                f->text[out++] = line[i++];
            }
        }
        f->text[out++] = '\0';
        assert(out <= i + 1 && out <= f->text_capacity); /* a field is no longer than its bytes */
        f->items[f->count++] = &f->text[start];
        if (i >= length)
            return TEA_OK;
        i++; /* the comma */
    }
}

