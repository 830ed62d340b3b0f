/*
 * unzstd.c: decompression alone, as the TraceDoctor reader decompresses a
 * .zst (trace/input.c), for bench/replay: how fast the frames of a file come
 * out on N threads, without decoding or replaying them.
 *
 * Usage: tea-bench-unzstd FILE THREADS
 * Prints the decompressed bytes, the zstd data frames, the seconds taken and
 * the bytes' checksum (the same for every thread count).
 */
#define _POSIX_C_SOURCE 200809L
#include "common/error.h"
#include "trace/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* What the TraceDoctor reader asks for per chunk (trace/reader.c). */
#define BENCH_CHUNK (512u * 1024u)
/* Bytes of the stream between two that the checksum reads. */
#define BENCH_STRIDE 4096u

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    trace_input *in;
    const uint8_t *data;
    size_t got;
    uint64_t bytes = 0, sum = 0;
    double start;
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: tea-bench-unzstd FILE THREADS\n");
        return 2;
    }
    start = seconds();
    if ((rc = trace_input_open(&in, argv[1]))) {
        fprintf(stderr, "tea-bench-unzstd: %s\n", error_message());
        return 1;
    }
    trace_input_prefetch_chunks(in, BENCH_CHUNK, (unsigned)strtoul(argv[2], NULL, 10));
    while (!(rc = trace_input_next_chunk(in, BENCH_CHUNK, &data, &got)) && got) {
        /* every 4096th byte of the stream, wherever the chunks end */
        for (size_t i = (size_t)((BENCH_STRIDE - bytes % BENCH_STRIDE) % BENCH_STRIDE); i < got; i += BENCH_STRIDE)
            sum = sum * 31 + data[i];
        bytes += got;
    }
    if (rc)
        fprintf(stderr, "tea-bench-unzstd: %s\n", error_message());
    else
        printf("%llu bytes, %llu frames, %.3f s, checksum %016llx\n", (unsigned long long)bytes,
               (unsigned long long)trace_input_frames(in), seconds() - start, (unsigned long long)sum);
    trace_input_close(in);
    return rc ? 1 : 0;
}
