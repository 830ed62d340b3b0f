/*
 * test_disasm.c: the disassembler (binary/disasm) on hand-picked encodings of
 * the three architectures, and on every instruction of a real program's
 * .text compared with binutils' objdump.
 *
 * The program (tests/data/disasm_prog.c) is built by the test suite for
 * RISC-V (rv64gc: compressed and full-size instructions) with
 * riscv64-linux-gnu-gcc and, on x86-64 hosts, for x86-64. Its .text is read
 * with libelf and each instruction that objdump lists is decoded with
 * binary_disasm_one at the same address: the sizes must agree and the texts must
 * agree exactly once both are put in a canonical form (see canonical()), and
 * the instructions must cover the whole .text. On hosts that are not x86-64
 * there is no x86-64 build and that comparison is skipped. The references:
 *
 *   objdump -d -w -M no-aliases   for RISC-V (capstone keeps the "c." names of
 *                                 compressed instructions, as no-aliases does)
 *   objdump -d -w -M intel        for x86-64 (capstone prints Intel syntax)
 *
 * The canonical form changes notation only, never an opcode, register or
 * value:
 *   - lower case; objdump's comments ("# 11270 <samples>") dropped;
 *   - spaces: runs collapsed, none next to , + - * [ ] ( ) :;
 *   - numbers: every literal (0x hex or decimal) written in decimal;
 *   - branch targets: objdump writes an absolute address with a symbol
 *     ("10144 <mix>"); capstone writes the same address as 0x... on x86-64
 *     and as the offset from the instruction on RISC-V, so objdump's is
 *     turned into that form;
 *   - x86-64 memory operands: objdump writes a scale of one ("rax*1") and a
 *     zero displacement that is encoded ("[rax+0x0]"), capstone omits both;
 *   - x86-64 padding nops: objdump shows a segment override as a prefix word
 *     ("cs nop WORD PTR [..]") where capstone puts it on the operand
 *     ("nop word ptr cs:[..]"), shows redundant operand-size prefixes as
 *     "data16" words, which capstone drops, and calls the two-byte nop
 *     (66 90) "xchg ax,ax" where capstone calls it "nop";
 *   - RISC-V aliases: capstone prints LLVM's aliases for some instructions
 *     (`mv`, `not`, `neg`, `sext.w`, `j`, `jal OFFSET`, `jr`, `ret`, `beqz`,
 *     ...); each is rewritten to the instruction it stands for (table
 *     RISCV_ALIASES), which is what objdump -M no-aliases prints.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "common/error.h"
#include "binary/disasm.h"

#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX 512
#define LINE_MAX_BYTES 1024
#define MAX_OPERANDS 8
/* Mismatches printed before the test gives up listing them. */
#define MAX_REPORTED 40
/* Distinct mnemonics remembered for the coverage assertions. */
#define MAX_MNEMONICS 256

/* --- hand-picked encodings ---------------------------------------------------- */

typedef struct vector {
    const char *arch;
    uint64_t pc;
    const char *bytes; /* hex, one instruction (plus anything after it) */
    unsigned size;
    const char *mnemonic, *operands;
    binary_disasm_class cls;
    unsigned flags;
    uint64_t target;   /* direct control transfers */
    binary_disasm_op op;
} vector;

