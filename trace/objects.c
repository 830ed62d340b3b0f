/*
 * objects.c: the list of executable objects a trace carries and its objects
 * frame encoding (see objects.h, docs/trace-format.md "Objects frame").
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "objects.h"
#include "../common/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Field sizes in the objects frame. */
#define OBJ_U64 8
#define OBJ_U32 4
#define OBJ_U16 2
#define OBJ_U8 1
/* Magic, thread id, threads seen, object count. */
#define OBJ_FRAME_FIXED (8 + OBJ_U32 + OBJ_U32 + OBJ_U32)
/* Per object before its variable parts: bias, start, end, build-id length. */
#define OBJ_ENTRY_FIXED (3 * OBJ_U64 + OBJ_U8)
/* Initial capacity of a list. */
#define OBJ_LIST_INITIAL 8
/* The run's fields after the objects: u16 key, u32 length, the value. */
#define RUN_FIELD_HEADER (OBJ_U16 + OBJ_U32)
#define RUN_KEY_EXEC 1        /* u64 instructions, then the path */
#define RUN_KEY_EXIT_STATUS 2 /* u32 */
#define RUN_KEY_INTERRUPTED 3 /* u32 signal */
#define RUN_KEY_REGION_NS 4   /* u64 */
#define RUN_KEY_SAMPLING 5    /* u64 every, length, warmup, then u64 window ends */
#define RUN_KEY_WEIGHTED 6    /* u64 every, length, warmup, then per window u64 start, weight, end */
#define RUN_KEY_THREADS 7     /* per thread u32 number, u64 instructions */
#define RUN_KEY_CONTEXTS 8    /* per calling context but the root, in id order: u32 parent, u64 site, u64 entry */
#define RUN_CONTEXT_BYTES (OBJ_U32 + 2 * OBJ_U64)
#define RUN_KEY_STACKS 9      /* per sampled window, in order: u16 n, then n u64 return addresses */
#define RUN_THREAD_BYTES (OBJ_U32 + OBJ_U64)
#define RUN_SAMPLING_FIXED (3 * OBJ_U64)

/* Checks one object as trace_writer_add_object documents. */
static int check_object(const trace_object *o)
{
    size_t len;
    if (!o->path || !o->path[0])
        return error_set(TEA_ERR_USAGE, "an object needs a path");
    len = strlen(o->path);
    if (len > TRACE_OBJECT_PATH_MAX)
        return error_set(TEA_ERR_USAGE, "object path of %zu bytes is longer than %d", len, TRACE_OBJECT_PATH_MAX);
    if (strchr(o->path, '\n'))
        return error_set(TEA_ERR_USAGE, "an object path holds a line break");
    if (o->build_id_len > TRACE_BUILD_ID_MAX)
        return error_set(TEA_ERR_USAGE, "%s: build-id of %u bytes is longer than %d", o->path,
                         (unsigned)o->build_id_len, TRACE_BUILD_ID_MAX);
    if (o->end < o->start)
        return error_set(TEA_ERR_USAGE, "%s: range ends (0x%llx) before it starts (0x%llx)", o->path,
                         (unsigned long long)o->end, (unsigned long long)o->start);
    return TEA_OK;
}

