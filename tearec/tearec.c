/*
 * tearec.c: the Valgrind tool behind `tea record`.
 *
 * It runs a program on Valgrind's core and writes, for one thread and one
 * region of its execution, every executed instruction and its memory
 * accesses as compact binary records (tearec/stream.h) to a file descriptor
 * that tea record reads, in large batched writes. It also sends each
 * instruction's bytes once, when Valgrind translates it, and each executable
 * file mapping code is translated from, so that tea record decodes every
 * static instruction once and knows every object.
 *
 * The region: recording starts at the program's start, at the entry of the
 * --start-at function, or at tea_record_start() (--wait-start=yes), then
 * skips --skip instructions, sends --warmup instructions marked as warm-up
 * (WARM records: the model warms its caches and predictor with them but
 * does not time them), and ends after --max-instructions, at the entry
 * of the --stop-at function (that instruction included) or at
 * tea_record_stop(). Afterwards the program runs on to its own end; the
 * instrumentation left in it only counts nothing and returns.
 *
 * Sampling (--sample-every N --sample-length L): after the --skip, every
 * period of N instructions skips N - L - W, warms W (--warmup) and records
 * L, so that window k's timed instructions end N (k + 1) instructions in; a
 * WINDOW record separates the windows. --max-instructions counts the timed
 * instructions of all windows. Listed windows (--sample-starts=S0,S1,...
 * with --sample-length L, SimPoint's regions; no --skip): window k times
 * the L instructions from S_k on (counted from the region's start, a
 * rep-prefixed string instruction once, as exp-bbv counts), after up to W
 * warming ones (fewer when the previous window ends closer); after the
 * last window the tool counts on to the program's end and sends a COUNT
 * record before the STOP, the instructions of the whole region.
 *
 * Fast-forward. Code is translated in one of two modes. Outside the region
 * (waiting, skipping; done needs nothing) translations are *fast*: no helper
 * call, no memory access looked at; a block of n instructions takes n off a
 * counter when it starts (fast_left, the recorded thread's instructions
 * still to pass), gives back what a side exit did not run, and leaves at
 * its start when fewer than n are left. Inside, translations are *precise*:
 * on_insn before each instruction (which counts the last few skipped ones
 * one by one), on_mem for each access of a recorded one. A switch leaves
 * the block at an instruction boundary with Ijk_InvalICache over the whole
 * address space: Valgrind's scheduler drops every translation and the code
 * is translated again in the new mode (a precise block leaves when
 * fast_wanted is set; a fast one at its start as said, or after the
 * --start-at function's entry started the region). While another thread
 * runs, the counter is parked (track_start_client_code), so that --skip
 * counts the recorded thread's instructions exactly. Instructions count as
 * Valgrind executes them (each pass of a rep-prefixed one counts, in both
 * modes; with listed windows a rep string instruction counts once, see
 * reps_once); a block left by a synchronous signal (a fault the program
 * handles) counts all its instructions, so --skip is exact in programs
 * that do not fault while it runs.
 *
 * Thread counts. Every instrumented block, fast, precise or dual and run
 * by any thread, adds its instruction marks (each pass of a rep string
 * instruction one) to running_insns once it can no longer leave at its
 * start, inline (a load, an add and a store), and a side exit taken gives
 * back the marks it leaves unrun; whenever a thread starts running
 * (track_start_client_code) the count goes to the thread that ran it.
 * When recording stops, the counts go out as THREAD records, one per
 * thread that ran, before the STOP, so that tea record can say which
 * threads did the work (the recorded thread's count, recorded whole, is
 * what was recorded of it). The running thread's count includes the rest
 * of the block it stopped in; blocks translated once recording is done
 * count nothing, as nothing is sent after the STOP.
 *
 * Dual blocks. A periodic sampled recording (--sample-every) switches twice
 * per window, and each switch has Valgrind translate again all the code
 * the program runs next (for xz -6 about 10 ms a switch, three quarters of
 * its sampled recording). There every block is translated once with both
 * instrumentations: at its start it reads fast_wanted and fast_left and
 * runs fast (takes its count off; its helper calls, guarded by the choice,
 * are skipped) or precise (on_insn and on_mem, as a precise block), and
 * calls fast_ends when fewer instructions are left than it holds, as
 * translate_fast does. Nothing is ever translated again; the price is a
 * guarded call per instruction and access in fast runs (about 40 % of
 * --tool=none's speed against 90 % for fast blocks), so a single long
 * fast-forward (--skip, waiting for --start-at, listed windows) keeps the
 * two modes apart. Once recording is done a dual block leaves at its
 * start, dropping every translation, and the code is translated again
 * without instrumentation.
 *
 * Threads not recorded. Once the program starts a thread that is not
 * recorded (a sampled recording's translations are dual anyway), each
 * block is translated for the kind of thread that runs it: the recorded
 * thread's mode, or fast for another (whose count never ends, so that it
 * runs at about --tool=none's speed), and a block entered by the other
 * kind leaves at its start dropping its own translation only, not every
 * one, so that it is translated again for that kind. Code only one kind
 * runs (an xz worker's compressor; the main thread's I/O) is translated
 * once; a block that turned FLIPS_DUAL times (memcpy, the locks both
 * kinds take) is translated dual, as above, and stays. Before this,
 * every block was dual once a second thread started, and the guarded
 * calls of the precise half held a worker that was not recorded to 24-32
 * % of --tool=none's speed (bench/record, xz -T2).
 *
 * Warm caches (--warm-caches=...). The model's data caches (L1 D and
 * LLC) hold what a whole run would have left in them only if every access
 * reaches them; a bounded warm-up before each window cannot bring a large
 * LLC back, and the pages the fast-forward touched first would fault in
 * the window. With --warm-caches the tool keeps a copy of both caches'
 * tags (same geometry, true LRU, next-line prefetchers as the model has
 * them) and the set of data pages touched up to date with every data
 * access of the recorded thread, fast translations included (an inline
 * test, and a helper call for an access to a line other than the last
 * one), and sends them (LINES records) whenever a fast-forward ends, so
 * that the model starts each warm-up from the caches and pages of the
 * whole run. The copy starts empty with the region and is left alone once
 * recording is done. Dirty bits are not kept: a writeback costs the model
 * no time.
 *
 * Warm predictor (--branch-warmup=N). The branch predictor's tables and
 * history hold what the branches before a window left in them. With
 * --branch-warmup every fast run of the recorded thread within the last N
 * instructions of a fast-forward logs each control transfer it passes
 * (the branch's address and the address that ran next: a side exit taken,
 * the instruction mark after a side exit not taken, a block's end)
 * into a buffer, inline (two stores and a count); a block that
 * might overflow it sends it first (branch_drain), and a fast-forward's
 * end sends the rest (LINES records of branch pairs). tea record trains
 * its predictor with those that decode as branches while the fast-forward
 * goes on. The last skipped instructions, counted one by one, log none.
 *
 * CPUID. On a host with SSE4.2 or more, Valgrind 3.19 answers CPUID as a
 * model Intel processor whose leaf 0x80000001 advertises RDTSCP, but VEX
 * translates RDTSCP only on a host that has it. Some virtual machines
 * hide it (this project's build machines among them), and a program that
 * trusts the bit dies there with SIGILL: libhwy's TimerResolution at load
 * time, so Debian's x264. On such a host the tool clears the bit from
 * every CPUID's answer (add_statement), as a native run there would see
 * it.
 *
 * Several threads (--threads=all|LIST). Threads are numbered by creation
 * (serials, never reused); every recorded thread's records follow a
 * SWITCH record naming it, and tea record splits the stream by thread.
 * With --sample-every (or --sample-starts, a list per thread: SimPoint's
 * regions of each thread, on its own instruction count; the COUNT
 * records go out for every thread at the end) each recorded thread has a
 * recording state of its own (thread_ctx: its state, counters, fast-forward count, warm caches),
 * held in the globals while it runs and swapped when another recorded
 * thread starts running; translations are dual, so each block reads the
 * running thread's state as it starts.
 *
 * Programs and processes. tea record runs Valgrind with --trace-children=yes
 * so that an exec is followed: the new program starts a new image of this
 * tool, which goes on writing to the same stream (an EXE record first), and
 * tea record keeps the program that ran last. The stream is kept among
 * Valgrind's own descriptors, where the program cannot close or reuse it,
 * open across exec, and each exec'd image is told its number. A forked
 * child does not write to its parent's stream: with --tea-children=NAME it
 * connects a stream of its own to tea record's socket NAME (in the abstract
 * namespace: no file) and its programs are recorded there; without, its
 * execs run without Valgrind and it records nothing.
 *
 * Built without the C library against Valgrind's core (CMakeLists.txt): it
 * includes Valgrind's pub_tool_*.h headers and the stream format only.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"
#include "libvex_guest_amd64.h"

#include "bbv.h"
#include "core.h"
#include "stream.h"

/* The output buffer, in words; flushed when fewer than BUF_SLACK remain (the
 * most one instruction and its accesses, or one object record, can add). */
#define BUF_WORDS (1u << 17)
#define BUF_SLACK (TEAREC_STREAM_OBJECT_WORDS + TEAREC_STREAM_PATH_MAX / 8 + 64)
/* Executable mappings already reported, by start address. */
#define MAX_REPORTED 4096
/* This tool's file name, as Valgrind's launcher finds it. */
#define TOOL_FILE "/tearec-amd64-linux"
/* The main thread in Valgrind's numbering. */
#define MAIN_THREAD 1
/* The option that names the stream's descriptor, and room for it with a
 * number. */
#define FD_OPTION "--tea-fd="
#define FD_OPTION_MAX 32
/* Names of functions the unwind tables give (binary/symbols.h): "fn_" and
 * the entry's ELF address in hex. */
#define FDE_NAME_PREFIX "fn_"

typedef enum rec_state {
    REC_WAIT,  /* before the start condition */
    REC_SKIP,  /* started: skipping --skip instructions */
    REC_WARM,  /* then sending --warmup instructions to warm the model */
    REC_ON,    /* recording */
    REC_ENTRY, /* the --stop-at function is entered: record this instruction */
    REC_LAST,  /* ... and stop at the next one */
    REC_DONE   /* stopped */
} rec_state;

/* Options */
static Int clo_fd = -1;
static Long clo_skip = 0;
static Long clo_max = 0;
static Long clo_warmup = 0;
static const HChar *clo_start_at = NULL;
static const HChar *clo_stop_at = NULL;
static Bool clo_wait_start = False;
static Long clo_thread = MAIN_THREAD;
static const HChar *clo_threads = NULL;  /* --threads=all|N,N,...: several threads (parse_threads) */
static Long clo_sample_every = 0;        /* sampling: a window every N instructions (0: none) */
static Long clo_sample_length = 0;       /* ... of this many timed instructions */
static const HChar *clo_children = NULL; /* tea record's socket for children's streams, or NULL */
static const HChar *clo_sample_starts = NULL; /* listed windows: "S0,S1,..." */
static const HChar *clo_warm_caches = NULL;   /* the caches to keep warm (parse_warm_caches) */
static const HChar *clo_bbv_out = NULL;       /* --bbv-out=PREFIX: basic-block vectors per thread (bbv.h) */
static Long clo_bbv_interval = 0;             /* ... in intervals of N instructions */
static Bool clo_call_paths = False;           /* --call-paths: each sampled window's first instruction
                                                  sends the stack it runs on (STACK) */
static Long clo_branch_warmup = 0;            /* the branches of a fast-forward's last N instructions train
                                                 the predictor */

/* Listed windows (--sample-starts): at most this many. */
#define MAX_STARTS 4096
/* The skip after the last listed window: never ends (the tool counts on). */
#define SKIP_FOREVER (1ULL << 62)
static ULong all_starts[MAX_STARTS]; /* every thread's, by thread (parse_starts) */
static UInt all_start_count = 0;
static UInt *thread_first = NULL;    /* with --threads: [SERIALS_MAX] a thread's first in all_starts, */
static UInt *thread_starts = NULL;   /* ... and how many are its */
static Bool listed = False;          /* --sample-starts given */
static ULong *starts = all_starts;   /* the recorded thread's (with several, the running one's) */
static UInt start_count = 0;
static ULong plan_from = 0;      /* listed: the position (instructions from the region's start) the plan starts at */
static ULong plan_skip = 0;      /* ... the instructions it skips, */
static ULong plan_warm = 0;      /* ... then warms */
/* Listed windows count instructions as exp-bbv (and the hardware) do: a
 * rep-prefixed string instruction once, not once per pass. In precise
 * translations a pass is an instruction at the same address as the one
 * before (no other instruction repeats back to back); fast ones refund the
 * passes that jump back to the instruction itself. */
static Bool reps_once = False;
static Bool hide_rdtscp = False; /* the host lacks RDTSCP: CPUID must not advertise it (tearec_post_clo_init) */
static Addr last_insn_pc = 0;    /* the recorded thread's previous instruction (precise) */
/* Several threads recorded (--threads): which (by Valgrind's number; all
 * of them when every_thread), and the thread whose records the stream
 * carries now (a SWITCH record changes it; thread 1 before the first). */
static Bool several_threads = False;
static Bool every_thread = False;
static Bool *recorded_threads = NULL;   /* [SERIALS_MAX], by serial */
/* With several threads, threads are known by serial numbers: 1 the main
 * thread, then 2, 3, ... in the order they are created, never reused
 * (Valgrind gives an ended thread's number to the next one it creates).
 * serial_of maps Valgrind's number to the serial of the thread that has
 * it now; SWITCH and THREAD records, and --threads's list, use serials. */
#define SERIALS_MAX 65536
static UInt *serial_of = NULL;          /* [VG_N_THREADS] */
static UInt next_serial = MAIN_THREAD + 1;
static UInt stream_serial = MAIN_THREAD;

static ULong buf[BUF_WORDS];
static UInt buf_len = 0;
static Bool out_failed = False;

static rec_state state = REC_ON;
static ULong skip_left = 0;
static ULong warm_left = 0;
static ULong recorded = 0;
static ULong window_left = 0;       /* timed instructions left in the window (sampling) */
static ULong windows_ended = 0;     /* windows completed (sampling) */
static ULong stacks_sent = 0;       /* --call-paths: windows whose STACK went out (the last one's number + 1) */
static Bool window_pending = False; /* a WINDOW record is due before the next instruction or branch batch */
static ULong threads_started = 0;   /* Valgrind reports the main thread's creation too */
/* Every thread's instructions (see "Thread counts"): each block adds its
 * instructions to running_insns, which goes to the running thread's entry
 * of thread_insns (VG_N_THREADS entries, by Valgrind's number) whenever
 * another thread starts running, and when the THREAD records go out. */
