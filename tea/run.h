/*
 * run.h: the replay driver. Given a trace and what to sample, it opens the
 * trace (by frames on several threads, or as a stream), runs the golden
 * reference and every sampler over it in one pass (tea/replay.h), and keeps
 * the outcome: the golden PICS and totals, each sampler's PICS, samples,
 * losses and error at three granularities, the trace's header, totals and
 * digest, and the provenance of every PICS. `tea replay` and `tea sweep`
 * parse a command line into tea_run_options, call tea_run_trace and
 * tea_run_errors, and print or write what they need; the results CSV both
 * write is tea_run_csv_begin and tea_run_csv_trace, its provenance
 * tea_run_json_* (docs/pics-format.md, "Results CSV").
 *
 * Samplers: every scheme of the options (with its event set) at every
 * frequency (or the one period) and every seed, scheme-major, then
 * frequency, then seed. Each frequency becomes a period by
 * tea_run_period, the one place that rule lives. With sample_targets, the
 * frequencies are chosen per trace, one for each target, before the
 * replay: the trace's cycles come from a native file's index or from one
 * reading of any other file (a pipe cannot be read twice: refused).
 */
#ifndef TEA_TEA_RUN_H
#define TEA_TEA_RUN_H

#include "replay.h"
#include "trace/callpath.h"
#include "common/progress.h"
#include "pics/scheme.h"
#include "common/json.h"
#include "pics/error.h"
#include "pics/pics_file.h"
#include "trace/estimate.h"
#include "trace/symmap.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TEA_RUN_LABEL_MAX 16      /* "ibs:all" and its NUL */
#define TEA_RUN_NAME_MAX 128      /* a trace's name */
#define TEA_RUN_GRANULARITIES 3   /* the pics_granularity values: insn-component, insn, func */

/* A sampling scheme with its event set. */
typedef struct tea_run_scheme {
    pics_scheme scheme;   /* PICS_SCHEME_TEA .. PICS_SCHEME_RIS */
    int all_events;      /* all nine events instead of the scheme's own */
} tea_run_scheme;

/* What to sample. The arrays are the caller's and are read only during
 * tea_run_trace. */
typedef struct tea_run_options {
    const tea_run_scheme *schemes;   /* in the order the samplers are to have */
    size_t scheme_count;
    const double *freqs;             /* Hz, > 0 */
    size_t freq_count;
    uint64_t period;                 /* cycles; instead of freqs when not 0 */
    const uint64_t *sample_targets;  /* --samples: instead of freqs when sample_target_count is not 0, */
    size_t sample_target_count;      /* each a frequency per trace (tea_run_frequency_for_samples) */
    const uint64_t *freq_targets;    /* with freqs: the --samples K each was chosen for (tea_run_trace
                                        sets it); NULL: freqs as given */
    uint64_t first_seed;             /* seeds first_seed .. first_seed + seed_count - 1 */
    size_t seed_count;
    pics_jitter jitter;
    int all_events;                  /* every scheme gets all nine events */
    golden_rules rules;              /* the golden reference's rule set, which TEA samples */
    golden_rules sampler_rules;      /* the samplers' rule set: tracedoctor reads the trace's tokens
                                        (tea/tdsampler.h; a TraceDoctor trace, as a stream) */
    trace_open_options open;         /* open.clock_hz, when not 0, overrides the header's clock */
    unsigned threads;                /* > 1: a native trace file by frames on that many threads (at most
                                        TEA_PARALLEL_MAX_THREADS), a multi-frame compressed TraceDoctor
                                        file's frames decompressed on that many; 0 or 1: as a stream */
    progress_meter *meter;           /* records replayed, when not NULL (common/progress.h): of the
                                        index's total by frames, a count as a stream; started and
                                        ended by the caller, updated from the calling thread */
    int noise_floor;                 /* also each sampler's noise floor: a second pass (below) */
    const tea_sampler_spec *specs;   /* when not NULL, exactly these samplers instead of schemes x */
    size_t spec_count;               /* frequencies x seeds (the noise floor's pass; labelled by scheme) */
    uint64_t default_min_samples;    /* not 0: freqs is the command's default (one frequency), raised to
                                        give this many sample points where the trace's index tells its
                                        length and the default would give fewer (docs/usage.md) */
    trace_classify_fn classify;      /* not NULL: calling contexts rebuilt from the committed
                                        instructions (trace/callpath.h) with this classifier and
                                        classify_arg, in every PICS; the trace is read as a stream */
    void *classify_arg;
    int flat;                        /* drop the calling contexts a trace records (tea record's): every
                                        µop in the root context, as in a trace without them */
} tea_run_options;

