/* Allocation-failure injection for the readers: for each reader and a
 * small valid input, the n-th allocation fails, for n = 1, 2, ... until a
 * read succeeds with no allocation failed. Every run must return
 * TEA_ERR_NOMEM (or succeed: a reader may do without what it could not get)
 * and, in the sanitized build, leak nothing (LeakSanitizer checks at exit)
 * and never crash.
 *
 * The libraries' calls to malloc, calloc, realloc, strdup and strndup go
 * through the fault tests' helper (test_alloc_each, tests/unit/testutil.h;
 * ld --wrap, tests/CMakeLists.txt): only the project's static libraries
 * are affected, never the C library's or zstd's own allocations, and the
 * real functions (ASan's, in the sanitized build) do the work.
 *
 *   test_allocfail SEEDS_DIR     (fuzz/make-corpus's output: one folder per harness)
 */
#define _POSIX_C_SOURCE 200809L

#include "common/error.h"
#include "model/config.h"
#include "pics/pics.h"
#include "pics/pics_file.h"
#include "binary/symbols.h"
#include "trace/symmap.h"
#include "pics/tdimport.h"
#include "tea/replay.h"
#include "results/results.h"
#include "trace/frames.h"
#include "trace/record.h"
#include "trace/trace.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each reader over a whole input: 0 or the first error. */

static int read_trace(const char *path)
{
    trace_reader *r = NULL;
    trace_batch batch;
    int rc;

    if ((rc = trace_batch_init(&batch, 64)))
        return rc;
    rc = trace_reader_open(&r, path, NULL);
    if (rc == 0) {
        trace_reader_set_background(r, 0);
        while ((rc = trace_reader_read(r, &batch)) == 0 && batch.count > 0)
            ;
        trace_reader_close(r);
    }
    trace_batch_free(&batch);
    return rc;
}

/* A TraceDoctor trace through the golden reference and TEA, NCI-TEA and
 * IBS under the tracedoctor rules, which read its tokens (period 97). */
static int replay_td_rules(const char *path)
{
    static const pics_scheme schemes[] = { PICS_SCHEME_TEA, PICS_SCHEME_NCI, PICS_SCHEME_IBS };
    tea_sampler_spec specs[3];
    trace_reader *r = NULL;
    tea_replay *replay = NULL;
    trace_batch batch = { 0 };
    int rc;

    memset(specs, 0, sizeof specs);
    for (int i = 0; i < 3; i++) {
        specs[i].scheme = schemes[i];
        specs[i].period = 97;
        specs[i].frequency_hz = 1;
        specs[i].jitter = PICS_JITTER_NONE;
        specs[i].event_mask = TRACE_PSV_MASK_ALL;
        specs[i].rules = GOLDEN_RULES_TRACEDOCTOR;
        specs[i].llc_latency = TRACE_DEFAULT_LLC_LATENCY;
    }
    if ((rc = trace_reader_open(&r, path, NULL)))
        return rc;
    trace_reader_set_background(r, 0);
    if (!(rc = tea_replay_create(&replay, trace_reader_header(r)->initial_window, specs, 3))
        && !(rc = trace_reader_set_token_sink(r, tea_replay_token, replay))
        && !(rc = trace_batch_init(&batch, 64))) {
        tea_replay_set_golden_rules(replay, GOLDEN_RULES_TRACEDOCTOR);
        while ((rc = trace_reader_read(r, &batch)) == 0 && batch.count > 0 && !(rc = tea_replay_feed(replay, &batch)))
            ;
        if (!rc)
            rc = tea_replay_finish(replay);
    }
    trace_batch_free(&batch);
    trace_reader_close(r);
    tea_replay_free(replay);
    return rc;
}

static int read_frames(const char *path)
{
    trace_frames *f = NULL;
    trace_frame_reader *fr = NULL;
    trace_batch batch;
    trace_totals *totals = NULL;
    unsigned *windows = NULL;
    size_t n;
    int rc;

    if ((rc = trace_frames_open(&f, path)))
        return rc;
    n = trace_frames_count(f);
    totals = test_alloc_calloc_unfailing(n ? n : 1, sizeof *totals);
    windows = test_alloc_calloc_unfailing(n ? n : 1, sizeof *windows);
    if (!totals || !windows) {
        fprintf(stderr, "test_allocfail: out of memory\n");
        exit(1);
    }
    if ((rc = trace_batch_init(&batch, 64)) == 0) {
        if ((rc = trace_frame_reader_create(&fr, f)) == 0) {
            for (size_t k = 0; k < n && rc == 0; k++) {
                if ((rc = trace_frame_reader_start(fr, k)))
                    break;
                while ((rc = trace_frame_reader_read(fr, &batch)) == 0 && batch.count > 0)
                    ;
                if (rc == 0) {
                    totals[k] = *trace_frame_reader_totals(fr);
                    windows[k] = trace_frame_reader_window(fr);
                }
            }
            if (rc == 0) {
                trace_totals all;
                trace_read_stats stats;
                rc = trace_frames_check_sequence(f, totals, windows, &all, &stats);
            }
            trace_frame_reader_free(fr);
        }
        trace_batch_free(&batch);
    }
    free(totals);
    free(windows);
    trace_frames_close(f);
    return rc;
}

