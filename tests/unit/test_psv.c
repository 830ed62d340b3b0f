/*
 * test_psv.c: PSV labels and their parsing, and the event counter.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/psv.h"

#include <string.h>

static void labels_follow_bit_order(void **state)
{
    char buf[TRACE_PSV_LABEL_MAX];
    (void)state;
    assert_string_equal(trace_psv_label(0, buf, sizeof buf), "base");
    assert_string_equal(trace_psv_label(1u << TRACE_PSV_ST_L1, buf, sizeof buf), "ST-L1");
    assert_string_equal(trace_psv_label((1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC), buf, sizeof buf),
                        "ST-L1,ST-LLC");
    assert_string_equal(trace_psv_label(1u << TRACE_PSV_FL_MO, buf, sizeof buf), "FL-MO");
    assert_string_equal(trace_psv_label(TRACE_PSV_MASK_ALL, buf, sizeof buf),
                        "ST-L1,ST-TLB,ST-LLC,DR-L1,DR-TLB,DR-SQ,FL-MB,FL-EX,FL-MO");
    assert_true(strlen(buf) < TRACE_PSV_LABEL_MAX);
}

static void labels_parse_back(void **state)
{
    char buf[TRACE_PSV_LABEL_MAX];
    uint16_t psv;
    (void)state;
    for (unsigned v = 0; v < TRACE_PSV_VALUES; v++) {
        assert_int_equal(trace_psv_parse_label(trace_psv_label((uint16_t)v, buf, sizeof buf), &psv), 0);
        assert_int_equal(psv, v);
    }
    assert_int_equal(trace_psv_parse_label("72", &psv), 0);
    assert_int_equal(psv, 72);
    assert_int_equal(trace_psv_parse_label("ST-L2", &psv), TEA_ERR_USAGE);
    assert_contains(error_message(), "ST-L2");
    assert_int_equal(trace_psv_parse_label("512", &psv), TEA_ERR_USAGE);
}

static void family_bits(void **state)
{
    (void)state;
    /* 0x1A5 = 1 1010 0101: stalls 101 = 5 (ST-L1, ST-LLC), drains 100 = 4
     * (DR-SQ), flushes 110 = 6 (FL-EX, FL-MO). */
    assert_int_equal(trace_psv_family_bits(0x1A5, TRACE_PSV_FAMILY_STALL), 5);
    assert_int_equal(trace_psv_family_bits(0x1A5, TRACE_PSV_FAMILY_DRAIN), 4);
    assert_int_equal(trace_psv_family_bits(0x1A5, TRACE_PSV_FAMILY_FLUSH), 6);
    assert_int_equal(trace_psv_family_bits(1u << TRACE_PSV_DR_TLB, TRACE_PSV_FAMILY_DRAIN), 2);
    assert_int_equal(trace_psv_family_bits(0, TRACE_PSV_FAMILY_FLUSH), 0);
}

/* The counter adds up exactly the events of the µops counted, each event
 * once per µop that has it, and is empty after a flush. */
static void counter_counts_each_event_per_uop(void **state)
{
    /* 0x005: ST-L1, ST-LLC. 0x1FF: all nine. 0x100: FL-MO. 0x021 (twice):
     * ST-L1, DR-SQ. 0: none. */
    static const unsigned psvs[] = { 0x005, 0x1FF, 0x100, 0x021, 0x021, 0 };
    static const uint64_t expected[TRACE_PSV_EVENT_COUNT] = {
        4,    /* ST-L1: 0x005, 0x1FF, 0x021 twice */
        1,    /* ST-TLB */
        2,    /* ST-LLC: 0x005, 0x1FF */
        1, 1, /* DR-L1, DR-TLB */
        3,    /* DR-SQ: 0x1FF, 0x021 twice */
        1, 1, /* FL-MB, FL-EX */
        2,    /* FL-MO: 0x1FF, 0x100 */
    };
    uint64_t events[TRACE_PSV_EVENT_COUNT] = { 0 };
    trace_psv_counter c = { 0, 0 };
    (void)state;

    for (size_t i = 0; i < sizeof psvs / sizeof psvs[0]; i++)
        trace_psv_count(&c, psvs[i], events);
    trace_psv_counter_flush(&c, events);
    assert_memory_equal(events, expected, sizeof expected);
    trace_psv_counter_flush(&c, events);
    assert_memory_equal(events, expected, sizeof expected);
}

/* More µops than a lane holds: the counter empties its lanes into the
 * events on the way, and nothing is lost or counted twice. */
static void counter_empties_full_lanes(void **state)
{
    const unsigned uops = 3 * TRACE_PSV_LANE_MAX + 5; /* 386 */
    uint64_t events[TRACE_PSV_EVENT_COUNT] = { 0 };
    trace_psv_counter c = { 0, 0 };
    (void)state;

    for (unsigned i = 0; i < uops; i++)
        trace_psv_count(&c, TRACE_PSV_MASK_ALL, events);
    /* three full lanes went out; five µops wait */
    assert_int_equal(events[TRACE_PSV_ST_L1], 3 * TRACE_PSV_LANE_MAX);
    assert_int_equal(c.uops, 5);
    trace_psv_counter_flush(&c, events);
    for (unsigned e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        assert_int_equal(events[e], uops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(labels_follow_bit_order),
        cmocka_unit_test(labels_parse_back),
        cmocka_unit_test(family_bits),
        cmocka_unit_test(counter_counts_each_event_per_uop),
        cmocka_unit_test(counter_empties_full_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
