/*
 * test_readers_memory.c: the readers that take a buffer as well as a path
 * (trace_reader_open_memory, trace_frames_open_memory, pics_read_memory,
 * results_read_memory)
 * give for the same bytes exactly what they give for a file: the same
 * records, header, objects, totals and statistics, or the same error code
 * and message (which names the file and the byte, as the name given is the
 * path). The inputs: every file of tests/data/badinput and the traces of
 * tests/data, a model trace written in each format (with objects and a
 * thread, in 64-record frames) and every one of those cut short or with a
 * byte changed; a PICS file with objects and window groups, likewise, and
 * results CSVs.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include "common/error.h"
#include "pics/pics_file.h"
#include "results/results.h"
#include "trace/frames.h"
#include "trace/objects.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Records per frame of the native variants: several frames. */
#define FRAME_RECORDS 64
/* Records per batch read. */
#define BATCH 256
/* Lengths each variant is also cut to: len * k / CUTS for k = 0 .. CUTS - 1. */
#define CUTS 13
/* Objects of the native variant. */
#define OBJECTS 5

/* What one read gave besides the records: error code and message, and
 * every fact the reader shows, as text (open_memstream). */
typedef struct outcome {
    test_stream s;
    char *facts;
    size_t facts_size;
} outcome;

/* Appends the objects and thread the reader shows now to `f`. */
static void print_objects(FILE *f, trace_reader *r, const char *when)
{
    const trace_object *objs;
    size_t count;
    uint32_t tid, threads;
    char hex[2 * TRACE_BUILD_ID_MAX + 1];

    fprintf(f, "%s: ", when);
    if (trace_reader_objects(r, &objs, &count) || trace_reader_thread(r, &tid, &threads)) {
        fprintf(f, "objects unavailable: %s\n", error_message());
        return;
    }
    fprintf(f, "%zu objects, thread %u of %u\n", count, tid, threads);
    for (size_t i = 0; i < count; i++) {
        trace_object_build_id_hex(&objs[i], hex, sizeof hex);
        fprintf(f, "  %s %s %llx %llx %llx\n", objs[i].path, hex, (unsigned long long)objs[i].load_bias,
                (unsigned long long)objs[i].start, (unsigned long long)objs[i].end);
    }
}

/* Appends the header, totals and statistics to `f`. */
static void print_trace_facts(FILE *f, trace_reader *r)
{
    const trace_header *h = trace_reader_header(r);
    const trace_totals *t = trace_reader_totals(r);
    const trace_read_stats *st = trace_reader_stats(r);

    fprintf(f, "header %u %u %llu %s %u %u %u %s %s %s %s %llx %d %s\n", h->commit_width, h->rob_size,
            (unsigned long long)h->clock_hz, h->program.arch, h->va_bits, h->llc_latency, h->initial_window,
            h->generator ? h->generator : "-", h->command_line ? h->command_line : "-",
            h->program.binary_path ? h->program.binary_path : "-", h->program.build_id ? h->program.build_id : "-", (unsigned long long)h->program.load_bias,
            h->program.has_load_bias, h->source_format ? h->source_format : "-");
    fprintf(f, "totals %llu %llu %llu %llu %llu %llu %llu %llu", (unsigned long long)t->records,
            (unsigned long long)t->first_cycle, (unsigned long long)t->last_cycle, (unsigned long long)t->commits,
            (unsigned long long)t->exceptions, (unsigned long long)t->dispatched, (unsigned long long)t->squashed,
            (unsigned long long)t->refills);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        fprintf(f, " %llu", (unsigned long long)t->events[e]);
    fprintf(f, "\nstats %d %d %llu %llu %llu %llu %llu %llu %u %llu\n", (int)st->format, st->compressed,
            (unsigned long long)st->bytes_in, (unsigned long long)st->units, (unsigned long long)st->frames,
            (unsigned long long)st->memlat_nonzero, (unsigned long long)st->dcache_misses,
            (unsigned long long)st->index_resyncs, st->notes.flags, (unsigned long long)st->notes.counter_wraps);
}

/* Reads a trace whole with the streaming reader: the file at `path`, or
 * (from_memory) the `size` bytes at `data` named `path`. */
