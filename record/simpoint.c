/*
 * simpoint.c: SimPoint's region files (see simpoint.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "simpoint.h"
#include "common/error.h"
#include "common/outfile.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Weights may sum to a little over one: SimPoint prints them rounded. */
#define WEIGHT_SUM_SLACK 0.01

/* One parsed line: two numbers, the first an integer or a weight. */
typedef struct simpoint_line {
    double weight;
    uint64_t first;
    uint64_t cluster;
    uint32_t thread; /* its section's thread, 0 before any */
} simpoint_line;

const char *record_skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

int record_parse_u64(const char **p, uint64_t *v)
{
    char *end;
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    *v = strtoull(*p, &end, 10);
    if (errno)
        return -1;
    *p = end;
    return 0;
}

/* Parses "A CLUSTER" (`weighted`: A a weight, else an interval); 0, 1 for a
 * line to skip, -1 when malformed. */
static int parse_line(const char *text, int weighted, simpoint_line *out)
{
    const char *p = record_skip_blanks(text);
    char *end;

    if (*p == '\n' || *p == '\0' || *p == '#')
        return 1;
    if (weighted) {
        errno = 0;
        out->weight = strtod(p, &end);
        if (end == p || errno || !(out->weight > 0) || out->weight > 1)
            return -1;
        p = end;
    } else if (record_parse_u64(&p, &out->first)) {
        return -1;
    }
    if (*p != ' ' && *p != '\t')
        return -1;
    p = record_skip_blanks(p);
    if (record_parse_u64(&p, &out->cluster))
        return -1;
    p = record_skip_blanks(p);
    return *p == '\n' || *p == '\0' ? 0 : -1;
}

/* Whether `text` is a comment `prefix` and then a number from 1: 1 (the
 * number into *v, *end past it), 0 when it does not start with `prefix`,
 * -1 when no such number follows. */
static int comment_number(const char *text, const char *prefix, uint64_t *v, const char **end)
{
    const char *p = record_skip_blanks(text);
    size_t n = strlen(prefix);

    if (strncmp(p, prefix, n) != 0)
        return 0;
    p += n;
    if (record_parse_u64(&p, v) || *v == 0)
        return -1;
    *end = p;
    return 1;
}

/* Whether `text` is the comment naming the interval (RECORD_SIMPOINT_INTERVAL_COMMENT
 * and a number, then a blank or the line's end), the number into *interval. */
static int comment_interval(const char *text, uint64_t *interval)
{
    const char *p;
    uint64_t v;

    if (comment_number(text, RECORD_SIMPOINT_INTERVAL_COMMENT, &v, &p) != 1 || (*p != ' ' && *p != '\n' && *p != '\0'))
        return 0;
    *interval = v;
    return 1;
}

/* Whether `text` is the comment that starts a thread's section
 * (RECORD_SIMPOINT_THREAD_COMMENT and a number from 1, alone), the number
 * into *thread; -1 when it starts so but the number is not one. */
static int comment_thread(const char *text, uint32_t *thread)
{
    const char *p;
    uint64_t v;
    int r = comment_number(text, RECORD_SIMPOINT_THREAD_COMMENT, &v, &p);

    if (r <= 0)
        return r;
    p = record_skip_blanks(p);
    if (v > UINT32_MAX || (*p != '\n' && *p != '\0'))
        return -1;
    *thread = (uint32_t)v;
    return 1;
}

/* Reads every line of `path` into a new array (each with the thread of
 * its section), and the interval its comment names into *interval (when
 * not NULL; 0 when none does). */
