/*
 * report.c: what the report commands share (see report.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "view.h"
#include "common/error.h"
#include "common/exact.h"
#include "trace/psv.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0
/* The narrowest component column of a stack table. */
#define STACK_LABEL_MIN_WIDTH 16

/* How input_load reads a PICS. */
enum { LOAD_FLAT, LOAD_CONTEXTS, LOAD_ARRAY };

/* Reads one PICS as `how` says. */
static int load_one(const char *path, int how, pics_info *info, pics *p, pics **groups, pics_cell **cells, size_t *n)
{
    uint64_t total;
    switch (how) {
    case LOAD_ARRAY:
        return pics_read_array(path, info, p, cells, n, &total);
    case LOAD_CONTEXTS:
        return pics_read_contexts(path, info, p);
    default:
        return groups ? pics_read_groups(path, info, p, groups) : pics_read(path, info, p);
    }
}

/* view_report_input_load, and its _stacks and _array forms (`how`). */
static int input_load(view_report_input *in, const char *path, const char *golden_path, int how)
{
    int rc;

    TEA_ASSERT_ARG(in != NULL);
    TEA_ASSERT_ARG(path != NULL);
    memset(in, 0, sizeof *in);
    in->path = path;
    in->golden_path = golden_path;
    pics_info_init(&in->info);
    pics_info_init(&in->ginfo);
    if ((rc = load_one(path, how, &in->info, &in->p, &in->groups, &in->cells, &in->cell_count)))
        return rc;
    in->group_count = in->groups ? in->info.groups : 0;
    if (in->groups && !pics_info_is_golden(&in->info)) {
        /* a sampler's groups serve its error's interval (pics error), not its shares */
        pics_groups_free(in->groups, in->group_count);
        in->groups = NULL;
        in->group_count = 0;
    }
    if (golden_path) {
        if ((rc = load_one(golden_path, how, &in->ginfo, &in->g, NULL, &in->gcells, &in->gcell_count))) {
            view_report_input_free(in); /* nothing left to free twice */
            return rc;
        }
        in->has_golden = 1;
        if (!pics_info_is_golden(&in->ginfo))
            rc = error_set(TEA_ERR_USAGE, "%s is a %s PICS, not the golden one", golden_path, in->ginfo.scheme);
        else if (strcmp(in->info.trace_digest, in->ginfo.trace_digest) != 0)
            rc = error_set(TEA_ERR_USAGE, "%s and %s come from different traces (digest %s vs %s)", path, golden_path,
                           in->info.trace_digest[0] ? in->info.trace_digest : "-",
                           in->ginfo.trace_digest[0] ? in->ginfo.trace_digest : "-");
        else
            rc = pics_info_same_rules(&in->info, path, &in->ginfo, golden_path);
    } else if ((rc = pics_init(&in->g)) == TEA_OK) {
        in->ginfo = in->info;
        in->ginfo.program.binary_path = in->ginfo.program.build_id = NULL; /* not owned twice */
        memset(&in->ginfo.objects, 0, sizeof in->ginfo.objects);
    }
    if (rc)
        view_report_input_free(in);
    return rc;
}

int view_report_input_load(view_report_input *in, const char *path, const char *golden_path)
{
    return input_load(in, path, golden_path, LOAD_FLAT);
}

int view_report_input_load_stacks(view_report_input *in, const char *path, const char *golden_path)
{
    return input_load(in, path, golden_path, LOAD_CONTEXTS);
}

int view_report_input_load_array(view_report_input *in, const char *path, const char *golden_path)
{
    return input_load(in, path, golden_path, LOAD_ARRAY);
}

int view_report_symbolize(binary_symbolizer **z, const trace_program *program, const trace_object_list *objects,
                          const pics *shown, const binary_symbolize_options *opts)
{
    static const uint64_t no_pcs[1]; /* an empty PICS: no PCs to score (the guess says so) */
    binary_symbolize_options o = *opts;
    uint64_t *pcs = NULL;
    int rc;

    if (o.adjust_vma_auto && !o.auto_pcs && shown) {
        if ((rc = pics_distinct_pcs(shown, &pcs, &o.auto_pc_count)))
            return rc;
        o.auto_pcs = pcs ? pcs : no_pcs;
    }
    rc = binary_symbolize_open(z, program, objects, &o);
    free(pcs);
    return rc;
}

