/*
 * config.c: `key = value` configuration of the model (see config.h).
 *
 * One table lists every key with its type, the field it sets (an offset into
 * mconf), its range and a one-line description; parsing, range checks and
 * model_config_write all read the table, so a new parameter is one table line.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "common/error.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* Core defaults (the TEA paper's BOOM). */
#define CORE_WIDTH 4
#define CORE_FETCH_WIDTH 8
#define CORE_ROB 192
#define CORE_LSQ 64
#define CORE_FETCH_BUFFER 32
#define CORE_FRONTEND_LATENCY 3
#define CORE_REDIRECT_PENALTY 10
#define CORE_FLUSH_PENALTY 12
#define CORE_EXCEPTION_PENALTY 40
#define CORE_MISFETCH_PENALTY 2
#define LAT_INT 1
#define LAT_MUL 3
#define LAT_DIV 16
#define LAT_FP_ADD 4
#define LAT_FP_MUL 4
#define LAT_FP_DIV 14
#define LAT_FP_SQRT 20

/* Generous upper bounds for values checked at parse time. */
#define MAX_COUNT 1000000ull          /* entries, widths, cycles of one step */
#define MAX_LATENCY 100000ull         /* cycles */
#define MAX_BYTES (64ull * GIB)
#define MAX_LINE_BYTES 4096ull

/* Longest value text a message quotes. */
#define QUOTE_MAX 40

typedef enum key_type {
    KEY_UINT,     /* unsigned */
    KEY_U64,      /* uint64_t */
    KEY_BYTES,    /* uint64_t, binary suffixes allowed */
    KEY_UBYTES,   /* unsigned, binary suffixes allowed */
    KEY_BOOL,     /* unsigned 0/1 */
    KEY_PREDICTOR /* unsigned model_bpred_algorithm */
} key_type;

typedef struct key_info {
    const char *name;
    key_type type;
    size_t offset;           /* into mconf */
    uint64_t min, max;       /* accepted range */
    const char *help;
} key_info;

#define CORE(field) offsetof(model_config, core.field)
#define MEM(field) offsetof(model_config, mem.field)
#define TLB(field) offsetof(model_config, tlb.field)
#define BP(field) offsetof(model_config, bpred.field)