static int read_lines(const char *path, int weighted, simpoint_line **lines, size_t *count, uint64_t *interval)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0, line_no = 0, room = 0;
    int rc = TEA_OK;
    uint32_t thread = 0;

    *lines = NULL;
    *count = 0;
    if (interval)
        *interval = 0;
    if (!f)
        return error_set(TEA_ERR_IO, "%s: %s", path, strerror(errno));
    while (getline(&text, &cap, f) >= 0) {
        simpoint_line got;
        int r = parse_line(text, weighted, &got);
        line_no++;
        if (r == 1 && interval && !*interval)
            comment_interval(text, interval);
        if (r == 1 && comment_thread(text, &thread) < 0) {
            rc = error_set(TEA_ERR_FORMAT, "%s, line %zu: expected \"%sN\" with N from 1", path, line_no,
                           RECORD_SIMPOINT_THREAD_COMMENT);
            break;
        }
        if (r == 1)
            continue;
        got.thread = thread;
        if (r < 0) {
            rc = error_set(TEA_ERR_FORMAT, "%s, line %zu: expected \"%s CLUSTER\"%s", path, line_no,
                           weighted ? "WEIGHT" : "INTERVAL", weighted ? " with 0 < WEIGHT <= 1" : "");
            break;
        }
        if (*count == RECORD_SIMPOINTS_MAX) {
            rc = error_set(TEA_ERR_FORMAT, "%s, line %zu: more than %d regions", path, line_no, RECORD_SIMPOINTS_MAX);
            break;
        }
        if (*count == room) {
            size_t grown_room = room ? 2 * room : 64;
            simpoint_line *grown = realloc(*lines, grown_room * sizeof *grown);
            if (!grown) {
                rc = error_set(TEA_ERR_NOMEM, "out of memory");
                break;
            }
            *lines = grown;
            room = grown_room;
        }
        assert(*count < room && *count < RECORD_SIMPOINTS_MAX); /* a free slot, under the cap */
        (*lines)[(*count)++] = got;
    }
    if (!rc && ferror(f))
        rc = error_set(TEA_ERR_IO, "%s: cannot read", path);
    free(text);
    fclose(f);
    if (!rc && *count == 0)
        rc = error_set(TEA_ERR_FORMAT, "%s: no %s", path, weighted ? "weight" : "region");
    if (rc) {
        free(*lines);
        *lines = NULL;
    }
    return rc;
}

/* By thread, then interval. */
static int by_thread_interval(const void *a, const void *b)
{
    const record_simpoint *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->interval < y->interval ? -1 : x->interval > y->interval;
}

/* The index of thread `thread`'s `cluster` among the lines, or `n` when
 * absent. */
static size_t find_cluster(const simpoint_line *lines, size_t n, uint32_t thread, uint64_t cluster)
{
    size_t i = 0;
    while (i < n && (lines[i].cluster != cluster || lines[i].thread != thread))
        i++;
    return i;
}

/* " (thread N)" for a line in thread N's section, "" outside sections,
 * into buf. */
static const char *thread_note(uint32_t thread, char *buf, size_t size)
{
    if (!thread)
        return "";
    snprintf(buf, size, " (thread %u)", (unsigned)thread);
    return buf;
}

/* Whether the lines are all in threads' sections or all outside. */
static int sections_agree(const simpoint_line *lines, size_t n, const simpoint_line *other, size_t m)
{
    int sectioned = n ? lines[0].thread != 0 : 0;
    for (size_t i = 0; i < n; i++)
        if ((lines[i].thread != 0) != sectioned)
            return 0;
    for (size_t i = 0; i < m; i++)
        if ((other[i].thread != 0) != sectioned)
            return 0;
    return 1;
}

/* Pairs each region with its cluster's weight: both files' clusters must
 * match one to one. */
