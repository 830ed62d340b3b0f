/*
 * test_pics.c: the PICS error metric (pics/error.c) on hand-computed
 * examples at every granularity, the PICS file round trip
 * (pics/pics_file.c), and the accumulation cache against the map. Every
 * expected value is worked out in the comments, never by calling the code
 * under test.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include "common/error.h"
#include "common/stats.h"
#include "pics/error.h"
#include "pics/pics_file.h"
#include "pics/tdimport.h"
#include "trace/psv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-12
#define U PICS_UNIT

/* Adds cells {pc, psv, units} to an empty map; units are cycles (golden)
 * or samples (sampled), each PICS_UNIT. */
typedef struct cell_spec {
    uint64_t pc;
    uint16_t psv;
    uint64_t units;
} cell_spec;

static void build(pics *p, const cell_spec *cells, size_t n)
{
    assert_int_equal(pics_init(p), TEA_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(pics_add(p, cells[i].pc, cells[i].psv, cells[i].units * U, 1), TEA_OK);
}

/* The golden PICS of the examples, C = 12 cycles:
 *   (0x100, base) 6   (0x100, ST-L1) 2   (0x200, base) 4 */
static const cell_spec golden_cells[] = { { 0x100, 0, 6 }, { 0x100, 1, 2 }, { 0x200, 0, 4 } };

/* A sampled PICS of 4 samples, each scaled to 12/4 = 3 cycles:
 *   (0x100, base) 1 -> 3   (0x100, ST-L1) 1 -> 3   (0x200, base) 2 -> 6 */
static const cell_spec sampled_cells[] = { { 0x100, 0, 1 }, { 0x100, 1, 1 }, { 0x200, 0, 2 } };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Asserts that the contributions add up to the error. */
static void assert_contributions_sum(const pics_error_result *r)
{
    double sum = 0;
    for (size_t i = 0; i < r->count; i++)
        sum += r->items[i].contribution;
    assert_float_equal(sum, r->error, EPS);
}

static void test_insn_component(void **state)
{
    pics g, s;
    pics_error_result r;
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));
    /* |3-6| + |3-2| + |6-4| = 3 + 1 + 2 = 6 cycles; 6 / (2 x 12) = 0.25.
     * 0x100: (3 + 1) / 24 = 1/6; 0x200: 2 / 24 = 1/12. */
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_INSN_COMPONENT, NULL, &r), TEA_OK);
    assert_float_equal(r.error, 0.25, EPS);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.items[0].pc, 0x100);
    assert_float_equal(r.items[0].contribution, 1.0 / 6, EPS);
    assert_null(r.items[0].name);
    assert_int_equal(r.items[1].pc, 0x200);
    assert_float_equal(r.items[1].contribution, 1.0 / 12, EPS);
    assert_contributions_sum(&r);
    pics_error_result_free(&r);
    pics_free(&g);
    pics_free(&s);
}

static void test_insn(void **state)
{
    pics g, s;
    pics_error_result r;
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));
    /* Components summed: 0x100 sampled 3 + 3 = 6 against golden 6 + 2 = 8,
     * 0x200 sampled 6 against 4: |6-8| + |6-4| = 4; 4 / 24 = 1/6, each
     * instruction 2 / 24 = 1/12 (ties: lower address first). */
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_INSN, NULL, &r), TEA_OK);
    assert_float_equal(r.error, 1.0 / 6, EPS);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.items[0].pc, 0x100);
    assert_int_equal(r.items[1].pc, 0x200);
    assert_float_equal(r.items[0].contribution, 1.0 / 12, EPS);
    assert_float_equal(r.items[1].contribution, 1.0 / 12, EPS);
    assert_contributions_sum(&r);
    pics_error_result_free(&r);
    pics_free(&g);
    pics_free(&s);
}

static void test_func(void **state)
{
    pics g, s;
    pics_error_result r;
    char f_name[] = "f", g_name[] = "g";
    trace_symmap_entry both[] = { { 0x100, 0x300, f_name } };
    trace_symmap_entry only_g[] = { { 0x200, 0x280, g_name } };
    trace_symmap one = { both, 1 }, partial = { only_g, 1 };
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));

    /* One function f holding both instructions, by component: base sampled
     * 3 + 6 = 9 against golden 6 + 4 = 10, ST-L1 3 against 2: |9-10| +
     * |3-2| = 2; 2 / 24 = 1/12, all of it f's (reported at f's start). */
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_FUNC, &one, &r), TEA_OK);
    assert_float_equal(r.error, 1.0 / 12, EPS);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.items[0].name, "f");
    assert_int_equal(r.items[0].pc, 0x100);
    assert_float_equal(r.items[0].contribution, 1.0 / 12, EPS);
    pics_error_result_free(&r);

    /* Only g = [0x200, 0x280): 0x100 falls in [unknown] (pc 0) with
     * |3-6| + |3-2| = 4, g has |6-4| = 2: 6 / 24 = 0.25; [unknown] 1/6
     * first, g 1/12. */
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_FUNC, &partial, &r), TEA_OK);
    assert_float_equal(r.error, 0.25, EPS);
    assert_int_equal(r.count, 2);
    assert_string_equal(r.items[0].name, "[unknown]");
    assert_int_equal(r.items[0].pc, 0);
    assert_float_equal(r.items[0].contribution, 1.0 / 6, EPS);
    assert_string_equal(r.items[1].name, "g");
    assert_int_equal(r.items[1].pc, 0x200);
    assert_float_equal(r.items[1].contribution, 1.0 / 12, EPS);
    assert_contributions_sum(&r);
    pics_error_result_free(&r);

    /* Function granularity without symbols is a usage error. */
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_FUNC, NULL, &r), TEA_ERR_USAGE);
    pics_free(&g);
    pics_free(&s);
}

