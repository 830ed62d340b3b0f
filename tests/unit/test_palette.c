/*
 * test_palette.c: the fixed colours of components and schemes
 * (tools/palette.c).
 */
#include "testutil.h"
#include "tools/palette.h"
#include "plot/chart.h"
#include "trace/psv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned channel(const char *color, int i)
{
    char hex[3] = { color[1 + 2 * i], color[2 + 2 * i], 0 };
    return (unsigned)strtoul(hex, NULL, 16);
}

static void component_colors_fixed_and_distinct(void **state)
{
    char colors[TRACE_PSV_VALUES][PLOT_CHART_COLOR_MAX];
    (void)state;
    for (unsigned psv = 0; psv < TRACE_PSV_VALUES; psv++) {
        palette_component_color((uint16_t)psv, colors[psv]);
        assert_int_equal(strlen(colors[psv]), 7);
        assert_int_equal(colors[psv][0], '#');
        for (unsigned other = 0; other < psv; other++)
            if (strcmp(colors[psv], colors[other]) == 0)
                fail_msg("PSV %u and %u share colour %s", psv, other, colors[psv]);
    }
    assert_string_equal(colors[0], "#dcdcdc"); /* base */
    /* ST-L1: hue 210, saturation 0.65, lightness 0.55: chroma
     * (1 - |1.1 - 1|) x 0.65 = 0.585, x = 0.585 x (1 - |3.5 mod 2 - 1|)
     * = 0.2925, m = 0.55 - 0.2925 = 0.2575: (m, x + m, chroma + m) x 255 =
     * (65.7, 140.3, 214.8). */
    assert_string_equal(colors[1u << TRACE_PSV_ST_L1], "#428cd7");
    /* Families: stalls blue, drains yellow-orange (red > green > blue),
     * flushes crimson (red). */
    for (unsigned bit = 0; bit < TRACE_PSV_FAMILY_EVENTS; bit++) {
        const char *st = colors[1u << (TRACE_PSV_ST_L1 + bit)], *dr = colors[1u << (TRACE_PSV_DR_L1 + bit)];
        const char *fl = colors[1u << (TRACE_PSV_FL_MB + bit)];
        assert_true(channel(st, 2) > channel(st, 0) && channel(st, 2) > channel(st, 1));
        assert_true(channel(dr, 0) > channel(dr, 1) && channel(dr, 1) > channel(dr, 2));
        assert_true(channel(fl, 0) > channel(fl, 1) && channel(fl, 0) > channel(fl, 2));
    }
    /* More events of a family: darker (ST-L1 < ST-L1,ST-LLC in darkness). */
    assert_true(channel(colors[(1u << TRACE_PSV_ST_L1) | (1u << TRACE_PSV_ST_LLC)], 2)
                < channel(colors[1u << TRACE_PSV_ST_L1], 2));
}

/* sRGB channel i of a colour, linearized. */
static double linear(const char *color, int i)
{
    double c = channel(color, i) / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* Relative luminance Y (what a grey-scale print keeps). */
static double luminance(const char *color)
{
    return 0.2126 * linear(color, 0) + 0.7152 * linear(color, 1) + 0.0722 * linear(color, 2);
}

/* CIE L*a*b* of linear sRGB (D65). */
static void lab(const double rgb[3], double out[3])
{
    static const double white[3] = { 0.95047, 1.0, 1.08883 };
    double xyz[3] = { 0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2],
                      0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2],
                      0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2] };
    double f[3];
    for (int i = 0; i < 3; i++) {
        double t = xyz[i] / white[i];
        f[i] = t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116.0;
    }
    out[0] = 116 * f[1] - 16;
    out[1] = 500 * (f[0] - f[1]);
    out[2] = 200 * (f[1] - f[2]);
}

/* CIE76 colour difference between two colours as seen through a
 * colour-vision-deficiency matrix `m` on linear RGB (Machado, Oliveira and
 * Fernandes 2009, severity 1; results clamped to the gamut). */
