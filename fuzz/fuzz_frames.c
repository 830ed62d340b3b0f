/* A native trace file's frames (trace/frames.h), as frame-parallel replay
 * reads them: the index, then every frame decoded and checked in turn, then
 * the checks across frames. */
#include "fuzz.h"

#include "trace/frames.h"
#include "trace/record.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trace_frames *f = NULL;
    trace_frame_reader *fr = NULL;
    trace_batch batch;

    if (trace_frames_open_memory(&f, data, size, FUZZ_INPUT_NAME) == 0) {
        size_t n = trace_frames_count(f);
        trace_totals *totals = calloc(n ? n : 1, sizeof *totals);
        unsigned *windows = calloc(n ? n : 1, sizeof *windows);
        int ok = totals && windows;
        (void)trace_frames_header(f);
        {
            const trace_object *objs;
            size_t count;
            uint32_t tid, threads;
            trace_frames_objects(f, &objs, &count, &tid, &threads);
            for (size_t i = 0; i < count; i++)
                (void)strlen(objs[i].path);
        }
        if (ok && trace_batch_init(&batch, 256) == 0) {
            if (trace_frame_reader_create(&fr, f) == 0) {
                for (size_t k = 0; k < n && ok; k++) {
                    int rc;
                    (void)trace_frames_info(f, k);
                    if (trace_frame_reader_start(fr, k)) {
                        ok = 0;
                        break;
                    }
                    while ((rc = trace_frame_reader_read(fr, &batch)) == 0 && batch.count > 0)
                        ;
                    if (rc) {
                        ok = 0;
                        break;
                    }
                    totals[k] = *trace_frame_reader_totals(fr);
                    windows[k] = trace_frame_reader_window(fr);
                }
                if (ok) {
                    trace_totals all;
                    trace_read_stats stats;
                    (void)trace_frames_check_sequence(f, totals, windows, &all, &stats);
                }
                trace_frame_reader_free(fr);
            }
            trace_batch_free(&batch);
        }
        free(totals);
        free(windows);
        trace_frames_close(f);
    }
    return 0;
}