static void read_trace(const char *path, int from_memory, const uint8_t *data, size_t size, int background,
                       outcome *o)
{
    trace_reader *r = NULL;
    trace_batch batch;
    FILE *f;
    int rc;

    test_stream_init(&o->s);
    f = open_memstream(&o->facts, &o->facts_size);
    assert_non_null(f);
    error_clear();
    rc = from_memory ? trace_reader_open_memory(&r, data, size, path, NULL) : trace_reader_open(&r, path, NULL);
    if (rc == 0) {
        trace_reader_set_background(r, background);
        print_objects(f, r, "at open");
        assert_int_equal(trace_batch_init(&batch, BATCH), 0);
        while ((rc = trace_reader_read(r, &batch)) == 0 && batch.count > 0)
            for (size_t i = 0; i < batch.count; i++)
                test_stream_append(&o->s, &batch.records[i], batch.uops + batch.records[i].first_uop);
        trace_batch_free(&batch);
        if (rc == 0) {
            print_trace_facts(f, r);
            print_objects(f, r, "at the end");
        }
    }
    fprintf(f, "rc %d: %s\n", rc, rc ? error_message() : "");
    trace_reader_close(r);
    assert_int_equal(fclose(f), 0);
}

/* Reads a native trace frame by frame: the file or the bytes, as above. */
static void read_frames(const char *path, int from_memory, const uint8_t *data, size_t size, outcome *o)
{
    trace_frames *fs = NULL;
    trace_frame_reader *fr = NULL;
    trace_batch batch;
    FILE *f;
    int rc;

    test_stream_init(&o->s);
    f = open_memstream(&o->facts, &o->facts_size);
    assert_non_null(f);
    error_clear();
    rc = from_memory ? trace_frames_open_memory(&fs, data, size, path) : trace_frames_open(&fs, path);
    if (rc == 0) {
        size_t n = trace_frames_count(fs);
        trace_totals *totals = calloc(n ? n : 1, sizeof *totals);
        unsigned *windows = calloc(n ? n : 1, sizeof *windows);
        assert_true(totals && windows);
        assert_int_equal(trace_batch_init(&batch, BATCH), 0);
        assert_int_equal(trace_frame_reader_create(&fr, fs), 0);
        for (size_t k = 0; k < n && rc == 0; k++) {
            if ((rc = trace_frame_reader_start(fr, k)))
                break;
            while ((rc = trace_frame_reader_read(fr, &batch)) == 0 && batch.count > 0)
                for (size_t i = 0; i < batch.count; i++)
                    test_stream_append(&o->s, &batch.records[i], batch.uops + batch.records[i].first_uop);
            totals[k] = *trace_frame_reader_totals(fr);
            windows[k] = trace_frame_reader_window(fr);
        }
        if (rc == 0) {
            trace_totals all;
            trace_read_stats stats;
            rc = trace_frames_check_sequence(fs, totals, windows, &all, &stats);
            if (rc == 0)
                fprintf(f, "%zu frames, %llu records, %llu bytes\n", n, (unsigned long long)all.records,
                        (unsigned long long)stats.bytes_in);
        }
        trace_frame_reader_free(fr);
        trace_batch_free(&batch);
        free(totals);
        free(windows);
    }
    fprintf(f, "rc %d: %s\n", rc, rc ? error_message() : "");
    trace_frames_close(fs);
    assert_int_equal(fclose(f), 0);
}

static void outcome_free(outcome *o)
{
    test_stream_free(&o->s);
    free(o->facts);
}

/* The file at `path` (holding `data`) and the bytes give the same. */
static void compare_trace(const char *path, const uint8_t *data, size_t size, int background)
{
    outcome file, memory;

    read_trace(path, 0, NULL, 0, background, &file);
    read_trace(path, 1, data, size, background, &memory);
    if (strcmp(file.facts, memory.facts) != 0)
        fail_msg("%s: read from the file:\n%s\nread from memory:\n%s", path, file.facts, memory.facts);
    assert_streams_equal(&file.s, &memory.s);
    outcome_free(&file);
    outcome_free(&memory);

    read_frames(path, 0, NULL, 0, &file);
    read_frames(path, 1, data, size, &memory);
    if (strcmp(file.facts, memory.facts) != 0)
        fail_msg("%s: read by frames from the file:\n%s\nfrom memory:\n%s", path, file.facts, memory.facts);
    assert_streams_equal(&file.s, &memory.s);
    outcome_free(&file);
    outcome_free(&memory);
}

