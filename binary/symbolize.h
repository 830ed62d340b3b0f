/*
 * symbolize.h: one call that turns the traced program's identity (a trace's
 * or a PICS's trace_program and the objects the trace recorded) and the
 * --elf and --adjust-vma options into a symbolizer, for every command that
 * shows PCs (pics report, pics annotate, tea topdown and others).
 *
 * Which binary: --elf when given (it must open); else the program's binary
 * (trace.binary) if that file exists; else none, and PCs are shown as
 * addresses.
 *
 * Which load bias (runtime address = ELF address + bias): --adjust-vma auto
 * when given (binary_symbolize_guess_bias over opts->auto_pcs, the PCs the
 * caller has: a PICS's, pics_distinct_pcs, or a trace's first records; the
 * bias and score are printed on stderr, and no clear winner is
 * TEA_ERR_USAGE); --adjust-vma OFFSET when given (it wins over the recorded
 * bias, with a warning when they differ); else the program's recorded bias
 * (trace.load_bias, from the trace header); else 0 for a binary linked at fixed addresses (ET_EXEC). A
 * position-independent binary (ET_DYN) with neither is refused
 * (TEA_ERR_USAGE, saying to pass --adjust-vma; 0 when the PCs are link-time
 * addresses): the bias is never guessed.
 *
 * Checks, printed as warnings on stderr ("<command>: warning: ..."): the
 * binary's build-id against the one the trace recorded (a mismatch, or a
 * binary without one when the trace has one), and its architecture against
 * the trace's.
 *
 * The trace's objects (a trace_object_list, recorded by tea record): a PC
 * that no section of the main binary holds but a listed object's range does
 * is looked up in that object's file, opened on first use with the
 * object's recorded load bias (and its separate debug file, as for the main
 * binary). A file that cannot be opened, or whose build-id differs from the
 * recorded one, is never used: its PCs are named "[BASENAME]" (function) and
 * "[BASENAME]+0xELFADDR" (location), with one warning per object. The
 * objects that are the main binary (same build-id, or the same path when
 * either has none) are left to it. Without a main binary (none given, none
 * recorded, or not readable), the objects still name their PCs; the
 * executable's own entry in the list then names the program's. Traces
 * without objects are symbolized as before, by the main binary alone.
 *
 * --elf naming one of the trace's listed objects rather than its main
 * binary (the same build-id: `--elf libc.so.6` for libc's functions) takes
 * that object's recorded load bias unless --adjust-vma is given (a warning
 * when it differs from it), and is not reported as another build.
 *
 * Stripped objects (opts->note_stripped): for each object opened (the main
 * binary, a listed object on first use) that binary_symbols_needs_debug_file
 * says lacks its names, one note on stderr ("<command>: note: ...") names
 * the object and how to get its debug file: Debian's -dbgsym package of the
 * package shipping it (from the debian-debug archive; `dpkg -S` names the
 * package), or the debuginfod servers of DEBUGINFOD_URLS (or, when that is
 * set, that its servers had none for the object's build-id).
 *
 * Virtual-address width (symbols.h): the trace's PCs are taken as
 * zero-extended virtual addresses of the architecture's usual width: 39 bits
 * for riscv64 (Sv39, TraceDoctor's BOOM), 48 for x86_64 and aarch64.
 */
#ifndef TEA_BINARY_SYMBOLIZE_H
#define TEA_BINARY_SYMBOLIZE_H

#include "binary/symbols.h"
#include "trace/callpath.h"
#include "trace/objects.h"
#include "trace/symmap.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Room for any text the symbolizer writes (names are truncated to it). */
#define BINARY_SYMBOLIZE_TEXT_MAX 512

typedef struct binary_symbolize_options {
    const char *elf_path;    /* --elf BINARY, or NULL for the binary the PICS records */
    uint64_t adjust_vma;     /* --adjust-vma: runtime address - ELF address */
    int has_adjust_vma;      /* adjust_vma was given */
    int source;              /* --source: read the DWARF line tables */
    const char *command;     /* prefix of warnings, e.g. "pics report" */
    int adjust_vma_auto;     /* --adjust-vma auto: infer the bias from auto_pcs */
    const uint64_t *auto_pcs; /* the PCs --adjust-vma auto scores candidates with, ascending and distinct
                                 (a PICS's: pics_distinct_pcs; tea topdown: the start of the trace,
                                 trace_pcs_prefix) */
    size_t auto_pc_count;
    int no_demangle;         /* --no-demangle: C++ names as in the file (binary_symbols_set_demangle) */
    int elf_addresses;       /* --addresses elf: show ELF (link-time) addresses, as objdump -d does,
                                instead of runtime ones (binary_symbolize_address) */
    int note_stripped;       /* print the note on how to name a stripped object's functions (see
                                above), once per object opened */
} binary_symbolize_options;

typedef struct binary_symbolizer binary_symbolizer;

