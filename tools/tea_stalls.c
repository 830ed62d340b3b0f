/*
 * tea_stalls.c: `tea stalls`, how long µops hold up commit: the stall-length
 * distribution of µops without events against those with each event
 * (docs/topdown.md).
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outfile.h"
#include "golden/golden.h"
#include "golden/stalls.h"
#include "golden/topdown.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

/* Decimals of the text shares. */
#define TEXT_DECIMALS 1
/* Units of 100 % at TEXT_DECIMALS. */
#define TEXT_PERCENT_UNITS 1000u
/* Decimals of the mean. */
#define MEAN_DECIMALS 3


/* The percentiles reported, as fractions. */
static const struct {
    const char *name;
    uint64_t num, den;
} percentiles[] = {
    { "p50", 50, 100 },
    { "p90", 90, 100 },
    { "p99", 99, 100 },
    { "p99.9", 999, 1000 },
};
#define PERCENTILE_COUNT (sizeof percentiles / sizeof percentiles[0])

typedef struct request {
    const char *trace_path;
    const char *out_path;
    int csv;
    int histogram;              /* CSV: the histogram instead of the summary */
    uint64_t max_length;
    trace_open_options open;
} request;

#define STALLS_SYNOPSIS                                                                                 \
    "Usage: tea stalls TRACE [--format text|csv] [--max-length N] [--histogram] [-o OUT]\n\n"          \
    "The distribution of stall lengths: a µop's stall is the cycles the golden reference\n"           \
    "charges to it before it commits while nothing commits (its Stalled and Drained\n"                \
    "cycles; flush windows belong to the flush cause). Groups: µops without events (base),\n"         \
    "with any event, and with each event. Percentiles are nearest-rank and exact for\n"               \
    "stalls up to --max-length cycles; max and mean are always exact (docs/topdown.md).\n\n"          \
    "Options:\n"

/* Reads the trace once through the golden reference into `s`. */
static int analyse(const request *req, golden_stalls *s, golden_totals *totals, trace_header *header)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    golden g;
    golden_sink sink = golden_stalls_sink(s);
    int rc;

    if ((rc = trace_reader_open(&reader, req->trace_path, &req->open)))
        return rc;
    if ((rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    golden_init(&g, trace_reader_header(reader)->initial_window);
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        golden_feed(&g, &batch, &sink);
    }
    golden_finish(&g, &sink);
    *totals = *golden_get_totals(&g);
    rc = trace_header_copy(header, trace_reader_header(reader));
done:
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}

/* Formats a percentile of a group: the length, ">N" beyond the histogram,
 * or "" for an empty group. */
static char *format_percentile(const golden_stalls *s, int group, size_t p, char *buf, size_t size)
{
    uint64_t length;
    golden_stalls_percentile_kind kind;
    int r = golden_stalls_percentile(s, group, percentiles[p].num, percentiles[p].den, &length, &kind);
    if (r || kind == GOLDEN_STALLS_PERCENTILE_EMPTY)
        snprintf(buf, size, "%s", "");
    else if (kind == GOLDEN_STALLS_PERCENTILE_BEYOND)
        snprintf(buf, size, ">%llu", (unsigned long long)s->max_length);
    else
        snprintf(buf, size, "%llu", (unsigned long long)length);
    return buf;
}

/* Formats the mean stall of a group ("" when empty). */
static char *format_mean(const golden_stalls_group *g, char *buf, size_t size)
{
    if (!g->stalls)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%.*f", MEAN_DECIMALS, (double)g->cycles / (double)g->stalls);
    return buf;
}

static char *format_share(uint64_t share, char *buf, size_t size)
{
    snprintf(buf, size, "%llu.%llu", (unsigned long long)(share / 10), (unsigned long long)(share % 10));
    return buf;
}

/* The log2 buckets of the text histogram: [1], [2], [3,4], [5,8], ... up to
 * max_length, then the overflow. Fills counts[] (room for 66) and returns
 * the number of buckets up to the last non-empty one. */
static size_t log2_buckets(const golden_stalls *s, int group, uint64_t *counts, uint64_t *lows, uint64_t *highs)
{
    const golden_stalls_group *g = &s->groups[group];
    size_t n = 0;
    for (uint64_t lo = 1; lo <= s->max_length; n++) {
        uint64_t hi = lo == 1 ? 1 : 2 * lo - 2;
        if (hi > s->max_length)
            hi = s->max_length;
        lows[n] = lo;
        highs[n] = hi;
        counts[n] = 0;
        for (uint64_t len = lo; len <= hi; len++)
            counts[n] += g->histogram[len];
        lo = hi + 1;
    }
    lows[n] = s->max_length + 1;
    highs[n] = 0;
    counts[n] = g->overflow;
    return n + 1;
}

