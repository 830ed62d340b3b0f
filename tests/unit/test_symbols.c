/*
 * test_symbols.c: the ELF symbol reader (binary/symbols) and the symbolizer
 * policy (binary/symbolize) on real binaries, compared with binutils.
 *
 * The binaries are tests/data/symbols_prog.c built by the test suite (see
 * that file and tests/CMakeLists.txt): x86-64 at fixed addresses, as a PIE,
 * as a stripped PIE and as a stripped PIE whose functions are exported
 * (.dynsym only); RISC-V (rv64gc) at ordinary addresses and linked in the
 * upper half of the address space. The references:
 *
 *   nm -f sysv --defined-only   every function symbol (FUNC, IFUNC) with its
 *                               address, size and section: each address must
 *                               map back to offset 0 of a function named by
 *                               one of the names nm lists there; interior
 *                               addresses to name+offset; the bytes after a
 *                               sized function that no symbol covers to
 *                               "[unknown SECTION]";
 *   addr2line                   file:line of a few addresses;
 *   readelf -n, readelf -S      the build-id; the address of .plt.
 *
 * On hosts that are not x86-64 the x86-64 programs are not built and their
 * tests are skipped.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "common/error.h"
#include "binary/elffile.h"
#include "binary/symbols.h"
#include "binary/symbolize.h"
#include "binary/unwind.h"
#include "pics/pics_file.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NM_SYMBOLS 256
#define NAME_MAX_LEN 128
#define TEXT_MAX 512
/* Where the PIE tests pretend the program was loaded. */
#define PIE_BIAS 0x555555554000ull
/* A RISC-V PIE's load bias under Sv39. */
#define PIE_BIAS_SV39 0x2aaaab5000ull
/* The RISC-V "kernel" build is linked at this (sign-extended) address and
 * traced with 39-bit virtual addresses (Sv39). */
#define HIGH_TEXT 0xffffffff80000000ull
#define SV39_BITS 39
/* STT_GNU_IFUNC as nm -f sysv prints it. */
#define NM_IFUNC "<OS specific>: 10"

typedef struct nm_symbol {
    uint64_t addr, size;
    char name[NAME_MAX_LEN];
    char section[NAME_MAX_LEN];
} nm_symbol;

typedef struct nm_table {
    nm_symbol sym[MAX_NM_SYMBOLS];
    size_t count;
} nm_table;

/* Removes leading and trailing blanks in place. */
static char *trim(char *s)
{
    char *end;
    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

/* Runs a command and returns its first output line (trimmed, malloc'd). */
static char *first_line(const char *command)
{
    FILE *p = popen(command, "r");
    char line[TEXT_MAX] = "";
    assert_non_null(p);
    if (!fgets(line, sizeof line, p))
        line[0] = '\0';
    assert_int_equal(pclose(p), 0);
    return strdup(trim(line));
}

/* The function symbols of `prog` as nm lists them. */
static void read_nm(const char *nm, const char *prog, nm_table *t)
{
    char command[TEXT_MAX], line[TEXT_MAX];
    FILE *p;

    snprintf(command, sizeof command, "%s -f sysv --defined-only %s", nm, prog);
    assert_non_null(p = popen(command, "r"));
    t->count = 0;
    while (fgets(line, sizeof line, p)) {
        char *field[7];
        char *s = line;
        int n = 0;
        for (; n < 7 && s; n++) {
            field[n] = s;
            if ((s = strchr(s, '|')))
                *s++ = '\0';
        }
        if (n < 7)
            continue;
        if (strcmp(trim(field[3]), "FUNC") != 0 && strcmp(trim(field[3]), NM_IFUNC) != 0)
            continue;
        assert_true(t->count < MAX_NM_SYMBOLS);
        nm_symbol *e = &t->sym[t->count++];
        snprintf(e->name, sizeof e->name, "%s", trim(field[0]));
        e->addr = strtoull(trim(field[1]), NULL, 16);
        e->size = *trim(field[4]) ? strtoull(trim(field[4]), NULL, 16) : 0;
        snprintf(e->section, sizeof e->section, "%s", trim(field[6]));
    }
    assert_int_equal(pclose(p), 0);
    assert_true(t->count > 5);
}

/* Whether nm lists `name` at `addr`. */
static int nm_has(const nm_table *t, uint64_t addr, const char *name)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->sym[i].addr == addr && strcmp(t->sym[i].name, name) == 0)
            return 1;
    return 0;
}

/* Whether any nm symbol starts in (lo, hi]. */
static int nm_starts_in(const nm_table *t, uint64_t lo, uint64_t hi)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->sym[i].addr > lo && t->sym[i].addr <= hi)
            return 1;
    return 0;
}

/* Whether a function symbol covers `addr` by the rules of symbols.h: one
 * starts there, a sized one spans it, or a size-less one before it has no
 * other symbol between. */
static int nm_covers(const nm_table *t, uint64_t addr)
{
    for (size_t i = 0; i < t->count; i++) {
        const nm_symbol *e = &t->sym[i];
        int sized_alias = 0;
        if (e->addr == addr || (e->size && e->addr < addr && addr - e->addr < e->size))
            return 1;
        if (e->size || e->addr > addr)
            continue;
        for (size_t j = 0; j < t->count; j++)
            sized_alias |= t->sym[j].addr == e->addr && t->sym[j].size;
        if (!sized_alias && !nm_starts_in(t, e->addr, addr))
            return 1;
    }
    return 0;
}

/* Distinct addresses in the table. */
static size_t nm_addresses(const nm_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= t->sym[j].addr == t->sym[i].addr;
        n += !seen;
    }
    return n;
}

/* The trace PC of an ELF address under bias and width (symbols.h), written
 * out independently of the module. */
static uint64_t trace_pc(uint64_t elf_addr, uint64_t bias, unsigned va_bits)
{
    uint64_t a = elf_addr + bias;
    if (va_bits < 64 && (a >> (va_bits - 1)) == (~0ull >> (va_bits - 1)))
        a &= (1ull << va_bits) - 1;
    return a;
}

static binary_symbols *open_or_fail(const char *path)
{
    binary_symbols *s = NULL;
    int rc = binary_symbols_open(&s, path);
    if (rc)
        fail_msg("binary_symbols_open(%s): %s", path, error_message());
    return s;
}

/* How many functions are PLT stubs ("NAME@plt"). */
static size_t plt_stubs(const binary_symbols *s)
{
    size_t n = 0;
    for (size_t i = 0; i < binary_symbols_count(s); i++) {
        const char *name = binary_symbols_function_at(s, i)->name;
        size_t len = strlen(name);
        n += len > 4 && strcmp(name + len - 4, "@plt") == 0;
    }
    return n;
}

/* Every nm function address, interior address and trailing gap of `prog`
 * symbolized as nm says; at least `min_gaps` gaps (x86-64 pads functions to
 * 16 bytes, RISC-V packs them). */
static void check_against_nm(const char *prog, const char *nm, uint64_t bias, unsigned va_bits, size_t min_gaps)
{
    nm_table *t = calloc(1, sizeof *t);
    binary_symbols *s = open_or_fail(prog);
    char text[TEXT_MAX], want[TEXT_MAX];
    size_t gaps = 0, interiors = 0;

    assert_non_null(t);
    read_nm(nm, prog, t);
    binary_symbols_set_bias(s, bias);
    assert_int_equal(binary_symbols_set_va_bits(s, va_bits), 0);
    assert_string_equal(binary_symbols_table(s), ".symtab");
    assert_int_equal(binary_symbols_count(s), nm_addresses(t) + plt_stubs(s));
    for (size_t i = 0; i < t->count; i++) {
        const nm_symbol *e = &t->sym[i];
        uint64_t pc = trace_pc(e->addr, bias, va_bits);
        binary_symbols_location loc;
        binary_symbols_locate(s, pc, &loc);
        if (loc.function < 0 || loc.offset != 0 || !nm_has(t, e->addr, loc.name))
            fail_msg("%s: %s at 0x%" PRIx64 " (pc 0x%" PRIx64 ") symbolized as %s+0x%" PRIx64, prog, e->name,
                     e->addr, pc, loc.name ? loc.name : "(none)", loc.offset);
        assert_int_equal(loc.start, pc);
        assert_string_equal(loc.section, e->section);
        snprintf(want, sizeof want, "%s+0x0", loc.name);
        assert_string_equal(binary_symbols_format(s, pc, text, sizeof text), want);
        if (e->size > 1 && !nm_starts_in(t, e->addr, e->addr + e->size - 1)) {
            uint64_t mid = e->size / 2;
            binary_symbols_locate(s, pc + mid, &loc);
            assert_int_equal(loc.start, pc);
            assert_int_equal(loc.offset, mid);
            assert_true(nm_has(t, e->addr, loc.name));
            binary_symbols_locate(s, pc + e->size - 1, &loc);
            assert_int_equal(loc.offset, e->size - 1);
            interiors++;
        }
        /* the bytes right after a sized function, when no symbol covers them */
        if (e->size && !nm_covers(t, e->addr + e->size)) {
            binary_symbols_locate(s, pc + e->size, &loc);
            assert_int_equal(loc.function, -1);
            if (loc.section)
                snprintf(want, sizeof want, "[unknown %s]", loc.section);
            else
                snprintf(want, sizeof want, "[unknown]");
            assert_string_equal(binary_symbols_format(s, pc + e->size, text, sizeof text), want);
            gaps += loc.section && strcmp(loc.section, e->section) == 0;
        }
    }
    /* the other way round: every function is named as nm names its start */
    for (size_t i = 0; i < binary_symbols_count(s); i++) {
        const binary_symbols_function *f = binary_symbols_function_at(s, i);
        size_t len = strlen(f->name);
        if (len > 4 && strcmp(f->name + len - 4, "@plt") == 0)
            continue; /* PLT stubs: test_plt_x86_64 */
        assert_true(nm_has(t, f->elf_start, f->name));
        assert_int_equal(f->start, trace_pc(f->elf_start, bias, va_bits));
        assert_true(f->end > f->start);
    }
    assert_true(interiors >= 4);
    assert_true(gaps >= min_gaps);
    free(t);
    binary_symbols_close(s);
}

