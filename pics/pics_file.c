/*
 * pics_file.c: reading, writing and merging PICS files (see pics_file.h and
 * docs/pics-format.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "pics_file.h"
#include "common/error.h"
#include "common/textline.h"
#include "common/exact.h"
#include "common/outfile.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PICS_MAGIC "tea-pics"

void pics_info_init(pics_info *info)
{
    memset(info, 0, sizeof *info);
    info->unit = PICS_UNIT;
    info->merged = 1;
    snprintf(info->golden_rules, sizeof info->golden_rules, "%s", PICS_GOLDEN_RULES_DEFAULT);
    snprintf(info->rules, sizeof info->rules, "%s", PICS_GOLDEN_RULES_DEFAULT);
}

/* Whether a PICS's samplers followed rules other than the default ones. */
static int other_rules(const pics_info *info)
{
    return info->rules[0] && strcmp(info->rules, PICS_GOLDEN_RULES_DEFAULT) != 0;
}

void pics_info_free(pics_info *info)
{
    trace_program_free(&info->program);
    trace_object_list_free(&info->objects);
}

int pics_info_set_objects(pics_info *info, const trace_object *objs, size_t count, uint32_t tid,
                          uint32_t threads_seen)
{
    int rc;
    trace_object_list_free(&info->objects);
    for (size_t i = 0; i < count; i++)
        if ((rc = trace_object_list_add(&info->objects, &objs[i]))) {
            trace_object_list_free(&info->objects);
            return rc;
        }
    info->objects.tid = tid;
    info->objects.threads_seen = threads_seen;
    return TEA_OK;
}