/* Parses a load bias or an address, as every --adjust-vma takes it: hex with
 * 0x (or 0X), or decimal, optionally preceded by '-' for a negative offset,
 * which is taken modulo 2^64 (-0x10 is 0xfffffffffffffff0). Nothing else is
 * accepted: no sign after '-', no '+', no leading space, no empty digits, nothing
 * after the number, nothing beyond 64 bits. Returns 0 and sets *out, or
 * TEA_ERR_USAGE (message set; *out unchanged). */
int binary_symbolize_parse_offset(const char *text, uint64_t *out);

/* What --adjust-vma auto found (binary_symbolize_guess_bias). */
typedef struct binary_symbolize_bias_guess {
    uint64_t bias;           /* the best candidate */
    size_t hits;             /* sampled PCs on an instruction start under it */
    size_t in_code;          /* sampled PCs in an executable section under it (>= hits) */
    size_t pcs;              /* PCs sampled */
    uint64_t runner_up;      /* the next best candidate (valid when candidates > 1) */
    size_t runner_up_hits;
    size_t candidates;       /* page-aligned biases scored */
} binary_symbolize_bias_guess;

/* The page size candidate biases are multiples of. */
#define BINARY_SYMBOLIZE_BIAS_ALIGN 4096u
/* At most this many distinct PCs are scored (evenly spread over them). */
#define BINARY_SYMBOLIZE_BIAS_SAMPLE 1024u
/* Candidates come from this many anchor PCs (evenly spread). */
#define BINARY_SYMBOLIZE_BIAS_ANCHORS 8u
/* Under the best candidate, at least this percentage of the PCs that land in
 * executable sections must land on instruction starts (by chance about a
 * quarter of x86-64 bytes and two thirds of RISC-V halfwords are starts) ... */
#define BINARY_SYMBOLIZE_BIAS_MIN_PRECISION_PERCENT 90u
/* ... at least this many PCs (or all when fewer) must land on starts ... */
#define BINARY_SYMBOLIZE_BIAS_MIN_HITS 8u
/* ... and the runner-up must put fewer than this percentage of the best's
 * count on starts. */
#define BINARY_SYMBOLIZE_BIAS_MARGIN_PERCENT 75u

/*
 * --adjust-vma auto: infers the load bias of `syms` from trace PCs (`pcs`,
 * sorted ascending, distinct; `va_bits` their virtual-address width as in
 * symbols.h). Candidates are multiples of BINARY_SYMBOLIZE_BIAS_ALIGN that put one
 * of a few anchor PCs inside an executable section (binary_symbols_code_sections);
 * each is scored by how many sampled PCs then land on an instruction start,
 * the starts being found by disassembling every executable section linearly
 * from its start and from each function symbol (an undecodable unit is
 * skipped). PCs outside the binary (shared objects, the kernel) count for no
 * candidate. Fills *out and returns 0 when the best candidate is clearly
 * best (BINARY_SYMBOLIZE_BIAS_MIN_PRECISION_PERCENT, BINARY_SYMBOLIZE_BIAS_MIN_HITS,
 * BINARY_SYMBOLIZE_BIAS_MARGIN_PERCENT); else
 * TEA_ERR_USAGE with a message giving the scores (*out still filled), also
 * for no PCs or no executable section. TEA_ERR_UNSUPPORTED for an
 * architecture capstone cannot decode; TEA_ERR_NOMEM. Does not set the bias.
 */
int binary_symbolize_guess_bias(const binary_symbols *syms, const uint64_t *pcs, size_t count, unsigned va_bits,
                                binary_symbolize_bias_guess *out);

/* Resolves the binary and the bias for `program` and its `objects` (see
 * above; objects may be NULL or empty) and opens it. Without any binary the
 * symbolizer still works and formats plain addresses. Errors: those of
 * binary_symbols_open for the chosen binary (TEA_ERR_IO, TEA_ERR_FORMAT,
 * ...), TEA_ERR_USAGE for a position-independent binary without a bias,
 * TEA_ERR_NOMEM. */
int binary_symbolize_open(binary_symbolizer **out, const trace_program *program, const trace_object_list *objects,
                          const binary_symbolize_options *opts);

void binary_symbolize_close(binary_symbolizer *z);

/* The opened binary's symbols, or NULL when there is no binary. */
binary_symbols *binary_symbolize_symbols(const binary_symbolizer *z);

/* The binary's path, or NULL. */
const char *binary_symbolize_binary(const binary_symbolizer *z);

/* True when the PICS listed the trace's objects (reports then add an object
 * column). */
int binary_symbolize_has_objects(const binary_symbolizer *z);

/* The file name of the object holding `pc`, as perf's "Shared Object"
 * column shows it: the listed object's ("libc.so.6"), else the main
 * binary's when it is used for the PC; "" when neither. Returns buf. */
char *binary_symbolize_object(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size);

/* The function holding `pc` ("main"), "[unknown SECTION]" or "[unknown]"
 * (always "[unknown]" without a binary), "[BASENAME]" in a listed object
 * whose file cannot be used. Returns buf. */
