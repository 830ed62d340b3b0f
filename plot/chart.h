/*
 * chart.h: the project's charts as SVG (see svg.h): stacked bars, grouped
 * bars and line charts, plus the axis arithmetic they share.
 *
 * Three kinds, each described by a plain struct of counts, labels, colours
 * and values that the caller owns (nothing is copied or kept). Charts know
 * nothing of what they draw: every label and colour comes from the caller.
 *
 *  - plot_chart_stacked_bars: groups (e.g. the top-N instructions) x bars (e.g.
 *    one per PICS file: golden, TEA, IBS) x stacked segments (components),
 *    labelled per group and per bar, with a legend of the segments;
 *    `pics plot`.
 *  - plot_chart_grouped_bars: groups (e.g. benchmarks) x series (e.g. schemes),
 *    side by side, optionally with whiskers (min-max or +-sd), with a legend
 *    of the series; `pics table --svg`, error per benchmark.
 *  - plot_chart_lines: one line per series through points with a spread (error
 *    bars), on a linear or logarithmic x axis (decades with 1-2-5 ticks);
 *    `tea sweep --svg`, error against the sampling frequency.
 *
 * Y axes start at zero and end at a "nice" tick (steps of 1, 2 or 5 x 10^k).
 * Output is deterministic: the same struct gives byte-identical SVG. Every
 * element a test may want to count carries a class: "group" (one <g> per
 * group), "bar" (one <g> per bar, inside its group, even when the bar is
 * empty), "segment" (one <rect> per non-zero segment), "series" (one <g> per
 * line), "point" (one <circle> per point), "errorbar", "legend".
 *
 * Errors: TEA_ERR_USAGE (message set) for a description that cannot be
 * drawn: no groups, bars or series, a NULL array, a negative or non-finite
 * value, a non-positive x on a logarithmic axis, more than
 * PLOT_CHART_LOG_MAX_DECADES decades. Nothing is written then.
 */
#ifndef TEA_PLOT_CHART_H
#define TEA_PLOT_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "#rrggbb" and its NUL. */
#define PLOT_CHART_COLOR_MAX 8
/* Most ticks a linear axis can have (plot_chart_nice_ticks keeps far below). */
#define PLOT_CHART_MAX_TICKS 64
/* Widest logarithmic axis, in decades. */
#define PLOT_CHART_LOG_MAX_DECADES 12
#define PLOT_CHART_LOG_MAX_TICKS (3 * PLOT_CHART_LOG_MAX_DECADES + 1)

/* How values and tick labels are written. */
typedef enum plot_chart_number_format {
    PLOT_CHART_NUMBER_PLAIN = 0, /* numbers; ticks of a large axis with k/M/G suffixes (cycles, counts) */
    PLOT_CHART_NUMBER_PERCENT    /* values are percentages already: "12.5%" */
} plot_chart_number_format;

/* A linear axis's ticks: first + i x step for i < count. */
typedef struct plot_chart_ticks {
    double first;    /* a multiple of step at or below the data's low end */
    double step;     /* 1, 2 or 5 x 10^k */
    size_t count;    /* at least 2; the last tick is at or above the data's high end */
    int decimals;    /* fraction digits that write every tick exactly (0 for steps >= 1) */
} plot_chart_ticks;

/* Ticks covering [low, high] in at most `target` intervals (2 or more; less
 * is taken as 2) with the smallest 1-2-5 step that allows it: e.g. 0..7.3
 * with 5 gives 0, 2, 4, 6, 8. An empty range (low == high) is widened to
 * [low, low + 1] (low + |low| for a non-zero low). Errors: TEA_ERR_USAGE for
 * non-finite bounds or low > high. */
int plot_chart_nice_ticks(double low, double high, unsigned target, plot_chart_ticks *t);

/* The i-th tick's value, computed as an integer multiple of the step. */
double plot_chart_tick_value(const plot_chart_ticks *t, size_t i);

/* A logarithmic axis: from the power of ten at or below the data's low end
 * to the one at or above its high end, ticks at 1, 2 and 5 x 10^k. */
typedef struct plot_chart_log_ticks {
    double low, high;                       /* the axis's ends: powers of ten, low < high */
    size_t count;
    double values[PLOT_CHART_LOG_MAX_TICKS];       /* ascending */
    unsigned char major[PLOT_CHART_LOG_MAX_TICKS]; /* 1 where values[i] is a power of ten */
} plot_chart_log_ticks;

/* Log ticks for data in [low, high], 0 < low <= high: e.g. 100..8000 gives
 * the axis 100..10000 with ticks 100, 200, 500, 1k, 2k, 5k, 10k. Data within
 * one power of ten (low == high == 1000) gets the decade above it. Errors:
 * TEA_ERR_USAGE for non-positive or non-finite bounds, low > high, or more
 * than PLOT_CHART_LOG_MAX_DECADES decades. */
