/*
 * session.c: the Valgrind session of tea record: tea's Valgrind tool
 * spawned on a program, its record stream of x86-64 instructions read as
 * model instructions, forked children's streams (see session.h,
 * tearec/stream.h and docs/model.md, "Recording real programs").
 */
#define _GNU_SOURCE
#include "session.h"
#include "binary/elffile.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/hugemem.h"
#include "tearec/stream.h"

#include <assert.h>
#include <capstone/capstone.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* The pipe from Valgrind: as large as the kernel allows an unprivileged
 * process by default; the tool writes batches of this size. */
#define PIPE_BYTES (1u << 20)
#define READ_WORDS (PIPE_BYTES / 8)
/* Static instructions decoded (power of 2; grows). */
#define DECODE_INITIAL 65536u
#define MAX_X86_BYTES 15
#define MAX_READS 8
#define MAX_WRITES 4
/* Register slots tracked for dataflow: capstone x86 register ids. */
#define REG_SLOTS 512
/* A producer further back than this is not a dependence the model tracks. */
#define MAX_DEP_DISTANCE 4096
/* Size assumed for an instruction nothing is known about (wrong path). */
#define UNKNOWN_SIZE 4
/* Arguments of the valgrind command line besides the program's. */
#define VALGRIND_ARGS 24
#define OPTION_BYTES 4200

/* An executable mapping and, when its file could be read, its bytes. */
typedef struct elf_object {
    record_session_object pub;
    uint64_t file_offset;  /* of start in the file */
    binary_elffile file;   /* open while the object is known, when readable */
    int file_open;
    const uint8_t *map;    /* the file's bytes (elf_rawfile of a read-only mapping) */
    size_t map_size;
} elf_object;

/* What decoding a static instruction tells us, and the bytes it came from. */
typedef struct decoded {
    uint64_t pc;
    uint64_t target;       /* direct control flow: the target */
    uint16_t reads[MAX_READS];
    uint16_t writes[MAX_WRITES];
    uint8_t bytes[TEAREC_STREAM_CODE_BYTES];
    uint8_t nbytes;        /* bytes sent by the tool (0: none) */
    uint8_t nreads, nwrites;
    uint8_t size;
    uint8_t cls;           /* model_class before memory accesses are seen */
    uint8_t branch;        /* MODEL_BRANCH_NONE or 1 + model_bpred_kind */
    uint8_t flush;         /* serializing: flushes at commit */
    uint8_t known;         /* decoded from the instruction's bytes */
    uint8_t done;          /* decoded */
    uint8_t used;
} decoded;

#define FIBONACCI_HASH 0x9E3779B97F4A7C15ull /* 2^64 / the golden ratio: multiplicative hashing */

/* What training needs of a branch's decoding (a copy of its table
 * entry's fields), where train_branches finds it in one probe: the
 * trained branches are few and run again and again. */
typedef struct branch_memo {
    uint64_t pc;
    uint64_t target;       /* the decoded direct target */
    uint8_t size, cls;
    uint8_t branch;        /* MODEL_BRANCH_NONE or 1 + model_bpred_kind */
    uint8_t valid;
} branch_memo;
#define BRANCH_MEMO_BITS 10 /* 1,024 entries */
#define THREADS_INITIAL 8   /* room for THREAD records at first; doubles */

/* One executed instruction and its memory accesses. */
typedef struct pending_insn {
    uint64_t pc;
    unsigned size;
    uint64_t load_addr, store_addr;
    unsigned load_size, store_size;
    uint8_t loads, stores, have, warm;
} pending_insn;

struct record_session {
    int fd;
    char *name;
    pid_t pid;             /* Valgrind, or 0 */
    int cleanup;           /* cleanup.h handle of pid (terminated on SIGINT/SIGTERM), or -1 */
    int exited, killed;
    int kill_after;
    uint64_t *buf;         /* words read */
    size_t len, pos;       /* in words */
    size_t partial;        /* bytes of an incomplete word at buf + len */
    int eof;
    int stopped;           /* a STOP record was read */
    int window_pending;    /* a WINDOW record was read: the source reports the boundary next */
    csh cs;
    int cs_open;
    elf_object objects[RECORD_SESSION_OBJECTS_MAX];
    unsigned object_count;
    dev_t exe_dev;         /* the main program's file, to recognise its mapping */
    ino_t exe_ino;
    int have_exe;
    decoded *table;
    size_t table_cap, table_count;
    uint64_t last_writer[REG_SLOTS]; /* seq of the latest writer of each register */
    uint64_t seq;
    pending_insn cur;      /* the instruction being assembled */
    record_session_program program;
    record_session_stats stats;
    record_session_object pub_objects[RECORD_SESSION_OBJECTS_MAX];
    record_session_warm_fn warm; /* where warm-up instructions go (NULL: dropped) */
    void *warm_ctx;
    record_session_lines_fn lines; /* where warm caches' lines go (NULL: dropped) */
    void *lines_ctx;
    record_session_warm_fn branches; /* where a fast-forward's branches go (NULL: dropped) */
    void *branches_ctx;
    record_session_stack_fn stacks;  /* where sampled windows' stacks go (NULL: dropped) */
    void *stacks_ctx;
    unsigned programs;     /* EXE records read: programs this process ran */
    int exec_pending;      /* an EXE record at buf + pos begins the next program */
    int truncated_ok;      /* the program was killed (--kill-after): the stream may end inside a record */
    decoded scratch;       /* a decoding when the table cannot grow */
    record_session_thread *threads; /* THREAD records of the current program, by increasing number */
    size_t thread_count, thread_cap;
    branch_memo memo[1u << BRANCH_MEMO_BITS]; /* direct-mapped by branch_memo_of(pc) */
};

/* --- objects -------------------------------------------------------------------- */

/* Records the executable mapping [start, end) of `path` at file offset
 * `offset`. When the file is a readable ELF file, its load bias follows from
 * the executable segment holding `offset`, and it is mapped for wrong-path
 * decoding. */
