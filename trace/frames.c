/*
 * frames.c: random access to the data frames of a native trace file (see
 * frames.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "frames.h"
#include "input.h"
#include "native.h"
#include "objects.h"
#include "common/error.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* A skippable frame's header: magic and content size, both u32 LE. */
#define SKIPPABLE_HEADER_SIZE 8
/* The native metadata frames' skippable magic. */
#define NATIVE_SKIPPABLE_MAGIC (TRACE_INPUT_SKIPPABLE_MAGIC | TRACE_NATIVE_SKIPPABLE_VARIANT)
/* Index content before its entries: magic and u64 count. */
#define INDEX_PREAMBLE_SIZE (TRACE_NATIVE_MAGIC_SIZE + 8)

struct trace_frames {
    int fd;                     /* the file, or -1 when read from memory */
    const uint8_t *data;        /* the caller's bytes (trace_frames_open_memory), or NULL */
    char *name;                 /* the path (or the name given), for messages */
    uint64_t file_size;         /* bytes */
    trace_header header;
    trace_native_footer footer;
    uint64_t footer_offset;     /* file offset of the footer frame */
    uint64_t index_end;         /* where the index must end: the objects frame or the footer */
    trace_object_list objects;  /* the objects frame's content */
    size_t count;               /* data frames */
    trace_native_index_entry *entries;
    trace_frame_info *info;
    uint64_t *context_at;       /* per data frame: file offset of its context frame (0: none) */
    uint32_t *context_size;     /* ... and its content's size */
    int drop_contexts;          /* trace_frames_drop_contexts */
};

struct trace_frame_reader {
    const trace_frames *frames;
    ZSTD_DCtx *dctx;
    uint8_t *compressed;        /* the frame as stored */
    size_t compressed_capacity;
    uint8_t *content;           /* the frame's record bytes, when this reader decompressed them */
    size_t content_capacity;
    const uint8_t *data;        /* the bytes being read: content, or a trace_frame_data */
    size_t k;                   /* the frame being read */
    size_t size, pos;           /* content bytes, read position */
    trace_native_codec codec;
    unsigned window;            /* ROB entries before the next record */
    uint64_t last_cycle;        /* previous record's cycle, when totals.records > 0 */
    trace_totals totals;        /* the frame's records so far */
    int started, done, failed;
    trace_native_contexts contexts; /* the frame's calling contexts (none: all in the root) */
    uint8_t *context_bytes;     /* its context frame's content */
    size_t context_capacity;
};

/* Reads exactly `size` bytes at `offset`; TEA_ERR_FORMAT when the file ends
 * first. */