static ULong running_insns = 0;
static ULong *thread_insns = NULL;     /* [thread_slots]: by Valgrind's number, or by serial */
static UInt thread_slots = 0;
static UInt counted_tid = MAIN_THREAD;   /* the thread (number or serial) running_insns belongs to */
static Bool cur_on = False;         /* the current instruction is recorded */
/* Instructions that pass in fast translations before a switch to precise
 * ones (see "Fast-forward"): the recorded thread's count while it runs;
 * while another thread runs, FAST_NEVER, the recorded thread's count parked
 * in fast_parked. */
#define FAST_NEVER (~0ULL)
static ULong fast_left = FAST_NEVER;
static ULong fast_parked = FAST_NEVER;
static Bool other_thread_running = False;
static Bool fast_wanted = False; /* translate fast (dual blocks: run fast); precise blocks leave */
static Bool fast_wanted_parked = False; /* the recorded thread's, while another runs (fast, in dual blocks) */
/* Translations are dual (see "Dual blocks") in a sampled recording. */
static Bool dual_blocks = False;
/* Once the program starts a thread that is not recorded (see "Threads
 * not recorded"), each block is translated for the thread that runs it
 * first, and a switch exit drops that block alone. */
static Bool thread_blocks = False;
/* The range an Ijk_InvalICache exit drops translations of: all code. */
#define ALL_CODE_START 0x1000ULL
#define ALL_CODE_LEN (~0xfffULL)
/* Threads not recorded: a block translated for one kind of thread
 * (recorded or not) and then again for the other this many times is
 * translated dual from then on. */
#define FLIPS_DUAL 2

static HChar fd_option[FD_OPTION_MAX]; /* "--tea-fd=N" for the images exec'd later */

/* --start-at/--stop-at that name a function by its ELF address
 * (FDE_NAME_PREFIX), matched in any object: */
static Bool start_by_address = False, stop_by_address = False;
static Addr start_address = 0, stop_address = 0;

static Addr reported[MAX_REPORTED];
static UInt reported_count = 0;
static Addr known_lo = 0, known_hi = 0; /* the last mapping checked */

/* --- warm caches (--warm-caches) ------------------------------------------- */

/* A tag array with true LRU: each set's lines from the most recently used
 * on, WARM_INVALID after the last (hits are mostly near the front). An L1 D
 * tag may carry WARM_UNSEEN (the line of a user-space address never has
 * bit 63): brought in by the prefetcher, or ending an access that began in
 * another page, so its page may not be in the set of pages touched; the
 * first access that begins in it notes its page and clears the bit. A line
 * present without the bit therefore has its page noted, and an access to
 * the most recently used line of its set without the bit changes nothing
 * (add_warm_mem). */
#define WARM_INVALID (~0ULL)
#define WARM_UNSEEN (1ULL << 63)
#define WARM_CACHES_FIELDS 8 /* numbers in --warm-caches */
static void flush(void);
static void put(ULong w);
static void put_window(void);
static void put_stack(ThreadId tid, Addr pc);
static void switch_to(ThreadId tid);
typedef struct warm_cache {
    ULong *tag;
    ULong set_mask; /* sets - 1 (sets a power of 2) */
    UInt ways;
    Bool prefetch; /* next-line prefetch on a demand miss */
} warm_cache;

static Bool warm_on = False; /* --warm-caches given */
static warm_cache warm_l1d, warm_llc;
static UInt warm_line_bits = 6;             /* log2 of the line size (bytes) */
static Bool image_due = False;              /* a fast-forward ended: send the caches' contents */
/* Data pages touched: a set (open addressing, page number + 1, 0 empty)
 * and those new since the last image. */
static UInt warm_page_bits = 12;            /* log2 of the page size (bytes) */
static ULong warm_last_page = WARM_INVALID;
static ULong *page_set = NULL;
static ULong page_set_cap = 0, page_set_count = 0;
static ULong *page_new = NULL;
static ULong page_new_count = 0, page_new_cap = 0;

/* Where `line` is in `set` of `c`: its way, or the first empty one, or
 * c->ways when absent from a full set. */
static UInt warm_find(const warm_cache *c, const ULong *set, ULong line)
{
    UInt w = 0;
    for (; w < c->ways; w++)
        if ((set[w] & ~WARM_UNSEEN) == line || set[w] == WARM_INVALID)
            break;
    return w;
}

/* Puts `tag` first in `set` of `c`, moving the lines before way `w` (the
 * tag's old way, an empty one, or c->ways: the LRU line goes) one back. */
static void warm_to_front(const warm_cache *c, ULong *set, UInt w, ULong tag)
{
    if (w == c->ways)
        w--;
    for (; w > 0; w--)
        set[w] = set[w - 1];
    set[0] = tag;
}

/* Uses `line` in `c`: most recently used, brought in over the LRU line
 * when absent, its tag `line | mark` (mark: 0 or WARM_UNSEEN). Returns the
 * tag it had, WARM_INVALID when absent. */
static ULong warm_touch(warm_cache *c, ULong line, ULong mark)
{
    ULong *set = c->tag + (line & c->set_mask) * c->ways;
    UInt w = warm_find(c, set, line);
    ULong found = w < c->ways ? set[w] : WARM_INVALID;
    warm_to_front(c, set, w, line | mark);
    return found;
}

/* A prefetch of `line` into `c`: brought in (most recently used, its tag
 * `line | mark`) when absent; a present line keeps its place. Returns
 * whether it was absent. */
static Bool warm_fill(warm_cache *c, ULong line, ULong mark)
{
    ULong *set = c->tag + (line & c->set_mask) * c->ways;
    UInt w = warm_find(c, set, line);
    if (w < c->ways && set[w] != WARM_INVALID)
        return False;
    warm_to_front(c, set, w, line | mark);
    return True;
}

/* A read of `line` from the LLC (an L1 miss or prefetch); its prefetcher
 * asks for the next line on a miss unless present. */
static void warm_llc_read(ULong line)
{
    if (warm_touch(&warm_llc, line, 0) == WARM_INVALID && warm_llc.prefetch)
        warm_fill(&warm_llc, line + 1, 0);
}

/* One data access of `line`, as the model's hierarchy takes it: the L1 D,
 * on a miss the LLC, and the L1's next-line prefetch (a read of the LLC).
 * `mark` goes on its L1 D tag (see WARM_UNSEEN). Returns whether the line
 * was absent from the L1 D or unseen there (its page may be new). */
static Bool warm_data_line(ULong line, ULong mark)
{
    ULong found = warm_touch(&warm_l1d, line, mark);
    if (found != WARM_INVALID)
        return (found & WARM_UNSEEN) != 0;
    warm_llc_read(line);
    if (warm_l1d.prefetch && warm_fill(&warm_l1d, line + 1, WARM_UNSEEN))
        warm_llc_read(line + 1);
    return True;
}

/* The slot of page `key` (page number + 1) in the set, or of the empty
 * slot it would take. */
static ULong page_slot(ULong key)
{
    ULong slot = (key * 0x9E3779B97F4A7C15ULL >> 32) & (page_set_cap - 1);
    while (page_set[slot] && page_set[slot] != key)
        slot = (slot + 1) & (page_set_cap - 1);
    return slot;
}

/* Notes the page of `addr` touched; a new one also goes to page_new. */
static void warm_page(Addr addr)
{
    ULong page = (ULong)addr >> warm_page_bits, slot;
    if (page == warm_last_page)
        return;
    warm_last_page = page;
    if ((page_set_count + 1) * 2 > page_set_cap) {
        ULong *old = page_set, old_cap = page_set_cap;
        page_set_cap = old_cap ? old_cap * 2 : 4096;
        page_set = VG_(malloc)("tearec.warm.pages", page_set_cap * sizeof *page_set);
        VG_(memset)(page_set, 0, page_set_cap * sizeof *page_set);
        for (ULong i = 0; i < old_cap; i++)
            if (old[i])
                page_set[page_slot(old[i])] = old[i];
        if (old)
            VG_(free)(old);
    }
    slot = page_slot(page + 1);
    if (page_set[slot])
        return;
    page_set[slot] = page + 1;
    page_set_count++;
    if (page_new_count == page_new_cap) {
        page_new_cap = page_new_cap ? page_new_cap * 2 : 1024;
        page_new = VG_(realloc)("tearec.warm.new", page_new, page_new_cap * sizeof *page_new);
    }
    page_new[page_new_count++] = page << warm_page_bits;
}

/* A data access of `size` bytes at `addr` by the recorded thread: each
 * line it touches, and the page it begins in (the model's page faults),
 * unless its first line shows the page noted already. A last line in
 * another page is left unseen: its page is noted when an access begins
 * there, as the model notes it. */
static void warm_access(Addr addr, ULong size)
{
    ULong end = (ULong)addr + (size ? size - 1 : 0);
    ULong first = (ULong)addr >> warm_line_bits, last = end >> warm_line_bits;
    if (other_thread_running || state == REC_DONE)
        return;
    if (warm_data_line(first, 0))
        warm_page(addr);
    if (last != first)
        warm_data_line(last, end >> warm_page_bits != (ULong)addr >> warm_page_bits ? WARM_UNSEEN : 0);
}

/* Called for each access of a fast translation (--warm-caches). */
static VG_REGPARM(2) void on_warm_mem(Addr addr, ULong size)
{
    if (!other_thread_running) /* another thread's caches are its own */
        warm_access(addr, size);
}

/* Starts a LINES record of `what` holding `n` addresses (at most
 * TEAREC_STREAM_LINES_MAX, which the buffer's slack leaves room for). */
static void put_lines_header(ULong what, ULong n)
{
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_LINES << TEAREC_STREAM_KIND_SHIFT | what << TEAREC_STREAM_SIZE_SHIFT | n);
}

/* Sends the lines of `c` (LINES records of `level`), each set's least
 * recently used first. */
static void put_cache_image(const warm_cache *c, ULong level)
{
    for (ULong set = 0; set <= c->set_mask; set++) {
        const ULong *tags = c->tag + set * c->ways;
        UInt n = 0;
        while (n < c->ways && tags[n] != WARM_INVALID)
            n++;
        if (!n)
            continue;
        put_lines_header(level, n);
        while (n > 0)
            put((tags[--n] & ~WARM_UNSEEN) << warm_line_bits);
    }
}

/* --- warm predictor (--branch-warmup) -------------------------------------- */

#define BRANCH_BUF_ENTRIES 4096u /* branches logged before the tool sends them (one more allocated: add_branch_log) */
#define BRANCH_WORDS 2           /* a logged branch: its address, then the next one run */
#define BRANCH_SHIFT 4           /* log2 of a logged branch's bytes */
static ULong *branch_buf = NULL; /* the branches logged and not yet sent */
static ULong branch_count = 0;   /* ... how many */
static Bool branch_logging = False; /* fast runs log their branches now (branch_gate) */

/* Fast runs log branches while the recorded thread skips: not while
 * waiting (the region has not started), warming or recording (the model
 * sees those instructions), nor while another thread runs. */
static void branch_gate(void)
{
    branch_logging = clo_branch_warmup && state == REC_SKIP && !other_thread_running;
}

/* Sends the branches logged (LINES records of pairs), oldest first. */
static void put_branches(void)
{
    const ULong per_record = TEAREC_STREAM_LINES_MAX / BRANCH_WORDS;

    for (ULong i = 0; i < branch_count; i += per_record) {
        ULong n = branch_count - i < per_record ? branch_count - i : per_record;
        put_lines_header(TEAREC_STREAM_LINES_BRANCHES, n * BRANCH_WORDS);
        for (ULong k = 0; k < n * BRANCH_WORDS; k++)
            put(branch_buf[i * BRANCH_WORDS + k] & TEAREC_STREAM_ADDR_MASK);
    }
    branch_count = 0;
}

/* A fast block is about to log more branches than the buffer has room
 * for: they go to tea record now, which trains on them while the
 * fast-forward goes on; after the WINDOW record of the window before,
 * which no instruction has sent yet (the fast-forward's blocks run fast). */
static void branch_drain(void)
{
    switch_to(VG_(get_running_tid)());
    if (window_pending)
        put_window();
    put_branches();
    flush();
}

/* What a fast-forward kept warm, when it ended (image_due): the caches'
 * contents, the new pages, the branches. */
static void put_image(void)
{
    image_due = False;
    if (clo_branch_warmup)
        put_branches();
    if (!warm_on)
        return;
    put_cache_image(&warm_l1d, TEAREC_STREAM_LINES_L1D);
    put_cache_image(&warm_llc, TEAREC_STREAM_LINES_LLC);
    for (ULong i = 0; i < page_new_count; i += TEAREC_STREAM_LINES_MAX) {
        ULong n = page_new_count - i < TEAREC_STREAM_LINES_MAX ? page_new_count - i : TEAREC_STREAM_LINES_MAX;
        put_lines_header(TEAREC_STREAM_LINES_PAGES, n);
        for (ULong k = 0; k < n; k++)
            put(page_new[i + k]);
    }
    page_new_count = 0;
}

/* Empties the tag array of `c`. */
static void warm_cache_clear(warm_cache *c)
{
    for (ULong i = 0; i < (c->set_mask + 1) * c->ways; i++)
        c->tag[i] = WARM_INVALID;
}

/* Empties both caches' copies and the pages touched: what the program did
 * before the region (waiting for --start-at or tea_record_start) is not
 * what a recording of the region starts from. */
static void warm_reset(void)
{
    warm_cache_clear(&warm_l1d);
    warm_cache_clear(&warm_llc);
    if (page_set)
        VG_(memset)(page_set, 0, page_set_cap * sizeof *page_set);
    page_set_count = page_new_count = 0;
    warm_last_page = WARM_INVALID;
}

