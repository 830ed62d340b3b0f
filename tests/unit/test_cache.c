/*
 * test_cache.c: the set-associative cache: hand-worked hit/miss sequences,
 * LRU eviction order, MSHR merging and blocking with exact cycles, the
 * next-line prefetcher, writebacks, lines placed from elsewhere and
 * configuration checks.
 */
#include "testutil.h"
#include "common/error.h"
#include "model/cache.h"

#include <string.h>

#define LINE 64u

static model_cache *make(uint64_t size, unsigned ways, unsigned mshrs, unsigned prefetch)
{
    model_cache_config cfg = { size, ways, LINE, mshrs, prefetch };
    model_cache *c;
    assert_int_equal(model_cache_create(&c, &cfg, "test"), 0);
    return c;
}

/* One access; a primary miss (and its prefetch) is filled `fill_after`
 * cycles after it may start. Returns the outcome. */
static model_cache_outcome touch(model_cache *c, uint64_t addr, int is_write, uint64_t cycle, uint64_t fill_after)
{
    model_cache_result r;
    model_cache_outcome o = model_cache_access(c, addr, is_write, cycle, &r);
    assert_int_equal(o, r.outcome);
    if (o == MODEL_CACHE_MISS) {
        model_cache_fill(c, &r.miss, r.miss.start + fill_after, 0);
        if (r.has_prefetch)
            model_cache_fill(c, &r.prefetch, r.prefetch.start + fill_after, 0);
    }
    return o;
}

/* 256 B, 2 ways, 64 B lines: 2 sets; set = line number & 1. A, B and C share
 * set 0, D is in set 1. Worked by hand (LRU way listed last):
 *   A  miss  {A}          B  miss  {A,B} lru A     A  hit   lru B
 *   C  miss  evicts B     B  miss  evicts A        A  miss  evicts C
 *   D  miss  (set 1)      A+8 hit  lru B           C  miss  evicts B
 */
static void two_way_hand_sequence(void **state)
{
    enum { A = 0, B = 128, C = 256, D = 64 };
    static const uint64_t addr[] = { A, B, A, C, B, A, D, A + 8, C };
    static const model_cache_outcome expect[] = { MODEL_CACHE_MISS, MODEL_CACHE_MISS, MODEL_CACHE_HIT,
                                                  MODEL_CACHE_MISS, MODEL_CACHE_MISS, MODEL_CACHE_MISS,
                                                  MODEL_CACHE_MISS, MODEL_CACHE_HIT,  MODEL_CACHE_MISS };
    model_cache *c = make(256, 2, 0, 0);
    const model_cache_stats *s = model_cache_get_stats(c);
    (void)state;
    for (size_t i = 0; i < sizeof addr / sizeof addr[0]; i++) {
        model_cache_outcome o = touch(c, addr[i], 0, 100 * i, 0);
        if (o != expect[i])
            fail_msg("access %zu (address %llu): outcome %d, expected %d", i, (unsigned long long)addr[i], (int)o,
                     (int)expect[i]);
    }
    assert_int_equal(s->accesses, 9);
    assert_int_equal(s->hits, 2);
    assert_int_equal(s->misses, 7);
    assert_int_equal(s->evictions, 4);
    assert_int_equal(s->merged, 0);
    assert_true(model_cache_probe(c, A));
    assert_true(model_cache_probe(c, C));
    assert_true(model_cache_probe(c, D));
    assert_false(model_cache_probe(c, B));
    model_cache_free(c);
}

/* A fully associative 4-line cache: fill lines 0-3, touch 1 then 0; LRU
 * order is then 2, 3, 1, 0, so new lines evict 2, then 3, then 1. */