/* One sampler's outcome. */
typedef struct tea_run_row {
    tea_sampler_spec spec;
    char label[TEA_RUN_LABEL_MAX];             /* "tea", "ibs:all" */
    uint64_t samples, lost;                    /* lost: summed over the loss reasons */
    uint64_t samples_target;                   /* the --samples K its frequency was chosen for; 0: --freq */
    double error[TEA_RUN_GRANULARITIES];       /* fractions, indexed by pics_granularity; NaN when unknown
                                                  (no golden cycles, no function symbols, not computed) */
    double noise_floor[TEA_RUN_GRANULARITIES]; /* the same for the sampler's noise floor (NaN without
                                                  options.noise_floor) */
    double error_half;                         /* half the 95 % interval of error[PICS_GRAN_INSN_COMPONENT]
                                                  over a sampled trace's window groups (the jackknife,
                                                  pics_error_jackknife); NaN: no groups, not computed */
} tea_run_row;

/* One trace's run. */
typedef struct tea_run {
    char name[TEA_RUN_NAME_MAX];               /* the file's name without directory and suffixes */
    const char *path;                          /* the caller's */
    trace_header header;                       /* the clock as used (options' clock_hz if given) */
    trace_totals totals;
    trace_object_list objects;                 /* the trace's executable objects, recorded thread and run
                                                  (objects.run.sampling: a sampled recording's windows) */
    char digest[TRACE_DIGEST_LEN + 1];         /* trace_digest */
    tea_replay *replay;                        /* the engine, with every PICS and the golden totals */
    tea_run_row *rows;                         /* one per sampler, in spec order */
    size_t row_count;
    struct tea_run *floor;                     /* with options.noise_floor: the second pass, whose sampler
                                                  i is row i's noise floor (NULL otherwise) */
    double default_freq_hz;                    /* the default frequency options.default_min_samples raised
                                                  (0: not raised) */
    double default_samples;                    /* the sample points it would have given */
    size_t cores;                              /* a program's cores (tea_program_as_run: no engine); 0 for a
                                                  trace */
    int sampled;                               /* a sampled trace (periodic or SimPoint): `estimate` holds */
    trace_estimate estimate;                   /* ... the run's estimate from its windows (trace/estimate.h) */
    trace_contexts contexts;                   /* the calling contexts of every PICS: options.classify's,
                                                  else the trace's own unless options.flat (count 0: none) */
} tea_run;

/*
 * The sampling period for a frequency: floor(clock_hz / freq_hz + 0.5)
 * cycles (the nearest whole period, halves rounded up), at least 1 and at
 * most UINT64_MAX. freq_hz must be > 0. Every sample point of a run at a
 * frequency follows from this period.
 */
uint64_t tea_run_period(uint64_t clock_hz, double freq_hz);

/*
 * The sampling period on a sampled trace (docs/semantics.md, "Sampled
 * recordings"): its windows hold `length` of every `every` instructions, so
 * a scheme that samples the whole run at freq_hz samples the windows every
 * floor(clock_hz * length / (freq_hz * every) + 0.5) cycles, at least 1:
 * as many samples as on the whole run. `every` 0: tea_run_period.
 */
uint64_t tea_run_sampled_period(uint64_t clock_hz, double freq_hz, uint64_t every, uint64_t length);

/*
 * The units (phases, tea/tagger.h) in which IBS, SPE and RIS sample a trace
 * sampled periodically with `every` and `length` at freq_hz: the run's
 * period over the trace's, round(tea_run_period / tea_run_sampled_period),
 * from 1 to TEA_TAGGER_PHASES_MAX, so that each unit samples at the run's
 * period and finds its own last tag as old as on the whole run
 * (docs/semantics.md, "Taggers on a sampled trace"). 1 on a whole trace
 * (every 0).
 */
unsigned tea_run_tagger_phases(uint64_t clock_hz, double freq_hz, uint64_t every, uint64_t length);

/*
 * The frequency at which a trace standing for `cycles` cycles of the run
 * (trace_sampling_stands_for: last - first unsampled) at clock_hz gets
 * about `samples` sample points: samples * clock_hz / cycles, rounded to
 * three significant digits (so within 0.5 % of `samples`). At most one
 * sample per cycle of the trace (of a window of weight 1), whose cycles
 * stand for `cycle_weight` of the run's each (trace_sampling_cycle_weight:
 * 1 unsampled): a trace too short for `samples` gets clock_hz /
 * cycle_weight, and tea_run_warn_few_samples says it is too short. cycles, cycle_weight
 * and samples must be > 0.
 */
