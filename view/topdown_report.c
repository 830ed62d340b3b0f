/*
 * topdown_report.c: tea topdown's report as text, CSV or JSON
 * (topdown_report.h).
 */
#include "topdown_report.h"
#include "report.h"
#include "common/error.h"
#include "common/json.h"
#include "trace/psv.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_DECIMALS VIEW_TOPDOWN_TEXT_DECIMALS
#define CSV_DECIMALS VIEW_TOPDOWN_CSV_DECIMALS
/* Components listed under a category in text before "others". */
#define TEXT_COMPONENTS 8
/* Width of the name column in text (at least). */
#define TEXT_NAME_WIDTH 34
/* The text tables' other widths. */
#define VALUE_WIDTH 14
#define SHARE_WIDTH 8          /* "%7s%%" */
#define FUNCTION_CYCLES_WIDTH 12
#define FUNCTION_SHARE_WIDTH 6 /* "%5s%%" */
#define STATE_SHARE_WIDTH 7    /* "%6s%%" */
#define SLOT_SHARE_WIDTH 8
/* The most columns of a topdown table. */
#define COLUMNS_MAX 12

int view_topdown_report_init(view_topdown_report *r, const golden_topdown *td, emit_format format)
{
    r->td = td;
    return view_topdown_rank(&r->rank, td, format == EMIT_TEXT ? TEXT_DECIMALS : CSV_DECIMALS);
}

void view_topdown_report_free(view_topdown_report *r)
{
    view_topdown_ranking_free(&r->rank);
}

/* A share given in units of 10^-decimals percent as text, with `suffix`. */
static void share_text(emit_cell *cell, uint64_t share, int decimals, const char *suffix)
{
    uint64_t p = view_topdown_power_of_ten(decimals);
    emit_printf(cell, "%llu.%0*llu%s", (unsigned long long)(share / p), decimals, (unsigned long long)(share % p),
                suffix);
}

/* The component's label: the PSV's, or "(unattributed)". */
static char *component_label(uint16_t psv, char *buf, size_t size)
{
    if (psv == GOLDEN_TOPDOWN_NO_UOP)
        snprintf(buf, size, "%s", VIEW_TOPDOWN_UNATTRIBUTED);
    else
        trace_psv_label(psv, buf, size);
    return buf;
}

/* The index of a row's category in view `kind` (rows carry its name). */
static unsigned category_index(enum golden_topdown_view kind, const char *name)
{
    unsigned c = 0;
    while (c + 1 < GOLDEN_TOPDOWN_CATEGORIES && strcmp(view_topdown_category_name(kind, c), name) != 0)
        c++;
    return c;
}

/* Half the 95 % interval (percent) of a whole-trace row's share: categories
 * only, and only with window groups (a sampled trace); NaN otherwise. */
static double row_half_percent(const view_topdown_report *ctx, enum golden_topdown_view kind, long scope,
                               const view_topdown_row *row)
{
    if (scope != GOLDEN_TOPDOWN_WHOLE || row->is_component)
        return NAN;
    return view_topdown_half_percent(ctx->td, kind, category_index(kind, row->category));
}

/*
 * The level-2 slots of `scope` and their shares of all its slots,
 * apportioned (with Retiring, which level 2 does not split) to 100 % at
 * `decimals`. 0 or TEA_ERR_NOMEM.
 */
static int level2_shares(const golden_topdown_counts *c, int decimals, uint64_t shares[GOLDEN_TOPDOWN_LEVEL2_COUNT])
{
    uint64_t values[GOLDEN_TOPDOWN_LEVEL2_COUNT + 1], out[GOLDEN_TOPDOWN_LEVEL2_COUNT + 1];
    int rc;

    for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++)
        values[k] = c->level2[k];
    values[GOLDEN_TOPDOWN_LEVEL2_COUNT] = c->slots[GOLDEN_TOPDOWN_RETIRING];
    if ((rc = golden_topdown_apportion(values, GOLDEN_TOPDOWN_LEVEL2_COUNT + 1, 100 * view_topdown_power_of_ten(decimals), out)))
        return rc;
    memcpy(shares, out, GOLDEN_TOPDOWN_LEVEL2_COUNT * sizeof *shares);
    return TEA_OK;
}