static void lru_eviction_order(void **state)
{
    model_cache *c = make(4 * LINE, 4, 0, 0);
    uint64_t t = 0;
    (void)state;
    for (unsigned l = 0; l < 4; l++)
        assert_int_equal(touch(c, l * LINE, 0, t++, 0), MODEL_CACHE_MISS);
    assert_int_equal(touch(c, 1 * LINE, 0, t++, 0), MODEL_CACHE_HIT);
    assert_int_equal(touch(c, 0 * LINE, 0, t++, 0), MODEL_CACHE_HIT);
    static const unsigned evicted[] = { 2, 3, 1 };
    for (unsigned i = 0; i < 3; i++) {
        assert_true(model_cache_probe(c, evicted[i] * LINE));
        assert_int_equal(touch(c, (10 + i) * LINE, 0, t++, 0), MODEL_CACHE_MISS);
        assert_false(model_cache_probe(c, evicted[i] * LINE));
    }
    assert_true(model_cache_probe(c, 0));
    assert_int_equal(model_cache_get_stats(c)->evictions, 3);
    model_cache_free(c);
}

/* Lines placed (model_cache_place) in a fully associative 4-line cache
 * with a prefetcher: 0-4 placed in turn leave 1, 2, 3, 4 (LRU first);
 * placing 1 again makes it MRU (LRU order 2, 3, 4, 1), so the next new
 * line evicts 2. Placed lines are filled at once (an access at cycle 0
 * hits), prefetch nothing and count in no statistic; a line pending for
 * an MSHR that a placement evicts still completes harmlessly; a
 * prefetched line placed again is no longer marked prefetched. */
static void placed_lines(void **state)
{
    model_cache *c = make(4 * LINE, 4, 2, 1);
    const model_cache_stats *s = model_cache_get_stats(c);
    model_cache_result r;
    (void)state;
    for (unsigned l = 0; l <= 4; l++)
        model_cache_place(c, l * LINE);
    assert_false(model_cache_probe(c, 0));
    for (unsigned l = 1; l <= 4; l++)
        assert_true(model_cache_probe(c, l * LINE));
    assert_int_equal(s->accesses + s->misses + s->evictions + s->prefetches, 0);
    model_cache_place(c, 1 * LINE);
    model_cache_place(c, 5 * LINE);
    assert_false(model_cache_probe(c, 2 * LINE));
    assert_true(model_cache_probe(c, 1 * LINE));
    assert_int_equal(model_cache_access(c, 3 * LINE + 8, 0, 0, &r), MODEL_CACHE_HIT);
    assert_int_equal(r.has_prefetch, 0);
    /* a miss left pending, its line then placed over: the fill is harmless */
    assert_int_equal(model_cache_access(c, 9 * LINE, 0, 10, &r), MODEL_CACHE_MISS);
    for (unsigned l = 20; l < 24; l++)
        model_cache_place(c, l * LINE);
    assert_false(model_cache_probe(c, 9 * LINE));
    model_cache_fill(c, &r.miss, 110, 0);
    if (r.has_prefetch)
        model_cache_fill(c, &r.prefetch, 110, 0);
    for (unsigned l = 20; l < 24; l++)
        assert_int_equal(model_cache_access(c, l * LINE, 0, 200, &r), MODEL_CACHE_HIT);
    /* a prefetched line placed again loses its mark: its next use is no
     * useful prefetch */
    assert_int_equal(touch(c, 30 * LINE, 0, 300, 10), MODEL_CACHE_MISS);
    assert_true(model_cache_probe(c, 31 * LINE));
    model_cache_place(c, 31 * LINE);
    assert_int_equal(model_cache_access(c, 31 * LINE, 0, 400, &r), MODEL_CACHE_HIT);
    assert_int_equal(r.prefetched, 0);
    model_cache_free(c);
}

/* Two MSHRs, fills 100 cycles after the request leaves:
 *   t=0   A miss, leaves at 0, fills at 100
 *   t=5   B miss, leaves at 5, fills at 105
 *   t=10  A+8 merges: ready 100, no new request
 *   t=20  C miss: both MSHRs busy, leaves at 100 (A's fill), fills at 200
 *   t=50  D miss: busy until 105 (B), leaves at 105, fills at 205
 *   t=100 A hit (filled at 100)
 *   t=150 C merges: ready 200
 *   t=300 E miss, leaves at once
 */