static int read_at(const trace_frames *f, void *dst, size_t size, uint64_t offset, const char *what)
{
    size_t done = 0;

    if (f->data) {
        if (offset > f->file_size || size > f->file_size - offset)
            return error_set(TEA_ERR_FORMAT, "%s: %s at byte %llu is truncated", f->name, what,
                             (unsigned long long)offset);
        memcpy(dst, f->data + offset, size);
        return TEA_OK;
    }
    while (done < size) {
        ssize_t n = pread(f->fd, (uint8_t *)dst + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return error_set(TEA_ERR_IO, "%s: cannot read %s at byte %llu: %s", f->name, what,
                             (unsigned long long)(offset + done), strerror(errno));
        if (n == 0)
            return error_set(TEA_ERR_FORMAT, "%s: %s at byte %llu is truncated", f->name, what,
                             (unsigned long long)offset);
        done += (size_t)n;
    }
    return TEA_OK;
}

/* Reads the native skippable frame at `offset` whole into a malloc'd buffer.
 * TEA_ERR_UNSUPPORTED when another kind of frame is there. */
static int read_metadata(const trace_frames *f, uint64_t offset, const char *what, uint8_t **data, uint32_t *size)
{
    uint8_t head[SKIPPABLE_HEADER_SIZE];
    int rc;

    *data = NULL;
    if (offset > f->file_size || f->file_size - offset < SKIPPABLE_HEADER_SIZE)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: no %s at byte %llu", f->name, what, (unsigned long long)offset);
    if ((rc = read_at(f, head, sizeof head, offset, what)))
        return rc;
    *size = (uint32_t)trace_native_get_le(head + 4, 4);
    if (trace_native_get_le(head, 4) != NATIVE_SKIPPABLE_MAGIC || *size > TRACE_INPUT_MAX_FRAME_SIZE
        || *size > f->file_size - offset - SKIPPABLE_HEADER_SIZE)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: no %s at byte %llu", f->name, what, (unsigned long long)offset);
    if (!(*data = malloc(*size ? *size : 1)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if ((rc = read_at(f, *data, *size, offset + SKIPPABLE_HEADER_SIZE, what))) {
        free(*data);
        *data = NULL;
    }
    return rc;
}

/* Reads the header frame; returns the offset just after it. */
static int load_header(trace_frames *f, uint64_t *end)
{
    uint8_t *data;
    uint32_t size = 0; /* set by read_metadata when it succeeds (gcc -O3 cannot tell) */
    int rc = read_metadata(f, 0, "native header", &data, &size);

    if (rc)
        return rc;
    if (!trace_native_is_header(data, size))
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: not a native trace", f->name);
    else if ((rc = trace_native_header_decode(data, size, &f->header)))
        rc = error_prefix(rc, "%s: header: ", f->name);
    *end = SKIPPABLE_HEADER_SIZE + (uint64_t)size;
    free(data);
    return rc;
}

static int load_footer(trace_frames *f)
{
    const uint64_t frame_size = SKIPPABLE_HEADER_SIZE + TRACE_NATIVE_FOOTER_SIZE;
    uint8_t *data;
    uint32_t size = 0;
    int rc;

    if (f->file_size < frame_size)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: no footer", f->name);
    f->footer_offset = f->file_size - frame_size;
    if ((rc = read_metadata(f, f->footer_offset, "footer", &data, &size)))
        return rc;
    if (size != TRACE_NATIVE_FOOTER_SIZE || memcmp(data, TRACE_NATIVE_FOOTER_MAGIC, TRACE_NATIVE_MAGIC_SIZE) != 0)
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: no footer at the end", f->name);
    else if ((rc = trace_native_footer_decode(data, size, &f->footer)))
        rc = error_prefix(rc, "%s: footer: ", f->name);
    free(data);
    return rc;
}

/* Finds and decodes the objects frame the footer refers to (it stands
 * right after the index and ends at the footer), and sets index_end.
 * TEA_ERR_UNSUPPORTED when the frame is not where the footer says (the
 * stream reader says what is there), TEA_ERR_FORMAT for a damaged one (then
 * *damaged is set). */
static int load_objects(trace_frames *f, int *damaged)
{
    uint8_t head[SKIPPABLE_HEADER_SIZE], *data;
    uint64_t at;
    uint32_t size = 0;
    size_t bad;
    int rc;

    *damaged = 0;
    f->index_end = f->footer_offset;
    if (!f->footer.has_objects)
        return TEA_OK;
    if (f->footer.index_offset > f->footer_offset
        || f->footer_offset - f->footer.index_offset < SKIPPABLE_HEADER_SIZE)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: no index at byte %llu", f->name,
                         (unsigned long long)f->footer.index_offset);
    if ((rc = read_at(f, head, sizeof head, f->footer.index_offset, "index")))
        return rc;
    at = f->footer.index_offset + SKIPPABLE_HEADER_SIZE + trace_native_get_le(head + 4, 4);
    if ((rc = read_metadata(f, at, "objects frame", &data, &size)))
        return rc;
    if (size < TRACE_NATIVE_MAGIC_SIZE || memcmp(data, TRACE_OBJECTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE) != 0
        || at + SKIPPABLE_HEADER_SIZE + size != f->footer_offset) {
        free(data);
        return error_set(TEA_ERR_UNSUPPORTED, "%s: no objects frame at byte %llu", f->name, (unsigned long long)at);
    }
    rc = trace_object_list_decode(data, size, &f->objects, &bad);
    free(data);
    if (rc) {
        *damaged = rc == TEA_ERR_FORMAT;
        return error_prefix(rc, "%s: objects frame at byte %llu, ", f->name, (unsigned long long)at);
    }
    f->index_end = at;
    return TEA_OK;
}

/* The bytes [at, end) before data frame k: its context frame, whose
 * content's place it notes. TEA_ERR_UNSUPPORTED for anything else there
 * (the stream reader says what). */
static int find_context_frame(trace_frames *f, size_t k, uint64_t at, uint64_t end)
{
    uint8_t head[SKIPPABLE_HEADER_SIZE + TRACE_NATIVE_MAGIC_SIZE];
    int rc;

    if (end - at < sizeof head || (rc = read_at(f, head, sizeof head, at, "context frame")))
        return error_set(TEA_ERR_UNSUPPORTED, "%s: index entry %zu does not match the file's layout", f->name, k);
    if (trace_native_get_le(head, 4) != NATIVE_SKIPPABLE_MAGIC
        || trace_native_get_le(head + 4, 4) > TRACE_INPUT_MAX_FRAME_SIZE
        || at + SKIPPABLE_HEADER_SIZE + trace_native_get_le(head + 4, 4) != end
        || memcmp(head + SKIPPABLE_HEADER_SIZE, TRACE_NATIVE_CONTEXTS_MAGIC, TRACE_NATIVE_MAGIC_SIZE) != 0)
        return error_set(TEA_ERR_UNSUPPORTED, "%s: index entry %zu does not match the file's layout", f->name, k);
    f->context_at[k] = at;
    f->context_size[k] = (uint32_t)(end - at - SKIPPABLE_HEADER_SIZE);
    return TEA_OK;
}

/* Reads the index and checks that the frames it lists tile the file from
 * `data_start` to the index, each with a first record number, cycles and
 * windows that can be right. */
static int load_index(trace_frames *f, uint64_t data_start)
{
    uint8_t *data;
    uint32_t size = 0;
    uint64_t count, expect = data_start, records = 0;
    int rc;

    if ((rc = read_metadata(f, f->footer.index_offset, "index", &data, &size)))
        return rc;
    if (size < INDEX_PREAMBLE_SIZE || memcmp(data, TRACE_NATIVE_INDEX_MAGIC, TRACE_NATIVE_MAGIC_SIZE) != 0) {
        free(data);
        return error_set(TEA_ERR_UNSUPPORTED, "%s: no index at byte %llu", f->name,
                         (unsigned long long)f->footer.index_offset);
    }
    if (f->footer.index_offset + SKIPPABLE_HEADER_SIZE + size != f->index_end) {
        /* Bytes between the index and the footer (or the objects frame):
         * the stream reader says what they are. */
        free(data);
        return error_set(TEA_ERR_FORMAT, "%s: the index at byte %llu does not end at the footer", f->name,
                         (unsigned long long)f->footer.index_offset);
    }
    count = trace_native_get_le(data + TRACE_NATIVE_MAGIC_SIZE, 8);
    if ((size - INDEX_PREAMBLE_SIZE) % TRACE_NATIVE_INDEX_ENTRY_SIZE
        || count != (size - INDEX_PREAMBLE_SIZE) / TRACE_NATIVE_INDEX_ENTRY_SIZE || count != f->footer.data_frames) {
        free(data);
        return error_set(TEA_ERR_FORMAT, "%s: index at byte %llu is malformed", f->name,
                         (unsigned long long)f->footer.index_offset);
    }
    f->count = (size_t)count;
    f->entries = calloc(f->count ? f->count : 1, sizeof *f->entries);
    f->info = calloc(f->count ? f->count : 1, sizeof *f->info);
    f->context_at = calloc(f->count ? f->count : 1, sizeof *f->context_at);
    f->context_size = calloc(f->count ? f->count : 1, sizeof *f->context_size);
    if (!f->entries || !f->info || !f->context_at || !f->context_size) {
        free(data);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < f->count; k++) {
        trace_native_index_entry *e = &f->entries[k];
        trace_native_index_entry_decode(data + INDEX_PREAMBLE_SIZE + k * TRACE_NATIVE_INDEX_ENTRY_SIZE, e);
        if (e->offset > expect && (rc = find_context_frame(f, k, expect, e->offset)))
            break;
        if (e->offset > expect)
            expect = e->offset;
        if (e->offset != expect || e->compressed_size > f->footer.index_offset - expect
            || e->window > f->header.rob_size || (e->records && e->first_cycle > e->last_cycle) || e->reserved) {
            rc = error_set(TEA_ERR_UNSUPPORTED, "%s: index entry %zu does not match the file's layout", f->name, k);
            break;
        }
        expect += e->compressed_size;
        f->info[k] = (trace_frame_info){ records, e->first_cycle, e->last_cycle, e->records, e->window };
        records += e->records;
    }
    if (!rc && expect != f->footer.index_offset)
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: data frames do not end at the index", f->name);
    free(data);
    return rc;
}

/* Reads and checks the header, footer, objects frame and index of `f`,
 * whose file (or bytes), size and name are set. */
static int load_metadata(trace_frames *f)
{
    uint64_t data_start = 0;
    int rc, damaged;

    if ((rc = load_header(f, &data_start)) || (rc = load_footer(f)) || (rc = load_objects(f, &damaged))
        || (rc = load_index(f, data_start)))
        return rc;
    if (f->count && f->info[0].window != f->header.initial_window)
        return error_set(TEA_ERR_FORMAT, "%s: the first frame's window disagrees with the header", f->name);
    return TEA_OK;
}

int trace_frames_open_memory(trace_frames **out, const void *data, size_t size, const char *name)
{
    trace_frames *f;
    int rc;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(data != NULL || size == 0);
    TEA_ASSERT_ARG(name != NULL);
    *out = NULL;
    if (!(f = calloc(1, sizeof *f)) || !(f->name = strdup(name))) {
        free(f);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    trace_header_init(&f->header);
    f->fd = -1;
    f->data = size ? data : (const uint8_t *)"";
    f->file_size = size;
    if ((rc = load_metadata(f))) {
        trace_frames_close(f);
        return rc;
    }
    *out = f;
    return TEA_OK;
}

int trace_frames_open(trace_frames **out, const char *path)
{
    trace_frames *f;
    struct stat st;
    int rc;

    *out = NULL;
    if (strcmp(path, "-") == 0)
        return error_set(TEA_ERR_UNSUPPORTED, "standard input cannot be read by frame");
    if (!(f = calloc(1, sizeof *f)) || !(f->name = strdup(path))) {
        free(f);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    trace_header_init(&f->header);
    f->fd = -1;
    /* Not even opened unless it is a regular file: opening and closing a
     * named pipe would cost its writer its reader. */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: not a regular file", path);
        goto fail;
    }
    f->fd = open(path, O_RDONLY);
    if (f->fd < 0) {
        rc = error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        goto fail;
    }
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = error_set(TEA_ERR_UNSUPPORTED, "%s: not a regular file", path);
        goto fail;
    }
    f->file_size = (uint64_t)st.st_size;
    if ((rc = load_metadata(f)))
        goto fail;
    *out = f;
    return TEA_OK;
fail:
    trace_frames_close(f);
    return rc;
}

const trace_header *trace_frames_header(const trace_frames *f)
{
    return &f->header;
}

void trace_frames_objects(const trace_frames *f, const trace_object **objs, size_t *count, uint32_t *tid,
                          uint32_t *threads_seen)
{
    *objs = f->objects.items;
    *count = f->objects.count;
    *tid = f->objects.tid;
    *threads_seen = f->objects.threads_seen;
}

void trace_frames_drop_contexts(trace_frames *f)
{
    f->drop_contexts = 1;
}

const trace_run *trace_frames_run(const trace_frames *f)
{
    return &f->objects.run;
}

/* trace_objects_preload's work on `f`, whose file (or bytes), size and
 * name are set. */
static int preload_objects(trace_frames *f, trace_object_list *l)
{
    int rc, damaged = 0;

    trace_header_init(&f->header);
    rc = load_footer(f);
    if (!rc)
        rc = load_objects(f, &damaged);
    /* Only a damaged objects frame is refused here; whatever else is
     * wrong the stream reader diagnoses where it finds it. */
    if (rc != TEA_ERR_NOMEM && !damaged)
        rc = TEA_OK;
    if (!rc) {
        *l = f->objects;
        memset(&f->objects, 0, sizeof f->objects);
    }
    trace_object_list_free(&f->objects);
    trace_header_free(&f->header);
    return rc;
}

int trace_objects_preload(const char *path, trace_object_list *l)
{
    trace_frames f;
    struct stat st;
    int rc = TEA_OK;

    memset(&f, 0, sizeof f);
    f.name = (char *)path;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return TEA_OK;
    if ((f.fd = open(path, O_RDONLY)) < 0)
        return TEA_OK;
    if (fstat(f.fd, &st) == 0 && S_ISREG(st.st_mode)) {
        f.file_size = (uint64_t)st.st_size;
        rc = preload_objects(&f, l);
    }
    close(f.fd);
    return rc;
}

int trace_objects_preload_memory(const void *data, size_t size, const char *name, trace_object_list *l)
{
    trace_frames f;

    memset(&f, 0, sizeof f);
    f.fd = -1;
    f.name = (char *)name;
    f.data = size ? data : (const uint8_t *)"";
    f.file_size = size;
    return preload_objects(&f, l);
}

size_t trace_frames_count(const trace_frames *f)
{
    return f->count;
}

const trace_frame_info *trace_frames_info(const trace_frames *f, size_t k)
{
    assert(k < f->count);
    return &f->info[k];
}

/* Adds the totals of a later stretch of records to `t`. */
static void totals_append(trace_totals *t, const trace_totals *later)
{
    if (!later->records)
        return;
    if (!t->records)
        t->first_cycle = later->first_cycle;
    t->last_cycle = later->last_cycle;
    t->records += later->records;
    t->commits += later->commits;
    t->exceptions += later->exceptions;
    t->dispatched += later->dispatched;
    t->squashed += later->squashed;
    t->refills += later->refills;
    for (int i = 0; i < TRACE_PSV_EVENT_COUNT; i++)
        t->events[i] += later->events[i];
}

int trace_frames_check_sequence(const trace_frames *f, const trace_totals *frame_totals, const unsigned *end_window,
                                trace_totals *totals, trace_read_stats *stats)
{
    const trace_totals *a = &f->footer.totals;
    char field[32];
    uint64_t va, vb;

    memset(totals, 0, sizeof *totals);
    for (size_t k = 0; k < f->count; k++) {
        if (k > 0 && end_window[k - 1] != f->info[k].window)
            return error_set(TEA_ERR_FORMAT,
                             "%s: record %llu (frame at byte %llu): the ROB holds %u entries, "
                             "the index says %u",
                             f->name, (unsigned long long)f->info[k].first_record,
                             (unsigned long long)f->entries[k].offset, end_window[k - 1], f->info[k].window);
        if (totals->records && frame_totals[k].records && frame_totals[k].first_cycle <= totals->last_cycle)
            return error_set(TEA_ERR_FORMAT,
                             "%s: record %llu (frame at byte %llu): cycle %llu does not follow "
                             "cycle %llu",
                             f->name, (unsigned long long)f->info[k].first_record,
                             (unsigned long long)f->entries[k].offset, (unsigned long long)frame_totals[k].first_cycle,
                             (unsigned long long)totals->last_cycle);
        totals_append(totals, &frame_totals[k]);
    }
    if (trace_totals_difference(a, totals, field, sizeof field, &va, &vb))
        return error_set(TEA_ERR_FORMAT,
                         "%s: footer at byte %llu disagrees with the records: %s is %llu in the "
                         "footer, %llu read",
                         f->name, (unsigned long long)f->footer_offset, field, (unsigned long long)va,
                         (unsigned long long)vb);
    memset(stats, 0, sizeof *stats);
    stats->format = TRACE_FORMAT_NATIVE;
    stats->compressed = 1;
    stats->bytes_in = f->file_size;
    stats->units = totals->records;
    stats->frames = f->count;
    stats->notes = f->footer.notes;
    return TEA_OK;
}

void trace_frames_close(trace_frames *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    trace_header_free(&f->header);
    trace_object_list_free(&f->objects);
    free(f->entries);
    free(f->info);
    free(f->context_at);
    free(f->context_size);
    free(f->name);
    free(f);
}

int trace_frame_reader_create(trace_frame_reader **out, const trace_frames *f)
{
    trace_frame_reader *fr = calloc(1, sizeof *fr);

    *out = NULL;
    if (!fr || !(fr->dctx = ZSTD_createDCtx())) {
        free(fr);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    fr->frames = f;
    *out = fr;
    return TEA_OK;
}

/* Makes `*buf` hold at least `size` bytes. */
static int reserve(uint8_t **buf, size_t *capacity, size_t size)
{
    uint8_t *bigger;
    if (size <= *capacity)
        return TEA_OK;
    if (!(bigger = realloc(*buf, size)))
        return error_set(TEA_ERR_NOMEM, "out of memory for a frame of %zu bytes", size);
    *buf = bigger;
    *capacity = size;
    return TEA_OK;
}

/* The calling contexts of frame k from its context frame, unless the
 * trace has none or they are dropped. */
static int load_frame_contexts(trace_frame_reader *fr, size_t k)
{
    const trace_frames *f = fr->frames;
    uint32_t size = f->context_size[k];
    uint32_t limit = f->objects.run.context_count ? f->objects.run.context_count : 1;
    unsigned long long at = f->context_at[k];
    int rc;

    trace_native_contexts_frame_start(&fr->contexts);
    if (!size)
        return TEA_OK;
    if ((rc = reserve(&fr->context_bytes, &fr->context_capacity, size))
        || (rc = read_at(f, fr->context_bytes, size, at + SKIPPABLE_HEADER_SIZE, "context frame")))
        return rc;
    if ((rc = trace_native_contexts_decode(&fr->contexts, fr->context_bytes, size, fr->size)))
        return error_prefix(rc, "%s: frame at byte %llu: ", f->name, at);
    /* the tree is known at open: a context it lacks is refused before any µop names it */
    if (fr->contexts.max_ctx >= limit)
        return error_set(TEA_ERR_FORMAT, "%s: frame at byte %llu: context frame: context %u, the trace has %u", f->name,
                         at, fr->contexts.max_ctx, limit);
    if (f->drop_contexts) /* checked as every reader checks it, then dropped */
        trace_native_contexts_frame_start(&fr->contexts);
    return TEA_OK;
}

int trace_frame_reader_start(trace_frame_reader *fr, size_t k)
{
    const trace_frames *f = fr->frames;
    const trace_native_index_entry *e;
    size_t got;
    int rc;

    assert(k < f->count);
    e = &f->entries[k];
    fr->started = fr->done = fr->failed = 0;
    fr->k = k;
    fr->size = fr->pos = 0;
    memset(&fr->totals, 0, sizeof fr->totals);
    fr->window = e->window;
    fr->last_cycle = 0;
    trace_native_codec_frame_start(&fr->codec, f->header.commit_width);
    if (e->content_size > TRACE_INPUT_MAX_FRAME_SIZE)
        return error_set(TEA_ERR_FORMAT, "%s: frame at byte %llu claims %u bytes", f->name,
                         (unsigned long long)e->offset, e->content_size);
    if ((rc = reserve(&fr->compressed, &fr->compressed_capacity, e->compressed_size ? e->compressed_size : 1))
        || (rc = reserve(&fr->content, &fr->content_capacity, e->content_size ? e->content_size : 1))
        || (rc = read_at(f, fr->compressed, e->compressed_size, e->offset, "data frame")))
        return rc;
    if (e->compressed_size < 4 || trace_native_get_le(fr->compressed, 4) != TRACE_INPUT_ZSTD_MAGIC
        || ZSTD_findFrameCompressedSize(fr->compressed, e->compressed_size) != e->compressed_size)
        return error_set(TEA_ERR_FORMAT, "%s: data frame at byte %llu disagrees with the index", f->name,
                         (unsigned long long)e->offset);
    got = ZSTD_decompressDCtx(fr->dctx, fr->content, fr->content_capacity, fr->compressed, e->compressed_size);
    if (ZSTD_isError(got))
        return error_set(TEA_ERR_FORMAT, "%s: corrupt zstd data in the frame at byte %llu: %s", f->name,
                         (unsigned long long)e->offset, ZSTD_getErrorName(got));
    if (got != e->content_size)
        return error_set(TEA_ERR_FORMAT, "%s: data frame at byte %llu holds %zu bytes, the index says %u", f->name,
                         (unsigned long long)e->offset, got, e->content_size);
    fr->size = got;
    fr->data = fr->content;
    if ((rc = load_frame_contexts(fr, k)))
        return rc;
    fr->started = 1;
    return TEA_OK;
}

/* Checks a record the fused decoder left against the frame so far (as the
 * streaming reader does) and counts it. */
static int accept_record(trace_frame_reader *fr, const trace_record *rec, const trace_uop *uops)
{
    const trace_frames *f = fr->frames;
    unsigned after;
    int rc;

    if (fr->totals.records > 0 && rec->cycle <= fr->last_cycle)
        rc = error_set(TEA_ERR_FORMAT, "cycle %llu does not follow cycle %llu", (unsigned long long)rec->cycle,
                       (unsigned long long)fr->last_cycle);
    else
        rc = trace_record_check_read(rec, uops, f->header.commit_width, f->header.rob_size, fr->window, &after);
    if (rc)
        return rc;
    fr->window = after;
    assert(fr->window <= f->header.rob_size); /* trace_record_check keeps the window within the ROB */
    fr->last_cycle = rec->cycle;
    trace_totals_add(&fr->totals, rec, uops);
    return TEA_OK;
}

/* Compares the frame just finished with its index entry. */
static int check_frame_end(const trace_frame_reader *fr)
{
    const trace_frame_info *i = &fr->frames->info[fr->k];
    int rc;

    /* its changes all named µops of the frame (their contexts were checked at the start) */
    if (fr->contexts.count && (rc = trace_native_contexts_check(&fr->contexts, UINT32_MAX)))
        return error_prefix(rc, "%s: frame at byte %llu: ", fr->frames->name,
                            (unsigned long long)fr->frames->context_at[fr->k]);
    if (fr->totals.records != i->records
        || (i->records && (fr->totals.first_cycle != i->first_cycle || fr->totals.last_cycle != i->last_cycle)))
        return error_set(TEA_ERR_FORMAT,
                         "%s: data frame at byte %llu disagrees with the index (%llu records "
                         "read, %u listed)",
                         fr->frames->name, (unsigned long long)fr->frames->entries[fr->k].offset,
                         (unsigned long long)fr->totals.records, i->records);
    return TEA_OK;
}

int trace_frame_reader_read(trace_frame_reader *fr, trace_batch *batch)
{
    const trace_frames *f = fr->frames;
    trace_native_stream stream = { f->header.rob_size, 0, 0, &fr->totals };
    int rc = TEA_OK;

    trace_batch_clear(batch);
    if (!fr->started || fr->failed)
        return error_set(TEA_ERR_USAGE, "%s: frame reader used without a frame", f->name);
    while (trace_batch_has_room(batch) && !fr->done) {
        trace_record rec;
        trace_uop *uops;
        size_t start, first;

        if (fr->pos >= fr->size) {
            fr->done = 1;
            if ((rc = check_frame_end(fr)))
                break;
            continue;
        }
        stream.window = fr->window;
        stream.last_cycle = fr->last_cycle;
        first = batch->count;
        if (trace_native_decode_batch(&fr->codec, fr->data, fr->size, &fr->pos, &stream, batch) > 0) {
            if (fr->contexts.count) {
                size_t from = batch->records[first].first_uop;
                trace_native_contexts_apply(&fr->contexts, batch->uops + from, batch->uop_count - from);
            }
            fr->window = stream.window;
            fr->last_cycle = stream.last_cycle;
            assert(fr->window <= f->header.rob_size); /* every decoded record was checked */
            continue;
        }
        uops = batch->uops + batch->uop_count;
        start = fr->pos;
        if ((rc = trace_native_decode_record(&fr->codec, fr->data, fr->size, &fr->pos, &rec, uops))
            || (rc = accept_record(fr, &rec, uops))) {
            rc = error_prefix(rc, "%s: record %llu (frame at byte %llu, offset %zu): ", f->name,
                              (unsigned long long)(f->info[fr->k].first_record + fr->totals.records),
                              (unsigned long long)f->entries[fr->k].offset, start);
            break;
        }
        if (fr->contexts.count)
            trace_native_contexts_apply(&fr->contexts, uops, trace_record_uops(&rec));
        trace_batch_commit(batch, &rec);
    }
    if (rc) {
        fr->failed = 1;
        trace_batch_clear(batch);
    }
    return rc;
}

const trace_totals *trace_frame_reader_totals(const trace_frame_reader *fr)
{
    return &fr->totals;
}

unsigned trace_frame_reader_window(const trace_frame_reader *fr)
{
    return fr->window;
}

void trace_frame_reader_tell(const trace_frame_reader *fr, trace_frame_position *at)
{
    at->frame = fr->k;
    at->pos = fr->pos;
    at->prev_cycle = fr->codec.prev_cycle;
    at->prev_pc = fr->codec.prev_pc;
    at->frame_started = fr->codec.frame_started;
    at->done = fr->done;
    at->window = fr->window;
    at->last_cycle = fr->last_cycle;
    at->totals = fr->totals;
    at->context_next = fr->contexts.next;
    at->context_uops = fr->contexts.uops;
    at->context_ctx = fr->contexts.ctx;
}

void trace_frame_reader_hand_over(trace_frame_reader *fr, trace_frame_data *data)
{
    uint8_t *bytes = data->bytes;
    size_t capacity = data->capacity;

    trace_native_contexts contexts = data->contexts;

    assert(!fr->contexts.borrowed); /* a frame the reader started, not one it was seeked into */
    data->frame = fr->k;
    data->bytes = fr->content;
    data->capacity = fr->content_capacity;
    data->size = fr->size;
    data->contexts = fr->contexts;
    fr->content = bytes;
    fr->content_capacity = capacity;
    fr->contexts = contexts;
    trace_native_contexts_frame_start(&fr->contexts);
    fr->data = NULL;
    fr->size = fr->pos = 0;
    fr->started = 0;
}

void trace_frame_reader_seek(trace_frame_reader *fr, const trace_frame_data *data, const trace_frame_position *at)
{
    /* A position told in this frame's bytes, at a checked window. */
    assert(data->frame == at->frame && at->pos <= data->size && at->window <= fr->frames->header.rob_size);
    fr->k = at->frame;
    fr->data = data->bytes;
    fr->size = data->size;
    fr->pos = at->pos;
    trace_native_codec_frame_start(&fr->codec, fr->frames->header.commit_width);
    fr->codec.prev_cycle = at->prev_cycle;
    fr->codec.prev_pc = at->prev_pc;
    fr->codec.frame_started = at->frame_started;
    fr->done = at->done;
    fr->window = at->window;
    fr->last_cycle = at->last_cycle;
    fr->totals = at->totals;
    fr->started = 1;
    fr->failed = 0;
    /* the frame's changes, borrowed from `data`, applied from the position on */
    if (!fr->contexts.borrowed)
        trace_native_contexts_free(&fr->contexts);
    fr->contexts = data->contexts;
    fr->contexts.capacity = 0;
    fr->contexts.borrowed = 1;
    fr->contexts.next = at->context_next;
    fr->contexts.uops = at->context_uops;
    fr->contexts.ctx = at->context_ctx;
}

void trace_frame_data_free(trace_frame_data *data)
{
    free(data->bytes);
    trace_native_contexts_free(&data->contexts);
    memset(data, 0, sizeof *data);
}

void trace_frame_reader_free(trace_frame_reader *fr)
{
    if (!fr)
        return;
    ZSTD_freeDCtx(fr->dctx);
    free(fr->compressed);
    free(fr->content);
    free(fr->context_bytes);
    trace_native_contexts_free(&fr->contexts);
    free(fr);
}
