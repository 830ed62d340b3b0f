/*
 * emit.c: tables of columns written as text, CSV or JSON (emit.h).
 */
#include "emit.h"
#include "csv.h"
#include "error.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Doubles are exact integers below 2^53. */
#define EXACT_LIMIT 9007199254740992.0

char *emit_fixed(double v, int decimals, char *buf, size_t size)
{
    uint64_t scale = 1, scaled;
    double magnitude;
    int negative;

    if (decimals < 0)
        decimals = 0;
    if (decimals > EMIT_FIXED_MAX_DECIMALS)
        decimals = EMIT_FIXED_MAX_DECIMALS;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    if (!isfinite(v))
        v = 0;
    negative = v < 0;
    magnitude = fabs(v) * (double)scale;
    if (magnitude >= EXACT_LIMIT) {
        /* No fraction digit is meaningful at this size: a whole number
         * (%.0f never groups digits or writes a decimal point). */
        snprintf(buf, size, "%s%.0f", negative ? "-" : "", floor(fabs(v) + 0.5));
        return buf;
    }
    scaled = (uint64_t)floor(magnitude + 0.5);
    if (scaled == 0)
        negative = 0;
    if (decimals == 0)
        snprintf(buf, size, "%s%llu", negative ? "-" : "", (unsigned long long)scaled);
    else
        snprintf(buf, size, "%s%llu.%0*llu", negative ? "-" : "", (unsigned long long)(scaled / scale), decimals,
                 (unsigned long long)(scaled % scale));
    return buf;
}

void emit_printf(emit_cell *cell, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cell->text, EMIT_CELL_MAX, fmt, ap);
    va_end(ap);
}

void emit_text(emit_cell *cell, const char *text)
{
    snprintf(cell->text, EMIT_CELL_MAX, "%s", text ? text : "");
}

/* Characters in UTF-8 `s`: its bytes but continuation bytes (10xxxxxx). */
static size_t utf8_length(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

void emit_field_label(FILE *f, const char *label)
{
    size_t used = 0;
    if (label) {
        fprintf(f, "%s:", label);
        used = utf8_length(label) + 1;
    }
    do
        fputc(' ', f);
    while (++used < EMIT_FIELD_WIDTH);
}

void emit_field(FILE *f, const char *label, const char *fmt, ...)
{
    va_list ap;
    emit_field_label(f, label);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

/* Asks column `c` for row `row`'s cell, into `cell` over `buf`. */
static int fill(const emit_table *t, const emit_column *c, size_t row, emit_format format, emit_cell *cell, char *buf)
{
    assert(c->cell);
    buf[0] = '\0';
    cell->text = buf;
    cell->json = EMIT_JSON_STRING;
    cell->count = 0;
    cell->number = 0;
    cell->index = c->index;
    return c->cell(t->ctx, row, format, cell);
}

/* Writes `text` in a text column of `width` (negative: left-aligned; 0:
 * as it is), then `after`. */
static void text_cell(FILE *f, const char *text, int width, const char *after)
{
    if (width < 0)
        fprintf(f, "%-*s", -width, text);
    else if (width > 0)
        fprintf(f, "%*s", width, text);
    else
        fputs(text, f);
    if (after)
        fputs(after, f);
}

void emit_text_heading(FILE *f, const emit_table *t)
{
    if (t->heading_prefix)
        fputs(t->heading_prefix, f);
    for (size_t i = 0; i < t->column_count; i++) {
        const emit_column *c = &t->columns[i];
        text_cell(f, c->heading ? c->heading : c->key, c->heading_width ? c->heading_width : c->width, c->after);
    }
    fputc('\n', f);
}

int emit_text_rows(FILE *f, const emit_table *t)
{
    char *buf = malloc(EMIT_CELL_MAX);
    emit_cell cell;
    int rc = TEA_OK;

    if (!buf)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < t->rows && !rc; r++) {
        if (t->row_prefix)
            fputs(t->row_prefix, f);
        for (size_t i = 0; i < t->column_count && !rc; i++) {
            const emit_column *c = &t->columns[i];
            if (!(rc = fill(t, c, r, EMIT_TEXT, &cell, buf)))
                text_cell(f, buf, c->width, c->after);
        }
        if (rc)
            break;
        fputc('\n', f);
        if (t->after_row)
            rc = t->after_row(f, t->ctx, r);
    }
    free(buf);
    return rc;
}

void emit_csv_header(FILE *f, const emit_table *t)
{
    for (size_t i = 0; i < t->column_count; i++) {
        if (i)
            fputc(',', f);
        fputs(t->columns[i].key, f);
    }
    fputc('\n', f);
}

int emit_csv_rows(FILE *f, const emit_table *t)
{
    char *buf = malloc(EMIT_CELL_MAX);
    emit_cell cell;
    int rc = TEA_OK;

    if (!buf)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < t->rows && !rc; r++) {
        for (size_t i = 0; i < t->column_count && !rc; i++) {
            const emit_column *c = &t->columns[i];
            if ((rc = fill(t, c, r, EMIT_CSV, &cell, buf)))
                break;
            if (i)
                fputc(',', f);
            if (c->csv == EMIT_CSV_RAW)
                fputs(buf, f);
            else if (c->csv == EMIT_CSV_DATA)
                csv_data_field(f, buf);
            else
                csv_field(f, buf);
        }
        if (!rc)
            fputc('\n', f);
    }
    free(buf);
    return rc;
}

void emit_json_cell(json_writer *j, const emit_cell *cell)
{
    switch (cell->json) {
    case EMIT_JSON_U64:
        json_u64(j, cell->count);
        break;
    case EMIT_JSON_DOUBLE:
        json_double(j, cell->number);
        break;
    case EMIT_JSON_NULL:
        json_null(j);
        break;
    case EMIT_JSON_STRING:
        json_string(j, cell->text);
        break;
    case EMIT_JSON_OMIT:
        assert(0 && "an omitted cell has no value");
        break;
    }
}

int emit_json_rows(json_writer *j, const emit_table *t)
{
    char *buf = malloc(EMIT_CELL_MAX);
    emit_cell cell;
    int rc = TEA_OK;

    if (!buf)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    json_begin_array(j);
    for (size_t r = 0; r < t->rows && !rc; r++) {
        json_begin_object(j);
        for (size_t i = 0; i < t->column_count && !rc; i++) {
            const emit_column *c = &t->columns[i];
            if ((rc = fill(t, c, r, EMIT_JSON, &cell, buf)) || cell.json == EMIT_JSON_OMIT)
                continue;
            json_key(j, c->key);
            emit_json_cell(j, &cell);
        }
        json_end(j);
    }
    json_end(j);
    free(buf);
    return rc;
}
