/*
 * pics_diff.c: `pics diff`, where two PICS of one trace differ most.
 *
 * Both PICS are read as shares of their totals (a cell's value over the
 * PICS's sum; scaled to the golden total C these are the cells' cycles), and
 * every (instruction or function, component) is compared exactly: with TA
 * and TB the two totals, |B - A| / 2C of a cell is |b x TA - a x TB| /
 * (2 TA TB) in 128-bit integers, the same arithmetic as pics/error.c. So
 * when A is the golden PICS the summed difference is `pics error B A`
 * at the same granularity (instruction x component, instruction with the
 * components summed, or function x component) to the last bit.
 */
#include "binary/symbolize.h"
#include "cli.h"
#include "commands.h"
#include "common/csv.h"
#include "common/error.h"
#include "common/exact.h"
#include "common/json.h"
#include "common/outfile.h"
#include "pics/error.h"
#include "pics/pics_file.h"
#include "plot/svg.h"
#include "trace/symmap.h"
#include "trace/psv.h"
#include "view/report.h"
#include "view/view.h"

#include <stdlib.h>
#include <string.h>


#define DIFF_DEFAULT_TEXT_TOP 20 /* rows of the text report; CSV and JSON list all */
#define DIFF_CYCLE_DIGITS 6      /* fraction digits of cycles in every format */
#define DIFF_SHARE_DIGITS 10     /* fraction digits of shares in CSV */
#define DIFF_LOCATION_MAX 512
/* Columns of the location in the text tables. */
#define DIFF_TEXT_LOCATION_WIDTH 28
#define DIFF_NUMBER_MAX 64
#define PERCENT 100.0

typedef enum diff_format { DIFF_TEXT = 0, DIFF_CSV, DIFF_JSON } diff_format;

#define DIFF_SYNOPSIS                                                                               \
    "Usage: pics diff A.pics B.pics [OPTIONS]\n\n"                                                 \
    "Where two PICS of the same trace differ most, per instruction (or function) and\n"            \
    "component, both scaled to the golden total C: rows sorted by |B - A| (ties by address,\n"     \
    "then PSV) with A, B and B - A in cycles and |B - A| / 2C, a summary per instruction,\n"       \
    "and the total sum |B - A| / 2C. When A is the golden PICS the total equals\n"                 \
    "'pics error B A' at the same granularity.\n\n"                                                \
    "Options:\n"
#define DIFF_EPILOGUE                                                                               \
    "\n"                                                                                           \
    "CSV columns: pc,location,psv,component,a_cycles,b_cycles,diff_cycles,share (share a\n"        \
    "fraction of 2C); JSON: the inputs, \"difference\" (a fraction), \"cells\" and\n"              \
    "\"instructions\" (or \"functions\").\n"

typedef struct diff_request {
    const char *a_path, *b_path, *binary_symbols_path, *out_path;
    pics_granularity granularity;
    uint64_t top;    /* 0: the format's default */
    diff_format format;
    binary_symbolize_options sym; /* --elf, --adjust-vma */
} diff_request;

/* Everything the report needs. */
typedef struct diff_state {
    const diff_request *req;
    pics_info a_info, b_info;
    pics a, b;
    binary_symbolizer *z;   /* the binary, when there is one */
    trace_symmap syms;       /* --symbols, or the binary's functions for func */
    view v;                 /* A paired with B; its rows (groups) by difference */
    const pics_pair **cells; /* its cells by difference */
    size_t cell_count;
} diff_state;

/* One line of output: a cell (with its PSV) or a group's row. */
typedef struct diff_line {
    uint64_t group;   /* a row's key: the PC, or 1 + the function's index (0: outside every one) */
    uint64_t a, b;    /* the two PICS's values (raw units) */
    exact_u128 diff;
    uint16_t psv;
} diff_line;

static diff_line cell_line(const pics_pair *c)
{
    diff_line l = { c->key, c->a, c->b, c->diff, c->psv };
    return l;
}

