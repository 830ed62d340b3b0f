/*
 * pprof.c: a PICS as pprof's profile (see pprof.h).
 */
#include "pprof.h"
#include "common/error.h"
#include "common/search.h"
#include "view/callpath.h"
#include "common/strtab.h"
#include "trace/psv.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* profile.proto's field numbers. */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2 };
/* The sample types, in this order. */
enum { VALUE_CYCLES, VALUE_INSTRUCTIONS, VALUE_SAMPLES, VALUE_TYPES };
enum {
    MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_OFFSET = 4, MAPPING_FILENAME = 5,
    MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

/* Room for a source position "FILE:LINE". */
#define SOURCE_MAX 4096
/* Room for a name made from an address. */
#define ADDRESS_NAME_MAX 32

/* A function of the profile: its name and file (string indices). */
typedef struct function {
    long name, file;
} function;

/* What encoding builds besides the message. */
typedef struct encoder {
    const view_pprof_input *in;
    strtab strs;
    function *functions;
    size_t function_count, function_cap;
    uint64_t *addrs;        /* every location's address, ascending: location i + 1 is addrs[i] */
    size_t addr_count;
    uint64_t *site_location; /* per context: its call site's location (0: none) */
    protobuf_buf *psv_labels; /* [TRACE_PSV_VALUES]: a PSV's sample labels, encoded at its first sample */
    uint8_t *psv_labeled;     /* [TRACE_PSV_VALUES]: psv_labels[psv] holds them */
    protobuf_buf msg, part, sub;
    view_pprof_sink sink;   /* where msg's bytes go (flush) */
    void *sink_ctx;
    int rc;
} encoder;

/* Hands msg's bytes to the sink once it holds `at_least` (0: whatever it
 * holds): top-level fields are complete messages, so the profile is the
 * pieces in order. */
static void flush(encoder *e, size_t at_least)
{
    int rc;
    if (e->rc || e->msg.rc || e->msg.size == 0 || e->msg.size < at_least)
        return;
    if ((rc = e->sink(e->sink_ctx, e->msg.data, e->msg.size)))
        e->rc = rc;
    protobuf_reset(&e->msg);
}

/* The index of `s`, or 0 with e->rc set. */
static uint64_t str(encoder *e, const char *s)
{
    long i = strtab_index(&e->strs, s);
    if (i < 0) {
        if (!e->rc)
            e->rc = TEA_ERR_NOMEM; /* the message is strtab_index's */
        return 0;
    }
    return (uint64_t)i;
}

/* A ValueType message as field `field`. */
static void value_type(encoder *e, uint32_t field, const char *type, const char *unit)
{
    protobuf_reset(&e->part);
    protobuf_varint(&e->part, VALUE_TYPE_TYPE, str(e, type));
    protobuf_varint(&e->part, VALUE_TYPE_UNIT, str(e, unit));
    protobuf_message(&e->msg, field, &e->part);
}

/* A Mapping message: id, run-time range, file and build-id (hex); what
 * pprof may take from our locations (functions, files and lines). */
static void mapping(encoder *e, uint64_t id, uint64_t start, uint64_t limit, const char *path, const char *build_id)
{
    int lines = e->in->z != NULL;

    protobuf_reset(&e->part);
    protobuf_varint(&e->part, MAPPING_ID, id);
    protobuf_varint(&e->part, MAPPING_START, start);
    protobuf_varint(&e->part, MAPPING_LIMIT, limit);
    protobuf_varint(&e->part, MAPPING_OFFSET, 0);
    protobuf_varint(&e->part, MAPPING_FILENAME, str(e, path));
    protobuf_varint(&e->part, MAPPING_BUILD_ID, str(e, build_id));
    protobuf_varint(&e->part, MAPPING_HAS_FUNCTIONS, e->in->functions != NULL);
    protobuf_varint(&e->part, MAPPING_HAS_FILENAMES, lines);
    protobuf_varint(&e->part, MAPPING_HAS_LINE_NUMBERS, lines);
    protobuf_message(&e->msg, PROFILE_MAPPING, &e->part);
}

/* The objects' mappings (ids from 1, in the objects' order), or one for
 * the program's binary spanning the cells' addresses. */
static void mappings(encoder *e)
{
    const trace_object_list *ol = &e->in->pics.info->objects;
    const trace_program *prog = &e->in->pics.info->program;
    char id[2 * TRACE_BUILD_ID_MAX + 1];

    for (size_t k = 0; k < ol->count; k++) {
        const trace_object *o = &ol->items[k];
        trace_object_build_id_hex(o, id, sizeof id);
        mapping(e, k + 1, o->start, o->end, o->path, id);
    }
    if (!ol->count && e->in->pics.count)
        mapping(e, 1, e->in->pics.cells[0].pc, e->in->pics.cells[e->in->pics.count - 1].pc + 1,
                prog->binary_path ? prog->binary_path : "", prog->build_id ? prog->build_id : "");
}

/* The mapping id of `pc`: its object's, 1 without objects, 0 when no
 * object holds it. */
static uint64_t mapping_of(const encoder *e, uint64_t pc)
{
    const trace_object_list *ol = &e->in->pics.info->objects;
    if (!ol->count)
        return 1;
    for (size_t k = 0; k < ol->count; k++)
        if (pc >= ol->items[k].start && pc < ol->items[k].end)
            return k + 1;
    return 0;
}

/* The id of the function (name, file), added when new (ids from 1). */
static uint64_t function_id(encoder *e, const char *name, const char *file)
{
    long n = (long)str(e, name), f = (long)str(e, file);
    /* a function's PCs come together (address order): the last one, or a
     * new entry (a name met again elsewhere gets another: pprof goes by
     * name and file) */
    if (e->function_count && e->functions[e->function_count - 1].name == n
        && e->functions[e->function_count - 1].file == f)
        return e->function_count;
    if (e->function_count == e->function_cap) {
        size_t cap = e->function_cap ? 2 * e->function_cap : 256;
        function *grown = realloc(e->functions, cap * sizeof *grown);
        if (!grown) {
            if (!e->rc)
                e->rc = error_set(TEA_ERR_NOMEM, "out of memory");
            return 0;
        }
        e->functions = grown;
        e->function_cap = cap;
    }
    e->functions[e->function_count++] = (function){ n, f };
    return e->function_count;
}

/* The location of `pc` (id `id`): its mapping, its function and line. */
static void location(encoder *e, uint64_t id, uint64_t pc)
{
    const trace_symmap *fm = e->in->functions;
    long k = fm ? trace_symmap_find(fm, pc) : -1;
    char source[SOURCE_MAX] = "", *colon;
    uint64_t line = 0;

    protobuf_reset(&e->part);
    protobuf_varint(&e->part, LOCATION_ID, id);
    protobuf_varint(&e->part, LOCATION_MAPPING_ID, mapping_of(e, pc));
    protobuf_varint(&e->part, LOCATION_ADDRESS, pc);
    if (k >= 0) {
        if (e->in->z && binary_symbolize_source(e->in->z, pc, source, sizeof source) == 1
            && (colon = strrchr(source, ':'))) {
            *colon = '\0';
            line = strtoull(colon + 1, NULL, 10);
        }
        protobuf_reset(&e->sub);
        protobuf_varint(&e->sub, LINE_FUNCTION_ID, function_id(e, fm->entries[k].name, source));
        if (line)
            protobuf_varint(&e->sub, LINE_LINE, line);
        protobuf_message(&e->part, LOCATION_LINE, &e->sub);
    }
    protobuf_message(&e->msg, PROFILE_LOCATION, &e->part);
}

/* A label (key `key`, a string index) of a sample, into `to`. */
static void add_label(encoder *e, protobuf_buf *to, uint64_t key, const char *value)
{
    protobuf_reset(&e->sub);
    protobuf_varint(&e->sub, LABEL_KEY, key);
    protobuf_varint(&e->sub, LABEL_STR, str(e, value));
    protobuf_message(to, SAMPLE_LABEL, &e->sub);
}

/* The component's label with '+' between events ("ST-L1+ST-LLC"): pprof's
 * tag filters split their argument at commas. */
static const char *component_label(uint16_t psv, char label[TRACE_PSV_LABEL_MAX])
{
    trace_psv_label(psv, label, TRACE_PSV_LABEL_MAX);
    for (char *p = label; *p; p++)
        if (*p == ',')
            *p = '+';
    return label;
}

/* The labels of a sample of `psv`: its component (key `component`) and
 * each of its events (key `event`), encoded at the first sample of the
 * PSV (interning their strings then, in the order the samples meet them)
 * and copied into every later one. NULL with e->rc set when out of
 * memory. */
static const protobuf_buf *psv_labels(encoder *e, uint16_t psv, uint64_t component, uint64_t event)
{
    char label[TRACE_PSV_LABEL_MAX];
    protobuf_buf *b;
    if (!e->psv_labels && (!(e->psv_labels = calloc(TRACE_PSV_VALUES, sizeof *e->psv_labels))
                           || !(e->psv_labeled = calloc(TRACE_PSV_VALUES, 1)))) {
        e->rc = error_set(TEA_ERR_NOMEM, "out of memory");
        return NULL;
    }
    b = &e->psv_labels[psv];
    if (!e->psv_labeled[psv]) {
        add_label(e, b, component, component_label(psv, label));
        for (unsigned k = 0; k < TRACE_PSV_EVENT_COUNT; k++)
            if (psv >> k & 1)
                add_label(e, b, event, trace_psv_event_name((enum trace_psv_event)k));
        e->psv_labeled[psv] = 1;
    }
    return b;
}

static int compare_addr(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct addr_key {
    const uint64_t *addrs;
    uint64_t addr;
} addr_key;

static int addr_below(size_t i, const void *ctx)
{
    const addr_key *k = ctx;
    return k->addrs[i] < k->addr;
}

/* The id of the location at `addr` (one locations() made). */
static uint64_t location_of(const encoder *e, uint64_t addr)
{
    addr_key k = { e->addrs, addr };
    size_t i = search_lower_bound(e->addr_count, addr_below, &k);
    assert(i < e->addr_count && e->addrs[i] == addr);
    return i + 1;
}

/* The locations, one per address (ids from 1 in address order): the
 * cells' instructions and, with calling contexts, their call sites. */
static void locations(encoder *e)
{
    const view_pprof_input *in = e->in;
    const trace_contexts *t = in->pics.contexts;
    size_t n = 0, room = in->pics.count + t->count;
    uint64_t *a = room ? malloc(room * sizeof *a) : NULL;

    if (room && !a) {
        e->rc = error_set(TEA_ERR_NOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < in->pics.count; i++)
        a[n++] = in->pics.cells[i].pc;
    for (uint32_t id = 1; id < t->count; id++)
        if (t->nodes[id].site)
            a[n++] = t->nodes[id].site;
    if (n)
        qsort(a, n, sizeof *a, compare_addr);
    e->addr_count = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || a[i] != a[i - 1])
            a[e->addr_count++] = a[i];
    e->addrs = a;
    for (size_t i = 0; i < e->addr_count && !e->rc; i++)
        location(e, i + 1, a[i]);
    if (t->count && !(e->site_location = calloc(t->count, sizeof *e->site_location))) {
        e->rc = error_set(TEA_ERR_NOMEM, "out of memory");
        return;
    }
    for (uint32_t id = 1; id < t->count; id++)
        if (t->nodes[id].site)
            e->site_location[id] = location_of(e, t->nodes[id].site);
}

/* A sample's locations, leaf first: its instruction (`pc_location`), then
 * the call sites of its context, innermost first. Their number. */
static size_t stack_of(const encoder *e, const pics_cell *c, uint64_t pc_location, uint64_t *ids)
{
    const trace_contexts *t = e->in->pics.contexts;
    size_t n = 0;
    ids[n++] = pc_location;
    for (uint32_t id = c->ctx; t->count && id != TRACE_CONTEXT_ROOT; id = t->nodes[id].parent) {
        assert(n <= VIEW_CALLPATH_MAX_CALLERS); /* a context is at most that deep */
        if (e->site_location[id])
            ids[n++] = e->site_location[id];
    }
    return n;
}

/* The samples, one per cell (cycles rounded cumulatively, see pprof.h). */
static void samples(encoder *e)
{
    const view_pprof_input *in = e->in;
    uint64_t values[VALUE_TYPES], *cycles = in->pics.count ? malloc(in->pics.count * sizeof *cycles) : NULL;
    uint64_t component = str(e, "component"), event = str(e, "event");
    uint64_t ids[1 + VIEW_CALLPATH_MAX_CALLERS];
    int golden = pics_info_is_golden(in->pics.info);

    if (in->pics.count && !cycles) {
        e->rc = error_set(TEA_ERR_NOMEM, "out of memory");
        return;
    }
    pics_whole_cycles(in->pics.info, in->pics.total, in->pics.cells, in->pics.count, cycles);
    uint64_t pc_location = 0;
    for (size_t i = 0; i < in->pics.count && !e->rc; i++) {
        const pics_cell *c = &in->pics.cells[i];
        size_t depth;
        if (i == 0 || c->pc != in->pics.cells[i - 1].pc) /* cells come by PC */
            pc_location = location_of(e, c->pc);
        depth = stack_of(e, c, pc_location, ids);
        values[VALUE_CYCLES] = cycles[i];
        values[VALUE_INSTRUCTIONS] = golden ? c->count : 0;
        values[VALUE_SAMPLES] = golden ? 0 : c->count;
        protobuf_reset(&e->part);
        protobuf_packed(&e->part, SAMPLE_LOCATION_ID, ids, depth);
        protobuf_packed(&e->part, SAMPLE_VALUE, values, VALUE_TYPES);
        const protobuf_buf *labels = psv_labels(e, c->psv, component, event);
        if (!labels)
            break;
        protobuf_append(&e->part, labels);
        protobuf_message(&e->msg, PROFILE_SAMPLE, &e->part);
        flush(e, VIEW_PPROF_PIECE);
    }
    free(cycles);
}

/* The functions (after the locations made them). */
static void functions(encoder *e)
{
    for (size_t i = 0; i < e->function_count; i++) {
        protobuf_reset(&e->part);
        protobuf_varint(&e->part, FUNCTION_ID, i + 1);
        protobuf_varint(&e->part, FUNCTION_NAME, (uint64_t)e->functions[i].name);
        protobuf_varint(&e->part, FUNCTION_SYSTEM_NAME, (uint64_t)e->functions[i].name);
        protobuf_varint(&e->part, FUNCTION_FILENAME, (uint64_t)e->functions[i].file);
        protobuf_message(&e->msg, PROFILE_FUNCTION, &e->part);
    }
}

/* The provenance and the caller's comments. */
static void comments(encoder *e)
{
    const pics_info *info = e->in->pics.info;
    char text[256];

    snprintf(text, sizeof text, "tea PICS: scheme %s, trace digest %s, cycles %llu..%llu", info->scheme,
             info->trace_digest, (unsigned long long)info->trace_first_cycle,
             (unsigned long long)info->trace_last_cycle);
    protobuf_varint(&e->msg, PROFILE_COMMENT, str(e, text));
    for (size_t i = 0; i < e->in->comment_count; i++)
        protobuf_varint(&e->msg, PROFILE_COMMENT, str(e, e->in->comments[i]));
}

int view_pprof_encode(const view_pprof_input *in, view_pprof_sink sink, void *ctx)
{
    encoder e;
    int golden = pics_info_is_golden(in->pics.info);
    int rc;

    memset(&e, 0, sizeof e);
    e.in = in;
    e.sink = sink;
    e.sink_ctx = ctx;
    strtab_init(&e.strs);
    protobuf_init(&e.msg);
    protobuf_init(&e.part);
    protobuf_init(&e.sub);
    str(&e, ""); /* index 0 */
    /* the same types in every export, so that pprof -diff_base takes any two */
    value_type(&e, PROFILE_SAMPLE_TYPE, "cycles", "cycles");
    value_type(&e, PROFILE_SAMPLE_TYPE, "instructions", "count");
    value_type(&e, PROFILE_SAMPLE_TYPE, "samples", "count");
    mappings(&e);
    locations(&e);
    if (!e.rc)
        samples(&e);
    functions(&e);
    comments(&e);
    value_type(&e, PROFILE_PERIOD_TYPE, "cycles", "cycles");
    if (!golden && in->pics.info->period)
        protobuf_varint(&e.msg, PROFILE_PERIOD, in->pics.info->period);
    protobuf_varint(&e.msg, PROFILE_DEFAULT_SAMPLE_TYPE, str(&e, "cycles"));
    for (size_t i = 0; i < e.strs.count; i++) /* last: every string is in the table now */
        protobuf_string(&e.msg, PROFILE_STRING_TABLE, e.strs.text[i]);
    flush(&e, 0);
    rc = e.rc ? e.rc : e.msg.rc ? e.msg.rc : e.part.rc ? e.part.rc : e.sub.rc;
    protobuf_free(&e.msg);
    protobuf_free(&e.part);
    protobuf_free(&e.sub);
    strtab_free(&e.strs);
    free(e.functions);
    free(e.addrs);
    free(e.site_location);
    for (size_t i = 0; e.psv_labels && i < TRACE_PSV_VALUES; i++)
        protobuf_free(&e.psv_labels[i]);
    free(e.psv_labels);
    free(e.psv_labeled);
    return rc;
}
