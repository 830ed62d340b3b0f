/*
 * tea_replay.c: `tea replay`, one pass over a trace feeding the golden
 * reference and every requested sampler at every requested frequency; writes
 * their PICS and prints how wrong each sampler is.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outdir.h"
#include "common/outfile.h"
#include "study.h"
#include "pics/pics_file.h"
#include "results/results.h"
#include "trace/estimate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_PATH_MAX 4096

#define REPLAY_SYNOPSIS                                                                                 \
    "Usage: tea replay TRACE... [OPTIONS] -o DIR\n\n"                                                  \
    "Replay a trace once through the golden reference and the sampling schemes, write each\n"          \
    "PICS to DIR (golden.pics, SCHEME.pics, or SCHEME-FREQhz.pics with several frequencies,\n"         \
    "plus summary.csv and its provenance summary.json) and print samples, losses and the\n"           \
    "error of each scheme.\n\n"                                                                        \
    "Several traces, or a directory of FireSim's per-core files (TRACEFILE0-C0, -C1, ...),\n"         \
    "are the cores of one program: each core is replayed with samplers of its own, its files\n"       \
    "go to DIR/cores/NAME/, and DIR holds the program's: every PICS the exact sum of the\n"          \
    "cores', the errors those of the sums (docs/semantics.md, \"Programs\").\n\n"                   \
    "Options:\n"
#define REPLAY_EPILOGUE                                                                                 \
    "\n"                                                                                               \
    "With --jitter none the sample points are origin + k*P, k = 1, 2, ..., the origin being\n"         \
    "the trace's first cycle. Error is sum |P - G| / 2C per instruction and component\n"               \
    "(error), per instruction (error_insn) and per function and component (in\n"                      \
    "summary.csv); see docs/semantics.md. summary.csv follows docs/pics-format.md,\n"                  \
    "\"Results CSV\": the header line, then rows only, errors as fractions.\n\n"                      \
    "A scheme that takes fewer than 1000 samples gets a warning on standard error: its\n"         \
    "error then mostly measures sampling noise (about 1/sqrt(samples)). The default 4 kHz\n"     \
    "is the TEA paper's, for runs of seconds; where a native trace's index shows that it\n"     \
    "would give fewer than 2000 samples (a short recording), the default is raised to the\n"   \
    "frequency that gives 2000, and standard error says so. The warning names the frequency\n" \
    "(or, with --samples, the K) that makes up for a scheme's losses, or says the trace is\n"  \
    "too short even at one sample per cycle.\n"                                                \
    "--samples K chooses instead the frequency that gives the trace about K samples:\n"       \
    "K * clock / cycles, to three significant digits (the cycles a sampled recording's\n"     \
    "windows stand for); it is said on standard error and is freq_hz in every output.\n\n"  \
    "--noise-floor separates a scheme's bias from its sampling noise: the floor is the\n"     \
    "error of the golden reference's own attribution of the cycles the scheme sampled\n"     \
    "(TEA at its sample points, with its losses). TEA's floor is its error; for the\n"        \
    "others, error minus floor is what their attribution adds (docs/semantics.md).\n"

/* The file of a sampler's PICS: DIR/LABEL.pics, with -FREQhz when several
 * frequencies were asked for, or of its noise floor, DIR/LABEL.floor.pics
 * (results/results.h). */
static void sampler_file_name(const study_request *req, const char *dir, const tea_run_row *row, int floor,
                              char *buf, size_t size)
{
    char name[RESULTS_NAME_MAX + TEA_RUN_LABEL_MAX];
    size_t freqs = req->sample_target_count ? req->sample_target_count : req->freq_count;
    int with_frequency = freqs > 1 && !req->period;
    if (floor)
        results_floor_name(row->label, with_frequency, row->spec.frequency_hz, name, sizeof name);
    else
        results_pics_name(row->label, with_frequency, row->spec.frequency_hz, name, sizeof name);
    snprintf(buf, size, "%s/%s", dir, name);
}

/* Writes one PICS with its provenance: the golden's (i == SIZE_MAX), sampler
 * i's, or with `floor` its noise floor's; on a sampled trace with their
 * window groups. */
static int write_pics(const tea_run *t, size_t i, int floor, const char *path)
{
    const pics *p = i == SIZE_MAX ? tea_replay_golden(t->replay)
                    : floor       ? tea_replay_sampler_pics(t->floor->replay, i)
                                  : tea_replay_sampler_pics(t->replay, i);
    const pics *groups = NULL;
    unsigned group_count = 0;
    pics_info info;
    int rc;
    if ((rc = floor ? tea_run_describe_floor(t, i, &info) : tea_run_describe(t, i, &info)))
        return rc;
    if (i == SIZE_MAX) /* a sampled trace's PICS by groups of windows */
        groups = tea_replay_golden_groups(t->replay, &group_count);
    else
        groups = tea_replay_sampler_groups(floor ? t->floor->replay : t->replay, i, &group_count);
    rc = pics_write_groups(path, &info, p, groups, group_count);
    pics_info_free(&info);
    return rc;
}