/* The alias, weak, ifunc and zero-size symbols of symbols_prog.c. */
static void check_special_symbols(const char *prog, int hosted)
{
    binary_symbols *s = open_or_fail(prog);
    size_t idx[4], idx2[4];
    const binary_symbols_function *f, *next;
    binary_symbols_location loc;

    /* real_function, alias_function, weak_alias: one function, named by the
     * rules (sized, global, non-weak, shorter) real_function */
    assert_int_equal(binary_symbols_find_name(s, "alias_function", idx, 4), 1);
    assert_int_equal(binary_symbols_find_name(s, "weak_alias", idx2, 4), 1);
    assert_int_equal(idx[0], idx2[0]);
    assert_int_equal(binary_symbols_find_name(s, "real_function", idx2, 4), 1);
    assert_int_equal(idx[0], idx2[0]);
    assert_string_equal(binary_symbols_function_at(s, idx[0])->name, "real_function");
    assert_int_equal(binary_symbols_find_name(s, "weak_function", idx, 4), 1);
    assert_string_equal(binary_symbols_function_at(s, idx[0])->name, "weak_function");
    assert_int_equal(binary_symbols_find_name(s, "no_such_function", idx, 4), 0);
    /* zero_size has no size: it reaches after_zero_size */
    assert_int_equal(binary_symbols_find_name(s, "zero_size", idx, 4), 1);
    assert_int_equal(binary_symbols_find_name(s, "after_zero_size", idx2, 4), 1);
    f = binary_symbols_function_at(s, idx[0]);
    next = binary_symbols_function_at(s, idx2[0]);
    assert_int_equal(f->end, next->start);
    binary_symbols_locate(s, next->start - 1, &loc);
    assert_string_equal(loc.name, "zero_size");
    if (hosted) {
        /* the ifunc shares its resolver's address: global wins over local */
        assert_int_equal(binary_symbols_find_name(s, "dispatch", idx, 4), 1);
        assert_int_equal(binary_symbols_find_name(s, "resolve_dispatch", idx2, 4), 1);
        assert_int_equal(idx[0], idx2[0]);
        assert_string_equal(binary_symbols_function_at(s, idx[0])->name, "dispatch");
    }
    {
        const char *close[3];
        size_t n = binary_symbols_suggest(s, "real_functon", close, 3);
        assert_true(n >= 1);
        assert_string_equal(close[0], "real_function");
        n = binary_symbols_suggest(s, "zero", close, 3);
        assert_true(n >= 1);
        assert_string_equal(close[0], "after_zero_size"); /* substring matches, in name order */
    }
    binary_symbols_close(s);
}

/* The build-id against readelf's. */
static void check_build_id(const char *prog)
{
    char command[TEXT_MAX];
    char *line;
    binary_symbols *s = open_or_fail(prog);
    snprintf(command, sizeof command, "readelf -n %s | sed -n 's/.*Build ID: *//p'", prog);
    line = first_line(command);
    assert_true(strlen(line) > 0);
    assert_non_null(binary_symbols_build_id(s));
    assert_string_equal(binary_symbols_build_id(s), line);
    free(line);
    binary_symbols_close(s);
}

/* file:line of some functions' first and later addresses against addr2line. */
static void check_source_lines(const char *prog, const char *addr2line, uint64_t bias, unsigned va_bits)
{
    static const char *const names[] = { "real_function", "local_helper", "after_zero_size", "weak_function",
                                         "zero_size" };
    binary_symbols *s = open_or_fail(prog);
    size_t checked = 0;

    binary_symbols_set_bias(s, bias);
    assert_int_equal(binary_symbols_set_va_bits(s, va_bits), 0);
    assert_int_equal(binary_symbols_load_lines(s), 1);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t idx;
        const binary_symbols_function *f;
        assert_int_equal(binary_symbols_find_name(s, names[i], &idx, 1), 1);
        f = binary_symbols_function_at(s, idx);
        for (uint64_t off = 0; off < f->end - f->start; off += 3) {
            char command[TEXT_MAX], got[TEXT_MAX];
            char *want, *paren;
            const char *file;
            unsigned line;
            int found;
            snprintf(command, sizeof command, "%s -e %s 0x%" PRIx64, addr2line, prog, f->elf_start + off);
            want = first_line(command);
            if ((paren = strstr(want, " (discriminator")))
                *paren = '\0';
            found = binary_symbols_source(s, f->start + off, &file, &line);
            assert_true(found >= 0);
            if (found)
                snprintf(got, sizeof got, "%s:%u", file, line);
            else
                snprintf(got, sizeof got, "??:0");
            if (strcmp(got, want) != 0 && !(strcmp(want, "??:?") == 0 && !found))
                fail_msg("%s: %s+0x%" PRIx64 ": addr2line says %s, binary_symbols_source %s", prog, names[i], off, want,
                         got);
            free(want);
            checked++;
        }
    }
    assert_true(checked >= 10);
    binary_symbols_close(s);
}

/* --- the tests ---------------------------------------------------------------------- */

static int have_x86(void)
{
    return TEA_SYMBOLS_X86_64[0] != '\0';
}

static void test_x86_64_fixed(void **state)
{
    (void)state;
    if (!have_x86())
        skip();
    check_against_nm(TEA_SYMBOLS_X86_64, TEA_NM, 0, BINARY_SYMBOLS_VA_BITS_FULL, 1);
    check_against_nm(TEA_SYMBOLS_X86_64, TEA_NM, 0, 48, 1);
    check_special_symbols(TEA_SYMBOLS_X86_64, 1);
    check_build_id(TEA_SYMBOLS_X86_64);
    check_source_lines(TEA_SYMBOLS_X86_64, TEA_ADDR2LINE, 0, BINARY_SYMBOLS_VA_BITS_FULL);
    {
        binary_symbols *s = open_or_fail(TEA_SYMBOLS_X86_64);
        assert_false(binary_symbols_is_position_independent(s));
        assert_string_equal(binary_symbols_arch(s), "x86_64");
        binary_symbols_close(s);
    }
}

/* The address of section `name` as readelf -S gives it. */
static uint64_t section_address(const char *prog, const char *name)
{
    char command[TEXT_MAX];
    char *line;
    uint64_t addr;
    snprintf(command, sizeof command, "readelf -SW %s | awk '$2 == \"%s\" { print $4 } $3 == \"%s\" { print $5 }'",
             prog, name, name);
    line = first_line(command);
    assert_true(strlen(line) > 0);
    addr = strtoull(line, NULL, 16);
    free(line);
    return addr;
}

static void test_x86_64_pie(void **state)
{
    binary_symbols *s;
    char text[TEXT_MAX];
    const uint8_t *bytes;
    size_t avail, idx;
    (void)state;
    if (!have_x86())
        skip();
    check_against_nm(TEA_SYMBOLS_X86_64_PIE, TEA_NM, 0, BINARY_SYMBOLS_VA_BITS_FULL, 1);
    check_against_nm(TEA_SYMBOLS_X86_64_PIE, TEA_NM, PIE_BIAS, 48, 1);
    check_special_symbols(TEA_SYMBOLS_X86_64_PIE, 1);
    check_source_lines(TEA_SYMBOLS_X86_64_PIE, TEA_ADDR2LINE, PIE_BIAS, 48);

    s = open_or_fail(TEA_SYMBOLS_X86_64_PIE);
    assert_true(binary_symbols_is_position_independent(s));
    binary_symbols_set_bias(s, PIE_BIAS);
    /* the PLT has no function symbol */
    assert_string_equal(
        binary_symbols_format(s, PIE_BIAS + section_address(TEA_SYMBOLS_X86_64_PIE, ".plt") + 4, text, sizeof text),
        "[unknown .plt]");
    /* the ELF header is in no section; nor is an address far away */
    assert_string_equal(binary_symbols_format(s, PIE_BIAS + 0x10, text, sizeof text), "[unknown]");
    assert_string_equal(binary_symbols_format(s, 0x10, text, sizeof text), "[unknown]");
    assert_int_equal(binary_symbols_read(s, 0x10, &bytes, &avail), TEA_ERR_FORMAT);
    assert_contains(error_message(), "0x10");
    /* bytes of zero_size: four nops and a ret */
    assert_int_equal(binary_symbols_find_name(s, "zero_size", &idx, 1), 1);
    assert_int_equal(binary_symbols_read(s, binary_symbols_function_at(s, idx)->start, &bytes, &avail), 0);
    assert_true(avail >= 5);
    assert_memory_equal(bytes, "\x90\x90\x90\x90\xc3", 5);
    binary_symbols_close(s);
}