/* compare_trace on `data`, then on it cut to CUTS lengths and with its
 * middle byte changed, each written to a scratch file first. */
static void compare_trace_variants(const char *name, const uint8_t *data, size_t size)
{
    char *path = test_temp_path(name);
    uint8_t *changed = malloc(size + 1);

    assert_non_null(changed);
    test_write_file(path, data, size);
    compare_trace(path, data, size, 0);
    compare_trace(path, data, size, 1);
    for (size_t k = 0; k < CUTS; k++) {
        size_t cut = size * k / CUTS;
        test_write_file(path, data, cut);
        compare_trace(path, data, cut, 0);
    }
    if (size > 0) {
        memcpy(changed, data, size);
        changed[size / 2] ^= 0x5a;
        test_write_file(path, changed, size);
        compare_trace(path, changed, size, 0);
    }
    unlink(path);
    free(changed);
    free(path);
}

/* Calls `each` on every regular file of the directory `dir`. */
static void for_each_file(const char *dir, void (*each)(const char *path))
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t seen = 0;

    assert_non_null(d);
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        each(path);
        seen++;
    }
    closedir(d);
    assert_true(seen > 0);
}

static void compare_trace_file(const char *path)
{
    uint8_t *data;
    size_t size;
    test_read_file(path, &data, &size);
    compare_trace(path, data, size, 0);
    free(data);
}

/* The traces and bad inputs of tests/data. */
static void trace_test_data(void **state)
{
    static const char *const traces[] = { "scenario.bin", "flush_no_refill.bin", "commit_exception.td.zst",
                                          "scenario.golden.csv" };
    (void)state;
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", TEA_TEST_DATA, traces[i]);
        compare_trace_file(path);
    }
    for_each_file(TEA_TEST_DATA "/badinput", compare_trace_file);
}

/* A model trace written with `o` (and, natively, objects and a thread). */
static void write_model_trace(const test_stream *s, const trace_write_options *o, const char *path)
{
    trace_writer *w;
    trace_batch b = test_stream_batch(s, 0, s->count);
    char name[64];

    assert_int_equal(trace_writer_open(&w, path, &s->header, o), 0);
    for (size_t i = 0; o->format == TRACE_FORMAT_NATIVE && i < OBJECTS; i++) {
        trace_object obj;
        memset(&obj, 0, sizeof obj);
        snprintf(name, sizeof name, "/usr/lib/lib%zu.so", i);
        obj.path = name;
        obj.build_id_len = (uint32_t)(4 + i);
        memset(obj.build_id, (int)(0x10 + i), obj.build_id_len);
        obj.start = 0x400000 + 0x10000 * i;
        obj.end = obj.start + 0x1000;
        assert_int_equal(trace_writer_add_object(w, &obj), 0);
    }
    if (o->format == TRACE_FORMAT_NATIVE)
        assert_int_equal(trace_writer_set_thread(w, 42, 3), 0);
    assert_int_equal(trace_writer_write(w, &b), 0);
    assert_int_equal(trace_writer_finish(w, NULL), 0);
}

/* A model trace in each format, whole, cut short and changed. */
static void trace_variants(void **state)
{
    static const struct {
        const char *name;
        trace_write_options o;
    } formats[] = {
        { "mem-native.tea", { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS } },
        { "mem-native-one-frame.tea", { TRACE_FORMAT_NATIVE, 0, 0, 0 } },
        { "mem-td.zst", { TRACE_FORMAT_TRACEDOCTOR, 0, 0, 0 } },
        { "mem-td.bin", { TRACE_FORMAT_TRACEDOCTOR, 0, 1, 0 } },
    };
    test_stream s;
    (void)state;

    test_model_stream("mixed", 5, 6000, &s);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        char *path = test_temp_path(formats[i].name);
        uint8_t *data;
        size_t size;
        write_model_trace(&s, &formats[i].o, path);
        test_read_file(path, &data, &size);
        unlink(path);
        compare_trace_variants(formats[i].name, data, size);
        free(data);
        free(path);
    }
    test_stream_free(&s);
}

/* What a PICS read gave, as text: code and message, the facts of its info,
 * its cells (sorted) and its groups' totals. */
