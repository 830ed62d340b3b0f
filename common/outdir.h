/*
 * outdir.h: a directory of output files that appears as a set.
 *
 * A command that writes several files into one directory (tea replay -o
 * DIR) writes them into a temporary directory beside DIR and moves them in
 * only when all are written, so a failure, a signal (cleanup.h) or a
 * concurrent run never leaves DIR mixing the files of two runs:
 *
 *   DIR missing                       the temporary directory is renamed to DIR
 *   DIR holds only files of a run     the two directories are exchanged in one
 *     (the caller's `is_output`)      renameat2(RENAME_EXCHANGE), the old one removed
 *   DIR holds other files too         the new files are renamed into DIR one by one,
 *                                     then the previous run's files that this run did
 *                                     not write are removed; the other files stay
 *                                     (not atomic as a set: said in the docs)
 */
#ifndef TEA_COMMON_OUTDIR_H
#define TEA_COMMON_OUTDIR_H

typedef struct outdir outdir;

/* Whether a file name in DIR is one of the outputs of such a run. */
typedef int (*outdir_is_output)(const char *name);

/* Creates the parents of `dir` and the temporary directory beside it.
 * TEA_ERR_USAGE when `dir` exists and is not a directory, TEA_ERR_IO when
 * the directories cannot be created, TEA_ERR_NOMEM. */
int outdir_open(outdir **out, const char *dir, outdir_is_output is_output);

/* What outdir_open would refuse as TEA_ERR_USAGE (empty, not a directory),
 * checked before a command does its work: 0, or TEA_ERR_USAGE. */
int outdir_check(const char *dir);

/* The directory to write the files into (the temporary one). */
const char *outdir_path(const outdir *d);

/* Moves the files into place as above and frees `d`. 0 or TEA_ERR_IO. */
int outdir_commit(outdir *d);

/* Removes the temporary directory with its files and frees `d`. Safe on NULL. */
void outdir_abort(outdir *d);

#endif