/* Buckets of the text histogram: log2 of the largest length, plus two. */
#define MAX_BUCKETS 70

static int print_text(FILE *f, const request *req, const golden_stalls *s, const golden_totals *t,
                      const trace_header *h)
{
    static const int shown[2] = { GOLDEN_STALLS_BASE, GOLDEN_STALLS_ANY_EVENT };
    uint64_t counts[2][MAX_BUCKETS], shares[2][MAX_BUCKETS], lows[MAX_BUCKETS], highs[MAX_BUCKETS];
    size_t buckets = 0, last = 0;
    char a[32], b[32], c[32], d[32];
    int rc;

    fprintf(f, "trace:    %s (%u-wide commit, %llu cycles)\n", req->trace_path, h->commit_width,
            (unsigned long long)(t->last_cycle - t->origin));
    fprintf(f, "stalls:   %llu stalled + %llu drained cycles, %llu of them after the last commit (no µop)\n\n",
            (unsigned long long)t->states[GOLDEN_STALLED], (unsigned long long)t->states[GOLDEN_DRAINED],
            (unsigned long long)t->unattributed);
    /* "µops" is one byte longer than it is wide. */
    fprintf(f, "%-10s %13s %12s %7s %12s %7s %7s %7s %7s %9s %10s\n", "group", "µops", "stalls", "stalled",
            "cycles", "p50", "p90", "p99", "p99.9", "max", "mean");
    for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++) {
        const golden_stalls_group *g = &s->groups[grp];
        uint64_t frac[2] = { g->stalls, g->uops - g->stalls }, sh[2];
        if ((rc = golden_topdown_apportion(frac, 2, TEXT_PERCENT_UNITS, sh)))
            return rc;
        fprintf(f, "%-10s %12llu %12llu %6s%% %12llu", golden_stalls_group_name(grp), (unsigned long long)g->uops,
                (unsigned long long)g->stalls, format_share(sh[0], a, sizeof a), (unsigned long long)g->cycles);
        /* A group without stalls has no percentiles: "-". */
        for (size_t p = 0; p < PERCENTILE_COUNT; p++)
            fprintf(f, " %7s", g->stalls ? format_percentile(s, grp, p, a, sizeof a) : "-");
        snprintf(b, sizeof b, "%llu", (unsigned long long)g->longest);
        fprintf(f, " %9s %10s\n", g->stalls ? b : "-", g->stalls ? format_mean(g, c, sizeof c) : "-");
    }
    for (int k = 0; k < 2; k++) {
        buckets = log2_buckets(s, shown[k], counts[k], lows, highs);
        if ((rc = golden_topdown_apportion(counts[k], buckets, TEXT_PERCENT_UNITS, shares[k])))
            return rc;
        for (size_t i = 0; i < buckets; i++)
            if (counts[k][i] && i + 1 > last)
                last = i + 1;
    }
    if (!last)
        return TEA_OK;
    fprintf(f, "\nstall lengths (cycles)     %12s %7s %7s   %12s %7s %7s\n", "base", "share", "cumul", "any-event",
            "share", "cumul");
    {
        uint64_t cumulative[2] = { 0, 0 };
        for (size_t i = 0; i < last; i++) {
            char range[48];
            if (i + 1 == buckets)
                snprintf(range, sizeof range, "> %llu", (unsigned long long)s->max_length);
            else if (lows[i] == highs[i])
                snprintf(range, sizeof range, "%llu", (unsigned long long)lows[i]);
            else
                snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)lows[i], (unsigned long long)highs[i]);
            cumulative[0] += shares[0][i];
            cumulative[1] += shares[1][i];
            fprintf(f, "  %-24s %12llu %6s%% %6s%%   %12llu %6s%% %6s%%\n", range, (unsigned long long)counts[0][i],
                    format_share(shares[0][i], a, sizeof a), format_share(cumulative[0], b, sizeof b),
                    (unsigned long long)counts[1][i], format_share(shares[1][i], c, sizeof c),
                    format_share(cumulative[1], d, sizeof d));
        }
    }
    return TEA_OK;
}

static void print_csv_summary(FILE *f, const golden_stalls *s)
{
    char a[32];
    fprintf(f, "group,uops,stalls,cycles");
    for (size_t p = 0; p < PERCENTILE_COUNT; p++)
        fprintf(f, ",%s", percentiles[p].name);
    fprintf(f, ",max,mean\n");
    for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++) {
        const golden_stalls_group *g = &s->groups[grp];
        fprintf(f, "%s,%llu,%llu,%llu", golden_stalls_group_name(grp), (unsigned long long)g->uops,
                (unsigned long long)g->stalls, (unsigned long long)g->cycles);
        for (size_t p = 0; p < PERCENTILE_COUNT; p++)
            fprintf(f, ",%s", format_percentile(s, grp, p, a, sizeof a));
        if (g->stalls)
            fprintf(f, ",%llu", (unsigned long long)g->longest);
        else
            fprintf(f, ",");
        fprintf(f, ",%s\n", format_mean(g, a, sizeof a));
    }
}

