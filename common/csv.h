/*
 * csv.h: CSV fields (RFC 4180 quoting), written and split.
 *
 * The one place that decides how a text field appears in the project's CSV
 * outputs: as it is, unless it holds a comma, a double quote or a line end
 * (CR or LF), in which case it is written between double quotes with every
 * double quote doubled. Write errors stay in the stream's error flag for the
 * caller to check (outfile_commit reports them). The one place that splits
 * a line of such a file back into its fields.
 */
#ifndef TEA_COMMON_CSV_H
#define TEA_COMMON_CSV_H

#include <stddef.h>
#include <stdio.h>

/* Nonzero when `text` must be quoted to stay one CSV field. */
int csv_needs_quotes(const char *text);

/* Writes `text` as one CSV field (no separator), quoted only when
 * csv_needs_quotes says so. */
void csv_field(FILE *f, const char *text);

/* Writes `text` between double quotes with every double quote doubled, for
 * fields that must be quoted for other reasons (e.g. a leading '#'). */
void csv_quoted(FILE *f, const char *text);

/* Writes `text` as one field of a data file whose readers also take
 * comment lines ('#') and trim nothing: quoted as csv_field quotes it, and
 * also when it starts with '#' or a blank. */
void csv_data_field(FILE *f, const char *text);

/* The fields of one line: pointers into a buffer the struct owns, valid
 * until the next csv_split or csv_fields_free. Start from all zeros. */
typedef struct csv_fields {
    char **items;
    size_t count, capacity;
    char *text;              /* the unquoted fields, NUL-separated */
    size_t text_capacity;
} csv_fields;

/* Splits `line` (`length` bytes, without its line end) into fields,
 * unquoting quoted ones. Returns 0, TEA_ERR_NOMEM, or CSV_MALFORMED for a
 * malformed quote (no closing quote, text after it, a quote inside an
 * unquoted field): the caller names the line. */
int csv_split(csv_fields *f, const char *line, size_t length);

/* csv_split's result for a malformed quote (positive: no error code). */
#define CSV_MALFORMED 1

void csv_fields_free(csv_fields *f);

#endif
