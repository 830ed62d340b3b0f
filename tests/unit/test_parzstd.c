/*
 * test_parzstd.c: trace/parzstd, the frames of a multi-frame zstd file
 * decompressed on several threads, and trace/input's use of it.
 *
 * The test file is built here with libzstd, so every frame's size and
 * content is known: a compressed frame with a content checksum, a skippable
 * frame, a frame of one repeated byte (RLE blocks), an empty frame and an
 * incompressible one (raw blocks). Expectations: the sizes libzstd returned,
 * the content concatenated, and for damaged files the same results through
 * several threads as through the serial reader.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/input.h"
#include "trace/parzstd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* Content of the first frame: several pieces and a part of one. */
#define BIG_CONTENT (3u * TRACE_PARZSTD_PIECE_SIZE + 12345u)
#define RLE_CONTENT 200000u
#define RAW_CONTENT 100000u
#define SKIPPABLE_PAYLOAD 5u
#define FRAME_COUNT 5 /* four data frames and a skippable one */
#define DATA_FRAMES 4
#define CHUNK (512u * 1024u) /* what the TraceDoctor reader asks for */

typedef struct test_file {
    uint8_t *bytes; /* the file */
    size_t size;
    uint8_t *content; /* what zstd -dc prints */
    size_t content_size;
    size_t frame_offset[FRAME_COUNT];
    size_t frame_size[FRAME_COUNT];
} test_file;

static test_file file;

/* Deterministic bytes: compressible (a small alphabet) or not. */
static void fill_bytes(uint8_t *p, size_t n, uint64_t seed, int compressible)
{
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = compressible ? (uint8_t)('a' + (x >> 60)) : (uint8_t)(x >> 56);
    }
}

/* Appends a zstd frame of `content` (with a content checksum when asked). */
static void add_frame(test_file *f, int k, const uint8_t *content, size_t n, int checksum)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    size_t bound = ZSTD_compressBound(n), got;

    assert_non_null(cctx);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum)));
    f->bytes = realloc(f->bytes, f->size + bound);
    assert_non_null(f->bytes);
    got = ZSTD_compress2(cctx, f->bytes + f->size, bound, content, n);
    assert_false(ZSTD_isError(got));
    ZSTD_freeCCtx(cctx);
    f->frame_offset[k] = f->size;
    f->frame_size[k] = got;
    f->size += got;
    f->content = realloc(f->content, f->content_size + n + 1);
    assert_non_null(f->content);
    memcpy(f->content + f->content_size, content, n);
    f->content_size += n;
}

/* Appends a skippable frame (variant 0xE) of SKIPPABLE_PAYLOAD bytes. */
static void add_skippable(test_file *f, int k)
{
    static const uint8_t frame[8 + SKIPPABLE_PAYLOAD] = { 0x5E, 0x2A, 0x4D, 0x18, SKIPPABLE_PAYLOAD, 0, 0, 0, 'h',
                                                          'e',  'l',  'l',  'o' };
    f->bytes = realloc(f->bytes, f->size + sizeof frame);
    assert_non_null(f->bytes);
    memcpy(f->bytes + f->size, frame, sizeof frame);
    f->frame_offset[k] = f->size;
    f->frame_size[k] = sizeof frame;
    f->size += sizeof frame;
}

static int setup(void **state)
{
    uint8_t *big = malloc(BIG_CONTENT), *rle = malloc(RLE_CONTENT), *raw = malloc(RAW_CONTENT);
    (void)state;
    assert_true(big && rle && raw);
    fill_bytes(big, BIG_CONTENT, 1, 1);
    memset(rle, 0x5A, RLE_CONTENT);
    fill_bytes(raw, RAW_CONTENT, 2, 0);
    memset(&file, 0, sizeof file);
    add_frame(&file, 0, big, BIG_CONTENT, 1);
    add_skippable(&file, 1);
    add_frame(&file, 2, rle, RLE_CONTENT, 0);
    add_frame(&file, 3, big, 0, 0);
    add_frame(&file, 4, raw, RAW_CONTENT, 1);
    free(big);
    free(rle);
    free(raw);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(file.bytes);
    free(file.content);
    return 0;
}

