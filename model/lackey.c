/*
 * lackey.c: Valgrind lackey traces of x86-64 programs as model instructions
 * (see lackey.h and docs/model.md, "Recording real programs").
 */
#define _GNU_SOURCE
#include "lackey.h"
#include "bpred.h"
#include "binary/elffile.h"
#include "common/cleanup.h"
#include "common/error.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The pipe from Valgrind: as large as the kernel allows an unprivileged
 * process by default, and drained only when at least half full, so Valgrind
 * (one write per line) runs without waking us for every line. */
#define PIPE_BYTES (1u << 20)
#define DRAIN_THRESHOLD (PIPE_BYTES / 2)
#define DRAIN_SLEEP_NS 1000000L
#define READ_BUFFER (PIPE_BYTES + 4096)
#define LINE_MAX_BYTES 4096
/* Static instructions decoded (power of 2; grows). */
#define DECODE_INITIAL 65536u
#define MAX_OBJECTS 256
#define MAX_SEGMENTS 8
#define MAX_X86_BYTES 15
#define MAX_READS 8
#define MAX_WRITES 4
/* Register slots tracked for dataflow: capstone x86 register ids. */
#define REG_SLOTS 512
/* A producer further back than this is not a dependence the model tracks. */
#define MAX_DEP_DISTANCE 4096
/* Size assumed for an instruction nothing is known about (wrong path). */
#define UNKNOWN_SIZE 4

typedef struct segment {
    uint64_t start, end;   /* runtime addresses [start, end) */
    uint64_t file_offset;  /* of start in the file */
} segment;

typedef struct elf_object {
    char *path;
    uint64_t bias;
    elffile file;          /* open while the object is known */
    const uint8_t *map;    /* the file's bytes (elf_rawfile of a read-only mapping) */
    size_t map_size;
    segment segs[MAX_SEGMENTS];
    unsigned seg_count;
} elf_object;

/* What decoding a static instruction tells us. */
typedef struct decoded {
    uint64_t pc;
    uint64_t target;       /* direct control flow: the target */
    uint16_t reads[MAX_READS];
    uint16_t writes[MAX_WRITES];
    uint8_t nreads, nwrites;
    uint8_t size;
    uint8_t cls;           /* model_class before memory accesses are seen */
    uint8_t branch;        /* MODEL_BRANCH_NONE or 1 + bpred_kind */
    uint8_t flush;         /* serializing: flushes at commit */
    uint8_t known;         /* decoded from an object's bytes */
    uint8_t used;
} decoded;

/* One executed instruction line and its memory accesses. */
typedef struct pending_line {
    uint64_t pc;
    unsigned size;
    uint64_t load_addr, store_addr;
    unsigned load_size, store_size;
    uint8_t loads, stores, have;
} pending_line;

struct lackey {
    int fd;
    char *name;
    pid_t pid;             /* Valgrind, or 0 */
    int cleanup;           /* cleanup.h handle of pid (terminated on SIGINT/SIGTERM), or -1 */
    int exited;
    int wait_status;
    char *buf;
    size_t len, pos;
    int eof;
    csh cs;
    int cs_open;
    elf_object objects[MAX_OBJECTS];
    unsigned object_count;
    char *pending_path;    /* "Reading syms from" awaiting its svma/avma line */
    decoded *table;
    size_t table_cap, table_count;
    uint64_t last_writer[REG_SLOTS]; /* seq of the latest writer of each register */
    uint64_t seq;
    pending_line cur;      /* the instruction being assembled */
    uint64_t limit;
    int limited;
    lackey_program program;
    lackey_stats stats;
    char last_message[256];  /* the last Valgrind message, for errors */
};

/* --- objects -------------------------------------------------------------------- */

/* Maps an ELF object and records its executable segments at `bias`. Objects
 * that cannot be read are skipped: their code is classified as unknown. */
