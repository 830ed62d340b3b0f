/*
 * test_palette.c: the fixed colours of components and schemes
 * (tools/palette.c).
 */
#include "testutil.h"
#include "tools/palette.h"
#include "plot/chart.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

static unsigned channel(const char *color, int i)
{
    char hex[3] = { color[1 + 2 * i], color[2 + 2 * i], 0 };
    return (unsigned)strtoul(hex, NULL, 16);
}

static void component_colors_fixed_and_distinct(void **state)
{
    char colors[PSV_VALUES][CHART_COLOR_MAX];
    (void)state;
    for (unsigned psv = 0; psv < PSV_VALUES; psv++) {
        palette_component_color((uint16_t)psv, colors[psv]);
        assert_int_equal(strlen(colors[psv]), 7);
        assert_int_equal(colors[psv][0], '#');
        for (unsigned other = 0; other < psv; other++)
            if (strcmp(colors[psv], colors[other]) == 0)
                fail_msg("PSV %u and %u share colour %s", psv, other, colors[psv]);
    }
    assert_string_equal(colors[0], "#a0a0a0"); /* base */
    /* ST-L1: hue 212, saturation 0.62, lightness 0.72: chroma
     * (1 - |1.44 - 1|) x 0.62 = 0.3472, x = 0.3472 x (1 - |3.5333 mod 2 - 1|)
     * = 0.16203, m = 0.72 - 0.1736 = 0.5464: (m, x + m, chroma + m) x 255 =
     * (139.3, 180.6, 227.9). */
    assert_string_equal(colors[1u << PSV_ST_L1], "#8bb5e4");
    /* Families: stalls blue, drains green, flushes red. */
    for (unsigned bit = 0; bit < PSV_FAMILY_EVENTS; bit++) {
        const char *st = colors[1u << (PSV_ST_L1 + bit)], *dr = colors[1u << (PSV_DR_L1 + bit)];
        const char *fl = colors[1u << (PSV_FL_MB + bit)];
        assert_true(channel(st, 2) > channel(st, 0) && channel(st, 2) > channel(st, 1));
        assert_true(channel(dr, 1) > channel(dr, 0) && channel(dr, 1) > channel(dr, 2));
        assert_true(channel(fl, 0) > channel(fl, 1) && channel(fl, 0) > channel(fl, 2));
    }
    /* More events of a family: darker (ST-L1 < ST-L1,ST-LLC in darkness). */
    assert_true(channel(colors[(1u << PSV_ST_L1) | (1u << PSV_ST_LLC)], 2) < channel(colors[1u << PSV_ST_L1], 2));
}

static void scheme_colors_fixed(void **state)
{
    (void)state;
    assert_string_equal(palette_scheme_color("tea", 5), palette_scheme_color("tea", 0));
    assert_string_equal(palette_scheme_color("tea", 0), "#2b6cb0");
    assert_string_equal(palette_scheme_color("golden", 3), "#4a4a4a");
    assert_string_not_equal(palette_scheme_color("ibs", 0), palette_scheme_color("spe", 0));
    assert_string_equal(palette_scheme_color("mystery", 1), chart_series_color(1));
    assert_string_equal(palette_scheme_color("ibs:all", 2), chart_series_color(2));
    assert_string_equal(palette_scheme_color(NULL, 3), chart_series_color(3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(component_colors_fixed_and_distinct),
        cmocka_unit_test(scheme_colors_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
