/*
 * emit.h: the one output layer. Columns are data; one emitter writes a
 * table's rows as a text table, as CSV or as JSON, for the columns a
 * command lists (perf's sort entries and hists__fprintf do the same).
 *
 * A column names itself (the CSV header and JSON key, and a text heading),
 * says how wide it is in a text table and what follows it there, and gives
 * each row's cell through a callback: the cell's text (text tables and CSV)
 * and what JSON holds (a string, a whole number, a number, null, or nothing
 * at all). The callback knows the format it writes for, so one column may
 * print fewer digits in text than in CSV. A command keeps only its column
 * list, its lines above and below the table, and (in text) the lines it
 * prints under a row, such as a cycle stack.
 *
 * Write errors stay in the stream's error flag, for the caller's outfile or
 * standard output check; the emitters return the first error a cell
 * callback returns (0 or a TEA_ERR_* code), and stop there.
 */
#ifndef TEA_COMMON_EMIT_H
#define TEA_COMMON_EMIT_H

#include "json.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The formats a table is written in. */
typedef enum emit_format { EMIT_TEXT = 0, EMIT_CSV, EMIT_JSON } emit_format;

/* What a cell is in JSON. */
typedef enum emit_json {
    EMIT_JSON_STRING = 0, /* the cell's text, as a string */
    EMIT_JSON_U64,        /* emit_cell.count */
    EMIT_JSON_DOUBLE,     /* emit_cell.number */
    EMIT_JSON_NULL,       /* null */
    EMIT_JSON_OMIT        /* no member at all (the key is left out) */
} emit_json;

/* The longest text of one cell, its terminating NUL included. */
#define EMIT_CELL_MAX 4096

/* One cell, as a column's callback fills it: text into `text` (a buffer
 * of EMIT_CELL_MAX bytes, empty to start with) and, for JSON, `json` with
 * `count` or `number`. */
typedef struct emit_cell {
    char *text;
    emit_json json; /* EMIT_JSON_STRING to start with */
    uint64_t count;
    double number;
    size_t index;   /* the column's index (emit_column.index) */
} emit_cell;

/* Fills `cell` with row `row` of the table whose context is `ctx`, as
 * written in `format` (cell->index is the column's own datum). Returns 0
 * or a TEA_ERR_* code, which ends the table there. */
typedef int (*emit_cell_fn)(void *ctx, size_t row, emit_format format, emit_cell *cell);

/* How a column's text is written in CSV. */
typedef enum emit_csv {
    EMIT_CSV_FIELD = 0, /* csv_field: quoted only when it must be */
    EMIT_CSV_DATA,      /* csv_data_field: also quoted when it starts with '#' or a blank */
    EMIT_CSV_RAW        /* as it is (numbers) */
} emit_csv;

/* One column. */
typedef struct emit_column {
    const char *key;      /* CSV header and JSON key */
    const char *heading;  /* text heading (NULL: key) */
    int width;            /* text: the cell's width, right-aligned; negative: left-aligned; 0: as it is */
    int heading_width;    /* text: the heading's width, when it differs from the cell's (0: width) */
    const char *after;    /* text: what follows the cell, and its heading (NULL: nothing) */
    emit_csv csv;
    emit_cell_fn cell;
    size_t index;         /* the column's own datum (which group, which percentile), for a callback
                             that serves several columns: emit_cell.index */
} emit_column;

/* A table: columns, and rows that the cells' callbacks find through `ctx`
 * (the callbacks may keep what they worked out in it, such as the names of
 * the row they named last). */
typedef struct emit_table {
    const emit_column *columns;
    size_t column_count;
    void *ctx;
    size_t rows;
    /* text only */
    const char *heading_prefix; /* before the headings (NULL: nothing) */
    const char *row_prefix;     /* before each row (NULL: nothing) */
    /* Lines under row `row` of a text table (a cycle stack, a source
     * line), or NULL. 0 or a TEA_ERR_* code. */
    int (*after_row)(FILE *f, void *ctx, size_t row);
} emit_table;

/* The text table's heading line: heading_prefix, then each column's
 * heading in its width followed by its `after`, and a newline. */
void emit_text_heading(FILE *f, const emit_table *t);

/* Every row of a text table: row_prefix, each cell in its width followed
 * by its `after`, a newline, then after_row's lines. */
int emit_text_rows(FILE *f, const emit_table *t);

/* The CSV header line: the columns' keys, comma-separated. */
void emit_csv_header(FILE *f, const emit_table *t);

/* Every row as a CSV line. */
int emit_csv_rows(FILE *f, const emit_table *t);

/* Every row as a JSON object of the columns' keys (EMIT_JSON_OMIT cells
 * left out), in one JSON array at the writer's position. */
int emit_json_rows(json_writer *j, const emit_table *t);

/* One record's fields, for key/value outputs (a text line per field, JSON
 * members): writes `cell` at the writer's position by its json kind. */
void emit_json_cell(json_writer *j, const emit_cell *cell);

/* Formats into a cell's text, printf-style; text that does not fit is cut. */
void emit_printf(emit_cell *cell, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A cell's text set to `text` (NULL: empty), cut to fit. */
void emit_text(emit_cell *cell, const char *text);

/* Key/value text (a record's fields, one per line, as `tea info` prints
 * them): the label, its colon and blanks fill EMIT_FIELD_WIDTH characters
 * (UTF-8 characters, not bytes), so that the values start in one column. */
#define EMIT_FIELD_WIDTH 14

/* Writes "label:" padded to EMIT_FIELD_WIDTH (a label as long or longer
 * gets one blank); a NULL label writes the blanks alone, to continue the
 * value above on a line of its own. The caller writes the value and its
 * newline. */
void emit_field_label(FILE *f, const char *label);

/* One whole key/value line: emit_field_label, the value (printf-style) and
 * a newline. */
void emit_field(FILE *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The most fraction digits emit_fixed writes. */
#define EMIT_FIXED_MAX_DECIMALS 9

/* Writes `v` rounded half away from zero to `decimals` fraction digits
 * (0..EMIT_FIXED_MAX_DECIMALS, clamped), all of them written ("1.50"),
 * whatever the locale. A result that rounds to zero is "0" (or "0.00"),
 * never "-0". Non-finite values are written as 0; magnitudes of
 * 2^53 / 10^decimals and more as whole numbers. Returns buf. */
char *emit_fixed(double v, int decimals, char *buf, size_t size);

#endif