/* Whether `x` is a power of 2. */
static Bool is_pow2(ULong x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* The base-2 logarithm of `x`, a power of 2. */
static UInt log2_of(ULong x)
{
    UInt bits = 0;
    while ((1ULL << bits) < x)
        bits++;
    return bits;
}

/* Allocates an empty tag array of `sets` x `ways`. */
static void warm_cache_init(warm_cache *c, ULong sets, UInt ways, Bool prefetch)
{
    c->tag = VG_(malloc)("tearec.warm.tag", sets * ways * sizeof *c->tag);
    c->set_mask = sets - 1;
    c->ways = ways;
    c->prefetch = prefetch;
    warm_cache_clear(c);
}

/* Parses --warm-caches=L1SETS,L1WAYS,L1PF,LLCSETS,LLCWAYS,LLCPF,LINE,PAGE
 * (LINE and PAGE in bytes). */
static void parse_warm_caches(void)
{
    const HChar *p = clo_warm_caches;
    ULong v[WARM_CACHES_FIELDS];
    for (UInt i = 0; i < WARM_CACHES_FIELDS; i++) {
        v[i] = 0;
        if (*p < '0' || *p > '9')
            VG_(fmsg_bad_option)("--warm-caches", "needs eight numbers separated by commas\n");
        for (; *p >= '0' && *p <= '9' && v[i] < (1ULL << 40); p++)
            v[i] = v[i] * 10 + (ULong)(*p - '0');
        if (*p != (i + 1 < WARM_CACHES_FIELDS ? ',' : '\0'))
            VG_(fmsg_bad_option)("--warm-caches", "needs eight numbers separated by commas\n");
        if (i + 1 < WARM_CACHES_FIELDS)
            p++;
    }
    static const UInt powers[] = { 0, 3, 6, 7 }; /* the set counts, the line and the page size */
    for (UInt k = 0; k < sizeof powers / sizeof powers[0]; k++) {
        ULong x = v[powers[k]];
        if (!is_pow2(x) || x > (1ULL << 30))
            VG_(fmsg_bad_option)("--warm-caches", "set counts, the line and the page size must be powers of 2\n");
    }
    if (v[6] > v[7])
        VG_(fmsg_bad_option)("--warm-caches", "the line size exceeds the page size\n");
    if (v[1] < 1 || v[1] > TEAREC_STREAM_LINES_MAX || v[4] < 1 || v[4] > TEAREC_STREAM_LINES_MAX)
        VG_(fmsg_bad_option)("--warm-caches", "ways must be 1 to 64\n");
    warm_cache_init(&warm_l1d, v[0], (UInt)v[1], v[2] != 0);
    warm_cache_init(&warm_llc, v[3], (UInt)v[4], v[5] != 0);
    warm_line_bits = log2_of(v[6]);
    warm_page_bits = log2_of(v[7]);
    warm_on = True;
}

/* Sets, from the state, how many instructions of the recorded thread pass
 * in fast translations before precise ones take over: the skipped ones but
 * the last (on_insn sees it and ends the skip), none while recording, all
 * while waiting or done. Called after every change of state. */
static void gate_update(void)
{
    ULong pass = 0;

    if (state == REC_WAIT || state == REC_DONE) {
        pass = FAST_NEVER;
    } else if (state == REC_SKIP) {
        pass = skip_left - 1;
        skip_left = 1;
    }
    if (other_thread_running) {
        fast_parked = pass;
        fast_wanted_parked = pass != 0;
    } else {
        fast_left = pass;
        fast_wanted = pass != 0;
    }
    branch_gate();
}

/* The instructions counted since the last call go to the thread that ran
 * them; those counted from now on, to `tid`. */
static void count_for(UInt tid)
{
    if (thread_insns && counted_tid < thread_slots)
        thread_insns[counted_tid] += running_insns;
    running_insns = 0;
    counted_tid = tid;
}

/* Sends a THREAD record for each thread that ran an instruction, in
 * increasing order of its number (see stream.h). */
static void put_threads(void)
{
    count_for(counted_tid);
    if (!thread_insns)
        return;
    for (UInt tid = MAIN_THREAD; tid < thread_slots; tid++) {
        if (!thread_insns[tid])
            continue;
        if (buf_len > BUF_WORDS - BUF_SLACK)
            flush();
        put(TEAREC_STREAM_THREAD << TEAREC_STREAM_KIND_SHIFT | ((ULong)tid & TEAREC_STREAM_THREAD_MASK));
        put(thread_insns[tid]);
    }
}

/* Whether thread `tid` is recorded: the one of --thread, or one of
 * --threads. */
static Bool is_recorded(ThreadId tid)
{
    if (!several_threads)
        return tid == (ThreadId)clo_thread;
    return tid < VG_N_THREADS && (every_thread || (serial_of[tid] < SERIALS_MAX && recorded_threads[serial_of[tid]]));
}

/* What the thread counts and SWITCH records call a thread: Valgrind's
 * number, or with several threads its serial. */
static UInt thread_key(ThreadId tid)
{
    return several_threads && tid < VG_N_THREADS ? serial_of[tid] : (UInt)tid;
}

/* --- several threads sampled: each one's recording state ------------------ */

/* With several threads and --sample-every (or --skip, --warmup), every
 * recorded thread skips, warms and times windows on its own instruction
 * count: the globals of
 * the recording state (state, the counters, the fast-forward's count,
 * the warm caches' copies) are the running thread's, saved into its
 * context when another recorded thread runs and loaded from the other's.
 * Translations are dual, so that each block reads them as it starts.
 * The branches a thread logged go out (to its stream) before the switch;
 * the L1 D copy, whose tag array the translations name, is copied out and
 * in; the LLC's and the pages' arrays are swapped. */
typedef struct thread_ctx {
    Bool used;
    rec_state state;
    ULong skip_left, warm_left, window_left, windows_ended, fast_left;
    ULong stacks_sent;
    Bool window_pending, image_due, fast_wanted;
    Addr last_insn_pc;
    ULong plan_from, plan_skip, plan_warm; /* listed windows: the plan, */
    ULong *starts;                  /* ... and the thread's starts */
    UInt start_count;
    ULong *l1d_tags, *llc_tags;     /* the thread's copies (--warm-caches) */
    ULong *page_set, page_set_cap, page_set_count, *page_new, page_new_count, page_new_cap, warm_last_page;
} thread_ctx;
static Bool per_thread_state = False; /* several threads and --sample-every, --skip or --warmup */
static thread_ctx *thread_ctxs = NULL;   /* [SERIALS_MAX] */
static UInt ctx_serial = MAIN_THREAD;    /* whose state the globals hold */
static Bool region_started = False;      /* start_recording ran: a thread's context starts it too */
static Bool recording_over = False;      /* stop_recording ran: every thread's recording is done */
static void start_recording(void);
static void put_serial_switch(UInt serial);

/* The globals a recorded thread's context keeps, each named once: the
 * global, and where in thread_ctx its copy is (ctx_copy). */
typedef struct ctx_field {
    void *global;
    SizeT offset, size, member_size;
} ctx_field;
#define CTX_FIELD(global_, member_)                                                                      \
    { &(global_), __builtin_offsetof(thread_ctx, member_), sizeof(global_), sizeof(((thread_ctx *)0)->member_) }
/* The recording state. */
static const ctx_field ctx_fields[] = {
    CTX_FIELD(state, state),           CTX_FIELD(skip_left, skip_left),
    CTX_FIELD(warm_left, warm_left),   CTX_FIELD(window_left, window_left),
    CTX_FIELD(windows_ended, windows_ended), CTX_FIELD(fast_left, fast_left),
    CTX_FIELD(window_pending, window_pending), CTX_FIELD(image_due, image_due),
    CTX_FIELD(fast_wanted, fast_wanted), CTX_FIELD(last_insn_pc, last_insn_pc),
    CTX_FIELD(plan_from, plan_from),   CTX_FIELD(plan_skip, plan_skip),
    CTX_FIELD(plan_warm, plan_warm),   CTX_FIELD(starts, starts),
    CTX_FIELD(start_count, start_count), CTX_FIELD(stacks_sent, stacks_sent),
};
/* The warm caches' (--warm-caches): the LLC's and the pages' arrays (the
 * L1 D's tags are copied whole: the translations name its array). */
static const ctx_field warm_fields[] = {
    CTX_FIELD(warm_llc.tag, llc_tags),         CTX_FIELD(page_set, page_set),
    CTX_FIELD(page_set_cap, page_set_cap),     CTX_FIELD(page_set_count, page_set_count),
    CTX_FIELD(page_new, page_new),             CTX_FIELD(page_new_count, page_new_count),
    CTX_FIELD(page_new_cap, page_new_cap),     CTX_FIELD(warm_last_page, warm_last_page),
};
#define CTX_FIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* Copies `n` fields between their globals and context `c`: into it when
 * `save`, else out of it. */
static void ctx_copy(const ctx_field *f, SizeT n, thread_ctx *c, Bool save)
{
    for (SizeT i = 0; i < n; i++) {
        UChar *copy = (UChar *)c + f[i].offset;
        tl_assert(f[i].size == f[i].member_size);
        if (save)
            VG_(memcpy)(copy, f[i].global, f[i].size);
        else
            VG_(memcpy)(f[i].global, copy, f[i].size);
    }
}

/* The warm caches' state of the thread whose context the globals hold,
 * into `c`, and back. */
static void warm_save(thread_ctx *c)
{
    ULong n = (warm_l1d.set_mask + 1) * warm_l1d.ways;
    if (!c->l1d_tags)
        c->l1d_tags = VG_(malloc)("tearec.ctx.l1d", n * sizeof *c->l1d_tags);
    VG_(memcpy)(c->l1d_tags, warm_l1d.tag, n * sizeof *c->l1d_tags);
    ctx_copy(warm_fields, CTX_FIELDS(warm_fields), c, True);
}

/* A thread's warm caches into the globals; a thread new to them gets
 * empty ones of its own. */
static void warm_load(thread_ctx *c)
{
    ULong n = (warm_l1d.set_mask + 1) * warm_l1d.ways;
    if (!c->llc_tags) {
        warm_cache_init(&warm_llc, warm_llc.set_mask + 1, warm_llc.ways, warm_llc.prefetch);
        warm_cache_clear(&warm_l1d);
        page_set = page_new = NULL;
        page_set_cap = page_set_count = page_new_count = page_new_cap = 0;
        warm_last_page = WARM_INVALID;
        return;
    }
    VG_(memcpy)(warm_l1d.tag, c->l1d_tags, n * sizeof *c->l1d_tags);
    ctx_copy(warm_fields, CTX_FIELDS(warm_fields), c, False);
}

/* Saves the globals into the context of ctx_serial; its logged branches
 * go out first, to its stream. */
static void ctx_save(void)
{
    thread_ctx *c = &thread_ctxs[ctx_serial];
    if (branch_count) {
        put_serial_switch(ctx_serial);
        if (window_pending)
            put_window();
        put_branches();
    }
    c->used = True;
    ctx_copy(ctx_fields, CTX_FIELDS(ctx_fields), c, True);
    if (warm_on)
        warm_save(c);
}

/* Listed windows: thread `serial`'s starts into `starts` (none when the
 * list names none of its). */
static void listed_of(UInt serial)
{
    if (!thread_first)
        return; /* one thread: all of them */
    starts = all_starts + (serial < SERIALS_MAX ? thread_first[serial] : 0);
    start_count = serial < SERIALS_MAX ? thread_starts[serial] : 0;
}

/* Loads the context of `serial` into the globals: a thread seen for the
 * first time starts its region if the program's has started. */
static void ctx_load(UInt serial)
{
    thread_ctx *c = &thread_ctxs[serial];
    ctx_serial = serial;
    cur_on = False;
    if (warm_on)
        warm_load(c);
    if (!c->used) {
        state = REC_WAIT;
        if (listed)
            listed_of(serial);
        window_left = windows_ended = stacks_sent = 0;
        window_pending = image_due = False;
        last_insn_pc = 0;
        gate_update();
        if (region_started && !recording_over)
            start_recording();
        return;
    }
    ctx_copy(ctx_fields, CTX_FIELDS(ctx_fields), c, False);
    if (recording_over) {
        state = REC_DONE;
        gate_update();
    }
}

/* A recorded thread (serial) starts running: its context in the globals. */
static void ctx_switch(UInt serial)
{
    if (serial == ctx_serial || serial >= SERIALS_MAX)
        return;
    ctx_save();
    ctx_load(serial);
}

/* A thread starts running client code: the instructions counted so far
 * were the previous thread's; the recorded thread takes its count back;
 * another parks it and records nothing (cur_on is the last
 * instruction's, which may have been the recorded thread's). */
static void tearec_start_client_code(ThreadId tid, ULong blocks)
{
    (void)blocks;
    if (clo_bbv_out) {
        tearec_bbv_running(serial_of[tid]);
        return;
    }
    count_for(thread_key(tid));
    if (is_recorded(tid)) {
        if (other_thread_running) {
            fast_left = fast_parked;
            fast_wanted = fast_wanted_parked;
            other_thread_running = False;
        }
        if (per_thread_state)
            ctx_switch(thread_key(tid));
    } else if (!other_thread_running) {
        fast_parked = fast_left;
        fast_wanted_parked = fast_wanted;
        fast_left = FAST_NEVER;
        fast_wanted = True; /* dual blocks run fast; fast and precise ones run as translated */
        other_thread_running = True;
        cur_on = False;
    }
    branch_gate();
}

/* Writes the buffer to the output descriptor (all of it, or gives up). */
static void flush(void)
{
    const UChar *p = (const UChar *)buf;
    Int left = (Int)(buf_len * sizeof buf[0]);

    while (left > 0 && !out_failed) {
        Int n = VG_(write)(clo_fd, p, left);
        if (n <= 0) {
            /* tea record is gone (killed, or failed): so is the recording,
             * and no Valgrind outlives it */
            out_failed = True;
            state = REC_DONE;
            gate_update();
            VG_(do_syscall)(__NR_kill, (RegWord)VG_(getpid)(), VKI_SIGKILL, 0, 0, 0, 0, 0, 0);
            break;
        }
        p += n;
        left -= n;
    }
    buf_len = 0;
}

static void put(ULong w)
{
    buf[buf_len++] = w;
}

/* Ends recording with `reason`: the STOP record goes out at once, so that
 * tea record can finish while the program runs on. */
static void stop_recording(ULong reason)
{
    if (state == REC_DONE)
        return;
    recording_over = True;
    state = REC_DONE;
    cur_on = False;
    gate_update();
    put_threads();
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_STOP << TEAREC_STREAM_KIND_SHIFT
        | (threads_started & TEAREC_STREAM_STOP_THREADS_MASK) << TEAREC_STREAM_STOP_THREADS_SHIFT | reason);
    flush();
}

/* Listed windows: plans window k from position `from` (the previous
 * window's end): skip to its warm-up, warm up to W, time L; after the
 * last, skip forever (counting). */
static void plan_listed(UInt k, ULong from)
{
    ULong warm_start;
    plan_from = from;
    window_left = (ULong)clo_sample_length;
    if (k >= start_count) {
        plan_skip = SKIP_FOREVER;
        plan_warm = 0;
    } else {
        warm_start = starts[k] - from > (ULong)clo_warmup ? starts[k] - (ULong)clo_warmup : from;
        plan_skip = warm_start - from;
        plan_warm = starts[k] - warm_start;
    }
    skip_left = plan_skip;
    warm_left = plan_warm;
}

/* Moves from waiting to skipping or recording. */
static void start_recording(void)
{
    if (state != REC_WAIT)
        return;
    region_started = True;
    if (warm_on)
        warm_reset();
    skip_left = (ULong)clo_skip;
    warm_left = (ULong)clo_warmup;
    if (listed) {
        plan_listed(0, 0); /* no --skip with listed windows */
    } else if (clo_sample_every) {
        /* the first window ends clo_sample_every instructions in */
        skip_left += (ULong)(clo_sample_every - clo_sample_length - clo_warmup);
        window_left = (ULong)clo_sample_length;
    }
    state = skip_left ? REC_SKIP : warm_left ? REC_WARM : REC_ON;
    gate_update();
}

