/*
 * test_objects.c: the executable objects and recorded thread a native trace
 * carries (trace/objects.h): round trips through the streaming reader (a
 * seekable file, where they show at open, and a pipe, where they show at
 * the end) and the frame reader, no objects at all (bytes unchanged), many
 * objects, the longest path, and damaged objects frames and footers.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "common/error.h"
#include "trace/frames.h"
#include "trace/native.h"
#include "trace/objects.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Size of a skippable frame's header (magic, content size). */
#define SKIP_HEADER 8
/* Records per data frame in these tests: several frames. */
#define FRAME_RECORDS 3000
/* Objects in the "many objects" case: more than the list's first growth steps. */
#define MANY_OBJECTS 1000

static test_stream model;

static int setup(void **state)
{
    (void)state;
    test_model_stream("mixed", 5, 20000, &model);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stream_free(&model);
    return 0;
}

/* Object i of a test list: path, build-id of i % 21 bytes (0: unknown), and
 * distinct addresses. `path` is a buffer for the path. */
static trace_object make_object(size_t i, char *path, size_t size)
{
    trace_object o;
    memset(&o, 0, sizeof o);
    snprintf(path, size, "/usr/lib/x86_64-linux-gnu/lib%zu.so.6", i);
    o.path = path;
    o.build_id_len = (uint32_t)(i % 21);
    for (uint32_t k = 0; k < o.build_id_len; k++)
        o.build_id[k] = (uint8_t)(i * 7 + k);
    o.load_bias = 0x7f0000000000ull + i * 0x100000;
    o.start = o.load_bias + 0x1000;
    o.end = o.start + 0x2345 + i;
    return o;
}

/* Writes the model stream natively with objects [0, n) (and `extra` after
 * them when not NULL) and, when threads > 0, the thread. */
static void write_with_objects(const char *path, size_t n, const trace_object *extra, uint32_t tid, uint32_t threads)
{
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    trace_writer *w;
    trace_batch b = test_stream_batch(&model, 0, model.count);
    char name[64];

    assert_int_equal(trace_writer_open(&w, path, &model.header, &o), 0);
    /* half the objects before the records, half after (dlopen during the run) */
    for (size_t i = 0; i < n / 2; i++) {
        trace_object obj = make_object(i, name, sizeof name);
        assert_int_equal(trace_writer_add_object(w, &obj), 0);
    }
    assert_int_equal(trace_writer_write(w, &b), 0);
    for (size_t i = n / 2; i < n; i++) {
        trace_object obj = make_object(i, name, sizeof name);
        assert_int_equal(trace_writer_add_object(w, &obj), 0);
    }
    if (extra)
        assert_int_equal(trace_writer_add_object(w, extra), 0);
    if (threads)
        assert_int_equal(trace_writer_set_thread(w, tid, threads), 0);
    assert_int_equal(trace_writer_finish(w, NULL), 0);
}

/* Asserts that objs[0..count) are the test objects [0, n). */
static void assert_objects(const trace_object *objs, size_t count, size_t n)
{
    char name[64];
    assert_int_equal(count, n);
    for (size_t i = 0; i < n; i++) {
        trace_object want = make_object(i, name, sizeof name);
        assert_string_equal(objs[i].path, want.path);
        assert_int_equal(objs[i].build_id_len, want.build_id_len);
        assert_memory_equal(objs[i].build_id, want.build_id, TRACE_BUILD_ID_MAX);
        assert_int_equal(objs[i].load_bias, want.load_bias);
        assert_int_equal(objs[i].start, want.start);
        assert_int_equal(objs[i].end, want.end);
    }
}

/* Reads `path` whole with the streaming reader; checks the objects and the
 * thread right after open (when `at_open`) and at the end. */
static void stream_check(const char *path, size_t n, uint32_t tid, uint32_t threads, int at_open)
{
    trace_reader *r;
    trace_batch b;
    const trace_object *objs;
    size_t count, records = 0;
    uint32_t t, seen;

    assert_int_equal(trace_reader_open(&r, path, NULL), 0);
    assert_int_equal(trace_reader_objects(r, &objs, &count), 0);
    if (at_open)
        assert_objects(objs, count, n);
    else
        assert_int_equal(count, 0);
    assert_int_equal(trace_batch_init(&b, 512), 0);
    do {
        assert_int_equal(trace_reader_read(r, &b), 0);
        records += b.count;
    } while (b.count);
    assert_int_equal(records, model.count);
    assert_int_equal(trace_reader_objects(r, &objs, &count), 0);
    assert_objects(objs, count, n);
    assert_int_equal(trace_reader_thread(r, &t, &seen), 0);
    assert_int_equal(t, tid);
    assert_int_equal(seen, threads);
    trace_batch_free(&b);
    trace_reader_close(r);
}

/* Makes the FIFO `fifo` and a child process that writes the file `path`
 * into it; returns the child, for fifo_done. */
static pid_t serve_fifo(const char *path, const char *fifo)
{
    uint8_t *data;
    size_t size;
    pid_t child;

    test_read_file(path, &data, &size);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        FILE *f = fopen(fifo, "wb");
        int ok = f && fwrite(data, 1, size, f) == size;
        if (f)
            fclose(f);
        _exit(ok ? 0 : 1);
    }
    free(data);
    return child;
}