static void test_identical_and_proportional(void **state)
{
    static const cell_spec half[] = { { 0x100, 0, 3 }, { 0x100, 1, 1 }, { 0x200, 0, 2 } };
    pics g, s;
    pics_error_result r;
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    /* The golden PICS against itself: every difference 0, no contribution. */
    for (int gran = PICS_GRAN_INSN_COMPONENT; gran <= PICS_GRAN_INSN; gran++) {
        assert_int_equal(pics_error_compute(&g, &g, (pics_granularity)gran, NULL, &r), TEA_OK);
        assert_true(r.error == 0.0);
        assert_int_equal(r.count, 0);
        pics_error_result_free(&r);
    }
    /* 6 samples in the golden proportions 3:1:2 scale to 6, 2, 4: exact. */
    build(&s, half, COUNT(half));
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_INSN_COMPONENT, NULL, &r), TEA_OK);
    assert_true(r.error == 0.0);
    assert_int_equal(r.count, 0);
    pics_error_result_free(&r);
    pics_free(&g);
    pics_free(&s);
}

static void test_disjoint(void **state)
{
    static const cell_spec gold[] = { { 0x100, 0, 5 } };
    static const cell_spec elsewhere[] = { { 0x900, 0, 1 } };
    pics g, s;
    pics_error_result r;
    (void)state;
    build(&g, gold, COUNT(gold));
    build(&s, elsewhere, COUNT(elsewhere));
    /* The one sample scales to all 5 cycles at 0x900: |0-5| + |5-0| = 10;
     * 10 / (2 x 5) = 1, half of it from each instruction. */
    assert_int_equal(pics_error_compute(&s, &g, PICS_GRAN_INSN_COMPONENT, NULL, &r), TEA_OK);
    assert_float_equal(r.error, 1.0, EPS);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.items[0].pc, 0x100);
    assert_int_equal(r.items[1].pc, 0x900);
    assert_float_equal(r.items[0].contribution, 0.5, EPS);
    assert_float_equal(r.items[1].contribution, 0.5, EPS);
    assert_contributions_sum(&r);
    pics_error_result_free(&r);
    pics_free(&g);
    pics_free(&s);
}

/* The error's interval over window groups, by the jackknife. Three groups:
 * golden G0 = G1 = {0x100: 4 cycles}, G2 = {0x200: 4}; one sample at 0x100
 * in each. Without group 0 (or 1): two samples at 0x100 scaled to C = 8
 * against 4 and 4: (|8 - 4| + |0 - 4|) / 16 = 0.5; without group 2: all at
 * 0x100 on both sides, 0. Mean 1/3, Σ (e - mean)^2 = 1/6, jackknife
 * variance (3 - 1) / 3 · 1/6 = 1/9: standard error 1/3, half-width
 * t(0.975, 2) / 3 = 4.302653 / 3. Groups whose samples match their golden
 * shape give 0. */
static void test_error_jackknife(void **state)
{
    static const cell_spec g01[] = { { 0x100, 0, 4 } }, g2[] = { { 0x200, 0, 4 } }, one[] = { { 0x100, 0, 1 } },
                           there[] = { { 0x200, 0, 1 } };
    pics g[3], s[3];
    double half = NAN;
    (void)state;
    build(&g[0], g01, 1);
    build(&g[1], g01, 1);
    build(&g[2], g2, 1);
    for (int k = 0; k < 3; k++)
        build(&s[k], one, 1);
    assert_int_equal(pics_error_jackknife(s, g, 3, PICS_GRAN_INSN_COMPONENT, NULL, &half), TEA_OK);
    assert_float_equal(half, stats_t975(2) / 3.0, EPS);
    assert_float_equal(half, 1.4342, 2e-4); /* t(0.975, 2) = 4.3027, tabled to three decimals */
    pics_free(&s[2]);
    build(&s[2], there, 1);
    assert_int_equal(pics_error_jackknife(s, g, 3, PICS_GRAN_INSN, NULL, &half), TEA_OK);
    assert_float_equal(half, 0.0, EPS);
    for (int k = 0; k < 3; k++) {
        pics_free(&g[k]);
        pics_free(&s[k]);
    }
}

