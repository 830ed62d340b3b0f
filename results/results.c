/*
 * results.c: reading and writing results CSVs (see results.h).
 */
#define _GNU_SOURCE /* strverscmp */
#include "results.h"
#include "common/csv.h"
#include "common/error.h"
#include "common/search.h"
#include "common/textline.h"
#include "pics/scheme.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RESULTS_TRACE_COMMENT "# trace "
#define RESULTS_DIGEST_KEY "digest "
#define RESULTS_DIGEST_LEN 16
#define LINE_MESSAGE_MAX 512 /* longest message about one line */
#define FIELD_QUOTE_MAX 24   /* characters of a bad field quoted in a message */

/* The columns the reader knows. */
enum {
    COL_TRACE = 0,
    COL_SCHEME,
    COL_FREQ,
    COL_SEED,
    COL_SAMPLES,
    COL_LOST,
    COL_ERROR_INSN_COMPONENT,
    COL_ERROR_INSN,
    COL_ERROR_FUNC,
    COL_DIGEST,
    COL_CYCLES,
    COL_RECORDS,
    COL_FLOOR_INSN_COMPONENT,
    COL_FLOOR_INSN,
    COL_FLOOR_FUNC,
    COL_RULES,
    COL_ERROR_LOW,
    COL_ERROR_HIGH,
    COL_RUN_CYCLES,
    COL_RUN_CYCLES_LOW,
    COL_RUN_CYCLES_HIGH,
    COL_RUN_INSTRUCTIONS,
    COL_SAMPLES_TARGET,
    COL_KNOWN,
    COL_REQUIRED = COL_SEED + 1 /* trace, scheme, freq_hz and seed must be there */
};

static const char *const column_names[COL_KNOWN] = {
    "trace", "scheme", "freq_hz", "seed", "samples", "lost", "error_insn_component", "error_insn", "error_func", "digest", "cycles", "records",
    "noise_floor_insn_component", "noise_floor_insn", "noise_floor_func", "rules", "error_ci95_low", "error_ci95_high",
    "run_cycles", "run_cycles_ci95_low", "run_cycles_ci95_high", "run_instructions", "samples_target",
};

void results_init(results_set *s)
{
    memset(s, 0, sizeof *s);
}

static void row_free(results_row *r)
{
    free(r->trace);
    free(r->scheme);
    free(r->digest);
    r->trace = r->scheme = r->digest = NULL;
}

void results_free(results_set *s)
{
    for (size_t i = 0; i < s->count; i++)
        row_free(&s->rows[i]);
    for (size_t i = 0; i < s->file_count; i++)
        free(s->files[i]);
    free(s->rows);
    free(s->files);
    results_init(s);
}

const char *results_error_column(pics_granularity g)
{
    return (unsigned)g < RESULTS_GRANULARITIES ? column_names[COL_ERROR_INSN_COMPONENT + g] : "?";
}

const char *results_floor_column(pics_granularity g)
{
    return (unsigned)g < RESULTS_GRANULARITIES ? column_names[COL_FLOOR_INSN_COMPONENT + g] : "?";
}

/* --- reading --------------------------------------------------------------------- */

/* One file being read. */
typedef struct reader {
    const char *path;
    unsigned long line;
    int columns[COL_KNOWN];  /* field index of each known column, -1 when absent */
    size_t header_fields;    /* 0 until the first header */
} reader;

