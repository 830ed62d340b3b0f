/*
 * test_replay.c: the replay engine against an independent, cycle-by-cycle
 * implementation of the golden rules, on generated traces of every workload:
 * golden equals the brute force; TEA at period 1 equals golden; TEA at
 * period P without jitter equals golden at origin + kP; cycles and µops are
 * conserved, in both trace formats; seeds give reproducible, distinct
 * samples.
 */
#include "testutil.h"
#include "pics/pics.h"
#include "tea/replay.h"
#include "trace/psv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define U PICS_UNIT
#define CYCLES 120000

static const char *const names[] = { "mixed", "memory", "branchy", "frontend", "flushes", "compute" };
#define NAMES (sizeof names / sizeof names[0])

/*
 * Brute force, straight from docs/semantics.md, for either rule set: cycle t
 * (origin < t <= last) goes to the flush cause left by the last record that
 * committed or excepted before t when a REFILL record came after that record,
 * no later than the next commit or exception, and after t (the flush window
 * [cause + 1, refill)); under the default rules also when neither a REFILL nor
 * a commit came until the end of the trace. Otherwise it goes to the µops of
 * the first record committing or excepting at or after t (all commits 1/n if
 * that is cycle t itself, else its first µop), or to nobody after the last.
 */
typedef struct brute {
    const test_stream *s;
    golden_rules rules;
    size_t *closing;      /* indices of records that commit or except */
    size_t closing_count;
    uint64_t *next_refill; /* per record: cycle of the first later REFILL record */
} brute;

static void brute_init(brute *b, const test_stream *s, golden_rules rules)
{
    uint64_t refill = UINT64_MAX;
    b->s = s;
    b->rules = rules;
    b->closing = malloc(s->count * sizeof *b->closing);
    b->next_refill = malloc(s->count * sizeof *b->next_refill);
    b->closing_count = 0;
    assert_non_null(b->closing);
    assert_non_null(b->next_refill);
    for (size_t i = 0; i < s->count; i++)
        if (trace_record_uops(&s->records[i]) > 0)
            b->closing[b->closing_count++] = i;
    for (size_t i = s->count; i-- > 0;) {
        b->next_refill[i] = refill;
        if (s->records[i].flags & TRACE_REC_REFILL)
            refill = s->records[i].cycle;
    }
}

static void brute_free(brute *b)
{
    free(b->closing);
    free(b->next_refill);
}

