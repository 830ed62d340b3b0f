/*
 * symbols.h: function symbols, section contents and source lines of an ELF
 * binary, looked up by the PCs of a trace.
 *
 * Functions come from the ELF symbol table (.symtab, or .dynsym when the
 * binary has no function in .symtab, e.g. after `strip`): symbols of type
 * STT_FUNC and STT_GNU_IFUNC defined in a section. Their ranges:
 *
 *   - several symbols at one address are aliases; one name is chosen, in this
 *     order of preference: a symbol with a size, a global one (STB_GLOBAL), a
 *     non-weak one, the shorter name, the lexicographically smaller name; the
 *     others stay searchable by name (binary_symbols_find_name);
 *   - a symbol with a size covers [value, value + size), cut short at the next
 *     function's start so that ranges never overlap;
 *   - a symbol of size zero (hand-written assembly without .size) extends to
 *     the next function's start or the end of its section, whichever is first.
 *
 * PLT stubs get synthetic functions named "NAME@plt", as objdump names them:
 * each entry of .plt, .plt.sec and .plt.got (x86-64) or .plt (RISC-V) whose
 * code jumps through a GOT slot that a dynamic relocation names (AArch64:
 * none yet).
 *
 * Code no symbol names (a stripped binary or library: Debian ships them so)
 * gets its functions from the unwind tables (binary/unwind.h): each FDE of
 * .eh_frame (else .debug_frame, of the binary or its debug file) whose
 * start no symbol covers (at a symbol's address or inside a sized one) is a
 * function named "fn_HEX" by its ELF address ("fn_4290"), over the FDE's
 * range; FDEs in PLT sections are not. tea record's --start-at and pics
 * annotate accept these names.
 *
 * Symbol versions are dropped from every name ("pthread_mutex_lock@@
 * GLIBC_2.2.5" is "pthread_mutex_lock"), so that one function has one name
 * in every view.
 *
 * An address outside every range has no function: reports show it as
 * "[unknown SECTION]" (the allocated section holding it, such as .plt) or
 * "[unknown]", never as the nearest symbol's name.
 *
 * Addresses. Every function of this module takes and returns *trace PCs*:
 *
 *     trace PC = trace_form(ELF address + load bias)   (mod 2^64)
 *
 * The load bias (binary_symbols_set_bias) is where a position-independent binary
 * was loaded (0 for one that runs at its link-time addresses). trace_form
 * applies the virtual-address width of the trace (binary_symbols_set_va_bits, V):
 * traces such as TraceDoctor's record a PC as the V-bit virtual address
 * zero-extended to 64 bits, while an ELF image linked in the upper half of
 * the address space (a kernel) has sign-extended 64-bit addresses. So a
 * 64-bit address whose bits V-1..63 are all set is written as its low V bits,
 * and conversely a trace PC below 2^V with bit V-1 set is sign-extended from
 * bit V-1 before the bias is subtracted. Addresses of user-space programs
 * (bit V-1 clear) are unchanged in both directions. V = 64 (the default)
 * disables both rules.
 *
 * Source lines come from the DWARF line tables (libdw), read on first use:
 * the row with the greatest address not above the PC, as addr2line finds it.
 *
 * A handle is read-only after it is set up (bias, width) except for the
 * lazily read line tables; use one per thread.
 */
#ifndef TEA_BINARY_SYMBOLS_H
#define TEA_BINARY_SYMBOLS_H

#include "trace/symmap.h"

#include <stddef.h>
#include <stdint.h>

typedef struct binary_symbols binary_symbols;

/* Full 64-bit addresses: no zero-extension to undo. */
#define BINARY_SYMBOLS_VA_BITS_FULL 64
/* The narrowest width accepted by binary_symbols_set_va_bits. */
#define BINARY_SYMBOLS_VA_BITS_MIN 32

/* One function: a range of trace PCs (after the bias and width are applied,
 * see above) and its chosen name. */
typedef struct binary_symbols_function {
    uint64_t start, end;   /* [start, end), trace PCs */
    const char *name;      /* the preferred name among its aliases */
    uint64_t elf_start;    /* start as an ELF (link-time) address */
} binary_symbols_function;

/* The function whose start is the nearest at or before `pc` (a trace PC),
 * whether or not its range holds it, or -1 when none starts there or
 * before: objdump names an address outside every function after the symbol
 * before it ("<_init+0x20>" for a PLT's header). */
long binary_symbols_preceding(const binary_symbols *s, uint64_t pc);

