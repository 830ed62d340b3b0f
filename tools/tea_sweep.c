/*
 * tea_sweep.c: `tea sweep`, error against sampling frequency: every scheme
 * at every frequency and seed in one pass over each trace, traces in
 * parallel, one tidy results CSV and optionally the TEA paper's Figure 8 as
 * SVG.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "commands.h"
#include "study.h"
#include "common/error.h"
#include "common/outfile.h"
#include "palette.h"
#include "plot/chart.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_DEFAULT_FREQS "100,1000,4000,8000"
#define SWEEP_DEFAULT_SEEDS 5
#define SWEEP_MAX_JOBS 256
#define SWEEP_MESSAGE_MAX 1024
#define PERCENT 100.0

enum { OPT_FREQS = STUDY_OPT_FIRST_FREE, OPT_SEEDS, OPT_FIRST_SEED, OPT_SCHEMES, OPT_SVG, OPT_GRANULARITY, OPT_QUIET };

static void usage(FILE *out)
{
    fprintf(out, "Usage: tea sweep TRACE... [OPTIONS] [-o OUT.csv] [--svg OUT.svg]\n\n"
                 "Error against sampling frequency: every scheme at every frequency and seed, all\n"
                 "sampled in one pass over each trace; traces in parallel. Writes the tidy results\n"
                 "CSV (docs/pics-format.md, \"Results CSV\"): trace,scheme,freq_hz,seed,samples,lost,\n"
                 "error_insn_component,error_insn,error_func.\n\n"
                 "Options:\n"
                 "  --freqs HZ[,HZ...]   sampling frequencies (default " SWEEP_DEFAULT_FREQS ")\n"
                 "  --seeds K            seeds per frequency and scheme (default 5): first..first+K-1\n"
                 "  --first-seed N       the first seed (default 1)\n"
                 "  --schemes LIST       of tea,nci,ibs,spe,ris, each maybe SCHEME:all (default:\n"
                 "                       the five, each with its own events)\n"
                 "  --events SET         native (default) or all: every scheme gets all nine events\n"
                 "  --jitter MODE        none, start or interval (default interval)\n"
                 "  --symbols MAP        functions for error_func (default: each trace's binary)\n"
                 "  --golden-rules R     default, or tracedoctor: the golden reference of the\n"
                 "                       authors' TraceDoctor worker (tea_gold), which TEA samples\n"
                 "  -j, --jobs N         traces replayed at once (default: the number of CPUs,\n"
                 "                       at most the number of traces)\n"
                 "  --threads N          threads per trace for native trace files (default: the\n"
                 "                       CPUs left to each job, at least 1; 1 reads as a stream);\n"
                 "                       results are identical for every N\n"
                 "  -o, --output OUT     the CSV (default: standard output)\n"
                 "  --svg OUT.svg        error against frequency, one line per scheme: the mean\n"
                 "                       over traces and seeds, bars from the best to the worst\n"
                 "                       seed (the TEA paper's Figure 8)\n"
                 "  --granularity G      error the SVG shows: insn-component (default), insn, func\n"
                 "  --quiet              no progress lines on standard error\n"
                 CLI_TRACE_OPTIONS_HELP
                 "  -h, --help           show this help\n");
}

/* One trace of the sweep and its outcome. */
typedef struct sweep_job {
    const char *path;
    tea_run result;
    int rc;
    char message[SWEEP_MESSAGE_MAX];   /* the error of a failed job (messages are per thread) */
} sweep_job;

/* What the worker threads share. */
typedef struct sweep_pool {
    const study_request *req;
    sweep_job *jobs;
    size_t count;
    size_t next;                       /* the next job to take; under `lock` */
    size_t done;
    int quiet;
    pthread_mutex_t lock;
} sweep_pool;

/* Replays one trace, keeping only its rows (the PICS go with the engine). */
static void run_job(const study_request *req, sweep_job *job)
{
    job->rc = study_run(req, job->path, &job->result);
    if (job->rc)
        snprintf(job->message, sizeof job->message, "%s", tea_error_message());
    tea_replay_free(job->result.replay);
    job->result.replay = NULL;
}