char *binary_symbolize_function(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size);

/* "main+0x1c" for a PC in a function, "[BASENAME]+0xELFADDR" in a listed
 * object whose file cannot be used, else the PC in hex ("0x401026").
 * Returns buf. */
char *binary_symbolize_location(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size);

/* The address to show for the trace PC `pc`: `pc` itself, or with
 * --addresses elf (and a binary) its ELF address, pc - bias. */
uint64_t binary_symbolize_address(const binary_symbolizer *z, uint64_t pc);

/* The trace PC of an address as binary_symbolize_address shows it (its inverse
 * for the main binary's addresses): for addresses a user types with
 * --addresses elf. */
uint64_t binary_symbolize_pc_of(const binary_symbolizer *z, uint64_t shown);

/* A code address as objdump names a branch target: "0xADDR <name>" at a
 * function's start, "0xADDR <name+0xOFF>" inside one, and outside every
 * function but inside a section after the function that starts nearest
 * before it ("0x1020 <_init+0x20>" for a PLT's header), else "0xADDR";
 * ADDR as binary_symbolize_address shows it. Returns buf. */
char *binary_symbolize_target(const binary_symbolizer *z, uint64_t pc, char *buf, size_t size);

/* The instruction at `pc` as "mnemonic operands" and its size in bytes. The
 * target of a direct branch or call replaces its last operand as
 * binary_symbolize_target writes it ("call 0x401030 <helper>", "bnez a5, 0x10086
 * <loop+0xe>"), whatever capstone printed (RISC-V: an offset).
 * Returns 0, or a negative code with a message (no binary, an architecture
 * capstone cannot decode, a PC in no section of the binary, bytes that are
 * no instruction); callers showing many PCs print a placeholder instead. */
int binary_symbolize_disasm(binary_symbolizer *z, uint64_t pc, char *buf, size_t size, unsigned *insn_size);

/* What the instruction at the trace PC `pc` is to a call-path tracker
 * (trace/callpath.h, a trace_classify_fn whose argument is the
 * symbolizer): a call, a return, another control transfer or other, its
 * length, and the start of its function (a cold part NAME.cold counting as
 * NAME). An address no object holds or whose bytes do not decode is
 * "other" of unknown length in no function: never an error. */
int binary_symbolize_classify(void *symbolizer, uint64_t pc, trace_insn_class *out);

/* The PC's source as "FILE:LINE" (the file's full path as DWARF names it).
 * Returns 1 when known, 0 when not (no --source, no DWARF, no line for it:
 * buf is ""), or TEA_ERR_NOMEM. */
int binary_symbolize_source(binary_symbolizer *z, uint64_t pc, char *buf, size_t size);

/* The symbols of the object holding the trace PC `pc`, as every naming
 * function here chooses them (the main binary's, a listed object's opened
 * on first use), or NULL when none can be used. */
const binary_symbols *binary_symbolize_symbols_at(const binary_symbolizer *z, uint64_t pc);

/* A function a name or an address designates (binary_symbolize_find). */
typedef struct binary_symbolize_match {
    const binary_symbols *syms;              /* the object holding it: the main binary's or a listed object's */
    const binary_symbols_function *function; /* one of syms' functions */
    int clone;                               /* a GCC clone of the name (binary_symbols_is_clone), not the
                                                name or an alias of it */
} binary_symbolize_match;

/* Close names a failed binary_symbolize_find lists at most. */
#define BINARY_SYMBOLIZE_SUGGESTIONS 5

/*
 * The functions `name` designates in every object the symbolizer knows:
 * the main binary, then the trace's listed objects in address order (each
 * opened on first use; unusable ones and the main binary's own entry
 * skipped). In each, every function that has `name` as its name or an
 * alias (mangled or demangled) and every GCC clone of it
 * (binary_symbols_find_clones), in address order. When no object has one
 * and `name` is an address as binary_symbolize_address shows it, the
 * function holding that address. Up to `max` into `out`; *count is how many
 * there are (which may exceed max). None: TEA_ERR_USAGE with a message
 * saying where it looked and up to BINARY_SYMBOLIZE_SUGGESTIONS close names
 * (the main binary's first). TEA_ERR_NOMEM.
 */
int binary_symbolize_find(binary_symbolizer *z, const char *name, binary_symbolize_match *out, size_t max,
                          size_t *count);

/* The function ranges as a symbol map (binary_symbols_symmap with `flags`):
 * the main binary's, then every listed object's (each opened), an object
 * whose file cannot be used being one range "[BASENAME]". An object's range
 * that overlaps the main binary's is left out, as is the later of two
 * objects' overlapping ranges. Empty without a binary or objects. Returns 0
 * or TEA_ERR_NOMEM. */
int binary_symbolize_symmap(const binary_symbolizer *z, unsigned flags, trace_symmap *out);

#endif