static void test_empty(void **state)
{
    pics g, s, none;
    pics_error_result r;
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));
    assert_int_equal(pics_init(&none), TEA_OK);
    /* No sample at all: error 1, each instruction its golden share:
     * 0x100 (6 + 2) / 12 = 2/3, 0x200 4 / 12 = 1/3. */
    assert_int_equal(pics_error_compute(&none, &g, PICS_GRAN_INSN_COMPONENT, NULL, &r), TEA_OK);
    assert_float_equal(r.error, 1.0, EPS);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.items[0].pc, 0x100);
    assert_float_equal(r.items[0].contribution, 2.0 / 3, EPS);
    assert_int_equal(r.items[1].pc, 0x200);
    assert_float_equal(r.items[1].contribution, 1.0 / 3, EPS);
    assert_contributions_sum(&r);
    pics_error_result_free(&r);
    /* An empty golden PICS has no error: a usage error, result empty. */
    assert_int_equal(pics_error_compute(&s, &none, PICS_GRAN_INSN, NULL, &r), TEA_ERR_USAGE);
    assert_int_equal(r.count, 0);
    assert_null(r.items);
    pics_free(&g);
    pics_free(&s);
    pics_free(&none);
}

/* --- the PICS file ----------------------------------------------------------- */

static void test_file_round_trip(void **state)
{
    pics p, back;
    pics_info info, read;
    char *path = test_temp_path("round.pics");
    (void)state;
    assert_int_equal(pics_init(&p), TEA_OK);
    /* Cells with awkward values: 64-bit addresses, every PSV bit, a value
     * that is no multiple of the unit. */
    assert_int_equal(pics_add(&p, 0xffffffff80001234ull, 0x1FF, 3 * U + 7, 2), TEA_OK);
    assert_int_equal(pics_add(&p, 0x401000, 0, 5 * U, 9), TEA_OK);
    assert_int_equal(pics_add(&p, 0x401000, 0x40, U, 1), TEA_OK);
    assert_int_equal(pics_add(&p, 0x10, 0x21, 1, 1), TEA_OK);

    pics_info_init(&info);
    strcpy(info.scheme, "ibs");
    strcpy(info.trace_digest, "0123456789abcdef");
    info.trace_first_cycle = 100;
    info.trace_last_cycle = 123456789;
    info.trace_records = 4242;
    strcpy(info.program.arch, "riscv64");
    info.clock_hz = 3200000000ull;
    info.program.binary_path = strdup("/opt/prog with space");
    info.program.build_id = strdup("deadbeef");
    info.program.load_bias = 0x555555554000ull;
    info.program.has_load_bias = 1;
    info.golden_total = 987654321ull * U;
    info.period = 800000;
    info.frequency_hz = 4000.0;
    info.seed = 77;
    strcpy(info.jitter, "interval");
    strcpy(info.events, "native");
    info.event_mask = 0x0DB;
    info.samples = 12345;
    for (int i = 0; i < PICS_LOST_REASONS; i++)
        info.lost[i] = 10 + (uint64_t)i;
    info.merged = 3;

    assert_int_equal(pics_write(path, &info, &p), TEA_OK);
    assert_int_equal(pics_read(path, &read, &back), TEA_OK);

    assert_string_equal(read.scheme, "ibs");
    assert_int_equal(read.unit, U);
    assert_string_equal(read.trace_digest, "0123456789abcdef");
    assert_int_equal(read.trace_first_cycle, 100);
    assert_int_equal(read.trace_last_cycle, 123456789);
    assert_int_equal(read.trace_records, 4242);
    assert_string_equal(read.program.arch, "riscv64");
    assert_int_equal(read.clock_hz, 3200000000ull);
    assert_string_equal(read.program.binary_path, "/opt/prog with space");
    assert_string_equal(read.program.build_id, "deadbeef");
    assert_int_equal(read.program.has_load_bias, 1);
    assert_int_equal(read.program.load_bias, 0x555555554000ull);
    assert_int_equal(read.golden_total, 987654321ull * U);
    assert_int_equal(read.period, 800000);
    assert_true(read.frequency_hz == 4000.0);
    assert_int_equal(read.seed, 77);
    assert_string_equal(read.jitter, "interval");
    assert_string_equal(read.events, "native");
    assert_int_equal(read.event_mask, 0x0DB);
    assert_int_equal(read.samples, 12345);
    for (int i = 0; i < PICS_LOST_REASONS; i++)
        assert_int_equal(read.lost[i], 10 + (uint64_t)i);
    assert_int_equal(read.merged, 3);

    /* Every cell, and the total 3U + 7 + 5U + U + 1 = 9U + 8. */
    assert_int_equal(back.count, 4);
    assert_int_equal(back.total, 9 * U + 8);
    for (size_t i = 0; i < p.capacity; i++) {
        const pics_cell *c = &p.slots[i], *b;
        if (!c->used)
            continue;
        assert_non_null(b = pics_find(&back, c->pc, c->psv));
        assert_int_equal(b->value, c->value);
        assert_int_equal(b->count, c->count);
    }

    pics_info_free(&info);
    pics_info_free(&read);
    pics_free(&p);
    pics_free(&back);
    remove(path);
    free(path);
}

/* Objects for the PICS tests: a main binary with a 20-byte build-id and a
 * library without one, its path with spaces. */
/* A PICS with calling contexts: main (1) calls leaf from two sites (2, 3).
 * Written and read with its contexts it is the same map; read flat, each
 * (PC, PSV) sums its contexts; merged into a PICS whose contexts were made
 * in another order, the paths (not the ids) decide. */
