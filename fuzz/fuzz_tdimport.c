/* TraceDoctor worker CSVs (pics/tdimport.h, `pics import`): the input read
 * as each of the four workers' files. */
#include "fuzz.h"

#include "pics/tdimport.h"

/* A sampling period and clock for the samplers' files. */
#define FUZZ_PERIOD 97
#define FUZZ_CLOCK_HZ 3200000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    const pics_td_import_options o = { FUZZ_CLOCK_HZ, FUZZ_PERIOD, NULL };

    if (fuzz_write_temp(data, size, path))
        return 0;
    for (int k = 0; k < PICS_TD_KIND_COUNT; k++) {
        pics_info info;
        pics p;
        if (pics_td_import(path, (pics_td_kind)k, &o, &info, &p) == 0) {
            pics_info_free(&info);
            pics_free(&p);
        }
    }
    fuzz_remove_temp(path);
    return 0;
}
