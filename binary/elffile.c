/*
 * elffile.c: opening ELF files and reading build-ids (see elffile.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "elffile.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The GNU note owner, NUL included. */
#define GNU_NOTE_NAME "GNU"
#define GNU_NOTE_NAME_SIZE 4

int binary_elffile_open(binary_elffile *f, const char *path)
{
    TEA_ASSERT_ARG(f != NULL);
    TEA_ASSERT_ARG(path != NULL);
    f->fd = -1;
    f->elf = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return error_set(TEA_ERR_UNSUPPORTED, "libelf is out of date: %s", elf_errmsg(-1));
    if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!(f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL))) {
        int rc = error_set(TEA_ERR_FORMAT, "%s: cannot read as ELF: %s", path, elf_errmsg(-1));
        binary_elffile_close(f);
        return rc;
    }
    return TEA_OK;
}

void binary_elffile_close(binary_elffile *f)
{
    if (f->elf)
        elf_end(f->elf);
    if (f->fd >= 0)
        close(f->fd);
    f->elf = NULL;
    f->fd = -1;
}

int binary_elffile_build_id(Elf *elf, char **out)
{
    Elf_Scn *scn = NULL;
    *out = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        GElf_Nhdr nh;
        Elf_Data *data;
        size_t off = 0, name_off, desc_off;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
            continue;
        while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
            const unsigned char *desc = (const unsigned char *)data->d_buf + desc_off;
            if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != GNU_NOTE_NAME_SIZE || nh.n_descsz == 0
                || memcmp((const char *)data->d_buf + name_off, GNU_NOTE_NAME, GNU_NOTE_NAME_SIZE) != 0)
                continue;
            if (!(*out = malloc(2 * (size_t)nh.n_descsz + 1)))
                return error_set(TEA_ERR_NOMEM, "out of memory");
            for (size_t i = 0; i < nh.n_descsz; i++)
                snprintf(*out + 2 * i, 3, "%02x", desc[i]);
            return TEA_OK;
        }
    }
    return TEA_OK;
}

char *binary_elffile_read_build_id(const char *path)
{
    binary_elffile f;
    char *hex = NULL;
    if (binary_elffile_open(&f, path))
        return NULL;
    if (elf_kind(f.elf) == ELF_K_ELF && binary_elffile_build_id(f.elf, &hex))
        hex = NULL;
    binary_elffile_close(&f);
    return hex;
}