static diff_line row_line(const view_row *r)
{
    diff_line l = { r->key, r->value, r->golden, r->diff, 0 };
    return l;
}

/* Pairs A with B by the granularity and orders both lists by difference. */
static int compare(diff_state *s)
{
    int rc = view_build(&s->v, &s->a, &s->b, s->req->granularity, &s->syms);
    if (rc)
        return rc;
    view_sort(&s->v, VIEW_ORDER_DIFF_KEY);
    return view_cells_by_diff(&s->v, &s->cells, &s->cell_count);
}

/* --- presentation ------------------------------------------------------------ */

/* A difference as a fraction of 2C. */
static double share_of(const diff_state *s, exact_u128 diff)
{
    return pics_pairing_share(&s->v.pairing, diff);
}

/* How a group is shown: the function's name (func); for an instruction
 * NAME+0xOFF inside a symbol of --symbols, else what the symbolizer makes of
 * it (function+0xOFF with a binary, the address in hex without). */
static char *diff_location(const diff_state *s, uint64_t group, char *buf, size_t size)
{
    if (s->req->granularity == PICS_GRAN_FUNC) {
        snprintf(buf, size, "%s", view_key_name(&s->v, group));
        return buf;
    }
    if (s->req->binary_symbols_path) {
        long i = trace_symmap_find(&s->syms, group);
        if (i >= 0)
            snprintf(buf, size, "%s+0x%llx", s->syms.entries[i].name,
                     (unsigned long long)(group - s->syms.entries[i].start));
        else
            snprintf(buf, size, "0x%llx", (unsigned long long)group);
        return buf;
    }
    return binary_symbolize_location(s->z, group, buf, size);
}

/* The cycles of `value` in PICS a or b. */
static double cycles_of(const pics_info *info, const pics *p, uint64_t value)
{
    return pics_value_cycles(info, p->total, value);
}

/* A, B (exact decimals) and B - A, as written in every format. */
static void format_row(const diff_state *s, const diff_line *r, char *a, char *b, char *d)
{
    double delta = cycles_of(&s->b_info, &s->b, r->b) - cycles_of(&s->a_info, &s->a, r->a);
    pics_format_cycles(&s->a_info, s->a.total, r->a, DIFF_CYCLE_DIGITS, a, DIFF_NUMBER_MAX);
    pics_format_cycles(&s->b_info, s->b.total, r->b, DIFF_CYCLE_DIGITS, b, DIFF_NUMBER_MAX);
    plot_svg_format_fixed(delta, DIFF_CYCLE_DIGITS, d, DIFF_NUMBER_MAX);
}

/* How many of `n` items to list. */
static size_t shown(const diff_state *s, size_t n)
{
    uint64_t top = s->req->top ? s->req->top : s->req->format == DIFF_TEXT ? DIFF_DEFAULT_TEXT_TOP : UINT64_MAX;
    return n < top ? n : (size_t)top;
}

/* "golden, 1234.000000 cycles" or "tea at 4000 Hz, 120 samples, 3 lost". */
static void describe(FILE *f, const char *path, const pics_info *info)
{
    fprintf(f, "%s: %s", path, info->scheme);
    if (pics_info_is_golden(info))
        fprintf(f, ", golden reference\n");
    else
        fprintf(f, " at %.6g Hz, %llu samples, %llu lost\n", info->frequency_hz, (unsigned long long)info->samples,
                (unsigned long long)pics_info_lost(info));
}