/* The FDE ranges `readelf --debug-dump=frames` lists for `prog` ("pc=A..B"),
 * sorted by start, one per start; returns how many (at most max). */
static size_t read_fdes(const char *prog, binary_unwind_range *out, size_t max)
{
    char command[TEXT_MAX], line[TEXT_MAX];
    size_t n = 0, kept = 0;
    FILE *p;

    snprintf(command, sizeof command, "%s --debug-dump=frames %s", TEA_READELF, prog);
    assert_non_null(p = popen(command, "r"));
    while (fgets(line, sizeof line, p)) {
        char *pc = strstr(line, " FDE ");
        unsigned long long a, b;
        if (pc && (pc = strstr(pc, "pc=")) && sscanf(pc, "pc=%llx..%llx", &a, &b) == 2) {
            assert_true(n < max);
            out[n].start = a;
            out[n++].end = b;
        }
    }
    assert_int_equal(pclose(p), 0);
    for (size_t i = 1; i < n; i++) /* insertion sort: few entries */
        for (size_t k = i; k > 0 && out[k - 1].start > out[k].start; k--) {
            binary_unwind_range t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || out[i].start != out[kept - 1].start)
            out[kept++] = out[i];
    return kept;
}

/* A stripped PIE: the functions come from .eh_frame, exactly the FDE ranges
 * readelf lists, each named fn_HEX by its ELF address; every function
 * symbol of the unstripped file with an FDE is found under that name, one
 * without (the size-less assembly function) stays unknown. */
static void test_x86_64_stripped(void **state)
{
    nm_table *t = calloc(1, sizeof *t);
    binary_unwind_range want[MAX_NM_SYMBOLS], *got;
    binary_elffile file;
    binary_symbols *s;
    size_t nwant, ngot, with_fde = 0, without = 0;
    const char *table;
    (void)state;
    assert_non_null(t);
    if (!have_x86()) {
        free(t);
        skip();
    }
    nwant = read_fdes(TEA_SYMBOLS_X86_64_STRIPPED, want, MAX_NM_SYMBOLS);
    assert_true(nwant > 5);
    assert_int_equal(binary_elffile_open(&file, TEA_SYMBOLS_X86_64_STRIPPED), TEA_OK);
    assert_int_equal(binary_unwind_ranges(file.elf, &got, &ngot, &table), TEA_OK);
    assert_string_equal(table, ".eh_frame");
    assert_int_equal(ngot, nwant);
    for (size_t i = 0; i < ngot; i++) {
        assert_int_equal(got[i].start, want[i].start);
        assert_int_equal(got[i].end, want[i].end);
    }
    free(got);
    binary_elffile_close(&file);

    read_nm(TEA_NM, TEA_SYMBOLS_X86_64_PIE, t);
    s = open_or_fail(TEA_SYMBOLS_X86_64_STRIPPED);
    assert_string_equal(binary_symbols_table(s), ".eh_frame");
    assert_non_null(binary_symbols_build_id(s)); /* strip keeps the note */
    for (size_t i = 0; i < t->count; i++) {
        binary_symbols_location loc;
        char name[BINARY_UNWIND_NAME_MAX], text[TEXT_MAX];
        int fde = 0;
        for (size_t k = 0; k < nwant; k++)
            fde |= want[k].start == t->sym[i].addr;
        binary_symbols_locate(s, t->sym[i].addr, &loc);
        if (fde) {
            binary_unwind_name(t->sym[i].addr, name, sizeof name);
            assert_non_null(loc.name);
            assert_string_equal(loc.name, name);
            assert_int_equal(loc.offset, 0);
            /* found by that name too (annotate, --start-at) */
            assert_true(binary_symbols_find_name(s, name, NULL, 0) >= 1);
            with_fde++;
        } else if (!loc.name) {
            snprintf(text, sizeof text, "[unknown %s]", t->sym[i].section);
            assert_string_equal(binary_symbols_format(s, t->sym[i].addr, name, sizeof name), text);
            without++;
        }
    }
    assert_true(with_fde > 5);
    assert_true(without >= 1); /* zero_size, in assembly, has no CFI */
    binary_symbols_close(s);
    free(t);
}

/* Stripped but exported (-rdynamic): the names come from .dynsym, the
 * local functions from .eh_frame (fn_HEX at their own start), and an
 * address is either named as the full symbol table names it, by the
 * address the full table starts its function at, or unknown (the
 * assembly function without CFI). */
static void test_x86_64_dynsym(void **state)
{
    nm_table *t = calloc(1, sizeof *t);
    binary_symbols *full, *dyn;
    size_t named = 0, by_address = 0, unknown = 0;
    (void)state;
    assert_non_null(t);
    if (!have_x86()) {
        free(t);
        skip();
    }
    full = open_or_fail(TEA_SYMBOLS_X86_64_DYN);
    dyn = open_or_fail(TEA_SYMBOLS_X86_64_DYN_STRIPPED);
    read_nm(TEA_NM, TEA_SYMBOLS_X86_64_DYN, t);
    assert_string_equal(binary_symbols_table(dyn), ".dynsym and .eh_frame");
    for (size_t i = 0; i < t->count; i++) {
        for (uint64_t off = 0; off < (t->sym[i].size ? t->sym[i].size : 1); off++) {
            uint64_t pc = t->sym[i].addr + off;
            binary_symbols_location lf, ld;
            char fn[BINARY_UNWIND_NAME_MAX];
            binary_symbols_locate(full, pc, &lf);
            binary_symbols_locate(dyn, pc, &ld);
            if (!ld.name) {
                unknown++;
                continue;
            }
            if (lf.function < 0 || ld.start != lf.start)
                fail_msg("0x%" PRIx64 ": stripped %s+0x%" PRIx64 ", .symtab %s+0x%" PRIx64, pc, ld.name, ld.offset,
                         lf.name ? lf.name : "(none)", lf.offset);
            assert_int_equal(ld.offset, lf.offset);
            binary_unwind_name(binary_symbols_function_at(full, (size_t)lf.function)->elf_start, fn, sizeof fn);
            if (strcmp(ld.name, fn) == 0) {
                by_address++;
                continue;
            }
            /* a name from .dynsym is one the full table lists there */
            if (!nm_has(t, binary_symbols_function_at(full, (size_t)lf.function)->elf_start, ld.name))
                fail_msg("0x%" PRIx64 ": .dynsym says %s, .symtab %s", pc, ld.name, lf.name);
            named++;
        }
    }
    assert_true(named > 0);
    assert_true(by_address > 0); /* the local functions */
    assert_true(unknown > 0);    /* zero_size */
    {
        char text[TEXT_MAX], fn[BINARY_UNWIND_NAME_MAX];
        size_t idx;
        assert_int_equal(binary_symbols_find_name(full, "local_helper", &idx, 1), 1);
        binary_unwind_name(binary_symbols_function_at(full, idx)->elf_start, fn, sizeof fn);
        snprintf(fn + strlen(fn), sizeof fn - strlen(fn), "+0x0");
        assert_string_equal(binary_symbols_format(dyn, binary_symbols_function_at(full, idx)->start, text, sizeof text),
                            fn);
    }
    binary_symbols_close(full);
    binary_symbols_close(dyn);
    free(t);
}

static void test_riscv64(void **state)
{
    binary_symbols *s;
    (void)state;
    check_against_nm(TEA_SYMBOLS_RISCV64, TEA_RISCV_NM, 0, BINARY_SYMBOLS_VA_BITS_FULL, 0);
    check_against_nm(TEA_SYMBOLS_RISCV64, TEA_RISCV_NM, 0, SV39_BITS, 0);
    check_special_symbols(TEA_SYMBOLS_RISCV64, 0);
    check_source_lines(TEA_SYMBOLS_RISCV64, TEA_RISCV_ADDR2LINE, 0, SV39_BITS);
    s = open_or_fail(TEA_SYMBOLS_RISCV64);
    assert_string_equal(binary_symbols_arch(s), "riscv64");
    assert_false(binary_symbols_is_position_independent(s));
    binary_symbols_close(s);
}

