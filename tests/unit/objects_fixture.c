/*
 * objects_fixture.c: a test helper that copies a trace into a native trace
 * carrying the executable objects and recorded thread given on the command
 * line, as a recorder would write them (no tool of the project writes
 * objects from options). Used by tests/e2e/objects.sh.
 *
 *   objects_fixture [--contexts] IN OUT TID THREADS [START END BIAS BUILD_ID PATH]...
 *
 * Numbers in decimal or 0x hex; BUILD_ID in hex or '-'; THREADS 0 records
 * no thread. OUT has data frames of FIXTURE_FRAME_RECORDS records. With
 * --contexts it also records calling contexts, as tea record --call-paths
 * would (docs/trace-format.md, "Context frames"): µop i of the trace in
 * context (i / 7) % 4 of a tree of three calls, main -> a -> leaf (the
 * fuzzers' seed of context frames; no recording needed).
 */
#include "common/error.h"
#include "trace/callpath.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records per data frame: several frames in a short trace, so that
 * frame-parallel replay reads it by frames. */
#define FIXTURE_FRAME_RECORDS 2000
/* Arguments before the objects, and per object. */
#define FIXED_ARGS 5
#define OBJECT_ARGS 5

/* The tree --contexts records (as trace_run wants it: the root first). */
static const trace_context fixture_tree[] = {
    { 0, 0, TRACE_CONTEXT_ROOT, 0 },
    { 0, 0x1000, 0, 1 },
    { 0x1010, 0x1040, 1, 2 },
    { 0x1050, 0x2000, 2, 3 },
};
#define FIXTURE_CONTEXTS 4u
/* µops in a row in one context. */
#define FIXTURE_CONTEXT_RUN 7u

/* --contexts: the batch's µops in their contexts, counting from `*seen`. */
static void set_contexts(trace_batch *b, uint64_t *seen)
{
    for (size_t i = 0; i < b->uop_count; i++, (*seen)++)
        b->uops[i].ctx = (uint32_t)(*seen / FIXTURE_CONTEXT_RUN % FIXTURE_CONTEXTS);
}

static int parse_number(const char *s, uint64_t *v)
{
    char *end;
    *v = strtoull(s, &end, 0);
    return *s && !*end ? 0 : -1;
}

/* Parses one object from argv[0..OBJECT_ARGS). */
static int parse_object(char **argv, trace_object *o)
{
    const char *hex = argv[3];
    size_t len = strlen(hex);

    memset(o, 0, sizeof *o);
    if (parse_number(argv[0], &o->start) || parse_number(argv[1], &o->end) || parse_number(argv[2], &o->load_bias))
        return -1;
    if (strcmp(hex, "-") != 0) {
        if (len % 2 || len > 2 * TRACE_BUILD_ID_MAX)
            return -1;
        for (size_t i = 0; i < len; i += 2) {
            unsigned byte;
            if (sscanf(hex + i, "%2x", &byte) != 1)
                return -1;
            o->build_id[i / 2] = (uint8_t)byte;
        }
        o->build_id_len = (uint32_t)(len / 2);
    }
    o->path = argv[4];
    return 0;
}

int main(int argc, char **argv)
{
    trace_write_options wo = { .format = TRACE_FORMAT_NATIVE, .frame_records = FIXTURE_FRAME_RECORDS };
    trace_reader *r = NULL;
    trace_writer *w = NULL;
    trace_batch b = { 0 };
    uint64_t tid, threads, seen = 0;
    const char *prog = argv[0];
    int rc, contexts = argc > 1 && strcmp(argv[1], "--contexts") == 0;

    if (contexts) { /* the options after it as if it were not there */
        argv++;
        argc--;
    }
    if (argc < FIXED_ARGS || (argc - FIXED_ARGS) % OBJECT_ARGS || parse_number(argv[3], &tid)
        || parse_number(argv[4], &threads)) {
        fprintf(stderr, "usage: %s [--contexts] IN OUT TID THREADS [START END BIAS BUILD_ID PATH]...\n", prog);
        return 2;
    }
    if ((rc = trace_reader_open(&r, argv[1], NULL)) || (rc = trace_batch_init(&b, TRACE_BATCH_RECORDS))
        || (rc = trace_writer_open(&w, argv[2], trace_reader_header(r), &wo)))
        goto done;
    for (int i = FIXED_ARGS; i < argc; i += OBJECT_ARGS) {
        trace_object o;
        if (parse_object(argv + i, &o)) {
            rc = error_set(TEA_ERR_USAGE, "malformed object at argument %d", i);
            goto done;
        }
        if ((rc = trace_writer_add_object(w, &o)))
            goto done;
    }
    if (threads && (rc = trace_writer_set_thread(w, (uint32_t)tid, (uint32_t)threads)))
        goto done;
    if (contexts) {
        trace_run run;
        memset(&run, 0, sizeof run);
        run.contexts = fixture_tree;
        run.context_count = FIXTURE_CONTEXTS;
        if ((rc = trace_writer_set_run(w, &run)))
            goto done;
    }
    while (!(rc = trace_reader_read(r, &b)) && b.count) {
        if (contexts)
            set_contexts(&b, &seen);
        if ((rc = trace_writer_write(w, &b)))
            goto done;
    }
    if (!rc)
        rc = trace_writer_finish(w, &trace_reader_stats(r)->notes);
    w = NULL;
done:
    trace_writer_abort(w);
    trace_batch_free(&b);
    trace_reader_close(r);
    if (rc)
        fprintf(stderr, "%s: %s\n", prog, error_message());
    return rc ? 1 : 0;
}
