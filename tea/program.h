/*
 * program.h: a program's replay from its cores (docs/semantics.md,
 * "Programs: several threads or cores").
 *
 * A multi-threaded recording (a trace per thread) or a multi-core FireSim
 * run (a TraceDoctor file per core) is replayed core by core: each core's
 * trace through a golden reference and samplers of its own (tea_run_trace
 * with the same options, so that every sampler keeps its own schedule on
 * every core, as per-core hardware does). The program's PICS are the exact
 * sums of the cores' (pics_info_merge and pics_merge_into, what `pics merge`
 * does with the cores' files), its samples and losses the sums of theirs,
 * its errors those of its summed PICS against its summed golden PICS. Its
 * cycles are core-cycles: the sum of every core's span.
 *
 * The cores must be replayed at the same frequencies: --samples and the
 * raised default are resolved for the program as a whole first
 * (tea_program_frequencies), since each core's own would differ.
 *
 * Use: tea_program_init, then per core tea_run_trace, tea_run_errors (for
 * the core's own rows), tea_program_add, tea_run_free; then
 * tea_program_errors and the writers; tea_program_free.
 */
#ifndef TEA_TEA_PROGRAM_H
#define TEA_TEA_PROGRAM_H

#include "run.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most cores (threads, FireSim cores) one program may have. */
#define TEA_PROGRAM_CORES_MAX 4096

/* One of the program's PICS: its provenance and cells. */
typedef struct tea_program_pics {
    pics_info info;
    pics cells;
} tea_program_pics;

typedef struct tea_program {
    char name[TEA_RUN_NAME_MAX];          /* the results' trace column */
    size_t cores;                         /* cores added */
    tea_program_pics golden;
    tea_program_pics *samplers;           /* [row_count], in the cores' spec order */
    tea_program_pics *floors;             /* [row_count] noise floors, or NULL without them */
    tea_run_row *rows;                    /* samples and losses summed, errors of the sums */
    size_t row_count;
    uint64_t cycles;                      /* core-cycles: the cores' spans (last - first) summed */
    uint64_t records;
    char digest[TRACE_DIGEST_LEN + 1];    /* the summed PICS's: the sum of the cores' digests mod 2^64 */
    int sampled;                          /* every core a sampled trace: `estimate` holds */
    trace_estimate estimate;              /* cycles, instructions and periods summed, halves in quadrature */
    trace_header header;                  /* the first core's (its program and clock) */
    double default_freq_hz;               /* the default frequency the program's length raised (0: not
                                             raised; tea_program_frequencies), as tea_run's */
    double default_samples;               /* the sample points it would have given the program */
} tea_program;

/* The program's name: the directory's it came from (a recording's, a
 * FireSim run's; `from_dir` not NULL), else its first core's without a
 * FireSim -C<core> end ("TRACEFILE0-C0.td.zst" gives "TRACEFILE0"). */
void tea_program_name(const char *const *paths, const char *from_dir, char *buf, size_t size);

/* Each core's name (its directory in a program's replay directory): the
 * trace's name (tea_run_trace_name), with -K (K from 1, its place) where
 * two cores' names are the same. */
void tea_program_core_names(const char *const *paths, size_t count, char (*names)[TEA_RUN_NAME_MAX]);

/* An empty program called `name` (cut to TEA_RUN_NAME_MAX - 1 bytes). */
void tea_program_init(tea_program *p, const char *name);

/*
 * The options for the program's cores at paths[0 .. count): `o` itself
 * unless it asks for --samples (sample_target_count) or a default that the
 * program's length would raise (default_min_samples); then *fixed is `o`
 * with the frequencies chosen from the cores' cycles summed (their clock
 * must agree), into `freqs` (at least max(1, sample_target_count)
 * entries), and p->default_freq_hz and p->default_samples say what the
 * default was raised from (as tea_run's do). Errors as tea_run_extent's;
 * TEA_ERR_USAGE for cores of different clocks and, naming the program,
 * for two targets of one frequency.
 */
int tea_program_frequencies(tea_program *p, const tea_run_options *o, const char *const *paths, size_t count,
                            double *freqs, tea_run_options *fixed);

/* Adds a replayed core (its golden PICS, every sampler's and noise floor's,
 * samples, losses, span, records, digest and estimate). Every core must
 * have the first one's samplers (labels, periods, seeds: what
 * pics_info_merge requires) and clock. 0, TEA_ERR_USAGE (a core that does
 * not match, its message naming it), TEA_ERR_NOMEM, TEA_ERR_UNSUPPORTED (a
 * golden total past 2^64 units). */
int tea_program_add(tea_program *p, const tea_run *core);

/* Every row's error (and noise floor's) at the three granularities from the
 * summed PICS. `functions` may be NULL. 0 or TEA_ERR_NOMEM. */
int tea_program_errors(tea_program *p, const trace_symmap *functions);

void tea_program_free(tea_program *p);

/* The program as a run without an engine (replay NULL), for what reads a
 * run's rows (the results CSV and its provenance, the figure, what the
 * commands say of the frequencies and of too few samples): its name,
 * `path` (the caller's; NULL: none), its cores, the first core's header,
 * totals of first cycle 0 and last cycle the core-cycles with the records,
 * its digest, rows, estimate and raised default. `out` must
 * be released with tea_run_free. 0 or TEA_ERR_NOMEM. */
int tea_program_as_run(const tea_program *p, const char *path, tea_run *out);

/*
 * The per-core files of a multi-core FireSim run in directory `dir`: the
 * regular files whose names end in -C<core>, maybe followed by suffixes
 * (FireSim's TRACEFILE<node>-C<core>, TRACEFILE0-C1.td.zst), ordered by
 * the node number before the -C, then the core number, then the name; or
 * a recording's thread-N.tea (below), by N.
 * *paths: a malloc'd array of *count malloc'd "DIR/NAME" paths
 * (tea_program_core_files_free). TEA_ERR_USAGE when there are none (the
 * message says which names count), TEA_ERR_IO, TEA_ERR_NOMEM.
 */
int tea_program_core_files(const char *dir, char ***paths, size_t *count);

/* A recording of several threads (tea record --thread all) is a directory
 * of thread-N.tea (trace_thread_file): tea_program_core_files takes those
 * too, by number. */
void tea_program_core_files_free(char **paths, size_t count);

#endif
