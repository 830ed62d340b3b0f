/*
 * tea_topdown.c: `tea topdown`, the commit states and the top-down slot view
 * of a trace, for the whole trace and per function (docs/topdown.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "binary/symbolize.h"
#include "binary/symbols.h"
#include "cli.h"
#include "commands.h"
#include "common/csv.h"
#include "common/error.h"
#include "common/json.h"
#include "common/outfile.h"
#include "golden/topdown.h"
#include "trace/symmap.h"
#include "trace/pcs.h"
#include "trace/psv.h"
#include "trace/trace.h"
#include "view/report.h"
#include "view/topdown.h"
#include "view/view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decimals of the percentages: text and CSV. */
#define TEXT_DECIMALS 1
#define CSV_DECIMALS 2
/* Components listed under a category in text before "others". */
#define TEXT_COMPONENTS 8
/* Functions listed in text by default. */
#define TEXT_DEFAULT_TOP 20
/* Width of the name column in text. */
#define TEXT_NAME_WIDTH 34


enum output_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

typedef struct request {
    const char *trace_path;
    const char *binary_symbols_path; /* --symbols MAP */
    binary_symbolize_options sym;    /* --elf BINARY, --adjust-vma OFFSET */
    const char *out_path;       /* -o, "-" for stdout */
    int by_function;
    enum output_format format;
    uint64_t top;               /* text: functions listed (0: all) */
    trace_open_options open;
} request;

/* What the report needs besides the analysis. */
typedef struct context {
    const request *req;
    const golden_topdown *td;
    const trace_symmap *map;     /* NULL without --by function */
    const char *functions_from; /* the symbol map's or binary's path */
    trace_format format;
    view_topdown_ranking rank;  /* the scopes, ranked */
} context;


#define TOPDOWN_SYNOPSIS                                                                                \
    "Usage: tea topdown TRACE [--by function [--symbols MAP | --elf BINARY]]\n"                        \
    "                         [--format text|csv|json] [-o OUT]\n\n"                                   \
    "Where the cycles of a trace go, in two views (docs/topdown.md):\n"                                \
    "  commit states  compute, stalled, drained, flushed (cycles; they sum to the span), the\n"        \
    "                 last three split by the events (PSV components) of the µops charged;\n"          \
    "  top-down       commit slots (commit width x cycles) as retiring, bad speculation,\n"            \
    "                 frontend bound, backend bound, split the same way; and TMA's level 2\n"        \
    "                 where the PSV can tell, named as toplev does (Frontend_Bound.\n"             \
    "                 Fetch_Latency/Fetch_Bandwidth, Bad_Speculation.Branch_Mispredicts/\n"       \
    "                 Machine_Clears, Backend_Bound.Memory_Bound/Core_Bound).\n"                  \
    "For the whole trace and, with --by function, for every function of a symbol map or of\n"         \
    "the traced binary (the one the trace header names, or --elf).\n"                                  \
    "Counts are exact integers; printed shares add up to exactly 100%. On a sampled recording\n"     \
    "(tea record --sample-every) the whole trace's shares get ± half their 95% interval over\n"     \
    "groups of its windows (CSV: percent_ci_low, percent_ci_high).\n\n"                            \
    "Options:\n"
#define TOPDOWN_EPILOGUE                                                                                \
    "\n"                                                                                               \
    "CSV columns: function,view,category,component,value,unit,percent. value/unit is cycles\n"         \
    "(view states) or slots (views slots and level2): unit is 1 except for a function's\n"           \
    "states, where a compute cycle is split among its µops (unit = lcm(1..commit width)).\n"        \
    "percent is the share of the scope's total (category 'total': of the whole trace).\n"

/* The functions for --by function: the symbol map, or the symbols of the
 * binary (--elf, else the one the trace header names) in trace PCs. */
/* The help of --adjust-vma says how many records auto reads. */
_Static_assert(TRACE_PCS_DEFAULT_RECORDS == 1u << 20, "tea topdown --help names 2^20 records");