static void mshr_merging_and_blocking(void **state)
{
    enum { A = 0x1000, B = 0x2000, C = 0x3000, D = 0x4000, E = 0x5000 };
    model_cache *c = make(4096, 4, 2, 0);
    const model_cache_stats *s = model_cache_get_stats(c);
    model_cache_result r;
    (void)state;

    assert_int_equal(model_cache_access(c, A, 0, 0, &r), MODEL_CACHE_MISS);
    assert_int_equal(r.miss.start, 0);
    assert_int_equal(r.miss.addr, A);
    model_cache_fill(c, &r.miss, 100, 3);
    assert_int_equal(model_cache_access(c, B, 0, 5, &r), MODEL_CACHE_MISS);
    assert_int_equal(r.miss.start, 5);
    model_cache_fill(c, &r.miss, 105, 0);
    assert_int_equal(model_cache_mshrs_busy(c, 10), 2);

    assert_int_equal(model_cache_access(c, A + 8, 0, 10, &r), MODEL_CACHE_MERGED);
    assert_int_equal(r.ready, 100);
    assert_int_equal(r.fill_info, 3);
    assert_int_equal(s->misses, 2);

    assert_int_equal(model_cache_access(c, C, 0, 20, &r), MODEL_CACHE_MISS);
    assert_int_equal(r.miss.start, 100);
    assert_int_equal(r.ready, 100);
    model_cache_fill(c, &r.miss, 200, 0);
    assert_int_equal(model_cache_access(c, D, 0, 50, &r), MODEL_CACHE_MISS);
    assert_int_equal(r.miss.start, 105);
    model_cache_fill(c, &r.miss, 205, 0);

    assert_int_equal(model_cache_access(c, A, 0, 100, &r), MODEL_CACHE_HIT);
    assert_int_equal(r.ready, 100);
    assert_int_equal(model_cache_access(c, C + 63, 0, 150, &r), MODEL_CACHE_MERGED);
    assert_int_equal(r.ready, 200);
    assert_int_equal(model_cache_mshrs_busy(c, 150), 2);
    assert_int_equal(model_cache_mshrs_busy(c, 205), 0);

    assert_int_equal(model_cache_access(c, E, 0, 300, &r), MODEL_CACHE_MISS);
    assert_int_equal(r.miss.start, 300);
    model_cache_fill(c, &r.miss, 400, 0);

    assert_int_equal(s->misses, 5);
    assert_int_equal(s->merged, 2);
    assert_int_equal(s->hits, 1);
    assert_int_equal(s->mshr_stalls, 2);
    assert_int_equal(s->mshr_stall_cycles, (100 - 20) + (105 - 50));
    model_cache_free(c);
}

/* With unbounded MSHRs nothing ever waits. */
static void unbounded_mshrs_never_wait(void **state)
{
    model_cache *c = make(64 * LINE, 4, 0, 0);
    model_cache_result r;
    (void)state;
    for (unsigned i = 0; i < 40; i++) {
        assert_int_equal(model_cache_access(c, i * LINE, 0, 7, &r), MODEL_CACHE_MISS);
        assert_int_equal(r.miss.start, 7);
        model_cache_fill(c, &r.miss, 1000, 0);
    }
    assert_int_equal(model_cache_get_stats(c)->mshr_stalls, 0);
    assert_int_equal(model_cache_mshrs_busy(c, 7), 0);
    model_cache_free(c);
}