static const key_info keys[] = {
    { "core.width", KEY_UINT, CORE(width), 1, 64, "dispatch/commit width: µops per ROB row" },
    { "core.fetch_width", KEY_UINT, CORE(fetch_width), 1, 64, "µops fetched per cycle" },
    { "core.rob_size", KEY_UINT, CORE(rob_size), 2, MAX_COUNT, "ROB entries (a multiple of core.width)" },
    { "core.lsq_size", KEY_UINT, CORE(lsq_size), 1, MAX_COUNT, "load/store queue entries" },
    { "core.fetch_buffer", KEY_UINT, CORE(fetch_buffer), 1, MAX_COUNT, "fetch buffer entries (µops)" },
    { "core.frontend_latency", KEY_UINT, CORE(frontend_latency), 0, MAX_LATENCY, "cycles from fetch to dispatch" },
    { "core.redirect_penalty", KEY_UINT, CORE(redirect_penalty), 0, MAX_LATENCY,
      "cycles to refetch after a resolved misprediction" },
    { "core.flush_penalty", KEY_UINT, CORE(flush_penalty), 0, MAX_LATENCY,
      "cycles to refetch after a flush at commit" },
    { "core.exception_penalty", KEY_UINT, CORE(exception_penalty), 0, MAX_LATENCY,
      "cycles a trap takes before the handler returns" },
    { "core.misfetch_penalty", KEY_UINT, CORE(misfetch_penalty), 0, MAX_LATENCY,
      "front-end bubble when decode redirects a branch the BTB did not know" },
    { "core.page_faults", KEY_BOOL, CORE(page_faults), 0, 1, "the first touch of each data page raises an exception" },
    { "core.lat_int", KEY_UINT, CORE(lat_int), 1, MAX_LATENCY, "integer ALU latency (cycles)" },
    { "core.lat_mul", KEY_UINT, CORE(lat_mul), 1, MAX_LATENCY, "integer multiply latency (cycles)" },
    { "core.lat_div", KEY_UINT, CORE(lat_div), 1, MAX_LATENCY, "integer divide latency (cycles)" },
    { "core.lat_fp_add", KEY_UINT, CORE(lat_fp_add), 1, MAX_LATENCY, "FP add latency (cycles)" },
    { "core.lat_fp_mul", KEY_UINT, CORE(lat_fp_mul), 1, MAX_LATENCY, "FP multiply latency (cycles)" },
    { "core.lat_fp_div", KEY_UINT, CORE(lat_fp_div), 1, MAX_LATENCY, "FP divide latency (cycles)" },
    { "core.lat_fp_sqrt", KEY_UINT, CORE(lat_fp_sqrt), 1, MAX_LATENCY, "FP square root latency (cycles)" },

    { "l1i.size", KEY_BYTES, MEM(l1i.size), 1, MAX_BYTES, "L1 instruction cache capacity (bytes)" },
    { "l1i.ways", KEY_UINT, MEM(l1i.ways), 1, MODEL_CACHE_MAX_WAYS, "L1 I associativity" },
    { "l1i.line_size", KEY_UBYTES, MEM(l1i.line_size), 1, MAX_LINE_BYTES, "L1 I line (bytes)" },
    { "l1i.mshrs", KEY_UINT, MEM(l1i.mshrs), 0, MODEL_CACHE_MAX_MSHRS, "L1 I outstanding misses (0: unbounded)" },
    { "l1i.prefetch", KEY_BOOL, MEM(l1i.prefetch), 0, 1, "L1 I next-line prefetcher" },
    { "l1i.latency", KEY_UINT, MEM(l1i_latency), 0, MAX_LATENCY, "front-end stall of an L1 I hit (cycles)" },
    { "l1d.size", KEY_BYTES, MEM(l1d.size), 1, MAX_BYTES, "L1 data cache capacity (bytes)" },
    { "l1d.ways", KEY_UINT, MEM(l1d.ways), 1, MODEL_CACHE_MAX_WAYS, "L1 D associativity" },
    { "l1d.line_size", KEY_UBYTES, MEM(l1d.line_size), 1, MAX_LINE_BYTES, "L1 D line (bytes)" },
    { "l1d.mshrs", KEY_UINT, MEM(l1d.mshrs), 0, MODEL_CACHE_MAX_MSHRS, "L1 D outstanding misses (0: unbounded)" },
    { "l1d.prefetch", KEY_BOOL, MEM(l1d.prefetch), 0, 1, "L1 D next-line prefetcher" },
    { "l1d.latency", KEY_UINT, MEM(l1d_latency), 0, MAX_LATENCY, "load-to-use latency of an L1 D hit (cycles)" },
    { "llc.size", KEY_BYTES, MEM(llc.size), 1, MAX_BYTES, "shared last-level cache capacity (bytes)" },
    { "llc.ways", KEY_UINT, MEM(llc.ways), 1, MODEL_CACHE_MAX_WAYS, "LLC associativity" },
    { "llc.line_size", KEY_UBYTES, MEM(llc.line_size), 1, MAX_LINE_BYTES, "LLC line (bytes; equal to the L1s')" },
    { "llc.mshrs", KEY_UINT, MEM(llc.mshrs), 0, MODEL_CACHE_MAX_MSHRS, "LLC outstanding misses (0: unbounded)" },
    { "llc.prefetch", KEY_BOOL, MEM(llc.prefetch), 0, 1, "LLC next-line prefetcher" },
    { "llc.latency", KEY_UINT, MEM(llc_latency), 0, MAX_LATENCY, "cycles an L1 miss served by the LLC adds" },
    { "dram.latency", KEY_UINT, MEM(dram_latency), 0, MAX_LATENCY, "cycles an LLC miss adds" },

    { "tlb.page_size", KEY_UBYTES, TLB(page_size), 1, GIB, "page size (bytes)" },
    { "tlb.walk_latency", KEY_UINT, TLB(walk_latency), 0, MAX_LATENCY, "cycles of a page walk (fixed-latency walks)" },
    { "tlb.walkers", KEY_UINT, TLB(walkers), 1, MODEL_CACHE_MAX_MSHRS, "page walks in flight at once" },
    { "tlb.walk_through_memory", KEY_BOOL, TLB(walk_through_memory), 0, 1,
      "walks load page-table entries through the data caches instead of tlb.walk_latency" },
    { "itlb.entries", KEY_UINT, TLB(itlb_entries), 1, MAX_COUNT, "L1 instruction TLB entries" },
    { "itlb.ways", KEY_UINT, TLB(itlb_ways), 1, MODEL_CACHE_MAX_WAYS,
      "L1 I-TLB associativity (= entries: fully associative)" },
    { "dtlb.entries", KEY_UINT, TLB(dtlb_entries), 1, MAX_COUNT, "L1 data TLB entries" },
    { "dtlb.ways", KEY_UINT, TLB(dtlb_ways), 1, MODEL_CACHE_MAX_WAYS, "L1 D-TLB associativity" },
    { "l2tlb.entries", KEY_UINT, TLB(l2_entries), 1, MAX_COUNT, "shared L2 TLB entries" },
    { "l2tlb.ways", KEY_UINT, TLB(l2_ways), 1, MODEL_CACHE_MAX_WAYS, "L2 TLB associativity" },
    { "l2tlb.latency", KEY_UINT, TLB(l2_latency), 0, MAX_LATENCY, "cycles an L1 TLB miss that hits the L2 TLB adds" },

    { "bpred.predictor", KEY_PREDICTOR, BP(predictor), 0, 1, "direction predictor: gshare or tage" },
    { "bpred.gshare_log_size", KEY_UINT, BP(gshare_log_size), 1, 24, "log2 of the gshare counters" },
    { "bpred.gshare_history", KEY_UINT, BP(gshare_history), 0, 64, "gshare global history bits" },
    { "bpred.bimodal_log_size", KEY_UINT, BP(bimodal_log_size), 1, 24, "log2 of the TAGE bimodal counters" },
    { "bpred.tage_tables", KEY_UINT, BP(tage_tables), 1, MODEL_BPRED_TAGE_MAX_TABLES, "TAGE tagged tables" },
    { "bpred.tage_log_size", KEY_UINT, BP(tage_log_size), 1, 20, "log2 entries per TAGE tagged table" },
    { "bpred.tage_tag_bits", KEY_UINT, BP(tage_tag_bits), 4, 16, "TAGE tag bits" },
    { "bpred.tage_min_history", KEY_UINT, BP(tage_min_history), 1, MODEL_BPRED_MAX_HISTORY,
      "history of the shortest TAGE table (conditional branches)" },
    { "bpred.tage_max_history", KEY_UINT, BP(tage_max_history), 1, MODEL_BPRED_MAX_HISTORY,
      "history of the longest TAGE table (geometric series between)" },
    { "bpred.btb_entries", KEY_UINT, BP(btb_entries), 1, MAX_COUNT, "branch target buffer entries" },
    { "bpred.btb_ways", KEY_UINT, BP(btb_ways), 1, 64, "BTB associativity" },
    { "bpred.ras_entries", KEY_UINT, BP(ras_entries), 0, 4096, "return address stack entries (0: none)" },
    { "bpred.seed", KEY_U64, BP(seed), 0, UINT64_MAX, "seed of the TAGE allocation tie-breaks" },
};
#define KEY_COUNT (sizeof keys / sizeof keys[0])

