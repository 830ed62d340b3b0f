/*
 * disasm.c: capstone 5 behind the disasm_ interface (see disasm.h).
 *
 * Classification uses what each architecture's capstone module describes
 * reliably: on x86-64 the groups and the operands' access flags; on AArch64
 * the groups, with loads and stores told by their (regular) mnemonics; on
 * RISC-V, whose capstone 5 module marks neither `jal` as a jump nor memory
 * operands as read or written, the mnemonics alone.
 */
#include "disasm.h"
#include "common/error.h"

#include <assert.h>
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CS_API_MAJOR < 5
#error "capstone 5 or later is needed (RISC-V); see scripts/install-deps.sh"
#endif

/* Bytes shown in an error message about an undecodable instruction. */
#define ERROR_BYTES 8

typedef enum arch_kind { ARCH_X86_64, ARCH_AARCH64, ARCH_RISCV64 } arch_kind;

typedef struct arch_desc {
    const char *name;
    arch_kind kind;
    cs_arch cs;
    cs_mode mode;
} arch_desc;

static const arch_desc ARCHES[] = {
    { "x86_64", ARCH_X86_64, CS_ARCH_X86, CS_MODE_64 },
    { "aarch64", ARCH_AARCH64, CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN },
    { "riscv64", ARCH_RISCV64, CS_ARCH_RISCV, (cs_mode)(CS_MODE_RISCV64 | CS_MODE_RISCVC) },
};

struct binary_disasm {
    const arch_desc *arch;
    csh cs;
    cs_insn *insn; /* capstone's buffer, reused for every instruction */
};

