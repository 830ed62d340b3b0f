/*
 * test_golden.c: the golden reference: the scenario's expected PICS and
 * commit states, conservation of cycles on every generated workload, and the
 * trailing cycles of a trace.
 */
#include "testutil.h"
#include "golden/golden.h"
#include "trace/psv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fixed-point cycles: a multiple of lcm(1..16), so every 1/n split is exact. */
#define UNIT 720720ull
#define MAX_CELLS (1u << 17) /* power of two, open addressing */

typedef struct cell {
    uint64_t pc;
    uint16_t psv;
    uint8_t used;
    uint64_t cycles; /* in 1/UNIT cycles */
} cell;

typedef struct tally {
    cell slots[MAX_CELLS];
    cell *cells[MAX_CELLS]; /* the used slots, in order of first charge */
    size_t count;
    uint64_t total;
    uint64_t drained, stalled; /* cycles the closed intervals report in each state */
} tally;

static void charge(tally *t, uint64_t pc, uint16_t psv, uint64_t amount)
{
    size_t i = (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 40 ^ psv) & (MAX_CELLS - 1);
    if (amount == 0)
        return;
    while (t->slots[i].used && (t->slots[i].pc != pc || t->slots[i].psv != psv))
        i = (i + 1) & (MAX_CELLS - 1);
    if (!t->slots[i].used) {
        assert_true(t->count < MAX_CELLS / 2);
        t->slots[i] = (cell){ pc, psv, 1, 0 };
        t->cells[t->count++] = &t->slots[i];
    }
    t->slots[i].cycles += amount;
    t->total += amount;
}

/* The golden PICS, built straight from the intervals. */
static void tally_interval(void *ctx, const golden_interval *iv)
{
    tally *t = ctx;
    if (iv->has_flush_cause)
        charge(t, iv->flush_cause.pc, iv->flush_cause.psv, (iv->refill - iv->start) * UNIT);
    if (!iv->uops)
        return;
    assert_true(iv->drained <= iv->cycle - iv->refill);
    t->drained += iv->drained;
    t->stalled += iv->cycle - iv->refill - iv->drained + (iv->n_commit == 0);
    charge(t, iv->uops[0].pc, iv->uops[0].psv, (iv->cycle - iv->refill) * UNIT);
    if (iv->n_commit == 0)
        charge(t, iv->uops[0].pc, iv->uops[0].psv, UNIT);
    for (unsigned i = 0; i < iv->n_commit; i++)
        charge(t, iv->uops[i].pc, iv->uops[i].psv, UNIT / iv->n_commit);
}

static void run_golden(const test_stream *s, unsigned initial_window, tally *t, golden *g)
{
    golden_sink sink = { tally_interval, t };
    trace_batch b = test_stream_batch(s, 0, s->count);
    memset(t, 0, sizeof *t);
    golden_init(g, initial_window);
    golden_feed(g, &b, &sink);
    golden_finish(g, &sink);
}

/* Parses "num/den" or "num" into 1/UNIT cycles. */
static uint64_t parse_cycles(const char *text)
{
    unsigned long long num, den = 1;
    if (sscanf(text, "%llu/%llu", &num, &den) < 1)
        fail_msg("bad cycles '%s'", text);
    assert_int_equal(UNIT % den, 0);
    return num * (UNIT / den);
}

