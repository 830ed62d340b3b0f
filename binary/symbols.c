/*
 * symbols.c: ELF function symbols, section contents and DWARF source lines
 * (see symbols.h), through libelf and libdw.
 *
 * The file is mapped read-only (ELF_C_READ_MMAP) and stays open while the
 * handle lives: symbol names and section contents point into it.
 * Internally every range is kept in ELF (link-time) addresses; the bias and
 * the virtual-address width are applied at the interface.
 */
#define _GNU_SOURCE /* strcasestr */
#include "symbols.h"
#include "common/error.h"
#include "common/search.h"
#include "elffile.h"
#include "unwind.h"

#include <assert.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNKNOWN_NAME "[unknown]"
/* Names longer than this are not compared by edit distance (cost). */
#define SUGGEST_MAX_LENGTH 128
/* The smallest edit distance always accepted as "close". */
#define SUGGEST_MIN_DISTANCE 2
/* A name within len / SUGGEST_DISTANCE_DIVISOR edits is close. */
#define SUGGEST_DISTANCE_DIVISOR 4
/* Distance given to substring matches, so they rank first. */
#define SUGGEST_SUBSTRING_DISTANCE 0

/* An allocated section: what PCs can fall into. */
typedef struct section {
    const char *name;
    uint64_t addr, size;       /* [addr, addr + size), ELF addresses */
    const uint8_t *data;       /* the contents, NULL for SHT_NOBITS or unreadable */
    uint64_t data_size;        /* bytes at data (at most size) */
    int executable;            /* SHF_EXECINSTR */
    uint64_t entsize;          /* sh_entsize */
} section;

/* A candidate function symbol before aliases are merged. */
typedef struct candidate {
    uint64_t addr, size;
    const char *name;
    uint64_t section_end;      /* end of its section (ELF address), 0 when unknown */
    unsigned char bind;        /* STB_* */
} candidate;

/* A function in ELF addresses plus its public (trace PC) view. */
typedef struct function {
    uint64_t start, end;       /* ELF addresses */
} function;

/* A name, chosen or alias, and the function it names. */
typedef struct name_entry {
    const char *name;
    size_t function;
} name_entry;

/* One row of the merged DWARF line tables. */
typedef struct line_row {
    uint64_t addr;             /* ELF address */
    const char *file;          /* owned by libdw */
    unsigned line;
    unsigned end_sequence;     /* the first address after a sequence: no line */
    size_t order;              /* position in libdw's tables, for a stable sort */
} line_row;

struct binary_symbols {
    char *path;
    binary_elffile file;       /* the open file */
    Elf *elf;                  /* file.elf */
    Dwarf *dwarf;
    binary_elffile debug;      /* the separate debug file, when found (find_debug_file) */
    Elf *debug_elf;            /* debug.elf, or NULL */
    char *debug_path;
    int elf_type;              /* ET_EXEC, ET_DYN */
    const char *arch;
    char *build_id;
    const char *table;         /* the symbol table the functions came from, or NULL */
    const char *unwind_table;  /* the unwind table that named the rest (fn_HEX), or NULL */
    char table_text[64];       /* what binary_symbols_table shows */
    uint64_t bias;
    unsigned va_bits;
    section *sections;         /* allocated, sorted by address */
    size_t section_count;
    function *ranges;          /* sorted by start, disjoint */
    binary_symbols_function *functions; /* same order: names and trace PCs */
    size_t count;
    name_entry *names;         /* sorted by name, then function */
    size_t name_count;
    const char **mangled;      /* per function: the chosen name as in the file */
    const char **demangled;    /* per function: its demangled form, or NULL when not a C++ name */
    int demangle;              /* functions[].name shows demangled names */
    char **owned;              /* strings this handle allocated: "rand@plt", demangled names */
    size_t owned_count, owned_cap;
    int lines_loaded;          /* 0 not yet, 1 read (maybe empty) */
    line_row *lines;
    size_t line_count;
};

static int oom(void)
{
    return error_set(TEA_ERR_NOMEM, "out of memory");
}

/* Keeps a string the handle allocated, to free it on close; frees it and
 * fails on allocation failure. */
static int keep_string(binary_symbols *s, char *str)
{
    if (s->owned_count == s->owned_cap) {
        size_t cap = s->owned_cap ? 2 * s->owned_cap : 64;
        char **grown = realloc(s->owned, cap * sizeof *grown);
        if (!grown) {
            free(str);
            return oom();
        }
        s->owned = grown;
        s->owned_cap = cap;
    }
    s->owned[s->owned_count++] = str;
    return TEA_OK;
}

/* --- addresses --------------------------------------------------------------- */

/* ELF address -> trace PC (see symbols.h). */
static uint64_t to_trace(const binary_symbols *s, uint64_t elf_addr)
{
    uint64_t a = elf_addr + s->bias;
    if (s->va_bits < BINARY_SYMBOLS_VA_BITS_FULL) {
        uint64_t high = ~0ull << (s->va_bits - 1);
        if ((a & high) == high)
            a &= ~(~0ull << s->va_bits);
    }
    return a;
}

/* Trace PC -> ELF address (see symbols.h). */
static uint64_t to_elf(const binary_symbols *s, uint64_t pc)
{
    if (s->va_bits < BINARY_SYMBOLS_VA_BITS_FULL && pc < (1ull << s->va_bits) && ((pc >> (s->va_bits - 1)) & 1))
        pc |= ~0ull << s->va_bits;
    return pc - s->bias;
}

/* Recomputes the trace PCs of every function after a change of bias or
 * width. */
static void refresh_functions(binary_symbols *s)
{
    for (size_t i = 0; i < s->count; i++) {
        s->functions[i].start = to_trace(s, s->ranges[i].start);
        s->functions[i].end = s->functions[i].start + (s->ranges[i].end - s->ranges[i].start);
        s->functions[i].elf_start = s->ranges[i].start;
    }
}

/* An ELF address looked up in the handle's tables (search.h). */
typedef struct addr_in {
    const binary_symbols *s;
    uint64_t addr;
} addr_in;

static int section_starts_at_or_below(size_t i, const void *ctx)
{
    const addr_in *k = ctx;
    return k->s->sections[i].addr <= k->addr;
}

static int function_ends_at_or_below(size_t i, const void *ctx)
{
    const addr_in *k = ctx;
    return k->s->ranges[i].end <= k->addr;
}

static int function_starts_at_or_below(size_t i, const void *ctx)
{
    const addr_in *k = ctx;
    return k->s->ranges[i].start <= k->addr;
}

static int function_starts_below(size_t i, const void *ctx)
{
    const addr_in *k = ctx;
    return k->s->ranges[i].start < k->addr;
}

static int line_at_or_below(size_t i, const void *ctx)
{
    const addr_in *k = ctx;
    return k->s->lines[i].addr <= k->addr;
}

/* The allocated section holding an ELF address, or NULL. */
static const section *section_of(const binary_symbols *s, uint64_t addr)
{
    addr_in k = { s, addr };
    /* Past the last section starting at or below addr, then backwards: the
     * first that holds it (sections are disjoint in practice, so this is
     * usually the first one looked at). */
    size_t lo = search_lower_bound(s->section_count, section_starts_at_or_below, &k);
    while (lo-- > 0)
        if (addr - s->sections[lo].addr < s->sections[lo].size)
            return &s->sections[lo];
    return NULL;
}

