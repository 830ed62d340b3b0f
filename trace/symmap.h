/*
 * symmap.h: address ranges with names, for function-level aggregation.
 *
 * A symbol map is a sorted list of [start, end) address ranges with names.
 * It can be read from a text file ("START END NAME" per line, addresses in
 * hex with 0x or decimal, END exclusive, '#' starts a comment); the ELF
 * symbolizer builds the same structure from a binary.
 */
#ifndef TEA_TRACE_SYMMAP_H
#define TEA_TRACE_SYMMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_symmap_entry {
    uint64_t start, end; /* [start, end) */
    char *name;
} trace_symmap_entry;

typedef struct trace_symmap {
    trace_symmap_entry *entries; /* sorted by start, non-overlapping */
    size_t count;
} trace_symmap;

/* Reads a symbol-map file. Errors (TEA_ERR_FORMAT naming file and line):
 * malformed lines, empty or overlapping ranges. TEA_ERR_IO when unreadable. */
int trace_symmap_load(trace_symmap *m, const char *path);

/* Puts entries gathered in any order into the map's form: sorted by start
 * (then end, then name), without empty ranges, and without each range that
 * overlaps one kept before it (their names are freed). For maps built from
 * symbols, where overlaps are dropped rather than refused. */
void trace_symmap_settle(trace_symmap *m);

/* The index of the first range that ends after `pc` (count when none):
 * the range holding pc, if any range does. */
size_t trace_symmap_lower_bound(const trace_symmap *m, uint64_t pc);

/* The index of the range holding `pc`, or -1. */
long trace_symmap_find(const trace_symmap *m, uint64_t pc);

void trace_symmap_free(trace_symmap *m);

#endif
