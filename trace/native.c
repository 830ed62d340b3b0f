/*
 * native.c: the native trace format's header, records, index and footer
 * (see native.h and docs/trace-format.md).
 */
#include "native.h"
#include "../common/error.h"

#include <stdlib.h>
#include <string.h>

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
#define HEADER_FIXED_SIZE (NATIVE_MAGIC_SIZE + 4)

int native_buffer_reserve(native_buffer *b, size_t extra)
{
    size_t need = b->size + extra, cap = b->capacity ? b->capacity : 4096;
    uint8_t *p;
    if (need <= b->capacity)
        return TEA_OK;
    while (cap < need)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory (%zu bytes)", cap);
    b->data = p;
    b->capacity = cap;
    return TEA_OK;
}

void native_buffer_free(native_buffer *b)
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

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* --- header ------------------------------------------------------------- */

static int put_field(native_buffer *out, unsigned key, const void *value, size_t len)
{
    int rc = native_buffer_reserve(out, TLV_HEADER_SIZE + len);
    if (rc)
        return rc;
    put_le(out->data + out->size, key, 2);
    put_le(out->data + out->size + 2, len, 4);
    if (len)
        memcpy(out->data + out->size + TLV_HEADER_SIZE, value, len);
    out->size += TLV_HEADER_SIZE + len;
    return TEA_OK;
}

static int put_number(native_buffer *out, unsigned key, uint64_t value)
{
    uint8_t bytes[8];
    put_le(bytes, value, 8);
    return put_field(out, key, bytes, 8);
}

static int put_string(native_buffer *out, unsigned key, const char *value)
{
    return value ? put_field(out, key, value, strlen(value)) : TEA_OK;
}

int native_header_encode(const trace_header *h, native_buffer *out)
{
    int rc;

    out->size = 0;
    if ((rc = native_buffer_reserve(out, HEADER_FIXED_SIZE)))
        return rc;
    memcpy(out->data, NATIVE_HEADER_MAGIC, NATIVE_MAGIC_SIZE);
    put_le(out->data + NATIVE_MAGIC_SIZE, NATIVE_VERSION_MAJOR, 2);
    put_le(out->data + NATIVE_MAGIC_SIZE + 2, NATIVE_VERSION_MINOR, 2);
    out->size = HEADER_FIXED_SIZE;
    if ((rc = put_number(out, KEY_COMMIT_WIDTH, h->commit_width))
        || (rc = put_number(out, KEY_ROB_SIZE, h->rob_size))
        || (rc = put_number(out, KEY_CLOCK_HZ, h->clock_hz))
        || (rc = put_string(out, KEY_ARCH, h->arch))
        || (rc = put_number(out, KEY_VA_BITS, h->va_bits))
        || (rc = put_number(out, KEY_LLC_LATENCY, h->llc_latency))
        || (rc = put_number(out, KEY_INITIAL_WINDOW, h->initial_window))
        || (rc = put_string(out, KEY_GENERATOR, h->generator))
        || (rc = put_string(out, KEY_COMMAND_LINE, h->command_line))
        || (rc = put_string(out, KEY_BINARY_PATH, h->binary_path))
        || (rc = put_string(out, KEY_BUILD_ID, h->build_id))
        || (rc = put_string(out, KEY_SOURCE_FORMAT, h->source_format)))
        return rc;
    if (h->has_load_bias && (rc = put_number(out, KEY_LOAD_BIAS, h->load_bias)))
        return rc;
    return TEA_OK;
}

int native_is_header(const uint8_t *data, size_t size)
{
    return size >= NATIVE_MAGIC_SIZE && memcmp(data, NATIVE_HEADER_MAGIC, NATIVE_MAGIC_SIZE) == 0;
}