/* Writes summary.csv and its provenance summary.json of a trace's run, or
 * of a program's (tea_program_as_run), into `dir`. */
static int write_summary(const char *dir, const tea_run *t, const char *command_line)
{
    char path[REPLAY_PATH_MAX];
    outfile *f;
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, RESULTS_SUMMARY);
    if ((rc = outfile_open(&f, path)))
        return rc;
    tea_run_csv_begin(outfile_stream(f));
    tea_run_csv_trace(outfile_stream(f), t);
    if ((rc = outfile_commit(f)))
        return rc;
    snprintf(path, sizeof path, "%s/%s", dir, RESULTS_PROVENANCE);
    if ((rc = outfile_open(&f, path)))
        return rc;
    json_writer j;
    json_init(&j, outfile_stream(f));
    tea_run_json_begin(&j, cli_version(), "replay", command_line);
    tea_run_json_trace(&j, t);
    tea_run_json_end(&j);
    return outfile_commit(f);
}

/* Writes every PICS, summary.csv and its provenance summary.json into `dir`
 * (a temporary directory, or a core's directory in it). */
static int write_files(const study_request *req, const char *dir, const tea_run *t, const char *command_line)
{
    char path[REPLAY_PATH_MAX];
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, RESULTS_GOLDEN);
    if ((rc = write_pics(t, SIZE_MAX, 0, path)))
        return rc;
    for (size_t i = 0; i < t->row_count; i++) {
        for (int floor = 0; floor <= (t->floor != NULL); floor++) {
            sampler_file_name(req, dir, &t->rows[i], floor, path, sizeof path);
            if ((rc = write_pics(t, i, floor, path)))
                return rc;
        }
    }
    return write_summary(dir, t, command_line);
}

/* Writes the run's files beside `dir` and moves them in as a set
 * (common/outdir.h says what happens to other files in `dir`). */
static int write_outputs(const study_request *req, const char *dir, const tea_run *t, const char *command_line)
{
    outdir *d;
    int rc;

    if ((rc = outdir_open(&d, dir, results_is_dir_file)))
        return rc;
    /* room for the longest file name: "ibs-all-<frequency>hz.floor.pics" */
    if (strlen(outdir_path(d)) + TEA_RUN_LABEL_MAX + 32 >= REPLAY_PATH_MAX)
        rc = error_set(TEA_ERR_USAGE, "output directory name too long: '%s'", dir);
    if (rc || (rc = write_files(req, outdir_path(d), t, command_line))) {
        outdir_abort(d);
        return rc;
    }
    return outdir_commit(d);
}

/* A percentage for the table, or "-" when unknown. */
static void print_percent(double v, int width)
{
    if (isnan(v))
        printf(" %*s", width, "-");
    else
        printf(" %*.2f%%", width - 1, 100.0 * v);
}

/* A sampled trace's run, estimated from its windows as tea info does
 * (tea_run.estimate), under the trace's line (whose cycles are the
 * windows' own). */
static void print_run(const tea_run *t)
{
    const trace_sampling *s = &t->objects.run.sampling;
    const trace_estimate *e = &t->estimate;

    if (!t->sampled)
        return;
    printf("run:    estimated %.6g cycles", e->cycles);
    if (!isnan(e->half))
        printf(" +- %.3g (95 %%)", e->half);
    printf(" for %.6g instructions, from the trace's %zu %s (the cycles above are theirs)\n", e->instructions,
           s->window_count, trace_sampling_weighted(s) ? "SimPoint regions" : "windows");
}

/* On a sampled trace the taggers sample in units at the run's period: how
 * many, under the run's line. */
static void print_phases(const tea_run *t)
{
    for (size_t i = 0; i < t->row_count; i++) {
        const tea_sampler_spec *sp = &t->rows[i].spec;
        if (sp->phases <= 1)
            continue;
        printf("taggers: IBS, SPE and RIS each sample as %u units at the run's period (%llu cycles)\n", sp->phases,
               (unsigned long long)sp->phase_period);
        return;
    }
}

