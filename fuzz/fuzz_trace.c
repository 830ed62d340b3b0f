/* The streaming trace reader (trace/trace.h), which detects the format:
 * native traces, TraceDoctor tokens raw or zstd-compressed. Every batch is
 * read, synchronously (no background thread, so that a run is
 * deterministic). */
#include "fuzz.h"

#include "trace/record.h"
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    trace_reader *r = NULL;
    trace_batch batch;

    if (fuzz_write_temp(data, size, path))
        return 0;
    if (trace_batch_init(&batch, 256) == 0) {
        if (trace_reader_open(&r, path, NULL) == 0) {
            trace_reader_set_background(r, 0);
            while (trace_reader_read(r, &batch) == 0 && batch.count > 0)
                ;
            (void)trace_reader_totals(r);
            (void)trace_reader_stats(r);
            trace_reader_close(r);
        }
        trace_batch_free(&batch);
    }
    fuzz_remove_temp(path);
    return 0;
}
