/*
 * callpath.h: calling contexts as stacks of functions (docs/semantics.md,
 * "Calling contexts"), for the views that draw stacks: `pics report
 * --format folded`, `pics flamegraph`, `pics export --format pprof` and
 * `--format speedscope`.
 *
 * A cell's stack, root first, is the function of each call site on its
 * context's path (a bottom frame's unknown caller left out), then the
 * function of the cell's instruction: main → a → leaf for leaf's
 * instructions in the context main calls a, a calls leaf.
 */
#ifndef TEA_VIEW_CALLPATH_H
#define TEA_VIEW_CALLPATH_H

#include "binary/symbolize.h"
#include "trace/callpath.h"

#include <stddef.h>
#include <stdint.h>

/* The most caller frames a cell's stack has (its context's depth). */
#define VIEW_CALLPATH_MAX_CALLERS TRACE_CONTEXT_MAX_DEPTH

/* The names of the call sites' functions, one per context (NULL for the
 * root and for a context without a known call site). */
typedef struct view_callpath_names {
    const trace_contexts *contexts;
    char **site;       /* [contexts->count] */
} view_callpath_names;

/* Names every context's call site with `z` (binary_symbolize_function;
 * NULL: "0xADDR"). 0 or TEA_ERR_NOMEM. A flat PICS's empty table gives
 * no names. */
int view_callpath_names_init(view_callpath_names *n, const trace_contexts *contexts, const binary_symbolizer *z);

void view_callpath_names_free(view_callpath_names *n);

/* The call sites of context `ctx`, outermost first, into sites[] (room for
 * VIEW_CALLPATH_MAX_CALLERS): their number. */
size_t view_callpath_sites(const trace_contexts *contexts, uint32_t ctx, uint64_t *sites);

/* The caller frames of context `ctx`, outermost first, into names[] (room
 * for VIEW_CALLPATH_MAX_CALLERS): their number. The names stay n's. */
size_t view_callpath_callers(const view_callpath_names *n, uint32_t ctx, const char **names);

#endif