static void next_line_prefetch(void **state)
{
    model_cache *c = make(4096, 4, 4, 1);
    const model_cache_stats *s = model_cache_get_stats(c);
    model_cache_result r;
    (void)state;

    /* a demand miss of line 10 prefetches line 11, leaving at the same cycle */
    assert_int_equal(model_cache_access(c, 10 * LINE, 0, 0, &r), MODEL_CACHE_MISS);
    assert_true(r.has_prefetch);
    assert_int_equal(r.prefetch.addr, 11 * LINE);
    assert_int_equal(r.prefetch.start, 0);
    model_cache_fill(c, &r.miss, 100, 0);
    model_cache_fill(c, &r.prefetch, 110, 1);
    assert_int_equal(model_cache_mshrs_busy(c, 50), 2); /* the prefetch holds an MSHR */
    assert_int_equal(s->prefetches, 1);
    assert_int_equal(s->misses, 1);

    /* used before its fill: a late prefetch, merged */
    assert_int_equal(model_cache_access(c, 11 * LINE + 4, 0, 50, &r), MODEL_CACHE_MERGED);
    assert_int_equal(r.ready, 110);
    assert_true(r.prefetched);
    assert_int_equal(r.fill_info, 1);
    /* a secondary miss triggers no prefetch */
    assert_false(r.has_prefetch);
    /* counted once */
    assert_int_equal(model_cache_access(c, 11 * LINE, 0, 200, &r), MODEL_CACHE_HIT);
    assert_false(r.prefetched);
    assert_int_equal(s->prefetch_useful, 1);
    assert_int_equal(s->prefetch_late, 1);

    /* no prefetch when the next line is present */
    assert_int_equal(model_cache_access(c, 9 * LINE, 0, 300, &r), MODEL_CACHE_MISS);
    assert_false(r.has_prefetch);
    model_cache_fill(c, &r.miss, 400, 0);
    assert_int_equal(s->prefetches, 1);
    model_cache_free(c);

    /* one MSHR: the demand miss takes it, the prefetch is dropped */
    c = make(4096, 4, 1, 1);
    assert_int_equal(model_cache_access(c, 0, 0, 0, &r), MODEL_CACHE_MISS);
    assert_false(r.has_prefetch);
    assert_false(model_cache_probe(c, LINE));
    assert_int_equal(model_cache_get_stats(c)->prefetch_dropped, 1);
    model_cache_fill(c, &r.miss, 100, 0);
    model_cache_free(c);

    /* a prefetched line evicted unused is counted */
    c = make(2 * LINE, 1, 0, 1); /* direct mapped, 2 sets */
    assert_int_equal(touch(c, 0, 0, 0, 10), MODEL_CACHE_MISS);         /* line 0, prefetch line 1 */
    assert_int_equal(touch(c, 3 * LINE, 0, 20, 10), MODEL_CACHE_MISS); /* line 3 evicts line 1; line 4 evicts line 0 */
    assert_int_equal(model_cache_get_stats(c)->prefetch_unused, 1);
    model_cache_free(c);
}

/* Direct mapped, two lines: a dirty victim is reported once, a clean one
 * not at all. */
static void writebacks(void **state)
{
    model_cache *c = make(2 * LINE, 1, 0, 0);
    model_cache_result r;
    (void)state;
    assert_int_equal(model_cache_access(c, 0, 1, 0, &r), MODEL_CACHE_MISS); /* write-allocate */
    model_cache_fill(c, &r.miss, 1, 0);
    assert_int_equal(r.writebacks, 0);
    assert_int_equal(model_cache_access(c, 2 * LINE, 0, 10, &r), MODEL_CACHE_MISS);
    model_cache_fill(c, &r.miss, 11, 0);
    assert_int_equal(r.writebacks, 1);
    assert_int_equal(r.writeback_addr[0], 0);
    assert_int_equal(model_cache_access(c, 0, 0, 20, &r), MODEL_CACHE_MISS);
    model_cache_fill(c, &r.miss, 21, 0);
    assert_int_equal(r.writebacks, 0);
    /* a writeback from above dirties a present line only */
    assert_int_equal(model_cache_writeback(c, 8), 1);
    assert_int_equal(model_cache_writeback(c, LINE), 0);
    assert_int_equal(model_cache_access(c, 2 * LINE, 0, 30, &r), MODEL_CACHE_MISS);
    assert_int_equal(r.writebacks, 1);
    assert_int_equal(model_cache_get_stats(c)->writebacks, 2);
    assert_int_equal(model_cache_get_stats(c)->writes, 1);
    model_cache_free(c);
}

/* A line evicted while its fill is outstanding is still merged with the
 * MSHR, not requested twice. */