int plot_chart_log_ticks_compute(double low, double high, plot_chart_log_ticks *t);

/* A tick label: with PLOT_CHART_NUMBER_PERCENT, the value with the ticks'
 * decimals and "%" ("0.0%", "0.5%"); otherwise the value with a k, M or G
 * suffix chosen by the axis's largest tick (1e3, 1e6, 1e9) and just enough
 * decimals for the step, zero as "0" ("0", "0.5M", "1.0M", "1.5M"). */
void plot_chart_format_tick(double v, const plot_chart_ticks *t, plot_chart_number_format f, char *buf, size_t size);

/* A number with a k, M or G suffix chosen by its own size and at most two
 * decimals, trailing zeros dropped: 100, 2k, 1.5k, 8k, 1M, 0.25. */
void plot_chart_format_si(double v, char *buf, size_t size);

/* Writes the colour of (hue in degrees, saturation and lightness in
 * [0, 1]) as "#rrggbb", each channel rounded half up. Callers build their
 * fixed colours from it (e.g. one per PICS component). */
void plot_chart_hsl_color(double hue, double saturation, double lightness, char buf[PLOT_CHART_COLOR_MAX]);

/* The i-th colour of a fixed palette for series (wraps around). */
const char *plot_chart_series_color(size_t index);

/* Stacked bars: groups x bars x segments. */
typedef struct plot_chart_stacked_bars {
    const char *title;                  /* NULL: none */
    const char *y_label;                /* e.g. "cycles" or "% of cycles"; NULL: none */
    const char *value_unit;             /* appended to values in tooltips, e.g. "cycles"; NULL: none */
    plot_chart_number_format format;
    size_t groups, bars, segments;
    const char *const *group_labels;    /* [groups] */
    const char *const *bar_labels;      /* [bars]: the same bars in every group */
    const char *const *segment_labels;  /* [segments]: the legend, in this order */
    const char *const *segment_colors;  /* [segments] */
    const double *values;               /* [groups][bars][segments] row-major, finite, >= 0 */
} plot_chart_stacked_bars;

/* Writes the chart as an SVG document. 0 or TEA_ERR_USAGE. */
int plot_chart_write_stacked_bars(FILE *out, const plot_chart_stacked_bars *c);

/* Grouped bars: groups x series side by side. */
typedef struct plot_chart_grouped_bars {
    const char *title, *y_label, *value_unit; /* as in plot_chart_stacked_bars */
    plot_chart_number_format format;
    size_t groups, series;
    const char *const *group_labels;    /* [groups] */
    const char *const *series_labels;   /* [series]: the legend */
    const char *const *series_colors;   /* [series] */
    const double *values;               /* [groups][series], finite (negative values hang below
                                         * a zero line), or NaN: no bar there */
    const double *low, *high;           /* NULL, or [groups][series] whisker ends (NaN: none) */
    const char *missing_label;          /* NULL, or text written upright at the zero line where a
                                         * value is NaN (e.g. "n/a"), so that no value does not
                                         * look like a value of 0 (class "missing") */
} plot_chart_grouped_bars;

/* 0 or TEA_ERR_USAGE (also for a whisker end on the wrong side of its
 * value). The y axis runs from a nice tick at or below the smallest value
 * (or 0) to one at or above the largest. */
int plot_chart_write_grouped_bars(FILE *out, const plot_chart_grouped_bars *c);

/* One point of a line: a mean and its spread. */
typedef struct plot_chart_point {
    double x;           /* > 0 on a logarithmic axis */
    double y;           /* the mean, finite, >= 0 */
    double low, high;   /* the spread drawn as an error bar (min-max, +-sd); NaN: none */
} plot_chart_point;

typedef struct plot_chart_series {
    const char *label;
    const char *color;
    const plot_chart_point *points; /* in ascending x */
    size_t count;
} plot_chart_series;

typedef struct plot_chart_lines {
    const char *title, *x_label, *y_label, *value_unit; /* NULL: none */
    int x_log;                         /* logarithmic x axis */
    plot_chart_number_format y_format; /* x ticks are written with plot_chart_format_si */
    const plot_chart_series *series;
    size_t count;
} plot_chart_lines;

/* 0, TEA_ERR_USAGE, or TEA_ERR_NOMEM (the document may then be cut short). */
int plot_chart_write_lines(FILE *out, const plot_chart_lines *c);

/* Write a chart to `path` ("-": standard output) through a temporary file
 * renamed into place (common/outfile.h), so that a failure leaves no file.
 * Errors: those of the chart_write_* function, and of outfile_open and
 * outfile_commit (TEA_ERR_IO with a message). */
int plot_chart_save_stacked_bars(const char *path, const plot_chart_stacked_bars *c);
int plot_chart_save_grouped_bars(const char *path, const plot_chart_grouped_bars *c);
int plot_chart_save_lines(const char *path, const plot_chart_lines *c);

#endif