static int pair(record_simpoint_list *out, const simpoint_line *points, size_t np, const simpoint_line *weights,
                size_t nw, const char *simpoints_path, const char *weights_path)
{
    char note[32];

    assert(np <= RECORD_SIMPOINTS_MAX && nw <= RECORD_SIMPOINTS_MAX); /* read_lines caps both files */
    if (!sections_agree(points, np, weights, nw))
        return error_set(TEA_ERR_FORMAT, "%s and %s: every line in a \"%sN\" section, or none", simpoints_path,
                         weights_path, RECORD_SIMPOINT_THREAD_COMMENT);
    for (size_t i = 0; i < nw; i++) {
        double sum = 0;
        if (find_cluster(weights, i, weights[i].thread, weights[i].cluster) < i)
            return error_set(TEA_ERR_FORMAT, "%s: cluster %llu%s has two weights", weights_path,
                             (unsigned long long)weights[i].cluster, thread_note(weights[i].thread, note, sizeof note));
        for (size_t j = 0; j <= i; j++) /* a thread's weights so far, checked at each of its lines */
            sum += weights[j].thread == weights[i].thread ? weights[j].weight : 0;
        if (sum > 1 + WEIGHT_SUM_SLACK)
            return error_set(TEA_ERR_FORMAT, "%s: the weights%s sum to %.6g, more than 1", weights_path,
                             thread_note(weights[i].thread, note, sizeof note), sum);
    }
    if (np != nw)
        return error_set(TEA_ERR_FORMAT, "%s has %zu regions and %s %zu weights: one weight per region's cluster",
                         simpoints_path, np, weights_path, nw);
    for (size_t i = 0; i < np; i++) {
        size_t w = find_cluster(weights, nw, points[i].thread, points[i].cluster);
        if (w == nw)
            return error_set(TEA_ERR_FORMAT, "%s: cluster %llu%s (interval %llu) has no weight in %s", simpoints_path,
                             (unsigned long long)points[i].cluster, thread_note(points[i].thread, note, sizeof note),
                             (unsigned long long)points[i].first, weights_path);
        out->regions[i] = (record_simpoint){ points[i].first, points[i].cluster, weights[w].weight, points[i].thread };
    }
    qsort(out->regions, np, sizeof *out->regions, by_thread_interval);
    for (size_t i = 1; i < np; i++) {
        const record_simpoint *r = &out->regions[i], *before = &out->regions[i - 1];
        assert(by_thread_interval(before, r) <= 0); /* qsort: by thread, then interval */
        if (r->thread == before->thread && r->interval == before->interval)
            return error_set(TEA_ERR_FORMAT, "%s: interval %llu%s is given twice", simpoints_path,
                             (unsigned long long)r->interval, thread_note(r->thread, note, sizeof note));
    }
    for (size_t i = 0; i < np; i++)
        if (find_cluster(points, i, points[i].thread, points[i].cluster) < i)
            return error_set(TEA_ERR_FORMAT, "%s: cluster %llu%s has two regions", simpoints_path,
                             (unsigned long long)points[i].cluster, thread_note(points[i].thread, note, sizeof note));
    out->count = np;
    return TEA_OK;
}

int record_simpoint_read(record_simpoint_list *out, const char *simpoints_path, const char *weights_path)
{
    simpoint_line *points = NULL, *weights = NULL;
    size_t np = 0, nw = 0;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = read_lines(simpoints_path, 0, &points, &np, &out->interval))
        || (rc = read_lines(weights_path, 1, &weights, &nw, NULL)))
        goto done;
    if (!(out->regions = calloc(np, sizeof *out->regions))) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    rc = pair(out, points, np, weights, nw, simpoints_path, weights_path);
done:
    free(points);
    free(weights);
    if (rc)
        record_simpoint_free(out);
    return rc;
}

int record_simpoint_threaded(const record_simpoint_list *l)
{
    return l->count && l->regions[0].thread != 0;
}

void record_simpoint_thread(const record_simpoint_list *l, uint32_t thread, record_simpoint_list *view)
{
    size_t first = 0, n = 0;
    while (first < l->count && l->regions[first].thread != thread)
        first++;
    while (first + n < l->count && l->regions[first + n].thread == thread)
        n++;
    view->regions = n ? l->regions + first : NULL;
    view->count = n;
    view->interval = l->interval;
}