static void evicted_pending_line_merges(void **state)
{
    model_cache *c = make(LINE, 1, 4, 0); /* one line */
    model_cache_result r;
    (void)state;
    assert_int_equal(model_cache_access(c, 0, 0, 0, &r), MODEL_CACHE_MISS);
    model_cache_fill(c, &r.miss, 100, 2);
    assert_int_equal(model_cache_access(c, LINE, 0, 1, &r), MODEL_CACHE_MISS); /* evicts the pending line */
    model_cache_fill(c, &r.miss, 101, 0);
    assert_int_equal(model_cache_access(c, 0, 0, 2, &r), MODEL_CACHE_MERGED);
    assert_int_equal(r.ready, 100);
    assert_int_equal(r.fill_info, 2);
    assert_int_equal(model_cache_get_stats(c)->misses, 2);
    assert_int_equal(model_cache_access(c, 0, 0, 100, &r), MODEL_CACHE_HIT);
    model_cache_free(c);
}

/* A fully associative 32-line cache (it keeps a hint table of 128 entries
 * indexed by line ^ line >> 16): lines 128 apart share a hint entry, so
 * hints go stale all the time. The answers must not change: 32 such lines
 * all hit after the first round, and a 33rd evicts exactly the LRU one. */
static void fully_associative_with_colliding_hints(void **state)
{
    model_cache *c = make(32 * LINE, 32, 0, 0);
    uint64_t t = 0;
    (void)state;
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(touch(c, i * 128 * LINE, 0, t++, 0), MODEL_CACHE_MISS);
    for (int round = 0; round < 5; round++)
        for (unsigned i = 0; i < 32; i++)
            assert_int_equal(touch(c, ((i * 7 + (unsigned)round) % 32) * 128 * LINE, 0, t++, 0), MODEL_CACHE_HIT);
    /* round 4 touched (i * 7 + 4) mod 32 last for i = 31, and i = 0 first: line 4 * 128 is LRU */
    assert_int_equal(touch(c, 32 * 128 * LINE, 0, t++, 0), MODEL_CACHE_MISS);
    assert_false(model_cache_probe(c, 4 * 128 * LINE));
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(model_cache_probe(c, i * 128 * LINE), i != 4);
    assert_int_equal(model_cache_get_stats(c)->hits, 5 * 32);
    model_cache_free(c);
}

static void config_checks(void **state)
{
    model_cache_config cfg;
    model_cache *c;
    (void)state;
    model_cache_config_defaults(&cfg);
    assert_int_equal(cfg.size, 32768);
    assert_int_equal(cfg.ways, 8);
    assert_int_equal(cfg.line_size, 64);
    assert_int_equal(cfg.mshrs, 16);
    assert_int_equal(model_cache_config_check(&cfg, "l1d"), 0);

    cfg.line_size = 48;
    assert_int_equal(model_cache_config_check(&cfg, "l1d"), TEA_ERR_USAGE);
    assert_contains(error_message(), "l1d");
    assert_contains(error_message(), "line size");
    model_cache_config_defaults(&cfg);
    cfg.size = 48 * 1024; /* 96 sets */
    assert_int_equal(model_cache_create(&c, &cfg, "llc"), TEA_ERR_USAGE);
    assert_null(c);
    assert_contains(error_message(), "llc");
    cfg.size = 32768;
    cfg.ways = 0;
    assert_int_equal(model_cache_config_check(&cfg, "x"), TEA_ERR_USAGE);
    cfg.ways = 8;
    cfg.mshrs = MODEL_CACHE_MAX_MSHRS + 1;
    assert_int_equal(model_cache_config_check(&cfg, "x"), TEA_ERR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_way_hand_sequence),
        cmocka_unit_test(lru_eviction_order),
        cmocka_unit_test(mshr_merging_and_blocking),
        cmocka_unit_test(unbounded_mshrs_never_wait),
        cmocka_unit_test(next_line_prefetch),
        cmocka_unit_test(writebacks),
        cmocka_unit_test(placed_lines),
        cmocka_unit_test(evicted_pending_line_merges),
        cmocka_unit_test(fully_associative_with_colliding_hints),
        cmocka_unit_test(config_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
