/*
 * elfcode.c: disassembling a binary's executable sections into a static
 * program (see elfcode.h).
 */
#include "elfcode.h"
#include "bpred.h"
#include "core.h"
#include "common/error.h"
#include "binary/disasm.h"
#include "binary/elffile.h"

#include <assert.h>
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_INSNS 4096

/* Architectures by ELF machine: disassembler name, the smallest instruction
 * (how far to skip over bytes that decode to nothing) and the usual user
 * virtual-address width (x86-64 and AArch64 with 4-level tables; Sv39). */
typedef struct machine_desc {
    unsigned e_machine;
    const char *arch;
    unsigned min_insn_bytes;
    unsigned va_bits;
} machine_desc;

static const machine_desc MACHINES[] = {
    { EM_X86_64, "x86_64", 1, 48 },
    { EM_AARCH64, "aarch64", 4, 48 },
    { EM_RISCV, "riscv64", 2, 39 },
};

/* Loader state. */
typedef struct loader {
    const char *path;
    model_elfcode *code;
    size_t insn_cap;
    binary_disasm *dis;
    const machine_desc *machine;
} loader;

/* The model class and branch kind of a decoded instruction. */
static void classify(const binary_disasm_insn *in, model_elfcode_insn *out)
{
    static const uint8_t op_class[BINARY_DISASM_OP_COUNT] = {
        [BINARY_DISASM_OP_INT] = MODEL_INT,         [BINARY_DISASM_OP_MUL] = MODEL_MUL,
        [BINARY_DISASM_OP_DIV] = MODEL_DIV,         [BINARY_DISASM_OP_FP_ADD] = MODEL_FP_ADD,
        [BINARY_DISASM_OP_FP_MUL] = MODEL_FP_MUL,   [BINARY_DISASM_OP_FP_DIV] = MODEL_FP_DIV,
        [BINARY_DISASM_OP_FP_SQRT] = MODEL_FP_SQRT, [BINARY_DISASM_OP_SERIAL] = MODEL_SERIAL,
    };
    unsigned f = in->flags, kind;

    out->branch = MODEL_BRANCH_NONE;
    if (f & BINARY_DISASM_F_BRANCH) {
        int direct = (f & BINARY_DISASM_F_DIRECT) != 0;
        if (f & BINARY_DISASM_F_RETURN)
            kind = MODEL_BPRED_RETURN;
        else if (f & BINARY_DISASM_F_CALL)
            kind = direct ? MODEL_BPRED_CALL : MODEL_BPRED_INDIRECT_CALL;
        else if (f & BINARY_DISASM_F_CONDITIONAL)
            kind = direct ? MODEL_BPRED_COND : MODEL_BPRED_INDIRECT;
        else
            kind = direct ? MODEL_BPRED_JUMP : MODEL_BPRED_INDIRECT;
        out->cls = MODEL_BRANCH;
        out->branch = (uint8_t)(1 + kind);
        out->target = direct ? in->target : 0;
    } else if (in->op == BINARY_DISASM_OP_SERIAL) {
        out->cls = MODEL_SERIAL;
    } else if (f & BINARY_DISASM_F_LOAD) {
        out->cls = MODEL_LOAD;
        out->rmw = (f & BINARY_DISASM_F_STORE) != 0;
    } else if (f & BINARY_DISASM_F_STORE) {
        out->cls = MODEL_STORE;
    } else {
        out->cls = op_class[in->op < BINARY_DISASM_OP_COUNT ? in->op : BINARY_DISASM_OP_INT];
    }
}

