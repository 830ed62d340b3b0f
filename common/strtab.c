/*
 * strtab.c: a table of distinct strings (see strtab.h).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "strtab.h"
#include "error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* First sizes: slots and strings. */
#define STRTAB_SLOTS_FIRST 1024
#define STRTAB_TEXT_FIRST 512

void strtab_init(strtab *t)
{
    memset(t, 0, sizeof *t);
}

void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->text[i]);
    free(t->text);
    free(t->slots);
    strtab_init(t);
}

/* FNV-1a over the bytes. */
static uint64_t hash_text(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

/* The first slot, from string i's home on, that is empty or holds a
 * string equal to `s`. */
static size_t probe(const strtab *t, const char *s)
{
    size_t k = (size_t)hash_text(s) & (t->nslots - 1);
    while (t->slots[k] && strcmp(t->text[t->slots[k] - 1], s) != 0)
        k = (k + 1) & (t->nslots - 1);
    return k;
}

/* Twice the slots (at most half full after), every string placed again. */
static int grow_slots(strtab *t)
{
    size_t n = t->nslots ? 2 * t->nslots : STRTAB_SLOTS_FIRST;
    size_t *grown = calloc(n, sizeof *grown);
    if (!grown)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    free(t->slots);
    t->slots = grown;
    t->nslots = n;
    for (size_t i = 0; i < t->count; i++)
        t->slots[probe(t, t->text[i])] = i + 1;
    return TEA_OK;
}

long strtab_index(strtab *t, const char *s)
{
    size_t k;
    if (2 * (t->count + 1) > t->nslots && grow_slots(t))
        return -1;
    k = probe(t, s);
    if (t->slots[k])
        return (long)(t->slots[k] - 1);
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : STRTAB_TEXT_FIRST;
        char **grown = realloc(t->text, cap * sizeof *grown);
        if (!grown) {
            error_set(TEA_ERR_NOMEM, "out of memory");
            return -1;
        }
        t->text = grown;
        t->cap = cap;
    }
    if (!(t->text[t->count] = strdup(s))) {
        error_set(TEA_ERR_NOMEM, "out of memory");
        return -1;
    }
    t->slots[k] = ++t->count;
    return (long)(t->count - 1);
}