/* Where a PC is. */
typedef struct binary_symbols_location {
    long function;         /* index for binary_symbols_function_at, or -1 outside every function */
    const char *name;      /* the function's name, NULL when none */
    uint64_t start;        /* the function's first trace PC (0 when none) */
    uint64_t offset;       /* pc - start (0 when no function) */
    const char *section;   /* the allocated section holding the PC, NULL when none */
} binary_symbols_location;

/* Opens the ELF file at `path` and reads its function symbols and allocated
 * sections. The bias starts at 0, the width at BINARY_SYMBOLS_VA_BITS_FULL.
 * Errors: TEA_ERR_IO (cannot open or read), TEA_ERR_FORMAT (not an ELF file,
 * corrupt headers), TEA_ERR_UNSUPPORTED (a relocatable object, an archive),
 * TEA_ERR_NOMEM; each message names the file. */
int binary_symbols_open(binary_symbols **out, const char *path);

/* Closes the file and frees everything. Safe on NULL. */
void binary_symbols_close(binary_symbols *s);

/* The separate debug file found for the binary (binary_symbols_open), or NULL:
 * ROOT/.build-id/xx/yyyy.debug with the binary's build-id, ROOT being
 * $TEA_DEBUG_ROOT or /usr/lib/debug, else the file .gnu_debuglink names, in
 * the binary's directory, its .debug/ subdirectory or ROOT/DIR (accepted
 * when its build-id equals the binary's, or, without one, its CRC-32 the
 * one the link records), as gdb and libdw look for them. Its .symtab is
 * used when the binary has none, its DWARF when the binary has none; code
 * always comes from the binary. */
const char *binary_symbols_debug_file(const binary_symbols *s);

/* The path given to binary_symbols_open. */
const char *binary_symbols_path(const binary_symbols *s);

/* The architecture as binary_disasm_open names it ("x86_64", "aarch64", "riscv64"),
 * or NULL for another machine (symbols work, disassembly does not). */
const char *binary_symbols_arch(const binary_symbols *s);

/* The ELF build-id (NT_GNU_BUILD_ID) in lower-case hex, or NULL when the file
 * has none. */
const char *binary_symbols_build_id(const binary_symbols *s);

/* True for a position-independent file (ET_DYN: a PIE or a shared object),
 * whose runtime addresses need a load bias. */
int binary_symbols_is_position_independent(const binary_symbols *s);

/* Which tables the functions came from: ".symtab", ".symtab of the debug
 * file", ".dynsym", followed by " and .eh_frame" (or .debug_frame) when the
 * unwind tables named functions too, the unwind table alone, or NULL when
 * nothing named a function. */
const char *binary_symbols_table(const binary_symbols *s);

/* True when the file is stripped (no .symtab of its own, none from a debug
 * file) and the unwind tables named some of its functions (fn_HEX): the
 * names a debug file would give are missing. */
int binary_symbols_needs_debug_file(const binary_symbols *s);

/* The variable naming the debuginfod servers (space-separated URLs) that
 * binary_symbols_open asks for a missing debug file, as gdb, perf and
 * valgrind read it. */
#define BINARY_SYMBOLS_DEBUGINFOD_URLS_ENV "DEBUGINFOD_URLS"

/* Sets the load bias: runtime address = ELF address + bias (mod 2^64). */
void binary_symbols_set_bias(binary_symbols *s, uint64_t bias);

/* The load bias in use. */
uint64_t binary_symbols_bias(const binary_symbols *s);

/* The ELF (link-time) address of a trace PC: the PC less the bias, after
 * the width rule above. */
uint64_t binary_symbols_elf_address(const binary_symbols *s, uint64_t pc);

/* The trace PC of an ELF address: address + bias, after the width rule
 * above (the inverse of binary_symbols_elf_address). */
uint64_t binary_symbols_trace_address(const binary_symbols *s, uint64_t elf_addr);

/* Sets the trace's virtual-address width (see above). TEA_ERR_USAGE unless
 * BINARY_SYMBOLS_VA_BITS_MIN <= bits <= BINARY_SYMBOLS_VA_BITS_FULL. */
int binary_symbols_set_va_bits(binary_symbols *s, unsigned bits);

/* Number of functions; binary_symbols_function_at(s, i) for i below it, sorted by
 * address, ranges disjoint. */
size_t binary_symbols_count(const binary_symbols *s);
const binary_symbols_function *binary_symbols_function_at(const binary_symbols *s, size_t index);

