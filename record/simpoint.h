/*
 * simpoint.h: SimPoint's regions, for tea record --simpoints.
 *
 * SimPoint 3 (run on the basic-block vectors that Valgrind's exp-bbv writes
 * per interval of a fixed number of instructions) chooses one representative
 * interval per cluster of similar intervals and writes two text files:
 *
 *   --simpoints FILE   one line per region: "INTERVAL CLUSTER", the
 *                      interval's index (0 the first) and its cluster's id;
 *   --weights FILE     one line per cluster: "WEIGHT CLUSTER", the share of
 *                      all intervals (0 < WEIGHT <= 1) that the cluster holds.
 *
 * Blank lines and lines starting with '#' are skipped, but for two: a
 * line "# interval N ..." in the regions' file (as tea simpoint writes
 * it) names the interval, N instructions, the files were made for; and a
 * line "# thread N" starts thread N's section (tea simpoint --thread
 * writes one per thread, in both files; N the thread's number by
 * creation, 1 the main thread): the lines after it, to the next section,
 * are that thread's regions and weights, each thread's as SimPoint 3
 * writes one program's (a thread's own intervals, counted on its own
 * instructions; clusters numbered per thread). Either every line is in a
 * section or none is. Every region's cluster needs exactly one weight
 * (of its thread) and every weight a region. The regions come out by
 * thread, then in the order of their intervals.
 */
#ifndef TEA_RECORD_SIMPOINT_H
#define TEA_RECORD_SIMPOINT_H

#include <stddef.h>
#include <stdint.h>

typedef struct record_simpoint {
    uint64_t interval;   /* the region's interval index */
    uint64_t cluster;    /* its cluster's id */
    double weight;       /* the share of the run's (its thread's) intervals it stands for */
    uint32_t thread;     /* its section's thread (from 1); 0: the file has no sections */
} record_simpoint;

typedef struct record_simpoint_list {
    record_simpoint *regions; /* by thread, then increasing interval */
    size_t count;
    uint64_t interval;         /* instructions per interval, as the regions' file names it; 0: it does not */
} record_simpoint_list;

/* The comment that names the interval, before the number. */
#define RECORD_SIMPOINT_INTERVAL_COMMENT "# interval "
/* The comment that starts a thread's section, before its number. */
#define RECORD_SIMPOINT_THREAD_COMMENT "# thread "


/* Most regions a list holds. */
#define RECORD_SIMPOINTS_MAX 4096

/* Reads the two files into *out (freed with record_simpoint_free). Errors
 * name the file and line: TEA_ERR_IO (unreadable), TEA_ERR_FORMAT (a line
 * that is not two numbers, a weight outside (0, 1], an interval or cluster
 * given twice, a cluster without a weight or a weight without a region,
 * weights summing to more than 1.01 (a thread's), no region, more than
 * RECORD_SIMPOINTS_MAX, a line outside sections where others are in
 * one), TEA_ERR_NOMEM. */
int record_simpoint_read(record_simpoint_list *out, const char *simpoints_path, const char *weights_path);

/* Whether the list's regions are threads' (the files had sections). */
int record_simpoint_threaded(const record_simpoint_list *l);

/* Thread `thread`'s regions of `l` into *view, which points into `l` (and
 * is not freed): count 0 when it has none. */
void record_simpoint_thread(const record_simpoint_list *l, uint32_t thread, record_simpoint_list *view);

/* A run has a first tenth to test (check_fit) from this many intervals. */
#define RECORD_SIMPOINT_TENTH_MIN_INTERVALS 10

/* Whether the regions of `l` fit the run the tool counted, `intervals`
 * intervals of `interval` instructions: 0, or TEA_ERR_USAGE naming the
 * interval when some regions lie past the run's end, or when every region
 * of several lies in its first tenth (a run of
 * RECORD_SIMPOINT_TENTH_MIN_INTERVALS or more): files made for another
 * interval (10^7 given as 10^6 puts ten regions in the first 10^8
 * instructions of a 10^9 run), program or input. A picker spreads the
 * regions of several clusters over the run it profiled; one cluster's
 * representative may well be the first interval. */
int record_simpoint_check_fit(const record_simpoint_list *l, uint64_t intervals, uint64_t interval);

/* The intervals each region stands for in a run of `intervals` of them:
 * round(weight * intervals), at least 1, into out[count]. */
void record_simpoint_integer_weights(const record_simpoint_list *l, uint64_t intervals, uint64_t *out);

/* Writes `l` as SimPoint's two files (the format above; a weight with 9
 * significant digits; the interval's comment first when l->interval; a
 * section per thread when its regions have threads), each whole or not
 * at all (common/outfile.h). 0,
 * TEA_ERR_USAGE (a path that cannot be an output), TEA_ERR_IO. */
int record_simpoint_write(const record_simpoint_list *l, const char *simpoints_path, const char *weights_path);

void record_simpoint_free(record_simpoint_list *l);

/* The text of SimPoint's files and of exp-bbv's (record/bbv.c): past the
 * blanks (spaces, tabs, a CR) at p; an unsigned decimal at *p (a digit
 * first, no overflow) into *v, *p moved past it: 0, or -1 (nothing read). */
const char *record_skip_blanks(const char *p);
int record_parse_u64(const char **p, uint64_t *v);

#endif