/* The function holding an ELF address: its index, or -1. */
static long function_of(const binary_symbols *s, uint64_t addr)
{
    addr_in k = { s, addr };
    size_t lo = search_lower_bound(s->count, function_ends_at_or_below, &k);
    /* The ranges are sorted and disjoint: the first ending past the
     * address is the only one that can hold it. */
    assert(lo == s->count || s->ranges[lo].end > addr);
    return lo < s->count && s->ranges[lo].start <= addr ? (long)lo : -1;
}

/* --- reading the file ---------------------------------------------------------- */

static const char *arch_of(const GElf_Ehdr *eh)
{
    int is64 = eh->e_ident[EI_CLASS] == ELFCLASS64;
    switch (eh->e_machine) {
    case EM_X86_64:
        return is64 ? "x86_64" : NULL;
    case EM_AARCH64:
        return "aarch64";
    case EM_RISCV:
        return is64 ? "riscv64" : NULL;
    default:
        return NULL;
    }
}

static int compare_sections(const void *a, const void *b)
{
    const section *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

/* Reads the allocated sections (names, ranges, contents). */
static int read_sections(binary_symbols *s)
{
    size_t shstrndx, n = 0, cap = 0;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(s->elf, &shstrndx) != 0)
        return error_set(TEA_ERR_FORMAT, "%s: no section header string table: %s", s->path, elf_errmsg(-1));
    while ((scn = elf_nextscn(s->elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        section *sec;
        if (!gelf_getshdr(scn, &sh))
            return error_set(TEA_ERR_FORMAT, "%s: corrupt section header: %s", s->path, elf_errmsg(-1));
        /* TLS templates (.tbss) overlap the sections after them and hold no PCs. */
        if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0 || ((sh.sh_flags & SHF_TLS) && sh.sh_type == SHT_NOBITS))
            continue;
        if (n == cap) {
            section *grown;
            cap = cap ? 2 * cap : 32;
            if (!(grown = realloc(s->sections, cap * sizeof *grown)))
                return oom();
            s->sections = grown;
        }
        sec = &s->sections[n++];
        sec->name = elf_strptr(s->elf, shstrndx, sh.sh_name);
        if (!sec->name)
            sec->name = "?";
        sec->addr = sh.sh_addr;
        sec->size = sh.sh_size;
        sec->data = NULL;
        sec->data_size = 0;
        sec->executable = (sh.sh_flags & SHF_EXECINSTR) != 0;
        sec->entsize = sh.sh_entsize;
        if (sh.sh_type != SHT_NOBITS && (data = elf_getdata(scn, NULL)) && data->d_buf) {
            sec->data = data->d_buf;
            sec->data_size = data->d_size < sh.sh_size ? data->d_size : sh.sh_size;
        }
    }
    s->section_count = n;
    if (n)
        qsort(s->sections, n, sizeof *s->sections, compare_sections);
    return TEA_OK;
}

/* Preference among symbols at one address (symbols.h): negative when `x` is
 * the better name. */
static int compare_preference(const candidate *x, const candidate *y)
{
    int c;
    size_t lx, ly;
    if ((x->size != 0) != (y->size != 0))
        return x->size ? -1 : 1;
    if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
        return x->bind == STB_GLOBAL ? -1 : 1;
    if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
        return x->bind == STB_WEAK ? 1 : -1;
    lx = strlen(x->name);
    ly = strlen(y->name);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    c = strcmp(x->name, y->name);
    if (c)
        return c;
    /* The same name twice (.symtab duplicates): the larger size. */
    return x->size > y->size ? -1 : x->size < y->size;
}

static int compare_candidates(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return compare_preference(x, y);
}

static int compare_names(const void *a, const void *b)
{
    const name_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->function < y->function ? -1 : x->function > y->function;
}

/* The end of section `index` as an ELF address, 0 when it is not an
 * allocated section. */
static uint64_t section_end(Elf *elf, size_t index)
{
    GElf_Shdr sh;
    Elf_Scn *scn;
    if (index == SHN_UNDEF || index >= SHN_LORESERVE || !(scn = elf_getscn(elf, index)) || !gelf_getshdr(scn, &sh)
        || !(sh.sh_flags & SHF_ALLOC))
        return 0;
    return sh.sh_addr + sh.sh_size;
}

/* Collects the function symbols of the first section of type `type`
 * (SHT_SYMTAB or SHT_DYNSYM) of `elf` (the binary or its debug file). */
static int collect_candidates(Elf *elf, Elf64_Word type, candidate **out, size_t *count)
{
    Elf_Scn *scn = NULL;
    candidate *c = NULL;
    size_t n = 0, cap = 0;

    *out = NULL;
    *count = 0;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t symbols_in_table;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
            continue;
        if (!(data = elf_getdata(scn, NULL)) || sh.sh_entsize == 0)
            break;
        symbols_in_table = sh.sh_size / sh.sh_entsize;
        for (size_t i = 1; i < symbols_in_table; i++) {
            GElf_Sym sym;
            unsigned char kind;
            const char *name;
            if (!gelf_getsym(data, (int)i, &sym))
                break;
            kind = GELF_ST_TYPE(sym.st_info);
            if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF
                || sym.st_shndx == SHN_ABS || sym.st_shndx == SHN_COMMON)
                continue;
            name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (!name || !*name)
                continue;
            if (n == cap) {
                candidate *grown;
                cap = cap ? 2 * cap : 256;
                if (!(grown = realloc(c, cap * sizeof *grown))) {
                    free(c);
                    return oom();
                }
                c = grown;
            }
            c[n].addr = sym.st_value;
            c[n].size = sym.st_size;
            c[n].name = name;
            c[n].bind = GELF_ST_BIND(sym.st_info);
            c[n].section_end = section_end(elf, sym.st_shndx);
            n++;
        }
        break;
    }
    *out = c;
    *count = n;
    return TEA_OK;
}

/* --- PLT stubs -------------------------------------------------------------- */

/* The PLT's first entry on RISC-V (the resolver trampoline) and the size of
 * each entry after it (the psABI's layout, as binutils writes it). */
#define RISCV_PLT_HEADER 32u
#define RISCV_PLT_ENTRY 16u
/* x86-64 PLT entries when the section gives no sh_entsize. */
#define X86_64_PLT_ENTRY 16u
/* x86-64 `jmp *disp32(%rip)`: opcode, ModRM, 32-bit displacement. */
#define X86_64_JMP_RIP_0 0xffu
#define X86_64_JMP_RIP_1 0x25u
#define X86_64_JMP_RIP_SIZE 6u
/* RISC-V opcodes of the PLT's `auipc t3, hi` and `ld t3, lo(t3)`. */
#define RISCV_OPCODE_MASK 0x7fu
#define RISCV_OPCODE_AUIPC 0x17u
#define RISCV_OPCODE_LOAD 0x03u
#define RISCV_FUNCT3_LD 3u
/* AArch64: the PLT's first entry (PLT0) and each entry after it, as binutils
 * writes them without BTI/PAC: `adrp x16, PAGE; ldr x17, [x16, #OFF];
 * add x16, x16, #OFF; br x17`. */
#define AARCH64_PLT_HEADER 32u
#define AARCH64_PLT_ENTRY 16u
#define AARCH64_INSN_SIZE 4u
/* ADRP (bit 31 set, bits 28..24 = 10000) and LDR Xt, [Xn, #imm12 * 8]. */
#define AARCH64_ADRP_MASK 0x9f000000u
#define AARCH64_ADRP 0x90000000u
#define AARCH64_LDR_X_MASK 0xffc00000u
#define AARCH64_LDR_X 0xf9400000u
#define AARCH64_REG_MASK 0x1fu
#define AARCH64_PAGE 0x1000u

