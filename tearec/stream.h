/*
 * stream.h: the binary record stream from the `tearec` Valgrind tool
 * (tearec/tearec.c) to `tea record` (record/session.c).
 *
 * The stream is a sequence of 64-bit words in the machine's byte order (the
 * tool and tea record run on the same machine). A record's first word holds
 * its kind in the top 4 bits (TEAREC_STREAM_KIND_SHIFT); what the other bits mean
 * depends on the kind:
 *
 *   INSN    one word:  pc (bits 0-47) | instruction bytes (bits 48-55).
 *           An executed instruction of the recorded thread in the region.
 *   WARM    like INSN, for an instruction of the warm-up before the region
 *           (--warmup): it and its accesses warm the model, untimed.
 *   LOAD    one word:  address (bits 0-47) | access bytes (bits 48-59);
 *   STORE   the same: a memory access of the latest INSN (in program order).
 *   CODE    three words: pc | length (bits 48-55), then the instruction's
 *           bytes (TEAREC_STREAM_CODE_BYTES, zero-padded). Sent when Valgrind
 *           translates the instruction, before it first runs.
 *   OBJECT  TEAREC_STREAM_OBJECT_WORDS words and the path: start | kind, end
 *           (exclusive), the file offset mapped at start, the path's length
 *           in bytes, then the path, zero-padded to whole words. An
 *           executable file mapping from which code was first translated.
 *   EXE     the path of the program the process runs: its length (bits
 *           0-47), then the path, zero-padded to whole words. First.
 *   WINDOW  one word: a sampled recording (--sample-every, or listed
 *           windows) starts its next
 *           window: its number (bits 0-47, 1 for the second window). It
 *           follows the last access of the previous window's last
 *           instruction and comes before the new window's WARM records.
 *   COUNT   one word: listed windows (--sample-starts) at the program's
 *           end: the recorded thread's instructions from the region's
 *           start to that end (bits 0-59). Just before the STOP.
 *   LINES   what the tool kept warm through the fast-forward (--warm-caches):
 *           what (bits 48-59) | a count (bits 0-47, 1 to
 *           TEAREC_STREAM_LINES_MAX), then that many addresses. What is
 *           TEAREC_STREAM_LINES_L1D or _LLC: the lines of one set of that
 *           cache (each line's first byte), least recently used first; or
 *           TEAREC_STREAM_LINES_PAGES: data pages the recorded thread
 *           touched since the last LINES records (an address in each); or
 *           TEAREC_STREAM_LINES_BRANCHES (--branch-warmup): control
 *           transfers of the fast-forward, oldest first, as pairs (an even
 *           count): the address of an instruction that may be a branch,
 *           then the address that ran after it; sent during the
 *           fast-forward, batch by batch, each after the WINDOW record of
 *           the window before.
 *           Sent when a fast-forward ends, after the WINDOW record and
 *           before the first WARM record: the last branches, then every set
 *           of the L1 D that holds a line, then the LLC's, then the new
 *           pages.
 *   THREAD  two words: the thread (Valgrind's number, bits 0-31), then
 *           the guest instructions it ran from the program's start (each
 *           pass of a rep-prefixed string instruction counts), counted
 *           by whole blocks, so up to a block past where recording
 *           stopped. One for each thread that ran, in increasing order of
 *           the number, right before the STOP; a number a later thread
 *           reused counts both. Streams before it have none.
 *   SWITCH  one word: the thread (Valgrind's number, bits 0-31) whose INSN,
 *           WARM, LOAD and STORE records follow, up to the next SWITCH.
 *           Only with several threads recorded (--threads), before the
 *           first record of a thread other than the one before; the
 *           records before the first SWITCH are thread 1's.
 *   STACK   with --call-paths, before the INSN of each sampled window's
 *           first instruction: a count (bits 0-47, at most
 *           TEAREC_STREAM_STACK_MAX), then that many return addresses of
 *           the frames that instruction runs in, innermost first (the
 *           address after each caller's call instruction), as Valgrind
 *           unwinds the stack; count 0 when it could not.
 *   STOP    one word: recording ended: a STREAM_STOP_* reason (bits 0-7)
 *           | the number of threads the program had started (bits 8-39);
 *           nothing follows but the program's own end.
 *
 * This header holds macros only, so that both the tool (built without the
 * C library) and tea record include it.
 */
