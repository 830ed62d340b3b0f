/*
 * bbv.c: basic-block vectors per thread (bbv.h).
 */
#include "bbv.h"

#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "core.h"

/* Room for a block's exits in an exit's key (the block's address above). */
#define EXIT_BITS 10
/* The most one entry ":ID:COUNT   " of a line takes, in bytes. */
#define ENTRY_BYTES 40
/* The most a file's path takes beyond the prefix ('.', a serial, NUL). */
#define SUFFIX_BYTES 16

/* A block exit's number, by its key (block address, exit). */
typedef struct exit_node {
    struct exit_node *next; /* the hash table's (VgHashNode) */
    UWord key;
    UInt id;
} exit_node;

/* A thread's vectors. */
typedef struct bbv_thread {
    Int fd;            /* its file, -1 until its first line */
    Bool ended;        /* it ended: its file is closed */
    ULong count;       /* its instructions so far */
    ULong next_end;    /* ... where its current interval ends */
    ULong *counts;     /* [cap] the current interval's instructions, by exit id */
    UInt cap;
    UInt *touched;     /* the ids counted in this interval, first seen first */
    UInt touched_count, touched_cap;
    Addr last_rep;     /* the rep string instruction its last count ended with (0: none) */
} bbv_thread;

static Bool bbv_on = False;
static const HChar *bbv_prefix = NULL;
static ULong bbv_interval = 0;
static VgHashTable *exits = NULL;
static UInt next_id = 1;
static bbv_thread **threads = NULL; /* [thread_cap], by serial */
static UInt thread_cap = 0;
static UInt running = 1; /* the serial running client code */

void tearec_bbv_init(const HChar *prefix, ULong interval)
{
    tl_assert(prefix && interval >= 1);
    bbv_prefix = prefix;
    bbv_interval = interval;
    exits = VG_(HT_construct)("tearec.bbv.exits");
    bbv_on = True;
}

void tearec_bbv_running(UInt serial)
{
    running = serial;
}

/* The vectors of thread `serial`, made when it first counts. */
static bbv_thread *thread_of(UInt serial)
{
    if (serial >= thread_cap) {
        UInt cap = thread_cap ? thread_cap : 16;
        while (cap <= serial)
            cap *= 2;
        threads = VG_(realloc)("tearec.bbv.threads", threads, cap * sizeof *threads);
        VG_(memset)(threads + thread_cap, 0, (cap - thread_cap) * sizeof *threads);
        thread_cap = cap;
    }
    if (!threads[serial]) {
        bbv_thread *t = VG_(calloc)("tearec.bbv.thread", 1, sizeof *t);
        t->fd = -1;
        t->next_end = bbv_interval;
        threads[serial] = t;
    }
    return threads[serial];
}

/* Opens thread `serial`'s file, among Valgrind's own descriptors, which
 * the program can neither close nor reuse; a file that cannot be made
 * ends the run with a message. */