/* Room for "*ABS*+0x" and 16 hex digits. */
#define ABS_NAME_MAX 32

/* A GOT slot that a dynamic relocation fills with a symbol's address. */
typedef struct got_slot {
    uint64_t addr;
    const char *name;      /* the dynamic symbol's name, in the file */
} got_slot;

static int compare_slots(const void *a, const void *b)
{
    const got_slot *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The named GOT slots of every dynamic relocation section (SHT_RELA or
 * SHT_REL linked to .dynsym), sorted by address. */
static int collect_got_slots(binary_symbols *s, got_slot **out, size_t *count)
{
    Elf_Scn *scn = NULL;
    got_slot *slots = NULL;
    size_t n = 0, cap = 0;

    *out = NULL;
    *count = 0;
    while ((scn = elf_nextscn(s->elf, scn))) {
        GElf_Shdr sh, symsh;
        Elf_Scn *symscn;
        Elf_Data *data, *symdata;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || sh.sh_entsize == 0
            || !(symscn = elf_getscn(s->elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh)
            || symsh.sh_type != SHT_DYNSYM || !(data = elf_getdata(scn, NULL)) || !(symdata = elf_getdata(symscn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Rela rela;
            GElf_Rel rel;
            GElf_Sym sym;
            uint64_t offset, info;
            const char *name;
            if (sh.sh_type == SHT_RELA) {
                if (!gelf_getrela(data, (int)i, &rela))
                    break;
                offset = rela.r_offset;
                info = rela.r_info;
            } else {
                if (!gelf_getrel(data, (int)i, &rel))
                    break;
                offset = rel.r_offset;
                info = rel.r_info;
            }
            if (GELF_R_SYM(info) == 0 && sh.sh_type == SHT_RELA) {
                /* no symbol (IRELATIVE: an ifunc's resolver): objdump's "*ABS*+0xADDEND" */
                char *abs = malloc(ABS_NAME_MAX);
                if (!abs || (snprintf(abs, ABS_NAME_MAX, "*ABS*+0x%" PRIx64, (uint64_t)rela.r_addend),
                             keep_string(s, abs))) {
                    free(slots);
                    return oom();
                }
                name = abs;
            } else if (GELF_R_SYM(info) == 0 || !gelf_getsym(symdata, (int)GELF_R_SYM(info), &sym)
                       || !(name = elf_strptr(s->elf, symsh.sh_link, sym.st_name)) || !*name) {
                continue;
            }
            if (n == cap) {
                got_slot *grown;
                cap = cap ? 2 * cap : 64;
                if (!(grown = realloc(slots, cap * sizeof *grown))) {
                    free(slots);
                    return oom();
                }
                slots = grown;
            }
            slots[n++] = (got_slot){ offset, name };
        }
    }
    if (n)
        qsort(slots, n, sizeof *slots, compare_slots);
    *out = slots;
    *count = n;
    return TEA_OK;
}

/* A GOT slot's address looked up in the sorted slots (search.h). */
typedef struct slot_key {
    const got_slot *slots;
    uint64_t addr;
} slot_key;

static int slot_below(size_t i, const void *ctx)
{
    const slot_key *k = ctx;
    return k->slots[i].addr < k->addr;
}

/* The name filling the GOT slot at `addr`, or NULL. */
static const char *slot_name(const got_slot *slots, size_t n, uint64_t addr)
{
    slot_key k = { slots, addr };
    size_t lo = search_lower_bound(n, slot_below, &k);
    return lo < n && slots[lo].addr == addr ? slots[lo].name : NULL;
}

/* The GOT slot a PLT entry of `size` bytes at `addr` jumps through, or 0
 * when its code is not the architecture's PLT pattern: x86-64 `jmp
 * *disp32(%rip)` anywhere in the entry (after endbr64 or a bnd prefix);
 * RISC-V `auipc t3, hi; ld t3, lo(t3)` at its start; AArch64 `adrp x16,
 * page; ldr x17, [x16, #off]` at its start. */
static uint64_t plt_entry_slot(const char *arch, uint64_t addr, const uint8_t *p, size_t size)
{
    if (strcmp(arch, "aarch64") == 0 && size >= 2 * AARCH64_INSN_SIZE) {
        uint32_t adrp = le32(p), ldr = le32(p + AARCH64_INSN_SIZE);
        uint64_t imm21, page;
        if ((adrp & AARCH64_ADRP_MASK) != AARCH64_ADRP || (ldr & AARCH64_LDR_X_MASK) != AARCH64_LDR_X
            || ((ldr >> 5) & AARCH64_REG_MASK) != (adrp & AARCH64_REG_MASK))
            return 0;
        /* immhi (bits 23..5) : immlo (bits 30..29), a signed count of pages */
        imm21 = ((uint64_t)((adrp >> 5) & 0x7ffffu) << 2) | ((adrp >> 29) & 3u);
        page = (addr & ~(uint64_t)(AARCH64_PAGE - 1)) + (uint64_t)(((int64_t)(imm21 << 43)) >> 31);
        return page + (uint64_t)((ldr >> 10) & 0xfffu) * sizeof(uint64_t);
    }
    if (strcmp(arch, "x86_64") == 0) {
        for (size_t i = 0; i + X86_64_JMP_RIP_SIZE <= size; i++)
            if (p[i] == X86_64_JMP_RIP_0 && p[i + 1] == X86_64_JMP_RIP_1)
                return addr + i + X86_64_JMP_RIP_SIZE + (uint64_t)(int64_t)(int32_t)le32(p + i + 2);
        return 0;
    }
    if (strcmp(arch, "riscv64") == 0 && size >= 2 * sizeof(uint32_t)) {
        uint32_t hi = le32(p), lo = le32(p + sizeof(uint32_t));
        if ((hi & RISCV_OPCODE_MASK) != RISCV_OPCODE_AUIPC || (lo & RISCV_OPCODE_MASK) != RISCV_OPCODE_LOAD
            || ((lo >> 12) & 7u) != RISCV_FUNCT3_LD)
            return 0;
        return addr + (uint64_t)(int64_t)(int32_t)(hi & 0xfffff000u) + (uint64_t)(int64_t)((int32_t)lo >> 20);
    }
    return 0;
}

/* Adds a candidate "NAME@plt" for every PLT entry whose GOT slot a dynamic
 * relocation names, as objdump's synthetic symbols do: the sections .plt,
 * .plt.sec and .plt.got (x86-64: entries of sh_entsize bytes, or 16) and
 * .plt (RISC-V and AArch64: 16-byte entries after a 32-byte header). Other
 * architectures get none. */
static int add_plt_candidates(binary_symbols *s, candidate **c, size_t *n, size_t *cap)
{
    got_slot *slots;
    size_t slot_count;
    int rc;

    if (!s->arch
        || (strcmp(s->arch, "x86_64") != 0 && strcmp(s->arch, "riscv64") != 0 && strcmp(s->arch, "aarch64") != 0))
        return TEA_OK;
    if ((rc = collect_got_slots(s, &slots, &slot_count)) || slot_count == 0)
        return rc;
    for (size_t i = 0; i < s->section_count && !rc; i++) {
        const section *sec = &s->sections[i];
        int x86 = strcmp(s->arch, "x86_64") == 0, aarch64 = strcmp(s->arch, "aarch64") == 0;
        uint64_t entry = x86 ? X86_64_PLT_ENTRY : aarch64 ? AARCH64_PLT_ENTRY : RISCV_PLT_ENTRY;
        uint64_t first = x86 ? 0 : aarch64 ? AARCH64_PLT_HEADER : RISCV_PLT_HEADER;
        if (!sec->data || !sec->executable
            || (strcmp(sec->name, ".plt") != 0
                && (!x86 || (strcmp(sec->name, ".plt.sec") != 0 && strcmp(sec->name, ".plt.got") != 0))))
            continue;
        if (x86 && sec->entsize)
            entry = sec->entsize;
        for (uint64_t off = first; off + entry <= sec->data_size; off += entry) {
            uint64_t slot = plt_entry_slot(s->arch, sec->addr + off, sec->data + off, (size_t)entry);
            const char *name = slot ? slot_name(slots, slot_count, slot) : NULL;
            char *stub;
            size_t len;
            if (!name)
                continue;
            len = strlen(name) + sizeof "@plt";
            if (!(stub = malloc(len)) || (snprintf(stub, len, "%s@plt", name), (rc = keep_string(s, stub)))) {
                rc = stub ? rc : oom();
                break;
            }
            if (*n == *cap) {
                candidate *grown;
                *cap = *cap ? 2 * *cap : 64;
                if (!(grown = realloc(*c, *cap * sizeof *grown))) {
                    rc = oom();
                    break;
                }
                *c = grown;
            }
            (*c)[(*n)++] = (candidate){ sec->addr + off, entry, stub, sec->addr + sec->size, STB_GLOBAL };
        }
    }
    free(slots);
    return rc;
}

/* --- separate debug files --------------------------------------------------- */

/* Where Debian's -dbgsym packages put debug files; TEA_DEBUG_ROOT overrides
 * it (tests, or debug files unpacked elsewhere). */
#define DEBUG_ROOT_DEFAULT "/usr/lib/debug"
#define DEBUG_ROOT_ENV "TEA_DEBUG_ROOT"
#define DEBUG_PATH_MAX 4096
/* The reflected CRC-32 polynomial of .gnu_debuglink (as zlib's crc32). */
#define DEBUGLINK_CRC_POLY 0xedb88320u
#define CRC_BITS 8

/* The CRC-32 a .gnu_debuglink section records of its debug file. */
static uint32_t debuglink_crc(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < CRC_BITS; b++)
            crc = (crc >> 1) ^ (DEBUGLINK_CRC_POLY & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* Opens `path` as the debug file when it is one of this binary: the same
 * build-id, or, for a binary without one, the CRC its .gnu_debuglink
 * records (has_crc). Returns 1 when taken, 0 when not (absent, another
 * binary's), TEA_ERR_NOMEM. */
static int try_debug_file(binary_symbols *s, const char *path, int has_crc, uint32_t crc)
{
    char *id = NULL;
    size_t size = 0;
    const char *bytes;
    int match;
    if (access(path, R_OK) != 0 || binary_elffile_open(&s->debug, path)) {
        error_clear();
        return 0;
    }
    if (elf_kind(s->debug.elf) != ELF_K_ELF || binary_elffile_build_id(s->debug.elf, &id)) {
        binary_elffile_close(&s->debug);
        error_clear();
        return 0;
    }
    if (s->build_id)
        match = id && strcmp(id, s->build_id) == 0;
    else
        match = has_crc && (bytes = elf_rawfile(s->debug.elf, &size)) && debuglink_crc((const unsigned char *)bytes, size) == crc;
    free(id);
    if (!match) {
        binary_elffile_close(&s->debug);
        return 0;
    }
    if (!(s->debug_path = strdup(path))) {
        binary_elffile_close(&s->debug);
        return oom();
    }
    s->debug_elf = s->debug.elf;
    return 1;
}

/* The file name and CRC of the binary's .gnu_debuglink section, if any. */
static const char *debuglink(const binary_symbols *s, uint32_t *crc)
{
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    if (elf_getshdrstrndx(s->elf, &shstrndx) != 0)
        return NULL;
    while ((scn = elf_nextscn(s->elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        const char *name;
        size_t len, crc_at;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(s->elf, shstrndx, sh.sh_name))
            || strcmp(name, ".gnu_debuglink") != 0 || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
            continue;
        len = strnlen(data->d_buf, data->d_size);
        /* the name, its NUL, padding to 4 bytes, then the CRC (little-endian) */
        crc_at = (len + sizeof(uint32_t)) & ~(sizeof(uint32_t) - 1);
        if (len == 0 || crc_at + sizeof(uint32_t) > data->d_size)
            return NULL;
        *crc = le32((const uint8_t *)data->d_buf + crc_at);
        return data->d_buf;
    }
    return NULL;
}

#define BUILD_ID_MAX_BYTES 64

/* Asks the debuginfod servers DEBUGINFOD_URLS names for the debug file of
 * the binary's build-id (libdebuginfod, with its cache): only when the
 * variable is set, so no request is ever made otherwise. Returns 1 when
 * one was found and taken, 0 when not, TEA_ERR_NOMEM. */
static int fetch_debug_file(binary_symbols *s)
{
    const char *urls = getenv(BINARY_SYMBOLS_DEBUGINFOD_URLS_ENV);
    unsigned char id[BUILD_ID_MAX_BYTES];
    size_t len = s->build_id ? strlen(s->build_id) / 2 : 0;
    debuginfod_client *client;
    char *path = NULL;
    int fd, rc = 0;

    if (!urls || !*urls || len == 0 || len > sizeof id)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned byte;
        if (sscanf(s->build_id + 2 * i, "%2x", &byte) != 1)
            return 0;
        id[i] = (unsigned char)byte;
    }
    if (!(client = debuginfod_begin()))
        return 0;
    fd = debuginfod_find_debuginfo(client, id, (int)len, &path);
    if (fd >= 0) {
        close(fd);
        rc = try_debug_file(s, path, 0, 0);
    }
    free(path);
    debuginfod_end(client);
    return rc;
}

/* Finds the separate debug file of a binary, as gdb and libdw do: by
 * build-id under the debug root (ROOT/.build-id/xx/yyyy.debug), else by
 * .gnu_debuglink next to the binary, in its .debug/ directory and under the
 * root, else from the debuginfod servers DEBUGINFOD_URLS names. Only
 * symbols and DWARF come from it; code from the binary. */
static int find_debug_file(binary_symbols *s)
{
    const char *root = getenv(DEBUG_ROOT_ENV), *link;
    char path[DEBUG_PATH_MAX], dir[DEBUG_PATH_MAX];
    uint32_t crc = 0;
    char *slash;
    int rc;

    if (!root || !*root)
        root = DEBUG_ROOT_DEFAULT;
    if (s->build_id && strlen(s->build_id) > 2) {
        int len = snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug", root, s->build_id, s->build_id + 2);
        if (len > 0 && (size_t)len < sizeof path && (rc = try_debug_file(s, path, 0, 0)))
            return rc < 0 ? rc : TEA_OK;
    }
    if (!(link = debuglink(s, &crc)))
        return (rc = fetch_debug_file(s)) < 0 ? rc : TEA_OK;
    if (!realpath(s->path, dir))
        snprintf(dir, sizeof dir, "%s", s->path);
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    {
        /* DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME */
        const char *prefix[] = { "", "", root }, *middle[] = { "/", "/.debug/", "/" };
        for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++) {
            int len = snprintf(path, sizeof path, "%s%s%s%s", prefix[i], dir, middle[i], link);
            if (len < 0 || (size_t)len >= sizeof path)
                continue;
            if ((rc = try_debug_file(s, path, 1, crc)))
                return rc < 0 ? rc : TEA_OK;
        }
    }
    return (rc = fetch_debug_file(s)) < 0 ? rc : TEA_OK;
}

/* --- C++ names ---------------------------------------------------------------- */

/* libstdc++'s demangler (the C++ ABI's abi::__cxa_demangle, declared here
 * since this is C): a malloc'd demangled name, or NULL with *status set. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *length, int *status);

/* The Itanium C++ ABI's prefix of mangled names. */
#define MANGLED_PREFIX "_Z"
/* The suffix of PLT stub names (add_plt_candidates). */
#define PLT_SUFFIX "@plt"

/* The demangled form of `name` (kept by the handle), or NULL when it is not
 * a mangled C++ name; a "NAME@plt" stub demangles NAME. Returns 0 or
 * TEA_ERR_NOMEM. */
static int demangle_name(binary_symbols *s, const char *name, const char **out)
{
    size_t len = strlen(name), suffix = sizeof PLT_SUFFIX - 1;
    int plt = len > suffix && strcmp(name + len - suffix, PLT_SUFFIX) == 0, status = 0;
    char *base, *plain, *text;

    *out = NULL;
    if (strncmp(name, MANGLED_PREFIX, sizeof MANGLED_PREFIX - 1) != 0)
        return TEA_OK;
    if (!(base = strndup(name, plt ? len - suffix : len)))
        return oom();
    plain = __cxa_demangle(base, NULL, NULL, &status);
    free(base);
    if (!plain)
        return TEA_OK; /* not a valid mangled name (or out of memory: shown mangled) */
    if (plt) {
        size_t size = strlen(plain) + sizeof PLT_SUFFIX;
        text = malloc(size);
        if (text)
            snprintf(text, size, "%s%s", plain, PLT_SUFFIX);
        free(plain);
        if (!text)
            return oom();
    } else {
        text = plain;
    }
    if (keep_string(s, text))
        return TEA_ERR_NOMEM;
    *out = text;
    return TEA_OK;
}

/* --- functions from the unwind tables ---------------------------------------- */

/* True when ELF address `addr` lies in a PLT section (.plt, .plt.sec,
 * .plt.got): linker stubs, which get NAME@plt functions or none, never a
 * function of their own from the PLT's FDE. */
static int in_plt(const binary_symbols *s, uint64_t addr)
{
    const section *sec = section_of(s, addr);
    return sec && strncmp(sec->name, ".plt", sizeof ".plt" - 1) == 0;
}

/* Adds a candidate named "fn_HEX" for every FDE whose start no candidate
 * covers (a symbol's address, or inside a sized symbol): the functions of
 * a stripped object that no symbol names (unwind.h). The candidates are
 * sorted on return. */
static int add_unwind_candidates(binary_symbols *s, candidate **c, size_t *n, size_t *cap)
{
    binary_unwind_range *fde = NULL;
    size_t count = 0, covering = 0, symbols = *n;
    uint64_t reach = 0; /* the furthest end of a sized symbol so far */
    int rc;

    qsort(*c, *n, sizeof **c, compare_candidates);
    if ((rc = binary_unwind_ranges(s->elf, &fde, &count, &s->unwind_table)))
        return rc;
    if (count == 0 && s->debug_elf && (rc = binary_unwind_ranges(s->debug_elf, &fde, &count, &s->unwind_table)))
        return rc;
    for (size_t i = 0; i < count && rc == TEA_OK; i++) {
        char name[BINARY_UNWIND_NAME_MAX], *copy;
        /* fold in the symbols starting at or before this FDE: the furthest
         * end of a sized one, and whether the last starts right here */
        for (; covering < symbols && (*c)[covering].addr <= fde[i].start; covering++) {
            const candidate *x = &(*c)[covering];
            if (x->size && x->addr + x->size > reach)
                reach = x->addr + x->size < x->addr ? UINT64_MAX : x->addr + x->size;
        }
        if (fde[i].start < reach || (covering && (*c)[covering - 1].addr == fde[i].start)
            || in_plt(s, fde[i].start))
            continue;
        binary_unwind_name(fde[i].start, name, sizeof name);
        if (!(copy = strdup(name)) || (rc = keep_string(s, copy))) {
            rc = copy ? rc : oom();
            break;
        }
        if (*n == *cap) {
            candidate *grown;
            *cap = *cap ? 2 * *cap : 256;
            if (!(grown = realloc(*c, *cap * sizeof *grown))) {
                rc = oom();
                break;
            }
            *c = grown;
        }
        (*c)[(*n)++] = (candidate){ fde[i].start, fde[i].end - fde[i].start, copy, 0, STB_LOCAL };
    }
    free(fde);
    if (*n > symbols) {
        qsort(*c, *n, sizeof **c, compare_candidates);
        snprintf(s->table_text, sizeof s->table_text, "%s%s%s", s->table ? s->table : "", s->table ? " and " : "",
                 s->unwind_table);
    } else {
        s->unwind_table = NULL; /* it named nothing */
    }
    return rc;
}

/* The mark of a symbol version in a name: "pthread_mutex_lock@@GLIBC_2.2.5"
 * (the default version), "memcpy@GLIBC_2.2.5" (an older one). */
#define VERSION_MARK '@'

/* Drops the symbol version from every candidate's name (symbols.h): one
 * rule for every view. */
static int drop_versions(binary_symbols *s, candidate *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *at = strchr(c[i].name, VERSION_MARK);
        char *plain;
        int rc;
        if (!at || at == c[i].name)
            continue;
        if (!(plain = strndup(c[i].name, (size_t)(at - c[i].name))))
            return oom();
        if ((rc = keep_string(s, plain)))
            return rc;
        c[i].name = plain;
    }
    return TEA_OK;
}

/* Reads the functions: merges aliases, computes the ranges, indexes the
 * names. */
static int read_functions(binary_symbols *s)
{
    candidate *c = NULL;
    size_t n = 0, groups = 0, cap;
    int rc;

    if ((rc = collect_candidates(s->elf, SHT_SYMTAB, &c, &n)))
        return rc;
    s->table = ".symtab";
    if (n == 0 && s->debug_elf) {
        free(c);
        if ((rc = collect_candidates(s->debug_elf, SHT_SYMTAB, &c, &n)))
            return rc;
        s->table = ".symtab of the debug file";
    }
    if (n == 0) {
        free(c);
        if ((rc = collect_candidates(s->elf, SHT_DYNSYM, &c, &n)))
            return rc;
        s->table = ".dynsym";
    }
    if (n == 0)
        s->table = NULL;
    if ((rc = drop_versions(s, c, n))) {
        free(c);
        return rc;
    }
    cap = n;
    if ((rc = add_plt_candidates(s, &c, &n, &cap)) || (rc = add_unwind_candidates(s, &c, &n, &cap))) {
        free(c);
        return rc;
    }
    if (n == 0) {
        free(c);
        return TEA_OK;
    }
    qsort(c, n, sizeof *c, compare_candidates);
    for (size_t i = 0; i < n; i++)
        groups += i == 0 || c[i].addr != c[i - 1].addr;
    s->ranges = malloc(groups * sizeof *s->ranges);
    s->functions = malloc(groups * sizeof *s->functions);
    s->names = malloc((n + groups) * sizeof *s->names); /* every name, and each demangled one */
    s->mangled = malloc(groups * sizeof *s->mangled);
    s->demangled = calloc(groups, sizeof *s->demangled);
    if (!s->ranges || !s->functions || !s->names || !s->mangled || !s->demangled) {
        free(c);
        return oom();
    }
    for (size_t i = 0, g = 0; i < n; g++) {
        size_t first = i;
        const candidate *best = &c[first];
        uint64_t next, end;
        for (; i < n && c[i].addr == best->addr; i++) {
            s->names[s->name_count].name = c[i].name;
            s->names[s->name_count++].function = g;
        }
        next = i < n ? c[i].addr : UINT64_MAX;
        if (best->size) {
            end = best->addr + best->size < best->addr ? UINT64_MAX : best->addr + best->size;
            if (end > next)
                end = next;
        } else {
            end = next;
            if (best->section_end > best->addr && best->section_end < end)
                end = best->section_end;
            if (end == UINT64_MAX && best->section_end <= best->addr && best->addr < UINT64_MAX)
                end = best->addr + 1; /* the last symbol, outside any section: its own address only */
        }
        s->ranges[g].start = best->addr;
        s->ranges[g].end = end;
        /* Ranges are disjoint and sorted, by start and by end: function_of searches them. */
        assert(g == 0 || s->ranges[g - 1].end <= s->ranges[g].start);
        s->mangled[g] = best->name;
    }
    s->count = groups;
    free(c);
    assert(s->name_count == n); /* every symbol names its group */
    for (size_t g = 0; g < groups; g++) {
        if ((rc = demangle_name(s, s->mangled[g], &s->demangled[g])))
            return rc;
        if (s->demangled[g]) {
            s->names[s->name_count].name = s->demangled[g];
            s->names[s->name_count++].function = g;
        }
    }
    assert(s->name_count <= n + groups); /* the room allocated: one demangled name per group */
    s->demangle = 1;
    for (size_t g = 0; g < groups; g++)
        s->functions[g].name = s->demangled[g] ? s->demangled[g] : s->mangled[g];
    qsort(s->names, s->name_count, sizeof *s->names, compare_names);
    refresh_functions(s);
    return TEA_OK;
}

int binary_symbols_open(binary_symbols **out, const char *path)
{
    binary_symbols *s;
    GElf_Ehdr eh;
    int rc = TEA_OK;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(path != NULL);
    *out = NULL;
    if (!(s = calloc(1, sizeof *s)))
        return oom();
    s->file.fd = -1;
    s->debug.fd = -1;
    s->va_bits = BINARY_SYMBOLS_VA_BITS_FULL;
    if (!(s->path = strdup(path))) {
        rc = oom();
        goto fail;
    }
    if ((rc = binary_elffile_open(&s->file, path)))
        goto fail;
    s->elf = s->file.elf;
    if (elf_kind(s->elf) == ELF_K_AR) {
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: an archive, not an executable or shared object", path);
        goto fail;
    }
    if (elf_kind(s->elf) != ELF_K_ELF || !gelf_getehdr(s->elf, &eh)) {
        rc = error_set(TEA_ERR_FORMAT, "%s: not an ELF file", path);
        goto fail;
    }
    s->elf_type = eh.e_type;
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: ELF type %u is not an executable or shared object%s", path,
                       (unsigned)eh.e_type, eh.e_type == ET_REL ? " (a relocatable object: link it first)" : "");
        goto fail;
    }
    {
        /* libelf reads a file cut short before its section headers as one
         * without sections: say what is wrong instead */
        size_t file_size = 0, headers = eh.e_shnum ? eh.e_shnum : 1;
        elf_rawfile(s->elf, &file_size);
        if (eh.e_shoff && (eh.e_shoff > file_size || headers * eh.e_shentsize > file_size - eh.e_shoff)) {
            rc = error_set(TEA_ERR_FORMAT,
                           "%s: truncated or corrupt: its section headers (from byte %" PRIu64
                           ") extend past the end of the file (%zu bytes)",
                           path, (uint64_t)eh.e_shoff, file_size);
            goto fail;
        }
    }
    s->arch = arch_of(&eh);
    if ((rc = read_sections(s)) || (rc = binary_elffile_build_id(s->elf, &s->build_id)) || (rc = find_debug_file(s))
        || (rc = read_functions(s)))
        goto fail;
    *out = s;
    return TEA_OK;
fail:
    binary_symbols_close(s);
    return rc;
}

void binary_symbols_close(binary_symbols *s)
{
    if (!s)
        return;
    if (s->dwarf)
        dwarf_end(s->dwarf);
    binary_elffile_close(&s->debug);
    free(s->debug_path);
    binary_elffile_close(&s->file);
    free(s->path);
    free(s->build_id);
    free(s->sections);
    free(s->ranges);
    free(s->functions);
    free(s->names);
    free(s->mangled);
    free(s->demangled);
    for (size_t i = 0; i < s->owned_count; i++)
        free(s->owned[i]);
    free(s->owned);
    free(s->lines);
    free(s);
}

/* --- accessors ------------------------------------------------------------------ */

const char *binary_symbols_path(const binary_symbols *s)
{
    return s->path;
}

const char *binary_symbols_arch(const binary_symbols *s)
{
    return s->arch;
}

const char *binary_symbols_build_id(const binary_symbols *s)
{
    return s->build_id;
}

int binary_symbols_is_position_independent(const binary_symbols *s)
{
    return s->elf_type == ET_DYN;
}

const char *binary_symbols_table(const binary_symbols *s)
{
    return s->unwind_table ? s->table_text : s->table;
}

int binary_symbols_needs_debug_file(const binary_symbols *s)
{
    int has_symtab = s->table && strncmp(s->table, ".symtab", sizeof ".symtab" - 1) == 0;
    return !has_symtab && s->unwind_table != NULL;
}

void binary_symbols_set_bias(binary_symbols *s, uint64_t bias)
{
    s->bias = bias;
    refresh_functions(s);
}

uint64_t binary_symbols_bias(const binary_symbols *s)
{
    return s->bias;
}

int binary_symbols_set_va_bits(binary_symbols *s, unsigned bits)
{
    if (bits < BINARY_SYMBOLS_VA_BITS_MIN || bits > BINARY_SYMBOLS_VA_BITS_FULL)
        return error_set(TEA_ERR_USAGE, "virtual-address width %u outside %d..%d bits", bits,
                         BINARY_SYMBOLS_VA_BITS_MIN, BINARY_SYMBOLS_VA_BITS_FULL);
    s->va_bits = bits;
    refresh_functions(s);
    return TEA_OK;
}

size_t binary_symbols_count(const binary_symbols *s)
{
    return s->count;
}

const binary_symbols_function *binary_symbols_function_at(const binary_symbols *s, size_t index)
{
    return index < s->count ? &s->functions[index] : NULL;
}

/* --- lookups -------------------------------------------------------------------- */

long binary_symbols_preceding(const binary_symbols *s, uint64_t pc)
{
    addr_in k = { s, to_elf(s, pc) };
    return (long)search_lower_bound(s->count, function_starts_at_or_below, &k) - 1;
}

void binary_symbols_locate(const binary_symbols *s, uint64_t pc, binary_symbols_location *loc)
{
    uint64_t addr = to_elf(s, pc);
    long f = function_of(s, addr);
    const section *sec = section_of(s, addr);

    memset(loc, 0, sizeof *loc);
    loc->function = f;
    loc->section = sec ? sec->name : NULL;
    if (f >= 0) {
        assert(addr - s->ranges[f].start < s->ranges[f].end - s->ranges[f].start); /* its range holds the PC */
        loc->name = s->functions[f].name;
        loc->start = s->functions[f].start;
        loc->offset = addr - s->ranges[f].start;
    }
}

char *binary_symbols_format(const binary_symbols *s, uint64_t pc, char *buf, size_t size)
{
    binary_symbols_location loc;
    binary_symbols_locate(s, pc, &loc);
    if (loc.name)
        snprintf(buf, size, "%s+0x%" PRIx64, loc.name, loc.offset);
    else if (loc.section)
        snprintf(buf, size, "[unknown %s]", loc.section);
    else
        snprintf(buf, size, "%s", UNKNOWN_NAME);
    return buf;
}

/* A name looked up in the sorted names (search.h). */
typedef struct name_key {
    const binary_symbols *s;
    const char *name;
} name_key;

static int name_below(size_t i, const void *ctx)
{
    const name_key *k = ctx;
    return strcmp(k->s->names[i].name, k->name) < 0;
}

size_t binary_symbols_find_name(const binary_symbols *s, const char *name, size_t *out, size_t max)
{
    name_key k = { s, name };
    size_t lo = search_lower_bound(s->name_count, name_below, &k), found = 0;
    /* Entries of one name are sorted by function, but a function may carry
     * the same name twice (a duplicate symbol): count it once. */
    for (size_t i = lo; i < s->name_count && strcmp(s->names[i].name, name) == 0; i++) {
        if (i > lo && s->names[i].function == s->names[i - 1].function)
            continue;
        if (found < max)
            out[found] = s->names[i].function;
        found++;
    }
    return found;
}

/* GCC's clone suffixes (symbols.h): the kinds that carry a number, and the
 * one whose number is optional. */
static const char *const CLONE_NUMBERED[] = { "constprop", "isra", "part" };
#define CLONE_COLD "cold"
/* How __cxa_demangle writes a clone suffix: " [clone .constprop.0]". */
#define CLONE_DEMANGLED_OPEN " [clone "
#define CLONE_DEMANGLED_CLOSE ']'

/* The end of ".N" at `p` (a dot and one or more decimal digits), or NULL. */
static const char *clone_number_end(const char *p)
{
    const char *q = p + 1;
    if (*p != '.' || *q < '0' || *q > '9')
        return NULL;
    while (*q >= '0' && *q <= '9')
        q++;
    return q;
}

/* The end of one clone suffix in GCC's form at `p` (".constprop.0",
 * ".cold", ".cold.1"), or NULL when none starts there. */
static const char *clone_suffix_end(const char *p)
{
    const char *number;
    if (*p++ != '.')
        return NULL;
    for (size_t i = 0; i < sizeof CLONE_NUMBERED / sizeof CLONE_NUMBERED[0]; i++) {
        size_t len = strlen(CLONE_NUMBERED[i]);
        if (strncmp(p, CLONE_NUMBERED[i], len) == 0)
            return clone_number_end(p + len);
    }
    if (strncmp(p, CLONE_COLD, sizeof CLONE_COLD - 1) != 0)
        return NULL;
    p += sizeof CLONE_COLD - 1;
    return (number = clone_number_end(p)) ? number : p;
}

/* The end of one clone suffix at `p`, in GCC's form or as demangled
 * (" [clone .isra.0]"), or NULL. */
static const char *clone_part_end(const char *p)
{
    const char *end;
    if (strncmp(p, CLONE_DEMANGLED_OPEN, sizeof CLONE_DEMANGLED_OPEN - 1) != 0)
        return clone_suffix_end(p);
    end = clone_suffix_end(p + sizeof CLONE_DEMANGLED_OPEN - 1);
    return end && *end == CLONE_DEMANGLED_CLOSE ? end + 1 : NULL;
}

int binary_symbols_is_clone(const char *symbol, const char *source)
{
    size_t len = strlen(source);
    const char *p = symbol + len;
    if (len == 0 || strncmp(symbol, source, len) != 0 || *p == '\0')
        return 0;
    while (*p && (p = clone_part_end(p)))
        ;
    return p != NULL;
}

static int compare_sizes(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int binary_symbols_find_clones(const binary_symbols *s, const char *name, size_t *out, size_t max, size_t *count)
{
    name_key k = { s, name };
    size_t lo = search_lower_bound(s->name_count, name_below, &k), len = strlen(name), found = 0, *all;

    *count = 0;
    /* every clone's name begins with `name`: they follow it in sorted order */
    if (!(all = malloc((s->name_count - lo + 1) * sizeof *all)))
        return oom();
    for (size_t i = lo; i < s->name_count && strncmp(s->names[i].name, name, len) == 0; i++)
        if (binary_symbols_is_clone(s->names[i].name, name)) {
            assert(found < s->name_count - lo + 1); /* one slot per name from lo on */
            all[found++] = s->names[i].function;
        }
    qsort(all, found, sizeof *all, compare_sizes);
    for (size_t i = 0; i < found; i++) {
        if (i > 0 && all[i] == all[i - 1])
            continue; /* two clone names of one function */
        if (*count < max)
            out[*count] = all[i];
        ++*count;
    }
    free(all);
    return TEA_OK;
}

/* Levenshtein distance of two short strings (two rows of the table). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[SUGGEST_MAX_LENGTH + 1], prev[SUGGEST_MAX_LENGTH + 1];
    if (la > SUGGEST_MAX_LENGTH || lb > SUGGEST_MAX_LENGTH)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
        }
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb];
}

size_t binary_symbols_suggest(const binary_symbols *s, const char *name, const char **out, size_t max)
{
    size_t limit = strlen(name) / SUGGEST_DISTANCE_DIVISOR, written = 0;
    size_t distances[16];

    if (limit < SUGGEST_MIN_DISTANCE)
        limit = SUGGEST_MIN_DISTANCE;
    if (max > sizeof distances / sizeof distances[0])
        max = sizeof distances / sizeof distances[0];
    for (size_t i = 0; i < s->name_count && max; i++) {
        const char *candidate_name = s->names[i].name;
        size_t d, pos;
        if (i > 0 && strcmp(candidate_name, s->names[i - 1].name) == 0)
            continue;
        d = *name && strcasestr(candidate_name, name) ? SUGGEST_SUBSTRING_DISTANCE : edit_distance(name, candidate_name);
        if (d > limit)
            continue;
        /* Insertion into the sorted list of the best `max` (names come in
         * order, so ties keep lexicographic order). */
        for (pos = written; pos > 0 && distances[pos - 1] > d; pos--)
            ;
        if (pos >= max)
            continue;
        if (written < max)
            written++;
        memmove(&out[pos + 1], &out[pos], (written - 1 - pos) * sizeof *out);
        memmove(&distances[pos + 1], &distances[pos], (written - 1 - pos) * sizeof *distances);
        out[pos] = candidate_name;
        distances[pos] = d;
        assert(pos < written && written <= max); /* within the caller's `max` entries */
    }
    return written;
}

