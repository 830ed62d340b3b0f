/*
 * test_run.c: the replay driver (tea/run): the frequency -> period rule on
 * hand-computed periods (rounding at a half, the bounds), trace names and
 * scheme labels, the samplers' order, and one run giving the same results
 * by frames and as a stream.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "tea/program.h"
#include "tea/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CYCLES 200000
#define FRAME_RECORDS 4000

/* Periods computed by hand: floor(clock / f + 0.5). */
static void periods_round_to_the_nearest_cycle(void **state)
{
    (void)state;
    assert_int_equal(tea_run_period(3200000000u, 4000), 800000);      /* exact */
    assert_int_equal(tea_run_period(3200000000u, 1e6), 3200);
    assert_int_equal(tea_run_period(3200000000u, 333333), 9600);      /* 9600.0096 */
    assert_int_equal(tea_run_period(3200000000u, 7000), 457143);      /* 457142.857 */
    assert_int_equal(tea_run_period(2499, 1000), 2);                  /* 2.499 */
    assert_int_equal(tea_run_period(2501, 1000), 3);                  /* 2.501 */
    /* a half rounds up */
    assert_int_equal(tea_run_period(5, 2), 3);                        /* 2.5 */
    assert_int_equal(tea_run_period(7, 2), 4);                        /* 3.5 */
    assert_int_equal(tea_run_period(3, 2), 2);                        /* 1.5 */
    assert_int_equal(tea_run_period(2500, 1000), 3);                  /* 2.5 */
    /* at least one cycle */
    assert_int_equal(tea_run_period(1000, 2000), 1);                  /* 0.5 rounds up to 1 */
    assert_int_equal(tea_run_period(1000, 3000), 1);                  /* 0.33 rounds to 0 */
    assert_int_equal(tea_run_period(1000, 1e12), 1);
    assert_int_equal(tea_run_period(0, 4000), 1);                     /* no clock */
    assert_int_equal(tea_run_period(3200000000u, 3200000000.0), 1);
    /* at most UINT64_MAX */
    assert_true(tea_run_period(1000000000000u, 1e-7) == 10000000000000000000u); /* 1e19 */
    assert_true(tea_run_period(1000000000000u, 5e-8) == UINT64_MAX);            /* 2e19 */
    assert_true(tea_run_period(1000000000000u, 1e-300) == UINT64_MAX);          /* inf */
    assert_true(tea_run_period(UINT64_MAX, 1) == UINT64_MAX);                   /* 2^64 as a double */
}

/* --samples: K * clock / cycles to three significant digits; a sampled
 * trace's cycles stand for every / length as many; one sample per cycle at
 * most; and the sampled period rule: clock * length / (freq * every). */
static void frequencies_for_sample_counts(void **state)
{
    (void)state;
    /* 2000 * 3.2e9 / 2e8 = 32000 exactly */
    assert_true(tea_run_frequency_for_samples(2000, 3200000000u, 200000000.0, 1.0) == 32000.0);
    /* 1000 * 3.2e9 / 3e8 = 10666.67 -> 10700 */
    assert_true(tea_run_frequency_for_samples(1000, 3200000000u, 300000000.0, 1.0) == 10700.0);
    /* 2000 * 3.2e9 / 10321 = 620,094,952 -> 620 M; sampled 1000 in 10^6
     * (the cycles stand for 1000 times as many): 620 k */
    assert_true(tea_run_frequency_for_samples(2000, 3200000000u, 10321.0, 1.0) == 620000000.0);
    assert_true(tea_run_frequency_for_samples(2000, 3200000000u, 10321000.0, 1000.0) == 620000.0);
    /* fewer cycles than samples: one sample per cycle (sampled: per trace cycle) */
    assert_true(tea_run_frequency_for_samples(2000, 3200000000u, 386.0, 1.0) == 3200000000.0);
    assert_true(tea_run_frequency_for_samples(2000, 3200000000u, 386000.0, 1000.0) == 3200000.0);
    /* the sampled period: 3.2e9 * 1000 / (620,000 * 10^6) = 5.16 -> 5 */
    assert_int_equal(tea_run_sampled_period(3200000000u, 620000, 1000000, 1000), 5);
    assert_int_equal(tea_run_sampled_period(3200000000u, 4000, 1000000, 10000), 8000);
    assert_int_equal(tea_run_sampled_period(3200000000u, 4000, 0, 0), 800000);
}

