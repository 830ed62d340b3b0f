/* Results CSVs (results/results.h: tea replay's summary.csv, tea sweep's
 * output), read and deduplicated as `pics table` does. */
#include "fuzz.h"

#include "results/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    results_set s;

    results_init(&s);
    if (results_read_memory(&s, data, size, FUZZ_INPUT_NAME) == 0)
        (void)results_dedupe(&s);
    results_free(&s);
    return 0;
}
