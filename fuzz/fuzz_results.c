/* Results CSVs (results/results.h: tea replay's summary.csv, tea sweep's
 * output), read and deduplicated as `pics table` does. */
#include "fuzz.h"

#include "results/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    results_set s;

    if (fuzz_write_temp(data, size, path))
        return 0;
    results_init(&s);
    if (results_read(&s, path) == 0)
        (void)results_dedupe(&s);
    results_free(&s);
    fuzz_remove_temp(path);
    return 0;
}