/* Sampling: the window's last instruction is recorded. The next period
 * (the next listed window) skips, warms and times as the first did; the
 * WINDOW record goes out before the next instruction (this one's
 * accesses come first). */
static void end_window(void)
{
    windows_ended++;
    window_pending = True;
    if (listed) {
        plan_listed((UInt)windows_ended, starts[windows_ended - 1] + (ULong)clo_sample_length);
    } else {
        window_left = (ULong)clo_sample_length;
        skip_left = (ULong)(clo_sample_every - clo_sample_length - clo_warmup);
        warm_left = (ULong)clo_warmup;
    }
    state = skip_left ? REC_SKIP : warm_left ? REC_WARM : REC_ON;
    gate_update();
}

/* Listed windows: the instructions of the region so far, from the plan
 * and what is left of it; the fast-forward's count is the recorded
 * thread's, parked or not. */
static ULong listed_position(void)
{
    ULong fast = other_thread_running ? fast_parked : fast_left;
    ULong left;
    switch (state) {
    case REC_SKIP:
        left = skip_left + (fast_wanted && fast != FAST_NEVER ? fast : 0);
        return plan_from + (plan_skip > left ? plan_skip - left : 0);
    case REC_WARM:
        return plan_from + plan_skip + (plan_warm - warm_left);
    case REC_ON:
        return starts[windows_ended] + ((ULong)clo_sample_length - window_left);
    default:
        return plan_from;
    }
}

/* Listed windows, at the program's end: the COUNT record. */
static void put_count(void)
{
    if (!listed || state == REC_DONE || state == REC_WAIT)
        return;
    put(TEAREC_STREAM_COUNT << TEAREC_STREAM_KIND_SHIFT | (listed_position() & TEAREC_STREAM_COUNT_MASK));
}

/* Listed windows, at the program's end: the COUNT record of every
 * recorded thread that has windows, each after the SWITCH to it (several
 * threads); none once recording stopped (as put_count sends none). The
 * globals end holding the last such thread's context, which
 * stop_recording then stops. */
static void put_counts(void)
{
    if (!listed)
        return;
    if (!per_thread_state) {
        put_count();
        return;
    }
    if (recording_over)
        return;
    if (other_thread_running) { /* the last recorded thread's count, parked */
        fast_left = fast_parked;
        fast_wanted = fast_wanted_parked;
        other_thread_running = False;
    }
    ctx_save();
    for (UInt serial = MAIN_THREAD; serial < SERIALS_MAX; serial++) {
        thread_ctx *c = &thread_ctxs[serial];
        /* the globals held thread 1's context before any recorded thread
         * ran: a thread not recorded, or one without windows, counts nothing */
        if (!c->used || !c->start_count || !(every_thread || recorded_threads[serial]))
            continue;
        ctx_copy(ctx_fields, CTX_FIELDS(ctx_fields), c, False);
        ctx_serial = serial;
        if (state == REC_DONE || state == REC_WAIT)
            continue;
        put_serial_switch(serial);
        put_count();
    }
}

/* Sends the STACK record of the instruction at `pc`, which starts a
 * sampled window: the return addresses of the frames it runs in,
 * innermost first, as Valgrind unwinds them (CFI, else frame pointers;
 * add_precise_insn keeps the unwinding registers current before each
 * instruction). None when the unwinding does not start at pc. */
static void put_stack(ThreadId tid, Addr pc)
{
    Addr ips[TEAREC_STREAM_STACK_MAX + 1];
    UInt n = VG_(get_StackTrace)(tid, ips, TEAREC_STREAM_STACK_MAX + 1, NULL, NULL, 0);
    UInt frames = n > 1 && ips[0] == pc ? n - 1 : 0;

    if (buf_len + 1 + frames > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_STACK << TEAREC_STREAM_KIND_SHIFT | frames);
    for (UInt i = 1; i <= frames; i++)
        put((ULong)ips[i] + 1); /* Valgrind names a call's last byte: the return address follows it */
}

/* Sends the WINDOW record a finished window left due. */
static void put_window(void)
{
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_WINDOW << TEAREC_STREAM_KIND_SHIFT | (windows_ended & TEAREC_STREAM_ADDR_MASK));
    window_pending = False;
}

/* With several threads, the SWITCH record before the first record of a
 * thread other than the last one's (the buffer has room: the callers
 * flushed for their own record, and BUF_SLACK covers both). */
static void switch_to(ThreadId tid)
{
    if (several_threads)
        put_serial_switch(thread_key(tid));
}

static void put_serial_switch(UInt serial)
{
    if (serial == stream_serial)
        return;
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_SWITCH << TEAREC_STREAM_KIND_SHIFT | ((ULong)serial & TEAREC_STREAM_THREAD_MASK));
    stream_serial = serial;
}

/* Before every instruction: `word` is its INSN record; `rep`: it is a
 * rep-prefixed string instruction, whose pass after a pass of its own is
 * no new instruction when counting reps once. */
static void insn(ULong word, Bool rep)
{
    Bool repeat;
    ThreadId tid;
    cur_on = False;
    if (state == REC_DONE || !is_recorded(tid = VG_(get_running_tid)()))
        return;
    if (window_pending || image_due)
        switch_to(tid);
    if (window_pending)
        put_window();
    if (image_due)
        put_image();
    if (state == REC_WAIT)
        return;
    repeat = reps_once && rep && (Addr)(word & TEAREC_STREAM_ADDR_MASK) == last_insn_pc;
    last_insn_pc = (Addr)(word & TEAREC_STREAM_ADDR_MASK);
    if (state == REC_SKIP) {
        /* a precise block while fast ones are wanted counts as they would */
        if (fast_wanted && fast_left > 0) {
            fast_left -= !repeat;
            return;
        }
        fast_wanted = False;
        if (!repeat && --skip_left == 0) {
            image_due = warm_on || clo_branch_warmup; /* the model missed the skip's accesses and branches */
            state = warm_left ? REC_WARM : REC_ON;
            gate_update();
        }
        return;
    }
    if (state == REC_WARM) {
        if (buf_len > BUF_WORDS - BUF_SLACK)
            flush();
        switch_to(tid);
        put((word & ~(0xfull << TEAREC_STREAM_KIND_SHIFT)) | TEAREC_STREAM_WARM << TEAREC_STREAM_KIND_SHIFT);
        cur_on = True;
        if (!repeat && --warm_left == 0)
            state = REC_ON;
        return;
    }
    if (state == REC_LAST || (clo_max && recorded == (ULong)clo_max)) {
        stop_recording(state == REC_LAST ? TEAREC_STREAM_STOP_SYMBOL : TEAREC_STREAM_STOP_MAX);
        return;
    }
    if (state == REC_ENTRY)
        state = REC_LAST;
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    switch_to(tid);
    if (clo_call_paths && (clo_sample_every || listed) && stacks_sent != windows_ended + 1) {
        put_stack(tid, (Addr)(word & TEAREC_STREAM_ADDR_MASK));
        stacks_sent = windows_ended + 1;
    }
    put(word);
    recorded++;
    cur_on = True;
    if ((clo_sample_every || listed) && state == REC_ON && !repeat && --window_left == 0)
        end_window();
}

/* Called before every instruction but rep string ones. */
static VG_REGPARM(1) void on_insn(ULong word)
{
    insn(word, False);
}

/* Called before every pass of a rep string instruction. */
static VG_REGPARM(1) void on_rep_insn(ULong word)
{
    insn(word, True);
}

/* A load or store of the current instruction. */
static VG_REGPARM(2) void on_mem(Addr addr, ULong kind_size)
{
    if (!cur_on)
        return;
    put(kind_size | ((ULong)addr & TEAREC_STREAM_ADDR_MASK));
    if (warm_on)
        warm_access(addr, (kind_size >> TEAREC_STREAM_SIZE_SHIFT) & TEAREC_STREAM_SIZE_MASK);
}

/* The entry of the --start-at function. */
static void on_start_symbol(void)
{
    if (is_recorded(VG_(get_running_tid)()) && state == REC_WAIT)
        start_recording();
}

/* The entry of the --stop-at function: record this instruction, then stop. */
static void on_stop_symbol(void)
{
    if (!is_recorded(VG_(get_running_tid)()))
        return;
    if (state == REC_ON)
        state = REC_ENTRY;
}

/* Sends the executable file mapping `seg` unless it was sent already. */
static void report_segment(NSegment const *seg)
{
    const HChar *path;
    UInt len;

    for (UInt i = 0; i < reported_count; i++)
        if (reported[i] == seg->start)
            return;
    if (reported_count == MAX_REPORTED)
        return;
    path = VG_(am_get_filename)(seg);
    if (!path)
        return;
    len = (UInt)VG_(strlen)(path);
    /* the tool's own file, which Valgrind maps for its trampolines */
    if (len >= sizeof TOOL_FILE - 1 && VG_(strcmp)(path + len - (sizeof TOOL_FILE - 1), TOOL_FILE) == 0)
        return;
    if (len >= TEAREC_STREAM_PATH_MAX)
        return;
    reported[reported_count++] = seg->start;
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_OBJECT << TEAREC_STREAM_KIND_SHIFT | ((ULong)seg->start & TEAREC_STREAM_ADDR_MASK));
    put((ULong)seg->end + 1);
    put((ULong)seg->offset);
    put(len);
    for (UInt i = 0; i < len; i += 8) {
        ULong w = 0;
        for (UInt k = 0; k < 8 && i + k < len; k++)
            w |= (ULong)(UChar)path[i + k] << (8 * k);
        put(w);
    }
}

/* Sends the executable file mapping holding `pc` the first time code is
 * translated from it; at the first translation, every executable file
 * mapping there is (the program and the dynamic loader), so that tea
 * record knows the program before its first instruction. */
static void report_object(Addr pc)
{
    static Bool scanned = False;
    NSegment const *seg;

    if (!scanned) {
        Addr starts[MAX_REPORTED];
        Int n = VG_(am_get_segment_starts)(SkFileC, starts, MAX_REPORTED);
        scanned = True;
        for (Int i = 0; i < n; i++) {
            seg = VG_(am_find_nsegment)(starts[i]);
            if (seg && seg->kind == SkFileC && seg->hasX)
                report_segment(seg);
        }
    }
    if (pc >= known_lo && pc < known_hi)
        return;
    seg = VG_(am_find_nsegment)(pc);
    if (!seg || seg->kind != SkFileC)
        return;
    known_lo = seg->start;
    known_hi = seg->end + 1;
    report_segment(seg);
}

/* Sends the bytes of the instruction at `pc` (`len` bytes). */
static void report_code(Addr pc, UInt len)
{
    const UChar *code = (const UChar *)pc;
    ULong w[2] = { 0, 0 };

    if (len > TEAREC_STREAM_CODE_BYTES)
        len = TEAREC_STREAM_CODE_BYTES;
    for (UInt i = 0; i < len; i++)
        w[i / 8] |= (ULong)code[i] << (8 * (i % 8));
    if (buf_len > BUF_WORDS - BUF_SLACK)
        flush();
    put(TEAREC_STREAM_CODE << TEAREC_STREAM_KIND_SHIFT | (ULong)len << TEAREC_STREAM_SIZE_SHIFT
        | ((ULong)pc & TEAREC_STREAM_ADDR_MASK));
    put(w[0]);
    put(w[1]);
}

/* Adds a call of `fn` (no arguments) to `sb`, made when `guard` holds
 * (NULL: always). */
static void add_call0(IRSB *sb, const HChar *name, void *fn, IRExpr *guard)
{
    IRDirty *di = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), mkIRExprVec_0());
    if (guard)
        di->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* Adds a call recording a memory access at `addr` of `size` bytes, done
 * only when `guard` holds (NULL: always). */
static void add_mem(IRSB *sb, IRExpr *addr, Int size, ULong kind, IRExpr *guard, IRTemp recorded_insn)
{
    ULong ks = kind << TEAREC_STREAM_KIND_SHIFT | ((ULong)size & TEAREC_STREAM_SIZE_MASK) << TEAREC_STREAM_SIZE_SHIFT;
    IRDirty *di = unsafeIRDirty_0_N(2, "tearec_mem", VG_(fnptr_to_fnentry)(on_mem),
                                    mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)ks)));
    IRTemp both;

    tl_assert(recorded_insn != IRTemp_INVALID);
    if (guard) {
        both = newIRTemp(sb->tyenv, Ity_I1);
        addStmtToIRSB(sb, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, guard, IRExpr_RdTmp(recorded_insn))));
        di->guard = IRExpr_RdTmp(both);
    } else {
        di->guard = IRExpr_RdTmp(recorded_insn);
    }
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* Adds a temporary of type `ty` set to `e`; returns it. */
static IRTemp add_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
    IRTemp t = newIRTemp(sb->tyenv, ty);
    addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
    return t;
}

/* How a block is translated (see "Fast-forward"): fast or precise, left
 * at its start when the other mode is wanted; or, in a periodically
 * sampled recording, both, chosen each time it starts (dual). */
typedef enum block_mode { BLOCK_FAST, BLOCK_PRECISE, BLOCK_DUAL } block_mode;

/* How the current instruction runs: its block's mode, in a dual block
 * the temporaries saying which way it runs, and whether the instruction
 * is recorded (read at its first access; IRTemp_INVALID before). */
typedef struct insn_guards {
    block_mode mode;
    IRTemp run_fast, run_precise, recorded;
} insn_guards;

/* --call-paths: the guest's instruction, stack and frame pointers are
 * current when on_insn runs (put_stack unwinds from them): the
 * instruction pointer is set to the instruction's address, and the
 * helper declares that it reads all three, so that VEX writes back the
 * stack and frame pointers the instructions before it changed. */
static void add_unwind_registers(IRSB *sb, IRDirty *di, Addr pc)
{
    static const Int offsets[] = { __builtin_offsetof(VexGuestAMD64State, guest_RIP),
                                   __builtin_offsetof(VexGuestAMD64State, guest_RSP),
                                   __builtin_offsetof(VexGuestAMD64State, guest_RBP) };
    addStmtToIRSB(sb, IRStmt_Put(offsets[0], IRExpr_Const(IRConst_U64((ULong)pc))));
    di->nFxState = sizeof offsets / sizeof offsets[0];
    for (Int i = 0; i < di->nFxState; i++) {
        di->fxState[i].fx = Ifx_Read;
        di->fxState[i].offset = offsets[i];
        di->fxState[i].size = sizeof(ULong);
        di->fxState[i].nRepeats = 0;
        di->fxState[i].repeatLen = 0;
    }
}

/* An instruction (`word`, its INSN record) of a block that runs precise:
 * on_insn (in a dual block, when it runs precise). */