static void names_traces_and_labels_schemes(void **state)
{
    char buf[TEA_RUN_NAME_MAX];
    tea_run_scheme ibs_all = { PICS_SCHEME_IBS, 1 }, tea = { PICS_SCHEME_TEA, 0 };
    (void)state;
    tea_run_trace_name("runs/mcf.td.zst", buf, sizeof buf);
    assert_string_equal(buf, "mcf");
    tea_run_trace_name("lbm.tea", buf, sizeof buf);
    assert_string_equal(buf, "lbm");
    tea_run_trace_name("a/b/x.trace.bin", buf, sizeof buf);
    assert_string_equal(buf, "x");
    tea_run_trace_name(".tea", buf, sizeof buf);  /* nothing would be left */
    assert_string_equal(buf, ".tea");
    tea_run_trace_name("-", buf, sizeof buf);
    assert_string_equal(buf, "-");
    tea_run_scheme_label(&ibs_all, buf, sizeof buf);
    assert_string_equal(buf, "ibs:all");
    tea_run_scheme_label(&tea, buf, sizeof buf);
    assert_string_equal(buf, "tea");
}

/* Options for two schemes at two frequencies with two seeds. */
static tea_run_options two_by_two(const tea_run_scheme *schemes, const double *freqs, unsigned threads)
{
    tea_run_options o;
    memset(&o, 0, sizeof o);
    o.schemes = schemes;
    o.scheme_count = 2;
    o.freqs = freqs;
    o.freq_count = 2;
    o.first_seed = 7;
    o.seed_count = 2;
    o.jitter = PICS_JITTER_INTERVAL;
    o.threads = threads;
    return o;
}

/* Writes a model trace of `workload` in native frames; returns its path. */
static char *write_trace(const char *workload, uint64_t seed, const char *name)
{
    trace_write_options wo = { TRACE_FORMAT_NATIVE, 0, 0, FRAME_RECORDS };
    char *path = test_temp_path(name);
    test_stream s;
    test_model_stream(workload, seed, CYCLES, &s);
    assert_int_equal(test_stream_write(&s, &s.header, &wo, path), 0);
    test_stream_free(&s);
    return path;
}

/* Samplers are scheme-major, then frequency, then seed, with the rule's
 * periods; a run by frames equals one as a stream. */
static void runs_every_sampler_in_order(void **state)
{
    static const tea_run_scheme schemes[] = { { PICS_SCHEME_TEA, 0 }, { PICS_SCHEME_IBS, 1 } };
    static const double freqs[] = { 1e6, 3e6 };
    char *path = write_trace("mixed", 3, "run.tea");
    tea_run_options o;
    tea_run framed, streamed;
    (void)state;

    o = two_by_two(schemes, freqs, 3);
    assert_int_equal(tea_run_trace(&o, path, &framed), 0);
    o.threads = 1;
    assert_int_equal(tea_run_trace(&o, path, &streamed), 0);
    assert_non_null(strstr(framed.name, "run"));
    assert_null(strstr(framed.name, ".tea"));
    assert_string_equal(framed.digest, streamed.digest);
    assert_int_equal(framed.row_count, 8);
    for (size_t i = 0; i < framed.row_count; i++) {
        const tea_run_row *row = &framed.rows[i];
        size_t f = (i / 2) % 2;
        assert_int_equal(row->spec.scheme, schemes[i / 4].scheme);
        assert_string_equal(row->label, i < 4 ? "tea" : "ibs:all");
        assert_int_equal(row->spec.period, tea_run_period(framed.header.clock_hz, freqs[f]));
        assert_true(row->spec.frequency_hz == freqs[f]);
        assert_int_equal(row->spec.seed, 7 + i % 2);
        assert_true(isnan(row->error[0]));
        assert_int_equal(row->samples, streamed.rows[i].samples);
        assert_int_equal(row->lost, streamed.rows[i].lost);
    }
    assert_int_equal(tea_run_errors(&framed, NULL), 0);
    assert_int_equal(tea_run_errors(&streamed, NULL), 0);
    for (size_t i = 0; i < framed.row_count; i++) {
        assert_false(isnan(framed.rows[i].error[PICS_GRAN_INSN_COMPONENT]));
        assert_true(framed.rows[i].error[PICS_GRAN_INSN] == streamed.rows[i].error[PICS_GRAN_INSN]);
        assert_true(isnan(framed.rows[i].error[PICS_GRAN_FUNC])); /* no functions */
    }
    tea_run_free(&framed);
    tea_run_free(&streamed);
    unlink(path);
    free(path);
}

