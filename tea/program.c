/*
 * program.c: a program's replay from its cores (see program.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "program.h"
#include "common/error.h"
#include "common/search.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tea_program_init(tea_program *p, const char *name)
{
    memset(p, 0, sizeof *p);
    trace_header_init(&p->header);
    snprintf(p->name, sizeof p->name, "%s", name);
}

void tea_program_name(const char *const *paths, const char *from_dir, char *buf, size_t size)
{
    char *c;
    if (from_dir) {
        tea_run_trace_name(from_dir, buf, size);
        return;
    }
    tea_run_trace_name(paths[0], buf, size);
    if ((c = strrchr(buf, '-')) && c[1] == 'C' && c[2] && strspn(c + 2, "0123456789") == strlen(c + 2))
        *c = '\0';
}

void tea_program_core_names(const char *const *paths, size_t count, char (*names)[TEA_RUN_NAME_MAX])
{
    for (size_t k = 0; k < count; k++)
        tea_run_trace_name(paths[k], names[k], TEA_RUN_NAME_MAX);
    for (size_t k = 0; k < count; k++) {
        int clash = 0;
        for (size_t j = 0; j < count && !clash; j++)
            clash = j != k && strcmp(names[j], names[k]) == 0;
        if (clash) {
            char base[TEA_RUN_NAME_MAX];
            memcpy(base, names[k], sizeof base);
            snprintf(names[k], TEA_RUN_NAME_MAX, "%.100s-%zu", base, k + 1);
        }
    }
}

/* The cores' extents summed: their cycles, and their clock and a cycle's
 * weight, which must agree. `indexed_only`: from the indexes alone
 * (TEA_ERR_UNSUPPORTED when a core has none). */
static int program_extent(const tea_run_options *o, const char *const *paths, size_t count, int indexed_only,
                          double *cycles, uint64_t *clock_hz, double *cycle_weight)
{
    *cycles = 0;
    for (size_t k = 0; k < count; k++) {
        double c = 0, w = 1;
        uint64_t hz = 0;
        int rc = indexed_only ? tea_run_indexed_extent(paths[k], &c, &hz, &w)
                              : tea_run_extent(o, paths[k], &c, &hz, &w);
        if (rc)
            return rc;
        if (indexed_only && o->open.clock_hz)
            hz = o->open.clock_hz;
        if (k > 0 && hz != *clock_hz)
            return error_set(TEA_ERR_USAGE, "%s: its clock (%llu Hz) is not %s's (%llu Hz): the cores of one "
                                            "program are sampled at one frequency",
                             paths[k], (unsigned long long)hz, paths[0], (unsigned long long)*clock_hz);
        *cycles += c;
        *clock_hz = hz;
        *cycle_weight = w;
    }
    return TEA_OK;
}

int tea_program_frequencies(tea_program *p, const tea_run_options *o, const char *const *paths, size_t count,
                            double *freqs, tea_run_options *fixed)
{
    double cycles = 0, cycle_weight = 1;
    uint64_t clock_hz = 0;
    int rc;

    *fixed = *o;
    p->default_freq_hz = p->default_samples = 0;
    if (o->specs)
        return TEA_OK;
    if (o->sample_target_count) {
        if ((rc = program_extent(o, paths, count, 0, &cycles, &clock_hz, &cycle_weight)))
            return rc;
        return tea_run_choose_frequencies(o, p->name, cycles, clock_hz, cycle_weight, freqs, fixed);
    }
    /* the default raised only where every core's index tells its length;
     * else the default stands, as for one trace */
    fixed->default_min_samples = 0;
    if (!tea_run_default_may_rise(o))
        return TEA_OK;
    rc = program_extent(o, paths, count, 1, &cycles, &clock_hz, &cycle_weight);
    if (rc == TEA_ERR_USAGE || rc == TEA_ERR_NOMEM)
        return rc;
    if (rc || !(freqs[0] = tea_run_raised_default(o, cycles, clock_hz, cycle_weight)))
        return TEA_OK;
    p->default_freq_hz = o->freqs[0];
    p->default_samples = o->freqs[0] * cycles / (double)clock_hz;
    fixed->freqs = freqs;
    return TEA_OK;
}

/* Adds one PICS of a core (`info` is taken over: freed here) to `dst`,
 * which the first core's fills. */
static int add_pics(tea_program_pics *dst, int first, pics_info *info, const pics *cells, const char *core)
{
    int rc;

    if (first) {
        dst->info = *info;
        if ((rc = pics_init(&dst->cells)))
            return error_set(rc, "out of memory");
    } else {
        rc = pics_info_merge(&dst->info, info);
        pics_info_free(info);
        if (rc)
            return error_prefix(rc, "%s", core);
    }
    if ((rc = pics_merge_into(&dst->cells, cells)))
        return error_set(rc, "out of memory merging PICS");
    return TEA_OK;
}

