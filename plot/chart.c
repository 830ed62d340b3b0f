/*
 * chart.c: stacked bars, grouped bars and line charts as SVG (see chart.h).
 *
 * Every chart is laid out from estimated text widths (a fixed fraction of
 * the font size per character), so that the layout depends on nothing but
 * the input. The three kinds share the axis drawing, the legend and the
 * title; the two bar charts share their whole frame.
 */
#include "chart.h"
#include "svg.h"
#include "common/error.h"
#include "common/outfile.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Layout, in SVG user units (pixels at 100%). */
#define FONT_SIZE 12.0          /* axis labels, legend */
#define SMALL_FONT_SIZE 10.0    /* tick labels, bar labels */
#define TITLE_FONT_SIZE 14.0
#define CHAR_WIDTH_EM 0.6       /* estimated character width / font size */
#define MARGIN 12.0             /* around everything */
#define TITLE_HEIGHT 26.0       /* the title's band above the plot */
#define TICK_LENGTH 4.0
#define LABEL_GAP 6.0           /* between an axis and its labels */
#define PLOT_HEIGHT 300.0
#define LINE_PLOT_WIDTH 560.0
#define MIN_BAR_PLOT_WIDTH LINE_PLOT_WIDTH /* bar charts of few groups spread their groups over this width */
#define BAR_WIDTH 16.0
#define BAR_GAP 2.0             /* between the bars of a group */
#define GROUP_GAP 18.0          /* between groups */
#define GROUP_LABEL_ANGLE 30.0  /* degrees group labels slant down to the left */
#define LEGEND_GAP 24.0         /* between the plot and the legend */
#define LEGEND_SWATCH 12.0
#define LEGEND_ROW 18.0
#define POINT_RADIUS 3.0
#define ERROR_CAP 4.0           /* half-width of an error bar's caps */
#define LINE_WIDTH 2.0
#define TOOLTIP_MAX 512
#define LABEL_MAX (PLOT_SVG_NUMBER_MAX * 2)
#define Y_TICK_TARGET 6         /* at most this many intervals on a y axis */
#define X_TICK_TARGET 8
#define LOG_LABEL_ALL_DECADES 4 /* up to this many decades every log tick is labelled */
#define PERCENT_SCALE 100.0
#define VALUE_DECIMALS 2        /* of values in tooltips */
#define TICK_EPSILON 1e-9       /* relative slack for floor/ceil of data / step */
#define MAX_DIGITS 9
#define MAX_EXACT_POWER 22      /* 10^22 is the largest power of ten a double holds exactly */
#define DEG_PER_RAD (180.0 / 3.14159265358979323846)

#define COLOR_AXIS "#333333"
#define COLOR_GRID "#e0e0e0"
#define COLOR_GRID_MINOR "#f0f0f0"
#define COLOR_TEXT "#222222"

/* --- numbers and ticks ------------------------------------------------------- */

/* 10^e, exact for |e| <= 22. */
static double power_of_ten(int e)
{
    double p = 1;
    int n = e < 0 ? -e : e;
    if (n > MAX_EXACT_POWER)
        return pow(10.0, e);
    for (int i = 0; i < n; i++)
        p *= 10;
    return e < 0 ? 1.0 / p : p;
}

/* m x 10^e with one rounding. */
static double scaled_power(double m, int e)
{
    return e < 0 ? m / power_of_ten(-e) : m * power_of_ten(e);
}

/* The largest e with 10^e <= v (v > 0, finite). */
static int floor_exponent(double v)
{
    int e = (int)floor(log10(v));
    while (power_of_ten(e) > v)
        e--;
    while (power_of_ten(e + 1) <= v)
        e++;
    return e;
}

int plot_chart_nice_ticks(double low, double high, unsigned target, plot_chart_ticks *t)
{
    static const double multiples[] = { 1, 2, 5 };
    double raw;

    memset(t, 0, sizeof *t);
    if (!isfinite(low) || !isfinite(high) || low > high)
        return error_set(TEA_ERR_USAGE, "chart: invalid axis range [%g, %g]", low, high);
    if (target < 2)
        target = 2;
    if (target > PLOT_CHART_MAX_TICKS - 1)
        target = PLOT_CHART_MAX_TICKS - 1;
    if (low == high)
        high = low == 0 ? 1 : low + fabs(low);
    raw = (high - low) / target;
    if (!isfinite(raw) || raw <= 0)
        return error_set(TEA_ERR_USAGE, "chart: axis range [%g, %g] cannot be divided into ticks", low, high);
    /* The smallest 1-2-5 step at least `raw` whose aligned ticks fit; the
     * alignment may need one step more than `raw`, so the search goes on
     * upwards (it ends: a step beyond the range gives one interval). */
    for (int e = floor_exponent(raw);; e++) {
        for (size_t i = 0; i < sizeof multiples / sizeof multiples[0]; i++) {
            double step = scaled_power(multiples[i], e);
            double lo = floor(low / step + TICK_EPSILON), hi = ceil(high / step - TICK_EPSILON);
            if (step < raw || hi - lo > target)
                continue;
            if (hi - lo < 1)
                hi = lo + 1;
            t->step = step;
            t->first = lo * step;
            t->count = (size_t)(hi - lo) + 1;
            t->decimals = e < 0 ? -e : 0;
            assert(t->count >= 2 && t->count <= PLOT_CHART_MAX_TICKS); /* 1 to `target` intervals */
            return TEA_OK;
        }
    }
}