static const vector VECTORS[] = {
    /* x86-64 */
    { "x86_64", 0x1000, "55", 1, "push", "rbp", BINARY_DISASM_STORE, BINARY_DISASM_F_STORE, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "5d", 1, "pop", "rbp", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "e8fb0f0000", 5, "call", "0x2000", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL | BINARY_DISASM_F_STORE | BINARY_DISASM_F_DIRECT, 0x2000,
      BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "c3", 1, "ret", "", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_RETURN | BINARY_DISASM_F_LOAD, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "75fe", 2, "jne", "0x1000", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CONDITIONAL | BINARY_DISASM_F_DIRECT, 0x1000, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "eb0e", 2, "jmp", "0x1010", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_DIRECT, 0x1010, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "ff25fa0f0000", 6, "jmp", "qword ptr [rip + 0xffa]", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_LOAD, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "ffd0", 2, "call", "rax", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL | BINARY_DISASM_F_STORE, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "488b4708", 4, "mov", "rax, qword ptr [rdi + 8]", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0,
      BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "488907", 3, "mov", "qword ptr [rdi], rax", BINARY_DISASM_STORE, BINARY_DISASM_F_STORE, 0,
      BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "488d4708", 4, "lea", "rax, [rdi + 8]", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "480307", 3, "add", "rax, qword ptr [rdi]", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0,
      BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "f0480105a31e0000", 8, "lock add", "qword ptr [rip + 0x1ea3], rax", BINARY_DISASM_STORE,
      BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE, 0, BINARY_DISASM_OP_INT },
    { "x86_64", 0x1000, "f20f51c0", 4, "sqrtsd", "xmm0, xmm0", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_SQRT },
    { "x86_64", 0x1000, "48f7f1", 3, "div", "rcx", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_DIV },
    { "x86_64", 0x1000, "480fafc1", 4, "imul", "rax, rcx", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_MUL },
    { "x86_64", 0x1000, "f20f59c1", 4, "mulsd", "xmm0, xmm1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_MUL },
    { "x86_64", 0x1000, "f20f5ec1", 4, "divsd", "xmm0, xmm1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_DIV },
    { "x86_64", 0x1000, "f20f58c1", 4, "addsd", "xmm0, xmm1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_ADD },
    { "x86_64", 0x1000, "c4e2f1b9c2", 5, "vfmadd231sd", "xmm0, xmm1, xmm2", BINARY_DISASM_OTHER, 0, 0,
      BINARY_DISASM_OP_FP_MUL },
    { "x86_64", 0x1000, "0f05", 2, "syscall", "", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_SERIAL },
    { "x86_64", 0x1000, "0faef0", 3, "mfence", "", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_SERIAL },
    { "x86_64", 0x1000, "0f1f4000", 4, "nop", "dword ptr [rax]", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_INT },
    /* AArch64 */
    { "aarch64", 0x1000, "c0035fd6", 4, "ret", "", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_RETURN, 0, BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "01000094", 4, "bl", "#0x1004", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL | BINARY_DISASM_F_DIRECT, 0x1004, BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "40000054", 4, "b.eq", "#0x1008", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CONDITIONAL | BINARY_DISASM_F_DIRECT, 0x1008, BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "800000b4", 4, "cbz", "x0, #0x1010", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CONDITIONAL | BINARY_DISASM_F_DIRECT, 0x1010, BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "00001fd6", 4, "br", "x0", BINARY_DISASM_BRANCH, BINARY_DISASM_F_BRANCH, 0,
      BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "200cc29a", 4, "sdiv", "x0, x1, x2", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_DIV },
    { "aarch64", 0x1000, "207c029b", 4, "mul", "x0, x1, x2", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_MUL },
    { "aarch64", 0x1000, "2018621e", 4, "fdiv", "d0, d1, d2", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_DIV },
    { "aarch64", 0x1000, "20c0611e", 4, "fsqrt", "d0, d1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_SQRT },
    { "aarch64", 0x1000, "010000d4", 4, "svc", "#0", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_SERIAL },
    { "aarch64", 0x1000, "200440f9", 4, "ldr", "x0, [x1, #8]", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0,
      BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "200000f9", 4, "str", "x0, [x1]", BINARY_DISASM_STORE, BINARY_DISASM_F_STORE, 0,
      BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "fd7bbfa9", 4, "stp", "x29, x30, [sp, #-0x10]!", BINARY_DISASM_STORE, BINARY_DISASM_F_STORE, 0,
      BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "2000028b", 4, "add", "x0, x1, x2", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_INT },
    { "aarch64", 0x1000, "410020f8", 4, "ldadd", "x0, x1, [x2]", BINARY_DISASM_STORE,
      BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE, 0, BINARY_DISASM_OP_INT },
    /* RISC-V: compressed and full size */
    { "riscv64", 0x1000, "0505", 2, "c.addi", "a0, 1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "13051500", 4, "addi", "a0, a0, 1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "8280", 2, "c.jr", "ra", BINARY_DISASM_BRANCH, BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_RETURN,
      0, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "8297", 2, "c.jalr", "a5", BINARY_DISASM_BRANCH, BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL,
      0, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "ef008000", 4, "jal", "8", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CALL | BINARY_DISASM_F_DIRECT, 0x1008, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "63d2f502", 4, "bge", "a1, a5, 0x24", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CONDITIONAL | BINARY_DISASM_F_DIRECT, 0x1024, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "01c5", 2, "c.beqz", "a0, 8", BINARY_DISASM_BRANCH,
      BINARY_DISASM_F_BRANCH | BINARY_DISASM_F_CONDITIONAL | BINARY_DISASM_F_DIRECT, 0x1008, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "3305b502", 4, "mul", "a0, a0, a1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_MUL },
    { "riscv64", 0x1000, "3355b502", 4, "divu", "a0, a0, a1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_DIV },
    { "riscv64", 0x1000, "5375b512", 4, "fmul.d", "fa0, fa0, fa1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_MUL },
    { "riscv64", 0x1000, "5375b502", 4, "fadd.d", "fa0, fa0, fa1", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_ADD },
    { "riscv64", 0x1000, "73000000", 4, "ecall", "", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_SERIAL },
    { "riscv64", 0x1000, "0f00f00f", 4, "fence", "", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_SERIAL },
    { "riscv64", 0x1000, "03358100", 4, "ld", "a0, 8(sp)", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0,
      BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "2334a100", 4, "sd", "a0, 8(sp)", BINARY_DISASM_STORE, BINARY_DISASM_F_STORE, 0,
      BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "9c22", 2, "c.fld", "fa5, 0(a3)", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0,
      BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "22b4", 2, "c.fsdsp", "fs0, 0x28(sp)", BINARY_DISASM_STORE, BINARY_DISASM_F_STORE, 0,
      BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "2fb0a704", 4, "amoadd.d.aq", "zero, a0, (a5)", BINARY_DISASM_STORE,
      BINARY_DISASM_F_LOAD | BINARY_DISASM_F_STORE, 0, BINARY_DISASM_OP_INT },
    { "riscv64", 0x1000, "5375055a", 4, "fsqrt.d", "fa0, fa0", BINARY_DISASM_OTHER, 0, 0, BINARY_DISASM_OP_FP_SQRT },
    { "riscv64", 0x1000, "9c22", 2, "c.fld", "fa5, 0(a3)", BINARY_DISASM_LOAD, BINARY_DISASM_F_LOAD, 0,
      BINARY_DISASM_OP_INT },
};

/* Hex text to bytes; returns the count. */
static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (; hex[0] && hex[1] && n < cap; hex += 2) {
        unsigned v;
        assert_int_equal(sscanf(hex, "%2x", &v), 1);
        out[n++] = (uint8_t)v;
    }
    return n;
}

static void test_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof VECTORS / sizeof VECTORS[0]; i++) {
        const vector *v = &VECTORS[i];
        uint8_t bytes[BINARY_DISASM_MAX_BYTES + 1];
        size_t n = unhex(v->bytes, bytes, sizeof bytes);
        binary_disasm *d;
        binary_disasm_insn insn;
        int rc;

        assert_int_equal(binary_disasm_open(&d, v->arch), TEA_OK);
        assert_string_equal(binary_disasm_arch(d), v->arch);
        rc = binary_disasm_one(d, v->pc, bytes, n, &insn);
        if (rc)
            fail_msg("%s %s: %s", v->arch, v->bytes, error_message());
        if (insn.size != v->size || strcmp(insn.mnemonic, v->mnemonic) || strcmp(insn.operands, v->operands)
            || insn.cls != v->cls || insn.flags != v->flags || insn.target != v->target || insn.op != v->op)
            fail_msg("%s %s: got %u bytes '%s' '%s' %s flags 0x%x target 0x%llx %s; "
                     "expected %u bytes '%s' '%s' %s flags 0x%x target 0x%llx %s",
                     v->arch, v->bytes, insn.size, insn.mnemonic, insn.operands, binary_disasm_class_name(insn.cls),
                     insn.flags, (unsigned long long)insn.target, binary_disasm_op_name(insn.op), v->size, v->mnemonic,
                     v->operands, binary_disasm_class_name(v->cls), v->flags, (unsigned long long)v->target,
                     binary_disasm_op_name(v->op));
        assert_true(insn.pc == v->pc);
        binary_disasm_close(d);
    }
}

static void test_errors(void **state)
{
    static const uint8_t truncated[] = { 0x48, 0x8b };      /* mov rax, [...] without its ModRM */
    static const uint8_t invalid_x86[] = { 0x06 };          /* push es: invalid in 64-bit mode */
    static const uint8_t invalid_rv[] = { 0xff, 0xff, 0xff, 0xff }; /* a reserved long encoding */
    binary_disasm *d = (binary_disasm *)1;
    binary_disasm_insn insn;
    (void)state;

    assert_int_equal(binary_disasm_open(&d, "mips"), TEA_ERR_USAGE);
    assert_null(d);
    assert_contains(error_message(), "mips");
    assert_int_equal(binary_disasm_open(&d, NULL), TEA_ERR_USAGE);
    assert_int_equal(binary_disasm_open(&d, "riscv32"), TEA_ERR_USAGE);

    assert_int_equal(binary_disasm_open(&d, "x86_64"), TEA_OK);
    assert_int_equal(binary_disasm_one(d, 0x401000, truncated, sizeof truncated, &insn), TEA_ERR_FORMAT);
    assert_contains(error_message(), "0x401000");
    assert_contains(error_message(), "48 8b");
    assert_int_equal(binary_disasm_one(d, 0x401000, invalid_x86, sizeof invalid_x86, &insn), TEA_ERR_FORMAT);
    assert_int_equal(binary_disasm_one(d, 0x401000, invalid_x86, 0, &insn), TEA_ERR_FORMAT);
    assert_int_equal(binary_disasm_one(d, 0x401000, NULL, 4, &insn), TEA_ERR_FORMAT);
    binary_disasm_close(d);

    assert_int_equal(binary_disasm_open(&d, "riscv64"), TEA_OK);
    assert_int_equal(binary_disasm_one(d, 0x10000, invalid_rv, sizeof invalid_rv, &insn), TEA_ERR_FORMAT);
    assert_contains(error_message(), "riscv64");
    /* half of a full-size instruction */
    assert_int_equal(binary_disasm_one(d, 0x10000, (const uint8_t *)"\x13\x05", 2, &insn), TEA_ERR_FORMAT);
    binary_disasm_close(d);
    binary_disasm_close(NULL);

    assert_string_equal(binary_disasm_class_name(BINARY_DISASM_BRANCH), "branch");
    assert_string_equal(binary_disasm_class_name(BINARY_DISASM_OTHER), "other");
}

/* --- canonical text ------------------------------------------------------------- */

/* An alias that capstone prints for a RISC-V instruction, and the
 * instruction it stands for ($1, $2: the alias's operands) as objdump
 * -M no-aliases prints it. */
typedef struct alias {
    const char *mnemonic;
    int operands;
    const char *expansion;
} alias;

static const alias RISCV_ALIASES[] = {
    { "nop", 0, "addi zero,zero,0" },
    { "mv", 2, "addi $1,$2,0" },
    { "not", 2, "xori $1,$2,-1" },
    { "neg", 2, "sub $1,zero,$2" },
    { "negw", 2, "subw $1,zero,$2" },
    { "sext.w", 2, "addiw $1,$2,0" },
    { "seqz", 2, "sltiu $1,$2,1" },
    { "snez", 2, "sltu $1,zero,$2" },
    { "sltz", 2, "slt $1,$2,zero" },
    { "sgtz", 2, "slt $1,zero,$2" },
    { "beqz", 2, "beq $1,zero,$2" },
    { "bnez", 2, "bne $1,zero,$2" },
    { "blez", 2, "bge zero,$1,$2" },
    { "bgez", 2, "bge $1,zero,$2" },
    { "bltz", 2, "blt $1,zero,$2" },
    { "bgtz", 2, "blt zero,$1,$2" },
    { "j", 1, "jal zero,$1" },
    { "jal", 1, "jal ra,$1" },
    { "jr", 1, "jalr zero,0($1)" },
    { "jalr", 1, "jalr ra,0($1)" },
    { "ret", 0, "jalr zero,0(ra)" },
    { "fmv.s", 2, "fsgnj.s $1,$2,$2" },
    { "fmv.d", 2, "fsgnj.d $1,$2,$2" },
    { "fneg.s", 2, "fsgnjn.s $1,$2,$2" },
    { "fneg.d", 2, "fsgnjn.d $1,$2,$2" },
    { "fabs.s", 2, "fsgnjx.s $1,$2,$2" },
    { "fabs.d", 2, "fsgnjx.d $1,$2,$2" },
    { "fence", 0, "fence iorw,iorw" },
};

/* Writes capstone's RISC-V text with an alias expanded (see RISCV_ALIASES). */
static void riscv_expand_alias(const binary_disasm_insn *insn, char *out, size_t cap)
{
    char ops[BINARY_DISASM_OPERANDS_MAX];
    char *op[MAX_OPERANDS];
    int count = 0;

    snprintf(out, cap, "%s %s", insn->mnemonic, insn->operands);
    snprintf(ops, sizeof ops, "%s", insn->operands);
    for (char *save = NULL, *tok = strtok_r(ops, ",", &save); tok && count < MAX_OPERANDS;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        op[count++] = tok;
    }
    for (size_t i = 0; i < sizeof RISCV_ALIASES / sizeof RISCV_ALIASES[0]; i++) {
        const alias *a = &RISCV_ALIASES[i];
        size_t used = 0;
        if (strcmp(a->mnemonic, insn->mnemonic) || a->operands != count)
            continue;
        for (const char *t = a->expansion; *t && used + 1 < cap; t++) {
            if (t[0] == '$' && t[1] >= '1' && t[1] <= '0' + count) {
                used += (size_t)snprintf(out + used, cap - used, "%s", op[t[1] - '1']);
                t++;
            } else {
                out[used++] = *t;
            }
            if (used >= cap)
                used = cap - 1;
        }
        out[used] = '\0';
        return;
    }
}

static int is_space_neutral(char c)
{
    return c && strchr(",+-*[]():", c) != NULL;
}

/* Replaces objdump's "HEX <symbol>" address operands with the form capstone
 * uses (0xHEX on x86-64, the signed offset from `pc` on RISC-V) and drops any
 * other <...> annotation. */
static void objdump_addresses(int riscv, uint64_t pc, char *s)
{
    char out[TEXT_MAX];
    size_t used = 0;
    char *p = s;

    while (*p && used + 1 < sizeof out) {
        char *lt = strchr(p, '<');
        char *gt = lt ? strchr(lt, '>') : NULL;
        char *start, *end;
        if (!lt || !gt) {
            used += (size_t)snprintf(out + used, sizeof out - used, "%s", p);
            break;
        }
        end = lt;
        while (end > p && end[-1] == ' ')
            end--;
        start = end;
        while (start > p && isxdigit((unsigned char)start[-1]))
            start--;
        if (start < end && (start == s || start[-1] == ' ' || start[-1] == ',' || start[-1] == '\t')) {
            uint64_t target = strtoull(start, NULL, 16);
            used += (size_t)snprintf(out + used, sizeof out - used, "%.*s", (int)(start - p), p);
            if (riscv)
                used += (size_t)snprintf(out + used, sizeof out - used, "%lld", (long long)(target - pc));
            else
                used += (size_t)snprintf(out + used, sizeof out - used, "0x%llx", (unsigned long long)target);
        } else {
            used += (size_t)snprintf(out + used, sizeof out - used, "%.*s", (int)(lt - p), p);
        }
        if (used >= sizeof out)
            used = sizeof out - 1;
        p = gt + 1;
    }
    out[used < sizeof out ? used : sizeof out - 1] = '\0';
    strcpy(s, out);
}

/* Replaces every occurrence of `what` in `s` that is not followed by a digit
 * with `with` (no longer than `what`). */
static void replace_token(char *s, const char *what, const char *with)
{
    size_t n = strlen(what), m = strlen(with);
    char *p = s;
    while ((p = strstr(p, what)) != NULL) {
        if (isdigit((unsigned char)p[n])) {
            p += n;
            continue;
        }
        memcpy(p, with, m);
        memmove(p + m, p + n, strlen(p + n) + 1);
        p += m;
    }
}

/* objdump's x86-64 prefix words that capstone does not print as such:
 * "data16" (dropped) and a segment override (moved onto the memory
 * operand: "cs nop word ptr [..]" becomes "nop word ptr cs:[..]"). */
static void x86_prefix_words(char *s)
{
    static const char *const segments[] = { "cs ", "ds ", "es ", "fs ", "gs ", "ss ", NULL };
    while (*s == ' ')
        memmove(s, s + 1, strlen(s));
    while (!strncmp(s, "data16 ", 7))
        memmove(s, s + 7, strlen(s + 7) + 1);
    for (const char *const *seg = segments; *seg; seg++) {
        char *bracket = strchr(s, '[');
        if (!strncmp(s, *seg, 3) && bracket && bracket[-1] != ':') {
            char moved[TEXT_MAX];
            snprintf(moved, sizeof moved, "%.*s%.2s:%s", (int)(bracket - s - 3), s + 3, *seg, bracket);
            strcpy(s, moved);
            return;
        }
    }
}

/* The canonical form of an instruction's text (see the top of the file):
 * `text` is objdump's (from_objdump) or capstone's "mnemonic operands". */
static void canonical(int riscv, uint64_t pc, const char *text, int from_objdump, char *out, size_t cap)
{
    char s[TEXT_MAX], t[TEXT_MAX];
    size_t n = 0;

    snprintf(s, sizeof s, "%s", text);
    for (char *p = s; *p; p++)
        *p = (char)(*p == '\t' ? ' ' : tolower((unsigned char)*p));
    if (from_objdump) {
        char *hash = strchr(s, '#');
        if (hash)
            *hash = '\0';
        objdump_addresses(riscv, pc, s);
        if (!riscv)
            x86_prefix_words(s);
    }

    /* spaces */
    for (const char *p = s; *p && n + 1 < sizeof t; p++) {
        if (*p == ' ') {
            while (p[1] == ' ')
                p++;
            if (n == 0 || !p[1] || is_space_neutral(p[1]) || is_space_neutral(t[n - 1]))
                continue;
        }
        t[n++] = *p;
    }
    t[n] = '\0';

    /* numbers in decimal */
    n = 0;
    for (const char *p = t; *p && n + 1 < cap;) {
        int starts_number = isdigit((unsigned char)*p)
            && (p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == '$'));
        if (starts_number) {
            char *end;
            unsigned long long v = (p[0] == '0' && p[1] == 'x') ? strtoull(p + 2, &end, 16) : strtoull(p, &end, 10);
            n += (size_t)snprintf(out + n, cap - n, "%llu", v);
            if (n >= cap)
                n = cap - 1;
            p = end;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';

    if (!riscv) {
        replace_token(out, "*1", "");
        replace_token(out, "+0]", "]");
        if (!strcmp(out, "xchg ax,ax"))
            snprintf(out, cap, "nop");
    }
}

/* --- comparison with objdump ------------------------------------------------------ */

/* The .text section of an ELF file: its address and a copy of its bytes. */
typedef struct text_section {
    uint64_t addr;
    uint8_t *bytes;
    size_t size;
} text_section;

static void read_text(const char *path, text_section *t)
{
    uint8_t *file;
    size_t file_size, shstrndx;
    Elf *elf;
    Elf_Scn *scn = NULL;

    memset(t, 0, sizeof *t);
    test_read_file(path, &file, &file_size);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    elf = elf_memory((char *)file, file_size);
    assert_non_null(elf);
    assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        Elf_Data *data;
        assert_non_null(gelf_getshdr(scn, &sh));
        name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!name || strcmp(name, ".text"))
            continue;
        data = elf_getdata(scn, NULL);
        assert_non_null(data);
        t->addr = sh.sh_addr;
        t->size = data->d_size;
        t->bytes = malloc(t->size);
        assert_non_null(t->bytes);
        memcpy(t->bytes, data->d_buf, t->size);
    }
    elf_end(elf);
    free(file);
    if (!t->bytes)
        fail_msg("%s has no .text", path);
}

/* One instruction line of objdump -d -w: "  ADDR:\tBYTES\tTEXT". Returns 0
 * for other lines. Bytes are counted from the hex digits of BYTES (x86-64
 * lists bytes, RISC-V 16- or 32-bit parcels: two digits a byte either way). */
static int parse_objdump_line(char *line, uint64_t *addr, unsigned *size, char **text)
{
    char *p = line, *end, *tab;
    unsigned digits = 0;

    line[strcspn(line, "\n")] = '\0';
    while (*p == ' ')
        p++;
    *addr = strtoull(p, &end, 16);
    if (end == p || end[0] != ':' || end[1] != '\t')
        return 0;
    p = end + 2;
    tab = strchr(p, '\t');
    if (!tab)
        return 0;
    for (; p < tab; p++)
        digits += isxdigit((unsigned char)*p) ? 1u : 0u;
    *size = digits / 2;
    *text = tab + 1;
    return 1;
}

/* What a comparison covered, for the coverage assertions. */
typedef struct coverage {
    unsigned compared, mismatches;
    size_t bytes;
    unsigned size_counts[BINARY_DISASM_MAX_BYTES + 1];
    unsigned loads, stores, branches, calls, returns;
    unsigned direct;   /* direct control transfers, their targets checked against objdump's */
    char mnemonics[MAX_MNEMONICS][BINARY_DISASM_MNEMONIC_MAX]; /* distinct, as capstone names them */
    size_t mnemonic_count;
} coverage;

static int covered(const coverage *cov, const char *mnemonic)
{
    for (size_t i = 0; i < cov->mnemonic_count; i++)
        if (!strcmp(cov->mnemonics[i], mnemonic))
            return 1;
    return 0;
}

/* Adds one decoded instruction to the coverage. */
static void cover(coverage *cov, const binary_disasm_insn *insn)
{
    cov->compared++;
    cov->bytes += insn->size;
    if (insn->size <= BINARY_DISASM_MAX_BYTES)
        cov->size_counts[insn->size]++;
    cov->loads += (insn->flags & BINARY_DISASM_F_LOAD) != 0;
    cov->stores += (insn->flags & BINARY_DISASM_F_STORE) != 0;
    cov->branches += (insn->flags & BINARY_DISASM_F_BRANCH) != 0;
    cov->calls += (insn->flags & BINARY_DISASM_F_CALL) != 0;
    cov->returns += (insn->flags & BINARY_DISASM_F_RETURN) != 0;
    if (!covered(cov, insn->mnemonic) && cov->mnemonic_count < MAX_MNEMONICS)
        snprintf(cov->mnemonics[cov->mnemonic_count++], BINARY_DISASM_MNEMONIC_MAX, "%s", insn->mnemonic);
}

/* Disassembles every instruction objdump lists in `prog`'s .text with
 * binary_disasm_one and compares the two (see the top of the file). */
static void compare_with_objdump(const char *arch, const char *objdump, const char *options, const char *prog,
                                 coverage *cov)
{
    int riscv = !strcmp(arch, "riscv64");
    char command[LINE_MAX_BYTES], line[LINE_MAX_BYTES];
    text_section text;
    binary_disasm *d;
    FILE *f;

    assert_null(strchr(objdump, '\''));
    assert_null(strchr(prog, '\''));
    memset(cov, 0, sizeof *cov);
    read_text(prog, &text);
    assert_int_equal(binary_disasm_open(&d, arch), TEA_OK);
    snprintf(command, sizeof command, "LC_ALL=C '%s' -d -w %s --section=.text '%s'", objdump, options, prog);
    f = popen(command, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        uint64_t pc;
        unsigned size;
        char *od_text, expected[TEXT_MAX], got[TEXT_MAX], cs_text[TEXT_MAX];
        binary_disasm_insn insn;

        if (!parse_objdump_line(line, &pc, &size, &od_text))
            continue;
        if (pc < text.addr || pc - text.addr >= text.size)
            fail_msg("%s: objdump lists 0x%llx, outside .text", prog, (unsigned long long)pc);
        if (binary_disasm_one(d, pc, text.bytes + (pc - text.addr), text.size - (size_t)(pc - text.addr), &insn))
            fail_msg("%s: 0x%llx (objdump: %s): %s", prog, (unsigned long long)pc, od_text, error_message());
        if (riscv)
            riscv_expand_alias(&insn, cs_text, sizeof cs_text);
        else
            snprintf(cs_text, sizeof cs_text, "%s %s", insn.mnemonic, insn.operands);
        canonical(riscv, pc, od_text, 1, expected, sizeof expected);
        canonical(riscv, pc, cs_text, 0, got, sizeof got);
        if ((insn.size != size || strcmp(expected, got)) && cov->mismatches++ < MAX_REPORTED)
            print_error("%s 0x%llx: objdump %u bytes '%s' -> '%s'; capstone %u bytes '%s %s' -> '%s'\n", arch,
                        (unsigned long long)pc, size, od_text, expected, insn.size, insn.mnemonic, insn.operands,
                        got);
        if (insn.flags & BINARY_DISASM_F_DIRECT) {
            /* objdump prints a direct target as "HEX <symbol+off>". */
            char target[32];
            snprintf(target, sizeof target, "%llx <", (unsigned long long)insn.target);
            if (!strstr(od_text, target) && cov->mismatches++ < MAX_REPORTED)
                print_error("%s 0x%llx: target 0x%llx not in objdump's '%s'\n", arch, (unsigned long long)pc,
                            (unsigned long long)insn.target, od_text);
            cov->direct++;
        }
        cover(cov, &insn);
    }
    assert_int_equal(pclose(f), 0);
    binary_disasm_close(d);
    free(text.bytes);
    if (cov->mismatches)
        fail_msg("%s: %u of %u instructions differ from objdump", prog, cov->mismatches, cov->compared);
    if (cov->bytes != text.size)
        fail_msg("%s: objdump's instructions cover %zu of the %zu bytes of .text", prog, cov->bytes, text.size);
}

/* RISC-V: every instruction of the rv64gc build, which must include
 * compressed and full-size instructions, loads, stores, conditional
 * branches, calls (direct and indirect), returns and the FP divide and
 * square root. */
static void test_riscv_objdump(void **state)
{
    coverage cov;
    (void)state;
    compare_with_objdump("riscv64", TEA_RISCV_OBJDUMP, "-M no-aliases", TEA_DISASM_RISCV64, &cov);
    print_message("riscv64: %u instructions (%u compressed, %u direct targets) agree with objdump\n",
                  cov.compared, cov.size_counts[2], cov.direct);
    assert_true(cov.compared >= 100);
    assert_true(cov.size_counts[2] >= 20 && cov.size_counts[4] >= 20);
    assert_true(cov.size_counts[2] + cov.size_counts[4] == cov.compared);
    assert_true(cov.loads > 0 && cov.stores > 0 && cov.branches > 0 && cov.calls > 0 && cov.returns > 0);
    assert_true(covered(&cov, "fsqrt.d") && covered(&cov, "fdiv.d"));
    assert_true(covered(&cov, "c.jalr") && covered(&cov, "jal") && covered(&cov, "bne"));
    assert_true(covered(&cov, "c.ld") && covered(&cov, "c.sdsp") && covered(&cov, "sb") && covered(&cov, "lbu"));
    assert_true(covered(&cov, "amoadd.d.aq"));
    assert_true(cov.direct >= 10);
}

/* x86-64: every instruction of the host build (padding nops included). */
static void test_x86_64_objdump(void **state)
{
    coverage cov;
    (void)state;
    if (!TEA_DISASM_X86_64[0])
        skip(); /* not an x86-64 host: no x86-64 build of the program */
    compare_with_objdump("x86_64", TEA_HOST_OBJDUMP, "-M intel", TEA_DISASM_X86_64, &cov);
    print_message("x86_64: %u instructions agree with objdump (%u direct targets)\n", cov.compared, cov.direct);
    assert_true(cov.compared >= 100);
    assert_true(cov.loads > 0 && cov.stores > 0 && cov.branches > 0 && cov.calls > 0 && cov.returns > 0);
    assert_true(covered(&cov, "sqrtsd") && covered(&cov, "divsd") && covered(&cov, "call"));
    assert_true(covered(&cov, "lock add") && covered(&cov, "nop"));
    assert_true(cov.direct >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_riscv_objdump),
        cmocka_unit_test(test_x86_64_objdump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