static void map_object(lackey *l, const char *path, uint64_t bias)
{
    elf_object *o;
    size_t phnum, size = 0;

    if (l->object_count == MAX_OBJECTS)
        return;
    o = &l->objects[l->object_count];
    memset(o, 0, sizeof *o);
    if (elffile_open(&o->file, path))
        return;
    o->map = (const uint8_t *)elf_rawfile(o->file.elf, &size);
    o->map_size = o->map ? size : 0;
    if (o->map_size && elf_getphdrnum(o->file.elf, &phnum) == 0) {
        for (size_t i = 0; i < phnum && o->seg_count < MAX_SEGMENTS; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(o->file.elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
                continue;
            o->segs[o->seg_count].start = ph.p_vaddr + bias;
            o->segs[o->seg_count].end = ph.p_vaddr + bias + ph.p_filesz;
            o->segs[o->seg_count].file_offset = ph.p_offset;
            o->seg_count++;
        }
    }
    o->path = strdup(path);
    o->bias = bias;
    if (!o->path || o->seg_count == 0) {
        elffile_close(&o->file);
        free(o->path);
        return;
    }
    l->object_count++;
    l->stats.objects++;
}

/* The bytes at runtime address `pc` (up to `*avail`), or NULL. */
static const uint8_t *code_at(const lackey *l, uint64_t pc, size_t *avail)
{
    for (unsigned i = 0; i < l->object_count; i++) {
        const elf_object *o = &l->objects[i];
        for (unsigned s = 0; s < o->seg_count; s++) {
            const segment *g = &o->segs[s];
            uint64_t off;
            if (pc < g->start || pc >= g->end)
                continue;
            off = g->file_offset + (pc - g->start);
            if (off >= o->map_size)
                return NULL;
            *avail = o->map_size - off;
            if (*avail > g->end - pc)
                *avail = g->end - pc;
            return o->map + off;
        }
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
        return 1 + BPRED_RETURN;
    if (call)
        return (uint8_t)(1 + (direct ? BPRED_CALL : BPRED_INDIRECT_CALL));
    if (!jump)
        return MODEL_BRANCH_NONE;
    if (in->id == X86_INS_JMP || in->id == X86_INS_LJMP)
        return (uint8_t)(1 + (direct ? BPRED_JUMP : BPRED_INDIRECT));
    return 1 + BPRED_COND;
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

/* Decodes the static instruction at `pc` into *d (size from the trace when
 * known, else from the decoder). Unknown code is an integer instruction. */
static void decode(lackey *l, uint64_t pc, unsigned trace_size, decoded *d)
{
    size_t avail = 0;
    const uint8_t *code = code_at(l, pc, &avail);
    cs_insn *in;

    memset(d, 0, sizeof *d);
    d->pc = pc;
    d->size = (uint8_t)(trace_size ? trace_size : UNKNOWN_SIZE);
    d->cls = MODEL_INT;
    d->used = 1;
    if (!code || !l->cs_open)
        return;
    in = cs_malloc(l->cs);
    if (!in)
        return;
    {
        const uint8_t *p = code;
        size_t n = avail < MAX_X86_BYTES ? avail : MAX_X86_BYTES;
        uint64_t addr = pc;
        if (cs_disasm_iter(l->cs, &p, &n, &addr, in)) {
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
            if (cs_regs_access(l->cs, in, reads, &nr, writes, &nw) == CS_ERR_OK) {
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

static size_t slot_of(const lackey *l, uint64_t pc)
{
    return (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 32) & (l->table_cap - 1);
}

/* The decoded instruction at `pc`, decoding it the first time. */
static const decoded *lookup(lackey *l, uint64_t pc, unsigned trace_size)
{
    size_t s;
    if ((l->table_count + 1) * 2 > l->table_cap) {
        size_t cap = l->table_cap * 2;
        decoded *bigger = calloc(cap, sizeof *bigger);
        if (bigger) {
            decoded *old = l->table;
            size_t old_cap = l->table_cap;
            l->table = bigger;
            l->table_cap = cap;
            for (size_t i = 0; i < old_cap; i++) {
                if (!old[i].used)
                    continue;
                s = slot_of(l, old[i].pc);
                while (l->table[s].used)
                    s = (s + 1) & (cap - 1);
                l->table[s] = old[i];
            }
            free(old);
        }
    }
    s = slot_of(l, pc);
    while (l->table[s].used) {
        if (l->table[s].pc == pc)
            return &l->table[s];
        s = (s + 1) & (l->table_cap - 1);
    }
    if (l->table_count + 1 >= l->table_cap) /* could not grow: decode without caching */
        s = (s + 1) & (l->table_cap - 1);
    decode(l, pc, trace_size, &l->table[s]);
    l->table_count++;
    l->stats.static_insns++;
    if (!l->table[s].known)
        l->stats.undecodable++;
    return &l->table[s];
}

/* --- reading ---------------------------------------------------------------- */

/* Refills the buffer from the pipe. Waits (briefly sleeping) until the pipe
 * is at least half full or the writer is gone, to read in bulk. */
static int refill(lackey *l)
{
    ssize_t n;
    int avail = 0;

    if (l->eof)
        return TEA_OK;
    if (l->pos > 0) {
        memmove(l->buf, l->buf + l->pos, l->len - l->pos);
        l->len -= l->pos;
        l->pos = 0;
    }
    if (ioctl(l->fd, FIONREAD, &avail) == 0 && avail < (int)DRAIN_THRESHOLD && l->pid) {
        struct timespec ts = { 0, DRAIN_SLEEP_NS };
        nanosleep(&ts, NULL);
    }
    do
        n = read(l->fd, l->buf + l->len, READ_BUFFER - l->len - 1);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return tea_error_set(TEA_ERR_IO, "%s: read failed: %s", l->name, strerror(errno));
    if (n == 0)
        l->eof = 1;
    l->len += (size_t)n;
    return TEA_OK;
}

/* The next line (NUL-terminated in place), or NULL at the end. */
static int next_line(lackey *l, char **line)
{
    for (;;) {
        char *nl = memchr(l->buf + l->pos, '\n', l->len - l->pos);
        int rc;
        if (nl) {
            *nl = '\0';
            *line = l->buf + l->pos;
            l->pos = (size_t)(nl - l->buf) + 1;
            l->stats.lines++;
            return TEA_OK;
        }
        if (l->eof) {
            *line = NULL;
            return TEA_OK;
        }
        if (l->len - l->pos >= LINE_MAX_BYTES)
            return tea_error_set(TEA_ERR_FORMAT, "%s: line %llu is longer than %d bytes", l->name,
                                 (unsigned long long)l->stats.lines + 1, LINE_MAX_BYTES);
        if ((rc = refill(l)))
            return rc;
    }
}

/* Parses "hex,dec" after a line's tag. */
static int parse_access(const char *s, uint64_t *addr, unsigned *size)
{
    char *end;
    unsigned long n;
    *addr = strtoull(s, &end, 16);
    if (end == s || *end != ',')
        return -1;
    n = strtoul(end + 1, &end, 10);
    if (*end != '\0' && *end != ' ')
        return -1;
    *size = (unsigned)n;
    return 0;
}

/* A Valgrind message: objects being loaded, or text to keep for errors. */
static void handle_message(lackey *l, const char *line)
{
    const char *body = strstr(line + 2, "--");
    const char *p;
    if (line[0] == '=' && (p = strstr(line + 2, "== ")))
        snprintf(l->last_message, sizeof l->last_message, "%s", p + 3);
    if (!body)
        return;
    body += 2;
    while (*body == ' ')
        body++;
    if (starts_with(body, "Reading syms from ")) {
        free(l->pending_path);
        l->pending_path = strdup(body + strlen("Reading syms from "));
        return;
    }
    if (starts_with(body, "svma ") && l->pending_path) {
        unsigned long long svma, avma;
        if (sscanf(body, "svma 0x%llx, avma 0x%llx", &svma, &avma) == 2) {
            uint64_t bias = avma - svma;
            if (!l->program.path) {
                l->program.path = strdup(l->pending_path);
                l->program.load_bias = bias;
                l->program.have_bias = 1;
                l->program.build_id = elffile_read_build_id(l->pending_path);
            }
            map_object(l, l->pending_path, bias);
        }
        free(l->pending_path);
        l->pending_path = NULL;
    }
}

/* Reads lines until an instruction line; *got = 0 at the end. */
static int read_instruction(lackey *l, pending_line *out, int *got)
{
    char *line = NULL;
    int rc;

    *got = 0;
    for (;;) {
        if ((rc = next_line(l, &line)))
            return rc;
        if (!line)
            return TEA_OK;
        if (line[0] == 'I' && line[1] == ' ') {
            memset(out, 0, sizeof *out);
            if (parse_access(line + 3, &out->pc, &out->size))
                return tea_error_set(TEA_ERR_FORMAT, "%s: line %llu: malformed instruction line", l->name,
                                     (unsigned long long)l->stats.lines);
            out->have = 1;
            *got = 1;
            return TEA_OK;
        }
        if (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M') && line[2] == ' ') {
            uint64_t addr;
            unsigned size;
            if (!l->cur.have)
                continue; /* accesses before the first instruction */
            if (parse_access(line + 3, &addr, &size))
                return tea_error_set(TEA_ERR_FORMAT, "%s: line %llu: malformed access line", l->name,
                                     (unsigned long long)l->stats.lines);
            if ((line[1] == 'L' || line[1] == 'M') && !l->cur.loads++) {
                l->cur.load_addr = addr;
                l->cur.load_size = size;
            }
            if ((line[1] == 'S' || line[1] == 'M') && !l->cur.stores++) {
                l->cur.store_addr = addr;
                l->cur.store_size = size;
            }
            continue;
        }
        if ((line[0] == '-' && line[1] == '-') || (line[0] == '=' && line[1] == '='))
            handle_message(l, line);
    }
}

/* Builds the model instruction for `p`, whose successor starts at next_pc. */
static void make_insn(lackey *l, const pending_line *p, uint64_t next_pc, model_insn *u)
{
    const decoded *d = lookup(l, p->pc, p->size);
    uint64_t producer = 0;

    memset(u, 0, sizeof *u);
    u->pc = p->pc;
    u->size = (uint8_t)p->size;
    u->cls = d->cls;
    u->branch = d->branch;
    if (d->flush)
        u->flags |= MODEL_INSN_FLUSH;
    if (d->branch != MODEL_BRANCH_NONE) {
        int taken = next_pc != p->pc + p->size;
        if (taken) {
            u->flags |= MODEL_INSN_TAKEN;
            u->target = next_pc;
        } else {
            u->target = d->target;
        }
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
    l->seq++;
    for (unsigned i = 0; i < d->nreads; i++) {
        uint64_t w = l->last_writer[d->reads[i] % REG_SLOTS];
        if (w > producer)
            producer = w;
    }
    if (producer && l->seq - producer < MAX_DEP_DISTANCE)
        u->dep = (uint16_t)(l->seq - producer);
    for (unsigned i = 0; i < d->nwrites; i++)
        l->last_writer[d->writes[i] % REG_SLOTS] = l->seq;
}

/* The model source: the next executed instruction, whose branch outcome the
 * instruction after it reveals. */
static int lackey_next(void *ctx, model_insn *u)
{
    lackey *l = ctx;
    pending_line next;
    int got, rc;

    if (l->limited || (l->limit && l->stats.instructions >= l->limit)) {
        if (!l->limited && l->pid > 0)
            kill(l->pid, SIGKILL);
        l->limited = 1;
        return 0;
    }
    if (!l->cur.have) {
        if ((rc = read_instruction(l, &l->cur, &got)))
            return rc;
        if (!got)
            return 0;
    }
    if ((rc = read_instruction(l, &next, &got)))
        return rc;
    make_insn(l, &l->cur, got ? next.pc : l->cur.pc + l->cur.size, u);
    l->stats.instructions++;
    if (got)
        l->cur = next;
    else
        l->cur.have = 0;
    return 1;
}

/* A wrong-path instruction: whatever the binary holds at `pc`. */
static void lackey_wrong_path(void *ctx, uint64_t pc, model_insn *u)
{
    lackey *l = ctx;
    const decoded *d = lookup(l, pc, 0);

    memset(u, 0, sizeof *u);
    u->pc = pc;
    u->size = d->size;
    u->cls = d->cls == MODEL_SERIAL || d->cls == MODEL_BRANCH ? MODEL_INT : d->cls;
}

model_source lackey_source(lackey *l)
{
    model_source src = { lackey_next, lackey_wrong_path, l };
    return src;
}

/* --- sessions ----------------------------------------------------------------- */

static int session_init(lackey **out, int fd, const char *name)
{
    lackey *l = calloc(1, sizeof *l);
    *out = NULL;
    if (!l)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    l->fd = fd;
    l->cleanup = -1;
    l->name = strdup(name);
    l->buf = malloc(READ_BUFFER);
    l->table_cap = DECODE_INITIAL;
    l->table = calloc(l->table_cap, sizeof *l->table);
    if (!l->name || !l->buf || !l->table) {
        lackey_close(l);
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if (elf_version(EV_CURRENT) == EV_NONE) {
        lackey_close(l);
        return tea_error_set(TEA_ERR_IO, "libelf is out of date");
    }
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &l->cs) == CS_ERR_OK) {
        l->cs_open = 1;
        cs_option(l->cs, CS_OPT_DETAIL, CS_OPT_ON);
    }
    *out = l;
    return TEA_OK;
}

int lackey_open_fd(lackey **out, int fd, const char *name)
{
    return session_init(out, fd, name);
}

/* Whether `name` names an executable file, directly (with a slash) or in
 * one of the directories of PATH, as execvp would find it. */
static int program_runnable(const char *name)
{
    const char *path = getenv("PATH"), *dir;
    char buf[4096];

    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (dir = path; dir; dir = strchr(dir, ':') ? strchr(dir, ':') + 1 : NULL) {
        size_t len = strchr(dir, ':') ? (size_t)(strchr(dir, ':') - dir) : strlen(dir);
        if (snprintf(buf, sizeof buf, "%.*s/%s", (int)(len ? len : 1), len ? dir : ".", name) < (int)sizeof buf
            && access(buf, X_OK) == 0)
            return 1;
    }
    return 0;
}

int lackey_spawn(lackey **out, char *const argv[], const char *valgrind)
{
    int fds[2];
    char log_fd[32];
    pid_t pid;
    lackey *l;
    int rc;

    if (!valgrind)
        valgrind = "valgrind";
    *out = NULL;
    if (!argv[0] || !program_runnable(argv[0]))
        return tea_error_set(TEA_ERR_USAGE, "%s: no such program, or not executable",
                             argv[0] ? argv[0] : "(none)");
    if (!program_runnable(valgrind))
        return tea_error_set(TEA_ERR_IO, "%s not found; install the Debian package 'valgrind'", valgrind);
    if (pipe(fds) != 0)
        return tea_error_set(TEA_ERR_IO, "cannot create a pipe: %s", strerror(errno));
    fcntl(fds[0], F_SETPIPE_SZ, PIPE_BYTES);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    snprintf(log_fd, sizeof log_fd, "--log-fd=%d", fds[1]);
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return tea_error_set(TEA_ERR_IO, "cannot start valgrind: %s", strerror(errno));
    }
    if (pid == 0) {
        size_t n = 0;
        char **args;
        while (argv[n])
            n++;
        args = calloc(n + 8, sizeof *args);
        if (args) {
            args[0] = (char *)valgrind;
            args[1] = "--tool=lackey";
            args[2] = "--trace-mem=yes";
            args[3] = "--basic-counts=no";
            args[4] = "-v";
            args[5] = "-v";
            args[6] = log_fd;
            for (size_t i = 0; i < n; i++)
                args[7 + i] = argv[i];
            execvp(valgrind, args);
        }
        /* The parent learns of the failure from the empty, closed pipe. */
        dprintf(fds[1], "==0== tea: cannot run %s: %s\n", valgrind, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    if ((rc = session_init(&l, fds[0], "valgrind output"))) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(fds[0]);
        return rc;
    }
    l->pid = pid;
    l->cleanup = cleanup_add_child(pid);
    *out = l;
    return TEA_OK;
}

void lackey_set_limit(lackey *l, uint64_t n)
{
    l->limit = n;
}

const lackey_program *lackey_get_program(const lackey *l)
{
    return &l->program;
}

const lackey_stats *lackey_get_stats(const lackey *l)
{
    return &l->stats;
}

int lackey_wait(lackey *l, int *status)
{
    int st;
    *status = 0;
    if (!l->pid || l->exited)
        return TEA_OK;
    /* Let Valgrind finish writing whatever it still has. */
    while (!l->eof && !l->limited) {
        if (refill(l))
            break;
        l->pos = l->len;
    }
    while (waitpid(l->pid, &st, 0) < 0) {
        if (errno != EINTR)
            return tea_error_set(TEA_ERR_IO, "waiting for valgrind: %s", strerror(errno));
    }
    l->exited = 1;
    cleanup_forget(l->cleanup);
    l->cleanup = -1;
    if (l->limited) {
        *status = -1;
        return TEA_OK;
    }
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && l->stats.instructions == 0)
        return tea_error_set(TEA_ERR_IO, "valgrind did not run (%s); install the Debian package 'valgrind'",
                             l->last_message[0] ? l->last_message : "exit status 127");
    return TEA_OK;
}

void lackey_close(lackey *l)
{
    if (!l)
        return;
    if (l->pid > 0 && !l->exited) {
        kill(l->pid, SIGKILL);
        waitpid(l->pid, NULL, 0);
    }
    cleanup_forget(l->cleanup);
    if (l->fd >= 0)
        close(l->fd);
    if (l->cs_open)
        cs_close(&l->cs);
    for (unsigned i = 0; i < l->object_count; i++) {
        elffile_close(&l->objects[i].file);
        free(l->objects[i].path);
    }
    free(l->pending_path);
    free(l->program.path);
    free(l->program.build_id);
    free(l->table);
    free(l->buf);
    free(l->name);
    free(l);
}
