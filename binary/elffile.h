/*
 * elffile.h: the one place that opens an ELF file and reads its GNU
 * build-id, for the symbolizer (binary/symbols), the core model's code
 * reader (model/elfcode) and tea record's Valgrind session (record/session).
 *
 * The file is read through libelf with ELF_C_READ_MMAP: the image is
 * mapped read-only and elf_rawfile() gives its bytes for as long as the
 * handle is open.
 */
#ifndef TEA_BINARY_ELFFILE_H
#define TEA_BINARY_ELFFILE_H

#include <libelf.h>

/* An open ELF file: the descriptor and libelf's handle on it. */
typedef struct binary_elffile {
    int fd;    /* -1 when closed */
    Elf *elf;  /* NULL when closed */
} binary_elffile;

/* Opens `path` read-only and begins reading it with libelf (any kind of
 * file libelf accepts: an ELF file, an archive, or bytes of no known kind;
 * callers check elf_kind). Errors: TEA_ERR_UNSUPPORTED (libelf out of
 * date), TEA_ERR_IO "PATH: cannot open: REASON", TEA_ERR_FORMAT "PATH:
 * cannot read as ELF: REASON". On error `f` is closed. */
int binary_elffile_open(binary_elffile *f, const char *path);

/* Ends the libelf handle and closes the descriptor. Safe on a closed or
 * zeroed-then-failed handle; leaves it closed. */
void binary_elffile_close(binary_elffile *f);

/* The GNU build-id (the first SHT_NOTE note of type NT_GNU_BUILD_ID, owner
 * "GNU", with a non-empty descriptor) of `elf` in lower-case hex, allocated
 * into *out (NULL when the file has none). Returns 0 or TEA_ERR_NOMEM. */
int binary_elffile_build_id(Elf *elf, char **out);

/* The build-id of the file at `path` (binary_elffile_build_id), or NULL when it
 * cannot be opened, has none, or memory runs out: for callers that treat an
 * unknown build-id as absent. */
char *binary_elffile_read_build_id(const char *path);

#endif
