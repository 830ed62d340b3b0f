/*
 * dso_lib.c: the shared library of dso_prog.c. Built with -DDSO_OTHER_BUILD
 * it is another build of the same library (another build-id), which the
 * reports must not use for a trace recorded with the first.
 */
#include <stddef.h>

/* A byte-wise checksum: a loop that takes time in this library. */
unsigned dso_checksum(const unsigned char *data, size_t size)
{
    unsigned sum = 0;
    for (size_t i = 0; i < size; i++)
        sum = sum * 31u + data[i];
#ifdef DSO_OTHER_BUILD
    sum ^= 1u;
#endif
    return sum;
}