/* The arrays of the first core's shape. */
static int allocate(tea_program *p, const tea_run *core)
{
    size_t n = core->row_count ? core->row_count : 1;

    p->row_count = core->row_count;
    if (!(p->rows = calloc(n, sizeof *p->rows)) || !(p->samplers = calloc(n, sizeof *p->samplers))
        || (core->floor && !(p->floors = calloc(n, sizeof *p->floors))))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < core->row_count; i++) {
        tea_run_row *row = &p->rows[i];
        *row = core->rows[i];
        row->samples = row->lost = 0;
        row->error_half = NAN; /* the cores' window groups do not line up */
        for (int g = 0; g < TEA_RUN_GRANULARITIES; g++)
            row->error[g] = row->noise_floor[g] = NAN;
    }
    if (trace_header_copy(&p->header, &core->header))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    p->sampled = core->sampled;
    return TEA_OK;
}

/* Whether a core has the program's samplers and clock. */
static int check_core(const tea_program *p, const tea_run *core)
{
    if (core->row_count != p->row_count || (core->floor != NULL) != (p->floors != NULL))
        return error_set(TEA_ERR_USAGE, "%s: %zu samplers where the program's first core has %zu", core->path,
                         core->row_count, p->row_count);
    if (core->header.clock_hz != p->header.clock_hz)
        return error_set(TEA_ERR_USAGE, "%s: its clock (%llu Hz) is not the program's first core's (%llu Hz)",
                         core->path, (unsigned long long)core->header.clock_hz,
                         (unsigned long long)p->header.clock_hz);
    for (size_t i = 0; i < p->row_count; i++)
        if (strcmp(core->rows[i].label, p->rows[i].label) != 0
            || core->rows[i].spec.period != p->rows[i].spec.period)
            return error_set(TEA_ERR_USAGE,
                             "%s: sampler %zu is %s with a period of %llu cycles, the first core's %s of %llu",
                             core->path, i + 1, core->rows[i].label, (unsigned long long)core->rows[i].spec.period,
                             p->rows[i].label, (unsigned long long)p->rows[i].spec.period);
    return TEA_OK;
}

/* The estimates of two sampled runs added: independent, so the halves of
 * their intervals add in quadrature. */
static void add_estimate(trace_estimate *sum, const trace_estimate *e, int first)
{
    if (first) {
        *sum = *e;
        return;
    }
    sum->cycles += e->cycles;
    sum->half = sqrt(sum->half * sum->half + e->half * e->half);
    sum->instructions += e->instructions;
    sum->periods += e->periods;
    if (e->lightest < sum->lightest)
        sum->lightest = e->lightest;
    if (e->heaviest > sum->heaviest)
        sum->heaviest = e->heaviest;
}

int tea_program_add(tea_program *p, const tea_run *core)
{
    int first = p->cores == 0, rc;
    pics_info info;

    if (p->cores >= TEA_PROGRAM_CORES_MAX)
        return error_set(TEA_ERR_USAGE, "more than %d cores in one program", TEA_PROGRAM_CORES_MAX);
    if ((rc = first ? allocate(p, core) : check_core(p, core)))
        return rc;
    if ((rc = tea_run_describe(core, SIZE_MAX, &info))
        || (rc = add_pics(&p->golden, first, &info, tea_replay_golden(core->replay), core->path)))
        return rc;
    for (size_t i = 0; i < p->row_count; i++) {
        if ((rc = tea_run_describe(core, i, &info))
            || (rc = add_pics(&p->samplers[i], first, &info, tea_replay_sampler_pics(core->replay, i), core->path)))
            return rc;
        if (p->floors
            && ((rc = tea_run_describe_floor(core, i, &info))
                || (rc = add_pics(&p->floors[i], first, &info, tea_replay_sampler_pics(core->floor->replay, i),
                                  core->path))))
            return rc;
        p->rows[i].samples += core->rows[i].samples;
        p->rows[i].lost += core->rows[i].lost;
    }
    p->cycles += core->totals.last_cycle - core->totals.first_cycle;
    p->records += core->totals.records;
    snprintf(p->digest, sizeof p->digest, "%s", p->golden.info.trace_digest);
    p->sampled = p->sampled && core->sampled;
    if (core->sampled)
        add_estimate(&p->estimate, &core->estimate, first);
    p->cores++;
    assert(pics_check(&p->golden.cells));
    return TEA_OK;
}

int tea_program_errors(tea_program *p, const trace_symmap *functions)
{
    static const trace_symmap none;
    int rc;

    if (!functions)
        functions = &none;
    for (size_t i = 0; i < p->row_count; i++) {
        if ((rc = tea_run_errors_of(&p->samplers[i].cells, &p->golden.cells, functions, p->rows[i].error)))
            return rc;
        if (p->floors && (rc = tea_run_errors_of(&p->floors[i].cells, &p->golden.cells, functions,
                                                 p->rows[i].noise_floor)))
            return rc;
    }
    return TEA_OK;
}