/* Waits for serve_fifo's child, which must have written the whole file. */
static void fifo_done(pid_t child, const char *fifo)
{
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unlink(fifo);
}

/* The same file read from a pipe: the objects show at the end only. */
static void pipe_check(const char *path, size_t n, uint32_t tid, uint32_t threads)
{
    char *fifo = test_temp_path("objects.fifo");
    pid_t child = serve_fifo(path, fifo);

    stream_check(fifo, n, tid, threads, 0);
    fifo_done(child, fifo);
    free(fifo);
}

/* The frame reader opens the file and shows the same objects. */
static void frames_check(const char *path, size_t n, uint32_t tid, uint32_t threads)
{
    trace_frames *f;
    const trace_object *objs;
    size_t count;
    uint32_t t, seen;

    if (trace_frames_open(&f, path))
        fail_msg("%s", error_message());
    trace_frames_objects(f, &objs, &count, &t, &seen);
    assert_objects(objs, count, n);
    assert_int_equal(t, tid);
    assert_int_equal(seen, threads);
    trace_frames_close(f);
}

static void round_trip(void **state)
{
    char *path = test_temp_path("objects.tea");
    const size_t counts[] = { 1, 2, MANY_OBJECTS };
    (void)state;

    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        write_with_objects(path, counts[k], NULL, 4242, 3);
        stream_check(path, counts[k], 4242, 3, 1);
        pipe_check(path, counts[k], 4242, 3);
        frames_check(path, counts[k], 4242, 3);
    }
    /* a thread and no objects */
    write_with_objects(path, 0, NULL, 7, 1);
    stream_check(path, 0, 7, 1, 1);
    frames_check(path, 0, 7, 1);
    unlink(path);
    free(path);
}

/* Without objects or thread the file is exactly what it was before objects
 * existed: no objects frame, footer minor version 0, no flag. */
