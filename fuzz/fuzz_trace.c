/* The streaming trace reader (trace/trace.h), which detects the format:
 * native traces, TraceDoctor tokens raw or zstd-compressed. Every batch is
 * read, synchronously (no background thread, so that a run is
 * deterministic). */
#include "fuzz.h"

#include "trace/objects.h"
#include "trace/record.h"
#include "trace/trace.h"

#include <string.h>

/* Touches every byte of the objects a reader shows (sanitizers check them). */
static void touch_objects(trace_reader *r)
{
    const trace_object *objs;
    size_t count;
    uint32_t tid, threads;
    char hex[2 * TRACE_BUILD_ID_MAX + 1];

    if (trace_reader_objects(r, &objs, &count) || trace_reader_thread(r, &tid, &threads))
        return;
    for (size_t i = 0; i < count; i++) {
        (void)strlen(objs[i].path);
        trace_object_build_id_hex(&objs[i], hex, sizeof hex);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trace_reader *r = NULL;
    trace_batch batch;

    if (trace_batch_init(&batch, 256) == 0) {
        if (trace_reader_open_memory(&r, data, size, FUZZ_INPUT_NAME, NULL) == 0) {
            trace_reader_set_background(r, 0);
            touch_objects(r);
            while (trace_reader_read(r, &batch) == 0 && batch.count > 0)
                ;
            (void)trace_reader_totals(r);
            (void)trace_reader_stats(r);
            touch_objects(r);
            trace_reader_close(r);
        }
        trace_batch_free(&batch);
    }
    return 0;
}