int binary_symbols_read(const binary_symbols *s, uint64_t pc, const uint8_t **bytes, size_t *avail)
{
    uint64_t addr = to_elf(s, pc);
    const section *sec = section_of(s, addr);
    *bytes = NULL;
    *avail = 0;
    if (!sec)
        return error_set(TEA_ERR_FORMAT,
                         "%s: address 0x%" PRIx64 " (ELF address 0x%" PRIx64 ") is in no section of the file", s->path,
                         pc, addr);
    if (!sec->data || addr - sec->addr >= sec->data_size)
        return error_set(TEA_ERR_FORMAT,
                         "%s: address 0x%" PRIx64 " is in section %s, which has no contents in "
                         "the file",
                         s->path, pc, sec->name);
    *bytes = sec->data + (addr - sec->addr);
    *avail = (size_t)(sec->data_size - (addr - sec->addr));
    assert(*avail > 0); /* the address is inside the section's contents */
    return TEA_OK;
}

uint64_t binary_symbols_elf_address(const binary_symbols *s, uint64_t pc)
{
    return to_elf(s, pc);
}

const char *binary_symbols_debug_file(const binary_symbols *s)
{
    return s->debug_path;
}

uint64_t binary_symbols_trace_address(const binary_symbols *s, uint64_t elf_addr)
{
    return to_trace(s, elf_addr);
}

