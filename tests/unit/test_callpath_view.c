/*
 * test_callpath_view.c: calling contexts in the views (view/callpath.c):
 * the call sites and caller names of a context, cells keyed by call path
 * (two call sites of one caller are one path; a sampled PICS and its golden
 * one share keys), and functions with their callees (each cell counted
 * once per function however deep the recursion). Expected values by hand.
 *
 * Functions: main [0x100, 0x200), a [0x200, 0x300), leaf [0x300, 0x400).
 * Contexts: 1 main (root); 2 a called from main at 0x110; 3 a called from
 * main at 0x120; 4 leaf called from a (2) at 0x210; 5 a called from a (2)
 * at 0x220 (recursion); 6 leaf called from a (5) at 0x210.
 * Golden cells (cycles, commits): main 0x104 ctx 1: 10, 10;
 * a 0x204 ctx 2: 5, 5; a 0x204 ctx 3: 7, 7; leaf 0x300 ctx 4: 20, 40;
 * leaf 0x300 ctx 6: 8, 16; leaf 0x304 PSV 1 ctx 4: 2, 1. Total 52.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "testutil.h"
#include "common/error.h"
#include "view/callpath.h"
#include "view/report.h"

#include <stdlib.h>
#include <string.h>

#define U PICS_UNIT

static trace_symmap_entry entries[] = { { 0x100, 0x200, "main" }, { 0x200, 0x300, "a" }, { 0x300, 0x400, "leaf" } };
static const trace_symmap functions = { entries, 3 };

static void build_contexts(trace_contexts *t)
{
    uint32_t id;
    assert_int_equal(trace_contexts_init(t), 0);
    assert_int_equal(trace_contexts_intern(t, 0, 0, 0x100, &id), 0);
    assert_int_equal(trace_contexts_intern(t, 1, 0x110, 0x200, &id), 0);
    assert_int_equal(trace_contexts_intern(t, 1, 0x120, 0x200, &id), 0);
    assert_int_equal(trace_contexts_intern(t, 2, 0x210, 0x300, &id), 0);
    assert_int_equal(trace_contexts_intern(t, 2, 0x220, 0x200, &id), 0);
    assert_int_equal(trace_contexts_intern(t, 5, 0x210, 0x300, &id), 0);
    assert_int_equal(id, 6);
}

static const pics_cell golden_cells[] = {
    { 0x104, 10 * U, 10, 0, 1, 0, 1 }, { 0x204, 5 * U, 5, 0, 1, 0, 2 }, { 0x204, 7 * U, 7, 0, 1, 0, 3 },
    { 0x300, 20 * U, 40, 0, 1, 0, 4 }, { 0x300, 8 * U, 16, 0, 1, 0, 6 }, { 0x304, 2 * U, 1, 1, 1, 0, 4 },
};
#define GOLDEN_CELLS (sizeof golden_cells / sizeof golden_cells[0])

/* The sites of context 6, outermost first; the callers' names. */
static void sites_and_callers(void **state)
{
    trace_contexts t;
    view_callpath_names names;
    uint64_t sites[VIEW_CALLPATH_MAX_CALLERS];
    const char *callers[VIEW_CALLPATH_MAX_CALLERS];
    (void)state;
    build_contexts(&t);
    assert_int_equal(view_callpath_sites(&t, 6, sites), 3);
    assert_int_equal(sites[0], 0x110);
    assert_int_equal(sites[1], 0x220);
    assert_int_equal(sites[2], 0x210);
    assert_int_equal(view_callpath_sites(&t, 1, sites), 0);
    assert_int_equal(view_callpath_names_init(&names, &t, NULL), 0);
    assert_int_equal(view_callpath_callers(&names, 6, callers), 3);
    assert_string_equal(callers[0], "0x110");
    assert_string_equal(callers[2], "0x210");
    /* contexts 4 and 6 are both called from 0x210: one name, kept once */
    assert_ptr_equal(names.site[4], names.site[6]);
    assert_true(names.site[2] != names.site[3]);
    view_callpath_names_free(&names);
    trace_contexts_free(&t);
}

/* Canonical contexts by their callers' names (sites named by function:
 * 0x110 and 0x120 in main, 0x210 and 0x220 in a): 1 has no caller (0); 2
 * and 3 are main's calls of a (1); 4 and 5 both have the callers main;a
 * (2); 6 main;a;a (3). Folded rows merged by them: a's two contexts at
 * 0x204 are one row of 5 + 7 cycles, the first's; leaf's 0x300 in 4 and 6
 * stay two; nothing moves without ids. */