#ifndef TEA_TEAREC_STREAM_H
#define TEA_TEAREC_STREAM_H

#define TEAREC_STREAM_KIND_SHIFT 60
#define TEAREC_STREAM_ADDR_BITS 48
#define TEAREC_STREAM_ADDR_MASK ((1ull << TEAREC_STREAM_ADDR_BITS) - 1)
#define TEAREC_STREAM_SIZE_SHIFT TEAREC_STREAM_ADDR_BITS
#define TEAREC_STREAM_SIZE_MASK 0xfffull /* access sizes up to 4095 bytes */

#define TEAREC_STREAM_INSN 1ull
#define TEAREC_STREAM_LOAD 2ull
#define TEAREC_STREAM_STORE 3ull
#define TEAREC_STREAM_CODE 4ull
#define TEAREC_STREAM_OBJECT 5ull
#define TEAREC_STREAM_STOP 6ull
#define TEAREC_STREAM_EXE 7ull
#define TEAREC_STREAM_WARM 8ull
#define TEAREC_STREAM_WINDOW 9ull
#define TEAREC_STREAM_COUNT 10ull
#define TEAREC_STREAM_LINES 11ull
#define TEAREC_STREAM_THREAD 12ull
#define TEAREC_STREAM_SWITCH 13ull
#define TEAREC_STREAM_STACK 14ull
#define TEAREC_STREAM_STACK_MAX 256 /* frames a STACK record holds (TRACE_CONTEXT_MAX_DEPTH) */
#define TEAREC_STREAM_LINES_L1D 0ull
#define TEAREC_STREAM_LINES_LLC 1ull
#define TEAREC_STREAM_LINES_PAGES 2ull
#define TEAREC_STREAM_LINES_BRANCHES 3ull
#define TEAREC_STREAM_LINES_MAX 64 /* the most ways a modelled cache has */
#define TEAREC_STREAM_COUNT_MASK ((1ull << TEAREC_STREAM_KIND_SHIFT) - 1)
#define TEAREC_STREAM_THREAD_MASK 0xffffffffull /* a THREAD record's thread number */
#define TEAREC_STREAM_THREAD_WORDS 2

#define TEAREC_STREAM_CODE_BYTES 16 /* x86-64 instructions are at most 15 bytes */
#define TEAREC_STREAM_CODE_WORDS 3
#define TEAREC_STREAM_OBJECT_WORDS 4
#define TEAREC_STREAM_PATH_MAX 4096

#define TEAREC_STREAM_STOP_REASON_MASK 0xffull
#define TEAREC_STREAM_STOP_THREADS_SHIFT 8
#define TEAREC_STREAM_STOP_THREADS_MASK 0xffffffffull

/* STOP reasons */
#define TEAREC_STREAM_STOP_MAX 1     /* --max-instructions reached */
#define TEAREC_STREAM_STOP_SYMBOL 2  /* the --stop-at function was entered */
#define TEAREC_STREAM_STOP_REQUEST 3 /* tea_record_stop() */
#define TEAREC_STREAM_STOP_EXIT 4    /* the program ended */

/* Client requests (include/tea_record.h): Valgrind's tool base for 'T','R'. */
#define TEAREC_STREAM_REQUEST_BASE(a, b) ((((unsigned)(a)) & 0xff) << 24 | (((unsigned)(b)) & 0xff) << 16)
#define TEAREC_STREAM_REQUEST_START (TEAREC_STREAM_REQUEST_BASE('T', 'R') + 0)
#define TEAREC_STREAM_REQUEST_STOP (TEAREC_STREAM_REQUEST_BASE('T', 'R') + 1)

#endif
