/*
 * protobuf.h: Protocol Buffers' wire format, written (for pprof's
 * profile.proto, view/pprof.h). Only what writing needs: varints, 64-bit
 * integers as varints, strings and bytes, packed repeated varints and
 * nested messages, each after its field's key (field number << 3 | wire
 * type). A message is built in a growing buffer; a nested one in a buffer
 * of its own, then added to its parent as a length-delimited field.
 * Written by hand: a Debian package (libprotobuf-c) would bring a code
 * generator and a runtime for the five wire rules this needs.
 */
#ifndef TEA_COMMON_PROTOBUF_H
#define TEA_COMMON_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

/* Wire types. */
#define PROTOBUF_VARINT 0
#define PROTOBUF_LEN 2

/* A message being written: its bytes so far. A failed allocation is
 * remembered (rc) and every later call does nothing. */
typedef struct protobuf_buf {
    uint8_t *data;
    size_t size, cap;
    int rc; /* 0, or TEA_ERR_NOMEM once an allocation failed */
} protobuf_buf;

/* An empty buffer. */
void protobuf_init(protobuf_buf *b);
void protobuf_free(protobuf_buf *b);
/* Empties `b`, keeping its memory. */
void protobuf_reset(protobuf_buf *b);

/* Field `field` as a varint (uint64, int64 as its two's complement,
 * bool as 0 or 1). */
void protobuf_varint(protobuf_buf *b, uint32_t field, uint64_t v);
/* Field `field` as `size` bytes (a string without its NUL, bytes). */
void protobuf_bytes(protobuf_buf *b, uint32_t field, const void *data, size_t size);
/* Field `field` as the string `s`. */
void protobuf_string(protobuf_buf *b, uint32_t field, const char *s);
/* Field `field` as a packed repeated varint of `n` values. */
void protobuf_packed(protobuf_buf *b, uint32_t field, const uint64_t *v, size_t n);
/* Field `field` as the nested message `m`. */
void protobuf_message(protobuf_buf *b, uint32_t field, const protobuf_buf *m);
/* The fields encoded in `fields` (of the same message as b's), appended
 * as they are: fields encoded once and written many times. */
void protobuf_append(protobuf_buf *b, const protobuf_buf *fields);

#endif
