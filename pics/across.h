/*
 * across.h: PICS of different traces of one program (the same program
 * recorded whole and sampled, under SimPoint, on another core
 * configuration), made comparable: one PICS's PCs moved into the other
 * trace's address space through the executable objects both traces list
 * (pics error --across-traces).
 *
 * A PC moves by its object: the object of the first trace whose run-time
 * range holds it, and the object of the second trace with the same ELF
 * build-id (by path when either has none); the PC keeps its offset from
 * the object's load bias. Traces that list no objects move by the
 * programs' load biases when both know theirs, and keep their PCs
 * otherwise. A PC with no counterpart (outside every object, an object
 * the other trace lacks, or a moved PC outside the counterpart's range)
 * keeps its cell, at the PC with PICS_ACROSS_UNMATCHED set, an address no
 * instruction has: its cycles then count fully against the error, and the
 * caller can say how many there were.
 */
#ifndef TEA_PICS_ACROSS_H
#define TEA_PICS_ACROSS_H

#include "pics.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <stdint.h>

/* Set in the PC of a cell that has no counterpart (bit 63: above every
 * user-space and kernel address an instruction of a trace has). */
#define PICS_ACROSS_UNMATCHED (UINT64_C(1) << 63)

/* One trace's side: the program and its objects (a pics_info's). */
typedef struct pics_across_side {
    const trace_program *program;
    const trace_object_list *objects;
} pics_across_side;

/* What moving found, in distinct PCs and in values (PICS_UNIT fixed
 * point, the cells' value sums). */
typedef struct pics_across_stats {
    uint64_t pcs, unmatched_pcs;
    uint64_t value, unmatched_value;
} pics_across_stats;

/* The unmatched values' share of all the values moved, 0..1 (0 for an
 * empty PICS). */
double pics_across_unmatched_share(const pics_across_stats *st);

/* Moves every cell of `in`, whose trace is `from`, into the address space
 * of `to`, into `out` (initialised here; values and counts kept, cells of
 * PCs that move onto one PC added). `st` says how many PCs had no
 * counterpart. 0 or TEA_ERR_NOMEM (`out` is then empty). */
int pics_across_move(const pics *in, const pics_across_side *from, const pics_across_side *to, pics *out,
                     pics_across_stats *st);

/* pics_across_move in place: `p` is replaced by its moved cells (and left
 * as it was after an error). `st` may be NULL. */
int pics_across_move_in_place(pics *p, const pics_across_side *from, const pics_across_side *to,
                              pics_across_stats *st);

#endif