static char *pics_outcome(const char *path, int from_memory, const uint8_t *data, size_t size)
{
    pics_info info;
    pics p, *groups = NULL;
    char *text = NULL;
    size_t text_size;
    FILE *f = open_memstream(&text, &text_size);
    int rc;

    assert_non_null(f);
    error_clear();
    rc = from_memory ? pics_read_groups_memory(data, size, path, &info, &p, &groups)
                     : pics_read_groups(path, &info, &p, &groups);
    if (rc == 0) {
        pics_cell *cells;
        size_t n;
        fprintf(f, "%s %llu %s %llu %llu %llu %s %llu %s %s %llx %d %zu %llu %s %s %llu %.6f %llu %s %s %u %llu",
                info.scheme, (unsigned long long)info.unit, info.trace_digest,
                (unsigned long long)info.trace_first_cycle, (unsigned long long)info.trace_last_cycle,
                (unsigned long long)info.trace_records, info.program.arch, (unsigned long long)info.clock_hz,
                info.program.binary_path ? info.program.binary_path : "-", info.program.build_id ? info.program.build_id : "-",
                (unsigned long long)info.program.load_bias, info.program.has_load_bias, info.objects.count,
                (unsigned long long)info.golden_total, info.golden_rules, info.rules, (unsigned long long)info.period,
                info.frequency_hz, (unsigned long long)info.seed, info.jitter, info.events, info.event_mask,
                (unsigned long long)info.samples);
        for (int k = 0; k < PICS_LOST_REASONS; k++)
            fprintf(f, " %llu", (unsigned long long)info.lost[k]);
        fprintf(f, " %llu %s %llu\n", (unsigned long long)info.merged, info.noise_floor_of,
                (unsigned long long)info.groups);
        assert_int_equal(pics_sorted(&p, &cells, &n), 0);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%llx %u %llu %llu\n", (unsigned long long)cells[i].pc, cells[i].psv,
                    (unsigned long long)cells[i].value, (unsigned long long)cells[i].count);
        for (uint64_t k = 0; k < info.groups; k++)
            fprintf(f, "group %llu: %zu cells, total %llu\n", (unsigned long long)k, groups[k].count,
                    (unsigned long long)groups[k].total);
        free(cells);
        pics_groups_free(groups, info.groups);
        pics_info_free(&info);
        pics_free(&p);
    }
    fprintf(f, "rc %d: %s\n", rc, rc ? error_message() : "");
    assert_int_equal(fclose(f), 0);
    return text;
}

/* The file at `path` (holding `data`) and the bytes read as the same PICS. */
static void compare_pics(const char *path, const uint8_t *data, size_t size)
{
    char *file = pics_outcome(path, 0, NULL, 0), *memory = pics_outcome(path, 1, data, size);
    if (strcmp(file, memory) != 0)
        fail_msg("%s: read from the file:\n%s\nread from memory:\n%s", path, file, memory);
    free(file);
    free(memory);
}

static void compare_pics_file(const char *path)
{
    uint8_t *data;
    size_t size;
    test_read_file(path, &data, &size);
    compare_pics(path, data, size);
    free(data);
}

/* A golden PICS in two window groups, with objects, written; then read
 * whole, cut at every line and with a changed byte; and the bad inputs. */
static void pics_variants(void **state)
{
    static const char *const object_paths[] = { "/bin/prog", "/lib/libc.so.6" };
    char *path = test_temp_path("mem.pics");
    trace_object objs[2];
    pics_info info;
    pics p, groups[2];
    uint8_t *data;
    size_t size;
    (void)state;

    pics_info_init(&info);
    snprintf(info.scheme, sizeof info.scheme, "golden");
    snprintf(info.program.arch, sizeof info.program.arch, "x86_64");
    info.clock_hz = 3000000000ull;
    memset(objs, 0, sizeof objs);
    for (size_t i = 0; i < 2; i++) {
        objs[i].path = object_paths[i];
        objs[i].build_id_len = 20;
        memset(objs[i].build_id, (int)(0xa0 + i), 20);
        objs[i].start = 0x1000 * (i + 1);
        objs[i].end = objs[i].start + 0x800;
    }
    assert_int_equal(pics_info_set_objects(&info, objs, 2, 7, 1), 0);
    assert_int_equal(pics_init(&p), 0);
    assert_int_equal(pics_init(&groups[0]), 0);
    assert_int_equal(pics_init(&groups[1]), 0);
    for (uint64_t i = 0; i < 40; i++) {
        uint64_t pc = 0x1000 + 4 * i, first = (i + 1) * PICS_UNIT, second = (i % 3) * PICS_UNIT;
        assert_int_equal(pics_add(&p, pc, (uint16_t)(i % 5), first + second, i + 1), 0);
        assert_int_equal(pics_add(&groups[0], pc, (uint16_t)(i % 5), first, 0), 0);
        if (second)
            assert_int_equal(pics_add(&groups[1], pc, (uint16_t)(i % 5), second, 0), 0);
    }
    info.golden_total = p.total;
    assert_int_equal(pics_write_groups(path, &info, &p, groups, 2), 0);
    test_read_file(path, &data, &size);
    compare_pics(path, data, size);
    for (size_t cut = 0; cut < size; cut++) {
        if (cut > 0 && data[cut - 1] != '\n' && cut % 97 != 0)
            continue; /* every line's end, and some places inside lines */
        test_write_file(path, data, cut);
        compare_pics(path, data, cut);
    }
    data[size / 2] ^= 0x11;
    test_write_file(path, data, size);
    compare_pics(path, data, size);
    unlink(path);
    for_each_file(TEA_TEST_DATA "/badinput", compare_pics_file);
    free(data);
    free(path);
    pics_info_free(&info);
    pics_free(&p);
    pics_free(&groups[0]);
    pics_free(&groups[1]);
}