/* Linked at 0xffffffff80000000 and traced with zero-extended 39-bit PCs:
 * 0xffffffff800000a0 is PC 0x7f800000a0. */
static void test_riscv64_high(void **state)
{
    binary_symbols *s;
    binary_symbols_location loc;
    size_t idx;
    trace_symmap m;
    (void)state;
    check_against_nm(TEA_SYMBOLS_RISCV64_HIGH, TEA_RISCV_NM, 0, SV39_BITS, 0);
    check_source_lines(TEA_SYMBOLS_RISCV64_HIGH, TEA_RISCV_ADDR2LINE, 0, SV39_BITS);
    s = open_or_fail(TEA_SYMBOLS_RISCV64_HIGH);
    assert_int_equal(binary_symbols_set_va_bits(s, SV39_BITS), 0);
    assert_int_equal(binary_symbols_find_name(s, "_start", &idx, 1), 1);
    assert_true(binary_symbols_function_at(s, idx)->elf_start >= HIGH_TEXT);
    assert_int_equal(binary_symbols_function_at(s, idx)->start,
                     binary_symbols_function_at(s, idx)->elf_start & ((1ull << SV39_BITS) - 1));
    binary_symbols_locate(s, binary_symbols_function_at(s, idx)->start + 2, &loc);
    assert_string_equal(loc.name, "_start");
    assert_int_equal(loc.offset, 2);
    /* the sign-extended form is accepted too */
    binary_symbols_locate(s, binary_symbols_function_at(s, idx)->elf_start + 2, &loc);
    assert_string_equal(loc.name, "_start");
    /* the symbol map is in trace PCs */
    assert_int_equal(binary_symbols_symmap(s, 0, &m), 0);
    assert_int_equal(m.count, binary_symbols_count(s));
    assert_true(trace_symmap_find(&m, binary_symbols_function_at(s, idx)->start + 2) >= 0);
    assert_string_equal(m.entries[trace_symmap_find(&m, binary_symbols_function_at(s, idx)->start + 2)].name, "_start");
    trace_symmap_free(&m);
    /* widths out of range */
    assert_int_equal(binary_symbols_set_va_bits(s, 12), TEA_ERR_USAGE);
    assert_int_equal(binary_symbols_set_va_bits(s, 65), TEA_ERR_USAGE);
    binary_symbols_close(s);
}

/* Symbol maps: sorted, disjoint; with gaps, the whole of .text covered. */
static void test_symmap(void **state)
{
    const char *prog = have_x86() ? TEA_SYMBOLS_X86_64_PIE : TEA_SYMBOLS_RISCV64;
    binary_symbols *s = open_or_fail(prog);
    trace_symmap plain, gaps;
    size_t functions_in_gaps = 0;
    (void)state;
    binary_symbols_set_bias(s, PIE_BIAS);
    assert_int_equal(binary_symbols_symmap(s, 0, &plain), 0);
    assert_int_equal(binary_symbols_symmap(s, BINARY_SYMBOLS_MAP_SECTION_GAPS, &gaps), 0);
    assert_int_equal(plain.count, binary_symbols_count(s));
    for (size_t i = 0; i < plain.count; i++) {
        const binary_symbols_function *f = binary_symbols_function_at(s, i);
        assert_int_equal(plain.entries[i].start, f->start);
        assert_int_equal(plain.entries[i].end, f->end);
        assert_string_equal(plain.entries[i].name, f->name);
    }
    assert_true(gaps.count > plain.count);
    for (size_t i = 0; i < gaps.count; i++) {
        assert_true(gaps.entries[i].start < gaps.entries[i].end);
        if (i)
            assert_true(gaps.entries[i - 1].end <= gaps.entries[i].start);
        functions_in_gaps += gaps.entries[i].name[0] != '[';
        if (gaps.entries[i].name[0] == '[') {
            /* a gap: no function there, and named after its section */
            binary_symbols_location loc;
            char want[TEXT_MAX];
            binary_symbols_locate(s, gaps.entries[i].start, &loc);
            assert_int_equal(loc.function, -1);
            snprintf(want, sizeof want, "[unknown %s]", loc.section);
            assert_string_equal(gaps.entries[i].name, want);
        }
    }
    assert_int_equal(functions_in_gaps, plain.count);
    trace_symmap_free(&plain);
    trace_symmap_free(&gaps);
    binary_symbols_close(s);
}

/* Files that are no executable. */
static void test_bad_files(void **state)
{
    binary_symbols *s = NULL;
    char *path = test_temp_path("not-elf");
    (void)state;
    assert_int_equal(binary_symbols_open(&s, "/nonexistent/binary"), TEA_ERR_IO);
    assert_contains(error_message(), "/nonexistent/binary");
    test_write_file(path, "hello, world\n", 13);
    assert_int_equal(binary_symbols_open(&s, path), TEA_ERR_FORMAT);
    assert_contains(error_message(), "not an ELF file");
    /* an ELF header cut short */
    {
        uint8_t *data;
        size_t size;
        test_read_file(TEA_SYMBOLS_RISCV64, &data, &size);
        test_write_file(path, data, 40);
        assert_true(binary_symbols_open(&s, path) < 0);
        assert_null(s);
        /* a file cut before its section headers (at its end) */
        test_write_file(path, data, size - 1);
        assert_int_equal(binary_symbols_open(&s, path), TEA_ERR_FORMAT);
        assert_contains(error_message(), "truncated or corrupt");
        free(data);
    }
    free(path);
}

/* --- binary/symbolize: the bias rules ----------------------------------------------------- */

static void info_for(pics_info *info, const char *arch)
{
    pics_info_init(info);
    snprintf(info->scheme, sizeof info->scheme, "golden");
    snprintf(info->program.arch, sizeof info->program.arch, "%s", arch);
}

static void test_symbolize_bias(void **state)
{
    binary_symbolize_options o = { 0 };
    binary_symbolizer *z = NULL;
    pics_info info;
    char text[TEXT_MAX];
    uint64_t main_addr;
    unsigned size;
    nm_table *t = calloc(1, sizeof *t);
    (void)state;
    assert_non_null(t);
    if (!have_x86()) {
        free(t);
        skip();
    }
    read_nm(TEA_NM, TEA_SYMBOLS_X86_64_PIE, t);
    main_addr = 0;
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->sym[i].name, "main") == 0)
            main_addr = t->sym[i].addr;
    assert_true(main_addr != 0);
    o.command = "test";
    o.elf_path = TEA_SYMBOLS_X86_64_PIE;
    info_for(&info, "x86_64");

    /* a PIE without any bias is refused */
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), TEA_ERR_USAGE);
    assert_null(z);
    assert_contains(error_message(), "--adjust-vma");
    assert_contains(error_message(), "position-independent");

    /* --adjust-vma */
    o.adjust_vma = PIE_BIAS;
    o.has_adjust_vma = 1;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_string_equal(binary_symbolize_location(z, PIE_BIAS + main_addr + 1, text, sizeof text), "main+0x1");
    assert_string_equal(binary_symbolize_function(z, PIE_BIAS + main_addr + 1, text, sizeof text), "main");
    binary_symbolize_close(z);

    /* the bias recorded in the trace */
    o.has_adjust_vma = 0;
    info.program.load_bias = PIE_BIAS;
    info.program.has_load_bias = 1;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_string_equal(binary_symbolize_location(z, PIE_BIAS + main_addr, text, sizeof text), "main+0x0");
    assert_int_equal(binary_symbolize_disasm(z, PIE_BIAS + main_addr, text, sizeof text, &size), 0);
    assert_true(size >= 1);
    /* outside the binary: the address */
    assert_string_equal(binary_symbolize_location(z, 0x1234, text, sizeof text), "0x1234");
    assert_string_equal(binary_symbolize_function(z, 0x1234, text, sizeof text), "[unknown]");
    assert_true(binary_symbolize_disasm(z, 0x1234, text, sizeof text, &size) < 0);
    binary_symbolize_close(z);

    /* --adjust-vma wins over the recorded bias */
    o.adjust_vma = 0;
    o.has_adjust_vma = 1;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_string_equal(binary_symbolize_location(z, main_addr, text, sizeof text), "main+0x0");
    binary_symbolize_close(z);

    /* a binary at fixed addresses needs no bias */
    info.program.has_load_bias = 0;
    o.has_adjust_vma = 0;
    o.elf_path = TEA_SYMBOLS_X86_64;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_non_null(binary_symbolize_symbols(z));
    binary_symbolize_close(z);

    /* no --elf: the recorded binary when it exists, else addresses only */
    o.elf_path = NULL;
    info.program.binary_path = strdup(TEA_SYMBOLS_X86_64);
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_string_equal(binary_symbolize_binary(z), TEA_SYMBOLS_X86_64);
    binary_symbolize_close(z);
    free(info.program.binary_path);
    info.program.binary_path = strdup("/nonexistent/program");
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_null(binary_symbolize_binary(z));
    assert_string_equal(binary_symbolize_location(z, 0x401000, text, sizeof text), "0x401000");
    assert_int_equal(binary_symbolize_source(z, 0x401000, text, sizeof text), 0);
    binary_symbolize_close(z);

    /* an --elf that cannot be read */
    o.elf_path = "/nonexistent/binary";
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), TEA_ERR_IO);
    pics_info_free(&info);
    free(t);
}