void binary_symbols_set_demangle(binary_symbols *s, int on)
{
    s->demangle = on != 0;
    for (size_t g = 0; g < s->count; g++)
        s->functions[g].name = s->demangle && s->demangled[g] ? s->demangled[g] : s->mangled[g];
}

size_t binary_symbols_code_sections(const binary_symbols *s, binary_symbols_code *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->section_count; i++) {
        const section *sec = &s->sections[i];
        if (!sec->executable || !sec->data || sec->data_size == 0)
            continue;
        if (n < max)
            out[n] = (binary_symbols_code){ sec->name, sec->addr, sec->data, (size_t)sec->data_size };
        n++;
    }
    return n;
}

/* --- symbol maps ----------------------------------------------------------------- */

static int add_entry(trace_symmap *m, size_t *cap, uint64_t start, uint64_t end, const char *name)
{
    if (m->count == *cap) {
        trace_symmap_entry *grown;
        *cap = *cap ? 2 * *cap : 64;
        if (!(grown = realloc(m->entries, *cap * sizeof *grown)))
            return oom();
        m->entries = grown;
    }
    if (!(m->entries[m->count].name = strdup(name)))
        return oom();
    m->entries[m->count].start = start;
    m->entries[m->count].end = end;
    m->count++;
    return TEA_OK;
}