/* The scheme table: a row per sampler (and golden's, when asked for). */
static void print_rows(const study_request *req, const tea_run_row *rows, size_t count, int floors)
{
    printf("%-8s %11s %10s %10s %9s %8s %10s %10s", "scheme", "freq_hz", "period", "samples", "lost", "error",
           "error_insn", "error_func");
    if (floors)
        printf(" %11s", "noise_floor");
    putchar('\n');
    if (req->golden) {
        printf("%-8s %11s %10s %10s %9s %7.2f%% %9.2f%% %9.2f%%", "golden", "-", "-", "-", "-", 0.0, 0.0, 0.0);
        if (floors)
            printf(" %10.2f%%", 0.0);
        putchar('\n');
    }
    for (size_t i = 0; i < count; i++) {
        const tea_run_row *row = &rows[i];
        printf("%-8s %11.6g %10llu %10llu %9llu", row->label, row->spec.frequency_hz,
               (unsigned long long)row->spec.period, (unsigned long long)row->samples, (unsigned long long)row->lost);
        print_percent(row->error[0], 8);
        print_percent(row->error[1], 10);
        print_percent(row->error[2], 10);
        if (floors)
            print_percent(row->noise_floor[0], 11);
        putchar('\n');
    }
}

/* The trace's line: its span, records and the cycles golden attributed. */
static void print_trace(const char *what, const tea_run *t)
{
    const golden_totals *g = tea_replay_golden_totals(t->replay);
    printf("%s %s (%llu cycles, %llu records; %llu cycles attributed)\n", what, t->path,
           (unsigned long long)(t->totals.last_cycle - t->totals.first_cycle), (unsigned long long)t->totals.records,
           (unsigned long long)g->attributed);
}

static void print_table(const study_request *req, const char *dir, const tea_run *t)
{
    print_trace("trace: ", t);
    print_run(t);
    print_phases(t);
    printf("output: %s\n\n", dir);
    print_rows(req, t->rows, t->row_count, t->floor != NULL);
}

static int replay_main(const study_request *req, const char *trace_path, const char *dir, const char *command_line)
{
    study_request with_meter = *req;
    progress_meter meter;
    tea_run t;
    int rc;

    progress_start(&meter, req->progress, stderr, "tea replay", "records", 0);
    with_meter.meter = &meter;
    rc = study_run(&with_meter, trace_path, &t);
    progress_end(&meter);
    if (!rc && !(rc = write_outputs(req, dir, &t, command_line))) {
        tea_run_say_chosen_frequencies(&t, req->sample_targets, req->sample_target_count, stderr, "tea replay");
        tea_run_say_raised_default(&t, stderr, "tea replay");
        print_table(req, dir, &t);
        tea_run_warn_few_samples(&t, stderr, "tea replay", req->sample_target_count ? NULL : "--freq");
    }
    tea_run_free(&t);
    return rc;
}

/* A program's replay (several cores) as it goes: where its cores' files go. */
typedef struct program_replay {
    const study_request *req;
    const char *dir;                    /* the temporary output directory */
    const char *command_line;
    char (*names)[TEA_RUN_NAME_MAX];    /* each core's directory under RESULTS_CORES */
} program_replay;

/* Makes directory `path` (it may exist). */
static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return error_set(TEA_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    return TEA_OK;
}

/* Writes a core's files into DIR/cores/NAME and prints its line. */
static int write_core(void *ctx, size_t k, const tea_run *t)
{
    const program_replay *pr = ctx;
    char path[REPLAY_PATH_MAX];
    int rc;

    snprintf(path, sizeof path, "%s/%s", pr->dir, RESULTS_CORES);
    if ((rc = make_dir(path)))
        return rc;
    snprintf(path, sizeof path, "%s/%s/%s", pr->dir, RESULTS_CORES, pr->names[k]);
    if ((rc = make_dir(path)) || (rc = write_files(pr->req, path, t, pr->command_line)))
        return rc;
    printf("core %s:", pr->names[k]);
    print_trace("", t);
    return TEA_OK;
}

/* Writes the program's PICS into `dir`, and summary.csv and summary.json
 * of its run `as` (tea_program_as_run). */
static int write_program(const study_request *req, const char *dir, const tea_program *p, const tea_run *as,
                         const char *command_line)
{
    char path[REPLAY_PATH_MAX];
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, RESULTS_GOLDEN);
    if ((rc = pics_write(path, &p->golden.info, &p->golden.cells)))
        return rc;
    for (size_t i = 0; i < p->row_count; i++) {
        sampler_file_name(req, dir, &p->rows[i], 0, path, sizeof path);
        if ((rc = pics_write(path, &p->samplers[i].info, &p->samplers[i].cells)))
            return rc;
        if (p->floors) {
            sampler_file_name(req, dir, &p->rows[i], 1, path, sizeof path);
            if ((rc = pics_write(path, &p->floors[i].info, &p->floors[i].cells)))
                return rc;
        }
    }
    return write_summary(dir, as, command_line);
}

