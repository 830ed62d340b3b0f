/*
 * test_model.c: invariants of the core model: ROB capacity and commit width,
 * program order at commit, every dispatched µop committed or squashed,
 * determinism, and coverage of every event and commit state.
 */
#include "testutil.h"
#include "common/error.h"
#include "golden/golden.h"
#include "model/core.h"
#include "model/workload.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

#define CYCLES 150000

static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
#define NAMES (sizeof names / sizeof names[0])

/* A source that remembers the correct-path PCs it handed out. */
typedef struct recording_source {
    model_source inner;
    uint64_t *pcs;
    size_t count, cap;
} recording_source;

static int recording_next(void *ctx, model_insn *u)
{
    recording_source *r = ctx;
    int more = r->inner.next(r->inner.ctx, u);
    if (more) {
        if (r->count == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 4096;
            r->pcs = realloc(r->pcs, r->cap * sizeof *r->pcs);
            assert_non_null(r->pcs);
        }
        r->pcs[r->count++] = u->pc;
    }
    return more;
}

static void recording_wrong(void *ctx, uint64_t pc, model_insn *u)
{
    recording_source *r = ctx;
    r->inner.wrong_path(r->inner.ctx, pc, u);
}

typedef struct run_result {
    test_stream stream;
    recording_source source;
    model_stats stats;
} run_result;

static int collect(void *ctx, const trace_batch *b)
{
    test_stream *s = ctx;
    for (size_t i = 0; i < b->count; i++)
        test_stream_append(s, &b->records[i], b->uops + b->records[i].first_uop);
    return 0;
}

static void run_model(const char *workload, uint64_t seed, run_result *res)
{
    model_workload *w;
    model_core *core;
    model_config cfg;
    model_source src;

    memset(res, 0, sizeof *res);
    test_stream_init(&res->stream);
    model_config_defaults(&cfg);
    assert_int_equal(model_workload_create(&w, workload, seed), 0);
    res->source.inner = model_workload_source(w);
    src.next = recording_next;
    src.wrong_path = recording_wrong;
    src.ctx = &res->source;
    assert_int_equal(model_core_create(&core, &cfg, &src), 0);
    assert_int_equal(model_core_run(core, 0, CYCLES, collect, &res->stream), 0);
    res->stats = *model_core_stats(core);
    model_core_free(core);
    model_workload_free(w);
}

static void free_result(run_result *res)
{
    test_stream_free(&res->stream);
    free(res->source.pcs);
}

static void invariants_hold_on_every_workload(void **state)
{
    (void)state;
    for (size_t n = 0; n < NAMES; n++) {
        run_result res;
        const test_stream *s = &res.stream;
        unsigned window = 0, window_before_previous = 0;
        size_t committed = 0, refills = 0;
        run_model(names[n], 9, &res);
        for (size_t i = 0; i < s->count; i++) {
            const trace_record *r = &s->records[i];
            const trace_uop *u = s->uops + r->first_uop;
            unsigned after;
            /* ROB capacity, commit width, offsets in order, squash within the window */
            if (trace_record_check(r, u, 4, 192, window, &after))
                fail_msg("%s, cycle %llu: %s", names[n], (unsigned long long)r->cycle, error_message());
            /* as on BOOM: never a commit and an exception in one cycle */
            if (r->n_commit > 0 && (r->flags & TRACE_REC_EXCEPTION))
                fail_msg("%s, cycle %llu: commits and excepts", names[n], (unsigned long long)r->cycle);
            /* REFILL (BOOM's POPULATED) exactly in the cycle after one that
             * began with an empty ROB and dispatched into it */
            {
                int expected = i > 0 && s->records[i - 1].cycle + 1 == r->cycle && window_before_previous == 0
                    && window > 0;
                if (expected != ((r->flags & TRACE_REC_REFILL) != 0))
                    fail_msg("%s, cycle %llu: REFILL %s", names[n], (unsigned long long)r->cycle,
                             expected ? "missing after the ROB was empty" : "but the ROB was not empty before");
                refills += expected;
            }
            window_before_previous = window;
            window = after;
            /* program order: commits replay the source's correct path exactly */
            for (unsigned k = 0; k < r->n_commit; k++, committed++) {
                assert_true(committed < res.source.count);
                if (u[k].pc != res.source.pcs[committed])
                    fail_msg("%s: commit %zu is 0x%llx, program order says 0x%llx", names[n], committed,
                             (unsigned long long)u[k].pc, (unsigned long long)res.source.pcs[committed]);
            }
        }
        assert_int_equal(committed, res.stats.committed);
        assert_true(refills > 0);
        /* every dispatched µop committed, squashed, excepted or still in flight */
        assert_int_equal(res.stats.dispatched,
                         res.stats.committed + res.stats.squashed + res.stats.exceptions + res.stats.in_flight);
        assert_true(res.stats.max_window <= 192);
        free_result(&res);
    }
}

static void runs_are_deterministic(void **state)
{
    run_result a, b, c;
    (void)state;
    run_model("mixed", 21, &a);
    run_model("mixed", 21, &b);
    run_model("mixed", 22, &c);
    assert_streams_equal(&a.stream, &b.stream);
    assert_true(a.stream.count != c.stream.count
                || memcmp(a.stream.uops, c.stream.uops, a.stream.uop_count * sizeof *a.stream.uops) != 0);
    free_result(&a);
    free_result(&b);
    free_result(&c);
}

/* Each workload shows the events it is named for; together they show all
 * nine events and all four commit states. */
static void workloads_cover_every_event_and_state(void **state)
{
    static const uint16_t expected[NAMES] = {
        TRACE_PSV_MASK_ALL, /* mixed */
        (1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC) | (1u << TRACE_PSV_ST_TLB)
            | (1u << TRACE_PSV_DR_SQ),                      /* memory */
        1u << TRACE_PSV_FL_MB,                              /* branchy */
        (1u << TRACE_PSV_DR_L1) | (1u << TRACE_PSV_DR_TLB), /* frontend */
        (1u << TRACE_PSV_FL_EX) | (1u << TRACE_PSV_FL_MO),  /* flushes */
        0,                                                  /* compute */
    };
    unsigned all_events = 0;
    uint64_t all_states[GOLDEN_STATE_COUNT] = { 0 };
    (void)state;
    for (size_t n = 0; n < NAMES; n++) {
        run_result res;
        unsigned seen = 0;
        golden g;
        trace_batch b;
        run_model(names[n], 4, &res);
        for (size_t i = 0; i < res.stream.uop_count; i++)
            seen |= res.stream.uops[i].psv;
        if ((seen & expected[n]) != expected[n])
            fail_msg("%s shows events 0x%x, expected at least 0x%x", names[n], seen, expected[n]);
        all_events |= seen;
        b = test_stream_batch(&res.stream, 0, res.stream.count);
        golden_init(&g, 0);
        golden_feed(&g, &b, NULL);
        golden_finish(&g, NULL);
        for (int k = 0; k < GOLDEN_STATE_COUNT; k++)
            all_states[k] += golden_get_totals(&g)->states[k];
        if (strcmp(names[n], "flushes") == 0)
            assert_true(res.stats.exceptions > 0);
        free_result(&res);
    }
    assert_int_equal(all_events, TRACE_PSV_MASK_ALL);
    for (int k = 0; k < GOLDEN_STATE_COUNT; k++)
        assert_true(all_states[k] > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(invariants_hold_on_every_workload),
        cmocka_unit_test(runs_are_deterministic),
        cmocka_unit_test(workloads_cover_every_event_and_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