/* Adds the stretches of allocated sections outside every function, in ELF
 * addresses converted like the functions. */
static int add_section_gaps(const binary_symbols *s, trace_symmap *m, size_t *cap)
{
    char name[256];
    for (size_t i = 0; i < s->section_count; i++) {
        const section *sec = &s->sections[i];
        uint64_t at = sec->addr, end = sec->addr + sec->size;
        long f;
        int rc;
        snprintf(name, sizeof name, "[unknown %s]", sec->name);
        /* the first function ending after the section's start */
        f = function_of(s, at);
        if (f < 0) {
            addr_in k = { s, at };
            f = (long)search_lower_bound(s->count, function_starts_below, &k);
        }
        for (size_t k = (size_t)f; at < end; k++) {
            uint64_t stop = k < s->count && s->ranges[k].start < end ? s->ranges[k].start : end;
            if (stop > at) {
                uint64_t start = to_trace(s, at);
                if ((rc = add_entry(m, cap, start, start + (stop - at), name)))
                    return rc;
            }
            if (k >= s->count || s->ranges[k].start >= end)
                break;
            if (s->ranges[k].end > at)
                at = s->ranges[k].end;
        }
    }
    return TEA_OK;
}

int binary_symbols_symmap(const binary_symbols *s, unsigned flags, trace_symmap *out)
{
    size_t cap = 0;
    int rc = TEA_OK;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->count && rc == TEA_OK; i++)
        rc = add_entry(out, &cap, s->functions[i].start, s->functions[i].end, s->functions[i].name);
    if (rc == TEA_OK && (flags & BINARY_SYMBOLS_MAP_SECTION_GAPS))
        rc = add_section_gaps(s, out, &cap);
    if (rc) {
        trace_symmap_free(out);
        return rc;
    }
    /* Sorted by trace PC; a range that wraps around 2^64 after the bias, or
     * that overlaps the one before it (overlapping sections), is left out. */
    trace_symmap_settle(out);
    return TEA_OK;
}

