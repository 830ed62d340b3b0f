/*
 * pics_file.h: PICS files (docs/pics-format.md) and their provenance.
 *
 * A PICS file is a small versioned text file: "key value" lines describing
 * where the profile came from (trace identity, scheme, sampling settings,
 * samples taken and lost), then the cells as exact integers. Written through
 * a temporary file (outfile.h); read strictly, with errors naming the file
 * and line.
 */
#ifndef TEA_PICS_PICS_FILE_H
#define TEA_PICS_PICS_FILE_H

#include "pics.h"
#include "common/json.h"
#include "pics/lost.h"
#include "trace/objects.h"

#include "common/exact.h"
#include <stdint.h>

#define PICS_FORMAT_MAJOR 1
#define PICS_FORMAT_MINOR 0
/* Minor version of a file that carries the trace's objects or thread
 * (trace.objects, trace.object, trace.thread); files without them stay 1.0. */
#define PICS_FORMAT_MINOR_OBJECTS 1
/* Minor version of a noise floor's file (noise_floor_of). */
#define PICS_FORMAT_MINOR_FLOOR 2
/* Minor version of a PICS of a sampled trace split by groups of windows
 * (groups): the golden one, and since 2026-11-28 every sampler's. */
#define PICS_FORMAT_MINOR_GROUPS 3
/* Minor version of a file whose samplers followed the tracedoctor rules (rules). */
#define PICS_FORMAT_MINOR_RULES 4
/* Minor version of a PICS with calling contexts (contexts, a context per cell). */
#define PICS_FORMAT_MINOR_CONTEXTS 5
/* Most window groups a PICS file may carry. */
#define PICS_MAX_GROUPS 64
#define PICS_NAME_MAX 32
/* The golden rule set a PICS assumes when its file does not name one
 * (golden_rules_name(GOLDEN_RULES_DEFAULT)). */
#define PICS_GOLDEN_RULES_DEFAULT "default"
/* The other rule set's name (golden_rules_name(GOLDEN_RULES_TRACEDOCTOR)). */
#define PICS_RULES_TRACEDOCTOR "tracedoctor"

/* Everything a PICS file says about itself. Strings are owned (malloc'd) and
 * may be NULL. */
typedef struct pics_info {
    char scheme[PICS_NAME_MAX];     /* golden, tea, nci, ibs, spe, ris */
    uint64_t unit;                  /* fixed-point scale (PICS_UNIT) */
    /* the trace */
    char trace_digest[TRACE_DIGEST_LEN + 1]; /* identity of the record stream (hex) */
    uint64_t trace_first_cycle, trace_last_cycle, trace_records;
    uint64_t clock_hz;
    trace_program program;          /* the traced program (arch "" when unknown), when the trace names it */
    trace_object_list objects;      /* the trace's executable objects and recorded thread */
    uint64_t golden_total;          /* attributed cycles x unit: what sampled PICS scale to */
    char golden_rules[PICS_NAME_MAX]; /* the golden reference's rule set: default or tracedoctor
                                         (files without the key: default) */
    char rules[PICS_NAME_MAX];      /* the rule set the PICS was sampled under (tea replay --rules):
                                       default or tracedoctor (files without the key, and golden
                                       PICS, which both rule sets share: default) */
    /* sampling (zero/empty for golden) */
    uint64_t period;                /* cycles between sample points */
    double frequency_hz;            /* clock_hz / period */
    uint64_t seed;
    char jitter[PICS_NAME_MAX];     /* none, start, interval */
    char events[PICS_NAME_MAX];     /* native or all */
    uint16_t event_mask;            /* PSV bits the scheme reports */
    uint64_t samples;               /* sample points that yielded a sample */
    uint64_t lost[PICS_LOST_REASONS]; /* sample points lost, per reason (pics/lost.h) */
    uint64_t merged;                /* PICS files summed into this one (1: none) */
    char noise_floor_of[PICS_NAME_MAX]; /* a noise floor (TEA at another sampler's points): that
                                           sampler's label ("ibs", "ibs:all"); empty otherwise */
    uint64_t groups;                /* window groups the file's cells are split into (a sampled
                                       trace's PICS, golden or sampled; pics_read_groups), 0: none */
    uint64_t contexts;              /* calling contexts the file had (the root not counted; 0: a
                                       flat PICS), whether or not the reader kept them */
} pics_info;

