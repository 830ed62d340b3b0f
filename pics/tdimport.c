/*
 * tdimport.c: TraceDoctor workers' CSVs as PICS (see tdimport.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "tdimport.h"
#include "scheme.h"
#include "common/error.h"
#include "common/textline.h"
#include "trace/psv.h"
#include "trace/trace.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The golden file's cycles are multiples of 1/24 of a cycle. */
#define GOLD_PARTS 24u
_Static_assert(PICS_UNIT % GOLD_PARTS == 0, "a 24th of a cycle is whole units");
/* How far a printed multiple of 1/24 may lie from one (%f rounds to 10^-6). */
#define GOLD_TOLERANCE 1e-3
/* Fields of a sampler line: cycle, stall latency, flags, then four slots. */
#define SAMPLER_SLOTS 4
#define SAMPLER_SLOT_FIELDS 4
#define SAMPLER_FIELDS (3 + SAMPLER_SLOTS * SAMPLER_SLOT_FIELDS)
/* teaflags: the listed slots, and the commit states that give address0 the whole sample. */
#define TEAFLAGS_SLOTS 0x0Fu
#define TEAFLAGS_STATES 0x70u

static const char *const kind_names[PICS_TD_KIND_COUNT] = { "tea_gold", "tea_sampler", "pebs_sampler",
                                                            "ibs_sampler" };
static const pics_scheme kind_schemes[PICS_TD_KIND_COUNT] = { PICS_SCHEME_GOLDEN, PICS_SCHEME_TEA,
                                                              PICS_SCHEME_NCI, PICS_SCHEME_IBS };

int pics_td_kind_parse(const char *name, pics_td_kind *kind)
{
    for (int k = 0; k < PICS_TD_KIND_COUNT; k++) {
        if (strcmp(name, kind_names[k]) == 0) {
            *kind = (pics_td_kind)k;
            return TEA_OK;
        }
    }
    return error_set(TEA_ERR_USAGE, "unknown TraceDoctor worker '%s' (tea_gold, tea_sampler, pebs_sampler or "
                                    "ibs_sampler)",
                     name);
}

/* One file being read. */
typedef struct importer {
    const char *path;
    FILE *f;
    char *line;
    size_t cap;
    unsigned long number;   /* the line's, from 1 */
    pics *p;
    uint16_t mask;          /* the scheme's events */
    uint64_t samples;
} importer;

static int line_error(const importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int line_error(const importer *im, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_set(TEA_ERR_FORMAT, "%s: line %lu: %s", im->path, im->number, what);
}

/* The next line: 1, 0 at the end, or a negative TEA_ERR_* (message set). */
static int next_line(importer *im)
{
    size_t len;
    int r = textline_read(im->f, &im->line, &im->cap, TEXTLINE_MAX, &len);
    im->number++;
    if (r == TEXTLINE_OK) {
        if (len && im->line[len - 1] == '\r')
            im->line[len - 1] = '\0';
        return 1;
    }
    if (r == TEXTLINE_EOF)
        return 0;
    if (r == TEXTLINE_NOMEM)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (r == TEXTLINE_IO)
        return error_set(TEA_ERR_IO, "%s: read failed: %s", im->path, strerror(errno));
    return line_error(im, r == TEXTLINE_NUL ? "a NUL byte (not a text file)" : "longer than " TEXTLINE_MAX_TEXT
                                                                                " bytes");
}

/* A whole unsigned number, decimal or 0x-hex: 1 when `s` is one. */
static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return 0;
    errno = 0;
    *v = strtoull(s, &end, base);
    return !*end && errno == 0;
}

/* Splits `line` at ';' into at most `max` fields; the count, or max + 1
 * when there are more. */
static size_t split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    for (char *at = line;; at++) {
        char *end = strchr(at, ';');
        if (n == max)
            return max + 1;
        fields[n++] = at;
        if (!end)
            return n;
        *end = '\0';
        at = end;
    }
}

/* Adds `value` units to (pc, the signature's PSV masked to the scheme). */
static int add_cell(importer *im, uint64_t pc, uint64_t signature, uint64_t value, uint64_t count)
{
    uint16_t psv = (uint16_t)(trace_td_signature_psv((uint32_t)signature) & im->mask);
    if (im->p->total + value < im->p->total)
        return line_error(im, "the cycles overflow a PICS");
    return pics_add(im->p, pc, psv, value, count);
}

/* "SIG:CYCLES": CYCLES as whole 24ths of a cycle. */
static int parse_gold_entry(importer *im, char *entry, uint64_t *signature, uint64_t *parts)
{
    char *colon = strchr(entry, ':'), *end;
    double cycles, scaled;
    if (!colon)
        return line_error(im, "'%.40s' is not SIGNATURE:CYCLES", entry);
    *colon = '\0';
    if (!parse_u64(entry, signature) || *signature > UINT16_MAX)
        return line_error(im, "signature '%.40s' is not a 16-bit number", entry);
    errno = 0;
    cycles = strtod(colon + 1, &end);
    scaled = cycles * GOLD_PARTS;
    if (end == colon + 1 || *end || errno || !(cycles >= 0) || scaled > 1e18
        || fabs(scaled - floor(scaled + 0.5)) > GOLD_TOLERANCE)
        return line_error(im, "cycles '%.40s' are not a multiple of 1/24", colon + 1);
    *parts = (uint64_t)floor(scaled + 0.5);
    return TEA_OK;
}