static int dup_string(char **dst, const char *src)
{
    *dst = NULL;
    if (src && !(*dst = strdup(src)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    return TEA_OK;
}

int pics_info_copy(pics_info *dst, const pics_info *src)
{
    *dst = *src;
    memset(&dst->objects, 0, sizeof dst->objects);
    if (trace_program_copy(&dst->program, &src->program)
        || pics_info_set_objects(dst, src->objects.items, src->objects.count, src->objects.tid,
                                 src->objects.threads_seen)) {
        pics_info_free(dst);
        return TEA_ERR_NOMEM;
    }
    return TEA_OK;
}

uint64_t pics_info_lost(const pics_info *info)
{
    uint64_t total = 0;
    for (int i = 0; i < PICS_LOST_REASONS; i++)
        total += info->lost[i];
    return total;
}

int pics_info_is_golden(const pics_info *info)
{
    return strcmp(info->scheme, "golden") == 0;
}

/* --- scaling ----------------------------------------------------------------- */

#define PICS_MAX_DIGITS 9

/* The exact fraction num/den that a cell value stands for (see pics.h). */
void pics_value_fraction(const pics_info *info, uint64_t total, uint64_t value, exact_u128 *num, exact_u128 *den)
{
    if (pics_info_is_golden(info) || total == 0) {
        *num = total == 0 && !pics_info_is_golden(info) ? 0 : value;
        *den = info->unit ? info->unit : PICS_UNIT;
        return;
    }
    *num = (exact_u128)value * info->golden_total;
    *den = (exact_u128)total * (info->unit ? info->unit : PICS_UNIT);
}

void pics_whole_cycles(const pics_info *info, uint64_t total, const pics_cell *cells, size_t n, uint64_t *out)
{
    exact_u128 sum = 0, num, den = 1;
    uint64_t rounded = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t now;
        pics_value_fraction(info, total, cells[i].value, &num, &den);
        assert(sum <= (exact_u128)-1 - num && sum + num <= ((exact_u128)-1 - den) / 2); /* fits 128 bits */
        sum += num;
        now = (uint64_t)((2 * sum + den) / (2 * den)); /* round(sum / den), halves up */
        out[i] = now - rounded;
        rounded = now;
    }
}

double pics_value_cycles(const pics_info *info, uint64_t total, uint64_t value)
{
    exact_u128 num, den;
    pics_value_fraction(info, total, value, &num, &den);
    return (double)((long double)num / (long double)den);
}

void pics_format_cycles(const pics_info *info, uint64_t total, uint64_t value, int digits, char *buf, size_t size)
{
    exact_u128 num, den, whole, rest, scale = 1;
    char frac[24];
    if (digits > PICS_MAX_DIGITS)
        digits = PICS_MAX_DIGITS; /* keeps (num % den) * 10^digits * 2 within 128 bits */
    for (int i = 0; i < digits; i++)
        scale *= 10;
    pics_value_fraction(info, total, value, &num, &den);
    assert(den > 0); /* the unit, or a non-zero total times it */
    whole = num / den;
    rest = ((num % den) * scale * 2 + den) / (2 * den); /* rounded half up */
    if (rest >= scale) {
        whole++;
        rest -= scale;
    }
    assert(rest < scale); /* the fraction fits its digits */
    snprintf(frac, sizeof frac, "%0*llu", digits, (unsigned long long)rest);
    if (digits > 0)
        snprintf(buf, size, "%llu.%s", (unsigned long long)whole, frac);
    else
        snprintf(buf, size, "%llu", (unsigned long long)whole);
}

/* --- writing --------------------------------------------------------------- */

/* The trace.thread, trace.objects and trace.object lines (none when the
 * trace had neither objects nor a thread). */
static void write_objects(FILE *f, const trace_object_list *l)
{
    if (l->threads_seen != TRACE_THREAD_UNKNOWN)
        fprintf(f, "trace.thread %" PRIu32 " %" PRIu32 "\n", l->tid, l->threads_seen);
    if (!l->count)
        return;
    fprintf(f, "trace.objects %zu\n", l->count);
    for (size_t i = 0; i < l->count; i++) {
        const trace_object *o = &l->items[i];
        char hex[2 * TRACE_BUILD_ID_MAX + 1];
        trace_object_build_id_hex(o, hex, sizeof hex);
        fprintf(f, "trace.object 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s %s\n", o->start, o->end, o->load_bias,
                hex[0] ? hex : "-", o->path);
    }
}

/* The minor version a file needs: the highest of the features it has. */
static int format_minor(const pics_info *info, const pics *p, unsigned groups)
{
    if (pics_has_contexts(p))
        return PICS_FORMAT_MINOR_CONTEXTS;
    if (other_rules(info))
        return PICS_FORMAT_MINOR_RULES;
    if (groups)
        return PICS_FORMAT_MINOR_GROUPS;
    if (info->noise_floor_of[0])
        return PICS_FORMAT_MINOR_FLOOR;
    return trace_object_list_present(&info->objects) ? PICS_FORMAT_MINOR_OBJECTS : PICS_FORMAT_MINOR;
}

/* Writes a cell's value in each group (0 where a group lacks the cell). */
static void write_group_values(FILE *f, const pics_cell *c, const pics *groups, unsigned count)
{
    for (unsigned k = 0; k < count; k++) {
        const pics_cell *g = pics_find_ctx(&groups[k], c->ctx, c->pc, c->psv);
        fprintf(f, " %" PRIu64, g ? g->value : 0);
    }
}

/* The contexts section: `contexts N`, then a line `ID PARENT SITE ENTRY`
 * per context but the root, in id order. Nothing for a flat PICS. */
static void write_contexts(FILE *f, const pics *p)
{
    const trace_contexts *t = &p->contexts;
    if (!pics_has_contexts(p))
        return;
    fprintf(f, "contexts %" PRIu32 "\n", t->count - 1);
    for (uint32_t id = 1; id < t->count; id++)
        fprintf(f, "%" PRIu32 " %" PRIu32 " 0x%" PRIx64 " 0x%" PRIx64 "\n", id, t->nodes[id].parent,
                t->nodes[id].site, t->nodes[id].entry);
}

int pics_write(const char *path, const pics_info *info, const pics *p)
{
    return pics_write_groups(path, info, p, NULL, 0);
}

int pics_write_groups(const char *path, const pics_info *info, const pics *p, const pics *groups, unsigned count)
{
    pics_cell *cells = NULL;
    size_t n = 0;
    outfile *out = NULL;
    FILE *f;
    int rc;

    TEA_ASSERT_ARG(path != NULL);
    TEA_ASSERT_ARG(info != NULL);
    TEA_ASSERT_ARG(p != NULL);
    TEA_ASSERT_ARG(groups != NULL || count == 0);
    if (count == 1 || count > PICS_MAX_GROUPS)
        return error_set(TEA_ERR_USAGE, "%s: %u window groups: none, or 2 to %d", path, count, PICS_MAX_GROUPS);
    if ((rc = pics_sorted(p, &cells, &n)))
        return rc;
    if ((rc = outfile_open(&out, path))) {
        free(cells);
        return rc;
    }
    f = outfile_stream(out);
    fprintf(f, "%s %d.%d\n", PICS_MAGIC, PICS_FORMAT_MAJOR, format_minor(info, p, count));
    fprintf(f, "scheme %s\n", info->scheme);
    fprintf(f, "unit %" PRIu64 "\n", info->unit);
    fprintf(f, "trace.digest %s\n", info->trace_digest[0] ? info->trace_digest : "-");
    fprintf(f, "trace.first_cycle %" PRIu64 "\n", info->trace_first_cycle);
    fprintf(f, "trace.last_cycle %" PRIu64 "\n", info->trace_last_cycle);
    fprintf(f, "trace.records %" PRIu64 "\n", info->trace_records);
    fprintf(f, "trace.arch %s\n", info->program.arch[0] ? info->program.arch : "-");
    fprintf(f, "trace.clock_hz %" PRIu64 "\n", info->clock_hz);
    if (info->program.binary_path)
        fprintf(f, "trace.binary %s\n", info->program.binary_path);
    if (info->program.build_id)
        fprintf(f, "trace.build_id %s\n", info->program.build_id);
    if (info->program.has_load_bias)
        fprintf(f, "trace.load_bias 0x%" PRIx64 "\n", info->program.load_bias);
    write_objects(f, &info->objects);
    fprintf(f, "golden_total %" PRIu64 "\n", info->golden_total);
    fprintf(f, "golden_rules %s\n", info->golden_rules[0] ? info->golden_rules : PICS_GOLDEN_RULES_DEFAULT);
    if (other_rules(info)) /* written only when not default: older files read the same */
        fprintf(f, "rules %s\n", info->rules);
    fprintf(f, "period %" PRIu64 "\n", info->period);
    fprintf(f, "frequency_hz %.17g\n", info->frequency_hz);
    fprintf(f, "seed %" PRIu64 "\n", info->seed);
    fprintf(f, "jitter %s\n", info->jitter[0] ? info->jitter : "-");
    fprintf(f, "events %s\n", info->events[0] ? info->events : "-");
    fprintf(f, "event_mask 0x%03x\n", info->event_mask);
    fprintf(f, "samples %" PRIu64 "\n", info->samples);
    for (int i = 0; i < PICS_LOST_REASONS; i++)
        fprintf(f, "lost.%s %" PRIu64 "\n", pics_lost_name((enum pics_lost_reason)i), info->lost[i]);
    fprintf(f, "merged %" PRIu64 "\n", info->merged);
    if (info->noise_floor_of[0])
        fprintf(f, "noise_floor_of %s\n", info->noise_floor_of);
    if (count)
        fprintf(f, "groups %u\n", count);
    write_contexts(f, p);
    fprintf(f, "cells %zu\n", n);
    for (size_t i = 0; i < n; i++) {
        if (pics_has_contexts(p))
            fprintf(f, "%" PRIu32 " ", cells[i].ctx);
        fprintf(f, "0x%" PRIx64 " %u %" PRIu64 " %" PRIu64, cells[i].pc, cells[i].psv, cells[i].value,
                cells[i].count);
        write_group_values(f, &cells[i], groups, count);
        fputc('\n', f);
    }
    fprintf(f, "end\n");
    free(cells);
    return outfile_commit(out);
}

/* --- reading --------------------------------------------------------------- */

/* Most header keys a PICS file may have. */
#define PICS_MAX_KEYS 256

typedef struct line_reader {
    FILE *f;
    const char *path;
    char *line;                  /* the current line (common/textline.h bounds its length) */
    size_t cap;
    unsigned long number;
    char *keys[PICS_MAX_KEYS];   /* header keys seen, to refuse a repeated one */
    size_t key_count;
} line_reader;

static int line_error(const line_reader *lr, const char *what)
{
    return error_set(TEA_ERR_FORMAT, "%s: line %lu: %s", lr->path, lr->number, what);
}

/* Reads the next line without its newline; *eof at the end of the file. */
static int next_line(line_reader *lr, int *eof)
{
    size_t len;
    int got = textline_read(lr->f, &lr->line, &lr->cap, TEXTLINE_MAX, &len);

    *eof = got == TEXTLINE_EOF;
    if (got == TEXTLINE_EOF)
        return TEA_OK;
    lr->number++;
    switch (got) {
    case TEXTLINE_TOO_LONG:
        return line_error(lr, "longer than " TEXTLINE_MAX_TEXT " bytes");
    case TEXTLINE_NUL:
        return line_error(lr, "contains a NUL byte");
    case TEXTLINE_NOMEM: return error_set(TEA_ERR_NOMEM, "out of memory");
    case TEXTLINE_IO: return error_set(TEA_ERR_IO, "%s: read failed: %s", lr->path, strerror(errno));
    default:
        return TEA_OK;
    }
}

/* The error for a header value that cannot be read. */
static int malformed_value(const line_reader *lr)
{
    return line_error(lr, "malformed value");
}

/* Remembers a header key. TEA_ERR_FORMAT when it was seen before (or there
 * are too many), TEA_ERR_NOMEM when it cannot be copied (message set). */
static int note_key(line_reader *lr, const char *key)
{
    for (size_t i = 0; i < lr->key_count; i++)
        if (strcmp(lr->keys[i], key) == 0)
            return line_error(lr, "repeated key (or too many keys)");
    if (lr->key_count == PICS_MAX_KEYS)
        return line_error(lr, "repeated key (or too many keys)");
    if (!(lr->keys[lr->key_count] = strdup(key)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    lr->key_count++;
    return TEA_OK;
}

/* Splits `line` at single spaces into at most `max` fields; returns how many
 * there were (max + 1 when there were more). */
static size_t split_fields(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *t = line;
    for (;;) { /* as strtok_r(" ") would, a byte at a time (millions of cell lines) */
        while (*t == ' ')
            t++;
        if (!*t)
            return n;
        if (n == max)
            return max + 1;
        fields[n++] = t;
        while (*t && *t != ' ')
            t++;
        if (*t)
            *t++ = '\0';
    }
}

/* Parses a whole decimal (or 0x-hex) unsigned number: 1 when `s` is one,
 * 0 when it is not. */
static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return 0;
    errno = 0;
    *v = strtoull(s, &end, base);
    return !errno && *end == '\0' && end != s;
}

/* Copies a one-word value ("-" for none) into dst: 1 when it is one word
 * that fits, 0 when it is not. */
static int copy_word(char *dst, size_t size, const char *value)
{
    if (strlen(value) >= size || strchr(value, ' '))
        return 0;
    snprintf(dst, size, "%s", strcmp(value, "-") == 0 ? "" : value);
    return 1;
}

/* Applies one "key value" line to `info`; unknown keys are ignored (minor
 * versions may add keys). Returns 0, TEA_ERR_FORMAT for a malformed value or
 * TEA_ERR_NOMEM (message set). */
static int apply_key(const line_reader *lr, pics_info *info, const char *key, const char *value)
{
    const struct {
        const char *key;
        char *field;
        size_t size;
    } words[] = {
        { "scheme", info->scheme, sizeof info->scheme },
        { "trace.digest", info->trace_digest, sizeof info->trace_digest },
        { "trace.arch", info->program.arch, sizeof info->program.arch },
        { "jitter", info->jitter, sizeof info->jitter },
        { "events", info->events, sizeof info->events },
        { "golden_rules", info->golden_rules, sizeof info->golden_rules },
        { "rules", info->rules, sizeof info->rules },
        { "noise_floor_of", info->noise_floor_of, sizeof info->noise_floor_of },
    };
    const struct {
        const char *key;
        uint64_t *field;
    } numbers[] = {
        { "unit", &info->unit },
        { "trace.first_cycle", &info->trace_first_cycle },
        { "trace.last_cycle", &info->trace_last_cycle },
        { "trace.records", &info->trace_records },
        { "trace.clock_hz", &info->clock_hz },
        { "trace.load_bias", &info->program.load_bias },
        { "golden_total", &info->golden_total },
        { "period", &info->period },
        { "seed", &info->seed },
        { "samples", &info->samples },
        { "merged", &info->merged },
        { "groups", &info->groups },
    };
    uint64_t v;

    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(key, words[i].key) == 0)
            return copy_word(words[i].field, words[i].size, value) ? TEA_OK : malformed_value(lr);
    if (strcmp(key, "trace.binary") == 0)
        return dup_string(&info->program.binary_path, value);
    if (strcmp(key, "trace.build_id") == 0)
        return dup_string(&info->program.build_id, value);
    if (strcmp(key, "frequency_hz") == 0) {
        char *end;
        info->frequency_hz = strtod(value, &end);
        return *end || end == value || info->frequency_hz < 0 ? malformed_value(lr) : TEA_OK;
    }
    if (strcmp(key, "event_mask") == 0) {
        if (!parse_u64(value, &v) || v > 0x1FF)
            return malformed_value(lr);
        info->event_mask = (uint16_t)v;
        return TEA_OK;
    }
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        if (strcmp(key, numbers[i].key) == 0) {
            if (numbers[i].field == &info->program.load_bias)
                info->program.has_load_bias = 1;
            return parse_u64(value, numbers[i].field) ? TEA_OK : malformed_value(lr);
        }
    }
    for (int i = 0; i < PICS_LOST_REASONS; i++)
        if (strncmp(key, "lost.", 5) == 0 && strcmp(key + 5, pics_lost_name((enum pics_lost_reason)i)) == 0)
            return parse_u64(value, &info->lost[i]) ? TEA_OK : malformed_value(lr);
    return TEA_OK;
}

