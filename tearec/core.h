/*
 * core.h: the Valgrind core internals the tearec tool uses beyond the tool
 * interface. The tool is linked statically against this Valgrind's
 * libcoregrind, so a mismatch fails at link time, never at run time:
 *   - whether an exec is run under Valgrind (its --trace-children), cleared
 *     in a forked child whose programs are not recorded;
 *   - the options an exec'd image is started with, where the stream's
 *     descriptor number is updated;
 *   - the first descriptor of Valgrind's own (the program sees those below),
 *     and the one holding the program's file, whose path it names;
 *   - fcntl and raw system calls (connect has no tool wrapper).
 */
#ifndef TEAREC_CORE_H
#define TEAREC_CORE_H

#include "pub_tool_basics.h"
#include "pub_tool_xarray.h"

extern Bool VG_(clo_trace_children);
extern XArray *VG_(args_for_valgrind);
extern Int VG_(cl_exec_fd); /* the program's file, open (its path for /proc/self/exe) */
extern Int VG_(fd_hard_limit);
extern Int VG_(fcntl)(Int fd, Int cmd, Addr arg);
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4, RegWord a5, RegWord a6,
                              RegWord a7, RegWord a8);

#endif