static void test_contexts_round_trip_and_merge(void **state)
{
    pics p, back, flat, other;
    pics_info info, read;
    uint32_t id;
    char *path = test_temp_path("contexts.pics");
    (void)state;
    assert_int_equal(pics_init(&p), TEA_OK);
    assert_int_equal(trace_contexts_init(&p.contexts), TEA_OK);
    assert_int_equal(trace_contexts_intern(&p.contexts, 0, 0, 0x1000, &id), TEA_OK);
    assert_int_equal(trace_contexts_intern(&p.contexts, 1, 0x1004, 0x4000, &id), TEA_OK);
    assert_int_equal(trace_contexts_intern(&p.contexts, 1, 0x1010, 0x4000, &id), TEA_OK);
    assert_int_equal(id, 3);
    assert_int_equal(pics_add_ctx(&p, 1, 0x1000, 0, 2 * U, 2), TEA_OK);
    assert_int_equal(pics_add_ctx(&p, 2, 0x4000, 0, 3 * U, 3), TEA_OK);
    assert_int_equal(pics_add_ctx(&p, 3, 0x4000, 0, 1 * U, 1), TEA_OK);
    assert_int_equal(pics_add_ctx(&p, 3, 0x4000, 4, U / 2, 1), TEA_OK);
    pics_info_init(&info);
    strcpy(info.scheme, "golden");
    info.golden_total = p.total;
    assert_int_equal(pics_write(path, &info, &p), TEA_OK);

    assert_int_equal(pics_read_contexts(path, &read, &back), TEA_OK);
    assert_int_equal(read.contexts, 3);
    assert_int_equal(back.contexts.count, 4);
    assert_int_equal(back.contexts.nodes[3].site, 0x1010);
    assert_int_equal(back.count, 4);
    assert_int_equal(pics_find_ctx(&back, 2, 0x4000, 0)->value, 3 * U);
    assert_int_equal(pics_find_ctx(&back, 3, 0x4000, 0)->count, 1);
    pics_info_free(&read);

    assert_int_equal(pics_read(path, &read, &flat), TEA_OK);
    assert_int_equal(read.contexts, 3);
    assert_false(pics_has_contexts(&flat));
    assert_int_equal(flat.count, 3);
    assert_int_equal(pics_find(&flat, 0x4000, 0)->value, 4 * U);
    assert_int_equal(pics_find(&flat, 0x4000, 0)->count, 4);
    assert_int_equal(flat.total, p.total);
    pics_info_free(&read);

    /* other: leaf's second path first, then main alone */
    assert_int_equal(pics_init(&other), TEA_OK);
    assert_int_equal(trace_contexts_init(&other.contexts), TEA_OK);
    assert_int_equal(trace_contexts_intern(&other.contexts, 0, 0, 0x1000, &id), TEA_OK);
    assert_int_equal(trace_contexts_intern(&other.contexts, 1, 0x1010, 0x4000, &id), TEA_OK);
    assert_int_equal(pics_add_ctx(&other, 2, 0x4000, 0, U, 1), TEA_OK);
    assert_int_equal(pics_merge_into(&other, &back), TEA_OK);
    assert_int_equal(other.contexts.count, 4);
    assert_int_equal(pics_find_ctx(&other, 2, 0x4000, 0)->value, 2 * U); /* site 0x1010: 1 + 1 */
    assert_int_equal(pics_find_ctx(&other, 3, 0x4000, 0)->value, 3 * U); /* site 0x1004, new id 3 */
    assert_int_equal(other.total, p.total + U);
    assert_int_equal(pics_flatten(&other), TEA_OK);
    assert_int_equal(pics_find(&other, 0x4000, 0)->value, 5 * U);

    pics_free(&other);
    pics_free(&flat);
    pics_free(&back);
    pics_free(&p);
    pics_info_free(&info);
    remove(path);
    free(path);
}

/* Files with contexts that must be refused, each naming its line: a
 * parent not before its child, a context twice, cells out of order, a
 * cell of a context the file lacks. */