/* One tea_gold line: "0xADDR;SIG:CYCLES/SIG:CYCLES/...". */
static int gold_line(importer *im)
{
    char *fields[3], *save = NULL;
    uint64_t pc;
    if (split(im->line, fields, 2) != 2 || !parse_u64(fields[0], &pc))
        return line_error(im, "expected ADDRESS;SIGNATURE:CYCLES/...");
    for (char *e = strtok_r(fields[1], "/", &save); e; e = strtok_r(NULL, "/", &save)) {
        uint64_t signature = 0, parts = 0;
        int rc;
        if ((rc = parse_gold_entry(im, e, &signature, &parts))
            || (rc = add_cell(im, pc, signature, parts * (PICS_UNIT / GOLD_PARTS), 0)))
            return rc;
    }
    return TEA_OK;
}

/* One sampler line: one sample, by the worker's rule (tdimport.h). */
static int sampler_line(importer *im, pics_td_kind kind)
{
    char *f[SAMPLER_FIELDS + 1];
    uint64_t v[SAMPLER_FIELDS], listed = 0;
    int rc;

    if (split(im->line, f, SAMPLER_FIELDS) != SAMPLER_FIELDS)
        return line_error(im, "expected %d fields separated by ';'", SAMPLER_FIELDS);
    for (int i = 0; i < SAMPLER_FIELDS; i++)
        if (!parse_u64(f[i], &v[i]))
            return line_error(im, "field %d, '%.40s', is not a number", i + 1, f[i]);
    for (int s = 0; s < SAMPLER_SLOTS; s++)
        listed += (v[2] >> s) & 1u;
    if (!(v[2] & 1u))
        return line_error(im, "teaflags 0x%llx list no first slot", (unsigned long long)v[2]);
    im->samples++;
    if (kind != PICS_TD_TEA || (v[2] & TEAFLAGS_STATES))
        return add_cell(im, v[3], v[6], PICS_UNIT, 1);
    for (int s = 0; s < SAMPLER_SLOTS; s++) {
        const uint64_t *slot = &v[3 + s * SAMPLER_SLOT_FIELDS];
        if (((v[2] & TEAFLAGS_SLOTS) >> s) & 1u && (rc = add_cell(im, slot[0], slot[3], PICS_UNIT / listed, 1)))
            return rc;
    }
    return TEA_OK;
}

/* The provenance of an import. */
static int describe(const pics_td_import_options *o, pics_td_kind kind, const importer *im, pics_info *info)
{
    int rc;
    pics_scheme scheme = kind_schemes[kind];

    pics_info_init(info);
    if (o->like) {
        if ((rc = pics_info_copy(info, o->like)))
            return rc;
        info->period = info->seed = info->samples = 0;
        info->frequency_hz = 0;
        info->merged = 1;
        info->groups = 0;
        info->noise_floor_of[0] = '\0';
        memset(info->lost, 0, sizeof info->lost);
    } else {
        info->clock_hz = o->clock_hz;
    }
    snprintf(info->scheme, sizeof info->scheme, "%s", pics_scheme_name(scheme));
    snprintf(info->golden_rules, sizeof info->golden_rules, "%s", PICS_RULES_TRACEDOCTOR);
    /* the samplers' rules are the workers' own; a golden PICS has none */
    snprintf(info->rules, sizeof info->rules, "%s",
             scheme == PICS_SCHEME_GOLDEN ? PICS_GOLDEN_RULES_DEFAULT : PICS_RULES_TRACEDOCTOR);
    info->event_mask = scheme == PICS_SCHEME_GOLDEN ? TRACE_PSV_MASK_ALL : pics_scheme_native_events(scheme);
    if (scheme == PICS_SCHEME_GOLDEN) {
        snprintf(info->events, sizeof info->events, "all");
        info->jitter[0] = '\0';
        info->golden_total = im->p->total;
        return TEA_OK;
    }
    snprintf(info->events, sizeof info->events, "native");
    snprintf(info->jitter, sizeof info->jitter, "%s", pics_jitter_name(PICS_JITTER_NONE));
    info->period = o->period;
    info->frequency_hz = (double)info->clock_hz / (double)o->period;
    info->samples = im->samples;
    if (!o->like)
        info->golden_total = 0;
    return TEA_OK;
}

int pics_td_import(const char *path, pics_td_kind kind, const pics_td_import_options *o, pics_info *info, pics *p)
{
    static const char *const headers[PICS_TD_KIND_COUNT] = { "address;signatures", "cycle;", "cycle;", "cycle;" };
    importer im = { 0 };
    int rc, r;

    pics_info_init(info);
    if (kind != PICS_TD_GOLD && o->period == 0)
        return error_set(TEA_ERR_USAGE, "%s: a %s file needs its sampling period", path, kind_names[kind]);
    if ((rc = pics_init(p)))
        return rc;
    im.path = path;
    im.p = p;
    im.mask = kind == PICS_TD_GOLD ? TRACE_PSV_MASK_ALL : pics_scheme_native_events(kind_schemes[kind]);
    if (!(im.f = fopen(path, "r"))) {
        pics_free(p);
        return error_set(TEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    if ((r = next_line(&im)) <= 0 || strncmp(im.line, headers[kind], strlen(headers[kind])) != 0)
        rc = r < 0 ? r : line_error(&im, "not a %s file (its header starts '%s')", kind_names[kind], headers[kind]);
    while (rc == TEA_OK && (r = next_line(&im)) != 0) {
        if (r < 0)
            rc = r;
        else if (im.line[0])
            rc = kind == PICS_TD_GOLD ? gold_line(&im) : sampler_line(&im, kind);
    }
    if (rc == TEA_OK)
        rc = describe(o, kind, &im, info);
    fclose(im.f);
    free(im.line);
    if (rc) {
        pics_info_free(info);
        pics_free(p);
    }
    return rc;
}
