/*
 * disasm.h: one instruction at a time, for the architectures of the traces.
 *
 * A thin layer over capstone 5 that names architectures as trace headers do
 * ("x86_64", "aarch64", "riscv64"), decodes the instruction at an address
 * into its size, mnemonic and operand text, and classifies it (branch, load,
 * store). x86-64 is printed in Intel syntax (capstone's default); RISC-V is
 * RV64GC, compressed instructions included, printed as capstone prints them
 * (compressed instructions keep their "c." mnemonics, and capstone's aliases
 * such as `mv`, `ret`, `j` are used).
 *
 * A disasm handle is not thread-safe: use one per thread.
 */
#ifndef TEA_BINARY_DISASM_H
#define TEA_BINARY_DISASM_H

#include <stddef.h>
#include <stdint.h>

/* Capstone's own limits on the two texts (terminating NUL included). */
#define BINARY_DISASM_MNEMONIC_MAX 32
#define BINARY_DISASM_OPERANDS_MAX 160
/* The longest instruction of any supported architecture (x86-64). */
#define BINARY_DISASM_MAX_BYTES 15

typedef struct binary_disasm binary_disasm;

/* What an instruction mostly is, for reports: a control transfer wins over a
 * memory access; an instruction that both reads and writes memory (a
 * read-modify-write, an atomic) is a store. */
typedef enum binary_disasm_class {
    BINARY_DISASM_OTHER = 0,
    BINARY_DISASM_BRANCH,
    BINARY_DISASM_LOAD,
    BINARY_DISASM_STORE
} binary_disasm_class;

/* Flags: the properties behind the class, any combination. */
enum {
    BINARY_DISASM_F_BRANCH = 1u << 0,      /* may change the control flow (jumps, calls, returns) */
    BINARY_DISASM_F_CALL = 1u << 1,        /* a call (also BINARY_DISASM_F_BRANCH) */
    BINARY_DISASM_F_RETURN = 1u << 2,      /* a return (also BINARY_DISASM_F_BRANCH) */
    BINARY_DISASM_F_LOAD = 1u << 3,        /* reads data memory (explicit operands; x86 pop and ret too) */
    BINARY_DISASM_F_STORE = 1u << 4,       /* writes data memory (explicit operands; x86 push and call too) */
    BINARY_DISASM_F_CONDITIONAL = 1u << 5, /* a branch that may fall through (also BINARY_DISASM_F_BRANCH) */
    BINARY_DISASM_F_DIRECT = 1u << 6       /* a control transfer whose target is encoded: binary_disasm_insn.target */
};

/* The kind of work an instruction does, for timing models: which functional
 * unit it needs. Memory accesses and branches are told by the flags; this
 * says what else the instruction computes. */
typedef enum binary_disasm_op {
    BINARY_DISASM_OP_INT = 0, /* integer ALU work, moves, address arithmetic, nops */
    BINARY_DISASM_OP_MUL,     /* integer multiply */
    BINARY_DISASM_OP_DIV,     /* integer divide or remainder */
    BINARY_DISASM_OP_FP_ADD,  /* FP add, subtract, compare, convert, min/max, sign moves */
    BINARY_DISASM_OP_FP_MUL,  /* FP multiply and fused multiply-add */
    BINARY_DISASM_OP_FP_DIV,  /* FP divide */
    BINARY_DISASM_OP_FP_SQRT, /* FP square root */
    BINARY_DISASM_OP_SERIAL,  /* fences, system calls, traps, system-register writes: drain the core */
    BINARY_DISASM_OP_COUNT
} binary_disasm_op;

/* One decoded instruction. */
typedef struct binary_disasm_insn {
    uint64_t pc;                          /* its address */
    unsigned size;                        /* bytes: 1-15 x86-64, 4 AArch64, 2 or 4 RISC-V */
    char mnemonic[BINARY_DISASM_MNEMONIC_MAX]; /* "add", "c.addi", "lock add", ... */
    char operands[BINARY_DISASM_OPERANDS_MAX]; /* capstone's operand text, "" when none; direct
                                                * branch targets are absolute on x86-64 and
                                                * AArch64, PC-relative offsets on RISC-V */
    binary_disasm_class cls;
    unsigned flags;                       /* DISASM_F_* */
    binary_disasm_op op;
    uint64_t target; /* absolute target of a direct control transfer
                      * (BINARY_DISASM_F_DIRECT), else 0 */
} binary_disasm_insn;

/* Opens a disassembler for `arch` ("x86_64", "aarch64" or "riscv64").
 * TEA_ERR_USAGE for another name, TEA_ERR_UNSUPPORTED when the capstone
 * linked in lacks the architecture, TEA_ERR_NOMEM. */
int binary_disasm_open(binary_disasm **out, const char *arch);

/* The architecture name the handle was opened with. */
const char *binary_disasm_arch(const binary_disasm *d);

/* Decodes the instruction at `pc` whose bytes start at `bytes` (`avail`
 * readable bytes; more than the instruction needs is fine) into *out.
 * TEA_ERR_FORMAT, naming the address and the bytes, when they do not form a
 * valid instruction (or none are available). */
int binary_disasm_one(binary_disasm *d, uint64_t pc, const uint8_t *bytes, size_t avail, binary_disasm_insn *out);

/* The name of a class: "other", "branch", "load", "store". */
const char *binary_disasm_class_name(binary_disasm_class cls);

/* The name of an operation kind: "int", "mul", "div", "fp-add", "fp-mul",
 * "fp-div", "fp-sqrt", "serial". */
const char *binary_disasm_op_name(binary_disasm_op op);

void binary_disasm_close(binary_disasm *d);

#endif
