/*
 * outfile.c: atomic output through a temporary file and rename(2).
 */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Permission bits a newly created output file gets before the umask. */
#define OUTFILE_MODE 0666

struct outfile {
    FILE *stream;
    char *path;       /* destination */
    char *temp_path;  /* NULL when writing to stdout */
};

/* Builds "<dir>/.<base>.tmp.XXXXXX" so the temporary file is on the same file
 * system as the destination and rename(2) is atomic. */
static char *temp_name_for(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = path + dir_len;
    size_t size = strlen(path) + sizeof("/..tmp.XXXXXX");
    char *name = malloc(size);
    if (name)
        snprintf(name, size, "%.*s.%s.tmp.XXXXXX", (int)dir_len, path, base);
    return name;
}

int outfile_open(outfile **out, const char *path)
{
    outfile *f = calloc(1, sizeof *f);
    int fd;

    *out = NULL;
    if (!f || !(f->path = strdup(path)))
        goto nomem;
    if (strcmp(path, "-") == 0) {
        f->stream = stdout;
        *out = f;
        return TEA_OK;
    }
    if (!(f->temp_path = temp_name_for(path)))
        goto nomem;
    fd = mkstemp(f->temp_path);
    if (fd < 0) {
        int saved = errno;
        free(f->temp_path);
        free(f->path);
        free(f);
        return tea_error_set(TEA_ERR_IO, "%s: cannot create output file: %s", path, strerror(saved));
    }
    {
        /* mkstemp creates 0600; give the file the mode open(2) would. */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, OUTFILE_MODE & ~mask);
    }
    f->stream = fdopen(fd, "wb");
    if (!f->stream) {
        close(fd);
        unlink(f->temp_path);
        goto nomem;
    }
    *out = f;
    return TEA_OK;

nomem:
    if (f) {
        free(f->temp_path);
        free(f->path);
        free(f);
    }
    return tea_error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
}

FILE *outfile_stream(outfile *f)
{
    return f->stream;
}

const char *outfile_path(const outfile *f)
{
    return f->path;
}

int outfile_write(outfile *f, const void *data, size_t size)
{
    if (size && fwrite(data, 1, size, f->stream) != size)
        return tea_error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    return TEA_OK;
}

static void outfile_free(outfile *f)
{
    free(f->temp_path);
    free(f->path);
    free(f);
}

int outfile_commit(outfile *f)
{
    int rc = TEA_OK;

    if (!f->temp_path) {
        if (fflush(f->stream) != 0)
            rc = tea_error_set(TEA_ERR_IO, "standard output: write failed: %s", strerror(errno));
        outfile_free(f);
        return rc;
    }
    if (ferror(f->stream) || fflush(f->stream) != 0)
        rc = tea_error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    if (fclose(f->stream) != 0 && rc == TEA_OK)
        rc = tea_error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    if (rc == TEA_OK && rename(f->temp_path, f->path) != 0)
        rc = tea_error_set(TEA_ERR_IO, "%s: cannot move output into place: %s", f->path, strerror(errno));
    if (rc != TEA_OK)
        unlink(f->temp_path);
    outfile_free(f);
    return rc;
}

void outfile_abort(outfile *f)
{
    if (!f)
        return;
    if (f->temp_path) {
        fclose(f->stream);
        unlink(f->temp_path);
    }
    outfile_free(f);
}