/* --- text ------------------------------------------------------------------- */

/* A text row's label: a category, a component (indented further, in full:
 * up to the nine events' 55 characters) or "(N others)". */
static void text_row_label(const view_topdown_row *row, char *label, size_t size)
{
    char component[TRACE_PSV_LABEL_MAX];

    if (row->others) {
        snprintf(label, size, "    (%zu others)", row->others);
    } else if (row->is_component) {
        snprintf(label, size, "    %s", component_label(row->psv, component, sizeof component));
    } else {
        snprintf(label, size, "  %s", row->category);
        for (char *p = label; *p; p++)
            if (*p == '_')
                *p = ' ';
    }
}

/* A whole-trace table's rows: one view's, or level 2's, then its total. */
typedef struct text_table {
    const view_topdown_report *r;
    enum golden_topdown_view kind;
    int level2;                       /* level 2's nodes instead of the view's rows */
    const view_topdown_row *rows;     /* the view's rows (n of them) */
    uint64_t shares[GOLDEN_TOPDOWN_LEVEL2_COUNT]; /* level 2's shares */
    size_t n;
    int total;                        /* a last row with the view's total */
} text_table;

static int text_label(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const text_table *t = ctx;
    (void)format;
    if (row == t->n)
        emit_text(cell, "  total");
    else if (t->level2)
        emit_printf(cell, "  %s", golden_topdown_level2_name((enum golden_topdown_level2)row));
    else
        text_row_label(&t->rows[row], cell->text, EMIT_CELL_MAX);
    return TEA_OK;
}

static int text_value(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const text_table *t = ctx;
    const golden_topdown_summary *sum = golden_topdown_get_summary(t->r->td);
    const golden_topdown_counts *c = golden_topdown_get_counts(t->r->td, GOLDEN_TOPDOWN_WHOLE);
    uint64_t v = row == t->n ? (t->kind == GOLDEN_TOPDOWN_VIEW_STATES ? sum->cycles : sum->slots)
                 : t->level2 ? c->level2[row]
                             : t->rows[row].value;
    (void)format;
    emit_printf(cell, "%llu", (unsigned long long)v);
    return TEA_OK;
}

static int text_share(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const text_table *t = ctx;
    uint64_t share;
    (void)format;
    if (row == t->n)
        share = view_topdown_total(golden_topdown_get_counts(t->r->td, GOLDEN_TOPDOWN_WHOLE), t->kind)
                    ? 100 * view_topdown_power_of_ten(TEXT_DECIMALS)
                    : 0;
    else
        share = t->level2 ? t->shares[row] : t->rows[row].share;
    share_text(cell, share, TEXT_DECIMALS, "%");
    return TEA_OK;
}

/* With window groups: " ±H%" after a share, or nothing. */
static int text_interval(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const text_table *t = ctx;
    double half = row == t->n  ? NAN
                  : t->level2 ? view_topdown_level2_half_percent(t->r->td, (enum golden_topdown_level2)row)
                              : row_half_percent(t->r, t->kind, GOLDEN_TOPDOWN_WHOLE, &t->rows[row]);
    (void)format;
    if (!isnan(half))
        emit_printf(cell, " ±%5.*f%%", TEXT_DECIMALS, half);
    return TEA_OK;
}

/* Writes a whole-trace table: its heading (`title`, the value's name), its
 * rows, a total row when t->total, and a blank line. */
static int text_table_write(FILE *f, text_table *t, const char *title, const char *value, int width)
{
    emit_column cols[] = {
        { "label", title, -width, 0, " ", EMIT_CSV_FIELD, text_label, 0 },
        { "value", value, VALUE_WIDTH, 0, " ", EMIT_CSV_RAW, text_value, 0 },
        { "share", NULL, SHARE_WIDTH, 0, NULL, EMIT_CSV_RAW, text_share, 0 },
        { "interval", "", 0, 0, NULL, EMIT_CSV_RAW, text_interval, 0 },
    };
    emit_table table = { cols, sizeof cols / sizeof cols[0], t, t->n + (t->total != 0), NULL, NULL, NULL };
    int rc;

    emit_text_heading(f, &table);
    if ((rc = emit_text_rows(f, &table)))
        return rc;
    fputc('\n', f);
    return TEA_OK;
}