static void test_contexts_refused(void **state)
{
    static const struct {
        const char *contexts, *cells, *line;
    } bad[] = {
        { "1 0 0x0 0x10\n2 2 0x14 0x40\n", "1 0x10 0 720720 1\n", "line 7:" },
        { "1 0 0x0 0x10\n2 0 0x0 0x10\n", "1 0x10 0 720720 1\n", "line 7: duplicate context" },
        { "1 0 0x0 0x10\n2 1 0x14 0x40\n", "2 0x40 0 360360 1\n1 0x10 0 360360 1\n", "line 10: cell out of order" },
        { "1 0 0x0 0x10\n2 1 0x14 0x40\n", "3 0x40 0 720720 1\n", "line 9: malformed cell" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        unsigned cells = 0;
        pics_info info;
        pics p;
        for (const char *c = bad[i].cells; *c; c++)
            cells += *c == '\n';
        snprintf(text, sizeof text,
                 "tea-pics 1.5\nscheme golden\nunit 720720\ngolden_total 720720\ncontexts 2\n%scells %u\n%send\n",
                 bad[i].contexts, cells, bad[i].cells);
        assert_int_equal(pics_read_memory(text, strlen(text), "bad.pics", &info, &p), TEA_ERR_FORMAT);
        if (!strstr(error_message(), bad[i].line))
            fail_msg("case %zu: '%s' lacks '%s'", i, error_message(), bad[i].line);
        error_clear();
    }
    { /* a chain of 257 calls: deeper than any view's stack */
        const unsigned deep = TRACE_CONTEXT_MAX_DEPTH + 1;
        size_t size = 64 * (deep + 8), len;
        char *text = malloc(size);
        pics_info info;
        pics p;
        assert_non_null(text);
        len = (size_t)snprintf(text, size, "tea-pics 1.5\nscheme golden\nunit 720720\ngolden_total 720720\n"
                                           "contexts %u\n", deep);
        for (unsigned id = 1; id <= deep; id++)
            len += (size_t)snprintf(text + len, size - len, "%u %u 0x%x 0x%x\n", id, id - 1, id, id + 1);
        len += (size_t)snprintf(text + len, size - len, "cells 1\n1 0x10 0 720720 1\nend\n");
        assert_int_equal(pics_read_memory(text, len, "deep.pics", &info, &p), TEA_ERR_FORMAT);
        assert_non_null(strstr(error_message(), "line 262: context deeper than 256 calls"));
        error_clear();
        free(text);
    }
}

static void two_objects(trace_object objs[2])
{
    memset(objs, 0, 2 * sizeof objs[0]);
    objs[0].path = "/usr/bin/prog";
    objs[0].build_id_len = 20;
    for (int i = 0; i < 20; i++)
        objs[0].build_id[i] = (uint8_t)(0xf0 + i % 16);
    objs[0].load_bias = 0x555555554000ull;
    objs[0].start = 0x555555555000ull;
    objs[0].end = 0x555555560000ull;
    objs[1].path = "/opt/my libs/liba.so";
    objs[1].load_bias = 0x7f0000000000ull;
    objs[1].start = 0x7f0000001000ull;
    objs[1].end = 0x7f0000001000ull; /* empty range: allowed */
}

/* A golden PICS of one cell, with `count` of the two objects and thread
 * 99 of 4 when `thread`. */
static void objects_info(pics_info *info, size_t count, int thread)
{
    trace_object objs[2];
    two_objects(objs);
    pics_info_init(info);
    strcpy(info->scheme, "golden");
    strcpy(info->trace_digest, "0000000000000001");
    info->golden_total = U;
    assert_int_equal(pics_info_set_objects(info, objs, count, thread ? 99 : 0, thread ? 4 : 0), TEA_OK);
}

/* The objects and thread survive a file round trip; a PICS with them is
 * format 1.1, one without stays 1.0; merging keeps equal lists, unites the
 * lists of one address space and drops lists that disagree. */
static void test_objects_round_trip_and_merge(void **state)
{
    char *path = test_temp_path("objects.pics");
    trace_object want[2];
    pics_info info, read, other;
    pics p, back;
    uint8_t *bytes;
    size_t size;
    char hex[2 * TRACE_BUILD_ID_MAX + 1];
    (void)state;

    two_objects(want);
    assert_int_equal(pics_init(&p), TEA_OK);
    assert_int_equal(pics_add(&p, 0x555555555010ull, 0, U, 1), TEA_OK);
    objects_info(&info, 2, 1);
    assert_int_equal(pics_write(path, &info, &p), TEA_OK);
    test_read_file(path, &bytes, &size);
    assert_true(size > 12 && memcmp(bytes, "tea-pics 1.1", 12) == 0);
    free(bytes);
    assert_int_equal(pics_read(path, &read, &back), TEA_OK);
    assert_int_equal(read.objects.count, 2);
    assert_int_equal(read.objects.tid, 99);
    assert_int_equal(read.objects.threads_seen, 4);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(read.objects.items[i].path, want[i].path);
        assert_int_equal(read.objects.items[i].build_id_len, want[i].build_id_len);
        assert_memory_equal(read.objects.items[i].build_id, want[i].build_id, want[i].build_id_len);
        assert_int_equal(read.objects.items[i].load_bias, want[i].load_bias);
        assert_int_equal(read.objects.items[i].start, want[i].start);
        assert_int_equal(read.objects.items[i].end, want[i].end);
    }
    trace_object_build_id_hex(&read.objects.items[0], hex, sizeof hex);
    assert_string_equal(hex, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfefff0f1f2f3"); /* 20 bytes: 0xf0 + i % 16 */
    pics_free(&back);

    /* equal lists stay */
    assert_int_equal(pics_info_merge(&read, &info), TEA_OK);
    assert_int_equal(read.objects.count, 2);
    assert_int_equal(read.objects.threads_seen, 4);
    /* another thread of the process: the objects stay, the thread is unknown */
    objects_info(&other, 2, 0);
    assert_int_equal(pics_info_merge(&read, &other), TEA_OK);
    assert_int_equal(read.objects.count, 2);
    assert_int_equal(read.objects.threads_seen, TRACE_THREAD_UNKNOWN);
    pics_info_free(&other);
    pics_info_free(&read);
    /* one object fewer (a thread that ended before a dlopen): the union */
    assert_int_equal(pics_info_copy(&read, &info), TEA_OK);
    objects_info(&other, 1, 1);
    assert_int_equal(pics_info_merge(&other, &read), TEA_OK);
    assert_int_equal(other.objects.count, 2);
    assert_string_equal(other.objects.items[1].path, want[1].path);
    assert_int_equal(other.objects.threads_seen, 4);
    pics_info_free(&other);
    /* another file where the program was: another run, dropped */
    {
        trace_object clash = want[0];
        clash.path = "/usr/bin/other";
        pics_info_init(&other);
        strcpy(other.scheme, "golden");
        strcpy(other.trace_digest, "0000000000000002");
        assert_int_equal(pics_info_set_objects(&other, &clash, 1, 99, 4), TEA_OK);
        assert_int_equal(pics_info_merge(&read, &other), TEA_OK);
        assert_int_equal(read.objects.count, 0);
        pics_info_free(&other);
    }
    pics_info_free(&read);

    /* no objects, no thread: format 1.0 and no object keys */
    pics_info_free(&info);
    objects_info(&info, 0, 0);
    assert_int_equal(pics_write(path, &info, &p), TEA_OK);
    test_read_file(path, &bytes, &size);
    assert_true(size > 12 && memcmp(bytes, "tea-pics 1.0", 12) == 0);
    bytes[size] = '\0'; /* test_read_file leaves room for it */
    assert_null(strstr((const char *)bytes, "trace.object"));
    assert_null(strstr((const char *)bytes, "trace.thread"));
    free(bytes);
    pics_info_free(&info);
    pics_free(&p);
    remove(path);
    free(path);
}

/* The accumulation cache gives the map's sums: cells that share a slot
 * (PCs PICS_CACHE_SLOTS instructions apart), neighbours a byte and a
 * halfword apart, and PSVs of one PC, added in turns so that they evict one
 * another, equal the same adds made to a map directly. */
/*
 * A golden PICS split by two window groups: each cell line carries its value
 * in both, pics_read_groups gives them back, pics_read drops them, and a
 * file whose group values do not sum to the cell's value is refused.
 * Group 0: (0x100, base) 4, (0x100, ST-L1) 2; group 1: (0x100, base) 2,
 * (0x200, base) 4; the whole: the golden cells of the examples.
 */
static void test_groups_round_trip(void **state)
{
    static const cell_spec g0[] = { { 0x100, 0, 4 }, { 0x100, 1, 2 } }, g1[] = { { 0x100, 0, 2 }, { 0x200, 0, 4 } };
    char *path = test_temp_path("groups.pics");
    pics whole, groups[2], back, *read_groups = NULL;
    pics_info info, read;
    const pics_cell *c;
    uint8_t *text;
    size_t size;
    (void)state;

    build(&whole, golden_cells, COUNT(golden_cells));
    build(&groups[0], g0, COUNT(g0));
    build(&groups[1], g1, COUNT(g1));
    pics_info_init(&info);
    strcpy(info.scheme, "golden");
    info.golden_total = whole.total;
    assert_int_equal(pics_write_groups(path, &info, &whole, groups, 2), TEA_OK);
    assert_int_equal(pics_read_groups(path, &read, &back, &read_groups), TEA_OK);
    assert_int_equal(read.groups, 2);
    assert_non_null(read_groups);
    assert_true(back.total == whole.total);
    assert_true(read_groups[0].total == 6 * U && read_groups[1].total == 6 * U);
    assert_non_null(c = pics_find(&read_groups[1], 0x200, 0));
    assert_true(c->value == 4 * U);
    assert_null(pics_find(&read_groups[0], 0x200, 0));
    pics_groups_free(read_groups, read.groups);
    pics_info_free(&read);
    pics_free(&back);
    assert_int_equal(pics_read(path, &read, &back), TEA_OK); /* groups dropped */
    assert_int_equal(read.groups, 2);
    pics_info_free(&read);
    pics_free(&back);

    /* 0x100 base: 6 = 4 + 2; make it 4 + 3 */
    test_read_file(path, &text, &size);
    {
        char *line = strstr((char *)text, "0x100 0 4324320 ");
        assert_non_null(line);
        line = strchr(line + strlen("0x100 0 4324320 "), ' ');
        assert_non_null(line);
        memcpy(line + 1, "2882880 2162160", strlen("2882880 2162160")); /* 4U, 3U */
        test_write_file(path, text, size);
    }
    assert_int_equal(pics_read_groups(path, &read, &back, &read_groups), TEA_ERR_FORMAT);
    assert_contains(error_message(), "do not sum");
    free(text);
    pics_free(&whole);
    pics_free(&groups[0]);
    pics_free(&groups[1]);
    pics_info_free(&info);
    remove(path);
    free(path);
}

/* Writes `text` to a scratch file; its malloc'd path. */
static char *scratch_file(const char *name, const char *text)
{
    char *path = test_temp_path(name);
    test_write_file(path, text, strlen(text));
    return path;
}

#define SAMPLER_HEADER                                                                                              \
    "cycle;stallLatency;teaflags;address0;isslat0;memlat0;signature0;address1;isslat1;memlat1;signature1;"         \
    "address2;isslat2;memlat2;signature2;address3;isslat3;memlat3;signature3\n"

/*
 * TraceDoctor worker CSVs by hand. tea_gold: 0x10 has 3/2 cycles base (sig
 * 0) and 1/24 ST-L1 (0x20) plus 1/3 ST-L1 with an unfolded bit (0x22): one
 * cell of 9/24; 0x14 2 cycles FL-MB. TEA: a line listing slots 0 and 1
 * (teaflags 3) in no state gives each half a sample; a stalled line (0x13)
 * the whole to address0. IBS: one sample to address0, DR-SQ (0x100) masked
 * away (not an IBS event).
 */
static void test_tracedoctor_import(void **state)
{
    char *gold = scratch_file("w.tea_gold.csv", "address;signatures\n0x10;0:1.500000/32:0.041667/34:0.333333\n"
                                                "0x14;1024:2.000000\n");
    char *tea = scratch_file("w.tea.csv", SAMPLER_HEADER "97;0;3;0x10;0;0;0;0x14;0;0;1024;0x0;0;0;0;0x0;0;0;0\n"
                                                         "194;9;19;0x18;0;0;32;0x1c;0;0;0;0x0;0;0;0;0x0;0;0;0\n");
    char *ibs = scratch_file("w.ibs.csv", SAMPLER_HEADER "97;0;1;0x10;0;0;256;0x0;0;0;0;0x0;0;0;0;0x0;0;0;0\n");
    pics_td_import_options o = { 3200000000ull, 97, NULL };
    pics_info info;
    pics p;
    const pics_cell *c;
    (void)state;

    assert_int_equal(pics_td_import(gold, PICS_TD_GOLD, &o, &info, &p), TEA_OK);
    assert_string_equal(info.scheme, "golden");
    assert_string_equal(info.golden_rules, "tracedoctor");
    assert_non_null(c = pics_find(&p, 0x10, 0));
    assert_true(c->value == 3 * U / 2);
    assert_non_null(c = pics_find(&p, 0x10, 1u << TRACE_PSV_ST_L1));
    assert_true(c->value == 9 * (U / 24));
    assert_non_null(c = pics_find(&p, 0x14, 1u << TRACE_PSV_FL_MB));
    assert_true(c->value == 2 * U);
    assert_true(info.golden_total == p.total && p.total == 3 * U / 2 + 9 * (U / 24) + 2 * U);
    pics_info_free(&info);
    pics_free(&p);

    assert_int_equal(pics_td_import(tea, PICS_TD_TEA, &o, &info, &p), TEA_OK);
    assert_string_equal(info.scheme, "tea");
    assert_int_equal(info.samples, 2);
    assert_int_equal(info.period, 97);
    assert_true(pics_find(&p, 0x10, 0)->value == U / 2);
    assert_true(pics_find(&p, 0x14, 1u << TRACE_PSV_FL_MB)->value == U / 2);
    assert_true(pics_find(&p, 0x18, 1u << TRACE_PSV_ST_L1)->value == U);
    assert_null(pics_find(&p, 0x1c, 0));
    pics_info_free(&info);
    pics_free(&p);

    assert_int_equal(pics_td_import(ibs, PICS_TD_IBS, &o, &info, &p), TEA_OK);
    assert_string_equal(info.scheme, "ibs");
    assert_true(pics_find(&p, 0x10, 0)->value == U);
    pics_info_free(&info);
    pics_free(&p);

    o.period = 0;
    assert_int_equal(pics_td_import(ibs, PICS_TD_IBS, &o, &info, &p), TEA_ERR_USAGE);
    assert_int_equal(pics_td_import(ibs, PICS_TD_GOLD, &o, &info, &p), TEA_ERR_FORMAT);
    assert_contains(error_message(), "line 1: not a tea_gold file");
    remove(gold);
    remove(tea);
    remove(ibs);
    free(gold);
    free(tea);
    free(ibs);
}

static void test_cache_sums(void **state)
{
    const uint64_t pcs[] = { 0x10000, 0x10000 + 4 * PICS_CACHE_SLOTS, 0x10000 + 8 * PICS_CACHE_SLOTS, 0x10001, 0x10002,
                             0x10004 };
    static pics_cache cache;
    pics direct, cached;
    uint64_t value = 0;
    (void)state;

    assert_int_equal(pics_init(&direct), 0);
    assert_int_equal(pics_init(&cached), 0);
    pics_cache_init(&cache, &cached);
    assert_true(pics_cache_slot(pcs[0], 0) == pics_cache_slot(pcs[1], 0));
    assert_true(pics_cache_slot(pcs[0], 0) == pics_cache_slot(pcs[2], 0));
    for (unsigned round = 0; round < 100; round++) {
        for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++) {
            uint16_t psv = (uint16_t)(round % 3 == 0 ? 0 : (round * 37 + i) % TRACE_PSV_VALUES);
            value += 7;
            assert_int_equal(pics_add(&direct, pcs[i], psv, value, 1), 0);
            pics_cache_add(&cache, 0, pcs[i], psv, value, 1);
        }
    }
    assert_int_equal(pics_cache_flush(&cache), 0);
    assert_int_equal(cached.count, direct.count);
    assert_true(cached.total == direct.total);
    for (size_t k = 0; k < direct.capacity; k++) {
        const pics_cell *d = &direct.slots[k], *c;
        if (!d->used)
            continue;
        c = pics_find(&cached, d->pc, d->psv);
        assert_non_null(c);
        assert_true(c->value == d->value && c->count == d->count);
    }
    pics_free(&direct);
    pics_free(&cached);
}

