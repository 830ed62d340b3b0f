/*
 * bbv.h: basic-block vectors per thread, the tearec tool's --bbv-out mode
 * (tea simpoint --thread).
 *
 * Valgrind's exp-bbv writes one file per thread slot, and Valgrind gives
 * a new thread the slot of one that ended: two threads' vectors then run
 * together in one file, with no mark between them. This mode writes one
 * file per thread, PREFIX.N, N its serial (creation order, 1 the main
 * thread, never reused), in exp-bbv's format: one line per interval of
 * the thread's own instructions,
 *
 *   T:ID:COUNT :ID:COUNT ...
 *
 * ID a block exit's number from 1 (a block's side exits and its end each
 * have one, kept for the block's address and exit for the whole run),
 * COUNT the instructions run through it in the interval. A rep-prefixed
 * string instruction counts once, not once per pass, as exp-bbv counts it
 * and as tearec's listed windows count their starts. A line ends the
 * interval once the thread's count reaches its end (so an interval may
 * hold a few instructions more); a thread's last, partial interval is
 * written when it ends. Nothing else runs: no stream, no recording.
 *
 * Built into the tool beside tearec.c, against Valgrind's core only.
 */
#ifndef TEAREC_BBV_H
#define TEAREC_BBV_H

#include "pub_tool_basics.h"
#include "libvex_ir.h"

/* Starts the mode: thread N's vectors go to PREFIX.N, in intervals of
 * `interval` instructions (1 or more). */
void tearec_bbv_init(const HChar *prefix, ULong interval);

/* Thread `serial` starts running client code. */
void tearec_bbv_running(UInt serial);

/* Adds to `sb` the count of the `insns` instructions run from the start of
 * the block at `block` through its exit number `exit` (0 the first side
 * exit), made when `guard` holds (NULL: always, the block's end).
 * `first_rep`, `last_rep`: the rep string instruction they start, end
 * with (0: none); a count that starts with the one the thread's last
 * count ended with (its next pass) counts it no more. */
void tearec_bbv_add_count(IRSB *sb, IRExpr *guard, Addr block, UInt exit, UInt insns, Addr first_rep,
                          Addr last_rep);

/* Thread `serial` ends: its last interval is written, its file closed. */
void tearec_bbv_thread_exit(UInt serial);

/* The program ends: every thread's last interval written. */
void tearec_bbv_fini(void);

/* In a forked child: the files are the parent's; nothing more is written. */
void tearec_bbv_forget(void);

#endif