/* Replays `count` traces as the cores of one program into `dir`: each
 * core's files under cores/NAME, the program's in `dir`. */
static int replay_program(const study_request *req, const char *const *paths, size_t count, const char *from_dir,
                          const char *dir, const char *command_line)
{
    study_request with_meter = *req;
    progress_meter meter;
    program_replay pr = { .req = req, .command_line = command_line };
    char name[TEA_RUN_NAME_MAX];
    tea_program p;
    tea_run as;
    outdir *d = NULL;
    int rc;

    if (!(pr.names = calloc(count, sizeof *pr.names)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    tea_program_core_names(paths, count, pr.names);
    tea_program_name(paths, from_dir, name, sizeof name);
    tea_program_init(&p, name);
    memset(&as, 0, sizeof as);
    if ((rc = outdir_open(&d, dir, results_is_dir_file)))
        goto done;
    pr.dir = outdir_path(d);
    if (strlen(pr.dir) + 2 * TEA_RUN_NAME_MAX + TEA_RUN_LABEL_MAX + 48 >= REPLAY_PATH_MAX) {
        rc = error_set(TEA_ERR_USAGE, "output directory name too long: '%s'", dir);
        goto done;
    }
    printf("program: %s, %zu cores\n", name, count);
    progress_start(&meter, req->progress, stderr, "tea replay", "records", 0);
    with_meter.meter = &meter;
    rc = study_run_program(&with_meter, paths, count, write_core, &pr, &p);
    progress_end(&meter);
    if (!rc && !(rc = tea_program_as_run(&p, NULL, &as)))
        rc = write_program(req, pr.dir, &p, &as, command_line);
    if (!rc) {
        rc = outdir_commit(d);
        d = NULL;
    }
    if (!rc) {
        tea_run_say_chosen_frequencies(&as, req->sample_targets, req->sample_target_count, stderr, "tea replay");
        tea_run_say_raised_default(&as, stderr, "tea replay");
        printf("program: %llu core-cycles, %llu records; %.0f cycles attributed\n", (unsigned long long)p.cycles,
               (unsigned long long)p.records, (double)p.golden.info.golden_total / PICS_UNIT);
        printf("output: %s (the program's; each core's under %s/)\n\n", dir, RESULTS_CORES);
        print_rows(req, p.rows, p.row_count, p.floors != NULL);
        tea_run_warn_few_samples(&as, stderr, "tea replay", req->sample_target_count ? NULL : "--freq");
    }
done:
    outdir_abort(d);
    tea_run_free(&as);
    tea_program_free(&p);
    free(pr.names);
    return rc;
}

/* Parses the options into req and *out_dir. Returns CLI_CONTINUE, or the exit
 * status when the command ends here (--help, usage errors). */
static int parse_args(int argc, char **argv, study_request *req, const char **out_dir)
{
    int rc, freq_given = 0, samples_given = 0;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT_DIR(out_dir, "output directory (created if missing)"),
        STUDY_OPTION_SCHEMES(req, "of golden,tea,nci,ibs,spe,ris (default: all six); a scheme\n"
                                  "written SCHEME:all reports all nine events (e.g. ibs:all),\n"
                                  "to separate time-proportionality from event support"),
        STUDY_OPTION_FREQS("freq", req, &freq_given, "sampling frequencies (default 4000, raised on a short\n"
                                                     "native trace to give 2000 samples; 4k, 1.5kHz accepted)"),
        CLI_UINT("period", "CYCLES", &req->period, 1, UINT64_MAX, "invalid period '%s' (cycles, at least 1)",
                 "sampling period in cycles (instead of --freq)"),
        STUDY_OPTION_SAMPLES(req, &samples_given, "instead of --freq: the frequencies that give this trace\n"
                                                  "about K samples each (1000, 2k)"),
        CLI_OPTION_SEED("N", &req->first_seed, "seed of the sample points and tag choices (default 1)"),
        STUDY_OPTION_JITTER(req, "none, start or interval (default interval)"),
        STUDY_OPTION_EVENTS(req, "native (each scheme's own events, default) or all (every\n"
                                 "scheme gets all nine, as SCHEME:all)"),
        CLI_OPTION_SYMBOLS(&req->binary_symbols_path, "functions for error_func ('START END NAME' lines; default:\n"
                                                      "the binary the trace names, if any)"),
        STUDY_OPTION_ELF(req, "the traced program: functions for error_func, recorded in\n"
                              "every PICS so later commands need no --elf"),
        STUDY_OPTION_ADJUST_VMA(req),
        STUDY_OPTION_GOLDEN_RULES(req, "default, or tracedoctor: the golden reference of the\n"
                                       "authors' TraceDoctor worker (tea_gold), cell for cell;\n"
                                       "TEA samples it (docs/semantics.md, \"Rule sets\")"),
        STUDY_OPTION_RULES(req, "default, or tracedoctor: TEA, NCI-TEA and IBS as the\n"
                                "authors' TraceDoctor workers sample (tea_sampler,\n"
                                "pebs_sampler, ibs_sampler), cell for cell, from a\n"
                                "TraceDoctor trace; implies the tracedoctor golden rules,\n"
                                "--jitter none and the schemes golden,tea,nci,ibs; not\n"
                                "with --noise-floor (docs/semantics.md, \"Sampler rules\")"),
        STUDY_OPTION_NOISE_FLOOR(req, "also each scheme's noise floor: the error of an exact\n"
                                      "attribution (TEA) at the scheme's own sample points\n"
                                      "(noise_floor_* in summary.csv, SCHEME.floor.pics); a\n"
                                      "second pass over the trace, so not from standard input"),
        STUDY_OPTION_THREADS(req, "replay a native trace file's frames on N threads, or\n"
                                  "decompress a multi-frame TraceDoctor .zst's frames on N\n"
                                  "threads (default: the processors this process may use);\n"
                                  "1 reads the trace as a stream, decompressed on one\n"
                                  "thread; so does an IBS, SPE or RIS period under two\n"
                                  "frame batches' cycles (about 4,000 for `mixed`), where\n"
                                  "the stream is faster. Results are identical for every N"),
        STUDY_OPTION_CALL_PATHS(req, "calling contexts: the PICS's cells per call path, rebuilt\n"
                                     "from the committed instructions with the binary (--elf,\n"
                                     "else the trace's; docs/semantics.md, \"Calling contexts\");\n"
                                     "the trace is read as a stream. A trace that tea record\n"
                                     "wrote holds its own, used unless --flat"),
        STUDY_OPTION_FLAT(req, "drop the calling contexts the trace records: flat PICS,\n"
                               "the sums over contexts"),
        CLI_OPTIONS_PROGRESS(&req->progress),
        CLI_TRACE_OPTIONS(&req->open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(REPLAY_SYNOPSIS, REPLAY_EPILOGUE, 25, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind == argc)
        return cli_usage_error(argv[0], "missing TRACE");
    if (!*out_dir)
        return cli_usage_error(argv[0], "missing -o DIR");
    if ((req->period != 0) + freq_given + samples_given > 1)
        return cli_usage_error(argv[0], "--period, --freq and --samples exclude each other");
    if (!req->period && !freq_given && !samples_given)
        req->default_min_samples = TEA_RUN_DEFAULT_SAMPLES;
    return study_apply_rules(req);
}

/* One trace, several (the cores of one program), or a directory of
 * FireSim's per-core files. */
static int replay_traces(const study_request *req, const char *const *paths, size_t count, const char *dir,
                         const char *command_line)
{
    char **files = NULL;
    size_t file_count = 0;
    int rc;

    if (count == 1 && results_is_dir(paths[0])) {
        if ((rc = tea_program_core_files(paths[0], &files, &file_count)))
            return rc;
        rc = replay_program(req, (const char *const *)files, file_count, paths[0], dir, command_line);
        tea_program_core_files_free(files, file_count);
        return rc;
    }
    if (count == 1)
        return replay_main(req, paths[0], dir, command_line);
    if (count > TEA_PROGRAM_CORES_MAX)
        return error_set(TEA_ERR_USAGE, "more than %d traces", TEA_PROGRAM_CORES_MAX);
    return replay_program(req, paths, count, NULL, dir, command_line);
}

int cmd_tea_replay(int argc, char **argv)
{
    study_request req;
    const char *out_dir = NULL;
    char *command_line = cli_join_command(argc, argv); /* before getopt reorders argv */
    int rc;

    study_request_init(&req, argv[0]);
    if (!command_line)
        return cli_fail(argv[0], error_set(TEA_ERR_NOMEM, "out of memory"));
    if ((rc = parse_args(argc, argv, &req, &out_dir)) == CLI_CONTINUE) {
        rc = replay_traces(&req, (const char *const *)argv + optind, (size_t)(argc - optind), out_dir,
                           command_line);
        rc = rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
    }
    free(command_line);
    return rc;
}
