/*
 * study.h: what `tea replay` and `tea sweep` share on the command line:
 * which samplers a command line asks for (schemes with their event sets,
 * frequencies or a period, seeds, jitter, --symbols, --threads), turned
 * into the replay driver's options (tea/run.h).
 *
 * A study runs every requested scheme (each with its event set: its own
 * events, or all nine when the scheme is written "ibs:all") at every
 * frequency (or one period) and every seed, in one decode of the trace. The
 * error at function granularity needs function symbols: from --symbols, or
 * the binary the trace names (binary/symbolize.h); without either it is left
 * empty.
 */
#ifndef TEA_TOOLS_STUDY_H
#define TEA_TOOLS_STUDY_H

#include "cli.h"
#include "tea/parallel.h"
#include "tea/program.h"
#include "tea/run.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define STUDY_MAX_SCHEMES 16
#define STUDY_MAX_FREQS 64
#define STUDY_MAX_SEEDS 1000

/* A sampling scheme with its event set, as a command line names it. */
typedef tea_run_scheme study_scheme;

/* What to run on each trace. */
typedef struct study_request {
    int golden;                               /* golden was asked for (tea replay writes it) */
    study_scheme schemes[STUDY_MAX_SCHEMES];  /* sorted by scheme, native before all */
    size_t scheme_count;
    double freqs[STUDY_MAX_FREQS];            /* Hz, ascending as given */
    size_t freq_count;
    uint64_t period;                          /* cycles; instead of freqs when not 0 */
    uint64_t sample_targets[STUDY_MAX_FREQS]; /* --samples: per trace, the frequencies that give */
    size_t sample_target_count;               /* about these many samples (instead of freqs) */
    uint64_t first_seed;                      /* seeds first_seed .. first_seed + seed_count - 1 */
    size_t seed_count;
    pics_jitter jitter;
    int all_events;                           /* --events all: every scheme gets all nine */
    golden_rules rules;                       /* --golden-rules: the golden reference TEA samples */
    golden_rules sampler_rules;               /* --rules: the samplers' (tea/tdsampler.h) */
    int schemes_given, jitter_given, golden_rules_given, seeds_given; /* set by their options
                                                                         (study_apply_rules) */
    const char *binary_symbols_path;          /* --symbols MAP for the function error, or NULL */
    binary_symbolize_options sym;             /* --elf BINARY and --adjust-vma OFFSET|auto: the binary
                                          to symbolize with, recorded in the PICS */
    trace_open_options open;
    unsigned threads;                         /* --threads: 0 = the processors it may use; 1 reads the
                                                 trace as a stream (tea/parallel.h) */
    const char *command;                      /* for messages and warnings */
    progress_mode progress;                   /* -q/--progress (CLI_OPTIONS_PROGRESS) */
    progress_meter *meter;                    /* records replayed, or NULL (tea/run.h) */
    int noise_floor;                          /* --noise-floor: each sampler's floor (a second pass) */
    int call_paths;                           /* --call-paths: calling contexts rebuilt from the trace
                                                 with the binary (trace/callpath.h) */
    int flat;                                 /* --flat: the contexts a trace records dropped */
    uint64_t default_min_samples;             /* not 0: freqs is the default, raised to give this many
                                                 samples where the trace's index tells its length
                                                 (tea_run_options.default_min_samples) */
} study_request;

/* The options `tea replay` and `tea sweep` share, as cli_option entries
 * (cli.h) into the study_request at `req`: --schemes LIST, a frequency list
 * (--freq; `seen_`, when not NULL, is set when it is given; a NULL help
 * leaves an old spelling out of --help),
 * --jitter MODE, --events SET, --golden-rules RULES and --threads N. Their
 * callbacks report a bad value as a usage error with the parser's message. */
#define STUDY_OPTION_SCHEMES(req, help_) \
    CLI_CALL("schemes", 0, "LIST", study_option_schemes, STUDY_REQ(req), help_)
#define STUDY_OPTION_FREQS(lname, req, seen_, help_)                                                 \
    { .long_name = (lname), .arg = CLI_ARG_REQUIRED, .value_name = "HZ[,HZ...]", .help = (help_),     \
      .type = CLI_TYPE_CALL, .dest = STUDY_REQ(req), .call = study_option_freqs, .seen = (seen_) }
#define STUDY_OPTION_SAMPLES(req, seen_, help_)                                                      \
    { .long_name = "samples", .arg = CLI_ARG_REQUIRED, .value_name = "K[,K...]", .help = (help_),      \
      .type = CLI_TYPE_CALL, .dest = STUDY_REQ(req), .call = study_option_samples, .seen = (seen_) }
#define STUDY_OPTION_JITTER(req, help_) CLI_CALL("jitter", 0, "MODE", study_option_jitter, STUDY_REQ(req), help_)
#define STUDY_OPTION_EVENTS(req, help_) CLI_CALL("events", 0, "SET", study_option_events, STUDY_REQ(req), help_)
#define STUDY_OPTION_GOLDEN_RULES(req, help_) \
    CLI_CALL("golden-rules", 0, "RULES", study_option_golden_rules, STUDY_REQ(req), help_)
#define STUDY_OPTION_RULES(req, help_) CLI_CALL("rules", 0, "RULES", study_option_rules, STUDY_REQ(req), help_)
#define STUDY_OPTION_THREADS(req, help_)                                                             \
    CLI_UINT("threads", "N", &STUDY_REQ(req)->threads, 1, TEA_PARALLEL_MAX_THREADS,                  \
             "invalid thread count '%s' (1 to " CLI_STR(TEA_PARALLEL_MAX_THREADS) ")", help_)
