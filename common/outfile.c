/*
 * outfile.c: atomic output through a temporary file and rename(2).
 */
#define _XOPEN_SOURCE 700
#include "outfile.h"
#include "cleanup.h"
#include "error.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Permission bits a newly created output file gets before the umask. */
#define OUTFILE_MODE 0666

struct outfile {
    FILE *stream;
    char *path;       /* destination as given (for messages) */
    char *target;     /* where the file lands: `path`, or what its symbolic link names */
    char *temp_path;  /* NULL when writing to stdout, a FIFO or a character device */
    int in_place;     /* writing straight to a FIFO or character device */
    int cleanup;      /* cleanup.h handle of temp_path, or -1 */
};

/* How an output path is written. */
enum destination {
    DEST_REPLACE,     /* a new path or a regular file: temporary file, then rename */
    DEST_IN_PLACE     /* a FIFO or character device: opened and written directly */
};

/* Classifies `path` (its symbolic link followed; the link's target, malloc'd,
 * in *target). TEA_ERR_USAGE for what cannot be an output. */
static int classify(const char *path, enum destination *dest, char **target)
{
    struct stat st;

    *target = NULL;
    if (path[0] == '\0')
        return error_set(TEA_ERR_USAGE, "an empty output path");
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* A link is followed: the file it names is replaced, the link kept. */
        if (!(*target = realpath(path, NULL)))
            return error_set(TEA_ERR_USAGE, "%s: a symbolic link to nothing that can be written (%s)", path,
                             strerror(errno));
        path = *target;
    }
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) {
        *dest = DEST_REPLACE;
        return TEA_OK;
    }
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        *dest = DEST_IN_PLACE;
        return TEA_OK;
    }
    free(*target);
    *target = NULL;
    if (S_ISDIR(st.st_mode))
        return error_set(TEA_ERR_USAGE, "%s: is a directory", path);
    return error_set(TEA_ERR_USAGE, "%s: not a regular file, FIFO or character device", path);
}

int outfile_check(const char *path)
{
    enum destination dest;
    char *target;
    int rc;

    if (strcmp(path, "-") == 0)
        return TEA_OK;
    rc = classify(path, &dest, &target);
    free(target);
    return rc;
}

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
    enum destination dest;
    int fd, rc;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(path != NULL);
    *out = NULL;
    if (!f || !(f->path = strdup(path)))
        goto nomem;
    f->cleanup = -1;
    if (strcmp(path, "-") == 0) {
        f->stream = stdout;
        *out = f;
        return TEA_OK;
    }
    if ((rc = classify(path, &dest, &f->target))) {
        free(f->path);
        free(f);
        return rc;
    }
    if (!f->target && !(f->target = strdup(path)))
        goto nomem;
    if (dest == DEST_IN_PLACE) {
        /* Never replaced: a FIFO's reader or a device stays where it is. */
        if (!(f->stream = fopen(f->target, "wb"))) {
            rc = error_set(TEA_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
            outfile_abort(f);
            return rc;
        }
        f->in_place = 1;
        *out = f;
        return TEA_OK;
    }
    if (!(f->temp_path = temp_name_for(f->target)))
        goto nomem;
    fd = mkstemp(f->temp_path);
    if (fd < 0) {
        int saved = errno;
        free(f->temp_path);
        free(f->target);
        free(f->path);
        free(f);
        return error_set(TEA_ERR_IO, "%s: cannot create output file: %s", path, strerror(saved));
    }
    f->cleanup = cleanup_add_file(f->temp_path);
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
        cleanup_forget(f->cleanup);
        goto nomem;
    }
    *out = f;
    return TEA_OK;

nomem:
    if (f) {
        free(f->temp_path);
        free(f->target);
        free(f->path);
        free(f);
    }
    return error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
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
    TEA_ASSERT_ARG(f != NULL && f->stream != NULL);
    TEA_ASSERT_ARG(data != NULL || size == 0);
    if (size && fwrite(data, 1, size, f->stream) != size)
        return error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    return TEA_OK;
}

static void outfile_free(outfile *f)
{
    cleanup_forget(f->cleanup);
    free(f->temp_path);
    free(f->target);
    free(f->path);
    free(f);
}

int outfile_commit(outfile *f)
{
    int rc = TEA_OK;

    assert(!f->in_place || !f->temp_path); /* written in place or renamed, not both */
    if (f->in_place) {
        if (ferror(f->stream) || fflush(f->stream) != 0)
            rc = error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
        if (fclose(f->stream) != 0 && rc == TEA_OK)
            rc = error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
        outfile_free(f);
        return rc;
    }
    if (!f->temp_path) {
        if (ferror(f->stream) || fflush(f->stream) != 0)
            rc = error_set(TEA_ERR_IO, "standard output: write failed: %s", strerror(errno));
        outfile_free(f);
        return rc;
    }
    if (ferror(f->stream) || fflush(f->stream) != 0)
        rc = error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    if (fclose(f->stream) != 0 && rc == TEA_OK)
        rc = error_set(TEA_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    if (rc == TEA_OK && rename(f->temp_path, f->target) != 0)
        rc = error_set(TEA_ERR_IO, "%s: cannot move output into place: %s", f->path, strerror(errno));
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
        if (f->stream)
            fclose(f->stream);
        unlink(f->temp_path);
    } else if (f->in_place && f->stream) {
        fclose(f->stream);
    }
    outfile_free(f);
}