/* The first closing record with cycle >= t (closing_count if none). */
static size_t first_closing_at(const brute *b, uint64_t t)
{
    size_t lo = 0, hi = b->closing_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->s->records[b->closing[mid]].cycle < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The PSV an excepting µop is charged with under the rules. */
static uint16_t brute_exception_psv(const brute *b, const trace_uop *u)
{
    return b->rules == GOLDEN_RULES_TRACEDOCTOR ? (uint16_t)(1u << TRACE_PSV_FL_EX) : u->psv;
}

/* The flush cause closing record r leaves (NULL: none), its PSV in *psv. The
 * TraceDoctor worker: the last committing µop that is one, or the excepting
 * µop of a record without commits. The project: the record's last µop. */
static const trace_uop *brute_cause(const brute *b, const trace_record *r, int origin, uint16_t *psv)
{
    const trace_uop *u = &b->s->uops[r->first_uop];
    unsigned n = trace_record_uops(r);
    if (b->rules == GOLDEN_RULES_DEFAULT) {
        if (!(r->flags & TRACE_REC_EXCEPTION) && !(u[n - 1].psv & TRACE_PSV_FLUSH_CAUSE_MASK))
            return NULL;
        *psv = u[n - 1].psv;
        return &u[n - 1];
    }
    if (origin)
        return NULL;
    if (r->n_commit == 0) {
        *psv = brute_exception_psv(b, &u[0]);
        return &u[0];
    }
    for (unsigned i = r->n_commit; i-- > 0;) {
        if (u[i].psv & TRACE_PSV_FLUSH_CAUSE_MASK) {
            *psv = u[i].psv;
            return &u[i];
        }
    }
    return NULL;
}

/* Charges cycle t to `p` (weight one sample, U). */
static void brute_charge(const brute *b, uint64_t t, pics *p)
{
    const test_stream *s = b->s;
    size_t k = first_closing_at(b, t);
    if (k > 0) {
        /* the last record that committed or excepted before t (maybe the origin) */
        size_t prev_index = b->closing[k - 1];
        uint16_t psv = 0;
        const trace_uop *cause = brute_cause(b, &s->records[prev_index], prev_index == 0, &psv);
        uint64_t refill = b->next_refill[prev_index];
        uint64_t next = k < b->closing_count ? s->records[b->closing[k]].cycle : UINT64_MAX;
        int window = refill != UINT64_MAX && refill <= next && t < refill;
        int trailing = k == b->closing_count && refill == UINT64_MAX && b->rules == GOLDEN_RULES_DEFAULT;
        if (cause && (window || trailing)) {
            assert_int_equal(pics_add(p, cause->pc, psv, U, 1), 0);
            return;
        }
    }
    if (k == b->closing_count)
        return; /* unattributed */
    {
        const trace_record *r = &s->records[b->closing[k]];
        const trace_uop *u = &s->uops[r->first_uop];
        if (r->cycle == t && r->n_commit > 0) {
            for (unsigned i = 0; i < r->n_commit; i++)
                assert_int_equal(pics_add(p, u[i].pc, u[i].psv, U / r->n_commit, 1), 0);
        } else {
            uint16_t psv = r->n_commit == 0 ? brute_exception_psv(b, &u[0]) : u[0].psv;
            assert_int_equal(pics_add(p, u[0].pc, psv, U, 1), 0);
        }
    }
}

static tea_sampler_spec tea_spec(uint64_t period)
{
    tea_sampler_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.scheme = PICS_SCHEME_TEA;
    sp.period = period;
    sp.frequency_hz = 1;
    sp.jitter = PICS_JITTER_NONE;
    sp.seed = 1;
    sp.event_mask = TRACE_PSV_MASK_ALL;
    return sp;
}

static tea_replay *replay_stream_rules(const test_stream *s, const tea_sampler_spec *specs, size_t n,
                                      golden_rules rules)
{
    tea_replay *r;
    trace_batch b = test_stream_batch(s, 0, s->count);
    assert_int_equal(tea_replay_create(&r, s->header.initial_window, specs, n), 0);
    tea_replay_set_golden_rules(r, rules);
    assert_int_equal(tea_replay_feed(r, &b), 0);
    assert_int_equal(tea_replay_finish(r), 0);
    return r;
}

static tea_replay *replay_stream(const test_stream *s, const tea_sampler_spec *specs, size_t n)
{
    return replay_stream_rules(s, specs, n, GOLDEN_RULES_DEFAULT);
}

/* Golden equals the brute force over every cycle; TEA at period 1 equals
 * golden; TEA at period 97 without jitter equals the brute force at
 * origin + 97k; under both rule sets. Golden takes its plain path
 * (golden_plain_run) only between sample points: not at all beside the
 * period-1 sampler, in stretches of 97 cycles beside the period-97 one
 * alone, throughout without samplers; every way gives the same PICS and
 * totals. */
static void golden_and_tea_match_brute_force(void **state)
{
    (void)state;
    for (int rules = 0; rules < GOLDEN_RULES_COUNT; rules++) {
        for (size_t n = 0; n < NAMES; n++) {
            test_stream s;
            brute b;
            pics every, sampled;
            tea_sampler_spec specs[2] = { tea_spec(1), tea_spec(97) };
            tea_replay *r;
            uint64_t origin, last;
            char what[64];

            snprintf(what, sizeof what, "%s, %s rules", names[n], golden_rules_name((golden_rules)rules));
            test_model_stream(names[n], 17, CYCLES, &s);
            origin = s.records[0].cycle;
            last = s.records[s.count - 1].cycle;
            brute_init(&b, &s, (golden_rules)rules);
            assert_int_equal(pics_init(&every), 0);
            assert_int_equal(pics_init(&sampled), 0);
            for (uint64_t t = origin + 1; t <= last; t++) {
                brute_charge(&b, t, &every);
                if ((t - origin) % 97 == 0)
                    brute_charge(&b, t, &sampled);
            }
            r = replay_stream_rules(&s, specs, 2, (golden_rules)rules);
            assert_pics_match(&every, tea_replay_golden(r), 0, what);
            assert_pics_match(tea_replay_golden(r), tea_replay_sampler_pics(r, 0), 0, what);
            assert_pics_match(&sampled, tea_replay_sampler_pics(r, 1), 0, what);
            assert_int_equal(tea_replay_sampler_samples(r, 1),
                             (last - origin) / 97 - tea_replay_sampler_lost(r, 1)[PICS_LOST_END]);
            for (size_t k = 0; k < 2; k++) {
                tea_replay *plain = replay_stream_rules(&s, &specs[1], k, (golden_rules)rules);
                assert_pics_match(&every, tea_replay_golden(plain), 0, what);
                assert_memory_equal(tea_replay_golden_totals(plain), tea_replay_golden_totals(r),
                                    sizeof(golden_totals));
                if (k)
                    assert_pics_match(&sampled, tea_replay_sampler_pics(plain, 0), 0, what);
                tea_replay_free(plain);
            }
            tea_replay_free(r);
            pics_free(&every);
            pics_free(&sampled);
            brute_free(&b);
            test_stream_free(&s);
        }
    }
}

/* Conservation, through files of both formats: the golden cells sum exactly
 * to the attributed cycles, every committed or excepted µop after the origin
 * is counted once, and both formats give the same PICS. */
static void conservation_in_both_formats(void **state)
{
    char *native = test_temp_path("cons.tea"), *td = test_temp_path("cons.td.zst");
    trace_write_options wn = { TRACE_FORMAT_NATIVE, 0, 0, 0 }, wt = { TRACE_FORMAT_TRACEDOCTOR, 0, 0, 0 };
    (void)state;
    for (size_t n = 0; n < NAMES; n++) {
        test_stream s, a, c;
        tea_replay *ra, *rc;
        uint64_t counted = 0, expected;
        const pics *g;

        test_model_stream(names[n], 23, CYCLES, &s);
        assert_int_equal(test_stream_write(&s, &s.header, &wn, native), 0);
        assert_int_equal(test_stream_write(&s, &s.header, &wt, td), 0);
        assert_int_equal(test_stream_read(native, NULL, &a), 0);
        assert_int_equal(test_stream_read(td, NULL, &c), 0);
        ra = replay_stream_rules(&a, NULL, 0, (golden_rules)(n % GOLDEN_RULES_COUNT));
        rc = replay_stream_rules(&c, NULL, 0, (golden_rules)(n % GOLDEN_RULES_COUNT));
        g = tea_replay_golden(ra);
        assert_true(g->total == tea_replay_golden_totals(ra)->attributed * U);
        assert_true(tea_replay_golden_totals(ra)->attributed + tea_replay_golden_totals(ra)->unattributed
                    == a.totals.last_cycle - a.totals.first_cycle);
        for (size_t i = 0; i < g->capacity; i++)
            counted += g->slots[i].used ? g->slots[i].count : 0;
        expected = a.totals.commits + a.totals.exceptions - trace_record_uops(&a.records[0]);
        if (counted != expected)
            fail_msg("%s: %llu µops counted, %llu expected", names[n], (unsigned long long)counted, (unsigned long long)expected);
        assert_pics_match(g, tea_replay_golden(rc), 0, names[n]);
        tea_replay_free(ra);
        tea_replay_free(rc);
        test_stream_free(&s);
        test_stream_free(&a);
        test_stream_free(&c);
    }
    unlink(native);
    unlink(td);
    free(native);
    free(td);
}

/* The same seed reproduces every sampler exactly; another seed moves the
 * jittered points. */
static void seeds_reproduce_and_differ(void **state)
{
    test_stream s;
    tea_sampler_spec specs[5];
    tea_replay *a, *b, *c;
    int differs = 0;
    (void)state;

    test_model_stream("mixed", 29, CYCLES, &s);
    for (int i = 0; i < 5; i++) {
        specs[i] = tea_spec(400);
        specs[i].scheme = (pics_scheme)(PICS_SCHEME_TEA + i);
        specs[i].jitter = PICS_JITTER_INTERVAL;
    }
    a = replay_stream(&s, specs, 5);
    b = replay_stream(&s, specs, 5);
    for (int i = 0; i < 5; i++)
        specs[i].seed = 2;
    c = replay_stream(&s, specs, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_pics_match(tea_replay_sampler_pics(a, i), tea_replay_sampler_pics(b, i), 0, "same seed");
        assert_int_equal(tea_replay_sampler_samples(a, i), tea_replay_sampler_samples(b, i));
        if (tea_replay_sampler_pics(a, i)->count != tea_replay_sampler_pics(c, i)->count
            || tea_replay_sampler_pics(a, i)->total != tea_replay_sampler_pics(c, i)->total)
            differs++;
        else {
            const pics *p = tea_replay_sampler_pics(a, i);
            for (size_t k = 0; k < p->capacity; k++) {
                const pics_cell *x = &p->slots[k], *y;
                if (!x->used)
                    continue;
                y = pics_find(tea_replay_sampler_pics(c, i), x->pc, x->psv);
                if (!y || y->value != x->value) {
                    differs++;
                    break;
                }
            }
        }
    }
    assert_int_equal(differs, 5);
    tea_replay_free(a);
    tea_replay_free(b);
    tea_replay_free(c);
    test_stream_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_and_tea_match_brute_force),
        cmocka_unit_test(conservation_in_both_formats),
        cmocka_unit_test(seeds_reproduce_and_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
