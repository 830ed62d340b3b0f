/*
 * unwind.c: function ranges from .eh_frame / .debug_frame (see unwind.h).
 */
#include "unwind.h"
#include "common/error.h"
#include "common/search.h"

#include <assert.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DWARF pointer encodings (the DW_EH_PE_* of the LSB's exception frames):
 * the low nibble is the value's format, bits 4-6 what it is relative to. */
#define PE_FORMAT_MASK 0x0fu
#define PE_APPLY_MASK 0x70u
#define PE_INDIRECT 0x80u
#define PE_OMIT 0xffu
#define PE_ABSPTR 0x00u
#define PE_ULEB128 0x01u
#define PE_UDATA2 0x02u
#define PE_UDATA4 0x03u
#define PE_UDATA8 0x04u
#define PE_SLEB128 0x09u
#define PE_SDATA2 0x0au
#define PE_SDATA4 0x0bu
#define PE_SDATA8 0x0cu
#define PE_PCREL 0x10u
/* LEB128: 7 bits a byte, the top bit says more follow. */
#define LEB_MORE 0x80u
#define LEB_BITS 7
#define LEB_MAX_SHIFT 63
/* Initial capacity of the range and CIE arrays. */
#define UNWIND_INITIAL 256

/* What an FDE needs of its CIE: where it is and how FDE addresses are
 * encoded (PE_OMIT when not understood). */
typedef struct cie_info {
    uint64_t offset;
    unsigned encoding;
} cie_info;

/* Reads an unsigned or signed LEB128 at *p (not past end); 0 when cut short. */
static int read_leb(const uint8_t **p, const uint8_t *end, int is_signed, uint64_t *value)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t byte;
    do {
        if (*p >= end || shift > LEB_MAX_SHIFT)
            return 0;
        byte = *(*p)++;
        v |= (uint64_t)(byte & ~LEB_MORE) << shift;
        shift += LEB_BITS;
    } while (byte & LEB_MORE);
    if (is_signed && shift <= LEB_MAX_SHIFT && (byte & (LEB_MORE >> 1)))
        v |= ~0ull << shift;
    *value = v;
    return 1;
}

/* Reads `bytes` little-endian bytes, sign-extended when `is_signed`. */
static int read_fixed(const uint8_t **p, const uint8_t *end, unsigned bytes, int is_signed, uint64_t *value)
{
    uint64_t v = 0;
    assert(bytes >= 1 && bytes <= sizeof v); /* the encodings' sizes: 2, 4 or 8 */
    if ((size_t)(end - *p) < bytes)
        return 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)(*p)[i] << (8 * i);
    if (is_signed && bytes < sizeof v && (v >> (8 * bytes - 1) & 1))
        v |= ~0ull << (8 * bytes);
    *p += bytes;
    *value = v;
    return 1;
}

/* Reads a value in pointer encoding `enc` at *p, whose ELF address is
 * `vaddr` (for PE_PCREL); `ptr_size` is the file's address size. 0 for an
 * encoding not understood or a value cut short. */
static int read_encoded(const uint8_t **p, const uint8_t *end, unsigned enc, uint64_t vaddr, unsigned ptr_size,
                        uint64_t *value)
{
    int ok;
    if (enc == PE_OMIT || (enc & PE_INDIRECT) || ((enc & PE_APPLY_MASK) != 0 && (enc & PE_APPLY_MASK) != PE_PCREL))
        return 0;
    switch (enc & PE_FORMAT_MASK) {
    case PE_ABSPTR: ok = read_fixed(p, end, ptr_size, 0, value); break;
    case PE_ULEB128: ok = read_leb(p, end, 0, value); break;
    case PE_UDATA2: ok = read_fixed(p, end, 2, 0, value); break;
    case PE_UDATA4: ok = read_fixed(p, end, 4, 0, value); break;
    case PE_UDATA8: ok = read_fixed(p, end, 8, 0, value); break;
    case PE_SLEB128: ok = read_leb(p, end, 1, value); break;
    case PE_SDATA2: ok = read_fixed(p, end, 2, 1, value); break;
    case PE_SDATA4: ok = read_fixed(p, end, 4, 1, value); break;
    case PE_SDATA8: ok = read_fixed(p, end, 8, 1, value); break;
    default: return 0;
    }
    if (ok && (enc & PE_APPLY_MASK) == PE_PCREL)
        *value += vaddr;
    return ok;
}

/* The FDE address encoding a CIE's augmentation gives ("zR", "zPLR", ...):
 * the 'R' byte of its data, read in the order of the letters; an absolute
 * address without 'R'; PE_OMIT for a string not understood. */
static unsigned fde_encoding(const Dwarf_CIE *cie, unsigned ptr_size)
{
    const char *a = cie->augmentation;
    const uint8_t *p = cie->augmentation_data, *end;
    uint64_t skip;

    if (!a || a[0] != 'z')
        return a && (a[0] == '\0' || strcmp(a, "eh") == 0) ? PE_ABSPTR : PE_OMIT;
    if (!p)
        return PE_OMIT;
    end = p + cie->augmentation_data_size;
    for (a++; *a; a++) {
        switch (*a) {
        case 'R':
            return p < end ? *p : PE_OMIT;
        case 'L':
            p++; /* the LSDA's encoding */
            break;
        case 'P': {
            unsigned enc;
            if (p >= end)
                return PE_OMIT;
            enc = *p++;
            /* the personality routine's address: skipped, relative or not */
            if (!read_encoded(&p, end, enc & ~(PE_APPLY_MASK | PE_INDIRECT), 0, ptr_size, &skip))
                return PE_OMIT;
            break;
        }
        case 'S': /* a signal frame */
        case 'B': /* AArch64 BTI */
        case 'G': /* AArch64 MTE */
            break;
        default:
            return PE_OMIT;
        }
    }
    return PE_ABSPTR;
}