static int add_object(record_session *v, const char *path, uint64_t start, uint64_t end, uint64_t offset)
{
    elf_object *o;
    size_t phnum, size = 0;
    struct stat st;

    if (v->object_count == RECORD_SESSION_OBJECTS_MAX)
        return TEA_OK;
    o = &v->objects[v->object_count];
    memset(o, 0, sizeof *o);
    o->pub.path = strdup(path);
    if (!o->pub.path)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    o->pub.start = start;
    o->pub.end = end;
    o->file_offset = offset;
    if (binary_elffile_open(&o->file, path) == TEA_OK) {
        o->file_open = 1;
        o->map = (const uint8_t *)elf_rawfile(o->file.elf, &size);
        o->map_size = o->map ? size : 0;
        if (elf_getphdrnum(o->file.elf, &phnum) == 0) {
            for (size_t i = 0; i < phnum; i++) {
                GElf_Phdr ph;
                if (!gelf_getphdr(o->file.elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
                    continue;
                if (offset < ph.p_offset || offset >= ph.p_offset + ph.p_filesz)
                    continue;
                o->pub.load_bias = start - (ph.p_vaddr + (offset - ph.p_offset));
                o->pub.have_bias = 1;
                break;
            }
        }
        o->pub.build_id = binary_elffile_read_build_id(path);
    }
    v->object_count++;
    v->stats.objects++;
    if (!v->program.path && v->have_exe && stat(path, &st) == 0 && st.st_dev == v->exe_dev
        && st.st_ino == v->exe_ino) {
        v->program.path = strdup(path);
        v->program.build_id = o->pub.build_id ? strdup(o->pub.build_id) : NULL;
        v->program.load_bias = o->pub.load_bias;
        v->program.have_bias = o->pub.have_bias;
        if (!v->program.path || (o->pub.build_id && !v->program.build_id))
            return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    return TEA_OK;
}

/* The file bytes at runtime address `pc` (up to `*avail`), or NULL. */
static const uint8_t *code_at(const record_session *v, uint64_t pc, size_t *avail)
{
    for (unsigned i = 0; i < v->object_count; i++) {
        const elf_object *o = &v->objects[i];
        uint64_t off;
        if (pc < o->pub.start || pc >= o->pub.end || !o->map_size)
            continue;
        off = o->file_offset + (pc - o->pub.start);
        if (off >= o->map_size)
            return NULL;
        *avail = o->map_size - off;
        if (*avail > o->pub.end - pc)
            *avail = o->pub.end - pc;
        assert(*avail > 0); /* pc lies inside both the mapping and the file */
        return o->map + off;
    }
    return NULL;
}

/* --- decoding ----------------------------------------------------------------- */

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Does an SSE/AVX mnemonic end in a floating-point type suffix? */
static int fp_suffix(const char *m)
{
    size_t n = strlen(m);
    return n > 2 && (!strcmp(m + n - 2, "sd") || !strcmp(m + n - 2, "ss") || !strcmp(m + n - 2, "pd")
                     || !strcmp(m + n - 2, "ps") || !strcmp(m + n - 2, "sh"));
}

/* The functional-unit class of a non-branch x86 mnemonic. */
static uint8_t mnemonic_class(const char *m)
{
    const char *v = m[0] == 'v' ? m + 1 : m; /* AVX forms share the SSE names */
    if (starts_with(v, "sqrt") || starts_with(m, "fsqrt") || starts_with(v, "rsqrt"))
        return MODEL_FP_SQRT;
    if ((starts_with(v, "div") && fp_suffix(v)) || starts_with(m, "fdiv") || starts_with(m, "fidiv"))
        return MODEL_FP_DIV;
    if (!strcmp(m, "div") || !strcmp(m, "idiv"))
        return MODEL_DIV;
    if ((starts_with(v, "mul") && fp_suffix(v)) || starts_with(m, "fmul") || starts_with(m, "fimul")
        || starts_with(v, "fmadd") || starts_with(v, "fmsub") || starts_with(v, "fnmadd") || starts_with(v, "fnmsub"))
        return MODEL_FP_MUL;
    if (!strcmp(m, "mul") || !strcmp(m, "imul") || !strcmp(m, "mulx") || starts_with(v, "pmul"))
        return MODEL_MUL;
    if (((starts_with(v, "add") || starts_with(v, "sub") || starts_with(v, "min") || starts_with(v, "max")
          || starts_with(v, "cvt") || starts_with(v, "comi") || starts_with(v, "ucomi") || starts_with(v, "cmp"))
         && fp_suffix(v))
        || starts_with(m, "fadd") || starts_with(m, "fsub") || starts_with(m, "fiadd") || starts_with(m, "fisub"))
        return MODEL_FP_ADD;
    return MODEL_INT;
}

/* Instructions that serialize the pipeline: system calls, fences, cpuid,
 * time-stamp reads and locked read-modify-writes. */
static int serializing(const cs_insn *in)
{
    static const char *const names[] = { "syscall", "sysenter", "int", "int3", "cpuid", "lfence", "mfence",
                                         "sfence", "rdtsc", "rdtscp", "xgetbv", "pause", NULL };
    const cs_x86 *x = &in->detail->x86;
    for (const char *const *n = names; *n; n++)
        if (!strcmp(in->mnemonic, *n))
            return 1;
    if (x->prefix[0] == X86_PREFIX_LOCK)
        return 1;
    if (!strcmp(in->mnemonic, "xchg")) /* with a memory operand it is locked */
        for (unsigned i = 0; i < x->op_count; i++)
            if (x->operands[i].type == X86_OP_MEM)
                return 1;
    return 0;
}

/* The control-flow kind of a decoded instruction (MODEL_BRANCH_NONE if none)
 * and its direct target. */
static uint8_t branch_kind(const cs_insn *in, uint64_t *target)
{
    const cs_detail *d = in->detail;
    int jump = 0, call = 0, ret = 0, direct = 0;
    const cs_x86 *x = &d->x86;

    for (unsigned i = 0; i < d->groups_count; i++) {
        jump |= d->groups[i] == CS_GRP_JUMP;
        call |= d->groups[i] == CS_GRP_CALL;
        ret |= d->groups[i] == CS_GRP_RET || d->groups[i] == CS_GRP_IRET;
    }
    if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
        direct = 1;
        *target = (uint64_t)x->operands[0].imm;
    }
    if (ret)
        return 1 + MODEL_BPRED_RETURN;
    if (call)
        return (uint8_t)(1 + (direct ? MODEL_BPRED_CALL : MODEL_BPRED_INDIRECT_CALL));
    if (!jump)
        return MODEL_BRANCH_NONE;
    if (in->id == X86_INS_JMP || in->id == X86_INS_LJMP)
        return (uint8_t)(1 + (direct ? MODEL_BPRED_JUMP : MODEL_BPRED_INDIRECT));
    return 1 + MODEL_BPRED_COND;
}

/* Registers whose chains the model ignores: the stack pointer (x86 cores
 * resolve push/pop/call/ret updates at decode), the instruction pointer and
 * the flags' partial updates are kept. */
static int ignored_register(uint16_t reg)
{
    return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP || reg == X86_REG_SPL
        || reg == X86_REG_RIP || reg == X86_REG_EIP || reg == X86_REG_IP;
}

/* One register id per architectural register: sub-registers of the
 * general-purpose registers map to the 64-bit register, XMM/YMM/ZMM share
 * one slot. */
static uint16_t canonical_register(uint16_t reg)
{
    static const uint16_t families[][5] = {
        { X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
        { X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
        { X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
        { X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
        { X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL },
        { X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL },
        { X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_BPL },
        { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B },
        { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B },
        { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B },
        { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B },
        { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B },
        { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B },
        { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B },
        { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B },
    };
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (int k = 0; k < 5; k++)
            if (families[f][k] == reg)
                return families[f][0];
    if (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM31)
        return (uint16_t)(X86_REG_XMM0 + (reg - X86_REG_YMM0));
    if (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM31)
        return (uint16_t)(X86_REG_XMM0 + (reg - X86_REG_ZMM0));
    return reg;
}

/* Decodes the static instruction d->pc (its size from the trace when known,
 * else from the decoder), from the bytes the tool sent, else from the mapped
 * file. Unknown code is an integer instruction. */
static void decode(record_session *v, unsigned trace_size, decoded *d)
{
    size_t avail = d->nbytes;
    const uint8_t *code = d->bytes;
    cs_insn *in;

    d->target = 0;
    d->nreads = d->nwrites = 0;
    d->size = (uint8_t)(trace_size ? trace_size : (d->nbytes ? d->nbytes : UNKNOWN_SIZE));
    d->cls = MODEL_INT;
    d->branch = MODEL_BRANCH_NONE;
    d->flush = 0;
    d->known = 0;
    d->done = 1;
    if (!d->nbytes)
        code = code_at(v, d->pc, &avail);
    if (!code || !v->cs_open || !(in = cs_malloc(v->cs)))
        return;
    {
        const uint8_t *p = code;
        size_t n = avail < MAX_X86_BYTES ? avail : MAX_X86_BYTES;
        uint64_t addr = d->pc;
        if (cs_disasm_iter(v->cs, &p, &n, &addr, in)) {
            cs_regs reads, writes;
            uint8_t nr = 0, nw = 0;
            d->known = 1;
            if (!trace_size)
                d->size = (uint8_t)in->size;
            d->branch = branch_kind(in, &d->target);
            if (d->branch != MODEL_BRANCH_NONE) {
                d->cls = MODEL_BRANCH;
            } else if (serializing(in)) {
                d->cls = MODEL_SERIAL;
                d->flush = 1;
            } else {
                d->cls = mnemonic_class(in->mnemonic);
            }
            if (cs_regs_access(v->cs, in, reads, &nr, writes, &nw) == CS_ERR_OK) {
                for (unsigned i = 0; i < nr && d->nreads < MAX_READS; i++)
                    if (!ignored_register(reads[i]))
                        d->reads[d->nreads++] = canonical_register(reads[i]);
                for (unsigned i = 0; i < nw && d->nwrites < MAX_WRITES; i++)
                    if (!ignored_register(writes[i]))
                        d->writes[d->nwrites++] = canonical_register(writes[i]);
            }
        }
    }
    cs_free(in, 1);
}

static size_t slot_of(const record_session *v, uint64_t pc)
{
    return (size_t)((pc * FIBONACCI_HASH) >> 32) & (v->table_cap - 1);
}

/* Doubles the decode table when it is half full (keeps it when out of
 * memory: it still has room). */
static void maybe_grow(record_session *v)
{
    size_t cap = v->table_cap * 2, s;
    decoded *bigger, *old = v->table;

    if ((v->table_count + 1) * 2 <= v->table_cap || !(bigger = hugemem_calloc(cap, sizeof *bigger)))
        return;
    assert((cap & (cap - 1)) == 0); /* a power of 2: slot_of and the probes mask with cap - 1 */
    v->table = bigger;
    v->table_cap = cap;
    for (size_t i = 0; i < cap / 2; i++) {
        if (!old[i].used)
            continue;
        s = slot_of(v, old[i].pc);
        while (v->table[s].used)
            s = (s + 1) & (cap - 1);
        v->table[s] = old[i];
    }
    free(old);
    assert((v->table_count + 1) * 2 <= v->table_cap); /* at most half full again */
}

/* The memo slot of `pc`. */
static branch_memo *branch_memo_of(record_session *v, uint64_t pc)
{
    return &v->memo[(pc * FIBONACCI_HASH) >> (64 - BRANCH_MEMO_BITS)];
}

/* Forgets the memo of `pc` (its code changed). */
static void branch_memo_drop(record_session *v, uint64_t pc)
{
    branch_memo *m = branch_memo_of(v, pc);
    if (m->pc == pc)
        m->valid = 0;
}

/* The table entry of `pc`, created (not yet decoded) if new; NULL when the
 * table is full and cannot grow. */
static decoded *entry(record_session *v, uint64_t pc)
{
    size_t s;
    maybe_grow(v);
    s = slot_of(v, pc);
    while (v->table[s].used) {
        if (v->table[s].pc == pc)
            return &v->table[s];
        s = (s + 1) & (v->table_cap - 1);
    }
    if (v->table_count + 1 >= v->table_cap)
        return NULL;
    memset(&v->table[s], 0, sizeof v->table[s]);
    v->table[s].pc = pc;
    v->table[s].used = 1;
    v->table_count++;
    assert(v->table_count < v->table_cap); /* an empty slot is left: probes end */
    return &v->table[s];
}

/* The decoded instruction at `pc`, decoding it the first time. */
static const decoded *lookup(record_session *v, uint64_t pc, unsigned trace_size)
{
    decoded *d = entry(v, pc);
    if (!d) {
        memset(&v->scratch, 0, sizeof v->scratch);
        v->scratch.pc = pc;
        d = &v->scratch;
    }
    if (!d->done) {
        decode(v, trace_size, d);
        v->stats.static_insns++;
        if (!d->known)
            v->stats.undecodable++;
    }
    assert(d->done && d->size > 0); /* decoded, with a size (a wrong path steps by it) */
    return d;
}

/* --- reading ---------------------------------------------------------------- */

/* Refills the buffer from the pipe (blocking until some words arrive or the
 * writer is gone), keeping the unread words. */
static int refill(record_session *v)
{
    ssize_t n;
    uint8_t *bytes;

    if (v->eof)
        return TEA_OK;
    if (v->pos > 0) {
        memmove(v->buf, v->buf + v->pos, (v->len - v->pos) * sizeof *v->buf + v->partial);
        v->len -= v->pos;
        v->pos = 0;
    }
    assert(v->len < READ_WORDS && v->partial < sizeof *v->buf); /* need() leaves room to read into */
    bytes = (uint8_t *)(v->buf + v->len);
    do
        n = read(v->fd, bytes + v->partial, (READ_WORDS - v->len) * sizeof *v->buf - v->partial);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return error_set(TEA_ERR_IO, "%s: read failed: %s", v->name, strerror(errno));
    if (n == 0) {
        v->eof = 1;
        if (v->partial && !v->truncated_ok && !cleanup_interrupted())
            return error_set(TEA_ERR_FORMAT, "%s: the stream ends inside a record", v->name);
        v->partial = 0;
        return TEA_OK;
    }
    v->partial += (size_t)n;
    v->len += v->partial / sizeof *v->buf;
    v->partial %= sizeof *v->buf;
    assert(v->pos <= v->len && v->len <= READ_WORDS); /* the read stayed in the buffer */
    return TEA_OK;
}

/* Makes `words` words available at buf + pos; *got = 0 at the end. */
static int need(record_session *v, size_t words, int *got)
{
    int rc;
    assert(words <= READ_WORDS); /* records are far smaller than the buffer */
    while (v->len - v->pos < words) {
        if (v->eof) {
            *got = 0;
            if (v->len > v->pos && !v->truncated_ok && !cleanup_interrupted())
                return error_set(TEA_ERR_FORMAT, "%s: the stream ends inside a record", v->name);
            v->pos = v->len; /* a killed program's last, incomplete record */
            return TEA_OK;
        }
        if ((rc = refill(v)))
            return rc;
    }
    *got = 1;
    return TEA_OK;
}

/* The stream ended inside a record: an error, unless the program was
 * killed (record_session_interrupt), which cuts its last record short. */
static int ended_inside(record_session *v)
{
    if (v->truncated_ok || cleanup_interrupted())
        return TEA_OK;
    return error_set(TEA_ERR_FORMAT, "%s: the stream ends inside a record", v->name);
}

/* An OBJECT record whose first word is at buf + pos. */
static int read_object(record_session *v)
{
    uint64_t start, end, offset, len;
    size_t words;
    char path[TEAREC_STREAM_PATH_MAX + 1];
    int got, rc;

    if ((rc = need(v, TEAREC_STREAM_OBJECT_WORDS, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    start = v->buf[v->pos] & TEAREC_STREAM_ADDR_MASK;
    end = v->buf[v->pos + 1];
    offset = v->buf[v->pos + 2];
    len = v->buf[v->pos + 3];
    if (len > TEAREC_STREAM_PATH_MAX || end <= start)
        return error_set(TEA_ERR_FORMAT, "%s: malformed object record", v->name);
    words = TEAREC_STREAM_OBJECT_WORDS + (size_t)(len + 7) / 8;
    if ((rc = need(v, words, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    assert(v->pos + words <= v->len); /* the whole record is in the buffer */
    memcpy(path, v->buf + v->pos + TEAREC_STREAM_OBJECT_WORDS, (size_t)len);
    path[len] = '\0';
    v->pos += words;
    return add_object(v, path, start, end, offset);
}

/* Room for a script's "#!" line: the kernel reads no more of it. */
#define SHEBANG_MAX 256

/* The file a process running `path` executes: `path` itself, or for a
 * script ("#!INTERPRETER ...") its interpreter, whose file is the one
 * mapped (Valgrind, like the kernel, runs the interpreter). */
static int stat_program(const char *path, struct stat *st)
{
    char line[SHEBANG_MAX + 1], *interp, *end;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return stat(path, st);
    n = read(fd, line, SHEBANG_MAX);
    close(fd);
    if (n < 2 || line[0] != '#' || line[1] != '!')
        return stat(path, st);
    line[n] = '\0';
    for (interp = line + 2; *interp == ' ' || *interp == '\t'; interp++)
        ;
    for (end = interp; *end && *end != ' ' && *end != '\t' && *end != '\n'; end++)
        ;
    *end = '\0';
    return stat(interp, st);
}

/* An EXE record at buf + pos: the program the process runs (a path as it
 * exec'd it), recognised by its file among the objects. */
static int read_exe(record_session *v)
{
    uint64_t len = v->buf[v->pos] & TEAREC_STREAM_ADDR_MASK;
    char path[TEAREC_STREAM_PATH_MAX + 1];
    struct stat st;
    size_t words;
    int got, rc;

    if (len > TEAREC_STREAM_PATH_MAX)
        return error_set(TEA_ERR_FORMAT, "%s: malformed program record", v->name);
    words = 1 + (size_t)(len + 7) / 8;
    if ((rc = need(v, words, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    assert(v->pos + words <= v->len); /* the whole record is in the buffer */
    memcpy(path, v->buf + v->pos + 1, (size_t)len);
    path[len] = '\0';
    v->pos += words;
    v->programs++;
    free(v->program.exec_path);
    if (!(v->program.exec_path = strdup(path)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (stat_program(path, &st) == 0) {
        v->exe_dev = st.st_dev;
        v->exe_ino = st.st_ino;
        v->have_exe = 1;
    }
    return TEA_OK;
}

/* A CODE record at buf + pos: the bytes of a static instruction. */
static int read_code(record_session *v)
{
    int got, rc;
    uint64_t w;
    unsigned len;
    decoded *d;

    if ((rc = need(v, TEAREC_STREAM_CODE_WORDS, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    w = v->buf[v->pos];
    len = (unsigned)((w >> TEAREC_STREAM_SIZE_SHIFT) & 0xff);
    if (len > TEAREC_STREAM_CODE_BYTES)
        return error_set(TEA_ERR_FORMAT, "%s: malformed code record", v->name);
    d = entry(v, w & TEAREC_STREAM_ADDR_MASK);
    if (!d)
        branch_memo_drop(v, w & TEAREC_STREAM_ADDR_MASK); /* no entry to compare with: maybe changed */
    if (d && (d->nbytes != len || memcmp(d->bytes, v->buf + v->pos + 1, len))) {
        /* new, or code that changed: decode again when it runs */
        memcpy(d->bytes, v->buf + v->pos + 1, len);
        d->nbytes = (uint8_t)len;
        if (d->done) {
            assert(v->stats.static_insns > 0 && (d->known || v->stats.undecodable > 0)); /* lookup counted it */
            v->stats.static_insns--;
            v->stats.undecodable -= !d->known;
        }
        d->done = 0;
        branch_memo_drop(v, d->pc);
    }
    v->pos += TEAREC_STREAM_CODE_WORDS;
    return TEA_OK;
}

/* The COUNT record `w` at buf + pos: the region's instructions. */
static void count_record(record_session *v, uint64_t w)
{
    v->stats.region_instructions = w & TEAREC_STREAM_COUNT_MASK;
    v->stats.have_count = 1;
    v->pos++;
}

/* A THREAD record at buf + pos: a thread and its instructions, after
 * those of lower numbers. */
static int read_thread(record_session *v)
{
    uint64_t tid;
    int got, rc;

    if ((rc = need(v, TEAREC_STREAM_THREAD_WORDS, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    tid = v->buf[v->pos] & TEAREC_STREAM_COUNT_MASK;
    if (tid == 0 || tid > TEAREC_STREAM_THREAD_MASK || v->thread_count == RECORD_SESSION_THREADS_MAX
        || (v->thread_count && tid <= v->threads[v->thread_count - 1].tid))
        return error_set(TEA_ERR_FORMAT, "%s: malformed THREAD record after %llu words", v->name,
                         (unsigned long long)v->stats.words);
    if (v->thread_count == v->thread_cap) {
        size_t cap = v->thread_cap ? 2 * v->thread_cap : THREADS_INITIAL;
        record_session_thread *grown = realloc(v->threads, cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        v->threads = grown;
        v->thread_cap = cap;
    }
    assert(v->thread_count < v->thread_cap); /* a free slot */
    v->threads[v->thread_count].tid = (uint32_t)tid;
    v->threads[v->thread_count++].instructions = v->buf[v->pos + 1];
    v->pos += TEAREC_STREAM_THREAD_WORDS;
    return TEA_OK;
}

/* The branch fields of `u`, a branch of kind `branch` (decoded direct
 * target `target`) after which `next_pc` ran: its kind, whether taken, and
 * its target (where it went, else the decoded one). */
static void set_branch_outcome(model_insn *u, unsigned branch, uint64_t target, uint64_t next_pc)
{
    u->branch = (uint8_t)branch;
    if (next_pc != u->pc + u->size) {
        u->flags |= MODEL_INSN_TAKEN;
        u->target = next_pc;
    } else {
        u->target = target;
    }
}

/* The memo of the branch at `pc`, filled from its decoding on a miss; a
 * decoding the full table could not keep (the scratch entry) is not kept
 * in the memo either (*spare holds it). */
static const branch_memo *branch_at(record_session *v, uint64_t pc, branch_memo *spare)
{
    branch_memo *m = branch_memo_of(v, pc);
    if (!m->valid || m->pc != pc) {
        const decoded *d = lookup(v, pc, 0);
        if (d == &v->scratch)
            m = spare;
        m->pc = pc;
        m->target = d->target;
        m->size = d->size;
        m->cls = d->cls;
        m->branch = d->branch;
        m->valid = 1;
    }
    return m;
}

/* The control transfers of a fast-forward (`count` words: pairs of a
 * branch's address and the next one run) to the branches callback, as
 * model instructions; pairs whose first address holds no branch (the tool
 * logs every exit of its blocks) are dropped. */
static void train_branches(record_session *v, const uint64_t *pairs, size_t count)
{
    assert(count % 2 == 0); /* pairs: read_lines rejects an odd count */
    if (!v->branches)
        return;
    for (size_t i = 0; i + 1 < count; i += 2) {
        branch_memo spare;
        const branch_memo *b = branch_at(v, pairs[i], &spare);
        model_insn u;
        if (b->branch == MODEL_BRANCH_NONE)
            continue;
        memset(&u, 0, sizeof u);
        u.pc = pairs[i];
        u.size = b->size;
        u.cls = b->cls;
        set_branch_outcome(&u, b->branch, b->target, pairs[i + 1]);
        v->branches(v->branches_ctx, &u);
        v->stats.branches_trained++;
    }
}

/* A LINES record `w` at buf + pos: a cache set, pages or branches the
 * tool kept through a fast-forward, handed to the lines (branches)
 * callback when `deliver` (not after the region). */
static int read_lines(record_session *v, uint64_t w, int deliver)
{
    uint64_t count = w & TEAREC_STREAM_ADDR_MASK, level = (w >> TEAREC_STREAM_SIZE_SHIFT) & TEAREC_STREAM_SIZE_MASK;
    int got, rc;

    if (count == 0 || count > TEAREC_STREAM_LINES_MAX || level > TEAREC_STREAM_LINES_BRANCHES
        || (level == TEAREC_STREAM_LINES_BRANCHES && count % 2))
        return error_set(TEA_ERR_FORMAT, "%s: malformed LINES record after %llu words", v->name,
                         (unsigned long long)v->stats.words);
    if ((rc = need(v, 1 + (size_t)count, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    if (deliver && level == TEAREC_STREAM_LINES_BRANCHES) {
        train_branches(v, v->buf + v->pos + 1, (size_t)count);
    } else if (deliver) {
        if (v->lines)
            v->lines(v->lines_ctx,
                     level == TEAREC_STREAM_LINES_L1D   ? RECORD_SESSION_WARMED_L1D
                     : level == TEAREC_STREAM_LINES_LLC ? RECORD_SESSION_WARMED_LLC
                                                        : RECORD_SESSION_WARMED_PAGES,
                     v->buf + v->pos + 1, (size_t)count);
        v->stats.lines_placed += count;
    }
    v->pos += 1 + (size_t)count;
    return TEA_OK;
}

/* A STACK record `w` at buf + pos: the return addresses of the stack a
 * sampled window's first instruction (the next INSN) runs on, handed to
 * the stacks callback with the window's number when `deliver`. */
static int read_stack(record_session *v, uint64_t w, int deliver)
{
    uint64_t count = w & TEAREC_STREAM_ADDR_MASK;
    int got, rc;

    if (count > TEAREC_STREAM_STACK_MAX)
        return error_set(TEA_ERR_FORMAT, "%s: a STACK record of %llu frames after %llu words", v->name,
                         (unsigned long long)count, (unsigned long long)v->stats.words);
    if ((rc = need(v, 1 + (size_t)count, &got)))
        return rc;
    if (!got)
        return ended_inside(v);
    if (deliver && v->stacks && (rc = v->stacks(v->stacks_ctx, v->stats.windows, v->buf + v->pos + 1, (size_t)count)))
        return rc;
    if (deliver) {
        v->stats.stacks++;
        v->stats.stacks_unwound += count > 0;
    }
    v->pos += 1 + (size_t)count;
    return TEA_OK;
}

/* Reads records until an instruction, adding memory accesses to the current
 * one; *got = 0 at the end of the stream or of the region. */
static int read_instruction(record_session *v, pending_insn *out, int *got)
{
    int rc, have;

    *got = 0;
    while (!v->stopped && !v->exec_pending) {
        uint64_t w;
        if ((rc = need(v, 1, &have)))
            return rc;
        if (!have)
            return TEA_OK;
        w = v->buf[v->pos];
        v->stats.words++;
        switch (w >> TEAREC_STREAM_KIND_SHIFT) {
        case TEAREC_STREAM_INSN:
        case TEAREC_STREAM_WARM:
            memset(out, 0, sizeof *out);
            out->warm = (w >> TEAREC_STREAM_KIND_SHIFT) == TEAREC_STREAM_WARM;
            out->pc = w & TEAREC_STREAM_ADDR_MASK;
            out->size = (unsigned)((w >> TEAREC_STREAM_SIZE_SHIFT) & 0xff);
            out->have = 1;
            v->pos++;
            *got = 1;
            return TEA_OK;
        case TEAREC_STREAM_LOAD:
            if (v->cur.have && !v->cur.loads++) {
                v->cur.load_addr = w & TEAREC_STREAM_ADDR_MASK;
                v->cur.load_size = (unsigned)((w >> TEAREC_STREAM_SIZE_SHIFT) & TEAREC_STREAM_SIZE_MASK);
            }
            v->pos++;
            break;
        case TEAREC_STREAM_STORE:
            if (v->cur.have && !v->cur.stores++) {
                v->cur.store_addr = w & TEAREC_STREAM_ADDR_MASK;
                v->cur.store_size = (unsigned)((w >> TEAREC_STREAM_SIZE_SHIFT) & TEAREC_STREAM_SIZE_MASK);
            }
            v->pos++;
            break;
        case TEAREC_STREAM_CODE:
            if ((rc = read_code(v)))
                return rc;
            break;
        case TEAREC_STREAM_OBJECT:
            if ((rc = read_object(v)))
                return rc;
            break;
        case TEAREC_STREAM_EXE:
            if (v->programs) {
                /* the process exec'd: this program's part ends here */
                v->exec_pending = 1;
                return TEA_OK;
            }
            if ((rc = read_exe(v)))
                return rc;
            break;
        case TEAREC_STREAM_WINDOW:
            /* the instruction before it is its window's last */
            v->window_pending = 1;
            v->stats.windows++;
            v->pos++;
            return TEA_OK;
        case TEAREC_STREAM_COUNT:
            count_record(v, w);
            break;
        case TEAREC_STREAM_THREAD:
            if ((rc = read_thread(v)))
                return rc;
            break;
        case TEAREC_STREAM_LINES:
            if ((rc = read_lines(v, w, 1)))
                return rc;
            break;
        case TEAREC_STREAM_STACK:
            if ((rc = read_stack(v, w, 1)))
                return rc;
            break;
        case TEAREC_STREAM_STOP:
            v->stats.stop = (int)(w & TEAREC_STREAM_STOP_REASON_MASK);
            v->stats.threads_seen =
                (uint32_t)((w >> TEAREC_STREAM_STOP_THREADS_SHIFT) & TEAREC_STREAM_STOP_THREADS_MASK);
            v->stopped = 1;
            v->pos++;
            if (v->kill_after && v->pid > 0 && !v->exited) {
                kill(v->pid, SIGKILL);
                v->killed = 1;
                v->truncated_ok = 1;
            }
            break;
        default:
            return error_set(TEA_ERR_FORMAT, "%s: unknown record kind %llu after %llu words", v->name,
                             (unsigned long long)(w >> TEAREC_STREAM_KIND_SHIFT), (unsigned long long)v->stats.words);
        }
    }
    return TEA_OK;
}

/* Builds the model instruction for `p`, whose successor starts at next_pc. */
static void make_insn(record_session *v, const pending_insn *p, uint64_t next_pc, model_insn *u)
{
    const decoded *d = lookup(v, p->pc, p->size);
    uint64_t producer = 0;

    memset(u, 0, sizeof *u);
    u->pc = p->pc;
    u->size = (uint8_t)p->size;
    u->cls = d->cls;
    if (d->flush)
        u->flags |= MODEL_INSN_FLUSH;
    if (d->branch != MODEL_BRANCH_NONE) {
        set_branch_outcome(u, d->branch, d->target, next_pc);
    } else if (d->cls != MODEL_SERIAL && (p->loads || p->stores)) {
        /* Memory decides the class of ordinary instructions: a load's latency
         * is its memory access's. */
        if (p->loads) {
            u->cls = MODEL_LOAD;
            u->addr = p->load_addr;
            u->mem_size = (uint16_t)p->load_size;
            if (p->stores)
                u->flags |= MODEL_INSN_STORE;
        } else {
            u->cls = MODEL_STORE;
            u->addr = p->store_addr;
            u->mem_size = (uint16_t)p->store_size;
        }
    }
    v->seq++;
    for (unsigned i = 0; i < d->nreads; i++) {
        uint64_t w = v->last_writer[d->reads[i] % REG_SLOTS];
        if (w > producer)
            producer = w;
    }
    assert(producer < v->seq); /* producers came before this instruction */
    if (producer && v->seq - producer < MAX_DEP_DISTANCE)
        u->dep = (uint16_t)(v->seq - producer);
    for (unsigned i = 0; i < d->nwrites; i++)
        v->last_writer[d->writes[i] % REG_SLOTS] = v->seq;
}

/* The model source: the next executed instruction, whose branch outcome the
 * instruction after it reveals. */
static int session_next(void *ctx, model_insn *u)
{
    record_session *v = ctx;
    pending_insn next;
    int got, rc;

    if (!v->cur.have && !v->window_pending) {
        if ((rc = read_instruction(v, &v->cur, &got)))
            return rc;
        if (!got && !v->window_pending)
            return 0;
    }
    if (v->window_pending && !v->cur.have) {
        v->window_pending = 0;
        return MODEL_SOURCE_WINDOW;
    }
    for (;;) {
        if ((rc = read_instruction(v, &next, &got)))
            return rc;
        make_insn(v, &v->cur, got ? next.pc : v->cur.pc + v->cur.size, u);
        if (!v->cur.warm)
            break;
        /* warm-up: to the model's caches and predictor, not to its pipeline */
        if (v->warm)
            v->warm(v->warm_ctx, u);
        v->stats.warmed++;
        if (!got) {
            v->cur.have = 0;
            if (!v->window_pending)
                return 0;
            v->window_pending = 0; /* a window of warm-up only */
            return MODEL_SOURCE_WINDOW;
        }
        v->cur = next;
    }
    v->stats.instructions++;
    if (got)
        v->cur = next;
    else
        v->cur.have = 0;
    return 1;
}

/* Forgets the objects (their files closed). */
static void free_objects(record_session *v)
{
    for (unsigned i = 0; i < v->object_count; i++) {
        if (v->objects[i].file_open)
            binary_elffile_close(&v->objects[i].file);
        free(v->objects[i].pub.path);
        free(v->objects[i].pub.build_id);
    }
    v->object_count = 0;
}

/* Forgets what the session knew of the program a process exec'd away
 * from: its objects, decodings, register producers, statistics (but the
 * words read) and where its region stood. */
static void forget_program(record_session *v)
{
    uint64_t words = v->stats.words;

    free_objects(v);
    free(v->program.path);
    free(v->program.build_id);
    v->program.path = v->program.build_id = NULL;
    v->program.load_bias = 0;
    v->program.have_bias = 0;
    memset(v->table, 0, v->table_cap * sizeof *v->table);
    v->table_count = 0;
    memset(v->memo, 0, sizeof v->memo);
    memset(v->last_writer, 0, sizeof v->last_writer);
    v->seq = 0;
    memset(&v->cur, 0, sizeof v->cur);
    memset(&v->stats, 0, sizeof v->stats);
    v->stats.words = words;
    v->thread_count = 0;
    v->stopped = 0;
    v->have_exe = 0;
    v->exec_pending = 0;
}

/* Skips the record at buf + pos (after the region: nothing of it is
 * kept), or reads it when it describes code or objects. */
static int skip_record(record_session *v)
{
    uint64_t w = v->buf[v->pos];

    v->stats.words++;
    switch (w >> TEAREC_STREAM_KIND_SHIFT) {
    case TEAREC_STREAM_INSN:
    case TEAREC_STREAM_WARM:
    case TEAREC_STREAM_LOAD:
    case TEAREC_STREAM_STORE:
    case TEAREC_STREAM_STOP:
    case TEAREC_STREAM_WINDOW:
        v->pos++;
        return TEA_OK;
    case TEAREC_STREAM_COUNT:
        count_record(v, w);
        return TEA_OK;
    case TEAREC_STREAM_THREAD:
        return read_thread(v);
    case TEAREC_STREAM_LINES:
        return read_lines(v, w, 0);
    case TEAREC_STREAM_STACK:
        return read_stack(v, w, 0);
    case TEAREC_STREAM_CODE:
        return read_code(v);
    case TEAREC_STREAM_OBJECT:
        return read_object(v);
    default:
        return error_set(TEA_ERR_FORMAT, "%s: unknown record kind %llu after %llu words", v->name,
                         (unsigned long long)(w >> TEAREC_STREAM_KIND_SHIFT), (unsigned long long)v->stats.words);
    }
}

int record_session_next_program(record_session *v, int *exec)
{
    int got, rc;

    *exec = 0;
    while (!v->exec_pending) {
        unsigned kind;
        if ((rc = need(v, 1, &got)))
            return rc;
        if (!got)
            return TEA_OK;
        kind = (unsigned)(v->buf[v->pos] >> TEAREC_STREAM_KIND_SHIFT);
        if (kind != TEAREC_STREAM_EXE)
            rc = skip_record(v);
        else if (v->programs)
            v->exec_pending = 1;
        else
            rc = read_exe(v);
        if (rc)
            return rc;
    }
    /* exec_pending: a later program's EXE record waits at pos */
    assert(v->programs > 0 && v->pos < v->len && (v->buf[v->pos] >> TEAREC_STREAM_KIND_SHIFT) == TEAREC_STREAM_EXE);
    forget_program(v);
    if ((rc = read_exe(v)))
        return rc;
    *exec = 1;
    return TEA_OK;
}

void record_session_set_warm(record_session *v, record_session_warm_fn fn, void *ctx)
{
    v->warm = fn;
    v->warm_ctx = ctx;
}

void record_session_set_lines(record_session *v, record_session_lines_fn fn, void *ctx)
{
    v->lines = fn;
    v->lines_ctx = ctx;
}

void record_session_set_branches(record_session *v, record_session_warm_fn fn, void *ctx)
{
    v->branches = fn;
    v->branches_ctx = ctx;
}

void record_session_set_stacks(record_session *v, record_session_stack_fn fn, void *ctx)
{
    v->stacks = fn;
    v->stacks_ctx = ctx;
}

/* A wrong-path instruction: whatever the program holds at `pc`. */
static void session_wrong_path(void *ctx, uint64_t pc, model_insn *u)
{
    record_session *v = ctx;
    const decoded *d = lookup(v, pc, 0);

    memset(u, 0, sizeof *u);
    u->pc = pc;
    u->size = d->size;
    u->cls = d->cls == MODEL_SERIAL || d->cls == MODEL_BRANCH ? MODEL_INT : d->cls;
}

model_source record_session_source(record_session *v)
{
    model_source src = { session_next, session_wrong_path, v };
    return src;
}

/* --- sessions ----------------------------------------------------------------- */

static int session_init(record_session **out, int fd, const char *name)
{
    record_session *v = calloc(1, sizeof *v);
    *out = NULL;
    if (!v)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    v->fd = fd;
    v->cleanup = -1;
    v->name = strdup(name);
    v->buf = malloc(READ_WORDS * sizeof *v->buf);
    v->table_cap = DECODE_INITIAL;
    v->table = calloc(v->table_cap, sizeof *v->table);
    if (!v->name || !v->buf || !v->table) {
        v->fd = -1;
        record_session_close(v);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if (elf_version(EV_CURRENT) == EV_NONE) {
        v->fd = -1;
        record_session_close(v);
        return error_set(TEA_ERR_IO, "libelf is out of date");
    }
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &v->cs) == CS_ERR_OK) {
        v->cs_open = 1;
        cs_option(v->cs, CS_OPT_DETAIL, CS_OPT_ON);
    }
    *out = v;
    return TEA_OK;
}

int record_session_open_fd(record_session **out, int fd, const char *name)
{
    return session_init(out, fd, name);
}

/* Finds `name` as execvp would (directly with a slash, else in PATH) and
 * fills `found`. Returns 0, or ENOENT (nowhere) or EACCES (found, but not
 * an executable file). */
static int find_program(const char *name, char *found, size_t size)
{
    const char *path = getenv("PATH"), *dir;
    int seen = 0;
    struct stat st;

    if (strchr(name, '/')) {
        snprintf(found, size, "%s", name);
        if (stat(name, &st) != 0)
            return ENOENT;
        return S_ISREG(st.st_mode) && access(name, X_OK) == 0 ? 0 : EACCES;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (dir = path; dir; dir = strchr(dir, ':') ? strchr(dir, ':') + 1 : NULL) {
        size_t len = strchr(dir, ':') ? (size_t)(strchr(dir, ':') - dir) : strlen(dir);
        if (snprintf(found, size, "%.*s/%s", (int)(len ? len : 1), len ? dir : ".", name) >= (int)size
            || stat(found, &st) != 0)
            continue;
        if (S_ISREG(st.st_mode) && access(found, X_OK) == 0)
            return 0;
        seen = 1;
    }
    return seen ? EACCES : ENOENT;
}

/* The tool's --sample-starts option for listed windows (malloc'd), NULL
 * when there are none; *rc TEA_ERR_NOMEM when it could not be made. With
 * threads, each thread's starts after its number: "1:S,S;3:S". */
static char *starts_option(const record_session_options *opt, int *rc)
{
    static const char name[] = "--sample-starts=";
    size_t size = sizeof name + opt->sample_start_count * 32, used; /* 20 digits, a comma, 11 for a thread */
    const uint32_t *threads = opt->sample_start_threads;
    char *text;

    *rc = TEA_OK;
    if (!opt->sample_starts)
        return NULL;
    if (!(text = malloc(size))) {
        *rc = error_set(TEA_ERR_NOMEM, "out of memory");
        return NULL;
    }
    used = (size_t)snprintf(text, size, "%s", name);
    for (size_t k = 0; k < opt->sample_start_count; k++) {
        int new_thread = threads && (k == 0 || threads[k] != threads[k - 1]);
        if (new_thread)
            used += (size_t)snprintf(text + used, size - used, "%s%u:", k ? ";" : "", (unsigned)threads[k]);
        used += (size_t)snprintf(text + used, size - used, "%s%llu", k && !new_thread ? "," : "",
                                 (unsigned long long)opt->sample_starts[k]);
    }
    assert(used < size); /* 32 bytes per start hold its digits, comma and thread */
    return text;
}

/* Fills args[] with the valgrind command line for `opt` and the program
 * argv (storage for option strings in `text`; `starts` the listed
 * windows' option or NULL). */
static void build_args(char **args, char *text, size_t size, const record_session_options *opt, int fd,
                       char *starts, char *const argv[])
{
    size_t n = 0, used = 0;
#define ADD_OPTION(...)                                                                                 \
    do {                                                                                                \
        int k_ = snprintf(text + used, size - used, __VA_ARGS__);                                       \
        args[n++] = text + used;                                                                        \
        used += (size_t)k_ + 1;                                                                         \
    } while (0)
    args[n++] = (char *)(opt->valgrind ? opt->valgrind : "valgrind");
    args[n++] = "--tool=" RECORD_SESSION_TOOL;
    args[n++] = "-q";
    /* no gdbserver, whose FIFOs a killed Valgrind leaves behind */
    args[n++] = "--vgdb=no";
    /* execs are followed (the tool turns this off in forked children whose
     * programs are not recorded) */
    args[n++] = "--trace-children=yes";
    ADD_OPTION("--tea-fd=%d", fd);
    if (opt->skip)
        ADD_OPTION("--skip=%llu", (unsigned long long)opt->skip);
    if (opt->max_instructions)
        ADD_OPTION("--max-instructions=%llu", (unsigned long long)opt->max_instructions);
    if (opt->warmup)
        ADD_OPTION("--warmup=%llu", (unsigned long long)opt->warmup);
    if (opt->sample_every) {
        ADD_OPTION("--sample-every=%llu", (unsigned long long)opt->sample_every);
        ADD_OPTION("--sample-length=%llu", (unsigned long long)opt->sample_length);
    }
    if (starts) {
        ADD_OPTION("--sample-length=%llu", (unsigned long long)opt->sample_length);
        args[n++] = starts;
    }
    if (opt->start_at)
        ADD_OPTION("--start-at=%s", opt->start_at);
    if (opt->stop_at)
        ADD_OPTION("--stop-at=%s", opt->stop_at);
    if (opt->wait_start)
        args[n++] = "--wait-start=yes";
    if (opt->threads)
        ADD_OPTION("--threads=%s", opt->threads);
    else if (opt->thread)
        ADD_OPTION("--thread=%u", (unsigned)opt->thread);
    if (opt->children_socket)
        ADD_OPTION("--tea-children=%s", opt->children_socket);
    if (opt->branch_warmup)
        ADD_OPTION("--branch-warmup=%llu", (unsigned long long)opt->branch_warmup);
    if (opt->window_stacks)
        ADD_OPTION("--call-paths=%s", "yes");
    if (opt->warm_caches) {
        const model_cache_config *l1 = &opt->warm_caches->mem.l1d, *llc = &opt->warm_caches->mem.llc;
        ADD_OPTION("--warm-caches=%llu,%u,%u,%llu,%u,%u,%u,%u",
                   (unsigned long long)(l1->size / ((uint64_t)l1->ways * l1->line_size)), l1->ways,
                   l1->prefetch, (unsigned long long)(llc->size / ((uint64_t)llc->ways * llc->line_size)),
                   llc->ways, llc->prefetch, l1->line_size, opt->warm_caches->tlb.page_size);
    }
#undef ADD_OPTION
    for (size_t i = 0; argv[i]; i++)
        args[n++] = argv[i];
    args[n] = NULL;
}

int record_session_spawn(record_session **out, char *const argv[], const record_session_options *opt)
{
    const char *valgrind = opt->valgrind ? opt->valgrind : "valgrind";
    char found[4096], tool[4096], text[OPTION_BYTES];
    int fds[2], err;
    struct stat st;
    size_t argc = 0;
    char **args, *starts;
    pid_t pid, parent;
    record_session *v;
    int rc;

    *out = NULL;
    if (!argv[0])
        return error_set(TEA_ERR_USAGE, "no program to record");
    if ((err = find_program(argv[0], found, sizeof found)) == ENOENT)
        return error_set(TEA_ERR_USAGE, "%s: no such program%s", argv[0],
                         strchr(argv[0], '/') ? "" : " (not found in PATH)");
    if (err)
        return error_set(TEA_ERR_USAGE, "%s: not an executable file (check its permissions)", found);
    if (stat(found, &st) != 0)
        return error_set(TEA_ERR_USAGE, "%s: %s", found, strerror(errno));
    {
        char vg[4096];
        if (find_program(valgrind, vg, sizeof vg))
            return error_set(TEA_ERR_IO, "%s not found; install the Debian package 'valgrind'", valgrind);
    }
    if (!opt->tool_dir
        || snprintf(tool, sizeof tool, "%s/%s", opt->tool_dir, RECORD_SESSION_TOOL_FILE) >= (int)sizeof tool
        || access(tool, X_OK) != 0)
        return error_set(TEA_ERR_IO,
                         "the Valgrind tool %s is not built or installed (%s); build tea where the "
                         "Debian package 'valgrind' is installed",
                         RECORD_SESSION_TOOL_FILE, opt->tool_dir ? opt->tool_dir : "no directory found");
    if ((opt->start_at ? strlen(opt->start_at) : 0) + (opt->stop_at ? strlen(opt->stop_at) : 0)
            + (opt->children_socket ? strlen(opt->children_socket) : 0) + VALGRIND_ARGS * 32 >= sizeof text)
        return error_set(TEA_ERR_USAGE, "the function names are too long");
    if (opt->sample_starts && (opt->sample_start_count == 0 || opt->sample_start_count > RECORD_SESSION_STARTS_MAX))
        return error_set(TEA_ERR_USAGE, "1 to %d listed windows", RECORD_SESSION_STARTS_MAX);
    while (argv[argc])
        argc++;
    starts = starts_option(opt, &rc);
    if (rc)
        return rc;
    if (!(args = calloc(argc + VALGRIND_ARGS, sizeof *args))) {
        free(starts);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if (pipe(fds) != 0) {
        free(args);
        free(starts);
        return error_set(TEA_ERR_IO, "cannot create a pipe: %s", strerror(errno));
    }
    fcntl(fds[0], F_SETPIPE_SZ, PIPE_BYTES);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    parent = getpid();
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free(args);
        free(starts);
        return error_set(TEA_ERR_IO, "cannot start valgrind: %s", strerror(errno));
    }
    if (pid == 0) {
        /* Valgrind dies with tea record, whatever ends it (the kernel sends
         * SIGKILL when this thread's process is gone) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        build_args(args, text, sizeof text, opt, fds[1], starts, argv);
        setenv("VALGRIND_LIB", opt->tool_dir, 1);
        execvp(valgrind, args);
        fprintf(stderr, "tea record: cannot run %s: %s\n", valgrind, strerror(errno));
        _exit(127);
    }
    free(args);
    free(starts);
    close(fds[1]);
    if ((rc = session_init(&v, fds[0], "the tearec tool's stream"))) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(fds[0]);
        return rc;
    }
    v->exe_dev = st.st_dev;
    v->exe_ino = st.st_ino;
    v->have_exe = 1;
    v->kill_after = opt->kill_after;
    v->pid = pid;
    v->cleanup = cleanup_add_child(pid);
    *out = v;
    return TEA_OK;
}

const record_session_program *record_session_get_program(const record_session *v)
{
    return &v->program;
}

const record_session_object *record_session_objects(const record_session *v, size_t *count)
{
    record_session *w = (record_session *)v; /* the public copies are a view */
    for (unsigned i = 0; i < v->object_count; i++)
        w->pub_objects[i] = v->objects[i].pub;
    *count = v->object_count;
    return w->pub_objects;
}

const record_session_stats *record_session_get_stats(const record_session *v)
{
    return &v->stats;
}

const record_session_thread *record_session_threads(const record_session *v, size_t *count)
{
    *count = v->thread_count;
    return v->threads;
}

int record_session_wait(record_session *v, int *status)
{
    int st;
    *status = 0;
    if (!v->pid || v->exited)
        return TEA_OK;
    /* The stream has nothing more for the model: the program runs on to
     * its end (the pipe is drained so that it never blocks). */
    while (!v->eof && !v->killed) {
        v->pos = v->len;
        if (refill(v))
            break;
    }
    while (waitpid(v->pid, &st, 0) < 0) {
        if (errno != EINTR)
            return error_set(TEA_ERR_IO, "waiting for valgrind: %s", strerror(errno));
    }
    v->exited = 1;
    cleanup_forget(v->cleanup);
    v->cleanup = -1;
    if (v->killed) {
        *status = -1;
        return TEA_OK;
    }
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && v->stats.words == 0)
        return error_set(TEA_ERR_IO, "valgrind did not run the program (its messages are above)");
    return TEA_OK;
}

void record_session_close(record_session *v)
{
    if (!v)
        return;
    if (v->pid > 0 && !v->exited) {
        kill(v->pid, SIGKILL);
        waitpid(v->pid, NULL, 0);
    }
    cleanup_forget(v->cleanup);
    if (v->fd >= 0)
        close(v->fd);
    if (v->cs_open)
        cs_close(&v->cs);
    free_objects(v);
    free(v->program.path);
    free(v->program.build_id);
    free(v->program.exec_path);
    free(v->table);
    free(v->threads);
    free(v->buf);
    free(v->name);
    free(v);
}

/* --- several threads: the stream split ----------------------------------------- */

/* Words a thread's stream collects before they are written to it. */
#define SPLIT_WORDS 8192

/* A recorded thread's stream. */
typedef struct split_stream {
    uint32_t tid;
    int fd;                 /* the writing end; -1 once its reader is gone */
    uint64_t buf[SPLIT_WORDS];
    size_t len;
} split_stream;

struct record_session_splitter {
    split_stream **streams;
    size_t count, cap;
    uint64_t *shared;       /* the program's, objects' and code records so far (a later thread's start) */
    size_t shared_len, shared_cap;
};

/* Writes `n` words to a thread's stream; a reader that is gone drops it. */
static void split_send(split_stream *t, const uint64_t *words, size_t n)
{
    const uint8_t *p = (const uint8_t *)words;
    size_t left = n * sizeof *words;

    while (left > 0 && t->fd >= 0) {
        ssize_t k = send(t->fd, p, left, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) { /* its recording failed and said why */
            close(t->fd);
            t->fd = -1;
            return;
        }
        p += k;
        left -= (size_t)k;
    }
}

static void split_flush(split_stream *t)
{
    split_send(t, t->buf, t->len);
    t->len = 0;
}

/* Adds `n` words to a thread's stream. */
static void split_put(split_stream *t, const uint64_t *words, size_t n)
{
    if (t->len + n > SPLIT_WORDS)
        split_flush(t);
    if (n > SPLIT_WORDS) {
        split_send(t, words, n);
        return;
    }
    memcpy(t->buf + t->len, words, n * sizeof *words);
    t->len += n;
}

/* Keeps a record every later thread's stream starts with. */
static int split_share(record_session_splitter *sp, const uint64_t *words, size_t n)
{
    if (sp->shared_len + n > sp->shared_cap) {
        size_t cap = sp->shared_cap ? sp->shared_cap : 4096;
        uint64_t *grown;
        while (cap < sp->shared_len + n)
            cap *= 2;
        if (!(grown = realloc(sp->shared, cap * sizeof *grown)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        sp->shared = grown;
        sp->shared_cap = cap;
    }
    memcpy(sp->shared + sp->shared_len, words, n * sizeof *words);
    sp->shared_len += n;
    return TEA_OK;
}

/* The stream of thread `tid`, started (and handed to on_thread) when it
 * has none yet. */
static int split_stream_of(record_session_splitter *sp, uint32_t tid, record_session_thread_fn on_thread,
                           void *ctx, split_stream **out)
{
    int fds[2], rc;
    split_stream *t;

    for (size_t k = 0; k < sp->count; k++)
        if (sp->streams[k]->tid == tid) {
            *out = sp->streams[k];
            return TEA_OK;
        }
    if (sp->count == RECORD_SESSION_THREADS_MAX)
        return error_set(TEA_ERR_UNSUPPORTED, "more than %d recorded threads", RECORD_SESSION_THREADS_MAX);
    if (sp->count == sp->cap) {
        size_t cap = sp->cap ? 2 * sp->cap : 8;
        split_stream **grown = realloc(sp->streams, cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        sp->streams = grown;
        sp->cap = cap;
    }
    if (!(t = calloc(1, sizeof *t)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        free(t);
        return error_set(TEA_ERR_IO, "cannot make a stream for thread %u: %s", (unsigned)tid, strerror(errno));
    }
    t->tid = tid;
    t->fd = fds[1];
    sp->streams[sp->count++] = t;
    if ((rc = on_thread(ctx, tid, fds[0])))
        return rc;
    split_put(t, sp->shared, sp->shared_len);
    *out = t;
    return TEA_OK;
}

/* The words of the record at buf + pos (its first word there). */
static int split_record_words(record_session *v, size_t *words)
{
    uint64_t w = v->buf[v->pos];
    int got, rc;

    switch (w >> TEAREC_STREAM_KIND_SHIFT) {
    case TEAREC_STREAM_THREAD:
        *words = TEAREC_STREAM_THREAD_WORDS;
        return TEA_OK;
    case TEAREC_STREAM_CODE:
        *words = TEAREC_STREAM_CODE_WORDS;
        return TEA_OK;
    case TEAREC_STREAM_EXE:
        *words = 1 + ((w & TEAREC_STREAM_ADDR_MASK) + 7) / 8;
        break;
    case TEAREC_STREAM_LINES:
    case TEAREC_STREAM_STACK:
        *words = 1 + (w & TEAREC_STREAM_ADDR_MASK);
        break;
    case TEAREC_STREAM_OBJECT:
        *words = TEAREC_STREAM_OBJECT_WORDS; /* cut short: the caller's need() says so */
        if ((rc = need(v, TEAREC_STREAM_OBJECT_WORDS, &got)) || !got)
            return rc;
        *words = TEAREC_STREAM_OBJECT_WORDS + (v->buf[v->pos + 3] + 7) / 8;
        break;
    default:
        *words = 1;
        return TEA_OK;
    }
    if (*words > TEAREC_STREAM_OBJECT_WORDS + TEAREC_STREAM_PATH_MAX / 8 + 1)
        return error_set(TEA_ERR_FORMAT, "%s: a record of %zu words after %llu words", v->name, *words,
                         (unsigned long long)v->stats.words);
    return TEA_OK;
}

int record_session_split(record_session *v, record_session_thread_fn on_thread, void *ctx,
                         record_session_splitter **out)
{
    record_session_splitter *sp = calloc(1, sizeof *sp);
    split_stream *current = NULL;
    uint32_t tid = 1; /* before the first SWITCH */
    int got, rc = TEA_OK;

    if (!(*out = sp))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    while (!(rc = need(v, 1, &got)) && got) {
        uint64_t w = v->buf[v->pos];
        uint64_t kind = w >> TEAREC_STREAM_KIND_SHIFT;
        size_t n = 1;
        if ((rc = split_record_words(v, &n)) || (rc = need(v, n, &got)))
            break;
        if (!got) {
            rc = ended_inside(v);
            break;
        }
        const uint64_t *words = v->buf + v->pos;
        if (kind == TEAREC_STREAM_SWITCH) {
            tid = (uint32_t)(w & TEAREC_STREAM_THREAD_MASK);
            current = NULL;
        } else if (kind == TEAREC_STREAM_INSN || kind == TEAREC_STREAM_WARM || kind == TEAREC_STREAM_LOAD
                   || kind == TEAREC_STREAM_STORE || kind == TEAREC_STREAM_WINDOW || kind == TEAREC_STREAM_LINES
                   || kind == TEAREC_STREAM_COUNT || kind == TEAREC_STREAM_STACK) {
            if (!current && (rc = split_stream_of(sp, tid, on_thread, ctx, &current)))
                break;
            split_put(current, words, n);
        } else {
            if ((kind == TEAREC_STREAM_EXE || kind == TEAREC_STREAM_OBJECT || kind == TEAREC_STREAM_CODE)
                && (rc = split_share(sp, words, n)))
                break;
            for (size_t k = 0; k < sp->count; k++)
                split_put(sp->streams[k], words, n);
        }
        v->pos += n;
        v->stats.words += n;
    }
    for (size_t k = 0; k < sp->count; k++)
        split_flush(sp->streams[k]);
    return rc;
}

void record_session_splitter_close(record_session_splitter *sp)
{
    if (!sp)
        return;
    for (size_t k = 0; k < sp->count; k++) {
        if (sp->streams[k]->fd >= 0)
            close(sp->streams[k]->fd);
        free(sp->streams[k]);
    }
    free(sp->streams);
    free(sp->shared);
    free(sp);
}

/* --- forked children's streams ------------------------------------------------ */

/* The socket's name: this prefix, tea record's pid and a per-process count
 * (several recordings may run at once; the abstract namespace is shared by
 * every process of the network namespace). */
#define LISTENER_PREFIX "tea-record"
#define LISTENER_NAME_MAX 64
/* Connections the kernel queues before tea record accepts them. */
#define LISTENER_BACKLOG 4096

struct record_session_listener {
    int fd;
    char name[LISTENER_NAME_MAX];
};

int record_session_listen(record_session_listener **out)
{
    static atomic_uint serial;
    record_session_listener *l = calloc(1, sizeof *l);
    struct sockaddr_un addr;
    size_t len;

    *out = NULL;
    if (!l)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    snprintf(l->name, sizeof l->name, "%s-%ld-%u", LISTENER_PREFIX, (long)getpid(), atomic_fetch_add(&serial, 1));
    len = strlen(l->name);
    assert(1 + len <= sizeof addr.sun_path); /* the name fits after the abstract namespace's NUL */
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path + 1, l->name, len); /* sun_path[0] = 0: the abstract namespace, no file */
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len))
        || listen(l->fd, LISTENER_BACKLOG)) {
        int err = errno;
        if (l->fd >= 0)
            close(l->fd);
        free(l);
        return error_set(TEA_ERR_IO, "cannot open a socket for the children's streams: %s", strerror(err));
    }
    *out = l;
    return TEA_OK;
}

const char *record_session_listener_name(const record_session_listener *l)
{
    return l->name;
}

int record_session_accept(record_session_listener *l, int timeout_ms, record_session **child, pid_t *pid)
{
    struct pollfd p = { l->fd, POLLIN, 0 };
    struct ucred cred;
    socklen_t size = sizeof cred;
    char name[LISTENER_NAME_MAX];
    int fd, rc;

    *child = NULL;
    *pid = 0;
    rc = poll(&p, 1, timeout_ms);
    if (rc < 0 && errno != EINTR)
        return error_set(TEA_ERR_IO, "waiting for the children's streams: %s", strerror(errno));
    if (rc <= 0)
        return TEA_OK;
    fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return errno == EINTR || errno == EAGAIN || errno == ECONNABORTED
                   ? TEA_OK
                   : error_set(TEA_ERR_IO, "accepting a child's stream: %s", strerror(errno));
    /* the child connected itself, right after its fork */
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0) {
        close(fd);
        return error_set(TEA_ERR_IO, "a child's stream: %s", strerror(errno));
    }
    snprintf(name, sizeof name, "the stream of process %ld", (long)cred.pid);
    if ((rc = session_init(child, fd, name))) {
        close(fd);
        return rc;
    }
    (*child)->cleanup = cleanup_add_child(cred.pid);
    *pid = cred.pid;
    return TEA_OK;
}

void record_session_listener_close(record_session_listener *l)
{
    if (!l)
        return;
    close(l->fd);
    free(l);
}

/* --- processes left under Valgrind -------------------------------------------- */

/* Fields of /proc/PID/stat after the command name: state, then the parent. */
#define PROC_STAT_MAX 512

/* The parent of process `pid`, or -1 when it is gone. */
static pid_t parent_of(pid_t pid)
{
    char path[64], text[PROC_STAT_MAX], *close_paren;
    long ppid;
    ssize_t n;
    int fd;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    /* "PID (COMMAND) STATE PPID ...": the command may hold spaces and parentheses */
    if (!(close_paren = strrchr(text, ')')) || sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

/* True when `pid` descends from `ancestor`. */
static int descends_from(pid_t pid, pid_t ancestor)
{
    for (int depth = 0; pid > 1 && depth < PROC_STAT_MAX; depth++) {
        pid = parent_of(pid);
        if (pid == ancestor)
            return 1;
    }
    return 0;
}

/* True when process `pid` runs the file `exe` (Valgrind with tea's tool). */
static int runs_file(pid_t pid, const char *exe)
{
    char path[64], target[PATH_MAX];
    ssize_t n;

    snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
    n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    return strcmp(target, exe) == 0;
}

int record_session_adopt_orphans(void)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        return error_set(TEA_ERR_IO, "cannot adopt the program's orphaned processes: %s", strerror(errno));
    return TEA_OK;
}

size_t record_session_kill_leftovers(const char *tool_dir)
{
    char tool[PATH_MAX], *real;
    DIR *d;
    struct dirent *e;
    size_t killed = 0;
    pid_t self = getpid();

    if (!tool_dir || snprintf(tool, sizeof tool, "%s/%s", tool_dir, RECORD_SESSION_TOOL_FILE) >= (int)sizeof tool)
        return 0;
    if ((real = realpath(tool, NULL))) {
        snprintf(tool, sizeof tool, "%s", real);
        free(real);
    }
    if (!(d = opendir("/proc")))
        return 0;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || pid <= 1 || pid == self)
            continue;
        if (runs_file((pid_t)pid, tool) && descends_from((pid_t)pid, self)) {
            kill((pid_t)pid, SIGKILL);
            /* reaped when it is a child (an orphan this process adopted) */
            waitpid((pid_t)pid, NULL, WNOHANG);
            killed++;
        }
    }
    closedir(d);
    /* the adopted orphans that have ended: reaped here, not left to init */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return killed;
}