double tea_run_frequency_for_samples(uint64_t samples, uint64_t clock_hz, double cycles, double cycle_weight);

/* After a run with `targets` sample targets (--samples; 0: none, nothing
 * written): one line on `f` per target, "COMMAND: NAME: --samples K: F Hz
 * (period P cycles)", in the options' order. */
void tea_run_say_chosen_frequencies(const tea_run *run, const uint64_t *targets, size_t count, FILE *f,
                                    const char *command);

/* The name of a trace for tables: the file name without its directory and
 * without the suffixes .zst, .tea, .td, .bin, .trace (innermost last), e.g.
 * "runs/mcf.td.zst" -> "mcf". */
void tea_run_trace_name(const char *path, char *buf, size_t size);

/* The label of a scheme with its event set: "ibs", "ibs:all". */
void tea_run_scheme_label(const tea_run_scheme *s, char *buf, size_t size);

/*
 * The noise floor of a sampler (docs/semantics.md, "Noise floor"): TEA at
 * the sampler's own sample points, with its weights and losses, i.e. what
 * an exact attribution would err by with those samples. TEA's floor is TEA
 * (the same schedule); NCI-TEA's is TEA at its schedule; a tagger's
 * (IBS, SPE, RIS) is TEA at the cycle each of its samples stands for
 * (tea_replay_sampler_points), which are known only after the replay: the
 * floors take a second pass over the trace (refused on standard input),
 * every floor TEA with all nine events.
 *
 * Replays the trace at `path` ("-" is standard input) once through golden
 * and every sampler of `o`: by frames when o->threads > 1 and the trace is a
 * native file, else as a stream (always for a sampled trace, whose golden
 * reference and samplers are also split by groups of windows:
 * tea_replay_group_windows); a trace the frame-parallel path finds wrong
 * is read again as a stream, whose diagnosis is the one reported, so errors
 * do not depend on the thread count. Fills everything in `out` but the
 * errors (all NaN; tea_run_errors). `out` is initialized here and must be
 * released with tea_run_free, also after an error. Errors: the reader's
 * (TEA_ERR_IO, TEA_ERR_FORMAT, ... naming the file and offset),
 * TEA_ERR_NOMEM.
 */
int tea_run_trace(const tea_run_options *o, const char *path, tea_run *out);

/* The trace's extent before its replay, from a native file's index alone
 * (tea_run_indexed_extent; TEA_ERR_UNSUPPORTED for a trace without one:
 * TraceDoctor tokens, standard input) or, for tea_run_extent, from one
 * reading of any other file (standard input refused: it cannot be read
 * twice): the cycles it stands for (a sampled recording's whole run,
 * trace_sampling_stands_for), its clock (options' clock_hz when given, for
 * tea_run_extent) and a cycle's weight (trace_sampling_cycle_weight). What
 * --samples and the raised default need. */
int tea_run_indexed_extent(const char *path, double *cycles, uint64_t *clock_hz, double *cycle_weight);
int tea_run_extent(const tea_run_options *o, const char *path, double *cycles, uint64_t *clock_hz,
                   double *cycle_weight);

/* --samples for a trace (or a program, tea/program.h) of `cycles` at
 * clock_hz whose cycles each weigh cycle_weight (tea_run_extent): `o` with
 * one frequency per target (tea_run_frequency_for_samples) in `freqs`
 * (sample_target_count of them) and freq_targets set, into *chosen.
 * TEA_ERR_USAGE, naming `name`, when two targets give one frequency. */
int tea_run_choose_frequencies(const tea_run_options *o, const char *name, double cycles, uint64_t clock_hz,
                               double cycle_weight, double *freqs, tea_run_options *chosen);

/* Whether `o` runs the command's default frequency, which a trace whose
 * length is known may raise (default_min_samples; no --period, --samples
 * or listed samplers). */
int tea_run_default_may_rise(const tea_run_options *o);

/* The frequency the default rises to on a trace (or program) of `cycles`
 * at clock_hz, cycles weighing cycle_weight: the one that gives
 * default_min_samples sample points where the default gives fewer; 0 when
 * the default stands. */
double tea_run_raised_default(const tea_run_options *o, double cycles, uint64_t clock_hz, double cycle_weight);

/* A sampled PICS's error against `reference` at instruction × component,
 * instruction and (when `functions` has any range) function granularity,
 * into error[] by pics_granularity; NaN where unknown (an empty reference,
 * no functions). 0 or TEA_ERR_NOMEM. */
int tea_run_errors_of(const pics *sampled, const pics *reference, const trace_symmap *functions,
                      double error[TEA_RUN_GRANULARITIES]);