/* One view of the whole trace as an indented table, its first column as
 * wide as its longest label (at least TEXT_NAME_WIDTH). */
static int text_view(FILE *f, const view_topdown_report *r, enum golden_topdown_view kind)
{
    text_table t = { r, kind, 0, NULL, { 0 }, 0, 1 };
    view_topdown_row *rows;
    char label[TRACE_PSV_LABEL_MAX + 32];
    int rc, width = TEXT_NAME_WIDTH;

    if ((rc = view_topdown_rows(r->td, GOLDEN_TOPDOWN_WHOLE, kind, TEXT_DECIMALS, TEXT_COMPONENTS, &rows, &t.n)))
        return rc;
    for (size_t i = 0; i < t.n; i++) {
        text_row_label(&rows[i], label, sizeof label);
        if ((int)strlen(label) > width)
            width = (int)strlen(label);
    }
    t.rows = rows;
    if (kind == GOLDEN_TOPDOWN_VIEW_STATES)
        rc = text_table_write(f, &t, "commit states", "cycles", width);
    else
        rc = text_table_write(f, &t, "top-down (commit slots)", "slots", width);
    free(rows);
    return rc;
}

/* TMA's level 2 of the whole trace's slots (toplev's names). */
static int text_level2(FILE *f, const view_topdown_report *r)
{
    text_table t = { r, GOLDEN_TOPDOWN_VIEW_SLOTS, 1, NULL, { 0 }, GOLDEN_TOPDOWN_LEVEL2_COUNT, 0 };
    int rc;

    if ((rc = level2_shares(golden_topdown_get_counts(r->td, GOLDEN_TOPDOWN_WHOLE), TEXT_DECIMALS, t.shares)))
        return rc;
    return text_table_write(f, &t, "top-down level 2 (commit slots)", "slots", TEXT_NAME_WIDTH);
}

/* The table of functions: per listed scope, its shares of its own states
 * and slots. */
typedef struct function_table {
    const view_topdown_report *r;
    size_t cached;              /* the row whose shares are below (SIZE_MAX: none) */
    uint64_t states[GOLDEN_TOPDOWN_CATEGORIES], slots[GOLDEN_TOPDOWN_CATEGORIES];
} function_table;

/* The shares of row `row`'s scope, apportioned to 100 %. */
static int function_shares(function_table *t, size_t row)
{
    const golden_topdown_counts *c = golden_topdown_get_counts(t->r->td, (long)t->r->rank.order[row]);
    uint64_t units = 100 * view_topdown_power_of_ten(TEXT_DECIMALS);
    int rc;

    if (t->cached == row)
        return TEA_OK;
    t->cached = SIZE_MAX;
    if ((rc = golden_topdown_apportion(c->states, GOLDEN_TOPDOWN_CATEGORIES, units, t->states))
        || (rc = golden_topdown_apportion(c->slots, GOLDEN_TOPDOWN_CATEGORIES, units, t->slots)))
        return rc;
    t->cached = row;
    return TEA_OK;
}

static int function_name(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const function_table *t = ctx;
    (void)format;
    view_report_fit(view_topdown_scope_name(t->r->map, (long)t->r->rank.order[row]), TEXT_NAME_WIDTH, cell->text,
                    EMIT_CELL_MAX);
    return TEA_OK;
}

/* Whole cycles, or cycles with two decimals for a function's states in
 * 1/unit cycles. */
static int function_cycles(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const function_table *t = ctx;
    const golden_topdown_counts *c = golden_topdown_get_counts(t->r->td, (long)t->r->rank.order[row]);
    uint64_t value = view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_STATES);
    (void)format;
    if (c->state_unit == 1)
        emit_printf(cell, "%llu", (unsigned long long)value);
    else
        emit_printf(cell, "%.2f", (double)value / (double)c->state_unit);
    return TEA_OK;
}

