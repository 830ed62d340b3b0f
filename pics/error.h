/*
 * error.h (pics): how far a sampled PICS is from the golden one.
 *
 * With G(i,c) the golden cycles of instruction i in component c, P(i,c) the
 * sampled weights scaled to the golden total C:
 *
 *     error = sum_i sum_c |P(i,c) - G(i,c)| / (2C)
 *
 * computed exactly (128-bit integers) and converted to a fraction at the
 * end. Components a scheme cannot express count as error. The granularities
 * sum cells before comparing: by instruction and component (insn), by
 * instruction only (insn: TIP's profile error) and by function and
 * component (func: needs a symbol map; addresses outside every function form
 * one group, "[unknown]"). Each group's share of the sum is its contribution;
 * the contributions add up to the error.
 */
#ifndef TEA_PICS_ERROR_H
#define TEA_PICS_ERROR_H

#include "pics.h"
#include "trace/symmap.h"

#include <stddef.h>
#include <stdint.h>

typedef enum pics_granularity {
    PICS_GRAN_INSN_COMPONENT = 0,      /* instruction x component */
    PICS_GRAN_INSN = 1, /* instruction, components summed */
    PICS_GRAN_FUNC = 2,      /* function x component */
    PICS_GRAN_CALLPATH = 3   /* call path x component: the cells keyed by call path (view/callpath.h),
                                whose map `syms` names; computed as PICS_GRAN_FUNC is */
} pics_granularity;

/* True for the granularities whose rows are the ranges of a map (func,
 * callpath); the others are by instruction. */
static inline int pics_granularity_ranged(pics_granularity g)
{
    return g == PICS_GRAN_FUNC || g == PICS_GRAN_CALLPATH;
}

/* "insn-component", "insn", "func", "callpath". */
const char *pics_granularity_name(pics_granularity g);

/* Parses a granularity name; 0 or TEA_ERR_USAGE. */
int pics_granularity_parse(const char *name, pics_granularity *g);

typedef struct pics_contribution {
    uint64_t pc;          /* the instruction, or the function's start (0 for [unknown]) */
    const char *name;     /* the function (func granularity), else NULL */
    double contribution;  /* share of the golden total, summing to the error */
} pics_contribution;

typedef struct pics_error_result {
    double error;                /* 0 (identical) .. 1 */
    pics_contribution *items;    /* every group with a non-zero contribution, largest first */
    size_t count;
} pics_error_result;

/* Whether an error can be computed against `golden` at granularity `g`:
 * 0, or TEA_ERR_USAGE (an empty golden PICS, func without symbols) with
 * the message every command gives. */
int pics_error_check(const pics *golden, pics_granularity g, const trace_symmap *syms);

/* Compares `sampled` with `golden`. `syms` is required for PICS_GRAN_FUNC
 * and PICS_GRAN_CALLPATH.
 * A sampled PICS without any sample has error 1 (nothing matches).
 * Errors: TEA_ERR_USAGE (empty golden PICS, func without symbols),
 * TEA_ERR_NOMEM. */
int pics_error_compute(const pics *sampled, const pics *golden, pics_granularity g, const trace_symmap *syms,
                       pics_error_result *out);

/*
 * The half-width of the 95 % interval of the error of a sampled PICS
 * against the golden one when both are split into the same `count` (>= 2)
 * window groups of a sampled recording (tea_replay_group_windows; the
 * groups sum to the whole PICS): the delete-one-group jackknife. With e_k
 * the error of both PICS without group k and ē their mean, the error's
 * standard error is sqrt((count - 1) / count · Σ_k (e_k - ē)²), and the
 * half-width is t(0.975, count - 1) times it. It covers what moves the
 * error from one choice of windows to another: the windows themselves and
 * the samples taken in them. Errors: as pics_error_compute (a golden PICS
 * left empty without a group is TEA_ERR_USAGE).
 */
int pics_error_jackknife(const pics *sampled_groups, const pics *golden_groups, unsigned count, pics_granularity g,
                         const trace_symmap *syms, double *half);

/* The same interval against a golden PICS that is not split by the sampled
 * PICS's windows (another trace's, whole: pics error --across-traces):
 * e_k is the error of the sampled PICS without group k against all of
 * `golden`. It covers the choice of windows and the samples in them, not
 * the golden trace's own noise (it has none: it is exact). */
int pics_error_jackknife_whole(const pics *sampled_groups, unsigned count, const pics *golden, pics_granularity g,
                               const trace_symmap *syms, double *half);

void pics_error_result_free(pics_error_result *r);

#endif
