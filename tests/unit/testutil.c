/*
 * testutil.c: shared unit-test helpers (see testutil.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "trace/objects.h"
#include "model/core.h"
#include "model/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_BATCH 1024

char *test_temp_path(const char *name)
{
    const char *dir = getenv("TMPDIR");
    size_t size;
    char *path;
    if (!dir || !*dir)
        dir = "/tmp";
    size = strlen(dir) + strlen(name) + 64;
    path = malloc(size);
    assert_non_null(path);
    snprintf(path, size, "%s/tea-test-%ld-%s", dir, (long)getpid(), name);
    return path;
}

void test_read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    long len;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    *data = malloc((size_t)len + 1);
    assert_non_null(*data);
    assert_int_equal(fread(*data, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *size = (size_t)len;
}

void test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

void test_stream_init(test_stream *s)
{
    memset(s, 0, sizeof *s);
    trace_header_init(&s->header);
}

void test_stream_free(test_stream *s)
{
    free(s->records);
    free(s->uops);
    trace_header_free(&s->header);
    memset(s, 0, sizeof *s);
}

void test_stream_append(test_stream *s, const trace_record *r, const trace_uop *uops)
{
    unsigned n = trace_record_uops(r);
    if (s->count == s->record_cap) {
        s->record_cap = s->record_cap ? 2 * s->record_cap : 256;
        s->records = realloc(s->records, s->record_cap * sizeof *s->records);
        assert_non_null(s->records);
    }
    if (s->uop_count + n > s->uop_cap) {
        s->uop_cap = s->uop_cap ? 2 * s->uop_cap + n : 256 + n;
        s->uops = realloc(s->uops, s->uop_cap * sizeof *s->uops);
        assert_non_null(s->uops);
    }
    s->records[s->count] = *r;
    s->records[s->count].first_uop = (uint32_t)s->uop_count;
    if (n)
        memcpy(s->uops + s->uop_count, uops, n * sizeof *uops);
    s->count++;
    s->uop_count += n;
}

int test_stream_read(const char *path, const trace_open_options *opts, test_stream *s)
{
    return test_stream_read_background(path, opts, -1, s);
}

int test_stream_read_background(const char *path, const trace_open_options *opts, int background,
                                test_stream *s)
{
    trace_reader *r;
    trace_batch batch;
    int rc;

    test_stream_init(s);
    if ((rc = trace_reader_open(&r, path, opts)))
        return rc;
    if (background >= 0)
        trace_reader_set_background(r, background);
    assert_int_equal(trace_batch_init(&batch, TEST_BATCH), 0);
    for (;;) {
        if ((rc = trace_reader_read(r, &batch)) || batch.count == 0)
            break;
        for (size_t i = 0; i < batch.count; i++)
            test_stream_append(s, &batch.records[i], batch.uops + batch.records[i].first_uop);
    }
    if (rc == 0) {
        trace_header_free(&s->header);
        assert_int_equal(trace_header_copy(&s->header, trace_reader_header(r)), 0);
        s->totals = *trace_reader_totals(r);
        s->stats = *trace_reader_stats(r);
    }
    trace_batch_free(&batch);
    trace_reader_close(r);
    return rc;
}

trace_batch test_stream_batch(const test_stream *s, size_t first, size_t count)
{
    trace_batch b;
    memset(&b, 0, sizeof b);
    b.records = s->records + first;
    b.count = count;
    b.capacity = count;
    b.uops = s->uops;
    b.uop_count = s->uop_count;
    b.uop_capacity = s->uop_count;
    return b;
}

int test_stream_write(const test_stream *s, const trace_header *h, const trace_write_options *opts, const char *path)
{
    trace_writer *w;
    int rc = trace_writer_open(&w, path, h, opts);
    if (rc)
        return rc;
    for (size_t i = 0; i < s->count; i += TEST_BATCH) {
        size_t n = s->count - i < TEST_BATCH ? s->count - i : TEST_BATCH;
        trace_batch b = test_stream_batch(s, i, n);
        if ((rc = trace_writer_write(w, &b))) {
            trace_writer_abort(w);
            return rc;
        }
    }
    return trace_writer_finish(w, NULL);
}

void test_stream_set_contexts(test_stream *s, unsigned run, uint32_t contexts)
{
    for (size_t i = 0; i < s->uop_count; i++)
        s->uops[i].ctx = (uint32_t)(i / run % contexts);
}

int test_stream_write_contexts(const test_stream *s, const trace_header *h, const trace_write_options *opts,
                               const char *path, uint32_t contexts)
{
    trace_context *chain = calloc(contexts, sizeof *chain);
    trace_writer *w;
    trace_run run;
    int rc;

    assert_non_null(chain);
    for (uint32_t i = 1; i < contexts; i++)
        chain[i] = (trace_context){ 0x1000 + 16 * i, 0x2000 + 16 * i, i - 1, i };
    memset(&run, 0, sizeof run);
    run.contexts = chain;
    run.context_count = contexts;
    if ((rc = trace_writer_open(&w, path, h, opts)) == 0) {
        trace_batch b = test_stream_batch(s, 0, s->count);
        if ((rc = trace_writer_set_run(w, &run)) || (rc = trace_writer_write(w, &b)))
            trace_writer_abort(w);
        else
            rc = trace_writer_finish(w, NULL);
    }
    free(chain);
    return rc;
}

void assert_streams_equal(const test_stream *a, const test_stream *b)
{
    assert_int_equal(a->count, b->count);
    for (size_t i = 0; i < a->count; i++) {
        const trace_record *x = &a->records[i], *y = &b->records[i];
        if (x->cycle != y->cycle || x->n_commit != y->n_commit || x->flags != y->flags || x->retire != y->retire
            || x->squash != y->squash || x->dispatch != y->dispatch)
            fail_msg("record %zu differs: cycle %llu/%llu commits %u/%u flags %u/%u retire %u/%u squash %u/%u "
                     "dispatch %u/%u",
                     i, (unsigned long long)x->cycle, (unsigned long long)y->cycle, x->n_commit, y->n_commit, x->flags,
                     y->flags, x->retire, y->retire, x->squash, y->squash, x->dispatch, y->dispatch);
        for (unsigned k = 0; k < trace_record_uops(x); k++) {
            const trace_uop *u = &a->uops[x->first_uop + k], *v = &b->uops[y->first_uop + k];
            if (u->pc != v->pc || u->psv != v->psv || u->offset != v->offset || u->ctx != v->ctx)
                fail_msg("record %zu (cycle %llu) µop %u differs: pc %llx/%llx psv %u/%u offset %u/%u "
                         "context %u/%u",
                         i, (unsigned long long)x->cycle, k, (unsigned long long)u->pc, (unsigned long long)v->pc,
                         u->psv, v->psv, u->offset, v->offset, u->ctx, v->ctx);
        }
    }
}

void assert_contains(const char *message, const char *needle)
{
    if (!strstr(message, needle))
        fail_msg("expected \"%s\" in message: %s", needle, message);
}

static int collect_batch(void *ctx, const trace_batch *batch)
{
    test_stream *s = ctx;
    for (size_t i = 0; i < batch->count; i++)
        test_stream_append(s, &batch->records[i], batch->uops + batch->records[i].first_uop);
    return 0;
}

void test_model_stream(const char *workload, uint64_t seed, uint64_t cycles, test_stream *s)
{
    model_workload *w;
    model_core *core;
    model_config cfg;
    model_source src;

    test_stream_init(s);
    model_config_defaults(&cfg);
    s->header.commit_width = cfg.core.width;
    s->header.rob_size = cfg.core.rob_size;
    assert_int_equal(model_workload_create(&w, workload, seed), 0);
    src = model_workload_source(w);
    assert_int_equal(model_core_create(&core, &cfg, &src), 0);
    assert_int_equal(model_core_run(core, 0, cycles, collect_batch, s), 0);
    model_core_free(core);
    model_workload_free(w);
}

void assert_pics_match(const pics *a, const pics *b, int counts, const char *what)
{
    if ((a->count != b->count || a->total != b->total) && getenv("TEST_PICS_DIFF")) {
        for (size_t i = 0; i < a->capacity; i++) {
            const pics_cell *c = &a->slots[i], *d;
            if (!c->used)
                continue;
            d = pics_find(b, c->pc, c->psv);
            if (!d || d->value != c->value)
                print_message("a 0x%llx/%u %llu vs %llu\n", (unsigned long long)c->pc, c->psv,
                              (unsigned long long)c->value, (unsigned long long)(d ? d->value : 0));
        }
    }
    if (a->count != b->count || a->total != b->total)
        fail_msg("%s: %zu cells / total %llu vs %zu cells / total %llu", what, a->count,
                 (unsigned long long)a->total, b->count, (unsigned long long)b->total);
    for (size_t i = 0; i < a->capacity; i++) {
        const pics_cell *c = &a->slots[i], *d;
        if (!c->used)
            continue;
        d = pics_find(b, c->pc, c->psv);
        if (!d || d->value != c->value || (counts && d->count != c->count))
            fail_msg("%s: cell 0x%llx/%u is %llu (count %llu) vs %llu (count %llu)", what,
                     (unsigned long long)c->pc, c->psv, (unsigned long long)c->value, (unsigned long long)c->count,
                     (unsigned long long)(d ? d->value : 0), (unsigned long long)(d ? d->count : 0));
    }
}
