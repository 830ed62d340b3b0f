/*
 * study.c: samplers from a command line, one replay of a trace, errors and
 * the results CSV (see study.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "study.h"
#include "binary/symbolize.h"
#include "cli.h"
#include "common/error.h"
#include "pics/pics_file.h"
#include "tea/parallel.h"
#include "trace/frames.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STUDY_DEFAULT_FREQ_HZ 4000.0
#define STUDY_BATCH_RECORDS 4096

static const char *const TRACE_SUFFIXES[] = { ".zst", ".tea", ".td", ".bin", ".trace", NULL };

void study_request_init(study_request *req, const char *command)
{
    memset(req, 0, sizeof *req);
    req->golden = 1;
    for (int s = TEA_SCHEME_TEA; s < TEA_SCHEME_COUNT; s++)
        req->schemes[req->scheme_count++] = (study_scheme){ (tea_scheme)s, 0 };
    req->freqs[0] = STUDY_DEFAULT_FREQ_HZ;
    req->freq_count = 1;
    req->first_seed = 1;
    req->seed_count = 1;
    req->jitter = TEA_JITTER_INTERVAL;
    req->command = command;
}

/* Orders schemes as the engine's enum, native before all events. */
static int scheme_before(const study_scheme *a, const study_scheme *b)
{
    return a->scheme != b->scheme ? a->scheme < b->scheme : a->all_events < b->all_events;
}

/* Inserts a scheme in order unless it is already there. */
static int add_scheme(study_request *req, study_scheme s)
{
    size_t at = 0;
    while (at < req->scheme_count && scheme_before(&req->schemes[at], &s))
        at++;
    if (at < req->scheme_count && req->schemes[at].scheme == s.scheme && req->schemes[at].all_events == s.all_events)
        return TEA_OK;
    if (req->scheme_count == STUDY_MAX_SCHEMES)
        return tea_error_set(TEA_ERR_USAGE, "at most %d schemes", STUDY_MAX_SCHEMES);
    memmove(&req->schemes[at + 1], &req->schemes[at], (req->scheme_count - at) * sizeof s);
    req->schemes[at] = s;
    req->scheme_count++;
    return TEA_OK;
}

int study_parse_event_set(const char *name, int *all_events)
{
    if (strcmp(name, "native") == 0)
        *all_events = 0;
    else if (strcmp(name, "all") == 0)
        *all_events = 1;
    else
        return tea_error_set(TEA_ERR_USAGE, "unknown event set '%s' (native or all)", name);
    return TEA_OK;
}

int study_parse_schemes(study_request *req, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = TEA_OK;
    if (!copy)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    req->golden = 0;
    req->scheme_count = 0;
    for (char *name = strtok_r(copy, ",", &save); name && !rc; name = strtok_r(NULL, ",", &save)) {
        char *suffix = strchr(name, ':');
        study_scheme s = { TEA_SCHEME_GOLDEN, 0 };
        if (suffix) {
            *suffix++ = '\0';
            if (study_parse_event_set(suffix, &s.all_events)) {
                rc = tea_error_set(TEA_ERR_USAGE, "unknown event set '%s' in '%s:%s' (native or all)", suffix, name,
                                   suffix);
                break;
            }
        }
        if ((rc = tea_scheme_parse(name, &s.scheme)))
            break;
        if (s.scheme == TEA_SCHEME_GOLDEN) {
            if (suffix) {
                rc = tea_error_set(TEA_ERR_USAGE, "golden has no event set");
                break;
            }
            req->golden = 1;
            continue;
        }
        rc = add_scheme(req, s);
    }
    free(copy);
    if (!rc && !req->golden && !req->scheme_count)
        rc = tea_error_set(TEA_ERR_USAGE, "no scheme in '%s'", list);
    return rc;
}