/* Appends a deep copy of a checked object, copying `len` bytes of path. */
static int list_push(trace_object_list *l, const trace_object *obj, const char *path, size_t len)
{
    trace_object *o;
    char *copy;

    if (l->count >= TRACE_OBJECTS_MAX)
        return error_set(TEA_ERR_USAGE, "more than %d objects", TRACE_OBJECTS_MAX);
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : OBJ_LIST_INITIAL;
        trace_object *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        l->items = items;
        l->capacity = cap;
    }
    if (!(copy = malloc(len + 1)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    memcpy(copy, path, len);
    copy[len] = '\0';
    o = &l->items[l->count++];
    *o = *obj;
    o->path = copy;
    if (o->build_id_len < TRACE_BUILD_ID_MAX)
        memset(o->build_id + o->build_id_len, 0, TRACE_BUILD_ID_MAX - o->build_id_len);
    return TEA_OK;
}

int trace_object_list_add(trace_object_list *l, const trace_object *obj)
{
    int rc = check_object(obj);
    if (rc)
        return rc;
    return list_push(l, obj, obj->path, strlen(obj->path));
}

int trace_run_present(const trace_run *run)
{
    return run->exec_count > 0 || run->has_exit_status || run->interrupted || run->region_ns || run->sampling.every
           || run->thread_count > 0 || run->context_count > 0 || run->stack_windows > 0;
}

int trace_object_list_present(const trace_object_list *l)
{
    return l->count > 0 || l->threads_seen != TRACE_THREAD_UNKNOWN || trace_run_present(&l->run);
}

/* The return addresses of the windows' stacks. */
static size_t stack_return_count(const trace_run *run)
{
    size_t n = 0;
    for (size_t w = 0; w < run->stack_windows; w++)
        n += run->stack_counts[w];
    return n;
}

/* Frees the run's programs and empties it. */
static void run_free(trace_run *run)
{
    for (size_t i = 0; i < run->exec_count; i++)
        free((char *)run->execs[i].path);
    free((trace_exec *)run->execs);
    free((uint64_t *)run->sampling.window_ends);
    free((uint64_t *)run->sampling.window_starts);
    free((uint64_t *)run->sampling.window_weights);
    free((trace_thread_count *)run->threads);
    free((trace_context *)run->contexts);
    free((uint32_t *)run->stack_counts);
    free((uint64_t *)run->stack_returns);
    memset(run, 0, sizeof *run);
}

/* Checks a run's threads as trace_writer_set_run documents; NULL when
 * they are sound (or absent), else what is wrong. */
static const char *threads_fault(const trace_thread_count *threads, size_t count)
{
    if (count > TRACE_THREADS_MAX)
        return "too many threads";
    for (size_t i = 0; i < count; i++)
        if (threads[i].tid == 0 || (i && threads[i].tid <= threads[i - 1].tid))
            return "a thread numbered 0, or threads not in increasing order";
    return NULL;
}

/* Checks a calling-context tree as trace_run documents it: a root first,
 * each node's parent before it, depths that count the calls, no deeper
 * than the tracker goes, no node twice (an interning of the nodes gives
 * them their own ids); NULL when sound (or absent), else what is wrong. */
static const char *contexts_fault(const trace_context *nodes, uint32_t count)
{
    static const trace_context root = { 0, 0, TRACE_CONTEXT_ROOT, 0 };
    const char *fault = NULL;
    trace_contexts check;

    if (count == 0)
        return NULL;
    if (count > TRACE_CONTEXT_MAX || !nodes)
        return "too many calling contexts";
    if (memcmp(&nodes[0], &root, sizeof root) != 0)
        return "the first calling context is not the root";
    if (trace_contexts_init(&check))
        return "out of memory checking the calling contexts";
    for (uint32_t i = 1; i < count && !fault; i++) {
        const trace_context *c = &nodes[i];
        uint32_t id;
        if (c->parent >= i)
            fault = "a calling context before its parent";
        else if (c->depth != nodes[c->parent].depth + 1 || c->depth > TRACE_CONTEXT_MAX_DEPTH)
            fault = "a calling context deeper than its parent by more than one call, or deeper than "
                    TRACE_CONTEXT_MAX_DEPTH_TEXT;
        else if (trace_contexts_intern(&check, c->parent, c->site, c->entry, &id))
            fault = "out of memory checking the calling contexts";
        else if (id != i)
            fault = "a calling context given twice";
    }
    trace_contexts_free(&check);
    return fault;
}

/* Copies n u64 into a new array (*out NULL for a NULL src). 0 or
 * TEA_ERR_NOMEM. */
static int copy_u64s(const uint64_t *src, size_t n, const uint64_t **out)
{
    uint64_t *copy;
    *out = NULL;
    if (!src)
        return TEA_OK;
    if (!(copy = malloc((n ? n : 1) * sizeof *copy)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    memcpy(copy, src, n * sizeof *copy);
    *out = copy;
    return TEA_OK;
}

/* Checks a program's path as an object's (check_object). */
static int check_exec_path(const char *path)
{
    trace_object o;
    memset(&o, 0, sizeof o);
    o.path = path;
    return check_object(&o);
}

int trace_thread_file(const char *name, uint32_t *tid)
{
    size_t prefix = strlen(TRACE_THREAD_FILE_PREFIX), digits;
    unsigned long long n;

    if (strncmp(name, TRACE_THREAD_FILE_PREFIX, prefix) != 0)
        return 0;
    digits = strspn(name + prefix, "0123456789");
    if (!digits || digits > 10 || name[prefix] == '0' || strcmp(name + prefix + digits, TRACE_THREAD_FILE_SUFFIX) != 0)
        return 0;
    n = strtoull(name + prefix, NULL, 10);
    if (n > UINT32_MAX)
        return 0;
    if (tid)
        *tid = (uint32_t)n;
    return 1;
}

void trace_threads_sum(const trace_thread_count *threads, size_t count, uint32_t tid, uint64_t *all,
                       uint64_t *of_tid, uint32_t *busiest)
{
    uint64_t most = 0;

    *all = *of_tid = 0;
    *busiest = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t n = threads[i].instructions;
        *all = n > UINT64_MAX - *all ? UINT64_MAX : *all + n;
        if (threads[i].tid == tid)
            *of_tid = n;
        if (!*busiest || n > most) {
            most = n;
            *busiest = threads[i].tid;
        }
    }
}

int trace_object_list_set_run(trace_object_list *l, const trace_run *run)
{
    trace_run copy = *run;
    trace_exec *execs = NULL;
    const char *fault;
    int rc;

    if (run->exec_count > TRACE_EXECS_MAX)
        return error_set(TEA_ERR_USAGE, "more than %d programs before the traced one", TRACE_EXECS_MAX);
    for (size_t i = 0; i < run->exec_count; i++)
        if ((rc = check_exec_path(run->execs[i].path)))
            return rc;
    if ((fault = trace_sampling_fault(&run->sampling)))
        return error_set(TEA_ERR_USAGE, "sampled run: %s", fault);
    if ((fault = threads_fault(run->threads, run->thread_count)))
        return error_set(TEA_ERR_USAGE, "the run's threads: %s", fault);
    if ((fault = contexts_fault(run->contexts, run->context_count)))
        return error_set(TEA_ERR_USAGE, "the run's calling contexts: %s", fault);
    if (run->stack_windows > TRACE_WINDOWS_MAX)
        return error_set(TEA_ERR_USAGE, "the run's window stacks: more than %u windows", TRACE_WINDOWS_MAX);
    for (size_t w = 0; w < run->stack_windows; w++)
        if (run->stack_counts[w] > TRACE_CONTEXT_MAX_DEPTH)
            return error_set(TEA_ERR_USAGE, "the run's window stacks: window %zu has more than %u frames", w,
                             TRACE_CONTEXT_MAX_DEPTH);
    if (run->exec_count && !(execs = calloc(run->exec_count, sizeof *execs)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    copy.execs = execs;
    copy.exec_count = 0;
    copy.sampling.window_ends = copy.sampling.window_starts = copy.sampling.window_weights = NULL;
    copy.threads = NULL;
    copy.thread_count = 0;
    copy.contexts = NULL;
    copy.context_count = 0;
    copy.stack_counts = NULL;
    copy.stack_returns = NULL;
    copy.stack_windows = 0;
    for (size_t i = 0; i < run->exec_count; i++, copy.exec_count++) {
        execs[i].instructions = run->execs[i].instructions;
        if (!(execs[i].path = strdup(run->execs[i].path))) {
            run_free(&copy);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
    }
    if (run->sampling.every) {
        const trace_sampling *s = &run->sampling;
        if ((rc = copy_u64s(s->window_ends, s->window_count, &copy.sampling.window_ends))
            || (rc = copy_u64s(s->window_starts, s->window_count, &copy.sampling.window_starts))
            || (rc = copy_u64s(s->window_weights, s->window_count, &copy.sampling.window_weights))) {
            run_free(&copy);
            return rc;
        }
    }
    if (run->thread_count) {
        trace_thread_count *threads = malloc(run->thread_count * sizeof *threads);
        if (!threads) {
            run_free(&copy);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        memcpy(threads, run->threads, run->thread_count * sizeof *threads);
        copy.threads = threads;
        copy.thread_count = run->thread_count;
    }
    if (run->context_count) {
        trace_context *contexts = malloc((size_t)run->context_count * sizeof *contexts);
        if (!contexts) {
            run_free(&copy);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        memcpy(contexts, run->contexts, (size_t)run->context_count * sizeof *contexts);
        copy.contexts = contexts;
        copy.context_count = run->context_count;
    }
    if (run->stack_windows) {
        size_t n = stack_return_count(run);
        uint32_t *counts = malloc(run->stack_windows * sizeof *counts);
        uint64_t *addrs = malloc((n ? n : 1) * sizeof *addrs);
        if (!counts || !addrs) {
            free(counts);
            free(addrs);
            run_free(&copy);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        memcpy(counts, run->stack_counts, run->stack_windows * sizeof *counts);
        if (n)
            memcpy(addrs, run->stack_returns, n * sizeof *addrs);
        copy.stack_counts = counts;
        copy.stack_returns = addrs;
        copy.stack_windows = run->stack_windows;
    }
    run_free(&l->run);
    l->run = copy;
    return TEA_OK;
}

void trace_object_list_free(trace_object_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free((char *)l->items[i].path);
    free(l->items);
    run_free(&l->run);
    memset(l, 0, sizeof *l);
}

void trace_object_build_id_hex(const trace_object *obj, char *out, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = 0;

    assert(size > 0);
    for (uint32_t i = 0; i < obj->build_id_len && i < TRACE_BUILD_ID_MAX && n + 2 < size; i++) {
        out[n++] = digits[obj->build_id[i] >> 4];
        out[n++] = digits[obj->build_id[i] & 0xF];
    }
    out[n] = '\0';
}

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Writes one run field's key and length at p; returns where its value goes. */
static uint8_t *put_field(uint8_t *p, unsigned key, size_t len)
{
    put_le(p, key, OBJ_U16);
    put_le(p + OBJ_U16, len, OBJ_U32);
    return p + RUN_FIELD_HEADER;
}

/* The u64 words per window of a sampling field: the end; weighted, the
 * start, the weight and the end. */
static size_t window_words(const trace_sampling *s)
{
    return trace_sampling_weighted(s) ? 3 : 1;
}

/* The bytes of the run's fields. */
static size_t run_size(const trace_run *run)
{
    size_t n = 0;
    for (size_t i = 0; i < run->exec_count; i++)
        n += RUN_FIELD_HEADER + OBJ_U64 + strlen(run->execs[i].path);
    n += run->has_exit_status ? RUN_FIELD_HEADER + OBJ_U32 : 0;
    n += run->interrupted ? RUN_FIELD_HEADER + OBJ_U32 : 0;
    n += run->region_ns ? RUN_FIELD_HEADER + OBJ_U64 : 0;
    n += run->sampling.every ? RUN_FIELD_HEADER + RUN_SAMPLING_FIXED
                                   + run->sampling.window_count * OBJ_U64 * window_words(&run->sampling)
                             : 0;
    n += run->thread_count ? RUN_FIELD_HEADER + run->thread_count * RUN_THREAD_BYTES : 0;
    n += run->context_count ? RUN_FIELD_HEADER + (size_t)(run->context_count - 1) * RUN_CONTEXT_BYTES : 0;
    n += run->stack_windows ? RUN_FIELD_HEADER + run->stack_windows * OBJ_U16 + stack_return_count(run) * OBJ_U64 : 0;
    return n;
}

/* Writes the run's fields at p; returns the end. */
static uint8_t *encode_run(const trace_run *run, uint8_t *p)
{
    for (size_t i = 0; i < run->exec_count; i++) {
        size_t len = strlen(run->execs[i].path);
        p = put_field(p, RUN_KEY_EXEC, OBJ_U64 + len);
        put_le(p, run->execs[i].instructions, OBJ_U64);
        memcpy(p + OBJ_U64, run->execs[i].path, len);
        p += OBJ_U64 + len;
    }
    if (run->has_exit_status) {
        put_le(put_field(p, RUN_KEY_EXIT_STATUS, OBJ_U32), run->exit_status, OBJ_U32);
        p += RUN_FIELD_HEADER + OBJ_U32;
    }
    if (run->interrupted) {
        put_le(put_field(p, RUN_KEY_INTERRUPTED, OBJ_U32), run->interrupted, OBJ_U32);
        p += RUN_FIELD_HEADER + OBJ_U32;
    }
    if (run->region_ns) {
        put_le(put_field(p, RUN_KEY_REGION_NS, OBJ_U64), run->region_ns, OBJ_U64);
        p += RUN_FIELD_HEADER + OBJ_U64;
    }
    if (run->sampling.every) {
        const trace_sampling *s = &run->sampling;
        p = put_field(p, trace_sampling_weighted(s) ? RUN_KEY_WEIGHTED : RUN_KEY_SAMPLING,
                      RUN_SAMPLING_FIXED + s->window_count * OBJ_U64 * window_words(s));
        put_le(p, s->every, OBJ_U64);
        put_le(p + OBJ_U64, s->length, OBJ_U64);
        put_le(p + 2 * OBJ_U64, s->warmup, OBJ_U64);
        p += RUN_SAMPLING_FIXED;
        for (size_t k = 0; k < s->window_count; k++) {
            if (trace_sampling_weighted(s)) {
                put_le(p, s->window_starts[k], OBJ_U64);
                put_le(p + OBJ_U64, s->window_weights[k], OBJ_U64);
                p += 2 * OBJ_U64;
            }
            put_le(p, s->window_ends[k], OBJ_U64);
            p += OBJ_U64;
        }
    }
    if (run->thread_count) {
        p = put_field(p, RUN_KEY_THREADS, run->thread_count * RUN_THREAD_BYTES);
        for (size_t i = 0; i < run->thread_count; i++) {
            put_le(p, run->threads[i].tid, OBJ_U32);
            put_le(p + OBJ_U32, run->threads[i].instructions, OBJ_U64);
            p += RUN_THREAD_BYTES;
        }
    }
    if (run->context_count) {
        p = put_field(p, RUN_KEY_CONTEXTS, (size_t)(run->context_count - 1) * RUN_CONTEXT_BYTES);
        for (uint32_t i = 1; i < run->context_count; i++) {
            put_le(p, run->contexts[i].parent, OBJ_U32);
            put_le(p + OBJ_U32, run->contexts[i].site, OBJ_U64);
            put_le(p + OBJ_U32 + OBJ_U64, run->contexts[i].entry, OBJ_U64);
            p += RUN_CONTEXT_BYTES;
        }
    }
    if (run->stack_windows) {
        const uint64_t *r = run->stack_returns;
        p = put_field(p, RUN_KEY_STACKS, run->stack_windows * OBJ_U16 + stack_return_count(run) * OBJ_U64);
        for (size_t w = 0; w < run->stack_windows; w++) {
            put_le(p, run->stack_counts[w], OBJ_U16);
            p += OBJ_U16;
            for (uint32_t k = 0; k < run->stack_counts[w]; k++, p += OBJ_U64)
                put_le(p, *r++, OBJ_U64);
        }
    }
    return p;
}

int trace_object_list_encode(const trace_object_list *l, uint8_t **data, size_t *size)
{
    size_t need = OBJ_FRAME_FIXED, pos = *size;
    uint8_t *buf, *p;

    for (size_t i = 0; i < l->count; i++)
        need += OBJ_ENTRY_FIXED + l->items[i].build_id_len + OBJ_U16 + strlen(l->items[i].path);
    need += run_size(&l->run);
    if (!(buf = realloc(*data, pos + need)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    *data = buf;
    p = buf + pos;
    memcpy(p, TRACE_OBJECTS_MAGIC, 8);
    p += 8;
    put_le(p, l->tid, OBJ_U32);
    put_le(p + OBJ_U32, l->threads_seen, OBJ_U32);
    put_le(p + 2 * OBJ_U32, l->count, OBJ_U32);
    p += 3 * OBJ_U32;
    for (size_t i = 0; i < l->count; i++) {
        const trace_object *o = &l->items[i];
        size_t len = strlen(o->path);
        put_le(p, o->load_bias, OBJ_U64);
        put_le(p + OBJ_U64, o->start, OBJ_U64);
        put_le(p + 2 * OBJ_U64, o->end, OBJ_U64);
        p[3 * OBJ_U64] = (uint8_t)o->build_id_len;
        p += OBJ_ENTRY_FIXED;
        memcpy(p, o->build_id, o->build_id_len);
        p += o->build_id_len;
        put_le(p, len, OBJ_U16);
        p += OBJ_U16;
        memcpy(p, o->path, len);
        p += len;
    }
    p = encode_run(&l->run, p);
    assert((size_t)(p - buf) == pos + need);
    *size = pos + need;
    return TEA_OK;
}

/* Sets *bad and the message for a malformed objects frame. */
static int bad_frame(size_t *bad, size_t at, const char *what)
{
    *bad = at;
    return error_set(TEA_ERR_FORMAT, "content byte %zu: %s", at, what);
}

/* Appends a program of the run: `len` bytes of path at `path`. */
static int run_push_exec(trace_run *run, uint64_t instructions, const uint8_t *path, size_t len)
{
    trace_exec *grown = realloc((trace_exec *)run->execs, (run->exec_count + 1) * sizeof *grown);
    char *copy = malloc(len + 1);

    if (grown)
        run->execs = grown;
    if (!grown || !copy) {
        free(copy);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    memcpy(copy, path, len);
    copy[len] = '\0';
    grown[run->exec_count].path = copy;
    grown[run->exec_count++].instructions = instructions;
    return TEA_OK;
}

/* Decodes a sampling field's value (`len` bytes at v, the field at byte
 * `at`; `weighted`: RUN_KEY_WEIGHTED's layout) into *s. */
static int decode_sampling(const uint8_t *v, size_t len, int weighted, trace_sampling *s, size_t at, size_t *bad)
{
    uint64_t *arrays[3] = { NULL, NULL, NULL }; /* ends, starts, weights */
    const char *fault = NULL;
    size_t words = weighted ? 3 : 1, record = words * OBJ_U64;
    trace_sampling got;

    if (s->every)
        return bad_frame(bad, at, "a second sampling field");
    if (len < RUN_SAMPLING_FIXED || (len - RUN_SAMPLING_FIXED) % record
        || (len - RUN_SAMPLING_FIXED) / record > TRACE_WINDOWS_MAX)
        return bad_frame(bad, at, "sampling field of the wrong size");
    memset(&got, 0, sizeof got);
    got.every = get_le(v, OBJ_U64);
    got.length = get_le(v + OBJ_U64, OBJ_U64);
    got.warmup = get_le(v + 2 * OBJ_U64, OBJ_U64);
    got.window_count = (len - RUN_SAMPLING_FIXED) / record;
    if (!got.every)
        return bad_frame(bad, at, "sampling field with no period");
    for (size_t a = 0; a < words; a++)
        if (!(arrays[a] = malloc((got.window_count ? got.window_count : 1) * sizeof *arrays[a]))) {
            free(arrays[0]);
            free(arrays[1]);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
    for (size_t k = 0; k < got.window_count; k++) {
        const uint8_t *w = v + RUN_SAMPLING_FIXED + k * record;
        if (weighted) {
            arrays[1][k] = get_le(w, OBJ_U64);
            arrays[2][k] = get_le(w + OBJ_U64, OBJ_U64);
        }
        arrays[0][k] = get_le(w + (words - 1) * OBJ_U64, OBJ_U64);
    }
    got.window_ends = arrays[0];
    got.window_starts = arrays[1];
    got.window_weights = arrays[2];
    if ((fault = trace_sampling_fault(&got))) {
        for (size_t a = 0; a < words; a++)
            free(arrays[a]);
        return bad_frame(bad, at, fault);
    }
    *s = got;
    return TEA_OK;
}

/* Decodes a threads field's value (`len` bytes at v, the field at byte
 * `at`) into `run`. */
static int decode_threads(const uint8_t *v, size_t len, trace_run *run, size_t at, size_t *bad)
{
    trace_thread_count *threads;
    size_t count = len / RUN_THREAD_BYTES;
    const char *fault;

    if (run->thread_count)
        return bad_frame(bad, at, "a second threads field");
    if (len == 0 || len % RUN_THREAD_BYTES || count > TRACE_THREADS_MAX)
        return bad_frame(bad, at, "threads field of the wrong size");
    if (!(threads = malloc(count * sizeof *threads)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        threads[i].tid = (uint32_t)get_le(v + i * RUN_THREAD_BYTES, OBJ_U32);
        threads[i].instructions = get_le(v + i * RUN_THREAD_BYTES + OBJ_U32, OBJ_U64);
    }
    if ((fault = threads_fault(threads, count))) {
        free(threads);
        return bad_frame(bad, at, fault);
    }
    run->threads = threads;
    run->thread_count = count;
    return TEA_OK;
}

/* Decodes a calling-context field's value (`len` bytes at v, the field at
 * byte `at`) into `run`. */
static int decode_contexts(const uint8_t *v, size_t len, trace_run *run, size_t at, size_t *bad)
{
    trace_context *nodes;
    size_t count = len / RUN_CONTEXT_BYTES + 1;
    const char *fault;

    if (run->context_count)
        return bad_frame(bad, at, "a second calling-context field");
    if (len % RUN_CONTEXT_BYTES || count > TRACE_CONTEXT_MAX)
        return bad_frame(bad, at, "calling-context field of the wrong size");
    if (!(nodes = malloc(count * sizeof *nodes)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    nodes[0] = (trace_context){ 0, 0, TRACE_CONTEXT_ROOT, 0 };
    for (size_t i = 1; i < count; i++) {
        const uint8_t *c = v + (i - 1) * RUN_CONTEXT_BYTES;
        nodes[i].parent = (uint32_t)get_le(c, OBJ_U32);
        nodes[i].site = get_le(c + OBJ_U32, OBJ_U64);
        nodes[i].entry = get_le(c + OBJ_U32 + OBJ_U64, OBJ_U64);
        nodes[i].depth = nodes[i].parent < i ? nodes[nodes[i].parent].depth + 1 : 0;
    }
    if ((fault = contexts_fault(nodes, (uint32_t)count))) {
        free(nodes);
        return bad_frame(bad, at, fault);
    }
    run->contexts = nodes;
    run->context_count = (uint32_t)count;
    return TEA_OK;
}

/* Decodes a window-stacks field's value (`len` bytes at v, the field at
 * byte `at`) into `run`. */
static int decode_stacks(const uint8_t *v, size_t len, trace_run *run, size_t at, size_t *bad)
{
    size_t windows = 0, returns = 0, pos = 0;
    uint32_t *counts;
    uint64_t *addrs;

    if (run->stack_windows)
        return bad_frame(bad, at, "a second window-stacks field");
    while (pos < len) { /* first the sizes */
        uint64_t n;
        if (len - pos < OBJ_U16 || (n = get_le(v + pos, OBJ_U16)) > TRACE_CONTEXT_MAX_DEPTH
            || (len - pos - OBJ_U16) / OBJ_U64 < n || windows == TRACE_WINDOWS_MAX)
            return bad_frame(bad, at, "malformed window-stacks field");
        pos += OBJ_U16 + (size_t)n * OBJ_U64;
        returns += (size_t)n;
        windows++;
    }
    if (!windows)
        return bad_frame(bad, at, "an empty window-stacks field");
    counts = malloc(windows * sizeof *counts);
    addrs = malloc((returns ? returns : 1) * sizeof *addrs);
    if (!counts || !addrs) {
        free(counts);
        free(addrs);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    pos = 0;
    returns = 0;
    for (size_t w = 0; w < windows; w++) {
        counts[w] = (uint32_t)get_le(v + pos, OBJ_U16);
        pos += OBJ_U16;
        for (uint32_t k = 0; k < counts[w]; k++, pos += OBJ_U64)
            addrs[returns++] = get_le(v + pos, OBJ_U64);
    }
    assert(pos == len); /* the first pass measured it */
    run->stack_counts = counts;
    run->stack_returns = addrs;
    run->stack_windows = windows;
    return TEA_OK;
}

/* Decodes the run's fields from data[pos..size) into `run`; unknown keys
 * are skipped, known ones must have their size. */
static int decode_run(const uint8_t *data, size_t size, size_t pos, trace_run *run, size_t *bad)
{
    while (pos < size) {
        size_t at = pos, len;
        unsigned key;
        const uint8_t *v;
        int rc;
        if (size - pos < RUN_FIELD_HEADER)
            return bad_frame(bad, size, "truncated run field");
        key = (unsigned)get_le(data + pos, OBJ_U16);
        len = (size_t)get_le(data + pos + OBJ_U16, OBJ_U32);
        pos += RUN_FIELD_HEADER;
        if (size - pos < len)
            return bad_frame(bad, size, "truncated run field");
        v = data + pos;
        pos += len;
        switch (key) {
        case RUN_KEY_EXEC:
            if (len <= OBJ_U64 || len - OBJ_U64 > TRACE_OBJECT_PATH_MAX || run->exec_count == TRACE_EXECS_MAX)
                return bad_frame(bad, at, "malformed program of the run");
            if (memchr(v + OBJ_U64, '\0', len - OBJ_U64) || memchr(v + OBJ_U64, '\n', len - OBJ_U64))
                return bad_frame(bad, at + RUN_FIELD_HEADER + OBJ_U64, "NUL byte or line break in a program path");
            if ((rc = run_push_exec(run, get_le(v, OBJ_U64), v + OBJ_U64, len - OBJ_U64)))
                return rc;
            break;
        case RUN_KEY_EXIT_STATUS:
        case RUN_KEY_INTERRUPTED:
            if (len != OBJ_U32)
                return bad_frame(bad, at, "run field of the wrong size");
            if (key == RUN_KEY_EXIT_STATUS) {
                run->has_exit_status = 1;
                run->exit_status = (uint32_t)get_le(v, OBJ_U32);
            } else {
                run->interrupted = (uint32_t)get_le(v, OBJ_U32);
            }
            break;
        case RUN_KEY_REGION_NS:
            if (len != OBJ_U64)
                return bad_frame(bad, at, "run field of the wrong size");
            run->region_ns = get_le(v, OBJ_U64);
            break;
        case RUN_KEY_SAMPLING:
        case RUN_KEY_WEIGHTED:
            if ((rc = decode_sampling(v, len, key == RUN_KEY_WEIGHTED, &run->sampling, at, bad)))
                return rc;
            break;
        case RUN_KEY_THREADS:
            if ((rc = decode_threads(v, len, run, at, bad)))
                return rc;
            break;
        case RUN_KEY_CONTEXTS:
            if ((rc = decode_contexts(v, len, run, at, bad)))
                return rc;
            break;
        case RUN_KEY_STACKS:
            if ((rc = decode_stacks(v, len, run, at, bad)))
                return rc;
            break;
        default:
            break; /* a later minor's field */
        }
    }
    return TEA_OK;
}

int trace_object_list_decode(const uint8_t *data, size_t size, trace_object_list *l, size_t *bad)
{
    size_t pos = OBJ_FRAME_FIXED;
    uint64_t count;
    int rc;

    trace_object_list_free(l);
    *bad = 0;
    if (size < OBJ_FRAME_FIXED || memcmp(data, TRACE_OBJECTS_MAGIC, 8) != 0)
        return bad_frame(bad, 0, "no TEAOBJCT magic or truncated");
    l->tid = (uint32_t)get_le(data + 8, OBJ_U32);
    l->threads_seen = (uint32_t)get_le(data + 8 + OBJ_U32, OBJ_U32);
    count = get_le(data + 8 + 2 * OBJ_U32, OBJ_U32);
    if (l->threads_seen == TRACE_THREAD_UNKNOWN && l->tid != 0)
        return bad_frame(bad, 8, "a thread id without a thread count");
    if (count > TRACE_OBJECTS_MAX)
        return bad_frame(bad, 8 + 2 * OBJ_U32, "too many objects");
    for (uint64_t i = 0; i < count; i++) {
        trace_object o;
        size_t start = pos, len;

        memset(&o, 0, sizeof o);
        if (size - pos < OBJ_ENTRY_FIXED)
            goto truncated;
        o.load_bias = get_le(data + pos, OBJ_U64);
        o.start = get_le(data + pos + OBJ_U64, OBJ_U64);
        o.end = get_le(data + pos + 2 * OBJ_U64, OBJ_U64);
        o.build_id_len = data[pos + 3 * OBJ_U64];
        if (o.end < o.start) {
            rc = bad_frame(bad, start, "an object's range ends before it starts");
            goto fail;
        }
        if (o.build_id_len > TRACE_BUILD_ID_MAX) {
            rc = bad_frame(bad, pos + 3 * OBJ_U64, "build-id longer than 64 bytes");
            goto fail;
        }
        pos += OBJ_ENTRY_FIXED;
        if (size - pos < o.build_id_len + (size_t)OBJ_U16)
            goto truncated;
        memcpy(o.build_id, data + pos, o.build_id_len);
        pos += o.build_id_len;
        len = (size_t)get_le(data + pos, OBJ_U16);
        if (len == 0 || len > TRACE_OBJECT_PATH_MAX) {
            rc = bad_frame(bad, pos, "object path length out of range");
            goto fail;
        }
        pos += OBJ_U16;
        if (size - pos < len)
            goto truncated;
        if (memchr(data + pos, '\0', len) || memchr(data + pos, '\n', len)) {
            rc = bad_frame(bad, pos, "NUL byte or line break in an object path");
            goto fail;
        }
        if ((rc = list_push(l, &o, (const char *)data + pos, len)))
            goto fail;
        pos += len;
    }
    if ((rc = decode_run(data, size, pos, &l->run, bad)))
        goto fail;
    return TEA_OK;
truncated:
    rc = bad_frame(bad, size, "truncated");
fail:
    trace_object_list_free(l);
    return rc;
}
