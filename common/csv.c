/*
 * csv.c: CSV field quoting (see csv.h).
 */
#include "csv.h"

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