/* Source lines through the glue, and the RISC-V width from the PICS's
 * architecture. */
static void test_symbolize_riscv(void **state)
{
    binary_symbolize_options o = { 0 };
    binary_symbolizer *z = NULL;
    pics_info info;
    char text[TEXT_MAX];
    size_t idx;
    unsigned size;
    const binary_symbols_function *f;
    (void)state;
    info_for(&info, "riscv64");
    o.command = "test";
    o.elf_path = TEA_SYMBOLS_RISCV64_HIGH;
    o.source = 1;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_int_equal(binary_symbols_find_name(binary_symbolize_symbols(z), "zero_size", &idx, 1), 1);
    f = binary_symbols_function_at(binary_symbolize_symbols(z), idx);
    assert_true(f->start < (1ull << SV39_BITS)); /* zero-extended */
    assert_string_equal(binary_symbolize_location(z, f->start, text, sizeof text), "zero_size+0x0");
    assert_int_equal(binary_symbolize_disasm(z, f->start, text, sizeof text, &size), 0);
    assert_string_equal(text, "c.nop");
    assert_int_equal(size, 2);
    assert_int_equal(binary_symbols_find_name(binary_symbolize_symbols(z), "real_function", &idx, 1), 1);
    f = binary_symbols_function_at(binary_symbolize_symbols(z), idx);
    assert_int_equal(binary_symbolize_source(z, f->start, text, sizeof text), 1);
    assert_contains(text, "symbols_prog.c:");
    binary_symbolize_close(z);
    pics_info_free(&info);
}

/* --- binary/symbolize: the trace's objects ------------------------------------------------ */

/* Where the RISC-V test library is "loaded" in the object tests, and a
 * missing library and another build of the library. */
#define LIB_BIAS 0x3fd0000000ull
#define GONE_BIAS 0x3fe0000000ull
#define GONE_SIZE 0x1000ull
#define OTHER_BIAS 0x3ff0000000ull
#define MAIN_SPAN 0x10000ull
#define RAND_OFFSET 4

/* Lists an object in `info` (build_id: hex, NULL when not recorded). */
static void list_object(pics_info *info, const char *path, const char *build_id, uint64_t start, uint64_t end,
                        uint64_t bias)
{
    trace_object o = { .path = path, .start = start, .end = end, .load_bias = bias };
    for (; build_id && build_id[0] && build_id[1]; build_id += 2) {
        unsigned byte;
        assert_int_equal(sscanf(build_id, "%2x", &byte), 1);
        o.build_id[o.build_id_len++] = (uint8_t)byte;
    }
    assert_int_equal(trace_object_list_add(&info->objects, &o), 0);
}

/* The ELF address of `name` in `path` and the file's first executable
 * section (ELF addresses), its build-id into `id`. */
static uint64_t elf_symbol(const char *path, const char *name, binary_symbols_code *text, char *id, size_t size)
{
    binary_symbols *s = open_or_fail(path);
    size_t idx;
    uint64_t start;
    assert_int_equal(binary_symbols_find_name(s, name, &idx, 1), 1);
    start = binary_symbols_function_at(s, idx)->start;
    assert_true(binary_symbols_code_sections(s, text, 1) >= 1);
    assert_non_null(binary_symbols_build_id(s));
    snprintf(id, size, "%s", binary_symbols_build_id(s));
    binary_symbols_close(s);
    text->data = NULL; /* the file is closed */
    return start;
}

/* The RISC-V PLT program (its function plt_work as `main_elf`) and its
 * library as a recorded trace lists them:
 * the executable, the library at LIB_BIAS, a library that is gone and one
 * whose build-id is not the file's. */
static void objects_info(pics_info *info, int with_binary, binary_symbols_code *lib_text, uint64_t *rand_elf,
                         uint64_t *main_elf)
{
    char lib_id[TEXT_MAX], main_id[TEXT_MAX];
    binary_symbols_code main_text;
    *rand_elf = elf_symbol(TEA_PLT_RISCV64_LIB, "rand", lib_text, lib_id, sizeof lib_id);
    *main_elf = elf_symbol(TEA_PLT_RISCV64, "plt_work", &main_text, main_id, sizeof main_id);
    info_for(info, "riscv64");
    if (with_binary) {
        assert_non_null(info->program.binary_path = strdup(TEA_PLT_RISCV64));
        info->program.load_bias = PIE_BIAS_SV39;
        info->program.has_load_bias = 1;
    }
    list_object(info, TEA_PLT_RISCV64, main_id, PIE_BIAS_SV39, PIE_BIAS_SV39 + MAIN_SPAN, PIE_BIAS_SV39);
    list_object(info, TEA_PLT_RISCV64_LIB, lib_id, LIB_BIAS + lib_text->addr,
                LIB_BIAS + lib_text->addr + lib_text->size, LIB_BIAS);
    list_object(info, "/nonexistent/libgone.so.1", NULL, GONE_BIAS, GONE_BIAS + GONE_SIZE, GONE_BIAS);
    list_object(info, TEA_PLT_RISCV64_LIB, "0badc0de", OTHER_BIAS + lib_text->addr,
                OTHER_BIAS + lib_text->addr + lib_text->size, OTHER_BIAS);
}

/* The names, map and addresses of PCs in each kind of listed object. */
static void check_objects(binary_symbolizer *z, const binary_symbols_code *lib_text, uint64_t rand_elf,
                          uint64_t main_elf)
{
    char text[TEXT_MAX];
    unsigned size;
    trace_symmap m;
    uint64_t in_rand = LIB_BIAS + rand_elf + RAND_OFFSET, in_gone = GONE_BIAS + 0x10;
    long k;
    assert_true(binary_symbolize_has_objects(z));
    /* the library, at its own bias */
    assert_string_equal(binary_symbolize_function(z, in_rand, text, sizeof text), "rand");
    assert_string_equal(binary_symbolize_location(z, in_rand, text, sizeof text), "rand+0x4");
    assert_string_equal(binary_symbolize_object(z, in_rand, text, sizeof text), "libplt_lib.riscv64.so");
    assert_int_equal(binary_symbolize_disasm(z, in_rand, text, sizeof text, &size), 0);
    assert_true(size == 2 || size == 4);
    /* the executable */
    assert_string_equal(binary_symbolize_function(z, PIE_BIAS_SV39 + main_elf, text, sizeof text), "plt_work");
    assert_string_equal(binary_symbolize_object(z, PIE_BIAS_SV39 + main_elf, text, sizeof text), "plt_prog.riscv64");
    /* a file that is gone, and another build: never another file's names */
    assert_string_equal(binary_symbolize_function(z, in_gone, text, sizeof text), "[libgone.so.1]");
    assert_string_equal(binary_symbolize_location(z, in_gone, text, sizeof text), "[libgone.so.1]+0x10");
    assert_string_equal(binary_symbolize_object(z, in_gone, text, sizeof text), "libgone.so.1");
    assert_true(binary_symbolize_disasm(z, in_gone, text, sizeof text, &size) < 0);
    assert_string_equal(binary_symbolize_function(z, OTHER_BIAS + rand_elf, text, sizeof text),
                        "[libplt_lib.riscv64.so]");
    /* outside every object and the binary */
    assert_string_equal(binary_symbolize_function(z, 0x100, text, sizeof text), "[unknown]");
    /* the function map: every object's functions */
    assert_int_equal(binary_symbolize_symmap(z, BINARY_SYMBOLS_MAP_SECTION_GAPS, &m), 0);
    assert_true((k = trace_symmap_find(&m, in_rand)) >= 0);
    assert_string_equal(m.entries[k].name, "rand");
    assert_int_equal(m.entries[k].start, LIB_BIAS + rand_elf);
    assert_true((k = trace_symmap_find(&m, PIE_BIAS_SV39 + main_elf)) >= 0);
    assert_string_equal(m.entries[k].name, "plt_work");
    assert_true((k = trace_symmap_find(&m, in_gone)) >= 0);
    assert_string_equal(m.entries[k].name, "[libgone.so.1]");
    assert_int_equal(m.entries[k].start, GONE_BIAS);
    assert_int_equal(m.entries[k].end, GONE_BIAS + GONE_SIZE);
    assert_true((k = trace_symmap_find(&m, OTHER_BIAS + lib_text->addr)) >= 0);
    assert_string_equal(m.entries[k].name, "[libplt_lib.riscv64.so]");
    for (size_t i = 1; i < m.count; i++)
        assert_true(m.entries[i - 1].end <= m.entries[i].start);
    trace_symmap_free(&m);
}