/* The value of a hex digit, -1 for another character (not an error code:
 * the callers refuse the digit). */
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The error for a trace.object line that cannot be read. */
static int malformed_object(const line_reader *lr)
{
    return line_error(lr, "malformed object (expected: START END BIAS BUILD_ID PATH)");
}

/* Applies one "trace.object START END BIAS BUILD_ID PATH" value (build-id
 * in lower-case hex or '-', the path to the end of the line), appending one
 * object. Returns 0, TEA_ERR_FORMAT for a malformed value or TEA_ERR_NOMEM
 * (message set). */
static int apply_object(const line_reader *lr, pics_info *info, char *value)
{
    trace_object o;
    uint64_t *numbers[] = { &o.start, &o.end, &o.load_bias };
    char *field = value, *space;
    size_t len, before = info->objects.count;
    int rc;

    memset(&o, 0, sizeof o);
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        if (!(space = strchr(field, ' ')))
            return malformed_object(lr);
        *space = '\0';
        if (!parse_u64(field, numbers[i]))
            return malformed_object(lr);
        field = space + 1;
    }
    if (!(space = strchr(field, ' ')))
        return malformed_object(lr);
    *space = '\0';
    len = strlen(field);
    if (strcmp(field, "-") != 0) {
        if (len == 0 || len % 2 || len > 2 * TRACE_BUILD_ID_MAX)
            return malformed_object(lr);
        for (size_t i = 0; i < len; i += 2) {
            int hi = hex_digit(field[i]), lo = hex_digit(field[i + 1]);
            if (hi < 0 || lo < 0)
                return malformed_object(lr);
            o.build_id[i / 2] = (uint8_t)(hi << 4 | lo);
        }
        o.build_id_len = (uint32_t)(len / 2);
    }
    o.path = space + 1;
    if (o.end < o.start || !o.path[0] || strlen(o.path) > TRACE_OBJECT_PATH_MAX)
        return malformed_object(lr);
    if ((rc = trace_object_list_add(&info->objects, &o)) == TEA_ERR_NOMEM)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (rc)
        return malformed_object(lr);
    assert(info->objects.count == before + 1); /* one line, one object */
    (void)before; /* unused when NDEBUG compiles the assertion out */
    return TEA_OK;
}