void model_config_defaults(model_config *c)
{
    memset(c, 0, sizeof *c);
    c->core.width = CORE_WIDTH;
    c->core.fetch_width = CORE_FETCH_WIDTH;
    c->core.rob_size = CORE_ROB;
    c->core.lsq_size = CORE_LSQ;
    c->core.fetch_buffer = CORE_FETCH_BUFFER;
    c->core.frontend_latency = CORE_FRONTEND_LATENCY;
    c->core.redirect_penalty = CORE_REDIRECT_PENALTY;
    c->core.flush_penalty = CORE_FLUSH_PENALTY;
    c->core.exception_penalty = CORE_EXCEPTION_PENALTY;
    c->core.misfetch_penalty = CORE_MISFETCH_PENALTY;
    c->core.page_faults = 1;
    c->core.lat_int = LAT_INT;
    c->core.lat_mul = LAT_MUL;
    c->core.lat_div = LAT_DIV;
    c->core.lat_fp_add = LAT_FP_ADD;
    c->core.lat_fp_mul = LAT_FP_MUL;
    c->core.lat_fp_div = LAT_FP_DIV;
    c->core.lat_fp_sqrt = LAT_FP_SQRT;
    model_mem_config_defaults(&c->mem);
    model_tlb_config_defaults(&c->tlb);
    model_bpred_config_defaults(&c->bpred);
}

