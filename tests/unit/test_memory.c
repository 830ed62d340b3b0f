/*
 * test_memory.c: the L1 I / L1 D / LLC / DRAM hierarchy: exact latencies of
 * each level, secondary misses, straddling accesses, streaming over an array
 * larger than the LLC, a working set that fits in the L1, instruction fetch,
 * page walks through the caches, writebacks.
 */
#include "testutil.h"
#include "common/error.h"
#include "model/memory.h"

#include <string.h>

#define LINE 64u
#define L1_SET_STRIDE 4096u  /* 32 KiB / 8 ways: addresses this far apart share an L1 set */
#define L1_HIT 4u
#define LLC_HIT (4u + 20u)
#define DRAM (4u + 20u + 180u)

static model_mem *make(int prefetch)
{
    model_mem_config cfg;
    model_mem *m;
    model_mem_config_defaults(&cfg);
    cfg.l1i.prefetch = cfg.l1d.prefetch = (unsigned)prefetch;
    assert_int_equal(model_mem_create(&m, &cfg), 0);
    return m;
}

static void defaults_are_the_baseline(void **state)
{
    model_mem_config cfg;
    (void)state;
    model_mem_config_defaults(&cfg);
    assert_int_equal(cfg.l1i.size, 32 * 1024);
    assert_int_equal(cfg.l1d.size, 32 * 1024);
    assert_int_equal(cfg.l1d.ways, 8);
    assert_int_equal(cfg.l1d.mshrs, 16);
    assert_int_equal(cfg.l1i.prefetch, 1);
    assert_int_equal(cfg.l1d.prefetch, 1);
    assert_int_equal(cfg.llc.size, 2 * 1024 * 1024);
    assert_int_equal(cfg.llc.ways, 16);
    assert_int_equal(cfg.l1d_latency, 4);
    assert_int_equal(cfg.l1i_latency, 0);
    assert_int_equal(cfg.llc_latency, 20);
    assert_int_equal(cfg.dram_latency, 180);
    assert_int_equal(model_mem_config_check(&cfg), 0);
    cfg.llc.line_size = 128;
    assert_int_equal(model_mem_config_check(&cfg), TEA_ERR_USAGE);
    assert_contains(error_message(), "line size");
}

/* DRAM, then L1 hit, then (after eight conflicting lines push it out of its
 * 8-way L1 set but not out of the LLC, whose sets they spread over) LLC hit. */
static void latency_of_each_level(void **state)
{
    const uint64_t x = 0x100000;
    model_mem *m = make(0);
    model_mem_result r;
    (void)state;

    assert_int_equal(model_mem_load(m, x, 8, 0, &r), DRAM);
    assert_int_equal(r.latency, DRAM);
    assert_true(r.l1_miss && r.llc_miss && !r.l1_merged);
    assert_int_equal(model_mem_load(m, x + 8, 8, 1000, &r), L1_HIT);
    assert_false(r.l1_miss || r.llc_miss);
    for (unsigned k = 1; k <= 8; k++)
        assert_int_equal(model_mem_load(m, x + k * L1_SET_STRIDE, 8, 1000 + 1000 * k, &r), DRAM);
    assert_int_equal(model_mem_load(m, x, 8, 20000, &r), LLC_HIT);
    assert_true(r.l1_miss && !r.llc_miss);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->misses, 10);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_LLC)->misses, 9);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_LLC)->hits, 1);
    assert_int_equal(model_mem_get_stats(m)->dram_reads, 9);
    model_mem_free(m);
}

/* A load to a line whose fill is on its way waits for that fill: issued 10
 * cycles after the miss, it completes at the same cycle (fill 200) + 4. */
