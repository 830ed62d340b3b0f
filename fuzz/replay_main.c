/* A main() for the harnesses without libFuzzer: runs every file named on the
 * command line through LLVMFuzzerTestOneInput, and every regular file of a
 * directory named there (not recursing). With no arguments it reads one
 * input from standard input, as AFL++ runs a target without @@.
 *
 *   fuzz_trace tests/data/badinput tests/data/scenario.bin
 *
 * Prints how many inputs ran; exits 0, or 1 when an argument cannot be read.
 * A harness bug shows as a crash or (in a sanitized build) a sanitizer
 * report, which ends the program. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int read_stream(FILE *f, uint8_t **data, size_t *size)
{
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);

    if (!buf)
        return -1;
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                return -1;
            }
            buf = grown;
            cap *= 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        return -1;
    }
    *data = buf;
    *size = n;
    return 0;
}

static int run_file(const char *path, unsigned long *runs)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    size_t size;

    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (read_stream(f, &data, &size)) {
        fprintf(stderr, "%s: cannot read\n", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    (*runs)++;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory's regular files, in name order so that runs repeat. */
static int run_directory(const char *dir, unsigned long *runs)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t count = 0, cap = 0;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path;
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        path = malloc(len);
        if (!path) {
            rc = -1;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (count == cap) {
            char **grown = realloc(names, (cap ? cap * 2 : 64) * sizeof *names);
            if (!grown) {
                free(path);
                rc = -1;
                break;
            }
            names = grown;
            cap = cap ? cap * 2 : 64;
        }
        names[count++] = path;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        if (rc == 0 && run_file(names[i], runs))
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned long runs = 0;
    int rc = 0;

    if (argc < 2) {
        uint8_t *data;
        size_t size;
        if (read_stream(stdin, &data, &size)) {
            fprintf(stderr, "cannot read standard input\n");
            return 1;
        }
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc |= run_directory(argv[i], &runs) != 0;
        else
            rc |= run_file(argv[i], &runs) != 0;
    }
    fprintf(stderr, "%s: %lu inputs\n", argv[0], runs);
    return rc ? 1 : 0;
}