static void no_objects_no_frame(void **state)
{
    char *plain = test_temp_path("plain.tea"), *with = test_temp_path("with.tea");
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    uint8_t *a, *b;
    size_t na, nb;
    trace_native_footer foot;
    (void)state;

    assert_int_equal(test_stream_write(&model, &model.header, &o, plain), 0);
    write_with_objects(with, 0, NULL, 0, 0);
    test_read_file(plain, &a, &na);
    test_read_file(with, &b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    /* footer: version 1.0, flags without the objects bit */
    assert_int_equal(trace_native_get_le(a + na - TRACE_NATIVE_FOOTER_SIZE + TRACE_NATIVE_MAGIC_SIZE + 2, 2), 0);
    assert_int_equal(trace_native_footer_decode(a + na - TRACE_NATIVE_FOOTER_SIZE, TRACE_NATIVE_FOOTER_SIZE, &foot), 0);
    assert_false(foot.has_objects);
    assert_null(memmem(a, na, TRACE_OBJECTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE));
    stream_check(plain, 0, 0, TRACE_THREAD_UNKNOWN, 1);
    frames_check(plain, 0, 0, TRACE_THREAD_UNKNOWN);
    free(a);
    free(b);
    unlink(plain);
    unlink(with);
    free(plain);
    free(with);
}

/* The longest path is kept whole; a longer one, a build-id over 64 bytes, a
 * range that ends before it starts, no path and no thread count are
 * refused by the writer. */
static void writer_limits(void **state)
{
    char *path = test_temp_path("long.tea");
    char *long_path = malloc(TRACE_OBJECT_PATH_MAX + 2);
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    trace_writer *w;
    trace_object obj;
    trace_reader *r;
    const trace_object *objs;
    size_t count;
    (void)state;

    assert_non_null(long_path);
    memset(long_path, 'a', TRACE_OBJECT_PATH_MAX + 1);
    long_path[0] = '/';
    long_path[TRACE_OBJECT_PATH_MAX + 1] = '\0';
    memset(&obj, 0, sizeof obj);
    obj.path = long_path;
    obj.start = 0x1000;
    obj.end = 0x2000;
    obj.build_id_len = TRACE_BUILD_ID_MAX;
    memset(obj.build_id, 0xab, TRACE_BUILD_ID_MAX);
    assert_int_equal(trace_writer_open(&w, path, &model.header, &o), 0);
    assert_int_equal(trace_writer_add_object(w, &obj), TEA_ERR_USAGE); /* 4097 bytes */
    assert_contains(error_message(), "longer than 4096");
    long_path[TRACE_OBJECT_PATH_MAX] = '\0';
    assert_int_equal(trace_writer_add_object(w, &obj), 0);
    obj.build_id_len = TRACE_BUILD_ID_MAX + 1;
    assert_int_equal(trace_writer_add_object(w, &obj), TEA_ERR_USAGE);
    obj.build_id_len = 0;
    obj.end = obj.start - 1;
    assert_int_equal(trace_writer_add_object(w, &obj), TEA_ERR_USAGE);
    obj.end = obj.start;
    obj.path = "";
    assert_int_equal(trace_writer_add_object(w, &obj), TEA_ERR_USAGE);
    obj.path = NULL;
    assert_int_equal(trace_writer_add_object(w, &obj), TEA_ERR_USAGE);
    assert_int_equal(trace_writer_set_thread(w, 1, TRACE_THREAD_UNKNOWN), TEA_ERR_USAGE);
    assert_int_equal(trace_writer_finish(w, NULL), 0);

    assert_int_equal(trace_reader_open(&r, path, NULL), 0);
    assert_int_equal(trace_reader_objects(r, &objs, &count), 0);
    assert_int_equal(count, 1);
    assert_int_equal(strlen(objs[0].path), TRACE_OBJECT_PATH_MAX);
    assert_memory_equal(objs[0].path, long_path, TRACE_OBJECT_PATH_MAX);
    assert_int_equal(objs[0].build_id_len, TRACE_BUILD_ID_MAX);
    {
        char hex[2 * TRACE_BUILD_ID_MAX + 1];
        trace_object_build_id_hex(&objs[0], hex, sizeof hex);
        assert_int_equal(strlen(hex), 2 * TRACE_BUILD_ID_MAX);
        assert_int_equal(strspn(hex, "ab"), 2 * TRACE_BUILD_ID_MAX);
    }
    trace_reader_close(r);
    unlink(path);
    free(path);
    free(long_path);
}

/* The file offset of the objects frame (its skippable header) of `data`. */
static size_t objects_frame_offset(const uint8_t *data, size_t size)
{
    trace_native_footer foot;
    assert_int_equal(
        trace_native_footer_decode(data + size - TRACE_NATIVE_FOOTER_SIZE, TRACE_NATIVE_FOOTER_SIZE, &foot), 0);
    assert_true(foot.has_objects);
    return (size_t)(foot.index_offset + SKIP_HEADER + trace_native_get_le(data + foot.index_offset + 4, 4));
}

/* Both readers refuse `data` with TEA_ERR_FORMAT and a message holding
 * `needle`; the streaming reader already at open. */
static void expect_refused(const char *path, const uint8_t *data, size_t size, const char *needle, int frames_too)
{
    trace_reader *r;
    trace_frames *f;
    test_stream s;
    int rc;

    test_write_file(path, data, size);
    rc = test_stream_read(path, NULL, &s);
    if (rc != TEA_ERR_FORMAT)
        fail_msg("%s: expected a format error, got %d (%s)", needle, rc, error_message());
    assert_contains(error_message(), needle);
    assert_contains(error_message(), path);
    test_stream_free(&s);
    if (frames_too) {
        assert_int_equal(trace_reader_open(&r, path, NULL), TEA_ERR_FORMAT);
        assert_contains(error_message(), needle);
        assert_int_equal(trace_frames_open(&f, path), TEA_ERR_FORMAT);
        assert_contains(error_message(), needle);
    } else {
        /* the frame reader leaves the diagnosis to the stream reader */
        assert_int_not_equal(trace_frames_open(&f, path), 0);
    }
}

static void damaged_objects_frame(void **state)
{
    char *path = test_temp_path("damaged.tea"), *plain = test_temp_path("noobj.tea");
    uint8_t *data, *copy;
    size_t size, at, first, needle_len;
    char needle[96];
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    (void)state;

    write_with_objects(path, 2, NULL, 9, 2);
    test_read_file(path, &data, &size);
    copy = malloc(size);
    assert_non_null(copy);
    at = objects_frame_offset(data, size);
    /* first object: after magic, tid, threads, count (20 bytes) */
    first = at + SKIP_HEADER + TRACE_NATIVE_MAGIC_SIZE + 12;
    needle_len = (size_t)snprintf(needle, sizeof needle, "objects frame at byte %zu, content byte ", at);
    assert_true(needle_len < sizeof needle);

    /* a build-id longer than 64 bytes */
    memcpy(copy, data, size);
    copy[first + 24] = TRACE_BUILD_ID_MAX + 1;
    snprintf(needle + needle_len, sizeof needle - needle_len, "44: build-id longer than 64 bytes");
    expect_refused(path, copy, size, needle, 1);
    /* a range that ends before it starts: end = 0 */
    memcpy(copy, data, size);
    memset(copy + first + 16, 0, 8);
    snprintf(needle + needle_len, sizeof needle - needle_len, "20: an object's range ends before it starts");
    expect_refused(path, copy, size, needle, 1);
    /* one more object than the frame holds */
    memcpy(copy, data, size);
    copy[at + SKIP_HEADER + TRACE_NATIVE_MAGIC_SIZE + 8] = 3;
    expect_refused(path, copy, size, "truncated", 1);
    /* one object fewer: the second object's bytes are read as the run's
     * fields, its load bias's low bytes as a key and the next four as a
     * length far beyond the frame */
    memcpy(copy, data, size);
    copy[at + SKIP_HEADER + TRACE_NATIVE_MAGIC_SIZE + 8] = 1;
    expect_refused(path, copy, size, "truncated run field", 1);
    /* a thread id without a thread count */
    memcpy(copy, data, size);
    memset(copy + at + SKIP_HEADER + TRACE_NATIVE_MAGIC_SIZE + 4, 0, 4);
    expect_refused(path, copy, size, "a thread id without a thread count", 1);
    /* the footer does not refer to the objects frame (flag cleared) */
    memcpy(copy, data, size);
    copy[size - TRACE_NATIVE_FOOTER_SIZE + TRACE_NATIVE_MAGIC_SIZE + 7] &= 0x7f;
    expect_refused(path, copy, size, "does not refer to the objects frame read", 0);
    /* the objects flag in a 1.0 footer */
    memcpy(copy, data, size);
    copy[size - TRACE_NATIVE_FOOTER_SIZE + TRACE_NATIVE_MAGIC_SIZE + 2] = 0;
    expect_refused(path, copy, size, "cannot refer to an objects frame", 0);
    free(copy);
    free(data);

    /* a footer that refers to an objects frame in a file without one */
    assert_int_equal(test_stream_write(&model, &model.header, &o, plain), 0);
    test_read_file(plain, &data, &size);
    data[size - TRACE_NATIVE_FOOTER_SIZE + TRACE_NATIVE_MAGIC_SIZE + 2] = TRACE_NATIVE_VERSION_MINOR_OBJECTS;
    data[size - TRACE_NATIVE_FOOTER_SIZE + TRACE_NATIVE_MAGIC_SIZE + 7] |= 0x80;
    expect_refused(plain, data, size, "refers to an objects frame, none was read", 0);
    free(data);
    unlink(path);
    unlink(plain);
    free(path);
    free(plain);
}

/* The run's facts: the programs before the traced one, the exit status,
 * an interrupt and the region's time go through the objects frame (with or
 * without objects), are read back by a seekable and a streaming reader and
 * raise the footer's minor version to 2; damaged fields are refused
 * naming their byte, and a field of an unknown key is skipped. */
static void run_facts(void **state)
{
    char *path = test_temp_path("run.tea");
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    const trace_exec execs[] = { { "/usr/bin/env", 251833 }, { "/usr/bin/bash", 7 } };
    trace_run run = { execs, 2, 1, 3, SIGINT, 123456789, { 0, 0, 0, NULL, 0, NULL, NULL }, NULL, 0, NULL, 0, NULL, NULL, 0 };
    const trace_run *back;
    trace_object_list l, d;
    trace_writer *w;
    trace_reader *r;
    trace_batch b = test_stream_batch(&model, 0, model.count);
    uint8_t *data = NULL;
    size_t size = 0, bad;
    (void)state;

    assert_int_equal(trace_writer_open(&w, path, &model.header, &o), 0);
    assert_int_equal(trace_writer_write(w, &b), 0);
    assert_int_equal(trace_writer_set_run(w, &run), 0);
    assert_int_equal(trace_writer_finish(w, NULL), 0);
    for (int piped = 0; piped < 2; piped++) {
        char *fifo = test_temp_path("run.fifo");
        pid_t child = piped ? serve_fifo(path, fifo) : 0;
        trace_batch rb;
        assert_int_equal(trace_reader_open(&r, piped ? fifo : path, NULL), 0);
        assert_int_equal(trace_batch_init(&rb, 512), 0);
        while (trace_reader_read(r, &rb) == 0 && rb.count)
            ;
        assert_int_equal(trace_reader_run(r, &back), 0);
        assert_int_equal(back->exec_count, 2);
        assert_string_equal(back->execs[0].path, "/usr/bin/env");
        assert_int_equal(back->execs[0].instructions, 251833);
        assert_string_equal(back->execs[1].path, "/usr/bin/bash");
        assert_int_equal(back->execs[1].instructions, 7);
        assert_true(back->has_exit_status);
        assert_int_equal(back->exit_status, 3);
        assert_int_equal(back->interrupted, SIGINT);
        assert_int_equal(back->region_ns, 123456789);
        trace_batch_free(&rb);
        trace_reader_close(r);
        if (piped)
            fifo_done(child, fifo);
        free(fifo);
    }
    test_read_file(path, &data, &size);
    assert_int_equal(data[size - TRACE_NATIVE_FOOTER_SIZE + TRACE_NATIVE_MAGIC_SIZE + 2],
                     TRACE_NATIVE_VERSION_MINOR_RUN);
    free(data);

    /* encoded alone: a list with no object; then damaged */
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_true(trace_object_list_present(&l));
    data = NULL;
    size = 0;
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    /* magic, thread, threads, count: 20; exec 1: 6 + 8 + 12; exec 2: 6 + 8 + 13;
     * exit status and interrupt: 6 + 4 each; region: 6 + 8 */
    assert_int_equal(size, 20 + 26 + 27 + 10 + 10 + 14);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), 0);
    assert_int_equal(d.run.exec_count, 2);
    assert_string_equal(d.run.execs[1].path, "/usr/bin/bash");
    assert_int_equal(d.run.region_ns, 123456789);
    /* a line break in a program's path (its first byte, content byte 20 + 6 + 8) */
    data[34] = '\n';
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, 34);
    assert_non_null(strstr(error_message(), "line break in a program path"));
    data[34] = '/';
    /* the exit status's field four bytes short: its length says 8 */
    data[20 + 26 + 27 + 2] = 8;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, 20 + 26 + 27);
    assert_non_null(strstr(error_message(), "run field of the wrong size"));
    data[20 + 26 + 27 + 2] = 4;
    /* an unknown key (a later minor's field) is skipped: the exit status's */
    data[20 + 26 + 27] = 99;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), 0);
    assert_false(d.run.has_exit_status);
    assert_int_equal(d.run.interrupted, SIGINT);
    /* cut inside the last field */
    assert_int_equal(trace_object_list_decode(data, size - 3, &d, &bad), TEA_ERR_FORMAT);
    assert_non_null(strstr(error_message(), "truncated run field"));
    free(data);
    trace_object_list_free(&l);
    trace_object_list_free(&d);
    unlink(path);
    free(path);
}

