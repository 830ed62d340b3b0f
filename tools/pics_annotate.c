/*
 * pics_annotate.c: `pics annotate`, one function's whole disassembly, every
 * instruction of its symbol's range whether it took time or not, each with
 * its cycles, share and cycle stack (like `perf annotate --stdio`), and with
 * --golden the golden cycles and each instruction's error contribution.
 */
#define _POSIX_C_SOURCE 200809L
#include "binary/symbolize.h"
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outfile.h"
#include "pics/error.h"
#include "trace/psv.h"
#include "view/report.h"
#include "view/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0
/* Functions of one name annotated at most (local functions of several
 * files or objects may share a name, a function may have clones). */
#define ANNOTATE_MAX_MATCHES 16
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

/* The source file --source read last and where its lines start. */
typedef struct source_file {
    char *path;                /* NULL before the first */
    char *text;                /* its bytes, NULL when unreadable */
    size_t *starts;            /* offset of each line in text */
    size_t lines;
} source_file;

typedef struct annotate_request {
    const char *path, *golden_path, *out_path, *symbol;
    const char *scheme; /* --scheme: a replay directory's PICS, or NULL */
    binary_symbolize_options sym;
} annotate_request;

/* Everything one run needs. */
typedef struct annotate_data {
    view_report_input in;
    binary_symbolizer *z;
    view v;                    /* by instruction, paired with the golden PICS when given */
    size_t at;                 /* the walk through a function: its next row */
    source_file src;           /* --source: the text of the lines */
} annotate_data;

static void source_file_free(source_file *c)
{
    free(c->path);
    free(c->text);
    free(c->starts);
    memset(c, 0, sizeof *c);
}

/* Reads `path` into the cache unless it is there (an unreadable or too large
 * file is remembered as having no text). Returns 0 or TEA_ERR_NOMEM. */
