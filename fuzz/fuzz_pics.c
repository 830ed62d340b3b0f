/* PICS files (pics/pics_file.h). */
#include "fuzz.h"

#include "pics/pics.h"
#include "pics/pics_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    pics_info info;
    pics p;

    if (fuzz_write_temp(data, size, path))
        return 0;
    if (pics_read(path, &info, &p) == 0) {
        (void)pics_info_lost(&info);
        pics_info_free(&info);
        pics_free(&p);
    }
    fuzz_remove_temp(path);
    return 0;
}