static void add_precise_insn(IRSB *sb, ULong word, Bool rep, const insn_guards *g)
{
    IRDirty *di = unsafeIRDirty_0_N(1, rep ? "tearec_rep_insn" : "tearec_insn",
                                    VG_(fnptr_to_fnentry)(rep ? (void *)on_rep_insn : (void *)on_insn),
                                    mkIRExprVec_1(mkIRExpr_HWord((HWord)word)));
    if (g->mode == BLOCK_DUAL)
        di->guard = IRExpr_RdTmp(g->run_precise);
    if (clo_call_paths && (clo_sample_every || listed))
        add_unwind_registers(sb, di, (Addr)(word & TEAREC_STREAM_ADDR_MASK));
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* Whether the current instruction is recorded: on_insn set cur_on (and,
 * in a dual block, the block runs precise). Read after on_insn, at the
 * instruction's first access: the guard of its accesses' records. */
static IRTemp add_recorded(IRSB *sb, const insn_guards *g)
{
    IRTemp on = add_tmp(sb, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&cur_on)));
    IRTemp set = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE8, IRExpr_RdTmp(on), IRExpr_Const(IRConst_U8(0))));
    tl_assert(sizeof cur_on == 1);
    if (g->mode != BLOCK_DUAL)
        return set;
    return add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(set), IRExpr_RdTmp(g->run_precise)));
}

/* Adds a call warming the caches with an access at `addr` of `size`
 * bytes, done only when `guard` holds (NULL: always), `also` holds
 * (IRTemp_INVALID: always) and the access is not within the most recently
 * used line of its L1 D set, seen (WARM_UNSEEN): such an access changes
 * nothing, and is tested inline, so that most accesses cost no call. */
static void add_warm_mem(IRSB *sb, IRExpr *addr, Int size, IRExpr *guard, IRTemp also)
{
    IRDirty *di = unsafeIRDirty_0_N(2, "tearec_warm_mem", VG_(fnptr_to_fnentry)(on_warm_mem),
                                    mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size)));
    IRExpr *bits = IRExpr_Const(IRConst_U8((UChar)warm_line_bits));
    ULong set_bytes = (ULong)warm_l1d.ways * sizeof *warm_l1d.tag;
    IRTemp first, set, offset, slot, mru, other;

    /* flat IR: one operation per statement, on atoms; the tag array never
     * moves once allocated; a set's bytes are mostly a power of 2 (a shift) */
    first = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, bits));
    set = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(first), IRExpr_Const(IRConst_U64(warm_l1d.set_mask))));
    if (is_pow2(set_bytes)) {
        offset = add_tmp(sb, Ity_I64,
                         IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(set), IRExpr_Const(IRConst_U8((UChar)log2_of(set_bytes)))));
    } else {
        offset = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Mul64, IRExpr_RdTmp(set), IRExpr_Const(IRConst_U64(set_bytes))));
    }
    slot = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(offset), mkIRExpr_HWord((HWord)warm_l1d.tag)));
    mru = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(slot)));
    other = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(first), IRExpr_RdTmp(mru)));
    if (size > 1) { /* it may end in the next line */
        IRTemp end = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, addr, IRExpr_Const(IRConst_U64((ULong)size - 1))));
        IRTemp end_line = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, IRExpr_RdTmp(end), bits));
        IRTemp end_other = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(end_line), IRExpr_RdTmp(first)));
        other = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, IRExpr_RdTmp(other), IRExpr_RdTmp(end_other)));
    }
    if (also != IRTemp_INVALID)
        other = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(other), IRExpr_RdTmp(also)));
    if (guard)
        other = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, guard, IRExpr_RdTmp(other)));
    di->guard = IRExpr_RdTmp(other);
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* An access: recorded when its instruction is (precise), and with
 * --warm-caches warming the caches (fast); a dual block has both. */
static void add_access(IRSB *sb, IRExpr *addr, Int size, ULong kind, IRExpr *guard, insn_guards *g)
{
    if (g->mode != BLOCK_FAST) {
        if (g->recorded == IRTemp_INVALID)
            g->recorded = add_recorded(sb, g);
        add_mem(sb, addr, size, kind, guard, g->recorded);
    }
    if (!warm_on)
        return;
    if (g->mode == BLOCK_FAST) {
        add_warm_mem(sb, addr, size, guard, IRTemp_INVALID);
    } else {
        /* a recorded access warms the copy in on_mem; every other one
         * (a fast run, the last skipped instructions counted one by one)
         * here */
        IRTemp unrecorded = add_tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, IRExpr_RdTmp(g->recorded)));
        add_warm_mem(sb, addr, size, guard, unrecorded);
    }
}

/* At the start of a block whose fast runs log branches (--branch-warmup)
 * and may log up to `logs` of them: whether this run logs, as an Ity_I1
 * temporary (branch_logging is set, the block runs fast, and fewer than
 * --branch-warmup instructions of the fast-forward are left after it);
 * and, when it does and the buffer lacks room for `logs` more, a call of
 * branch_drain. Read after the block took its count off fast_left. */
static IRTemp add_branch_guard(IRSB *sb, const insn_guards *g, UInt logs)
{
    IRTemp on = add_tmp(sb, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&branch_logging)));
    IRTemp log = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE8, IRExpr_RdTmp(on), IRExpr_Const(IRConst_U8(0))));
    IRTemp left = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&fast_left)));
    IRTemp near = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(left),
                                                   IRExpr_Const(IRConst_U64((ULong)clo_branch_warmup))));
    IRTemp count, full, drain;
    IRDirty *di;

    tl_assert(sizeof branch_logging == 1 && sizeof fast_left == 8 && sizeof branch_count == 8);
    tl_assert(logs <= BRANCH_BUF_ENTRIES);
    log = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(log), IRExpr_RdTmp(near)));
    if (g->mode == BLOCK_DUAL)
        log = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(log), IRExpr_RdTmp(g->run_fast)));
    count = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&branch_count)));
    full = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_Const(IRConst_U64(BRANCH_BUF_ENTRIES - logs)),
                                            IRExpr_RdTmp(count)));
    drain = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(log), IRExpr_RdTmp(full)));
    di = unsafeIRDirty_0_N(0, "tearec_branch_drain", VG_(fnptr_to_fnentry)(branch_drain), mkIRExprVec_0());
    di->guard = IRExpr_RdTmp(drain);
    addStmtToIRSB(sb, IRStmt_Dirty(di));
    return log;
}

/* Logs the control transfer from the instruction at `pc` to `next` (an
 * Ity_I64 atom) into the buffer when `log` and `taken` (NULL: always)
 * hold, inline: two stores into the first free entry and the count, which
 * only a log raises (add_branch_guard made room). The stores are not
 * guarded (a guard costs a branch at every exit of every fast run): one
 * that does not log writes an entry no one reads, at worst the spare entry
 * after the buffer's end when it is full. */
static void add_branch_log(IRSB *sb, IRTemp log, IRExpr *taken, Addr pc, IRExpr *next)
{
    IRExpr *count_at = mkIRExpr_HWord((HWord)&branch_count);
    IRTemp on = log, count, offset, at, at_next, step, sum;

    if (taken)
        on = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, taken, IRExpr_RdTmp(log)));
    count = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, count_at));
    offset = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(count), IRExpr_Const(IRConst_U8(BRANCH_SHIFT))));
    at = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, mkIRExpr_HWord((HWord)branch_buf), IRExpr_RdTmp(offset)));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(at), IRExpr_Const(IRConst_U64((ULong)pc))));
    at_next = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(at), IRExpr_Const(IRConst_U64(sizeof(ULong)))));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(at_next), next));
    step = add_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64, IRExpr_RdTmp(on)));
    sum = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(count), IRExpr_RdTmp(step)));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, count_at, IRExpr_RdTmp(sum)));
}

/* The most branches a run of block `sb` logs: one per side exit, one per
 * instruction mark after the first and one at its end. */
static UInt block_branch_logs(const IRSB *sb)
{
    UInt n = 1;
    Bool first = True;
    for (Int i = 0; i < sb->stmts_used; i++) {
        const IRStmt *st = sb->stmts[i];
        if (st && st->tag == Ist_Exit)
            n++;
        if (st && st->tag == Ist_IMark) {
            n += !first;
            first = False;
        }
    }
    return n;
}

/* --- CPUID without RDTSCP on a host without it ------------------------------ */

#define CPUID_HELPER "amd64g_dirtyhelper_CPUID" /* VEX's helpers' names begin so */
#define CPUID_EXT_LEAF 0x80000001u              /* extended features: RDTSCP in EDX */
#define CPUID_RDTSCP_BIT 27

/* Whether VEX translates RDTSCP here: the host has it. */
static Bool host_has_rdtscp(void)
{
    VexArch arch;
    VexArchInfo host;

    VG_(machine_get_VexArchInfo)(&arch, &host);
    return (host.hwcaps & VEX_HWCAPS_AMD64_RDTSCP) != 0;
}

/* Whether `st` is the call that answers a CPUID instruction. */
static Bool is_cpuid(const IRStmt *st)
{
    return st->tag == Ist_Dirty
           && VG_(strncmp)(st->Ist.Dirty.details->cee->name, CPUID_HELPER, sizeof CPUID_HELPER - 1) == 0;
}

/* Adds `st` to `sb`; after a CPUID when hide_rdtscp, clears the RDTSCP bit
 * from RDX when the leaf asked for (EAX before the call) was
 * CPUID_EXT_LEAF. */
static void add_statement(IRSB *sb, IRStmt *st)
{
    const Int rax = __builtin_offsetof(VexGuestAMD64State, guest_RAX);
    const Int rdx = __builtin_offsetof(VexGuestAMD64State, guest_RDX);
    IRTemp leaf, leaf32, ext, edx, cleared, answer;

    if (!hide_rdtscp || !is_cpuid(st)) {
        addStmtToIRSB(sb, st);
        return;
    }
    leaf = add_tmp(sb, Ity_I64, IRExpr_Get(rax, Ity_I64));
    addStmtToIRSB(sb, st);
    leaf32 = add_tmp(sb, Ity_I32, IRExpr_Unop(Iop_64to32, IRExpr_RdTmp(leaf)));
    ext = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ32, IRExpr_RdTmp(leaf32), IRExpr_Const(IRConst_U32(CPUID_EXT_LEAF))));
    edx = add_tmp(sb, Ity_I64, IRExpr_Get(rdx, Ity_I64));
    cleared = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(edx),
                                                IRExpr_Const(IRConst_U64(~(1ull << CPUID_RDTSCP_BIT)))));
    answer = add_tmp(sb, Ity_I64, IRExpr_ITE(IRExpr_RdTmp(ext), IRExpr_RdTmp(cleared), IRExpr_RdTmp(edx)));
    addStmtToIRSB(sb, IRStmt_Put(rdx, IRExpr_RdTmp(answer)));
}

/* Whether block `sb` holds a CPUID. */
static Bool has_cpuid(const IRSB *sb)
{
    for (Int i = 0; i < sb->stmts_used; i++)
        if (sb->stmts[i] && is_cpuid(sb->stmts[i]))
            return True;
    return False;
}

/* `sb_in` as it is, but for add_statement's CPUID answers: a block run once
 * recording is done (copied only when it holds a CPUID). */
static IRSB *only_cpuid_fixed(IRSB *sb_in)
{
    IRSB *sb;

    if (!hide_rdtscp || !has_cpuid(sb_in))
        return sb_in;
    sb = deepCopyIRSBExceptStmts(sb_in);
    for (Int i = 0; i < sb_in->stmts_used; i++)
        if (sb_in->stmts[i])
            add_statement(sb, sb_in->stmts[i]);
    return sb;
}

/* Whether a block's end or side exit of jump kind `jk` may be a branch
 * (not a system call, a fault or a request to the core). */
static Bool is_branch_jump(IRJumpKind jk)
{
    return jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret;
}

/* Adds what records or warms the caches with each memory access of
 * statement `st` (add_access). */
static void add_accesses(IRSB *sb, IRTypeEnv *tyenv, IRStmt *st, insn_guards *g)
{
    switch (st->tag) {
    case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
            IRExpr *e = st->Ist.WrTmp.data;
            add_access(sb, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), TEAREC_STREAM_LOAD, NULL, g);
        }
        break;
    case Ist_Store: {
        IRExpr *data = st->Ist.Store.data;
        add_access(sb, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, data)), TEAREC_STREAM_STORE, NULL, g);
        break;
    }
    case Ist_StoreG: {
        IRStoreG *sg = st->Ist.StoreG.details;
        add_access(sb, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), TEAREC_STREAM_STORE, sg->guard, g);
        break;
    }
    case Ist_LoadG: {
        IRLoadG *lg = st->Ist.LoadG.details;
        IRType ty = Ity_INVALID, ty_wide = Ity_INVALID;
        typeOfIRLoadGOp(lg->cvt, &ty_wide, &ty);
        add_access(sb, lg->addr, sizeofIRType(ty), TEAREC_STREAM_LOAD, lg->guard, g);
        break;
    }
    case Ist_Dirty: {
        IRDirty *d = st->Ist.Dirty.details;
        if (d->mFx != Ifx_None) {
            if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
                add_access(sb, d->mAddr, d->mSize, TEAREC_STREAM_LOAD, NULL, g);
            if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
                add_access(sb, d->mAddr, d->mSize, TEAREC_STREAM_STORE, NULL, g);
        }
        break;
    }
    case Ist_CAS: {
        IRCAS *cas = st->Ist.CAS.details;
        Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
        add_access(sb, cas->addr, size, TEAREC_STREAM_LOAD, NULL, g);
        add_access(sb, cas->addr, size, TEAREC_STREAM_STORE, NULL, g);
        break;
    }
    case Ist_LLSC: {
        IRType ty = typeOfIRExpr(tyenv, st->Ist.LLSC.addr);
        (void)ty;
        if (st->Ist.LLSC.storedata == NULL)
            add_access(sb, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
                       TEAREC_STREAM_LOAD, NULL, g);
        else
            add_access(sb, st->Ist.LLSC.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)),
                       TEAREC_STREAM_STORE, NULL, g);
        break;
    }
    default: break;
    }
}

/* Adds an exit to `pc` (the current instruction, none of it run yet) when
 * `leave` holds, that drops every translation (see "Fast-forward"). */
static void add_switch_exit(IRSB *sb, IRTemp leave, Addr pc, Int offset_ip)
{
    addStmtToIRSB(sb, IRStmt_Exit(IRExpr_RdTmp(leave), Ijk_InvalICache, IRConst_U64((ULong)pc), offset_ip));
}

/* Sets the range the switch exits drop translations of, once per block:
 * all code, or with thread_blocks the block's own (`vge`, one extent:
 * no chasing). */