int tea_program_as_run(const tea_program *p, const char *path, tea_run *out)
{
    memset(out, 0, sizeof *out);
    trace_header_init(&out->header);
    snprintf(out->name, sizeof out->name, "%s", p->name);
    out->path = path;
    out->cores = p->cores;
    out->totals.last_cycle = p->cycles;
    out->totals.records = p->records;
    snprintf(out->digest, sizeof out->digest, "%s", p->digest);
    out->sampled = p->sampled;
    out->estimate = p->estimate;
    out->default_freq_hz = p->default_freq_hz;
    out->default_samples = p->default_samples;
    if (trace_header_copy(&out->header, &p->header)
        || (p->row_count && !(out->rows = malloc(p->row_count * sizeof *out->rows))))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (p->row_count)
        memcpy(out->rows, p->rows, p->row_count * sizeof *out->rows);
    out->row_count = p->row_count;
    return TEA_OK;
}

static void free_pics(tea_program_pics *x)
{
    pics_info_free(&x->info);
    pics_free(&x->cells);
}

void tea_program_free(tea_program *p)
{
    /* zeroed PICS and provenance free as nothing */
    free_pics(&p->golden);
    for (size_t i = 0; p->samplers && i < p->row_count; i++) {
        free_pics(&p->samplers[i]);
        if (p->floors)
            free_pics(&p->floors[i]);
    }
    free(p->samplers);
    free(p->floors);
    free(p->rows);
    trace_header_free(&p->header);
    memset(p, 0, sizeof *p);
}

/* A FireSim per-core file's place: node and core numbers from a name
 * ending in -C<core> (maybe followed by '.' suffixes), the node the digits
 * just before the -C. 0 when the name has no such end. */
typedef struct core_file {
    char *path;
    const char *name;           /* in path */
    unsigned long long node, core;
} core_file;

static int parse_core_name(const char *name, unsigned long long *node, unsigned long long *core)
{
    uint32_t tid;

    /* tea record --thread all's thread-N.tea: the thread's number */
    if (trace_thread_file(name, &tid)) {
        *node = 0;
        *core = tid;
        return 1;
    }
    const char *end = strchr(name, '.');
    const char *stop = end ? end : name + strlen(name), *c = stop, *n;

    while (c > name && isdigit((unsigned char)c[-1]))
        c--;
    if (c == stop || c - name < 2 || c[-1] != 'C' || c[-2] != '-')
        return 0;
    *core = strtoull(c, NULL, 10);
    n = c - 2;
    while (n > name && isdigit((unsigned char)n[-1]))
        n--;
    *node = n < c - 2 ? strtoull(n, NULL, 10) : 0;
    return 1;
}

static int core_file_before(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const core_file *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Appends DIR/NAME to the list. */
static int add_core_file(core_file **files, size_t *count, size_t *cap, const char *dir, const char *name,
                         unsigned long long node, unsigned long long core)
{
    size_t size = strlen(dir) + strlen(name) + 2;
    core_file *f;

    if (*count == *cap) {
        size_t n = *cap ? 2 * *cap : 8;
        core_file *grown = realloc(*files, n * sizeof *grown);
        if (!grown)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        *files = grown;
        *cap = n;
    }
    f = &(*files)[*count];
    if (!(f->path = malloc(size)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    snprintf(f->path, size, "%s/%s", dir, name);
    f->name = f->path + strlen(dir) + 1;
    f->node = node;
    f->core = core;
    (*count)++;
    return TEA_OK;
}

int tea_program_core_files(const char *dir, char ***paths, size_t *count)
{
    core_file *files = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = TEA_OK;

    *paths = NULL;
    *count = 0;
    if (!d)
        return error_set(TEA_ERR_IO, "%s: cannot open the directory: %s", dir, strerror(errno));
    while (!rc && (e = readdir(d))) {
        unsigned long long node, core;
        struct stat st;
        if (e->d_name[0] == '.' || !parse_core_name(e->d_name, &node, &core)
            || fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n >= TEA_PROGRAM_CORES_MAX)
            rc = error_set(TEA_ERR_USAGE, "%s: more than %d per-core files", dir, TEA_PROGRAM_CORES_MAX);
        else
            rc = add_core_file(&files, &n, &cap, dir, e->d_name, node, core);
    }
    closedir(d);
    if (!rc && n == 0)
        rc = error_set(TEA_ERR_USAGE, "%s: no per-core trace files (names ending in -C<core>, as FireSim's "
                                      "TRACEFILE0-C0, maybe with suffixes: TRACEFILE0-C1.td.zst; or tea "
                                      "record --thread all's thread-N.tea)",
                       dir);
    if (!rc && !(*paths = malloc(n * sizeof **paths)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    if (!rc) {
        search_sort(files, n, sizeof *files, core_file_before, NULL);
        for (size_t k = 0; k < n; k++)
            (*paths)[k] = files[k].path;
        *count = n;
    } else {
        for (size_t k = 0; k < n; k++)
            free(files[k].path);
    }
    free(files);
    return rc;
}

void tea_program_core_files_free(char **paths, size_t count)
{
    for (size_t k = 0; paths && k < count; k++)
        free(paths[k]);
    free(paths);
}