static void secondary_miss_waits_for_the_fill(void **state)
{
    model_mem *m = make(0);
    model_mem_result r;
    (void)state;
    assert_int_equal(model_mem_load(m, 0x5000, 8, 0, &r), DRAM);
    assert_int_equal(model_mem_load(m, 0x5008, 8, 10, &r), DRAM - 10);
    assert_true(r.l1_miss && r.l1_merged && r.llc_miss);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->misses, 1);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->merged, 1);

    /* the I side misses on a line, then the D side merges at the LLC: its
     * data arrives with the I-side fill at 200 */
    assert_int_equal(model_mem_fetch(m, 0x9000, 0, &r), 200);
    assert_int_equal(model_mem_load(m, 0x9000, 8, 10, &r), 200 - 10 + L1_HIT);
    assert_true(r.l1_miss && !r.l1_merged && r.llc_miss);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_LLC)->merged, 1);
    model_mem_free(m);
}

static void straddling_access_touches_both_lines(void **state)
{
    model_mem *m = make(0);
    model_mem_result r;
    (void)state;
    assert_int_equal(model_mem_load(m, 0x8000 + 60, 8, 0, &r), DRAM);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->misses, 2);
    assert_int_equal(model_mem_get_stats(m)->straddles, 1);
    assert_int_equal(model_mem_load(m, 0x8000, 8, 1000, &r), L1_HIT);
    assert_int_equal(model_mem_load(m, 0x8000 + LINE, 8, 1000, &r), L1_HIT);
    /* one line warm, one cold: the slower decides */
    assert_int_equal(model_mem_store(m, 0x8000 + 2 * LINE - 4, 8, 2000, &r), DRAM);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->misses, 3);
    model_mem_free(m);
}

/* Sequential 8-byte loads over `bytes` from `base`, each issued when the
 * previous completes (a dependent chain). Returns the cycle after the last. */
static uint64_t stream(model_mem *m, uint64_t base, uint64_t bytes, uint64_t cycle)
{
    model_mem_result r;
    for (uint64_t a = base; a < base + bytes; a += 8)
        cycle += model_mem_load(m, a, 8, cycle, &r);
    return cycle;
}

/* 4 MiB, twice the LLC: without the prefetcher every line misses once in the
 * L1 and once in the LLC, on both passes (true LRU over a sequential sweep of
 * twice the capacity keeps nothing). With it, demand misses hit the even
 * lines only, each bringing the odd line after it. */
static void streaming_larger_than_the_llc(void **state)
{
    const uint64_t bytes = 4ull << 20, lines = bytes / LINE, loads = bytes / 8;
    const uint64_t base = 0x10000000;
    model_mem *m = make(0);
    const model_cache_stats *l1 = model_mem_cache_stats(m, MODEL_MEM_L1D),
                            *llc = model_mem_cache_stats(m, MODEL_MEM_LLC);
    uint64_t t;
    (void)state;

    t = stream(m, base, bytes, 0);
    assert_int_equal(l1->misses, lines);
    assert_int_equal(l1->hits, loads - lines);
    assert_int_equal(llc->misses, lines);
    stream(m, base, bytes, t);
    assert_int_equal(l1->misses, 2 * lines);
    assert_int_equal(llc->misses, 2 * lines);
    assert_int_equal(llc->hits, 0);
    assert_int_equal(model_mem_get_stats(m)->dram_reads, 2 * lines);
    model_mem_free(m);

    m = make(1);
    l1 = model_mem_cache_stats(m, MODEL_MEM_L1D);
    llc = model_mem_cache_stats(m, MODEL_MEM_LLC);
    stream(m, base, bytes, 0);
    assert_int_equal(l1->misses, lines / 2);
    assert_int_equal(l1->prefetches, lines / 2);
    assert_int_equal(l1->prefetch_useful, lines / 2);
    assert_int_equal(l1->misses + l1->prefetch_useful, lines);
    assert_int_equal(l1->hits + l1->merged, loads - lines / 2);
    assert_int_equal(llc->accesses, lines);
    assert_int_equal(llc->misses, lines);
    model_mem_free(m);
}