static void open_file(bbv_thread *t, UInt serial)
{
    SizeT size = VG_(strlen)(bbv_prefix) + SUFFIX_BYTES;
    HChar *path = VG_(malloc)("tearec.bbv.path", size);
    Int fd, safe;

    VG_(sprintf)(path, "%s.%u", bbv_prefix, serial);
    fd = VG_(fd_open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
    if (fd < 0) {
        VG_(umsg)("tearec: cannot create %s\n", path);
        VG_(exit)(1);
    }
    safe = VG_(fcntl)(fd, VKI_F_DUPFD, (Addr)VG_(fd_hard_limit));
    if (safe >= 0) {
        VG_(close)(fd);
        fd = safe;
    }
    VG_(fcntl)(fd, VKI_F_SETFD, VKI_FD_CLOEXEC);
    t->fd = fd;
    VG_(free)(path);
}

/* Writes thread `serial`'s current interval as a line, and starts the
 * next. */
static void put_interval(bbv_thread *t, UInt serial)
{
    HChar *line, *p;
    Int left;

    if (!t->touched_count)
        return;
    if (t->fd < 0)
        open_file(t, serial);
    line = VG_(malloc)("tearec.bbv.line", (SizeT)t->touched_count * ENTRY_BYTES + 2);
    p = line;
    *p++ = 'T';
    for (UInt k = 0; k < t->touched_count; k++) {
        UInt id = t->touched[k];
        p += VG_(sprintf)(p, ":%u:%llu   ", id, t->counts[id]);
        t->counts[id] = 0;
    }
    *p++ = '\n';
    t->touched_count = 0;
    for (const HChar *q = line; (left = (Int)(p - q)) > 0;) {
        Int n = VG_(write)(t->fd, q, left);
        if (n <= 0) {
            VG_(umsg)("tearec: cannot write %s.%u\n", bbv_prefix, serial);
            VG_(exit)(1);
        }
        q += n;
    }
    VG_(free)(line);
}

/* Counts `insns` instructions through exit `id` for the running thread:
 * one fewer when they start with the rep string instruction at
 * `first_rep` and the thread's last count ended with it (this is its next
 * pass); `last_rep`, the rep string instruction they end with (0: none). */
static void on_exit_count(UWord id, UWord insns, UWord first_rep, UWord last_rep)
{
    bbv_thread *t;

    if (!bbv_on)
        return;
    t = thread_of(running);
    if (first_rep && t->last_rep == (Addr)first_rep && insns)
        insns--;
    t->last_rep = (Addr)last_rep;
    if (!insns)
        return;
    if (id >= t->cap) {
        UInt cap = t->cap ? t->cap : 1024;
        while (cap <= id)
            cap *= 2;
        t->counts = VG_(realloc)("tearec.bbv.counts", t->counts, cap * sizeof *t->counts);
        VG_(memset)(t->counts + t->cap, 0, (cap - t->cap) * sizeof *t->counts);
        t->cap = cap;
    }
    if (!t->counts[id]) {
        if (t->touched_count == t->touched_cap) {
            t->touched_cap = t->touched_cap ? 2 * t->touched_cap : 256;
            t->touched = VG_(realloc)("tearec.bbv.touched", t->touched, t->touched_cap * sizeof *t->touched);
        }
        t->touched[t->touched_count++] = (UInt)id;
    }
    t->counts[id] += insns;
    t->count += insns;
    if (t->count >= t->next_end) {
        put_interval(t, running);
        while (t->next_end <= t->count)
            t->next_end += bbv_interval;
    }
}

/* The number of exit `exit` of the block at `block`, the same whenever
 * the block is translated again. */
static UInt exit_id(Addr block, UInt exit)
{
    UWord key = (UWord)block << EXIT_BITS | exit;
    exit_node *n;

    tl_assert(exit < (1u << EXIT_BITS) && (UWord)block >> (sizeof(UWord) * 8 - EXIT_BITS) == 0);
    n = VG_(HT_lookup)(exits, key);
    if (!n) {
        n = VG_(malloc)("tearec.bbv.exit", sizeof *n);
        n->key = key;
        n->id = next_id++;
        VG_(HT_add_node)(exits, n);
    }
    return n->id;
}

void tearec_bbv_add_count(IRSB *sb, IRExpr *guard, Addr block, UInt exit, UInt insns, Addr first_rep,
                          Addr last_rep)
{
    IRDirty *di = unsafeIRDirty_0_N(
        0, "tearec_bbv_count", VG_(fnptr_to_fnentry)(on_exit_count),
        mkIRExprVec_4(mkIRExpr_HWord((HWord)exit_id(block, exit)), mkIRExpr_HWord((HWord)insns),
                      mkIRExpr_HWord((HWord)first_rep), mkIRExpr_HWord((HWord)last_rep)));
    if (guard)
        di->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* Writes thread `serial`'s last interval and closes its file. */
static void end_thread(UInt serial)
{
    bbv_thread *t = serial < thread_cap ? threads[serial] : NULL;
    if (!t || t->ended)
        return;
    put_interval(t, serial);
    if (t->fd >= 0)
        VG_(close)(t->fd);
    t->fd = -1;
    t->ended = True;
}

void tearec_bbv_thread_exit(UInt serial)
{
    if (bbv_on)
        end_thread(serial);
}

void tearec_bbv_fini(void)
{
    if (!bbv_on)
        return;
    for (UInt s = 0; s < thread_cap; s++)
        end_thread(s);
    bbv_on = False;
}

void tearec_bbv_forget(void)
{
    for (UInt s = 0; s < thread_cap; s++) {
        if (threads[s] && threads[s]->fd >= 0)
            VG_(close)(threads[s]->fd);
        if (threads[s])
            threads[s]->fd = -1;
    }
    bbv_on = False;
}
