/*
 * study.h: what `tea replay` and `tea sweep` share: which samplers a command
 * line asks for, one pass over a trace feeding all of them, each sampler's
 * error at the three granularities, and the results CSV both write
 * (docs/pics-format.md, "Results CSV").
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
#include "pics/error.h"
#include "pics/symmap.h"
#include "tea/replay.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define STUDY_MAX_SCHEMES 16
#define STUDY_MAX_FREQS 64
#define STUDY_MAX_SEEDS 1000
#define STUDY_LABEL_MAX 16      /* "ibs:all" and its NUL */
#define STUDY_NAME_MAX 128      /* a trace's name */
#define STUDY_GRANULARITIES 3   /* insn-component, insn, func */

/* A sampling scheme with its event set, as a command line names it. */
typedef struct study_scheme {
    tea_scheme scheme;   /* TEA_SCHEME_TEA .. TEA_SCHEME_RIS */
    int all_events;      /* all nine events instead of the scheme's own */
} study_scheme;

/* What to run on each trace. */
typedef struct study_request {
    int golden;                               /* golden was asked for (tea replay writes it) */
    study_scheme schemes[STUDY_MAX_SCHEMES];  /* sorted by scheme, native before all */
    size_t scheme_count;
    double freqs[STUDY_MAX_FREQS];            /* Hz, ascending as given */
    size_t freq_count;
    uint64_t period;                          /* cycles; instead of freqs when not 0 */
    uint64_t first_seed;                      /* seeds first_seed .. first_seed + seed_count - 1 */
    size_t seed_count;
    tea_jitter jitter;
    int all_events;                           /* --events all: every scheme gets all nine */
    const char *symbols_path;                 /* --symbols MAP for the function error, or NULL */
    trace_open_options open;
    unsigned threads;                         /* --threads: 0 = the processors it may use; 1 reads the
                                                 trace as a stream (tea/parallel.h) */
    const char *command;                      /* for messages and warnings */
} study_request;

/* One sampler's outcome. */
typedef struct study_row {
    tea_sampler_spec spec;
    char label[STUDY_LABEL_MAX];              /* "tea", "ibs:all" */
    uint64_t samples, lost;
    double error[STUDY_GRANULARITIES];        /* fractions; NaN when unknown (no golden cycles,
                                                 no function symbols) */
} study_row;

/* One trace's study. */
typedef struct study_trace {
    char name[STUDY_NAME_MAX];                /* the file's name without directory and suffixes */
    const char *path;
    trace_header header;
    trace_totals totals;
    char digest[PICS_DIGEST_LEN + 1];
    tea_replay *replay;                       /* the engine, with every PICS */
    study_row *rows;                          /* one per sampler, in spec order */
    size_t row_count;
} study_trace;

/* Long options `tea replay` and `tea sweep` share, numbered after the
 * CLI_OPT_* trace options; each command numbers its own from
 * STUDY_OPT_FIRST_FREE. */
enum {
    STUDY_OPT_JITTER = CLI_OPT_FIRST_FREE,
    STUDY_OPT_EVENTS,
    STUDY_OPT_SYMBOLS,
    STUDY_OPT_THREADS,
    STUDY_OPT_FIRST_FREE
};
#define STUDY_LONG_OPTIONS                                          \
    { "jitter", required_argument, NULL, STUDY_OPT_JITTER },        \
    { "events", required_argument, NULL, STUDY_OPT_EVENTS },        \
    { "symbols", required_argument, NULL, STUDY_OPT_SYMBOLS },      \
    { "threads", required_argument, NULL, STUDY_OPT_THREADS }

/* Handles one of the STUDY_OPT_* options into `req`. Returns 0 when handled,
 * 1 when `opt` is not one of them, or CLI_EXIT_USAGE after printing the
 * problem (as cli_trace_option). */
int study_option(const char *command, int opt, const char *arg, study_request *req);

/* How --threads reads in `--help` texts. */
#define STUDY_THREADS_HELP \
    "  --threads N            replay a native trace file's frames on N threads (default:\n" \
    "                         the processors this process may use); 1 reads the trace\n" \
    "                         as a stream. Results are identical for every N\n"

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

/* The name of a trace for tables: the file name without its directory and
 * without the suffixes .zst, .tea, .td, .bin, .trace (innermost last), e.g.
 * "runs/mcf.td.zst" -> "mcf". */
void study_trace_name(const char *path, char *buf, size_t size);

/* The label of a scheme with its event set: "ibs", "ibs:all". */
void study_scheme_label(const study_scheme *s, char *buf, size_t size);

/* Replays the trace at `path` once through golden and every sampler of
 * `req` and computes each sampler's errors. `out` is initialized here and
 * must be released with study_trace_free, also after an error. Errors: the
 * reader's (TEA_ERR_IO, TEA_ERR_FORMAT, ... naming the file and offset),
 * TEA_ERR_USAGE (unreadable --symbols map), TEA_ERR_NOMEM. */
int study_run(const study_request *req, const char *path, study_trace *out);

/* The provenance of the golden PICS (i == SIZE_MAX) or of sampler i, with
 * the trace's name. 0 or TEA_ERR_NOMEM. */
int study_describe(const study_trace *t, size_t i, pics_info *info);

/* The results CSV: its comment lines (tool, command line), the column
 * names, one comment per trace and one row per sampler. */
void study_csv_begin(FILE *f, const char *what, const char *command_line);
void study_csv_trace(FILE *f, const study_trace *t);

void study_trace_free(study_trace *t);

#endif