/* A period instead of frequencies: one sampler per scheme and seed, its
 * frequency the clock over the period; a missing file fails with the
 * reader's message. */
static void runs_at_a_period_and_reports_errors(void **state)
{
    static const tea_run_scheme schemes[] = { { PICS_SCHEME_NCI, 0 }, { PICS_SCHEME_SPE, 0 } };
    static const double freqs[] = { 1e6, 3e6 };
    char *path = write_trace("memory", 4, "period.tea");
    tea_run_options o = two_by_two(schemes, freqs, 1);
    tea_run run;
    (void)state;

    o.period = 1000;
    o.open.clock_hz = 2000000;
    assert_int_equal(tea_run_trace(&o, path, &run), 0);
    assert_int_equal(run.header.clock_hz, 2000000);
    assert_int_equal(run.row_count, 4);
    for (size_t i = 0; i < run.row_count; i++) {
        assert_int_equal(run.rows[i].spec.period, 1000);
        assert_true(run.rows[i].spec.frequency_hz == 2000.0);
    }
    tea_run_free(&run);
    assert_int_equal(tea_run_trace(&o, "/nonexistent/x.tea", &run), TEA_ERR_IO);
    assert_contains(error_message(), "/nonexistent/x.tea");
    tea_run_free(&run);
    unlink(path);
    free(path);
}

/* Sums every cell of `from` into `into`. */
static void add_cells(pics *into, const pics *from)
{
    for (size_t i = 0; i < from->capacity; i++) {
        const pics_cell *c = &from->slots[i];
        if (c->used)
            assert_int_equal(pics_add(into, c->pc, c->psv, c->value, c->count), 0);
    }
}

/* Asserts that two PICS hold the same values, cell for cell. */
static void assert_same_values(const pics *a, const pics *b)
{
    assert_true(a->total == b->total);
    for (size_t i = 0; i < a->capacity; i++) {
        const pics_cell *c = &a->slots[i], *d;
        if (!c->used)
            continue;
        d = pics_find(b, c->pc, c->psv);
        assert_non_null(d);
        assert_true(c->value == d->value);
    }
}

/*
 * Noise floors (docs/semantics.md): TEA's floor is TEA's error, exactly, at
 * every granularity and seed; NCI-TEA's is TEA's at the same seed (the same
 * points); by frames and as a stream alike. A tagger's floor equals a brute
 * force one: TEA at each of its sample points alone, summed. At a period of
 * one cycle TEA's error and floor are 0.
 */
