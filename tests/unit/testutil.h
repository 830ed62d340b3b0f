/*
 * testutil.h: helpers shared by the unit tests: scratch files and whole
 * record streams held in memory.
 */
#ifndef TEA_TESTS_TESTUTIL_H
#define TEA_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pics/pics.h"
#include "trace/trace.h"

/* A path in the test's scratch directory ($TMPDIR), unique per process;
 * malloc'd. */
char *test_temp_path(const char *name);

/* Reads or writes a whole file; abort the test on failure. */
void test_read_file(const char *path, uint8_t **data, size_t *size);
void test_write_file(const char *path, const void *data, size_t size);

/* A whole stream of records in memory. */
typedef struct test_stream {
    trace_record *records;
    trace_uop *uops;
    size_t count, uop_count;
    size_t record_cap, uop_cap;
    trace_header header;
    trace_totals totals;
    trace_read_stats stats;
} test_stream;

void test_stream_init(test_stream *s);
void test_stream_free(test_stream *s);

/* Appends a copy of one record and its µops (first_uop is rewritten). */
void test_stream_append(test_stream *s, const trace_record *r, const trace_uop *uops);

/* Reads a trace file into `s`; returns the reader's error code (0 on success,
 * with s holding every record, the header, totals and stats). */
int test_stream_read(const char *path, const trace_open_options *opts, test_stream *s);

/* As test_stream_read, with the reader's background decoder forced on (1) or
 * off (0); -1 keeps the reader's default. On error `s` keeps the records read
 * before it. */
int test_stream_read_background(const char *path, const trace_open_options *opts, int background,
                                test_stream *s);

/* Writes `s` with header `h`; returns the writer's error code. */
int test_stream_write(const test_stream *s, const trace_header *h, const trace_write_options *opts,
                      const char *path);

/* A batch view of the stream's records [first, first + count). */
trace_batch test_stream_batch(const test_stream *s, size_t first, size_t count);

/* Gives µop i of `s` the calling context (i / run) % contexts. */
void test_stream_set_contexts(test_stream *s, unsigned run, uint32_t contexts);

/* test_stream_write with a calling-context tree of `contexts` nodes (the
 * root, then a chain: context i called from context i - 1) in the trace. */
int test_stream_write_contexts(const test_stream *s, const trace_header *h, const trace_write_options *opts,
                               const char *path, uint32_t contexts);

/* Asserts that two streams hold identical records and µops. */
void assert_streams_equal(const test_stream *a, const test_stream *b);

/* Runs the core model on a built-in workload for `cycles` cycles and keeps
 * the records in `s` (header: the model's core shape). */
void test_model_stream(const char *workload, uint64_t seed, uint64_t cycles, test_stream *s);

/* Asserts that `message` contains `needle` (with a readable failure). */
void assert_contains(const char *message, const char *needle);

/* Fails unless the two PICS have the same cells with the same values (and,
 * when `counts`, the same counts) and the same total; `what` names the case. */
void assert_pics_match(const pics *a, const pics *b, int counts, const char *what);

/*
 * Allocation-failure injection (testutil_alloc.c), the one helper of every
 * fault test. In a test program linked with tea_allocfail_wrap
 * (tests/CMakeLists.txt: ld --wrap of malloc, calloc, realloc, strdup and
 * strndup), the calls of the project's code (the static libraries and the
 * test itself) go through a counter that can fail one of them; those inside
 * the C library (getline, fopen) and zstd are never failed.
 */

/* Arms the n-th allocation from now to fail (1: the next one), once;
 * 0 disarms. */
void test_alloc_fail_at(unsigned long n);

/* Whether the armed allocation has failed since test_alloc_fail_at. */
int test_alloc_failed(void);

/* calloc that is never failed nor counted, for a test's own bookkeeping. */
void *test_alloc_calloc_unfailing(size_t n, size_t size);

/* Runs run(ctx) unarmed, where it must return 0, then with allocation n
 * failing for n = 1, 2, ... until a run fails none: each of those runs
 * must return 0 or TEA_ERR_NOMEM (code may do without what it could not
 * get) and, in the sanitized build, leak nothing. Reports every other
 * outcome on stderr, naming `what`. Stores in *count (when not NULL) how
 * many allocations a whole run makes. Returns 0 when every run was as
 * required, 1 otherwise. */
int test_alloc_each(const char *what, int (*run)(void *ctx), void *ctx, unsigned long *count);

#endif
