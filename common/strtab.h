/*
 * strtab.h: a table of distinct strings, each with its index in the order
 * first added: what pprof's string table and speedscope's frames are
 * (view/pprof.h, view/speedscope.h). Lookup by a hash of the text.
 */
#ifndef TEA_COMMON_STRTAB_H
#define TEA_COMMON_STRTAB_H

#include <stddef.h>

typedef struct strtab {
    char **text;    /* by index: each string once (copies) */
    size_t count, cap;
    size_t *slots;  /* index + 1 by hash (0: empty), a power of two of them */
    size_t nslots;
} strtab;

/* An empty table. */
void strtab_init(strtab *t);
void strtab_free(strtab *t);

/* The index of `s`, added (copied) when new; -1 when out of memory
 * (TEA_ERR_NOMEM's message set). */
long strtab_index(strtab *t, const char *s);

#endif