static void add_switch_range(IRSB *sb, const VexGuestExtents *vge)
{
    ULong start = ALL_CODE_START, len = ALL_CODE_LEN;
    if (thread_blocks) {
        tl_assert(vge->n_used == 1);
        start = (ULong)vge->base[0];
        len = vge->len[0] ? (ULong)vge->len[0] : 1;
    }
    addStmtToIRSB(sb, IRStmt_Put(__builtin_offsetof(VexGuestAMD64State, guest_CMSTART),
                                 IRExpr_Const(IRConst_U64(start))));
    addStmtToIRSB(sb, IRStmt_Put(__builtin_offsetof(VexGuestAMD64State, guest_CMLEN), IRExpr_Const(IRConst_U64(len))));
}

/* --- threads not recorded: a block's mode, by the thread that runs it ------ */

/* A block's translations with thread_blocks: the mode of the last, and
 * how often it turned from one to the other. */
typedef struct block_flip {
    struct block_flip *next; /* the hash table's (VgHashNode) */
    UWord key;               /* the block's address */
    block_mode last;
    UInt flips;
} block_flip;
static VgHashTable *block_flips = NULL;

/* The mode to translate the block at `pc` in, `mode` the one the running
 * thread wants (fast or precise): `mode`, or dual once the block has
 * turned FLIPS_DUAL times between the two (code the recorded thread and
 * another both run, which would else be translated again at every
 * switch). */
static block_mode thread_block_mode(Addr pc, block_mode mode)
{
    block_flip *f;
    if (!block_flips)
        block_flips = VG_(HT_construct)("tearec.flips");
    f = VG_(HT_lookup)(block_flips, (UWord)pc);
    if (!f) {
        f = VG_(malloc)("tearec.flip", sizeof *f);
        f->key = (UWord)pc;
        f->last = mode;
        f->flips = 0;
        VG_(HT_add_node)(block_flips, f);
        return mode;
    }
    if (f->last != mode && f->flips < FLIPS_DUAL)
        f->flips++;
    f->last = mode;
    return f->flips >= FLIPS_DUAL ? BLOCK_DUAL : mode;
}

/* The instructions a block starting at `pc` with `insns` of them takes off
 * the fast-forward's count: all, but one fewer when counting reps once
 * (`rep`: it starts with a rep string instruction) and it is entered
 * between passes of that instruction that ran precise (the last precise
 * instruction is this one). */
static IRTemp add_block_count(IRSB *sb, Addr pc, UInt insns, Bool rep)
{
    IRTemp last, same;
    if (!reps_once || !rep)
        return add_tmp(sb, Ity_I64, IRExpr_Const(IRConst_U64((ULong)insns)));
    tl_assert(sizeof last_insn_pc == 8);
    last = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&last_insn_pc)));
    same = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(last), IRExpr_Const(IRConst_U64((ULong)pc))));
    return add_tmp(sb, Ity_I64,
                   IRExpr_ITE(IRExpr_RdTmp(same), IRExpr_Const(IRConst_U64((ULong)insns - 1)),
                              IRExpr_Const(IRConst_U64((ULong)insns))));
}

/* Counting reps once, a fast run forgets the last precise instruction
 * (when `run_fast` holds; NULL: always): a rep string instruction entered
 * after it is a new one. Not in another thread's run: the last precise
 * instruction is the recorded thread's, which may be between two passes
 * of a rep when the switch came. */
static void add_forget_last_insn(IRSB *sb, IRExpr *run_fast)
{
    IRTemp other = add_tmp(sb, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&other_thread_running)));
    IRTemp own = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ8, IRExpr_RdTmp(other), IRExpr_Const(IRConst_U8(0))));
    IRExpr *forget = IRExpr_RdTmp(own);

    tl_assert(sizeof last_insn_pc == 8 && sizeof other_thread_running == 1);
    if (run_fast)
        forget = IRExpr_RdTmp(add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, run_fast, forget)));
    addStmtToIRSB(sb, IRStmt_StoreG(Iend_LE, mkIRExpr_HWord((HWord)&last_insn_pc), IRExpr_Const(IRConst_U64(0)), forget));
}

/* A fast block's start, at its first instruction `pc`: leave when fewer
 * than its instructions (add_block_count) are left to pass, else take
 * them off. Counting reps once, every fast block forgets the last precise
 * instruction. */
static void add_fast_block_start(IRSB *sb, Addr pc, Int offset_ip, UInt insns, Bool rep)
{
    IRExpr *counter = mkIRExpr_HWord((HWord)&fast_left);
    IRTemp left = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, counter));
    IRTemp count = add_block_count(sb, pc, insns, rep);
    IRTemp leave = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(left), IRExpr_RdTmp(count)));
    IRTemp rest;

    add_switch_exit(sb, leave, pc, offset_ip);
    rest = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Sub64, IRExpr_RdTmp(left), IRExpr_RdTmp(count)));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, counter, IRExpr_RdTmp(rest)));
    if (reps_once)
        add_forget_last_insn(sb, NULL);
}

/* The recorded thread has fewer instructions left to pass than the fast
 * block about to run holds: the rest are counted one by one (on_insn). */
static void fast_ends(void)
{
    tl_assert(state == REC_SKIP && skip_left == 1 && !other_thread_running);
    skip_left += fast_left;
    fast_left = 0;
    fast_wanted = False;
}

/* A dual block's start, at its first instruction `pc`: whether it runs fast,
 * returned as an Ity_I1 temporary. It does when fast ones are wanted and
 * at least its instructions are left to pass (then taken off the
 * count, add_block_count), unless `precise` (a block holding the
 * --start-at entry); when fewer are left, fast_ends() and it runs precise.
 * Counting reps once, every fast run forgets the last precise
 * instruction. Once recording is done the block leaves, dropping every
 * translation: the code runs on uninstrumented. */
static IRTemp add_block_start(IRSB *sb, Addr pc, Int offset_ip, UInt insns, Bool rep, Bool precise)
{
    IRExpr *counter = mkIRExpr_HWord((HWord)&fast_left);
    IRTemp wanted, left, count, is_short, run_fast, ends;
    IRDirty *di;

    tl_assert(sizeof fast_wanted == 1 && sizeof last_insn_pc == 8 && sizeof state == 4);
    {
        IRTemp now = add_tmp(sb, Ity_I32, IRExpr_Load(Iend_LE, Ity_I32, mkIRExpr_HWord((HWord)&state)));
        IRTemp done = add_tmp(sb, Ity_I1,
                              IRExpr_Binop(Iop_CmpEQ32, IRExpr_RdTmp(now), IRExpr_Const(IRConst_U32((UInt)REC_DONE))));
        add_switch_exit(sb, done, pc, offset_ip);
    }
    wanted = add_tmp(sb, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&fast_wanted)));
    wanted = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE8, IRExpr_RdTmp(wanted), IRExpr_Const(IRConst_U8(0))));
    left = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, counter));
    count = add_block_count(sb, pc, insns, rep);
    is_short = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(left), IRExpr_RdTmp(count)));
    ends = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(wanted), IRExpr_RdTmp(is_short)));
    if (precise) {
        run_fast = add_tmp(sb, Ity_I1, IRExpr_Const(IRConst_U1(False)));
    } else {
        IRTemp enough = add_tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, IRExpr_RdTmp(is_short)));
        IRTemp rest = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Sub64, IRExpr_RdTmp(left), IRExpr_RdTmp(count)));
        run_fast = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(wanted), IRExpr_RdTmp(enough)));
        addStmtToIRSB(sb, IRStmt_StoreG(Iend_LE, counter, IRExpr_RdTmp(rest), IRExpr_RdTmp(run_fast)));
        if (reps_once)
            add_forget_last_insn(sb, IRExpr_RdTmp(run_fast));
    }
    di = unsafeIRDirty_0_N(0, "tearec_fast_ends", VG_(fnptr_to_fnentry)(fast_ends), mkIRExprVec_0());
    di->guard = IRExpr_RdTmp(ends);
    addStmtToIRSB(sb, IRStmt_Dirty(di));
    return run_fast;
}

/* Adds `delta` (modulo 2^64: a refund is a negative one) to the 64-bit
 * `counter` when `taken` holds (NULL: always), inline: a load, an add and
 * a store. */
static void add_to_counter(IRSB *sb, ULong *counter, IRExpr *taken, ULong delta)
{
    IRExpr *at = mkIRExpr_HWord((HWord)counter);
    IRTemp old = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
    IRExpr *step = IRExpr_Const(IRConst_U64(delta));
    IRTemp sum;

    if (taken)
        step = IRExpr_RdTmp(add_tmp(sb, Ity_I64, IRExpr_ITE(taken, step, IRExpr_Const(IRConst_U64(0)))));
    sum = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old), step));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(sum)));
}

/* Before a side exit `guard` (NULL: the block's end) of a block that ran
 * fast (`run_fast`, a dual block's; IRTemp_INVALID: a fast block): when
 * it is taken, `unrun` instructions of the block's count did not run;
 * give them back. */
static void add_fast_exit_refund(IRSB *sb, IRExpr *guard, IRTemp run_fast, UInt unrun)
{
    IRExpr *taken = guard ? guard : IRExpr_Const(IRConst_U1(True));

    if (unrun == 0)
        return;
    if (run_fast != IRTemp_INVALID)
        taken = IRExpr_RdTmp(add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, taken, IRExpr_RdTmp(run_fast))));
    add_to_counter(sb, &fast_left, taken, (ULong)unrun);
}

/* Whether the instruction at `pc` is a rep-prefixed string instruction
 * (movs, cmps, stos, lods, scas, ins, outs after F2 or F3 among its
 * prefixes), which VEX runs one pass per execution of its own block. */
static Bool is_rep_string(Addr pc, UInt len)
{
    const UChar *code = (const UChar *)pc;
    Bool rep = False;
    UInt i = 0;
    for (; i < len; i++) {
        UChar b = code[i];
        if (b == 0xF2 || b == 0xF3)
            rep = True;
        else if (!(b == 0x66 || b == 0x67 || b == 0x2E || b == 0x3E || b == 0x26 || b == 0x36 || b == 0x64
                   || b == 0x65 || (b & 0xF0) == 0x40))
            break;
    }
    if (!rep || i >= len)
        return False;
    return (code[i] >= 0xA4 && code[i] <= 0xA7) || (code[i] >= 0xAA && code[i] <= 0xAF)
           || (code[i] >= 0x6C && code[i] <= 0x6F);
}

/* Counting reps once in a fast block whose current (or last) instruction
 * is the rep string instruction at `rep_pc`: an exit to `dst` that goes
 * back to it (its next pass, which the block it enters counts as its
 * first instruction) gives that count back. `guard` NULL: the block's
 * end. */
static void add_rep_pass_refund(IRSB *sb, IRExpr *guard, IRTemp run_fast, const IRConst *dst, Addr rep_pc)
{
    if (dst->tag != Ico_U64 || (Addr)dst->Ico.U64 != rep_pc)
        return;
    add_fast_exit_refund(sb, guard, run_fast, 1);
}

/* The instruction marks of a block: its instructions as Valgrind runs
 * them (each pass of a rep string instruction one), which the thread
 * counts add up. */
static UInt block_marks(const IRSB *sb)
{
    UInt n = 0;
    for (Int i = 0; i < sb->stmts_used; i++)
        n += sb->stmts[i] && sb->stmts[i]->tag == Ist_IMark;
    return n;
}

/* The instructions of a block (its instruction marks). Counting reps
 * once, a mark at the same address as the one before is the same rep
 * instruction's next pass (VEX unrolls a rep's passes into one block), not
 * an instruction. */
static UInt block_insns(const IRSB *sb)
{
    UInt n = 0;
    Addr prev = 0;
    for (Int i = 0; i < sb->stmts_used; i++) {
        if (!sb->stmts[i] || sb->stmts[i]->tag != Ist_IMark)
            continue;
        n += !(reps_once && n && (Addr)sb->stmts[i]->Ist.IMark.addr == prev
               && is_rep_string(prev, sb->stmts[i]->Ist.IMark.len));
        prev = (Addr)sb->stmts[i]->Ist.IMark.addr;
    }
    return n;
}

/* Chooses how to translate a block of `insns` instructions about to run:
 * fast while the state wants it, unless the recorded thread has fewer than
 * `insns` left to pass, which on_insn then counts one by one. */
static Bool translate_fast(UInt insns)
{
    if (fast_wanted && !other_thread_running && fast_left < (ULong)insns)
        fast_ends();
    return fast_wanted;
}

/* A precise block's start, at its first instruction `pc`: leave when
 * fast_wanted is set. Blocks are left at their start only: inside a block
 * the guest state may not be up to date (the optimizer ran before the
 * tool), so once a block runs, its precise instructions count as fast ones
 * would (on_insn). */
static void add_precise_block_start(IRSB *sb, Addr pc, Int offset_ip, Bool rep)
{
    IRTemp wanted = newIRTemp(sb->tyenv, Ity_I8), leave = newIRTemp(sb->tyenv, Ity_I1);

    tl_assert(sizeof fast_wanted == 1);
    addStmtToIRSB(sb, IRStmt_WrTmp(wanted, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&fast_wanted))));
    addStmtToIRSB(sb, IRStmt_WrTmp(leave, IRExpr_Binop(Iop_CmpNE8, IRExpr_RdTmp(wanted), IRExpr_Const(IRConst_U8(0)))));
    if (rep && reps_once) {
        /* Counting reps once, a rep string instruction between passes (the
         * last one precise) stays precise, where its passes count as one:
         * a fast block entered at it would count it again. */
        IRTemp last = newIRTemp(sb->tyenv, Ity_I64), other = newIRTemp(sb->tyenv, Ity_I1),
               both = newIRTemp(sb->tyenv, Ity_I1);
        tl_assert(sizeof last_insn_pc == 8);
        addStmtToIRSB(sb, IRStmt_WrTmp(last, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&last_insn_pc))));
        addStmtToIRSB(sb, IRStmt_WrTmp(other, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(last),
                                                           IRExpr_Const(IRConst_U64((ULong)pc)))));
        addStmtToIRSB(sb, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(leave), IRExpr_RdTmp(other))));
        leave = both;
    }
    add_switch_exit(sb, leave, pc, offset_ip);
}

/* Parses "fn_HEX" (a function named by its ELF address) into *addr. */
static Bool parse_address_name(const HChar *name, Addr *addr)
{
    const HChar *p = name + sizeof FDE_NAME_PREFIX - 1;
    Addr a = 0;

    if (!name || VG_(strncmp)(name, FDE_NAME_PREFIX, sizeof FDE_NAME_PREFIX - 1) != 0 || !*p)
        return False;
    for (; *p; p++) {
        Int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0 || a >> 60)
            return False;
        a = a << 4 | (Addr)d;
    }
    *addr = a;
    return True;
}

