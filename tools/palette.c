/*
 * palette.c: component and scheme colours (see palette.h).
 */
#include "palette.h"
#include "tea/scheme.h"
#include "trace/psv.h"

#include <stdio.h>
#include <string.h>

/* Hues (degrees) of the event families and of their mixtures. */
#define HUE_STALL 212.0
#define HUE_DRAIN 128.0
#define HUE_FLUSH 2.0
#define HUE_FLUSH_STALL 330.0   /* magenta */
#define HUE_FLUSH_DRAIN 28.0    /* orange */
#define HUE_FLUSH_BOTH 282.0    /* purple, shifted further by the drain bits */
#define HUE_FLUSH_BOTH_STEP 6.0
#define HUE_STALL_DRAIN 182.0   /* teal */
#define SATURATION_PURE 0.62
#define SATURATION_MIXED_TOP 0.90
#define SATURATION_MIXED_STEP 0.09
#define LIGHTNESS_TOP 0.72      /* one event of the family (the lowest bit) */
#define LIGHTNESS_STEP 0.06     /* darker per step of the family's bits (1..7) */
#define COLOR_BASE "#a0a0a0"

void palette_component_color(uint16_t psv, char buf[CHART_COLOR_MAX])
{
    unsigned stall = psv_family_bits(psv, PSV_FAMILY_STALL), drain = psv_family_bits(psv, PSV_FAMILY_DRAIN);
    unsigned flush = psv_family_bits(psv, PSV_FAMILY_FLUSH), own, other = 0;
    double hue, saturation = SATURATION_PURE;

    if (flush) {
        own = flush;
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
        hue = drain ? HUE_STALL_DRAIN : HUE_STALL;
        other = drain;
    } else if (drain) {
        own = drain;
        hue = HUE_DRAIN;
    } else {
        snprintf(buf, CHART_COLOR_MAX, "%s", COLOR_BASE);
        return;
    }
    if (other)
        saturation = SATURATION_MIXED_TOP - SATURATION_MIXED_STEP * (other - 1);
    chart_hsl_color(hue, saturation, LIGHTNESS_TOP - LIGHTNESS_STEP * (own - 1), buf);
}

/* Indexed by tea_scheme. */
static const char *const scheme_colors[TEA_SCHEME_COUNT] = {
    [TEA_SCHEME_GOLDEN] = "#4a4a4a", [TEA_SCHEME_TEA] = "#2b6cb0", [TEA_SCHEME_NCI] = "#2f9e44",
    [TEA_SCHEME_IBS] = "#c0392b",    [TEA_SCHEME_SPE] = "#e67e22", [TEA_SCHEME_RIS] = "#7b4fa0",
};

const char *palette_scheme_color(const char *scheme, size_t index)
{
    tea_scheme s;
    if (scheme && tea_scheme_find(scheme, strlen(scheme), &s))
        return scheme_colors[s];
    return chart_series_color(index);
}
