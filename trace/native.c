/*
 * native.c: the native trace format's header, records, index and footer
 * (see native.h and docs/trace-format.md).
 */
#include "native.h"
#include "callpath.h"
#include "../common/error.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Record tag byte. */
#define TAG_COMMITS_MASK 0x1Fu  /* number of committing µops, 0..16 */
#define TAG_DISPATCH_ROW 0x20u  /* dispatch == commit width */
#define TAG_TRAIL 0x40u         /* empty entries retire after the last µop */
#define TAG_EXT 0x80u           /* an extension byte follows */
/* Extension byte. */
#define EXT_REFILL 0x01u
#define EXT_EXCEPTION 0x02u
#define EXT_SQUASH 0x04u
#define EXT_DISPATCH_COUNT 0x08u /* dispatch count other than 0 or the width */
#define EXT_OFFSETS 0x10u        /* µops not at consecutive offsets from 0 */
#define EXT_KNOWN 0x1Fu
/* First byte of a µop: bit 0 = PSV present, bits 1-6 = low six bits of the
 * zig-zagged PC delta, bit 7 = continuation. */
#define UOP_PSV_FLAG 0x01u
#define UOP_FIRST_BITS 6
#define VARINT_MAX_BYTES 10

/* Header field keys (TLV: u16 key, u32 length, value). */
enum header_key {
    KEY_COMMIT_WIDTH = 1,
    KEY_ROB_SIZE = 2,
    KEY_CLOCK_HZ = 3,
    KEY_ARCH = 4,
    KEY_VA_BITS = 5,
    KEY_LLC_LATENCY = 6,
    KEY_INITIAL_WINDOW = 7,
    KEY_GENERATOR = 8,
    KEY_COMMAND_LINE = 9,
    KEY_BINARY_PATH = 10,
    KEY_BUILD_ID = 11,
    KEY_LOAD_BIAS = 12,
    KEY_SOURCE_FORMAT = 13
};
#define TLV_HEADER_SIZE 6
#define HEADER_FIXED_SIZE (TRACE_NATIVE_MAGIC_SIZE + 4)

int trace_native_buffer_reserve(trace_native_buffer *b, size_t extra)
{
    size_t need = b->size + extra, cap = b->capacity ? b->capacity : 4096;
    uint8_t *p;
    if (need <= b->capacity)
        return TEA_OK;
    while (cap < need)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p)
        return error_set(TEA_ERR_NOMEM, "out of memory (%zu bytes)", cap);
    b->data = p;
    b->capacity = cap;
    return TEA_OK;
}

void trace_native_buffer_free(trace_native_buffer *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->capacity = 0;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

uint64_t trace_native_get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = bytes; i > 0; i--)
        v = v << 8 | p[i - 1];
    return v;
}

/* --- header ------------------------------------------------------------- */

static int put_field(trace_native_buffer *out, unsigned key, const void *value, size_t len)
{
    int rc;

    assert(key <= UINT16_MAX && len <= UINT32_MAX); /* the TLV's u16 key and u32 length hold them */
    if ((rc = trace_native_buffer_reserve(out, TLV_HEADER_SIZE + len)))
        return rc;
    put_le(out->data + out->size, key, 2);
    put_le(out->data + out->size + 2, len, 4);
    if (len)
        memcpy(out->data + out->size + TLV_HEADER_SIZE, value, len);
    out->size += TLV_HEADER_SIZE + len;
    return TEA_OK;
}

static int put_number(trace_native_buffer *out, unsigned key, uint64_t value)
{
    uint8_t bytes[8];
    put_le(bytes, value, 8);
    return put_field(out, key, bytes, 8);
}

static int put_string(trace_native_buffer *out, unsigned key, const char *value)
{
    return value ? put_field(out, key, value, strlen(value)) : TEA_OK;
}

int trace_native_header_encode(const trace_header *h, trace_native_buffer *out)
{
    int rc;

    out->size = 0;
    if ((rc = trace_native_buffer_reserve(out, HEADER_FIXED_SIZE)))
        return rc;
    memcpy(out->data, TRACE_NATIVE_HEADER_MAGIC, TRACE_NATIVE_MAGIC_SIZE);
    put_le(out->data + TRACE_NATIVE_MAGIC_SIZE, TRACE_NATIVE_VERSION_MAJOR, 2);
    put_le(out->data + TRACE_NATIVE_MAGIC_SIZE + 2, TRACE_NATIVE_VERSION_MINOR, 2);
    out->size = HEADER_FIXED_SIZE;
    if ((rc = put_number(out, KEY_COMMIT_WIDTH, h->commit_width))
        || (rc = put_number(out, KEY_ROB_SIZE, h->rob_size))
        || (rc = put_number(out, KEY_CLOCK_HZ, h->clock_hz))
        || (rc = put_string(out, KEY_ARCH, h->program.arch))
        || (rc = put_number(out, KEY_VA_BITS, h->va_bits))
        || (rc = put_number(out, KEY_LLC_LATENCY, h->llc_latency))
        || (rc = put_number(out, KEY_INITIAL_WINDOW, h->initial_window))
        || (rc = put_string(out, KEY_GENERATOR, h->generator))
        || (rc = put_string(out, KEY_COMMAND_LINE, h->command_line))
        || (rc = put_string(out, KEY_BINARY_PATH, h->program.binary_path))
        || (rc = put_string(out, KEY_BUILD_ID, h->program.build_id))
        || (rc = put_string(out, KEY_SOURCE_FORMAT, h->source_format)))
        return rc;
    if (h->program.has_load_bias && (rc = put_number(out, KEY_LOAD_BIAS, h->program.load_bias)))
        return rc;
    return TEA_OK;
}

int trace_native_is_header(const uint8_t *data, size_t size)
{
    return size >= TRACE_NATIVE_MAGIC_SIZE && memcmp(data, TRACE_NATIVE_HEADER_MAGIC, TRACE_NATIVE_MAGIC_SIZE) == 0;
}

static int header_string(char **field, const uint8_t *value, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    memcpy(s, value, len);
    s[len] = '\0';
    if (strlen(s) != len) {
        free(s);
        return error_set(TEA_ERR_FORMAT, "header string contains a NUL byte");
    }
    free(*field);
    *field = s;
    return TEA_OK;
}

/* Applies one TLV field to the header; unknown keys are ignored so that minor
 * versions can add fields. */
