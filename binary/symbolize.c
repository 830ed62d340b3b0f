/*
 * symbolize.c: the binary, bias and checks behind every symbolized PC (see
 * symbolize.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "symbolize.h"
#include "common/error.h"
#include "disasm.h"
#include "trace/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Usual virtual-address widths (bits) of the PCs in traces. */
#define VA_BITS_RISCV64 TRACE_DEFAULT_VA_BITS /* Sv39 */
#define VA_BITS_X86_64 48
#define VA_BITS_AARCH64 48

struct symbolizer {
    symbols *syms;           /* NULL without a binary */
    disasm *dis;             /* opened on first use */
    int dis_failed;          /* the architecture cannot be disassembled */
    int source;              /* --source */
};

static void warn(const symbolize_options *opts, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "<command>: warning: <message>" on stderr. */
static void warn(const symbolize_options *opts, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: warning: ", opts->command ? opts->command : "symbolize");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The VA width of the trace's PCs, from its architecture (the binary's when
 * the PICS names none). */
static unsigned va_bits_of(const char *arch)
{
    if (arch && strcmp(arch, "riscv64") == 0)
        return VA_BITS_RISCV64;
    if (arch && strcmp(arch, "x86_64") == 0)
        return VA_BITS_X86_64;
    if (arch && strcmp(arch, "aarch64") == 0)
        return VA_BITS_AARCH64;
    return SYMBOLS_VA_BITS_FULL;
}

/* Applies the bias rules of symbolize.h to the opened binary. */
static int choose_bias(symbols *syms, const pics_info *info, const symbolize_options *opts)
{
    const char *path = symbols_path(syms);
    if (opts->has_adjust_vma) {
        if (info->has_load_bias && info->load_bias != opts->adjust_vma)
            warn(opts, "--adjust-vma 0x%" PRIx64 " overrides the load bias 0x%" PRIx64 " recorded in the trace",
                 opts->adjust_vma, info->load_bias);
        symbols_set_bias(syms, opts->adjust_vma);
        return TEA_OK;
    }
    if (info->has_load_bias) {
        symbols_set_bias(syms, info->load_bias);
        return TEA_OK;
    }
    if (symbols_is_position_independent(syms))
        return tea_error_set(TEA_ERR_USAGE,
                             "%s is position-independent (ET_DYN) and the PICS records no load bias: pass "
                             "--adjust-vma OFFSET (runtime address minus ELF address; 0 if the PCs are link-time "
                             "addresses)",
                             path);
    symbols_set_bias(syms, 0);
    return TEA_OK;
}

/* The build-id and architecture checks (warnings only). */
static void check_binary(const symbols *syms, const pics_info *info, const symbolize_options *opts)
{
    const char *path = symbols_path(syms), *id = symbols_build_id(syms), *arch = symbols_arch(syms);
    if (info->build_id && id && strcmp(info->build_id, id) != 0)
        warn(opts, "build-id of %s (%s) differs from the one recorded in the trace (%s): it is not the traced "
                   "binary, symbols may be wrong",
             path, id, info->build_id);
    else if (info->build_id && !id)
        warn(opts, "%s has no build-id, so it cannot be checked against the trace's (%s)", path, info->build_id);
    if (info->arch[0] && arch && strcmp(info->arch, arch) != 0)
        warn(opts, "%s is a %s binary but the trace is %s", path, arch, info->arch);
    if (!symbols_table(syms))
        warn(opts, "%s has no function symbols (stripped?): PCs are shown as [unknown]", path);
}

int symbolize_parse_offset(const char *text, uint64_t *out)
{
    int negative = text[0] == '-';
    const char *digits = text + negative;
    char *end;
    unsigned long long v;
    if (!*digits || *digits == '-' || *digits == '+' || *digits == ' ')
        return -1;
    errno = 0;
    v = strtoull(digits, &end, digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10);
    if (errno || *end || end == digits)
        return -1;
    *out = negative ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return 0;
}

int symbolize_open(symbolizer **out, const pics_info *info, const symbolize_options *opts)
{
    symbolizer *z;
    const char *path = opts->elf_path;
    int rc;

    *out = NULL;
    if (!(z = calloc(1, sizeof *z)))
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    z->source = opts->source;
    if (!path && info->binary_path) {
        if (access(info->binary_path, R_OK) == 0)
            path = info->binary_path;
        else
            warn(opts, "the traced binary %s is not readable here: showing addresses (use --elf BINARY)",
                 info->binary_path);
    }
    if (!path) {
        *out = z;
        return TEA_OK;
    }
    if ((rc = symbols_open(&z->syms, path)) || (rc = choose_bias(z->syms, info, opts))
        || (rc = symbols_set_va_bits(z->syms, va_bits_of(info->arch[0] ? info->arch : symbols_arch(z->syms)))))
        goto fail;
    check_binary(z->syms, info, opts);
    if (z->source) {
        if ((rc = symbols_load_lines(z->syms)) < 0)
            goto fail;
        if (rc == 0)
            warn(opts, "%s has no DWARF line information: no source lines", path);
    }
    *out = z;
    return TEA_OK;
fail:
    symbolize_close(z);
    return rc;
}

void symbolize_close(symbolizer *z)
{
    if (!z)
        return;
    disasm_close(z->dis);
    symbols_close(z->syms);
    free(z);
}

symbols *symbolize_symbols(const symbolizer *z)
{
    return z->syms;
}

const char *symbolize_binary(const symbolizer *z)
{
    return z->syms ? symbols_path(z->syms) : NULL;
}

char *symbolize_function(const symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    symbols_location loc;
    if (!z->syms) {
        snprintf(buf, size, "[unknown]");
        return buf;
    }
    symbols_locate(z->syms, pc, &loc);
    if (loc.name)
        snprintf(buf, size, "%s", loc.name);
    else if (loc.section)
        snprintf(buf, size, "[unknown %s]", loc.section);
    else
        snprintf(buf, size, "[unknown]");
    return buf;
}

char *symbolize_location(const symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    symbols_location loc;
    if (z->syms) {
        symbols_locate(z->syms, pc, &loc);
        if (loc.name) {
            snprintf(buf, size, "%s+0x%" PRIx64, loc.name, loc.offset);
            return buf;
        }
    }
    snprintf(buf, size, "0x%" PRIx64, pc);
    return buf;
}

int symbolize_disasm(symbolizer *z, uint64_t pc, char *buf, size_t size, unsigned *insn_size)
{
    const uint8_t *bytes;
    size_t avail;
    disasm_insn insn;
    int rc;

    buf[0] = '\0';
    *insn_size = 0;
    if (!z->syms)
        return tea_error_set(TEA_ERR_USAGE, "no binary to disassemble");
    if (!z->dis && !z->dis_failed && (rc = disasm_open(&z->dis, symbols_arch(z->syms)))) {
        z->dis_failed = 1;
        return rc;
    }
    if (!z->dis)
        return tea_error_set(TEA_ERR_UNSUPPORTED, "%s: cannot disassemble this architecture", symbols_path(z->syms));
    if ((rc = symbols_read(z->syms, pc, &bytes, &avail)) || (rc = disasm_one(z->dis, pc, bytes, avail, &insn)))
        return rc;
    snprintf(buf, size, "%s%s%s", insn.mnemonic, insn.operands[0] ? " " : "", insn.operands);
    *insn_size = insn.size;
    return TEA_OK;
}

int symbolize_source(symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    const char *file;
    unsigned line;
    int rc;
    buf[0] = '\0';
    if (!z->syms || !z->source)
        return 0;
    if ((rc = symbols_source(z->syms, pc, &file, &line)) <= 0)
        return rc;
    snprintf(buf, size, "%s:%u", file, line);
    return 1;
}

int symbolize_symmap(const symbolizer *z, unsigned flags, symmap *out)
{
    if (!z->syms) {
        memset(out, 0, sizeof *out);
        return TEA_OK;
    }
    return symbols_symmap(z->syms, flags, out);
}