/* A worker: takes jobs until none is left. */
static void *worker(void *arg)
{
    sweep_pool *pool = arg;
    for (;;) {
        size_t i;
        pthread_mutex_lock(&pool->lock);
        i = pool->next < pool->count ? pool->next++ : pool->count;
        pthread_mutex_unlock(&pool->lock);
        if (i == pool->count)
            return NULL;
        run_job(pool->req, &pool->jobs[i]);
        pthread_mutex_lock(&pool->lock);
        pool->done++;
        if (!pool->quiet)
            fprintf(stderr, "tea sweep: %s %s (%zu of %zu)\n", pool->jobs[i].path,
                    pool->jobs[i].rc ? "failed" : "done", pool->done, pool->count);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* Runs every job on `threads` threads (the calling one included). */
static int run_all(sweep_pool *pool, size_t threads)
{
    pthread_t tids[SWEEP_MAX_JOBS];
    size_t started = 0;
    int rc = TEA_OK;

    if (pthread_mutex_init(&pool->lock, NULL))
        return tea_error_set(TEA_ERR_NOMEM, "cannot create a mutex");
    for (; started + 1 < threads; started++)
        if (pthread_create(&tids[started], NULL, worker, pool))
            break; /* fewer threads: the rest still runs */
    worker(pool);
    for (size_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    for (size_t i = 0; i < pool->count && !rc; i++)
        if (pool->jobs[i].rc)
            rc = tea_error_set(pool->jobs[i].rc, "%s", pool->jobs[i].message);
    return rc;
}

/* The mean over traces of one (scheme, frequency, seed) error, NaN when a
 * trace lacks it. Rows of a trace are scheme-major, then frequency, then
 * seed (tea/run.h), the same layout in every trace. */
static double mean_over_traces(const sweep_pool *pool, size_t row, int g)
{
    double sum = 0;
    for (size_t t = 0; t < pool->count; t++) {
        double e = pool->jobs[t].result.rows[row].error[g];
        if (isnan(e))
            return NAN;
        sum += e;
    }
    return sum / (double)pool->count;
}

/* Figure 8: per scheme, per frequency the mean over traces and seeds, with
 * the spread of the per-seed means (best to worst seed). */
static int write_svg(const sweep_pool *pool, const char *path, pics_granularity granularity)
{
    const study_request *req = pool->req;
    size_t seeds = req->seed_count, freqs = req->freq_count, schemes = req->scheme_count;
    int g = (int)granularity; /* a run row's errors are indexed by granularity */
    chart_series *series = calloc(schemes, sizeof *series);
    chart_point *points = calloc(schemes * freqs, sizeof *points);
    char(*labels)[TEA_RUN_LABEL_MAX] = calloc(schemes, sizeof *labels);
    char title[160];
    chart_lines chart;
    int rc = TEA_OK;

    if (!series || !points || !labels) {
        rc = tea_error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < schemes; s++) {
        size_t kept = 0;
        tea_run_scheme_label(&req->schemes[s], labels[s], sizeof labels[s]);
        for (size_t f = 0; f < freqs; f++) {
            double sum = 0, low = INFINITY, high = -INFINITY;
            int known = 1;
            for (size_t k = 0; k < seeds && known; k++) {
                double e = mean_over_traces(pool, (s * freqs + f) * seeds + k, g);
                known = !isnan(e);
                sum += e;
                low = e < low ? e : low;
                high = e > high ? e : high;
            }
            if (!known)
                continue;
            points[s * freqs + kept++] = (chart_point){ req->freqs[f], PERCENT * sum / (double)seeds,
                                                        seeds > 1 ? PERCENT * low : NAN,
                                                        seeds > 1 ? PERCENT * high : NAN };
        }
        series[s] = (chart_series){ labels[s], palette_scheme_color(tea_scheme_name(req->schemes[s].scheme), s),
                                    points + s * freqs, kept };
    }
    snprintf(title, sizeof title, "Error against sampling frequency (%zu trace%s, %zu seed%s, %s)", pool->count,
             pool->count == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s", pics_granularity_name(granularity));
    memset(&chart, 0, sizeof chart);
    chart.title = title;
    chart.x_label = "sampling frequency (Hz)";
    chart.y_label = "error";
    chart.x_log = 1;
    chart.y_format = CHART_NUMBER_PERCENT;
    chart.series = series;
    chart.count = schemes;
    rc = chart_save_lines(path, &chart);
done:
    free(series);
    free(points);
    free(labels);
    return rc;
}

/* Writes the results CSV: every trace in the order given. */
static int write_csv(const sweep_pool *pool, const char *path, const char *command_line)
{
    outfile *out;
    int rc;
    if ((rc = outfile_open(&out, path)))
        return rc;
    tea_run_csv_begin(outfile_stream(out), cli_version(), "sweep", command_line);
    for (size_t i = 0; i < pool->count; i++)
        tea_run_csv_trace(outfile_stream(out), &pool->jobs[i].result);
    return outfile_commit(out);
}

/* The command's options beyond the study's. */
typedef struct sweep_options {
    const char *out_path, *svg_path;
    size_t jobs;
    pics_granularity granularity;
    int quiet;
} sweep_options;

/* Continue after parsing the command line. */
#define PARSED_OK (-1)

static int parse_args(int argc, char **argv, study_request *req, sweep_options *o)
{
    static const struct option long_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "jobs", required_argument, NULL, 'j' },
        { "freqs", required_argument, NULL, OPT_FREQS },
        { "seeds", required_argument, NULL, OPT_SEEDS },
        { "first-seed", required_argument, NULL, OPT_FIRST_SEED },
        { "schemes", required_argument, NULL, OPT_SCHEMES },
        { "svg", required_argument, NULL, OPT_SVG },
        { "granularity", required_argument, NULL, OPT_GRANULARITY },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "help", no_argument, NULL, 'h' },
        STUDY_LONG_OPTIONS,
        CLI_TRACE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    uint64_t v;
    int opt, rc;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:j:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            o->out_path = optarg;
            break;
        case 'j':
            if (cli_parse_u64(optarg, &v) || v == 0 || v > SWEEP_MAX_JOBS)
                return cli_usage_error(argv[0], "invalid job count '%s' (1-%d)", optarg, SWEEP_MAX_JOBS);
            o->jobs = (size_t)v;
            break;
        case OPT_FREQS:
            if (study_parse_freqs(req, optarg))
                return cli_usage_error(argv[0], "%s", tea_error_message());
            break;
        case OPT_SEEDS:
            if (cli_parse_u64(optarg, &v) || v == 0 || v > STUDY_MAX_SEEDS)
                return cli_usage_error(argv[0], "invalid seed count '%s' (1-%d)", optarg, STUDY_MAX_SEEDS);
            req->seed_count = (size_t)v;
            break;
        case OPT_FIRST_SEED:
            if (cli_parse_u64(optarg, &req->first_seed) || req->first_seed > UINT64_MAX - STUDY_MAX_SEEDS)
                return cli_usage_error(argv[0], "invalid seed '%s'", optarg);
            break;
        case OPT_SCHEMES:
            if (study_parse_schemes(req, optarg))
                return cli_usage_error(argv[0], "%s", tea_error_message());
            if (!req->scheme_count)
                return cli_usage_error(argv[0], "no sampling scheme in '%s'", optarg);
            break;
        case OPT_SVG:
            o->svg_path = optarg;
            break;
        case OPT_GRANULARITY:
            if (pics_granularity_parse(optarg, &o->granularity))
                return cli_usage_error(argv[0], "%s", tea_error_message());
            break;
        case OPT_QUIET:
            o->quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return CLI_EXIT_OK;
        default:
            if ((rc = study_option(argv[0], opt, optarg, req)) == 1)
                rc = cli_trace_option(argv[0], opt, optarg, &req->open);
            if (rc == 1)
                return cli_usage_hint(argv[0]);
            if (rc)
                return rc;
        }
    }
    if (optind == argc)
        return cli_usage_error(argv[0], "missing TRACE");
    if ((size_t)(argc - optind) > SIZE_MAX / sizeof(sweep_job))
        return cli_usage_error(argv[0], "too many traces");
    return PARSED_OK;
}

