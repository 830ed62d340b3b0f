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
#include "results/results.h"
#include "common/error.h"
#include "common/stats.h"
#include "common/pool.h"
#include "common/threads.h"
#include "common/outfile.h"
#include "palette.h"
#include "plot/chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SWEEP_DEFAULT_FREQS "100,1000,4000,8000"
#define SWEEP_DEFAULT_SEEDS 5
#define SWEEP_MAX_JOBS 256
#define SWEEP_MESSAGE_MAX 1024
#define PERCENT 100.0

#define SWEEP_TITLE_MAX 256
#define SWEEP_NAME_MAX 64 /* a scheme's name in the legend (--names) */
#define SWEEP_PROGRAM_SHOWN 96  /* bytes of the program's name in the chart's title */
#define SWEEP_SYNOPSIS                                                                                  \
    "Usage: tea sweep TRACE... [OPTIONS] [-o OUT.csv] [--svg OUT.svg]\n\n"                             \
    "Error against sampling frequency: every scheme at every frequency and seed, all\n"                \
    "sampled in one pass over each trace; traces in parallel. Writes the tidy results\n"               \
    "CSV (docs/pics-format.md, \"Results CSV\"): trace,scheme,freq_hz,seed,samples,lost,\n"              \
    "error_insn_component,error_insn,error_func,digest,cycles,records and, with\n"                  \
    "--noise-floor, noise_floor_insn_component,noise_floor_insn,noise_floor_func (empty\n"         \
    "without it). A TRACE written\n"               \
    "TRACE:BINARY names its program (as --elf does for all); a TRACE that exists as a file\n"          \
    "is never split. A TRACE that is a directory of a program's cores (tea record --thread\n"        \
    "all's thread-N.tea, FireSim's TRACEFILE0-C0 ...) is one program, as tea replay takes it:\n"    \
    "its rows are the program's, named for the directory.\n\n"                                      \
    "A frequency at which a scheme takes fewer than 1000 samples on a trace gets a warning\n"      \
    "on standard error with the frequency that would give enough.\n\n"                          \
    "Options:\n"

/* One trace of the sweep and its outcome. */
typedef struct sweep_job {
    const char *path;
    const char *elf;                   /* TRACE:BINARY's binary, or NULL for --elf's */
    char *owned;                       /* path when split off a TRACE:BINARY operand */
    tea_run result;
    int rc;
    char message[SWEEP_MESSAGE_MAX];   /* the error of a failed job (messages are per thread) */
} sweep_job;

/* What the worker threads share (common/pool.h runs them). */
typedef struct sweep_pool {
    const study_request *req;
    sweep_job *jobs;
    size_t count;
    size_t done;                       /* jobs done; in job_done, which the pool serializes */
    int quiet;                         /* -q: no line for a failed trace either */
    progress_meter meter;              /* traces done (job_done); one trace: its records */
} sweep_pool;

/* A program's directory of cores (tea/program.h): replayed as one
 * program, kept as a run of its rows. */
static int run_program_job(const study_request *req, sweep_job *job)
{
    char **paths = NULL, name[TEA_RUN_NAME_MAX];
    size_t count = 0;
    tea_program p;
    int rc;

    tea_program_name(NULL, job->path, name, sizeof name);
    tea_program_init(&p, name);
    if (!(rc = tea_program_core_files(job->path, &paths, &count))
        && !(rc = study_run_program(req, (const char *const *)paths, count, NULL, NULL, &p)))
        rc = tea_program_as_run(&p, job->path, &job->result);
    tea_program_free(&p);
    tea_program_core_files_free(paths, count);
    return rc;
}

/* Replays one trace (or program), keeping only its rows (the PICS go with
 * the engine). */
static void run_job(const study_request *req, sweep_job *job)
{
    study_request own = *req;
    if (job->elf)
        own.sym.elf_path = job->elf;
    job->rc = results_is_dir(job->path) ? run_program_job(&own, job) : study_run(&own, job->path, &job->result);
    if (job->rc)
        snprintf(job->message, sizeof job->message, "%s", error_message());
    tea_replay_free(job->result.replay);
    job->result.replay = NULL;
    if (job->result.floor) {
        tea_replay_free(job->result.floor->replay);
        job->result.floor->replay = NULL;
    }
}