static int function_share(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    const function_table *t = ctx;
    (void)format;
    share_text(cell, t->r->rank.scope_share[t->r->rank.order[row]], TEXT_DECIMALS, "%");
    return TEA_OK;
}

/* Share cell->index of the scope's states (0..3) or slots (4..7). */
static int function_category(void *ctx, size_t row, emit_format format, emit_cell *cell)
{
    function_table *t = ctx;
    int rc = function_shares(t, row);
    (void)format;
    if (!rc)
        share_text(cell,
                   cell->index < GOLDEN_TOPDOWN_CATEGORIES ? t->states[cell->index]
                                                           : t->slots[cell->index - GOLDEN_TOPDOWN_CATEGORIES],
                   TEXT_DECIMALS, "%");
    return rc;
}

/* Each function's components in one line: "  NAME: state: a x%, ...". */
static int text_events(FILE *f, const view_topdown_report *r, size_t shown)
{
    char share[32], label[TRACE_PSV_LABEL_MAX + 8];
    int rc = TEA_OK;

    fprintf(f, "\nevents per function (shares of the function's cycles)\n");
    for (size_t i = 0; i < shown; i++) {
        long s = (long)r->rank.order[i];
        view_topdown_row *rows;
        size_t n;
        int first_in_category = 0, categories = 0;
        uint64_t p = view_topdown_power_of_ten(TEXT_DECIMALS);
        if ((rc = view_topdown_rows(r->td, s, GOLDEN_TOPDOWN_VIEW_STATES, TEXT_DECIMALS, TEXT_COMPONENTS, &rows, &n)))
            return rc;
        fprintf(f, "  %s:", view_topdown_scope_name(r->map, s));
        for (size_t k = 0; k < n; k++) {
            if (!rows[k].is_component) {
                first_in_category = 1;
                continue;
            }
            if (first_in_category)
                fprintf(f, "%s %s:", categories++ ? ";" : "", rows[k].category);
            else
                fputc(',', f);
            first_in_category = 0;
            if (rows[k].others)
                snprintf(label, sizeof label, "%zu others", rows[k].others);
            else
                component_label(rows[k].psv, label, sizeof label);
            snprintf(share, sizeof share, "%llu.%0*llu", (unsigned long long)(rows[k].share / p), TEXT_DECIMALS,
                     (unsigned long long)(rows[k].share % p));
            fprintf(f, " %s %s%%", label, share);
        }
        fprintf(f, "\n");
        free(rows);
    }
    return rc;
}

/* The table of functions: cycles, share of the trace, and each view's
 * shares of the function's own total; then each function's components. */
static int text_functions(FILE *f, const view_topdown_report *r)
{
    size_t shown = r->top && r->top < r->rank.order_count ? r->top : r->rank.order_count;
    function_table t = { r, SIZE_MAX, { 0 }, { 0 } };
    emit_column cols[COLUMNS_MAX];
    emit_table table;
    size_t n = 0;
    int rc;

    fprintf(f, "functions of %s: %zu with cycles%s (shares of each function's own cycles and slots)\n",
            r->functions_from, r->rank.order_count, shown < r->rank.order_count ? ", the first listed" : "");
    cols[n++] = (emit_column){ "function", NULL, -TEXT_NAME_WIDTH, 0, " ", EMIT_CSV_FIELD, function_name, 0 };
    cols[n++] = (emit_column){ "cycles", NULL, FUNCTION_CYCLES_WIDTH, 0, " ", EMIT_CSV_RAW, function_cycles, 0 };
    cols[n++] = (emit_column){ "share", NULL, FUNCTION_SHARE_WIDTH, 0, " | ", EMIT_CSV_RAW, function_share, 0 };
    for (size_t k = 0; k < 2 * GOLDEN_TOPDOWN_CATEGORIES; k++) {
        static const char *const headings[] = { "compute",  "stalled",  "drained",  "flushed",
                                                "retiring", "bad-spec", "frontend", "backend" };
        int state = k < GOLDEN_TOPDOWN_CATEGORIES, last = k + 1 == 2 * GOLDEN_TOPDOWN_CATEGORIES;
        const char *after = last ? NULL : k + 1 == GOLDEN_TOPDOWN_CATEGORIES ? " | " : " ";
        cols[n++] = (emit_column){ headings[k], NULL, state ? STATE_SHARE_WIDTH : SLOT_SHARE_WIDTH, 0, after,
                                   EMIT_CSV_RAW, function_category, k };
    }
    assert(n <= COLUMNS_MAX);
    table = (emit_table){ cols, n, &t, shown, NULL, NULL, NULL };
    emit_text_heading(f, &table);
    if ((rc = emit_text_rows(f, &table)))
        return rc;
    return text_events(f, r, shown);
}