static void write_text(FILE *f, const diff_state *s)
{
    const char *what = s->req->granularity == PICS_GRAN_FUNC ? "function" : "instruction";
    char total[DIFF_NUMBER_MAX], location[DIFF_LOCATION_MAX], label[TRACE_PSV_LABEL_MAX];
    char a[DIFF_NUMBER_MAX], b[DIFF_NUMBER_MAX], d[DIFF_NUMBER_MAX], fitted[BINARY_SYMBOLIZE_TEXT_MAX];
    size_t rows = shown(s, s->cell_count), groups = shown(s, s->v.row_count);

    pics_format_cycles(&s->a_info, s->a_info.golden_total, s->a_info.golden_total, DIFF_CYCLE_DIGITS, total,
                       sizeof total);
    fprintf(f, "A: ");
    describe(f, s->req->a_path, &s->a_info);
    fprintf(f, "B: ");
    describe(f, s->req->b_path, &s->b_info);
    fprintf(f, "trace %s, golden total C = %s cycles, %s granularity\n", s->a_info.trace_digest, total,
            pics_granularity_name(s->req->granularity));
    fprintf(f, "difference: %.4f%% (sum |B - A| / 2C)\n", PERCENT * view_error(&s->v));
    if (rows == 0)
        return;
    fprintf(f, "\nlargest differences (%zu of %zu; %s%s, cycles):\n", rows, s->cell_count, what,
            s->req->granularity == PICS_GRAN_INSN ? ", components summed" : " x component");
    fprintf(f, "  %-*s %-20s %16s %16s %16s %9s\n", DIFF_TEXT_LOCATION_WIDTH, what, "component", "A", "B", "B-A",
            "share");
    for (size_t i = 0; i < rows; i++) {
        const diff_line line = cell_line(s->cells[i]), *r = &line;
        format_row(s, r, a, b, d);
        fprintf(f, "  %-*s %-20s %16s %16s %16s %8.4f%%\n", DIFF_TEXT_LOCATION_WIDTH,
                view_report_fit(diff_location(s, r->group, location, sizeof location), DIFF_TEXT_LOCATION_WIDTH,
                                     fitted, sizeof fitted),
                view_component_label(s->v.granularity, r->psv, label, sizeof label), a, b, d,
                PERCENT * share_of(s, r->diff));
    }
    fprintf(f, "\nper %s (%zu of %zu; share: its part of the difference):\n", what, groups, s->v.row_count);
    fprintf(f, "  %-*s %16s %16s %16s %9s\n", DIFF_TEXT_LOCATION_WIDTH, what, "A", "B", "B-A", "share");
    for (size_t i = 0; i < groups; i++) {
        const diff_line line = row_line(&s->v.rows[i]), *r = &line;
        format_row(s, r, a, b, d);
        fprintf(f, "  %-*s %16s %16s %16s %8.4f%%\n", DIFF_TEXT_LOCATION_WIDTH,
                view_report_fit(diff_location(s, r->group, location, sizeof location), DIFF_TEXT_LOCATION_WIDTH,
                                     fitted, sizeof fitted),
                a, b, d, PERCENT * share_of(s, r->diff));
    }
}

static void write_csv(FILE *f, const diff_state *s)
{
    char location[DIFF_LOCATION_MAX], label[TRACE_PSV_LABEL_MAX], share[DIFF_NUMBER_MAX];
    char a[DIFF_NUMBER_MAX], b[DIFF_NUMBER_MAX], d[DIFF_NUMBER_MAX];
    size_t rows = shown(s, s->cell_count);

    fprintf(f, "pc,location,psv,component,a_cycles,b_cycles,diff_cycles,share\n");
    for (size_t i = 0; i < rows; i++) {
        const diff_line line = cell_line(s->cells[i]), *r = &line;
        format_row(s, r, a, b, d);
        fprintf(f, "0x%llx,", (unsigned long long)view_key_address(&s->v, r->group));
        csv_field(f, diff_location(s, r->group, location, sizeof location));
        fprintf(f, ",%u,", r->psv);
        csv_field(f, view_component_label(s->v.granularity, r->psv, label, sizeof label));
        fprintf(f, ",%s,%s,%s,%s\n", a, b, d,
                plot_svg_format_fixed(share_of(s, r->diff), DIFF_SHARE_DIGITS, share, sizeof share));
    }
}

