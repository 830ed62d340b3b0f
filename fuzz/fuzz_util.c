/* Temporary files for the harnesses whose reader takes only a path. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fuzz_write_temp(const uint8_t *data, size_t size, char *path)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    if (!dir || !*dir)
        dir = "/tmp";
    if (snprintf(path, FUZZ_PATH_MAX, "%s/tea-fuzz.XXXXXX", dir) >= FUZZ_PATH_MAX)
        return -1;
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    if (close(fd) != 0) {
        unlink(path);
        return -1;
    }
    return 0;
}

void fuzz_remove_temp(const char *path)
{
    unlink(path);
}