/* Zeroes `info` (scheme empty, unit PICS_UNIT, merged 1, golden and
 * sampler rules "default"). */
void pics_info_init(pics_info *info);

/* Frees the strings. */
void pics_info_free(pics_info *info);

/* Deep copy; 0 or TEA_ERR_NOMEM. */
int pics_info_copy(pics_info *dst, const pics_info *src);

/* Total sample points that yielded nothing. */
uint64_t pics_info_lost(const pics_info *info);

/* 0 when a PICS (at `path`) and a golden PICS (at `golden_path`) follow the
 * same golden rules (and, when both are sampled, the same sampler rules),
 * else TEA_ERR_USAGE with a message naming both. */
int pics_info_same_rules(const pics_info *info, const char *path, const pics_info *golden,
                         const char *golden_path);

/* True for the golden reference (no sampling). */
int pics_info_is_golden(const pics_info *info);

/* The cycles a cell value stands for: value / unit for the golden PICS; for
 * a sampled PICS whose values sum to `total`, the value scaled so the PICS
 * sums to the golden total: value x golden_total / (total x unit). 0 when
 * the sampled PICS is empty. */
double pics_value_cycles(const pics_info *info, uint64_t total, uint64_t value);

/* The exact cycles a raw value stands for (as pics_value_cycles), as the
 * fraction *num / *den (den > 0; every value of one PICS has the same den). */
void pics_value_fraction(const pics_info *info, uint64_t total, uint64_t value, exact_u128 *num, exact_u128 *den);

/* The cycles of `n` cells of one PICS (info, its total), in the order
 * given, as whole numbers into out[n], rounded cumulatively: out[0] + ...
 * + out[i] is the exact cycles of cells 0 to i rounded to the nearest
 * integer (halves up). So each out[i] is its cell's exact cycles rounded
 * down or up, they sum to the total's cycles rounded, and any run of
 * neighbouring cells (a function's, in address order) sums to within one
 * cycle of its exact cycles. What `pics report --format folded`, `pics
 * flamegraph` and `pics export --format pprof` weigh cells by. */
void pics_whole_cycles(const pics_info *info, uint64_t total, const pics_cell *cells, size_t n, uint64_t *out);

/* Writes the same quantity as an exact decimal rounded half up to `digits`
 * fraction digits (at most 9) into buf. */
void pics_format_cycles(const pics_info *info, uint64_t total, uint64_t value, int digits, char *buf, size_t size);

/* Writes `info` and the cells of `p` (sorted) to `path` atomically.
 * Errors: TEA_ERR_IO, TEA_ERR_NOMEM. */
int pics_write(const char *path, const pics_info *info, const pics *p);

/* The same with the cells split by window groups (tea/replay.h,
 * tea_replay_group_windows): each cell line is followed by its value in each
 * of the `count` groups, which sum to it; `groups` (count PICS) sum to `p`.
 * count 0 is pics_write. Errors: as pics_write, TEA_ERR_USAGE for one group
 * or more than PICS_MAX_GROUPS (the reader's limits). */
int pics_write_groups(const char *path, const pics_info *info, const pics *p, const pics *groups, unsigned count);

/* Reads a PICS file. `p` is initialized here. Errors: TEA_ERR_IO,
 * TEA_ERR_FORMAT (wrong magic or major version, malformed or truncated
 * lines, values that do not add up), each naming the file and line. A
 * file's window groups are checked and dropped (info->groups says how many
 * there were); so are its calling contexts: every reader but
 * pics_read_contexts gives the flat PICS, the exact sum over contexts
 * (info->contexts says how many there were). */
int pics_read(const char *path, pics_info *info, pics *p);

/* pics_read, keeping the window groups: *groups is a malloc'd array of
 * info->groups PICS (NULL when the file has none), to be released with
 * pics_groups_free. */
int pics_read_groups(const char *path, pics_info *info, pics *p, pics **groups);

/* pics_read keeping the calling contexts (p->contexts; none for a flat
 * file): cells keyed by (context, PC, PSV). */
int pics_read_contexts(const char *path, pics_info *info, pics *p);

/* pics_read_contexts for files of millions of cells that a command keys
 * or exports in the file's order without looking cells up: the cells as
 * they are in the file (sorted by PC, PSV and context, each once; a file
 * out of order is refused) in a malloc'd array of *n, their values'
 * sum in *total, `p` holding the contexts but no cell (no hash table:
 * on 18 million cells, a third of the time and of the memory). Window
 * groups are skipped. */