static int header_field(trace_header *h, unsigned key, const uint8_t *value, size_t len, unsigned *seen)
{
    uint64_t n = 0;
    int is_number = key == KEY_COMMIT_WIDTH || key == KEY_ROB_SIZE || key == KEY_CLOCK_HZ
        || key == KEY_VA_BITS || key == KEY_LLC_LATENCY || key == KEY_INITIAL_WINDOW || key == KEY_LOAD_BIAS;

    if (is_number) {
        if (len != 8)
            return error_set(TEA_ERR_FORMAT, "header field %u has %zu bytes, expected 8", key, len);
        n = trace_native_get_le(value, 8);
    }
    if (key < 32)
        *seen |= 1u << key;
    switch (key) {
    case KEY_COMMIT_WIDTH:
        if (n < 1 || n > TRACE_MAX_WIDTH)
            return error_set(TEA_ERR_FORMAT, "commit width %llu outside 1-%d", (unsigned long long)n, TRACE_MAX_WIDTH);
        h->commit_width = (unsigned)n;
        return TEA_OK;
    case KEY_ROB_SIZE:
        if (n < 1 || n > TRACE_MAX_ROB)
            return error_set(TEA_ERR_FORMAT, "ROB size %llu outside 1-%d", (unsigned long long)n, TRACE_MAX_ROB);
        h->rob_size = (unsigned)n;
        return TEA_OK;
    case KEY_CLOCK_HZ:
        if (n == 0)
            return error_set(TEA_ERR_FORMAT, "clock frequency is zero");
        h->clock_hz = n;
        return TEA_OK;
    case KEY_ARCH:
        if (len == 0 || len >= TRACE_ARCH_MAX || memchr(value, '\0', len))
            return error_set(TEA_ERR_FORMAT, "architecture name of %zu bytes is invalid", len);
        memcpy(h->program.arch, value, len);
        h->program.arch[len] = '\0';
        return TEA_OK;
    case KEY_VA_BITS:
        if (n < 1 || n > 64)
            return error_set(TEA_ERR_FORMAT, "virtual-address width %llu outside 1-64", (unsigned long long)n);
        h->va_bits = (unsigned)n;
        return TEA_OK;
    case KEY_LLC_LATENCY:
        if (n > UINT16_MAX)
            return error_set(TEA_ERR_FORMAT, "LLC-miss latency %llu too large", (unsigned long long)n);
        h->llc_latency = (unsigned)n;
        return TEA_OK;
    case KEY_INITIAL_WINDOW:
        if (n > TRACE_MAX_ROB)
            return error_set(TEA_ERR_FORMAT, "initial ROB occupancy %llu too large", (unsigned long long)n);
        h->initial_window = (unsigned)n;
        return TEA_OK;
    case KEY_LOAD_BIAS:
        h->program.load_bias = n;
        h->program.has_load_bias = 1;
        return TEA_OK;
    case KEY_GENERATOR:
        return header_string(&h->generator, value, len);
    case KEY_COMMAND_LINE:
        return header_string(&h->command_line, value, len);
    case KEY_BINARY_PATH:
        return header_string(&h->program.binary_path, value, len);
    case KEY_BUILD_ID:
        return header_string(&h->program.build_id, value, len);
    case KEY_SOURCE_FORMAT:
        return header_string(&h->source_format, value, len);
    default:
        return TEA_OK;
    }
}

int trace_native_header_decode(const uint8_t *data, size_t size, trace_header *h)
{
    const unsigned required = 1u << KEY_COMMIT_WIDTH | 1u << KEY_ROB_SIZE | 1u << KEY_CLOCK_HZ | 1u << KEY_ARCH;
    unsigned seen = 0, major, minor;
    size_t pos = HEADER_FIXED_SIZE;
    int rc;

    trace_header_init(h);
    if (!trace_native_is_header(data, size) || size < HEADER_FIXED_SIZE)
        return error_set(TEA_ERR_FORMAT, "not a native trace header (bad magic)");
    major = (unsigned)trace_native_get_le(data + TRACE_NATIVE_MAGIC_SIZE, 2);
    minor = (unsigned)trace_native_get_le(data + TRACE_NATIVE_MAGIC_SIZE + 2, 2);
    if (major != TRACE_NATIVE_VERSION_MAJOR)
        return error_set(TEA_ERR_FORMAT, "native trace version %u.%u is not supported (this tool reads %d.x)", major,
                         minor, TRACE_NATIVE_VERSION_MAJOR);
    while (pos < size) {
        unsigned key;
        size_t len;
        if (size - pos < TLV_HEADER_SIZE)
            return error_set(TEA_ERR_FORMAT, "header field at byte %zu is truncated", pos);
        key = (unsigned)trace_native_get_le(data + pos, 2);
        len = (size_t)trace_native_get_le(data + pos + 2, 4);
        if (len > size - pos - TLV_HEADER_SIZE)
            return error_set(TEA_ERR_FORMAT, "header field %u at byte %zu overruns the header", key, pos);
        if ((rc = header_field(h, key, data + pos + TLV_HEADER_SIZE, len, &seen)))
            return rc;
        pos += TLV_HEADER_SIZE + len;
    }
    if ((seen & required) != required)
        return error_set(TEA_ERR_FORMAT, "header lacks a required field (width, ROB size, clock or arch)");
    if (h->rob_size % h->commit_width != 0)
        return error_set(TEA_ERR_FORMAT, "ROB size %u is not a multiple of the commit width %u", h->rob_size,
                         h->commit_width);
    if (h->initial_window > h->rob_size)
        return error_set(TEA_ERR_FORMAT, "initial ROB occupancy %u exceeds the ROB size %u", h->initial_window,
                         h->rob_size);
    return TEA_OK;
}

/* --- records ------------------------------------------------------------- */

static inline size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    assert(n <= VARINT_MAX_BYTES); /* seven bits a byte: 64 bits take ten */
    return n;
}

static inline int get_varint(const uint8_t *data, size_t size, size_t *pos, uint64_t *v)
{
    uint64_t result = 0;
    size_t p = *pos;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (p >= size)
            return error_set(TEA_ERR_FORMAT, "record truncated inside a number");
        b = data[p++];
        if (shift == 63 && (b & 0x7E))
            break;
        result |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = result;
            *pos = p;
            return TEA_OK;
        }
    }
    return error_set(TEA_ERR_FORMAT, "over-long number in record");
}

