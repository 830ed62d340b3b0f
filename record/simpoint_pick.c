/*
 * simpoint_pick.c: SimPoint 3's clustering of basic-block vectors (see
 * simpoint_pick.h).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* M_PI */
#include "simpoint_pick.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/rng.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define M RECORD_BBV_DIMS

/* exp-bbv's intervals end at a block boundary: a little more than the
 * interval on average (a relative slack and a block's instructions). */
#define INTERVAL_SLACK 0.001
#define BLOCK_MAX 256

/* The least variance per dimension BIC takes: clusters of identical
 * intervals would otherwise have an infinite likelihood. */
#define PICK_VARIANCE_MIN 1e-12

/* One clustering of the points into k clusters. */
typedef struct clustering {
    unsigned k;
    unsigned *member;   /* [R] each point's cluster */
    double *centroid;   /* [k][M] */
    size_t *size;       /* [k] points in each */
    double sse;         /* squared distances to the centroids */
} clustering;

static double distance2(const double *a, const double *b)
{
    double s = 0;
    for (unsigned d = 0; d < M; d++)
        s += (a[d] - b[d]) * (a[d] - b[d]);
    return s;
}

/* The centroid nearest to `point` (the lowest index on a tie). */
static unsigned nearest(const clustering *c, const double *point)
{
    unsigned best = 0;
    double best_d = distance2(point, c->centroid);
    for (unsigned j = 1; j < c->k; j++) {
        double d = distance2(point, c->centroid + (size_t)j * M);
        if (d < best_d) {
            best_d = d;
            best = j;
        }
    }
    return best;
}

/* Centroids as the means of their members; an empty cluster takes the
 * point farthest from its own centroid, so that k clusters stay k. */
static void update_centroids(clustering *c, const double *pts, size_t n)
{
    memset(c->centroid, 0, (size_t)c->k * M * sizeof *c->centroid);
    memset(c->size, 0, c->k * sizeof *c->size);
    for (size_t i = 0; i < n; i++) {
        c->size[c->member[i]]++;
        for (unsigned d = 0; d < M; d++)
            c->centroid[(size_t)c->member[i] * M + d] += pts[i * M + d];
    }
    for (unsigned j = 0; j < c->k; j++) {
        if (c->size[j] == 0)
            continue;
        for (unsigned d = 0; d < M; d++)
            c->centroid[(size_t)j * M + d] /= (double)c->size[j];
    }
    for (unsigned j = 0; j < c->k; j++) {
        size_t far = 0;
        double far_d = -1;
        if (c->size[j] != 0)
            continue;
        for (size_t i = 0; i < n; i++) {
            double d = c->size[c->member[i]] > 1 ? distance2(pts + i * M, c->centroid + (size_t)c->member[i] * M) : -1;
            if (d > far_d) {
                far_d = d;
                far = i;
            }
        }
        assert(far_d >= 0); /* k <= n: some cluster has two points */
        c->size[c->member[far]]--;
        c->member[far] = j;
        c->size[j] = 1;
        memcpy(c->centroid + (size_t)j * M, pts + far * M, M * sizeof *pts);
    }
}

/* Lloyd's iterations from centroids at k distinct points drawn with `rng`. */
static void kmeans(clustering *c, const double *pts, size_t n, rng_state *rng, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (unsigned j = 0; j < c->k; j++) { /* a partial shuffle: k distinct points */
        size_t pick = j + (size_t)rng_below(rng, n - j), t = order[j];
        order[j] = order[pick];
        order[pick] = t;
        memcpy(c->centroid + (size_t)j * M, pts + order[j] * M, M * sizeof *pts);
    }
    for (size_t i = 0; i < n; i++)
        c->member[i] = nearest(c, pts + i * M);
    for (unsigned it = 0; it < RECORD_PICK_ITERATIONS_MAX; it++) {
        size_t moved = 0;
        update_centroids(c, pts, n);
        for (size_t i = 0; i < n; i++) {
            unsigned j = nearest(c, pts + i * M);
            moved += j != c->member[i];
            c->member[i] = j;
        }
        if (!moved)
            break;
    }
    update_centroids(c, pts, n);
    c->sse = 0;
    for (size_t i = 0; i < n; i++)
        c->sse += distance2(pts + i * M, c->centroid + (size_t)c->member[i] * M);
}

static void clustering_free(clustering *c)
{
    free(c->member);
    free(c->centroid);
    free(c->size);
}