/* TEA_ERR_FORMAT with "FILE: line N: " before the message. */
static int line_error(const reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int line_error(const reader *rd, const char *fmt, ...)
{
    char what[LINE_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_set(TEA_ERR_FORMAT, "%s: line %lu: %s", rd->path, rd->line, what);
}

/* The known column named `name`, or -1 when it is none of them (a column
 * of a later version). */
static int column_of(const char *name)
{
    for (int c = 0; c < COL_KNOWN; c++)
        if (strcmp(name, column_names[c]) == 0)
            return c;
    return -1;
}

/* True when the fields name every required column (a header line). */
static int is_header(const csv_fields *f)
{
    int seen = 0;
    for (size_t i = 0; i < f->count; i++) {
        int c = column_of(f->items[i]);
        if (c >= 0 && c < COL_REQUIRED)
            seen |= 1 << c;
    }
    return seen == (1 << COL_REQUIRED) - 1;
}

/* The error for a first line that is not a header: which required columns
 * it lacks (an older summary.csv has no trace or seed column). */
static int no_header_error(const reader *rd, const csv_fields *f)
{
    char missing[LINE_MESSAGE_MAX] = "";
    size_t used = 0;
    for (int c = 0; c < COL_REQUIRED; c++) {
        int found = 0;
        for (size_t i = 0; i < f->count && !found; i++)
            found = strcmp(f->items[i], column_names[c]) == 0;
        if (!found && used < sizeof missing)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
                                     column_names[c]);
    }
    return line_error(rd, "expected the header 'trace,scheme,freq_hz,seed,...' (no column %s)", missing);
}

/* Takes a header line's column positions. */
static int take_header(reader *rd, const csv_fields *f)
{
    for (int c = 0; c < COL_KNOWN; c++)
        rd->columns[c] = -1;
    for (size_t i = 0; i < f->count; i++) {
        int c = column_of(f->items[i]);
        if (c < 0)
            continue; /* a column of a later version: ignored */
        if (rd->columns[c] >= 0)
            return line_error(rd, "column '%s' appears twice in the header", column_names[c]);
        rd->columns[c] = (int)i;
    }
    rd->header_fields = f->count;
    return TEA_OK;
}

/* Parses an unsigned decimal integer that fills the whole field: 1 when
 * the field is one, 0 when it is not. */
static int parse_u64(const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (*text < '0' || *text > '9')
        return 0;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

/* Parses a finite number that fills the whole field: 1 when the field is
 * one, 0 when it is not. */
static int parse_double(const char *text, double *out)
{
    char *end;
    double v;
    if (!*text || *text == ' ' || *text == '\t')
        return 0;
    errno = 0;
    v = strtod(text, &end);
    if (errno || *end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* The field of known column `c`, or NULL when the header has none. */
static const char *field_of(const reader *rd, const csv_fields *f, int c)
{
    assert(rd->columns[c] < 0 || (size_t)rd->columns[c] < f->count); /* the line has the header's fields */
    return rd->columns[c] >= 0 ? f->items[rd->columns[c]] : NULL;
}

/* The optional number of column `c` into *v: 1 when there, 0 when empty or
 * no column, -1 (the error set) when not a number from lo to hi. */
static int optional_number(const reader *rd, const csv_fields *f, int c, double lo, double hi, double *v)
{
    const char *text = field_of(rd, f, c);
    *v = NAN;
    if (!text || !*text)
        return 0;
    if (!parse_double(text, v) || *v < lo || *v > hi) {
        if (isinf(hi))
            line_error(rd, "%s '%.*s' is not a number of %g or more", column_names[c], FIELD_QUOTE_MAX, text, lo);
        else
            line_error(rd, "%s '%.*s' is not a number from %g to %g", column_names[c], FIELD_QUOTE_MAX, text, lo, hi);
        return -1;
    }
    return 1;
}

/* error_ci95_low and _high: both or neither, low <= high. */
static int parse_interval(const reader *rd, const csv_fields *f, results_row *r)
{
    int lo = optional_number(rd, f, COL_ERROR_LOW, 0, 1, &r->error_ci95[0]);
    int hi = lo < 0 ? -1 : optional_number(rd, f, COL_ERROR_HIGH, 0, 1, &r->error_ci95[1]);
    if (lo < 0 || hi < 0)
        return TEA_ERR_FORMAT;
    if (lo != hi || (lo && r->error_ci95[0] > r->error_ci95[1]))
        return line_error(rd, "error_ci95_low and error_ci95_high: both or neither, low <= high");
    r->has_error_ci95 = lo;
    return TEA_OK;
}

/* run_cycles and run_instructions (both or neither), the interval optional. */
static int parse_run(const reader *rd, const csv_fields *f, results_row *r)
{
    int cycles = optional_number(rd, f, COL_RUN_CYCLES, 0, INFINITY, &r->run_cycles);
    int insns = cycles < 0 ? -1 : optional_number(rd, f, COL_RUN_INSTRUCTIONS, 0, INFINITY, &r->run_instructions);
    int lo = insns < 0 ? -1 : optional_number(rd, f, COL_RUN_CYCLES_LOW, 0, INFINITY, &r->run_cycles_ci95[0]);
    int hi = lo < 0 ? -1 : optional_number(rd, f, COL_RUN_CYCLES_HIGH, 0, INFINITY, &r->run_cycles_ci95[1]);
    if (cycles < 0 || insns < 0 || lo < 0 || hi < 0)
        return TEA_ERR_FORMAT;
    if (cycles != insns || lo != hi || (lo && !cycles))
        return line_error(rd, "run_cycles and run_instructions go together, and their interval with them");
    r->has_run = cycles;
    return TEA_OK;
}

/* Turns a data line's fields into `r` (strings malloc'd). */
static int parse_row(const reader *rd, const csv_fields *f, results_row *r)
{
    const char *trace, *scheme, *text;
    int rc;

    memset(r, 0, sizeof *r);
    if (f->count != rd->header_fields)
        return line_error(rd, "%zu fields where the header has %zu", f->count, rd->header_fields);
    trace = field_of(rd, f, COL_TRACE);
    scheme = field_of(rd, f, COL_SCHEME);
    assert(trace && scheme); /* a header names every required column (is_header) */
    if (!*trace)
        return line_error(rd, "empty trace name");
    if (!*scheme)
        return line_error(rd, "empty scheme");
    text = field_of(rd, f, COL_FREQ);
    if (!parse_double(text, &r->freq_hz) || r->freq_hz <= 0)
        return line_error(rd, "freq_hz '%.*s' is not a frequency (a number > 0)", FIELD_QUOTE_MAX, text);
    text = field_of(rd, f, COL_SEED);
    if (!parse_u64(text, &r->seed))
        return line_error(rd, "seed '%.*s' is not an unsigned integer", FIELD_QUOTE_MAX, text);
    if ((text = field_of(rd, f, COL_SAMPLES)) && !parse_u64(text, &r->samples))
        return line_error(rd, "samples '%.*s' is not an unsigned integer", FIELD_QUOTE_MAX, text);
    if ((text = field_of(rd, f, COL_LOST)) && !parse_u64(text, &r->lost))
        return line_error(rd, "lost '%.*s' is not an unsigned integer", FIELD_QUOTE_MAX, text);
    if ((text = field_of(rd, f, COL_CYCLES)) && *text && !parse_u64(text, &r->cycles))
        return line_error(rd, "cycles '%.*s' is not an unsigned integer", FIELD_QUOTE_MAX, text);
    if ((text = field_of(rd, f, COL_RECORDS)) && *text && !parse_u64(text, &r->records))
        return line_error(rd, "records '%.*s' is not an unsigned integer", FIELD_QUOTE_MAX, text);
    for (int c = 0; c < 2 * RESULTS_GRANULARITIES; c++) {
        int g = c % RESULTS_GRANULARITIES, floor = c >= RESULTS_GRANULARITIES;
        int column = (floor ? COL_FLOOR_INSN_COMPONENT : COL_ERROR_INSN_COMPONENT) + g;
        double *e = floor ? &r->noise_floor[g] : &r->error[g];
        *e = NAN;
        if (!(text = field_of(rd, f, column)) || !*text)
            continue;
        if (!parse_double(text, e) || *e < 0 || *e > 1)
            return line_error(rd, "%s '%.*s' is not a fraction from 0 to 1", column_names[column], FIELD_QUOTE_MAX,
                              text);
    }
    if ((rc = parse_interval(rd, f, r)) || (rc = parse_run(rd, f, r)))
        return rc;
    if ((text = field_of(rd, f, COL_SAMPLES_TARGET)) && *text && (!parse_u64(text, &r->samples_target) || !r->samples_target))
        return line_error(rd, "samples_target '%.*s' is not an integer of 1 or more", FIELD_QUOTE_MAX, text);
    text = field_of(rd, f, COL_RULES);
    if (text && *text && strcmp(text, PICS_GOLDEN_RULES_DEFAULT) != 0 && strcmp(text, PICS_RULES_TRACEDOCTOR) != 0)
        return line_error(rd, "rules '%.*s' is neither %s nor %s", FIELD_QUOTE_MAX, text, PICS_GOLDEN_RULES_DEFAULT,
                          PICS_RULES_TRACEDOCTOR);
    snprintf(r->rules, sizeof r->rules, "%s", text && *text ? text : PICS_GOLDEN_RULES_DEFAULT);
    r->trace = strdup(trace);
    r->scheme = strdup(scheme);
    text = field_of(rd, f, COL_DIGEST);
    r->digest = text && *text ? strdup(text) : NULL;
    if (!r->trace || !r->scheme || (text && *text && !r->digest)) {
        row_free(r);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    r->file = rd->path;
    r->line = rd->line;
    return TEA_OK;
}

static int append_row(results_set *s, const results_row *r)
{
    if (s->count == s->capacity) {
        size_t cap = s->capacity ? 2 * s->capacity : 64;
        results_row *rows = realloc(s->rows, cap * sizeof *rows);
        if (!rows)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        s->rows = rows;
        s->capacity = cap;
    }
    assert(s->count < s->capacity); /* a free slot */
    s->rows[s->count++] = *r;
    return TEA_OK;
}

/* The file to read for `path`: itself, or DIR/summary.csv. malloc'd. */
static int resolve_path(const char *path, char **out)
{
    *out = results_is_dir(path) ? results_dir_file(path, RESULTS_SUMMARY) : strdup(path);
    return *out ? TEA_OK : error_set(TEA_ERR_NOMEM, "out of memory");
}

/* Reads every line of an open file into `s`. */
static int read_lines(results_set *s, reader *rd, FILE *in)
{
    char *line = NULL;
    size_t cap = 0, n;
    csv_fields f = { 0 };
    int rc = TEA_OK, quote, got;

    while ((got = textline_read(in, &line, &cap, TEXTLINE_MAX, &n)) != TEXTLINE_EOF) {
        results_row r;

        rd->line++;
        if (got == TEXTLINE_NUL) {
            rc = line_error(rd, "a NUL byte (not a text file)");
            break;
        }
        if (got == TEXTLINE_TOO_LONG) {
            rc = line_error(rd, "longer than " TEXTLINE_MAX_TEXT " bytes (not a results CSV)");
            break;
        }
        if (got == TEXTLINE_NOMEM || got == TEXTLINE_IO) {
            rc = got == TEXTLINE_NOMEM ? error_set(TEA_ERR_NOMEM, "out of memory")
                                       : error_set(TEA_ERR_IO, "%s: read failed", rd->path);
            break;
        }
        if (n && line[n - 1] == '\r')
            n--;
        if (n == 0 || line[0] == '#')
            continue;
        if ((quote = csv_split(&f, line, n)) != 0) {
            rc = quote < 0 ? quote : line_error(rd, "malformed quoting");
            break;
        }
        if (is_header(&f)) {
            if ((rc = take_header(rd, &f)))
                break;
            continue;
        }
        if (rd->header_fields == 0) {
            rc = no_header_error(rd, &f);
            break;
        }
        if ((rc = parse_row(rd, &f, &r)))
            break;
        if ((rc = append_row(s, &r))) {
            row_free(&r);
            break;
        }
    }
    if (rc == TEA_OK && ferror(in))
        rc = error_set(TEA_ERR_IO, "%s: read failed: %s", rd->path, strerror(errno));
    if (rc == TEA_OK && rd->header_fields == 0)
        rc = error_set(TEA_ERR_FORMAT, "%s: no header line 'trace,scheme,freq_hz,seed,...' (not a results CSV)",
                       rd->path);
    free(line);
    csv_fields_free(&f);
    return rc;
}

/* Reads the results CSV `file` names (malloc'd; the set owns it from here
 * on, error or not): the file itself, or with `from_memory` the `size`
 * bytes at `data`, through the same line reader (fmemopen). */
static int read_file(results_set *s, char *file, int from_memory, const void *data, size_t size)
{
    static char no_bytes[1]; /* what an empty buffer reads from */
    size_t first = s->count;
    reader rd = { 0 };
    char **files;
    FILE *in;
    int rc;

    files = realloc(s->files, (s->file_count + 1) * sizeof *files);
    if (!files) {
        free(file);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    s->files = files;
    s->files[s->file_count++] = file;
    rd.path = file;
    in = from_memory ? fmemopen(size ? (void *)(uintptr_t)data : no_bytes, size, "r") : fopen(file, "r");
    if (!in)
        return error_set(TEA_ERR_IO, "%s: cannot %s: %s", file, from_memory ? "read from memory" : "open",
                         strerror(errno));
    rc = read_lines(s, &rd, in);
    fclose(in);
    if (rc) {
        while (s->count > first)
            row_free(&s->rows[--s->count]);
    }
    return rc;
}

int results_read(results_set *s, const char *path)
{
    char *file = NULL;
    int rc;

    TEA_ASSERT_ARG(s != NULL);
    TEA_ASSERT_ARG(path != NULL);
    if ((rc = resolve_path(path, &file)))
        return rc;
    return read_file(s, file, 0, NULL, 0);
}

int results_read_memory(results_set *s, const void *data, size_t size, const char *name)
{
    char *file;

    TEA_ASSERT_ARG(s != NULL);
    TEA_ASSERT_ARG(data != NULL || size == 0);
    TEA_ASSERT_ARG(name != NULL);
    if (!(file = strdup(name)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    return read_file(s, file, 1, data, size);
}

/* --- duplicates ------------------------------------------------------------------ */

/* Orders rows by run (trace, scheme, freq_hz, seed), then by position. */
static int compare_runs(const void *x, const void *y)
{
    const results_row *a = *(const results_row *const *)x, *b = *(const results_row *const *)y;
    int c;
    if ((c = strcmp(a->trace, b->trace)) != 0 || (c = strcmp(a->scheme, b->scheme)) != 0)
        return c;
    if (a->freq_hz != b->freq_hz)
        return a->freq_hz < b->freq_hz ? -1 : 1;
    if (a->seed != b->seed)
        return a->seed < b->seed ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int same_run(const results_row *a, const results_row *b)
{
    return strcmp(a->trace, b->trace) == 0 && strcmp(a->scheme, b->scheme) == 0 && a->freq_hz == b->freq_hz
           && a->seed == b->seed;
}

/* The same fraction, or both unknown (NaN). */
static int same_fraction(double a, double b)
{
    return isnan(a) ? isnan(b) : !isnan(b) && a == b;
}

/* Same figures, an empty error matching only an empty one; a noise floor
 * not computed (empty) matches any: a run with --noise-floor repeats one
 * without it. */
static int same_values(const results_row *a, const results_row *b)
{
    if (a->samples != b->samples || a->lost != b->lost
        || (a->samples_target && b->samples_target && a->samples_target != b->samples_target))
        return 0;
    for (int g = 0; g < RESULTS_GRANULARITIES; g++)
        if (!same_fraction(a->error[g], b->error[g])
            || (!isnan(a->noise_floor[g]) && !isnan(b->noise_floor[g]) && a->noise_floor[g] != b->noise_floor[g]))
            return 0;
    return 1;
}

/* Gives the kept row `a` the noise floors and the optional figures (the
 * error's interval, the run, the --samples target) only its repeat `b`
 * has. */
static void take_floors(results_row *a, const results_row *b)
{
    for (int g = 0; g < RESULTS_GRANULARITIES; g++)
        if (isnan(a->noise_floor[g]))
            a->noise_floor[g] = b->noise_floor[g];
    if (!a->has_error_ci95 && b->has_error_ci95) {
        a->has_error_ci95 = 1;
        memcpy(a->error_ci95, b->error_ci95, sizeof a->error_ci95);
    }
    if (!a->has_run && b->has_run) {
        a->has_run = 1;
        a->run_cycles = b->run_cycles;
        memcpy(a->run_cycles_ci95, b->run_cycles_ci95, sizeof a->run_cycles_ci95);
        a->run_instructions = b->run_instructions;
    }
    if (!a->samples_target)
        a->samples_target = b->samples_target;
}

/* ",NUMBER" with ten significant digits, or "," when unknown (NaN). */
static void write_number(FILE *out, double x)
{
    if (isnan(x))
        fputc(',', out);
    else
        fprintf(out, ",%.10g", x);
}

/* ",FRACTION" with nine decimals, or "," when unknown (NaN). */
static void write_fraction(FILE *out, double x)
{
    if (isnan(x))
        fputc(',', out);
    else
        fprintf(out, ",%.9f", x);
}

int results_dedupe(results_set *s)
{
    results_row **order;
    unsigned char *drop;
    size_t kept = 0;
    int rc = TEA_OK;

    if (s->count < 2)
        return TEA_OK;
    order = malloc(s->count * sizeof *order);
    drop = calloc(s->count, 1);
    if (!order || !drop) {
        free(order);
        free(drop);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->count; i++)
        order[i] = &s->rows[i];
    qsort(order, s->count, sizeof *order, compare_runs);
    for (size_t i = 1, first = 0; i < s->count && rc == TEA_OK; i++) {
        results_row *a = order[first];
        const results_row *b = order[i];
        assert(compare_runs(&order[i - 1], &order[i]) < 0); /* sorted by run, then position: a run is adjacent */
        if (!same_run(a, b)) {
            first = i;
            continue;
        }
        if (same_values(a, b))
            take_floors(a, b);
        else
            rc = error_set(TEA_ERR_FORMAT,
                           "%s: line %lu: trace %s, scheme %s at %.15g Hz, seed %llu repeats %s: line %lu "
                           "with other values",
                           b->file, b->line, b->trace, b->scheme, b->freq_hz, (unsigned long long)b->seed, a->file,
                           a->line);
        drop[b - s->rows] = 1;
    }
    if (rc == TEA_OK) {
        for (size_t i = 0; i < s->count; i++) {
            if (drop[i])
                row_free(&s->rows[i]);
            else
                s->rows[kept++] = s->rows[i];
        }
        s->count = kept;
    }
    free(order);
    free(drop);
    return rc;
}

/* --- scheme order ------------------------------------------------------------------ */

/* A label's place: class 0 (a sampling scheme), 1 (a sampling scheme with
 * a suffix) or 2 (anything else, golden too), the scheme's place in the
 * scheme table (pics/scheme.h), and the suffix. */
static void scheme_rank(const char *label, int *cls, size_t *index, const char **suffix)
{
    const char *colon = strchr(label, ':');
    size_t base = colon ? (size_t)(colon - label) : strlen(label);
    pics_scheme scheme;

    if (pics_scheme_find(label, base, &scheme) && scheme != PICS_SCHEME_GOLDEN) {
        *cls = colon ? 1 : 0;
        *index = (size_t)scheme;
        *suffix = colon ? colon + 1 : "";
        return;
    }
    *cls = 2;
    *index = 0;
    *suffix = label;
}

int results_scheme_compare(const char *a, const char *b)
{
    int ca, cb;
    size_t ia, ib;
    const char *sa, *sb;

    scheme_rank(a, &ca, &ia, &sa);
    scheme_rank(b, &cb, &ib, &sb);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    if (ia != ib)
        return ia < ib ? -1 : 1;
    return strcmp(sa, sb);
}

/* --- writing ---------------------------------------------------------------------- */

void results_write_header(FILE *out)
{
    for (int c = 0; c < COL_KNOWN; c++)
        fprintf(out, "%s%s", c ? "," : "", column_names[c]);
    fputc('\n', out);
}

void results_write_row(FILE *out, const results_row *r)
{
    csv_data_field(out, r->trace);
    fputc(',', out);
    csv_data_field(out, r->scheme);
    fprintf(out, ",%.15g,%llu,%llu,%llu", r->freq_hz, (unsigned long long)r->seed, (unsigned long long)r->samples,
            (unsigned long long)r->lost);
    for (int g = 0; g < RESULTS_GRANULARITIES; g++)
        write_fraction(out, r->error[g]);
    fputc(',', out);
    if (r->digest) {
        csv_data_field(out, r->digest);
        fprintf(out, ",%llu,%llu", (unsigned long long)r->cycles, (unsigned long long)r->records);
    } else {
        fputs(",,", out); /* no digest: cycles and records unknown */
    }
    for (int g = 0; g < RESULTS_GRANULARITIES; g++)
        write_fraction(out, r->noise_floor[g]);
    fputc(',', out);
    csv_data_field(out, r->rules[0] ? r->rules : PICS_GOLDEN_RULES_DEFAULT);
    write_fraction(out, r->has_error_ci95 ? r->error_ci95[0] : NAN);
    write_fraction(out, r->has_error_ci95 ? r->error_ci95[1] : NAN);
    write_number(out, r->has_run ? r->run_cycles : NAN);
    write_number(out, r->has_run ? r->run_cycles_ci95[0] : NAN);
    write_number(out, r->has_run ? r->run_cycles_ci95[1] : NAN);
    write_number(out, r->has_run ? r->run_instructions : NAN);
    fputc(',', out);
    if (r->samples_target)
        fprintf(out, "%llu", (unsigned long long)r->samples_target);
    fputc('\n', out);
}

/* --- trace names ------------------------------------------------------------------ */

/* The NAME of a "# trace NAME: ..., digest HEX, ..." line whose HEX is
 * `digest`, malloc'd, or NULL for any other line. */
static int trace_comment_name(const char *line, const char *digest, char **name)
{
    const char *start = line + strlen(RESULTS_TRACE_COMMENT), *colon, *key;

    *name = NULL;
    if (strncmp(line, RESULTS_TRACE_COMMENT, strlen(RESULTS_TRACE_COMMENT)) != 0)
        return TEA_OK;
    if (!(colon = strstr(start, ": ")) || colon == start)
        return TEA_OK;
    for (key = strstr(colon, RESULTS_DIGEST_KEY); key; key = strstr(key + 1, RESULTS_DIGEST_KEY)) {
        const char *hex = key + strlen(RESULTS_DIGEST_KEY);
        if (strncmp(hex, digest, RESULTS_DIGEST_LEN) == 0 && strlen(digest) == RESULTS_DIGEST_LEN
            && (hex[RESULTS_DIGEST_LEN] == ',' || hex[RESULTS_DIGEST_LEN] == '\0'
                || hex[RESULTS_DIGEST_LEN] == '\n' || hex[RESULTS_DIGEST_LEN] == '\r')) {
            if (!(*name = strndup(start, (size_t)(colon - start))))
                return error_set(TEA_ERR_NOMEM, "out of memory");
            return TEA_OK;
        }
    }
    return TEA_OK;
}

/* The trace name of the first row of `path` whose digest column is
 * `digest`, malloc'd, or NULL (no such row, or not a readable results CSV). */
static int digest_column_name(const char *path, const char *digest, char **name)
{
    results_set s;
    int rc;

    *name = NULL;
    results_init(&s);
    rc = results_read(&s, path);
    if (rc == TEA_ERR_NOMEM) {
        results_free(&s);
        return rc;
    }
    for (size_t i = 0; i < s.count && !*name; i++) {
        if (s.rows[i].digest && strcmp(s.rows[i].digest, digest) == 0 && !(*name = strdup(s.rows[i].trace))) {
            results_free(&s);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
    }
    results_free(&s);
    return TEA_OK;
}

int results_trace_name(const char *path, const char *digest, char **name)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int rc = TEA_OK;

    *name = NULL;
    if (!in)
        return TEA_OK;
    size_t len;
    while (!*name && textline_read(in, &line, &cap, TEXTLINE_MAX, &len) == TEXTLINE_OK) {
        if (line[0] == '#' && (rc = trace_comment_name(line, digest, name)))
            break;
    }
    free(line);
    fclose(in);
    if (rc == TEA_OK && !*name)
        rc = digest_column_name(path, digest, name);
    return rc;
}

/* --- the files of a replay directory ------------------------------------------ */

/* Characters of file names listed in a message. */
#define RESULTS_LISTED_MAX 1024

char *results_dir_file(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return out;
}

int results_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when `name` ends in `suffix` after at least one character. */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

int results_is_dir_file(const char *name)
{
    return strcmp(name, RESULTS_SUMMARY) == 0 || strcmp(name, RESULTS_PROVENANCE) == 0
           || strcmp(name, RESULTS_CORES) == 0 || ends_with(name, RESULTS_PICS_SUFFIX);
}

/* LABEL[-FREQhz]SUFFIX with ':' as '-'. */
static void sampler_file_name(const char *label, int with_frequency, double frequency_hz, const char *suffix,
                              char *buf, size_t size)
{
    int n = with_frequency ? snprintf(buf, size, "%s-%.15ghz%s", label, frequency_hz, suffix)
                           : snprintf(buf, size, "%s%s", label, suffix);
    assert(n > 0 && (size_t)n < size); /* the callers' buffers hold any label */
    (void)n;
    for (char *c = buf; *c; c++)
        if (*c == ':')
            *c = '-';
}

void results_pics_name(const char *label, int with_frequency, double frequency_hz, char *buf, size_t size)
{
    sampler_file_name(label, with_frequency, frequency_hz, RESULTS_PICS_SUFFIX, buf, size);
}

void results_floor_name(const char *label, int with_frequency, double frequency_hz, char *buf, size_t size)
{
    sampler_file_name(label, with_frequency, frequency_hz, RESULTS_FLOOR_SUFFIX, buf, size);
}

int results_floor_path(const char *pics_path, char **floor_path)
{
    size_t n = strlen(pics_path), keep = ends_with(pics_path, RESULTS_PICS_SUFFIX)
                                             ? n - strlen(RESULTS_PICS_SUFFIX)
                                             : n;
    size_t size = keep + strlen(RESULTS_FLOOR_SUFFIX) + 1;

    if (!(*floor_path = malloc(size)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    snprintf(*floor_path, size, "%.*s%s", (int)keep, pics_path, RESULTS_FLOOR_SUFFIX);
    return TEA_OK;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Appends a copy of `name` to a growable list of names. */
static int push_name(char ***names, size_t *n, size_t *cap, const char *name)
{
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 8;
        char **grown = realloc(*names, grown_cap * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        *names = grown;
        *cap = grown_cap;
    }
    assert(*n < *cap); /* a free slot */
    if (!((*names)[*n] = strdup(name)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    (*n)++;
    return TEA_OK;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The names LABEL-*.pics in `dir`, sorted: *out malloc'd, *count of them. */
static int frequency_files(const char *dir, const char *label, char ***out, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0, cap = 0, prefix = strlen(label);
    char **names = NULL;
    int rc = TEA_OK;

    *out = NULL;
    *count = 0;
    if (!d)
        return error_set(TEA_ERR_IO, "%s: cannot read the directory: %s", dir, strerror(errno));
    while (rc == TEA_OK && (e = readdir(d)))
        if (strncmp(e->d_name, label, prefix) == 0 && e->d_name[prefix] == '-'
            && ends_with(e->d_name + prefix + 1, RESULTS_PICS_SUFFIX)
            && !ends_with(e->d_name + prefix + 1, RESULTS_FLOOR_SUFFIX))
            rc = push_name(&names, &n, &cap, e->d_name);
    closedir(d);
    if (rc) {
        free_names(names, n);
        return rc;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, compare_names);
    *out = names;
    *count = n;
    return TEA_OK;
}

int results_dir_pics(const char *dir, const char *label, const char *display, char **pics_path, char **golden)
{
    char listed[RESULTS_LISTED_MAX] = "", single[RESULTS_NAME_MAX];
    char **names = NULL;
    size_t used = 0, count = 0;
    int rc = TEA_OK;

    *pics_path = *golden = NULL;
    results_pics_name(label, 0, 0, single, sizeof single);
    if (!(*golden = results_dir_file(dir, RESULTS_GOLDEN)) || !(*pics_path = results_dir_file(dir, single)))
        goto nomem;
    if (!is_file(*golden)) {
        rc = error_set(TEA_ERR_USAGE, "%s is a directory without %s, not a tea replay directory: pass a PICS file", dir,
                       RESULTS_GOLDEN);
        goto fail;
    }
    if (is_file(*pics_path))
        return TEA_OK;
    if ((rc = frequency_files(dir, label, &names, &count)))
        goto fail;
    for (size_t i = 0; i < count; i++) {
        assert(i == 0 || strcmp(names[i - 1], names[i]) < 0); /* sorted; a directory's names are distinct */
        if (used < sizeof listed)
            used += (size_t)snprintf(listed + used, sizeof listed - used, "%s%s", used ? ", " : "", names[i]);
    }
    if (count == 1) {
        free(*pics_path);
        *pics_path = results_dir_file(dir, names[0]);
        free_names(names, count);
        if (!*pics_path)
            goto nomem;
        return TEA_OK;
    }
    free_names(names, count);
    if (count == 0)
        rc = error_set(TEA_ERR_USAGE,
                       "%s is a tea replay directory without %s PICS: pass one of its PICS files "
                       "with --golden %s",
                       dir, display, *golden);
    else
        rc = error_set(TEA_ERR_USAGE,
                       "%s is a tea replay directory with %s PICS at %zu frequencies: pass one of %s "
                       "with --golden %s",
                       dir, display, count, listed, *golden);
    goto fail;
nomem:
    rc = error_set(TEA_ERR_NOMEM, "out of memory");
fail:
    free(*pics_path);
    free(*golden);
    *pics_path = *golden = NULL;
    return rc;
}

/* Natural order of two names (strverscmp), for the sort with a context. */
static int name_before(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

int results_dir_cores(const char *dir, char ***names, size_t *count)
{
    char *cores = results_dir_file(dir, RESULTS_CORES);
    DIR *d;
    struct dirent *e;
    size_t n = 0, cap = 0;
    char **list = NULL;
    int rc = TEA_OK;

    *names = NULL;
    *count = 0;
    if (!cores)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (!(d = opendir(cores))) {
        rc = errno == ENOENT ? error_set(TEA_ERR_USAGE, "%s: no %s/: a replay of one trace, not of a program's "
                                                        "threads or cores", dir, RESULTS_CORES)
                             : error_set(TEA_ERR_IO, "%s: %s", cores, strerror(errno));
        free(cores);
        return rc;
    }
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t more = cap ? 2 * cap : 8;
            char **grown = realloc(list, more * sizeof *list);
            if (!grown) {
                rc = error_set(TEA_ERR_NOMEM, "out of memory");
                break;
            }
            list = grown;
            cap = more;
        }
        if (!(list[n] = strdup(e->d_name)))
            rc = error_set(TEA_ERR_NOMEM, "out of memory");
        else
            n++;
    }
    closedir(d);
    free(cores);
    if (!rc && n == 0)
        rc = error_set(TEA_ERR_USAGE, "%s: %s/ holds no cores", dir, RESULTS_CORES);
    if (rc) {
        results_dir_cores_free(list, n);
        return rc;
    }
    search_sort(list, n, sizeof *list, name_before, NULL);
    *names = list;
    *count = n;
    return TEA_OK;
}

void results_dir_cores_free(char **names, size_t count)
{
    for (size_t i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
}