/* Whole cycles, rounded cumulatively (pics_whole_cycles): three cells of
 * 100/3 cycles give round(33.3) = 33, round(66.7) - 33 = 34, 100 - 67 =
 * 33; ten cells of 0.4 cycles give 0 1 0 1 0 0 1 0 1 0 (round(0.4 k)
 * differences), so every run of neighbours is within a cycle of 0.4 per
 * cell (largest remainders would give the first four cells 1 each: 4
 * cycles for five cells' 2.0). A sampled PICS scales to the golden total
 * first: samples 1 and 2 of a golden total of 10 cycles are 3.33 and 6.67
 * cycles, so 3 and 7. */
static void test_whole_cycles(void **state)
{
    pics_info info;
    pics_cell thirds[3], fifths[10], sampled[2];
    uint64_t out[10];
    static const uint64_t want_fifths[10] = { 0, 1, 0, 1, 0, 0, 1, 0, 1, 0 };
    (void)state;
    pics_info_init(&info);
    snprintf(info.scheme, sizeof info.scheme, "golden");
    memset(thirds, 0, sizeof thirds);
    memset(fifths, 0, sizeof fifths);
    memset(sampled, 0, sizeof sampled);
    for (int i = 0; i < 3; i++)
        thirds[i].value = PICS_UNIT * 100 / 3;
    pics_whole_cycles(&info, 3 * (PICS_UNIT * 100 / 3), thirds, 3, out);
    assert_true(out[0] == 33 && out[1] == 34 && out[2] == 33);
    for (int i = 0; i < 10; i++)
        fifths[i].value = PICS_UNIT * 2 / 5;
    pics_whole_cycles(&info, 10 * (PICS_UNIT * 2 / 5), fifths, 10, out);
    assert_memory_equal(out, want_fifths, sizeof want_fifths);
    snprintf(info.scheme, sizeof info.scheme, "tea");
    info.golden_total = 10 * PICS_UNIT;
    sampled[0].value = PICS_UNIT;
    sampled[1].value = 2 * PICS_UNIT;
    pics_whole_cycles(&info, 3 * PICS_UNIT, sampled, 2, out);
    assert_true(out[0] == 3 && out[1] == 7);
    pics_info_free(&info);
}