int view_topdown_report_text(FILE *f, view_topdown_report *r)
{
    const golden_topdown_summary *sum = golden_topdown_get_summary(r->td);
    unsigned groups;
    int rc;

    fprintf(f, "trace:    %s (%s, %u-wide commit)\n", r->trace_path, trace_format_name(r->format), sum->commit_width);
    fprintf(f, "cycles:   %llu (%s%llu .. %llu), %llu commit slots\n", (unsigned long long)sum->cycles,
            sum->cycles != sum->last_cycle - sum->origin ? "what the weighted windows stand for; the trace's: " : "",
            (unsigned long long)sum->origin, (unsigned long long)sum->last_cycle, (unsigned long long)sum->slots);
    fprintf(f, "µops:     %llu committed, %llu excepted; ROB entries: %llu dispatched, %llu squashed\n",
            (unsigned long long)sum->commits, (unsigned long long)sum->exceptions,
            (unsigned long long)sum->dispatched, (unsigned long long)sum->squashed);
    if (sum->unattributed)
        fprintf(f, "note:     %llu cycle(s) after the last commit are charged to no µop (%s)\n",
                (unsigned long long)sum->unattributed, VIEW_TOPDOWN_UNATTRIBUTED);
    if (golden_topdown_get_group_counts(r->td, &groups) && groups)
        fprintf(f, "sampled:  a sampled recording's windows; ± is half the 95 %% interval of a share over %u "
                   "groups of them\n",
                groups);
    fprintf(f, "\n");
    if ((rc = text_view(f, r, GOLDEN_TOPDOWN_VIEW_STATES)) || (rc = text_view(f, r, GOLDEN_TOPDOWN_VIEW_SLOTS))
        || (rc = text_level2(f, r)))
        return rc;
    return r->map ? text_functions(f, r) : TEA_OK;
}

/* --- CSV: a line per category, component and level-2 node of every scope ------------ */

/* One scope's lines: its states' total and rows, its slots' total and
 * rows, its level-2 nodes. */
typedef struct csv_scope {
    const view_topdown_report *r;
    long scope;
    view_topdown_row *rows[GOLDEN_TOPDOWN_VIEW_COUNT];
    size_t n[GOLDEN_TOPDOWN_VIEW_COUNT];
    uint64_t level2[GOLDEN_TOPDOWN_LEVEL2_COUNT];
} csv_scope;

/* What line `line` of a scope is: its view (or level 2, kind ==
 * GOLDEN_TOPDOWN_VIEW_COUNT), and its row (SIZE_MAX: the view's total). */
static void csv_line(const csv_scope *s, size_t line, int *kind, size_t *row)
{
    for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT; v++) {
        if (line <= s->n[v]) {
            *kind = v;
            *row = line == 0 ? SIZE_MAX : line - 1;
            return;
        }
        line -= s->n[v] + 1;
    }
    *kind = GOLDEN_TOPDOWN_VIEW_COUNT;
    *row = line;
}

static int csv_function(void *ctx, size_t line, emit_format format, emit_cell *cell)
{
    const csv_scope *s = ctx;
    (void)line;
    (void)format;
    emit_text(cell, view_topdown_scope_name(s->r->map, s->scope));
    return TEA_OK;
}