/* 16 KiB fits in the 32 KiB L1: after the first pass every load hits. */
static void working_set_fits_in_l1(void **state)
{
    const uint64_t bytes = 16 * 1024, base = 0x200000;
    model_mem *m = make(1);
    const model_cache_stats *l1 = model_mem_cache_stats(m, MODEL_MEM_L1D);
    uint64_t t = stream(m, base, bytes, 0);
    uint64_t misses = l1->misses, merged = l1->merged, hits = l1->hits;
    (void)state;

    assert_int_equal(misses + l1->prefetch_useful, bytes / LINE);
    for (int pass = 0; pass < 9; pass++) {
        uint64_t start = t;
        t = stream(m, base, bytes, t);
        assert_int_equal(t - start, bytes / 8 * L1_HIT);
    }
    assert_int_equal(l1->misses, misses);
    assert_int_equal(l1->merged, merged);
    assert_int_equal(l1->hits, hits + 9 * bytes / 8);
    assert_int_equal(l1->evictions, 0);
    model_mem_free(m);
}

/* A fetch hit stalls nothing; a miss stalls for the LLC and DRAM; the next
 * line was prefetched. */
static void fetch(void **state)
{
    model_mem *m = make(1);
    model_mem_result r;
    (void)state;
    assert_int_equal(model_mem_fetch(m, 0x10000, 0, &r), 20 + 180);
    assert_true(r.l1_miss && r.llc_miss);
    assert_int_equal(model_mem_fetch(m, 0x10004, 300, &r), 0);
    assert_false(r.l1_miss);
    assert_int_equal(model_mem_fetch(m, 0x10000 + LINE, 300, &r), 0);
    assert_int_equal(model_mem_fetch(m, 0x10000 + 2 * LINE, 300, &r), 20 + 180);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1I)->misses, 2);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->accesses, 0);
    assert_int_equal(model_mem_get_stats(m)->fetches, 4);
    model_mem_free(m);
}

/* A cold walk makes three DRAM loads; the walk of the next page finds all
 * three entries in the L1 (the last-level entry is 8 bytes further). */
static void page_walk_through_the_caches(void **state)
{
    model_mem *m = make(1);
    (void)state;
    assert_int_equal(model_mem_page_walk(m, 0x12345000, 0), 3 * DRAM);
    assert_int_equal(model_mem_page_walk(m, 0x12346000, 1000), 3 * L1_HIT);
    /* a page 2 MiB away shares the root entry and the line of its level-1
     * entry (8 bytes further) but has a level-2 table of its own */
    assert_int_equal(model_mem_page_walk(m, 0x12345000 + (2u << 20), 2000), 2 * L1_HIT + DRAM);
    assert_int_equal(model_mem_get_stats(m)->walks, 3);
    model_mem_free(m);
}

/* Stores to nine lines of one L1 set: the first (dirty) is evicted and
 * written back into the LLC's copy, not to DRAM. */
static void writebacks_go_to_the_llc(void **state)
{
    model_mem *m = make(0);
    model_mem_result r;
    (void)state;
    for (unsigned k = 0; k <= 8; k++)
        model_mem_store(m, 0x300000 + k * L1_SET_STRIDE, 8, 1000 * k, &r);
    assert_int_equal(model_mem_cache_stats(m, MODEL_MEM_L1D)->writebacks, 1);
    assert_int_equal(model_mem_get_stats(m)->dram_writes, 0);
    assert_int_equal(model_mem_get_stats(m)->stores, 9);
    model_mem_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_the_baseline),
        cmocka_unit_test(latency_of_each_level),
        cmocka_unit_test(secondary_miss_waits_for_the_fill),
        cmocka_unit_test(straddling_access_touches_both_lines),
        cmocka_unit_test(streaming_larger_than_the_llc),
        cmocka_unit_test(working_set_fits_in_l1),
        cmocka_unit_test(fetch),
        cmocka_unit_test(page_walk_through_the_caches),
        cmocka_unit_test(writebacks_go_to_the_llc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