int study_parse_freqs(study_request *req, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = TEA_OK;
    if (!copy)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    req->freq_count = 0;
    for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        double hz;
        if (cli_parse_hz(f, &hz)) {
            rc = tea_error_set(TEA_ERR_USAGE, "invalid frequency '%s'", f);
            break;
        }
        if (req->freq_count == STUDY_MAX_FREQS) {
            rc = tea_error_set(TEA_ERR_USAGE, "at most %d frequencies", STUDY_MAX_FREQS);
            break;
        }
        req->freqs[req->freq_count++] = hz;
    }
    if (!rc && req->freq_count == 0)
        rc = tea_error_set(TEA_ERR_USAGE, "no frequency in '%s'", list);
    free(copy);
    return rc;
}

void study_trace_name(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    size_t len;
    int stripped = 1;

    snprintf(buf, size, "%s", base ? base + 1 : path);
    len = strlen(buf);
    while (stripped) {
        stripped = 0;
        for (const char *const *s = TRACE_SUFFIXES; *s; s++) {
            size_t n = strlen(*s);
            if (len > n && strcmp(buf + len - n, *s) == 0) {
                len -= n;
                buf[len] = '\0';
                stripped = 1;
            }
        }
    }
}

void study_scheme_label(const study_scheme *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", tea_scheme_name(s->scheme), s->all_events ? ":all" : "");
}

/* The samplers: scheme-major, then frequency, then seed. */
static int build_specs(const study_request *req, uint64_t clock_hz, study_trace *t, tea_sampler_spec **specs)
{
    size_t freqs = req->period ? 1 : req->freq_count, n = 0;
    size_t count = req->scheme_count * freqs * req->seed_count;

    *specs = calloc(count ? count : 1, sizeof **specs);
    t->rows = calloc(count ? count : 1, sizeof *t->rows);
    if (!*specs || !t->rows)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t s = 0; s < req->scheme_count; s++) {
        const study_scheme *sc = &req->schemes[s];
        int all = sc->all_events || req->all_events;
        for (size_t f = 0; f < freqs; f++) {
            for (size_t k = 0; k < req->seed_count; k++) {
                tea_sampler_spec *sp = &(*specs)[n];
                study_scheme labelled = { sc->scheme, all };
                if (req->period) {
                    sp->period = req->period;
                    sp->frequency_hz = (double)clock_hz / (double)sp->period;
                } else {
                    double p = floor((double)clock_hz / req->freqs[f] + 0.5);
                    sp->period = p < 1 ? 1 : (uint64_t)p;
                    sp->frequency_hz = req->freqs[f];
                }
                sp->scheme = sc->scheme;
                sp->jitter = req->jitter;
                sp->seed = req->first_seed + k;
                sp->all_events = all;
                sp->event_mask = all ? PSV_MASK_ALL : tea_scheme_native_events(sc->scheme);
                t->rows[n].spec = *sp;
                study_scheme_label(&labelled, t->rows[n].label, sizeof t->rows[n].label);
                n++;
            }
        }
    }
    t->row_count = n;
    return TEA_OK;
}

int study_option(const char *command, int opt, const char *arg, study_request *req)
{
    uint64_t v;

    switch (opt) {
    case STUDY_OPT_JITTER:
        if (tea_jitter_parse(arg, &req->jitter))
            return cli_usage_error(command, "%s", tea_error_message());
        return 0;
    case STUDY_OPT_EVENTS:
        if (study_parse_event_set(arg, &req->all_events))
            return cli_usage_error(command, "%s", tea_error_message());
        return 0;
    case STUDY_OPT_SYMBOLS:
        req->symbols_path = arg;
        return 0;
    case STUDY_OPT_THREADS:
        if (cli_parse_u64(arg, &v) || v < 1 || v > TEA_PARALLEL_MAX_THREADS)
            return cli_usage_error(command, "invalid thread count '%s' (1 to %d)", arg, TEA_PARALLEL_MAX_THREADS);
        req->threads = (unsigned)v;
        return 0;
    default:
        return 1;
    }
}