/* Applies "trace.thread TID THREADS" (THREADS >= 1). Returns 0, or
 * TEA_ERR_FORMAT (message set) for a malformed value. */
static int apply_thread(const line_reader *lr, pics_info *info, const char *value)
{
    unsigned long long tid, threads;
    char extra;
    if (sscanf(value, "%llu %llu%c", &tid, &threads, &extra) != 2 || value[0] < '0' || value[0] > '9'
        || tid > UINT32_MAX || threads < 1 || threads > UINT32_MAX)
        return malformed_value(lr);
    info->objects.tid = (uint32_t)tid;
    info->objects.threads_seen = (uint32_t)threads;
    return TEA_OK;
}

/* Adds a cell line's group values (fields f[0 .. count)) to the groups;
 * they must sum to the cell's value. */
static int read_group_values(line_reader *lr, char **f, pics *groups, uint64_t count, uint32_t ctx, uint64_t pc,
                             uint16_t psv, uint64_t value)
{
    uint64_t sum = 0;
    for (uint64_t k = 0; k < count; k++) {
        uint64_t v;
        int rc;
        if (!parse_u64(f[k], &v) || sum + v < sum)
            return line_error(lr, "malformed group value");
        sum += v;
        if (v && (rc = pics_add_ctx(&groups[k], ctx, pc, psv, v, 0)))
            return rc;
    }
    if (sum != value)
        return line_error(lr, "the groups' values do not sum to the cell's");
    return TEA_OK;
}

/* A cell's key, in the order the writer sorts cells (pics_sorted). */
typedef struct cell_key {
    uint64_t pc;
    uint64_t psv;
    uint64_t ctx;
} cell_key;

static int key_before(const cell_key *a, const cell_key *b)
{
    if (a->pc != b->pc)
        return a->pc < b->pc;
    if (a->psv != b->psv)
        return a->psv < b->psv;
    return a->ctx < b->ctx;
}

/* Reads `count` cell lines (each with its values in `group_count` groups),
 * then the "end" line. Cells in the writer's order (every file this tool
 * writes) are told apart by that order; a cell out of order is checked
 * against the map, except in a file with contexts, which must be in
 * order. `flatten`: a file's contexts summed as they are read (the flat
 * PICS; consecutive lines of one instruction and PSV add to one cell). */
/* Where read_cells puts the cells of a file read as an array
 * (pics_read_array): none when NULL. */
typedef struct cell_array {
    pics_cell *cells;
    size_t count, cap;
    uint64_t total;  /* the sum of the values (the map's total stays 0: it holds no cell) */
} cell_array;

/* Appends a cell to the array. */
static int array_push(cell_array *a, const pics_cell *c)
{
    if (a->count == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 4096;
        pics_cell *n = realloc(a->cells, cap * sizeof *n);
        if (!n)
            return error_set(TEA_ERR_NOMEM, "out of memory for %zu cells", cap);
        a->cells = n;
        a->cap = cap;
    }
    a->cells[a->count++] = *c;
    return TEA_OK;
}

