/*
 * outfile.h: output files that appear whole or not at all.
 *
 * Output to a new path or a regular file is written to a temporary file
 * beside the destination and renamed over it on success, so a failed or
 * interrupted run never leaves a half-written file (the temporary file is
 * registered with cleanup.h, which removes it on SIGINT and SIGTERM). What
 * is not a regular file is never replaced: a FIFO or a character device
 * (/dev/null) is opened and written in place, and a directory or any other
 * kind of file is refused. A symbolic link is followed: the file it names is
 * written as above and the link stays. The path "-" writes to standard output
 * (no atomicity possible there, nor with a FIFO or device).
 */
#ifndef TEA_COMMON_OUTFILE_H
#define TEA_COMMON_OUTFILE_H

#include <stdio.h>

typedef struct outfile outfile;

/* Creates the temporary file for `path` (or opens a FIFO or device). Fails
 * with TEA_ERR_USAGE for a path that cannot be an output (empty, a
 * directory, a socket, a link to nothing) and TEA_ERR_IO (the message names
 * the path) when it cannot be created. */
int outfile_open(outfile **out, const char *path);

/* What outfile_open would refuse as TEA_ERR_USAGE, checked before a command
 * does its work: 0, or TEA_ERR_USAGE with a message. */
int outfile_check(const char *path);

/* The stream to write to. */
FILE *outfile_stream(outfile *f);

/* The destination path given to outfile_open. */
const char *outfile_path(const outfile *f);

/* Flushes, closes and renames the temporary file into place, then frees `f`.
 * On a write error the temporary file is removed and TEA_ERR_IO returned. */
int outfile_commit(outfile *f);

/* Closes and removes the temporary file and frees `f`. Safe on NULL. */
void outfile_abort(outfile *f);

/* Writes `size` bytes, recording an error message naming the file on
 * failure. */
int outfile_write(outfile *f, const void *data, size_t size);

#endif