int model_config_check(const model_config *c)
{
    const model_config_core *k = &c->core;
    int rc;
    if (k->width < 1 || k->rob_size < 2 * k->width || k->rob_size % k->width)
        return error_set(TEA_ERR_USAGE, "core.rob_size %u must be a multiple of core.width %u, two rows at least",
                         k->rob_size, k->width);
    if (k->fetch_width < 1 || k->fetch_buffer < k->fetch_width)
        return error_set(TEA_ERR_USAGE, "core.fetch_buffer %u must hold core.fetch_width %u µops", k->fetch_buffer,
                         k->fetch_width);
    if (k->lsq_size < 1)
        return error_set(TEA_ERR_USAGE, "core.lsq_size must be positive");
    if ((rc = model_mem_config_check(&c->mem)) || (rc = model_tlb_config_check(&c->tlb))
        || (rc = model_bpred_config_check(&c->bpred)))
        return rc;
    return TEA_OK;
}

static const key_info *find_key(const char *name)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (!strcmp(keys[i].name, name))
            return &keys[i];
    return NULL;
}

/* Parses an unsigned integer (decimal or 0x hex) with an optional binary
 * size suffix when `sizes` is set: 1 when `text` is one, 0 when it is not. */
static int parse_number(const char *text, int sizes, uint64_t *out)
{
    static const struct { const char *suffix; uint64_t scale; } suffixes[] = {
        { "", 1 }, { "k", KIB }, { "kib", KIB }, { "m", MIB }, { "mib", MIB }, { "g", GIB }, { "gib", GIB },
    };
    char *end;
    unsigned long long v;

    if (!isdigit((unsigned char)text[0]))
        return 0; /* no sign, no space */
    errno = 0;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        if (!isxdigit((unsigned char)text[2]))
            return 0;
        v = strtoull(text + 2, &end, 16);
    } else {
        v = strtoull(text, &end, 10); /* no octal: "010" is ten */
    }
    if (errno || end == text)
        return 0;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcasecmp(end, suffixes[i].suffix))
            continue;
        if (i > 0 && !sizes)
            return 0;
        if (v > UINT64_MAX / suffixes[i].scale)
            return 0;
        *out = v * suffixes[i].scale;
        return 1;
    }
    return 0;
}

/* Parses a boolean (1/0, true/false, yes/no, on/off): 1 when `text` is one,
 * 0 when it is not. */
static int parse_bool(const char *text, uint64_t *out)
{
    static const char *const yes[] = { "1", "true", "yes", "on" };
    static const char *const no[] = { "0", "false", "no", "off" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcasecmp(text, yes[i])) {
            *out = 1;
            return 1;
        }
        if (!strcasecmp(text, no[i])) {
            *out = 0;
            return 1;
        }
    }
    return 0;
}

static const char *type_description(key_type t)
{
    switch (t) {
    case KEY_BYTES:
    case KEY_UBYTES:
        return "a size in bytes (e.g. 32768, 32KiB, 2M)";
    case KEY_BOOL:
        return "0/1, true/false, yes/no or on/off";
    case KEY_PREDICTOR:
        return "gshare or tage";
    default:
        return "an unsigned integer";
    }
}