static int source_file_load(source_file *c, const char *path)
{
    FILE *f;
    long size;
    size_t lines = 1;

    if (c->path && strcmp(c->path, path) == 0)
        return TEA_OK;
    source_file_free(c);
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
static int print_source_text(FILE *f, source_file *c, const char *path, unsigned line)
{
    const char *start;
    size_t len;
    int rc;
    if ((rc = source_file_load(c, path)) || !c->text || line == 0 || line > c->lines)
        return rc;
    start = c->text + c->starts[line - 1];
    len = strcspn(start, "\r\n");
    fprintf(f, "%*s: %.*s\n", ANNOTATE_SOURCE_MARGIN, "", (int)len, start);
    return TEA_OK;
}

/* The sums of the rows in [start, end), in the PICS and the golden one. */
static void range_sum(const annotate_data *d, uint64_t start, uint64_t end, uint64_t *value, uint64_t *golden)
{
    *value = *golden = 0;
    for (size_t i = view_lower_bound(&d->v, start); i < d->v.row_count && d->v.rows[i].key < end; i++) {
        *value += d->v.rows[i].value;
        *golden += d->v.rows[i].golden;
    }
}

/* The row of exactly `pc`, advancing the walk past it; NULL when the walk
 * has no cell there. */
static const view_row *take_row(annotate_data *d, uint64_t pc)
{
    if (d->at < d->v.row_count && d->v.rows[d->at].key == pc)
        return &d->v.rows[d->at++];
    return NULL;
}

/* Rows the walk skipped before `pc`: PCs inside the function that are not
 * the start of a decoded instruction. Their values are added to *value and
 * *golden and their cells (each side's apart) counted in *count. */
static void skip_unaligned(annotate_data *d, uint64_t pc, uint64_t *value, uint64_t *golden, size_t *count)
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
static void print_instruction(FILE *f, annotate_data *d, uint64_t pc, const char *text, uint64_t fn_value,
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
static int annotate_function(FILE *f, annotate_data *d, const binary_symbols *s, const binary_symbols_function *fn)
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

/* Says on stderr what --symbol NAME found besides NAME in one object: the
 * GCC clones it matched, and the objects when several hold it (each
 * annotated). Nothing when it found NAME alone. */
static void note_matches(const char *command, const char *name, const binary_symbolize_match *m, size_t n)
{
    size_t clones = 0, objects = 0;
    for (size_t i = 0; i < n; i++) {
        clones += m[i].clone;
        objects += i == 0 || m[i].syms != m[i - 1].syms; /* matches come object by object */
    }
    if (clones) {
        fprintf(stderr, "%s: note: --symbol %s matched GCC's clone%s", command, name, clones > 1 ? "s" : "");
        for (size_t i = 0, k = 0; i < n; i++)
            if (m[i].clone)
                fprintf(stderr, "%s %s", k++ ? "," : "", m[i].function->name);
        fputc('\n', stderr);
    }
    if (objects > 1) {
        fprintf(stderr, "%s: note: --symbol %s is in %zu objects, each annotated:", command, name, objects);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || m[i].syms != m[i - 1].syms)
                fprintf(stderr, "%s %s", i ? "," : "", binary_symbols_path(m[i].syms));
        fputc('\n', stderr);
    }
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

static int run_annotate(const annotate_request *req)
{
    annotate_data d;
    binary_symbolize_match found[ANNOTATE_MAX_MATCHES];
    size_t matches = 0;
    outfile *out = NULL;
    const binary_symbols *s, *range_syms = NULL;
    binary_symbolize_options sym;
    binary_symbols_function range;
    char range_label[BINARY_SYMBOLIZE_TEXT_MAX];
    int rc, is_range = 0;

    memset(&d, 0, sizeof d);
    if ((rc = view_report_input_load(&d.in, req->path, req->golden_path)))
        return rc;
    sym = req->sym;

    sym.note_stripped = 1;
    if ((rc = view_report_symbolize(&d.z, &d.in.info.program, &d.in.info.objects, &d.in.p, &sym))) /* auto: the PCs shown */
        goto done;
    s = binary_symbolize_symbols(d.z);
    if (!s && !binary_symbolize_has_objects(d.z)) {
        rc = error_set(TEA_ERR_USAGE, "no binary to annotate: pass --elf BINARY%s%s%s",
                       d.in.info.program.binary_path ? " (the trace names " : "",
                       d.in.info.program.binary_path ? d.in.info.program.binary_path : "", d.in.info.program.binary_path ? ")" : "");
        goto done;
    }
    if (s && (rc = check_arch(s)))
        goto done;
    if ((rc = parse_range(req->symbol, d.z, &range, range_label, sizeof range_label)) < 0)
        goto done;
    is_range = rc;
    rc = TEA_OK;
    if (is_range && !(range_syms = binary_symbolize_symbols_at(d.z, range.start)) && !(range_syms = s)) {
        rc = error_set(TEA_ERR_USAGE, "--symbol %s: no object of the trace holds it; pass --elf BINARY", req->symbol);
        goto done;
    }
    if (is_range && (rc = check_arch(range_syms)))
        goto done;
    if (!is_range) {
        if ((rc = binary_symbolize_find(d.z, req->symbol, found, ANNOTATE_MAX_MATCHES, &matches)))
            goto done;
        if (matches > ANNOTATE_MAX_MATCHES) {
            fprintf(stderr, "%s: note: --symbol %s matched %zu functions: the first %d are annotated\n",
                    req->sym.command, req->symbol, matches, ANNOTATE_MAX_MATCHES);
            matches = ANNOTATE_MAX_MATCHES;
        }
        for (size_t i = 0; i < matches && rc == TEA_OK; i++)
            rc = check_arch(found[i].syms);
        if (rc)
            goto done;
        note_matches(req->sym.command, req->symbol, found, matches);
    }
    if (d.in.has_golden && (rc = pics_error_check(&d.in.g, PICS_GRAN_INSN_COMPONENT, NULL)))
        goto done;
    if ((rc = view_build(&d.v, &d.in.p, d.in.has_golden ? &d.in.g : NULL, PICS_GRAN_INSN_COMPONENT, NULL)))
        goto done;
    if ((rc = outfile_open(&out, req->out_path)))
        goto done;
    view_report_print_header(outfile_stream(out), "pics annotate", &d.in, d.z);
    if (d.in.has_golden)
        fprintf(outfile_stream(out), "# golden %s: error %.4f%% at insn-component granularity\n", req->golden_path,
                PERCENT * view_error(&d.v));
    if (is_range)
        rc = annotate_function(outfile_stream(out), &d, range_syms, &range);
    for (size_t i = 0; i < matches && rc == TEA_OK; i++)
        rc = annotate_function(outfile_stream(out), &d, found[i].syms, found[i].function);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_free(&d.v);
    source_file_free(&d.src);
    binary_symbolize_close(d.z);
    view_report_input_free(&d.in);
    return rc;
}

#define ANNOTATE_SYNOPSIS                                                                           \
    "Usage: pics annotate FILE.pics --symbol NAME [OPTIONS]\n\n"                                   \
    "A function's whole disassembly, every instruction of its symbol's range, each with its\n"     \
    "cycles, its share of the function's cycles and its cycle stack (like perf annotate).\n\n"     \
    "Options:\n"

int cmd_pics_annotate(int argc, char **argv)
{
    annotate_request req;
    int rc;
    const cli_option options[] = {
        CLI_STRING("symbol", 0, "NAME", &req.symbol, "the function (any of its aliases, mangled or not, and\n"
                                                     "GCC's clones of it, NAME.constprop.0 ..., in the binary\n"
                                                     "and every object the trace lists, each annotated; or an\n"
                                                     "address inside it; or 0xSTART-0xEND, a range of code,\n"
                                                     "for stripped binaries)"),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary (default: the one the trace names, if it exists)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&req.sym),
        CLI_OPTION_NO_DEMANGLE(&req.sym),
        CLI_OPTION_ADDRESSES(&req.sym),
        CLI_OPTION_REPLAY_SCHEME(&req.scheme),
        CLI_OPTION_GOLDEN(&req.golden_path, "the golden PICS of the same trace: golden cycles and stacks,\n"
                                            "each instruction's error contribution"),
        CLI_FLAG("source", 0, &req.sym.source, "source file:line (DWARF) where it changes, and the\n"
                                               "line's text when the file is readable"),
        CLI_OPTION_STDOUT_OUTPUT(&req.out_path),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(ANNOTATE_SYNOPSIS, NULL, 25, options);

    memset(&req, 0, sizeof req);
    req.out_path = "-";
    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing FILE.pics" : "expected exactly one FILE.pics");
    if (!req.symbol)
        return cli_usage_error(argv[0], "missing --symbol NAME");
    req.path = argv[optind];
    char *owned[2];
    if ((rc = cli_replay_dir_operand(argv[0], &req.path, req.scheme, &req.golden_path, owned))
        || (rc = run_annotate(&req)))
        rc = cli_fail(argv[0], rc);
    free(owned[0]);
    free(owned[1]);
    return rc;
}