double plot_chart_tick_value(const plot_chart_ticks *t, size_t i)
{
    return (round(t->first / t->step) + (double)i) * t->step;
}

int plot_chart_log_ticks_compute(double low, double high, plot_chart_log_ticks *t)
{
    static const double multiples[] = { 1, 2, 5 };
    int e_low, e_high;

    memset(t, 0, sizeof *t);
    if (!isfinite(low) || !isfinite(high) || low <= 0 || low > high)
        return error_set(TEA_ERR_USAGE, "chart: invalid logarithmic axis range [%g, %g] (must be positive)", low, high);
    e_low = floor_exponent(low);
    e_high = floor_exponent(high);
    if (power_of_ten(e_high) < high || e_high == e_low)
        e_high++;
    if (e_high - e_low > PLOT_CHART_LOG_MAX_DECADES)
        return error_set(TEA_ERR_USAGE, "chart: logarithmic axis [%g, %g] spans more than %d decades", low, high,
                         PLOT_CHART_LOG_MAX_DECADES);
    t->low = power_of_ten(e_low);
    t->high = power_of_ten(e_high);
    for (int e = e_low; e < e_high; e++) {
        for (size_t i = 0; i < sizeof multiples / sizeof multiples[0]; i++) {
            t->major[t->count] = i == 0;
            t->values[t->count++] = scaled_power(multiples[i], e);
        }
    }
    t->major[t->count] = 1;
    t->values[t->count++] = t->high;
    assert(t->count <= PLOT_CHART_LOG_MAX_TICKS); /* three per decade, and the top */
    return TEA_OK;
}

/* Fraction digits that write `v` exactly (up to MAX_DIGITS). */
static int digits_for(double v)
{
    int d = 0;
    v = fabs(v);
    while (d < MAX_DIGITS) {
        double scaled = v * power_of_ten(d);
        if (fabs(scaled - round(scaled)) <= TICK_EPSILON * (scaled > 1 ? scaled : 1))
            break;
        d++;
    }
    return d;
}

/* The divisor and suffix for numbers up to `magnitude`. */
static double si_scale(double magnitude, const char **suffix)
{
    static const struct {
        double scale;
        const char *suffix;
    } scales[] = { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        if (magnitude >= scales[i].scale) {
            *suffix = scales[i].suffix;
            return scales[i].scale;
        }
    }
    *suffix = "";
    return 1;
}

void plot_chart_format_tick(double v, const plot_chart_ticks *t, plot_chart_number_format f, char *buf, size_t size)
{
    char number[PLOT_SVG_NUMBER_MAX];
    const char *suffix;
    double top, scale;

    if (f == PLOT_CHART_NUMBER_PERCENT) {
        snprintf(buf, size, "%s%%", emit_fixed(v, t->decimals, number, sizeof number));
        return;
    }
    top = fmax(fabs(t->first), fabs(plot_chart_tick_value(t, t->count - 1)));
    scale = si_scale(top, &suffix);
    emit_fixed(v / scale, digits_for(t->step / scale), number, sizeof number);
    if (strspn(number, "0.") == strlen(number)) {
        snprintf(buf, size, "0"); /* zero needs neither decimals nor a unit */
        return;
    }
    snprintf(buf, size, "%s%s", number, suffix);
}

void plot_chart_format_si(double v, char *buf, size_t size)
{
    char number[PLOT_SVG_NUMBER_MAX];
    const char *suffix;
    double scale = si_scale(fabs(v), &suffix);
    snprintf(buf, size, "%s%s", plot_svg_format_number(v / scale, number, sizeof number), suffix);
}

/* --- colours ----------------------------------------------------------------- */

#define RGB_MAX 255.0
#define HUE_SECTOR 60.0
#define FULL_TURN 360.0

void plot_chart_hsl_color(double hue, double saturation, double lightness, char buf[PLOT_CHART_COLOR_MAX])
{
    double chroma = (1 - fabs(2 * lightness - 1)) * saturation;
    double h = fmod(hue, FULL_TURN) / HUE_SECTOR;
    double x = chroma * (1 - fabs(fmod(h, 2.0) - 1));
    double m = lightness - chroma / 2, rgb[3] = { 0, 0, 0 };

    switch ((int)h) {
    case 0: rgb[0] = chroma; rgb[1] = x; break;
    case 1: rgb[0] = x; rgb[1] = chroma; break;
    case 2: rgb[1] = chroma; rgb[2] = x; break;
    case 3: rgb[1] = x; rgb[2] = chroma; break;
    case 4: rgb[0] = x; rgb[2] = chroma; break;
    default: rgb[0] = chroma; rgb[2] = x; break;
    }
    snprintf(buf, PLOT_CHART_COLOR_MAX, "#%02x%02x%02x", (unsigned)floor((rgb[0] + m) * RGB_MAX + 0.5) & 0xFFu,
             (unsigned)floor((rgb[1] + m) * RGB_MAX + 0.5) & 0xFFu,
             (unsigned)floor((rgb[2] + m) * RGB_MAX + 0.5) & 0xFFu);
}

static const char *const series_palette[] = {
    "#2b6cb0", "#c0392b", "#2f9e44", "#e67e22", "#7b4fa0", "#8c6d31", "#d6409f", "#4a5568",
};

const char *plot_chart_series_color(size_t index)
{
    return series_palette[index % (sizeof series_palette / sizeof series_palette[0])];
}

