/*
 * results.h: results CSVs, the error of each profiler run as a table that
 * `tea replay` writes as DIR/summary.csv and `tea sweep` as one file; read
 * into rows for `pics table` (and written, so that every writer agrees).
 *
 * The schema (docs/pics-format.md, "Results CSV"): the header line, then
 * rows and nothing else; the provenance (tool, command line, trace paths
 * and binaries) is in NAME.json beside the CSV (tea/run.h).
 *
 *     trace,scheme,freq_hz,seed,samples,lost,error_insn_component,error_insn,error_func,digest,cycles,records,
 *         noise_floor_insn_component,noise_floor_insn,noise_floor_func,rules,error_ci95_low,error_ci95_high,
 *         run_cycles,run_cycles_ci95_low,run_cycles_ci95_high,run_instructions,samples_target
 *                                                                       (one line in the file)
 *     lbm,tea,4000,1,2500,0,0.044997647,0.035638817,0.012000000,3cdd478deb2f956d,15015862,5353921,,,,default,,,,,,,
 *     lbm,ibs:all,4000,1,2450,50,0.189869360,0.189869360,,3cdd478deb2f956d,15015862,5353921,,,,default,,,,,,,
 *
 * Reading rules (lenient: files of earlier versions read too):
 *  - A line starting with '#' is a comment, anywhere (earlier versions
 *    wrote provenance so); blank lines are skipped; a trailing CR is
 *    dropped.
 *  - The first other line is the header. Columns are found by name, in any
 *    order; trace, scheme, freq_hz and seed are required, samples, lost and
 *    the error_* columns optional, unknown columns ignored. A later line that
 *    names every required column is another header (so `cat a.csv b.csv`
 *    reads), and it may order the columns differently.
 *  - Fields are separated by commas; a field may be quoted ("a,b", with ""
 *    for a quote). Every data line has as many fields as its header.
 *  - trace and scheme are non-empty text; freq_hz a finite number > 0;
 *    seed, samples and lost unsigned decimal integers; an error or noise
 *    floor a fraction from 0 to 1, or empty when unknown (error_func of a
 *    trace without symbols, a noise floor not asked for); digest the trace's identity (16 hex digits, as in its PICS
 *    files), cycles and records its span and record count, all three
 *    optional (empty or no column: unknown); rules the samplers' rule set
 *    of the run (tea replay --rules: default or tracedoctor; empty or no
 *    column: default); on a sampled trace, error_ci95_low and
 *    error_ci95_high the 95 % interval of error_insn_component over the
 *    trace's window groups (the jackknife of pics error, clamped to
 *    [0, 1]; both empty when there is none), and run_cycles (with its 95 %
 *    interval, empty for SimPoint's regions) and run_instructions the
 *    whole run's estimate as tea info gives it (cycles and records are the
 *    windows' own); samples_target the K of tea replay --samples K whose
 *    frequency the run took (empty with --freq); all optional, empty when
 *    unknown.
 * A file that breaks a rule is refused with its name and line number.
 */
#ifndef TEA_RESULTS_RESULTS_H
#define TEA_RESULTS_RESULTS_H

#include "pics/error.h"
#include "pics/pics_file.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The error columns, indexed by pics_granularity. */
#define RESULTS_GRANULARITIES 3

/* One profiler run: a scheme on a trace at a frequency with a seed. */
typedef struct results_row {
    char *trace;                /* the trace's (benchmark's) name */
    char *scheme;               /* tea, nci, ibs, spe, ris, maybe with a suffix (":all") */
    double freq_hz;             /* sampling frequency in Hz */
    uint64_t seed;
    uint64_t samples, lost;     /* sample points with and without a sample (0 without the column) */
    double error[RESULTS_GRANULARITIES]; /* fractions 0..1 by pics_granularity; NaN: empty or no column */
    double noise_floor[RESULTS_GRANULARITIES]; /* the noise floor's error, the same way */
    char *digest;               /* the trace's digest, or NULL when unknown */
    char rules[PICS_NAME_MAX];  /* the samplers' rule set ("default" without the column) */
    uint64_t cycles, records;   /* the trace's span and records (0 without a digest) */
    int has_error_ci95;         /* error_ci95 holds the interval of error[PICS_GRAN_INSN_COMPONENT] */
    double error_ci95[2];       /* low and high, fractions 0..1 */
    int has_run;                /* a sampled trace's run: run_cycles and run_instructions hold */
    double run_cycles;          /* the run's estimated cycles */
    double run_cycles_ci95[2];  /* their 95 % interval, low and high; NaN: none (SimPoint's regions) */
    double run_instructions;    /* the instructions the windows stand for */
    uint64_t samples_target;    /* tea replay --samples K's K; 0: none (--freq) */
    const char *file;           /* the file the row was read from (owned by the set) */
    unsigned long line;         /* its line there, from 1 */
} results_row;

/* Rows from any number of files, in reading order. */
typedef struct results_set {
    results_row *rows;
    size_t count, capacity;
    char **files;               /* the paths the rows point to */
    size_t file_count;
} results_set;

/* An empty set. */
void results_init(results_set *s);

/* Frees every row and path; the set is empty afterwards. */
void results_free(results_set *s);

/* Reads the results CSV at `path` and appends its rows; a directory stands
 * for the summary.csv that `tea replay -o DIR` writes in it. Errors:
 * TEA_ERR_IO (cannot open or read), TEA_ERR_FORMAT ("FILE: line N: what";
 * also a file without any header), TEA_ERR_NOMEM. On an error the set keeps
 * only the rows of earlier files. */
