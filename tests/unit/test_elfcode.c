/*
 * test_elfcode.c: a binary's code as a static program (model/elfcode) and
 * the workload walks over it (model_workload_create_elf): a hand-assembled
 * AArch64 program written as an ELF file here, the RISC-V and x86-64
 * programs of the disassembler test, and bad files.
 */
#include "testutil.h"
#include "common/error.h"
#include "golden/golden.h"
#include "model/bpred.h"
#include "model/config.h"
#include "model/core.h"
#include "model/elfcode.h"
#include "model/workload.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CODE_BASE 0x1000u
#define WALK_STEPS 20000

typedef struct test_symbol {
    const char *name;
    uint64_t value, size;
} test_symbol;

/* Writes a little-endian 64-bit ELF executable of `machine` with one section
 * holding `code` at CODE_BASE (executable when `exec`), and function
 * symbols. */
static void write_elf(const char *path, unsigned machine, int exec, const void *code, size_t code_size,
                      const test_symbol *syms, size_t nsyms)
{
    static char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
    enum { NAME_TEXT = 1, NAME_SYMTAB = 7, NAME_STRTAB = 15, NAME_SHSTRTAB = 23 };
    char strtab[256];
    Elf64_Sym symbols[8];
    size_t str_used = 1;
    Elf *e;
    Elf64_Ehdr *eh;
    Elf_Scn *text, *symtab, *strscn, *shstr;
    Elf_Data *d;
    Elf64_Shdr *sh;
    int fd;

    assert_true(nsyms < sizeof symbols / sizeof symbols[0]);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    e = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(e);
    eh = elf64_newehdr(e);
    assert_non_null(eh);
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_machine = (Elf64_Half)machine;
    eh->e_type = ET_EXEC;
    eh->e_version = EV_CURRENT;
    eh->e_entry = CODE_BASE;

    text = elf_newscn(e);
    d = elf_newdata(text);
    d->d_buf = (void *)(uintptr_t)code;
    d->d_size = code_size;
    d->d_type = ELF_T_BYTE;
    d->d_align = 4;
    sh = elf64_getshdr(text);
    sh->sh_name = NAME_TEXT;
    sh->sh_type = SHT_PROGBITS;
    sh->sh_flags = SHF_ALLOC | (exec ? SHF_EXECINSTR : SHF_WRITE);
    sh->sh_addr = CODE_BASE;

    memset(symbols, 0, sizeof symbols);
    strtab[0] = '\0';
    for (size_t i = 0; i < nsyms; i++) {
        size_t len = strlen(syms[i].name) + 1;
        assert_true(str_used + len <= sizeof strtab);
        memcpy(strtab + str_used, syms[i].name, len);
        symbols[i + 1].st_name = (Elf64_Word)str_used;
        symbols[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
        symbols[i + 1].st_shndx = (Elf64_Section)elf_ndxscn(text);
        symbols[i + 1].st_value = syms[i].value;
        symbols[i + 1].st_size = syms[i].size;
        str_used += len;
    }
    strscn = elf_newscn(e);
    d = elf_newdata(strscn);
    d->d_buf = strtab;
    d->d_size = str_used;
    d->d_type = ELF_T_BYTE;
    d->d_align = 1;
    sh = elf64_getshdr(strscn);
    sh->sh_name = NAME_STRTAB;
    sh->sh_type = SHT_STRTAB;

    symtab = elf_newscn(e);
    d = elf_newdata(symtab);
    d->d_buf = symbols;
    d->d_size = (nsyms + 1) * sizeof symbols[0];
    d->d_type = ELF_T_SYM;
    d->d_align = 8;
    sh = elf64_getshdr(symtab);
    sh->sh_name = NAME_SYMTAB;
    sh->sh_type = SHT_SYMTAB;
    sh->sh_link = (Elf64_Word)elf_ndxscn(strscn);
    sh->sh_info = 1;
    sh->sh_entsize = sizeof symbols[0];

    shstr = elf_newscn(e);
    d = elf_newdata(shstr);
    d->d_buf = shstrtab;
    d->d_size = sizeof shstrtab;
    d->d_type = ELF_T_BYTE;
    d->d_align = 1;
    sh = elf64_getshdr(shstr);
    sh->sh_name = NAME_SHSTRTAB;
    sh->sh_type = SHT_STRTAB;
    eh->e_shstrndx = (Elf64_Half)elf_ndxscn(shstr);

    assert_true(elf_update(e, ELF_C_WRITE) > 0);
    elf_end(e);
    close(fd);
}

/* A loop in main calling f, hand-assembled for AArch64:
 *   0x1000 add x0, x0, #1       0x1014 subs x3, x3, #1
 *   0x1004 ldr x1, [x2]         0x1018 b.ne 0x1000
 *   0x1008 str x1, [x2, #8]     0x101c bl 0x1024
 *   0x100c mul x4, x4, x5       0x1020 b 0x1000
 *   0x1010 fsqrt d0, d1         0x1024 ret          (f)                    */
static const uint32_t AARCH64_LOOP[] = { 0x91000400, 0xf9400041, 0xf9000441, 0x9b057c84, 0x1e61c020,
                                         0xf1000463, 0x54ffff41, 0x94000002, 0x17fffff8, 0xd65f03c0 };
static const test_symbol AARCH64_SYMBOLS[] = { { "f", 0x1024, 4 }, { "main", 0x1000, 0x24 } };

static char *aarch64_program(void)
{
    char *path = test_temp_path("loop.aarch64");
    write_elf(path, EM_AARCH64, 1, AARCH64_LOOP, sizeof AARCH64_LOOP, AARCH64_SYMBOLS, 2);
    return path;
}

static void aarch64_static_program(void **state)
{
    static const struct {
        uint8_t cls, branch;
        uint64_t target;
    } expected[] = {
        { MODEL_INT, 0, 0 },
        { MODEL_LOAD, 0, 0 },
        { MODEL_STORE, 0, 0 },
        { MODEL_MUL, 0, 0 },
        { MODEL_FP_SQRT, 0, 0 },
        { MODEL_INT, 0, 0 },
        { MODEL_BRANCH, 1 + MODEL_BPRED_COND, 0x1000 },
        { MODEL_BRANCH, 1 + MODEL_BPRED_CALL, 0x1024 },
        { MODEL_BRANCH, 1 + MODEL_BPRED_JUMP, 0x1000 },
        { MODEL_BRANCH, 1 + MODEL_BPRED_RETURN, 0 },
    };
    char *path = aarch64_program();
    model_elfcode *c;
    (void)state;

    if (model_elfcode_load(&c, path))
        fail_msg("%s", error_message());
    assert_string_equal(c->arch, "aarch64");
    assert_int_equal(c->va_bits, 48);
    assert_false(c->position_independent);
    assert_null(c->build_id);
    assert_int_equal(c->undecodable_bytes, 0);
    assert_int_equal(c->insn_count, 10);
    for (size_t i = 0; i < c->insn_count; i++) {
        assert_true(c->insns[i].pc == CODE_BASE + 4 * i);
        assert_int_equal(c->insns[i].size, 4);
        if (c->insns[i].cls != expected[i].cls || c->insns[i].branch != expected[i].branch
            || c->insns[i].target != expected[i].target)
            fail_msg("insn %zu: class %u branch %u target 0x%llx", i, c->insns[i].cls, c->insns[i].branch,
                     (unsigned long long)c->insns[i].target);
    }
    assert_int_equal(c->function_count, 2);
    assert_true(c->functions[0].start == 0x1000 && c->functions[0].end == 0x1024 && c->functions[0].first == 0);
    assert_true(c->functions[1].start == 0x1024 && c->functions[1].first == 9);
    assert_int_equal(c->entry, 0); /* main */
    assert_int_equal(model_elfcode_find(c, 0x1018), 6);
    assert_int_equal(model_elfcode_find(c, 0x1019), -1);
    assert_int_equal(model_elfcode_find(c, 0x2000), -1);
    model_elfcode_free(c);
    unlink(path);
    free(path);
}

/* The walk follows the program's control flow: fall-through, the loop
 * branch running the same number of iterations per visit, the call to f,
 * the return behind the call, the jump back. Same seed, same walk. */
static void aarch64_walk(void **state)
{
    char *path = aarch64_program();
    model_elfcode *c;
    model_workload *w, *again;
    model_source src, src2;
    uint64_t prev = 0;
    unsigned taken_run = 0, trips = 0, visits = 0, calls = 0;
    (void)state;

    assert_int_equal(model_elfcode_load(&c, path), TEA_OK);
    assert_int_equal(model_workload_create_elf(&w, "mixed", 7, c), TEA_OK);
    assert_int_equal(model_workload_create_elf(&again, "mixed", 7, c), TEA_OK);
    src = model_workload_source(w);
    src2 = model_workload_source(again);
    for (unsigned step = 0; step < WALK_STEPS; step++) {
        model_insn u, u2;
        assert_int_equal(src.next(src.ctx, &u), 1);
        assert_int_equal(src2.next(src2.ctx, &u2), 1);
        assert_memory_equal(&u, &u2, sizeof u);
        assert_true(model_elfcode_find(c, u.pc) >= 0);
        if (step == 0)
            assert_true(u.pc == 0x1000);
        else if (prev == 0x1018 && u.pc == 0x101c)
            visits++;
        else if (prev == 0x101c)
            assert_true(u.pc == 0x1024);
        else if (prev == 0x1024)
            assert_true(u.pc == 0x1020);
        else if (prev == 0x1020)
            assert_true(u.pc == 0x1000);
        else if (prev != 0x1018)
            assert_true(u.pc == prev + 4);
        if (u.pc == 0x1018) {
            /* taken trips-1 times, then falls through: the same count every visit */
            if (u.flags & MODEL_INSN_TAKEN) {
                assert_true(u.target == 0x1000);
                taken_run++;
            } else {
                assert_true(u.target == 0x1000); /* the encoded target, not followed */
                if (trips)
                    assert_int_equal(taken_run + 1, trips);
                trips = taken_run + 1;
                taken_run = 0;
            }
        }
        if (u.pc == 0x101c) {
            assert_true((u.flags & MODEL_INSN_TAKEN) && u.target == 0x1024 && u.branch == 1 + MODEL_BPRED_CALL);
            calls++;
        }
        if (u.cls == MODEL_LOAD || u.cls == MODEL_STORE)
            assert_true(u.addr != 0 && u.mem_size > 0);
        prev = u.pc;
    }
    assert_true(visits > 10 && calls == visits);
    model_workload_free(w);
    model_workload_free(again);
    model_elfcode_free(c);
    unlink(path);
    free(path);
}

/* Checks each record's µops against the binary's instructions. */
typedef struct pc_check {
    const model_elfcode *code;
    uint64_t committed;
} pc_check;

static int check_batch(void *ctx, const trace_batch *b)
{
    pc_check *pc = ctx;
    for (size_t i = 0; i < b->count; i++) {
        const trace_record *r = &b->records[i];
        for (unsigned k = 0; k < r->n_commit; k++) {
            const trace_uop *u = &b->uops[r->first_uop + k];
            if (model_elfcode_find(pc->code, u->pc) < 0)
                fail_msg("committed µop at 0x%llx is no instruction of the binary", (unsigned long long)u->pc);
            pc->committed++;
        }
    }
    return TEA_OK;
}

/* A real program built by the test suite: decoded without gaps, entry at
 * main, direct targets inside the code resolved, and the core model driven
 * by a walk over it commits only the binary's instructions. */
static void walk_real_program(const char *path, const char *arch)
{
    model_elfcode *c;
    model_workload *w;
    model_core *core;
    model_source src;
    model_config conf;
    pc_check check = { NULL, 0 };
    size_t branches = 0, loads = 0, stores = 0;

    if (model_elfcode_load(&c, path))
        fail_msg("%s", error_message());
    check.code = c;
    assert_string_equal(c->arch, arch);
    assert_true(c->insn_count >= 100);
    assert_true(c->function_count >= 5);
    assert_true(c->build_id != NULL && strlen(c->build_id) == 40);
    for (size_t i = 0; i < c->function_count; i++)
        if (c->functions[i].start == c->insns[c->entry].pc)
            break;
        else if (i + 1 == c->function_count)
            fail_msg("%s: entry 0x%llx is no function start", path, (unsigned long long)c->insns[c->entry].pc);
    for (size_t i = 0; i < c->insn_count; i++) {
        const model_elfcode_insn *e = &c->insns[i];
        branches += e->cls == MODEL_BRANCH;
        loads += e->cls == MODEL_LOAD;
        stores += e->cls == MODEL_STORE;
        if (i + 1 < c->insn_count)
            assert_true(e->pc + e->size <= c->insns[i + 1].pc);
        if (e->target && e->target >= c->insns[0].pc && e->target <= c->insns[c->insn_count - 1].pc
            && model_elfcode_find(c, e->target) < 0)
            fail_msg("%s: branch at 0x%llx targets 0x%llx, inside the code but no instruction", path,
                     (unsigned long long)e->pc, (unsigned long long)e->target);
    }
    print_message("%s: %zu instructions, %zu branches, %zu loads, %zu stores, %zu functions\n", arch, c->insn_count,
                  branches, loads, stores, c->function_count);
    assert_true(branches > 10 && loads > 0 && stores > 0);

    model_config_defaults(&conf);
    assert_int_equal(model_workload_create_elf(&w, "mixed", 3, c), TEA_OK);
    src = model_workload_source(w);
    assert_int_equal(model_core_create(&core, &conf, &src), TEA_OK);
    assert_int_equal(model_core_run(core, 0, 200000, check_batch, &check), TEA_OK);
    assert_true(check.committed > 10000);
    model_core_free(core);
    model_workload_free(w);
    model_elfcode_free(c);
}

static void riscv_program(void **state)
{
    (void)state;
    walk_real_program(TEA_DISASM_RISCV64, "riscv64");
}

static void x86_64_program(void **state)
{
    (void)state;
    if (!TEA_DISASM_X86_64[0])
        skip(); /* not an x86-64 host */
    walk_real_program(TEA_DISASM_X86_64, "x86_64");
}

static void bad_files(void **state)
{
    static const uint32_t code[] = { 0xd65f03c0 };
    char *path = test_temp_path("bad.elf");
    model_elfcode *c = (model_elfcode *)1;
    (void)state;

    assert_int_equal(model_elfcode_load(&c, "/nonexistent/binary"), TEA_ERR_IO);
    assert_null(c);
    assert_contains(error_message(), "/nonexistent/binary");

    test_write_file(path, "#!/bin/sh\necho not an ELF file\n", 31);
    assert_int_equal(model_elfcode_load(&c, path), TEA_ERR_FORMAT);
    assert_contains(error_message(), "not an ELF file");

    write_elf(path, EM_PPC64, 1, code, sizeof code, NULL, 0);
    assert_int_equal(model_elfcode_load(&c, path), TEA_ERR_UNSUPPORTED);
    assert_contains(error_message(), "machine 21");

    write_elf(path, EM_AARCH64, 0, code, sizeof code, NULL, 0); /* a data section only */
    assert_int_equal(model_elfcode_load(&c, path), TEA_ERR_FORMAT);
    assert_contains(error_message(), "no executable code");
    assert_null(c);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aarch64_static_program),
        cmocka_unit_test(aarch64_walk),
        cmocka_unit_test(riscv_program),
        cmocka_unit_test(x86_64_program),
        cmocka_unit_test(bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