/* Replays every trace and writes the outputs. */
static int sweep(const study_request *req, const sweep_options *o, char **paths, size_t count,
                 const char *command_line)
{
    sweep_pool pool;
    study_request per_trace = *req;
    size_t cpus = cli_online_processors();
    size_t threads = o->jobs ? o->jobs : cpus;
    int rc;

    memset(&pool, 0, sizeof pool);
    pool.req = &per_trace;
    pool.count = count;
    pool.quiet = o->quiet;
    if (!(pool.jobs = calloc(count, sizeof *pool.jobs)))
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++)
        pool.jobs[i].path = paths[i];
    if (threads > count)
        threads = count;
    if (threads > SWEEP_MAX_JOBS)
        threads = SWEEP_MAX_JOBS;
    if (!per_trace.threads) /* share the processors among the traces replayed at once */
        per_trace.threads = threads < cpus ? (unsigned)(cpus / threads) : 1;
    if (!(rc = run_all(&pool, threads)) && !(rc = write_csv(&pool, o->out_path ? o->out_path : "-", command_line))
        && o->svg_path)
        rc = write_svg(&pool, o->svg_path, o->granularity);
    for (size_t i = 0; i < count; i++)
        tea_run_free(&pool.jobs[i].result);
    free(pool.jobs);
    return rc;
}

int tea_sweep_main(int argc, char **argv)
{
    study_request req;
    sweep_options o = { NULL, NULL, 0, PICS_GRAN_INSN_COMPONENT, 0 };
    char *command_line = cli_join_command(argc, argv); /* before getopt reorders argv */
    int rc;

    study_request_init(&req, argv[0]);
    req.golden = 0;
    req.seed_count = SWEEP_DEFAULT_SEEDS;
    if (!command_line)
        return cli_fail(argv[0], tea_error_set(TEA_ERR_NOMEM, "out of memory"));
    if ((rc = study_parse_freqs(&req, SWEEP_DEFAULT_FREQS)))
        rc = cli_fail(argv[0], rc);
    else if ((rc = parse_args(argc, argv, &req, &o)) == PARSED_OK) {
        rc = sweep(&req, &o, argv + optind, (size_t)(argc - optind), command_line);
        rc = rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
    }
    free(command_line);
    return rc;
}