int results_read(results_set *s, const char *path);

/* results_read of the `size` bytes at `data`, a whole results CSV,
 * which messages (and the rows' `file`) call `name`: the same rows, or the
 * same error, as a file of those bytes named `name`. */
int results_read_memory(results_set *s, const void *data, size_t size, const char *name);

/* Removes rows that repeat an earlier row's run (same trace, scheme,
 * freq_hz and seed) with the same values, keeping the first (with the noise
 * floors, error interval, run and --samples target a repeat has and it
 * lacks: an empty one matches any; two different targets are other
 * values); the order of the rest is kept. A repeat with other values is
 * TEA_ERR_FORMAT naming both lines; TEA_ERR_NOMEM. */
int results_dedupe(results_set *s);

/* The column of a granularity's error: "error_insn_component",
 * "error_insn", "error_func" ("?" for anything else). */
const char *results_error_column(pics_granularity g);

/* The column of a granularity's noise floor: "noise_floor_insn_component",
 * "noise_floor_insn", "noise_floor_func" ("?" for anything else). */
const char *results_floor_column(pics_granularity g);

/* The order of scheme labels in tables: tea, nci, ibs, spe, ris; then the
 * same schemes with a suffix after ':' (e.g. "ibs:all"), by scheme then
 * suffix; then everything else by strcmp. Negative, 0 or positive. */
int results_scheme_compare(const char *a, const char *b);

/* Writes the header line of the schema above. */
void results_write_header(FILE *out);

/* Writes one row in the schema: freq_hz with %.15g, errors and their
 * interval with 9 decimals (empty when NaN or not had), digest, cycles and
 * records empty when digest is NULL, the run's figures with %.10g (empty
 * when not had); `file` and `line` are not written. Write errors
 * surface when the stream is closed (outfile_commit). */
void results_write_row(FILE *out, const results_row *r);

/* --- the files of a replay directory (tea replay -o DIR) -------------------- */

/* Its files: the golden PICS, one PICS per sampler (results_pics_name),
 * the results CSV of this file's schema and its provenance. */
#define RESULTS_GOLDEN "golden.pics"
#define RESULTS_SUMMARY "summary.csv"
#define RESULTS_PROVENANCE "summary.json"
#define RESULTS_PICS_SUFFIX ".pics"
/* A program's replay (several threads or cores, tea/program.h): the files
 * above are the program's, and each core's own are in a directory of this
 * folder named for the core (RESULTS_CORES/NAME/golden.pics, ...). */
#define RESULTS_CORES "cores"
/* A sampler's noise floor (tea replay --noise-floor) beside its PICS. */
#define RESULTS_FLOOR_SUFFIX ".floor.pics"
/* Room for any of their names (a scheme label, a frequency, the suffix). */
#define RESULTS_NAME_MAX 128

/* The cores of a program's replay directory: the names of the
 * directories in DIR/RESULTS_CORES, in natural order (thread-2 before
 * thread-10), as a malloc'd array of *count malloc'd names
 * (results_dir_cores_free). TEA_ERR_USAGE when DIR has no cores (a
 * replay of one trace), TEA_ERR_IO, TEA_ERR_NOMEM. */
int results_dir_cores(const char *dir, char ***names, size_t *count);
void results_dir_cores_free(char **names, size_t count);

/* DIR/NAME (no doubled '/'), malloc'd; NULL when out of memory. */
char *results_dir_file(const char *dir, const char *name);

/* True when `path` is a directory. */
int results_is_dir(const char *path);

/* True for the name of a file a replay writes into its directory. */
int results_is_dir_file(const char *name);

/* The file name of a sampler's PICS: LABEL.pics, ':' as '-' ("ibs-all"),
 * and LABEL-FREQhz.pics (%.15g) when `with_frequency`. */
void results_pics_name(const char *label, int with_frequency, double frequency_hz, char *buf, size_t size);

/* The file name of a sampler's noise floor: as results_pics_name, with
 * the suffix .floor.pics ("ibs.floor.pics", "ibs-all-4000hz.floor.pics"). */
void results_floor_name(const char *label, int with_frequency, double frequency_hz, char *buf, size_t size);

/* The noise floor's file beside the PICS at `pics_path`: its .pics suffix
 * replaced by (or, without one, followed by) .floor.pics, malloc'd. 0 or
 * TEA_ERR_NOMEM. */
int results_floor_path(const char *pics_path, char **floor_path);

/* The PICS of scheme `label` in replay directory `dir` and its golden PICS,
 * as malloc'd paths: LABEL.pics, or the one LABEL-FREQhz.pics. Errors:
 * TEA_ERR_USAGE when `dir` holds no golden.pics (no replay directory), no
 * PICS of the scheme or several (the message, naming the scheme by
 * `display`, lists them and says to pass one with --golden), TEA_ERR_IO,
 * TEA_ERR_NOMEM. */
int results_dir_pics(const char *dir, const char *label, const char *display, char **pics_path, char **golden);

/* Finds the name of the trace with the given digest (16 hex digits) in a
 * results CSV: the trace column of the first row whose digest column
 * matches, or in a file of an earlier version the '#' comment line
 * "# trace NAME: PATH, digest HEX, ...". Sets *name to a malloc'd copy, or
 * to NULL when the file cannot be read or names no such trace.
 * Returns 0 or TEA_ERR_NOMEM. */
int results_trace_name(const char *path, const char *digest, char **name);

#endif
