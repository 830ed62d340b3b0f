/*
 * outdir.c: a directory of outputs that appears as a set (see outdir.h).
 */
#define _GNU_SOURCE
#include "outdir.h"
#include "cleanup.h"
#include "error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Permission bits of a created directory before the umask. */
#define OUTDIR_MODE 0777

struct outdir {
    char *dest;                  /* DIR as given */
    char *temp;                  /* the temporary directory beside it */
    outdir_is_output is_output;
    int cleanup;                 /* cleanup.h handle of temp */
};

/* mkdir -p of every parent of `path` (not `path` itself). */
static int make_parents(const char *path)
{
    char *buf = strdup(path);
    int rc = TEA_OK;

    if (!buf)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (char *p = buf + 1; *p && !rc; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, OUTDIR_MODE) != 0 && errno != EEXIST)
            rc = error_set(TEA_ERR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
        *p = '/';
    }
    free(buf);
    return rc;
}

/* "<parent>/.<base>.tmp.XXXXXX" for `dest` (trailing slashes dropped). */
static char *temp_template(const char *dest)
{
    size_t len = strlen(dest), size;
    const char *base;
    char *name;

    while (len > 1 && dest[len - 1] == '/')
        len--;
    base = dest + len;
    while (base > dest && base[-1] != '/')
        base--;
    size = len + sizeof "/..tmp.XXXXXX";
    if ((name = malloc(size)))
        snprintf(name, size, "%.*s.%.*s.tmp.XXXXXX", (int)(base - dest), dest, (int)(len - (size_t)(base - dest)),
                 base);
    return name;
}

int outdir_check(const char *dir)
{
    struct stat st;
    if (dir[0] == '\0')
        return error_set(TEA_ERR_USAGE, "an empty output directory");
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return error_set(TEA_ERR_USAGE, "%s: exists and is not a directory", dir);
    return TEA_OK;
}

int outdir_open(outdir **out, const char *dir, outdir_is_output is_output)
{
    outdir *d;
    int rc;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(dir != NULL);
    *out = NULL;
    if ((rc = outdir_check(dir)) || (rc = make_parents(dir)))
        return rc;
    if (!(d = calloc(1, sizeof *d)) || !(d->dest = strdup(dir)) || !(d->temp = temp_template(dir))) {
        if (d)
            free(d->dest);
        free(d);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    d->is_output = is_output;
    if (!mkdtemp(d->temp)) {
        rc = error_set(TEA_ERR_IO, "%s: cannot create a directory beside it: %s", dir, strerror(errno));
        free(d->temp);
        free(d->dest);
        free(d);
        return rc;
    }
    {
        /* mkdtemp creates 0700; give the directory the mode mkdir(2) would. */
        mode_t mask = umask(0);
        umask(mask);
        chmod(d->temp, OUTDIR_MODE & ~mask);
    }
    d->cleanup = cleanup_add_dir(d->temp);
    *out = d;
    return TEA_OK;
}

const char *outdir_path(const outdir *d)
{
    return d->temp;
}

/* The most levels of directories an output directory holds (a program's
 * replay: DIR/cores/NAME/files). */
#define OUTDIR_DEPTH_MAX 4

/* Removes entry `name` of the directory open as `parent`: a file, or a
 * directory with what it holds, up to `depth` levels down (symbolic links
 * are removed, never followed). */
static void remove_entry(int parent, const char *name, int depth)
{
    struct stat st;
    int fd;
    DIR *dir;
    struct dirent *e;

    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlinkat(parent, name, 0);
        return;
    }
    if (depth > 0 && (fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) >= 0) {
        if ((dir = fdopendir(fd))) {
            while ((e = readdir(dir)))
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                    remove_entry(dirfd(dir), e->d_name, depth - 1);
            closedir(dir);
        } else {
            close(fd);
        }
    }
    unlinkat(parent, name, AT_REMOVEDIR);
}

/* Removes directory `path` with what it holds. */
static void remove_tree(const char *path)
{
    remove_entry(AT_FDCWD, path, OUTDIR_DEPTH_MAX);
}

/* Whether every entry of directory `path` is an output of a run. */
static int only_outputs(const char *path, outdir_is_output is_output)
{
    DIR *dir = opendir(path);
    struct dirent *e;
    int only = 1;

    if (!dir)
        return 0;
    while (only && (e = readdir(dir)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            only = is_output && is_output(e->d_name);
    closedir(dir);
    return only;
}

/* A directory of the new outputs replaces its namesake, which a rename
 * cannot do while the old one holds files: the old one goes first. */
static void replace_directory(int src, int dst, const char *name)
{
    struct stat st;
    if (fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        remove_entry(dst, name, OUTDIR_DEPTH_MAX);
}

/* Moves each file of `d->temp` into `d->dest`, then removes the outputs of
 * an earlier run that this one did not write. */
static int move_each(outdir *d)
{
    DIR *dir;
    struct dirent *e;
    int src, dst, rc = TEA_OK;

    if ((src = open(d->temp, O_RDONLY | O_DIRECTORY)) < 0 || (dst = open(d->dest, O_RDONLY | O_DIRECTORY)) < 0) {
        if (src >= 0)
            close(src);
        return error_set(TEA_ERR_IO, "%s: cannot open: %s", d->dest, strerror(errno));
    }
    if ((dir = opendir(d->dest))) {
        while ((e = readdir(dir)))
            if (d->is_output && d->is_output(e->d_name) && faccessat(src, e->d_name, F_OK, 0) != 0)
                remove_entry(dst, e->d_name, OUTDIR_DEPTH_MAX);
        closedir(dir);
    }
    if ((dir = opendir(d->temp))) {
        while (!rc && (e = readdir(dir)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0
                && (replace_directory(src, dst, e->d_name), renameat(src, e->d_name, dst, e->d_name) != 0))
                rc = error_set(TEA_ERR_IO, "%s/%s: cannot move into place: %s", d->dest, e->d_name, strerror(errno));
        closedir(dir);
    }
    close(src);
    close(dst);
    return rc;
}

int outdir_commit(outdir *d)
{
    int rc = TEA_OK;
    struct stat st;

    if (stat(d->dest, &st) != 0) {
        if (rename(d->temp, d->dest) != 0)
            rc = error_set(TEA_ERR_IO, "%s: cannot move the outputs into place: %s", d->dest, strerror(errno));
    } else if (only_outputs(d->dest, d->is_output)
               && renameat2(AT_FDCWD, d->temp, AT_FDCWD, d->dest, RENAME_EXCHANGE) == 0) {
        /* d->temp now holds the previous run's files */
    } else {
        rc = move_each(d);
    }
    remove_tree(d->temp);
    cleanup_forget(d->cleanup);
    free(d->temp);
    free(d->dest);
    free(d);
    return rc;
}

void outdir_abort(outdir *d)
{
    if (!d)
        return;
    remove_tree(d->temp);
    cleanup_forget(d->cleanup);
    free(d->temp);
    free(d->dest);
    free(d);
}