/* --- shared drawing ---------------------------------------------------------- */

/* Estimated width of `text` at `font_size`: characters (UTF-8 code points)
 * times a fixed fraction of the size. */
static double text_width(const char *text, double font_size)
{
    size_t chars = 0;
    for (const unsigned char *s = (const unsigned char *)(text ? text : ""); *s; s++)
        chars += (*s & 0xC0) != 0x80;
    return (double)chars * font_size * CHAR_WIDTH_EM;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* The plot area and its y axis. */
typedef struct frame {
    double left, top, width, height; /* the plot area */
    plot_chart_ticks y;
    double y_low, y_high;            /* the y axis's ends (first and last tick) */
    double tick_width;               /* of the widest y tick label */
    plot_chart_number_format y_format;
} frame;

/* A y axis from a nice tick at or below min(0, min_value) to one at or
 * above max_value. */
static int frame_set_y(frame *f, double min_value, double max_value, plot_chart_number_format format)
{
    int rc = plot_chart_nice_ticks(fmin(0, min_value), max_value, Y_TICK_TARGET, &f->y);
    if (rc)
        return rc;
    f->y_low = plot_chart_tick_value(&f->y, 0);
    f->y_high = plot_chart_tick_value(&f->y, f->y.count - 1);
    f->y_format = format;
    assert(f->y_low < f->y_high); /* two ticks at least: frame_y divides by the span */
    return TEA_OK;
}

/* Room left of the plot for the y axis: tick labels and the axis label
 * (notes the tick labels' width in the frame). */
static double y_axis_room(frame *f, const char *y_label)
{
    char label[LABEL_MAX];
    f->tick_width = 0;
    for (size_t i = 0; i < f->y.count; i++) {
        plot_chart_format_tick(plot_chart_tick_value(&f->y, i), &f->y, f->y_format, label, sizeof label);
        f->tick_width = fmax(f->tick_width, text_width(label, SMALL_FONT_SIZE));
    }
    return MARGIN + (y_label ? FONT_SIZE + LABEL_GAP : 0) + f->tick_width + TICK_LENGTH + LABEL_GAP;
}

/* The y coordinate of value `v`, clamped to the plot. */
static double frame_y(const frame *f, double v)
{
    double share = (v - f->y_low) / (f->y_high - f->y_low), y;
    share = share < 0 ? 0 : share > 1 ? 1 : share;
    y = f->top + f->height * (1 - share);
    assert(y >= f->top && y <= f->top + f->height); /* within the plot area (and not NaN) */
    return y;
}

static void draw_title(plot_svg_writer *w, double width, const char *title)
{
    const plot_svg_style style = { .cls = "title", .fill = COLOR_TEXT };
    if (title)
        plot_svg_text(w, width / 2, MARGIN + TITLE_FONT_SIZE, PLOT_SVG_ANCHOR_MIDDLE, TITLE_FONT_SIZE, 0, &style,
                      title);
}

/* Grid lines, tick labels, the axis lines and the y axis's label. */
static void draw_y_axis(plot_svg_writer *w, const frame *f, const char *y_label)
{
    const plot_svg_style grid = { .cls = "grid", .stroke = COLOR_GRID, .stroke_width = 1 };
    const plot_svg_style axis = { .cls = "axis", .stroke = COLOR_AXIS, .stroke_width = 1 };
    const plot_svg_style text = { .cls = "tick", .fill = COLOR_TEXT };
    const plot_svg_style label_style = { .cls = "axis-label", .fill = COLOR_TEXT };
    char label[LABEL_MAX];

    plot_svg_group_begin(w, &(plot_svg_style){ .cls = "y-axis" }, NULL);
    for (size_t i = 0; i < f->y.count; i++) {
        double v = plot_chart_tick_value(&f->y, i), y = frame_y(f, v);
        if (i > 0)
            plot_svg_line(w, f->left, y, f->left + f->width, y, &grid);
        plot_svg_line(w, f->left - TICK_LENGTH, y, f->left, y, &axis);
        plot_chart_format_tick(v, &f->y, f->y_format, label, sizeof label);
        plot_svg_text(w, f->left - TICK_LENGTH - 2, y + SMALL_FONT_SIZE / 3, PLOT_SVG_ANCHOR_END, SMALL_FONT_SIZE, 0,
                      &text, label);
    }
    plot_svg_line(w, f->left, f->top, f->left, f->top + f->height, &axis);
    plot_svg_line(w, f->left, f->top + f->height, f->left + f->width, f->top + f->height, &axis);
    if (f->y_low < 0) /* bars grow up and down from zero */
        plot_svg_line(w, f->left, frame_y(f, 0), f->left + f->width, frame_y(f, 0), &axis);
    /* Rotated, the label's glyphs lie left of its baseline: the baseline
     * goes just left of the tick labels. */
    if (y_label)
        plot_svg_text(w, f->left - TICK_LENGTH - LABEL_GAP - f->tick_width - LABEL_GAP, f->top + f->height / 2,
                      PLOT_SVG_ANCHOR_MIDDLE, FONT_SIZE, -90, &label_style, y_label);
    plot_svg_group_end(w);
}

/* Width of a legend of these labels. */
static double legend_width(const char *const *labels, size_t n)
{
    double widest = 0;
    for (size_t i = 0; i < n; i++)
        widest = fmax(widest, text_width(labels[i], FONT_SIZE));
    return LEGEND_SWATCH + LABEL_GAP + widest + MARGIN;
}

/* A column of coloured swatches and labels from (x, y) down. */
static void draw_legend(plot_svg_writer *w, double x, double y, const char *const *labels, const char *const *colors,
                        size_t n)
{
    const plot_svg_style text = { .fill = COLOR_TEXT };
    plot_svg_group_begin(w, &(plot_svg_style){ .cls = "legend" }, NULL);
    for (size_t i = 0; i < n; i++) {
        double row = y + (double)i * LEGEND_ROW;
        plot_svg_rect(
            w, x, row, LEGEND_SWATCH, LEGEND_SWATCH,
            &(plot_svg_style){ .cls = "swatch", .fill = colors[i], .stroke = COLOR_AXIS, .stroke_width = 0.5 },
            or_empty(labels[i]));
        plot_svg_text(w, x + LEGEND_SWATCH + LABEL_GAP, row + LEGEND_SWATCH - 2, PLOT_SVG_ANCHOR_START, FONT_SIZE, 0,
                      &text, or_empty(labels[i]));
    }
    plot_svg_group_end(w);
}

/* A value with the chart's unit for tooltips: "1234.50 cycles", "12.34%". */
static void format_value(double v, plot_chart_number_format format, const char *unit, char *buf, size_t size)
{
    char number[PLOT_SVG_NUMBER_MAX];
    emit_fixed(v, VALUE_DECIMALS, number, sizeof number);
    if (format == PLOT_CHART_NUMBER_PERCENT)
        snprintf(buf, size, "%s%%", number);
    else
        snprintf(buf, size, "%s%s%s", number, unit ? " " : "", or_empty(unit));
}

/* Checks that an array the chart needs is there. */
static int need(const void *array, const char *what)
{
    if (!array)
        return error_set(TEA_ERR_USAGE, "chart: %s missing", what);
    return TEA_OK;
}

/* --- bar charts -------------------------------------------------------------- */

/* The layout both bar charts share: groups of bars on a y axis through 0. */
typedef struct bar_frame {
    frame plot;
    double group_width;       /* a group's bars and the gaps between them */
    double group_pitch;       /* from one group's slot to the next: its width and at least GROUP_GAP */
    double bar_labels_height; /* room under the axis for vertical bar labels (0: none) */
    double legend_x, width, height;
} bar_frame;

/* Lays out a bar chart with the given labels and largest value. */
static int bar_frame_layout(bar_frame *b, size_t groups, size_t bars, const char *const *group_labels,
                            const char *const *bar_labels, const char *const *legend_labels, size_t legend_count,
                            const char *title, const char *y_label, plot_chart_number_format format, double min_value,
                            double max_value)
{
    double widest_group = 0, widest_bar = 0, slant = GROUP_LABEL_ANGLE / DEG_PER_RAD, left, bottom;
    int rc;

    memset(b, 0, sizeof *b);
    assert(groups > 0 && bars > 0); /* the callers refuse empty charts */
    if ((rc = frame_set_y(&b->plot, min_value, max_value, format)))
        return rc;
    b->group_width = (double)bars * BAR_WIDTH + (double)(bars - 1) * BAR_GAP;
    for (size_t g = 0; g < groups; g++)
        widest_group = fmax(widest_group, text_width(group_labels[g], FONT_SIZE));
    for (size_t i = 0; bar_labels && i < bars; i++)
        widest_bar = fmax(widest_bar, text_width(bar_labels[i], SMALL_FONT_SIZE));
    b->bar_labels_height = bar_labels ? widest_bar + LABEL_GAP : 0;
    /* The first group's label slants left of its group's centre. */
    left = y_axis_room(&b->plot, y_label);
    b->group_pitch = fmax(b->group_width + GROUP_GAP, groups ? MIN_BAR_PLOT_WIDTH / (double)groups : 0);
    left = fmax(left, MARGIN + widest_group * cos(slant) - b->group_pitch / 2);
    b->plot.left = left;
    b->plot.top = MARGIN + (title ? TITLE_HEIGHT : 0);
    b->plot.width = (double)groups * b->group_pitch;
    b->plot.height = PLOT_HEIGHT;
    bottom = LABEL_GAP + b->bar_labels_height + widest_group * sin(slant) + FONT_SIZE + MARGIN;
    b->legend_x = left + b->plot.width + LEGEND_GAP;
    b->width = b->legend_x + legend_width(legend_labels, legend_count);
    b->height = fmax(b->plot.top + b->plot.height + bottom, b->plot.top + (double)legend_count * LEGEND_ROW + MARGIN);
    return TEA_OK;
}

/* The left edge of bar `bar` of group `group`: the groups' bars centred in
 * their slots. */
static double bar_x(const bar_frame *b, size_t group, size_t bar)
{
    return b->plot.left + (b->group_pitch - b->group_width) / 2 + (double)group * b->group_pitch
           + (double)bar * (BAR_WIDTH + BAR_GAP);
}

static void bar_frame_begin(plot_svg_writer *w, FILE *out, const bar_frame *b, const char *title, const char *y_label)
{
    plot_svg_begin(w, out, b->width, b->height, FONT_SIZE, title);
    draw_title(w, b->width, title);
    draw_y_axis(w, &b->plot, y_label);
}

/* A bar's label, vertical under it, reading upwards. */
static void draw_bar_label(plot_svg_writer *w, const bar_frame *b, size_t group, size_t bar, const char *label)
{
    const plot_svg_style style = { .cls = "bar-label", .fill = COLOR_TEXT };
    double x = bar_x(b, group, bar) + BAR_WIDTH / 2 + SMALL_FONT_SIZE / 3;
    plot_svg_text(w, x, b->plot.top + b->plot.height + LABEL_GAP, PLOT_SVG_ANCHOR_END, SMALL_FONT_SIZE, -90, &style,
                  or_empty(label));
}

/* A group's label, below its bars' labels, slanting down to the left. */
static void draw_group_label(plot_svg_writer *w, const bar_frame *b, size_t group, const char *label)
{
    const plot_svg_style style = { .cls = "group-label", .fill = COLOR_TEXT };
    double x = bar_x(b, group, 0) + b->group_width / 2;
    double y = b->plot.top + b->plot.height + LABEL_GAP + b->bar_labels_height + FONT_SIZE;
    plot_svg_text(w, x, y, PLOT_SVG_ANCHOR_END, FONT_SIZE, -GROUP_LABEL_ANGLE, &style, or_empty(label));
}

/* Checks a bar chart's value: finite and >= 0 (or NaN where allowed). */
static int check_value(double v, int nan_allowed, const char *what, size_t group, size_t bar)
{
    if ((nan_allowed && isnan(v)) || (isfinite(v) && v >= 0))
        return TEA_OK;
    return error_set(TEA_ERR_USAGE, "chart: %s of group %zu, bar %zu is %g (must be finite and >= 0)", what, group + 1,
                     bar + 1, v);
}

int plot_chart_write_stacked_bars(FILE *out, const plot_chart_stacked_bars *c)
{
    size_t S = c->segments, B = c->bars;
    double max_total = 0;
    bar_frame b;
    plot_svg_writer w;
    int rc;

    if (c->groups == 0 || B == 0 || S == 0)
        return error_set(TEA_ERR_USAGE, "chart: nothing to draw (%zu groups, %zu bars, %zu segments)", c->groups, B, S);
    if ((rc = need(c->group_labels, "group labels")) || (rc = need(c->bar_labels, "bar labels"))
        || (rc = need(c->segment_labels, "segment labels")) || (rc = need(c->segment_colors, "segment colours"))
        || (rc = need(c->values, "values")))
        return rc;
    for (size_t g = 0; g < c->groups; g++) {
        for (size_t i = 0; i < B; i++) {
            double total = 0;
            for (size_t s = 0; s < S; s++) {
                double v = c->values[(g * B + i) * S + s];
                if ((rc = check_value(v, 0, "a segment", g, i)))
                    return rc;
                total += v;
            }
            max_total = fmax(max_total, total);
        }
    }
    if ((rc = bar_frame_layout(&b, c->groups, B, c->group_labels, c->bar_labels, c->segment_labels, S, c->title,
                               c->y_label, c->format, 0, max_total)))
        return rc;

    bar_frame_begin(&w, out, &b, c->title, c->y_label);
    for (size_t g = 0; g < c->groups; g++) {
        plot_svg_group_begin(&w, &(plot_svg_style){ .cls = "group" }, or_empty(c->group_labels[g]));
        for (size_t i = 0; i < B; i++) {
            const double *v = &c->values[(g * B + i) * S];
            char tip[TOOLTIP_MAX], number[LABEL_MAX];
            double total = 0, cumulative = 0, x = bar_x(&b, g, i);

            for (size_t s = 0; s < S; s++)
                total += v[s];
            format_value(total, c->format, c->value_unit, number, sizeof number);
            snprintf(tip, sizeof tip, "%s, %s: %s", or_empty(c->group_labels[g]), or_empty(c->bar_labels[i]),
                     number);
            plot_svg_group_begin(&w, &(plot_svg_style){ .cls = "bar" }, tip);
            for (size_t s = 0; s < S; s++) {
                double y0, y1;
                if (v[s] <= 0)
                    continue;
                y0 = frame_y(&b.plot, cumulative);
                cumulative += v[s];
                y1 = frame_y(&b.plot, cumulative);
                assert(y1 <= y0); /* a segment grows upwards: no negative height */
                format_value(v[s], c->format, c->value_unit, number, sizeof number);
                snprintf(tip, sizeof tip, "%s, %s: %s %s (%.1f%% of the bar)", or_empty(c->group_labels[g]),
                         or_empty(c->bar_labels[i]), or_empty(c->segment_labels[s]), number,
                         PERCENT_SCALE * v[s] / total);
                plot_svg_rect(&w, x, y1, BAR_WIDTH, y0 - y1,
                              &(plot_svg_style){ .cls = "segment", .fill = c->segment_colors[s] }, tip);
            }
            assert(cumulative == total); /* the segments drawn make up the bar (zeros add nothing) */
            plot_svg_group_end(&w);
            draw_bar_label(&w, &b, g, i, c->bar_labels[i]);
        }
        draw_group_label(&w, &b, g, c->group_labels[g]);
        plot_svg_group_end(&w);
    }
    draw_legend(&w, b.legend_x, b.plot.top, c->segment_labels, c->segment_colors, S);
    plot_svg_end(&w);
    return TEA_OK;
}

/* A vertical error bar from `low` to `high` at x, with caps. */
static void draw_error_bar(plot_svg_writer *w, const frame *f, double x, double low, double high, const char *color)
{
    const plot_svg_style style = { .stroke = color, .stroke_width = 1 };
    double y_low = frame_y(f, low), y_high = frame_y(f, high);
    plot_svg_group_begin(w, &(plot_svg_style){ .cls = "errorbar" }, NULL);
    plot_svg_line(w, x, y_low, x, y_high, &style);
    plot_svg_line(w, x - ERROR_CAP, y_low, x + ERROR_CAP, y_low, &style);
    plot_svg_line(w, x - ERROR_CAP, y_high, x + ERROR_CAP, y_high, &style);
    plot_svg_group_end(w);
}

/* Checks a spread around value `v`: both ends NaN, or low <= v <= high. */
static int check_spread(double low, double high, double v, const char *where, size_t a, size_t b)
{
    if (isnan(low) && isnan(high))
        return TEA_OK;
    if (isfinite(low) && isfinite(high) && low <= v && v <= high)
        return TEA_OK;
    return error_set(TEA_ERR_USAGE, "chart: spread [%g, %g] of %s %zu, %zu does not enclose its value %g", low, high,
                     where, a + 1, b + 1, v);
}

int plot_chart_write_grouped_bars(FILE *out, const plot_chart_grouped_bars *c)
{
    size_t S = c->series;
    double min_value = 0, max_value = 0;
    bar_frame b;
    plot_svg_writer w;
    int rc;

    if (c->groups == 0 || S == 0)
        return error_set(TEA_ERR_USAGE, "chart: nothing to draw (%zu groups, %zu series)", c->groups, S);
    if ((rc = need(c->group_labels, "group labels")) || (rc = need(c->series_labels, "series labels"))
        || (rc = need(c->series_colors, "series colours")) || (rc = need(c->values, "values")))
        return rc;
    if (!c->low != !c->high)
        return error_set(TEA_ERR_USAGE, "chart: whiskers need both low and high ends");
    for (size_t g = 0; g < c->groups; g++) {
        for (size_t s = 0; s < S; s++) {
            double v = c->values[g * S + s];
            if (!isnan(v) && !isfinite(v))
                return error_set(TEA_ERR_USAGE, "chart: the value of group %zu, series %zu is %g", g + 1, s + 1, v);
            if (isnan(v))
                continue;
            min_value = fmin(min_value, v);
            max_value = fmax(max_value, v);
            if (!c->low)
                continue;
            if ((rc = check_spread(c->low[g * S + s], c->high[g * S + s], v, "group, series", g, s)))
                return rc;
            if (!isnan(c->low[g * S + s]))
                min_value = fmin(min_value, c->low[g * S + s]);
            if (!isnan(c->high[g * S + s]))
                max_value = fmax(max_value, c->high[g * S + s]);
        }
    }
    if ((rc = bar_frame_layout(&b, c->groups, S, c->group_labels, NULL, c->series_labels, S, c->title, c->y_label,
                               c->format, min_value, max_value)))
        return rc;

    bar_frame_begin(&w, out, &b, c->title, c->y_label);
    for (size_t g = 0; g < c->groups; g++) {
        plot_svg_group_begin(&w, &(plot_svg_style){ .cls = "group" }, or_empty(c->group_labels[g]));
        for (size_t s = 0; s < S; s++) {
            double v = c->values[g * S + s], x = bar_x(&b, g, s);
            char tip[TOOLTIP_MAX], number[LABEL_MAX];
            if (isnan(v)) {
                snprintf(tip, sizeof tip, "%s, %s: no value", or_empty(c->group_labels[g]),
                         or_empty(c->series_labels[s]));
                plot_svg_group_begin(&w, &(plot_svg_style){ .cls = "bar" }, tip);
                if (c->missing_label) /* upright, reading from the zero line upwards */
                    plot_svg_text(&w, x + BAR_WIDTH / 2 + SMALL_FONT_SIZE / 3, frame_y(&b.plot, 0) - LABEL_GAP,
                                  PLOT_SVG_ANCHOR_START, SMALL_FONT_SIZE, -90,
                                  &(plot_svg_style){ .cls = "missing", .fill = COLOR_AXIS }, c->missing_label);
                plot_svg_group_end(&w);
                continue;
            }
            format_value(v, c->format, c->value_unit, number, sizeof number);
            snprintf(tip, sizeof tip, "%s, %s: %s", or_empty(c->group_labels[g]), or_empty(c->series_labels[s]),
                     number);
            plot_svg_group_begin(&w, &(plot_svg_style){ .cls = "bar" }, tip);
            if (v != 0) /* from zero up, or down for a negative value */
                plot_svg_rect(&w, x, frame_y(&b.plot, fmax(v, 0)), BAR_WIDTH,
                              frame_y(&b.plot, fmin(v, 0)) - frame_y(&b.plot, fmax(v, 0)),
                              &(plot_svg_style){ .cls = "segment", .fill = c->series_colors[s] }, tip);
            if (c->low && !isnan(c->low[g * S + s]))
                draw_error_bar(&w, &b.plot, x + BAR_WIDTH / 2, c->low[g * S + s], c->high[g * S + s], COLOR_AXIS);
            plot_svg_group_end(&w);
        }
        draw_group_label(&w, &b, g, c->group_labels[g]);
        plot_svg_group_end(&w);
    }
    draw_legend(&w, b.legend_x, b.plot.top, c->series_labels, c->series_colors, S);
    plot_svg_end(&w);
    return TEA_OK;
}

/* --- line charts ------------------------------------------------------------- */

/* The x axis of a line chart: linear (nice ticks) or logarithmic. */
typedef struct x_axis {
    int log;
    plot_chart_ticks linear;
    plot_chart_log_ticks logarithmic;
    double low, high; /* the axis's ends */
} x_axis;

static double axis_x(const frame *f, const x_axis *a, double x)
{
    double share = a->log ? (log10(x) - log10(a->low)) / (log10(a->high) - log10(a->low))
                          : (x - a->low) / (a->high - a->low);
    return f->left + f->width * share;
}

/* Checks every point and finds the data's extent. */
static int check_lines(const plot_chart_lines *c, double *x_min, double *x_max, double *y_max)
{
    size_t points = 0;
    int rc;

    *x_min = INFINITY;
    *x_max = -INFINITY;
    *y_max = 0;
    if (c->count == 0 || !c->series)
        return error_set(TEA_ERR_USAGE, "chart: no series to draw");
    for (size_t s = 0; s < c->count; s++) {
        const plot_chart_series *series = &c->series[s];
        if (series->count && !series->points)
            return error_set(TEA_ERR_USAGE, "chart: series %zu has no points array", s + 1);
        for (size_t i = 0; i < series->count; i++) {
            const plot_chart_point *p = &series->points[i];
            if (!isfinite(p->x) || (c->x_log && p->x <= 0))
                return error_set(TEA_ERR_USAGE, "chart: point %zu of series %zu has x = %g%s", i + 1, s + 1, p->x,
                                 c->x_log ? " (a logarithmic axis needs x > 0)" : "");
            if (!isfinite(p->y) || p->y < 0)
                return error_set(TEA_ERR_USAGE, "chart: point %zu of series %zu has y = %g (must be >= 0)", i + 1,
                                 s + 1, p->y);
            if ((rc = check_spread(p->low, p->high, p->y, "series, point", s, i)))
                return rc;
            *x_min = fmin(*x_min, p->x);
            *x_max = fmax(*x_max, p->x);
            *y_max = fmax(*y_max, isnan(p->high) ? p->y : p->high);
            points++;
        }
    }
    if (points == 0)
        return error_set(TEA_ERR_USAGE, "chart: no points to draw");
    return TEA_OK;
}

/* Grid lines, ticks and labels of the x axis, and its label. */
static void draw_x_axis(plot_svg_writer *w, const frame *f, const x_axis *a, const char *x_label)
{
    const plot_svg_style grid = { .cls = "grid", .stroke = COLOR_GRID, .stroke_width = 1 };
    const plot_svg_style minor = { .cls = "grid", .stroke = COLOR_GRID_MINOR, .stroke_width = 1 };
    const plot_svg_style axis = { .cls = "axis", .stroke = COLOR_AXIS, .stroke_width = 1 };
    const plot_svg_style text = { .cls = "tick", .fill = COLOR_TEXT };
    const plot_svg_style label_style = { .cls = "axis-label", .fill = COLOR_TEXT };
    size_t count = a->log ? a->logarithmic.count : a->linear.count;
    double bottom = f->top + f->height;
    int label_all = !a->log || a->logarithmic.count <= 3 * LOG_LABEL_ALL_DECADES + 1;
    char label[LABEL_MAX];

    plot_svg_group_begin(w, &(plot_svg_style){ .cls = "x-axis" }, NULL);
    for (size_t i = 0; i < count; i++) {
        double v = a->log ? a->logarithmic.values[i] : plot_chart_tick_value(&a->linear, i), x = axis_x(f, a, v);
        int major = !a->log || a->logarithmic.major[i];
        plot_svg_line(w, x, f->top, x, bottom, major ? &grid : &minor);
        plot_svg_line(w, x, bottom, x, bottom + TICK_LENGTH, &axis);
        if (!major && !label_all)
            continue;
        if (a->log)
            plot_chart_format_si(v, label, sizeof label);
        else
            plot_chart_format_tick(v, &a->linear, PLOT_CHART_NUMBER_PLAIN, label, sizeof label);
        plot_svg_text(w, x, bottom + TICK_LENGTH + SMALL_FONT_SIZE + 2, PLOT_SVG_ANCHOR_MIDDLE, SMALL_FONT_SIZE, 0,
                      &text, label);
    }
    if (x_label)
        plot_svg_text(w, f->left + f->width / 2, bottom + TICK_LENGTH + SMALL_FONT_SIZE + LABEL_GAP + FONT_SIZE,
                      PLOT_SVG_ANCHOR_MIDDLE, FONT_SIZE, 0, &label_style, x_label);
    plot_svg_group_end(w);
}

/* A series' line through its points. */
static int draw_series_line(plot_svg_writer *w, const frame *f, const x_axis *a, const plot_chart_series *series,
                            const char *color)
{
    double *xs, *ys;

    if (series->count < 2)
        return TEA_OK;
    xs = malloc(series->count * sizeof *xs);
    ys = malloc(series->count * sizeof *ys);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < series->count; i++) {
        xs[i] = axis_x(f, a, series->points[i].x);
        ys[i] = frame_y(f, series->points[i].y);
    }
    plot_svg_polyline(w, xs, ys, series->count,
                      &(plot_svg_style){ .cls = "line", .fill = "none", .stroke = color, .stroke_width = LINE_WIDTH },
                      NULL);
    free(xs);
    free(ys);
    return TEA_OK;
}

