/*
 * topdown.h (view): `tea topdown`'s analysis as a view: the golden
 * top-down counts (golden/topdown.h) of a trace for the whole trace and per
 * function of a map (ranges that share a name are one function, the first
 * of them), the scopes ranked by cycles, and each scope's rows: its
 * categories (commit states or top-down slots), each followed by its
 * components, with shares apportioned to exactly 100 %. The command prints
 * them (docs/topdown.md).
 */
#ifndef TEA_VIEW_TOPDOWN_H
#define TEA_VIEW_TOPDOWN_H

#include "golden/topdown.h"
#include "trace/symmap.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Names of the pseudo-functions. */
#define VIEW_TOPDOWN_WHOLE "(all)"
#define VIEW_TOPDOWN_OUTSIDE "(outside symbols)"
#define VIEW_TOPDOWN_UNATTRIBUTED "(unattributed)"

/* Reads the trace once through the analysis, per function with `map`
 * (NULL: the whole trace only); on a sampled trace file of two windows or
 * more, also by groups of windows (golden_topdown_group_windows), and on
 * one of SimPoint's regions weighted (golden_topdown_weight_windows). *out
 * is the analysis (golden_topdown_free). Errors: the reader's,
 * TEA_ERR_NOMEM, TEA_ERR_UNSUPPORTED (SimPoint's regions from a stream). */
int view_topdown_analyse(trace_reader *reader, const trace_symmap *map, golden_topdown **out);

/* 10^decimals: shares are integers in units of 10^-decimals percent. */
uint64_t view_topdown_power_of_ten(int decimals);

/* The name of category `category` of a view (a commit state or a top-down
 * category). */
const char *view_topdown_category_name(enum golden_topdown_view view, unsigned category);

/* A scope's counts of one view, per category, and their sum. */
const uint64_t *view_topdown_values(const golden_topdown_counts *c, enum golden_topdown_view view);
uint64_t view_topdown_total(const golden_topdown_counts *c, enum golden_topdown_view view);

/* Half the 95 % interval, in percent, of a whole-trace category's share of
 * its view (or of a level-2 node's share of the slots), from the spread of
 * that share over the window groups (Student's t); NaN without groups. */
double view_topdown_half_percent(const golden_topdown *td, enum golden_topdown_view view, unsigned category);
double view_topdown_level2_half_percent(const golden_topdown *td, enum golden_topdown_level2 node);

/* The name of a scope: a function of `map`, VIEW_TOPDOWN_WHOLE,
 * VIEW_TOPDOWN_OUTSIDE or VIEW_TOPDOWN_UNATTRIBUTED. */
const char *view_topdown_scope_name(const trace_symmap *map, long scope);

/* One row of a scope's view: a category, or one of its components. */
typedef struct view_topdown_row {
    const char *category;       /* the category's name */
    int is_component;
    uint16_t psv;               /* component rows: PSV or GOLDEN_TOPDOWN_NO_UOP */
    size_t others;              /* > 0: the row sums this many smaller components */
    uint64_t value;             /* cycles (in the scope's state unit) or slots */
    uint64_t share;             /* apportioned share, in units of 10^-decimals percent */
} view_topdown_row;

/* The rows of one view of one scope: each category followed by its
 * components (at most `max_components`, the rest summed in one "others"
 * row; 0 for all). Category shares are apportioned to 100 % at `decimals`,
 * each category's components to the category's share. *rows is malloc'd.
 * 0 or TEA_ERR_NOMEM. */
int view_topdown_rows(const golden_topdown *td, long scope, enum golden_topdown_view view, int decimals,
                      size_t max_components, view_topdown_row **rows, size_t *count);

/* The scopes with cycles or slots, most cycles first (then by index), and
 * every scope's share of the trace's cycles and slots at `decimals`. */
typedef struct view_topdown_ranking {
    size_t *order;              /* scopes, ranked */
    size_t order_count;
    uint64_t *scope_share;      /* [scope] share of the trace's cycles, apportioned */
    uint64_t *scope_slot_share; /* [scope] share of the trace's slots, apportioned */
} view_topdown_ranking;

/* Ranks the scopes of `td` (*r is reset first). 0 or TEA_ERR_NOMEM. */
int view_topdown_rank(view_topdown_ranking *r, const golden_topdown *td, int decimals);

void view_topdown_ranking_free(view_topdown_ranking *r);

#endif
