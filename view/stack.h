/*
 * stack.h: the cycle stacks of the top instructions over several PICS of
 * one trace, as `pics plot` draws them (the TEA paper's Figure 6): a group
 * per instruction, a bar per PICS, a segment per component.
 *
 * The instructions are the reference PICS's top `top` by cycles (then by
 * address: its view by instruction, view.h); the components are every PSV
 * that some input has a cell of at one of them, in PSV order; a value is
 * the input's cell at that instruction and component in cycles, a sampled
 * PICS scaled to the golden total (pics_value_cycles), or as a percentage
 * of the golden total (0 when that total is 0). The reference is the first
 * golden input, else the first input.
 */
#ifndef TEA_VIEW_STACK_H
#define TEA_VIEW_STACK_H

#include "pics/pics.h"
#include "pics/pics_file.h"
#include "trace/psv.h"

#include <stddef.h>
#include <stdint.h>

/* One input: a PICS and its provenance (not owned). */
typedef struct view_stack_input {
    const pics_info *info;
    const pics *pics;
} view_stack_input;

/* The stacks. */
typedef struct view_stack {
    uint64_t *pcs;                     /* [groups]: the instructions, in the chart's order */
    size_t groups;                     /* 0: the reference PICS is empty */
    size_t bars;                       /* the inputs */
    uint16_t psvs[TRACE_PSV_VALUES];   /* [segments]: the components, in PSV order */
    size_t segments;
    double *values;                    /* [(group * bars + bar) * segments + segment] */
} view_stack;

/* The index of the reference input: the first golden one, else 0. */
size_t view_stack_reference(const view_stack_input *in, size_t count);

/* Builds the stacks of `count` inputs (at least one) with `in[reference]`
 * ranking the instructions: its top `top` (at least 1), values in cycles,
 * or in percent of the golden total when `percent`. 0 or TEA_ERR_NOMEM;
 * free with view_stack_free in every case. */
int view_stack_build(view_stack *s, const view_stack_input *in, size_t count, size_t reference, uint64_t top,
                     int percent);

/* Frees the stacks; all zeros afterwards. */
void view_stack_free(view_stack *s);

#endif