/* Writes `size` bytes of `bytes` to a temporary file and opens it. */
static int open_temp(const char *name, const uint8_t *bytes, size_t size, char **path)
{
    int fd;
    *path = test_temp_path(name);
    test_write_file(*path, bytes, size);
    fd = open(*path, O_RDONLY);
    assert_true(fd >= 0);
    return fd;
}

/* Every frame is sized from its headers as libzstd wrote it; anything else
 * is refused. */
static void frame_sizes(void **state)
{
    char *path;
    int fd = open_temp("sizes.zst", file.bytes, file.size, &path), is_data;
    uint64_t size;
    (void)state;

    for (int k = 0; k < FRAME_COUNT; k++) {
        assert_int_equal(trace_parzstd_frame_size(fd, file.size, file.frame_offset[k], &size, &is_data), 1);
        assert_int_equal(size, file.frame_size[k]);
        assert_int_equal(is_data, k != 1);
    }
    /* the middle of a frame, the end of the file, a file cut short */
    assert_int_equal(trace_parzstd_frame_size(fd, file.size, file.frame_offset[0] + 1, &size, &is_data), 0);
    assert_int_equal(trace_parzstd_frame_size(fd, file.size, file.size, &size, &is_data), 0);
    assert_int_equal(trace_parzstd_frame_size(fd, file.size - 1, file.frame_offset[4], &size, &is_data), 0);
    close(fd);
    unlink(path);
    free(path);
}

/* Reads every piece; returns the bytes read (compared with the content) and
 * fills *end. */
static size_t read_all(trace_parzstd *p, uint8_t *out, size_t cap, trace_parzstd_end *end)
{
    const uint8_t *data;
    size_t n, total = 0;

    while (trace_parzstd_next(p, &data, &n, end)) {
        assert_true(n >= 1 && n <= TRACE_PARZSTD_PIECE_SIZE);
        assert_true(total + n <= cap);
        memcpy(out + total, data, n);
        total += n;
    }
    return total;
}

/* The content in order on two and three threads; the end is the file's. */
static void content_in_order(void **state)
{
    char *path;
    int fd = open_temp("order.zst", file.bytes, file.size, &path);
    uint8_t *out = malloc(file.content_size + 1);
    (void)state;

    assert_non_null(out);
    for (unsigned workers = 2; workers <= 3; workers++) {
        trace_parzstd *p;
        trace_parzstd_end end;
        uint64_t offset, frames;
        size_t n;
        assert_int_equal(trace_parzstd_start(&p, fd, file.size, workers), 0);
        n = read_all(p, out, file.content_size, &end);
        assert_int_equal(n, file.content_size);
        assert_memory_equal(out, file.content, n);
        assert_int_equal(end.offset, file.size);
        assert_int_equal(end.frames, DATA_FRAMES);
        assert_int_equal(end.skip, 0);
        trace_parzstd_position(p, &offset, &frames);
        assert_int_equal(offset, file.size);
        assert_int_equal(frames, DATA_FRAMES);
        trace_parzstd_free(p);
    }
    free(out);
    close(fd);
    unlink(path);
    free(path);
}

/* One frame, one worker, no frame at all: nothing to share. */
static void nothing_to_share(void **state)
{
    char *path;
    int fd = open_temp("one.zst", file.bytes, file.frame_size[0], &path);
    trace_parzstd *p = (trace_parzstd *)1;
    (void)state;

    assert_int_equal(trace_parzstd_start(&p, fd, file.frame_size[0], 2), TEA_ERR_UNSUPPORTED);
    assert_null(p);
    assert_int_equal(trace_parzstd_start(&p, fd, file.frame_size[0], 1), TEA_ERR_UNSUPPORTED);
    close(fd);
    unlink(path);
    free(path);
    fd = open_temp("junk.zst", (const uint8_t *)"not zstd at all", 15, &path);
    assert_int_equal(trace_parzstd_start(&p, fd, 15, 2), TEA_ERR_UNSUPPORTED);
    close(fd);
    unlink(path);
    free(path);
}

/* A copy of the file with `tail` appended, and `overwrite` (when not NULL)
 * written `at` bytes into it. */