int model_config_set(model_config *c, const char *key, const char *value, const char *where)
{
    const key_info *k = find_key(key);
    uint64_t v = 0;
    int ok;
    char *field;

    if (!k)
        return error_set(TEA_ERR_USAGE, "%s: unknown key '%s'", where, key);
    switch (k->type) {
    case KEY_BOOL:
        ok = parse_bool(value, &v);
        break;
    case KEY_PREDICTOR:
        ok = 1;
        if (!strcasecmp(value, "gshare"))
            v = MODEL_BPRED_GSHARE;
        else if (!strcasecmp(value, "tage"))
            v = MODEL_BPRED_TAGE;
        else
            ok = 0;
        break;
    default:
        ok = parse_number(value, k->type == KEY_BYTES || k->type == KEY_UBYTES, &v);
        break;
    }
    if (!ok)
        return error_set(TEA_ERR_USAGE, "%s: bad value '%.*s' for %s: expected %s", where, QUOTE_MAX, value, key,
                         type_description(k->type));
    if (v < k->min || v > k->max)
        return error_set(TEA_ERR_USAGE, "%s: %s = %llu is outside %llu-%llu", where, key, (unsigned long long)v,
                         (unsigned long long)k->min, (unsigned long long)k->max);
    /* The key table's field lies inside the configuration. */
    assert(k->offset + (k->type == KEY_U64 || k->type == KEY_BYTES ? sizeof v : sizeof(unsigned)) <= sizeof *c);
    field = (char *)c + k->offset;
    if (k->type == KEY_U64 || k->type == KEY_BYTES)
        memcpy(field, &v, sizeof v);
    else {
        assert(k->max <= UINT_MAX); /* the key table: an unsigned field's range fits it */
        unsigned u = (unsigned)v;
        memcpy(field, &u, sizeof u);
    }
    return TEA_OK;
}

/* Trims leading and trailing white space of [*s, *e). */
static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* Parses one line [s, e) (comment included); `where` names it in errors.
 * Blank and comment-only lines do nothing. */
static int parse_line(model_config *c, const char *s, const char *e, const char *where)
{
    const char *hash = memchr(s, '#', (size_t)(e - s));
    const char *eq, *ks, *ke, *vs, *ve;
    char key[128], value[128];

    if (hash)
        e = hash;
    trim(&s, &e);
    if (s == e)
        return TEA_OK;
    eq = memchr(s, '=', (size_t)(e - s));
    if (!eq)
        return error_set(TEA_ERR_USAGE, "%s: expected 'key = value'", where);
    ks = s;
    ke = eq;
    vs = eq + 1;
    ve = e;
    trim(&ks, &ke);
    trim(&vs, &ve);
    if (ks == ke || vs == ve)
        return error_set(TEA_ERR_USAGE, "%s: expected 'key = value'", where);
    if ((size_t)(ke - ks) >= sizeof key || (size_t)(ve - vs) >= sizeof value)
        return error_set(TEA_ERR_USAGE, "%s: key or value too long", where);
    memcpy(key, ks, (size_t)(ke - ks));
    key[ke - ks] = '\0';
    memcpy(value, vs, (size_t)(ve - vs));
    value[ve - vs] = '\0';
    return model_config_set(c, key, value, where);
}

int model_config_set_string(model_config *c, const char *assignment)
{
    char where[64];
    snprintf(where, sizeof where, "--set '%.*s'", QUOTE_MAX, assignment);
    if (!strchr(assignment, '='))
        return error_set(TEA_ERR_USAGE, "%s: expected key=value", where);
    return parse_line(c, assignment, assignment + strlen(assignment), where);
}