/* The section named `name` with contents, or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        const char *n;
        if (gelf_getshdr(scn, sh) && sh->sh_type != SHT_NOBITS && (n = elf_strptr(elf, shstrndx, sh->sh_name))
            && strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

/* Appends to a growable array of `size`-byte items. */
static int push(void **items, size_t *count, size_t *cap, const void *item, size_t size)
{
    if (*count == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : UNWIND_INITIAL;
        void *grown = realloc(*items, grown_cap * size);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        *items = grown;
        *cap = grown_cap;
    }
    memcpy((char *)*items + *count * size, item, size);
    (*count)++;
    return TEA_OK;
}

/* The encoding of the CIE at section offset `offset` (CIEs sorted by
 * offset), PE_OMIT when there is none. */
/* A CIE's offset looked up in the sorted CIEs (search.h). */
typedef struct cie_key {
    const cie_info *cies;
    uint64_t offset;
} cie_key;

static int cie_below(size_t i, const void *ctx)
{
    const cie_key *k = ctx;
    return k->cies[i].offset < k->offset;
}

static unsigned cie_encoding(const cie_info *cies, size_t n, uint64_t offset)
{
    cie_key k = { cies, offset };
    size_t lo = search_lower_bound(n, cie_below, &k);
    return lo < n && cies[lo].offset == offset ? cies[lo].encoding : PE_OMIT;
}

static int compare_ranges(const void *a, const void *b)
{
    const binary_unwind_range *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Walks one CFI section: first its CIEs, then its FDEs' ranges. */
static int walk_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int eh_frame, binary_unwind_range **out,
                        size_t *count)
{
    const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
    unsigned ptr_size = ident && ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
    Elf_Data *data = elf_getdata(scn, NULL);
    cie_info *cies = NULL;
    size_t ncies = 0, cie_cap = 0, cap = *count;
    int rc = TEA_OK;

    if (!ident || !data || !data->d_buf)
        return TEA_OK;
    for (int pass = 0; pass < 2 && rc == TEA_OK; pass++) {
        Dwarf_Off offset = 0, next;
        Dwarf_CFI_Entry e;
        while (rc == TEA_OK && offset < data->d_size
               && dwarf_next_cfi(ident, data, eh_frame, offset, &next, &e) == 0) {
            if (pass == 0 && dwarf_cfi_cie_p(&e)) {
                cie_info c = { offset, fde_encoding(&e.cie, ptr_size) };
                assert(ncies == 0 || cies[ncies - 1].offset < offset); /* sorted: cie_encoding searches them */
                rc = push((void **)&cies, &ncies, &cie_cap, &c, sizeof c);
            } else if (pass == 1 && !dwarf_cfi_cie_p(&e)) {
                unsigned enc = cie_encoding(cies, ncies, e.fde.CIE_pointer);
                const uint8_t *p = e.fde.start;
                uint64_t vaddr = sh->sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf), start, length;
                /* the range's length: the same format, never relative */
                if (read_encoded(&p, e.fde.end, enc, vaddr, ptr_size, &start)
                    && read_encoded(&p, e.fde.end, enc & PE_FORMAT_MASK, 0, ptr_size, &length) && length
                    && start + length > start) {
                    binary_unwind_range r = { start, start + length };
                    rc = push((void **)out, count, &cap, &r, sizeof r);
                }
            }
            if (next <= offset)
                break;
            offset = next;
        }
    }
    free(cies);
    return rc;
}

int binary_unwind_ranges(Elf *elf, binary_unwind_range **out, size_t *count, const char **table)
{
    static const char *const sections[] = { ".eh_frame", ".debug_frame" };
    int rc = TEA_OK;

    TEA_ASSERT_ARG(elf != NULL);
    TEA_ASSERT_ARG(out != NULL && count != NULL && table != NULL);
    *out = NULL;
    *count = 0;
    *table = NULL;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0] && *count == 0 && rc == TEA_OK; i++) {
        GElf_Shdr sh;
        Elf_Scn *scn = find_section(elf, sections[i], &sh);
        if (scn && (rc = walk_section(elf, scn, &sh, i == 0, out, count)) == TEA_OK && *count)
            *table = sections[i];
    }
    if (rc) {
        free(*out);
        *out = NULL;
        *count = 0;
        return rc;
    }
    if (*count) {
        size_t kept = 1;
        qsort(*out, *count, sizeof **out, compare_ranges);
        for (size_t i = 1; i < *count; i++)
            if ((*out)[i].start != (*out)[kept - 1].start)
                (*out)[kept++] = (*out)[i];
        *count = kept;
    }
    return TEA_OK;
}

void binary_unwind_name(uint64_t addr, char *buf, size_t size)
{
    assert(size >= BINARY_UNWIND_NAME_MAX);
    snprintf(buf, size, "%s%" PRIx64, BINARY_UNWIND_NAME_PREFIX, addr);
}