int pics_read_array(const char *path, pics_info *info, pics *p, pics_cell **cells, size_t *n, uint64_t *total);

/* pics_read and pics_read_groups from the `size` bytes at `data` (the
 * whole file's content; they must stay unchanged during the call), which
 * messages call `name` as they would call the file. The same cells and
 * groups, or the same error, as a file with those bytes named `name`. */
int pics_read_memory(const void *data, size_t size, const char *name, pics_info *info, pics *p);
int pics_read_groups_memory(const void *data, size_t size, const char *name, pics_info *info, pics *p,
                            pics **groups_out);

/* Frees `count` group PICS and the array. */
void pics_groups_free(pics *groups, uint64_t count);

/* Copies a trace's executable objects and recorded thread into `info`
 * (replacing any it had). 0 or TEA_ERR_NOMEM. */
int pics_info_set_objects(pics_info *info, const trace_object *objs, size_t count, uint32_t tid,
                          uint32_t threads_seen);

/* Writes the members "thread" ({"id", "threads"} or null) and "objects"
 * (an array of {"path", "build_id" (hex or null), "load_bias", "start",
 * "end"}) into the JSON object `j` has open: the JSON form of a trace's
 * objects, shared by tea info and the pics commands. */
void pics_json_objects(json_writer *j, const trace_object_list *l);

/* The members of a PICS's provenance in JSON, as commands list them (in
 * their order): the one writer of a PICS's provenance in JSON is
 * pics_provenance_json, for `pics report`, `pics diff` and `pics export`
 * alike (the '#' header of text reports is view_report_print_header). */
typedef enum pics_provenance_member {
    PICS_PROV_FILE = 0,     /* "file": the path the PICS was read from */
    PICS_PROV_SCHEME,       /* "scheme" */
    PICS_PROV_TRACE_BEGIN,  /* "trace": { ... the trace's members below until PICS_PROV_TRACE_END */
    PICS_PROV_DIGEST,       /* "digest": the trace's digest, null when none */
    PICS_PROV_FIRST_CYCLE,  /* "first_cycle" */
    PICS_PROV_LAST_CYCLE,   /* "last_cycle" */
    PICS_PROV_ARCH,         /* "arch", null when none */
    PICS_PROV_BINARY,       /* "binary": the traced program the trace names, or null */
    PICS_PROV_BUILD_ID,     /* "build_id", or null */
    PICS_PROV_LOAD_BIAS,    /* "load_bias": "0xHEX", or null without one */
    PICS_PROV_OBJECTS,      /* "thread" and "objects" (pics_json_objects) */
    PICS_PROV_TRACE_END,    /* } */
    PICS_PROV_TOTAL_CYCLES, /* "total_cycles": the golden total in cycles */
    /* a sampled PICS's only (left out for the golden one): */
    PICS_PROV_FREQUENCY,    /* "frequency_hz" */
    PICS_PROV_PERIOD,       /* "period" */
    PICS_PROV_SEED,         /* "seed" */
    PICS_PROV_JITTER,       /* "jitter" */
    PICS_PROV_EVENTS,       /* "events" */
    PICS_PROV_SAMPLES,      /* "samples" */
    PICS_PROV_LOST          /* "lost": every reason's losses summed */
} pics_provenance_member;

/* Writes the `count` members of `info`'s provenance at the writer's
 * position (inside an object), in the order listed; `path` is the file's
 * name for PICS_PROV_FILE. */
void pics_provenance_json(json_writer *j, const pics_info *info, const char *path,
                          const pics_provenance_member *members, size_t count);

/* Merges `src` into `dst` (profiles of the same scheme and settings, e.g.
 * the same trace split in parts or several traces): values, counts, samples,
 * losses and golden totals add. The objects of one address space (the
 * threads of one process, whose lists may differ by what each saw mapped)
 * give their union; lists that disagree (an object where the other has
 * another) are dropped, as the binary is: one list cannot describe the
 * address spaces of different runs. The thread stays when it is the same,
 * else it becomes unknown. TEA_ERR_USAGE when they are not mergeable. */
int pics_info_merge(pics_info *dst, const pics_info *src);

#endif