/* A sampled run's sampling goes through the objects frame (period, length,
 * warm-up, each window's last cycle); unsound samplings are refused by the
 * writer and, damaged, by the decoder naming the field's byte. */
static void run_sampling(void **state)
{
    const uint64_t ends[] = { 1500, 2900, 4100 };
    trace_run run;
    trace_object_list l, d;
    uint8_t *data = NULL;
    size_t size = 0, bad;
    (void)state;

    memset(&run, 0, sizeof run);
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    run.sampling = (trace_sampling){ 1000000, 10000, 50000, ends, 3, NULL, NULL };
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_true(trace_object_list_present(&l));
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    /* magic, thread, threads, count: 20; the field: 6 + 3 * 8 + 3 * 8 */
    assert_int_equal(size, 20 + 6 + 24 + 24);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), 0);
    assert_int_equal(d.run.sampling.every, 1000000);
    assert_int_equal(d.run.sampling.length, 10000);
    assert_int_equal(d.run.sampling.warmup, 50000);
    assert_int_equal(d.run.sampling.window_count, 3);
    assert_int_equal(d.run.sampling.window_ends[2], 4100);
    /* window ends that do not increase: the second set to the first's */
    data[20 + 6 + 24 + 8] = data[20 + 6 + 24];
    data[20 + 6 + 24 + 9] = data[20 + 6 + 24 + 1];
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, 20);
    assert_non_null(strstr(error_message(), "the window ends do not increase"));
    /* a length not below the period */
    run.sampling.length = 1000000;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "the timed length"));
    run.sampling.length = 10000;
    run.sampling.warmup = 1000000 - 9999;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "exceed the period"));
    /* a field one window short of its declared length is cut */
    assert_int_equal(trace_object_list_decode(data, size - 8, &d, &bad), TEA_ERR_FORMAT);
    free(data);
    trace_object_list_free(&l);
    trace_object_list_free(&d);
}

