/*
 * pcs.c: the distinct PCs at the start of a trace (see pcs.h).
 */
#include "pcs.h"
#include "../common/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* PCs gathered before the array is sorted and thinned to its distinct ones. */
#define PCS_COMPACT_AT (1u << 16)

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts pcs[0 .. *count) and keeps one of each value. */
static void compact(uint64_t *pcs, size_t *count)
{
    size_t kept = 0;
    if (*count == 0)
        return;
    qsort(pcs, *count, sizeof *pcs, compare_u64);
    for (size_t i = 0; i < *count; i++)
        if (kept == 0 || pcs[kept - 1] != pcs[i])
            pcs[kept++] = pcs[i];
    *count = kept;
}

/* Appends the PCs of a batch's first `records` records, compacting and
 * growing the array as needed. */
static int add_batch(const trace_batch *b, size_t records, uint64_t **pcs, size_t *count, size_t *cap)
{
    for (size_t i = 0; i < records; i++) {
        const trace_record *r = &b->records[i];
        size_t n = r->n_commit + ((r->flags & TRACE_REC_EXCEPTION) ? 1u : 0u);
        for (size_t k = 0; k < n; k++) {
            if (*count == *cap) {
                compact(*pcs, count);
                if (*count > *cap / 2 || *cap == 0) {
                    size_t grown = *cap ? *cap * 2 : PCS_COMPACT_AT;
                    uint64_t *p = realloc(*pcs, grown * sizeof *p);
                    if (!p)
                        return error_set(TEA_ERR_NOMEM, "out of memory");
                    *pcs = p;
                    *cap = grown;
                }
            }
            assert(*count < *cap); /* compacting or growing made room */
            (*pcs)[(*count)++] = b->uops[r->first_uop + k].pc;
        }
    }
    return TEA_OK;
}

int trace_pcs_prefix(const char *path, const trace_open_options *opts, uint64_t max_records, uint64_t **pcs,
                     size_t *count)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    uint64_t *found = NULL;
    size_t n = 0, cap = 0;
    uint64_t seen = 0;
    int rc;

    *pcs = NULL;
    *count = 0;
    if (strcmp(path, "-") == 0)
        return error_set(TEA_ERR_USAGE, "the trace's PCs are read in a pass of their own: standard input cannot be "
                                        "read twice");
    if ((rc = trace_reader_open(&reader, path, opts)) || (rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    while (seen < max_records) {
        size_t take;
        if ((rc = trace_reader_read(reader, &batch)) || batch.count == 0)
            break;
        take = batch.count < max_records - seen ? batch.count : (size_t)(max_records - seen);
        if ((rc = add_batch(&batch, take, &found, &n, &cap)))
            break;
        seen += take;
    }
    if (rc == TEA_OK) {
        compact(found, &n);
        *pcs = n ? found : NULL;
        *count = n;
        if (n)
            found = NULL;
    }
done:
    free(found);
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}