static int read_pics(const char *path)
{
    pics_info info;
    pics p;
    int rc = pics_read(path, &info, &p);

    if (rc == 0) {
        pics_info_free(&info);
        pics_free(&p);
    }
    return rc;
}

static int read_results(const char *path)
{
    results_set s;
    int rc;

    results_init(&s);
    rc = results_read(&s, path);
    if (rc == 0)
        rc = results_dedupe(&s);
    results_free(&s);
    return rc;
}

/* A TraceDoctor worker's CSV as pics import reads it: the golden, or TEA at
 * period 1000 (the seeds' samplingPeriod). */
static int import_td(const char *path, pics_td_kind kind)
{
    const pics_td_import_options o = { 3200000000ull, 1000, NULL };
    pics_info info;
    pics p;
    int rc = pics_td_import(path, kind, &o, &info, &p);
    if (rc == 0) {
        pics_info_free(&info);
        pics_free(&p);
    }
    return rc;
}

static int read_td_gold(const char *path)
{
    return import_td(path, PICS_TD_GOLD);
}

static int read_td_tea(const char *path)
{
    return import_td(path, PICS_TD_TEA);
}

static int read_symmap(const char *path)
{
    trace_symmap m = { 0 };
    int rc = trace_symmap_load(&m, path);

    if (rc == 0)
        trace_symmap_free(&m);
    return rc;
}

static int read_config(const char *path)
{
    model_config c;

    model_config_defaults(&c);
    return model_config_load(&c, path);
}

static int read_elf(const char *path)
{
    binary_symbols *s = NULL;
    trace_symmap m = { 0 };
    int rc = binary_symbols_open(&s, path);

    if (rc)
        return rc;
    if ((rc = binary_symbols_symmap(s, BINARY_SYMBOLS_MAP_SECTION_GAPS, &m)) == 0) {
        size_t first, clones;
        trace_symmap_free(&m);
        rc = binary_symbols_load_lines(s);
        rc = rc < 0 ? rc : binary_symbols_find_clones(s, "main", &first, 1, &clones);
    }
    binary_symbols_close(s);
    return rc;
}

typedef struct reader_case {
    const char *name;
    const char *file; /* under SEEDS_DIR */
    int (*read)(const char *path);
    int optional; /* skipped when the seed is missing (the x86-64 ELF, on other hosts) */
} reader_case;

static const reader_case cases[] = {
    { "trace (native)", "trace/mixed.tea", read_trace, 0 },
    { "trace (native, 64-record frames)", "trace/frames.tea", read_trace, 0 },
    { "trace (TraceDoctor zstd)", "trace/mixed.td.zst", read_trace, 0 },
    { "trace (TraceDoctor raw)", "trace/scenario.bin", read_trace, 0 },
    { "frames", "frames/frames.tea", read_frames, 0 },
    { "replay (tracedoctor rules)", "trace/mixed.td.zst", replay_td_rules, 0 },
    { "pics (golden)", "pics/replay-golden.pics", read_pics, 0 },
    { "pics (sampled)", "pics/replay-tea-4000hz.pics", read_pics, 0 },
    { "pics (window groups)", "pics/groups.pics", read_pics, 0 },
    { "tea_gold (pics import)", "tdimport/memory.tea_gold.csv", read_td_gold, 0 },
    { "tea_sampler (pics import)", "tdimport/memory.tea_sampler-1000.csv", read_td_tea, 0 },
    { "results (replay)", "results/replay-summary.csv", read_results, 0 },
    { "results (sweep)", "results/sweep.csv", read_results, 0 },
    { "symbol map", "symmap/mixed.map", read_symmap, 0 },
    { "config", "config/default.cfg", read_config, 0 },
    { "elf", "elf/symbols_prog.x86_64.elf", read_elf, 1 },
};

/* test_alloc_each's run: one reader case over its seed. */
typedef struct case_run {
    const reader_case *c;
    const char *path;
} case_run;

static int run_case(void *ctx)
{
    const case_run *run = ctx;
    return run->c->read(run->path);
}

int main(int argc, char **argv)
{
    int bad = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: test_allocfail SEEDS_DIR\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const reader_case *c = &cases[i];
        char path[4096];
        case_run run = { c, path };
        unsigned long n;

        snprintf(path, sizeof path, "%s/%s", argv[1], c->file);
        if (c->optional && access(path, F_OK) != 0) {
            printf("%s: skipped, no %s\n", c->name, path);
            continue;
        }
        if (test_alloc_each(c->name, run_case, &run, &n)) {
            bad = 1;
            continue;
        }
        printf("%s: %lu allocations, each failed once\n", c->name, n);
    }
    return bad;
}
