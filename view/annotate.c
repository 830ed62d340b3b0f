/*
 * annotate.c: `pics annotate` as a view (annotate.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "annotate.h"
#include "common/error.h"
#include "pics/error.h"
#include "trace/psv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0
/* The step over bytes that are no instruction, per architecture: the
 * instruction alignment. */
#define STEP_X86_64 1
#define STEP_RISCV64 2 /* compressed instructions */
#define STEP_AARCH64 4
/* Indentation of a stack table under its instruction. */
#define ANNOTATE_STACK_INDENT 14
/* Width of the margin before source lines. */
#define ANNOTATE_SOURCE_MARGIN 28
/* The longest address range --symbol 0xSTART-0xEND may annotate. */
#define ANNOTATE_RANGE_MAX (1u << 20)
/* Source files larger than this are not read for --source text. */
#define ANNOTATE_SOURCE_MAX_BYTES (64u << 20)

static void source_free(view_annotate_source *c)
{
    free(c->path);
    free(c->text);
    free(c->starts);
    memset(c, 0, sizeof *c);
}

/* Reads `path` into the cache unless it is there (an unreadable or too large
 * file is remembered as having no text). Returns 0 or TEA_ERR_NOMEM. */
static int source_load(view_annotate_source *c, const char *path)
{
    FILE *f;
    long size;
    size_t lines = 1;

    if (c->path && strcmp(c->path, path) == 0)
        return TEA_OK;
    source_free(c);
    if (!(c->path = strdup(path)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (!(f = fopen(path, "rb")))
        return TEA_OK;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && (unsigned long)size <= ANNOTATE_SOURCE_MAX_BYTES
        && fseek(f, 0, SEEK_SET) == 0 && (c->text = malloc((size_t)size + 1))) {
        if (fread(c->text, 1, (size_t)size, f) != (size_t)size) {
            free(c->text);
            c->text = NULL;
        } else {
            c->text[size] = '\0';
            for (long i = 0; i < size; i++)
                lines += c->text[i] == '\n';
            if ((c->starts = malloc(lines * sizeof *c->starts))) {
                c->starts[c->lines++] = 0;
                for (long i = 0; i < size; i++)
                    if (c->text[i] == '\n' && i + 1 < size)
                        c->starts[c->lines++] = (size_t)i + 1;
            }
        }
    }
    fclose(f);
    if (c->text && !c->starts) {
        free(c->text);
        c->text = NULL;
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    return TEA_OK;
}

/* Prints the text of line `line` (1-based) of `path` under its FILE:LINE,
 * when the file is readable and has that line. */
static int print_source_text(FILE *f, view_annotate_source *c, const char *path, unsigned line)
{
    const char *start;
    size_t len;
    int rc;
    if ((rc = source_load(c, path)) || !c->text || line == 0 || line > c->lines)
        return rc;
    start = c->text + c->starts[line - 1];
    len = strcspn(start, "\r\n");
    fprintf(f, "%*s: %.*s\n", ANNOTATE_SOURCE_MARGIN, "", (int)len, start);
    return TEA_OK;
}

/* The sums of the rows in [start, end), in the PICS and the golden one. */
static void range_sum(const view_annotate *d, uint64_t start, uint64_t end, uint64_t *value, uint64_t *golden)
{
    *value = *golden = 0;
    for (size_t i = view_lower_bound(&d->v, start); i < d->v.row_count && d->v.rows[i].key < end; i++) {
        *value += d->v.rows[i].value;
        *golden += d->v.rows[i].golden;
    }
}

/* The row of exactly `pc`, advancing the walk past it; NULL when the walk
 * has no cell there. */
static const view_row *take_row(view_annotate *d, uint64_t pc)
{
    if (d->at < d->v.row_count && d->v.rows[d->at].key == pc)
        return &d->v.rows[d->at++];
    return NULL;
}

/* Rows the walk skipped before `pc`: PCs inside the function that are not
 * the start of a decoded instruction. Their values are added to *value and
 * *golden and their cells (each side's apart) counted in *count. */
static void skip_unaligned(view_annotate *d, uint64_t pc, uint64_t *value, uint64_t *golden, size_t *count)
{
    for (; d->at < d->v.row_count && d->v.rows[d->at].key < pc; d->at++) {
        const view_row *r = &d->v.rows[d->at];
        *value += r->value;
        *golden += r->golden;
        for (size_t k = r->first; k < r->first + r->count; k++)
            *count += (d->v.cells[k].a != 0) + (d->v.cells[k].b != 0);
    }
}

static unsigned step_of(const char *arch)
{
    if (arch && strcmp(arch, "riscv64") == 0)
        return STEP_RISCV64;
    if (arch && strcmp(arch, "aarch64") == 0)
        return STEP_AARCH64;
    return STEP_X86_64;
}

/* Prints one instruction line. A stack of one component (on both sides) is
 * named at the end of the line; a stack of several follows as a table. */
static void print_instruction(FILE *f, view_annotate *d, uint64_t pc, const char *text, uint64_t fn_value,
                              const view_row *row)
{
    uint64_t value = row ? row->value : 0, golden = row ? row->golden : 0;
    const pics_pair *comps = row ? &d->v.cells[row->first] : NULL;
    size_t n = row ? row->count : 0;
    char cycles[VIEW_REPORT_NUMBER_MAX], gcycles[VIEW_REPORT_NUMBER_MAX], label[TRACE_PSV_LABEL_MAX];
    view_report_cycles_text(&d->in, 0, value, VIEW_REPORT_TEXT_DIGITS, cycles, sizeof cycles);
    fprintf(f, "  %8.2f%% %14s", fn_value ? PERCENT * (double)value / (double)fn_value : 0.0, cycles);
    if (d->in.has_golden) {
        view_report_cycles_text(&d->in, 1, golden, VIEW_REPORT_TEXT_DIGITS, gcycles, sizeof gcycles);
        fprintf(f, " %14s %8.4f%%", gcycles, PERCENT * (row ? view_contribution(&d->v, row) : 0.0));
    }
    if (n == 1)
        fprintf(f, "  0x%-14" PRIx64 " %-44s %s\n", binary_symbolize_address(d->z, pc), text,
                trace_psv_label(comps[0].psv, label, sizeof label));
    else
        fprintf(f, "  0x%-14" PRIx64 " %s\n", binary_symbolize_address(d->z, pc), text);
    if (n > 1)
        view_report_print_stack(f, &d->in, d->v.granularity, comps, n, ANNOTATE_STACK_INDENT);
}

/* Annotates one function of the object whose symbols are `s`. */
static int annotate_function(FILE *f, view_annotate *d, const binary_symbols *s, const binary_symbols_function *fn)
{
    uint64_t fn_value, fn_golden, odd_value = 0, odd_golden = 0;
    unsigned step = step_of(binary_symbols_arch(s));
    size_t instructions = 0, odd = 0, bad = 0;
    char cycles[VIEW_REPORT_NUMBER_MAX], previous_source[BINARY_SYMBOLIZE_TEXT_MAX] = "";
    int rc = TEA_OK;

    range_sum(d, fn->start, fn->end, &fn_value, &fn_golden);
    view_report_cycles_text(&d->in, 0, fn_value, VIEW_REPORT_TEXT_DIGITS, cycles, sizeof cycles);
    fprintf(f, "#\n# %s", fn->name);
    if (binary_symbolize_has_objects(d->z)) /* which of the trace's objects, as the report's column does */
        fprintf(f, " in %s", binary_symbols_path(s));
    fprintf(f, ": 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes), %s cycles, %.2f%% of the total\n",
            binary_symbolize_address(d->z, fn->start),
            binary_symbolize_address(d->z, fn->start) + (fn->end - fn->start), fn->end - fn->start, cycles,
            PERCENT * view_report_share(&d->in, 0, fn_value));
    if (d->in.has_golden) {
        view_report_cycles_text(&d->in, 1, fn_golden, VIEW_REPORT_TEXT_DIGITS, cycles, sizeof cycles);
        fprintf(f, "# golden: %s cycles, %.2f%% of the total\n", cycles,
                PERCENT * view_report_share(&d->in, 1, fn_golden));
    }
    fprintf(f, "# shares are of the function's cycles%s\n#\n",
            d->in.has_golden ? "; Error: the instruction's contribution to the error" : "");
    fprintf(f, "# %9s %14s", "Share", "Cycles");
    if (d->in.has_golden)
        fprintf(f, " %14s %9s", "Golden", "Error");
    fprintf(f, "  %-16s %-44s %s\n", "Address", "Disassembly", "Component");
    d->at = view_lower_bound(&d->v, fn->start);
    for (uint64_t pc = fn->start; pc < fn->end && pc >= fn->start;) {
        char text[BINARY_SYMBOLIZE_TEXT_MAX], source[BINARY_SYMBOLIZE_TEXT_MAX];
        unsigned size = 0;
        skip_unaligned(d, pc, &odd_value, &odd_golden, &odd);
        if ((rc = binary_symbolize_source(d->z, pc, source, sizeof source)) < 0)
            break;
        rc = TEA_OK;
        if (source[0] && strcmp(source, previous_source) != 0) {
            char *colon = strrchr(source, ':');
            fprintf(f, "%*s: %s\n", ANNOTATE_SOURCE_MARGIN, "", source);
            snprintf(previous_source, sizeof previous_source, "%s", source);
            if (colon) {
                *colon = '\0';
                if ((rc = print_source_text(f, &d->src, source, (unsigned)strtoul(colon + 1, NULL, 10))))
                    break;
            }
        }
        if (binary_symbolize_disasm(d->z, pc, text, sizeof text, &size)) {
            const uint8_t *bytes;
            size_t avail;
            if (binary_symbols_read(s, pc, &bytes, &avail)) {
                /* the rest of the range has no contents in the file */
                fprintf(f, "# the function's bytes end at 0x%" PRIx64 ": %s\n", pc, error_message());
                error_clear();
                break;
            }
            snprintf(text, sizeof text, "(bad) .byte 0x%02x", bytes[0]);
            size = step;
            bad++;
        }
        error_clear();
        print_instruction(f, d, pc, text, fn_value, take_row(d, pc));
        instructions++;
        pc += size;
    }
    skip_unaligned(d, fn->end, &odd_value, &odd_golden, &odd);
    fprintf(f, "#\n# %zu instructions", instructions);
    if (bad)
        fprintf(f, ", %zu stretches of bytes that are no instruction", bad);
    fprintf(f, "\n");
    if (odd) {
        view_report_cycles_text(&d->in, 0, odd_value, VIEW_REPORT_TEXT_DIGITS, cycles, sizeof cycles);
        fprintf(f, "# warning: %zu cells at PCs that are not instruction starts hold %s cycles", odd, cycles);
        if (d->in.has_golden) {
            view_report_cycles_text(&d->in, 1, odd_golden, VIEW_REPORT_TEXT_DIGITS, cycles, sizeof cycles);
            fprintf(f, " (golden %s)", cycles);
        }
        fprintf(f, ": wrong binary or bias?\n");
    }
    return rc;
}

/* --symbol 0xSTART-0xEND: the range [START, END) (addresses as --addresses
 * shows them) as a function of its own named `label`, for stripped code.
 * Returns 1 when `name` is such a range, 0 when it is not, TEA_ERR_USAGE for
 * an empty, reversed or too long one. */
static int parse_range(const char *name, const binary_symbolizer *z, binary_symbols_function *out, char *label,
                       size_t size)
{
    const char *dash = strchr(name + 1, '-');
    char first[BINARY_SYMBOLIZE_TEXT_MAX];
    uint64_t start, end;

    if (name[0] == '-' || !dash || (size_t)(dash - name) >= sizeof first)
        return 0;
    snprintf(first, sizeof first, "%.*s", (int)(dash - name), name);
    if (binary_symbolize_parse_offset(first, &start) || dash[1] == '-' || binary_symbolize_parse_offset(dash + 1, &end))
        return 0;
    if (end <= start || end - start > ANNOTATE_RANGE_MAX)
        return error_set(TEA_ERR_USAGE,
                         "--symbol %s: the range must end after it starts and span at most %u "
                         "bytes",
                         name, ANNOTATE_RANGE_MAX);
    snprintf(label, size, "0x%" PRIx64 "-0x%" PRIx64, start, end);
    out->start = binary_symbolize_pc_of(z, start);
    out->end = out->start + (end - start);
    out->elf_start = start;
    out->name = label;
    return 1;
}

/* TEA_ERR_UNSUPPORTED when the object `s` is of an architecture the
 * disassembler does not know. */
static int check_arch(const binary_symbols *s)
{
    if (binary_symbols_arch(s))
        return TEA_OK;
    return error_set(TEA_ERR_UNSUPPORTED, "%s: cannot disassemble its architecture (x86_64, aarch64 and riscv64 only)",
                     binary_symbols_path(s));
}

/* Says on `f` what --symbol NAME found besides NAME in one object: the
 * GCC clones it matched, and the objects when several hold it (each
 * annotated). Nothing when it found NAME alone. */
static void note_matches(FILE *f, const char *command, const char *name, const binary_symbolize_match *m, size_t n)
{
    size_t clones = 0, objects = 0;
    for (size_t i = 0; i < n; i++) {
        clones += m[i].clone;
        objects += i == 0 || m[i].syms != m[i - 1].syms; /* matches come object by object */
    }
    if (clones) {
        fprintf(f, "%s: note: --symbol %s matched GCC's clone%s", command, name, clones > 1 ? "s" : "");
        for (size_t i = 0, k = 0; i < n; i++)
            if (m[i].clone)
                fprintf(f, "%s %s", k++ ? "," : "", m[i].function->name);
        fputc('\n', f);
    }
    if (objects > 1) {
        fprintf(f, "%s: note: --symbol %s is in %zu objects, each annotated:", command, name, objects);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || m[i].syms != m[i - 1].syms)
                fprintf(f, "%s %s", i ? "," : "", binary_symbols_path(m[i].syms));
        fputc('\n', f);
    }
}

/* What --symbol designates, into a->range or a->found. */
static int find_symbol(view_annotate *a, const char *symbol, const char *command, FILE *notes)
{
    const binary_symbols *s = binary_symbolize_symbols(a->z);
    int rc;

    if (s && (rc = check_arch(s)))
        return rc;
    if ((rc = parse_range(symbol, a->z, &a->range, a->range_label, sizeof a->range_label)) < 0)
        return rc;
    a->is_range = rc;
    if (a->is_range) {
        if (!(a->range_syms = binary_symbolize_symbols_at(a->z, a->range.start)) && !(a->range_syms = s))
            return error_set(TEA_ERR_USAGE, "--symbol %s: no object of the trace holds it; pass --elf BINARY", symbol);
        return check_arch(a->range_syms);
    }
    if ((rc = binary_symbolize_find(a->z, symbol, a->found, VIEW_ANNOTATE_MAX_MATCHES, &a->matches)))
        return rc;
    if (notes && a->matches > VIEW_ANNOTATE_MAX_MATCHES)
        fprintf(notes, "%s: note: --symbol %s matched %zu functions: the first %d are annotated\n", command, symbol,
                a->matches, VIEW_ANNOTATE_MAX_MATCHES);
    for (size_t i = 0; i < view_annotate_count(a); i++)
        if ((rc = check_arch(a->found[i].syms)))
            return rc;
    if (notes)
        note_matches(notes, command, symbol, a->found, view_annotate_count(a));
    return TEA_OK;
}

int view_annotate_open(view_annotate *a, const char *path, const char *golden_path, const char *symbol,
                       const binary_symbolize_options *opts, FILE *notes)
{
    binary_symbolize_options sym = *opts;
    int rc;

    memset(a, 0, sizeof *a);
    if ((rc = view_report_input_load(&a->in, path, golden_path)))
        return rc;
    sym.note_stripped = 1;
    /* --adjust-vma auto: the PCs shown */
    if ((rc = view_report_symbolize(&a->z, &a->in.info.program, &a->in.info.objects, &a->in.p, &sym)))
        return rc;
    if (!binary_symbolize_symbols(a->z) && !binary_symbolize_has_objects(a->z)) {
        const char *binary = a->in.info.program.binary_path;
        return error_set(TEA_ERR_USAGE, "no binary to annotate: pass --elf BINARY%s%s%s", binary ? " (the trace names " : "",
                         binary ? binary : "", binary ? ")" : "");
    }
    if ((rc = find_symbol(a, symbol, opts->command, notes)))
        return rc;
    if (a->in.has_golden && (rc = pics_error_check(&a->in.g, PICS_GRAN_INSN_COMPONENT, NULL)))
        return rc;
    return view_build(&a->v, &a->in.p, a->in.has_golden ? &a->in.g : NULL, PICS_GRAN_INSN_COMPONENT, NULL);
}

void view_annotate_close(view_annotate *a)
{
    view_free(&a->v);
    source_free(&a->src);
    binary_symbolize_close(a->z);
    view_report_input_free(&a->in);
    memset(a, 0, sizeof *a);
}

size_t view_annotate_count(const view_annotate *a)
{
    if (a->is_range)
        return 1;
    return a->matches < VIEW_ANNOTATE_MAX_MATCHES ? a->matches : VIEW_ANNOTATE_MAX_MATCHES;
}

int view_annotate_write(FILE *f, view_annotate *a, size_t i)
{
    if (a->is_range)
        return annotate_function(f, a, a->range_syms, &a->range);
    return annotate_function(f, a, a->found[i].syms, a->found[i].function);
}
