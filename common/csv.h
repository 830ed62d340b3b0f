/*
 * csv.h: writing CSV fields (RFC 4180 quoting).
 *
 * The one place that decides how a text field appears in the project's CSV
 * outputs: as it is, unless it holds a comma, a double quote or a line end
 * (CR or LF), in which case it is written between double quotes with every
 * double quote doubled. Write errors stay in the stream's error flag for the
 * caller to check (outfile_commit reports them).
 */
#ifndef TEA_COMMON_CSV_H
#define TEA_COMMON_CSV_H

#include <stdio.h>

/* Nonzero when `text` must be quoted to stay one CSV field. */
int csv_needs_quotes(const char *text);

/* Writes `text` as one CSV field (no separator), quoted only when
 * csv_needs_quotes says so. */
void csv_field(FILE *f, const char *text);

/* Writes `text` between double quotes with every double quote doubled, for
 * fields that must be quoted for other reasons (e.g. a leading '#'). */
void csv_quoted(FILE *f, const char *text);

#endif
