/*
 * test_view.c: views of PICS (view/view.c) on hand-computed rows at every
 * key (instruction with components, instruction, function, the PCs outside
 * every function), from one PICS and from a pair, their orders and cuts,
 * long names fitted to a text column (view/report.c), and a program's rows
 * by thread (view/threads.c). Every expected
 * value is worked out in the comments.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include "common/error.h"
#include "view/interval.h"
#include "view/report.h"
#include "view/table.h"
#include "view/threads.h"
#include "view/view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define U PICS_UNIT
#define EPS 1e-12
#define TEXT_MAX 512

typedef struct cell_spec {
    uint64_t pc;
    uint16_t psv;
    uint64_t units;
} cell_spec;

/* A PICS of `cells`, each counting `units` (a sampled PICS's samples of
 * one unit each). */
static void build(pics *p, const cell_spec *cells, size_t n)
{
    assert_int_equal(pics_init(p), TEA_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(pics_add(p, cells[i].pc, cells[i].psv, cells[i].units * U, cells[i].units), TEA_OK);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A report's input without a golden PICS: a `scheme` PICS of `cells` whose
 * golden total is `golden_cycles`. */
static void input(view_report_input *in, const char *scheme, uint64_t golden_cycles, const cell_spec *cells, size_t n)
{
    memset(in, 0, sizeof *in);
    pics_info_init(&in->info);
    pics_info_init(&in->ginfo);
    snprintf(in->info.scheme, sizeof in->info.scheme, "%s", scheme);
    in->info.golden_total = golden_cycles * U;
    build(&in->p, cells, n);
}

/* Golden, C = 12 cycles: (0x100, base) 6, (0x100, ST-L1) 2, (0x200, base) 4.
 * Sampled, S = 4 samples: (0x100, base) 1, (0x100, ST-L1) 1, (0x200, base) 2;
 * scaled by C/S = 3: 3, 3, 6 cycles. */
static const cell_spec golden_cells[] = { { 0x100, 0, 6 }, { 0x100, 1, 2 }, { 0x200, 0, 4 } };
static const cell_spec sampled_cells[] = { { 0x100, 0, 1 }, { 0x100, 1, 1 }, { 0x200, 0, 2 } };

/* By instruction with components: rows 0x100 (two components) and 0x200
 * (one). Differences over 2CS = 96: (0x100, base) |1*12 - 6*4| = 12,
 * (0x100, ST-L1) |1*12 - 2*4| = 4, (0x200, base) |2*12 - 4*4| = 8: the
 * contributions 16/96 and 8/96, the error 24/96 = 0.25. */
static void insn_component(void **state)
{
    pics g, s;
    view v;
    const view_row *r;
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));
    assert_int_equal(view_build(&v, &s, &g, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    assert_int_equal(v.row_count, 2);
    r = &v.rows[0];
    assert_int_equal(r->key, 0x100);
    assert_int_equal(r->count, 2);
    assert_int_equal(r->value, 2 * U);
    assert_int_equal(r->golden, 8 * U);
    assert_true(r->diff == (exact_u128)16 * U * U);
    assert_float_equal(view_contribution(&v, r), 16.0 / 96.0, EPS);
    assert_int_equal(v.cells[r->first].psv, 0);
    assert_int_equal(v.cells[r->first + 1].psv, 1);
    assert_true(v.cells[r->first + 1].diff == (exact_u128)4 * U * U);
    assert_float_equal(view_contribution(&v, &v.rows[1]), 8.0 / 96.0, EPS);
    assert_float_equal(view_error(&v), 0.25, EPS);
    assert_int_equal(view_key_address(&v, r->key), 0x100);
    assert_null(view_key_name(&v, r->key));
    assert_ptr_equal(view_find(&v, 0x200), &v.rows[1]);
    assert_null(view_find(&v, 0x180));
    assert_int_equal(view_lower_bound(&v, 0x180), 1);
    assert_int_equal(view_lower_bound(&v, 0x201), 2);
    view_free(&v);
    pics_free(&g);
    pics_free(&s);
}

/* By instruction, components merged: 0x100 sampled 2 -> 6 cycles, golden
 * 8: |2*12 - 8*4| = 8; 0x200 as above 8: the error 16/96 = 1/6, one
 * component (PSV 0) a row. */
static void insn(void **state)
{
    pics g, s;
    view v;
    (void)state;
    build(&g, golden_cells, COUNT(golden_cells));
    build(&s, sampled_cells, COUNT(sampled_cells));
    assert_int_equal(view_build(&v, &s, &g, PICS_GRAN_INSN, NULL), TEA_OK);
    assert_int_equal(v.row_count, 2);
    assert_int_equal(v.rows[0].count, 1);
    assert_int_equal(v.cells[v.rows[0].first].psv, 0);
    assert_float_equal(view_contribution(&v, &v.rows[0]), 8.0 / 96.0, EPS);
    assert_float_equal(view_error(&v), 1.0 / 6.0, EPS);
    view_free(&v);
    pics_free(&g);
    pics_free(&s);
}

/* By function: f = [0x100, 0x180), g = [0x200, 0x280); 0x300 lies outside
 * both. Golden adds (0x300, base) 4 cycles: C = 16; sampled adds (0x150,
 * ST-L1) 1: S = 5. Rows, by key: [unknown] (key 0, golden 4), f (key 1:
 * base 1|6, ST-L1 2|2), g (key 2: base 2|4). Differences over 2CS = 160:
 * unknown |0 - 4*5| = 20; f base |1*16 - 6*5| = 14, ST-L1 |2*16 - 2*5| =
 * 22; g |2*16 - 4*5| = 12: error (20 + 36 + 12) / 160 = 0.425. */
static void func(void **state)
{
    static const cell_spec gx[] = { { 0x100, 0, 6 }, { 0x100, 1, 2 }, { 0x200, 0, 4 }, { 0x300, 0, 4 } };
    static const cell_spec sx[] = { { 0x100, 0, 1 }, { 0x100, 1, 1 }, { 0x200, 0, 2 }, { 0x150, 1, 1 } };
    char f_name[] = "f", g_name[] = "g";
    trace_symmap_entry entries[] = { { 0x100, 0x180, f_name }, { 0x200, 0x280, g_name } };
    trace_symmap map = { entries, 2 };
    pics g, s;
    view v;
    (void)state;
    build(&g, gx, COUNT(gx));
    build(&s, sx, COUNT(sx));
    assert_int_equal(view_build(&v, &s, &g, PICS_GRAN_FUNC, NULL), TEA_ERR_USAGE);
    assert_int_equal(view_build(&v, &s, &g, PICS_GRAN_FUNC, &map), TEA_OK);
    assert_int_equal(v.row_count, 3);
    assert_int_equal(v.rows[0].key, 0);
    assert_string_equal(view_key_name(&v, v.rows[0].key), VIEW_UNKNOWN_NAME);
    assert_int_equal(view_key_address(&v, v.rows[0].key), 0);
    assert_int_equal(v.rows[0].value, 0);
    assert_int_equal(v.rows[0].golden, 4 * U);
    assert_string_equal(view_key_name(&v, v.rows[1].key), "f");
    assert_int_equal(view_key_address(&v, v.rows[1].key), 0x100);
    assert_int_equal(v.rows[1].count, 2);
    assert_int_equal(v.cells[v.rows[1].first + 1].a, 2 * U);
    assert_float_equal(view_contribution(&v, &v.rows[1]), 36.0 / 160.0, EPS);
    assert_float_equal(view_contribution(&v, &v.rows[0]), 20.0 / 160.0, EPS);
    assert_float_equal(view_error(&v), 68.0 / 160.0, EPS);

    /* by value: f (3 samples), g (2), unknown (0) */
    view_sort(&v, VIEW_ORDER_VALUE);
    assert_int_equal(v.rows[0].key, 1);
    assert_int_equal(v.rows[1].key, 2);
    assert_int_equal(v.rows[2].key, 0);
    /* by contribution: f 36, unknown 20, g 12 */
    view_sort(&v, VIEW_ORDER_CONTRIBUTION);
    assert_int_equal(v.rows[0].key, 1);
    assert_int_equal(v.rows[1].key, 0);
    assert_int_equal(v.rows[2].key, 2);
    /* a percent limit of 30: f (60 % sampled), g (40 % sampled), unknown
     * only 25 % golden: out, but still counted; then the top 1 */
    assert_int_equal(view_select(&v, 0, 30.0), TEA_OK);
    assert_int_equal(v.shown, 2);
    assert_int_equal(v.row_count, 3);
    assert_int_equal(v.rows[0].key, 1);
    assert_int_equal(v.rows[1].key, 2);
    assert_int_equal(v.rows[2].key, 0);
    assert_int_equal(view_select(&v, 1, 0.0), TEA_OK);
    assert_int_equal(v.shown, 1);
    view_free(&v);
    pics_free(&g);
    pics_free(&s);
}

/* One PICS alone: the rows carry its values, no golden, no contribution;
 * the cells by difference are then by value. */
static void one_pics(void **state)
{
    pics s;
    view v;
    const pics_pair **cells;
    size_t n;
    (void)state;
    build(&s, sampled_cells, COUNT(sampled_cells));
    assert_int_equal(view_build(&v, &s, NULL, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    assert_false(v.has_golden);
    assert_int_equal(v.row_count, 2);
    assert_int_equal(v.rows[1].value, 2 * U);
    assert_int_equal(v.rows[1].golden, 0);
    assert_float_equal(view_contribution(&v, &v.rows[1]), 0.0, 0.0);
    assert_int_equal(view_cells_by_diff(&v, &cells, &n), TEA_OK);
    assert_int_equal(n, 3);
    assert_int_equal(cells[0]->key, 0x200); /* 2 samples */
    assert_int_equal(cells[1]->key, 0x100);
    assert_int_equal(cells[1]->psv, 0);     /* ties by key, then PSV */
    assert_int_equal(cells[2]->psv, 1);
    free(cells);
    view_free(&v);
    pics_free(&s);
}

/* The function loader's order of choice: a --symbols map wins over the
 * symbolizer's binary; the binary (here: --elf, a non-PIE test program with
 * symbols) gives its functions and section gaps; neither gives an empty map
 * and no source. */
static void functions_order(void **state)
{
    char *map_path = test_temp_path("functions.map");
    static const char map_text[] = "0x1000 0x1100 first\n0x1100 0x1200 second\n";
    binary_symbolize_options opts;
    binary_symbolizer *z;
    pics_info info;
    trace_symmap m;
    const char *from;
    (void)state;

    test_write_file(map_path, map_text, sizeof map_text - 1);
    memset(&opts, 0, sizeof opts);
    pics_info_init(&info);
    opts.elf_path = TEA_SYMBOLS_X86_64;
    opts.command = "test_view";
    if (!*TEA_SYMBOLS_X86_64) {
        unlink(map_path);
        free(map_path);
        skip();
    }
    assert_int_equal(binary_symbolize_open(&z, &info.program, &info.objects, &opts), TEA_OK);
    /* the map first, though a binary is there */
    assert_int_equal(view_functions(map_path, z, &m, &from), TEA_OK);
    assert_string_equal(from, map_path);
    assert_int_equal(m.count, 2);
    assert_string_equal(m.entries[1].name, "second");
    trace_symmap_free(&m);
    /* then the binary: its functions (real_function, ...) and its gaps */
    assert_int_equal(view_functions(NULL, z, &m, &from), TEA_OK);
    assert_string_equal(from, TEA_SYMBOLS_X86_64);
    assert_true(m.count > 5);
    {
        size_t named = 0, gaps = 0;
        for (size_t i = 0; i < m.count; i++) {
            named += strcmp(m.entries[i].name, "real_function") == 0;
            gaps += strncmp(m.entries[i].name, "[unknown ", 9) == 0;
        }
        assert_int_equal(named, 1);
        assert_true(gaps > 0);
    }
    trace_symmap_free(&m);
    binary_symbolize_close(z);
    /* neither */
    assert_int_equal(view_functions(NULL, NULL, &m, &from), TEA_OK);
    assert_null(from);
    assert_int_equal(m.count, 0);
    pics_info_free(&info);
    unlink(map_path);
    free(map_path);
}

/* Long C++ names fitted to a text column: templates collapsed first (each
 * outermost list whole), then the parameters, then the start cut; operator
 * names keep their brackets; what fits is unchanged. */
/*
 * Share intervals over window groups: 0x100's share is 1/5 = 0.2 in group
 * 0 and 2/5 = 0.4 in group 1; their standard deviation is 0.1 * sqrt(2), so
 * half the 95 % interval is t(0.975, 1) * 0.1 * sqrt(2) / sqrt(2) =
 * 12.7062 * 0.1 = 1.27062 (whole row and its one component alike). A key
 * in no group has shares 0 and 0: half 0. No groups: NaN.
 */
static void intervals(void **state)
{
    static const cell_spec g0[] = { { 0x100, 0, 1 }, { 0x200, 0, 4 } }, g1[] = { { 0x100, 0, 2 }, { 0x200, 0, 3 } };
    pics groups[2];
    view_intervals iv;
    (void)state;

    build(&groups[0], g0, 2);
    build(&groups[1], g1, 2);
    assert_int_equal(view_intervals_build(&iv, groups, 2, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    assert_true(fabs(view_intervals_half(&iv, 0x100, -1) - 1.27062) < 1e-4);
    assert_true(fabs(view_intervals_half(&iv, 0x100, 0) - 1.27062) < 1e-4);
    assert_true(view_intervals_half(&iv, 0x300, -1) == 0);
    view_intervals_free(&iv);
    assert_int_equal(view_intervals_build(&iv, NULL, 0, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    assert_true(isnan(view_intervals_half(&iv, 0x100, -1)));
    view_intervals_free(&iv);
    pics_free(&groups[0]);
    pics_free(&groups[1]);
}

static void fit_names(void **state)
{
    char out[TEXT_MAX];
    const char *vec = "std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > >::push_back("
                      "std::pair<int, int> const&)+0x1c";
    (void)state;
    assert_string_equal(view_report_fit("main+0x10", 40, out, sizeof out), "main+0x10");
    assert_string_equal(view_report_fit(vec, 60, out, sizeof out),
                        "std::vector<...>::push_back(std::pair<...> const&)+0x1c");
    assert_string_equal(view_report_fit(vec, 40, out, sizeof out), "std::vector<...>::push_back(...)+0x1c");
    /* 20 columns are not enough for the collapsed name: its end stays */
    assert_string_equal(view_report_fit(vec, 20, out, sizeof out), "...sh_back(...)+0x1c");
    assert_int_equal(strlen(out), 20);
    assert_string_equal(view_report_fit("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, "
                                        "char const*)",
                                        40, out, sizeof out),
                        "std::ostream& std::operator<< <...>(...)");
    /* the parameters, not the namespace or the call operator's "()", then the start cut */
    assert_string_equal(view_report_fit("(anonymous namespace)::Parser::operator()(long, long) const", 52, out,
                                        sizeof out),
                        "(anonymous namespace)::Parser::operator()(...) const");
    assert_string_equal(view_report_fit("(anonymous namespace)::Parser::operator()(long, long) const", 40, out,
                                        sizeof out),
                        "...space)::Parser::operator()(...) const");
}


/* Runs `write` into a malloc'd string `out`. */
#define CAPTURE(out, write)                                                                        \
    do {                                                                                           \
        size_t size_;                                                                              \
        FILE *f = open_memstream(&(out), &size_);                                                  \
        assert_non_null(f);                                                                        \
        write;                                                                                     \
        assert_int_equal(fclose(f), 0);                                                            \
    } while (0)

/* The pair of insn_component as pics report writes it, through view/table
 * in the three formats. The sampled PICS (S = 4) scales by C/S = 3: 0x100
 * base 3, ST-L1 3, 0x200 base 6 cycles; shares 0.25, 0.25, 0.5; golden 6,
 * 2, 4 of 12: 0.5, 1/6, 1/3. Contributions (over 2CS = 96): 12/96 =
 * 0.125, 4/96 = 0.0416..., 8/96 = 0.0833...; rows by contribution: 0x100
 * (16/96) first. Without a binary every PC is named by its address and
 * its function is "[unknown]". The sampled PICS's samples: 1, 1 and 2
 * (0x100's row 2); no instructions (not a golden PICS). */
static void table_in_three_formats(void **state)
{
    view_report_input in;
    binary_symbolize_options opts;
    binary_symbolizer *z = NULL;
    view_intervals iv;
    view_table t;
    view v;
    emit_column cols[VIEW_TABLE_COLUMNS_MAX];
    emit_table table;
    json_writer j;
    char *out = NULL;
    int rc = -1;
    (void)state;

    memset(&opts, 0, sizeof opts);
    memset(&iv, 0, sizeof iv);
    input(&in, "tea", 12, sampled_cells, COUNT(sampled_cells));
    snprintf(in.ginfo.scheme, sizeof in.ginfo.scheme, "golden");
    in.ginfo.golden_total = 12 * U;
    build(&in.g, golden_cells, COUNT(golden_cells));
    in.has_golden = 1;
    opts.command = "test";
    assert_int_equal(binary_symbolize_open(&z, &in.info.program, &in.info.objects, &opts), TEA_OK);
    assert_int_equal(view_build(&v, &in.p, &in.g, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    view_sort(&v, VIEW_ORDER_CONTRIBUTION);
    assert_int_equal(view_select(&v, 0, 0), TEA_OK);
    assert_int_equal(view_table_init(&t, &in, &v, z, &iv), TEA_OK);
    assert_int_equal(t.cell_count, 3);

    view_table_cell_columns(&t, cols, &table);
    CAPTURE(out, (emit_csv_header(f, &table), rc = emit_csv_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "rank,address,function,location,disassembly,source,component,psv,instructions,"
                             "samples,cycles,share,golden_cycles,golden_share,error_contribution,share_ci_low,"
                             "share_ci_high\n"
                             "1,0x100,[unknown],0x100,,,base,0,,1,3.000000,0.250000000,6.000000,0.500000000,"
                             "0.125000000,,\n"
                             "1,0x100,[unknown],0x100,,,ST-L1,1,,1,3.000000,0.250000000,2.000000,0.166666667,"
                             "0.041666667,,\n"
                             "2,0x200,[unknown],0x200,,,base,0,,2,6.000000,0.500000000,4.000000,0.333333333,"
                             "0.083333333,,\n");
    free(out);

    CAPTURE(out, (json_init(&j, f), rc = emit_json_rows(&j, &table), json_finish(&j)));
    assert_int_equal(rc, TEA_OK);
    /* the third cell's members, every kind of value: no interval members
     * without window groups, null for the empty disassembly and source */
    assert_contains(out, "    \"rank\": 2,\n    \"address\": \"0x200\",\n    \"function\": \"[unknown]\",\n"
                         "    \"location\": \"0x200\",\n    \"disassembly\": null,\n    \"source\": null,\n"
                         "    \"component\": \"base\",\n    \"psv\": 0,\n    \"instructions\": null,\n"
                         "    \"samples\": 2,\n    \"cycles\": 6,\n    \"share\": 0.5,\n"
                         "    \"golden_cycles\": 4,\n");
    assert_null(strstr(out, "share_ci_low"));
    free(out);

    view_table_text_columns(&t, cols, &table);
    CAPTURE(out, (emit_text_heading(f, &table), rc = emit_text_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "# Overhead           Cycles         Samples  Symbol                                   "
                             "Address            Disassembly\n"
                             "     50.00%            6.000               2  0x100                                    "
                             "0x100              -\n"
                             "     50.00%            6.000               2  0x200                                    "
                             "0x200              -\n");
    free(out);

    view_table_free(&t);
    view_free(&v);
    binary_symbolize_close(z);
    view_report_input_free(&in);
}

/* A golden PICS's rows with their instructions and cycles per instruction:
 * 0x100 base 6 cycles in 3 commits and ST-L1 2 cycles in 1: 4
 * instructions, 8 / 4 = 2.000 CPI; 0x200 4 cycles in 8 commits: 0.500 CPI;
 * 0x300 a cycle of no commit (a flush's): "-". CSV gives each cell's
 * commits as instructions and no samples. */
static void golden_instructions(void **state)
{
    static const struct { uint64_t pc; uint16_t psv; uint64_t cycles, commits; } cells[] = {
        { 0x100, 0, 6, 3 }, { 0x100, 1, 2, 1 }, { 0x200, 0, 4, 8 }, { 0x300, 0, 1, 0 },
    };
    view_report_input in;
    binary_symbolize_options opts;
    binary_symbolizer *z = NULL;
    view_intervals iv;
    view_table t;
    view v;
    emit_column cols[VIEW_TABLE_COLUMNS_MAX];
    emit_table table;
    char *out = NULL;
    int rc = -1;
    (void)state;

    memset(&opts, 0, sizeof opts);
    memset(&iv, 0, sizeof iv);
    input(&in, "golden", 13, NULL, 0);
    for (size_t i = 0; i < COUNT(cells); i++)
        assert_int_equal(pics_add(&in.p, cells[i].pc, cells[i].psv, cells[i].cycles * U, cells[i].commits), TEA_OK);
    opts.command = "test";
    assert_int_equal(binary_symbolize_open(&z, &in.info.program, &in.info.objects, &opts), TEA_OK);
    assert_int_equal(view_build(&v, &in.p, NULL, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    view_sort(&v, VIEW_ORDER_VALUE);
    assert_int_equal(view_select(&v, 0, 0), TEA_OK);
    assert_int_equal(view_table_init(&t, &in, &v, z, &iv), TEA_OK);
    assert_int_equal(t.counts, VIEW_COUNTS_INSTRUCTIONS);

    view_table_text_columns(&t, cols, &table);
    CAPTURE(out, (emit_text_heading(f, &table), rc = emit_text_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "# Overhead           Cycles    Instructions       CPI  Symbol                          "
                             "         Address            Disassembly\n"
                             "     61.54%            8.000               4     2.000  0x100                           "
                             "         0x100              -\n"
                             "     30.77%            4.000               8     0.500  0x200                           "
                             "         0x200              -\n"
                             "      7.69%            1.000               0         -  0x300                           "
                             "         0x300              -\n");
    free(out);

    view_table_cell_columns(&t, cols, &table);
    CAPTURE(out, (emit_csv_header(f, &table), rc = emit_csv_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_contains(out, "1,0x100,[unknown],0x100,,,base,0,3,,6.000000,");
    assert_contains(out, "1,0x100,[unknown],0x100,,,ST-L1,1,1,,2.000000,");
    assert_contains(out, "2,0x200,[unknown],0x200,,,base,0,8,,4.000000,");
    assert_contains(out, "3,0x300,[unknown],0x300,,,base,0,0,,1.000000,");
    free(out);

    view_table_free(&t);
    view_free(&v);
    binary_symbolize_close(z);
    view_report_input_free(&in);
}

/* A program's rows by thread (view/threads): core a is the golden PICS
 * above (12 cycles: 0x100 8, 0x200 4), core b a sampled PICS of 4 samples
 * scaled to its golden total of 8 cycles (0x100 1 sample, 2 cycles; 0x200
 * 3, 6 cycles). The program has 20 cycles; by cycles: a/0x100 8 (40 %),
 * b/0x200 6 (30 %), a/0x200 4 (20 %), b/0x100 2 (10 %); by thread: a's two,
 * then b's two. --top 2 keeps the first two; a 25 % limit keeps 8 and 6. */
static void by_thread(void **state)
{
    static const cell_spec b_cells[] = { { 0x100, 0, 1 }, { 0x200, 0, 2 }, { 0x200, 1, 1 } };
    view_report_input a, b;
    binary_symbolize_options opts;
    binary_symbolizer *z = NULL;
    view_threads t;
    emit_column cols[VIEW_THREADS_COLUMNS_MAX];
    emit_table table;
    char *out = NULL;
    int rc = -1;
    (void)state;

    memset(&opts, 0, sizeof opts);
    input(&a, "golden", 12, golden_cells, COUNT(golden_cells));
    input(&b, "tea", 8, b_cells, COUNT(b_cells));
    opts.command = "test";
    assert_int_equal(binary_symbolize_open(&z, &a.info.program, &a.info.objects, &opts), TEA_OK);

    view_threads_init(&t, PICS_GRAN_INSN_COMPONENT);
    assert_int_equal(view_threads_add(&t, "a", &a, z, NULL), TEA_OK);
    assert_int_equal(view_threads_add(&t, "b", &b, z, NULL), TEA_OK);
    assert_true(fabs(t.total - 20) < EPS);
    assert_int_equal(t.row_count, 4);
    view_threads_sort(&t, 0);
    assert_int_equal(view_threads_select(&t, 0, 0), TEA_OK);
    view_threads_columns(&t, 0, cols, &table);
    CAPTURE(out, (emit_csv_header(f, &table), rc = emit_csv_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "share,cycles,thread,location,address\n"
                             "0.400000000,8.000000,a,0x100,0x100\n"
                             "0.300000000,6.000000,b,0x200,0x200\n"
                             "0.200000000,4.000000,a,0x200,0x200\n"
                             "0.100000000,2.000000,b,0x100,0x100\n");
    free(out);

    view_threads_sort(&t, 1);
    assert_int_equal(view_threads_select(&t, 2, 0), TEA_OK);
    assert_int_equal(t.shown, 2);
    view_threads_columns(&t, 0, cols, &table);
    CAPTURE(out, (emit_text_heading(f, &table), rc = emit_text_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_contains(out, "    40.00%            8.000  a              0x100");
    assert_contains(out, "    20.00%            4.000  a              0x200");
    assert_null(strstr(out, "  b  "));
    free(out);

    view_threads_sort(&t, 0);
    assert_int_equal(view_threads_select(&t, 0, 25), TEA_OK);
    assert_int_equal(t.shown, 2);
    assert_true(fabs(t.rows[0].cycles - 8) < EPS && fabs(t.rows[1].cycles - 6) < EPS);

    view_threads_free(&t);
    binary_symbolize_close(z);
    view_report_input_free(&a);
    view_report_input_free(&b);
}

/* The error by component (pics error --by component) of the insn_component
 * pair: base gathers (0x100, base) 12 and (0x200, base) 8 of 2CS = 96,
 * 20/96; ST-L1 (0x100, ST-L1) 4/96; together the error, 24/96. Shares:
 * sampled base (1 + 2) / 4 = 0.75, ST-L1 1/4; golden base (6 + 4) / 12,
 * ST-L1 2/12. Largest difference first. Written through view/table's
 * component columns as CSV. */
static void by_component(void **state)
{
    pics g, p;
    view v;
    view_component *items = NULL;
    view_table_components c;
    emit_column cols[VIEW_TABLE_COMPONENT_COLUMNS_MAX];
    emit_table table;
    char *out = NULL;
    size_t n = 0;
    int rc = -1;
    (void)state;

    build(&g, golden_cells, COUNT(golden_cells));
    build(&p, sampled_cells, COUNT(sampled_cells));
    assert_int_equal(view_build(&v, &p, &g, PICS_GRAN_INSN_COMPONENT, NULL), TEA_OK);
    assert_int_equal(view_components(&v, &items, &n), TEA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(items[0].psv, 0);
    assert_int_equal(items[1].psv, 1);
    assert_true(fabs(items[0].contribution - 20.0 / 96) < 1e-12);
    assert_true(fabs(items[1].contribution - 4.0 / 96) < 1e-12);
    assert_true(fabs(items[0].contribution + items[1].contribution - view_error(&v)) < 1e-12);
    view_table_components_init(&c, &v, items, n);
    view_table_component_columns(&c, cols, &table);
    CAPTURE(out, (emit_csv_header(f, &table), rc = emit_csv_rows(f, &table)));
    assert_int_equal(rc, TEA_OK);
    assert_string_equal(out, "component,psv,contribution,share,golden_share\n"
                             "base,0,0.208333333,0.750000000,0.833333333\n"
                             "ST-L1,1,0.041666667,0.250000000,0.166666667\n");
    free(out);
    free(items);
    view_free(&v);
    pics_free(&g);
    pics_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(insn_component), cmocka_unit_test(insn), cmocka_unit_test(func),
        cmocka_unit_test(one_pics),       cmocka_unit_test(functions_order), cmocka_unit_test(fit_names),
        cmocka_unit_test(intervals),      cmocka_unit_test(table_in_three_formats),
        cmocka_unit_test(golden_instructions),
        cmocka_unit_test(by_component),   cmocka_unit_test(by_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
