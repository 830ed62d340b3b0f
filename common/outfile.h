/*
 * outfile.h: output files that appear whole or not at all.
 *
 * Output is written to a temporary file beside the destination and renamed
 * over it on success, so a failed or interrupted run never leaves a
 * half-written file. The path "-" writes to standard output instead (no
 * atomicity possible there).
 */
#ifndef TEA_COMMON_OUTFILE_H
#define TEA_COMMON_OUTFILE_H

#include <stdio.h>

typedef struct outfile outfile;

/* Creates the temporary file for `path`. Fails with TEA_ERR_IO (message names
 * the directory) when it cannot be created. */
int outfile_open(outfile **out, const char *path);

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