static uint8_t *file_copy(const char *tail, size_t at, const char *overwrite, size_t *size)
{
    uint8_t *copy = malloc(file.size + strlen(tail));
    assert_non_null(copy);
    memcpy(copy, file.bytes, file.size);
    memcpy(copy + file.size, tail, strlen(tail));
    if (overwrite)
        memcpy(copy + at, overwrite, strlen(overwrite));
    *size = file.size + strlen(tail);
    return copy;
}

/* Where the threads stop on damage: at the frame that fails (after handing
 * out the pieces it made, which are a prefix of its content), or at bytes
 * that are no frame. */
static void stops_at_damage(void **state)
{
    struct {
        const char *tail;
        size_t at;
        const char *bytes;
        int frame; /* where the threads stop */
    } cases[] = {
        /* the last frame's checksum: detected once its content is out */
        { "", 0, "\xFF\xFF\xFF\xFF", 4 },
        /* trailing garbage after the last frame */
        { "garbage", 0, NULL, FRAME_COUNT },
    };
    uint8_t *out = malloc(file.content_size + 1);
    (void)state;

    assert_non_null(out);
    cases[0].at = file.frame_offset[4] + file.frame_size[4] - 4;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t size, n, before;
        uint8_t *bytes = file_copy(cases[c].tail, cases[c].at, cases[c].bytes, &size);
        char *path;
        int fd;
        trace_parzstd *p;
        trace_parzstd_end end;

        fd = open_temp("damaged.zst", bytes, size, &path);
        assert_int_equal(trace_parzstd_start(&p, fd, size, 2), 0);
        n = read_all(p, out, file.content_size, &end);
        before = cases[c].frame < FRAME_COUNT ? file.frame_offset[cases[c].frame] : file.size;
        assert_int_equal(end.offset, before);
        assert_int_equal(end.frames, cases[c].frame < FRAME_COUNT ? DATA_FRAMES - 1 : DATA_FRAMES);
        assert_true(n <= file.content_size);
        assert_memory_equal(out, file.content, n);
        assert_int_equal(n, file.content_size - (cases[c].frame < FRAME_COUNT ? RAW_CONTENT : 0) + end.skip);
        trace_parzstd_free(p);
        close(fd);
        unlink(path);
        free(path);
        free(bytes);
    }
    free(out);
}

/* Reads a file through trace_input as the TraceDoctor reader does: one
 * chunk synchronously, then the rest after trace_input_prefetch_chunks with
 * `threads`. Returns the error code; the content read goes to *out (and its
 * size to *n), the message to `message`. */
static int read_input(const char *path, unsigned threads, uint8_t *out, size_t cap, size_t *n, char *message,
                      size_t message_size, uint64_t *frames)
{
    trace_input *in;
    const uint8_t *data;
    size_t got;
    int rc;

    *n = 0;
    message[0] = '\0';
    assert_int_equal(trace_input_open(&in, path), 0);
    rc = trace_input_next_chunk(in, CHUNK, &data, &got);
    if (!rc) {
        assert_true(got > 0 && got <= cap);
        memcpy(out, data, got);
        *n = got;
        trace_input_prefetch_chunks(in, CHUNK, threads);
    }
    while (!rc && got) {
        if (!(rc = trace_input_next_chunk(in, CHUNK, &data, &got)) && got) { /* no data at the end */
            assert_true(*n + got <= cap);
            memcpy(out + *n, data, got);
            *n += got;
        }
    }
    if (rc)
        snprintf(message, message_size, "%s", error_message());
    *frames = trace_input_frames(in);
    trace_input_close(in);
    return rc;
}

/* The raw frame, then the big one cut at three quarters: the serial reader
 * hands out its first chunk (all of the raw frame and the start of the big
 * one) before the threads start, and they stop at the big frame, which
 * cannot be sized; the serial reader then goes on inside it. *content gets
 * what the frames hold. */
static uint8_t *small_then_cut(size_t *size, uint8_t **content)
{
    size_t raw = file.frame_size[4], cut = file.frame_size[0] * 3 / 4;
    uint8_t *bytes = malloc(raw + cut);

    *content = malloc(RAW_CONTENT + BIG_CONTENT);
    assert_true(bytes && *content);
    memcpy(bytes, file.bytes + file.frame_offset[4], raw);
    memcpy(bytes + raw, file.bytes + file.frame_offset[0], cut);
    memcpy(*content, file.content + file.content_size - RAW_CONTENT, RAW_CONTENT);
    memcpy(*content + RAW_CONTENT, file.content, BIG_CONTENT);
    *size = raw + cut;
    return bytes;
}