/* Is `pc` the ELF address `elf` of the object it lies in? */
static Bool is_elf_address(Addr pc, Addr elf)
{
    DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), pc);
    return di && pc - (Addr)VG_(DebugInfo_get_text_bias)(di) == elf;
}

/* Is `pc` the entry of the function named `name`, or at the ELF address
 * that names it (by_address)? */
static Bool is_entry_of(Addr pc, const HChar *name, Bool by_address, Addr address)
{
    const HChar *fn;
    if (!name)
        return False;
    if (by_address && is_elf_address(pc, address))
        return True;
    return VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), pc, &fn) && VG_(strcmp)(fn, name) == 0;
}

/* Does the block hold the entry of the --start-at function? */
static Bool block_starts_region(const IRSB *sb)
{
    for (Int i = 0; i < sb->stmts_used; i++) {
        const IRStmt *st = sb->stmts[i];
        if (st && st->tag == Ist_IMark
            && is_entry_of((Addr)st->Ist.IMark.addr, clo_start_at, start_by_address, start_address))
            return True;
    }
    return False;
}

/* --bbv-out: the block as it runs (CPUID answers fixed, add_statement),
 * with the count of its instructions through each exit (bbv.h; a rep's
 * passes VEX unrolled in the block counting once). */
static IRSB *bbv_instrument(IRSB *sb_in)
{
    IRSB *sb = deepCopyIRSBExceptStmts(sb_in);
    Addr block = 0, first_rep = 0, last_rep = 0, prev = 0;
    UInt seen = 0, exit = 0;

    for (Int i = 0; i < sb_in->stmts_used; i++) {
        IRStmt *st = sb_in->stmts[i];
        if (!st)
            continue;
        if (st->tag == Ist_IMark) {
            Addr pc = (Addr)st->Ist.IMark.addr;
            Bool rep = is_rep_string(pc, st->Ist.IMark.len);
            if (!seen) {
                block = pc;
                first_rep = rep ? pc : 0;
            }
            seen += !(rep && seen && pc == prev);
            last_rep = rep ? pc : 0;
            prev = pc;
        } else if (st->tag == Ist_Exit && seen) {
            tearec_bbv_add_count(sb, st->Ist.Exit.guard, block, exit++, seen, first_rep, last_rep);
        }
        add_statement(sb, st);
    }
    if (seen)
        tearec_bbv_add_count(sb, NULL, block, exit, seen, first_rep, last_rep);
    return sb;
}

static IRSB *tearec_instrument(VgCallbackClosure *closure, IRSB *sb_in, const VexGuestLayout *layout,
                               const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy,
                               IRType hWordTy)
{
    IRSB *sb;
    insn_guards g = { BLOCK_DUAL, IRTemp_INVALID, IRTemp_INVALID, IRTemp_INVALID };
    Bool stay = False, starts_region;
    UInt insns, seen = 0; /* instructions in the block, and up to the current one */
    UInt marks, marks_seen = 0; /* its instruction marks (the thread counts'), and up to the current one */
    Addr rep_pc = 0;      /* counting reps once, not precise: the current instruction when a rep string one */
    Addr prev_pc = 0;     /* the previous instruction mark's */
    UInt prev_len = 0;    /* ... and its length (bytes) */
    IRTemp log_branches = IRTemp_INVALID; /* --branch-warmup, not precise: this run logs branches */
    Bool exit_seen = False; /* ... and the current instruction has a side exit logged as a branch's */
    Bool prev_string = False; /* the current instruction is a rep string one (no branch: its exits repeat it) */
    Int i = 0;

    (void)closure;
    (void)archinfo_host;
    (void)hWordTy;
    if (gWordTy != Ity_I64)
        VG_(tool_panic)("tearec: 64-bit guests only");
    if (clo_bbv_out)
        return bbv_instrument(sb_in);
    if (state == REC_DONE)
        return only_cpuid_fixed(sb_in); /* nothing more to record */
    insns = block_insns(sb_in);
    marks = block_marks(sb_in);
    /* the region may start inside it: precise, and never left at its start
     * (on_insn counts its instructions while fast ones are wanted) */
    starts_region = block_starts_region(sb_in);
    if (!dual_blocks) {
        g.mode = translate_fast(insns) ? BLOCK_FAST : BLOCK_PRECISE;
        if (g.mode == BLOCK_FAST && starts_region) {
            g.mode = BLOCK_PRECISE;
            stay = True;
        }
        if (thread_blocks && !stay)
            g.mode = thread_block_mode((Addr)vge->base[0], g.mode);
    }
    sb = deepCopyIRSBExceptStmts(sb_in);
    /* Statements before the first instruction mark stay as they are. */
    while (i < sb_in->stmts_used && sb_in->stmts[i]->tag != Ist_IMark) {
        addStmtToIRSB(sb, sb_in->stmts[i]);
        i++;
    }
    add_switch_range(sb, vge);
    for (; i < sb_in->stmts_used; i++) {
        IRStmt *st = sb_in->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        if (st->tag == Ist_IMark) {
            Addr pc = (Addr)st->Ist.IMark.addr;
            UInt len = st->Ist.IMark.len;
            report_object(pc);
            addStmtToIRSB(sb, st);
            Bool first = seen == 0, rep = reps_once && is_rep_string(pc, len);
            seen += !(rep && seen && pc == prev_pc); /* a rep's next pass is no new instruction */
            marks_seen++;
            /* the previous instruction's side exit was not taken (or, were
             * VEX to chase a jump or call, it jumped here) */
            if (log_branches != IRTemp_INVALID && pc != prev_pc && !prev_string
                && (exit_seen || prev_pc + prev_len != pc))
                add_branch_log(sb, log_branches, NULL, prev_pc, IRExpr_Const(IRConst_U64((ULong)pc)));
            exit_seen = False;
            prev_pc = pc;
            prev_len = len;
            prev_string = clo_branch_warmup && g.mode != BLOCK_PRECISE && is_rep_string(pc, len);
            rep_pc = g.mode != BLOCK_PRECISE && rep ? pc : 0;
            if (first && g.mode == BLOCK_FAST)
                add_fast_block_start(sb, pc, layout->offset_IP, insns, rep);
            if (first && g.mode == BLOCK_PRECISE && !stay)
                add_precise_block_start(sb, pc, layout->offset_IP, rep);
            if (first && g.mode == BLOCK_DUAL) {
                g.run_fast = add_block_start(sb, pc, layout->offset_IP, insns, rep, starts_region);
                g.run_precise = add_tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, IRExpr_RdTmp(g.run_fast)));
            }
            if (first && clo_branch_warmup && g.mode != BLOCK_PRECISE)
                log_branches = add_branch_guard(sb, &g, block_branch_logs(sb_in));
            if (first) /* the running thread's count, once the block can no longer leave at its start */
                add_to_counter(sb, &running_insns, NULL, (ULong)marks);
            if (is_entry_of(pc, clo_start_at, start_by_address, start_address))
                add_call0(sb, "tearec_start", on_start_symbol, NULL);
            g.recorded = IRTemp_INVALID;
            /* the bytes of what the model times, warms or trains on */
            if (g.mode != BLOCK_FAST || clo_branch_warmup)
                report_code(pc, len);
            if (g.mode == BLOCK_FAST)
                continue;
            if (is_entry_of(pc, clo_stop_at, stop_by_address, stop_address))
                add_call0(sb, "tearec_stop", on_stop_symbol, g.mode == BLOCK_DUAL ? IRExpr_RdTmp(g.run_precise) : NULL);
            add_precise_insn(sb,
                             TEAREC_STREAM_INSN << TEAREC_STREAM_KIND_SHIFT
                                 | (ULong)(len & 0xff) << TEAREC_STREAM_SIZE_SHIFT
                                 | ((ULong)pc & TEAREC_STREAM_ADDR_MASK),
                             rep, &g);
            continue;
        }
        if (st->tag == Ist_Exit && marks_seen < marks) /* what a side exit leaves unrun is no thread's */
            add_to_counter(sb, &running_insns, st->Ist.Exit.guard, -(ULong)(marks - marks_seen));
        if (st->tag == Ist_Exit && g.mode != BLOCK_PRECISE) {
            add_fast_exit_refund(sb, st->Ist.Exit.guard, g.run_fast, insns - seen);
            if (rep_pc)
                add_rep_pass_refund(sb, st->Ist.Exit.guard, g.run_fast, st->Ist.Exit.dst, rep_pc);
            if (log_branches != IRTemp_INVALID && is_branch_jump(st->Ist.Exit.jk) && !prev_string
                && st->Ist.Exit.dst->tag == Ico_U64 && st->Ist.Exit.dst->Ico.U64 != (ULong)prev_pc) {
                add_branch_log(sb, log_branches, st->Ist.Exit.guard, prev_pc,
                               IRExpr_Const(IRConst_U64(st->Ist.Exit.dst->Ico.U64)));
                exit_seen = True;
            }
        }
        add_accesses(sb, sb_in->tyenv, st, &g);
        add_statement(sb, st);
    }
    /* a plain rep's block ends jumping back to itself: its next pass */
    if (rep_pc && sb->next->tag == Iex_Const && sb->jumpkind == Ijk_Boring)
        add_rep_pass_refund(sb, NULL, g.run_fast, sb->next->Iex.Const.con, rep_pc);
    /* the last instruction's transfer, unless it falls through with none */
    if (log_branches != IRTemp_INVALID && is_branch_jump(sb->jumpkind) && !prev_string
        && (exit_seen || sb->next->tag != Iex_Const || sb->next->Iex.Const.con->tag != Ico_U64
            || sb->next->Iex.Const.con->Ico.U64 != (ULong)(prev_pc + prev_len)))
        add_branch_log(sb, log_branches, NULL, prev_pc, deepCopyIRExpr(sb->next));
    return sb;
}

static void go_thread_blocks(ThreadId parent);

/* A thread ends: with --bbv-out, its last interval is written. */
static void tearec_thread_exit(ThreadId tid)
{
    if (clo_bbv_out && tid < VG_N_THREADS)
        tearec_bbv_thread_exit(serial_of[tid]);
}

/* A thread is created: counted for the trace's header; with several
 * threads, given its serial. */
static void tearec_thread_created(ThreadId parent, ThreadId child)
{
    threads_started++;
    go_thread_blocks(parent);
    if (!serial_of || child >= VG_N_THREADS)
        return;
    if (parent == VG_INVALID_THREADID) /* the main thread, serial 1 */
        serial_of[child] = MAIN_THREAD;
    else
        serial_of[child] = next_serial < SERIALS_MAX ? next_serial++ : SERIALS_MAX;
}

/* A second thread: unless every thread is recorded (or translations are
 * dual already), each block is translated from now on for the kind of
 * thread that runs it (thread_blocks, see "Threads not recorded"). Those
 * made before stay correct: a fast one runs fast for a thread that is not
 * recorded (its count never ends), and a precise one leaves at its start
 * for it (fast is wanted), dropping every translation once, so that the
 * code is translated again. (Translations cannot be dropped here, inside
 * the clone's wrapper.) */
static void go_thread_blocks(ThreadId parent)
{
    if (dual_blocks || thread_blocks || parent == VG_INVALID_THREADID || state == REC_DONE
        || (several_threads && every_thread))
        return;
    thread_blocks = True;
}

/* Makes the images exec'd later use descriptor `fd` for the stream: the
 * "--tea-fd=" entry of the options they are started with names it. */
static void pass_fd_on(Int fd)
{
    Word n = VG_(sizeXA)(VG_(args_for_valgrind));

    VG_(sprintf)(fd_option, "%s%d", FD_OPTION, fd);
    for (Word i = 0; i < n; i++) {
        HChar **arg = VG_(indexXA)(VG_(args_for_valgrind), i);
        if (VG_(strncmp)(*arg, FD_OPTION, sizeof FD_OPTION - 1) == 0)
            *arg = fd_option;
    }
}

/* Moves the stream to a descriptor among Valgrind's own, which the program
 * can neither close nor reuse, open across exec (no FD_CLOEXEC), and passes
 * its number on. Where none is free, the stream stays where it is. */
static void protect_stream(void)
{
    Int fd = clo_fd;

    if (clo_fd < VG_(fd_hard_limit)) {
        fd = VG_(fcntl)(clo_fd, VKI_F_DUPFD, (Addr)VG_(fd_hard_limit));
        if (fd < 0)
            fd = clo_fd;
        else
            VG_(close)(clo_fd);
    }
    VG_(fcntl)(fd, VKI_F_SETFD, 0);
    clo_fd = fd;
    pass_fd_on(fd);
}

/* Connects a new stream to tea record's socket (clo_children, a name in
 * the abstract namespace); the descriptor, or -1. Never blocks for long:
 * a listening socket takes the connection into its backlog, and without
 * tea record it is refused. */
static Int connect_child_stream(void)
{
    struct vki_sockaddr_un addr;
    UInt len = (UInt)VG_(strlen)(clo_children);
    Int fd;
    SysRes res;

    if (len + 1 > sizeof addr.sun_path)
        return -1;
    fd = VG_(socket)(VKI_AF_UNIX, VKI_SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    VG_(memset)(&addr, 0, sizeof addr);
    addr.sun_family = VKI_AF_UNIX;
    VG_(memcpy)(addr.sun_path + 1, clo_children, len); /* sun_path[0] = 0: abstract */
    do
        res = VG_(do_syscall)(__NR_connect, (RegWord)fd, (RegWord)&addr, (RegWord)(sizeof addr.sun_family + 1 + len), 0,
                              0, 0, 0, 0);
    while (sr_isError(res) && sr_Err(res) == VKI_EINTR);
    if (sr_isError(res)) {
        VG_(close)(fd);
        return -1;
    }
    return fd;
}

/* In a child of fork() the stream is the parent's: this copy of the program
 * records nothing. With --tea-children the child connects a stream of its
 * own, which the programs it execs write to (the parent's copy is closed
 * only afterwards, so that tea record sees the child before the parent's
 * stream can end); without, its execs run without Valgrind. */
static void tearec_fork_child(ThreadId tid)
{
    Int parent_fd = clo_fd, fd = clo_children ? connect_child_stream() : -1;

    (void)tid;
    if (clo_bbv_out) { /* the vectors are the parent's */
        tearec_bbv_forget();
        return;
    }
    buf_len = 0;
    state = REC_DONE;
    cur_on = False;
    gate_update();
    out_failed = True;
    if (parent_fd >= 0)
        VG_(close)(parent_fd);
    clo_fd = fd;
    if (fd >= 0)
        protect_stream();
    else
        VG_(clo_trace_children) = False;
}

/* Before an exec the buffered records go out: the new image continues the
 * stream, and the buffer dies with this one. */
static void tearec_pre_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nArgs)
{
    (void)tid;
    (void)args;
    (void)nArgs;
    if (syscallno == __NR_execve || syscallno == __NR_execveat)
        flush();
}