/* A weighted (SimPoint) sampling: field 6 with a start, a weight and an
 * end per window, read back whole; no window groups; starts closer than
 * the timed length, a weight of 0, starts without weights and a length
 * over the interval are refused. */
static void weighted_sampling(void **state)
{
    const uint64_t ends[] = { 1500, 2900 }, starts[] = { 3000, 9000 }, weights[] = { 7, 2 };
    trace_run run;
    trace_object_list l, d;
    uint8_t *data = NULL;
    size_t size = 0, bad;
    (void)state;

    memset(&run, 0, sizeof run);
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    run.sampling = (trace_sampling){ 1000, 1000, 50000, ends, 2, starts, weights };
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    /* magic, thread, threads, count: 20; the field: 6 + 3 * 8 + 2 * 3 * 8 */
    assert_int_equal(size, 20 + 6 + 24 + 48);
    assert_int_equal(data[20], 6);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), 0);
    assert_true(trace_sampling_weighted(&d.run.sampling));
    assert_int_equal(d.run.sampling.every, 1000);
    assert_int_equal(d.run.sampling.length, 1000);
    assert_int_equal(d.run.sampling.warmup, 50000);
    assert_int_equal(d.run.sampling.window_count, 2);
    assert_int_equal(d.run.sampling.window_starts[1], 9000);
    assert_int_equal(trace_sampling_weight(&d.run.sampling, 0), 7);
    assert_int_equal(d.run.sampling.window_weights[1], 2);
    assert_int_equal(d.run.sampling.window_ends[1], 2900);
    assert_int_equal(trace_sampling_groups(&d.run.sampling), 0);
    /* the second window's weight (content byte 20 + 6 + 24 + 24 + 8) set to 0 */
    memset(data + 20 + 6 + 24 + 24 + 8, 0, 8);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, 20);
    assert_non_null(strstr(error_message(), "a window weight of 0"));
    /* starts 999 apart with 1000 timed instructions each: overlapping */
    run.sampling.window_starts = (const uint64_t[]){ 3000, 3999 };
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "do not increase by the timed length"));
    run.sampling.window_starts = starts;
    run.sampling.length = 1001;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "between 1 and the interval"));
    run.sampling.length = 1000;
    run.sampling.window_weights = NULL;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "starts without weights"));
    free(data);
    trace_object_list_free(&l);
    trace_object_list_free(&d);
}

/* The threads of a run (field 7: a number and the instructions of each)
 * go through the objects frame; their sums, the busiest and a thread's
 * own count follow from them; a thread numbered 0, threads out of order,
 * a field of the wrong size and a second field are refused, by the writer
 * and, damaged, by the decoder naming the field's byte. A frame without
 * the field (every trace before it) reads with no threads. */
/* A program's thread traces are named thread-N.tea, N from 1, no leading
 * zero, a u32. */