/* Describes one input in JSON. */
static void json_input(json_writer *j, const char *path, const pics_info *info)
{
    json_begin_object(j);
    json_key(j, "file");
    json_string(j, path);
    json_key(j, "scheme");
    json_string(j, info->scheme);
    if (!pics_info_is_golden(info)) {
        json_key(j, "frequency_hz");
        json_double(j, info->frequency_hz);
        json_key(j, "samples");
        json_u64(j, info->samples);
        json_key(j, "lost");
        json_u64(j, pics_info_lost(info));
    }
    json_end(j);
}

/* One row or group in JSON (components only for rows). */
static void json_row(json_writer *j, const diff_state *s, const diff_line *r, int with_component)
{
    char text[DIFF_LOCATION_MAX];
    json_begin_object(j);
    json_key(j, "pc");
    snprintf(text, sizeof text, "0x%llx", (unsigned long long)view_key_address(&s->v, r->group));
    json_string(j, text);
    json_key(j, "location");
    json_string(j, diff_location(s, r->group, text, sizeof text));
    if (with_component) {
        json_key(j, "psv");
        json_u64(j, r->psv);
        json_key(j, "component");
        json_string(j, view_component_label(s->v.granularity, r->psv, text, sizeof text));
    }
    json_key(j, "a");
    json_double(j, cycles_of(&s->a_info, &s->a, r->a));
    json_key(j, "b");
    json_double(j, cycles_of(&s->b_info, &s->b, r->b));
    json_key(j, "diff");
    json_double(j, cycles_of(&s->b_info, &s->b, r->b) - cycles_of(&s->a_info, &s->a, r->a));
    json_key(j, "share");
    json_double(j, share_of(s, r->diff));
    json_end(j);
}

static void write_json(FILE *f, const diff_state *s)
{
    size_t rows = shown(s, s->cell_count), groups = shown(s, s->v.row_count);
    json_writer j;

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "a");
    json_input(&j, s->req->a_path, &s->a_info);
    json_key(&j, "b");
    json_input(&j, s->req->b_path, &s->b_info);
    json_key(&j, "trace");
    json_string(&j, s->a_info.trace_digest);
    json_key(&j, "granularity");
    json_string(&j, pics_granularity_name(s->req->granularity));
    json_key(&j, "total_cycles");
    json_double(&j, (double)s->a_info.golden_total / (double)(s->a_info.unit ? s->a_info.unit : PICS_UNIT));
    json_key(&j, "difference");
    json_double(&j, view_error(&s->v));
    json_key(&j, "cells");
    json_begin_array(&j);
    for (size_t i = 0; i < rows; i++) {
        diff_line line = cell_line(s->cells[i]);
        json_row(&j, s, &line, 1);
    }
    json_end(&j);
    json_key(&j, s->req->granularity == PICS_GRAN_FUNC ? "functions" : "instructions");
    json_begin_array(&j);
    for (size_t i = 0; i < groups; i++) {
        diff_line line = row_line(&s->v.rows[i]);
        json_row(&j, s, &line, 0);
    }
    json_end(&j);
    json_end(&j);
    json_finish(&j);
}

/* --- the command ------------------------------------------------------------- */