static int csv_view(void *ctx, size_t line, emit_format format, emit_cell *cell)
{
    int kind;
    size_t row;
    (void)format;
    csv_line(ctx, line, &kind, &row);
    emit_text(cell, kind == GOLDEN_TOPDOWN_VIEW_STATES ? "states" : kind == GOLDEN_TOPDOWN_VIEW_SLOTS ? "slots"
                                                                                                        : "level2");
    return TEA_OK;
}

static int csv_category(void *ctx, size_t line, emit_format format, emit_cell *cell)
{
    const csv_scope *s = ctx;
    int kind;
    size_t row;
    (void)format;
    csv_line(s, line, &kind, &row);
    if (kind == GOLDEN_TOPDOWN_VIEW_COUNT)
        emit_text(cell, golden_topdown_level2_name((enum golden_topdown_level2)row));
    else
        emit_text(cell, row == SIZE_MAX ? "total" : s->rows[kind][row].category);
    return TEA_OK;
}

static int csv_component(void *ctx, size_t line, emit_format format, emit_cell *cell)
{
    const csv_scope *s = ctx;
    int kind;
    size_t row;
    (void)format;
    csv_line(s, line, &kind, &row);
    if (kind < GOLDEN_TOPDOWN_VIEW_COUNT && row != SIZE_MAX && s->rows[kind][row].is_component)
        component_label(s->rows[kind][row].psv, cell->text, EMIT_CELL_MAX);
    return TEA_OK;
}

/* The line's value (index 0), unit (1), percent (2) or its interval's low
 * (3) and high (4) ends, in percent and cut at 0, for the whole trace's
 * categories of a sampled trace (empty otherwise). */
static int csv_number(void *ctx, size_t line, emit_format format, emit_cell *cell)
{
    const csv_scope *s = ctx;
    const golden_topdown_counts *c = golden_topdown_get_counts(s->r->td, s->scope);
    int kind;
    size_t row;
    uint64_t value, unit = 1, share, total;
    double half = NAN;
    (void)format;

    csv_line(s, line, &kind, &row);
    if (kind == GOLDEN_TOPDOWN_VIEW_COUNT) {
        value = c->level2[row];
        share = s->level2[row];
        total = view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_SLOTS);
        if (s->scope == GOLDEN_TOPDOWN_WHOLE)
            half = view_topdown_level2_half_percent(s->r->td, (enum golden_topdown_level2)row);
    } else {
        enum golden_topdown_view v = (enum golden_topdown_view)kind;
        total = view_topdown_total(c, v);
        unit = v == GOLDEN_TOPDOWN_VIEW_STATES ? c->state_unit : 1;
        if (row == SIZE_MAX) {
            value = total;
            share = s->scope == GOLDEN_TOPDOWN_WHOLE
                        ? (total ? 100 * view_topdown_power_of_ten(CSV_DECIMALS) : 0)
                        : (v == GOLDEN_TOPDOWN_VIEW_STATES ? s->r->rank.scope_share
                                                           : s->r->rank.scope_slot_share)[s->scope];
        } else {
            value = s->rows[kind][row].value;
            share = s->rows[kind][row].share;
            half = row_half_percent(s->r, v, s->scope, &s->rows[kind][row]);
        }
    }
    switch (cell->index) {
    case 0:
        emit_printf(cell, "%llu", (unsigned long long)value);
        break;
    case 1:
        emit_printf(cell, "%llu", (unsigned long long)unit);
        break;
    case 2:
        share_text(cell, share, CSV_DECIMALS, "");
        break;
    default:
        if (row != SIZE_MAX || kind == GOLDEN_TOPDOWN_VIEW_COUNT) {
            double percent = total ? 100.0 * (double)value / (double)total : 0.0;
            if (!isnan(half))
                emit_printf(cell, "%.*f", CSV_DECIMALS, cell->index == 3 ? fmax(percent - half, 0.0) : percent + half);
        }
        break;
    }
    return TEA_OK;
}

