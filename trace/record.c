/*
 * record.c: record batches and the window checks every reader applies.
 */
#include "record.h"
#include "psv.h"
#include "../common/error.h"

#include <stdlib.h>

int trace_batch_init(trace_batch *batch, size_t capacity)
{
    TEA_ASSERT_ARG(batch != NULL);
    TEA_ASSERT_ARG(capacity <= SIZE_MAX / TRACE_MAX_RECORD_UOPS); /* the µops' array is sized without wrapping */
    batch->head_valid = NULL;
    batch->records = calloc(capacity, sizeof *batch->records);
    batch->uops = calloc(capacity * TRACE_MAX_RECORD_UOPS, sizeof *batch->uops);
    batch->count = 0;
    batch->uop_count = 0;
    batch->capacity = capacity;
    batch->uop_capacity = capacity * TRACE_MAX_RECORD_UOPS;
    if (!batch->records || !batch->uops) {
        trace_batch_free(batch);
        return error_set(TEA_ERR_NOMEM, "out of memory allocating a record batch");
    }
    return TEA_OK;
}

int trace_batch_init_head_valid(trace_batch *batch)
{
    if (!(batch->head_valid = calloc(batch->capacity ? batch->capacity : 1, sizeof *batch->head_valid)))
        return error_set(TEA_ERR_NOMEM, "out of memory allocating a record batch");
    return TEA_OK;
}

void trace_batch_free(trace_batch *batch)
{
    free(batch->records);
    free(batch->uops);
    free(batch->head_valid);
    batch->records = NULL;
    batch->uops = NULL;
    batch->head_valid = NULL;
    batch->count = batch->capacity = 0;
    batch->uop_count = batch->uop_capacity = 0;
}

int trace_record_check(const trace_record *r, const trace_uop *uops, unsigned width,
                       unsigned rob_size, unsigned window_before, unsigned *window_after)
{
    unsigned n = trace_record_uops(r);
    unsigned window;
    int prev = -1;

    /* The stream's shape and the window come from a checked header and
     * the records before: only the record is in question. */
    TEA_ASSERT_ARG(width >= 1 && width <= TRACE_MAX_WIDTH && rob_size <= TRACE_MAX_ROB);
    TEA_ASSERT_ARG(window_before <= rob_size);
    if (r->n_commit > width)
        return error_set(TEA_ERR_FORMAT, "%u µops commit in one cycle but the commit width is %u", r->n_commit, width);
    if (r->retire < n)
        return error_set(TEA_ERR_FORMAT, "%u µops leave the ROB but only %u entries retire", n, r->retire);
    if (r->retire > window_before)
        return error_set(TEA_ERR_FORMAT, "%u entries retire from a ROB holding %u", r->retire, window_before);
    for (unsigned i = 0; i < n; i++) {
        if ((int)uops[i].offset <= prev || uops[i].offset >= r->retire)
            return error_set(TEA_ERR_FORMAT, "µop %u of the cycle sits at ROB offset %u, out of program order", i,
                             uops[i].offset);
        prev = uops[i].offset;
        if (uops[i].psv & ~TRACE_PSV_MASK_ALL)
            return error_set(TEA_ERR_FORMAT, "PSV 0x%x has bits beyond the nine events", uops[i].psv);
    }
    window = window_before - r->retire;
    if (r->squash > window)
        return error_set(TEA_ERR_FORMAT, "%u entries squashed from a ROB holding %u", r->squash, window);
    window = window - r->squash + r->dispatch;
    if (window > rob_size)
        return error_set(TEA_ERR_FORMAT, "dispatch overfills the ROB (%u entries, size %u)", window, rob_size);
    *window_after = window;
    return TEA_OK;
}

int trace_record_check_read(const trace_record *r, const trace_uop *uops, unsigned width, unsigned rob_size,
                            unsigned window_before, unsigned *window_after)
{
    int rc = trace_record_check(r, uops, width, rob_size, window_before, window_after);
    if (rc)
        return rc;
    if ((r->flags & TRACE_REC_EXCEPTION) && !(uops[r->n_commit].psv & (1u << TRACE_PSV_FL_EX)))
        return error_set(TEA_ERR_FORMAT, "excepting µop lacks FL-EX");
    return TEA_OK;
}