static void thread_file_names(void **state)
{
    uint32_t tid = 0;
    (void)state;
    assert_true(trace_thread_file("thread-1.tea", &tid) && tid == 1);
    assert_true(trace_thread_file("thread-4294967295.tea", &tid) && tid == UINT32_MAX);
    assert_true(trace_thread_file("thread-12.tea", NULL));
    assert_false(trace_thread_file("thread-4294967296.tea", &tid));
    assert_false(trace_thread_file("thread-0.tea", &tid));
    assert_false(trace_thread_file("thread-01.tea", &tid));
    assert_false(trace_thread_file("thread-.tea", &tid));
    assert_false(trace_thread_file("thread-3.tea.zst", &tid));
    assert_false(trace_thread_file("thread-3x.tea", &tid));
    assert_false(trace_thread_file("record.tea", &tid));
}

static void run_threads(void **state)
{
    const trace_thread_count threads[] = { { 1, 153012 }, { 2, 2050021 }, { 5, 40 } };
    trace_run run;
    trace_object_list l, d;
    uint8_t *data = NULL, *twice;
    size_t size = 0, bad;
    uint64_t all, mine;
    uint32_t busiest;
    (void)state;

    memset(&run, 0, sizeof run);
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    trace_threads_sum(threads, 3, 1, &all, &mine, &busiest);
    assert_int_equal(all, 153012 + 2050021 + 40);
    assert_int_equal(mine, 153012);
    assert_int_equal(busiest, 2);
    trace_threads_sum(threads, 3, 9, &all, &mine, &busiest);
    assert_int_equal(mine, 0);
    trace_threads_sum(NULL, 0, 1, &all, &mine, &busiest);
    assert_int_equal(all, 0);
    assert_int_equal(busiest, 0);
    trace_threads_sum((const trace_thread_count[]){ { 3, 7 }, { 4, 7 } }, 2, 4, &all, &mine, &busiest);
    assert_int_equal(busiest, 3); /* the lowest number among equals */
    trace_threads_sum((const trace_thread_count[]){ { 1, UINT64_MAX - 1 }, { 2, 2 } }, 2, 1, &all, &mine, &busiest);
    assert_int_equal(all, UINT64_MAX); /* the sum does not fit */

    /* a frame without threads reads with none */
    run.region_ns = 5;
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), 0);
    assert_int_equal(d.run.thread_count, 0);
    assert_null(d.run.threads);
    free(data);
    data = NULL;
    size = 0;

    run.region_ns = 0;
    run.threads = threads;
    run.thread_count = 3;
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_true(trace_object_list_present(&l));
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    /* magic, thread, threads, count: 20; the field: 6 + 3 * (4 + 8) */
    assert_int_equal(size, 20 + 6 + 36);
    assert_int_equal(data[20], 7);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), 0);
    assert_int_equal(d.run.thread_count, 3);
    assert_int_equal(d.run.threads[0].tid, 1);
    assert_int_equal(d.run.threads[0].instructions, 153012);
    assert_int_equal(d.run.threads[1].tid, 2);
    assert_int_equal(d.run.threads[1].instructions, 2050021);
    assert_int_equal(d.run.threads[2].tid, 5);
    assert_int_equal(d.run.threads[2].instructions, 40);
    /* the second thread numbered as the first (content byte 20 + 6 + 12) */
    data[20 + 6 + 12] = 1;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, 20);
    assert_non_null(strstr(error_message(), "not in increasing order"));
    data[20 + 6 + 12] = 0;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad), TEA_ERR_FORMAT);
    assert_non_null(strstr(error_message(), "numbered 0"));
    data[20 + 6 + 12] = 2;
    /* a length that is no whole number of threads */
    data[20 + 2] = 35;
    assert_int_equal(trace_object_list_decode(data, size - 1, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, 20);
    assert_non_null(strstr(error_message(), "threads field of the wrong size"));
    data[20 + 2] = 36;
    /* the field twice */
    twice = malloc(size + 42);
    assert_non_null(twice);
    memcpy(twice, data, size);
    memcpy(twice + size, data + 20, 42);
    assert_int_equal(trace_object_list_decode(twice, size + 42, &d, &bad), TEA_ERR_FORMAT);
    assert_int_equal(bad, size);
    assert_non_null(strstr(error_message(), "a second threads field"));
    free(twice);
    /* the writer refuses what the decoder refuses */
    run.threads = (const trace_thread_count[]){ { 2, 1 }, { 1, 1 } };
    run.thread_count = 2;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_non_null(strstr(error_message(), "not in increasing order"));
    run.threads = (const trace_thread_count[]){ { 0, 1 } };
    run.thread_count = 1;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    free(data);
    trace_object_list_free(&l);
    trace_object_list_free(&d);
}


/* --- calling contexts (docs/trace-format.md, "Context frames") --- */

/* The tree of the context tests: the root, main at 0x1000 called from
 * nowhere known, a called at 0x1040 from main's 0x1010, leaf from a's
 * 0x1050. */
static const trace_context context_tree[] = {
    { 0, 0, TRACE_CONTEXT_ROOT, 0 },
    { 0, 0x1000, 0, 1 },
    { 0x1010, 0x1040, 1, 2 },
    { 0x1050, 0x2000, 2, 3 },
};
#define CONTEXT_TREE_NODES 4u

