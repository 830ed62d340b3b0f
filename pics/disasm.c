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

struct disasm {
    const arch_desc *arch;
    csh cs;
    cs_insn *insn; /* capstone's buffer, reused for every instruction */
};

int disasm_open(disasm **out, const char *arch)
{
    const arch_desc *a = NULL;
    disasm *d;
    cs_err err;

    *out = NULL;
    for (size_t i = 0; i < sizeof ARCHES / sizeof ARCHES[0]; i++)
        if (arch && !strcmp(arch, ARCHES[i].name))
            a = &ARCHES[i];
    if (!a)
        return tea_error_set(TEA_ERR_USAGE, "unknown architecture '%s' (x86_64, aarch64 or riscv64)",
                             arch ? arch : "(null)");
    if (!cs_support((int)a->cs))
        return tea_error_set(TEA_ERR_UNSUPPORTED, "the capstone linked in cannot disassemble %s", a->name);
    d = calloc(1, sizeof *d);
    if (!d)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    d->arch = a;
    err = cs_open(a->cs, a->mode, &d->cs);
    if (err != CS_ERR_OK) {
        free(d);
        return tea_error_set(err == CS_ERR_MEM ? TEA_ERR_NOMEM : TEA_ERR_UNSUPPORTED,
                             "capstone cannot open %s: %s", a->name, cs_strerror(err));
    }
    cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
    d->insn = cs_malloc(d->cs);
    if (!d->insn) {
        cs_close(&d->cs);
        free(d);
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    }
    *out = d;
    return TEA_OK;
}

const char *disasm_arch(const disasm *d)
{
    return d->arch->name;
}

void disasm_close(disasm *d)
{
    if (!d)
        return;
    if (d->insn)
        cs_free(d->insn, 1);
    cs_close(&d->cs);
    free(d);
}

const char *disasm_class_name(disasm_class cls)
{
    switch (cls) {
    case DISASM_BRANCH: return "branch";
    case DISASM_LOAD: return "load";
    case DISASM_STORE: return "store";
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
        case CS_GRP_JUMP: flags |= DISASM_F_BRANCH; break;
        case CS_GRP_CALL: flags |= DISASM_F_BRANCH | DISASM_F_CALL; break;
        case CS_GRP_RET:
        case CS_GRP_IRET: flags |= DISASM_F_BRANCH | DISASM_F_RETURN; break;
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
                    flags |= DISASM_F_LOAD;
                if (x->operands[i].access & CS_AC_WRITE)
                    flags |= DISASM_F_STORE;
            }
    if (in->id == X86_INS_PUSH || in->id == X86_INS_PUSHF || in->id == X86_INS_PUSHFQ || (flags & DISASM_F_CALL))
        flags |= DISASM_F_STORE;
    if (in->id == X86_INS_POP || in->id == X86_INS_POPF || in->id == X86_INS_POPFQ || (flags & DISASM_F_RETURN))
        flags |= DISASM_F_LOAD;
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

    if (has_prefix(m, "cas") || has_prefix(m, "swp")) {
        flags |= DISASM_F_LOAD | DISASM_F_STORE;
    } else if (has_prefix(m, "ld") || has_prefix(m, "st")) {
        flags |= m[0] == 'l' ? DISASM_F_LOAD : DISASM_F_STORE;
        for (const char *const *op = atomic_ops; *op; op++)
            if (has_prefix(m + 2, *op))
                flags |= DISASM_F_LOAD | DISASM_F_STORE;
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
        flags |= DISASM_F_BRANCH;
        if (!strcmp(m, "jr") && riscv_first_operand_is(ops, "ra"))
            flags |= DISASM_F_RETURN;
    } else if (!strcmp(m, "ret")) {
        flags |= DISASM_F_BRANCH | DISASM_F_RETURN;
    } else if (!strcmp(m, "c.jr")) {
        flags |= DISASM_F_BRANCH | (riscv_first_operand_is(ops, "ra") ? DISASM_F_RETURN : 0u);
    } else if (!strcmp(m, "c.jal") || !strcmp(m, "c.jalr")) {
        flags |= DISASM_F_BRANCH | DISASM_F_CALL;
    } else if (!strcmp(m, "jal") || !strcmp(m, "jalr")) {
        /* The aliases `jal OFFSET` and `jalr RS` link in ra; the full forms
         * name the link register first. */
        flags |= DISASM_F_BRANCH;
        if (!strchr(ops, ',') || riscv_first_operand_is(ops, "ra"))
            flags |= DISASM_F_CALL;
        else if (!strcmp(m, "jalr") && riscv_first_operand_is(ops, "zero") && strstr(ops, "(ra)"))
            flags |= DISASM_F_RETURN;
    } else if (in_list(m, loads) || has_prefix(m, "lr.")) {
        flags |= DISASM_F_LOAD;
    } else if (in_list(m, stores) || has_prefix(m, "sc.")) {
        flags |= DISASM_F_STORE;
    } else if (has_prefix(m, "amo")) {
        flags |= DISASM_F_LOAD | DISASM_F_STORE;
    }
    return flags;
}

/* The class that stands for a set of flags (see disasm_class). */
static disasm_class class_of(unsigned flags)
{
    if (flags & DISASM_F_BRANCH)
        return DISASM_BRANCH;
    if (flags & DISASM_F_STORE)
        return DISASM_STORE;
    if (flags & DISASM_F_LOAD)
        return DISASM_LOAD;
    return DISASM_OTHER;
}

/* Formats up to ERROR_BYTES bytes as hex for an error message. */
static void hex_bytes(const uint8_t *bytes, size_t avail, char *buf, size_t cap)
{
    size_t n = avail < ERROR_BYTES ? avail : ERROR_BYTES, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 4 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%02x", i ? " " : "", bytes[i]);
}

int disasm_one(disasm *d, uint64_t pc, const uint8_t *bytes, size_t avail, disasm_insn *out)
{
    const uint8_t *p = bytes;
    size_t n = avail < DISASM_MAX_BYTES ? avail : DISASM_MAX_BYTES;
    uint64_t addr = pc;
    cs_insn *in = d->insn;
    unsigned flags;

    memset(out, 0, sizeof *out);
    out->pc = pc;
    if (!bytes || !avail)
        return tea_error_set(TEA_ERR_FORMAT, "%s: no instruction bytes at 0x%llx", d->arch->name,
                             (unsigned long long)pc);
    if (!cs_disasm_iter(d->cs, &p, &n, &addr, in)) {
        char hex[3 * ERROR_BYTES + 1];
        hex_bytes(bytes, avail, hex, sizeof hex);
        return tea_error_set(TEA_ERR_FORMAT, "%s: no valid instruction at 0x%llx (bytes %s%s)", d->arch->name,
                             (unsigned long long)pc, hex, avail > ERROR_BYTES ? " ..." : "");
    }
    out->size = in->size;
    snprintf(out->mnemonic, sizeof out->mnemonic, "%s", in->mnemonic);
    snprintf(out->operands, sizeof out->operands, "%s", in->op_str);
    switch (d->arch->kind) {
    case ARCH_X86_64: flags = x86_flags(in); break;
    case ARCH_AARCH64: flags = aarch64_flags(in); break;
    default: flags = riscv_flags(in); break;
    }
    out->flags = flags;
    out->cls = class_of(flags);
    return TEA_OK;
}