/* The histogram: one row per length that some group has, then the stalls
 * beyond the histogram. */
static void print_csv_histogram(FILE *f, const golden_stalls *s)
{
    fprintf(f, "length");
    for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++)
        fprintf(f, ",%s", golden_stalls_group_name(grp));
    fprintf(f, "\n");
    for (uint64_t len = 1; len <= s->max_length; len++) {
        int any = 0;
        for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++)
            any |= s->groups[grp].histogram[len] != 0;
        if (!any)
            continue;
        fprintf(f, "%llu", (unsigned long long)len);
        for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++)
            fprintf(f, ",%llu", (unsigned long long)s->groups[grp].histogram[len]);
        fprintf(f, "\n");
    }
    fprintf(f, ">%llu", (unsigned long long)s->max_length);
    for (int grp = 0; grp < GOLDEN_STALLS_GROUP_COUNT; grp++)
        fprintf(f, ",%llu", (unsigned long long)s->groups[grp].overflow);
    fprintf(f, "\n");
}

/* --max-length N into the uint64_t at opt->dest. */
static int max_length_option(const char *command, const cli_option *opt, const char *arg)
{
    uint64_t v;
    if (cli_parse_u64(arg, &v) || v < 1 || v > GOLDEN_STALLS_MAX_MAX_LENGTH)
        return cli_usage_error(command, "--max-length needs a length of 1 to %u cycles, not '%s'",
                               GOLDEN_STALLS_MAX_MAX_LENGTH, arg);
    *(uint64_t *)opt->dest = v;
    return CLI_CONTINUE;
}

/* Parses the command line into req. Returns CLI_CONTINUE, or the exit status
 * when the command ends here (--help, usage errors). */
static int parse_args(int argc, char **argv, request *req)
{
    static const char *const formats[] = { "text", "csv", NULL };
    char max_length_help[96];
    int rc, format_given = 0;
    const cli_option options[] = {
        { .long_name = "format", .arg = CLI_ARG_REQUIRED, .value_name = "FORMAT",
          .help = "text (default; csv with --histogram) or csv", .type = CLI_TYPE_ENUM, .dest = &req->csv,
          .size = sizeof req->csv, .names = formats, .error = "unknown format '%s' (text or csv)",
          .seen = &format_given },
        CLI_CALL("max-length", 0, "N", max_length_option, &req->max_length, max_length_help),
        CLI_FLAG("histogram", 0, &req->histogram, "the whole histogram as CSV (length,base,any-event,ST-L1,\n"
                                                  "...: one row per length) instead of the summary; a table\n"
                                                  "too long for text, so CSV is implied (the text summary\n"
                                                  "shows log2 buckets)"),
        CLI_OPTION_STDOUT_OUTPUT(&req->out_path),
        CLI_TRACE_OPTIONS(&req->open),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(STALLS_SYNOPSIS, NULL, 20, options);

    snprintf(max_length_help, sizeof max_length_help, "longest stall kept exactly in the histograms (default %u)",
             GOLDEN_STALLS_DEFAULT_MAX_LENGTH);
    memset(req, 0, sizeof *req);
    req->out_path = "-";
    req->max_length = GOLDEN_STALLS_DEFAULT_MAX_LENGTH;
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing TRACE" : "expected exactly one TRACE");
    if (req->histogram && !req->csv && format_given)
        return cli_usage_error(argv[0], "--histogram is CSV only (--format text shows the summary's log2 buckets)");
    if (req->histogram)
        req->csv = 1;
    req->trace_path = argv[optind];
    return CLI_CONTINUE;
}

int cmd_tea_stalls(int argc, char **argv)
{
    request req;
    golden_stalls s;
    golden_totals totals;
    trace_header header;
    outfile *out = NULL;
    int rc;

    if ((rc = parse_args(argc, argv, &req)) != CLI_CONTINUE)
        return rc;
    trace_header_init(&header);
    memset(&totals, 0, sizeof totals);
    if ((rc = golden_stalls_init(&s, req.max_length)))
        return cli_fail(argv[0], rc);
    if ((rc = analyse(&req, &s, &totals, &header)) || (rc = outfile_open(&out, req.out_path)))
        goto done;
    if (!req.csv)
        rc = print_text(outfile_stream(out), &req, &s, &totals, &header);
    else if (req.histogram)
        print_csv_histogram(outfile_stream(out), &s);
    else
        print_csv_summary(outfile_stream(out), &s);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    golden_stalls_free(&s);
    trace_header_free(&header);
    return rc ? cli_fail(argv[0], rc) : CLI_EXIT_OK;
}