/* The model stream with µop i in context (i / 7) % 4, 0 for the µops of
 * every 50th record: changes inside records and across frames. */
static void stream_with_contexts(test_stream *s)
{
    test_stream_init(s);
    for (size_t r = 0; r < model.count; r++) {
        trace_uop uops[TRACE_MAX_RECORD_UOPS + 1];
        const trace_record *rec = &model.records[r];
        unsigned n = trace_record_uops(rec);
        memcpy(uops, model.uops + rec->first_uop, n * sizeof *uops);
        for (unsigned k = 0; k < n; k++)
            uops[k].ctx = r % 50 ? (uint32_t)((rec->first_uop + k) / 7 % CONTEXT_TREE_NODES) : TRACE_CONTEXT_ROOT;
        test_stream_append(s, rec, uops);
    }
}

/* Writes `s` natively with the test tree (nodes: how many of it) into path. */
static int write_contexts(const char *path, const test_stream *s, uint32_t nodes)
{
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    trace_writer *w;
    trace_batch b = test_stream_batch(s, 0, s->count);
    trace_run run;
    int rc;

    memset(&run, 0, sizeof run);
    run.contexts = context_tree;
    run.context_count = nodes;
    assert_int_equal(trace_writer_open(&w, path, &s->header, &o), 0);
    assert_int_equal(trace_writer_write(w, &b), 0);
    assert_int_equal(trace_writer_set_run(w, &run), 0);
    rc = trace_writer_finish(w, NULL);
    return rc;
}

/* Every frame of `path` through frame readers, in order, into `out`
 * (frames whose contexts are dropped when `drop`). */
static void read_by_frames(const char *path, int drop, test_stream *out)
{
    trace_frames *f;
    trace_frame_reader *fr;
    trace_batch batch;

    test_stream_init(out);
    if (trace_frames_open(&f, path))
        fail_msg("%s", error_message());
    if (drop)
        trace_frames_drop_contexts(f);
    assert_int_equal(trace_frames_run(f)->context_count, CONTEXT_TREE_NODES);
    assert_int_equal(trace_frame_reader_create(&fr, f), 0);
    assert_int_equal(trace_batch_init(&batch, 1000), 0);
    for (size_t k = 0; k < trace_frames_count(f); k++) {
        assert_int_equal(trace_frame_reader_start(fr, k), 0);
        for (;;) {
            if (trace_frame_reader_read(fr, &batch))
                fail_msg("%s", error_message());
            if (batch.count == 0)
                break;
            for (size_t i = 0; i < batch.count; i++)
                test_stream_append(out, &batch.records[i], batch.uops + batch.records[i].first_uop);
        }
    }
    trace_batch_free(&batch);
    trace_frame_reader_free(fr);
    trace_frames_close(f);
}

/* A trace with contexts: the stream reader (file and pipe) and the frame
 * reader give every µop its context; dropped, the root; the tree comes
 * back node for node; old readers' view (the records) is unchanged. */
static void contexts_round_trip(void **state)
{
    char *path = test_temp_path("contexts.tea"), *plain = test_temp_path("no-contexts.tea");
    char *fifo = test_temp_path("contexts.fifo");
    test_stream with, back, flat;
    trace_reader *r;
    const trace_run *run;
    trace_write_options o = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    pid_t child;
    (void)state;

    stream_with_contexts(&with);
    assert_int_equal(write_contexts(path, &with, CONTEXT_TREE_NODES), 0);
    assert_int_equal(test_stream_read(path, NULL, &back), 0);
    assert_streams_equal(&with, &back);
    test_stream_free(&back);
    child = serve_fifo(path, fifo);
    assert_int_equal(test_stream_read(fifo, NULL, &back), 0);
    fifo_done(child, fifo);
    assert_streams_equal(&with, &back);
    test_stream_free(&back);
    read_by_frames(path, 0, &back);
    assert_streams_equal(&with, &back);
    test_stream_free(&back);
    /* dropped: the model's own µops, all in the root */
    read_by_frames(path, 1, &flat);
    assert_streams_equal(&model, &flat);
    test_stream_free(&flat);
    /* the tree, depths included */
    assert_int_equal(trace_reader_open(&r, path, NULL), 0);
    assert_int_equal(trace_reader_run(r, &run), 0);
    assert_int_equal(run->context_count, CONTEXT_TREE_NODES);
    assert_memory_equal(run->contexts, context_tree, sizeof context_tree);
    trace_reader_close(r);
    /* a µop in a context the tree lacks: the writer refuses the trace */
    assert_int_equal(write_contexts(path, &with, CONTEXT_TREE_NODES - 1), TEA_ERR_USAGE);
    assert_contains(error_message(), "a µop in calling context 3, but the trace's tree holds 3 contexts");
    /* all in the root: the bytes of a trace without contexts, and its tree */
    assert_int_equal(test_stream_write(&model, &model.header, &o, plain), 0);
    {
        uint8_t *a, *b;
        size_t na, nb;
        assert_int_equal(write_contexts(path, &model, CONTEXT_TREE_NODES), 0);
        test_read_file(plain, &a, &na);
        test_read_file(path, &b, &nb);
        /* no context frame: header, data frames and index agree byte for
         * byte; the objects frame with the tree stands before the footer */
        assert_true(nb > na);
        assert_memory_equal(a, b, na - SKIP_HEADER - TRACE_NATIVE_FOOTER_SIZE);
        free(a);
        free(b);
    }
    test_stream_free(&with);
    unlink(path);
    unlink(plain);
    free(path);
    free(plain);
    free(fifo);
}

