/*
 * symbolize.c: the binary, bias and checks behind every symbolized PC (see
 * symbolize.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "symbolize.h"
#include "common/error.h"
#include "common/search.h"
#include "disasm.h"
#include "trace/trace.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
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

/* What became of an object of the trace's list (opened on first use). */
typedef enum object_state {
    OBJECT_UNOPENED = 0,
    OBJECT_OPEN,     /* syms is usable */
    OBJECT_UNUSABLE, /* missing, unreadable or another build: named [BASENAME] */
    OBJECT_MAIN      /* the main binary itself: its PCs go to the main binary */
} object_state;

/* One executable object of the trace (a trace_object_list's). */
typedef struct object_unit {
    char *path;                                /* as recorded */
    const char *base;                          /* its file name, inside path */
    char build_id[2 * TRACE_BUILD_ID_MAX + 1]; /* hex, "" when not recorded */
    uint64_t start, end;                       /* executable range [start, end), trace PCs */
    uint64_t load_bias;                        /* trace PC - ELF address */
    object_state state;
    binary_symbols *syms; /* when OBJECT_OPEN */
} object_unit;

struct binary_symbolizer {
    binary_symbols *syms;    /* NULL without a binary */
    binary_disasm *dis;      /* opened on first use */
    int dis_failed;          /* the architecture cannot be disassembled */
    int source;              /* --source */
    int elf_addresses;       /* --addresses elf */
    int no_demangle;         /* --no-demangle, for the objects too */
    int note_stripped;       /* print the stripped objects' notes */
    unsigned va_bits;        /* the trace's PC width */
    const char *command;     /* prefix of the objects' warnings */
    object_unit *objects;    /* the trace's object list (the pointees change when opened) */
    size_t object_count;
};

