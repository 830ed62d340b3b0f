/* PICS files (pics/pics_file.h, read from memory), and their round trip: a file the reader
 * accepts, written again and read back, holds the same cells, and writing
 * that again gives the same bytes (write -> read -> write is a fixed point).
 * A difference aborts, which the fuzzer reports as a crash. */
#include "fuzz.h"

#include "pics/pics.h"
#include "pics/pics_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stops the run: a property does not hold. */
static void violated(const char *what)
{
    fprintf(stderr, "fuzz_pics: %s\n", what);
    abort();
}

/* True when two PICS hold the same cells. */
static int same_cells(const pics *a, const pics *b)
{
    if (a->count != b->count || a->total != b->total)
        return 0;
    for (size_t i = 0; i < a->capacity; i++) {
        const pics_cell *c = &a->slots[i], *o;
        if (c->used && (!(o = pics_find(b, c->pc, c->psv)) || o->value != c->value || o->count != c->count))
            return 0;
    }
    return 1;
}

/* The bytes of a file, malloc'd (NULL when unreadable). */
static char *slurp(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (data = malloc((size_t)*size + 1)) && fread(data, 1, (size_t)*size, f) != (size_t)*size) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    return data;
}

/* Writes `p` twice through a read in between and compares. */
static void round_trip(const pics_info *info, const pics *p)
{
    char first[FUZZ_PATH_MAX], second[FUZZ_PATH_MAX];
    pics_info info2;
    pics p2;
    long n1 = 0, n2 = 0;
    char *a, *b;

    if (fuzz_write_temp(NULL, 0, first))
        return;
    if (fuzz_write_temp(NULL, 0, second)) {
        fuzz_remove_temp(first);
        return;
    }
    if (pics_write(first, info, p) == 0) {
        if (pics_read(first, &info2, &p2) != 0)
            violated("a PICS written from an accepted file is refused");
        if (!same_cells(p, &p2))
            violated("a PICS reads back with other cells");
        if (pics_write(second, &info2, &p2) == 0) {
            a = slurp(first, &n1);
            b = slurp(second, &n2);
            if (a && b && (n1 != n2 || memcmp(a, b, (size_t)n1) != 0))
                violated("writing a PICS read back gives other bytes");
            free(a);
            free(b);
        }
        pics_info_free(&info2);
        pics_free(&p2);
    }
    fuzz_remove_temp(first);
    fuzz_remove_temp(second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pics_info info;
    pics p;

    if (pics_read_memory(data, size, FUZZ_INPUT_NAME, &info, &p) == 0) {
        (void)pics_info_lost(&info);
        round_trip(&info, &p);
        pics_info_free(&info);
        pics_free(&p);
    }
    return 0;
}
