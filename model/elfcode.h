/*
 * elfcode.h: the machine code of an ELF binary as a static program for the
 * core model's synthetic walks (tea gen --elf).
 *
 * Every executable section is disassembled front to back (binary/disasm.h:
 * x86-64, AArch64, RISC-V RV64GC) into a table of instructions sorted by
 * address, each with its model class (integer, multiply, divide, FP, load,
 * store, branch, serializing), its branch kind and its direct target. The
 * function symbols give the walk its call targets and its entry point
 * (`main` when the binary has one). Addresses are the ELF's own (link-time)
 * addresses: a position-independent binary is described as if loaded at 0.
 */
#ifndef TEA_MODEL_ELFCODE_H
#define TEA_MODEL_ELFCODE_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_ELFCODE_ARCH_MAX 16

/* One static instruction. */
typedef struct model_elfcode_insn {
    uint64_t pc;
    uint64_t target;   /* direct control transfers: where they go; else 0 */
    uint8_t size;      /* bytes */
    uint8_t cls;       /* model_class */
    uint8_t branch;    /* MODEL_BRANCH_NONE or 1 + model_bpred_kind */
    uint8_t rmw;       /* a load that also writes memory (x86 read-modify-write, atomics) */
} model_elfcode_insn;

/* A function symbol with code in it. */
typedef struct model_elfcode_function {
    uint64_t start, end;   /* [start, end) */
    size_t first;          /* index of the instruction at `start` */
} model_elfcode_function;

typedef struct model_elfcode {
    char arch[MODEL_ELFCODE_ARCH_MAX]; /* "x86_64", "aarch64", "riscv64" */
    unsigned va_bits;              /* virtual-address width of the architecture's usual user space */
    char *build_id;                /* hex, or NULL when the binary has none */
    int position_independent;      /* ET_DYN: PCs are link-time addresses (load bias 0) */
    model_elfcode_insn *insns;     /* sorted by pc, non-overlapping */
    size_t insn_count;
    model_elfcode_function *functions; /* sorted by start, non-overlapping */
    size_t function_count;
    size_t entry;                  /* index of the instruction where walks start */
    uint64_t undecodable_bytes;    /* bytes of executable sections that decode to nothing */
} model_elfcode;

/* Loads and disassembles `path`. Errors: TEA_ERR_IO (unreadable),
 * TEA_ERR_FORMAT (not a 64-bit ELF, no executable code), TEA_ERR_UNSUPPORTED
 * (an architecture other than x86-64, AArch64, RISC-V), TEA_ERR_NOMEM; each
 * message names the file. */
int model_elfcode_load(model_elfcode **out, const char *path);

/* The index of the instruction that starts at `pc`, or -1. */
long model_elfcode_find(const model_elfcode *c, uint64_t pc);

/* Moves the program to where a loader would put it with load bias `bias`
 * (runtime address = ELF address + bias): every instruction's PC and direct
 * target and every function range, for tea gen --load-bias. TEA_ERR_USAGE
 * (nothing changed) when a PC would pass the architecture's user half
 * (bit va_bits - 1) or wrap. */
int model_elfcode_rebase(model_elfcode *c, uint64_t bias);

void model_elfcode_free(model_elfcode *c);

#endif
