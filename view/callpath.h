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
#include "common/strtab.h"
#include "pics/pics.h"
#include "trace/callpath.h"
#include "trace/symmap.h"

#include <stddef.h>
#include <stdint.h>

/* The most caller frames a cell's stack has (its context's depth). */
#define VIEW_CALLPATH_MAX_CALLERS TRACE_CONTEXT_MAX_DEPTH

/* The names of the call sites' functions, one per context (NULL for the
 * root and for a context without a known call site). Each name is kept
 * once: contexts whose call sites are in one function share the pointer
 * (the views that sort or merge stacks by name compare pointers first). */
typedef struct view_callpath_names {
    const trace_contexts *contexts;
    const char **site; /* [contexts->count], into `names` */
    strtab names;      /* the distinct names */
} view_callpath_names;

/* Names every context's call site with `z` (binary_symbolize_function;
 * NULL: "0xADDR"). 0 or TEA_ERR_NOMEM. A flat PICS's empty table gives
 * no names. */
int view_callpath_names_init(view_callpath_names *n, const trace_contexts *contexts, const binary_symbolizer *z);

void view_callpath_names_free(view_callpath_names *n);

/* One id per distinct stack of callers' names: (*canon)[ctx] is the same
 * for two contexts exactly when view_callpath_callers names the same
 * frames for both (call sites that differ in address, not in function),
 * 0 for the root and the contexts without a named caller. *canon is
 * malloc'd with a slot per context of n's table (NULL for a flat PICS's
 * empty one). The views that draw stacks by name merge the cells of one
 * id (view_report_folded_merge). 0 or TEA_ERR_NOMEM. */
int view_callpath_canonical(const view_callpath_names *n, uint32_t **canon);

/* The call sites of context `ctx`, outermost first, into sites[] (room for
 * VIEW_CALLPATH_MAX_CALLERS): their number. */
size_t view_callpath_sites(const trace_contexts *contexts, uint32_t ctx, uint64_t *sites);

/* The caller frames of context `ctx`, outermost first, into names[] (room
 * for VIEW_CALLPATH_MAX_CALLERS): their number. The names stay n's. */
size_t view_callpath_callers(const view_callpath_names *n, uint32_t ctx, const char **names);

/*
 * The call-path granularity (pics report and pics error --granularity
 * callpath): cells keyed by their stack of function names, "main;a;leaf"
 * (the callers of their context and the function of their instruction,
 * named by a function map), so that the views and the error by ranges
 * (PICS_GRAN_CALLPATH, computed as PICS_GRAN_FUNC) take them: each call
 * path is a range [K, K + 1) of a map whose name is the path. PICS keyed
 * with one table (a sampled PICS and its golden one) share their keys.
 */
typedef struct view_callpath_keys {
    strtab paths;     /* index K: the path of key K (index 0 unused) */
    strtab callers;   /* the distinct caller prefixes ("main;a;"), by index */
    uint64_t *pairs;  /* open addressing: (caller prefix index << 32 | leaf function + 1) + 1, 0 empty */
    uint32_t *pair_keys; /* the key of each pair's slot */
    size_t pair_slots, pair_count; /* slots: a power of two */
} view_callpath_keys;

void view_callpath_keys_init(view_callpath_keys *k);
void view_callpath_keys_free(view_callpath_keys *k);

/* The `n` cells (of a PICS whose contexts are `contexts`; a map's used
 * slots or pics_read_array's cells) summed into `out` (initialized here,
 * flat) by (call path key, PSV): values and counts exact. `functions`
 * names every address ("[unknown]" outside it). 0 or TEA_ERR_NOMEM. */
int view_callpath_rekey(view_callpath_keys *k, const trace_contexts *contexts, const pics_cell *cells, size_t n,
                        const trace_symmap *functions, pics *out);

/* The map of the keys: [K, K + 1) named by path K, for every key so far.
 * 0 or TEA_ERR_NOMEM. */
int view_callpath_map(const view_callpath_keys *k, trace_symmap *out);

/* One PICS to key: its contexts and its cells. */
typedef struct view_callpath_input {
    const trace_contexts *contexts;
    const pics_cell *cells;
    size_t count;
} view_callpath_input;

/* What the commands do for --granularity callpath: the `n` PICS in[] (a
 * sampled PICS and its golden one) keyed with one table into out[0..n)
 * (initialized here), and `map`, the function map on entry, replaced by
 * the map of their call paths. 0 or TEA_ERR_NOMEM (then nothing changed
 * and out[] is empty). */
int view_callpath_key_all(const view_callpath_input *in, size_t n, trace_symmap *map, pics *out);

/*
 * Functions with their callees (pics report --children, as perf report
 * --children): each function's self value (cells whose instruction is in
 * it) and its total (cells whose stack holds it anywhere: it, or a
 * function it called, ran), each cell counted once per function however
 * often recursion puts the function on its stack. Totals do not add up
 * to the PICS's total; selves do.
 */
typedef struct view_callpath_function {
    const char *name;        /* the function map's name ("[unknown]": outside it); not owned */
    uint64_t self, total;    /* raw values (pics_value_cycles turns them into cycles) */
    uint64_t self_count;     /* the self cells' counts (golden: instructions committed) */
} view_callpath_function;

/* The functions of `n` cells of a PICS with `contexts` (pics_read_array),
 * named by `functions`, in a malloc'd array of *count sorted by total,
 * then self, then name; functions without a value are left out. 0 or
 * TEA_ERR_NOMEM. */
int view_callpath_children(const trace_contexts *contexts, const pics_cell *cells, size_t n,
                           const trace_symmap *functions, view_callpath_function **rows, size_t *count);

#endif