static int read_cells(line_reader *lr, uint64_t count, pics *p, pics *groups, uint64_t group_count, int flatten,
                      cell_array *array)
{
    int eof, rc, sorted = 1;
    const size_t lead = pics_has_contexts(p) ? 1 : 0; /* the context field */
    cell_key prev = { 0, 0, 0 };
    /* room for every cell at once, unless the contexts are summed away (far fewer cells) */
    if (!array && !(flatten && lead) && (rc = pics_reserve(p, (size_t)(count < PICS_RESERVE_MAX ? count : PICS_RESERVE_MAX))))
        return rc;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t ctx = TRACE_CONTEXT_ROOT, pc, psv, value, n;
        char *all[1 + 4 + PICS_MAX_GROUPS], **f = all + lead;
        size_t fields = lead + 4 + (size_t)group_count;
        if ((rc = next_line(lr, &eof)))
            return rc;
        if (eof)
            return error_set(TEA_ERR_FORMAT, "%s: truncated: %llu of %llu cells", lr->path, (unsigned long long)i,
                             (unsigned long long)count);
        if (split_fields(lr->line, all, fields) != fields || (lead && (!parse_u64(all[0], &ctx)
                                                                        || ctx >= p->contexts.count))
            || !parse_u64(f[0], &pc) || !parse_u64(f[1], &psv) || psv > 0x1FF || !parse_u64(f[2], &value)
            || !parse_u64(f[3], &n))
            return line_error(lr, lead ? "malformed cell (expected: CONTEXT PC PSV VALUE COUNT, a context of the file's, "
                                         "and a value per group)"
                                  : group_count ? "malformed cell (expected: PC PSV VALUE COUNT and a value per group)"
                                                : "malformed cell (expected: PC PSV VALUE COUNT)");
        cell_key key = { pc, psv, ctx };
        if (i > 0 && !key_before(&prev, &key)) {
            if (lead)
                return line_error(lr, "cell out of order or repeated (a file with contexts is sorted by PC, PSV "
                                      "and context)");
            sorted = 0;
        }
        prev = key;
        if (!sorted && array)
            return line_error(lr, "cell out of order or repeated (expected: sorted by PC, PSV and context)");
        if (!sorted && pics_find_ctx(p, (uint32_t)ctx, pc, (uint16_t)psv))
            return line_error(lr, "duplicate cell");
        if (p->total + value < p->total)
            return line_error(lr, "cell values overflow");
        if (array) { /* the cell as it is, the map untouched but for its total */
            pics_cell cell = { pc, value, n, (uint16_t)psv, 1, 0, (uint32_t)ctx };
            if (array->total + value < array->total)
                return line_error(lr, "cell values overflow");
            if ((rc = array_push(array, &cell)))
                return rc;
            array->total += value;
            continue;
        }
        if (flatten)
            ctx = TRACE_CONTEXT_ROOT;
        if ((rc = pics_add_ctx(p, (uint32_t)ctx, pc, (uint16_t)psv, value, n)))
            return rc;
        if (group_count && groups /* (the array reader skips them) */
            && (rc = read_group_values(lr, f + 4, groups, group_count, (uint32_t)ctx, pc, (uint16_t)psv, value)))
            return rc;
    }
    if ((rc = next_line(lr, &eof)))
        return rc;
    if (eof || strcmp(lr->line, "end") != 0)
        return error_set(TEA_ERR_FORMAT, "%s: truncated or malformed: no 'end' after the cells", lr->path);
    if ((rc = next_line(lr, &eof)))
        return rc;
    if (!eof)
        return line_error(lr, "text after 'end'");
    return TEA_OK;
}

void pics_groups_free(pics *groups, uint64_t count)
{
    for (uint64_t k = 0; groups && k < count; k++)
        pics_free(&groups[k]);
    free(groups);
}

#define PICS_MAX_GROUPS_TEXT "64"
_Static_assert(PICS_MAX_GROUPS == 64, "the message's limit");