static void scenario_matches_expected_pics(void **state)
{
    static tally t;
    test_stream s;
    golden g;
    FILE *csv;
    char line[256];
    size_t rows = 0;
    const golden_totals *tot;
    (void)state;

    assert_int_equal(test_stream_read(TEA_TEST_DATA "/scenario.bin", NULL, &s), 0);
    run_golden(&s, s.header.initial_window, &t, &g);
    tot = golden_get_totals(&g);
    assert_int_equal(tot->attributed, 50);
    assert_int_equal(tot->unattributed, 0);
    assert_true(t.total == 50 * UNIT);
    /* Commit states worked out by hand in docs/trace-format.md. */
    assert_int_equal(tot->states[GOLDEN_COMPUTE], 7);
    assert_int_equal(tot->states[GOLDEN_STALLED], 25);
    assert_int_equal(tot->states[GOLDEN_DRAINED], 1);
    assert_int_equal(tot->states[GOLDEN_FLUSHED], 17);
    assert_int_equal(t.drained, 1); /* every waiting cycle belongs to a closed interval */
    assert_int_equal(t.stalled, 25);

    csv = fopen(TEA_TEST_DATA "/scenario.golden.csv", "r");
    assert_non_null(csv);
    while (fgets(line, sizeof line, csv)) {
        char label[64], *p, *last;
        unsigned long long pc;
        uint16_t psv;
        int found = 0;
        if (line[0] == '#' || strncmp(line, "pc,", 3) == 0)
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        assert_int_equal(sscanf(line, "%llx,", &pc), 1);
        p = strchr(line, ',') + 1;
        last = strrchr(line, ',');
        if (*p == '"')
            p++;
        snprintf(label, sizeof label, "%.*s", (int)(last - p - (last[-1] == '"')), p);
        assert_int_equal(psv_parse_label(label, &psv), 0);
        for (size_t i = 0; i < t.count; i++) {
            if (t.cells[i]->pc == pc && t.cells[i]->psv == psv) {
                if (t.cells[i]->cycles != parse_cycles(last + 1))
                    fail_msg("%s: golden gives %llu/%llu", line, (unsigned long long)t.cells[i]->cycles, UNIT);
                found = 1;
            }
        }
        if (!found)
            fail_msg("no cell for %s", line);
        rows++;
    }
    fclose(csv);
    assert_int_equal(rows, 15);
    assert_int_equal(t.count, 15);
    test_stream_free(&s);
}

/* Every workload: the cells sum exactly to the attributed cycles, attributed
 * and unattributed cycles make the span, and the states cover the span. */
static void conservation_on_every_workload(void **state)
{
    static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
    static tally t;
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        test_stream s;
        golden g;
        const golden_totals *tot;
        uint64_t span, states = 0;
        test_model_stream(names[i], 5, 100000, &s);
        run_golden(&s, 0, &t, &g);
        tot = golden_get_totals(&g);
        span = s.records[s.count - 1].cycle - s.records[0].cycle;
        for (int k = 0; k < GOLDEN_STATE_COUNT; k++)
            states += tot->states[k];
        assert_true(t.total == tot->attributed * UNIT);
        assert_true(tot->attributed + tot->unattributed == span);
        assert_true(states == span);
        /* The intervals' split plus the unattributed tail gives the totals. */
        assert_true(t.drained <= tot->states[GOLDEN_DRAINED]);
        assert_true(t.stalled <= tot->states[GOLDEN_STALLED]);
        assert_true(t.drained + t.stalled + tot->unattributed
                    == tot->states[GOLDEN_DRAINED] + tot->states[GOLDEN_STALLED]);
        test_stream_free(&s);
    }
}

static void append(test_stream *s, uint64_t cycle, unsigned n, uint8_t flags, uint16_t psv, unsigned dispatch)
{
    trace_record r;
    trace_uop u[2] = { { 0x100, psv, 0, 0 }, { 0x104, 0, 1, 0 } };
    memset(&r, 0, sizeof r);
    r.cycle = cycle;
    r.n_commit = (uint8_t)n;
    r.retire = (uint8_t)n;
    r.flags = flags;
    r.dispatch = (uint16_t)dispatch;
    test_stream_append(s, &r, u);
}

/* After the last commit: a flush window runs to the refill, the rest of the
 * trace cannot be charged to anybody. */
static void trailing_cycles(void **state)
{
    static tally t;
    test_stream s;
    golden g;
    const golden_totals *tot;
    (void)state;

    test_stream_init(&s);
    append(&s, 0, 0, 0, 0, 4);                      /* origin, dispatches a row */
    append(&s, 5, 1, 0, 1u << PSV_FL_MB, 0);       /* branch commits at 5 (after 4 stalled cycles) */
    append(&s, 8, 0, TRACE_REC_REFILL, 0, 0);       /* refill at 8: 6 and 7 flushed */
    append(&s, 10, 0, 0, 0, 0);                     /* 8, 9, 10 wait for a commit that never comes */
    run_golden(&s, 4, &t, &g);
    tot = golden_get_totals(&g);
    assert_int_equal(tot->attributed, 7);
    assert_int_equal(tot->unattributed, 3);
    assert_int_equal(tot->states[GOLDEN_FLUSHED], 2);
    assert_int_equal(tot->states[GOLDEN_COMPUTE], 1);
    assert_int_equal(tot->states[GOLDEN_STALLED], 7);
    assert_int_equal(t.count, 1);
    assert_true(t.cells[0]->cycles == 7 * UNIT);
    test_stream_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenario_matches_expected_pics),
        cmocka_unit_test(conservation_on_every_workload),
        cmocka_unit_test(trailing_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
