/*
 * info.h: `tea info` as a view: a trace described from one pass over it
 * (its format and header, cycle span, records, µops, cycles in each commit
 * state, event counts, the executable objects and recorded thread of a
 * `tea record` trace, what the recorder knew of the run and a sampled
 * run's estimate of the whole, and warnings), written as text or JSON.
 */
#ifndef TEA_VIEW_INFO_H
#define TEA_VIEW_INFO_H

#include "common/progress.h"
#include "golden/golden.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <stdint.h>
#include <stdio.h>

/* Most warnings one trace can produce, and the longest one. */
#define VIEW_INFO_MAX_WARNINGS 8
#define VIEW_INFO_WARNING_SIZE 320

/* What one pass over a trace found. */
typedef struct view_info {
    const char *path;            /* the trace (not owned) */
    trace_header header;
    trace_totals totals;
    trace_read_stats stats;
    golden_totals golden;
    trace_object_list objects;   /* executable objects and the recorded thread (a copy) */
    uint64_t commit_exceptions;  /* records that commit and except in one cycle */
    uint64_t *window_insns;      /* a sampled trace's µops committed in each window (known at open), then
                                    the cycle of each window's last commit ([window_count] each) */
    char warnings[VIEW_INFO_MAX_WARNINGS][VIEW_INFO_WARNING_SIZE];
    int warning_count;
} view_info;

/* Reads the trace at `path` ('-': standard input) once with `opts`,
 * classifying every cycle as the golden reference does; `meter` counts the
 * records read. 0 or the reader's error; view_info_free frees what it
 * holds either way (it is freed already after an error). */
int view_info_read(view_info *rep, const char *path, const trace_open_options *opts, progress_meter *meter);
void view_info_free(view_info *rep);

/* The records a native trace file's index lists (a progress line's total):
 * 0, unknown, where there is no index to read (standard input, a pipe, a
 * TraceDoctor trace, a damaged file). */
uint64_t view_info_indexed_records(const char *path);

/* The description as "label: value" lines (emit_field), or as one JSON
 * object. Write errors stay in the stream's error flag. */
void view_info_write_text(FILE *f, const view_info *rep);
void view_info_write_json(FILE *f, const view_info *rep);

/* A program of several cores or threads (a directory of them, as tea
 * replay takes it, tea/program.h): each core's description, read with
 * view_info_read, listed by core with its instructions (µops committed),
 * cycles and IPC (and a sampled core's estimate of its run), then the
 * program's sums (cycles as core-cycles; the estimates summed, their
 * intervals' halves in quadrature, when every core is sampled). */
void view_info_write_program_text(FILE *f, const char *name, const view_info *cores, size_t count);
void view_info_write_program_json(FILE *f, const char *name, const view_info *cores, size_t count);

#endif