/* --- source lines ----------------------------------------------------------------- */

static int compare_lines(const void *a, const void *b)
{
    const line_row *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    /* At one address, a sequence's end comes before the rows that start the
     * next sequence there, so that the last row at an address is a real
     * line whenever there is one. */
    if (x->end_sequence != y->end_sequence)
        return x->end_sequence ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Appends the rows of one compilation unit's line table. */
static int add_unit_lines(binary_symbols *s, Dwarf_Die *cudie, size_t *cap)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cudie, &lines, &n) != 0)
        return TEA_OK; /* a unit without a line table */
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr;
        int lineno = 0;
        bool end_sequence = false;
        const char *file;
        line_row *r;
        if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &lineno) != 0
            || dwarf_lineendsequence(l, &end_sequence) != 0)
            continue;
        file = dwarf_linesrc(l, NULL, NULL);
        if (s->line_count == *cap) {
            line_row *grown;
            *cap = *cap ? 2 * *cap : 1024;
            if (!(grown = realloc(s->lines, *cap * sizeof *grown)))
                return oom();
            s->lines = grown;
        }
        r = &s->lines[s->line_count];
        r->addr = addr;
        r->file = file ? file : "??";
        r->line = lineno > 0 ? (unsigned)lineno : 0;
        r->end_sequence = end_sequence;
        r->order = s->line_count++;
    }
    return TEA_OK;
}