static int header_string(char **field, const uint8_t *value, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    memcpy(s, value, len);
    s[len] = '\0';
    if (strlen(s) != len) {
        free(s);
        return tea_error_set(TEA_ERR_FORMAT, "header string contains a NUL byte");
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
            return tea_error_set(TEA_ERR_FORMAT, "header field %u has %zu bytes, expected 8", key, len);
        n = get_le(value, 8);
    }
    if (key < 32)
        *seen |= 1u << key;
    switch (key) {
    case KEY_COMMIT_WIDTH:
        if (n < 1 || n > TRACE_MAX_WIDTH)
            return tea_error_set(TEA_ERR_FORMAT, "commit width %llu outside 1-%d", (unsigned long long)n,
                                 TRACE_MAX_WIDTH);
        h->commit_width = (unsigned)n;
        return TEA_OK;
    case KEY_ROB_SIZE:
        if (n < 1 || n > TRACE_MAX_ROB)
            return tea_error_set(TEA_ERR_FORMAT, "ROB size %llu outside 1-%d", (unsigned long long)n, TRACE_MAX_ROB);
        h->rob_size = (unsigned)n;
        return TEA_OK;
    case KEY_CLOCK_HZ:
        if (n == 0)
            return tea_error_set(TEA_ERR_FORMAT, "clock frequency is zero");
        h->clock_hz = n;
        return TEA_OK;
    case KEY_ARCH:
        if (len == 0 || len >= TRACE_ARCH_MAX || memchr(value, '\0', len))
            return tea_error_set(TEA_ERR_FORMAT, "architecture name of %zu bytes is invalid", len);
        memcpy(h->arch, value, len);
        h->arch[len] = '\0';
        return TEA_OK;
    case KEY_VA_BITS:
        if (n < 1 || n > 64)
            return tea_error_set(TEA_ERR_FORMAT, "virtual-address width %llu outside 1-64", (unsigned long long)n);
        h->va_bits = (unsigned)n;
        return TEA_OK;
    case KEY_LLC_LATENCY:
        if (n > UINT16_MAX)
            return tea_error_set(TEA_ERR_FORMAT, "LLC-miss latency %llu too large", (unsigned long long)n);
        h->llc_latency = (unsigned)n;
        return TEA_OK;
    case KEY_INITIAL_WINDOW:
        if (n > TRACE_MAX_ROB)
            return tea_error_set(TEA_ERR_FORMAT, "initial ROB occupancy %llu too large", (unsigned long long)n);
        h->initial_window = (unsigned)n;
        return TEA_OK;
    case KEY_LOAD_BIAS:
        h->load_bias = n;
        h->has_load_bias = 1;
        return TEA_OK;
    case KEY_GENERATOR:
        return header_string(&h->generator, value, len);
    case KEY_COMMAND_LINE:
        return header_string(&h->command_line, value, len);
    case KEY_BINARY_PATH:
        return header_string(&h->binary_path, value, len);
    case KEY_BUILD_ID:
        return header_string(&h->build_id, value, len);
    case KEY_SOURCE_FORMAT:
        return header_string(&h->source_format, value, len);
    default:
        return TEA_OK;
    }
}

int native_header_decode(const uint8_t *data, size_t size, trace_header *h)
{
    const unsigned required = 1u << KEY_COMMIT_WIDTH | 1u << KEY_ROB_SIZE | 1u << KEY_CLOCK_HZ | 1u << KEY_ARCH;
    unsigned seen = 0, major, minor;
    size_t pos = HEADER_FIXED_SIZE;
    int rc;

    trace_header_init(h);
    if (!native_is_header(data, size) || size < HEADER_FIXED_SIZE)
        return tea_error_set(TEA_ERR_FORMAT, "not a native trace header (bad magic)");
    major = (unsigned)get_le(data + NATIVE_MAGIC_SIZE, 2);
    minor = (unsigned)get_le(data + NATIVE_MAGIC_SIZE + 2, 2);
    if (major != NATIVE_VERSION_MAJOR)
        return tea_error_set(TEA_ERR_FORMAT, "native trace version %u.%u is not supported (this tool reads %d.x)",
                             major, minor, NATIVE_VERSION_MAJOR);
    while (pos < size) {
        unsigned key;
        size_t len;
        if (size - pos < TLV_HEADER_SIZE)
            return tea_error_set(TEA_ERR_FORMAT, "header field at byte %zu is truncated", pos);
        key = (unsigned)get_le(data + pos, 2);
        len = (size_t)get_le(data + pos + 2, 4);
        if (len > size - pos - TLV_HEADER_SIZE)
            return tea_error_set(TEA_ERR_FORMAT, "header field %u at byte %zu overruns the header", key, pos);
        if ((rc = header_field(h, key, data + pos + TLV_HEADER_SIZE, len, &seen)))
            return rc;
        pos += TLV_HEADER_SIZE + len;
    }
    if ((seen & required) != required)
        return tea_error_set(TEA_ERR_FORMAT, "header lacks a required field (width, ROB size, clock or arch)");
    if (h->rob_size % h->commit_width != 0)
        return tea_error_set(TEA_ERR_FORMAT, "ROB size %u is not a multiple of the commit width %u", h->rob_size,
                             h->commit_width);
    if (h->initial_window > h->rob_size)
        return tea_error_set(TEA_ERR_FORMAT, "initial ROB occupancy %u exceeds the ROB size %u",
                             h->initial_window, h->rob_size);
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
    return n;
}

