/*
 * tea_replay.c: `tea replay`, one pass over a trace feeding the golden
 * reference and every requested sampler at every requested frequency; writes
 * their PICS and prints how wrong each sampler is.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outfile.h"
#include "pics/error.h"
#include "pics/pics_file.h"
#include "tea/replay.h"
#include "trace/trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_BATCH_RECORDS 4096
#define REPLAY_DEFAULT_FREQ_HZ 4000.0
#define REPLAY_MAX_FREQS 64
#define REPLAY_PATH_MAX 4096

enum { OPT_SCHEMES = CLI_OPT_FIRST_FREE, OPT_FREQ, OPT_PERIOD, OPT_SEED, OPT_JITTER, OPT_EVENTS };

typedef struct replay_request {
    const char *trace_path;
    const char *out_dir;
    int schemes[TEA_SCHEME_COUNT];      /* requested (golden is always computed) */
    double freqs[REPLAY_MAX_FREQS];
    size_t freq_count;
    uint64_t period;                     /* --period, 0 when not given */
    uint64_t seed;
    tea_jitter jitter;
    int all_events;
    trace_open_options open;
} replay_request;

/* Everything a finished replay produced, for printing and writing. */
typedef struct replay_outcome {
    trace_header header;
    trace_totals totals;
    tea_sampler_spec *specs;
    size_t spec_count;
    tea_replay *replay;
} replay_outcome;

static void usage(FILE *out)
{
    fprintf(out, "Usage: tea replay TRACE [OPTIONS] -o DIR\n\n"
                 "Replay a trace once through the golden reference and the sampling schemes, write each\n"
                 "PICS to DIR (golden.pics, SCHEME.pics, or SCHEME-FREQhz.pics with several frequencies,\n"
                 "plus summary.csv) and print samples, losses and the error of each scheme.\n\n"
                 "Options:\n"
                 "  -o, --output DIR       output directory (created if missing)\n"
                 "  --schemes LIST         of golden,tea,nci,ibs,spe,ris (default: all six)\n"
                 "  --freq HZ[,HZ...]      sampling frequencies (default 4000; 4k, 1.5kHz accepted)\n"
                 "  --clock HZ             core clock (default: the trace header's, 3.2G for TraceDoctor)\n"
                 "  --period CYCLES        sampling period in cycles (instead of --freq)\n"
                 "  --seed N               seed of the sample points and tag choices (default 1)\n"
                 "  --jitter MODE          none, start or interval (default interval)\n"
                 "  --events SET           native (each scheme's own events, default) or all\n"
                 CLI_TRACE_OPTIONS_HELP
                 "  -h, --help             show this help\n\n"
                 "With --jitter none the sample points are origin + k*P, k = 1, 2, ..., the origin being\n"
                 "the trace's first cycle. Error is sum |P - G| / 2C per instruction and component\n"
                 "(error) and per instruction (error_insn); see docs/semantics.md.\n");
}

static int parse_schemes(const char *command, const char *list, int *schemes)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (!copy)
        return cli_usage_error(command, "out of memory");
    memset(schemes, 0, sizeof(int) * TEA_SCHEME_COUNT);
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        tea_scheme s;
        if (tea_scheme_parse(name, &s)) {
            rc = cli_usage_error(command, "%s", tea_error_message());
            break;
        }
        schemes[s] = 1;
    }
    free(copy);
    return rc;
}

static int parse_freqs(const char *command, const char *list, replay_request *req)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (!copy)
        return cli_usage_error(command, "out of memory");
    req->freq_count = 0;
    for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        double hz;
        if (cli_parse_hz(f, &hz)) {
            rc = cli_usage_error(command, "invalid frequency '%s'", f);
            break;
        }
        if (req->freq_count == REPLAY_MAX_FREQS) {
            rc = cli_usage_error(command, "at most %d frequencies", REPLAY_MAX_FREQS);
            break;
        }
        req->freqs[req->freq_count++] = hz;
    }
    if (!rc && req->freq_count == 0)
        rc = cli_usage_error(command, "no frequency in '%s'", list);
    free(copy);
    return rc;
}

/* The samplers to run: every requested scheme at every frequency. */
static int build_specs(const replay_request *req, uint64_t clock_hz, replay_outcome *out)
{
    size_t freqs = req->period ? 1 : req->freq_count, n = 0;
    out->specs = calloc(TEA_SCHEME_COUNT * freqs, sizeof *out->specs);
    if (!out->specs)
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    for (int s = TEA_SCHEME_TEA; s < TEA_SCHEME_COUNT; s++) {
        if (!req->schemes[s])
            continue;
        for (size_t f = 0; f < freqs; f++) {
            tea_sampler_spec *sp = &out->specs[n++];
            sp->scheme = (tea_scheme)s;
            if (req->period) {
                sp->period = req->period;
            } else {
                double p = floor((double)clock_hz / req->freqs[f] + 0.5);
                sp->period = p < 1 ? 1 : (uint64_t)p;
            }
            sp->frequency_hz = (double)clock_hz / (double)sp->period;
            if (!req->period)
                sp->frequency_hz = req->freqs[f];
            sp->jitter = req->jitter;
            sp->seed = req->seed;
            sp->all_events = req->all_events;
            sp->event_mask = req->all_events ? PSV_MASK_ALL : tea_scheme_native_events(sp->scheme);
        }
    }
    out->spec_count = n;
    return TEA_OK;
}