/* Copies the trace's header and creates the engine with every sampler. */
static int prepare_replay(const study_request *req, study_trace *t, const trace_header *h)
{
    tea_sampler_spec *specs = NULL;
    int rc;

    if ((rc = trace_header_copy(&t->header, h)))
        return rc;
    if (req->open.clock_hz) /* --clock overrides the header's clock */
        t->header.clock_hz = req->open.clock_hz;
    if (!(rc = build_specs(req, t->header.clock_hz, t, &specs)))
        rc = tea_replay_create(&t->replay, t->header.initial_window, specs, t->row_count);
    free(specs);
    return rc;
}

/* Forgets a replay that failed, so that it can be redone. */
static void discard_replay(study_trace *t)
{
    tea_replay_free(t->replay);
    t->replay = NULL;
    free(t->rows);
    t->rows = NULL;
    t->row_count = 0;
    trace_header_free(&t->header);
    trace_header_init(&t->header);
}

/* Reads the trace once as a stream, feeding the engine. */
static int replay_stream(const study_request *req, study_trace *t)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    int rc;

    if ((rc = trace_reader_open(&reader, t->path, &req->open)))
        return rc;
    if ((rc = prepare_replay(req, t, trace_reader_header(reader)))
        || (rc = trace_batch_init(&batch, STUDY_BATCH_RECORDS)))
        goto done;
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        if ((rc = tea_replay_feed(t->replay, &batch)))
            goto done;
    }
    t->totals = *trace_reader_totals(reader);
done:
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}

/* Reads a native trace file by frames on several threads. TEA_ERR_UNSUPPORTED
 * when the file cannot be read that way. */
static int replay_frames(const study_request *req, study_trace *t, unsigned threads)
{
    trace_frames *frames = NULL;
    trace_read_stats stats;
    int rc;

    if ((rc = trace_frames_open(&frames, t->path)))
        return rc == TEA_ERR_NOMEM ? rc : TEA_ERR_UNSUPPORTED;
    if (!(rc = prepare_replay(req, t, trace_frames_header(frames))))
        rc = tea_parallel_replay(t->replay, frames, threads, &t->totals, &stats);
    trace_frames_close(frames);
    return rc;
}

/* Reads the trace once, feeding the engine: by frames when there are
 * several threads and the trace is a native file, else as a stream. A
 * trace the frame-parallel path finds wrong is read again as a stream,
 * whose diagnosis (the same facts, in the streaming reader's words) is the
 * one reported. */
static int replay_trace(const study_request *req, study_trace *t)
{
    unsigned threads = req->threads ? req->threads : cli_online_processors();
    int rc = TEA_ERR_UNSUPPORTED;

    if (threads > 1) {
        rc = replay_frames(req, t, threads > TEA_PARALLEL_MAX_THREADS ? TEA_PARALLEL_MAX_THREADS : threads);
        if (rc && rc != TEA_ERR_NOMEM)
            discard_replay(t);
    }
    if (rc && rc != TEA_ERR_NOMEM)
        rc = replay_stream(req, t);
    if (rc || (rc = tea_replay_finish(t->replay)))
        return rc;
    tea_trace_digest(&t->header, &t->totals, t->digest);
    return TEA_OK;
}

/* The functions for the function-granularity error: the --symbols map, else
 * those of the binary the trace names (as pics report groups them), else
 * none (an empty map). A binary that cannot be used costs only this error,
 * with a warning. */
static int load_functions(const study_request *req, const study_trace *t, symmap *out)
{
    symbolize_options opts = { NULL, 0, 0, 0, req->command };
    symbolizer *z = NULL;
    pics_info info;
    int rc;

    memset(out, 0, sizeof *out);
    if (req->symbols_path)
        return symmap_load(out, req->symbols_path);
    if (!t->header.binary_path)
        return TEA_OK;
    if ((rc = study_describe(t, SIZE_MAX, &info)))
        return rc;
    rc = symbolize_open(&z, &info, &opts);
    pics_info_free(&info);
    if (rc == TEA_ERR_NOMEM)
        return rc;
    if (rc) {
        fprintf(stderr, "%s: warning: %s: no function-level error: %s\n", req->command, t->path,
                tea_error_message());
        return TEA_OK;
    }
    rc = symbolize_symmap(z, SYMBOLS_MAP_SECTION_GAPS, out);
    symbolize_close(z);
    return rc;
}