/* --symbol NAME (binary_symbolize_find) looks in the main binary and every
 * usable listed object: rand in the library at its recorded bias (not in
 * the other build listed), plt_work in the program; an unknown name is
 * TEA_ERR_USAGE naming where it looked. */
static void check_find(binary_symbolizer *z, uint64_t rand_elf, uint64_t main_elf)
{
    binary_symbolize_match m[2];
    size_t n = 0;
    assert_int_equal(binary_symbolize_find(z, "rand", m, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(binary_symbols_path(m[0].syms), TEA_PLT_RISCV64_LIB);
    assert_string_equal(m[0].function->name, "rand");
    assert_int_equal(m[0].function->start, LIB_BIAS + rand_elf);
    assert_false(m[0].clone);
    assert_int_equal(binary_symbolize_find(z, "plt_work", m, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(binary_symbols_path(m[0].syms), TEA_PLT_RISCV64);
    assert_int_equal(m[0].function->start, PIE_BIAS_SV39 + main_elf);
    /* an address inside rand, in whichever object holds it */
    {
        char address[TEXT_MAX];
        snprintf(address, sizeof address, "0x%" PRIx64, (uint64_t)(LIB_BIAS + rand_elf + RAND_OFFSET));
        assert_int_equal(binary_symbolize_find(z, address, m, 2, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(m[0].function->name, "rand");
    }
    assert_int_equal(binary_symbolize_find(z, "no_such_function", m, 2, &n), TEA_ERR_USAGE);
    assert_int_equal(n, 0);
    assert_non_null(strstr(error_message(), "no function 'no_such_function' in "));
    assert_non_null(strstr(error_message(), " of the trace"));
    error_clear();
}

/* A PC in a listed shared library is named, located, disassembled and
 * mapped in that library at its recorded bias, with or without the main
 * binary; a library that is missing or another build is [BASENAME]. */
static void test_symbolize_objects(void **state)
{
    binary_symbolize_options o = { .command = "test" };
    binary_symbolizer *z = NULL;
    binary_symbols_code lib_text;
    uint64_t rand_elf, main_elf;
    pics_info info;
    (void)state;
    for (int with_binary = 1; with_binary >= 0; with_binary--) {
        objects_info(&info, with_binary, &lib_text, &rand_elf, &main_elf);
        assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
        assert_true(with_binary ? binary_symbolize_symbols(z) != NULL : binary_symbolize_symbols(z) == NULL);
        check_objects(z, &lib_text, rand_elf, main_elf);
        check_find(z, rand_elf, main_elf);
        binary_symbolize_close(z);
        pics_info_free(&info);
    }
    /* --elf of a listed library: its own recorded bias, not the program's */
    objects_info(&info, 1, &lib_text, &rand_elf, &main_elf);
    o.elf_path = TEA_PLT_RISCV64_LIB;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_int_equal(binary_symbols_bias(binary_symbolize_symbols(z)), LIB_BIAS);
    check_find(z, rand_elf, main_elf);
    binary_symbolize_close(z);
    pics_info_free(&info);
    o.elf_path = NULL;
    /* --addresses elf: the ELF address within each object */
    objects_info(&info, 1, &lib_text, &rand_elf, &main_elf);
    o.elf_addresses = 1;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    assert_int_equal(binary_symbolize_address(z, LIB_BIAS + rand_elf), rand_elf);
    assert_int_equal(binary_symbolize_address(z, PIE_BIAS_SV39 + main_elf), main_elf);
    assert_int_equal(binary_symbolize_address(z, GONE_BIAS + 0x10), 0x10);
    binary_symbolize_close(z);
    pics_info_free(&info);
}

/* GCC's clone names (binary_symbols_is_clone): the source name followed by
 * .constprop.N, .isra.N, .part.N, .cold (.cold.N) in any combination, or
 * their demangled " [clone ...]" forms; nothing else. */
static void test_clone_names(void **state)
{
    static const char *const clones[][2] = {
        { "chase_loop.constprop.0", "chase_loop" },
        { "f.isra.12", "f" },
        { "f.part.0", "f" },
        { "f.cold", "f" },
        { "f.cold.3", "f" },
        { "f.part.0.constprop.0", "f" },
        { "f.constprop.0.isra.0.cold", "f" },
        { "f.constprop.0.cold", "f.constprop.0" },
        { "foo(int) [clone .constprop.0]", "foo(int)" },
        { "foo(int) [clone .isra.0] [clone .cold]", "foo(int)" },
        { "_Z3fooi.cold", "_Z3fooi" },
    };
    static const char *const others[][2] = {
        { "f", "f" },                  /* the name itself */
        { "f.constprop", "f" },        /* no number */
        { "f.constprop.", "f" },
        { "f.constprop.x", "f" },
        { "f.isra.0x", "f" },
        { "f.coldx", "f" },
        { "f.cold.", "f" },
        { "f.lto_priv.0", "f" },       /* not a clone kind named here */
        { "f.constprop.0", "g" },
        { "fg.constprop.0", "f" },     /* another function's clone */
        { "f_constprop.0", "f" },
        { "f.constprop.0", "" },
        { "foo(int) [clone .cold", "foo(int)" },
        { "foo(int) [clone cold]", "foo(int)" },
        { "f.constprop.0", "f.constprop.0.cold" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof clones / sizeof clones[0]; i++)
        if (!binary_symbols_is_clone(clones[i][0], clones[i][1]))
            fail_msg("%s is a clone of %s", clones[i][0], clones[i][1]);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (binary_symbols_is_clone(others[i][0], others[i][1]))
            fail_msg("%s is no clone of %s", others[i][0], others[i][1]);
}

/* binary_symbolize_parse_offset: the one parser of --adjust-vma (pics report,
 * annotate, diff, plot and tea topdown). */
/* Room for an objdump line with a long C++ name. */
#define OBJDUMP_LINE_MAX 4096

/* Every label objdump -d (-dC when `demangle`) prints for `prog` (only the
 * "NAME@plt" ones when `plt_only`) names the function starting at its
 * address, with the handle showing names demangled or not; objdump's labels
 * of the PLT's header ("NAME@plt-0x10", or the section's name "<.plt>")
 * are skipped. Returns how many labels
 * were checked; *plts, how many of them were PLT stubs. */
static size_t check_objdump_labels(const char *objdump, const char *prog, int demangle, int plt_only, size_t *plts)
{
    char command[TEXT_MAX], line[OBJDUMP_LINE_MAX];
    binary_symbols *s = open_or_fail(prog);
    size_t checked = 0;
    FILE *p;

    *plts = 0;
    binary_symbols_set_demangle(s, demangle);
    snprintf(command, sizeof command, "LC_ALL=C %s -d %s %s", objdump, demangle ? "-C" : "", prog);
    assert_non_null(p = popen(command, "r"));
    while (fgets(line, sizeof line, p)) {
        size_t len = strlen(line);
        char *open = strchr(line, '<'), *end, *name;
        int plt;
        uint64_t addr;
        binary_symbols_location loc;
        if (!open || len < 4 || strcmp(line + len - 3, ">:\n") != 0)
            continue;
        addr = strtoull(line, &end, 16);
        if (end + 1 != open)
            continue;
        line[len - 3] = '\0';
        name = open + 1;
        len = strlen(name);
        plt = len > 4 && strcmp(name + len - 4, "@plt") == 0;
        if (strstr(name, "@plt-") || name[0] == '.' || (plt_only && !plt))
            continue;
        binary_symbols_locate(s, addr, &loc);
        if (!loc.name || loc.offset != 0 || strcmp(loc.name, name) != 0)
            fail_msg("%s: objdump%s names 0x%" PRIx64 " <%s>, the symbolizer %s+0x%" PRIx64, prog,
                     demangle ? " -C" : "", addr, name, loc.name ? loc.name : "(none)", loc.offset);
        checked++;
        *plts += (size_t)plt;
    }
    assert_int_equal(pclose(p), 0);
    binary_symbols_close(s);
    return checked;
}

/* PLT stubs are "NAME@plt" at objdump's addresses: rand@plt in a PIE; an
 * ifunc's stub "*ABS*+0xADDR@plt" and __cxa_finalize@plt (.plt.got) in
 * symbols_prog's; the stub's whole entry is named. */
static void test_plt_x86_64(void **state)
{
    binary_symbols *s;
    size_t plts, idx;
    char text[TEXT_MAX];
    (void)state;
    if (!have_x86())
        skip();
    assert_true(check_objdump_labels(TEA_HOST_OBJDUMP, TEA_PLT_X86_64, 1, 0, &plts) >= 3);
    assert_true(plts >= 1);
    check_objdump_labels(TEA_HOST_OBJDUMP, TEA_SYMBOLS_X86_64_PIE, 1, 1, &plts);
    assert_true(plts >= 2);
    check_objdump_labels(TEA_HOST_OBJDUMP, TEA_SYMBOLS_X86_64_STRIPPED, 1, 1, &plts);
    assert_true(plts >= 2);
    s = open_or_fail(TEA_PLT_X86_64);
    binary_symbols_set_bias(s, PIE_BIAS);
    assert_int_equal(binary_symbols_find_name(s, "rand@plt", &idx, 1), 1);
    assert_int_equal(binary_symbols_function_at(s, idx)->end - binary_symbols_function_at(s, idx)->start, 16);
    assert_string_equal(binary_symbols_format(s, binary_symbols_function_at(s, idx)->start + 15, text, sizeof text),
                        "rand@plt+0xf");
    binary_symbols_close(s);
}

/* RISC-V: the stubs after the PLT's 32-byte header, by their auipc/ld pair. */
static void test_plt_riscv64(void **state)
{
    size_t plts;
    (void)state;
    assert_true(check_objdump_labels(TEA_RISCV_OBJDUMP, TEA_PLT_RISCV64, 1, 0, &plts) >= 3);
    assert_int_equal(plts, 1); /* rand@plt */
}

/* AArch64 PLT stubs, on a binary built once (tests/data/plt_prog.aarch64.txt
 * gives the command and what aarch64-linux-gnu-objdump -d shows): rand@plt
 * at 0x2d0, 16 bytes after the 32-byte PLT0 at 0x2b0, which stays unnamed. */
#define AARCH64_PLT0 0x2b0u
#define AARCH64_RAND_PLT 0x2d0u
#define AARCH64_PLT_WORK 0x2e0u
#define AARCH64_PLT_ENTRY_SIZE 16u
static void test_plt_aarch64(void **state)
{
    binary_symbols *s = open_or_fail(TEA_TEST_DATA "/plt_prog.aarch64");
    binary_symbols_location loc;
    size_t idx;
    (void)state;
    assert_string_equal(binary_symbols_arch(s), "aarch64");
    binary_symbols_locate(s, AARCH64_RAND_PLT, &loc);
    assert_non_null(loc.name);
    assert_string_equal(loc.name, "rand@plt");
    assert_int_equal(loc.offset, 0);
    binary_symbols_locate(s, AARCH64_RAND_PLT + AARCH64_PLT_ENTRY_SIZE - 4, &loc);
    assert_string_equal(loc.name, "rand@plt");
    assert_int_equal(loc.offset, AARCH64_PLT_ENTRY_SIZE - 4);
    binary_symbols_locate(s, AARCH64_PLT0, &loc);
    assert_null(loc.name);
    assert_string_equal(loc.section, ".plt");
    binary_symbols_locate(s, AARCH64_PLT_WORK, &loc);
    assert_string_equal(loc.name, "plt_work");
    assert_int_equal(binary_symbols_find_name(s, "rand@plt", &idx, 1), 1);
    assert_int_equal(binary_symbols_function_at(s, idx)->start, AARCH64_RAND_PLT);
    binary_symbols_close(s);
}

/* C++ names: demangled as objdump -C shows them, mangled as objdump -d;
 * std::vector<int>::push_back found by either name. */
static void test_cxx_demangle(void **state)
{
    static const char push_back[] = "std::vector<int, std::allocator<int> >::push_back(int&&)";
    static const char push_back_mangled[] = "_ZNSt6vectorIiSaIiEE9push_backEOi";
    binary_symbols *s;
    size_t plts, by_name, by_mangled;
    (void)state;
    if (TEA_CXX_X86_64[0] == '\0')
        skip(); /* no C++ compiler */
    assert_true(check_objdump_labels(TEA_HOST_OBJDUMP, TEA_CXX_X86_64, 1, 0, &plts) >= 10);
    assert_true(plts >= 2); /* operator new(unsigned long)@plt, ... */
    assert_true(check_objdump_labels(TEA_HOST_OBJDUMP, TEA_CXX_X86_64, 0, 0, &plts) >= 10);
    s = open_or_fail(TEA_CXX_X86_64);
    assert_int_equal(binary_symbols_find_name(s, push_back, &by_name, 1), 1);
    assert_int_equal(binary_symbols_find_name(s, push_back_mangled, &by_mangled, 1), 1);
    assert_int_equal(by_name, by_mangled);
    assert_string_equal(binary_symbols_function_at(s, by_name)->name, push_back);
    binary_symbols_set_demangle(s, 0);
    assert_string_equal(binary_symbols_function_at(s, by_name)->name, push_back_mangled);
    binary_symbols_set_demangle(s, 1);
    assert_string_equal(binary_symbols_function_at(s, by_name)->name, push_back);
    binary_symbols_close(s);
}

/* Every branch and call target objdump -d prints ("ADDR <NAME>" at the end
 * of an instruction; "#" comments on memory operands are not targets) is
 * what binary_symbolize_disasm shows: "0xADDR <NAME>", ADDR as in the file with
 * elf_addresses, else plus the bias. A target outside every function but in
 * a section is named after the function starting nearest before it, as
 * objdump does (targets_outside counts them), one outside every section is
 * the bare address. Returns how many named targets matched; *two_byte counts
 * those of two-byte instructions (RISC-V compressed branches). */
static size_t targets_outside;

static size_t check_objdump_targets(const char *objdump, const char *prog, uint64_t bias, int elf_addresses,
                                    size_t *two_byte)
{
    char command[TEXT_MAX], line[OBJDUMP_LINE_MAX];
    binary_symbolize_options o;
    pics_info info;
    binary_symbolizer *z;
    size_t named = 0, unnamed = 0;
    FILE *p;

    memset(&o, 0, sizeof o);
    memset(&info, 0, sizeof info);
    o.elf_path = prog;
    o.adjust_vma = bias;
    o.has_adjust_vma = 1;
    o.elf_addresses = elf_addresses;
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &o), 0);
    snprintf(command, sizeof command, "LC_ALL=C %s -d %s", objdump, prog);
    assert_non_null(p = popen(command, "r"));
    while (fgets(line, sizeof line, p)) {
        char *insn, *open, *close, *start, *end, want[OBJDUMP_LINE_MAX], text[BINARY_SYMBOLIZE_TEXT_MAX];
        uint64_t pc, target;
        unsigned size;
        binary_symbols_location loc;
        pc = strtoull(line, &end, 16);
        if (end == line || *end != ':' || strchr(line, '#') || !(insn = strchr(end + 2, '\t'))
            || !(open = strrchr(insn, '<')) || !(close = strchr(open, '>')) || close[1] != '\n' || open[-1] != ' ')
            continue;
        *close = '\0';
        for (start = open - 1; start > insn && !strchr(" \t,", start[-1]); start--)
            ;
        target = strtoull(start, &end, 16);
        if (end != open - 1)
            continue;
        assert_int_equal(binary_symbolize_disasm(z, pc + bias, text, sizeof text, &size), 0);
        binary_symbols_locate(binary_symbolize_symbols(z), target + bias, &loc);
        if (!loc.name && loc.section) {
            /* outside every function: objdump names the symbol before it */
            long before = binary_symbols_preceding(binary_symbolize_symbols(z), target + bias);
            assert_true(before >= 0);
            loc.function = before;
            loc.name = binary_symbols_function_at(binary_symbolize_symbols(z), (size_t)before)->name;
            targets_outside++;
        }
        if (loc.name) {
            /* objdump's NAME[+0xOFF]: NAME may be another alias of the function */
            char *plus = strstr(open + 1, "+0x");
            size_t ids[MAX_NM_SYMBOLS], found;
            int same = 0;
            if (plus)
                *plus = '\0';
            found = binary_symbols_find_name(binary_symbolize_symbols(z), open + 1, ids, MAX_NM_SYMBOLS);
            for (size_t k = 0; k < found && k < MAX_NM_SYMBOLS; k++)
                same |= ids[k] == (size_t)loc.function;
            if (!same)
                fail_msg("%s: 0x%" PRIx64 ": objdump names the target %s, ours %s", prog, pc, open + 1, loc.name);
            if (plus)
                *plus = '+';
            snprintf(want, sizeof want, "0x%" PRIx64 " <%s%s>", elf_addresses ? target : target + bias, loc.name,
                     plus ? plus : "");
        } else {
            snprintf(want, sizeof want, "0x%" PRIx64, elf_addresses ? target : target + bias);
        }
        if (!strstr(text, want) || (!loc.name && strchr(text, '<')))
            fail_msg("%s: 0x%" PRIx64 ": objdump's target %" PRIx64 " <%s>, ours '%s'", prog, pc, target, open + 1,
                     text);
        if (loc.name)
            named++;
        else
            unnamed++;
        *two_byte += size == 2;
    }
    assert_int_equal(pclose(p), 0);
    assert_true(unnamed <= named);
    binary_symbolize_close(z);
    return named;
}

/* Branch and call targets as objdump shows them: x86-64 and RISC-V (with
 * compressed branches, c.j and c.beqz) at fixed addresses, an x86-64 PIE
 * through the PLT at a load bias in both address forms, including a target
 * outside every function (the PLT's header). */
static void test_branch_targets(void **state)
{
    size_t compressed = 0, ignored = 0;
    (void)state;
    assert_true(check_objdump_targets(TEA_RISCV_OBJDUMP, TEA_DISASM_RISCV64, 0, 0, &compressed) >= 10);
    assert_true(check_objdump_targets(TEA_RISCV_OBJDUMP, TEA_SYMBOLS_RISCV64, 0, 0, &compressed) >= 5);
    assert_true(check_objdump_targets(TEA_RISCV_OBJDUMP, TEA_PLT_RISCV64, 0, 0, &compressed) >= 2);
    assert_true(check_objdump_targets(TEA_RISCV_OBJDUMP, TEA_PLT_RISCV64, PIE_BIAS_SV39, 1, &compressed) >= 2);
    assert_true(check_objdump_targets(TEA_RISCV_OBJDUMP, TEA_PLT_RISCV64, PIE_BIAS_SV39, 0, &compressed) >= 2);
    assert_true(compressed >= 5);
    if (!have_x86())
        skip();
    assert_true(check_objdump_targets(TEA_HOST_OBJDUMP, TEA_DISASM_X86_64, 0, 0, &ignored) >= 5);
    targets_outside = 0;
    assert_true(check_objdump_targets(TEA_HOST_OBJDUMP, TEA_PLT_X86_64, PIE_BIAS, 1, &ignored) >= 3);
    assert_true(check_objdump_targets(TEA_HOST_OBJDUMP, TEA_PLT_X86_64, PIE_BIAS, 0, &ignored) >= 3);
    /* the PLT stub's jump to the PLT's header, "<_init+0x20>", in both forms */
    assert_true(targets_outside >= 2);
    if (TEA_CXX_X86_64[0] != '\0')
        assert_true(check_objdump_targets(TEA_HOST_OBJDUMP, TEA_CXX_X86_64, PIE_BIAS, 0, &ignored) >= 10);
}

/* Up to `max` instruction addresses objdump -d lists for `prog`, ascending. */
static size_t objdump_pcs(const char *objdump, const char *prog, uint64_t *pcs, size_t max)
{
    char command[TEXT_MAX], line[OBJDUMP_LINE_MAX];
    size_t n = 0;
    FILE *p;
    snprintf(command, sizeof command, "LC_ALL=C %s -d %s", objdump, prog);
    assert_non_null(p = popen(command, "r"));
    while (fgets(line, sizeof line, p)) {
        char *end;
        uint64_t pc = strtoull(line, &end, 16);
        /* "ADDR:\tBYTES\tINSN"; a long instruction's further bytes follow on
         * lines without the instruction */
        if (end != line && *end == ':' && end[1] == '\t' && strchr(end + 2, '\t') && n < max
            && (n == 0 || pcs[n - 1] < pc))
            pcs[n++] = pc;
    }
    assert_int_equal(pclose(p), 0);
    return n;
}

/* --adjust-vma auto over objdump's instruction addresses moved by a known
 * bias: found for a static binary (0), a PIE at a Sv39 or x86-64 bias, a
 * "kernel" image in the upper half under Sv39; refused for PCs that are no
 * instruction starts and for the wrong binary. */
static void check_guess(const char *objdump, const char *prog, uint64_t bias, unsigned va_bits)
{
    enum { MAX_PCS = 4096 };
    uint64_t *pcs = calloc(MAX_PCS, sizeof *pcs);
    binary_symbols *s = open_or_fail(prog);
    binary_symbolize_bias_guess g;
    size_t n;
    assert_non_null(pcs);
    n = objdump_pcs(objdump, prog, pcs, MAX_PCS);
    assert_true(n >= 16);
    for (size_t i = 0; i < n; i++)
        pcs[i] = trace_pc(pcs[i], bias, va_bits);
    if (binary_symbolize_guess_bias(s, pcs, n, va_bits, &g))
        fail_msg("%s at 0x%" PRIx64 ": %s", prog, bias, error_message());
    assert_int_equal(g.bias, bias);
    assert_true(g.hits * 100 >= g.in_code * BINARY_SYMBOLIZE_BIAS_MIN_PRECISION_PERCENT);
    /* one byte off every PC: no instruction starts there (RISC-V: never
     * at an odd address) */
    if (strcmp(binary_symbols_arch(s), "riscv64") == 0) {
        for (size_t i = 0; i < n; i++)
            pcs[i] += 1;
        assert_int_equal(binary_symbolize_guess_bias(s, pcs, n, va_bits, &g), TEA_ERR_USAGE);
        assert_contains(error_message(), "is it the traced binary?");
    }
    binary_symbols_close(s);
    free(pcs);
}

static void test_guess_bias(void **state)
{
    enum { MAX_PCS = 4096 };
    binary_symbols *s;
    binary_symbolize_bias_guess g;
    uint64_t *pcs;
    size_t n;
    (void)state;
    check_guess(TEA_RISCV_OBJDUMP, TEA_DISASM_RISCV64, 0, SV39_BITS);
    check_guess(TEA_RISCV_OBJDUMP, TEA_PLT_RISCV64, PIE_BIAS_SV39, SV39_BITS);
    check_guess(TEA_RISCV_OBJDUMP, TEA_SYMBOLS_RISCV64_HIGH, 0, SV39_BITS);
    /* no PCs */
    s = open_or_fail(TEA_DISASM_RISCV64);
    assert_int_equal(binary_symbolize_guess_bias(s, NULL, 0, SV39_BITS, &g), TEA_ERR_USAGE);
    binary_symbols_close(s);
    /* the wrong binary: RISC-V PCs of one program against another */
    assert_non_null(pcs = calloc(MAX_PCS, sizeof *pcs));
    n = objdump_pcs(TEA_RISCV_OBJDUMP, TEA_DISASM_RISCV64, pcs, MAX_PCS);
    s = open_or_fail(TEA_SYMBOLS_RISCV64);
    assert_int_equal(binary_symbolize_guess_bias(s, pcs, n, SV39_BITS, &g), TEA_ERR_USAGE);
    binary_symbols_close(s);
    free(pcs);
    if (!have_x86())
        skip();
    check_guess(TEA_HOST_OBJDUMP, TEA_DISASM_X86_64, 0, 48);
    check_guess(TEA_HOST_OBJDUMP, TEA_PLT_X86_64, PIE_BIAS, 48);
    if (TEA_CXX_X86_64[0] != '\0')
        check_guess(TEA_HOST_OBJDUMP, TEA_CXX_X86_64, PIE_BIAS + 0x10000, 48);
}

static void test_parse_offset(void **state)
{
    static const struct {
        const char *text;
        uint64_t value;
    } good[] = {
        { "0", 0 },
        { "4096", 4096 },
        { "0x1000", 0x1000 },
        { "0X1F", 0x1f },
        { "0x555555554000", 0x555555554000ull },
        { "-0x10", 0xfffffffffffffff0ull },
        { "-16", 0xfffffffffffffff0ull },
        { "-0", 0 },
        { "0xffffffffffffffff", UINT64_MAX },
        { "18446744073709551615", UINT64_MAX },
        { "-0xffffffffffffffff", 1 },
    };
    static const char *const bad[] = {
        "", "-", "--1", "-+1", "+1", " 1", "- 1", "0x", "12abc", "0x10 ", "0x1g", "abc", "1.5",
        "0x10000000000000000", "18446744073709551616",
    };
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 7;
        assert_int_equal(binary_symbolize_parse_offset(good[i].text, &v), 0);
        assert_true(v == good[i].value);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 7;
        assert_int_equal(binary_symbolize_parse_offset(bad[i], &v), TEA_ERR_USAGE);
        assert_true(v == 7);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x86_64_fixed),
        cmocka_unit_test(test_x86_64_pie),
        cmocka_unit_test(test_x86_64_stripped),
        cmocka_unit_test(test_x86_64_dynsym),
        cmocka_unit_test(test_riscv64),
        cmocka_unit_test(test_riscv64_high),
        cmocka_unit_test(test_symmap),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_symbolize_bias),
        cmocka_unit_test(test_symbolize_riscv),
        cmocka_unit_test(test_symbolize_objects),
        cmocka_unit_test(test_parse_offset),
        cmocka_unit_test(test_clone_names),
        cmocka_unit_test(test_plt_x86_64),
        cmocka_unit_test(test_plt_riscv64),
        cmocka_unit_test(test_plt_aarch64),
        cmocka_unit_test(test_cxx_demangle),
        cmocka_unit_test(test_branch_targets),
        cmocka_unit_test(test_guess_bias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
