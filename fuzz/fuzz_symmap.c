/* Symbol maps (`--symbols MAP`). The loader's header is named here only:
 * FUZZ_SYMMAP_HEADER (pics/symmap.h today). */
#include "fuzz.h"

#define FUZZ_SYMMAP_HEADER "pics/symmap.h"
#include FUZZ_SYMMAP_HEADER

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    pics_symmap m = { 0 };

    if (fuzz_write_temp(data, size, path))
        return 0;
    if (pics_symmap_load(&m, path) == 0) {
        (void)pics_symmap_find(&m, 0);
        (void)pics_symmap_find(&m, 0x400000);
        pics_symmap_free(&m);
    }
    fuzz_remove_temp(path);
    return 0;
}