/* The group PICS of a file with `count` groups (none: NULL). */
static int make_groups(const line_reader *lr, uint64_t count, pics **groups)
{
    *groups = NULL;
    if (count == 0)
        return TEA_OK;
    if (count < 2 || count > PICS_MAX_GROUPS)
        return line_error(lr, "groups: from 2 to " PICS_MAX_GROUPS_TEXT);
    if (!(*groups = calloc(count, sizeof **groups)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (uint64_t k = 0; k < count; k++)
        if (pics_init(&(*groups)[k]))
            return error_set(TEA_ERR_NOMEM, "out of memory");
    return TEA_OK;
}

int pics_read(const char *path, pics_info *info, pics *p)
{
    return pics_read_groups(path, info, p, NULL);
}

/* Reads a `contexts N` section's N lines into p's contexts: ids 1 to N in
 * order, each parent an earlier id, no context twice. */
static int read_contexts(line_reader *lr, const char *value, pics *p)
{
    uint64_t count;
    int eof, rc;
    if (!parse_u64(value, &count) || count == 0 || count >= TRACE_CONTEXT_MAX || pics_has_contexts(p))
        return line_error(lr, "malformed or repeated context count");
    if ((rc = trace_contexts_init(&p->contexts)))
        return rc;
    for (uint64_t i = 1; i <= count; i++) {
        char *f[4];
        uint64_t id, parent, site, entry;
        uint32_t got;
        if ((rc = next_line(lr, &eof)))
            return rc;
        if (eof)
            return error_set(TEA_ERR_FORMAT, "%s: truncated: %llu of %llu contexts", lr->path,
                             (unsigned long long)(i - 1), (unsigned long long)count);
        if (split_fields(lr->line, f, 4) != 4 || !parse_u64(f[0], &id) || id != i || !parse_u64(f[1], &parent)
            || parent >= id || !parse_u64(f[2], &site) || !parse_u64(f[3], &entry))
            return line_error(lr, "malformed context (expected: ID PARENT SITE ENTRY, ids in order, each parent an "
                                  "earlier id)");
        if ((rc = trace_contexts_intern(&p->contexts, (uint32_t)parent, site, entry, &got)))
            return rc;
        if (got != id)
            return line_error(lr, "duplicate context");
        if (p->contexts.nodes[got].depth > TRACE_CONTEXT_MAX_DEPTH) /* what every view's stack holds */
            return line_error(lr, "context deeper than " TRACE_CONTEXT_MAX_DEPTH_TEXT " calls");
    }
    return TEA_OK;
}


/* pics_read_groups from the stream `f`, which messages call `path`;
 * `info` is initialised. Leaves `f` open. */
static int read_stream(FILE *f, const char *path, pics_info *info, pics *p, pics **groups_out, int keep_contexts,
                       cell_array *array)
{
    pics *groups = NULL;
    line_reader *lr = calloc(1, sizeof *lr);
    unsigned major = 0, minor = 0;
    uint64_t objects_expected = 0; /* trace.objects */
    int eof, rc;

    if (!lr)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if ((rc = pics_init(p))) {
        free(lr);
        return rc;
    }
    lr->path = path;
    lr->f = f;
    if ((rc = next_line(lr, &eof)))
        goto done;
    if (eof || sscanf(lr->line, PICS_MAGIC " %u.%u", &major, &minor) != 2) {
        rc = error_set(TEA_ERR_FORMAT, "%s: not a PICS file (no '%s' line)", path, PICS_MAGIC);
        goto done;
    }
    if (major != PICS_FORMAT_MAJOR) {
        rc = error_set(TEA_ERR_FORMAT, "%s: PICS format %u.%u is not supported (this tool reads %d.x)", path, major,
                       minor, PICS_FORMAT_MAJOR);
        goto done;
    }
    for (;;) {
        char *space;
        if ((rc = next_line(lr, &eof)))
            goto done;
        if (eof) {
            rc = error_set(TEA_ERR_FORMAT, "%s: truncated: no cells", path);
            goto done;
        }
        space = strchr(lr->line, ' ');
        if (!space) {
            rc = line_error(lr, "expected 'key value'");
            goto done;
        }
        *space = '\0';
        if (strcmp(lr->line, "cells") == 0) {
            uint64_t count;
            if (!parse_u64(space + 1, &count)) {
                rc = line_error(lr, "malformed cell count");
                goto done;
            }
            if (!(rc = make_groups(lr, array ? 0 : info->groups, &groups)))
                rc = read_cells(lr, count, p, groups, info->groups, !keep_contexts, array);
            break;
        }
        if (strcmp(lr->line, "contexts") == 0) {
            if ((rc = read_contexts(lr, space + 1, p)))
                goto done;
            continue;
        }
        if (strcmp(lr->line, "trace.object") == 0) {
            /* one line per object, in order: the only key that repeats */
            if ((rc = apply_object(lr, info, space + 1)))
                goto done;
            continue;
        }
        if ((rc = note_key(lr, lr->line)))
            goto done;
        if (strcmp(lr->line, "trace.objects") == 0) {
            if (!parse_u64(space + 1, &objects_expected) || objects_expected == 0
                || objects_expected > TRACE_OBJECTS_MAX) {
                rc = line_error(lr, "malformed value");
                goto done;
            }
            continue;
        }
        if ((rc = strcmp(lr->line, "trace.thread") == 0 ? apply_thread(lr, info, space + 1)
                                                        : apply_key(lr, info, lr->line, space + 1)))
            goto done;
    }
    if (rc == TEA_OK && objects_expected != info->objects.count)
        rc = error_set(TEA_ERR_FORMAT, "%s: trace.objects says %llu, %zu trace.object lines", path,
                       (unsigned long long)objects_expected, info->objects.count);
    if (rc == TEA_OK && !info->scheme[0])
        rc = error_set(TEA_ERR_FORMAT, "%s: no scheme", path);
    if (rc == TEA_OK && info->unit != PICS_UNIT)
        rc = error_set(TEA_ERR_FORMAT, "%s: unit %llu differs from this tool's %llu", path,
                       (unsigned long long)info->unit, PICS_UNIT);
    if (rc == TEA_OK && pics_info_is_golden(info) && (array ? array->total : p->total) != info->golden_total)
        rc = error_set(TEA_ERR_FORMAT, "%s: golden cells sum to %llu but golden_total says %llu", path,
                       (unsigned long long)(array ? array->total : p->total), (unsigned long long)info->golden_total);
    if (rc == TEA_OK && pics_has_contexts(p))
        info->contexts = p->contexts.count - 1;
    if (rc == TEA_OK && !keep_contexts) /* the cells were summed as read: the table goes */
        trace_contexts_free(&p->contexts);
done:
    free(lr->line);
    for (size_t i = 0; i < lr->key_count; i++)
        free(lr->keys[i]);
    free(lr);
    if (rc || !groups_out) {
        pics_groups_free(groups, info->groups);
        groups = NULL;
    }
    if (rc) {
        pics_info_free(info);
        pics_free(p);
    }
    if (groups_out)
        *groups_out = groups;
    assert(rc || pics_check(p));
    return rc;
}

/* Opens `path` and reads it with read_stream (the one place a PICS file
 * is opened): pics_read_groups, pics_read_contexts and pics_read_array,
 * which check their arguments (their messages name them). */
static int read_file(const char *path, pics_info *info, pics *p, pics **groups_out, int keep_contexts,
                     cell_array *array)
{
    FILE *f;
    int rc;

    pics_info_init(info);
    if (!(f = fopen(path, "r")))
        return error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    rc = read_stream(f, path, info, p, groups_out, keep_contexts, array);
    fclose(f);
    return rc;
}

/* The arguments every file reader takes, checked in the caller's name. */
#define CHECK_READ_ARGS()                                                                            \
    do {                                                                                             \
        TEA_ASSERT_ARG(path != NULL);                                                                \
        TEA_ASSERT_ARG(info != NULL);                                                                \
        TEA_ASSERT_ARG(p != NULL);                                                                   \
    } while (0)

int pics_read_groups(const char *path, pics_info *info, pics *p, pics **groups_out)
{
    CHECK_READ_ARGS();
    return read_file(path, info, p, groups_out, 0, NULL);
}

int pics_read_contexts(const char *path, pics_info *info, pics *p)
{
    CHECK_READ_ARGS();
    return read_file(path, info, p, NULL, 1, NULL);
}

int pics_read_array(const char *path, pics_info *info, pics *p, pics_cell **cells, size_t *n, uint64_t *total)
{
    cell_array a = { NULL, 0, 0, 0 };
    int rc;

    CHECK_READ_ARGS();
    rc = read_file(path, info, p, NULL, 1, &a);
    *cells = NULL;
    *n = 0;
    *total = 0;
    if (rc) {
        free(a.cells);
        return rc;
    }
    *cells = a.cells;
    *n = a.count;
    *total = a.total;
    return TEA_OK;
}

int pics_read_memory(const void *data, size_t size, const char *name, pics_info *info, pics *p)
{
    return pics_read_groups_memory(data, size, name, info, p, NULL);
}

int pics_read_groups_memory(const void *data, size_t size, const char *name, pics_info *info, pics *p,
                            pics **groups_out)
{
    static char no_bytes[1]; /* what an empty buffer reads from */
    FILE *f;
    int rc;

    TEA_ASSERT_ARG(data != NULL || size == 0);
    TEA_ASSERT_ARG(name != NULL);
    TEA_ASSERT_ARG(info != NULL);
    TEA_ASSERT_ARG(p != NULL);
    pics_info_init(info);
    /* A stream over the caller's bytes, read only ("r"): the same line
     * reader as a file's, so the same cells and the same errors. */
    if (!(f = fmemopen(size ? (void *)(uintptr_t)data : no_bytes, size, "r")))
        return error_set(TEA_ERR_IO, "%s: cannot read from memory: %s", name, strerror(errno));
    rc = read_stream(f, name, info, p, groups_out, 0, NULL);
    fclose(f);
    return rc;
}

int pics_info_same_rules(const pics_info *info, const char *path, const pics_info *golden,
                         const char *golden_path)
{
    if (strcmp(info->golden_rules, golden->golden_rules) != 0)
        return error_set(TEA_ERR_USAGE,
                         "%s follows the %s golden rules, %s the %s ones (tea replay --golden-rules)", path,
                         info->golden_rules, golden_path, golden->golden_rules);
    /* A golden PICS is the same under both sampler rule sets. */
    if (!pics_info_is_golden(info) && !pics_info_is_golden(golden) && strcmp(info->rules, golden->rules) != 0)
        return error_set(TEA_ERR_USAGE, "%s was sampled under the %s rules, %s under the %s ones (tea replay "
                                        "--rules)",
                         path, info->rules, golden_path, golden->rules);
    return TEA_OK;
}

/* --- JSON ------------------------------------------------------------------ */

void pics_json_objects(json_writer *j, const trace_object_list *l)
{
    json_key(j, "thread");
    if (l->threads_seen != TRACE_THREAD_UNKNOWN) {
        json_begin_object(j);
        json_key(j, "id");
        json_u64(j, l->tid);
        json_key(j, "threads");
        json_u64(j, l->threads_seen);
        json_end(j);
    } else {
        json_null(j);
    }
    json_key(j, "objects");
    json_begin_array(j);
    for (size_t i = 0; i < l->count; i++) {
        const trace_object *o = &l->items[i];
        char hex[2 * TRACE_BUILD_ID_MAX + 1];
        trace_object_build_id_hex(o, hex, sizeof hex);
        json_begin_object(j);
        json_key(j, "path");
        json_string(j, o->path);
        json_key(j, "build_id");
        json_string(j, hex[0] ? hex : NULL);
        json_key(j, "load_bias");
        json_u64(j, o->load_bias);
        json_key(j, "start");
        json_u64(j, o->start);
        json_key(j, "end");
        json_u64(j, o->end);
        json_end(j);
    }
    json_end(j);
}

/* Room for a 64-bit number in hex with its 0x. */
#define HEX_U64_MAX 24

/* Writes one member of a PICS's provenance (pics_provenance_json). */
static void provenance_member(json_writer *j, const pics_info *info, const char *path, pics_provenance_member m)
{
    char hex[HEX_U64_MAX];

    if (m >= PICS_PROV_FREQUENCY && pics_info_is_golden(info))
        return; /* sampling's members are a sampled PICS's only */
    switch (m) {
    case PICS_PROV_FILE:
        json_key(j, "file");
        json_string(j, path);
        break;
    case PICS_PROV_SCHEME:
        json_key(j, "scheme");
        json_string(j, info->scheme);
        break;
    case PICS_PROV_TRACE_BEGIN:
        json_key(j, "trace");
        json_begin_object(j);
        break;
    case PICS_PROV_DIGEST:
        json_key(j, "digest");
        json_string(j, info->trace_digest[0] ? info->trace_digest : NULL);
        break;
    case PICS_PROV_FIRST_CYCLE:
        json_key(j, "first_cycle");
        json_u64(j, info->trace_first_cycle);
        break;
    case PICS_PROV_LAST_CYCLE:
        json_key(j, "last_cycle");
        json_u64(j, info->trace_last_cycle);
        break;
    case PICS_PROV_ARCH:
        json_key(j, "arch");
        json_string(j, info->program.arch[0] ? info->program.arch : NULL);
        break;
    case PICS_PROV_BINARY:
        json_key(j, "binary");
        json_string(j, info->program.binary_path);
        break;
    case PICS_PROV_BUILD_ID:
        json_key(j, "build_id");
        json_string(j, info->program.build_id);
        break;
    case PICS_PROV_LOAD_BIAS:
        json_key(j, "load_bias");
        if (info->program.has_load_bias) {
            snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)info->program.load_bias);
            json_string(j, hex);
        } else {
            json_null(j);
        }
        break;
    case PICS_PROV_OBJECTS:
        pics_json_objects(j, &info->objects);
        break;
    case PICS_PROV_TRACE_END:
        json_end(j);
        break;
    case PICS_PROV_TOTAL_CYCLES:
        json_key(j, "total_cycles");
        json_double(j, (double)info->golden_total / (double)(info->unit ? info->unit : PICS_UNIT));
        break;
    case PICS_PROV_FREQUENCY:
        json_key(j, "frequency_hz");
        json_double(j, info->frequency_hz);
        break;
    case PICS_PROV_PERIOD:
        json_key(j, "period");
        json_u64(j, info->period);
        break;
    case PICS_PROV_SEED:
        json_key(j, "seed");
        json_u64(j, info->seed);
        break;
    case PICS_PROV_JITTER:
        json_key(j, "jitter");
        json_string(j, info->jitter);
        break;
    case PICS_PROV_EVENTS:
        json_key(j, "events");
        json_string(j, info->events);
        break;
    case PICS_PROV_SAMPLES:
        json_key(j, "samples");
        json_u64(j, info->samples);
        break;
    case PICS_PROV_LOST:
        json_key(j, "lost");
        json_u64(j, pics_info_lost(info));
        break;
    }
}