static inline int get_varint(const uint8_t *data, size_t size, size_t *pos, uint64_t *v)
{
    uint64_t result = 0;
    size_t p = *pos;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (p >= size)
            return tea_error_set(TEA_ERR_FORMAT, "record truncated inside a number");
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
    return tea_error_set(TEA_ERR_FORMAT, "over-long number in record");
}

static inline uint64_t zigzag(uint64_t delta)
{
    return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

void native_codec_frame_start(native_codec *c, unsigned width)
{
    c->width = width;
    c->prev_cycle = 0;
    c->prev_pc = 0;
    c->frame_started = 0;
}

static size_t put_uop(native_codec *c, const trace_uop *u, uint8_t *out)
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

size_t native_encode_record(native_codec *c, const trace_record *r, const trace_uop *uops, uint8_t *out)
{
    unsigned n = trace_record_uops(r);
    unsigned natural_retire = n ? uops[n - 1].offset + 1u : 0;
    unsigned tag = r->n_commit, ext = 0;
    int offsets = 0;
    size_t len = 0;

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
    return len;
}

static int get_uop(native_codec *c, const uint8_t *data, size_t size, size_t *pos, trace_uop *u)
{
    uint64_t z, rest = 0, psv = 0;
    uint8_t first;
    int rc;

    if (*pos >= size)
        return tea_error_set(TEA_ERR_FORMAT, "record truncated inside a µop");
    first = data[(*pos)++];
    z = (first >> 1) & ((1u << UOP_FIRST_BITS) - 1);
    if (first & 0x80) {
        if ((rc = get_varint(data, size, pos, &rest)))
            return rc;
        if (rest >> (64 - UOP_FIRST_BITS))
            return tea_error_set(TEA_ERR_FORMAT, "µop address delta out of range");
        z |= rest << UOP_FIRST_BITS;
    }
    if (first & UOP_PSV_FLAG) {
        if ((rc = get_varint(data, size, pos, &psv)))
            return rc;
        if (psv == 0 || psv >= PSV_VALUES)
            return tea_error_set(TEA_ERR_FORMAT, "PSV %llu out of range", (unsigned long long)psv);
    }
    u->pc = c->prev_pc + unzigzag(z);
    u->psv = (uint16_t)psv;
    u->pad_ = 0;
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
        return tea_error_set(TEA_ERR_FORMAT, "%s %llu out of range", what, (unsigned long long)*v);
    return TEA_OK;
}

int native_decode_record(native_codec *c, const uint8_t *data, size_t size, size_t *pos,
                         trace_record *r, trace_uop *uops)
{
    unsigned tag, ext = 0, n;
    uint64_t v = 0;
    int rc;

    if (*pos >= size)
        return tea_error_set(TEA_ERR_FORMAT, "record truncated");
    tag = data[(*pos)++];
    if (tag & TAG_EXT) {
        if (*pos >= size)
            return tea_error_set(TEA_ERR_FORMAT, "record truncated");
        ext = data[(*pos)++];
        if (ext & ~EXT_KNOWN)
            return tea_error_set(TEA_ERR_FORMAT, "unknown record flags 0x%02x", ext);
    }
    r->n_commit = (uint8_t)(tag & TAG_COMMITS_MASK);
    if (r->n_commit > TRACE_MAX_WIDTH)
        return tea_error_set(TEA_ERR_FORMAT, "%u commits in one record", r->n_commit);
    r->flags = (uint8_t)(((ext & EXT_REFILL) ? TRACE_REC_REFILL : 0) | ((ext & EXT_EXCEPTION) ? TRACE_REC_EXCEPTION : 0));
    if ((rc = get_varint(data, size, pos, &v)))
        return rc;
    if (c->frame_started) {
        if (v == 0 || v > UINT64_MAX - c->prev_cycle)
            return tea_error_set(TEA_ERR_FORMAT, "cycle delta %llu does not advance", (unsigned long long)v);
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
                return tea_error_set(TEA_ERR_FORMAT, "ROB offset %u out of range", offset);
            uops[i].offset = (uint8_t)offset;
        }
    }
    r->retire = (uint8_t)(n ? uops[n - 1].offset + 1u : 0);
    if (tag & TAG_TRAIL) {
        if ((rc = get_count(data, size, pos, UINT8_MAX, "retire count", &v)))
            return rc;
        if (v == 0 || v + r->retire > UINT8_MAX)
            return tea_error_set(TEA_ERR_FORMAT, "retire count %llu out of range", (unsigned long long)v);
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
            return tea_error_set(TEA_ERR_FORMAT, "record has two dispatch counts");
        if ((rc = get_count(data, size, pos, TRACE_MAX_ROB, "dispatch count", &v)))
            return rc;
        r->dispatch = (uint16_t)v;
    }
    r->pad_ = 0;
    c->prev_cycle = r->cycle;
    c->frame_started = 1;
    return TEA_OK;
}