static const emit_column CSV_COLUMNS[] = {
    { "function", NULL, 0, 0, NULL, EMIT_CSV_FIELD, csv_function, 0 },
    { "view", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_view, 0 },
    { "category", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_category, 0 },
    { "component", NULL, 0, 0, NULL, EMIT_CSV_FIELD, csv_component, 0 },
    { "value", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_number, 0 },
    { "unit", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_number, 1 },
    { "percent", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_number, 2 },
    { "percent_ci_low", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_number, 3 },
    { "percent_ci_high", NULL, 0, 0, NULL, EMIT_CSV_RAW, csv_number, 4 },
};

/* Writes the lines of one scope. */
static int csv_scope_write(FILE *f, const view_topdown_report *r, long scope)
{
    csv_scope s = { r, scope, { NULL, NULL }, { 0, 0 }, { 0 } };
    emit_table table = { CSV_COLUMNS, sizeof CSV_COLUMNS / sizeof CSV_COLUMNS[0], &s, 0, NULL, NULL, NULL };
    int rc = TEA_OK;

    for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT && !rc; v++)
        rc = view_topdown_rows(r->td, scope, (enum golden_topdown_view)v, CSV_DECIMALS, 0, &s.rows[v], &s.n[v]);
    if (!rc)
        rc = level2_shares(golden_topdown_get_counts(r->td, scope), CSV_DECIMALS, s.level2);
    if (!rc) {
        table.rows = s.n[0] + 1 + s.n[1] + 1 + GOLDEN_TOPDOWN_LEVEL2_COUNT;
        rc = emit_csv_rows(f, &table);
    }
    for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT; v++)
        free(s.rows[v]);
    return rc;
}

int view_topdown_report_csv(FILE *f, view_topdown_report *r)
{
    emit_table table = { CSV_COLUMNS, sizeof CSV_COLUMNS / sizeof CSV_COLUMNS[0], NULL, 0, NULL, NULL, NULL };
    int rc;

    emit_csv_header(f, &table);
    if ((rc = csv_scope_write(f, r, GOLDEN_TOPDOWN_WHOLE)))
        return rc;
    for (size_t i = 0; i < r->rank.order_count; i++)
        if ((rc = csv_scope_write(f, r, (long)r->rank.order[i])))
            return rc;
    return TEA_OK;
}

/* --- JSON ------------------------------------------------------------------- */

static double fraction(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

/* Writes one view of a scope: {category: {value, share, components}}. */
static void json_view(json_writer *j, const view_topdown_report *ctx, long scope, enum golden_topdown_view kind,
                      const char *value_key)
{
    const golden_topdown_counts *c = golden_topdown_get_counts(ctx->td, scope);
    const uint64_t *values = view_topdown_values(c, kind);
    uint64_t total = view_topdown_total(c, kind);
    char label[TRACE_PSV_LABEL_MAX + 32];

    json_begin_object(j);
    for (unsigned k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++) {
        const golden_topdown_component *comp;
        size_t m = golden_topdown_get_components(ctx->td, scope, kind, k, &comp);
        json_key(j, view_topdown_category_name(kind, k));
        json_begin_object(j);
        json_key(j, value_key);
        json_u64(j, values[k]);
        json_key(j, "share");
        json_double(j, fraction(values[k], total));
        json_key(j, "components");
        json_begin_array(j);
        for (size_t i = 0; i < m; i++) {
            json_begin_object(j);
            json_key(j, "component");
            json_string(j, component_label(comp[i].psv, label, sizeof label));
            json_key(j, "psv");
            if (comp[i].psv == GOLDEN_TOPDOWN_NO_UOP)
                json_null(j);
            else
                json_u64(j, comp[i].psv);
            json_key(j, value_key);
            json_u64(j, comp[i].value);
            json_key(j, "share");
            json_double(j, fraction(comp[i].value, total));
            json_end(j);
        }
        json_end(j);
        json_end(j);
    }
    json_end(j);
}

/* TMA's level 2 of a scope's slots: {name: {slots, share}} (share of all
 * the scope's slots). */
static void json_level2(json_writer *j, const view_topdown_report *ctx, long scope)
{
    const golden_topdown_counts *c = golden_topdown_get_counts(ctx->td, scope);
    uint64_t total = view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_SLOTS);

    json_begin_object(j);
    for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++) {
        json_key(j, golden_topdown_level2_name((enum golden_topdown_level2)k));
        json_begin_object(j);
        json_key(j, "slots");
        json_u64(j, c->level2[k]);
        json_key(j, "share");
        json_double(j, fraction(c->level2[k], total));
        json_end(j);
    }
    json_end(j);
}

