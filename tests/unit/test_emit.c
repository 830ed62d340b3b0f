/*
 * test_emit.c: the one output layer (common/emit.h). A hand-made table of
 * three rows written as a text table, as CSV and as JSON, each compared
 * byte for byte with what it must be; cells that JSON leaves out or shows
 * as null; a callback's error ending a table; fixed-point numbers.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/emit.h"
#include "common/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Three functions, their calls and shares; the third has no file, and the
 * second's name needs CSV quotes. */
typedef struct row {
    const char *name;
    uint64_t calls;
    double share;
    const char *file;
} row;

static const row ROWS[] = {
    { "main", 12, 0.5, "main.c" },
    { "f,g", 3, 0.125, "lib.c" },
    { "idle", 0, 0.375, NULL },
};

typedef struct table_ctx {
    const row *rows;
    size_t fail_at; /* the row whose name fails (SIZE_MAX: none) */
} table_ctx;

static int cell_name(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const table_ctx *t = ctx;
    (void)format;
    if (i == t->fail_at)
        return error_set(TEA_ERR_FORMAT, "no name for row %zu", i);
    emit_text(cell, t->rows[i].name);
    return TEA_OK;
}

static int cell_calls(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const table_ctx *t = ctx;
    (void)format;
    emit_printf(cell, "%llu", (unsigned long long)t->rows[i].calls);
    cell->json = EMIT_JSON_U64;
    cell->count = t->rows[i].calls;
    return TEA_OK;
}

/* A percentage in text, a fraction in CSV and JSON. */
static int cell_share(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const table_ctx *t = ctx;
    if (format == EMIT_TEXT)
        emit_printf(cell, "%.1f%%", 100.0 * t->rows[i].share);
    else
        emit_fixed(t->rows[i].share, 3, cell->text, EMIT_CELL_MAX);
    cell->json = EMIT_JSON_DOUBLE;
    cell->number = t->rows[i].share;
    return TEA_OK;
}

/* null in JSON where there is no file; left out of JSON for idle. */
static int cell_file(void *ctx, size_t i, emit_format format, emit_cell *cell)
{
    const table_ctx *t = ctx;
    (void)format;
    emit_text(cell, t->rows[i].file);
    if (!t->rows[i].file)
        cell->json = strcmp(t->rows[i].name, "idle") == 0 ? EMIT_JSON_OMIT : EMIT_JSON_NULL;
    return TEA_OK;
}

static const emit_column COLUMNS[] = {
    { "name", "Function", -6, 0, " ", EMIT_CSV_FIELD, cell_name, 0 },
    { "calls", NULL, 5, 0, "  ", EMIT_CSV_RAW, cell_calls, 0 },
    { "share", "Share", 6, 5, " ", EMIT_CSV_RAW, cell_share, 0 },
    { "file", "File", 0, 0, NULL, EMIT_CSV_FIELD, cell_file, 0 },
};

static emit_table table_of(table_ctx *ctx)
{
    emit_table t = { COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], ctx, 3, "# ", "  ", NULL };
    return t;
}

/* The lines a text table prints under each row. */
static int under_row(FILE *f, void *ctx, size_t i)
{
    (void)ctx;
    fprintf(f, "    (row %zu)\n", i);
    return TEA_OK;
}

/* Runs `write` into a string (malloc'd). */
#define CAPTURE(out, write)                                                                        \
    do {                                                                                           \
        size_t size_;                                                                              \
        FILE *f = open_memstream(&(out), &size_);                                                  \
        assert_non_null(f);                                                                        \
        write;                                                                                     \
        assert_int_equal(fclose(f), 0);                                                            \
    } while (0)

static void text_table(void **state)
{
    table_ctx ctx = { ROWS, SIZE_MAX };
    emit_table t = table_of(&ctx);
    char *out = NULL;
    int rc = -1;
    (void)state;

    /* Function: left in 6 columns; calls: right in 5, then two spaces;
     * share: the heading in 5, the cells in 6; file as it is. */
    CAPTURE(out, (emit_text_heading(f, &t), rc = emit_text_rows(f, &t)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "# Function calls  Share File\n"
                             "  main      12   50.0% main.c\n"
                             "  f,g        3   12.5% lib.c\n"
                             "  idle       0   37.5% \n");
    free(out);

    t.after_row = under_row;
    CAPTURE(out, rc = emit_text_rows(f, &t));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "  main      12   50.0% main.c\n    (row 0)\n"
                             "  f,g        3   12.5% lib.c\n    (row 1)\n"
                             "  idle       0   37.5% \n    (row 2)\n");
    free(out);
}