int record_simpoint_check_fit(const record_simpoint_list *l, uint64_t intervals, uint64_t interval)
{
    size_t past = 0;
    uint64_t last;

    TEA_ASSERT_ARG(l && l->count && interval);
    last = l->regions[l->count - 1].interval; /* regions come by increasing interval */
    for (size_t i = 0; i < l->count; i++)
        past += l->regions[i].interval >= intervals;
    if (past)
        return error_set(TEA_ERR_USAGE,
                         "%zu of the %zu SimPoint regions lie past the program's end: the run has %llu intervals of "
                         "--simpoint-interval %llu instructions, the last region is interval %llu; are the files "
                         "for this program, input and interval?",
                         past, l->count, (unsigned long long)intervals, (unsigned long long)interval,
                         (unsigned long long)last);
    if (l->count >= 2 && intervals >= RECORD_SIMPOINT_TENTH_MIN_INTERVALS && (last + 1) * 10 <= intervals)
        return error_set(TEA_ERR_USAGE,
                         "every SimPoint region lies in the first tenth of the run: the last is interval %llu of "
                         "the run's %llu intervals of --simpoint-interval %llu instructions; were the files made "
                         "with a larger interval?",
                         (unsigned long long)last, (unsigned long long)intervals, (unsigned long long)interval);
    return TEA_OK;
}

void record_simpoint_integer_weights(const record_simpoint_list *l, uint64_t intervals, uint64_t *out)
{
    for (size_t i = 0; i < l->count; i++) {
        double n = floor(l->regions[i].weight * (double)intervals + 0.5);
        out[i] = n < 1 ? 1 : (uint64_t)n;
    }
}

/* One of the two files: `weighted` the weights, else the regions. */
static int write_file(const record_simpoint_list *l, const char *path, int weighted, outfile **out)
{
    int rc = outfile_open(out, path);
    if (!rc && !weighted && l->interval)
        fprintf(outfile_stream(*out), "%s%llu instructions (exp-bbv's --interval-size)\n",
                RECORD_SIMPOINT_INTERVAL_COMMENT, (unsigned long long)l->interval);
    for (size_t i = 0; !rc && i < l->count; i++) {
        const record_simpoint *r = &l->regions[i];
        if (r->thread && (i == 0 || l->regions[i - 1].thread != r->thread))
            fprintf(outfile_stream(*out), "%s%u\n", RECORD_SIMPOINT_THREAD_COMMENT, (unsigned)r->thread);
        if (weighted)
            fprintf(outfile_stream(*out), "%.9g %llu\n", r->weight, (unsigned long long)r->cluster);
        else
            fprintf(outfile_stream(*out), "%llu %llu\n", (unsigned long long)r->interval,
                    (unsigned long long)r->cluster);
    }
    return rc;
}

int record_simpoint_write(const record_simpoint_list *l, const char *simpoints_path, const char *weights_path)
{
    outfile *regions = NULL, *weights = NULL;
    int rc = write_file(l, simpoints_path, 0, &regions);
    if (!rc)
        rc = write_file(l, weights_path, 1, &weights);
    /* both written out before either is renamed into place (commit frees);
     * the regions taken back when the weights cannot follow them */
    if (!rc && (fflush(outfile_stream(regions)) || ferror(outfile_stream(regions))))
        rc = error_set(TEA_ERR_IO, "%s: cannot write", simpoints_path);
    if (!rc && (fflush(outfile_stream(weights)) || ferror(outfile_stream(weights))))
        rc = error_set(TEA_ERR_IO, "%s: cannot write", weights_path);
    if (!rc) {
        rc = outfile_commit(regions);
        regions = NULL;
    }
    if (!rc) {
        rc = outfile_commit(weights);
        weights = NULL;
        if (rc)
            unlink(simpoints_path);
    }
    outfile_abort(regions);
    outfile_abort(weights);
    return rc;
}

void record_simpoint_free(record_simpoint_list *l)
{
    free(l->regions);
    memset(l, 0, sizeof *l);
}