int model_config_parse_text(model_config *c, const char *text, const char *name)
{
    const char *s = text;
    unsigned long line = 1;
    char where[512];

    TEA_ASSERT_ARG(c != NULL);
    TEA_ASSERT_ARG(text != NULL);
    TEA_ASSERT_ARG(name != NULL);
    while (*s) {
        const char *e = strchr(s, '\n');
        int rc;
        if (!e)
            e = s + strlen(s);
        snprintf(where, sizeof where, "%s:%lu", name, line);
        if ((rc = parse_line(c, s, e, where)))
            return rc;
        if (!*e)
            break;
        s = e + 1;
        line++;
    }
    return TEA_OK;
}

/* Largest core configuration file read (bytes): a page of text is typical. */
#define CONFIG_MAX_FILE_BYTES (1u << 20)

int model_config_load(model_config *c, const char *path)
{
    FILE *f;
    char *text = NULL;
    size_t size = 0, cap = 0;
    int rc;

    TEA_ASSERT_ARG(c != NULL);
    TEA_ASSERT_ARG(path != NULL);
    if (!(f = fopen(path, "rb")))
        return error_set(TEA_ERR_IO, "%s: %s", path, strerror(errno));
    for (;;) {
        size_t n;
        if (cap - size < 2) {
            char *t;
            cap = cap ? 2 * cap : 4096;
            t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                return error_set(TEA_ERR_NOMEM, "%s: out of memory", path);
            }
            text = t;
        }
        n = fread(text + size, 1, cap - size - 1, f);
        size += n;
        if (n == 0)
            break;
        if (size > CONFIG_MAX_FILE_BYTES) {
            free(text);
            fclose(f);
            return error_set(TEA_ERR_USAGE, "%s: larger than %u bytes: not a core configuration", path,
                             CONFIG_MAX_FILE_BYTES);
        }
    }
    if (ferror(f)) {
        free(text);
        fclose(f);
        return error_set(TEA_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    text[size] = '\0';
    if (strlen(text) != size) {
        free(text);
        return error_set(TEA_ERR_USAGE, "%s: not a text file (NUL byte)", path);
    }
    rc = model_config_parse_text(c, text, path);
    free(text);
    return rc;
}

/* Formats a byte count with the largest exact binary suffix. */
static void format_bytes(uint64_t v, char *buf, size_t size)
{
    if (v && v % GIB == 0)
        snprintf(buf, size, "%lluGiB", (unsigned long long)(v / GIB));
    else if (v && v % MIB == 0)
        snprintf(buf, size, "%lluMiB", (unsigned long long)(v / MIB));
    else if (v && v % KIB == 0)
        snprintf(buf, size, "%lluKiB", (unsigned long long)(v / KIB));
    else
        snprintf(buf, size, "%llu", (unsigned long long)v);
}

int model_config_write(const model_config *c, FILE *out)
{
    const char *group = "";
    size_t group_len = 0;

    fprintf(out, "# Model configuration (key = value; '#' starts a comment).\n");
    for (size_t i = 0; i < KEY_COUNT; i++) {
        const key_info *k = &keys[i];
        const char *field = (const char *)c + k->offset;
        size_t len = (size_t)(strchr(k->name, '.') - k->name);
        char value[64];
        uint64_t v64;
        unsigned u;

        if (len != group_len || strncmp(group, k->name, len)) {
            fputc('\n', out);
            group = k->name;
            group_len = len;
        }
        if (k->type == KEY_U64 || k->type == KEY_BYTES) {
            memcpy(&v64, field, sizeof v64);
        } else {
            memcpy(&u, field, sizeof u);
            v64 = u;
        }
        switch (k->type) {
        case KEY_BYTES:
        case KEY_UBYTES:
            format_bytes(v64, value, sizeof value);
            break;
        case KEY_PREDICTOR: snprintf(value, sizeof value, "%s", v64 == MODEL_BPRED_GSHARE ? "gshare" : "tage"); break;
        default:
            snprintf(value, sizeof value, "%llu", (unsigned long long)v64);
            break;
        }
        fprintf(out, "%-28s = %-8s # %s\n", k->name, value, k->help);
    }
    if (fflush(out) || ferror(out))
        return error_set(TEA_ERR_IO, "writing the configuration failed");
    return TEA_OK;
}
