/*
 * test_results_table.c: pics table's writers (view/results_table) on one
 * table in the three formats, every byte expected written out by hand.
 *
 * The table: two traces, two schemes, one seed each at 1000 Hz
 * (insn-component errors): gcc tea 0.05, ibs 0.10; mcf tea 0.03, ibs 0.20.
 * Mean row: tea (0.05 + 0.03) / 2 = 0.04, ibs (0.10 + 0.20) / 2 = 0.15;
 * max row: tea 0.05, ibs 0.20. Schemes in the paper's order (tea before
 * ibs). Markdown and LaTeX: percent with one decimal, each row's lowest in
 * bold; CSV: fractions with trailing zeros dropped.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "results/results.h"
#include "results/table.h"
#include "view/results_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESULTS_CSV                                                                                \
    "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func\n"         \
    "gcc,ibs,1000,1,10,0,0.10,0.10,\n"                                                             \
    "gcc,tea,1000,1,10,0,0.05,0.05,\n"                                                             \
    "mcf,tea,1000,1,10,0,0.03,0.03,\n"                                                             \
    "mcf,ibs,1000,1,10,0,0.20,0.20,\n"

typedef struct fixture {
    results_set s;
    results_table t;
    const char *labels[2];  /* the traces' row labels */
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    const results_table_request req = { .granularity = PICS_GRAN_INSN_COMPONENT };
    char *path = test_temp_path("results.csv");

    assert_non_null(fx);
    test_write_file(path, RESULTS_CSV, strlen(RESULTS_CSV));
    results_init(&fx->s);
    assert_int_equal(results_read(&fx->s, path), TEA_OK);
    unlink(path);
    free(path);
    assert_int_equal(results_table_build(&fx->t, &fx->s, &req), TEA_OK);
    assert_int_equal(fx->t.trace_count, 2);
    assert_int_equal(fx->t.scheme_count, 2);
    for (size_t i = 0; i < fx->t.trace_count; i++)
        fx->labels[i] = fx->t.traces[i];
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    results_table_free(&fx->t);
    results_free(&fx->s);
    free(fx);
    return 0;
}

/* Writes the fixture's table in `st`'s format into a string (malloc'd). */
static char *written(fixture *fx, view_results_table_style *st)
{
    char *out = NULL;
    size_t size;
    FILE *f = open_memstream(&out, &size);
    assert_non_null(f);
    st->granularity = PICS_GRAN_INSN_COMPONENT;
    st->scheme_columns = fx->t.schemes;
    st->trace_labels = fx->labels;
    assert_int_equal(view_results_table_write(f, &fx->t, st), TEA_OK);
    assert_int_equal(fclose(f), 0);
    return out;
}

static void markdown(void **state)
{
    view_results_table_style st = { .format = VIEW_RESULTS_TABLE_MD, .decimals = 1, .bold_best = 1,
                                    .caption = "Error *at* 1 kHz" };
    char *out = written(*state, &st);
    assert_string_equal(out, "<!-- pics table: error (%) at insn-component granularity, 1000 Hz, mean over seeds -->\n"
                             "| trace | tea | ibs |\n"
                             "|:---|---:|---:|\n"
                             "| gcc | **5.0** | 10.0 |\n"
                             "| mcf | **3.0** | 20.0 |\n"
                             "| **mean** | **4.0** | 15.0 |\n"
                             "| **max** | **5.0** | 20.0 |\n"
                             "\n"
                             "Table: Error \\*at\\* 1 kHz\n");
    free(out);
}

static void latex(void **state)
{
    view_results_table_style st = { .format = VIEW_RESULTS_TABLE_LATEX, .decimals = 2, .caption = "a_b 5%" };
    char *out = written(*state, &st);
    assert_string_equal(out, "% pics table: error (%) at insn-component granularity, 1000 Hz, mean over seeds\n"
                             "\\begin{table}\n"
                             "\\centering\n"
                             "\\caption{a\\_b 5\\%}\n"
                             "\\begin{tabular}{lrr}\n"
                             "\\toprule\n"
                             "trace & tea & ibs \\\\\n"
                             "\\midrule\n"
                             "gcc & 5.00 & 10.00 \\\\\n"
                             "mcf & 3.00 & 20.00 \\\\\n"
                             "\\midrule\n"
                             "mean & 4.00 & 15.00 \\\\\n"
                             "max & 5.00 & 20.00 \\\\\n"
                             "\\bottomrule\n"
                             "\\end{tabular}\n"
                             "\\end{table}\n");
    free(out);
}

static void csv(void **state)
{
    view_results_table_style st = { .format = VIEW_RESULTS_TABLE_CSV };
    char *out = written(*state, &st);
    assert_string_equal(out, "trace,granularity,freq_hz,tea,ibs\n"
                             "gcc,insn-component,1000,0.05,0.1\n"
                             "mcf,insn-component,1000,0.03,0.2\n"
                             "mean,insn-component,1000,0.04,0.15\n"
                             "max,insn-component,1000,0.05,0.2\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(markdown, setup, teardown),
        cmocka_unit_test_setup_teardown(latex, setup, teardown),
        cmocka_unit_test_setup_teardown(csv, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
