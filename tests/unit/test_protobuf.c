/*
 * test_protobuf.c: Protocol Buffers' wire format as common/protobuf.c
 * writes it, against the encodings the format's documentation works out
 * by hand (150 as a varint, "testing" as a string, 3, 270 and 86942
 * packed, a message nested in another), and common/gzip.c's output
 * inflated back by zlib.
 */
#include "common/error.h"
#include "common/gzip.h"
#include "common/protobuf.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

/* Whether b holds exactly the `n` bytes of `want`. */
static void assert_bytes(const protobuf_buf *b, const uint8_t *want, size_t n)
{
    assert_int_equal(b->rc, 0);
    assert_int_equal(b->size, n);
    assert_memory_equal(b->data, want, n);
}

/* Field 1 = 150: key 0x08 (1 << 3 | varint), then 150 = 0b10010110 as
 * 0x96 0x01 (the low 7 bits with the continuation bit, then the rest). */
static void varint_150(void **state)
{
    static const uint8_t want[] = { 0x08, 0x96, 0x01 };
    protobuf_buf b;
    (void)state;
    protobuf_init(&b);
    protobuf_varint(&b, 1, 150);
    assert_bytes(&b, want, sizeof want);
    protobuf_free(&b);
}

/* Field 2 = "testing": key 0x12 (2 << 3 | length-delimited), length 7,
 * the bytes. A 64-bit value takes ten bytes, the last 0x01. */
static void string_and_wide_varint(void **state)
{
    static const uint8_t want[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
    static const uint8_t wide[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    protobuf_buf b;
    (void)state;
    protobuf_init(&b);
    protobuf_string(&b, 2, "testing");
    assert_bytes(&b, want, sizeof want);
    protobuf_reset(&b);
    protobuf_varint(&b, 1, UINT64_MAX);
    assert_bytes(&b, wide, sizeof wide);
    protobuf_free(&b);
}

/* Field 4 packed [3, 270, 86942]: key 0x22, 6 bytes: 03, 8E 02, 9E A7 05.
 * Field 3 = a message holding field 1 = 150: key 0x1a, 3, 08 96 01. */
static void packed_and_nested(void **state)
{
    static const uint8_t packed[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
    static const uint8_t nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
    static const uint64_t v[] = { 3, 270, 86942 };
    protobuf_buf b, m;
    (void)state;
    protobuf_init(&b);
    protobuf_init(&m);
    protobuf_packed(&b, 4, v, 3);
    assert_bytes(&b, packed, sizeof packed);
    protobuf_reset(&b);
    protobuf_varint(&m, 1, 150);
    protobuf_message(&b, 3, &m);
    assert_bytes(&b, nested, sizeof nested);
    /* fields encoded once, appended as they are after the packed field:
     * the same bytes as encoding both in place */
    {
        static const uint8_t both[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05, 0x1a, 0x03, 0x08, 0x96, 0x01 };
        protobuf_buf fields = b, out;
        protobuf_init(&out);
        protobuf_packed(&out, 4, v, 3);
        protobuf_append(&out, &fields);
        assert_bytes(&out, both, sizeof both);
        protobuf_free(&out);
    }
    protobuf_free(&b);
    protobuf_free(&m);
}

/* A message larger than the first buffer grows it; every byte is kept. */
static void grows(void **state)
{
    protobuf_buf b;
    (void)state;
    protobuf_init(&b);
    for (int i = 0; i < 1000; i++)
        protobuf_varint(&b, 1, 150);
    assert_int_equal(b.size, 3000);
    for (int i = 0; i < 1000; i++)
        assert_true(b.data[3 * i] == 0x08 && b.data[3 * i + 1] == 0x96 && b.data[3 * i + 2] == 0x01);
    protobuf_free(&b);
}

/* gzip: the magic and method (1f 8b 08), no name or time (flags and mtime
 * 0), and zlib inflates it back to the input; the same input gives the
 * same bytes. */
static void gzip_round_trip(void **state)
{
    char *path = test_temp_path("gzip");
    static const char text[] = "cycles cycles cycles instructions";
    uint8_t *data, out[256];
    size_t size;
    FILE *f;
    z_stream z;
    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        uint8_t *first = NULL;
        size_t first_size = 0;
        if (pass == 1) {
            test_read_file(path, &first, &first_size);
        }
        assert_non_null(f = fopen(path, "wb"));
        assert_int_equal(gzip_write(f, text, sizeof text), 0);
        fclose(f);
        test_read_file(path, &data, &size);
        assert_true(size > 10 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 0x08 && data[3] == 0);
        assert_true(data[4] == 0 && data[5] == 0 && data[6] == 0 && data[7] == 0);
        if (pass == 1) {
            assert_int_equal(size, first_size);
            assert_memory_equal(data, first, size);
        }
        memset(&z, 0, sizeof z);
        assert_int_equal(inflateInit2(&z, MAX_WBITS + 16), Z_OK);
        z.next_in = data;
        z.avail_in = (uInt)size;
        z.next_out = out;
        z.avail_out = sizeof out;
        assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
        assert_int_equal(z.total_out, sizeof text);
        assert_memory_equal(out, text, sizeof text);
        inflateEnd(&z);
        free(data);
        free(first);
    }
    remove(path);
    free(path);
}

/* A gzip member written in pieces (uneven, some empty, one across
 * zlib's 64 KiB chunk) is the same bytes as the whole written at once,
 * and inflates to the input: 300,000 bytes of a repeating pattern with a
 * counter in it. */
static void gzip_in_pieces(void **state)
{
    enum { SIZE = 300000 };
    static const size_t pieces[] = { 0, 1, 7, 65536, 65537, 0, 100, 20000 };
    char *path = test_temp_path("gzip-pieces");
    uint8_t *input = malloc(SIZE), *whole, *split, *back = malloc(SIZE + 1);
    size_t whole_size, split_size, at = 0;
    gzip_stream *g;
    z_stream z;
    FILE *f;
    (void)state;
    assert_non_null(input);
    assert_non_null(back);
    for (size_t i = 0; i < SIZE; i++)
        input[i] = (uint8_t)("cycles instructions "[i % 20] + (i / 4096) % 3);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(gzip_write(f, input, SIZE), 0);
    fclose(f);
    test_read_file(path, &whole, &whole_size);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(gzip_open(&g, f), 0);
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        assert_int_equal(gzip_put(g, input + at, pieces[k]), 0);
        at += pieces[k];
    }
    assert_int_equal(gzip_put(g, input + at, SIZE - at), 0);
    assert_int_equal(gzip_close(g, 1), 0);
    fclose(f);
    test_read_file(path, &split, &split_size);
    assert_int_equal(split_size, whole_size);
    assert_memory_equal(split, whole, whole_size);
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, MAX_WBITS + 16), Z_OK);
    z.next_in = split;
    z.avail_in = (uInt)split_size;
    z.next_out = back;
    z.avail_out = SIZE + 1;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    assert_int_equal(z.total_out, SIZE);
    assert_memory_equal(back, input, SIZE);
    inflateEnd(&z);
    free(whole);
    free(split);
    free(input);
    free(back);
    remove(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varint_150),
        cmocka_unit_test(string_and_wide_varint),
        cmocka_unit_test(packed_and_nested),
        cmocka_unit_test(grows),
        cmocka_unit_test(gzip_round_trip),
        cmocka_unit_test(gzip_in_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