/* Reads both PICS and checks that they can be compared. */
static int load(diff_state *s)
{
    const diff_request *req = s->req;
    binary_symbolize_options sym;
    const char *from;
    int rc;

    if ((rc = pics_read(req->a_path, &s->a_info, &s->a)) || (rc = pics_read(req->b_path, &s->b_info, &s->b)))
        return rc;
    if (strcmp(s->a_info.trace_digest, s->b_info.trace_digest) != 0)
        return error_set(TEA_ERR_USAGE, "%s and %s come from different traces (digest %s vs %s)", req->a_path,
                         req->b_path, s->a_info.trace_digest, s->b_info.trace_digest);
    if (s->a_info.golden_total != s->b_info.golden_total)
        return error_set(TEA_ERR_FORMAT, "%s and %s disagree on the golden total (%llu vs %llu units)", req->a_path,
                         req->b_path, (unsigned long long)s->a_info.golden_total,
                         (unsigned long long)s->b_info.golden_total);
    sym = req->sym;
    sym.auto_pics = &s->a; /* --adjust-vma auto scores the first file's PCs */
    if ((rc = binary_symbolize_open(&s->z, &s->a_info, &sym)))
        return rc;
    /* the functions: for func, and to name instructions by a --symbols map */
    if (req->granularity != PICS_GRAN_FUNC && !req->binary_symbols_path)
        return TEA_OK;
    if ((rc = view_functions(req->binary_symbols_path, s->z, &s->syms, &from)))
        return rc;
    if (!from)
        return error_set(TEA_ERR_USAGE, "--granularity func needs --symbols MAP or a binary (--elf BINARY)");
    return TEA_OK;
}

static int run_diff(const diff_request *req)
{
    diff_state s = { .req = req };
    outfile *out = NULL;
    int rc;

    pics_info_init(&s.a_info);
    pics_info_init(&s.b_info);
    if ((rc = load(&s)) || (rc = compare(&s)) || (rc = outfile_open(&out, req->out_path)))
        goto done;
    if (req->format == DIFF_CSV)
        write_csv(outfile_stream(out), &s);
    else if (req->format == DIFF_JSON)
        write_json(outfile_stream(out), &s);
    else
        write_text(outfile_stream(out), &s);
    rc = outfile_commit(out);
done:
    free(s.cells);
    view_free(&s.v);
    trace_symmap_free(&s.syms);
    binary_symbolize_close(s.z);
    pics_info_free(&s.a_info);
    pics_info_free(&s.b_info);
    pics_free(&s.a);
    pics_free(&s.b);
    return rc;
}

int cmd_pics_diff(int argc, char **argv)
{
    static const char *const formats[] = { "text", "csv", "json", NULL };
    static const int format_values[] = { DIFF_TEXT, DIFF_CSV, DIFF_JSON };
    diff_request req = { .out_path = "-", .granularity = PICS_GRAN_INSN_COMPONENT, .format = DIFF_TEXT };
    int rc;
    const cli_option options[] = {
        CLI_UINT("top", "N", &req.top, 1, UINT64_MAX, "invalid count '%s' for --top (at least 1)",
                 "rows and instructions to list (default: " CLI_STR(DIFF_DEFAULT_TEXT_TOP) " in text, all in CSV\n"
                                                                                           "and JSON; at least 1)"),
        CLI_OPTION_GRANULARITY(&req.granularity, "insn-component (instruction x component, default), insn\n"
                                                 "(instruction, components summed) or func (function x\n"
                                                 "component; functions from --symbols, else from the binary)"),
        CLI_OPTION_SYMBOLS(&req.binary_symbols_path,
                           "symbol map: lines 'START END NAME' (END exclusive); instructions\n"
                           "are shown as NAME+0xOFFSET (it wins over the binary)"),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary to name instructions and functions with (default: the\n"
                                          "one the trace names, if it exists; else addresses)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&req.sym),
        CLI_OPTION_NO_DEMANGLE(&req.sym),
        CLI_ENUM("format", "FORMAT", &req.format, formats, format_values, "unknown format '%s' (text, csv or json)",
                 "text (default), csv or json"),
        CLI_OPTION_STDOUT_OUTPUT(&req.out_path),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(DIFF_SYNOPSIS, DIFF_EPILOGUE, 20, options);

    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (argc - optind != 2)
        return cli_usage_error(argv[0], "expected A.pics B.pics");
    req.a_path = argv[optind];
    req.b_path = argv[optind + 1];
    if ((rc = run_diff(&req)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