/* The tree in the objects frame: encoded and decoded node for node; trees
 * that break its rules are refused naming the field's byte. */
/* The window-stacks field (run field 9): two windows, the first with
 * return addresses 0x1005 and 0x2005, the second none; the field is 6 +
 * 2 + 16 + 2 bytes and decodes to the same; a count above 256 frames, and
 * a count the value cannot hold, refused naming the field's byte (20). */
static void window_stacks_field(void **state)
{
    static const uint32_t counts[] = { 2, 0 };
    static const uint64_t returns[] = { 0x1005, 0x2005 };
    trace_object_list l, d;
    trace_run run;
    uint8_t *data = NULL;
    size_t size = 0, bad_at;
    (void)state;

    memset(&run, 0, sizeof run);
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    run.stack_counts = counts;
    run.stack_returns = returns;
    run.stack_windows = 2;
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_true(trace_object_list_present(&l));
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    assert_int_equal(size, 20 + 6 + 2 + 16 + 2);
    assert_int_equal(data[20], 9);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad_at), 0);
    assert_int_equal(d.run.stack_windows, 2);
    assert_memory_equal(d.run.stack_counts, counts, sizeof counts);
    assert_memory_equal(d.run.stack_returns, returns, sizeof returns);
    /* the first window's count made 257 */
    data[20 + 6] = 1;
    data[20 + 7] = 1;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad_at), TEA_ERR_FORMAT);
    assert_int_equal(bad_at, 20);
    assert_contains(error_message(), "malformed window-stacks field");
    /* 3 frames, which the 18 bytes after it cannot hold */
    data[20 + 6] = 3;
    data[20 + 7] = 0;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad_at), TEA_ERR_FORMAT);
    assert_contains(error_message(), "malformed window-stacks field");
    free(data);
    trace_object_list_free(&l);
    trace_object_list_free(&d);
}

static void contexts_field(void **state)
{
    trace_context bad[CONTEXT_TREE_NODES];
    trace_object_list l, d;
    trace_run run;
    uint8_t *data = NULL;
    size_t size = 0, bad_at;
    (void)state;

    memset(&run, 0, sizeof run);
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    run.contexts = context_tree;
    run.context_count = CONTEXT_TREE_NODES;
    assert_int_equal(trace_object_list_set_run(&l, &run), 0);
    assert_true(trace_object_list_present(&l));
    assert_int_equal(trace_object_list_encode(&l, &data, &size), 0);
    /* magic, thread, threads, count: 20; the field: 6 + 3 * (4 + 8 + 8) */
    assert_int_equal(size, 20 + 6 + 60);
    assert_int_equal(data[20], 8);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad_at), 0);
    assert_int_equal(d.run.context_count, CONTEXT_TREE_NODES);
    assert_memory_equal(d.run.contexts, context_tree, sizeof context_tree);
    /* leaf's parent made 3, itself (content byte 20 + 6 + 2 * 20) */
    data[20 + 6 + 40] = 3;
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad_at), TEA_ERR_FORMAT);
    assert_int_equal(bad_at, 20);
    assert_contains(error_message(), "a calling context before its parent");
    /* leaf made a's twin: parent 1, a's site and entry */
    data[20 + 6 + 40] = 1;
    memcpy(data + 20 + 6 + 44, data + 20 + 6 + 24, 16);
    assert_int_equal(trace_object_list_decode(data, size, &d, &bad_at), TEA_ERR_FORMAT);
    assert_contains(error_message(), "a calling context given twice");
    /* a field cut inside a node */
    data[20 + 2] = 59;
    assert_int_equal(trace_object_list_decode(data, size - 1, &d, &bad_at), TEA_ERR_FORMAT);
    assert_contains(error_message(), "calling-context field of the wrong size");
    /* set_run checks the tree: no root first, a depth that skips a call */
    memcpy(bad, context_tree, sizeof bad);
    bad[0].site = 1;
    run.contexts = bad;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_contains(error_message(), "the first calling context is not the root");
    memcpy(bad, context_tree, sizeof bad);
    bad[3].depth = 5;
    assert_int_equal(trace_object_list_set_run(&l, &run), TEA_ERR_USAGE);
    assert_contains(error_message(), "deeper than its parent by more than one call");
    free(data);
    trace_object_list_free(&l);
    trace_object_list_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(no_objects_no_frame),
        cmocka_unit_test(writer_limits),
        cmocka_unit_test(damaged_objects_frame),
        cmocka_unit_test(run_facts),
        cmocka_unit_test(run_sampling),
        cmocka_unit_test(weighted_sampling),
        cmocka_unit_test(run_threads),
        cmocka_unit_test(contexts_round_trip),
        cmocka_unit_test(contexts_field), cmocka_unit_test(window_stacks_field),
        cmocka_unit_test(thread_file_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