static double cvd_delta_e(const double m[3][3], const char *a, const char *b)
{
    double x[3], y[3], la[3], lb[3], d2 = 0;
    for (int i = 0; i < 3; i++) {
        x[i] = y[i] = 0;
        for (int j = 0; j < 3; j++) {
            x[i] += m[i][j] * linear(a, j);
            y[i] += m[i][j] * linear(b, j);
        }
        x[i] = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i];
        y[i] = y[i] < 0 ? 0 : y[i] > 1 ? 1 : y[i];
    }
    lab(x, la);
    lab(y, lb);
    for (int i = 0; i < 3; i++)
        d2 += (la[i] - lb[i]) * (la[i] - lb[i]);
    return sqrt(d2);
}

/* Grey scale: the families fill separate luminance bands (drains above
 * stalls above flushes, base above all). Colour blindness: the families'
 * first colours stay apart under simulated deuteranopia, protanopia and
 * tritanopia: CIE76 difference at least 40 (the former blue, green and red
 * families came down to 14 between drains and flushes under deuteranopia;
 * these are at least 58 apart). */
static void component_colors_grey_and_colour_blind(void **state)
{
    static const double cvd[3][3][3] = {
        { { 0.367322, 0.860646, -0.227968 }, { 0.280085, 0.672501, 0.047413 }, { -0.011820, 0.042940, 0.968881 } },
        { { 0.152286, 1.052583, -0.204868 }, { 0.114503, 0.786281, 0.099216 }, { -0.003882, -0.048116, 1.051998 } },
        { { 1.255528, -0.076749, -0.178779 }, { -0.078411, 0.930809, 0.147602 }, { 0.004733, 0.691367, 0.303900 } },
    };
    double lo[TRACE_PSV_FAMILY_COUNT], hi[TRACE_PSV_FAMILY_COUNT];
    char c[PLOT_CHART_COLOR_MAX], base[PLOT_CHART_COLOR_MAX], first[TRACE_PSV_FAMILY_COUNT][PLOT_CHART_COLOR_MAX];
    (void)state;
    for (int f = 0; f < TRACE_PSV_FAMILY_COUNT; f++) {
        lo[f] = 1;
        hi[f] = 0;
        for (unsigned bits = 1; bits < (1u << TRACE_PSV_FAMILY_EVENTS); bits++) {
            double y;
            palette_component_color((uint16_t)(bits << (f * TRACE_PSV_FAMILY_EVENTS)), c);
            y = luminance(c);
            lo[f] = y < lo[f] ? y : lo[f];
            hi[f] = y > hi[f] ? y : hi[f];
        }
        palette_component_color((uint16_t)(1u << (f * TRACE_PSV_FAMILY_EVENTS)), first[f]);
    }
    palette_component_color(0, base);
    assert_true(luminance(base) > hi[TRACE_PSV_FAMILY_DRAIN]);
    assert_true(lo[TRACE_PSV_FAMILY_DRAIN] > hi[TRACE_PSV_FAMILY_STALL]);
    assert_true(lo[TRACE_PSV_FAMILY_STALL] > hi[TRACE_PSV_FAMILY_FLUSH]);
    for (int m = 0; m < 3; m++)
        for (int a = 0; a < TRACE_PSV_FAMILY_COUNT; a++)
            for (int b = 0; b < a; b++)
                if (cvd_delta_e(cvd[m], first[a], first[b]) < 40)
                    fail_msg("families %d and %d: %s and %s too close under deficiency %d (%.1f)", a, b, first[a],
                             first[b], m, cvd_delta_e(cvd[m], first[a], first[b]));
}

static void scheme_colors_fixed(void **state)
{
    (void)state;
    assert_string_equal(palette_scheme_color("tea", 5), palette_scheme_color("tea", 0));
    assert_string_equal(palette_scheme_color("tea", 0), "#0072b2");
    assert_string_equal(palette_scheme_color("golden", 3), "#000000");
    assert_string_not_equal(palette_scheme_color("ibs", 0), palette_scheme_color("spe", 0));
    assert_string_equal(palette_scheme_color("mystery", 1), plot_chart_series_color(1));
    assert_string_equal(palette_scheme_color("ibs:all", 2), plot_chart_series_color(2));
    assert_string_equal(palette_scheme_color(NULL, 3), plot_chart_series_color(3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(component_colors_fixed_and_distinct),
        cmocka_unit_test(component_colors_grey_and_colour_blind),
        cmocka_unit_test(scheme_colors_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