/* Reads the trace once, feeding the engine. */
static int run_replay(const replay_request *req, replay_outcome *out)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    uint64_t clock_hz;
    int rc;

    if ((rc = trace_reader_open(&reader, req->trace_path, &req->open)))
        return rc;
    if ((rc = trace_header_copy(&out->header, trace_reader_header(reader))))
        goto done;
    if (req->open.clock_hz) /* --clock overrides the header's clock */
        out->header.clock_hz = req->open.clock_hz;
    clock_hz = out->header.clock_hz;
    if ((rc = build_specs(req, clock_hz, out)) || (rc = trace_batch_init(&batch, REPLAY_BATCH_RECORDS)))
        goto done;
    if ((rc = tea_replay_create(&out->replay, out->header.initial_window, out->specs, out->spec_count)))
        goto done;
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        if ((rc = tea_replay_feed(out->replay, &batch)))
            goto done;
    }
    rc = tea_replay_finish(out->replay);
    out->totals = *trace_reader_totals(reader);
done:
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}

/* Creates `path` and its parents (like mkdir -p). */
static int make_directory(const char *path)
{
    char buf[REPLAY_PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return tea_error_set(TEA_ERR_USAGE, "invalid output directory '%s'", path);
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return tea_error_set(TEA_ERR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return tea_error_set(TEA_ERR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
    return TEA_OK;
}

/* The file name of sampler i's PICS. */
static void sampler_file_name(const replay_request *req, const tea_sampler_spec *sp, char *buf, size_t size)
{
    if (req->freq_count > 1 && !req->period)
        snprintf(buf, size, "%s/%s-%.15ghz.pics", req->out_dir, tea_scheme_name(sp->scheme), sp->frequency_hz);
    else
        snprintf(buf, size, "%s/%s.pics", req->out_dir, tea_scheme_name(sp->scheme));
}

typedef struct sampler_row {
    double error, error_insn;
    uint64_t samples, lost;
} sampler_row;

/* Writes every PICS and computes each sampler's errors. */
static int write_outputs(const replay_request *req, const replay_outcome *out, sampler_row *rows)
{
    char path[REPLAY_PATH_MAX];
    pics_info info;
    const pics *golden_pics = tea_replay_golden(out->replay);
    int rc;

    if ((rc = make_directory(req->out_dir)))
        return rc;
    snprintf(path, sizeof path, "%s/golden.pics", req->out_dir);
    if ((rc = tea_replay_describe(out->replay, SIZE_MAX, &out->header, &out->totals, &info)))
        return rc;
    rc = pics_write(path, &info, golden_pics);
    pics_info_free(&info);
    if (rc)
        return rc;
    for (size_t i = 0; i < out->spec_count; i++) {
        const pics *p = tea_replay_sampler_pics(out->replay, i);
        pics_error_result e1, e2;
        sampler_file_name(req, &out->specs[i], path, sizeof path);
        if ((rc = tea_replay_describe(out->replay, i, &out->header, &out->totals, &info)))
            return rc;
        rows[i].samples = info.samples;
        rows[i].lost = pics_info_lost(&info);
        rc = pics_write(path, &info, p);
        pics_info_free(&info);
        if (rc)
            return rc;
        rows[i].error = rows[i].error_insn = NAN;
        if (golden_pics->total == 0)
            continue;
        if ((rc = pics_error_compute(p, golden_pics, PICS_GRAN_INSN_COMPONENT, NULL, &e1)))
            return rc;
        if ((rc = pics_error_compute(p, golden_pics, PICS_GRAN_INSN, NULL, &e2))) {
            pics_error_result_free(&e1);
            return rc;
        }
        rows[i].error = e1.error;
        rows[i].error_insn = e2.error;
        pics_error_result_free(&e1);
        pics_error_result_free(&e2);
    }
    return TEA_OK;
}

/* summary.csv: one row per sampler, fractions at full precision. */
static int write_summary(const replay_request *req, const replay_outcome *out, const sampler_row *rows)
{
    char path[REPLAY_PATH_MAX];
    outfile *f;
    int rc;

    snprintf(path, sizeof path, "%s/summary.csv", req->out_dir);
    if ((rc = outfile_open(&f, path)))
        return rc;
    fprintf(outfile_stream(f), "scheme,freq_hz,period,samples,lost,error_insn_component,error_insn\n");
    for (size_t i = 0; i < out->spec_count; i++) {
        const tea_sampler_spec *sp = &out->specs[i];
        fprintf(outfile_stream(f), "%s,%.15g,%llu,%llu,%llu,%.9f,%.9f\n", tea_scheme_name(sp->scheme),
                sp->frequency_hz, (unsigned long long)sp->period, (unsigned long long)rows[i].samples,
                (unsigned long long)rows[i].lost, rows[i].error, rows[i].error_insn);
    }
    return outfile_commit(f);
}

static void print_table(const replay_request *req, const replay_outcome *out, const sampler_row *rows)
{
    const golden_totals *g = tea_replay_golden_totals(out->replay);
    printf("trace:  %s (%llu cycles, %llu records; %llu cycles attributed)\n", req->trace_path,
           (unsigned long long)(out->totals.last_cycle - out->totals.first_cycle),
           (unsigned long long)out->totals.records, (unsigned long long)g->attributed);
    printf("output: %s\n\n", req->out_dir);
    printf("%-7s %11s %10s %10s %9s %8s %10s\n", "scheme", "freq_hz", "period", "samples", "lost", "error",
           "error_insn");
    if (req->schemes[TEA_SCHEME_GOLDEN])
        printf("%-7s %11s %10s %10s %9s %7.2f%% %9.2f%%\n", "golden", "-", "-", "-", "-", 0.0, 0.0);
    for (size_t i = 0; i < out->spec_count; i++) {
        const tea_sampler_spec *sp = &out->specs[i];
        printf("%-7s %11.6g %10llu %10llu %9llu %7.2f%% %9.2f%%\n", tea_scheme_name(sp->scheme), sp->frequency_hz,
               (unsigned long long)sp->period, (unsigned long long)rows[i].samples, (unsigned long long)rows[i].lost,
               100.0 * rows[i].error, 100.0 * rows[i].error_insn);
    }
}

static int replay_main(const replay_request *req)
{
    replay_outcome out;
    sampler_row *rows = NULL;
    int rc;

    memset(&out, 0, sizeof out);
    trace_header_init(&out.header);
    if ((rc = run_replay(req, &out)))
        goto done;
    if (!(rows = calloc(out.spec_count ? out.spec_count : 1, sizeof *rows))) {
        rc = tea_error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = write_outputs(req, &out, rows)) || (rc = write_summary(req, &out, rows)))
        goto done;
    print_table(req, &out, rows);
done:
    free(rows);
    free(out.specs);
    tea_replay_free(out.replay);
    trace_header_free(&out.header);
    return rc;
}

int tea_replay_main(int argc, char **argv)
{
    static const struct option long_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "schemes", required_argument, NULL, OPT_SCHEMES },
        { "freq", required_argument, NULL, OPT_FREQ },
        { "period", required_argument, NULL, OPT_PERIOD },
        { "seed", required_argument, NULL, OPT_SEED },
        { "jitter", required_argument, NULL, OPT_JITTER },
        { "events", required_argument, NULL, OPT_EVENTS },
        { "help", no_argument, NULL, 'h' },
        CLI_TRACE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    replay_request req;
    int opt, rc, freq_given = 0;

    memset(&req, 0, sizeof req);
    for (int s = 0; s < TEA_SCHEME_COUNT; s++)
        req.schemes[s] = 1;
    req.freqs[0] = REPLAY_DEFAULT_FREQ_HZ;
    req.freq_count = 1;
    req.seed = 1;
    req.jitter = TEA_JITTER_INTERVAL;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            req.out_dir = optarg;
            break;
        case OPT_SCHEMES:
            if ((rc = parse_schemes(argv[0], optarg, req.schemes)))
                return rc;
            break;
        case OPT_FREQ:
            if ((rc = parse_freqs(argv[0], optarg, &req)))
                return rc;
            freq_given = 1;
            break;
        case OPT_PERIOD:
            if (cli_parse_u64(optarg, &req.period) || req.period == 0)
                return cli_usage_error(argv[0], "invalid period '%s' (cycles, at least 1)", optarg);
            break;
        case OPT_SEED:
            if (cli_parse_u64(optarg, &req.seed))
                return cli_usage_error(argv[0], "invalid seed '%s'", optarg);
            break;
        case OPT_JITTER:
            if (tea_jitter_parse(optarg, &req.jitter))
                return cli_usage_error(argv[0], "%s", tea_error_message());
            break;
        case OPT_EVENTS:
            if (strcmp(optarg, "native") == 0)
                req.all_events = 0;
            else if (strcmp(optarg, "all") == 0)
                req.all_events = 1;
            else
                return cli_usage_error(argv[0], "unknown event set '%s' (native or all)", optarg);
            break;
        case 'h':
            usage(stdout);
            return CLI_EXIT_OK;
        default:
            if ((rc = cli_trace_option(argv[0], opt, optarg, &req.open)) == 1)
                return cli_usage_hint(argv[0]);
            if (rc)
                return rc;
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing TRACE" : "expected exactly one TRACE");
    if (!req.out_dir)
        return cli_usage_error(argv[0], "missing -o DIR");
    if (req.period && freq_given)
        return cli_usage_error(argv[0], "--period and --freq exclude each other");
    req.trace_path = argv[optind];
    if ((rc = replay_main(&req)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