static void tearec_post_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nArgs, SysRes res)
{
    (void)tid;
    (void)syscallno;
    (void)args;
    (void)nArgs;
    (void)res;
}

/* tea_record_start() / tea_record_stop() */
static Bool tearec_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    if (args[0] == TEAREC_STREAM_REQUEST_START) {
        if (is_recorded(tid))
            start_recording();
    } else if (args[0] == TEAREC_STREAM_REQUEST_STOP) {
        if (is_recorded(tid) && state != REC_WAIT)
            stop_recording(TEAREC_STREAM_STOP_REQUEST);
    } else {
        return False;
    }
    *ret = 0;
    return True;
}

static Bool tearec_option(const HChar *arg)
{
    if VG_INT_CLO (arg, "--tea-fd", clo_fd) {
    } else if VG_BINT_CLO (arg, "--skip", clo_skip, 0, (1LL << 62)) {
    } else if VG_BINT_CLO (arg, "--max-instructions", clo_max, 0, (1LL << 62)) {
    } else if VG_BINT_CLO (arg, "--warmup", clo_warmup, 0, (1LL << 62)) {
    } else if VG_STR_CLO (arg, "--start-at", clo_start_at) {
    } else if VG_STR_CLO (arg, "--stop-at", clo_stop_at) {
    } else if VG_BOOL_CLO (arg, "--wait-start", clo_wait_start) {
    } else if VG_BINT_CLO (arg, "--thread", clo_thread, 1, VG_N_THREADS) {
    } else if VG_STR_CLO (arg, "--threads", clo_threads) {
    } else if VG_STR_CLO (arg, "--tea-children", clo_children) {
    } else if VG_BINT_CLO (arg, "--sample-every", clo_sample_every, 0, (1LL << 62)) {
    } else if VG_BINT_CLO (arg, "--sample-length", clo_sample_length, 0, (1LL << 62)) {
    } else if VG_STR_CLO (arg, "--sample-starts", clo_sample_starts) {
    } else if VG_STR_CLO (arg, "--warm-caches", clo_warm_caches) {
    } else if VG_BINT_CLO (arg, "--branch-warmup", clo_branch_warmup, 0, (1LL << 62)) {
    } else if VG_BOOL_CLO (arg, "--call-paths", clo_call_paths) {
    } else if VG_STR_CLO (arg, "--bbv-out", clo_bbv_out) {
    } else if VG_BINT_CLO (arg, "--bbv-interval", clo_bbv_interval, 1, (1LL << 62)) {
    } else
        return False;
    return True;
}

static void tearec_usage(void)
{
    VG_(printf)
    ("    --tea-fd=N               write the record stream to file descriptor N\n"
     "    --skip=N                 skip N instructions once started [0]\n"
     "    --max-instructions=N     stop after N recorded instructions [0: no limit]\n"
     "    --warmup=N               then send N instructions to warm the model [0]\n"
     "    --start-at=FUNCTION      start at the entry of FUNCTION\n"
     "    --stop-at=FUNCTION       stop after the entry instruction of FUNCTION\n"
     "    --wait-start=yes|no      start at tea_record_start() [no]\n"
     "    --thread=N               the thread to record (Valgrind's numbering) [1]\n"
     "    --threads=all|N,N,...    record several threads instead (numbered by\n"
     "                             creation), named by SWITCH records; each one\n"
     "                             sampled on its own count with --sample-every\n"
     "    --tea-children=NAME      forked children connect their streams to the\n"
     "                             abstract socket NAME (else they record nothing)\n"
     "    --sample-every=N         time a window in every N instructions [0: no]\n"
     "    --sample-length=N        of N instructions, after --warmup's [0]\n"
     "    --sample-starts=S0,S1,.. time windows of --sample-length from these\n"
     "                             instructions on (increasing; at most 4096);\n"
     "                             with --threads, each thread's: N:S0,S1;N:S0,...\n"
     "    --warm-caches=L1SETS,L1WAYS,L1PF,LLCSETS,LLCWAYS,LLCPF,LINE,PAGE\n"
     "                             keep the L1 D, the LLC and the touched pages\n"
     "                             warm through fast-forwards; send them when one ends\n"
     "    --branch-warmup=N        send the branches of the last N instructions of\n"
     "                             every fast-forward, to train the predictor [0]\n"
     "    --call-paths=yes|no      each sampled window's first instruction sends\n"
     "                             the return addresses of its stack [no]\n"
     "    --bbv-out=PREFIX         record nothing: write each thread's basic-block\n"
     "                             vectors to PREFIX.N (N its number by creation)\n"
     "    --bbv-interval=N         ... in intervals of N instructions\n");
}

static void tearec_debug_usage(void) {}

/* Sends the path of the program this process runs (an EXE record),
 * absolute: the file Valgrind opened (after its PATH search), else the
 * name given, taken from this image's working directory when relative. */
static void report_exe(void)
{
    const HChar *name = VG_(args_the_exename), *cwd = VG_(get_startup_wd)();
    HChar path[TEAREC_STREAM_PATH_MAX], link[64];
    SSizeT n = -1;
    UInt len;

    if (VG_(cl_exec_fd) >= 0) {
        VG_(sprintf)(link, "/proc/self/fd/%d", VG_(cl_exec_fd));
        n = VG_(readlink)(link, path, sizeof path - 1);
    }
    if (n > 0 && path[0] == '/')
        path[n] = '\0';
    else if (!name || !*name)
        return;
    else if (name[0] != '/' && cwd && VG_(strlen)(cwd) + VG_(strlen)(name) + 2 <= sizeof path)
        VG_(sprintf)(path, "%s/%s", cwd, name);
    else if (VG_(strlen)(name) < sizeof path)
        VG_(strcpy)(path, name);
    else
        return;
    len = (UInt)VG_(strlen)(path);
    put(TEAREC_STREAM_EXE << TEAREC_STREAM_KIND_SHIFT | len);
    for (UInt i = 0; i < len; i += 8) {
        ULong w = 0;
        for (UInt k = 0; k < 8 && i + k < len; k++)
            w |= (ULong)(UChar)path[i + k] << (8 * k);
        put(w);
    }
}

/* Parses a decimal number at *p (moved past it) of at most `max`. */
static ULong parse_number(const HChar **p, ULong max, const HChar *option, const HChar *what)
{
    ULong v = 0;
    if (**p < '0' || **p > '9')
        VG_(fmsg_bad_option)(option, "needs %s\n", what);
    for (; **p >= '0' && **p <= '9'; (*p)++) {
        if (v > (max - (ULong)(**p - '0')) / 10)
            VG_(fmsg_bad_option)(option, "a number beyond %llu\n", max);
        v = v * 10 + (ULong)(**p - '0');
    }
    return v;
}

/* Parses --sample-starts into all_starts[]: decimal numbers separated by
 * commas, each at least --sample-length after the one before; with
 * --threads, each thread's after its number and a colon, the threads
 * separated by semicolons in increasing order ("1:S,S;3:S"), into
 * thread_first[] and thread_starts[]. */
static void parse_starts(void)
{
    static const HChar what[] = "numbers separated by commas (with --threads, N:S,S;N:S,...)";
    const HChar *p = clo_sample_starts;
    UInt first = 0;  /* the current thread's first start */
    ULong thread = 0; /* ... and its number, with --threads */

    if (clo_threads) {
        thread_first = VG_(calloc)("tearec.starts.first", SERIALS_MAX, sizeof *thread_first);
        thread_starts = VG_(calloc)("tearec.starts.count", SERIALS_MAX, sizeof *thread_starts);
    }
    while (*p) {
        ULong v;
        if (clo_threads && (all_start_count == first)) {
            ULong n = parse_number(&p, SERIALS_MAX - 1, "--sample-starts", what);
            if (n <= thread || *p++ != ':')
                VG_(fmsg_bad_option)("--sample-starts", "needs %s, threads in increasing order\n", what);
            thread = n;
            thread_first[thread] = first;
        }
        if (all_start_count == MAX_STARTS)
            VG_(fmsg_bad_option)("--sample-starts", "needs up to 4096 starts\n");
        v = parse_number(&p, SKIP_FOREVER, "--sample-starts", what);
        if (all_start_count > first && v < all_starts[all_start_count - 1])
            VG_(fmsg_bad_option)("--sample-starts", "starts must increase\n");
        if (all_start_count > first && v - all_starts[all_start_count - 1] < (ULong)clo_sample_length)
            VG_(fmsg_bad_option)("--sample-starts", "starts must increase by --sample-length at least\n");
        all_starts[all_start_count++] = v;
        if (clo_threads)
            thread_starts[thread]++;
        if (*p == ',') {
            p++;
        } else if (*p == ';' && clo_threads) {
            p++;
            first = all_start_count;
        } else if (*p) {
            VG_(fmsg_bad_option)("--sample-starts", "needs %s\n", what);
        }
    }
    start_count = all_start_count;
    listed_of(MAIN_THREAD);
}

/* --threads=all or a list of thread numbers: the threads recorded. */
static void parse_threads(void)
{
    const HChar *p = clo_threads;

    several_threads = True;
    recorded_threads = VG_(calloc)("tearec.recorded", SERIALS_MAX, sizeof *recorded_threads);
    serial_of = VG_(calloc)("tearec.serials", VG_N_THREADS, sizeof *serial_of);
    serial_of[MAIN_THREAD] = MAIN_THREAD;
    if (VG_(strcmp)(p, "all") == 0) {
        every_thread = True;
        return;
    }
    while (*p) {
        ULong v = 0;
        if (*p < '0' || *p > '9')
            VG_(fmsg_bad_option)("--threads", "needs all or thread numbers separated by commas\n");
        for (; *p >= '0' && *p <= '9'; p++)
            if ((v = v * 10 + (ULong)(*p - '0')) >= SERIALS_MAX)
                VG_(fmsg_bad_option)("--threads", "thread numbers run from 1 to %d\n", SERIALS_MAX - 1);
        if (v == 0)
            VG_(fmsg_bad_option)("--threads", "thread numbers run from 1 to %d\n", SERIALS_MAX - 1);
        recorded_threads[v] = True;
        if (*p == ',')
            p++;
        else if (*p)
            VG_(fmsg_bad_option)("--threads", "needs all or thread numbers separated by commas\n");
    }
}

static void tearec_post_clo_init(void)
{
    /* No superblocks across branches (so no chased jump or call inside a
     * block; the rules for one above stay as a defence): with chasing on, VEX also merges
     * `jcc L; (a few register-only instructions); jcc L` into one guarded
     * exit, and the second branch's instructions then sit in the block as
     * if they always ran: they would be counted and recorded when the
     * first branch jumped away. */
    VG_(clo_vex_control).guest_chase = False;
    hide_rdtscp = !host_has_rdtscp();
    if (clo_bbv_out) {
        if (clo_bbv_interval < 1)
            VG_(fmsg_bad_option)("--bbv-out", "needs --bbv-interval=N\n");
        serial_of = VG_(calloc)("tearec.serials", VG_N_THREADS, sizeof *serial_of);
        serial_of[MAIN_THREAD] = MAIN_THREAD;
        reps_once = True;
        state = REC_DONE;
        tearec_bbv_init(clo_bbv_out, (ULong)clo_bbv_interval);
        return;
    }
    if (clo_fd < 0)
        VG_(fmsg_bad_option)("--tea-fd", "tearec needs --tea-fd=N (it is started by tea record)\n");
    if (clo_sample_starts) {
        if (clo_sample_every || clo_sample_length < 1 || clo_max || clo_skip)
            VG_(fmsg_bad_option)("--sample-starts", "needs --sample-length >= 1, and no --sample-every, "
                                                    "--skip or --max-instructions\n");
        parse_starts();
        if (!all_start_count)
            VG_(fmsg_bad_option)("--sample-starts", "needs at least one start\n");
        reps_once = True;
        listed = True;
    }
    if (clo_threads) {
        parse_threads();
        if (clo_sample_every || clo_skip || clo_warmup || listed) {
            per_thread_state = True;
            thread_ctxs = VG_(calloc)("tearec.ctxs", SERIALS_MAX, sizeof *thread_ctxs);
        }
    }
    dual_blocks = clo_sample_every != 0 || per_thread_state;
    if (clo_warm_caches)
        parse_warm_caches();
    if (clo_branch_warmup)
        branch_buf = VG_(malloc)("tearec.branches", (BRANCH_BUF_ENTRIES + 1) * BRANCH_WORDS * sizeof *branch_buf);
    thread_slots = several_threads ? SERIALS_MAX : VG_N_THREADS;
    thread_insns = VG_(calloc)("tearec.threads", thread_slots, sizeof *thread_insns);
    tl_assert(sizeof *branch_buf * BRANCH_WORDS == 1u << BRANCH_SHIFT);
    if (clo_sample_every
        && (clo_sample_length < 1 || clo_sample_length >= clo_sample_every
            || clo_warmup > clo_sample_every - clo_sample_length))
        VG_(fmsg_bad_option)("--sample-every", "needs 1 <= --sample-length < N and --warmup <= N - length\n");
    if (VG_(fcntl)(clo_fd, VKI_F_GETFD, 0) < 0) {
        /* no stream: a program exec'd after tea record was gone */
        out_failed = True;
        state = REC_DONE;
        gate_update();
        return;
    }
    protect_stream();
    start_by_address = parse_address_name(clo_start_at, &start_address);
    stop_by_address = parse_address_name(clo_stop_at, &stop_address);
    report_exe();
    state = REC_WAIT;
    gate_update();
    if (!clo_start_at && !clo_wait_start)
        start_recording();
}

static void tearec_fini(Int exitcode)
{
    (void)exitcode;
    if (clo_bbv_out) {
        tearec_bbv_fini();
        return;
    }
    put_counts();
    stop_recording(TEAREC_STREAM_STOP_EXIT);
    flush();
}

static void tearec_pre_clo_init(void)
{
    VG_(details_name)("tearec");
    VG_(details_version)(NULL);
    VG_(details_description)("the instruction recorder of tea record");
    VG_(details_copyright_author)("");
    VG_(details_bug_reports_to)("the tea project");
    VG_(basic_tool_funcs)(tearec_post_clo_init, tearec_instrument, tearec_fini);
    VG_(needs_command_line_options)(tearec_option, tearec_usage, tearec_debug_usage);
    VG_(needs_client_requests)(tearec_client_request);
    VG_(track_pre_thread_ll_create)(tearec_thread_created);
    VG_(track_pre_thread_ll_exit)(tearec_thread_exit);
    VG_(track_start_client_code)(tearec_start_client_code);
    VG_(needs_syscall_wrapper)(tearec_pre_syscall, tearec_post_syscall);
    VG_(atfork)(NULL, NULL, tearec_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(tearec_pre_clo_init)