int view_topdown_report_json(FILE *f, view_topdown_report *ctx)
{
    const golden_topdown_summary *sum = golden_topdown_get_summary(ctx->td);
    json_writer j;
    char hex[32];

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "file");
    json_string(&j, ctx->trace_path);
    json_key(&j, "format");
    json_string(&j, trace_format_name(ctx->format));
    json_key(&j, "commit_width");
    json_u64(&j, sum->commit_width);
    json_key(&j, "first_cycle");
    json_u64(&j, sum->origin);
    json_key(&j, "last_cycle");
    json_u64(&j, sum->last_cycle);
    json_key(&j, "cycles");
    json_u64(&j, sum->cycles);
    json_key(&j, "slots");
    json_u64(&j, sum->slots);
    json_key(&j, "commits");
    json_u64(&j, sum->commits);
    json_key(&j, "exceptions");
    json_u64(&j, sum->exceptions);
    json_key(&j, "dispatched");
    json_u64(&j, sum->dispatched);
    json_key(&j, "squashed");
    json_u64(&j, sum->squashed);
    json_key(&j, "unattributed_cycles");
    json_u64(&j, sum->unattributed);
    json_key(&j, "states");
    json_view(&j, ctx, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_STATES, "cycles");
    json_key(&j, "topdown");
    json_view(&j, ctx, GOLDEN_TOPDOWN_WHOLE, GOLDEN_TOPDOWN_VIEW_SLOTS, "slots");
    json_key(&j, "topdown_level2");
    json_level2(&j, ctx, GOLDEN_TOPDOWN_WHOLE);
    if (ctx->map) {
        json_key(&j, "functions_from");
        json_string(&j, ctx->functions_from);
        json_key(&j, "function_unit");
        json_u64(&j, golden_topdown_unit(sum->commit_width));
        json_key(&j, "functions");
        json_begin_array(&j);
        for (size_t i = 0; i < ctx->rank.order_count; i++) {
            long s = (long)ctx->rank.order[i];
            const golden_topdown_counts *c = golden_topdown_get_counts(ctx->td, s);
            json_begin_object(&j);
            json_key(&j, "name");
            json_string(&j, view_topdown_scope_name(ctx->map, s));
            json_key(&j, "start");
            if ((size_t)s < ctx->map->count) {
                snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)ctx->map->entries[s].start);
                json_string(&j, hex);
            } else {
                json_null(&j);
            }
            json_key(&j, "end");
            if ((size_t)s < ctx->map->count) {
                snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)ctx->map->entries[s].end);
                json_string(&j, hex);
            } else {
                json_null(&j);
            }
            json_key(&j, "units");
            json_u64(&j, view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_STATES));
            json_key(&j, "cycles");
            json_double(&j, (double)view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_STATES) / (double)c->state_unit);
            json_key(&j, "share");
            json_double(&j, fraction(view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_STATES), sum->cycles * c->state_unit));
            json_key(&j, "slots");
            json_u64(&j, view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_SLOTS));
            json_key(&j, "states");
            json_view(&j, ctx, s, GOLDEN_TOPDOWN_VIEW_STATES, "units");
            json_key(&j, "topdown");
            json_view(&j, ctx, s, GOLDEN_TOPDOWN_VIEW_SLOTS, "slots");
            json_key(&j, "topdown_level2");
            json_level2(&j, ctx, s);
            json_end(&j);
        }
        json_end(&j);
    }
    json_end(&j);
    json_finish(&j);
    return TEA_OK;
}