/* Through trace_input: the same content, frame count, error code and
 * message on two threads as on one, for the whole file and damaged ones
 * (whose content up to the error is what the frames hold, unless the data
 * itself is corrupt). */
static void input_same_as_serial(void **state)
{
    const char *checksum = "\xFF\xFF\xFF\xFF";
    uint8_t *a = malloc(file.content_size + 1), *b = malloc(file.content_size + 1);
    size_t cuts[] = { 0, 0, 0, 0, 0 };
    (void)state;

    assert_true(a && b);
    cuts[1] = file.frame_offset[4] + file.frame_size[4] - 4; /* the last checksum */
    cuts[2] = file.frame_offset[2] + file.frame_size[2] / 2; /* a file cut in frame 2 */
    cuts[3] = file.frame_offset[0] + file.frame_size[0] / 2; /* corrupt data in frame 0 */
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        size_t size, na, nb;
        uint8_t *content = file.content, *bytes;
        char *path = test_temp_path("input.zst"), ma[1024], mb[1024];
        uint64_t fa, fb;
        int ra, rb;

        if (c == 4)
            bytes = small_then_cut(&size, &content);
        else
            bytes = file_copy("", cuts[c], c == 1 || c == 3 ? checksum : NULL, &size);
        if (c == 2)
            size = cuts[c];
        test_write_file(path, bytes, size);
        ra = read_input(path, 1, a, file.content_size, &na, ma, sizeof ma, &fa);
        rb = read_input(path, 2, b, file.content_size, &nb, mb, sizeof mb, &fb);
        assert_int_equal(ra, rb);
        assert_string_equal(ma, mb);
        assert_int_equal(fa, fb);
        assert_memory_equal(a, b, na < nb ? na : nb);
        if (c != 3) { /* corrupt data may decode to other bytes before its checksum fails */
            assert_memory_equal(a, content, na);
            assert_memory_equal(b, content, nb);
        }
        if (c == 4) {
            assert_int_equal(ra, TEA_ERR_FORMAT);
            assert_contains(mb, "truncated zstd frame starting at byte");
            assert_true(nb > CHUNK); /* the serial reader went on past the first chunk */
            free(content);
        }
        if (c == 0) {
            assert_int_equal(ra, 0);
            assert_int_equal(fa, DATA_FRAMES);
            assert_int_equal(na, file.content_size);
            assert_int_equal(nb, file.content_size);
            assert_memory_equal(a, file.content, na);
            assert_memory_equal(b, file.content, nb);
        } else {
            assert_int_equal(ra, TEA_ERR_FORMAT);
        }
        unlink(path);
        free(path);
        free(bytes);
    }
    free(a);
    free(b);
}

/* trace_input_read_decompressed on two threads: whole requests of any size
 * until the end, whatever the frames' sizes, and the whole content. */
static void read_decompressed_whole(void **state)
{
    const size_t request = 100003; /* neither a piece nor a frame's size */
    char *path = test_temp_path("read.zst");
    uint8_t *out = malloc(file.content_size + request);
    trace_input *in;
    size_t n = 0, got;
    (void)state;

    assert_non_null(out);
    test_write_file(path, file.bytes, file.size);
    assert_int_equal(trace_input_open(&in, path), 0);
    trace_input_prefetch_chunks(in, CHUNK, 2);
    do {
        assert_int_equal(trace_input_read_decompressed(in, out + n, request, &got), 0);
        n += got;
        assert_true(got == request || n == file.content_size); /* short only at the end */
    } while (got);
    assert_int_equal(n, file.content_size);
    assert_memory_equal(out, file.content, n);
    assert_int_equal(trace_input_frames(in), DATA_FRAMES);
    trace_input_close(in);
    unlink(path);
    free(path);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frame_sizes),     cmocka_unit_test(content_in_order),     cmocka_unit_test(nothing_to_share),
        cmocka_unit_test(stops_at_damage), cmocka_unit_test(input_same_as_serial),
        cmocka_unit_test(read_decompressed_whole),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