/* Each sampler's error against the golden PICS at instruction × component,
 * instruction and (when `functions` has any range) function granularity,
 * and its noise floor's when the run has floors; NaN where unknown.
 * `functions` may be NULL. 0 or TEA_ERR_NOMEM. */
int tea_run_errors(tea_run *run, const trace_symmap *functions);

/* The provenance of the golden PICS (i == SIZE_MAX) or of sampler i. 0 or
 * TEA_ERR_NOMEM. */
int tea_run_describe(const tea_run *run, size_t i, pics_info *info);

/* The results CSV (results/results.h): the column names; then, per trace, one
 * row per sampler, each naming the trace's digest, span and records.
 * Nothing but the header and rows: the provenance goes to the JSON file
 * beside it (below). Write errors surface when the stream is closed. */
void tea_run_csv_begin(FILE *f);
void tea_run_csv_trace(FILE *f, const tea_run *run);

#define TEA_RUN_CSV_SUFFIX ".csv"
#define TEA_RUN_JSON_SUFFIX ".json"

/* The path of the provenance file beside a results CSV: `csv_path` with
 * its ".csv" suffix replaced by (or, without one, followed by) ".json",
 * malloc'd. 0 or TEA_ERR_NOMEM. */
int tea_run_json_path(const char *csv_path, char **json_path);

/* The provenance of a results CSV as one JSON object:
 *   {"tool": TOOL, "command": WHAT, "command_line": COMMAND_LINE,
 *    "traces": [{"name", "path", "cores" (a program's only), "digest",
 *                "cycles", "records", "binary" (null when the trace names
 *                none)}, ...]}
 * begin, then trace once per trace in the CSV's order, then end (which
 * finishes the document). */
void tea_run_json_begin(json_writer *j, const char *tool, const char *what, const char *command_line);
void tea_run_json_trace(json_writer *j, const tea_run *run);
void tea_run_json_end(json_writer *j);

/* The fewest samples a scheme should take for its error to mean much: the
 * sampling noise alone is about 1/sqrt(n) of a profile (3 % at 1000). */
#define TEA_RUN_MIN_SAMPLES 1000

/* The sample points a replay at the command's default frequency gives at
 * least where the trace's length is known before the replay
 * (tea_run_options.default_min_samples): the README's and the comparisons'
 * 2000, twice TEA_RUN_MIN_SAMPLES, so that TEA and NCI-TEA, which lose none,
 * are well above the warning's threshold. */
#define TEA_RUN_DEFAULT_SAMPLES (2 * TEA_RUN_MIN_SAMPLES)

/* Says on `f`, when run->default_freq_hz is not 0, that the default
 * frequency was raised, from what to what and why:
 *
 *   COMMAND: NAME: the default 4000 Hz gives this trace about N samples (3 digits); replaying
 *   at F Hz, which gives about 2000 (--freq 4000 keeps the default)
 */
void tea_run_say_raised_default(const tea_run *run, FILE *f, const char *command);

/*
 * Warns on `f`, once per frequency of the run at which some sampler took
 * fewer than TEA_RUN_MIN_SAMPLES samples (over every scheme and seed):
 *
 *   COMMAND: warning: NAME: at F Hz SCHEMES took fewer than 1000 samples
 *   (as few as N): too few for the error to mean much; use FREQ_OPTION S or more
 *   (a trace of C cycles at H Hz)
 *
 * S is the lowest frequency, rounded up to two significant digits, at which
 * the trace's cycles give TEA_RUN_MIN_SAMPLES sample points and, when a
 * scheme took some samples but too few (tagging schemes lose some), at which
 * its samples would scale up to that many; when even a period of one cycle
 * is not enough, the warning says the trace is too short instead. On a
 * sampled trace the cycles are the whole run's its windows stand for (each
 * cycle for every / length) and the last parenthesis says so. freq_option
 * NULL (a run by --samples): the advice is "use --samples K or more", K the
 * sample count whose frequency is S (S * cycles / clock, rounded up to two
 * significant digits): for a scheme that loses samples, more than 1000.
 * Returns the number of warnings written.
 */
size_t tea_run_warn_few_samples(const tea_run *run, FILE *f, const char *command, const char *freq_option);

/* The provenance of row i's noise floor (a TEA PICS naming the row's
 * label in noise_floor_of); the run must have floors. 0 or TEA_ERR_NOMEM. */
int tea_run_describe_floor(const tea_run *run, size_t i, pics_info *info);

/* Frees the engine, the rows and the floors; `run` is empty afterwards. */
void tea_run_free(tea_run *run);

#endif