/* --- index and footer ---------------------------------------------------- */

void native_index_entry_encode(const native_index_entry *e, uint8_t out[NATIVE_INDEX_ENTRY_SIZE])
{
    put_le(out, e->offset, 8);
    put_le(out + 8, e->compressed_size, 8);
    put_le(out + 16, e->first_cycle, 8);
    put_le(out + 24, e->last_cycle, 8);
    put_le(out + 32, e->records, 4);
    put_le(out + 36, e->content_size, 4);
    put_le(out + 40, e->window, 4);
    put_le(out + 44, 0, 4);
}

void native_index_entry_decode(const uint8_t in[NATIVE_INDEX_ENTRY_SIZE], native_index_entry *e)
{
    e->offset = get_le(in, 8);
    e->compressed_size = get_le(in + 8, 8);
    e->first_cycle = get_le(in + 16, 8);
    e->last_cycle = get_le(in + 24, 8);
    e->records = (uint32_t)get_le(in + 32, 4);
    e->content_size = (uint32_t)get_le(in + 36, 4);
    e->window = (uint32_t)get_le(in + 40, 4);
}

uint64_t native_index_digest(uint64_t digest, const native_index_entry *e)
{
    uint8_t bytes[NATIVE_INDEX_ENTRY_SIZE];
    const uint64_t fnv_prime = 0x100000001B3ull;
    native_index_entry_encode(e, bytes);
    for (size_t i = 0; i < sizeof bytes; i++)
        digest = (digest ^ bytes[i]) * fnv_prime;
    return digest;
}

void native_footer_encode(const native_footer *f, uint8_t out[NATIVE_FOOTER_SIZE])
{
    const trace_totals *t = &f->totals;
    uint8_t *p = out;

    memset(out, 0, NATIVE_FOOTER_SIZE);
    memcpy(p, NATIVE_FOOTER_MAGIC, NATIVE_MAGIC_SIZE);
    p += NATIVE_MAGIC_SIZE;
    put_le(p, NATIVE_VERSION_MAJOR, 2);
    put_le(p + 2, NATIVE_VERSION_MINOR, 2);
    put_le(p + 4, f->notes.flags, 4);
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
    for (int i = 0; i < PSV_EVENT_COUNT; i++, p += 8)
        put_le(p, t->events[i], 8);
    put_le(p, f->data_frames, 8);
    put_le(p + 8, f->index_offset, 8);
}

int native_footer_decode(const uint8_t *data, size_t size, native_footer *f)
{
    trace_totals *t = &f->totals;
    const uint8_t *p = data;
    unsigned major;

    memset(f, 0, sizeof *f);
    if (size != NATIVE_FOOTER_SIZE || memcmp(data, NATIVE_FOOTER_MAGIC, NATIVE_MAGIC_SIZE) != 0)
        return tea_error_set(TEA_ERR_FORMAT, "malformed footer");
    p += NATIVE_MAGIC_SIZE;
    major = (unsigned)get_le(p, 2);
    if (major != NATIVE_VERSION_MAJOR)
        return tea_error_set(TEA_ERR_FORMAT, "footer version %u is not supported", major);
    f->notes.flags = (uint32_t)get_le(p + 4, 4);
    p += 8;
    f->notes.counter_wraps = get_le(p, 8);
    t->records = get_le(p + 8, 8);
    t->first_cycle = get_le(p + 16, 8);
    t->last_cycle = get_le(p + 24, 8);
    t->commits = get_le(p + 32, 8);
    t->exceptions = get_le(p + 40, 8);
    t->dispatched = get_le(p + 48, 8);
    t->squashed = get_le(p + 56, 8);
    t->refills = get_le(p + 64, 8);
    p += 72;
    for (int i = 0; i < PSV_EVENT_COUNT; i++, p += 8)
        t->events[i] = get_le(p, 8);
    f->data_frames = get_le(p, 8);
    f->index_offset = get_le(p + 8, 8);
    return TEA_OK;
}