static void canonical_and_merge(void **state)
{
    trace_contexts t;
    view_callpath_names names;
    uint32_t *canon = NULL;
    static const char *const site_names[] = { NULL, NULL, "main", "main", "a", "a", "a" };
    view_report_folded rows[] = { { 0x104, 0, 1, 10 }, { 0x204, 0, 2, 5 }, { 0x204, 0, 3, 7 },
                                  { 0x300, 0, 4, 20 }, { 0x300, 0, 6, 8 }, { 0x304, 1, 4, 2 } };
    size_t n = sizeof rows / sizeof rows[0];
    (void)state;
    build_contexts(&t);
    memset(&names, 0, sizeof names);
    strtab_init(&names.names);
    names.contexts = &t;
    names.site = calloc(t.count, sizeof *names.site);
    assert_non_null(names.site);
    for (uint32_t id = 0; id < t.count; id++) { /* as view_callpath_names_init keeps them: each name once */
        long k = site_names[id] ? strtab_index(&names.names, site_names[id]) : -1;
        names.site[id] = k >= 0 ? names.names.text[k] : NULL;
    }
    assert_int_equal(view_callpath_canonical(&names, &canon), 0);
    const uint32_t want[] = { 0, 0, 1, 1, 2, 2, 3 };
    assert_memory_equal(canon, want, sizeof want);
    assert_int_equal(view_report_folded_merge(rows, &n, NULL), 0);
    assert_int_equal(n, 6);
    assert_int_equal(view_report_folded_merge(rows, &n, canon), 0);
    assert_int_equal(n, 5);
    assert_true(rows[1].pc == 0x204 && rows[1].ctx == 2 && rows[1].weight == 12);
    assert_true(rows[2].pc == 0x300 && rows[2].ctx == 4 && rows[2].weight == 20);
    assert_true(rows[3].pc == 0x300 && rows[3].ctx == 6 && rows[3].weight == 8);
    assert_true(rows[4].pc == 0x304 && rows[4].weight == 2);
    free(canon);
    view_callpath_names_free(&names);
    trace_contexts_free(&t);
}

/* Keyed by call path: main;a (contexts 2 and 3: 12 cycles), main;a;leaf
 * (context 4: 20 + 2 in two PSVs), main;a;a;leaf (8), main (10). A
 * sampled PICS keyed with the same table gets the same key for main;a;leaf. */
static void keyed_by_call_path(void **state)
{
    trace_contexts t;
    view_callpath_input in[2];
    trace_symmap map = { NULL, 0 };
    const pics_cell sampled[] = { { 0x300, U, 1, 0, 1, 0, 4 } };
    pics out[2];
    (void)state;
    build_contexts(&t);
    /* key_all replaces the map it is given: a copy of the functions */
    map.entries = calloc(3, sizeof *map.entries);
    assert_non_null(map.entries);
    for (size_t i = 0; i < 3; i++)
        map.entries[i] = (trace_symmap_entry){ entries[i].start, entries[i].end, strdup(entries[i].name) };
    map.count = 3;
    in[0] = (view_callpath_input){ &t, golden_cells, GOLDEN_CELLS };
    in[1] = (view_callpath_input){ &t, sampled, 1 };
    assert_int_equal(view_callpath_key_all(in, 2, &map, out), 0);
    assert_int_equal(map.count, 4);
    assert_string_equal(map.entries[0].name, "main");
    assert_string_equal(map.entries[1].name, "main;a");
    assert_string_equal(map.entries[2].name, "main;a;leaf");
    assert_string_equal(map.entries[3].name, "main;a;a;leaf");
    assert_int_equal(out[0].total, 52 * U);
    assert_int_equal(out[0].count, 5);                          /* four paths, leaf's two PSVs */
    assert_int_equal(pics_find(&out[0], 2, 0)->value, 12 * U); /* two call sites, one path */
    assert_int_equal(pics_find(&out[0], 2, 0)->count, 12);
    assert_int_equal(pics_find(&out[0], 3, 0)->value, 20 * U);
    assert_int_equal(pics_find(&out[0], 3, 1)->value, 2 * U);
    assert_int_equal(pics_find(&out[0], 4, 0)->value, 8 * U);
    assert_int_equal(pics_find(&out[1], 3, 0)->value, U);      /* the sampled PICS: the same key */
    pics_free(&out[0]);
    pics_free(&out[1]);
    trace_symmap_free(&map);
    trace_contexts_free(&t);
}

/* Children: main's total is everything (52), a's every cell but main's
 * own (42: the recursive a counts once), leaf's its self (30, 57
 * commits); selves 10, 12, 30. */
static void functions_with_callees(void **state)
{
    trace_contexts t;
    view_callpath_function *rows;
    size_t n;
    (void)state;
    build_contexts(&t);
    assert_int_equal(view_callpath_children(&t, golden_cells, GOLDEN_CELLS, &functions, &rows, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(rows[0].name, "main");
    assert_int_equal(rows[0].total, 52 * U);
    assert_int_equal(rows[0].self, 10 * U);
    assert_string_equal(rows[1].name, "a");
    assert_int_equal(rows[1].total, 42 * U);
    assert_int_equal(rows[1].self, 12 * U);
    assert_string_equal(rows[2].name, "leaf");
    assert_int_equal(rows[2].total, 30 * U);
    assert_int_equal(rows[2].self, 30 * U);
    assert_int_equal(rows[2].self_count, 57);
    free(rows);
    trace_contexts_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sites_and_callers),
        cmocka_unit_test(canonical_and_merge),
        cmocka_unit_test(keyed_by_call_path),
        cmocka_unit_test(functions_with_callees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