static int load_functions(const request *req, const trace_header *h, trace_symmap *map, const char **from)
{
    binary_symbolizer *z = NULL;
    binary_symbolize_options sym = req->sym;
    uint64_t *pcs = NULL;
    pics_info info;
    int rc;

    if (req->binary_symbols_path)
        return view_functions(req->binary_symbols_path, NULL, map, from);
    pics_info_init(&info);
    snprintf(info.arch, sizeof info.arch, "%s", h->arch);
    info.load_bias = h->load_bias;
    info.has_load_bias = h->has_load_bias;
    if ((h->binary_path && !(info.binary_path = strdup(h->binary_path)))
        || (h->build_id && !(info.build_id = strdup(h->build_id)))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* --adjust-vma auto: scored on the PCs at the start of the trace, read in a pass of their own */
    if (sym.adjust_vma_auto
        && (rc = trace_pcs_prefix(req->trace_path, &req->open, TRACE_PCS_DEFAULT_RECORDS, &pcs, &sym.auto_pc_count)))
        goto done;
    sym.auto_pcs = pcs;
    if ((rc = binary_symbolize_open(&z, &info, &sym)))
        goto done;
    if ((rc = view_functions(NULL, z, map, from)))
        goto done;
    if (!*from) {
        rc = error_set(TEA_ERR_USAGE, "--by function needs --symbols MAP or --elf BINARY: %s",
                       h->binary_path ? "the traced binary cannot be read here" : "the trace names no binary");
        goto done;
    }
    if (!(*from = strdup(*from)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
done:
    binary_symbolize_close(z);
    pics_info_free(&info);
    free(pcs);
    return rc;
}

/* Formats a share given in units of 10^-decimals percent. */
static char *format_share(uint64_t share, int decimals, char *buf, size_t size)
{
    uint64_t p = view_topdown_power_of_ten(decimals);
    snprintf(buf, size, "%llu.%0*llu", (unsigned long long)(share / p), decimals, (unsigned long long)(share % p));
    return buf;
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

/* --- text ------------------------------------------------------------------- */

/* Prints a state value: whole cycles, or cycles with two decimals for a
 * function's (in 1/unit cycles). */
static void fprint_value(FILE *f, uint64_t value, uint64_t unit, int width)
{
    if (unit == 1)
        fprintf(f, "%*llu", width, (unsigned long long)value);
    else
        fprintf(f, "%*.2f", width, (double)value / (double)unit);
}

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

/* Prints one view of the whole trace as an indented table, its first
 * column as wide as its longest label (at least TEXT_NAME_WIDTH). */
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
static double row_half_percent(const context *ctx, enum golden_topdown_view kind, long scope,
                               const view_topdown_row *row)
{
    if (scope != GOLDEN_TOPDOWN_WHOLE || row->is_component)
        return NAN;
    return view_topdown_half_percent(ctx->td, kind, category_index(kind, row->category));
}

/* With window groups: " ±H%" after a share (text), or nothing. */
static void text_half(FILE *f, double half)
{
    if (!isnan(half))
        fprintf(f, " ±%5.*f%%", TEXT_DECIMALS, half);
}

/* CSV: ",LOW,HIGH" in percent (cut at 0) around `percent`, or ",," when
 * `half` is NaN. */
static void csv_interval(FILE *f, double percent, double half)
{
    if (isnan(half))
        fputs(",,", f);
    else
        fprintf(f, ",%.*f,%.*f", CSV_DECIMALS, fmax(percent - half, 0.0), CSV_DECIMALS, percent + half);
}

static int text_view(FILE *f, const context *ctx, enum golden_topdown_view kind)
{
    const golden_topdown_summary *sum = golden_topdown_get_summary(ctx->td);
    view_topdown_row *rows;
    size_t n;
    char share[32], label[TRACE_PSV_LABEL_MAX + 32];
    int rc, width = TEXT_NAME_WIDTH;

    if ((rc = view_topdown_rows(ctx->td, GOLDEN_TOPDOWN_WHOLE, kind, TEXT_DECIMALS, TEXT_COMPONENTS, &rows, &n)))
        return rc;
    for (size_t i = 0; i < n; i++) {
        text_row_label(&rows[i], label, sizeof label);
        if ((int)strlen(label) > width)
            width = (int)strlen(label);
    }
    if (kind == GOLDEN_TOPDOWN_VIEW_STATES)
        fprintf(f, "%-*s %14s %8s\n", width, "commit states", "cycles", "share");
    else
        fprintf(f, "%-*s %14s %8s\n", width, "top-down (commit slots)", "slots", "share");
    for (size_t i = 0; i < n; i++) {
        text_row_label(&rows[i], label, sizeof label);
        fprintf(f, "%-*s %14llu %7s%%", width, label, (unsigned long long)rows[i].value,
                format_share(rows[i].share, TEXT_DECIMALS, share, sizeof share));
        text_half(f, row_half_percent(ctx, kind, GOLDEN_TOPDOWN_WHOLE, &rows[i]));
        fputc('\n', f);
    }
    fprintf(f, "%-*s %14llu %7s%%\n\n", width, "  total",
            (unsigned long long)(kind == GOLDEN_TOPDOWN_VIEW_STATES ? sum->cycles : sum->slots),
            format_share(view_topdown_total(golden_topdown_get_counts(ctx->td, GOLDEN_TOPDOWN_WHOLE), kind)
                             ? 100 * view_topdown_power_of_ten(TEXT_DECIMALS)
                             : 0,
                         TEXT_DECIMALS, share, sizeof share));
    free(rows);
    return TEA_OK;
}

/* The table of functions: cycles, share of the trace, and each view's
 * shares of the function's own total; then each function's components. */
static int text_functions(FILE *f, const context *ctx)
{
    size_t shown = ctx->req->top && ctx->req->top < ctx->rank.order_count ? (size_t)ctx->req->top : ctx->rank.order_count;
    char share[32], label[TRACE_PSV_LABEL_MAX + 8], fitted[BINARY_SYMBOLIZE_TEXT_MAX];
    int rc = TEA_OK;

    fprintf(f, "functions of %s: %zu with cycles%s (shares of each function's own cycles and slots)\n",
            ctx->functions_from, ctx->rank.order_count, shown < ctx->rank.order_count ? ", the first listed" : "");
    fprintf(f, "%-*s %12s %6s | %7s %7s %7s %7s | %8s %8s %8s %8s\n", TEXT_NAME_WIDTH, "function", "cycles",
            "share", "compute", "stalled", "drained", "flushed", "retiring", "bad-spec", "frontend", "backend");
    for (size_t i = 0; i < shown; i++) {
        long s = (long)ctx->rank.order[i];
        const golden_topdown_counts *c = golden_topdown_get_counts(ctx->td, s);
        uint64_t st[GOLDEN_TOPDOWN_CATEGORIES], sl[GOLDEN_TOPDOWN_CATEGORIES];
        if ((rc = golden_topdown_apportion(c->states, GOLDEN_TOPDOWN_CATEGORIES, 100 * view_topdown_power_of_ten(TEXT_DECIMALS), st))
            || (rc = golden_topdown_apportion(c->slots, GOLDEN_TOPDOWN_CATEGORIES, 100 * view_topdown_power_of_ten(TEXT_DECIMALS),
                                              sl)))
            return rc;
        fprintf(f, "%-*s ", TEXT_NAME_WIDTH, view_report_fit(view_topdown_scope_name(ctx->map, s), TEXT_NAME_WIDTH, fitted, sizeof fitted));
        fprint_value(f, view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_STATES), c->state_unit, 12);
        fprintf(f, " %5s%% |", format_share(ctx->rank.scope_share[s], TEXT_DECIMALS, share, sizeof share));
        for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++)
            fprintf(f, " %6s%%", format_share(st[k], TEXT_DECIMALS, share, sizeof share));
        fprintf(f, " |");
        for (int k = 0; k < GOLDEN_TOPDOWN_CATEGORIES; k++)
            fprintf(f, "  %6s%%", format_share(sl[k], TEXT_DECIMALS, share, sizeof share));
        fprintf(f, "\n");
    }
    fprintf(f, "\nevents per function (shares of the function's cycles)\n");
    for (size_t i = 0; i < shown; i++) {
        long s = (long)ctx->rank.order[i];
        view_topdown_row *rows;
        size_t n;
        int first_in_category = 0, categories = 0;
        if ((rc = view_topdown_rows(ctx->td, s, GOLDEN_TOPDOWN_VIEW_STATES, TEXT_DECIMALS, TEXT_COMPONENTS, &rows, &n)))
            return rc;
        fprintf(f, "  %s:", view_topdown_scope_name(ctx->map, s));
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
            fprintf(f, " %s %s%%", label, format_share(rows[k].share, TEXT_DECIMALS, share, sizeof share));
        }
        fprintf(f, "\n");
        free(rows);
    }
    return rc;
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

/* Prints TMA's level 2 of the whole trace's slots (toplev's names). */
static int text_level2(FILE *f, const context *ctx)
{
    const golden_topdown_counts *c = golden_topdown_get_counts(ctx->td, GOLDEN_TOPDOWN_WHOLE);
    uint64_t shares[GOLDEN_TOPDOWN_LEVEL2_COUNT];
    char share[32], label[TEXT_NAME_WIDTH + 8];
    int rc;

    if ((rc = level2_shares(c, TEXT_DECIMALS, shares)))
        return rc;
    fprintf(f, "%-*s %14s %8s\n", TEXT_NAME_WIDTH, "top-down level 2 (commit slots)", "slots", "share");
    for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++) {
        snprintf(label, sizeof label, "  %s", golden_topdown_level2_name((enum golden_topdown_level2)k));
        fprintf(f, "%-*s %14llu %7s%%", TEXT_NAME_WIDTH, label, (unsigned long long)c->level2[k],
                format_share(shares[k], TEXT_DECIMALS, share, sizeof share));
        text_half(f, view_topdown_level2_half_percent(ctx->td, (enum golden_topdown_level2)k));
        fputc('\n', f);
    }
    fputc('\n', f);
    return TEA_OK;
}

static int print_text(FILE *f, const context *ctx)
{
    const golden_topdown_summary *sum = golden_topdown_get_summary(ctx->td);
    int rc;

    fprintf(f, "trace:    %s (%s, %u-wide commit)\n", ctx->req->trace_path, trace_format_name(ctx->format),
            sum->commit_width);
    fprintf(f, "cycles:   %llu (%s%llu .. %llu), %llu commit slots\n", (unsigned long long)sum->cycles,
            sum->cycles != sum->last_cycle - sum->origin ? "what the weighted windows stand for; the trace's: " : "",
            (unsigned long long)sum->origin, (unsigned long long)sum->last_cycle, (unsigned long long)sum->slots);
    fprintf(f, "µops:     %llu committed, %llu excepted; ROB entries: %llu dispatched, %llu squashed\n",
            (unsigned long long)sum->commits, (unsigned long long)sum->exceptions,
            (unsigned long long)sum->dispatched, (unsigned long long)sum->squashed);
    if (sum->unattributed)
        fprintf(f, "note:     %llu cycle(s) after the last commit are charged to no µop (%s)\n",
                (unsigned long long)sum->unattributed, VIEW_TOPDOWN_UNATTRIBUTED);
    {
        unsigned groups;
        if (golden_topdown_get_group_counts(ctx->td, &groups) && groups)
            fprintf(f, "sampled:  a sampled recording's windows; ± is half the 95 %% interval of a share over %u "
                       "groups of them\n",
                    groups);
    }
    fprintf(f, "\n");
    if ((rc = text_view(f, ctx, GOLDEN_TOPDOWN_VIEW_STATES)) || (rc = text_view(f, ctx, GOLDEN_TOPDOWN_VIEW_SLOTS))
        || (rc = text_level2(f, ctx)))
        return rc;
    if (ctx->map)
        rc = text_functions(f, ctx);
    return rc;
}

/* --- CSV -------------------------------------------------------------------- */

/* Writes the rows of one scope, both views. */
static int csv_scope(FILE *f, const context *ctx, long scope)
{
    const golden_topdown_counts *c = golden_topdown_get_counts(ctx->td, scope);
    char share[32], label[TRACE_PSV_LABEL_MAX + 32];
    int rc;

    for (int v = 0; v < GOLDEN_TOPDOWN_VIEW_COUNT; v++) {
        enum golden_topdown_view kind = (enum golden_topdown_view)v;
        uint64_t unit = kind == GOLDEN_TOPDOWN_VIEW_STATES ? c->state_unit : 1;
        uint64_t whole_share =
            scope == GOLDEN_TOPDOWN_WHOLE
                ? (view_topdown_total(c, kind) ? 100 * view_topdown_power_of_ten(CSV_DECIMALS) : 0)
                : (kind == GOLDEN_TOPDOWN_VIEW_STATES ? ctx->rank.scope_share : ctx->rank.scope_slot_share)[scope];
        const char *view_name = kind == GOLDEN_TOPDOWN_VIEW_STATES ? "states" : "slots";
        view_topdown_row *rows = NULL;
        size_t n = 0;

        if ((rc = view_topdown_rows(ctx->td, scope, kind, CSV_DECIMALS, 0, &rows, &n)))
            return rc;
        csv_field(f, view_topdown_scope_name(ctx->map, scope));
        fprintf(f, ",%s,total,,%llu,%llu,%s,,\n", view_name, (unsigned long long)view_topdown_total(c, kind),
                (unsigned long long)unit, format_share(whole_share, CSV_DECIMALS, share, sizeof share));
        for (size_t i = 0; i < n; i++) {
            uint64_t total = view_topdown_total(c, kind);
            csv_field(f, view_topdown_scope_name(ctx->map, scope));
            fprintf(f, ",%s,%s,", view_name, rows[i].category);
            if (rows[i].is_component)
                csv_field(f, component_label(rows[i].psv, label, sizeof label));
            fprintf(f, ",%llu,%llu,%s", (unsigned long long)rows[i].value, (unsigned long long)unit,
                    format_share(rows[i].share, CSV_DECIMALS, share, sizeof share));
            csv_interval(f, total ? 100.0 * (double)rows[i].value / (double)total : 0.0,
                         row_half_percent(ctx, kind, scope, &rows[i]));
            fputc('\n', f);
        }
        free(rows);
    }
    {
        uint64_t shares[GOLDEN_TOPDOWN_LEVEL2_COUNT];
        if ((rc = level2_shares(c, CSV_DECIMALS, shares)))
            return rc;
        for (int k = 0; k < GOLDEN_TOPDOWN_LEVEL2_COUNT; k++) {
            uint64_t slots = view_topdown_total(c, GOLDEN_TOPDOWN_VIEW_SLOTS);
            csv_field(f, view_topdown_scope_name(ctx->map, scope));
            fprintf(f, ",level2,%s,,%llu,1,%s", golden_topdown_level2_name((enum golden_topdown_level2)k),
                    (unsigned long long)c->level2[k], format_share(shares[k], CSV_DECIMALS, share, sizeof share));
            csv_interval(f, slots ? 100.0 * (double)c->level2[k] / (double)slots : 0.0,
                         scope == GOLDEN_TOPDOWN_WHOLE
                             ? view_topdown_level2_half_percent(ctx->td, (enum golden_topdown_level2)k)
                             : NAN);
            fputc('\n', f);
        }
    }
    return TEA_OK;
}

static int print_csv(FILE *f, const context *ctx)
{
    int rc;
    fprintf(f, "function,view,category,component,value,unit,percent,percent_ci_low,percent_ci_high\n");
    if ((rc = csv_scope(f, ctx, GOLDEN_TOPDOWN_WHOLE)))
        return rc;
    for (size_t i = 0; i < ctx->rank.order_count; i++)
        if ((rc = csv_scope(f, ctx, (long)ctx->rank.order[i])))
            return rc;
    return TEA_OK;
}

/* --- JSON ------------------------------------------------------------------- */

static double fraction(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

/* Writes one view of a scope: {category: {value, share, components}}. */
static void json_view(json_writer *j, const context *ctx, long scope, enum golden_topdown_view kind,
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
static void json_level2(json_writer *j, const context *ctx, long scope)
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

static int print_json(FILE *f, const context *ctx)
{
    const golden_topdown_summary *sum = golden_topdown_get_summary(ctx->td);
    json_writer j;
    char hex[32];

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "file");
    json_string(&j, ctx->req->trace_path);
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

/* --- main ------------------------------------------------------------------- */

/* Parses the command line into req. Returns CLI_CONTINUE, or the exit status
 * when the command ends here (--help, usage errors). */
static int parse_args(int argc, char **argv, request *req)
{
    static const char *const scopes[] = { "trace", "function", NULL };
    static const char *const formats[] = { "text", "csv", "json", NULL };
    static const int format_values[] = { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };
    int rc, by_given = 0;
    const cli_option options[] = {
        { .long_name = "by",
          .arg = CLI_ARG_REQUIRED,
          .value_name = "SCOPE",
          .help = "trace (default) or function",
          .type = CLI_TYPE_ENUM,
          .dest = &req->by_function,
          .size = sizeof req->by_function,
          .names = scopes,
          .error = "unknown scope '%s' (trace or function)",
          .seen = &by_given },
        CLI_OPTION_SYMBOLS(&req->binary_symbols_path,
                           "functions from a symbol map: lines 'START END NAME' (END exclusive)"),
        CLI_OPTION_ELF(&req->sym.elf_path, "functions from this binary's symbols (default: the binary the trace\n"
                                           "names, when it is readable)"),
        CLI_OPTION_ADJUST_VMA(&req->sym, "OFF|auto",
                              "load bias, runtime address - ELF address (default: the trace's); auto:\n"
                              "inferred from the PCs of the trace's first 2^20 records"),
        CLI_OPTION_NO_DEMANGLE(&req->sym),
        CLI_ENUM("format", "FORMAT", &req->format, formats, format_values, "unknown format '%s' (text, csv or json)",
                 "text (default), csv or json"),
        CLI_UINT("top", "N", &req->top, 0, UINT64_MAX, "--top needs a count, not '%s'",
                 "text: functions listed (default " CLI_STR(TEXT_DEFAULT_TOP) ", 0 for all)"),
        CLI_OPTION_STDOUT_OUTPUT(&req->out_path),
        CLI_TRACE_OPTIONS(&req->open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(TOPDOWN_SYNOPSIS, TOPDOWN_EPILOGUE, 21, options);

    memset(req, 0, sizeof *req);
    req->out_path = "-";
    req->top = TEXT_DEFAULT_TOP;
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing TRACE" : "expected exactly one TRACE");
    req->trace_path = argv[optind];
    if ((req->binary_symbols_path || req->sym.elf_path) && !by_given)
        req->by_function = 1;
    if ((req->binary_symbols_path || req->sym.elf_path || req->sym.has_adjust_vma) && !req->by_function)
        return cli_usage_error(argv[0], "--symbols, --elf and --adjust-vma are only used with --by function");
    if (req->binary_symbols_path && (req->sym.elf_path || req->sym.has_adjust_vma))
        return cli_usage_error(argv[0], "--symbols excludes --elf and --adjust-vma");
    req->sym.command = argv[0];
    return CLI_CONTINUE;
}

int cmd_tea_topdown(int argc, char **argv)
{
    request req;
    context ctx;
    trace_symmap map = { 0 };
    trace_reader *reader = NULL;
    golden_topdown *td = NULL;
    outfile *out = NULL;
    const char *from = NULL;
    int rc;

    if ((rc = parse_args(argc, argv, &req)) != CLI_CONTINUE)
        return rc;
    memset(&ctx, 0, sizeof ctx);
    if ((rc = trace_reader_open(&reader, req.trace_path, &req.open)))
        goto done;
    if (req.by_function && (rc = load_functions(&req, trace_reader_header(reader), &map, &from)))
        goto done;
    if ((rc = view_topdown_analyse(reader, req.by_function ? &map : NULL, &td)))
        goto done;
    ctx.req = &req;
    ctx.td = td;
    ctx.map = req.by_function ? &map : NULL;
    ctx.functions_from = from;
    ctx.format = trace_reader_stats(reader)->format;
    if ((rc = view_topdown_rank(&ctx.rank, td, req.format == FORMAT_TEXT ? TEXT_DECIMALS : CSV_DECIMALS)))
        goto done;
    if ((rc = outfile_open(&out, req.out_path)))
        goto done;
    if (req.format == FORMAT_TEXT)
        rc = print_text(outfile_stream(out), &ctx);
    else if (req.format == FORMAT_CSV)
        rc = print_csv(outfile_stream(out), &ctx);
    else
        rc = print_json(outfile_stream(out), &ctx);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_topdown_ranking_free(&ctx.rank);
    golden_topdown_free(td);
    trace_reader_close(reader);
    if (from && from != req.binary_symbols_path)
        free((char *)from);
    trace_symmap_free(&map);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}
