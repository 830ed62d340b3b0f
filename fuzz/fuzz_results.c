/* Results CSVs (tea/results.h: tea replay's summary.csv, tea sweep's
 * output), read and deduplicated as `pics table` does. */
#include "fuzz.h"

#include "tea/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    tea_results_set s;

    if (fuzz_write_temp(data, size, path))
        return 0;
    tea_results_init(&s);
    if (tea_results_read(&s, path) == 0)
        (void)tea_results_dedupe(&s);
    tea_results_free(&s);
    fuzz_remove_temp(path);
    return 0;
}
