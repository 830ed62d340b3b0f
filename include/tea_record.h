/*
 * tea_record.h: marks the region of a program that `tea record` records.
 *
 *     #include <tea_record.h>
 *     ...
 *     tea_record_start();   // recording starts here (tea record --wait-start)
 *     work();
 *     tea_record_stop();    // and ends here; the program runs on to its end
 *
 * The macros are Valgrind client requests (valgrind.h, from the Debian
 * package 'valgrind'): a few no-op instructions when the program runs
 * outside Valgrind, and understood only by tea record's tool (tearec).
 * tea_record_start() takes effect once (when tea record was given
 * --wait-start; otherwise recording runs from the start), tea_record_stop()
 * ends recording for good. Both apply to the thread tea record records.
 */
#ifndef TEA_RECORD_H
#define TEA_RECORD_H

#include <valgrind/valgrind.h>

/* The requests: Valgrind's tool request base for the letters 'T', 'R'. */
#define TEA_RECORD_REQUEST_START (VG_USERREQ_TOOL_BASE('T', 'R') + 0)
#define TEA_RECORD_REQUEST_STOP (VG_USERREQ_TOOL_BASE('T', 'R') + 1)

#define tea_record_start() VALGRIND_DO_CLIENT_REQUEST_STMT(TEA_RECORD_REQUEST_START, 0, 0, 0, 0, 0)
#define tea_record_stop() VALGRIND_DO_CLIENT_REQUEST_STMT(TEA_RECORD_REQUEST_STOP, 0, 0, 0, 0, 0)

#endif