/* Job i, on one of the pool's threads. */
static void job_run(void *ctx, size_t i)
{
    sweep_pool *pool = ctx;
    run_job(pool->req, &pool->jobs[i]);
}

/* After job i, one at a time (pool_for's lock): the failure line and the
 * progress of several traces. */
static void job_done(void *ctx, size_t i)
{
    sweep_pool *pool = ctx;
    pool->done++;
    if (pool->jobs[i].rc && !pool->quiet) {
        progress_hide(&pool->meter);
        fprintf(stderr, "tea sweep: %s failed (%zu of %zu)\n", pool->jobs[i].path, pool->done, pool->count);
    }
    if (pool->count > 1) /* one trace: its records are counted instead */
        progress_update(&pool->meter, pool->done);
}

/* Runs every job on `threads` threads (the calling one included; -j is
 * granted even past the processors, common/threads.h). */
static int run_all(sweep_pool *pool, size_t threads)
{
    int rc = pool_for(pool->count, (unsigned)threads, job_run, job_done, pool);

    progress_end(&pool->meter);
    for (size_t i = 0; i < pool->count && !rc; i++)
        if (pool->jobs[i].rc)
            rc = error_set(pool->jobs[i].rc, "%s", pool->jobs[i].message);
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

typedef struct sweep_options {
    const char *out_path, *svg_path;
    size_t jobs;
    pics_granularity granularity;
    progress_mode progress;
    int names;                 /* --names: the SVG names schemes TEA, NCI-TEA, ... */
    const char *title;         /* --title: the SVG's heading instead of the default */
} sweep_options;

/* Figure 8: per scheme, per frequency the mean over traces and seeds, with
 * the 95 % interval (t distribution) of that mean over the seeds, each seed's
 * value being its mean over the traces. */
static int write_svg(const sweep_pool *pool, const sweep_options *o)
{
    const char *path = o->svg_path;
    pics_granularity granularity = o->granularity;
    const study_request *req = pool->req;
    /* with --samples, the x axis is the sample count asked for (each trace
     * has its own frequencies) */
    int by_samples = req->sample_target_count > 0;
    size_t seeds = req->seed_count, freqs = by_samples ? req->sample_target_count : req->freq_count,
           schemes = req->scheme_count;
    int g = (int)granularity; /* a run row's errors are indexed by granularity */
    plot_chart_series *series = calloc(schemes, sizeof *series);
    plot_chart_point *points = calloc(schemes * freqs, sizeof *points);
    char(*labels)[TEA_RUN_LABEL_MAX] = calloc(schemes, sizeof *labels);
    char(*names)[SWEEP_NAME_MAX] = calloc(schemes, sizeof *names);
    char title[SWEEP_TITLE_MAX];
    plot_chart_lines chart;
    int rc = TEA_OK;

    if (!series || !points || !labels || !names) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < schemes; s++) {
        size_t kept = 0;
        tea_run_scheme_label(&req->schemes[s], labels[s], sizeof labels[s]);
        for (size_t f = 0; f < freqs; f++) {
            stats_sample over_seeds = { 0 };
            int known = 1;
            for (size_t k = 0; k < seeds && known; k++) {
                double e = mean_over_traces(pool, (s * freqs + f) * seeds + k, g);
                known = !isnan(e);
                stats_add(&over_seeds, e);
            }
            if (!known)
                continue;
            double mean = stats_mean(&over_seeds), half = stats_half_interval95(&over_seeds);
            /* errors are not negative, so neither is the bar's foot */
            double x = by_samples ? (double)req->sample_targets[f] : req->freqs[f];
            points[s * freqs + kept++] = (plot_chart_point){ x, PERCENT * mean,
                                                             seeds > 1 ? PERCENT * fmax(mean - half, 0.0) : NAN,
                                                             seeds > 1 ? PERCENT * (mean + half) : NAN };
        }
        const char *shown = o->names ? palette_scheme_display(labels[s], names[s], sizeof names[s]) : labels[s];
        series[s] = (plot_chart_series){ shown, palette_scheme_color(pics_scheme_name(req->schemes[s].scheme), s),
                                         points + s * freqs, kept };
    }
    if (pool->count == 1) {
        const tea_run *run = &pool->jobs[0].result;
        const char *program = palette_program(run->header.program.binary_path);
        snprintf(title, sizeof title, "%.*s: error against %s (%zu seed%s, %s)", SWEEP_PROGRAM_SHOWN,
                 program ? program : run->name, by_samples ? "sample count" : "sampling frequency", seeds,
                 seeds == 1 ? "" : "s", pics_granularity_name(granularity));
    } else {
        snprintf(title, sizeof title, "Error against %s (%zu traces, %zu seed%s, %s)",
                 by_samples ? "sample count" : "sampling frequency", pool->count, seeds, seeds == 1 ? "" : "s",
                 pics_granularity_name(granularity));
    }
    memset(&chart, 0, sizeof chart);
    chart.title = o->title ? o->title : title;
    chart.x_label = by_samples ? "samples per trace (each trace at its own frequency)" : "sampling frequency (Hz)";
    chart.y_label = "error";
    chart.x_log = 1;
    chart.y_format = PLOT_CHART_NUMBER_PERCENT;
    chart.series = series;
    chart.count = schemes;
    rc = plot_chart_save_lines(path, &chart);
done:
    free(series);
    free(points);
    free(labels);
    free(names);
    return rc;
}