/* A series' points, with error bars and tooltips. */
static void draw_series_points(plot_svg_writer *w, const frame *f, const x_axis *a, const plot_chart_lines *c,
                               const plot_chart_series *series, const char *label, const char *color)
{
    for (size_t i = 0; i < series->count; i++) {
        const plot_chart_point *p = &series->points[i];
        char tip[TOOLTIP_MAX], x_text[LABEL_MAX], y_text[LABEL_MAX], low[LABEL_MAX], high[LABEL_MAX];
        double x = axis_x(f, a, p->x);

        plot_chart_format_si(p->x, x_text, sizeof x_text);
        format_value(p->y, c->y_format, c->value_unit, y_text, sizeof y_text);
        if (!isnan(p->low)) {
            draw_error_bar(w, f, x, p->low, p->high, color);
            format_value(p->low, c->y_format, NULL, low, sizeof low);
            format_value(p->high, c->y_format, NULL, high, sizeof high);
            snprintf(tip, sizeof tip, "%s at %s: %s (%s to %s)", label, x_text, y_text, low, high);
        } else {
            snprintf(tip, sizeof tip, "%s at %s: %s", label, x_text, y_text);
        }
        plot_svg_circle(w, x, frame_y(f, p->y), POINT_RADIUS, &(plot_svg_style){ .cls = "point", .fill = color }, tip);
    }
}