int binary_symbols_load_lines(binary_symbols *s)
{
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    Dwarf_Half version;
    uint8_t unit_type;
    size_t cap = 0;
    int rc;

    if (s->lines_loaded)
        return s->line_count > 0;
    s->lines_loaded = 1;
    /* the binary's own DWARF, else the separate debug file's */
    if (!(s->dwarf = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL))
        && (!s->debug_elf || !(s->dwarf = dwarf_begin_elf(s->debug_elf, DWARF_C_READ, NULL))))
        return 0; /* no DWARF */
    while (dwarf_get_units(s->dwarf, cu, &cu, &version, &unit_type, &cudie, NULL) == 0) {
        if ((rc = add_unit_lines(s, &cudie, &cap))) {
            free(s->lines);
            s->lines = NULL;
            s->line_count = 0;
            s->lines_loaded = 0;
            return rc;
        }
    }
    if (s->line_count)
        qsort(s->lines, s->line_count, sizeof *s->lines, compare_lines);
    return s->line_count > 0;
}

int binary_symbols_source(binary_symbols *s, uint64_t pc, const char **file, unsigned *line)
{
    addr_in k = { s, to_elf(s, pc) };
    size_t lo;
    int rc;

    *file = NULL;
    *line = 0;
    if ((rc = binary_symbols_load_lines(s)) <= 0)
        return rc;
    /* the last row at or below addr */
    lo = search_lower_bound(s->line_count, line_at_or_below, &k);
    if (lo == 0 || s->lines[lo - 1].end_sequence || s->lines[lo - 1].line == 0)
        return 0;
    *file = s->lines[lo - 1].file;
    *line = s->lines[lo - 1].line;
    return 1;
}