/* Appends one instruction to the table. */
static int append_insn(loader *ld, const model_elfcode_insn *in)
{
    model_elfcode *c = ld->code;
    if (c->insn_count == ld->insn_cap) {
        size_t cap = ld->insn_cap ? ld->insn_cap * 2 : INITIAL_INSNS;
        model_elfcode_insn *grown = realloc(c->insns, cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        c->insns = grown;
        ld->insn_cap = cap;
    }
    c->insns[c->insn_count++] = *in;
    return TEA_OK;
}

/* Disassembles one executable section front to back. Bytes that decode to
 * nothing (data in code, padding of some assemblers) are skipped in steps of
 * the smallest instruction and counted. */
static int decode_section(loader *ld, uint64_t addr, const uint8_t *bytes, size_t size)
{
    size_t pos = 0;
    while (pos < size) {
        binary_disasm_insn in;
        model_elfcode_insn e;
        int rc;
        if (binary_disasm_one(ld->dis, addr + pos, bytes + pos, size - pos, &in) != TEA_OK) {
            size_t step = ld->machine->min_insn_bytes;
            if (step > size - pos)
                step = size - pos;
            ld->code->undecodable_bytes += step;
            pos += step;
            continue;
        }
        assert(in.size > 0 && in.size <= size - pos); /* progress, within the section */
        memset(&e, 0, sizeof e);
        e.pc = addr + pos;
        e.size = (uint8_t)in.size;
        classify(&in, &e);
        if ((rc = append_insn(ld, &e)))
            return rc;
        pos += in.size;
    }
    return TEA_OK;
}

/* Orders instructions by address. */
static int compare_insn(const void *a, const void *b)
{
    const model_elfcode_insn *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Orders functions by start, the larger first at equal starts. */
static int compare_function(const void *a, const void *b)
{
    const model_elfcode_function *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end;
}

/* Collects the function symbols (from .symtab, else .dynsym) that start at
 * a decoded instruction, sorted and without overlaps, and picks the entry:
 * `main`, else the ELF entry point, else the first instruction. */
static int collect_functions(loader *ld, Elf *elf, uint64_t e_entry)
{
    model_elfcode *c = ld->code;
    Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
    size_t count = 0, kept = 0;
    long main_index = -1, entry_index;
    GElf_Shdr sh;
    Elf_Data *data;

    while ((scn = elf_nextscn(elf, scn))) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB)
            symtab = scn;
        else if (sh.sh_type == SHT_DYNSYM)
            dynsym = scn;
    }
    scn = symtab ? symtab : dynsym;
    if (scn && gelf_getshdr(scn, &sh) && sh.sh_entsize && (data = elf_getdata(scn, NULL))) {
        size_t n = sh.sh_size / sh.sh_entsize;
        if (!(c->functions = calloc(n ? n : 1, sizeof *c->functions)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            GElf_Sym sym;
            const char *name;
            long first;
            int type;
            if (!gelf_getsym(data, (int)i, &sym))
                continue;
            type = GELF_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_size == 0 || sym.st_shndx == SHN_UNDEF)
                continue;
            if ((first = model_elfcode_find(c, sym.st_value)) < 0)
                continue;
            name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (name && !strcmp(name, "main"))
                main_index = first;
            c->functions[count++] = (model_elfcode_function){ sym.st_value, sym.st_value + sym.st_size, (size_t)first };
        }
    }
    qsort(c->functions, count, sizeof *c->functions, compare_function);
    for (size_t i = 0; i < count; i++)
        if (!kept || c->functions[i].start >= c->functions[kept - 1].end)
            c->functions[kept++] = c->functions[i];
    c->function_count = kept;
    entry_index = main_index >= 0 ? main_index : model_elfcode_find(c, e_entry);
    c->entry = entry_index >= 0 ? (size_t)entry_index : 0;
    assert(c->entry < c->insn_count); /* decode_sections refused a binary without code */
    return TEA_OK;
}

/* Disassembles every allocated executable PROGBITS section. */
static int decode_sections(loader *ld, Elf *elf)
{
    Elf_Scn *scn = NULL;
    int rc;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)
            || !(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0)
            continue;
        if (!(data = elf_getdata(scn, NULL)) || !data->d_buf || data->d_size < sh.sh_size)
            return error_set(TEA_ERR_FORMAT, "%s: cannot read the executable section at 0x%llx", ld->path,
                             (unsigned long long)sh.sh_addr);
        if ((rc = decode_section(ld, sh.sh_addr, data->d_buf, sh.sh_size)))
            return rc;
    }
    if (!ld->code->insn_count)
        return error_set(TEA_ERR_FORMAT, "%s: no executable code", ld->path);
    qsort(ld->code->insns, ld->code->insn_count, sizeof *ld->code->insns, compare_insn);
    return TEA_OK;
}

int model_elfcode_load(model_elfcode **out, const char *path)
{
    loader ld = { path, NULL, 0, NULL, NULL };
    binary_elffile file;
    Elf *elf;
    GElf_Ehdr eh;
    int rc;

    *out = NULL;
    if ((rc = binary_elffile_open(&file, path)))
        /* what libelf cannot read (a directory) is not an ELF file here */
        return rc == TEA_ERR_FORMAT ? error_set(TEA_ERR_FORMAT, "%s: not an ELF file", path) : rc;
    elf = file.elf;
    if (!(ld.code = calloc(1, sizeof *ld.code))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        rc = error_set(TEA_ERR_FORMAT, "%s: not an ELF file", path);
        goto done;
    }
    if (gelf_getclass(elf) != ELFCLASS64) {
        rc = error_set(TEA_ERR_FORMAT, "%s: not a 64-bit ELF file", path);
        goto done;
    }
    for (size_t i = 0; i < sizeof MACHINES / sizeof MACHINES[0]; i++)
        if (MACHINES[i].e_machine == eh.e_machine)
            ld.machine = &MACHINES[i];
    if (!ld.machine) {
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: ELF machine %u is not x86-64, AArch64 or RISC-V", path,
                       (unsigned)eh.e_machine);
        goto done;
    }
    snprintf(ld.code->arch, sizeof ld.code->arch, "%s", ld.machine->arch);
    ld.code->va_bits = ld.machine->va_bits;
    ld.code->position_independent = eh.e_type == ET_DYN;
    if ((rc = binary_disasm_open(&ld.dis, ld.machine->arch)) || (rc = decode_sections(&ld, elf))
        || (rc = collect_functions(&ld, elf, eh.e_entry)) || (rc = binary_elffile_build_id(elf, &ld.code->build_id)))
        goto done;
    *out = ld.code;
    ld.code = NULL;
done:
    binary_disasm_close(ld.dis);
    binary_elffile_close(&file);
    model_elfcode_free(ld.code);
    return rc;
}