static int clustering_init(clustering *c, unsigned k, size_t n)
{
    c->k = k;
    c->member = malloc(n * sizeof *c->member);
    c->centroid = malloc((size_t)k * M * sizeof *c->centroid);
    c->size = malloc(k * sizeof *c->size);
    if (!c->member || !c->centroid || !c->size) {
        clustering_free(c);
        memset(c, 0, sizeof *c);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    return TEA_OK;
}

/* The best of opt->restarts k-means runs with k clusters into *best
 * (initialized with k clusters); `work` a clustering of k as scratch. */
static void best_of_restarts(const record_bbv *b, const record_pick_options *opt, clustering *best,
                             clustering *work, size_t *order)
{
    best->sse = INFINITY;
    for (unsigned r = 0; r < opt->restarts; r++) {
        rng_state rng;
        rng_seed(&rng, opt->seed, (uint64_t)best->k * opt->restarts + r);
        kmeans(work, b->points, b->intervals, &rng, order);
        if (work->sse < best->sse) {
            clustering t = *best;
            *best = *work;
            *work = t;
        }
    }
}

/* The BIC of a clustering of n points (see simpoint_pick.h). */
static double bic(const clustering *c, size_t n)
{
    double r = (double)n, s2, like = 0, params;
    if (n <= c->k)
        return -INFINITY;
    s2 = c->sse / ((double)M * (r - c->k));
    if (s2 < PICK_VARIANCE_MIN)
        s2 = PICK_VARIANCE_MIN;
    for (unsigned j = 0; j < c->k; j++)
        if (c->size[j])
            like += (double)c->size[j] * log((double)c->size[j] / r);
    like -= r * M / 2.0 * log(2 * M_PI * s2) + c->sse / (2 * s2);
    params = (c->k - 1) + (double)M * c->k + 1;
    return like - params / 2 * log(r);
}

/* The smallest K whose BIC reaches the threshold (see simpoint_pick.h). */
static unsigned choose_k(const double *bics, unsigned tried, double threshold)
{
    double lo = INFINITY, hi = -INFINITY;
    for (unsigned k = 0; k < tried; k++) {
        if (!isfinite(bics[k]))
            continue;
        lo = bics[k] < lo ? bics[k] : lo;
        hi = bics[k] > hi ? bics[k] : hi;
    }
    if (!(hi > lo))
        return 1;
    for (unsigned k = 0; k < tried; k++)
        if (isfinite(bics[k]) && bics[k] >= lo + threshold * (hi - lo))
            return k + 1;
    return tried;
}

/* The regions of clustering c: each cluster's member nearest its centroid,
 * ordered by interval, clusters renumbered in that order. */
static int regions_of(const clustering *c, const record_bbv *b, record_simpoint_list *out)
{
    size_t *rep = malloc(c->k * sizeof *rep), n = 0;
    double *rep_d = malloc(c->k * sizeof *rep_d);
    int rc = TEA_OK;

    out->regions = calloc(c->k, sizeof *out->regions);
    if (!rep || !rep_d || !out->regions) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (unsigned j = 0; j < c->k; j++)
        rep_d[j] = INFINITY;
    for (size_t i = 0; i < b->intervals; i++) {
        unsigned j = c->member[i];
        double d = distance2(b->points + i * M, c->centroid + (size_t)j * M);
        if (d < rep_d[j]) {
            rep_d[j] = d;
            rep[j] = i;
        }
    }
    for (size_t i = 0; i < b->intervals; i++) { /* in interval order: the representatives' */
        unsigned j = c->member[i];
        if (rep[j] != i)
            continue;
        out->regions[n].interval = i;
        out->regions[n].cluster = n;
        out->regions[n].weight = (double)c->size[j] / (double)b->intervals;
        n++;
    }
    assert(n == c->k); /* every cluster has members, so a representative */
    out->count = n;
done:
    free(rep);
    free(rep_d);
    if (rc) {
        free(out->regions);
        out->regions = NULL;
    }
    return rc;
}

int record_pick_regions(const record_bbv *bbv, const record_pick_options *opt, record_pick *out)
{
    clustering best = { 0 }, work = { 0 };
    size_t *order = NULL;
    unsigned tried;
    int rc;

    memset(out, 0, sizeof *out);
    if (opt->max_k < 1 || opt->restarts < 1 || !(opt->bic_threshold >= 0 && opt->bic_threshold <= 1))
        return error_set(TEA_ERR_USAGE, "picking regions: max K and restarts of 1 or more, a BIC threshold in [0, 1]");
    assert(bbv->intervals > 0 && bbv->points); /* record_bbv_read's contract */
    tried = bbv->intervals < opt->max_k ? (unsigned)bbv->intervals : opt->max_k;
    out->bic = calloc(tried, sizeof *out->bic);
    order = malloc(bbv->intervals * sizeof *order);
    if (!out->bic || !order) {
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    out->tried = tried;
    for (unsigned k = 1; k <= tried; k++) {
        if ((rc = clustering_init(&best, k, bbv->intervals)) || (rc = clustering_init(&work, k, bbv->intervals)))
            goto done;
        best_of_restarts(bbv, opt, &best, &work, order);
        out->bic[k - 1] = bic(&best, bbv->intervals);
        clustering_free(&best);
        clustering_free(&work);
        memset(&best, 0, sizeof best);
        memset(&work, 0, sizeof work);
    }
    out->k = choose_k(out->bic, tried, opt->bic_threshold);
    /* the chosen K again (the same seeds give the same clustering) */
    if ((rc = clustering_init(&best, out->k, bbv->intervals)) || (rc = clustering_init(&work, out->k, bbv->intervals)))
        goto done;
    best_of_restarts(bbv, opt, &best, &work, order);
    rc = regions_of(&best, bbv, &out->regions);
done:
    clustering_free(&best);
    clustering_free(&work);
    free(order);
    if (rc)
        record_pick_free(out);
    return rc;
}

/* A temporary file for exp-bbv's vectors into path[size] (registered for
 * removal on a signal, *handle). */
static int temp_bbv_path(char *path, size_t size, int *handle)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    if (!dir || !*dir)
        dir = "/tmp";
    if (snprintf(path, size, "%s/tea-simpoint-XXXXXX", dir) >= (int)size)
        return error_set(TEA_ERR_USAGE, "TMPDIR is too long");
    if ((fd = mkstemp(path)) < 0)
        return error_set(TEA_ERR_IO, "cannot create a temporary file in %s: %s", dir, strerror(errno));
    close(fd);
    *handle = cleanup_add_file(path);
    return TEA_OK;
}

/* Whether the vectors were made with intervals of `interval` instructions:
 * exp-bbv closes an interval at the first block boundary past it, so its
 * intervals hold `interval` instructions and a block's few more. */
static int check_interval(const record_bbv *b, uint64_t interval, const char *path)
{
    double mean = (double)b->instructions / (double)b->intervals;
    if (mean >= (double)interval && mean <= (double)interval * (1 + INTERVAL_SLACK) + BLOCK_MAX)
        return TEA_OK;
    return error_set(TEA_ERR_USAGE, "%s: its intervals hold %.0f instructions on average, not the --interval %llu "
                                    "they were said to be made with",
                     path, mean, (unsigned long long)interval);
}

/* exp-bbv writes thread N's vectors (N > 1) to PATH.N, for Valgrind's
 * thread numbers up to its default --max-threads. */
#define BBV_THREADS_MAX 500

/* Whether exp-bbv wrote a thread's vectors beside `path` (PATH.2 on). */
static int other_threads(const char *path)
{
    char sibling[PATH_MAX];
    return snprintf(sibling, sizeof sibling, "%s.2", path) < (int)sizeof sibling && access(sibling, F_OK) == 0;
}

/* Removes the other threads' files exp-bbv wrote beside the temporary
 * `path`. */
static void remove_thread_files(const char *path)
{
    char sibling[PATH_MAX];
    for (int n = 2; n <= BBV_THREADS_MAX; n++)
        if (snprintf(sibling, sizeof sibling, "%s.%d", path, n) < (int)sizeof sibling)
            unlink(sibling);
}

/* --- several threads ---------------------------------------------------- */

/* Whether thread `n` is one of `threads`: "all", or numbers with commas. */
static int thread_selected(const char *threads, uint32_t n)
{
    const char *p = threads;
    if (strcmp(threads, "all") == 0)
        return 1;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            return 0;
        if (v == n)
            return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* The directory and file name of `prefix` into dir[size] and *base. */
static int split_prefix(const char *prefix, char *dir, size_t size, const char **base)
{
    const char *slash = strrchr(prefix, '/');
    size_t n = slash ? (size_t)(slash - prefix) : 0;

    *base = slash ? slash + 1 : prefix;
    if (n + 2 > size)
        return error_set(TEA_ERR_USAGE, "%s: path too long", prefix);
    if (!slash)
        strcpy(dir, ".");
    else if (n == 0)
        strcpy(dir, "/");
    else {
        memcpy(dir, prefix, n);
        dir[n] = '\0';
    }
    return TEA_OK;
}

static int by_serial(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The threads N whose vectors PREFIX.N exist, ascending, into *out
 * (malloc'd; *count 0 and NULL when none). */
static int thread_files(const char *prefix, uint32_t **out, size_t *count)
{
    char dir[PATH_MAX];
    const char *base;
    size_t cap = 0, blen;
    struct dirent *e;
    DIR *d;
    int rc;

    *out = NULL;
    *count = 0;
    if ((rc = split_prefix(prefix, dir, sizeof dir, &base)))
        return rc;
    blen = strlen(base);
    if (!(d = opendir(dir)))
        return error_set(TEA_ERR_IO, "%s: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        const char *p = e->d_name + blen + 1;
        char *end;
        unsigned long n;
        if (strncmp(e->d_name, base, blen) != 0 || e->d_name[blen] != '.' || *p < '1' || *p > '9')
            continue;
        errno = 0;
        n = strtoul(p, &end, 10);
        if (*end || errno || n > UINT32_MAX)
            continue;
        if (*count == cap) {
            size_t grown_cap = cap ? 2 * cap : 16;
            uint32_t *grown = realloc(*out, grown_cap * sizeof *grown);
            if (!grown) {
                rc = error_set(TEA_ERR_NOMEM, "out of memory");
                break;
            }
            *out = grown;
            cap = grown_cap;
        }
        (*out)[(*count)++] = (uint32_t)n;
    }
    closedir(d);
    if (rc) {
        free(*out);
        *out = NULL;
        *count = 0;
        return rc;
    }
    if (*count)
        qsort(*out, *count, sizeof **out, by_serial);
    return TEA_OK;
}

/* Removes PREFIX.N for every N in `threads`. */
static void remove_thread_vectors(const char *prefix, const uint32_t *threads, size_t count)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < count; i++)
        if (snprintf(path, sizeof path, "%s.%u", prefix, (unsigned)threads[i]) < (int)sizeof path)
            unlink(path);
}

/* Thread `n`'s regions picked from PREFIX.N: appended to out->regions
 * with their thread, and its summary to out->threads. */
static int pick_thread(const record_pick_request *req, const char *prefix, uint32_t n, record_pick *out)
{
    char path[PATH_MAX];
    record_bbv bbv = { 0 };
    record_pick one;
    record_pick_thread *t = &out->threads[out->thread_count];
    record_simpoint *grown;
    int rc;

    if (snprintf(path, sizeof path, "%s.%u", prefix, (unsigned)n) >= (int)sizeof path)
        return error_set(TEA_ERR_USAGE, "%s: path too long", prefix);
    if ((rc = record_bbv_read(&bbv, path, req->pick.seed)))
        return rc;
    rc = record_pick_regions(&bbv, &req->pick, &one);
    if (!rc && !(grown = realloc(out->regions.regions, (out->regions.count + one.regions.count) * sizeof *grown)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    if (!rc) {
        out->regions.regions = grown;
        for (size_t i = 0; i < one.regions.count; i++) {
            grown[out->regions.count + i] = one.regions.regions[i];
            grown[out->regions.count + i].thread = n;
        }
        out->regions.count += one.regions.count;
        *t = (record_pick_thread){ n, one.k, one.tried, bbv.intervals, bbv.instructions };
        out->thread_count++;
        out->intervals += bbv.intervals;
        out->instructions += bbv.instructions;
    }
    if (!rc)
        record_pick_free(&one);
    record_bbv_free(&bbv);
    return rc;
}

/* record_pick_program for req->threads: each selected thread's vectors
 * (PREFIX.N, from the tool's --bbv-out run or req->bbv_in) picked on
 * their own. */
static int pick_threads(const record_pick_request *req, record_pick *out, int *exit_status)
{
    char temp[PATH_MAX] = "", prefix[PATH_MAX + sizeof "/bbv"];
    const char *tmpdir = getenv("TMPDIR");
    uint32_t *threads = NULL;
    size_t count = 0;
    int rc = TEA_OK, handle = -1;

    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    if (req->bbv_in || req->bbv_out) {
        const char *given = req->bbv_in ? req->bbv_in : req->bbv_out;
        if (snprintf(prefix, sizeof prefix, "%s", given) >= (int)sizeof prefix)
            return error_set(TEA_ERR_USAGE, "%s: path too long", given);
    } else if (snprintf(temp, sizeof temp, "%s/tea-simpoint-XXXXXX", tmpdir) >= (int)sizeof temp) {
        return error_set(TEA_ERR_USAGE, "TMPDIR is too long");
    } else if (!mkdtemp(temp)) {
        return error_set(TEA_ERR_IO, "cannot create a temporary directory in %s: %s", tmpdir, strerror(errno));
    } else {
        handle = cleanup_add_dir(temp);
        snprintf(prefix, sizeof prefix, "%s/bbv", temp);
    }
    if (!req->bbv_in) {
        /* a kept run's vectors are no sign of this one's */
        if (req->bbv_out && !(rc = thread_files(prefix, &threads, &count)))
            remove_thread_vectors(prefix, threads, count);
        free(threads);
        threads = NULL;
        if (!rc)
            rc = record_bbv_run_threads(req->tool_dir, req->valgrind, req->interval, prefix, req->argv, exit_status);
    }
    if (!rc)
        rc = thread_files(prefix, &threads, &count);
    if (!rc && !count)
        rc = error_set(TEA_ERR_FORMAT, "no thread's vectors %s.N", prefix);
    if (!rc && !(out->threads = calloc(count, sizeof *out->threads)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < count; i++)
        if (thread_selected(req->threads, threads[i]))
            rc = pick_thread(req, prefix, threads[i], out);
    if (!rc && !out->thread_count)
        rc = error_set(TEA_ERR_USAGE, "none of the threads %s ran an instruction (the program ran %zu)", req->threads,
                       count);
    if (!rc) {
        out->regions.interval = req->interval;
        rc = record_simpoint_write(&out->regions, req->simpoints_path, req->weights_path);
    }
    if (*temp) { /* every vectors file the run left, even after a failure */
        uint32_t *left = NULL;
        size_t n = 0;
        char *message = rc ? strdup(error_message()) : NULL; /* listing again may set another */
        if (thread_files(prefix, &left, &n) == TEA_OK)
            remove_thread_vectors(prefix, left, n);
        if (message)
            error_set(rc, "%s", message);
        free(message);
        free(left);
        rmdir(temp);
        cleanup_forget(handle);
    }
    free(threads);
    return rc;
}

int record_pick_program(const record_pick_request *req, record_pick *out, int *exit_status)
{
    char temp[PATH_MAX] = "";
    const char *bb_path = req->bbv_in ? req->bbv_in : req->bbv_out;
    record_bbv bbv = { 0 };
    int rc = TEA_OK, handle = -1, made = 0;

    memset(out, 0, sizeof *out);
    *exit_status = 0;
    if (!req->argv && !req->bbv_in)
        return error_set(TEA_ERR_USAGE, "tea simpoint needs a program or exp-bbv's file");
    if (req->threads) {
        if ((rc = pick_threads(req, out, exit_status)))
            record_pick_free(out);
        return rc;
    }
    if (!bb_path && !(rc = temp_bbv_path(temp, sizeof temp, &handle))) {
        bb_path = temp;
        made = 1;
    }
    if (!rc && !req->bbv_in) {
        if (!made)
            unlink(bb_path); /* a kept file of an earlier run is no sign of this one's vectors */
        rc = record_bbv_run(req->valgrind, req->interval, bb_path, req->argv, exit_status);
    }
    if (!rc && (rc = record_bbv_read(&bbv, bb_path, req->pick.seed)) == TEA_ERR_FORMAT && other_threads(bb_path))
        rc = error_prefix(rc, "the recorded thread (Valgrind's thread 1, as tea record --simpoints times it) ran "
                              "no whole interval; exp-bbv wrote the other threads' vectors to %s.N (--keep-bbv FILE keeps them): ", bb_path);
    if (!rc)
        rc = check_interval(&bbv, req->interval, bb_path);
    if (!rc)
        rc = record_pick_regions(&bbv, &req->pick, out);
    if (!rc) {
        out->intervals = bbv.intervals;
        out->instructions = bbv.instructions;
        out->regions.interval = req->interval;
        rc = record_simpoint_write(&out->regions, req->simpoints_path, req->weights_path);
    }
    if (made) {
        unlink(temp);
        remove_thread_files(temp);
        cleanup_forget(handle);
    }
    record_bbv_free(&bbv);
    if (rc)
        record_pick_free(out);
    return rc;
}

void record_pick_free(record_pick *p)
{
    record_simpoint_free(&p->regions);
    free(p->bic);
    free(p->threads);
    memset(p, 0, sizeof *p);
}