int plot_chart_write_lines(FILE *out, const plot_chart_lines *c)
{
    const char **labels = NULL, **colors = NULL;
    double x_min, x_max, y_max, bottom, width, height, legend_x;
    frame f = { 0 };
    x_axis a = { 0 };
    plot_svg_writer w;
    int rc;

    if ((rc = check_lines(c, &x_min, &x_max, &y_max)))
        return rc;
    a.log = c->x_log;
    if (a.log) {
        if ((rc = plot_chart_log_ticks_compute(x_min, x_max, &a.logarithmic)))
            return rc;
        a.low = a.logarithmic.low;
        a.high = a.logarithmic.high;
    } else {
        if ((rc = plot_chart_nice_ticks(x_min, x_max, X_TICK_TARGET, &a.linear)))
            return rc;
        a.low = plot_chart_tick_value(&a.linear, 0);
        a.high = plot_chart_tick_value(&a.linear, a.linear.count - 1);
    }
    if ((rc = frame_set_y(&f, 0, y_max, c->y_format)))
        return rc;
    labels = malloc(c->count * sizeof *labels);
    colors = malloc(c->count * sizeof *colors);
    if (!labels || !colors) {
        free(labels);
        free(colors);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t s = 0; s < c->count; s++) {
        labels[s] = or_empty(c->series[s].label);
        colors[s] = c->series[s].color ? c->series[s].color : plot_chart_series_color(s);
    }
    f.left = y_axis_room(&f, c->y_label);
    f.top = MARGIN + (c->title ? TITLE_HEIGHT : 0);
    f.width = LINE_PLOT_WIDTH;
    f.height = PLOT_HEIGHT;
    bottom = TICK_LENGTH + SMALL_FONT_SIZE + (c->x_label ? LABEL_GAP + FONT_SIZE : 0) + LABEL_GAP + MARGIN;
    legend_x = f.left + f.width + LEGEND_GAP;
    width = legend_x + legend_width(labels, c->count);
    height = fmax(f.top + f.height + bottom, f.top + (double)c->count * LEGEND_ROW + MARGIN);

    plot_svg_begin(&w, out, width, height, FONT_SIZE, c->title);
    draw_title(&w, width, c->title);
    draw_y_axis(&w, &f, c->y_label);
    draw_x_axis(&w, &f, &a, c->x_label);
    for (size_t s = 0; s < c->count && rc == TEA_OK; s++) {
        plot_svg_group_begin(&w, &(plot_svg_style){ .cls = "series" }, labels[s]);
        rc = draw_series_line(&w, &f, &a, &c->series[s], colors[s]);
        draw_series_points(&w, &f, &a, c, &c->series[s], labels[s], colors[s]);
        plot_svg_group_end(&w);
    }
    draw_legend(&w, legend_x, f.top, labels, colors, c->count);
    plot_svg_end(&w);
    free(labels);
    free(colors);
    return rc;
}

/* Writes a chart with `write` to `path` atomically (see chart.h). */
static int save_chart(const char *path, int (*write)(FILE *out, const void *chart), const void *chart)
{
    outfile *out;
    int rc;

    if ((rc = outfile_open(&out, path)))
        return rc;
    if ((rc = write(outfile_stream(out), chart))) {
        outfile_abort(out);
        return rc;
    }
    return outfile_commit(out);
}

static int write_stacked_bars(FILE *out, const void *chart)
{
    return plot_chart_write_stacked_bars(out, chart);
}

static int write_grouped_bars(FILE *out, const void *chart)
{
    return plot_chart_write_grouped_bars(out, chart);
}

static int write_lines(FILE *out, const void *chart)
{
    return plot_chart_write_lines(out, chart);
}

int plot_chart_save_stacked_bars(const char *path, const plot_chart_stacked_bars *c)
{
    return save_chart(path, write_stacked_bars, c);
}

int plot_chart_save_grouped_bars(const char *path, const plot_chart_grouped_bars *c)
{
    return save_chart(path, write_grouped_bars, c);
}

int plot_chart_save_lines(const char *path, const plot_chart_lines *c)
{
    return save_chart(path, write_lines, c);
}
