/* Symbol maps (`--symbols MAP`). The loader's header is named here only:
 * FUZZ_SYMMAP_HEADER (trace/symmap.h today). */
#include "fuzz.h"

#define FUZZ_SYMMAP_HEADER "trace/symmap.h"
#include FUZZ_SYMMAP_HEADER

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    trace_symmap m = { 0 };

    if (fuzz_write_temp(data, size, path))
        return 0;
    if (trace_symmap_load(&m, path) == 0) {
        (void)trace_symmap_find(&m, 0);
        (void)trace_symmap_find(&m, 0x400000);
        trace_symmap_free(&m);
    }
    fuzz_remove_temp(path);
    return 0;
}
