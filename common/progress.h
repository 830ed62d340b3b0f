/*
 * progress.h: a progress line for long runs, on a terminal.
 *
 * A command starts a meter with what it counts ("cycles", "records",
 * "traces") and, when it knows it, the total; it reports the count done as
 * it goes (progress_update, cheap enough for every batch) and ends the meter,
 * which clears the line. On a known total the line shows the share done,
 * the count, the rate and the time left ("tea gen: 45.2% 90.4M of 200M
 * cycles, 3.05M cycles/s, 36 s left"); otherwise the count and the rate.
 *
 * Where the line goes: PROGRESS_AUTO draws on `out` only when it is a
 * terminal, PROGRESS_ON always (--progress), PROGRESS_OFF never (--quiet).
 * Nothing else of a command's output depends on the mode.
 *
 * Cost: progress_update compares the count with the next count at which the
 * clock is to be read; the step between readings adapts to the rate so that
 * the monotonic clock is read about PROGRESS_CHECKS_PER_DRAW times per
 * redraw, and the line is redrawn at most every PROGRESS_DRAW_NS. An
 * inactive meter costs one test per update.
 *
 * A meter is not thread-safe: one thread updates it (or the callers lock).
 *
 * A command whose work reports itself through a callback uses it the same
 * way: e.g. `tea record` can start a meter of "instructions" (total: its
 * --max-instructions, else 0) and call progress_update with the model's
 * instruction count from model_core_set_progress's callback, with
 * CLI_OPTIONS_PROGRESS (tools/cli.h) for -q/--progress.
 */
#ifndef TEA_COMMON_PROGRESS_H
#define TEA_COMMON_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

/* Redraws at most 4 times a second. */
#define PROGRESS_DRAW_NS 250000000ull
/* Clock readings aimed at per redraw interval. */
#define PROGRESS_CHECKS_PER_DRAW 8u

/* Whether a meter draws. */
typedef enum progress_mode {
    PROGRESS_AUTO, /* when the stream is a terminal */
    PROGRESS_ON,   /* always (--progress) */
    PROGRESS_OFF   /* never (--quiet) */
} progress_mode;

/* A meter; the fields are the module's, read by the inline update. */
typedef struct progress_meter {
    FILE *out;            /* NULL: inactive, every call does nothing */
    const char *label;    /* "tea gen"; the caller's, alive until progress_end */
    const char *unit;     /* "cycles"; likewise */
    uint64_t total;       /* 0: unknown */
    uint64_t next_check;  /* the count at which the clock is read next */
    uint64_t step;        /* counts between clock readings */
    uint64_t start_ns;    /* monotonic clock at progress_start */
    uint64_t last_ns;     /* at the last reading */
    uint64_t last_done;   /* the count at the last reading */
    uint64_t drawn_ns;    /* at the last redraw (0: none yet) */
    int width;            /* characters of the line on screen, 0 when none */
} progress_meter;

/* Starts a meter on `out` (normally stderr) by `mode`: `label` begins the
 * line, `unit` names what is counted, `total` is the count at the end or 0
 * when unknown. Draws nothing yet. */
void progress_start(progress_meter *p, progress_mode mode, FILE *out, const char *label, const char *unit,
                     uint64_t total);

/* Whether the meter draws. */
static inline int progress_active(const progress_meter *p)
{
    return p && p->out != NULL;
}

/* Starts the count again from 0 towards `total` (0: unknown), e.g. once a
 * file's index is read, or when a run starts over another way. Safe on NULL
 * and on an inactive meter. */
void progress_restart(progress_meter *p, uint64_t total);

/* The slow half of progress_update: reads the clock, adapts the step and
 * redraws when the last redraw is old enough. */
void progress_check(progress_meter *p, uint64_t done);

/* Reports that `done` units are done so far (non-decreasing). */
static inline void progress_update(progress_meter *p, uint64_t done)
{
    if (p && p->out && done >= p->next_check)
        progress_check(p, done);
}

/* Clears the line, if one is drawn, before other output on the same
 * stream; the next update draws it again. */
void progress_hide(progress_meter *p);

/* Clears the line if one is drawn and makes the meter inactive. Safe on an
 * inactive or never-started (zeroed) meter. */
void progress_end(progress_meter *p);

/* Writes `value` with at most 3 significant digits and a k/M/G/T suffix
 * ("950", "1.23k", "45.6M") into buf. */
void progress_format_count(char *buf, size_t size, double value);

#endif