void pics_provenance_json(json_writer *j, const pics_info *info, const char *path,
                          const pics_provenance_member *members, size_t count)
{
    for (size_t i = 0; i < count; i++)
        provenance_member(j, info, path, members[i]);
}

/* --- merging ----------------------------------------------------------------- */

/* True when two lists name the same objects in the same order and the same
 * thread. */
/* Whether two objects are one: the same file mapped at the same place. */
static int same_object(const trace_object *x, const trace_object *y)
{
    return strcmp(x->path, y->path) == 0 && x->build_id_len == y->build_id_len
           && memcmp(x->build_id, y->build_id, x->build_id_len) == 0 && x->load_bias == y->load_bias
           && x->start == y->start && x->end == y->end;
}

/* Merges src's objects into dst's. Lists of one address space (the threads
 * of one process: no object of one overlaps another object of the other)
 * give their union, in dst's order then src's new ones; lists that
 * disagree (different runs) give none, as one list cannot describe both.
 * The thread stays when it is the same, else it becomes unknown (a PICS
 * of several threads). 0 or TEA_ERR_NOMEM. */
static int merge_objects(trace_object_list *dst, const trace_object_list *src)
{
    size_t had = dst->count;

    if (dst->tid != src->tid || dst->threads_seen != src->threads_seen) {
        dst->tid = 0;
        dst->threads_seen = TRACE_THREAD_UNKNOWN;
    }
    if ((had == 0) != (src->count == 0)) {
        trace_object_list_free(dst); /* a list against none: unknown */
        return TEA_OK;
    }
    for (size_t i = 0; i < src->count; i++) {
        const trace_object *y = &src->items[i];
        int known = 0, clash = 0;
        for (size_t k = 0; k < had && !known && !clash; k++) {
            const trace_object *x = &dst->items[k];
            known = same_object(x, y);
            clash = !known && x->start < y->end && y->start < x->end;
        }
        if (clash) {
            trace_object_list_free(dst);
            return TEA_OK;
        }
        if (!known) {
            int rc = trace_object_list_add(dst, y);
            if (rc)
                return rc;
        }
    }
    return TEA_OK;
}

