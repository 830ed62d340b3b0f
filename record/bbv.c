/*
 * bbv.c: basic-block vectors from Valgrind's exp-bbv (see bbv.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bbv.h"
#include "session.h"
#include "simpoint.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/rng.h"
#include "common/textline.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The stream of rng_hash64 that draws the projection. */
#define PROJECTION_STREAM 0x5350 /* "SP" */

/* The exit status valgrind (and a child that could not exec it) gives when
 * a program cannot be run. */
#define EXIT_CANNOT_RUN 127

/* Longest line: an interval may touch many blocks. */
#define BBV_LINE_MAX (64u << 20)

/* Block `id`'s direction in dimension `dim`: uniform in [-1, 1). */
static double direction(uint64_t seed, uint64_t id, unsigned dim)
{
    uint64_t bits = rng_hash64(seed, PROJECTION_STREAM, id * RECORD_BBV_DIMS + dim) >> 11;
    return (double)bits / (double)(1ull << 52) - 1.0;
}

/* Projects one line "T:ID:COUNT :ID:COUNT ..." into point[]: the counts
 * summed into *total, the projection divided by it. 0 or -1 (malformed). */
static int project_line(const char *line, uint64_t seed, double *point, uint64_t *total)
{
    const char *p = line + 1; /* past the 'T' */
    uint64_t sum = 0;

    memset(point, 0, RECORD_BBV_DIMS * sizeof *point);
    for (;;) {
        uint64_t id, count;
        p = record_skip_blanks(p);
        if (*p == '\0')
            break;
        if (*p++ != ':' || record_parse_u64(&p, &id) || *p++ != ':' || record_parse_u64(&p, &count) || count == 0
            || sum + count < sum)
            return -1;
        sum += count;
        for (unsigned d = 0; d < RECORD_BBV_DIMS; d++)
            point[d] += (double)count * direction(seed, id, d);
    }
    if (sum == 0)
        return -1;
    for (unsigned d = 0; d < RECORD_BBV_DIMS; d++)
        point[d] /= (double)sum;
    *total = sum;
    return 0;
}

/* Makes room for one more interval in out->points. */
static int grow(record_bbv *out, size_t *room)
{
    size_t want = *room ? 2 * *room : 256;
    double *grown;
    if (want > RECORD_BBV_INTERVALS_MAX)
        want = RECORD_BBV_INTERVALS_MAX;
    grown = realloc(out->points, want * RECORD_BBV_DIMS * sizeof *grown);
    if (!grown)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    out->points = grown;
    *room = want;
    return TEA_OK;
}

/* The message for a textline_read failure at `line_no` of `path`. */
static int line_error(int r, const char *path, size_t line_no)
{
    if (r == TEXTLINE_NOMEM)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (r == TEXTLINE_IO)
        return error_set(TEA_ERR_IO, "%s: %s", path, strerror(errno));
    return error_set(TEA_ERR_FORMAT, "%s, line %zu: %s", path, line_no,
                     r == TEXTLINE_NUL ? "a NUL byte (not exp-bbv's text)" : "a line too long");
}

int record_bbv_read(record_bbv *out, const char *path, uint64_t seed)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0, len, line_no = 0, room = 0;
    int rc = TEA_OK, r;

    memset(out, 0, sizeof *out);
    if (!f)
        return error_set(TEA_ERR_IO, "%s: %s", path, strerror(errno));
    while ((r = textline_read(f, &text, &cap, BBV_LINE_MAX, &len)) == TEXTLINE_OK) {
        uint64_t total;
        line_no++;
        if (text[0] != 'T')
            continue;
        if (out->intervals == RECORD_BBV_INTERVALS_MAX) {
            rc = error_set(TEA_ERR_FORMAT, "%s, line %zu: more than %d intervals (take a longer interval)", path,
                           line_no, RECORD_BBV_INTERVALS_MAX);
            break;
        }
        if (out->intervals == room && (rc = grow(out, &room)))
            break;
        assert(out->intervals < room); /* a free row */
        if (project_line(text, seed, out->points + out->intervals * RECORD_BBV_DIMS, &total)
            || out->instructions + total < out->instructions) {
            rc = error_set(TEA_ERR_FORMAT, "%s, line %zu: expected \"T:ID:COUNT :ID:COUNT ...\" with counts of 1 or more",
                           path, line_no);
            break;
        }
        out->instructions += total;
        out->intervals++;
    }
    if (!rc && r != TEXTLINE_EOF)
        rc = line_error(r, path, line_no + 1);
    free(text);
    fclose(f);
    if (!rc && out->intervals == 0)
        rc = error_set(TEA_ERR_FORMAT, "%s: no interval (no line \"T:ID:COUNT ...\")", path);
    if (rc)
        record_bbv_free(out);
    return rc;
}

/* How a vectors' run runs valgrind: the tool and its options. */
typedef struct bbv_tool {
    const char *name;          /* the tool's name (--tool=) */
    const char *interval_opt;  /* its option for the interval, before the number */
    const char *out_opt;       /* its option for the output, before the path */
    const char *lib;           /* VALGRIND_LIB (the tool's directory), or NULL */
} bbv_tool;

static const bbv_tool exp_bbv = { "exp-bbv", "--interval-size=", "--bb-out-file=", NULL };