/* Writes the results CSV, every trace in the order given, and, when it
 * goes to a regular file, its provenance beside it (OUT.json for OUT.csv;
 * none beside standard output, a FIFO or a device). */
static int write_csv(const sweep_pool *pool, const char *path, const char *command_line)
{
    outfile *out;
    json_writer j;
    char *json_path;
    int rc;
    if ((rc = outfile_open(&out, path)))
        return rc;
    tea_run_csv_begin(outfile_stream(out));
    for (size_t i = 0; i < pool->count; i++)
        tea_run_csv_trace(outfile_stream(out), &pool->jobs[i].result);
    struct stat st;
    if ((rc = outfile_commit(out)) || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return rc;
    if ((rc = tea_run_json_path(path, &json_path)))
        return rc;
    rc = outfile_open(&out, json_path);
    free(json_path);
    if (rc)
        return rc;
    json_init(&j, outfile_stream(out));
    tea_run_json_begin(&j, cli_version(), "sweep", command_line);
    for (size_t i = 0; i < pool->count; i++)
        tea_run_json_trace(&j, &pool->jobs[i].result);
    tea_run_json_end(&j);
    return outfile_commit(out);
}

/* --schemes LIST: as in tea replay, but with at least one sampling scheme
 * (golden alone samples nothing). */
static int sampler_schemes_option(const char *command, const cli_option *opt, const char *arg)
{
    int rc = study_option_schemes(command, opt, arg);
    if (rc == CLI_CONTINUE && !((const study_request *)opt->dest)->scheme_count)
        return cli_usage_error(command, "no sampling scheme in '%s'", arg);
    return rc;
}

/* The command's options beyond the study's. */
static int parse_args(int argc, char **argv, study_request *req, sweep_options *o)
{
    int rc, freqs_given = 0, samples_given = 0;
    const cli_option options[] = {
        STUDY_OPTION_FREQS("freq", req, &freqs_given, "sampling frequencies (default " SWEEP_DEFAULT_FREQS ")"),
        STUDY_OPTION_FREQS("freqs", req, &freqs_given, NULL), /* the old spelling, unlisted */
        STUDY_OPTION_SAMPLES(req, &samples_given, "instead of --freq: per trace, the frequencies that\n"
                                                  "give it about K samples each (the SVG's x axis is K)"),
        CLI_UINT_SEEN("seeds", "K", &req->seed_count, 1, STUDY_MAX_SEEDS,
                      "invalid seed count '%s' (1-" CLI_STR(STUDY_MAX_SEEDS) ")", &req->seeds_given,
                      "seeds per frequency and scheme (default 5): first..first+K-1"),
        CLI_UINT("first-seed", "N", &req->first_seed, 0, UINT64_MAX - STUDY_MAX_SEEDS, "invalid seed '%s'",
                 "the first seed (default 1)"),
        CLI_CALL("schemes", 0, "LIST", sampler_schemes_option, req,
                 "of tea,nci,ibs,spe,ris, each maybe SCHEME:all (default:\n"
                 "the five, each with its own events)"),
        STUDY_OPTION_EVENTS(req, "native (default) or all: every scheme gets all nine events"),
        STUDY_OPTION_JITTER(req, "none, start or interval (default interval)"),
        CLI_OPTION_SYMBOLS(&req->binary_symbols_path, "functions for error_func (default: each trace's binary)"),
        STUDY_OPTION_ELF(req, "the traced program of every TRACE without its own\n"
                              "(TRACE:BINARY): functions for error_func"),
        STUDY_OPTION_ADJUST_VMA(req),
        STUDY_OPTION_GOLDEN_RULES(req, "default, or tracedoctor: the golden reference of the\n"
                                       "authors' TraceDoctor worker (tea_gold), which TEA samples"),
        STUDY_OPTION_RULES(req, "default, or tracedoctor: tea, nci and ibs as the\n"
                                "authors' TraceDoctor workers sample, from TraceDoctor\n"
                                "traces (implies --golden-rules tracedoctor, --jitter\n"
                                "none, --seeds 1 and the schemes tea,nci,ibs; not with\n"
                                "--noise-floor; docs/semantics.md, \"Sampler rules\")"),
        { .long_name = "jobs",
          .short_name = 'j',
          .arg = CLI_ARG_REQUIRED,
          .value_name = "N",
          .help = "traces replayed at once (default: the number of CPUs,\nat most the number of traces)",
          .type = CLI_TYPE_UINT,
          .dest = &o->jobs,
          .size = sizeof o->jobs,
          .min = 1,
          .max = SWEEP_MAX_JOBS,
          .error = "invalid job count '%s' (1-" CLI_STR(SWEEP_MAX_JOBS) ")" },
        STUDY_OPTION_NOISE_FLOOR(req, "also each run's noise floor (the error of an exact\n"
                                      "attribution at the scheme's own sample points; a second\n"
                                      "pass over each trace)"),
        STUDY_OPTION_THREADS(req, "threads per trace for native trace files and multi-frame\n"
                                  "TraceDoctor .zst files (default: the CPUs left to each\n"
                                  "job, at least 1; 1 reads as a stream, and so does a\n"
                                  "trace on which an IBS, SPE or RIS period is under two\n"
                                  "frame batches' cycles, where that is faster); results\n"
                                  "are identical for every N"),
        CLI_OPTION_OUTPUT("OUT", &o->out_path,
                          "the CSV (default: standard output); its provenance\n"
                          "goes to OUT.json beside it (OUT.csv -> OUT.json)"),
        CLI_OPTION_SVG(&o->svg_path, "error against frequency, one line per scheme: the mean\n"
                                     "over traces and seeds, bars its 95 % interval over the\n"
                                     "seeds, t distribution (the TEA paper's Figure 8)"),
        CLI_OPTION_GRANULARITY(&o->granularity, "error the SVG shows: insn-component (default), insn, func"),
        CLI_FLAG("names", 0, &o->names, "the SVG names the schemes as in prose (TEA, NCI-TEA, IBS,\n"
                                        "SPE, RIS; IBS (all events) for ibs:all), as pics table --names"),
        CLI_STRING("title", 0, "TEXT", &o->title, "the SVG's heading (default: the program or the trace\n"
                                                  "count, the seeds and the granularity)"),
        CLI_OPTIONS_PROGRESS(&o->progress),
        CLI_TRACE_OPTIONS(&req->open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(SWEEP_SYNOPSIS, NULL, 23, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (o->granularity == PICS_GRAN_CALLPATH)
        return cli_usage_error(argv[0], "--granularity callpath is pics report's and pics error's (PICS of tea "
                                        "replay --call-paths)");
    if (freqs_given && samples_given)
        return cli_usage_error(argv[0], "--freqs and --samples exclude each other");
    if (optind == argc)
        return cli_usage_error(argv[0], "missing TRACE");
    if ((size_t)(argc - optind) > SIZE_MAX / sizeof(sweep_job))
        return cli_usage_error(argv[0], "too many traces");
    return study_apply_rules(req);
}

/* A TRACE operand into the job: the whole operand when it names a file (or
 * is "-"), else TRACE:BINARY split at its last ':'. */
static int split_operand(const char *operand, sweep_job *job)
{
    const char *colon = strrchr(operand, ':');
    job->path = operand;
    if (strcmp(operand, "-") == 0 || access(operand, F_OK) == 0 || !colon || colon == operand || !colon[1])
        return TEA_OK;
    if (!(job->owned = strndup(operand, (size_t)(colon - operand))))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    job->path = job->owned;
    job->elf = colon + 1;
    return TEA_OK;
}

/* Replays every trace and writes the outputs. */
static int sweep(const study_request *req, const sweep_options *o, char **paths, size_t count,
                 const char *command_line)
{
    sweep_pool pool;
    study_request per_trace = *req;
    size_t cpus = threads_processors();
    size_t threads = o->jobs ? o->jobs : cpus;
    int rc;

    memset(&pool, 0, sizeof pool);
    pool.req = &per_trace;
    pool.count = count;
    pool.quiet = o->progress == PROGRESS_OFF;
    /* Several traces: traces done of all; one trace: its records, as tea
     * replay counts them (on the one job's thread). */
    progress_start(&pool.meter, o->progress, stderr, "tea sweep", count > 1 ? "traces" : "records",
                   count > 1 ? count : 0);
    if (count == 1)
        per_trace.meter = &pool.meter;
    if (!(pool.jobs = calloc(count, sizeof *pool.jobs)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++)
        if ((rc = split_operand(paths[i], &pool.jobs[i])))
            goto done;
    if (threads > count)
        threads = count;
    if (threads > SWEEP_MAX_JOBS)
        threads = SWEEP_MAX_JOBS;
    if (!per_trace.threads) /* share the processors among the traces replayed at once */
        per_trace.threads = threads < cpus ? (unsigned)(cpus / threads) : 1;
    if (!(rc = run_all(&pool, threads)) && !(rc = write_csv(&pool, o->out_path ? o->out_path : "-", command_line))
        && o->svg_path)
        rc = write_svg(&pool, o);
    for (size_t i = 0; !rc && i < count; i++) {
        tea_run_say_chosen_frequencies(&pool.jobs[i].result, req->sample_targets, req->sample_target_count, stderr,
                                       "tea sweep");
        tea_run_warn_few_samples(&pool.jobs[i].result, stderr, "tea sweep", req->sample_target_count ? NULL : "--freq");
    }
done:
    for (size_t i = 0; i < count; i++) {
        tea_run_free(&pool.jobs[i].result);
        free(pool.jobs[i].owned);
    }
    free(pool.jobs);
    return rc;
}

int cmd_tea_sweep(int argc, char **argv)
{
    study_request req;
    sweep_options o = { NULL, NULL, 0, PICS_GRAN_INSN_COMPONENT, PROGRESS_AUTO, 0, NULL };
    char *command_line = cli_join_command(argc, argv); /* before getopt reorders argv */
    int rc;

    study_request_init(&req, argv[0]);
    req.golden = 0;
    req.seed_count = SWEEP_DEFAULT_SEEDS;
    req.flat = 1; /* rows only: their errors are the flat PICS's, which recorded contexts would only slow */
    if (!command_line)
        return cli_fail(argv[0], error_set(TEA_ERR_NOMEM, "out of memory"));
    if ((rc = study_parse_freqs(&req, SWEEP_DEFAULT_FREQS)))
        rc = cli_fail(argv[0], rc);
    else if ((rc = parse_args(argc, argv, &req, &o)) == CLI_CONTINUE) {
        rc = sweep(&req, &o, argv + optind, (size_t)(argc - optind), command_line);
        rc = rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
    }
    free(command_line);
    return rc;
}