/* What a results CSV read gave, as text: code and message, every row. */
static char *results_outcome(const char *path, int from_memory, const uint8_t *data, size_t size)
{
    results_set set;
    char *text = NULL;
    size_t text_size;
    FILE *f = open_memstream(&text, &text_size);
    int rc;

    assert_non_null(f);
    error_clear();
    results_init(&set);
    rc = from_memory ? results_read_memory(&set, data, size, path) : results_read(&set, path);
    for (size_t i = 0; i < set.count; i++) {
        const results_row *r = &set.rows[i];
        fprintf(f, "%s:%lu %s %s %.17g %llu %llu %llu", r->file, r->line, r->trace, r->scheme, r->freq_hz,
                (unsigned long long)r->seed, (unsigned long long)r->samples, (unsigned long long)r->lost);
        for (int g = 0; g < RESULTS_GRANULARITIES; g++)
            fprintf(f, " %.17g %.17g", r->error[g], r->noise_floor[g]);
        fprintf(f, " %s %s %llu %llu\n", r->digest ? r->digest : "-", r->rules, (unsigned long long)r->cycles,
                (unsigned long long)r->records);
    }
    fprintf(f, "rc %d: %s\n", rc, rc ? error_message() : "");
    results_free(&set);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void compare_results(const char *path, const uint8_t *data, size_t size)
{
    char *file = results_outcome(path, 0, NULL, 0), *memory = results_outcome(path, 1, data, size);
    if (strcmp(file, memory) != 0)
        fail_msg("%s: read from the file:\n%s\nread from memory:\n%s", path, file, memory);
    free(file);
    free(memory);
}

static void compare_results_file(const char *path)
{
    uint8_t *data;
    size_t size;
    test_read_file(path, &data, &size);
    compare_results(path, data, size);
    free(data);
}

/* A results CSV with comments, CRLF lines, a header again with other
 * columns, quoting, noise floors and a digest, cut at every byte; and the
 * bad inputs. */
static void results_variants(void **state)
{
    static const char csv[] =
        "# tea 0.1.0 replay: tea replay lbm.tea -o out\n"
        "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records\r\n"
        "lbm,tea,4000,1,2500,0,0.044997647,0.035638817,0.012,3cdd478deb2f956d,15015862,3000000\r\n"
        "\n"
        "trace,scheme,seed,freq_hz,error_insn,noise_floor_insn,rules\n"
        "\"mcf, ref\",ibs:all,2,4000,0.25,0.125,tracedoctor\n"
        "mcf,spe,3,4000,0.5,,default\n";
    char *path = test_temp_path("mem.csv");
    const uint8_t *data = (const uint8_t *)csv;
    size_t size = sizeof csv - 1;
    (void)state;

    for (size_t cut = 0; cut <= size; cut++) {
        test_write_file(path, data, cut);
        compare_results(path, data, cut);
    }
    unlink(path);
    free(path);
    for_each_file(TEA_TEST_DATA "/badinput", compare_results_file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_test_data),
        cmocka_unit_test(trace_variants),
        cmocka_unit_test(pics_variants),
        cmocka_unit_test(results_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