static void csv_table(void **state)
{
    table_ctx ctx = { ROWS, SIZE_MAX };
    emit_table t = table_of(&ctx);
    char *out = NULL;
    int rc = -1;
    (void)state;

    CAPTURE(out, (emit_csv_header(f, &t), rc = emit_csv_rows(f, &t)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "name,calls,share,file\n"
                             "main,12,0.500,main.c\n"
                             "\"f,g\",3,0.125,lib.c\n"
                             "idle,0,0.375,\n");
    free(out);
}

static void json_table(void **state)
{
    table_ctx ctx = { ROWS, SIZE_MAX };
    emit_table t = table_of(&ctx);
    json_writer j;
    char *out = NULL;
    int rc = -1;
    (void)state;

    CAPTURE(out, (json_init(&j, f), rc = emit_json_rows(&j, &t), json_finish(&j)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "[\n"
                             "  {\n"
                             "    \"name\": \"main\",\n"
                             "    \"calls\": 12,\n"
                             "    \"share\": 0.5,\n"
                             "    \"file\": \"main.c\"\n"
                             "  },\n"
                             "  {\n"
                             "    \"name\": \"f,g\",\n"
                             "    \"calls\": 3,\n"
                             "    \"share\": 0.125,\n"
                             "    \"file\": \"lib.c\"\n"
                             "  },\n"
                             "  {\n"
                             "    \"name\": \"idle\",\n"
                             "    \"calls\": 0,\n"
                             "    \"share\": 0.375\n"
                             "  }\n"
                             "]\n");
    free(out);
}

/* A cell's error ends the table at its row, in every format. */
static void a_cells_error_ends_the_table(void **state)
{
    table_ctx ctx = { ROWS, 1 };
    emit_table t = table_of(&ctx);
    json_writer j;
    char *out = NULL;
    int rc = 0;
    (void)state;

    CAPTURE(out, rc = emit_csv_rows(f, &t));
    assert_int_equal(rc, TEA_ERR_FORMAT);
    assert_string_equal(error_message(), "no name for row 1");
    assert_string_equal(out, "main,12,0.500,main.c\n");
    free(out);
    CAPTURE(out, rc = emit_text_rows(f, &t));
    assert_int_equal(rc, TEA_ERR_FORMAT);
    free(out);
    CAPTURE(out, (json_init(&j, f), rc = emit_json_rows(&j, &t)));
    assert_int_equal(rc, TEA_ERR_FORMAT);
    free(out);
}

/* Key/value lines: values start at character 14 whatever the label's
 * bytes (µ is two), a label of 13 characters or more gets one blank, and
 * NULL continues the value above. */
static void fields_align_their_values(void **state)
{
    char *out = NULL;
    (void)state;

    CAPTURE(out, (emit_field(f, "file", "%s", "t.tea"), emit_field(f, "µops", "%d committed", 7),
                  emit_field(f, "exit status", "%u", 0u), emit_field(f, "a label too long", "x"),
                  emit_field(f, NULL, "more"), (emit_field_label(f, "events"), fputs("a 1, b 2\n", f))));
    assert_string_equal(out, "file:         t.tea\n"
                             "µops:         7 committed\n"
                             "exit status:  0\n"
                             "a label too long: x\n"
                             "              more\n"
                             "events:       a 1, b 2\n");
    free(out);
}

static void numbers_are_fixed_and_never_negative_zero(void **state)
{
    char buf[64];
    (void)state;
    assert_string_equal(emit_fixed(1.5, 2, buf, sizeof buf), "1.50");
    assert_string_equal(emit_fixed(0.125, 2, buf, sizeof buf), "0.13"); /* 12.5 rounds away from 0 */
    assert_string_equal(emit_fixed(-0.125, 2, buf, sizeof buf), "-0.13");
    assert_string_equal(emit_fixed(-0.001, 2, buf, sizeof buf), "0.00"); /* not -0.00 */
    assert_string_equal(emit_fixed(-0.4, 0, buf, sizeof buf), "0");
    assert_string_equal(emit_fixed(-0.0, 3, buf, sizeof buf), "0.000");
    assert_string_equal(emit_fixed(42, 0, buf, sizeof buf), "42");
    assert_string_equal(emit_fixed(7.25, 12, buf, sizeof buf), "7.250000000"); /* clamped to 9 */
    assert_string_equal(emit_fixed(NAN, 1, buf, sizeof buf), "0.0");
    assert_string_equal(emit_fixed(INFINITY, 0, buf, sizeof buf), "0");
    assert_string_equal(emit_fixed(1e20, 2, buf, sizeof buf), "100000000000000000000");
    assert_string_equal(emit_fixed(-3e16, 0, buf, sizeof buf), "-30000000000000000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_table),
        cmocka_unit_test(csv_table),
        cmocka_unit_test(json_table),
        cmocka_unit_test(a_cells_error_ends_the_table),
        cmocka_unit_test(numbers_are_fixed_and_never_negative_zero),
        cmocka_unit_test(fields_align_their_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