int binary_disasm_open(binary_disasm **out, const char *arch)
{
    const arch_desc *a = NULL;
    binary_disasm *d;
    cs_err err;

    TEA_ASSERT_ARG(out != NULL);
    *out = NULL;
    for (size_t i = 0; i < sizeof ARCHES / sizeof ARCHES[0]; i++)
        if (arch && !strcmp(arch, ARCHES[i].name))
            a = &ARCHES[i];
    if (!a)
        return error_set(TEA_ERR_USAGE, "unknown architecture '%s' (x86_64, aarch64 or riscv64)",
                         arch ? arch : "(null)");
    if (!cs_support((int)a->cs))
        return error_set(TEA_ERR_UNSUPPORTED, "the capstone linked in cannot disassemble %s", a->name);
    d = calloc(1, sizeof *d);
    if (!d)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    d->arch = a;
    err = cs_open(a->cs, a->mode, &d->cs);
    if (err != CS_ERR_OK) {
        free(d);
        return error_set(err == CS_ERR_MEM ? TEA_ERR_NOMEM : TEA_ERR_UNSUPPORTED, "capstone cannot open %s: %s",
                         a->name, cs_strerror(err));
    }
    cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
    d->insn = cs_malloc(d->cs);
    if (!d->insn) {
        cs_close(&d->cs);
        free(d);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    *out = d;
    return TEA_OK;
}

const char *binary_disasm_arch(const binary_disasm *d)
{
    return d->arch->name;
}

void binary_disasm_close(binary_disasm *d)
{
    if (!d)
        return;
    if (d->insn)
        cs_free(d->insn, 1);
    cs_close(&d->cs);
    free(d);
}

const char *binary_disasm_op_name(binary_disasm_op op)
{
    static const char *const names[BINARY_DISASM_OP_COUNT] = { "int",    "mul",    "div",     "fp-add",
                                                               "fp-mul", "fp-div", "fp-sqrt", "serial" };
    return (unsigned)op < BINARY_DISASM_OP_COUNT ? names[op] : "?";
}

const char *binary_disasm_class_name(binary_disasm_class cls)
{
    switch (cls) {
    case BINARY_DISASM_BRANCH: return "branch";
    case BINARY_DISASM_LOAD: return "load";
    case BINARY_DISASM_STORE: return "store";
    default: return "other";
    }
}

static int has_prefix(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* True when `s` is one of the NULL-terminated `names`. */
static int in_list(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(s, *names))
            return 1;
    return 0;
}

/* The branch flags of capstone's generic groups. */
static unsigned group_flags(const cs_detail *det)
{
    unsigned flags = 0;
    for (unsigned i = 0; i < det->groups_count; i++) {
        switch (det->groups[i]) {
        case CS_GRP_JUMP: flags |= BINARY_DISASM_F_BRANCH; break;
        case CS_GRP_CALL: flags |= BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL; break;
        case CS_GRP_RET:
        case CS_GRP_IRET: flags |= BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_RETURN; break;
        default: break;
        }
    }
    return flags;
}

/* x86-64: groups, the access flags of explicit memory operands (not those of
 * lea and the multi-byte nops, which compute an address without using it),
 * and the stack accesses of push, pop, call and ret. */
static unsigned x86_flags(const cs_insn *in)
{
    const cs_x86 *x = &in->detail->x86;
    unsigned flags = group_flags(in->detail);

    if (in->id != X86_INS_LEA && in->id != X86_INS_NOP)
        for (unsigned i = 0; i < x->op_count; i++)
            if (x->operands[i].type == X86_OP_MEM) {
                if (x->operands[i].access & CS_AC_READ)
                    flags |= BINARY_DISASM_F_LOAD;
                if (x->operands[i].access & CS_AC_WRITE)
                    flags |= BINARY_DISASM_F_STORE;
            }
    if (in->id == X86_INS_PUSH || in->id == X86_INS_PUSHF || in->id == X86_INS_PUSHFQ || (flags & BINARY_DISASM_F_CALL))
        flags |= BINARY_DISASM_F_STORE;
    if (in->id == X86_INS_POP || in->id == X86_INS_POPF || in->id == X86_INS_POPFQ || (flags & BINARY_DISASM_F_RETURN))
        flags |= BINARY_DISASM_F_LOAD;
    /* Every jump but jmp tests a condition (jcc, jrcxz, loop). */
    if ((flags & BINARY_DISASM_F_BRANCH) && !(flags & (BINARY_DISASM_F_CALL | BINARY_DISASM_F_RETURN))
        && in->id != X86_INS_JMP && in->id != X86_INS_LJMP)
        flags |= BINARY_DISASM_F_CONDITIONAL;
    return flags;
}

/* AArch64: groups for branches; loads start with "ld", stores with "st"
 * (ldr, ldp, ldur, ldxr, ldar, ld1...; str, stp, stur, stxr, stlr, st1...);
 * the atomic memory operations (ld<op>, st<op>, cas, swp) do both. */
static unsigned aarch64_flags(const cs_insn *in)
{
    static const char *const atomic_ops[] = { "add", "clr", "eor", "set", "smax", "smin", "umax", "umin", NULL };
    const char *m = in->mnemonic;
    unsigned flags = group_flags(in->detail);

    if (has_prefix(m, "b.") || has_prefix(m, "cb") || has_prefix(m, "tb"))
        flags |= BINARY_DISASM_F_CONDITIONAL; /* b.cond, cbz, cbnz, tbz, tbnz */
    if (has_prefix(m, "cas") || has_prefix(m, "swp")) {
        flags |= BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE;
    } else if (has_prefix(m, "ld") || has_prefix(m, "st")) {
        flags |= m[0] == 'l' ? BINARY_DISASM_F_LOAD : BINARY_DISASM_F_STORE;
        for (const char *const *op = atomic_ops; *op; op++)
            if (has_prefix(m + 2, *op))
                flags |= BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE;
    }
    return flags;
}

/* The first operand of a RISC-V instruction's text ("ra" of "ra, 0(a5)"). */
static int riscv_first_operand_is(const char *ops, const char *reg)
{
    size_t n = strlen(reg);
    return !strncmp(ops, reg, n) && (ops[n] == ',' || ops[n] == '\0');
}

/* RISC-V (RV64GC, capstone's mnemonics and aliases): control transfers,
 * calls (the link register is ra), returns, loads, stores and atomics. */
static unsigned riscv_flags(const cs_insn *in)
{
    static const char *const branches[] = { "beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez",
                                            "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu", "j", "jr",
                                            "c.j", "c.beqz", "c.bnez", NULL };
    static const char *const loads[] = { "lb", "lh", "lw", "ld", "lbu", "lhu", "lwu", "flh", "flw", "fld",
                                         "c.lw", "c.ld", "c.lwsp", "c.ldsp", "c.flw", "c.fld", "c.flwsp",
                                         "c.fldsp", NULL };
    static const char *const stores[] = { "sb", "sh", "sw", "sd", "fsh", "fsw", "fsd", "c.sw", "c.sd",
                                          "c.swsp", "c.sdsp", "c.fsw", "c.fsd", "c.fswsp", "c.fsdsp", NULL };
    const char *m = in->mnemonic, *ops = in->op_str;
    unsigned flags = 0;

    if (in_list(m, branches)) {
        flags |= BINARY_DISASM_F_BRANCH;
        if (m[0] == 'b' || has_prefix(m, "c.b"))
            flags |= BINARY_DISASM_F_CONDITIONAL;
        if (!strcmp(m, "jr") && (riscv_first_operand_is(ops, "ra") || riscv_first_operand_is(ops, "t0")))
            flags |= BINARY_DISASM_F_RETURN;
    } else if (!strcmp(m, "ret")) {
        flags |= BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_RETURN;
    } else if (!strcmp(m, "c.jr")) {
        flags |= BINARY_DISASM_F_BRANCH
                 | (riscv_first_operand_is(ops, "ra") || riscv_first_operand_is(ops, "t0") ? BINARY_DISASM_F_RETURN
                                                                                           : 0u);
    } else if (!strcmp(m, "c.jal") || !strcmp(m, "c.jalr")) {
        flags |= BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL;
    } else if (!strcmp(m, "jal") || !strcmp(m, "jalr")) {
        /* The aliases `jal OFFSET` and `jalr RS` link in ra; the full forms
         * name the link register first. */
        flags |= BINARY_DISASM_F_BRANCH;
        if (!strchr(ops, ',') || riscv_first_operand_is(ops, "ra") || riscv_first_operand_is(ops, "t0"))
            flags |= BINARY_DISASM_F_CALL;
        else if (!strcmp(m, "jalr") && riscv_first_operand_is(ops, "zero") && (strstr(ops, "(ra)") || strstr(ops, "(t0)")))
            flags |= BINARY_DISASM_F_RETURN;
    } else if (in_list(m, loads) || has_prefix(m, "lr.")) {
        flags |= BINARY_DISASM_F_LOAD;
    } else if (in_list(m, stores) || has_prefix(m, "sc.")) {
        flags |= BINARY_DISASM_F_STORE;
    } else if (has_prefix(m, "amo")) {
        flags |= BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE;
    }
    return flags;
}

/* The encoded target of a direct control transfer: the last immediate
 * operand, absolute on x86-64 and AArch64, an offset from the instruction
 * on RISC-V. Returns 1 and sets *target when there is one. */
static int direct_target(arch_kind kind, const cs_insn *in, uint64_t *target)
{
    const cs_detail *det = in->detail;
    switch (kind) {
    case ARCH_X86_64:
        for (int i = det->x86.op_count - 1; i >= 0; i--)
            if (det->x86.operands[i].type == X86_OP_IMM) {
                *target = (uint64_t)det->x86.operands[i].imm;
                return 1;
            }
        return 0;
    case ARCH_AARCH64:
        for (int i = det->arm64.op_count - 1; i >= 0; i--)
            if (det->arm64.operands[i].type == ARM64_OP_IMM) {
                *target = (uint64_t)det->arm64.operands[i].imm;
                return 1;
            }
        return 0;
    default:
        if (strstr(in->mnemonic, "jr") || strstr(in->mnemonic, "jalr"))
            return 0; /* register targets; their immediate is an offset from the register */
        for (int i = det->riscv.op_count - 1; i >= 0; i--)
            if (det->riscv.operands[i].type == RISCV_OP_IMM) {
                *target = in->address + (uint64_t)det->riscv.operands[i].imm;
                return 1;
            }
        return 0;
    }
}

/* One mnemonic pattern of an operation kind: an exact name, or a prefix
 * when it ends in '*'. */
typedef struct op_pattern {
    const char *pattern;
    binary_disasm_op op;
} op_pattern;

/* The operation kind of `mnemonic` by the first matching pattern of a
 * NULL-terminated table; BINARY_DISASM_OP_INT when none matches. */
static binary_disasm_op match_op(const char *mnemonic, const op_pattern *table)
{
    for (; table->pattern; table++) {
        size_t n = strlen(table->pattern);
        if (table->pattern[n - 1] == '*' ? !strncmp(mnemonic, table->pattern, n - 1)
                                         : !strcmp(mnemonic, table->pattern))
            return table->op;
    }
    return BINARY_DISASM_OP_INT;
}

/* x86-64 (SSE and AVX forms alike: a leading 'v' is dropped first). */
static const op_pattern X86_OPS[] = { { "sqrt*", BINARY_DISASM_OP_FP_SQRT },  { "rsqrt*", BINARY_DISASM_OP_FP_SQRT },
                                      { "div", BINARY_DISASM_OP_DIV },        { "idiv", BINARY_DISASM_OP_DIV },
                                      { "div*", BINARY_DISASM_OP_FP_DIV },    { "mul", BINARY_DISASM_OP_MUL },
                                      { "imul", BINARY_DISASM_OP_MUL },       { "mulx", BINARY_DISASM_OP_MUL },
                                      { "mul*", BINARY_DISASM_OP_FP_MUL },    { "fmadd*", BINARY_DISASM_OP_FP_MUL },
                                      { "fmsub*", BINARY_DISASM_OP_FP_MUL },  { "fnmadd*", BINARY_DISASM_OP_FP_MUL },
                                      { "fnmsub*", BINARY_DISASM_OP_FP_MUL }, { "addss", BINARY_DISASM_OP_FP_ADD },
                                      { "addsd", BINARY_DISASM_OP_FP_ADD },   { "addps", BINARY_DISASM_OP_FP_ADD },
                                      { "addpd", BINARY_DISASM_OP_FP_ADD },   { "subss", BINARY_DISASM_OP_FP_ADD },
                                      { "subsd", BINARY_DISASM_OP_FP_ADD },   { "subps", BINARY_DISASM_OP_FP_ADD },
                                      { "subpd", BINARY_DISASM_OP_FP_ADD },   { "minsd", BINARY_DISASM_OP_FP_ADD },
                                      { "maxsd", BINARY_DISASM_OP_FP_ADD },   { "minss", BINARY_DISASM_OP_FP_ADD },
                                      { "maxss", BINARY_DISASM_OP_FP_ADD },   { "cvt*", BINARY_DISASM_OP_FP_ADD },
                                      { "comis*", BINARY_DISASM_OP_FP_ADD },  { "ucomis*", BINARY_DISASM_OP_FP_ADD },
                                      { "cmpsd", BINARY_DISASM_OP_FP_ADD },   { "cmpss", BINARY_DISASM_OP_FP_ADD },
                                      { "cmppd", BINARY_DISASM_OP_FP_ADD },   { "cmpps", BINARY_DISASM_OP_FP_ADD },
                                      { "fsqrt", BINARY_DISASM_OP_FP_SQRT },  { "fdiv*", BINARY_DISASM_OP_FP_DIV },
                                      { "fidiv*", BINARY_DISASM_OP_FP_DIV },  { "fmul*", BINARY_DISASM_OP_FP_MUL },
                                      { "fadd*", BINARY_DISASM_OP_FP_ADD },   { "fsub*", BINARY_DISASM_OP_FP_ADD },
                                      { "syscall", BINARY_DISASM_OP_SERIAL }, { "sysenter", BINARY_DISASM_OP_SERIAL },
                                      { "int", BINARY_DISASM_OP_SERIAL },     { "int3", BINARY_DISASM_OP_SERIAL },
                                      { "ud2", BINARY_DISASM_OP_SERIAL },     { "cpuid", BINARY_DISASM_OP_SERIAL },
                                      { "mfence", BINARY_DISASM_OP_SERIAL },  { "lfence", BINARY_DISASM_OP_SERIAL },
                                      { "sfence", BINARY_DISASM_OP_SERIAL },  { "rdtsc", BINARY_DISASM_OP_SERIAL },
                                      { "rdtscp", BINARY_DISASM_OP_SERIAL },  { "serialize", BINARY_DISASM_OP_SERIAL },
                                      { "xgetbv", BINARY_DISASM_OP_SERIAL },  { "hlt", BINARY_DISASM_OP_SERIAL },
                                      { NULL, BINARY_DISASM_OP_INT } };

/* AArch64. */
static const op_pattern AARCH64_OPS[] = {
    { "fsqrt", BINARY_DISASM_OP_FP_SQRT }, { "frsqrte", BINARY_DISASM_OP_FP_SQRT },
    { "fdiv", BINARY_DISASM_OP_FP_DIV },   { "sdiv", BINARY_DISASM_OP_DIV },
    { "udiv", BINARY_DISASM_OP_DIV },      { "mul", BINARY_DISASM_OP_MUL },
    { "madd", BINARY_DISASM_OP_MUL },      { "msub", BINARY_DISASM_OP_MUL },
    { "mneg", BINARY_DISASM_OP_MUL },      { "smull", BINARY_DISASM_OP_MUL },
    { "umull", BINARY_DISASM_OP_MUL },     { "smulh", BINARY_DISASM_OP_MUL },
    { "umulh", BINARY_DISASM_OP_MUL },     { "smaddl", BINARY_DISASM_OP_MUL },
    { "umaddl", BINARY_DISASM_OP_MUL },    { "smsubl", BINARY_DISASM_OP_MUL },
    { "umsubl", BINARY_DISASM_OP_MUL },    { "fmul", BINARY_DISASM_OP_FP_MUL },
    { "fnmul", BINARY_DISASM_OP_FP_MUL },  { "fmadd", BINARY_DISASM_OP_FP_MUL },
    { "fmsub", BINARY_DISASM_OP_FP_MUL },  { "fnmadd", BINARY_DISASM_OP_FP_MUL },
    { "fnmsub", BINARY_DISASM_OP_FP_MUL }, { "fmla", BINARY_DISASM_OP_FP_MUL },
    { "fmls", BINARY_DISASM_OP_FP_MUL },   { "f*", BINARY_DISASM_OP_FP_ADD },
    { "scvtf", BINARY_DISASM_OP_FP_ADD },  { "ucvtf", BINARY_DISASM_OP_FP_ADD },
    { "svc", BINARY_DISASM_OP_SERIAL },    { "hvc", BINARY_DISASM_OP_SERIAL },
    { "smc", BINARY_DISASM_OP_SERIAL },    { "brk", BINARY_DISASM_OP_SERIAL },
    { "dmb", BINARY_DISASM_OP_SERIAL },    { "dsb", BINARY_DISASM_OP_SERIAL },
    { "isb", BINARY_DISASM_OP_SERIAL },    { "msr", BINARY_DISASM_OP_SERIAL },
    { "wfi", BINARY_DISASM_OP_SERIAL },    { NULL, BINARY_DISASM_OP_INT }
};

/* RISC-V (RV64GC). */
static const op_pattern RISCV_OPS[] = {
    { "fsqrt.*", BINARY_DISASM_OP_FP_SQRT },   { "fdiv.*", BINARY_DISASM_OP_FP_DIV },
    { "div*", BINARY_DISASM_OP_DIV },          { "rem*", BINARY_DISASM_OP_DIV },
    { "mul*", BINARY_DISASM_OP_MUL },          { "fmul.*", BINARY_DISASM_OP_FP_MUL },
    { "fmadd.*", BINARY_DISASM_OP_FP_MUL },    { "fmsub.*", BINARY_DISASM_OP_FP_MUL },
    { "fnmadd.*", BINARY_DISASM_OP_FP_MUL },   { "fnmsub.*", BINARY_DISASM_OP_FP_MUL },
    { "fence*", BINARY_DISASM_OP_SERIAL },     { "ecall", BINARY_DISASM_OP_SERIAL },
    { "ebreak", BINARY_DISASM_OP_SERIAL },     { "c.ebreak", BINARY_DISASM_OP_SERIAL },
    { "csr*", BINARY_DISASM_OP_SERIAL },       { "wfi", BINARY_DISASM_OP_SERIAL },
    { "sfence.vma", BINARY_DISASM_OP_SERIAL }, { "mret", BINARY_DISASM_OP_SERIAL },
    { "sret", BINARY_DISASM_OP_SERIAL },       { "flw", BINARY_DISASM_OP_INT },
    { "fld", BINARY_DISASM_OP_INT },           { "fsw", BINARY_DISASM_OP_INT },
    { "fsd", BINARY_DISASM_OP_INT },           { "flh", BINARY_DISASM_OP_INT },
    { "fsh", BINARY_DISASM_OP_INT },           { "f*", BINARY_DISASM_OP_FP_ADD },
    { "c.f*", BINARY_DISASM_OP_INT },          { NULL, BINARY_DISASM_OP_INT }
};

/* The operation kind of a decoded instruction. Loads and stores of FP
 * registers count as integer work: the memory access is their cost. */
static binary_disasm_op op_of(arch_kind kind, const cs_insn *in, unsigned flags)
{
    const char *m = in->mnemonic;
    if (kind == ARCH_X86_64) {
        if (!strncmp(m, "lock ", 5) || !strncmp(m, "rep ", 4))
            return BINARY_DISASM_OP_INT;
        if (m[0] == 'v' && strcmp(m, "verr") && strcmp(m, "verw"))
            m++; /* AVX forms time like their SSE forms */
        return match_op(m, X86_OPS);
    }
    if ((flags & (BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE)) && kind == ARCH_AARCH64)
        return BINARY_DISASM_OP_INT; /* ldr/str of FP registers */
    return match_op(m, kind == ARCH_AARCH64 ? AARCH64_OPS : RISCV_OPS);
}

/* The class that stands for a set of flags (see binary_disasm_class). */
static binary_disasm_class class_of(unsigned flags)
{
    if (flags & BINARY_DISASM_F_BRANCH)
        return BINARY_DISASM_BRANCH;
    if (flags & BINARY_DISASM_F_STORE)
        return BINARY_DISASM_STORE;
    if (flags & BINARY_DISASM_F_LOAD)
        return BINARY_DISASM_LOAD;
    return BINARY_DISASM_OTHER;
}

/* Formats up to ERROR_BYTES bytes as hex for an error message. */
static void hex_bytes(const uint8_t *bytes, size_t avail, char *buf, size_t cap)
{
    size_t n = avail < ERROR_BYTES ? avail : ERROR_BYTES, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 4 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%02x", i ? " " : "", bytes[i]);
}

int binary_disasm_one(binary_disasm *d, uint64_t pc, const uint8_t *bytes, size_t avail, binary_disasm_insn *out)
{
    const uint8_t *p = bytes;
    size_t n = avail < BINARY_DISASM_MAX_BYTES ? avail : BINARY_DISASM_MAX_BYTES;
    uint64_t addr = pc;
    cs_insn *in;
    unsigned flags;

    TEA_ASSERT_ARG(d != NULL);
    TEA_ASSERT_ARG(out != NULL);
    in = d->insn;
    memset(out, 0, sizeof *out);
    out->pc = pc;
    if (!bytes || !avail)
        return error_set(TEA_ERR_FORMAT, "%s: no instruction bytes at 0x%llx", d->arch->name, (unsigned long long)pc);
    if (!cs_disasm_iter(d->cs, &p, &n, &addr, in)) {
        char hex[3 * ERROR_BYTES + 1];
        hex_bytes(bytes, avail, hex, sizeof hex);
        return error_set(TEA_ERR_FORMAT, "%s: no valid instruction at 0x%llx (bytes %s%s)", d->arch->name,
                         (unsigned long long)pc, hex, avail > ERROR_BYTES ? " ..." : "");
    }
    assert(in->size > 0 && in->size <= avail); /* the instruction lies in the bytes offered */
    out->size = in->size;
    snprintf(out->mnemonic, sizeof out->mnemonic, "%s", in->mnemonic);
    snprintf(out->operands, sizeof out->operands, "%s", in->op_str);
    switch (d->arch->kind) {
    case ARCH_X86_64: flags = x86_flags(in); break;
    case ARCH_AARCH64: flags = aarch64_flags(in); break;
    default: flags = riscv_flags(in); break;
    }
    if ((flags & BINARY_DISASM_F_BRANCH) && !(flags & BINARY_DISASM_F_RETURN)
        && direct_target(d->arch->kind, in, &out->target))
        flags |= BINARY_DISASM_F_DIRECT;
    out->flags = flags;
    out->cls = class_of(flags);
    out->op = op_of(d->arch->kind, in, flags);
    return TEA_OK;
}
