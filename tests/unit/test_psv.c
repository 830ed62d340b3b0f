/*
 * test_psv.c: PSV labels and their parsing.
 */
#include "testutil.h"
#include "common/error.h"
#include "trace/psv.h"

#include <string.h>

static void labels_follow_bit_order(void **state)
{
    char buf[PSV_LABEL_MAX];
    (void)state;
    assert_string_equal(psv_label(0, buf, sizeof buf), "base");
    assert_string_equal(psv_label(1u << PSV_ST_L1, buf, sizeof buf), "ST-L1");
    assert_string_equal(psv_label((1u << PSV_ST_L1) | (1u << PSV_ST_LLC), buf, sizeof buf), "ST-L1,ST-LLC");
    assert_string_equal(psv_label(1u << PSV_FL_MO, buf, sizeof buf), "FL-MO");
    assert_string_equal(psv_label(PSV_MASK_ALL, buf, sizeof buf),
                        "ST-L1,ST-TLB,ST-LLC,DR-L1,DR-TLB,DR-SQ,FL-MB,FL-EX,FL-MO");
    assert_true(strlen(buf) < PSV_LABEL_MAX);
}

static void labels_parse_back(void **state)
{
    char buf[PSV_LABEL_MAX];
    uint16_t psv;
    (void)state;
    for (unsigned v = 0; v < PSV_VALUES; v++) {
        assert_int_equal(psv_parse_label(psv_label((uint16_t)v, buf, sizeof buf), &psv), 0);
        assert_int_equal(psv, v);
    }
    assert_int_equal(psv_parse_label("72", &psv), 0);
    assert_int_equal(psv, 72);
    assert_int_equal(psv_parse_label("ST-L2", &psv), TEA_ERR_USAGE);
    assert_contains(tea_error_message(), "ST-L2");
    assert_int_equal(psv_parse_label("512", &psv), TEA_ERR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(labels_follow_bit_order),
        cmocka_unit_test(labels_parse_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