/* --elf BINARY and --adjust-vma OFFSET|auto into req->sym (the binary of
 * the function-level error, recorded in the PICS; study_run). */
#define STUDY_OPTION_ELF(req, help_) CLI_OPTION_ELF(&STUDY_REQ(req)->sym.elf_path, help_)
#define STUDY_OPTION_ADJUST_VMA(req)                                                                 \
    CLI_OPTION_ADJUST_VMA(&STUDY_REQ(req)->sym, "OFF|auto",                                     \
                          "with --elf: runtime minus ELF address of the traced\n"                   \
                          "program (default: the trace's, else 0 for a non-PIE);\n"                 \
                          "auto infers it from the trace's PCs")
/* --noise-floor: each sampler's noise floor too (tea/run.h), from a second
 * pass over the trace. */
#define STUDY_OPTION_NOISE_FLOOR(req, help_) CLI_FLAG("noise-floor", 0, &STUDY_REQ(req)->noise_floor, help_)
#define STUDY_OPTION_CALL_PATHS(req, help_) CLI_FLAG("call-paths", 0, &STUDY_REQ(req)->call_paths, help_)
#define STUDY_OPTION_FLAT(req, help_) CLI_FLAG("flat", 0, &STUDY_REQ(req)->flat, help_)
#define STUDY_REQ(req) (1 ? (req) : (study_request *)0)
int study_option_schemes(const char *command, const cli_option *opt, const char *arg);
int study_option_freqs(const char *command, const cli_option *opt, const char *arg);
int study_option_samples(const char *command, const cli_option *opt, const char *arg);
int study_option_jitter(const char *command, const cli_option *opt, const char *arg);
int study_option_events(const char *command, const cli_option *opt, const char *arg);
int study_option_golden_rules(const char *command, const cli_option *opt, const char *arg);
int study_option_rules(const char *command, const cli_option *opt, const char *arg);

/*
 * What --rules tracedoctor implies, after the options are parsed: the golden
 * reference of the tracedoctor rules, sample points without jitter, and the
 * schemes that have a TraceDoctor worker (tea, nci, ibs: the default list
 * loses spe and ris), and one seed (the workers draw nothing). Returns
 * CLI_CONTINUE, or a usage error's status (and message) for options that
 * contradict it: --golden-rules default, a jitter, spe or ris in
 * --schemes, --noise-floor, --seeds above 1.
 */
int study_apply_rules(study_request *req);

/* Sets the defaults: every scheme natively, golden, 4 kHz, seed 1, one
 * seed, interval jitter. */
void study_request_init(study_request *req, const char *command);

/* Parses an event set name: "native" (*all_events = 0: each scheme reports
 * its own events) or "all" (*all_events = 1). Returns 0, or TEA_ERR_USAGE
 * with a message naming the set. */
int study_parse_event_set(const char *name, int *all_events);

/* Parses "golden,tea,ibs:all,...". Each name may carry ":all" or ":native".
 * Duplicates are dropped. Returns 0, or TEA_ERR_USAGE with a message. */
int study_parse_schemes(study_request *req, const char *list);

/* Parses "100,1k,4kHz". Returns 0, or TEA_ERR_USAGE with a message. */
int study_parse_freqs(study_request *req, const char *list);

/* Parses "1000,2k" (sample counts, k/M suffixes) into sample_targets.
 * Returns 0, or TEA_ERR_USAGE with a message. */
int study_parse_samples(study_request *req, const char *list);

/* Replays the trace at `path` once through golden and every sampler of
 * `req` (tea_run_trace; --threads 0 is the processors this process may use)
 * and computes each sampler's errors (tea_run_errors) with the functions of
 * --symbols or of the binary the trace names. `out` must be released with
 * tea_run_free, also after an error. With --elf (req->sym.elf_path) the
 * binary is opened with the bias of --adjust-vma (a number, or auto: inferred
 * from the golden PICS's PCs), else the trace's, else 0 for a binary linked at
 * fixed addresses, and stamped into out->header (absolute path, build-id,
 * bias), so that the PICS written from `out` name it and later commands need
 * neither option. Errors: the reader's (TEA_ERR_IO, TEA_ERR_FORMAT, ...
 * naming the file and offset), TEA_ERR_USAGE (unreadable --symbols map, a
 * PIE without a bias, no clear bias for auto), --elf's (binary_symbolize_open),
 * TEA_ERR_NOMEM. */
int study_run(const study_request *req, const char *path, tea_run *out);

/* Called with each core's finished run (errors computed) before it is
 * added to the program: to write and print it. 0 or an error code that
 * ends the study. */
typedef int (*study_core_fn)(void *ctx, size_t k, const tea_run *core);

/*
 * study_run for a program of `count` cores (tea/program.h): the
 * frequencies resolved for the program as a whole, then each core replayed
 * with the same samplers and handed to `on_core`, then added to `out`
 * (initialized by the caller with tea_program_init), whose errors are
 * computed with the first core's functions (out->default_freq_hz: the
 * default the program's length raised, tea_program_frequencies).
 */
int study_run_program(const study_request *req, const char *const *paths, size_t count, study_core_fn on_core,
                      void *ctx, tea_program *out);

#endif