static inline uint64_t zigzag(uint64_t delta)
{
    return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

void trace_native_codec_frame_start(trace_native_codec *c, unsigned width)
{
    c->tag_rob = 0; /* the table is filled for the stream's ROB size on first use */
    c->width = width;
    c->prev_cycle = 0;
    c->prev_pc = 0;
    c->frame_started = 0;
}

static size_t put_uop(trace_native_codec *c, const trace_uop *u, uint8_t *out)
{
    uint64_t z = zigzag(u->pc - c->prev_pc);
    uint8_t first = (uint8_t)((u->psv ? UOP_PSV_FLAG : 0) | (z & ((1u << UOP_FIRST_BITS) - 1)) << 1);
    size_t n = 1;

    z >>= UOP_FIRST_BITS;
    if (z) {
        out[0] = (uint8_t)(first | 0x80);
        n += put_varint(out + 1, z);
    } else {
        out[0] = first;
    }
    if (u->psv)
        n += put_varint(out + n, u->psv);
    c->prev_pc = u->pc;
    return n;
}

size_t trace_native_encode_record(trace_native_codec *c, const trace_record *r, const trace_uop *uops, uint8_t *out)
{
    unsigned n = trace_record_uops(r);
    unsigned natural_retire = n ? uops[n - 1].offset + 1u : 0;
    unsigned tag = r->n_commit, ext = 0;
    int offsets = 0;
    size_t len = 0;

    /* A checked record (trace_record_check): its commits fit the tag's
     * bits, and its µops' offsets increase below the entries it retires. */
    assert(r->n_commit <= TAG_COMMITS_MASK && n <= TRACE_MAX_RECORD_UOPS && r->retire >= natural_retire);
    for (unsigned i = 0; i < n; i++)
        if (uops[i].offset != i)
            offsets = 1;
    if (r->dispatch == c->width)
        tag |= TAG_DISPATCH_ROW;
    else if (r->dispatch)
        ext |= EXT_DISPATCH_COUNT;
    if (r->retire != natural_retire)
        tag |= TAG_TRAIL;
    if (r->flags & TRACE_REC_REFILL)
        ext |= EXT_REFILL;
    if (r->flags & TRACE_REC_EXCEPTION)
        ext |= EXT_EXCEPTION;
    if (r->squash)
        ext |= EXT_SQUASH;
    if (offsets)
        ext |= EXT_OFFSETS;
    if (ext)
        tag |= TAG_EXT;
    out[len++] = (uint8_t)tag;
    if (ext)
        out[len++] = (uint8_t)ext;
    len += put_varint(out + len, c->frame_started ? r->cycle - c->prev_cycle : r->cycle);
    for (unsigned i = 0; i < n; i++)
        len += put_uop(c, &uops[i], out + len);
    if (offsets) {
        int prev = -1;
        for (unsigned i = 0; i < n; i++) {
            assert(uops[i].offset > prev); /* a gap of zero or more */
            len += put_varint(out + len, (uint64_t)(uops[i].offset - prev - 1));
            prev = uops[i].offset;
        }
    }
    if (tag & TAG_TRAIL)
        len += put_varint(out + len, (uint64_t)(r->retire - natural_retire));
    if (ext & EXT_SQUASH)
        len += put_varint(out + len, r->squash);
    if (ext & EXT_DISPATCH_COUNT)
        len += put_varint(out + len, r->dispatch);
    c->prev_cycle = r->cycle;
    c->frame_started = 1;
    assert(len <= TRACE_NATIVE_MAX_RECORD_BYTES); /* what callers leave room for */
    return len;
}

static int get_uop(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos, trace_uop *u)
{
    uint64_t z, rest = 0, psv = 0;
    uint8_t first;
    int rc;

    if (*pos >= size)
        return error_set(TEA_ERR_FORMAT, "record truncated inside a µop");
    first = data[(*pos)++];
    z = (first >> 1) & ((1u << UOP_FIRST_BITS) - 1);
    if (first & 0x80) {
        if ((rc = get_varint(data, size, pos, &rest)))
            return rc;
        if (rest >> (64 - UOP_FIRST_BITS))
            return error_set(TEA_ERR_FORMAT, "µop address delta out of range");
        z |= rest << UOP_FIRST_BITS;
    }
    if (first & UOP_PSV_FLAG) {
        if ((rc = get_varint(data, size, pos, &psv)))
            return rc;
        if (psv == 0 || psv >= TRACE_PSV_VALUES)
            return error_set(TEA_ERR_FORMAT, "PSV %llu out of range", (unsigned long long)psv);
    }
    u->pc = c->prev_pc + unzigzag(z);
    u->psv = (uint16_t)psv;
    u->pad_ = 0;
    u->ctx = 0;
    c->prev_pc = u->pc;
    return TEA_OK;
}

/* Reads a small count that must fit `limit`. */
static int get_count(const uint8_t *data, size_t size, size_t *pos, uint64_t limit, const char *what,
                     uint64_t *v)
{
    int rc = get_varint(data, size, pos, v);
    if (rc)
        return rc;
    if (*v > limit)
        return error_set(TEA_ERR_FORMAT, "%s %llu out of range", what, (unsigned long long)*v);
    return TEA_OK;
}

int trace_native_decode_record(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos, trace_record *r,
                               trace_uop *uops)
{
    unsigned tag, ext = 0, n;
    uint64_t v = 0;
    int rc;

    if (*pos >= size)
        return error_set(TEA_ERR_FORMAT, "record truncated");
    tag = data[(*pos)++];
    if (tag & TAG_EXT) {
        if (*pos >= size)
            return error_set(TEA_ERR_FORMAT, "record truncated");
        ext = data[(*pos)++];
        if (ext & ~EXT_KNOWN)
            return error_set(TEA_ERR_FORMAT, "unknown record flags 0x%02x", ext);
    }
    r->n_commit = (uint8_t)(tag & TAG_COMMITS_MASK);
    if (r->n_commit > TRACE_MAX_WIDTH)
        return error_set(TEA_ERR_FORMAT, "%u commits in one record", r->n_commit);
    r->flags = (uint8_t)(((ext & EXT_REFILL) ? TRACE_REC_REFILL : 0) | ((ext & EXT_EXCEPTION) ? TRACE_REC_EXCEPTION : 0));
    if ((rc = get_varint(data, size, pos, &v)))
        return rc;
    if (c->frame_started) {
        if (v == 0 || v > UINT64_MAX - c->prev_cycle)
            return error_set(TEA_ERR_FORMAT, "cycle delta %llu does not advance", (unsigned long long)v);
        r->cycle = c->prev_cycle + v;
    } else {
        r->cycle = v;
    }
    n = trace_record_uops(r);
    for (unsigned i = 0; i < n; i++) {
        if ((rc = get_uop(c, data, size, pos, &uops[i])))
            return rc;
        uops[i].offset = (uint8_t)i;
    }
    if (ext & EXT_OFFSETS) {
        unsigned offset = 0;
        for (unsigned i = 0; i < n; i++) {
            if ((rc = get_count(data, size, pos, UINT8_MAX, "ROB offset gap", &v)))
                return rc;
            offset += (unsigned)v + (i ? 1u : 0u);
            if (offset > UINT8_MAX)
                return error_set(TEA_ERR_FORMAT, "ROB offset %u out of range", offset);
            uops[i].offset = (uint8_t)offset;
        }
    }
    r->retire = (uint8_t)(n ? uops[n - 1].offset + 1u : 0);
    if (tag & TAG_TRAIL) {
        if ((rc = get_count(data, size, pos, UINT8_MAX, "retire count", &v)))
            return rc;
        if (v == 0 || v + r->retire > UINT8_MAX)
            return error_set(TEA_ERR_FORMAT, "retire count %llu out of range", (unsigned long long)v);
        r->retire = (uint8_t)(r->retire + v);
    }
    r->squash = 0;
    if (ext & EXT_SQUASH) {
        if ((rc = get_count(data, size, pos, TRACE_MAX_ROB, "squash count", &v)))
            return rc;
        r->squash = (uint16_t)v;
    }
    r->dispatch = (tag & TAG_DISPATCH_ROW) ? (uint16_t)c->width : 0;
    if (ext & EXT_DISPATCH_COUNT) {
        if (tag & TAG_DISPATCH_ROW)
            return error_set(TEA_ERR_FORMAT, "record has two dispatch counts");
        if ((rc = get_count(data, size, pos, TRACE_MAX_ROB, "dispatch count", &v)))
            return rc;
        r->dispatch = (uint16_t)v;
    }
    r->pad_ = 0;
    c->prev_cycle = r->cycle;
    c->frame_started = 1;
    return TEA_OK;
}

/* --- context frames ------------------------------------------------------ */

/* zstd level of a context frame's varints. */
#define CONTEXTS_LEVEL 3
/* Most bytes of varints one context frame holds (about 1.3 * 10^7
 * changes; a frame of the default 2^18 records needs 90 MB at worst). */
#define CONTEXTS_MAX_RAW ((size_t)256 << 20)
/* A zstd frame's header descriptor byte (after the 4-byte magic) and its
 * content-checksum flag (RFC 8878, 3.1.1.1.1). */
#define ZSTD_FRAME_DESCRIPTOR_AT 4
#define ZSTD_DESCRIPTOR_CHECKSUM 0x04u

void trace_native_contexts_frame_start(trace_native_contexts *c)
{
    if (c->borrowed) {
        c->changes = NULL;
        c->capacity = 0;
        c->borrowed = 0;
    }
    c->count = c->next = 0;
    c->uops = 0;
    c->ctx = TRACE_CONTEXT_ROOT;
    c->max_ctx = 0;
}

void trace_native_contexts_free(trace_native_contexts *c)
{
    if (!c->borrowed)
        free(c->changes);
    memset(c, 0, sizeof *c);
}

static int contexts_push(trace_native_contexts *c, uint32_t uop, uint32_t ctx)
{
    assert(!c->borrowed); /* frame_start lets borrowed changes go */
    if (c->count == c->capacity) {
        size_t grown = c->capacity ? 2 * c->capacity : 256;
        trace_native_context_change *p = realloc(c->changes, grown * sizeof *p);
        if (!p)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        c->changes = p;
        c->capacity = grown;
    }
    c->changes[c->count++] = (trace_native_context_change){ uop, ctx };
    if (ctx > c->max_ctx)
        c->max_ctx = ctx;
    return TEA_OK;
}

int trace_native_contexts_note(trace_native_contexts *c, const trace_uop *uops, size_t n)
{
    for (size_t i = 0; i < n; i++, c->uops++) {
        int rc;
        if (uops[i].ctx == c->ctx)
            continue;
        assert(c->uops <= UINT32_MAX); /* a frame's content is under 2^32 bytes */
        if ((rc = contexts_push(c, (uint32_t)c->uops, uops[i].ctx)))
            return rc;
        c->ctx = uops[i].ctx;
    }
    return TEA_OK;
}

int trace_native_contexts_encode(const trace_native_contexts *c, ZSTD_CCtx **cctx, trace_native_buffer *out)
{
    trace_native_buffer raw = { NULL, 0, 0 };
    const size_t raw_most = VARINT_MAX_BYTES * (1 + 2 * c->count);
    uint64_t prev = 0;
    size_t bound, got;
    int rc;

    out->size = 0;
    if (c->count == 0)
        return TEA_OK;
    if (raw_most > CONTEXTS_MAX_RAW)
        return error_set(TEA_ERR_USAGE, "%zu changes of calling context in one data frame: write smaller frames",
                         c->count);
    if (!*cctx) { /* with a checksum, as data frames have: a damaged byte is refused, never read as other contexts */
        if (!(*cctx = ZSTD_createCCtx()))
            return error_set(TEA_ERR_NOMEM, "out of memory");
        ZSTD_CCtx_setParameter(*cctx, ZSTD_c_compressionLevel, CONTEXTS_LEVEL);
        ZSTD_CCtx_setParameter(*cctx, ZSTD_c_checksumFlag, 1);
    }
    if ((rc = trace_native_buffer_reserve(&raw, raw_most)))
        return rc;
    /* two columns, which compress better than pairs (cc1: by a quarter):
     * the gaps to the change before (the first: its index), then each
     * context as the difference from the one before (the first: from the
     * root) */
    raw.size += put_varint(raw.data, c->count);
    for (size_t i = 0; i < c->count; i++) {
        raw.size += put_varint(raw.data + raw.size, c->changes[i].uop - (i ? prev + 1 : 0));
        prev = c->changes[i].uop;
    }
    for (size_t i = 0; i < c->count; i++)
        raw.size += put_varint(raw.data + raw.size,
                               zigzag((uint64_t)c->changes[i].ctx - (i ? c->changes[i - 1].ctx : TRACE_CONTEXT_ROOT)));
    bound = ZSTD_compressBound(raw.size);
    if ((rc = trace_native_buffer_reserve(out, TRACE_NATIVE_MAGIC_SIZE + bound))) {
        trace_native_buffer_free(&raw);
        return rc;
    }
    memcpy(out->data, TRACE_NATIVE_CONTEXTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE);
    got = ZSTD_compress2(*cctx, out->data + TRACE_NATIVE_MAGIC_SIZE, bound, raw.data, raw.size);
    trace_native_buffer_free(&raw);
    if (ZSTD_isError(got))
        return error_set(TEA_ERR_IO, "compressing a context frame failed: %s", ZSTD_getErrorName(got));
    out->size = TRACE_NATIVE_MAGIC_SIZE + got;
    return TEA_OK;
}

/* Reads the changes from the varints of data[0..size), at most `most`. */
static int contexts_parse(trace_native_contexts *c, const uint8_t *data, size_t size, size_t most)
{
    size_t pos = 0;
    uint64_t count = 0, gap = 0, ctx = 0, delta = 0, at = 0;
    int rc;

    if ((rc = get_varint(data, size, &pos, &count)))
        return rc;
    if (count == 0 || count > size / 2 || count > most)
        return error_set(TEA_ERR_FORMAT, "context frame: %llu changes in %zu bytes, for a data frame of %zu",
                         (unsigned long long)count, size, most);
    if (count > c->capacity) { /* all at once: the count is bounded by the data frame */
        trace_native_context_change *p = realloc(c->changes, (size_t)count * sizeof *p);
        if (!p)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        c->changes = p;
        c->capacity = (size_t)count;
    }
    for (uint64_t i = 0; i < count; i++) {
        if ((rc = get_varint(data, size, &pos, &gap)))
            return rc;
        if (gap >= most || (at += gap + (i ? 1 : 0)) >= most)
            return error_set(TEA_ERR_FORMAT, "context frame: change %llu beyond the data frame", (unsigned long long)i);
        if ((rc = contexts_push(c, (uint32_t)at, TRACE_CONTEXT_ROOT)))
            return rc;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint64_t prev = i ? c->changes[i - 1].ctx : TRACE_CONTEXT_ROOT;
        if ((rc = get_varint(data, size, &pos, &delta)))
            return rc;
        ctx = prev + unzigzag(delta);
        if (ctx > TRACE_CONTEXT_MAX)
            return error_set(TEA_ERR_FORMAT, "context frame: change %llu out of range", (unsigned long long)i);
        if (ctx == prev)
            return error_set(TEA_ERR_FORMAT, "context frame: change %llu changes nothing", (unsigned long long)i);
        c->changes[i].ctx = (uint32_t)ctx;
        if (ctx > c->max_ctx)
            c->max_ctx = (uint32_t)ctx;
    }
    if (pos != size)
        return error_set(TEA_ERR_FORMAT, "context frame: %zu bytes after its changes", size - pos);
    return TEA_OK;
}

int trace_native_contexts_decode(trace_native_contexts *c, const uint8_t *data, size_t size, size_t frame_bytes)
{
    unsigned long long raw_size;
    uint8_t *raw;
    size_t got;
    int rc;

    trace_native_contexts_frame_start(c);
    if (size < TRACE_NATIVE_MAGIC_SIZE || memcmp(data, TRACE_NATIVE_CONTEXTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE) != 0)
        return error_set(TEA_ERR_FORMAT, "context frame without its magic");
    data += TRACE_NATIVE_MAGIC_SIZE;
    size -= TRACE_NATIVE_MAGIC_SIZE;
    raw_size = ZSTD_getFrameContentSize(data, size);
    if (raw_size == ZSTD_CONTENTSIZE_ERROR || raw_size == ZSTD_CONTENTSIZE_UNKNOWN || raw_size == 0
        || size <= ZSTD_FRAME_DESCRIPTOR_AT || !(data[ZSTD_FRAME_DESCRIPTOR_AT] & ZSTD_DESCRIPTOR_CHECKSUM))
        return error_set(TEA_ERR_FORMAT, "context frame: no zstd frame of known size with a checksum");
    /* two varints per change, one change per µop at most, a µop a byte at least */
    if (raw_size > CONTEXTS_MAX_RAW || raw_size > (unsigned long long)2 * VARINT_MAX_BYTES * frame_bytes + VARINT_MAX_BYTES)
        return error_set(TEA_ERR_FORMAT, "context frame: %llu bytes of changes for a data frame of %zu", raw_size,
                         frame_bytes);
    if (!(raw = malloc((size_t)raw_size)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    got = ZSTD_decompress(raw, (size_t)raw_size, data, size);
    if (ZSTD_isError(got) || got != raw_size)
        rc = error_set(TEA_ERR_FORMAT, "context frame: %s",
                       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "shorter than its stated size");
    else
        rc = contexts_parse(c, raw, got, frame_bytes);
    free(raw);
    if (rc)
        trace_native_contexts_frame_start(c);
    return rc;
}

void trace_native_contexts_apply(trace_native_contexts *c, trace_uop *uops, size_t n)
{
    for (size_t i = 0; i < n; i++, c->uops++) {
        if (c->next < c->count && c->changes[c->next].uop == c->uops)
            c->ctx = c->changes[c->next++].ctx;
        uops[i].ctx = c->ctx;
    }
}

int trace_native_contexts_check(const trace_native_contexts *c, uint32_t limit)
{
    if (c->next < c->count)
        return error_set(TEA_ERR_FORMAT, "context frame: a change at µop %llu of a frame of %llu µops",
                         (unsigned long long)c->changes[c->next].uop, (unsigned long long)c->uops);
    if (c->count && c->max_ctx >= limit)
        return error_set(TEA_ERR_FORMAT, "context frame: context %u, the trace has %u", c->max_ctx, limit);
    return TEA_OK;
}

/* --- fused decoding and checking ----------------------------------------- */

/* Longest varint the fused decoder takes (63 bits); longer ones, valid or
 * not, are left to trace_native_decode_record. */
#define FAST_VARINT_BYTES 9
/* Bits of a µop's PC delta after the six in its first byte. */
#define UOP_REST_BITS (64 - UOP_FIRST_BITS)
/* Continuation bit of a µop's first byte. */
#define UOP_CONTINUES 0x80u
/* µops the fused decoder takes in one unrolled block when each is a single
 * byte (small PC delta, no PSV), and the bits that rule that out in four
 * first bytes read as one little-endian word. */
#define FAST_BLOCK_UOPS 4
#define FAST_BLOCK_NOT_SIMPLE 0x81818181u
/* Largest number a one-byte varint holds. */
#define VARINT_ONE_BYTE_MAX 0x7Fu
/* Most bytes the fused decoder reads for one record: tag, ext, cycle, per µop
 * a first byte and two varints, per µop an offset gap, then three counts. It
 * only decodes records that start at least this far from the frame's end, so
 * it needs no bounds checks. */
#define FAST_RECORD_BYTES \
    (2 + VARINT_MAX_BYTES + TRACE_MAX_RECORD_UOPS * (1 + 3 * VARINT_MAX_BYTES) + 3 * VARINT_MAX_BYTES)

/* Reads a varint of at most FAST_VARINT_BYTES bytes at *pp, advancing *pp.
 * Returns 0 (leaving *pp) for a longer one. The caller guarantees the bytes
 * are there. Values agree with get_varint. */
static inline int fast_varint(const uint8_t **pp, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t result;

    if (p[0] <= VARINT_ONE_BYTE_MAX) {
        *v = p[0];
        *pp = p + 1;
        return 1;
    }
    result = p[0] & 0x7Fu;
    for (unsigned i = 1; i < FAST_VARINT_BYTES; i++) {
        result |= (uint64_t)(p[i] & 0x7Fu) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = result;
            *pp = p + i + 1;
            return 1;
        }
    }
    return 0;
}

static inline uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

/* A µop's PC delta when its first byte `b` is all there is (no
 * continuation): the zig-zagged six bits in bits 1-6. */
#define PLAIN_DELTA(b) ((int8_t)((((b) >> 1) & 63) >> 1 ^ -((((b) >> 1) & 63) & 1)))
#define PLAIN_DELTA4(b) PLAIN_DELTA(b), PLAIN_DELTA((b) + 1), PLAIN_DELTA((b) + 2), PLAIN_DELTA((b) + 3)
#define PLAIN_DELTA16(b) PLAIN_DELTA4(b), PLAIN_DELTA4((b) + 4), PLAIN_DELTA4((b) + 8), PLAIN_DELTA4((b) + 12)
#define PLAIN_DELTA64(b) PLAIN_DELTA16(b), PLAIN_DELTA16((b) + 16), PLAIN_DELTA16((b) + 32), PLAIN_DELTA16((b) + 48)
static const int8_t plain_delta[256] = { PLAIN_DELTA64(0), PLAIN_DELTA64(64), PLAIN_DELTA64(128),
                                         PLAIN_DELTA64(192) };

/* Writes µop `i` of a plain record, whose first byte is `b`: PC, no PSV, at
 * offset i; returns its PC. */
static inline uint64_t plain_uop(trace_uop *uops, unsigned i, uint64_t pc, uint8_t b)
{
    pc += (uint64_t)(int64_t)plain_delta[b];
    uops[i].pc = pc;
    uops[i].psv = 0;
    uops[i].offset = (uint8_t)i;
    uops[i].pad_ = 0;
    uops[i].ctx = 0;
    return pc;
}

/* Per µop count (any value of a tag's five commit bits): the bytes of a
 * little-endian four-byte block that hold that many one-byte µops; none past
 * FAST_BLOCK_UOPS, which no plain record has. */
static const uint32_t block_bytes[TAG_COMMITS_MASK + 1] = { 0, 0xFFu, 0xFFFFu, 0xFFFFFFu, 0xFFFFFFFFu };

/* The bytes of a little-endian word below byte `i` (i ≤ 7). */
static inline uint64_t bytes_below(unsigned i)
{
    return (1ull << (8 * i)) - 1;
}

/*
 * A record at p that would be plain but for one µop (number j) whose first
 * byte announces exactly one extra byte, a one-byte PSV or a one-byte PC
 * continuation; the caller has checked the other fields as for a plain
 * record. Decodes the n µops into uops[] (all FAST_BLOCK_UOPS slots, as for a
 * plain record, so that the last slot holds the record's last PC) from `pc`
 * on, and returns the record's size (tag, cycle delta, µops and the extra
 * byte) with *psv the PSV, or returns 0, writing nothing but µop slots, when
 * the record has another shape.
 */
static inline size_t one_extra_record(const uint8_t *p, unsigned n, trace_uop *uops, uint64_t pc, unsigned *psv)
{
    uint64_t w = load_le64(p + 2), flagged, packed, delta_fix;
    unsigned j, b, extra, has_psv, rest_n;
    uint32_t block;

    if (n > FAST_BLOCK_UOPS)
        return 0;
    flagged = w & (uint64_t)FAST_BLOCK_NOT_SIMPLE & bytes_below(n);
    if (!flagged)
        return 0;
    j = (unsigned)__builtin_ctzll(flagged) / 8;
    b = (unsigned)(w >> (8 * j)) & 0xFFu;
    extra = (unsigned)(w >> (8 * j + 8)) & 0xFFu;
    has_psv = b & UOP_PSV_FLAG;
    rest_n = n - 1 - j;
    /* One flag, a one-byte extra (a PSV one is not zero), and the µops after
     * it plain. */
    if (((b & (UOP_CONTINUES | UOP_PSV_FLAG)) == (UOP_CONTINUES | UOP_PSV_FLAG)) | (extra > VARINT_ONE_BYTE_MAX)
        | (has_psv & (extra == 0))
        | (((uint32_t)(w >> (8 * j + 16)) & block_bytes[rest_n] & FAST_BLOCK_NOT_SIMPLE) != 0))
        return 0;
    /* The µop bytes without the extra one, in a plain record's layout. */
    packed = (w & bytes_below(j + 1)) | ((w >> 8) & ~bytes_below(j + 1));
    block = (uint32_t)packed & block_bytes[n];
    /* µop j's PC delta: the continuation adds the high bits. The selects
     * on j and the flags are masks: compilers make ?: on them branches
     * (one code path per j), and j is random. */
    delta_fix = (unzigzag(((b >> 1) & ((1u << UOP_FIRST_BITS) - 1)) | (uint64_t)extra << UOP_FIRST_BITS)
                 - (uint64_t)(int64_t)plain_delta[b])
                & ((uint64_t)has_psv - 1u);
    extra &= 0u - has_psv; /* now the PSV, or 0 */
    for (unsigned i = 0; i < FAST_BLOCK_UOPS; i++) {
        const uint64_t at_j = 0 - (uint64_t)(i == j);
        pc += (uint64_t)(int64_t)plain_delta[(uint8_t)(block >> (8 * i))] + (delta_fix & at_j);
        uops[i].pc = pc;
        uops[i].psv = (uint16_t)(extra & at_j);
        uops[i].offset = (uint8_t)i;
        uops[i].pad_ = 0;
        uops[i].ctx = 0;
    }
    *psv = extra;
    return 2 + n + 1;
}

/* Writes a plain record: no flags, n µops retiring alone, no squash. On a
 * little-endian machine in three stores instead of one per field. */
static inline void plain_record(trace_record *rec, uint64_t cycle, uint32_t first_uop, unsigned n, unsigned dispatch)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(offsetof(trace_record, first_uop) == 8 && offsetof(trace_record, n_commit) == 12
                       && offsetof(trace_record, flags) == 13 && offsetof(trace_record, retire) == 14
                       && offsetof(trace_record, pad_) == 15 && offsetof(trace_record, squash) == 16
                       && offsetof(trace_record, dispatch) == 18,
                   "the record layout plain_record packs");
    /* first_uop, n_commit, flags 0, retire n, pad 0; then squash 0, dispatch */
    const uint64_t ids = first_uop | (uint64_t)n << 32 | (uint64_t)n << 48;
    const uint32_t counts = (uint32_t)dispatch << 16;
    rec->cycle = cycle;
    memcpy((unsigned char *)rec + offsetof(trace_record, first_uop), &ids, sizeof ids);
    memcpy((unsigned char *)rec + offsetof(trace_record, squash), &counts, sizeof counts);
#else
    rec->cycle = cycle;
    rec->first_uop = first_uop;
    rec->n_commit = (uint8_t)n;
    rec->flags = 0;
    rec->retire = (uint8_t)n;
    rec->pad_ = 0;
    rec->squash = 0;
    rec->dispatch = (uint16_t)dispatch;
#endif
}

/* What the fused decoder needs of a tag byte when the record may be plain
 * (no ext byte, no trailing entries, at most FAST_BLOCK_UOPS and the width
 * in commits), looked up in a table instead of computed: the mask of its
 * µops' bytes in a four-byte block (bits 0-31), one more than the most ROB
 * entries that may remain after its commits for its dispatch to fit (bits
 * 32-47; 0 for any other tag, which no window passes) and its dispatch (bits
 * 48-55). */
#define TAG_INFO_ROOM_SHIFT 32
#define TAG_INFO_DISPATCH_SHIFT 48

/* Fills the tag table for a core `width` wide with `rob_size` entries. */
static void tag_info_table(uint64_t table[TRACE_NATIVE_TAG_VALUES], unsigned width, unsigned rob_size)
{
    const unsigned plain_max = width < FAST_BLOCK_UOPS ? width : FAST_BLOCK_UOPS;
    for (unsigned tag = 0; tag < TRACE_NATIVE_TAG_VALUES; tag++) {
        const unsigned n = tag & TAG_COMMITS_MASK, dispatch = (tag & TAG_DISPATCH_ROW) ? width : 0;
        table[tag] = (tag & ~TAG_DISPATCH_ROW) <= plain_max && dispatch <= rob_size
                         ? block_bytes[n] | (uint64_t)(rob_size - dispatch + 1) << TAG_INFO_ROOM_SHIFT
                               | (uint64_t)dispatch << TAG_INFO_DISPATCH_SHIFT
                         : 0;
    }
}

/* The stream state fast_record checks a record against. */
typedef struct fast_context {
    trace_psv_counter *psvs; /* the record's PSVs are counted in it... */
    uint64_t *events;        /* ...on their way to these event counts */
    unsigned width, rob_size;
    unsigned window;        /* ROB entries before the record */
    uint64_t cycle;         /* previous record's cycle (the frame has one) */
    uint64_t pc;            /* previous µop's PC; the record's last one after */
} fast_context;

/*
 * Decodes and checks any record at p (at least FAST_RECORD_BYTES readable)
 * into *rec (without first_uop) and uops[], for trace_native_decode_batch. Returns
 * the bytes it takes and leaves the last µop's PC in x->pc, or returns 0 when
 * the record is malformed, impossible or uses a varint longer than
 * FAST_VARINT_BYTES: the reference path then deals with it. Checks implied by
 * the encoding are not repeated: a cycle delta of at least one without
 * overflow orders the cycles, decoded µop offsets strictly increase and the
 * last one is below the retire count unless that count overflows (rejected
 * here), and PSVs are below TRACE_PSV_VALUES.
 */
static size_t fast_record(fast_context *x, const uint8_t *p, trace_record *rec, trace_uop *uops)
    __attribute__((noinline));

static size_t fast_record(fast_context *x, const uint8_t *p, trace_record *rec, trace_uop *uops)
{
    const uint8_t *q = p + 1;
    unsigned tag = p[0], ext = 0, n_commit = tag & TAG_COMMITS_MASK, n, retire, squash = 0, dispatch;
    uint64_t v, at = x->pc;

    if (tag & TAG_EXT) {
        ext = *q++;
        if (ext & ~EXT_KNOWN)
            return 0;
    }
    if (n_commit > x->width || !fast_varint(&q, &v))
        return 0;
    if (x->cycle + v <= x->cycle) /* a zero delta, or one that overflows */
        return 0;
    rec->cycle = x->cycle + v;
    n = n_commit + ((ext & EXT_EXCEPTION) ? 1u : 0u);
    for (unsigned i = 0; i < n; i++) {
        unsigned first = *q++, psv = 0;
        uint64_t z = (first >> 1) & ((1u << UOP_FIRST_BITS) - 1);

        if (first & UOP_CONTINUES) {
            if (!fast_varint(&q, &v) || (v >> UOP_REST_BITS))
                return 0;
            z |= v << UOP_FIRST_BITS;
        }
        if (first & UOP_PSV_FLAG) {
            if (!fast_varint(&q, &v) || v == 0 || v >= TRACE_PSV_VALUES)
                return 0;
            psv = (unsigned)v;
        }
        at += unzigzag(z);
        uops[i].pc = at;
        uops[i].psv = (uint16_t)psv;
        uops[i].offset = (uint8_t)i;
        uops[i].pad_ = 0;
        uops[i].ctx = 0;
    }
    retire = n;
    if (ext & EXT_OFFSETS) {
        unsigned offset = 0;
        for (unsigned i = 0; i < n; i++) {
            if (!fast_varint(&q, &v) || v > UINT8_MAX)
                return 0;
            offset += (unsigned)v + (i ? 1u : 0u);
            if (offset >= UINT8_MAX) /* 255 would wrap the retire count */
                return 0;
            uops[i].offset = (uint8_t)offset;
        }
        retire = n ? offset + 1u : 0;
    }
    if (tag & TAG_TRAIL) {
        if (!fast_varint(&q, &v) || v == 0 || v > UINT8_MAX - retire)
            return 0;
        retire += (unsigned)v;
    }
    if (retire > x->window)
        return 0;
    if (ext & EXT_SQUASH) {
        if (!fast_varint(&q, &v) || v > x->window - retire)
            return 0;
        squash = (unsigned)v;
    }
    dispatch = (tag & TAG_DISPATCH_ROW) ? x->width : 0;
    if (ext & EXT_DISPATCH_COUNT) {
        if ((tag & TAG_DISPATCH_ROW) || !fast_varint(&q, &v) || v > TRACE_MAX_ROB)
            return 0;
        dispatch = (unsigned)v;
    }
    if (x->window - retire - squash + dispatch > x->rob_size)
        return 0;
    if ((ext & EXT_EXCEPTION) && !(uops[n_commit].psv & (1u << TRACE_PSV_FL_EX)))
        return 0;
    rec->n_commit = (uint8_t)n_commit;
    rec->flags = (uint8_t)(((ext & EXT_REFILL) ? TRACE_REC_REFILL : 0)
                           | ((ext & EXT_EXCEPTION) ? TRACE_REC_EXCEPTION : 0));
    rec->retire = (uint8_t)retire;
    rec->pad_ = 0;
    rec->squash = (uint16_t)squash;
    rec->dispatch = (uint16_t)dispatch;
    x->pc = at;
    for (unsigned i = 0; i < n; i++)
        trace_psv_count(x->psvs, uops[i].psv, x->events);
    /* Only records this far from the frame's end come here: it read no further. */
    assert((size_t)(q - p) <= FAST_RECORD_BYTES);
    return (size_t)(q - p);
}

/*
 * The common case of reading a native record stream, fused into one pass
 * (see native.h). The most frequent records, plain ones (no ext byte, no
 * trailing entries, a one-byte cycle delta, up to FAST_BLOCK_UOPS one-byte
 * µops), are decoded and checked inline without branches on their content;
 * so are plain records but for one µop's one-byte PSV or PC continuation;
 * others go through fast_record. Anything fast_record refuses, a frame's
 * first record and records near the end of the frame stop the loop before
 * that record, with nothing of it committed, for the caller's reference path.
 * The loop runs in chunks of records that surely fit the batch and the frame,
 * so that it checks one bound per record.
 */
size_t trace_native_decode_batch(trace_native_codec *c, const uint8_t *data, size_t size, size_t *pos,
                                 trace_native_stream *s, trace_batch *batch)
{
    const uint8_t *p = data + *pos;
    const uint8_t *fast_end = size > FAST_RECORD_BYTES ? data + size - FAST_RECORD_BYTES : data;
    const unsigned width = c->width, rob_size = s->rob_size;
    trace_totals *t = s->totals;
    trace_record *rec, *rec_end, *rec_start;
    trace_uop *const uop_base = batch->uops;
    /* trace_batch_has_room: room for a record's full set of µops. */
    const size_t uop_last = batch->uop_capacity - TRACE_MAX_RECORD_UOPS;
    const uint64_t *const tag_info = c->tag_info;
    uint64_t cycle = c->prev_cycle, pc = c->prev_pc, excepted = 0;
    /* What the records other than plain ones retire beyond their µops and
     * squash: with the µops taken and the window's change they give the
     * entries dispatched, which the plain path then need not add up. */
    uint64_t retired_extra = 0, squashed = 0;
    const unsigned window_start = s->window;
    unsigned window = s->window;
    uint32_t first = (uint32_t)batch->uop_count; /* the next record's first µop */
    trace_psv_counter psvs = { 0, 0 };
    size_t done;

    if (!c->frame_started || !trace_batch_has_room(batch))
        return 0;
    rec_start = rec = batch->records + batch->count;
    rec_end = batch->records + batch->capacity;
    if (c->tag_rob != rob_size) {
        tag_info_table(c->tag_info, width, rob_size);
        c->tag_rob = rob_size;
    }
    while (p < fast_end && rec < rec_end && first <= uop_last) {
        /* Records that surely fit: each has at most TRACE_MAX_RECORD_UOPS
         * µops and FAST_RECORD_BYTES bytes. */
        size_t k = (size_t)(rec_end - rec), k_uops = (uop_last - first) / TRACE_MAX_RECORD_UOPS + 1;
        size_t k_bytes = (size_t)(fast_end - p - 1) / FAST_RECORD_BYTES + 1;
        const trace_record *chunk_end;

        if (k > k_uops)
            k = k_uops;
        if (k > k_bytes)
            k = k_bytes;
        chunk_end = rec + k;
        /* The inline paths take one-byte cycle deltas unchecked: k of them
         * must surely leave the cycle below 2^64. Within k * 127 cycles of
         * it (no real trace) the reference path takes the records. */
        if (cycle > UINT64_MAX - k * VARINT_ONE_BYTE_MAX)
            break;
        while (rec < chunk_end) {
            const unsigned tag = p[0], delta = p[1];
            const uint64_t info = tag_info[tag];
            /* From the tag itself, not the table: the next record's
             * address depends on it, and a load would lengthen that chain. */
            unsigned n = tag & TAG_COMMITS_MASK;
            unsigned dispatch = (unsigned)(info >> TAG_INFO_DISPATCH_SHIFT) & 0xFFu;
            const unsigned room = (unsigned)(info >> TAG_INFO_ROOM_SHIFT) & 0xFFFFu;
            const uint32_t block = load_le32(p + 2) & (uint32_t)info;
            /* Everything a plain record needs but one-byte µops. */
            const unsigned fields_ok = (window - n < room) & (delta - 1u < VARINT_ONE_BYTE_MAX);
            trace_uop *uops = uop_base + first;
            size_t used;
            unsigned psv;

            if (fields_ok & !(block & FAST_BLOCK_NOT_SIMPLE)) {
                /* A plain record: n ≤ 4 one-byte µops at offsets 0..n-1
                 * retiring alone, a one-byte cycle delta, a whole-row dispatch
                 * or none, nothing else. The window check covers both
                 * retire ≤ window and the dispatch limit. All four µop slots
                 * are written without branching on n: the block's bytes past
                 * n are zero, a zero PC delta, and those slots are
                 * overwritten later (the batch has room). */
                cycle += delta;
                pc = plain_uop(uops, 0, pc, (uint8_t)block);
                pc = plain_uop(uops, 1, pc, (uint8_t)(block >> 8));
                pc = plain_uop(uops, 2, pc, (uint8_t)(block >> 16));
                pc = plain_uop(uops, 3, pc, (uint8_t)(block >> 24));
                plain_record(rec, cycle, first, n, dispatch);
                window = window - n + dispatch;
                p += 2 + n;
            } else if (fields_ok && (used = one_extra_record(p, n, uops, pc, &psv))) {
                /* Plain but for one µop's PSV or PC continuation. */
                pc = uops[FAST_BLOCK_UOPS - 1].pc;
                cycle += delta;
                plain_record(rec, cycle, first, n, dispatch);
                trace_psv_count(&psvs, psv, t->events);
                window = window - n + dispatch;
                p += used;
            } else {
                fast_context x = { &psvs, t->events, width, rob_size, window, cycle, pc };

                used = fast_record(&x, p, rec, uops);
                if (!used)
                    goto stop;
                pc = x.pc;
                n = trace_record_uops(rec);
                dispatch = rec->dispatch;
                if (rec->flags & TRACE_REC_EXCEPTION)
                    excepted++;
                if (rec->flags & TRACE_REC_REFILL)
                    t->refills++;
                retired_extra += rec->retire - n;
                squashed += rec->squash;
                window = window - rec->retire - rec->squash + dispatch;
                cycle = rec->cycle;
                rec->first_uop = first;
                p += used;
            }
            first += n;
            rec++;
        }
    }
stop:
    done = (size_t)(rec - rec_start);
    if (done) {
        const uint64_t uops_taken = first - batch->uop_count;
        /* window = window_start - retired - squashed + dispatched */
        const uint64_t dispatched = (uint64_t)window - window_start + uops_taken + retired_extra + squashed;
        t->records += done;
        t->last_cycle = cycle;
        t->commits += uops_taken - excepted;
        t->exceptions += excepted;
        t->squashed += squashed;
        t->dispatched += dispatched;
        trace_psv_counter_flush(&psvs, t->events);
        c->prev_cycle = cycle;
        c->prev_pc = pc;
        s->window = window;
        s->last_cycle = cycle;
        batch->count += done;
        batch->uop_count = first;
        *pos = (size_t)(p - data);
        /* Each record taken was checked against the window, and the
         * chunks kept to the batch's room and the frame's bytes. */
        assert(window <= rob_size && batch->count <= batch->capacity && first <= batch->uop_capacity && *pos <= size);
    }
    return done;
}

/* --- index and footer ---------------------------------------------------- */

void trace_native_index_entry_encode(const trace_native_index_entry *e, uint8_t out[TRACE_NATIVE_INDEX_ENTRY_SIZE])
{
    put_le(out, e->offset, 8);
    put_le(out + 8, e->compressed_size, 8);
    put_le(out + 16, e->first_cycle, 8);
    put_le(out + 24, e->last_cycle, 8);
    put_le(out + 32, e->records, 4);
    put_le(out + 36, e->content_size, 4);
    put_le(out + 40, e->window, 4);
    put_le(out + 44, e->reserved, 4);
}

void trace_native_index_entry_decode(const uint8_t in[TRACE_NATIVE_INDEX_ENTRY_SIZE], trace_native_index_entry *e)
{
    e->offset = trace_native_get_le(in, 8);
    e->compressed_size = trace_native_get_le(in + 8, 8);
    e->first_cycle = trace_native_get_le(in + 16, 8);
    e->last_cycle = trace_native_get_le(in + 24, 8);
    e->records = (uint32_t)trace_native_get_le(in + 32, 4);
    e->content_size = (uint32_t)trace_native_get_le(in + 36, 4);
    e->window = (uint32_t)trace_native_get_le(in + 40, 4);
    e->reserved = (uint32_t)trace_native_get_le(in + 44, 4);
}

uint64_t trace_native_index_digest(uint64_t digest, const trace_native_index_entry *e)
{
    uint8_t bytes[TRACE_NATIVE_INDEX_ENTRY_SIZE];
    const uint64_t fnv_prime = 0x100000001B3ull;
    trace_native_index_entry_encode(e, bytes);
    for (size_t i = 0; i < sizeof bytes; i++)
        digest = (digest ^ bytes[i]) * fnv_prime;
    return digest;
}

void trace_native_footer_encode(const trace_native_footer *f, uint8_t out[TRACE_NATIVE_FOOTER_SIZE])
{
    const trace_totals *t = &f->totals;
    uint8_t *p = out;

    memset(out, 0, TRACE_NATIVE_FOOTER_SIZE);
    memcpy(p, TRACE_NATIVE_FOOTER_MAGIC, TRACE_NATIVE_MAGIC_SIZE);
    p += TRACE_NATIVE_MAGIC_SIZE;
    put_le(p, TRACE_NATIVE_VERSION_MAJOR, 2);
    put_le(p + 2,
           f->has_run       ? TRACE_NATIVE_VERSION_MINOR_RUN
           : f->has_objects ? TRACE_NATIVE_VERSION_MINOR_OBJECTS
                            : TRACE_NATIVE_VERSION_MINOR,
           2);
    put_le(p + 4,
           (f->notes.flags & ~TRACE_NATIVE_FOOTER_FLAG_OBJECTS)
               | (f->has_objects ? TRACE_NATIVE_FOOTER_FLAG_OBJECTS : 0),
           4);
    p += 8;
    put_le(p, f->notes.counter_wraps, 8);
    put_le(p + 8, t->records, 8);
    put_le(p + 16, t->first_cycle, 8);
    put_le(p + 24, t->last_cycle, 8);
    put_le(p + 32, t->commits, 8);
    put_le(p + 40, t->exceptions, 8);
    put_le(p + 48, t->dispatched, 8);
    put_le(p + 56, t->squashed, 8);
    put_le(p + 64, t->refills, 8);
    p += 72;
    for (int i = 0; i < TRACE_PSV_EVENT_COUNT; i++, p += 8)
        put_le(p, t->events[i], 8);
    put_le(p, f->data_frames, 8);
    put_le(p + 8, f->index_offset, 8);
}

int trace_native_footer_decode(const uint8_t *data, size_t size, trace_native_footer *f)
{
    trace_totals *t = &f->totals;
    const uint8_t *p = data;
    unsigned major;

    memset(f, 0, sizeof *f);
    if (size != TRACE_NATIVE_FOOTER_SIZE || memcmp(data, TRACE_NATIVE_FOOTER_MAGIC, TRACE_NATIVE_MAGIC_SIZE) != 0)
        return error_set(TEA_ERR_FORMAT, "malformed footer");
    p += TRACE_NATIVE_MAGIC_SIZE;
    major = (unsigned)trace_native_get_le(p, 2);
    if (major != TRACE_NATIVE_VERSION_MAJOR)
        return error_set(TEA_ERR_FORMAT, "footer version %u is not supported", major);
    f->notes.flags = (uint32_t)trace_native_get_le(p + 4, 4);
    f->has_objects = (f->notes.flags & TRACE_NATIVE_FOOTER_FLAG_OBJECTS) != 0;
    f->notes.flags &= ~TRACE_NATIVE_FOOTER_FLAG_OBJECTS;
    if (f->has_objects && trace_native_get_le(p + 2, 2) < TRACE_NATIVE_VERSION_MINOR_OBJECTS)
        return error_set(TEA_ERR_FORMAT, "footer version %u.0 cannot refer to an objects frame", major);
    p += 8;
    f->notes.counter_wraps = trace_native_get_le(p, 8);
    t->records = trace_native_get_le(p + 8, 8);
    t->first_cycle = trace_native_get_le(p + 16, 8);
    t->last_cycle = trace_native_get_le(p + 24, 8);
    t->commits = trace_native_get_le(p + 32, 8);
    t->exceptions = trace_native_get_le(p + 40, 8);
    t->dispatched = trace_native_get_le(p + 48, 8);
    t->squashed = trace_native_get_le(p + 56, 8);
    t->refills = trace_native_get_le(p + 64, 8);
    p += 72;
    for (int i = 0; i < TRACE_PSV_EVENT_COUNT; i++, p += 8)
        t->events[i] = trace_native_get_le(p, 8);
    f->data_frames = trace_native_get_le(p, 8);
    f->index_offset = trace_native_get_le(p + 8, 8);
    return TEA_OK;
}
