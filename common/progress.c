/*
 * progress.c: a progress line for long runs (see progress.h).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fileno */
#include "progress.h"

#include <assert.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull
#define LINE_MAX_CHARS 160   /* a drawn line; what is drawn stays under 80 */
#define COUNT_CHARS 16       /* one formatted count */
#define SECONDS_PER_MINUTE 60
#define MINUTES_SHOWN_AS_SECONDS 2  /* "95 s" up to two minutes, "3 min" beyond */
#define PERCENT 100.0

/* The monotonic clock in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

void progress_start(progress_meter *p, progress_mode mode, FILE *out, const char *label, const char *unit,
                     uint64_t total)
{
    memset(p, 0, sizeof *p);
    if (mode == PROGRESS_OFF || !out || (mode == PROGRESS_AUTO && !isatty(fileno(out))))
        return;
    p->out = out;
    p->label = label;
    p->unit = unit;
    p->total = total;
    p->step = 1;
    p->next_check = 1;
    p->start_ns = p->last_ns = now_ns();
}

void progress_restart(progress_meter *p, uint64_t total)
{
    if (!p || !p->out)
        return;
    p->total = total;
    p->step = 1;
    p->next_check = 1;
    p->last_done = 0;
    p->start_ns = p->last_ns = now_ns();
}

void progress_format_count(char *buf, size_t size, double value)
{
    static const char suffixes[] = " kMGTPE";
    size_t s = 0;
    while (value >= 999.5 && s + 1 < sizeof suffixes - 1) {
        value /= 1000.0;
        s++;
    }
    if (s == 0)
        snprintf(buf, size, "%.0f", value);
    else
        snprintf(buf, size, "%.*f%c", value < 9.995 ? 2 : value < 99.95 ? 1 : 0, value, suffixes[s]);
}

/* Writes "36 s" or "3 min" for a duration in seconds. */
static void format_duration(char *buf, size_t size, double seconds)
{
    if (seconds < (double)(SECONDS_PER_MINUTE * MINUTES_SHOWN_AS_SECONDS))
        snprintf(buf, size, "%.0f s", seconds);
    else
        snprintf(buf, size, "%.0f min", seconds / SECONDS_PER_MINUTE);
}

/* Draws the line for `done` at time `t`, over the previous one. */
static void draw(progress_meter *p, uint64_t done, uint64_t t)
{
    char line[LINE_MAX_CHARS], count[COUNT_CHARS], total[COUNT_CHARS], rate[COUNT_CHARS], left[COUNT_CHARS];
    double seconds = (double)(t - p->start_ns) / (double)NS_PER_S;
    double per_second = seconds > 0 ? (double)done / seconds : 0.0;
    int n;

    progress_format_count(count, sizeof count, (double)done);
    progress_format_count(rate, sizeof rate, per_second);
    if (p->total && done <= p->total) {
        progress_format_count(total, sizeof total, (double)p->total);
        if (per_second > 0)
            format_duration(left, sizeof left, (double)(p->total - done) / per_second);
        else
            snprintf(left, sizeof left, "?");
        n = snprintf(line, sizeof line, "%s: %5.1f%% %s of %s %s, %s %s/s, %s left", p->label,
                     PERCENT * (double)done / (double)p->total, count, total, p->unit, rate, p->unit, left);
    } else {
        n = snprintf(line, sizeof line, "%s: %s %s, %s %s/s", p->label, count, p->unit, rate, p->unit);
    }
    if (n < 0)
        return;
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    /* Spaces over what is left of a longer previous line. */
    fprintf(p->out, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
    fflush(p->out);
    p->width = n;
    p->drawn_ns = t;
}

void progress_check(progress_meter *p, uint64_t done)
{
    uint64_t t = now_ns();
    uint64_t dt = t - p->last_ns, du = done - p->last_done;

    assert(p->out && done >= p->last_done);
    /* The next reading after about 1/PROGRESS_CHECKS_PER_DRAW of a redraw
     * interval at the rate since the last reading. */
    if (dt > 0 && du > 0) {
        double per_interval = (double)du * (double)PROGRESS_DRAW_NS / (double)dt / PROGRESS_CHECKS_PER_DRAW;
        p->step = per_interval < 1.0 ? 1 : per_interval > (double)(UINT64_MAX >> 1) ? UINT64_MAX >> 1
                                                                                      : (uint64_t)per_interval;
    }
    p->last_ns = t;
    p->last_done = done;
    p->next_check = done > UINT64_MAX - p->step ? UINT64_MAX : done + p->step;
    if (!p->drawn_ns || t - p->drawn_ns >= PROGRESS_DRAW_NS)
        draw(p, done, t);
}

void progress_hide(progress_meter *p)
{
    if (!p || !p->out || !p->width)
        return;
    fprintf(p->out, "\r%*s\r", p->width, "");
    fflush(p->out);
    p->width = 0;
    p->drawn_ns = 0;
    p->next_check = p->last_done; /* the next update redraws */
}

void progress_end(progress_meter *p)
{
    progress_hide(p);
    if (p)
        p->out = NULL;
}
