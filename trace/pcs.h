/*
 * pcs.h: the distinct PCs at the start of a trace, for inferring a binary's
 * load bias where no PICS exists yet (tea topdown --adjust-vma auto).
 */
#ifndef TEA_TRACE_PCS_H
#define TEA_TRACE_PCS_H

#include "trace.h"

#include <stddef.h>
#include <stdint.h>

/* Records read by default: enough for the bias guess, which scores at most
 * 1024 distinct PCs, on any trace that reaches the program's code early. */
#define TRACE_PCS_DEFAULT_RECORDS (1u << 20)

/*
 * Opens the trace at `path` (not standard input: the caller reads it again)
 * and collects the distinct PCs of the µops (commits and exceptions) of its
 * first `max_records` records into a malloc'd array, ascending (*pcs NULL
 * and *count 0 when there are none). Returns 0, TEA_ERR_USAGE for "-", or
 * the reader's error (message naming the file and where), TEA_ERR_NOMEM.
 */
int trace_pcs_prefix(const char *path, const trace_open_options *opts, uint64_t max_records, uint64_t **pcs,
                     size_t *count);

#endif