/* Locates a trace PC: its function (if any) and section (if any). */
void binary_symbols_locate(const binary_symbols *s, uint64_t pc, binary_symbols_location *loc);

/* Writes "name+0xOFF" for a PC inside a function, else "[unknown SECTION]"
 * or "[unknown]", into buf (truncated to size). Returns buf. */
char *binary_symbols_format(const binary_symbols *s, uint64_t pc, char *buf, size_t size);

/* The indices of every function that has `name` as its chosen name or as an
 * alias, in address order: up to `max` into `out`; returns how many there
 * are (which may exceed max). */
size_t binary_symbols_find_name(const binary_symbols *s, const char *name, size_t *out, size_t max);

/* True when `symbol` names a clone GCC made of the function `source`:
 * `source` followed by one or more clone suffixes, each ".constprop.N",
 * ".isra.N", ".part.N" or ".cold" (older GCC: ".cold.N"), N decimal digits,
 * in any order ("f.part.0.constprop.0", "f.constprop.0.cold"); or, for a
 * demangled C++ name, each " [clone .constprop.N]" and so on, as
 * __cxa_demangle writes them ("f(int) [clone .cold]"). `symbol` equal to
 * `source` is not a clone of it. */
int binary_symbols_is_clone(const char *symbol, const char *source);

/* The indices of every function that has a clone of `name`
 * (binary_symbols_is_clone) as its chosen name or as an alias, in address
 * order, each once: up to `max` into `out`; *count is how many there are
 * (which may exceed max). Returns 0 or TEA_ERR_NOMEM. */
int binary_symbols_find_clones(const binary_symbols *s, const char *name, size_t *out, size_t max, size_t *count);

/* Up to `max` known names close to `name` (a substring match, ignoring
 * case, or an edit distance of at most a quarter of its length, at least
 * 2), closest first. Returns how many were written. */
size_t binary_symbols_suggest(const binary_symbols *s, const char *name, const char **out, size_t max);

/* The file's bytes at a trace PC: *bytes points into the file's contents,
 * *avail is the count up to the end of the section. Errors:
 * TEA_ERR_FORMAT (naming the PC) when the PC is in no section with contents
 * in the file. */
int binary_symbols_read(const binary_symbols *s, uint64_t pc, const uint8_t **bytes, size_t *avail);

/* An executable section (SHF_ALLOC and SHF_EXECINSTR) with contents in the
 * file, in ELF (link-time) addresses: where --adjust-vma auto looks for
 * instruction starts. */
typedef struct binary_symbols_code {
    const char *name;          /* ".text" */
    uint64_t addr;             /* ELF address of data[0] */
    const uint8_t *data;       /* the contents, pointing into the mapped file */
    size_t size;               /* bytes at data */
} binary_symbols_code;

/* The executable sections with contents, in address order: up to `max`
 * into `out`; returns how many there are (which may exceed max). */
size_t binary_symbols_code_sections(const binary_symbols *s, binary_symbols_code *out, size_t max);

/* Shows C++ names demangled (on, the default after binary_symbols_open: "std::
 * vector<int>::push_back(int const&)", through libstdc++'s __cxa_demangle)
 * or as in the file (off: "_ZNSt6vectorIiSaIiEE9push_backERKi"). Both
 * forms stay searchable by binary_symbols_find_name. */
void binary_symbols_set_demangle(binary_symbols *s, int on);

/* Flags of binary_symbols_symmap. */
enum {
    /* Also add one range per stretch of an allocated section outside every
     * function, named "[unknown SECTION]". */
    BINARY_SYMBOLS_MAP_SECTION_GAPS = 1u << 0
};

/* Builds a symbol map of the functions in trace PCs (names copied), for the
 * function granularity of the error metric. Returns 0 or TEA_ERR_NOMEM. */
int binary_symbols_symmap(const binary_symbols *s, unsigned flags, trace_symmap *out);

/* Reads the DWARF line tables if not done yet. Returns 1 when the file has
 * line information, 0 when it has none (no DWARF, or DWARF without line
 * tables), or TEA_ERR_NOMEM. */
int binary_symbols_load_lines(binary_symbols *s);

/* The source file and line of a trace PC. Returns 1 and sets *file (owned by
 * the handle) and *line when known; 0 when the file has no line for it (or
 * none at all); TEA_ERR_NOMEM. */
int binary_symbols_source(binary_symbols *s, uint64_t pc, const char **file, unsigned *line);

#endif
