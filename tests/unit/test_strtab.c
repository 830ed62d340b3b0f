/*
 * test_strtab.c: tables of distinct strings (common/strtab.c): indices in
 * the order first added, the same index for the same text, copies kept,
 * every string found again after the table grew many times; and every
 * allocation of a table and a protobuf message failed in turn.
 */
#include "common/error.h"
#include "common/protobuf.h"
#include "common/strtab.h"
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static void indices_in_order(void **state)
{
    strtab t;
    char text[8] = "beta";
    (void)state;
    strtab_init(&t);
    assert_int_equal(strtab_index(&t, ""), 0);
    assert_int_equal(strtab_index(&t, "alpha"), 1);
    assert_int_equal(strtab_index(&t, text), 2);
    strcpy(text, "gamma"); /* the table keeps its own copy */
    assert_int_equal(strtab_index(&t, "alpha"), 1);
    assert_int_equal(strtab_index(&t, "beta"), 2);
    assert_int_equal(strtab_index(&t, text), 3);
    assert_int_equal(t.count, 4);
    assert_string_equal(t.text[2], "beta");
    strtab_free(&t);
    assert_int_equal(t.count, 0);
}

/* 5000 strings (the slots double from 1024 to 16384): each one's index is
 * its order, before and after the growth. */
static void grows(void **state)
{
    strtab t;
    char name[32];
    (void)state;
    strtab_init(&t);
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "fn_%d", i);
        assert_int_equal(strtab_index(&t, name), i);
    }
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "fn_%d", i);
        assert_int_equal(strtab_index(&t, name), i);
    }
    assert_int_equal(t.count, 5000);
    strtab_free(&t);
}

/* A table of 600 strings and a message of 600 fields (each buffer grows
 * several times): 0, or TEA_ERR_NOMEM with nothing leaked. */
static int build(void *ctx)
{
    strtab t;
    protobuf_buf b, m;
    char name[32];
    int rc = TEA_OK;
    (void)ctx;
    strtab_init(&t);
    protobuf_init(&b);
    protobuf_init(&m);
    for (int i = 0; i < 600 && !rc; i++) {
        snprintf(name, sizeof name, "fn_%d", i);
        if (strtab_index(&t, name) < 0)
            rc = TEA_ERR_NOMEM;
        protobuf_reset(&m);
        protobuf_string(&m, 1, name);
        protobuf_message(&b, 2, &m);
    }
    if (!rc)
        rc = b.rc;
    strtab_free(&t);
    protobuf_free(&b);
    protobuf_free(&m);
    return rc;
}

/* Every allocation of it failed in turn (the sanitized build checks for
 * leaks). */
static void allocation_failures(void **state)
{
    (void)state;
    assert_int_equal(test_alloc_each("strtab and protobuf", build, NULL, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(indices_in_order),
        cmocka_unit_test(grows),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
