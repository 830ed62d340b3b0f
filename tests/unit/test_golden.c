/*
 * test_golden.c: the golden reference: the TraceDoctor vectors' expected PICS
 * and commit states under both rule sets, one hand-built vector per
 * difference between the rule sets, conservation of cycles on every
 * generated workload, and the trailing cycles of a trace.
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
    if (iv->n_commit == 0) {
        charge(t, iv->uops[0].pc, iv->exception_psv, (iv->cycle - iv->refill + 1) * UNIT);
        return;
    }
    charge(t, iv->uops[0].pc, iv->uops[0].psv, (iv->cycle - iv->refill) * UNIT);
    for (unsigned i = 0; i < iv->n_commit; i++)
        charge(t, iv->uops[i].pc, iv->uops[i].psv, UNIT / iv->n_commit);
}

static void run_golden_rules(const test_stream *s, unsigned initial_window, golden_rules rules, tally *t, golden *g)
{
    golden_sink sink = { tally_interval, t };
    trace_batch b = test_stream_batch(s, 0, s->count);
    memset(t, 0, sizeof *t);
    golden_init(g, initial_window);
    golden_set_rules(g, rules);
    golden_feed(g, &b, &sink);
    golden_finish(g, &sink);
}

static void run_golden(const test_stream *s, unsigned initial_window, tally *t, golden *g)
{
    run_golden_rules(s, initial_window, GOLDEN_RULES_DEFAULT, t, g);
}

/* The tallied cycles of cell (pc, psv), in 1/UNIT cycles (0 when absent). */
static uint64_t cell_cycles(const tally *t, uint64_t pc, uint16_t psv)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->cells[i]->pc == pc && t->cells[i]->psv == psv)
            return t->cells[i]->cycles;
    return 0;
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

/* Compares the tally with a vector's expected golden PICS (CSV
 * pc,psv-label,num/den); returns the number of rows. */
static size_t assert_tally_matches_csv(const tally *t, const char *csv_path)
{
    FILE *csv = fopen(csv_path, "r");
    char line[256];
    size_t rows = 0;

    assert_non_null(csv);
    while (fgets(line, sizeof line, csv)) {
        char label[64], *p, *last;
        unsigned long long pc;
        uint16_t psv;
        if (line[0] == '#' || strncmp(line, "pc,", 3) == 0)
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        assert_int_equal(sscanf(line, "%llx,", &pc), 1);
        p = strchr(line, ',') + 1;
        last = strrchr(line, ',');
        if (*p == '"')
            p++;
        snprintf(label, sizeof label, "%.*s", (int)(last - p - (last[-1] == '"')), p);
        if (trace_psv_parse_label(label, &psv)) {
            char *end;
            unsigned long v = strtoul(label, &end, 0); /* a numeric PSV */
            assert_true(*end == '\0' && v <= 0x1FF);
            psv = (uint16_t)v;
        }
        if (cell_cycles(t, pc, psv) != parse_cycles(last + 1))
            fail_msg("%s: %s: golden gives %llu/%llu", csv_path, line, (unsigned long long)cell_cycles(t, pc, psv),
                     UNIT);
        rows++;
    }
    fclose(csv);
    return rows;
}

/* One TraceDoctor vector under one rule set: its expected PICS, total and
 * commit states (compute, stalled, drained, flushed). */
static void check_vector(const char *name, golden_rules rules, uint64_t total, size_t rows,
                         const uint64_t states[GOLDEN_STATE_COUNT])
{
    static tally t;
    char bin[512], csv[512];
    test_stream s;
    golden g;
    const golden_totals *tot;

    snprintf(bin, sizeof bin, "%s/%s.bin", TEA_TEST_DATA, name);
    snprintf(csv, sizeof csv, "%s/%s.golden.csv", TEA_TEST_DATA, name);
    assert_int_equal(test_stream_read(bin, NULL, &s), 0);
    run_golden_rules(&s, s.header.initial_window, rules, &t, &g);
    tot = golden_get_totals(&g);
    assert_int_equal(tot->attributed, total);
    assert_int_equal(tot->unattributed, 0);
    assert_true(t.total == total * UNIT);
    for (int k = 0; k < GOLDEN_STATE_COUNT; k++)
        if (tot->states[k] != states[k])
            fail_msg("%s, %s rules: %s %llu, expected %llu", name, golden_rules_name(rules),
                     golden_state_name((enum golden_state)k), (unsigned long long)tot->states[k],
                     (unsigned long long)states[k]);
    assert_int_equal(t.drained, states[GOLDEN_DRAINED]); /* every waiting cycle belongs to a closed interval */
    assert_int_equal(t.stalled, states[GOLDEN_STALLED]);
    assert_int_equal(assert_tally_matches_csv(&t, csv), rows);
    assert_int_equal(t.count, rows);
    test_stream_free(&s);
}

