/*
 * palette.c: component and scheme colours (see palette.h).
 */
#include "palette.h"
#include "pics/scheme.h"
#include "trace/psv.h"

#include <stdio.h>

#define PALETTE_ALL_EVENTS_SUFFIX "all" /* SCHEME:all, a scheme with all nine events */
#include <string.h>

/*
 * Colour-blind and grey-scale safe: the three event families take hues of
 * Okabe and Ito's colour-blind-safe set (blue, yellow-orange, crimson), which
 * stay apart under simulated deuteranopia, protanopia and tritanopia, and
 * separate lightness bands, so that in grey scale drains are light (CIE L*
 * 70-80), stalls medium (39-57) and flushes dark (17-33), with base lighter
 * than all (88). Within a family more events are darker.
 */
#define HUE_STALL 210.0         /* blue */
#define HUE_DRAIN 42.0          /* yellow-orange */
#define HUE_FLUSH 350.0         /* crimson */
#define HUE_FLUSH_STALL 300.0   /* purple */
#define HUE_FLUSH_DRAIN 18.0    /* vermilion */
#define HUE_FLUSH_BOTH 255.0    /* violet, shifted further by the drain bits (to 291) */
#define HUE_FLUSH_BOTH_STEP 6.0
#define HUE_STALL_DRAIN 175.0   /* bluish green */
#define SATURATION_STALL 0.65
#define SATURATION_DRAIN 0.85
#define SATURATION_FLUSH 0.60
#define SATURATION_MIXED_TOP 0.90
#define SATURATION_MIXED_STEP 0.09
#define LIGHTNESS_STALL 0.55    /* one event of the family (the lowest bit) */
#define LIGHTNESS_DRAIN 0.62
#define LIGHTNESS_FLUSH 0.35
#define LIGHTNESS_STEP_STALL 0.03   /* darker per step of the family's bits (1..7) */
#define LIGHTNESS_STEP_OTHER 0.025
#define COLOR_BASE "#dcdcdc"

void palette_component_color(uint16_t psv, char buf[PLOT_CHART_COLOR_MAX])
{
    unsigned stall = trace_psv_family_bits(psv, TRACE_PSV_FAMILY_STALL),
             drain = trace_psv_family_bits(psv, TRACE_PSV_FAMILY_DRAIN);
    unsigned flush = trace_psv_family_bits(psv, TRACE_PSV_FAMILY_FLUSH), own, other = 0;
    double hue, saturation, lightness, step = LIGHTNESS_STEP_OTHER;

    if (flush) {
        own = flush;
        saturation = SATURATION_FLUSH;
        lightness = LIGHTNESS_FLUSH;
        if (stall && drain) {
            hue = HUE_FLUSH_BOTH + HUE_FLUSH_BOTH_STEP * (drain - 1);
            other = stall;
        } else if (stall) {
            hue = HUE_FLUSH_STALL;
            other = stall;
        } else if (drain) {
            hue = HUE_FLUSH_DRAIN;
            other = drain;
        } else {
            hue = HUE_FLUSH;
        }
    } else if (stall) {
        own = stall;
        saturation = SATURATION_STALL;
        lightness = LIGHTNESS_STALL;
        step = LIGHTNESS_STEP_STALL;
        hue = drain ? HUE_STALL_DRAIN : HUE_STALL;
        other = drain;
    } else if (drain) {
        own = drain;
        saturation = SATURATION_DRAIN;
        lightness = LIGHTNESS_DRAIN;
        hue = HUE_DRAIN;
    } else {
        snprintf(buf, PLOT_CHART_COLOR_MAX, "%s", COLOR_BASE);
        return;
    }
    if (other)
        saturation = SATURATION_MIXED_TOP - SATURATION_MIXED_STEP * (other - 1);
    plot_chart_hsl_color(hue, saturation, lightness - step * (own - 1), buf);
}

/* Indexed by pics_scheme: Okabe and Ito's colour-blind-safe set (black, blue,
 * bluish green, vermilion, orange, reddish purple). */
static const char *const scheme_colors[PICS_SCHEME_COUNT] = {
    [PICS_SCHEME_GOLDEN] = "#000000", [PICS_SCHEME_TEA] = "#0072b2", [PICS_SCHEME_NCI] = "#009e73",
    [PICS_SCHEME_IBS] = "#d55e00",    [PICS_SCHEME_SPE] = "#e69f00", [PICS_SCHEME_RIS] = "#cc79a7",
};

const char *palette_scheme_color(const char *scheme, size_t index)
{
    pics_scheme s;
    if (scheme && pics_scheme_find(scheme, strlen(scheme), &s))
        return scheme_colors[s];
    return plot_chart_series_color(index);
}

const char *palette_program(const char *binary_path)
{
    const char *slash;
    if (!binary_path || !*binary_path)
        return NULL;
    slash = strrchr(binary_path, '/');
    return slash && slash[1] ? slash + 1 : binary_path;
}

const char *palette_scheme_display(const char *label, char *buf, size_t size)
{
    const char *colon = strchr(label, ':');
    size_t len = colon ? (size_t)(colon - label) : strlen(label);
    pics_scheme scheme;

    if (!pics_scheme_find(label, len, &scheme))
        return label;
    if (!colon)
        snprintf(buf, size, "%s", pics_scheme_display_name(scheme));
    else if (strcmp(colon + 1, PALETTE_ALL_EVENTS_SUFFIX) == 0)
        snprintf(buf, size, "%s (all events)", pics_scheme_display_name(scheme));
    else
        snprintf(buf, size, "%s:%s", pics_scheme_display_name(scheme), colon + 1);
    return buf;
}
