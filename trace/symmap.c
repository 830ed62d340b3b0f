/*
 * symmap.c: symbol maps read from text files (see symmap.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "symmap.h"
#include "common/error.h"
#include "common/search.h"
#include "common/textline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_start(const void *a, const void *b)
{
    const trace_symmap_entry *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Parses a decimal or 0x-hex address: 1 when `s` is one, 0 when it is not. */
static int parse_address(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
    return !errno && !*end && end != s && *s != '-';
}

int trace_symmap_load(trace_symmap *m, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, alloc = 0;
    unsigned long number = 0;
    int rc = TEA_OK;

    memset(m, 0, sizeof *m);
    if (!f)
        return error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    for (;;) {
        char *fields[3], *save = NULL, *hash;
        size_t len, n = 0;
        trace_symmap_entry e;
        int got = textline_read(f, &line, &cap, TEXTLINE_MAX, &len);
        if (got == TEXTLINE_EOF)
            break;
        number++;
        if (got != TEXTLINE_OK) {
            rc = got == TEXTLINE_NOMEM ? error_set(TEA_ERR_NOMEM, "out of memory")
                 : got == TEXTLINE_IO  ? error_set(TEA_ERR_IO, "%s: read failed: %s", path, strerror(errno))
                                       : error_set(TEA_ERR_FORMAT, "%s: line %lu: %s", path, number,
                                                  got == TEXTLINE_NUL ? "a NUL byte (not a text file)"
                                                                       : "longer than " TEXTLINE_MAX_TEXT " bytes");
            break;
        }
        if ((hash = strchr(line, '#')))
            *hash = '\0';
        /* Fields of any length, separated by blanks: START END NAME (more are ignored). */
        for (char *t = strtok_r(line, " \t\r", &save); t && n < 3; t = strtok_r(NULL, " \t\r", &save))
            fields[n++] = t;
        if (n == 0)
            continue; /* blank or comment */
        if (n != 3 || !parse_address(fields[0], &e.start) || !parse_address(fields[1], &e.end) || e.end <= e.start) {
            rc = error_set(TEA_ERR_FORMAT, "%s: line %lu: expected 'START END NAME' with START < END", path, number);
            break;
        }
        if (m->count == alloc) {
            trace_symmap_entry *grown;
            alloc = alloc ? 2 * alloc : 64;
            grown = realloc(m->entries, alloc * sizeof *grown);
            if (!grown) {
                rc = error_set(TEA_ERR_NOMEM, "out of memory");
                break;
            }
            m->entries = grown;
        }
        if (!(e.name = strdup(fields[2]))) {
            rc = error_set(TEA_ERR_NOMEM, "out of memory");
            break;
        }
        m->entries[m->count++] = e;
    }
    free(line);
    fclose(f);
    if (rc == TEA_OK && m->count) {
        qsort(m->entries, m->count, sizeof *m->entries, compare_start);
        for (size_t i = 1; i < m->count; i++)
            if (m->entries[i].start < m->entries[i - 1].end)
                rc = error_set(TEA_ERR_FORMAT, "%s: ranges of %s and %s overlap", path, m->entries[i - 1].name,
                               m->entries[i].name);
    }
    if (rc)
        trace_symmap_free(m);
    return rc;
}

static int compare_entries(const void *a, const void *b)
{
    const trace_symmap_entry *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

void trace_symmap_settle(trace_symmap *m)
{
    size_t kept = 0;
    if (m->count)
        qsort(m->entries, m->count, sizeof *m->entries, compare_entries);
    for (size_t i = 0; i < m->count; i++) {
        trace_symmap_entry *e = &m->entries[i];
        if (e->end <= e->start || (kept > 0 && e->start < m->entries[kept - 1].end)) {
            free(e->name);
            continue;
        }
        m->entries[kept++] = *e;
    }
    m->count = kept;
}

/* A PC looked up in the map (search.h). */
typedef struct pc_in_map {
    const trace_symmap *m;
    uint64_t pc;
} pc_in_map;

static int range_ends_at_or_below(size_t i, const void *ctx)
{
    const pc_in_map *k = ctx;
    return k->m->entries[i].end <= k->pc;
}

size_t trace_symmap_lower_bound(const trace_symmap *m, uint64_t pc)
{
    pc_in_map k = { m, pc };
    return search_lower_bound(m->count, range_ends_at_or_below, &k);
}

long trace_symmap_find(const trace_symmap *m, uint64_t pc)
{
    size_t lo = trace_symmap_lower_bound(m, pc);
    return lo < m->count && m->entries[lo].start <= pc ? (long)lo : -1;
}

void trace_symmap_free(trace_symmap *m)
{
    for (size_t i = 0; i < m->count; i++)
        free(m->entries[i].name);
    free(m->entries);
    memset(m, 0, sizeof *m);
}