/* scenario.bin: the rule sets agree on it (no origin flush cause, no
 * trailing window, an exception without own events). Commit states worked
 * out by hand in docs/semantics.md. */
static void scenario_matches_expected_pics(void **state)
{
    static const uint64_t states[GOLDEN_STATE_COUNT] = { 7, 25, 1, 17 };
    (void)state;
    check_vector("scenario", GOLDEN_RULES_DEFAULT, 50, 15, states);
    check_vector("scenario", GOLDEN_RULES_TRACEDOCTOR, 50, 15, states);
}

/* flush_no_refill.bin: a mispredicted branch commits while the correct path
 * is in the ROB and no POPULATED follows: no flush window; the flush-on-commit
 * µop after it empties the ROB and gets the window up to POPULATED. States
 * from the vector's comments. */
static void flush_no_refill_matches_expected_pics(void **state)
{
    static const uint64_t states[GOLDEN_STATE_COUNT] = { 4, 11, 0, 6 };
    (void)state;
    check_vector("flush_no_refill", GOLDEN_RULES_DEFAULT, 21, 5, states);
    check_vector("flush_no_refill", GOLDEN_RULES_TRACEDOCTOR, 21, 5, states);
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
    trace_uop u[2] = { { 0x100, psv, 0, 0, 0 }, { 0x104, 0, 1, 0, 0 } };
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
    append(&s, 5, 1, 0, 1u << TRACE_PSV_FL_MB, 0);  /* branch commits at 5 (after 4 stalled cycles) */
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

/* Appends a record: cycle, commits n of the µops u (then an exception when
 * `flags` says so), retire/squash/dispatch entries. */
static const trace_uop none = { 0, 0, 0, 0, 0 };

static void put(test_stream *s, uint64_t cycle, unsigned n, uint8_t flags, unsigned retire, unsigned squash,
                unsigned dispatch, const trace_uop *u)
{
    trace_record r;
    memset(&r, 0, sizeof r);
    r.cycle = cycle;
    r.n_commit = (uint8_t)n;
    r.flags = flags;
    r.retire = (uint8_t)retire;
    r.squash = (uint16_t)squash;
    r.dispatch = (uint16_t)dispatch;
    test_stream_append(s, &r, u ? u : &none);
}

#define MB (1u << TRACE_PSV_FL_MB)
#define EX (1u << TRACE_PSV_FL_EX)
#define CYC(x) ((uint64_t)(x) * UNIT)

/* Runs `s` under both rule sets and checks one cell's cycles and the
 * attributed total under each. */
typedef struct expected_cell {
    uint64_t pc;
    uint16_t psv;
    uint64_t cycles[GOLDEN_RULES_COUNT]; /* 1/UNIT cycles under default, tracedoctor */
} expected_cell;

static void check_both_rules(const test_stream *s, unsigned window, const expected_cell *cells, size_t n,
                             const uint64_t attributed[GOLDEN_RULES_COUNT], const char *what)
{
    static tally t;
    golden g;
    for (int rules = 0; rules < GOLDEN_RULES_COUNT; rules++) {
        size_t nonzero = 0;
        run_golden_rules(s, window, (golden_rules)rules, &t, &g);
        for (size_t i = 0; i < n; i++) {
            uint64_t got = cell_cycles(&t, cells[i].pc, cells[i].psv);
            if (got != cells[i].cycles[rules])
                fail_msg("%s, %s rules: cell 0x%llx/0x%x has %llu/%llu cycles, expected %llu/%llu", what,
                         golden_rules_name((golden_rules)rules), (unsigned long long)cells[i].pc, cells[i].psv,
                         (unsigned long long)got, UNIT, (unsigned long long)cells[i].cycles[rules], UNIT);
            nonzero += cells[i].cycles[rules] != 0;
        }
        assert_int_equal(t.count, nonzero); /* no other cell has cycles */
        assert_int_equal(golden_get_totals(&g)->attributed, attributed[rules]);
        assert_true(t.total == attributed[rules] * UNIT);
    }
}

/* Rule difference 1: an excepting µop's own events. An exception at 3 after
 * two stalled cycles, the ROB empty from 4, POPULATED at 6, a commit at 8:
 * 1..3 and the window 4..5 go to the excepting load, 6..8 to the next µop.
 * The project keeps its ST-L1 beside FL-EX; the worker gives it FL-EX alone. */
static void rules_exception_events(void **state)
{
    const trace_uop load = { 0x200, (1u << TRACE_PSV_ST_L1) | EX, 0, 0, 0 }, next = { 0x204, 0, 0, 0, 0 };
    const expected_cell cells[] = {
        { 0x200, (1u << TRACE_PSV_ST_L1) | EX, { CYC(5), 0 } },
        { 0x200, EX, { 0, CYC(5) } },
        { 0x204, 0, { CYC(3), CYC(3) } },
    };
    const uint64_t attributed[GOLDEN_RULES_COUNT] = { 8, 8 };
    test_stream s;
    (void)state;
    test_stream_init(&s);
    put(&s, 0, 0, 0, 0, 0, 0, NULL);
    put(&s, 3, 0, TRACE_REC_EXCEPTION, 1, 3, 0, &load);
    put(&s, 5, 0, 0, 0, 0, 4, NULL);
    put(&s, 6, 0, TRACE_REC_REFILL, 0, 0, 0, NULL);
    put(&s, 8, 1, 0, 1, 0, 0, &next);
    check_both_rules(&s, 4, cells, sizeof cells / sizeof cells[0], attributed, "exception events");
    test_stream_free(&s);
}

/* Rule difference 2a: the origin's flush cause. The origin commits a
 * mispredicted branch; the ROB refills at 3 and the next µop commits at 5.
 * The project charges the window 1..2 to the branch (3..5 to the next µop);
 * the worker's flush-cause register starts empty, so 1..5 go to the next µop. */
static void rules_origin_flush_cause(void **state)
{
    const trace_uop branch = { 0x300, MB, 0, 0, 0 }, next = { 0x304, 0, 0, 0, 0 };
    const expected_cell cells[] = {
        { 0x300, MB, { CYC(2), 0 } },
        { 0x304, 0, { CYC(3), CYC(5) } },
    };
    const uint64_t attributed[GOLDEN_RULES_COUNT] = { 5, 5 };
    test_stream s;
    (void)state;
    test_stream_init(&s);
    put(&s, 0, 1, 0, 1, 0, 0, &branch);
    put(&s, 2, 0, 0, 0, 0, 4, NULL);
    put(&s, 3, 0, TRACE_REC_REFILL, 0, 0, 0, NULL);
    put(&s, 5, 1, 0, 1, 0, 0, &next);
    check_both_rules(&s, 1, cells, sizeof cells / sizeof cells[0], attributed, "origin flush cause");
    test_stream_free(&s);
}

/* Rule difference 2b: a flush window still open at the end. A flush-on-commit
 * µop commits at 2 and empties the ROB; the trace ends at 6 before any
 * POPULATED. The project charges 3..6 to it; the worker leaves them out. */
static void rules_trailing_window(void **state)
{
    const trace_uop fence = { 0x400, EX, 0, 0, 0 };
    const expected_cell cells[] = {
        { 0x400, EX, { CYC(6), CYC(2) } },
    };
    const uint64_t attributed[GOLDEN_RULES_COUNT] = { 6, 2 };
    test_stream s;
    golden g;
    static tally t;
    (void)state;
    test_stream_init(&s);
    put(&s, 0, 0, 0, 0, 0, 0, NULL);
    put(&s, 2, 1, 0, 1, 3, 0, &fence);
    put(&s, 6, 0, 0, 0, 0, 4, NULL);
    check_both_rules(&s, 4, cells, sizeof cells / sizeof cells[0], attributed, "trailing window");
    run_golden_rules(&s, 4, GOLDEN_RULES_TRACEDOCTOR, &t, &g);
    assert_int_equal(golden_get_totals(&g)->unattributed, 4);
    assert_int_equal(golden_get_totals(&g)->states[GOLDEN_FLUSHED], 0);
    run_golden_rules(&s, 4, GOLDEN_RULES_DEFAULT, &t, &g);
    assert_int_equal(golden_get_totals(&g)->unattributed, 0);
    assert_int_equal(golden_get_totals(&g)->states[GOLDEN_FLUSHED], 4);
    test_stream_free(&s);
}

/* Rule difference 3: a record that commits and excepts (BOOM never does; other
 * sources may). 0x500 commits at 2 and 0x504 excepts in the same cycle; the
 * ROB refills at 5; 0x508 commits at 7. The project: 0x504 is the flush
 * cause and gets the window 3..4. The worker ignores the exception, so 3..7
 * go to 0x508. */
static void rules_commit_and_exception(void **state)
{
    const trace_uop u[2] = { { 0x500, 0, 0, 0, 0 }, { 0x504, (1u << TRACE_PSV_ST_TLB) | EX, 1, 0, 0 } };
    const trace_uop next = { 0x508, 0, 0, 0, 0 };
    const expected_cell cells[] = {
        { 0x500, 0, { CYC(2), CYC(2) } },
        { 0x504, (1u << TRACE_PSV_ST_TLB) | EX, { CYC(2), 0 } },
        { 0x508, 0, { CYC(3), CYC(5) } },
    };
    const uint64_t attributed[GOLDEN_RULES_COUNT] = { 7, 7 };
    test_stream s;
    (void)state;
    test_stream_init(&s);
    put(&s, 0, 0, 0, 0, 0, 0, NULL);
    put(&s, 2, 1, TRACE_REC_EXCEPTION, 2, 2, 0, u);
    put(&s, 4, 0, 0, 0, 0, 4, NULL);
    put(&s, 5, 0, TRACE_REC_REFILL, 0, 0, 0, NULL);
    put(&s, 7, 1, 0, 1, 0, 0, &next);
    check_both_rules(&s, 4, cells, sizeof cells / sizeof cells[0], attributed, "commit and exception");
    test_stream_free(&s);
}

/* Rule difference 4: a flush cause that is not the last µop of its cycle. A
 * mispredicted branch and a plain µop commit at 2; the ROB refills at 5;
 * 0x608 commits at 7. The project follows the state table (the last µop to
 * commit was no flush cause: 3..7 go to 0x608); the worker keeps the branch
 * in its flush-cause register and charges it the window 3..4. */
static void rules_flush_cause_not_last(void **state)
{
    const trace_uop u[2] = { { 0x600, MB, 0, 0, 0 }, { 0x604, 0, 1, 0, 0 } };
    const trace_uop next = { 0x608, 0, 0, 0, 0 };
    const expected_cell cells[] = {
        { 0x600, MB, { CYC(1) + UNIT / 2, CYC(3) + UNIT / 2 } },
        { 0x604, 0, { UNIT / 2, UNIT / 2 } },
        { 0x608, 0, { CYC(5), CYC(3) } },
    };
    const uint64_t attributed[GOLDEN_RULES_COUNT] = { 7, 7 };
    test_stream s;
    (void)state;
    test_stream_init(&s);
    put(&s, 0, 0, 0, 0, 0, 0, NULL);
    put(&s, 2, 2, 0, 2, 2, 0, u);
    put(&s, 4, 0, 0, 0, 0, 4, NULL);
    put(&s, 5, 0, TRACE_REC_REFILL, 0, 0, 0, NULL);
    put(&s, 7, 1, 0, 1, 0, 0, &next);
    check_both_rules(&s, 4, cells, sizeof cells / sizeof cells[0], attributed, "flush cause not last");
    test_stream_free(&s);
}

/* golden_plain_run by hand: what it charges each µop, where it stops, and
 * the state it leaves, which golden_step then carries on from. */
static void plain_run_by_hand(void **state)
{
    const trace_uop two[2] = { { 0x200, 0, 0, 0, 0 }, { 0x204, MB, 1, 0, 0 } };
    const trace_uop four[4] = { { 0x208, 0, 0, 0, 0 }, { 0x20c, 0, 1, 0, 0 }, { 0x210, 0, 2, 0, 0 }, { 0x214, 0, 3, 0, 0 } };
    const trace_uop one = { 0x300, 0, 0, 0, 0 };
    uint64_t charge[6 * GOLDEN_PLAIN_UOPS + GOLDEN_PLAIN_UOPS];
    golden_units units;
    test_stream s;
    golden g;
    golden_run run;
    golden_interval iv;
    trace_batch b;
    (void)state;

    test_stream_init(&s);
    put(&s, 10, 1, 0, 1, 0, 0, &one);                /* origin: 3 entries left */
    put(&s, 12, 0, 0, 0, 0, 3, NULL);                /* 11, 12 stalled */
    put(&s, 15, 2, 0, 2, 0, 0, two);                 /* 13, 14 stalled; the branch is a flush cause */
    put(&s, 16, 4, 0, 4, 0, 0, four);                /* 4 x 1/4, nothing before; empties the ROB */
    put(&s, 19, 0, 0, 0, 0, 4, NULL);                /* 17 to 19 drained */
    put(&s, 20, 1, TRACE_REC_REFILL, 1, 0, 0, &one); /* flags: not plain */
    golden_units_init(&units, UNIT);
    golden_init(&g, 4);
    b = test_stream_batch(&s, 0, s.count);
    assert_int_equal(golden_intervals(&g, b.records, 1, b.uops, &iv), 0);
    golden_run_begin(&g, &run);
    /* A limit at cycle 16 stops before the four commits. */
    assert_int_equal(golden_plain_run(&run, b.records + 1, 5, b.uops, 16, &units, charge), 2);
    assert_true(charge[0] == CYC(4) + UNIT / 2 && charge[1] == UNIT / 2);
    assert_true(run.boundary == 15 && run.flush_pending && run.cause == &b.uops[2] && run.cause_psv == MB);
    assert_int_equal(golden_plain_run(&run, b.records + 3, 3, b.uops, UINT64_MAX, &units, charge), 2);
    for (unsigned k = 0; k < 4; k++)
        assert_true(charge[k] == UNIT / 4);
    assert_true(run.boundary == 16 && !run.flush_pending && run.cause == &b.uops[6]);
    assert_true(run.last == 19 && run.window == 4 && run.drained == 3 && run.stalled == 0);
    assert_true(run.compute == 2 && run.closed_stalled == 4 && run.closed_drained == 0);
    /* The refill record is golden_step's: 20 is its own, 17 to 19 go to it. */
    assert_int_equal(golden_plain_run(&run, b.records + 5, 1, b.uops, UINT64_MAX, &units, charge), 0);
    assert_int_equal(golden_step(&run, &b.records[5], b.uops + b.records[5].first_uop, &iv), 1);
    assert_true(iv.start == 17 && iv.refill == 17 && iv.drained == 3 && !iv.has_flush_cause);
    golden_run_end(&g, &run);
    assert_true(golden_get_totals(&g)->states[GOLDEN_COMPUTE] == 3);
    assert_true(golden_get_totals(&g)->states[GOLDEN_STALLED] == 4);
    assert_true(golden_get_totals(&g)->states[GOLDEN_DRAINED] == 3);
    /* Under the TraceDoctor rules it takes nothing. */
    run.rules = GOLDEN_RULES_TRACEDOCTOR;
    assert_int_equal(golden_plain_run(&run, b.records + 1, 4, b.uops, UINT64_MAX, &units, charge), 0);
    test_stream_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenario_matches_expected_pics),
        cmocka_unit_test(flush_no_refill_matches_expected_pics),
        cmocka_unit_test(rules_exception_events),
        cmocka_unit_test(rules_origin_flush_cause),
        cmocka_unit_test(rules_trailing_window),
        cmocka_unit_test(rules_commit_and_exception),
        cmocka_unit_test(rules_flush_cause_not_last),
        cmocka_unit_test(conservation_on_every_workload),
        cmocka_unit_test(trailing_cycles),
        cmocka_unit_test(plain_run_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