static void warn(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "<command>: warning: <message>" on stderr. */
static void warn(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: warning: ", command ? command : "symbolize");
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
    return BINARY_SYMBOLS_VA_BITS_FULL;
}

/* --- --adjust-vma auto ------------------------------------------------------ */

/* Most executable sections looked at (a binary has a handful). */
#define GUESS_MAX_SECTIONS 64
/* Bytes of the smallest instruction unit: where decoding resumes after
 * bytes that form no instruction. */
#define UNIT_X86_64 1u
#define UNIT_RISCV64 2u
#define UNIT_AARCH64 4u

/* An executable section and which of its bytes start an instruction. */
typedef struct code_map {
    binary_symbols_code code;
    uint8_t *starts;         /* one bit per byte */
} code_map;

static unsigned insn_unit(const char *arch)
{
    if (strcmp(arch, "riscv64") == 0)
        return UNIT_RISCV64;
    if (strcmp(arch, "aarch64") == 0)
        return UNIT_AARCH64;
    return UNIT_X86_64;
}

static int start_marked(const code_map *m, size_t off)
{
    return (m->starts[off / CHAR_BIT] >> (off % CHAR_BIT)) & 1;
}

/* Decodes linearly from byte `off` of the section, marking instruction
 * starts, until the end or a start already marked (the sweeps agree from
 * there on). Undecodable bytes are skipped one unit at a time. */
static void sweep_from(binary_disasm *d, code_map *m, size_t off, unsigned unit)
{
    binary_disasm_insn insn;
    while (off < m->code.size && !start_marked(m, off)) {
        if (binary_disasm_one(d, m->code.addr + off, m->code.data + off, m->code.size - off, &insn) == TEA_OK) {
            m->starts[off / CHAR_BIT] |= (uint8_t)(1u << (off % CHAR_BIT));
            off += insn.size;
        } else {
            off += unit;
        }
    }
}

/* Where the ELF address `addr` is: 0 outside every map, 1 inside one but
 * not on an instruction start, 2 on an instruction start. */
static int classify(const code_map *maps, size_t n, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (addr - maps[i].code.addr < maps[i].code.size)
            return 1 + start_marked(&maps[i], (size_t)(addr - maps[i].code.addr));
    return 0;
}

/* A trace PC as a full 64-bit address (the sign extension of symbols.h). */
static uint64_t full_address(uint64_t pc, unsigned va_bits)
{
    if (va_bits < BINARY_SYMBOLS_VA_BITS_FULL && pc < (1ull << va_bits) && ((pc >> (va_bits - 1)) & 1))
        pc |= ~0ull << va_bits;
    return pc;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Marks the instruction starts of every map: sweeps from each section's
 * start and from every function symbol inside it. */
static int mark_starts(const binary_symbols *syms, code_map *maps, size_t n)
{
    binary_disasm *d;
    unsigned unit = insn_unit(binary_symbols_arch(syms));
    int rc;
    if ((rc = binary_disasm_open(&d, binary_symbols_arch(syms))))
        return rc;
    for (size_t i = 0; i < n; i++)
        sweep_from(d, &maps[i], 0, unit);
    for (size_t f = 0; f < binary_symbols_count(syms); f++) {
        uint64_t start = binary_symbols_function_at(syms, f)->elf_start;
        for (size_t i = 0; i < n; i++)
            if (start - maps[i].code.addr < maps[i].code.size)
                sweep_from(d, &maps[i], (size_t)(start - maps[i].code.addr), unit);
    }
    binary_disasm_close(d);
    return TEA_OK;
}

/* The candidate biases: multiples of BINARY_SYMBOLIZE_BIAS_ALIGN putting an anchor
 * PC inside an executable section; sorted, distinct. */
static int make_candidates(const code_map *maps, size_t n, const uint64_t *pcs, size_t count, uint64_t **out,
                           size_t *out_count)
{
    size_t anchors = count < BINARY_SYMBOLIZE_BIAS_ANCHORS ? count : BINARY_SYMBOLIZE_BIAS_ANCHORS, total = 0, k = 0;
    uint64_t *c;
    for (size_t i = 0; i < n; i++)
        total += maps[i].code.size / BINARY_SYMBOLIZE_BIAS_ALIGN + 2;
    if (!(c = malloc(total * anchors * sizeof *c)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t a = 0; a < anchors; a++) {
        uint64_t pc = pcs[anchors > 1 ? a * (count - 1) / (anchors - 1) : 0];
        for (size_t i = 0; i < n; i++) {
            uint64_t lo = maps[i].code.addr, end = lo + maps[i].code.size;
            /* the first ELF address >= lo with the anchor's offset in a page */
            uint64_t e = (lo & ~(uint64_t)(BINARY_SYMBOLIZE_BIAS_ALIGN - 1)) | (pc & (BINARY_SYMBOLIZE_BIAS_ALIGN - 1));
            if (e < lo)
                e += BINARY_SYMBOLIZE_BIAS_ALIGN;
            for (; e < end && e >= lo; e += BINARY_SYMBOLIZE_BIAS_ALIGN) {
                assert(k < total * anchors);
                c[k++] = pc - e;
            }
        }
    }
    qsort(c, k, sizeof *c, compare_u64);
    *out_count = 0;
    for (size_t i = 0; i < k; i++)
        if (*out_count == 0 || c[*out_count - 1] != c[i])
            c[(*out_count)++] = c[i];
    *out = c;
    return TEA_OK;
}

/* Scores every candidate over the sampled PCs and fills the guess. */
static void score_candidates(const code_map *maps, size_t n, const uint64_t *sample, size_t sampled,
                             const uint64_t *cand, size_t cand_count, binary_symbolize_bias_guess *g)
{
    g->candidates = cand_count;
    g->pcs = sampled;
    for (size_t c = 0; c < cand_count; c++) {
        size_t hits = 0, in_code = 0;
        for (size_t i = 0; i < sampled; i++) {
            int where = classify(maps, n, sample[i] - cand[c]);
            in_code += where > 0;
            hits += where == 2;
        }
        if (c == 0 || hits > g->hits) {
            if (c > 0) {
                g->runner_up = g->bias;
                g->runner_up_hits = g->hits;
            }
            g->bias = cand[c];
            g->hits = hits;
            g->in_code = in_code;
        } else if (c == 1 || hits > g->runner_up_hits) {
            g->runner_up = cand[c];
            g->runner_up_hits = hits;
        }
    }
    /* Hits are PCs on instruction starts, which are PCs in code. */
    assert(g->hits <= g->in_code && g->in_code <= sampled);
}

int binary_symbolize_guess_bias(const binary_symbols *syms, const uint64_t *pcs, size_t count, unsigned va_bits,
                                binary_symbolize_bias_guess *out)
{
    code_map maps[GUESS_MAX_SECTIONS];
    binary_symbols_code codes[GUESS_MAX_SECTIONS];
    size_t n, sampled = count < BINARY_SYMBOLIZE_BIAS_SAMPLE ? count : BINARY_SYMBOLIZE_BIAS_SAMPLE, cand_count = 0,
              min_hits;
    uint64_t *sample = NULL, *cand = NULL;
    int rc = TEA_OK;

    memset(out, 0, sizeof *out);
    memset(maps, 0, sizeof maps);
    if (!binary_symbols_arch(syms))
        return error_set(TEA_ERR_UNSUPPORTED, "%s: --adjust-vma auto cannot disassemble this architecture",
                         binary_symbols_path(syms));
    n = binary_symbols_code_sections(syms, codes, GUESS_MAX_SECTIONS);
    if (n > GUESS_MAX_SECTIONS)
        n = GUESS_MAX_SECTIONS;
    if (n == 0 || count == 0)
        return error_set(TEA_ERR_USAGE, "--adjust-vma auto: %s",
                         n == 0 ? "the binary has no executable section" : "no PCs to infer the load bias from");
    if (!(sample = malloc(sampled * sizeof *sample))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < sampled; i++)
        sample[i] = full_address(pcs[sampled > 1 ? i * (count - 1) / (sampled - 1) : 0], va_bits);
    for (size_t i = 0; i < n; i++) {
        maps[i].code = codes[i];
        if (!(maps[i].starts = calloc(codes[i].size / CHAR_BIT + 1, 1))) {
            rc = error_set(TEA_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    if ((rc = mark_starts(syms, maps, n)) || (rc = make_candidates(maps, n, sample, sampled, &cand, &cand_count)))
        goto done;
    score_candidates(maps, n, sample, sampled, cand, cand_count, out);
    min_hits = sampled < BINARY_SYMBOLIZE_BIAS_MIN_HITS ? sampled : BINARY_SYMBOLIZE_BIAS_MIN_HITS;
    if (cand_count == 0 || out->hits < min_hits
        || out->hits * 100 < (uint64_t)out->in_code * BINARY_SYMBOLIZE_BIAS_MIN_PRECISION_PERCENT)
        rc = error_set(TEA_ERR_USAGE,
                       "--adjust-vma auto: no load bias puts the PCs on instructions of %s (best 0x%" PRIx64
                       ": %zu of the %zu PCs in its code on instruction starts, of %zu PCs): is it the traced "
                       "binary? Pass --adjust-vma OFFSET",
                       binary_symbols_path(syms), out->bias, out->hits, out->in_code, out->pcs);
    else if (cand_count > 1 && out->runner_up_hits * 100 >= (uint64_t)out->hits * BINARY_SYMBOLIZE_BIAS_MARGIN_PERCENT)
        rc = error_set(TEA_ERR_USAGE,
                       "--adjust-vma auto: no load bias of %s is clearly best (0x%" PRIx64 ": %zu of %zu PCs on "
                       "instruction starts, 0x%" PRIx64 ": %zu); pass --adjust-vma OFFSET",
                       binary_symbols_path(syms), out->bias, out->hits, out->pcs, out->runner_up, out->runner_up_hits);
done:
    for (size_t i = 0; i < n; i++)
        free(maps[i].starts);
    free(sample);
    free(cand);
    return rc;
}

/* --adjust-vma auto for the opened binary: guesses, prints and sets the bias. */
static int auto_bias(binary_symbols *syms, unsigned va_bits, const binary_symbolize_options *opts)
{
    binary_symbolize_bias_guess g;
    int rc;
    if (!opts->auto_pcs)
        return error_set(TEA_ERR_USAGE, "--adjust-vma auto needs the trace's PCs here; pass --adjust-vma OFFSET");
    if ((rc = binary_symbolize_guess_bias(syms, opts->auto_pcs, opts->auto_pc_count, va_bits, &g)))
        return rc;
    fprintf(stderr, "%s: --adjust-vma auto: load bias 0x%" PRIx64 " (%zu of %zu PCs on instruction starts",
            opts->command ? opts->command : "symbolize", g.bias, g.hits, g.pcs);
    if (g.in_code > g.hits)
        fprintf(stderr, ", %zu elsewhere in its code", g.in_code - g.hits);
    if (g.candidates > 1)
        fprintf(stderr, "; next best 0x%" PRIx64 ": %zu", g.runner_up, g.runner_up_hits);
    fprintf(stderr, ")\n");
    binary_symbols_set_bias(syms, g.bias);
    return TEA_OK;
}

/* Applies the bias rules of symbolize.h to the opened binary; `listed` is
 * the trace's object the binary is when it is not the trace's main binary
 * (--elf of a shared library), else NULL. */
static int choose_bias(binary_symbols *syms, const trace_program *program, const object_unit *listed,
                       const binary_symbolize_options *opts, unsigned va_bits)
{
    const char *path = binary_symbols_path(syms);
    int has_recorded = listed || program->has_load_bias;
    uint64_t recorded = listed ? listed->load_bias : program->load_bias;
    if (opts->adjust_vma_auto)
        return auto_bias(syms, va_bits, opts);
    if (opts->has_adjust_vma) {
        if (has_recorded && recorded != opts->adjust_vma)
            warn(opts->command,
                 "--adjust-vma 0x%" PRIx64 " overrides the load bias 0x%" PRIx64 " recorded in the trace",
                 opts->adjust_vma, recorded);
        binary_symbols_set_bias(syms, opts->adjust_vma);
        return TEA_OK;
    }
    if (has_recorded) {
        binary_symbols_set_bias(syms, recorded);
        return TEA_OK;
    }
    if (binary_symbols_is_position_independent(syms))
        return error_set(TEA_ERR_USAGE,
                         "%s is position-independent (ET_DYN) and the PICS records no load bias: pass "
                         "--adjust-vma OFFSET (runtime address minus ELF address; 0 if the PCs are link-time "
                         "addresses) or --adjust-vma auto",
                         path);
    binary_symbols_set_bias(syms, 0);
    return TEA_OK;
}

/* The build-id and architecture checks (warnings only); `listed` as for
 * choose_bias: a binary that is one of the trace's objects is no other
 * build. */
static void check_binary(const binary_symbols *syms, const trace_program *program, const object_unit *listed,
                         const binary_symbolize_options *opts)
{
    const char *path = binary_symbols_path(syms), *id = binary_symbols_build_id(syms),
               *arch = binary_symbols_arch(syms);
    if (listed)
        ; /* its build-id is the listed object's */
    else if (program->build_id && id && strcmp(program->build_id, id) != 0)
        warn(opts->command,
             "build-id of %s (%s) differs from the one recorded in the trace (%s): it is not the traced "
             "binary, symbols may be wrong",
             path, id, program->build_id);
    else if (program->build_id && !id)
        warn(opts->command, "%s has no build-id, so it cannot be checked against the trace's (%s)", path,
             program->build_id);
    if (program->arch[0] && arch && strcmp(program->arch, arch) != 0)
        warn(opts->command, "%s is a %s binary but the trace is %s", path, arch, program->arch);
    if (!binary_symbols_table(syms))
        warn(opts->command, "%s has no function symbols (stripped?): PCs are shown as [unknown]", path);
}

int binary_symbolize_parse_offset(const char *text, uint64_t *out)
{
    int negative = text[0] == '-';
    const char *digits = text + negative;
    char *end;
    unsigned long long v;
    if (!*digits || *digits == '-' || *digits == '+' || *digits == ' ')
        return error_set(TEA_ERR_USAGE, "invalid offset '%s' (hex with 0x, or decimal)", text);
    errno = 0;
    v = strtoull(digits, &end, digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10);
    if (errno || *end || end == digits)
        return error_set(TEA_ERR_USAGE, "invalid offset '%s' (hex with 0x, or decimal)", text);
    *out = negative ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return TEA_OK;
}

/* --- the trace's objects --------------------------------------------------- */

static int compare_objects(const void *a, const void *b)
{
    const object_unit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Copies the trace's object list into z->objects, sorted by start. */
static int copy_objects(binary_symbolizer *z, const trace_object_list *l)
{
    if (l->count == 0)
        return TEA_OK;
    if (!(z->objects = calloc(l->count, sizeof *z->objects)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < l->count; i++) {
        const trace_object *t = &l->items[i];
        object_unit *o = &z->objects[z->object_count];
        const char *slash;
        if (!(o->path = strdup(t->path)))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        z->object_count++;
        slash = strrchr(o->path, '/');
        o->base = slash && slash[1] ? slash + 1 : o->path;
        trace_object_build_id_hex(t, o->build_id, sizeof o->build_id);
        o->start = t->start;
        o->end = t->end;
        o->load_bias = t->load_bias;
    }
    assert(z->object_count == l->count);
    qsort(z->objects, z->object_count, sizeof *z->objects, compare_objects);
    return TEA_OK;
}

/* Marks the objects that are the main binary (same build-id, or the same
 * path when either has none), so that they are not opened a second time. */
static void mark_main_objects(binary_symbolizer *z)
{
    const char *id = binary_symbols_build_id(z->syms), *path = binary_symbols_path(z->syms);
    for (size_t i = 0; i < z->object_count; i++) {
        object_unit *o = &z->objects[i];
        if ((id && o->build_id[0]) ? strcmp(id, o->build_id) == 0 : strcmp(path, o->path) == 0)
            o->state = OBJECT_MAIN;
    }
}

/* The trace's listed object that the opened binary is when it is not the
 * trace's main binary: the first with the binary's build-id, when that
 * differs from the build-id the trace recorded for its main binary; else
 * NULL (also for a binary without a build-id). */
static const object_unit *listed_object_of(const binary_symbolizer *z, const trace_program *program)
{
    const char *id = binary_symbols_build_id(z->syms);
    if (!id || (program->build_id && strcmp(program->build_id, id) == 0))
        return NULL;
    for (size_t i = 0; i < z->object_count; i++)
        if (strcmp(z->objects[i].build_id, id) == 0)
            return &z->objects[i];
    return NULL;
}

/* The prefix that a merged-/usr system (Debian since 12) drops from the
 * paths dpkg knows: /usr/lib/x86_64-linux-gnu/libc.so.6 is installed as
 * /lib/x86_64-linux-gnu/libc.so.6, /usr/bin/bc as /usr/bin/bc. */
#define MERGED_USR_PREFIX "/usr"
/* The debuginfod server the note suggests: Debian's. */
#define DEBUGINFOD_EXAMPLE_URL "https://debuginfod.debian.net"

/* The note on a stripped object (symbolize.h), when z prints them and the
 * object lacks the names a debug file would give. The dpkg pattern matches
 * the file under /usr and without it ("*" + the path after /usr), as dpkg
 * may know either. */
static void note_if_stripped(const binary_symbolizer *z, const binary_symbols *s)
{
    const char *path = binary_symbols_path(s), *id = binary_symbols_build_id(s),
               *urls = getenv(BINARY_SYMBOLS_DEBUGINFOD_URLS_ENV);
    size_t usr = sizeof MERGED_USR_PREFIX - 1;
    int merged = strncmp(path, MERGED_USR_PREFIX "/", usr + 1) == 0;
    if (!z->note_stripped || !binary_symbols_needs_debug_file(s))
        return;
    fprintf(stderr,
            "%s: note: %s is stripped: functions without a symbol are named fn_HEX from its unwind tables. "
            "For their names, install its debug symbols: Debian's PACKAGE-dbgsym from the debian-debug archive, "
            "PACKAGE being the one `dpkg -S '%s%s'` names",
            z->command ? z->command : "symbolize", path, merged ? "*" : "", merged ? path + usr : path);
    if (!id)
        fprintf(stderr, " (it has no build-id, so debuginfod cannot serve them)\n");
    else if (urls && *urls)
        fprintf(stderr, " (the debuginfod servers " BINARY_SYMBOLS_DEBUGINFOD_URLS_ENV " names had none for its build-id %s)\n",
                id);
    else
        fprintf(stderr,
                "; or set " BINARY_SYMBOLS_DEBUGINFOD_URLS_ENV " (e.g. " DEBUGINFOD_EXAMPLE_URL
                ") to fetch them by build-id\n");
}

/* The object whose range holds `pc` (the last one starting at or before it
 * when ranges overlap), or NULL. */
/* A PC looked up in the sorted objects (search.h). */
typedef struct pc_in_objects {
    const binary_symbolizer *z;
    uint64_t pc;
} pc_in_objects;

static int object_starts_at_or_below(size_t i, const void *ctx)
{
    const pc_in_objects *k = ctx;
    return k->z->objects[i].start <= k->pc;
}

static object_unit *object_at(const binary_symbolizer *z, uint64_t pc)
{
    pc_in_objects k = { z, pc };
    size_t lo = search_lower_bound(z->object_count, object_starts_at_or_below, &k);
    return lo > 0 && pc < z->objects[lo - 1].end ? &z->objects[lo - 1] : NULL;
}

/* Opens an object on first use: its file must be readable and, when the
 * trace recorded a build-id, have that build-id; else the object stays
 * unusable (one warning) and its PCs are named [BASENAME], never after
 * another file's symbols. */
static void object_open(const binary_symbolizer *z, object_unit *o)
{
    binary_symbols *s = NULL;
    const char *id;
    assert(o->state == OBJECT_UNOPENED); /* opened once, on first use */
    o->state = OBJECT_UNUSABLE;
    if (binary_symbols_open(&s, o->path)) {
        warn(z->command, "%s: its PCs are shown as [%s]", error_message(), o->base);
        error_clear();
        return;
    }
    id = binary_symbols_build_id(s);
    if (o->build_id[0] && (!id || strcmp(id, o->build_id) != 0)) {
        warn(z->command, "%s has build-id %s, not the %s the trace recorded: its PCs are shown as [%s]", o->path,
             id ? id : "(none)", o->build_id, o->base);
        binary_symbols_close(s);
        return;
    }
    binary_symbols_set_demangle(s, !z->no_demangle);
    binary_symbols_set_bias(s, o->load_bias);
    if (binary_symbols_set_va_bits(s, z->va_bits) || (z->source && binary_symbols_load_lines(s) < 0)) {
        warn(z->command, "%s: %s: its PCs are shown as [%s]", o->path, error_message(), o->base);
        error_clear();
        binary_symbols_close(s);
        return;
    }
    o->syms = s;
    o->state = OBJECT_OPEN;
    note_if_stripped(z, s);
}

/*
 * The symbols to look `pc` up in: the main binary's when one of its sections
 * holds the PC (or when the trace lists no object holding it), else those of
 * the listed object holding it, opened on first use. NULL when there are
 * none; *unusable is then the object holding the PC whose file cannot be
 * used, or NULL.
 */
static binary_symbols *symbols_for(const binary_symbolizer *z, uint64_t pc, const object_unit **unusable)
{
    binary_symbols_location loc;
    object_unit *o;
    *unusable = NULL;
    if (z->syms) {
        if (z->object_count == 0)
            return z->syms;
        binary_symbols_locate(z->syms, pc, &loc);
        if (loc.section)
            return z->syms;
    }
    if (!(o = object_at(z, pc)) || o->state == OBJECT_MAIN)
        return z->syms;
    if (o->state == OBJECT_UNOPENED)
        object_open(z, o);
    if (o->state == OBJECT_OPEN)
        return o->syms;
    *unusable = o;
    return NULL;
}

/* --- opening ----------------------------------------------------------------- */

int binary_symbolize_open(binary_symbolizer **out, const trace_program *program, const trace_object_list *objects,
                          const binary_symbolize_options *opts)
{
    binary_symbolizer *z;
    const char *path = opts->elf_path;
    const object_unit *listed;
    int rc;

    *out = NULL;
    if (!(z = calloc(1, sizeof *z)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    z->source = opts->source;
    z->elf_addresses = opts->elf_addresses;
    z->no_demangle = opts->no_demangle;
    z->command = opts->command;
    z->note_stripped = opts->note_stripped;
    z->va_bits = va_bits_of(program->arch[0] ? program->arch : NULL);
    if (objects && (rc = copy_objects(z, objects)))
        goto fail;
    if (!path && program->binary_path) {
        if (access(program->binary_path, R_OK) == 0)
            path = program->binary_path;
        else
            warn(opts->command, "the traced binary %s is not readable here: showing addresses (use --elf BINARY)",
                 program->binary_path);
    }
    if (!path) {
        *out = z;
        return TEA_OK;
    }
    if ((rc = binary_symbols_open(&z->syms, path)))
        goto fail;
    binary_symbols_set_demangle(z->syms, !opts->no_demangle);
    z->va_bits = va_bits_of(program->arch[0] ? program->arch : binary_symbols_arch(z->syms));
    listed = listed_object_of(z, program);
    if ((rc = choose_bias(z->syms, program, listed, opts, z->va_bits))
        || (rc = binary_symbols_set_va_bits(z->syms, z->va_bits)))
        goto fail;
    check_binary(z->syms, program, listed, opts);
    note_if_stripped(z, z->syms);
    if (z->source) {
        if ((rc = binary_symbols_load_lines(z->syms)) < 0)
            goto fail;
        if (rc == 0)
            warn(opts->command, "%s has no DWARF line information: no source lines", path);
    }
    mark_main_objects(z);
    *out = z;
    return TEA_OK;
fail:
    binary_symbolize_close(z);
    return rc;
}

void binary_symbolize_close(binary_symbolizer *z)
{
    if (!z)
        return;
    for (size_t i = 0; i < z->object_count; i++) {
        binary_symbols_close(z->objects[i].syms);
        free(z->objects[i].path);
    }
    free(z->objects);
    binary_disasm_close(z->dis);
    binary_symbols_close(z->syms);
    free(z);
}

binary_symbols *binary_symbolize_symbols(const binary_symbolizer *z)
{
    return z->syms;
}

const char *binary_symbolize_binary(const binary_symbolizer *z)
{
    return z->syms ? binary_symbols_path(z->syms) : NULL;
}

int binary_symbolize_has_objects(const binary_symbolizer *z)
{
    return z->object_count > 0;
}

/* --- naming a PC --------------------------------------------------------------- */

char *binary_symbolize_object(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    const object_unit *unusable, *o = object_at(z, pc);
    binary_symbols *s = symbols_for(z, pc, &unusable);
    const char *path, *slash;
    if (o && (s == o->syms || o->state == OBJECT_MAIN || o == unusable)) {
        snprintf(buf, size, "%s", o->base);
        return buf;
    }
    if (!s || !(path = binary_symbols_path(s))) {
        buf[0] = '\0';
        return buf;
    }
    slash = strrchr(path, '/');
    snprintf(buf, size, "%s", slash ? slash + 1 : path);
    return buf;
}

char *binary_symbolize_function(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    const object_unit *unusable;
    binary_symbols *s = symbols_for(z, pc, &unusable);
    binary_symbols_location loc;
    if (!s) {
        snprintf(buf, size, unusable ? "[%s]" : "[unknown]", unusable ? unusable->base : "");
        return buf;
    }
    binary_symbols_locate(s, pc, &loc);
    if (loc.name)
        snprintf(buf, size, "%s", loc.name);
    else if (loc.section)
        snprintf(buf, size, "[unknown %s]", loc.section);
    else
        snprintf(buf, size, "[unknown]");
    return buf;
}

char *binary_symbolize_location(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    const object_unit *unusable;
    binary_symbols *s = symbols_for(z, pc, &unusable);
    binary_symbols_location loc;
    if (s) {
        binary_symbols_locate(s, pc, &loc);
        if (loc.name) {
            snprintf(buf, size, "%s+0x%" PRIx64, loc.name, loc.offset);
            return buf;
        }
    } else if (unusable) {
        snprintf(buf, size, "[%s]+0x%" PRIx64, unusable->base, pc - unusable->load_bias);
        return buf;
    }
    snprintf(buf, size, "0x%" PRIx64, pc);
    return buf;
}

/* The disassembler for the architecture of `s`, opened on first use (every
 * object of a trace has the trace's architecture). */
static int disassembler_for(binary_symbolizer *z, const binary_symbols *s)
{
    int rc;
    if (!z->dis && !z->dis_failed && (rc = binary_disasm_open(&z->dis, binary_symbols_arch(s)))) {
        z->dis_failed = 1;
        return rc;
    }
    if (!z->dis)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: cannot disassemble this architecture", binary_symbols_path(s));
    return TEA_OK;
}

int binary_symbolize_disasm(binary_symbolizer *z, uint64_t pc, char *buf, size_t size, unsigned *insn_size)
{
    const object_unit *unusable;
    binary_symbols *s = symbols_for(z, pc, &unusable);
    const uint8_t *bytes;
    size_t avail;
    binary_disasm_insn insn;
    int rc;

    buf[0] = '\0';
    *insn_size = 0;
    if (!s)
        return unusable ? error_set(TEA_ERR_IO, "%s cannot be read as the traced object", unusable->path)
                        : error_set(TEA_ERR_USAGE, "no binary to disassemble");
    if ((rc = disassembler_for(z, s)) || (rc = binary_symbols_read(s, pc, &bytes, &avail))
        || (rc = binary_disasm_one(z->dis, pc, bytes, avail, &insn)))
        return rc;
    if (insn.flags & BINARY_DISASM_F_DIRECT) {
        /* the target replaces the last operand (after the last ", ") */
        char target[BINARY_SYMBOLIZE_TEXT_MAX];
        char *last = strrchr(insn.operands, ',');
        int keep = last ? (int)(last - insn.operands) + 1 : 0;
        binary_symbolize_target(z, insn.target, target, sizeof target);
        snprintf(buf, size, "%s %.*s%s%s", insn.mnemonic, keep, insn.operands, keep ? " " : "", target);
    } else {
        snprintf(buf, size, "%s%s%s", insn.mnemonic, insn.operands[0] ? " " : "", insn.operands);
    }
    *insn_size = insn.size;
    return TEA_OK;
}

uint64_t binary_symbolize_address(const binary_symbolizer *z, uint64_t pc)
{
    const object_unit *unusable;
    binary_symbols *s;
    if (!z->elf_addresses)
        return pc;
    if ((s = symbols_for(z, pc, &unusable)))
        return binary_symbols_elf_address(s, pc);
    return unusable ? pc - unusable->load_bias : pc;
}

uint64_t binary_symbolize_pc_of(const binary_symbolizer *z, uint64_t shown)
{
    if (!z->syms || !z->elf_addresses)
        return shown;
    return binary_symbols_trace_address(z->syms, shown);
}

char *binary_symbolize_target(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    const object_unit *unusable;
    binary_symbols *s = symbols_for(z, pc, &unusable);
    binary_symbols_location loc;
    uint64_t shown = binary_symbolize_address(z, pc);
    if (s) {
        long before;
        binary_symbols_locate(s, pc, &loc);
        if (!loc.name && loc.section && (before = binary_symbols_preceding(s, pc)) >= 0) {
            /* outside every function but in a section: after the function before it, as objdump does */
            const binary_symbols_function *f = binary_symbols_function_at(s, (size_t)before);
            assert((size_t)before < binary_symbols_count(s)); /* f is a function of s */
            loc.name = f->name;
            loc.offset = pc - f->start;
        }
        if (loc.name && loc.offset)
            snprintf(buf, size, "0x%" PRIx64 " <%s+0x%" PRIx64 ">", shown, loc.name, loc.offset);
        else if (loc.name)
            snprintf(buf, size, "0x%" PRIx64 " <%s>", shown, loc.name);
        else
            snprintf(buf, size, "0x%" PRIx64, shown);
        return buf;
    }
    snprintf(buf, size, "0x%" PRIx64, shown);
    return buf;
}

/* The start of the function holding `pc` in `s`, a cold part (GCC's
 * NAME.cold, NAME.cold.N) counting as its function NAME when that exists;
 * 0 outside every function. */
static uint64_t function_start(const binary_symbols *s, uint64_t pc)
{
    binary_symbols_location loc;
    binary_symbols_locate(s, pc, &loc);
    if (loc.function < 0 || !loc.name)
        return 0;
    const char *cold = strstr(loc.name, ".cold");
    if (cold && (cold[5] == '\0' || cold[5] == '.')) {
        char name[BINARY_SYMBOLIZE_TEXT_MAX];
        size_t found;
        snprintf(name, sizeof name, "%.*s", (int)(cold - loc.name), loc.name);
        if (binary_symbols_find_name(s, name, &found, 1) == 1)
            return binary_symbols_function_at(s, found)->start;
    }
    return loc.start;
}

int binary_symbolize_classify(void *symbolizer, uint64_t pc, trace_insn_class *out)
{
    binary_symbolizer *z = symbolizer;
    const object_unit *unusable;
    binary_symbols *s = symbols_for(z, pc, &unusable);
    const uint8_t *bytes;
    size_t avail;
    binary_disasm_insn insn;

    *out = (trace_insn_class){ .function = 0, .kind = TRACE_INSN_OTHER };
    if (!s)
        return TEA_OK;
    out->function = function_start(s, pc);
    if (disassembler_for(z, s) || binary_symbols_read(s, pc, &bytes, &avail)
        || binary_disasm_one(z->dis, pc, bytes, avail, &insn)) {
        error_clear();
        return TEA_OK;
    }
    out->length = (uint8_t)insn.size;
    out->target = insn.target;
    if (insn.flags & BINARY_DISASM_F_CALL)
        out->kind = TRACE_INSN_CALL;
    else if (insn.flags & BINARY_DISASM_F_RETURN)
        out->kind = TRACE_INSN_RETURN;
    else if (insn.flags & BINARY_DISASM_F_BRANCH)
        out->kind = TRACE_INSN_JUMP;
    return TEA_OK;
}

int binary_symbolize_source(binary_symbolizer *z, uint64_t pc, char *buf, size_t size)
{
    const object_unit *unusable;
    binary_symbols *s = symbols_for(z, pc, &unusable);
    const char *file;
    unsigned line;
    int rc;
    buf[0] = '\0';
    if (!s || !z->source)
        return 0;
    if ((rc = binary_symbols_source(s, pc, &file, &line)) <= 0)
        return rc;
    snprintf(buf, size, "%s:%u", file, line);
    return 1;
}

/* --- finding functions ------------------------------------------------------- */

const binary_symbols *binary_symbolize_symbols_at(const binary_symbolizer *z, uint64_t pc)
{
    const object_unit *unusable;
    return symbols_for(z, pc, &unusable);
}

/* The symbols of the i-th object binary_symbolize_find searches: 0 the main
 * binary, then the listed objects in address order; NULL for one it skips
 * (none, unusable, the main binary's own entry). */
static const binary_symbols *searched_symbols(const binary_symbolizer *z, size_t i)
{
    object_unit *o;
    if (i == 0)
        return z->syms;
    o = &z->objects[i - 1];
    if (o->state == OBJECT_UNOPENED)
        object_open(z, o);
    return o->state == OBJECT_OPEN ? o->syms : NULL;
}

/* Appends a match to out (up to max), counting it in *count. */
static void add_match(binary_symbolize_match *out, size_t max, size_t *count, const binary_symbols *s, size_t index,
                      int clone)
{
    if (*count < max)
        out[*count] = (binary_symbolize_match){ s, binary_symbols_function_at(s, index), clone };
    ++*count;
}

/* The functions of `s` named `name` (or an alias) and its clones, merged in
 * address order (a function both is taken as named), appended to out. */
static int find_in(const binary_symbols *s, const char *name, binary_symbolize_match *out, size_t max,
                   size_t *count)
{
    size_t none, named = binary_symbols_find_name(s, name, &none, 0), clones = 0, *idx;
    size_t a = 0, b;
    int rc;
    if ((rc = binary_symbols_find_clones(s, name, &none, 0, &clones)))
        return rc;
    if (named + clones == 0)
        return TEA_OK;
    if (!(idx = malloc((named + clones) * sizeof *idx)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    binary_symbols_find_name(s, name, idx, named);
    if ((rc = binary_symbols_find_clones(s, name, idx + named, clones, &clones)) == TEA_OK) {
        for (b = named; a < named || b < named + clones;) {
            if (b == named + clones || (a < named && idx[a] <= idx[b])) {
                b += b < named + clones && idx[a] == idx[b]; /* a named function that is a clone too */
                add_match(out, max, count, s, idx[a++], 0);
            } else {
                add_match(out, max, count, s, idx[b++], 1);
            }
        }
    }
    free(idx);
    return rc;
}

/* Appends up to `max` - *n names of `s` close to `name` to out, leaving
 * out names already there. */
static void add_suggestions(const binary_symbols *s, const char *name, const char **out, size_t max, size_t *n)
{
    const char *close[BINARY_SYMBOLIZE_SUGGESTIONS];
    size_t k = binary_symbols_suggest(s, name, close, BINARY_SYMBOLIZE_SUGGESTIONS);
    for (size_t i = 0; i < k && *n < max; i++) {
        size_t j = 0;
        while (j < *n && strcmp(out[j], close[i]) != 0)
            j++;
        if (j == *n)
            out[(*n)++] = close[i];
    }
}

/* The error of a name binary_symbolize_find found nowhere: where it looked
 * (the main binary and `searched` listed objects) and the close names. */
static int not_found(const binary_symbolizer *z, const char *name, size_t searched)
{
    const char *close[BINARY_SYMBOLIZE_SUGGESTIONS];
    char where[BINARY_SYMBOLIZE_TEXT_MAX], list[BINARY_SYMBOLIZE_TEXT_MAX] = "";
    size_t k = 0;
    int tables = 0;
    for (size_t i = 0; i <= z->object_count; i++) {
        const binary_symbols *s = searched_symbols(z, i);
        if (s) {
            tables |= binary_symbols_table(s) != NULL;
            add_suggestions(s, name, close, BINARY_SYMBOLIZE_SUGGESTIONS, &k);
        }
    }
    for (size_t i = 0; i < k; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", close[i]);
    }
    if (searched == 0)
        snprintf(where, sizeof where, "%s", z->syms ? binary_symbols_path(z->syms) : "the trace's objects");
    else if (z->syms)
        snprintf(where, sizeof where, "%s or %zu other object%s of the trace", binary_symbols_path(z->syms),
                 searched, searched > 1 ? "s" : "");
    else
        snprintf(where, sizeof where, "%zu object%s of the trace", searched, searched > 1 ? "s" : "");
    if (!tables)
        return error_set(TEA_ERR_USAGE, "%s %s no function symbols (stripped?): cannot find '%s'", where,
                         searched || !z->syms ? "have" : "has", name);
    if (k)
        return error_set(TEA_ERR_USAGE, "no function '%s' in %s; close matches: %s", name, where, list);
    return error_set(TEA_ERR_USAGE, "no function '%s' in %s (and no close match)", name, where);
}

int binary_symbolize_find(binary_symbolizer *z, const char *name, binary_symbolize_match *out, size_t max,
                          size_t *count)
{
    size_t searched = 0;
    uint64_t shown;
    int rc;

    *count = 0;
    for (size_t i = 0; i <= z->object_count; i++) {
        const binary_symbols *s = searched_symbols(z, i);
        if (!s)
            continue;
        searched += i > 0;
        if ((rc = find_in(s, name, out, max, count)))
            return rc;
    }
    if (*count)
        return TEA_OK;
    if (name[0] != '-' && binary_symbolize_parse_offset(name, &shown) == TEA_OK) {
        uint64_t pc = binary_symbolize_pc_of(z, shown);
        const binary_symbols *s = binary_symbolize_symbols_at(z, pc);
        binary_symbols_location loc;
        if (s) {
            binary_symbols_locate(s, pc, &loc);
            if (loc.function >= 0) {
                add_match(out, max, count, s, (size_t)loc.function, 0);
                return TEA_OK;
            }
        }
    }
    error_clear();
    return not_found(z, name, searched);
}

/* --- symbol maps --------------------------------------------------------------- */

/* Appends `add`'s entries to `m` (taking their names), growing it. */
static int append_map(trace_symmap *m, trace_symmap *add)
{
    trace_symmap_entry *grown;
    if (add->count == 0)
        return TEA_OK;
    if (!(grown = realloc(m->entries, (m->count + add->count) * sizeof *grown)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    m->entries = grown;
    memcpy(m->entries + m->count, add->entries, add->count * sizeof *grown);
    m->count += add->count;
    free(add->entries);
    add->entries = NULL;
    add->count = 0;
    return TEA_OK;
}

/* The map of one object of the trace's list: its functions (opened on
 * first use), one range "[BASENAME]" when its file cannot be used, nothing
 * for the main binary. */
static int object_map(const binary_symbolizer *z, object_unit *o, unsigned flags, trace_symmap *out)
{
    memset(out, 0, sizeof *out);
    if (o->state == OBJECT_UNOPENED)
        object_open(z, o);
    if (o->state == OBJECT_OPEN)
        return binary_symbols_symmap(o->syms, flags, out);
    if (o->state != OBJECT_UNUSABLE || o->end <= o->start)
        return TEA_OK;
    if (!(out->entries = calloc(1, sizeof *out->entries)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    out->count = 1;
    out->entries[0].start = o->start;
    out->entries[0].end = o->end;
    if (!(out->entries[0].name = malloc(strlen(o->base) + sizeof "[]"))) {
        trace_symmap_free(out);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    sprintf(out->entries[0].name, "[%s]", o->base);
    return TEA_OK;
}

/* True when [start, end) overlaps an entry of the sorted, non-overlapping
 * entries[0 .. count). */
static int overlaps(const trace_symmap_entry *entries, size_t count, uint64_t start, uint64_t end)
{
    trace_symmap map = { (trace_symmap_entry *)entries, count };
    size_t lo = trace_symmap_lower_bound(&map, start);
    return lo < count && entries[lo].start < end;
}

/* Settles a map whose first `main_count` entries are the main binary's
 * (sorted, non-overlapping) and the rest the objects': an object's entry
 * that overlaps the main binary's is dropped, then the whole is sorted and
 * an entry overlapping one kept before it is dropped. */
static void settle_map(trace_symmap *m, size_t main_count)
{
    size_t kept = main_count;
    for (size_t i = main_count; i < m->count; i++) {
        trace_symmap_entry *e = &m->entries[i];
        if (overlaps(m->entries, main_count, e->start, e->end)) {
            free(e->name);
            continue;
        }
        m->entries[kept++] = *e;
    }
    m->count = kept;
    trace_symmap_settle(m);
}

int binary_symbolize_symmap(const binary_symbolizer *z, unsigned flags, trace_symmap *out)
{
    trace_symmap part;
    size_t main_count;
    int rc = TEA_OK;

    memset(out, 0, sizeof *out);
    if (z->syms && (rc = binary_symbols_symmap(z->syms, flags, out)))
        return rc;
    main_count = out->count;
    for (size_t i = 0; i < z->object_count && rc == TEA_OK; i++) {
        if ((rc = object_map(z, &z->objects[i], flags, &part)) == TEA_OK) {
            rc = append_map(out, &part);
            trace_symmap_free(&part);
        }
    }
    if (rc) {
        trace_symmap_free(out);
        return rc;
    }
    if (z->object_count)
        settle_map(out, main_count);
    return TEA_OK;
}
