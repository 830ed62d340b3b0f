/*
 * unwind.h: function ranges from an ELF file's unwind tables, for code that
 * no symbol names (stripped binaries and libraries).
 *
 * Internal to binary/: symbols.h names the functions it finds (the tests
 * use it too).
 *
 * Every FDE (frame description entry) of `.eh_frame`, or of `.debug_frame`
 * when a file has no `.eh_frame`, describes one function, or one part of a
 * function the compiler split off (`.cold` parts get an FDE of their own):
 * its range [initial location, + address range) in ELF (link-time)
 * addresses. libdw's dwarf_next_cfi walks the entries; the two addresses of
 * each FDE are decoded here by the pointer encoding its CIE's augmentation
 * gives ('R'), as `readelf --debug-dump=frames` shows them.
 *
 * Functions from this table are named BINARY_UNWIND_NAME_PREFIX and the
 * start in lower-case hex without leading zeros ("fn_4320"): the name tea
 * record's --start-at and pics annotate accept.
 */
#ifndef TEA_BINARY_UNWIND_H
#define TEA_BINARY_UNWIND_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* The prefix of a function named by its ELF address. */
#define BINARY_UNWIND_NAME_PREFIX "fn_"
/* Room for the name of any 64-bit address, NUL included. */
#define BINARY_UNWIND_NAME_MAX (sizeof BINARY_UNWIND_NAME_PREFIX + 16)

/* One FDE's range, ELF addresses. */
typedef struct binary_unwind_range {
    uint64_t start, end;  /* [start, end), end > start */
} binary_unwind_range;

/* The FDE ranges of `elf`, sorted by start (duplicates removed; an FDE
 * whose encoding is not understood, or whose range is empty, is skipped):
 * *out is malloc'd (NULL when there are none) and *table names the section
 * read (".eh_frame", ".debug_frame") or NULL. Returns 0 or TEA_ERR_NOMEM
 * (TEA_ERR_USAGE for a NULL argument in a Release build, TEA_ASSERT_ARG);
 * a damaged table ends the walk where it stops making sense, keeping the
 * ranges before. */
int binary_unwind_ranges(Elf *elf, binary_unwind_range **out, size_t *count, const char **table);

/* Writes "fn_HEX" for ELF address `addr` into buf (BINARY_UNWIND_NAME_MAX
 * bytes at least). */
void binary_unwind_name(uint64_t addr, char *buf, size_t size);

#endif