static void noise_floors(void **state)
{
    static const tea_run_scheme schemes[] = { { PICS_SCHEME_TEA, 0 }, { PICS_SCHEME_NCI, 0 }, { PICS_SCHEME_IBS, 0 },
                                              { PICS_SCHEME_SPE, 0 }, { PICS_SCHEME_RIS, 0 } };
    static const double freqs[] = { 2e6 };
    char *path = write_trace("mixed", 5, "floor.tea");
    tea_run_options o = two_by_two(schemes, freqs, 3);
    tea_run framed, streamed, one;
    (void)state;

    o.scheme_count = 5;
    o.freq_count = 1;
    o.noise_floor = 1;
    assert_int_equal(tea_run_trace(&o, path, &framed), 0);
    o.threads = 1;
    assert_int_equal(tea_run_trace(&o, path, &streamed), 0);
    assert_int_equal(tea_run_errors(&framed, NULL), 0);
    assert_int_equal(tea_run_errors(&streamed, NULL), 0);
    assert_int_equal(framed.row_count, 10);
    for (size_t i = 0; i < framed.row_count; i++) {
        const tea_run_row *row = &framed.rows[i];
        const tea_run_row *tea = &framed.rows[i % 2]; /* TEA at the same seed */
        for (int g = 0; g < PICS_GRAN_FUNC; g++) {
            assert_false(isnan(row->noise_floor[g]));
            assert_true(row->noise_floor[g] == streamed.rows[i].noise_floor[g]);
            if (row->spec.scheme == PICS_SCHEME_TEA || row->spec.scheme == PICS_SCHEME_NCI)
                assert_true(row->noise_floor[g] == tea->error[g]);
        }
        assert_true(isnan(row->noise_floor[PICS_GRAN_FUNC])); /* no functions */
    }
    /* Brute force for every tagger row: one replay per sample point. */
    for (size_t i = 4; i < framed.row_count; i++) {
        uint64_t n;
        const uint64_t *points = tea_replay_sampler_points(framed.replay, i, &n);
        pics sum;
        assert_int_equal(n, framed.rows[i].samples);
        assert_true(n > 10);
        assert_int_equal(pics_init(&sum), 0);
        for (uint64_t k = 0; k < n; k++) {
            tea_run_options single = o;
            tea_sampler_spec sp = framed.floor->rows[i].spec;
            sp.points = &points[k];
            sp.point_count = 1;
            single.specs = &sp;
            single.spec_count = 1;
            single.noise_floor = 0;
            assert_int_equal(tea_run_trace(&single, path, &one), 0);
            assert_int_equal(one.rows[0].samples, 1);
            add_cells(&sum, tea_replay_sampler_pics(one.replay, 0));
            tea_run_free(&one);
        }
        assert_same_values(&sum, tea_replay_sampler_pics(framed.floor->replay, i));
        pics_free(&sum);
    }
    tea_run_free(&framed);
    tea_run_free(&streamed);

    o.scheme_count = 1;
    o.seed_count = 1;
    o.period = 1;
    assert_int_equal(tea_run_trace(&o, path, &one), 0);
    assert_int_equal(tea_run_errors(&one, NULL), 0);
    assert_true(one.rows[0].error[PICS_GRAN_INSN_COMPONENT] == 0);
    assert_true(one.rows[0].noise_floor[PICS_GRAN_INSN_COMPONENT] == 0);
    tea_run_free(&one);
    unlink(path);
    free(path);
}

/* The floor's second pass needs a file: standard input is refused. */
static void noise_floor_needs_a_file(void **state)
{
    static const tea_run_scheme schemes[] = { { PICS_SCHEME_IBS, 0 } };
    static const double freqs[] = { 2e6 };
    char *path = write_trace("mixed", 5, "stdin.tea");
    tea_run_options o = two_by_two(schemes, freqs, 1);
    tea_run run;
    FILE *saved;
    (void)state;

    o.scheme_count = o.freq_count = o.seed_count = 1;
    o.noise_floor = 1;
    assert_non_null(saved = freopen(path, "rb", stdin));
    assert_int_equal(tea_run_trace(&o, "-", &run), TEA_ERR_USAGE);
    assert_contains(error_message(), "standard input");
    tea_run_free(&run);
    unlink(path);
    free(path);
}

/* A program of two cores (tea/program.h): its golden and sampled PICS are
 * the cores' summed cell for cell, its samples, losses, cycles and records
 * theirs summed, its digest the sum of theirs; a core sampled at another
 * period is refused, naming it. */