/* pics_sorted beyond its qsort threshold (the radix sort): 20,000 cells
 * of keys spread over every digit of the PC, PSV and context, inserted in
 * a scrambled order (a fixed linear congruential walk), come out strictly
 * increasing by (pc, psv, ctx) with their values; a flat PICS's (every
 * context 0, the PCs' high digits shared) as well. */
static void test_sorted_many(void **state)
{
    enum { N = 20000 };
    for (int flat = 0; flat <= 1; flat++) {
        pics p;
        pics_cell *cells = NULL;
        size_t n = 0;
        uint64_t x = 12345, sum = 0;
        (void)state;
        assert_int_equal(pics_init(&p), 0);
        for (unsigned i = 0; i < N; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t pc = flat ? 0x400000 + (x >> 40) % 4096 : x >> 8;
            uint16_t psv = (uint16_t)((x >> 20) & 0x1ff);
            uint32_t ctx = flat ? 0 : (uint32_t)(x >> 33);
            assert_int_equal(pics_add_ctx(&p, ctx, pc, psv, i + 1, 1), 0);
        }
        assert_int_equal(pics_sorted(&p, &cells, &n), 0);
        assert_int_equal(n, p.count);
        assert_true(n > 4096);
        for (size_t i = 0; i < n; i++) {
            sum += cells[i].value;
            if (i == 0)
                continue;
            const pics_cell *a = &cells[i - 1], *b = &cells[i];
            assert_true(a->pc < b->pc || (a->pc == b->pc && (a->psv < b->psv || (a->psv == b->psv && a->ctx < b->ctx))));
        }
        assert_true(sum == p.total);
        free(cells);
        pics_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_many),
        cmocka_unit_test(test_insn_component),
        cmocka_unit_test(test_insn),
        cmocka_unit_test(test_func),
        cmocka_unit_test(test_identical_and_proportional),
        cmocka_unit_test(test_disjoint),
        cmocka_unit_test(test_error_jackknife),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_objects_round_trip_and_merge),
        cmocka_unit_test(test_contexts_round_trip_and_merge),
        cmocka_unit_test(test_contexts_refused),
        cmocka_unit_test(test_groups_round_trip),
        cmocka_unit_test(test_tracedoctor_import),
        cmocka_unit_test(test_cache_sums),
        cmocka_unit_test(test_whole_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