int view_report_functions(const char *symbols_path, const trace_program *program, const trace_object_list *objects,
                          const pics *shown, const binary_symbolize_options *opts, trace_symmap *out, char **from,
                          binary_symbolizer **z)
{
    binary_symbolizer *opened = NULL;
    const char *source = NULL;
    int rc = TEA_OK;

    memset(out, 0, sizeof *out);
    *from = NULL;
    if (z)
        *z = NULL;
    if (!symbols_path || opts->elf_path)
        rc = view_report_symbolize(&opened, program, objects, shown, opts);
    if (!rc)
        rc = view_functions(symbols_path, opened, out, &source);
    if (!rc && source && !(*from = strdup(source)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    if (rc) {
        trace_symmap_free(out);
        binary_symbolize_close(opened);
        return rc;
    }
    if (z)
        *z = opened;
    else
        binary_symbolize_close(opened);
    return TEA_OK;
}

void view_report_input_free(view_report_input *in)
{
    pics_info_free(&in->info);
    if (in->has_golden)
        pics_info_free(&in->ginfo);
    pics_free(&in->p);
    pics_free(&in->g);
    pics_groups_free(in->groups, in->group_count);
    free(in->cells);
    free(in->gcells);
    memset(in, 0, sizeof *in);
}

void view_report_cycles_text(const view_report_input *in, int golden, uint64_t value, int digits, char *buf,
                               size_t size)
{
    if (golden)
        pics_format_cycles(&in->ginfo, in->g.total, value, digits, buf, size);
    else
        pics_format_cycles(&in->info, in->p.total, value, digits, buf, size);
}

double view_report_cycles(const view_report_input *in, int golden, uint64_t value)
{
    return golden ? pics_value_cycles(&in->ginfo, in->g.total, value)
                  : pics_value_cycles(&in->info, in->p.total, value);
}

double view_report_share(const view_report_input *in, int golden, uint64_t value)
{
    uint64_t total = golden ? in->g.total : in->p.total;
    return total ? (double)value / (double)total : 0.0;
}

/* The total cycles the PICS stands for: the golden total. */
static void total_text(const view_report_input *in, int digits, char *buf, size_t size)
{
    pics_info golden_view = in->info;
    golden_view.program.binary_path = golden_view.program.build_id = NULL;
    memset(&golden_view.objects, 0, sizeof golden_view.objects);
    snprintf(golden_view.scheme, sizeof golden_view.scheme, "golden");
    pics_format_cycles(&golden_view, in->info.golden_total, in->info.golden_total, digits, buf, size);
}

void view_report_print_header(FILE *f, const char *command, const view_report_input *in, const binary_symbolizer *z)
{
    const pics_info *i = &in->info;
    char total[VIEW_REPORT_NUMBER_MAX];
    const char *binary = binary_symbolize_binary(z);

    fprintf(f, "# %s of %s\n", command, in->path);
    fprintf(f, "# trace %s: %s, cycles %" PRIu64 "-%" PRIu64 ", %" PRIu64 " records\n",
            i->trace_digest[0] ? i->trace_digest : "-", i->program.arch[0] ? i->program.arch : "unknown architecture",
            i->trace_first_cycle, i->trace_last_cycle, i->trace_records);
    if (binary) {
        const binary_symbols *s = binary_symbolize_symbols(z);
        const char *id = binary_symbols_build_id(s);
        fprintf(f, "# binary %s (build-id %s, load bias 0x%" PRIx64 ", symbols from %s)\n", binary, id ? id : "none",
                binary_symbols_bias(s), binary_symbols_table(s) ? binary_symbols_table(s) : "nowhere: stripped");
        if (binary_symbols_debug_file(s))
            fprintf(f, "# debug file %s\n", binary_symbols_debug_file(s));
    } else {
        fprintf(f, "# binary: none (%s), PCs shown as addresses\n",
                i->program.binary_path ? i->program.binary_path : "the trace names no binary");
    }
    if (i->objects.threads_seen != TRACE_THREAD_UNKNOWN)
        fprintf(f, "# thread %" PRIu32 " recorded (%" PRIu32 " in the program)\n", i->objects.tid,
                i->objects.threads_seen);
    for (size_t k = 0; k < i->objects.count; k++) {
        const trace_object *o = &i->objects.items[k];
        char hex[2 * TRACE_BUILD_ID_MAX + 1];
        trace_object_build_id_hex(o, hex, sizeof hex);
        fprintf(f, "# object %s: 0x%" PRIx64 "-0x%" PRIx64 ", load bias 0x%" PRIx64 ", build-id %s\n", o->path,
                o->start, o->end, o->load_bias, hex[0] ? hex : "none");
    }
    if (pics_info_is_golden(i)) {
        fprintf(f, "# scheme golden: the exact reference\n");
    } else {
        fprintf(f, "# scheme %s at %.10g Hz (period %" PRIu64 " cycles), jitter %s, events %s (mask 0x%03x), seed %" PRIu64
                   "\n",
                i->scheme, i->frequency_hz, i->period, i->jitter[0] ? i->jitter : "-", i->events[0] ? i->events : "-",
                i->event_mask, i->seed);
        fprintf(f, "# samples %" PRIu64 ", lost %" PRIu64 " (", i->samples, pics_info_lost(i));
        for (int r = 0; r < PICS_LOST_REASONS; r++)
            fprintf(f, "%s%s %" PRIu64, r ? ", " : "", pics_lost_name((enum pics_lost_reason)r), i->lost[r]);
        fprintf(f, ")\n");
    }
    total_text(in, VIEW_REPORT_TEXT_DIGITS, total, sizeof total);
    fprintf(f, "# total %s cycles\n", total);
}

void view_report_print_stack(FILE *f, const view_report_input *in, pics_granularity g, const pics_pair *c, size_t n,
                             int indent)
{
    uint64_t sum = 0, gsum = 0;
    char label[TRACE_PSV_LABEL_MAX], cycles[VIEW_REPORT_NUMBER_MAX], golden[VIEW_REPORT_NUMBER_MAX];
    int width = STACK_LABEL_MIN_WIDTH;

    for (size_t k = 0; k < n; k++) {
        int len = (int)strlen(view_component_label(g, c[k].psv, label, sizeof label));
        sum += c[k].a;
        gsum += c[k].b;
        if (len > width)
            width = len;
    }
    if (in->has_golden)
        fprintf(f, "%*s%-*s %14s %8s | %14s %8s\n", indent, "", width, "component", "cycles", "share", "golden",
                "share");
    for (size_t k = 0; k < n; k++) {
        view_component_label(g, c[k].psv, label, sizeof label);
        view_report_cycles_text(in, 0, c[k].a, VIEW_REPORT_TEXT_DIGITS, cycles, sizeof cycles);
        fprintf(f, "%*s%-*s %14s %7.2f%%", indent, "", width, label, cycles,
                sum ? PERCENT * (double)c[k].a / (double)sum : 0.0);
        if (in->has_golden) {
            view_report_cycles_text(in, 1, c[k].b, VIEW_REPORT_TEXT_DIGITS, golden, sizeof golden);
            fprintf(f, " | %14s %7.2f%%", golden, gsum ? PERCENT * (double)c[k].b / (double)gsum : 0.0);
        }
        fputc('\n', f);
    }
}

/* A row of a run of one PC and PSV, by its canonical context, then by
 * its place (qsort). */
typedef struct folded_key {
    uint32_t canon;
    size_t row;
} folded_key;

static int compare_folded_keys(const void *a, const void *b)
{
    const folded_key *x = a, *y = b;
    if (x->canon != y->canon)
        return x->canon < y->canon ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

int view_report_folded_merge(view_report_folded *rows, size_t *n, const uint32_t *canon)
{
    folded_key *keys;
    size_t kept = 0;
    uint64_t before = 0, after = 0;

    if (!canon || *n < 2)
        return TEA_OK;
    if (!(keys = malloc(*n * sizeof *keys)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < *n; i++)
        before += rows[i].weight;
    for (size_t i = 0; i < *n;) {
        size_t j = i;
        while (j < *n && rows[j].pc == rows[i].pc && rows[j].psv == rows[i].psv)
            j++;
        if (j - i > 1) { /* cells sort by (pc, psv, ctx): one instruction's contexts are a run */
            for (size_t k = i; k < j; k++)
                keys[k - i] = (folded_key){ canon[rows[k].ctx], k };
            qsort(keys, j - i, sizeof *keys, compare_folded_keys);
            for (size_t a = 0, b; a < j - i; a = b) {
                for (b = a + 1; b < j - i && keys[b].canon == keys[a].canon; b++) {
                    rows[keys[a].row].weight += rows[keys[b].row].weight;
                    rows[keys[b].row].weight = 0; /* merged into the group's first */
                }
            }
        }
        i = j;
    }
    for (size_t i = 0; i < *n; i++)
        if (rows[i].weight)
            rows[kept++] = rows[i];
    for (size_t i = 0; i < kept; i++)
        after += rows[i].weight;
    assert(after == before); /* merging moves weight, never loses it */
    (void)after;
    (void)before;
    *n = kept;
    free(keys);
    return TEA_OK;
}

int view_report_folded_cells(const view_report_input *in, view_report_folded **out, size_t *n)
{
    const pics_info *info = &in->info;
    uint64_t unit = info->unit ? info->unit : PICS_UNIT;
    pics_cell *cells = NULL;
    uint64_t *weights = NULL;
    view_report_folded *rows = NULL;
    size_t count = 0, kept = 0;
    exact_u128 target, folded = 0;
    int rc;

    *out = NULL;
    *n = 0;
    if ((rc = pics_sorted(&in->p, &cells, &count)))
        return rc;
    if (count == 0 || in->p.total == 0)
        goto done;
    if (!(weights = malloc(count * sizeof *weights)) || !(rows = malloc(count * sizeof *rows))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the total's cycles, rounded: golden, total / unit; sampled, the golden total's */
    target = pics_info_is_golden(info) ? ((exact_u128)in->p.total + unit / 2) / unit
                                       : ((exact_u128)info->golden_total + unit / 2) / unit;
    pics_whole_cycles(info, in->p.total, cells, count, weights);
    for (size_t i = 0; i < count; i++) {
        folded += weights[i];
        if (weights[i])
            rows[kept++] = (view_report_folded){ cells[i].pc, cells[i].psv, cells[i].ctx, weights[i] };
    }
    /* rounded cumulatively, the cells sum to the total rounded (pics_whole_cycles) */
    assert(folded == target);
    (void)folded; /* unused when NDEBUG compiles the assertion out */
    (void)target;
    if (kept) {
        *out = rows;
        *n = kept;
        rows = NULL;
    }
done:
    free(rows);
    free(weights);
    free(cells);
    return rc;
}

/* --- names in text tables -------------------------------------------------------- */

#define FIT_TEMPLATE "<...>"
#define FIT_PARAMETERS "(...)"
#define FIT_CUT "..."
/* The C++ operators whose names hold '<', '>' or '(' ("operator<<",
 * "operator->", "operator()"), which are no brackets. */
#define OPERATOR_WORD "operator"

/* Length of the operator symbol after "operator" at `p` (the characters
 * that would otherwise read as brackets), 0 when there is none. */
static size_t operator_symbol(const char *p)
{
    static const char *const ops[] = { "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "->", "()", "<", ">" };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strncmp(p, ops[i], strlen(ops[i])) == 0)
            return strlen(ops[i]);
    return 0;
}

/* Copies `in` to `out` (at most size - 1 bytes), each outermost bracketed
 * group opened by `open` (and closed by `close`) replaced by `with`; with
 * `last_only`, only the last such group. Returns the length written. */
static size_t collapse(const char *in, char open, char close, const char *with, int last_only, char *out,
                       size_t size)
{
    size_t n = 0, len = strlen(in), last_open = SIZE_MAX;
    int depth = 0;

    if (last_only) {
        /* the last outermost group: found by a first pass */
        for (size_t i = 0; i < len; i++) {
            if (strncmp(in + i, OPERATOR_WORD, sizeof OPERATOR_WORD - 1) == 0) {
                i += sizeof OPERATOR_WORD - 1 + operator_symbol(in + i + sizeof OPERATOR_WORD - 1) - 1;
                continue;
            }
            if (in[i] == open && depth++ == 0)
                last_open = i;
            else if (in[i] == close && depth > 0)
                depth--;
        }
        depth = 0;
    }
    for (size_t i = 0; i < len && n + 1 < size; i++) {
        size_t op;
        if (strncmp(in + i, OPERATOR_WORD, sizeof OPERATOR_WORD - 1) == 0) {
            op = sizeof OPERATOR_WORD - 1 + operator_symbol(in + i + sizeof OPERATOR_WORD - 1);
            for (size_t k = 0; k < op && n + 1 < size && depth == 0; k++)
                out[n++] = in[i + k];
            i += op - 1;
            continue;
        }
        if (in[i] == open && (depth > 0 || !last_only || i == last_open)) {
            if (depth++ == 0)
                for (const char *w = with; *w && n + 1 < size; w++)
                    out[n++] = *w;
            continue;
        }
        if (depth > 0) {
            depth -= in[i] == close;
            continue;
        }
        out[n++] = in[i];
    }
    assert(n < size); /* room was kept for the NUL */
    out[n] = '\0';
    return n;
}

char *view_report_fit(const char *text, size_t width, char *out, size_t size)
{
    char a[VIEW_REPORT_NAME_MAX], b[VIEW_REPORT_NAME_MAX];
    size_t len;

    assert(size > 0);
    snprintf(a, sizeof a, "%s", text);
    if (strlen(a) > width) {
        collapse(a, '<', '>', FIT_TEMPLATE, 0, b, sizeof b);
        snprintf(a, sizeof a, "%s", b);
    }
    if (strlen(a) > width) {
        collapse(a, '(', ')', FIT_PARAMETERS, 1, b, sizeof b);
        snprintf(a, sizeof a, "%s", b);
    }
    len = strlen(a);
    if (len > width && width > sizeof FIT_CUT - 1)
        snprintf(out, size, "%s%s", FIT_CUT, a + len - (width - (sizeof FIT_CUT - 1)));
    else
        snprintf(out, size, "%s", a);
    return out;
}