static void programs_sum_their_cores(void **state)
{
    static const tea_run_scheme schemes[] = { { PICS_SCHEME_TEA, 0 }, { PICS_SCHEME_IBS, 0 } };
    static const double freqs[] = { 1e6, 3e6 };
    char *paths[2] = { write_trace("memory", 4, "core0.tea"), write_trace("mixed", 5, "core1.tea") };
    tea_run_options o = two_by_two(schemes, freqs, 1);
    tea_run runs[2];
    tea_program p;
    pics golden_sum, tea_sum;
    uint64_t samples = 0, lost = 0, cycles = 0, records = 0, digests = 0;
    char digest[TRACE_DIGEST_LEN + 1];
    (void)state;

    tea_program_init(&p, "prog");
    assert_int_equal(pics_init(&golden_sum), 0);
    assert_int_equal(pics_init(&tea_sum), 0);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(tea_run_trace(&o, paths[k], &runs[k]), 0);
        assert_int_equal(tea_program_add(&p, &runs[k]), 0);
        add_cells(&golden_sum, tea_replay_golden(runs[k].replay));
        add_cells(&tea_sum, tea_replay_sampler_pics(runs[k].replay, 0));
        samples += runs[k].rows[5].samples;
        lost += runs[k].rows[5].lost;
        cycles += runs[k].totals.last_cycle - runs[k].totals.first_cycle;
        records += runs[k].totals.records;
        digests += strtoull(runs[k].digest, NULL, 16);
    }
    assert_int_equal(p.cores, 2);
    assert_int_equal(p.row_count, 8);
    assert_same_values(&p.golden.cells, &golden_sum);
    assert_same_values(&p.samplers[0].cells, &tea_sum);
    assert_true(p.rows[5].samples == samples && p.rows[5].lost == lost);
    assert_true(p.cycles == cycles && p.records == records);
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)digests);
    assert_string_equal(p.digest, digest);
    assert_true(p.golden.info.golden_total == golden_sum.total);
    assert_int_equal(tea_program_errors(&p, NULL), 0);
    assert_true(p.rows[0].error[0] >= 0 && p.rows[0].error[0] <= 1);
    assert_true(isnan(p.rows[0].error[2])); /* no functions */

    /* a core sampled otherwise */
    o.period = 777;
    tea_run_free(&runs[1]);
    assert_int_equal(tea_run_trace(&o, paths[1], &runs[1]), 0);
    assert_int_equal(tea_program_add(&p, &runs[1]), TEA_ERR_USAGE);
    assert_contains(error_message(), "core1.tea");
    for (int k = 0; k < 2; k++) {
        tea_run_free(&runs[k]);
        unlink(paths[k]);
        free(paths[k]);
    }
    tea_program_free(&p);
    pics_free(&golden_sum);
    pics_free(&tea_sum);
}

/* FireSim's per-core files in a directory: by node, then core number
 * (numerically), suffixes allowed; other names ignored; none refused. */
static void finds_firesim_core_files(void **state)
{
    static const char *const names[] = { "TRACEFILE1-C0", "TRACEFILE0-C10.td.zst", "TRACEFILE0-C2", "notes.txt",
                                         "TRACEFILE0-C", "x-C3y" };
    static const char *const expected[] = { "TRACEFILE0-C2", "TRACEFILE0-C10.td.zst", "TRACEFILE1-C0" };
    char *dir = test_temp_path("cores");
    char **paths;
    size_t count;
    (void)state;

    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(tea_program_core_files(dir, &paths, &count), TEA_ERR_USAGE);
    assert_contains(error_message(), "no per-core trace files");
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char path[512];
        FILE *f;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        assert_non_null(f = fopen(path, "w"));
        fclose(f);
    }
    assert_int_equal(tea_program_core_files(dir, &paths, &count), 0);
    assert_int_equal(count, 3);
    for (size_t k = 0; k < count; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, expected[k]);
        assert_string_equal(paths[k], path);
    }
    tea_program_core_files_free(paths, count);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(periods_round_to_the_nearest_cycle),
        cmocka_unit_test(frequencies_for_sample_counts),
        cmocka_unit_test(names_traces_and_labels_schemes),
        cmocka_unit_test(runs_every_sampler_in_order),
        cmocka_unit_test(runs_at_a_period_and_reports_errors),
        cmocka_unit_test(noise_floors),
        cmocka_unit_test(noise_floor_needs_a_file),
        cmocka_unit_test(programs_sum_their_cores),
        cmocka_unit_test(finds_firesim_core_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