/* The child's side of run_tool: execs valgrind. */
static void exec_valgrind(const char *valgrind, const bbv_tool *tool, uint64_t interval, const char *out,
                          char *const argv[])
{
    char interval_opt[64], tool_opt[64], *out_opt;
    size_t argc = 0, n = 0;
    char **args;

    while (argv[argc])
        argc++;
    out_opt = malloc(strlen(out) + strlen(tool->out_opt) + 1);
    args = calloc(argc + 8, sizeof *args); /* 7 options, the program and its arguments, a NULL */
    if (!out_opt || !args)
        _exit(EXIT_CANNOT_RUN);
    snprintf(tool_opt, sizeof tool_opt, "--tool=%s", tool->name);
    snprintf(interval_opt, sizeof interval_opt, "%s%llu", tool->interval_opt, (unsigned long long)interval);
    sprintf(out_opt, "%s%s", tool->out_opt, out);
    args[n++] = (char *)valgrind;
    args[n++] = "-q";
    args[n++] = "--vgdb=no"; /* no gdbserver, whose FIFOs a killed Valgrind leaves behind */
    args[n++] = tool_opt;
    args[n++] = interval_opt;
    args[n++] = out_opt;
    args[n++] = "--";
    assert(n == 7); /* the room calloc made before argv */
    memcpy(args + n, argv, argc * sizeof *args);
    if (tool->lib)
        setenv("VALGRIND_LIB", tool->lib, 1);
    execvp(valgrind, args);
    fprintf(stderr, "tea simpoint: cannot run %s: %s\n", valgrind, strerror(errno));
    _exit(EXIT_CANNOT_RUN);
}

/* Runs `argv` under valgrind's `tool`, its vectors to `out`, to the
 * program's end; its exit status into *exit_status. */
static int run_tool(const char *valgrind, const bbv_tool *tool, uint64_t interval, const char *out,
                    char *const argv[], int *exit_status)
{
    pid_t pid;
    int st, handle;

    if (!argv || !argv[0] || interval == 0)
        return error_set(TEA_ERR_USAGE, "record_bbv_run: no program or an interval of 0");
    fflush(NULL);
    if ((pid = fork()) < 0)
        return error_set(TEA_ERR_IO, "cannot start valgrind: %s", strerror(errno));
    if (pid == 0)
        exec_valgrind(valgrind, tool, interval, out, argv);
    handle = cleanup_add_child(pid);
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            cleanup_forget(handle);
            return error_set(TEA_ERR_IO, "waiting for valgrind: %s", strerror(errno));
        }
    }
    cleanup_forget(handle);
    if (WIFSIGNALED(st))
        return error_set(TEA_ERR_IO, "valgrind --tool=%s ended by signal %d (%s)", tool->name, WTERMSIG(st),
                         strsignal(WTERMSIG(st)));
    *exit_status = WEXITSTATUS(st);
    return TEA_OK;
}

int record_bbv_run(const char *valgrind, uint64_t interval, const char *bb_path, char *const argv[],
                   int *exit_status)
{
    struct stat sb;
    int rc;

    if (!valgrind)
        valgrind = "valgrind";
    if ((rc = run_tool(valgrind, &exp_bbv, interval, bb_path, argv, exit_status)))
        return rc;
    /* valgrind's own failures (no exp-bbv, a bad option) leave no vectors */
    if (stat(bb_path, &sb) != 0 || sb.st_size == 0) {
        if (*exit_status == EXIT_CANNOT_RUN)
            return error_set(TEA_ERR_USAGE, "cannot run %s under %s --tool=exp-bbv (see its message above)", argv[0],
                             valgrind);
        return error_set(TEA_ERR_IO, "%s --tool=exp-bbv wrote no vectors to %s (exit status %d; see its message "
                                     "above)", valgrind, bb_path, *exit_status);
    }
    return TEA_OK;
}

int record_bbv_run_threads(const char *tool_dir, const char *valgrind, uint64_t interval, const char *prefix,
                           char *const argv[], int *exit_status)
{
    bbv_tool tearec = { RECORD_SESSION_TOOL, "--bbv-interval=", "--bbv-out=", tool_dir };
    char tool[PATH_MAX], first[PATH_MAX], cwd[PATH_MAX], absolute[2 * PATH_MAX];
    struct stat sb;
    int rc;

    /* the tool opens a thread's file when its first interval ends, from
     * the program's working directory then: a relative PREFIX is made
     * absolute from ours */
    if (prefix[0] != '/') {
        if (!getcwd(cwd, sizeof cwd))
            return error_set(TEA_ERR_IO, "cannot read the working directory: %s", strerror(errno));
        snprintf(absolute, sizeof absolute, "%s/%s", cwd, prefix);
        prefix = absolute;
    }

    if (!valgrind)
        valgrind = "valgrind";
    if (!tool_dir || snprintf(tool, sizeof tool, "%s/%s", tool_dir, RECORD_SESSION_TOOL_FILE) >= (int)sizeof tool
        || access(tool, X_OK) != 0)
        return error_set(TEA_ERR_IO, "the Valgrind tool %s is not built or installed (%s)", RECORD_SESSION_TOOL_FILE,
                         tool_dir ? tool_dir : "no directory found");
    if (snprintf(first, sizeof first, "%s.1", prefix) >= (int)sizeof first)
        return error_set(TEA_ERR_USAGE, "%s: path too long", prefix);
    if ((rc = run_tool(valgrind, &tearec, interval, prefix, argv, exit_status)))
        return rc;
    if (stat(first, &sb) != 0 || sb.st_size == 0) {
        if (*exit_status == EXIT_CANNOT_RUN)
            return error_set(TEA_ERR_USAGE, "cannot run %s under %s --tool=%s (see its message above)", argv[0],
                             valgrind, RECORD_SESSION_TOOL);
        return error_set(TEA_ERR_IO, "%s --tool=%s wrote no vectors to %s (exit status %d; see its message above)",
                         valgrind, RECORD_SESSION_TOOL, first, *exit_status);
    }
    return TEA_OK;
}

void record_bbv_free(record_bbv *b)
{
    free(b->points);
    memset(b, 0, sizeof *b);
}