/* Each sampler's error at every granularity against the golden PICS. */
static int compute_errors(const study_request *req, study_trace *t)
{
    static const pics_granularity granularities[STUDY_GRANULARITIES] = { PICS_GRAN_INSN_COMPONENT, PICS_GRAN_INSN,
                                                                        PICS_GRAN_FUNC };
    const pics *reference = tea_replay_golden(t->replay);
    symmap functions;
    int rc;

    if ((rc = load_functions(req, t, &functions)))
        return rc;
    for (size_t i = 0; i < t->row_count; i++) {
        study_row *row = &t->rows[i];
        const uint64_t *lost = tea_replay_sampler_lost(t->replay, i);
        row->samples = tea_replay_sampler_samples(t->replay, i);
        row->lost = 0;
        for (int r = 0; r < PICS_LOST_REASONS; r++)
            row->lost += lost[r];
        for (int g = 0; g < STUDY_GRANULARITIES; g++) {
            pics_error_result e;
            row->error[g] = NAN;
            if (reference->total == 0 || (granularities[g] == PICS_GRAN_FUNC && functions.count == 0))
                continue;
            if ((rc = pics_error_compute(tea_replay_sampler_pics(t->replay, i), reference, granularities[g],
                                         &functions, &e)))
                goto done;
            row->error[g] = e.error;
            pics_error_result_free(&e);
        }
    }
done:
    symmap_free(&functions);
    return rc;
}

int study_run(const study_request *req, const char *path, study_trace *out)
{
    int rc;
    memset(out, 0, sizeof *out);
    trace_header_init(&out->header);
    out->path = path;
    study_trace_name(path, out->name, sizeof out->name);
    if ((rc = replay_trace(req, out)) || (rc = compute_errors(req, out)))
        return rc;
    return TEA_OK;
}

int study_describe(const study_trace *t, size_t i, pics_info *info)
{
    return tea_replay_describe(t->replay, i, &t->header, &t->totals, info);
}

void study_csv_begin(FILE *f, const char *what, const char *command_line)
{
    fprintf(f, "# %s %s: %s\n", cli_version(), what, command_line ? command_line : "");
    fprintf(f, "trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func\n");
}

/* A fraction with nine decimals, or nothing when unknown. */
static void write_fraction(FILE *f, double v)
{
    if (!isnan(v))
        fprintf(f, "%.9f", v);
}

void study_csv_trace(FILE *f, const study_trace *t)
{
    fprintf(f, "# trace %s: %s, digest %s, %llu cycles, %llu records", t->name, t->path, t->digest,
            (unsigned long long)(t->totals.last_cycle - t->totals.first_cycle), (unsigned long long)t->totals.records);
    if (t->header.binary_path)
        fprintf(f, ", binary %s", t->header.binary_path);
    fputc('\n', f);
    for (size_t i = 0; i < t->row_count; i++) {
        const study_row *row = &t->rows[i];
        fprintf(f, "%s,%s,%.15g,%llu,%llu,%llu,", t->name, row->label, row->spec.frequency_hz,
                (unsigned long long)row->spec.seed, (unsigned long long)row->samples, (unsigned long long)row->lost);
        for (int g = 0; g < STUDY_GRANULARITIES; g++) {
            write_fraction(f, row->error[g]);
            fputc(g + 1 < STUDY_GRANULARITIES ? ',' : '\n', f);
        }
    }
}

void study_trace_free(study_trace *t)
{
    tea_replay_free(t->replay);
    free(t->rows);
    trace_header_free(&t->header);
    memset(t, 0, sizeof *t);
}