int pics_info_merge(pics_info *dst, const pics_info *src)
{
    if (strcmp(dst->scheme, src->scheme) != 0)
        return error_set(TEA_ERR_USAGE, "cannot merge a %s PICS into a %s PICS", src->scheme, dst->scheme);
    if (strcmp(dst->noise_floor_of, src->noise_floor_of) != 0)
        return error_set(TEA_ERR_USAGE, "cannot merge the noise floor of %s with %s",
                         src->noise_floor_of[0] ? src->noise_floor_of : "nothing (a plain PICS)",
                         dst->noise_floor_of[0] ? dst->noise_floor_of : "nothing (a plain PICS)");
    if (strcmp(dst->golden_rules, src->golden_rules) != 0)
        return error_set(TEA_ERR_USAGE,
                         "cannot merge PICS whose golden references follow different rules "
                         "(%s/%s)",
                         dst->golden_rules, src->golden_rules);
    if (strcmp(dst->rules, src->rules) != 0)
        return error_set(TEA_ERR_USAGE, "cannot merge PICS sampled under different rules (%s/%s)", dst->rules,
                         src->rules);
    if (dst->unit != src->unit || dst->period != src->period || dst->seed != src->seed
        || strcmp(dst->jitter, src->jitter) != 0 || dst->event_mask != src->event_mask)
        return error_set(TEA_ERR_USAGE,
                         "cannot merge %s PICS sampled differently (period %llu/%llu, seed "
                         "%llu/%llu, jitter %s/%s, events 0x%x/0x%x)",
                         dst->scheme, (unsigned long long)dst->period, (unsigned long long)src->period,
                         (unsigned long long)dst->seed, (unsigned long long)src->seed, dst->jitter, src->jitter,
                         dst->event_mask, src->event_mask);
    {
        /* The sum of the inputs' digests: merging in any order or grouping
         * gives the same identity, so a golden and a sampled PICS merged from
         * the same traces always pair up. */
        uint64_t h = strtoull(dst->trace_digest, NULL, 16) + strtoull(src->trace_digest, NULL, 16);
        snprintf(dst->trace_digest, sizeof dst->trace_digest, "%016llx", (unsigned long long)h);
    }
    if (src->trace_first_cycle < dst->trace_first_cycle)
        dst->trace_first_cycle = src->trace_first_cycle;
    if (src->trace_last_cycle > dst->trace_last_cycle)
        dst->trace_last_cycle = src->trace_last_cycle;
    dst->trace_records += src->trace_records;
    /* objects of different programs are different address spaces, whatever their places */
    int other_program = (dst->program.binary_path == NULL) != (src->program.binary_path == NULL)
                        || (dst->program.binary_path && strcmp(dst->program.binary_path, src->program.binary_path) != 0);
    if (other_program)
        trace_object_list_free(&dst->objects);
    if (!dst->program.binary_path || !src->program.binary_path || strcmp(dst->program.binary_path, src->program.binary_path) != 0) {
        free(dst->program.binary_path);
        free(dst->program.build_id);
        dst->program.binary_path = dst->program.build_id = NULL;
        dst->program.has_load_bias = 0;
    }
    {
        int rc = merge_objects(&dst->objects, &src->objects);
        if (rc)
            return rc;
    }
    if (dst->golden_total + src->golden_total < dst->golden_total || dst->samples + src->samples < dst->samples)
        return error_set(TEA_ERR_UNSUPPORTED,
                         "the merged golden total would exceed 2^64 units (%llu cycles): "
                         "refused rather than wrapped",
                         (unsigned long long)(UINT64_MAX / PICS_UNIT));
    dst->golden_total += src->golden_total;
    dst->samples += src->samples;
    for (int i = 0; i < PICS_LOST_REASONS; i++)
        dst->lost[i] += src->lost[i];
    dst->merged += src->merged;
    return TEA_OK;
}
