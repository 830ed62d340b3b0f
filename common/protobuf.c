/*
 * protobuf.c: Protocol Buffers' wire format, written (see protobuf.h).
 */
#include "protobuf.h"
#include "error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes a varint takes (64 bits, 7 a byte). */
#define VARINT_MAX 10
/* A buffer's first size. */
#define BUF_FIRST 256

void protobuf_init(protobuf_buf *b)
{
    memset(b, 0, sizeof *b);
}

void protobuf_free(protobuf_buf *b)
{
    free(b->data);
    protobuf_init(b);
}

void protobuf_reset(protobuf_buf *b)
{
    b->size = 0;
}

/* Room for `n` more bytes; 0, or -1 (rc set) when there is none. */
static int reserve(protobuf_buf *b, size_t n)
{
    size_t cap;
    uint8_t *grown;

    if (b->rc)
        return -1;
    if (n <= b->cap - b->size)
        return 0;
    cap = b->cap ? b->cap : BUF_FIRST;
    while (cap - b->size < n) {
        if (cap > SIZE_MAX / 2) {
            b->rc = error_set(TEA_ERR_NOMEM, "out of memory (a protobuf message over %zu bytes)", b->size);
            return -1;
        }
        cap *= 2;
    }
    if (!(grown = realloc(b->data, cap))) {
        b->rc = error_set(TEA_ERR_NOMEM, "out of memory");
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

/* The bytes of `v` as a varint. */
static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Appends `v` as a varint (room reserved). */
static void put_varint(protobuf_buf *b, uint64_t v)
{
    assert(b->cap - b->size >= varint_size(v));
    while (v >= 0x80) {
        b->data[b->size++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->data[b->size++] = (uint8_t)v;
}

/* A field's key. */
static uint64_t key(uint32_t field, unsigned wire)
{
    return (uint64_t)field << 3 | wire;
}

void protobuf_varint(protobuf_buf *b, uint32_t field, uint64_t v)
{
    if (reserve(b, 2 * VARINT_MAX))
        return;
    put_varint(b, key(field, PROTOBUF_VARINT));
    put_varint(b, v);
}

void protobuf_bytes(protobuf_buf *b, uint32_t field, const void *data, size_t size)
{
    if (size > SIZE_MAX - 2 * VARINT_MAX || reserve(b, 2 * VARINT_MAX + size))
        return;
    put_varint(b, key(field, PROTOBUF_LEN));
    put_varint(b, size);
    if (size)
        memcpy(b->data + b->size, data, size);
    b->size += size;
}

void protobuf_string(protobuf_buf *b, uint32_t field, const char *s)
{
    protobuf_bytes(b, field, s, strlen(s));
}

void protobuf_packed(protobuf_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
    size_t size = 0;
    for (size_t i = 0; i < n; i++)
        size += varint_size(v[i]);
    if (reserve(b, 2 * VARINT_MAX + size))
        return;
    put_varint(b, key(field, PROTOBUF_LEN));
    put_varint(b, size);
    for (size_t i = 0; i < n; i++)
        put_varint(b, v[i]);
}

void protobuf_message(protobuf_buf *b, uint32_t field, const protobuf_buf *m)
{
    if (m->rc) {
        if (!b->rc)
            b->rc = m->rc;
        return;
    }
    protobuf_bytes(b, field, m->data, m->size);
}

void protobuf_append(protobuf_buf *b, const protobuf_buf *fields)
{
    if (fields->rc) {
        if (!b->rc)
            b->rc = fields->rc;
        return;
    }
    if (fields->size == 0 || reserve(b, fields->size))
        return;
    memcpy(b->data + b->size, fields->data, fields->size);
    b->size += fields->size;
}
