/*
 * test_chart.c: the SVG writer (escaping, numbers) and the charts (nice and
 * logarithmic ticks, colours, element counts, byte-identical output). The
 * expected values are worked out by hand in the comments.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "plot/chart.h"
#include "plot/flame.h"
#include "plot/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- helpers ----------------------------------------------------------------- */

typedef struct capture {
    char *text;
    size_t size;
    FILE *f;
} capture;

static void capture_open(capture *c)
{
    c->text = NULL;
    c->size = 0;
    c->f = open_memstream(&c->text, &c->size);
    assert_non_null(c->f);
}

/* Closes the stream; c->text holds what was written. */
static void capture_close(capture *c)
{
    assert_int_equal(fclose(c->f), 0);
}

static char *escaped(const char *text)
{
    capture c;
    capture_open(&c);
    plot_svg_escape(c.f, text);
    capture_close(&c);
    return c.text;
}

/* Occurrences of `needle` in `text`. */
static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + strlen(needle), needle))
        n++;
    return n;
}

/* Start tags and end tags of groups balance, and the document ends. */
static void assert_balanced(const char *svg)
{
    assert_int_equal(count_of(svg, "<g>") + count_of(svg, "<g "), count_of(svg, "</g>"));
    assert_int_equal(count_of(svg, "<svg "), 1);
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_string_equal(svg + strlen(svg) - strlen("</svg>\n"), "</svg>\n");
}

/* --- svg --------------------------------------------------------------------- */

static void escape_xml_specials_and_bad_bytes(void **state)
{
    struct {
        const char *in, *out;
    } cases[] = {
        { "a&b<c>\"d'e", "a&amp;b&lt;c&gt;&quot;d&apos;e" },
        { "plain text, 0x401000+0x1c", "plain text, 0x401000+0x1c" },
        { "tab\tnl\ncr\r", "tab\tnl\ncr\r" },            /* allowed controls */
        { "bell\x07 esc\x1b", "bell? esc?" },             /* forbidden controls */
        { "\xc2\xb5s \xe2\x80\x94 \xf0\x9f\x98\x80", "\xc2\xb5s \xe2\x80\x94 \xf0\x9f\x98\x80" }, /* valid UTF-8 */
        { "\xff" "x", "?x" },                              /* not a lead byte */
        { "end\xc2", "end?" },                            /* cut sequence */
        { "\xc0\xaf", "??" },                              /* overlong '/' */
        { "\xed\xa0\x80", "???" },                         /* surrogate U+D800 */
        { "\xef\xbf\xbe", "???" },                         /* U+FFFE */
        { "", "" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = escaped(cases[i].in);
        assert_string_equal(got, cases[i].out);
        free(got);
    }
}

static void numbers_are_trimmed(void **state)
{
    char buf[PLOT_SVG_NUMBER_MAX];
    (void)state;
    /* emit_fixed (common/emit) rounds; test_emit checks it */
    assert_string_equal(plot_svg_format_number(12.5, buf, sizeof buf), "12.5");
    assert_string_equal(plot_svg_format_number(3, buf, sizeof buf), "3");
    assert_string_equal(plot_svg_format_number(-0.25, buf, sizeof buf), "-0.25");
    assert_string_equal(plot_svg_format_number(-0.001, buf, sizeof buf), "0");
    assert_string_equal(plot_svg_format_number(1234.5678, buf, sizeof buf), "1234.57");
    assert_string_equal(plot_svg_format_number(100, buf, sizeof buf), "100"); /* zeros before the point stay */
}

static void svg_document_elements(void **state)
{
    const plot_svg_style style = {
        .cls = "c", .fill = "#112233", .stroke = "none", .stroke_width = 1.5, .dash = "4 2"
    };
    double xs[] = { 0, 10.5, 20 }, ys[] = { 1, 2.25, -3 };
    plot_svg_writer w;
    capture c;
    (void)state;

    capture_open(&c);
    plot_svg_begin(&w, c.f, 200, 100.5, 12, "T<1>");
    plot_svg_group_begin(&w, &style, "g&");
    plot_svg_rect(&w, 1, 2, 3, -4, NULL, NULL);
    plot_svg_line(&w, 0, 0, 10, 10, &style);
    plot_svg_polyline(&w, xs, ys, 3, NULL, "p");
    plot_svg_circle(&w, 5, 5, 2, NULL, NULL);
    plot_svg_text(&w, 10, 20, PLOT_SVG_ANCHOR_END, 10, -90, NULL, "x'y");
    plot_svg_text(&w, 10, 20, PLOT_SVG_ANCHOR_START, 0, 0, NULL, "plain");
    plot_svg_end(&w); /* closes the group too */
    capture_close(&c);
    assert_string_equal(c.text,
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"200\" height=\"100.5\" "
                        "viewBox=\"0 0 200 100.5\" font-family=\"sans-serif\" font-size=\"12\">\n"
                        "  <title>T&lt;1&gt;</title>\n"
                        "  <rect x=\"0\" y=\"0\" width=\"200\" height=\"100.5\" fill=\"#ffffff\"/>\n"
                        "  <g class=\"c\" fill=\"#112233\" stroke=\"none\" stroke-width=\"1.5\" "
                        "stroke-dasharray=\"4 2\"><title>g&amp;</title>\n"
                        "    <rect x=\"1\" y=\"2\" width=\"3\" height=\"0\"/>\n"
                        "    <line x1=\"0\" y1=\"0\" x2=\"10\" y2=\"10\" class=\"c\" fill=\"#112233\" stroke=\"none\" "
                        "stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/>\n"
                        "    <polyline points=\"0,1 10.5,2.25 20,-3\"><title>p</title></polyline>\n"
                        "    <circle cx=\"5\" cy=\"5\" r=\"2\"/>\n"
                        "    <text x=\"10\" y=\"20\" text-anchor=\"end\" font-size=\"10\" "
                        "transform=\"rotate(-90 10 20)\">x&apos;y</text>\n"
                        "    <text x=\"10\" y=\"20\">plain</text>\n"
                        "  </g>\n"
                        "</svg>\n");
    free(c.text);
}

/* --- ticks ------------------------------------------------------------------- */

static void assert_ticks(const plot_chart_ticks *t, double first, double step, size_t count, int decimals)
{
    assert_true(fabs(t->first - first) < 1e-12);
    assert_true(fabs(t->step - step) < 1e-12 * step);
    assert_int_equal(t->count, count);
    assert_int_equal(t->decimals, decimals);
}

static void nice_ticks_by_hand(void **state)
{
    plot_chart_ticks t;
    char label[64];
    (void)state;

    /* 7.3 / 5 = 1.46: step 1 needs 8 intervals, step 2 needs 4: 0..8. */
    assert_int_equal(plot_chart_nice_ticks(0, 7.3, 5, &t), 0);
    assert_ticks(&t, 0, 2, 5, 0);
    assert_true(plot_chart_tick_value(&t, 4) == 8);
    /* 100 / 5 = 20: step 20, 0..100. */
    assert_int_equal(plot_chart_nice_ticks(0, 100, 5, &t), 0);
    assert_ticks(&t, 0, 20, 6, 0);
    /* 0.034 / 5 = 0.0068: 0.005 is too small, 0.01 gives 0..0.04. */
    assert_int_equal(plot_chart_nice_ticks(0, 0.034, 5, &t), 0);
    assert_ticks(&t, 0, 0.01, 5, 2);
    plot_chart_format_tick(plot_chart_tick_value(&t, 3), &t, PLOT_CHART_NUMBER_PERCENT, label, sizeof label);
    assert_string_equal(label, "0.03%");
    /* 1234567 / 6 = 205761: 2e5 is too small, 5e5 gives 0..1.5e6. */
    assert_int_equal(plot_chart_nice_ticks(0, 1234567, 6, &t), 0);
    assert_ticks(&t, 0, 5e5, 4, 0);
    plot_chart_format_tick(plot_chart_tick_value(&t, 0), &t, PLOT_CHART_NUMBER_PLAIN, label, sizeof label);
    assert_string_equal(label, "0");
    plot_chart_format_tick(plot_chart_tick_value(&t, 1), &t, PLOT_CHART_NUMBER_PLAIN, label, sizeof label);
    assert_string_equal(label, "0.5M");
    plot_chart_format_tick(plot_chart_tick_value(&t, 2), &t, PLOT_CHART_NUMBER_PLAIN, label, sizeof label);
    assert_string_equal(label, "1.0M");
    /* 94 / 10 = 9.4: step 10 from 0 (below 3) to 100 (above 97). */
    assert_int_equal(plot_chart_nice_ticks(3, 97, 10, &t), 0);
    assert_ticks(&t, 0, 10, 11, 0);
    /* An empty range becomes [0, 1]: 0.2 steps, one decimal. */
    assert_int_equal(plot_chart_nice_ticks(0, 0, 5, &t), 0);
    assert_ticks(&t, 0, 0.2, 6, 1);
    plot_chart_format_tick(plot_chart_tick_value(&t, 3), &t, PLOT_CHART_NUMBER_PERCENT, label, sizeof label);
    assert_string_equal(label, "0.6%");
    /* 0.3 / 0.1 must not round up to an extra tick: 0, 0.1, 0.2, 0.3. */
    assert_int_equal(plot_chart_nice_ticks(0, 0.3, 3, &t), 0);
    assert_ticks(&t, 0, 0.1, 4, 1);
    /* Negative ranges: -7..-2 by 1. */
    assert_int_equal(plot_chart_nice_ticks(-7, -2, 5, &t), 0);
    assert_ticks(&t, -7, 1, 6, 0);
    /* 2500 cycles on 6: 416.7 -> 500, 0..2500; labels in k. */
    assert_int_equal(plot_chart_nice_ticks(0, 2500, 6, &t), 0);
    assert_ticks(&t, 0, 500, 6, 0);
    plot_chart_format_tick(plot_chart_tick_value(&t, 3), &t, PLOT_CHART_NUMBER_PLAIN, label, sizeof label);
    assert_string_equal(label, "1.5k");
    assert_int_equal(plot_chart_nice_ticks(5, 1, 5, &t), TEA_ERR_USAGE);
    assert_int_equal(plot_chart_nice_ticks(NAN, 1, 5, &t), TEA_ERR_USAGE);
    assert_int_equal(plot_chart_nice_ticks(0, INFINITY, 5, &t), TEA_ERR_USAGE);
}

static void log_ticks_by_hand(void **state)
{
    static const double figure8[] = { 100, 200, 500, 1000, 2000, 5000, 10000 };
    static const double tenths[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10 };
    plot_chart_log_ticks t;
    char label[64];
    (void)state;

    /* 100 Hz .. 8 kHz: the decades 100..1000..10000. */
    assert_int_equal(plot_chart_log_ticks_compute(100, 8000, &t), 0);
    assert_true(t.low == 100 && t.high == 10000);
    assert_int_equal(t.count, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_true(t.values[i] == figure8[i]);
        assert_int_equal(t.major[i], i % 3 == 0);
    }
    /* One value on a power of ten: the decade above it. */
    assert_int_equal(plot_chart_log_ticks_compute(1000, 1000, &t), 0);
    assert_true(t.low == 1000 && t.high == 10000);
    assert_int_equal(t.count, 4);
    /* 150: 100..1000. */
    assert_int_equal(plot_chart_log_ticks_compute(150, 150, &t), 0);
    assert_true(t.low == 100 && t.high == 1000);
    /* Below one: 0.5..3 spans 0.1..10. */
    assert_int_equal(plot_chart_log_ticks_compute(0.5, 3, &t), 0);
    assert_int_equal(t.count, 7);
    for (size_t i = 0; i < 7; i++)
        assert_true(t.values[i] == tenths[i]);
    /* Twelve decades are the most. */
    assert_int_equal(plot_chart_log_ticks_compute(1, 1e12, &t), 0);
    assert_int_equal(t.count, PLOT_CHART_LOG_MAX_TICKS);
    assert_int_equal(plot_chart_log_ticks_compute(1, 1.5e12, &t), TEA_ERR_USAGE);
    assert_int_equal(plot_chart_log_ticks_compute(0, 10, &t), TEA_ERR_USAGE);
    assert_int_equal(plot_chart_log_ticks_compute(-1, 10, &t), TEA_ERR_USAGE);
    assert_int_equal(plot_chart_log_ticks_compute(10, 1, &t), TEA_ERR_USAGE);

    plot_chart_format_si(100, label, sizeof label);
    assert_string_equal(label, "100");
    plot_chart_format_si(8000, label, sizeof label);
    assert_string_equal(label, "8k");
    plot_chart_format_si(1500, label, sizeof label);
    assert_string_equal(label, "1.5k");
    plot_chart_format_si(1e6, label, sizeof label);
    assert_string_equal(label, "1M");
    plot_chart_format_si(2e9, label, sizeof label);
    assert_string_equal(label, "2G");
    plot_chart_format_si(0.25, label, sizeof label);
    assert_string_equal(label, "0.25");
}

/* --- colours ----------------------------------------------------------------- */

static void hsl_and_series_colors(void **state)
{
    char color[PLOT_CHART_COLOR_MAX];
    (void)state;
    /* Hue 212, saturation 0.62, lightness 0.72: chroma (1 - |1.44 - 1|) x
     * 0.62 = 0.3472, x = 0.3472 x (1 - |3.5333 mod 2 - 1|) = 0.16203, m =
     * 0.72 - 0.1736 = 0.5464: (m, x + m, chroma + m) x 255 = (139.3, 180.6,
     * 227.9). */
    plot_chart_hsl_color(212.0, 0.62, 0.72, color);
    assert_string_equal(color, "#8bb5e4");
    /* Grey: no saturation, lightness 0.5 -> 127.5 rounds half up to 128. */
    plot_chart_hsl_color(0.0, 0.0, 0.5, color);
    assert_string_equal(color, "#808080");
    assert_string_equal(plot_chart_series_color(8), plot_chart_series_color(0));
    assert_string_not_equal(plot_chart_series_color(1), plot_chart_series_color(0));
}

/* --- flame graphs ----------------------------------------------------------- */

/* Three stacks given out of order, two sharing a function: frames are
 * merged by prefix and ordered by name; offsets and widths by hand. */
static void flame_frames_by_hand(void **state)
{
    static const char *const s1[] = { "main", "main+0x4", "ST-L1" };
    static const char *const s2[] = { "f<g>", "f+0x0", "base" };
    static const char *const s3[] = { "main", "main+0x4", "base" };
    static const char *const c[] = { "#111111", "#eeeeee", "#8bb5e4" };
    const plot_flame_stack stacks[] = { { s1, c, 30, 0, NULL, NULL, 0 }, { s2, c, 10, 0, NULL, NULL, 0 }, { s3, c, 60, 0, NULL, NULL, 0 } };
    plot_flame_options o = { "T", "all", "cycles", 220, 0, NULL, 0 }; /* span 200: 2 units per cycle */
    capture cap;
    char *again;
    int rc;
    (void)state;

    capture_open(&cap);
    rc = plot_flame_write(cap.f, &o, stacks, 3, 3);
    capture_close(&cap);
    assert_int_equal(rc, 0);
    assert_int_equal(count_of(cap.text, "class=\"frame\""), 1 + 2 + 2 + 3);
    assert_int_equal(count_of(cap.text, "data-d=\"1\""), 2);
    assert_int_equal(count_of(cap.text, "data-d=\"3\""), 3);
    assert_non_null(strstr(cap.text, "data-total=\"100\""));
    /* "f<g>" sorts before "main": offset 0, width 10 of 100 -> 20 units */
    assert_non_null(strstr(cap.text, "id=\"f1\" data-d=\"1\" data-o=\"0\" data-w=\"10\""));
    assert_non_null(strstr(cap.text, "data-n=\"f&lt;g&gt;\"><title>f&lt;g&gt;: 10 cycles (10.00%)</title>"
                                     "<rect x=\"10\" y=\"92\" width=\"20\""));
    assert_non_null(strstr(cap.text, "id=\"f2\" data-d=\"1\" data-o=\"10\" data-w=\"90\""));
    /* main's components: "ST-L1" (30) before "base" (60) (byte order); rows from the root up:
     * the root row at 56 + 3 x 18 = 110, depth d at 110 - 18 d */
    assert_non_null(strstr(cap.text, "data-d=\"3\" data-o=\"40\" data-w=\"60\" data-c=\"#8bb5e4\" data-n=\"base\""));
    assert_non_null(strstr(cap.text, "data-d=\"3\" data-o=\"10\" data-w=\"30\""));
    assert_non_null(strstr(cap.text, "<rect x=\"90\" y=\"56\" width=\"120\""));
    assert_non_null(strstr(cap.text, "<![CDATA["));
    assert_int_equal(count_of(cap.text, "]]>"), 1);
    again = cap.text;
    capture_open(&cap);
    assert_int_equal(plot_flame_write(cap.f, &o, stacks, 3, 3), 0);
    capture_close(&cap);
    assert_string_equal(again, cap.text);
    free(again);
    free(cap.text);

    /* refused: no frames, a weight of 0 */
    capture_open(&cap);
    assert_int_equal(plot_flame_write(cap.f, &o, stacks, 3, 0), TEA_ERR_USAGE);
    {
        const plot_flame_stack zero[] = { { s1, c, 0, 0, NULL, NULL, 0 } };
        assert_int_equal(plot_flame_write(cap.f, &o, zero, 1, 3), TEA_ERR_USAGE);
    }
    capture_close(&cap);
    free(cap.text);
}

/* Narrow frames: span 200 over a total of 1000 is 0.2 units per cycle, so
 * with a minimum width of 1 unit frames under 5 cycles merge. A (900) and B
 * (96) stay; C and D (2 each) become "(2 others)" of 4 at offset 996, after
 * A and B, with nothing above; B/z (1), narrow alone under B, keeps its
 * name. Frames: root; depth 1 A, B, others; depth 2 A/x, B/y, B/z; depth 3
 * A/x/base, B/y/base. A legend of two entries is drawn under the frames. */
static void flame_merges_narrow_frames(void **state)
{
    static const char *const a[] = { "A", "x", "base" }, *const b[] = { "B", "y", "base" },
                             *const b2[] = { "B", "z", "ST-L1" }, *const cc[] = { "C", "x", "base" },
                             *const d[] = { "D", "x", "base" };
    static const char *const col[] = { "#111111", "#eeeeee", "#8bb5e4" };
    const plot_flame_stack stacks[] = { { a, col, 900, 0, NULL, NULL, 0 }, { b, col, 95, 0, NULL, NULL, 0 }, { b2, col, 1, 0, NULL, NULL, 0 }, { cc, col, 2, 0, NULL, NULL, 0 }, { d, col, 2, 0, NULL, NULL, 0 } };
    const plot_flame_legend legend[] = { { "base", "#8bb5e4" }, { "ST-L1", "#d55e00" } };
    plot_flame_options o = { "T", "all", "cycles", 220, 1.0, legend, 2 };
    capture cap;
    (void)state;

    capture_open(&cap);
    assert_int_equal(plot_flame_write(cap.f, &o, stacks, 5, 3), 0);
    capture_close(&cap);
    assert_int_equal(count_of(cap.text, "class=\"frame\""), 1 + 3 + 3 + 2);
    assert_non_null(strstr(cap.text, "data-d=\"1\" data-o=\"0\" data-w=\"900\" data-c=\"#111111\" data-n=\"A\""));
    assert_non_null(strstr(cap.text, "data-d=\"1\" data-o=\"900\" data-w=\"96\" data-c=\"#111111\" data-n=\"B\""));
    assert_non_null(strstr(cap.text, "data-d=\"1\" data-o=\"996\" data-w=\"4\" data-c=\"#d9d9d9\" data-n=\"(2 others)\""));
    assert_non_null(strstr(cap.text, "data-d=\"2\" data-o=\"995\" data-w=\"1\" data-c=\"#eeeeee\" data-n=\"z\""));
    assert_int_equal(count_of(cap.text, "data-d=\"3\""), 2);
    assert_int_equal(count_of(cap.text, "class=\"legend-entry\""), 2);
    assert_non_null(strstr(cap.text, ">ST-L1</text></g>"));
    free(cap.text);

    /* a negative minimum keeps every frame: 1 + 4 + 5 + 5 */
    o.min_width = -1;
    capture_open(&cap);
    assert_int_equal(plot_flame_write(cap.f, &o, stacks, 5, 3), 0);
    capture_close(&cap);
    assert_int_equal(count_of(cap.text, "class=\"frame\""), 1 + 4 + 5 + 5);
    free(cap.text);
}

/* The legend lays its entries out by their names' widths: cells of 150
 * units, an entry taking those its swatch (10), the gap to its name (4),
 * its name (6.6 a character) and the room after it (10) need, a row
 * starting when the cells left are too few, and a name wider than a row
 * alone on one. At width 620 a row has 4 cells (600 / 150). Legend rows
 * start at the root row's top (56 + 18) + 18 + 28 = 120, 16 apart. */
static void flame_legend_by_text_width(void **state)
{
    static const char *const f[] = { "f" };
    static const char *const c[] = { "#111111" };
    const plot_flame_stack stacks[] = { { f, c, 1, 0, NULL, NULL, 0 } };
    static const char long_name[] = "0123456789012345678901234567890123456789012345678901234567890123456789"
                                    "012345678901234567890123456789"; /* 100 characters: 684 units > 600 */
    const plot_flame_legend legend[] = {
        { "a", "#000001" },                                      /* 30.6: 1 cell, row 0 at 10 */
        { "ST-L1,ST-TLB,ST-LLC,DR-L1", "#000002" },              /* 25 chars, 189: 2 cells, at 160 */
        { "b", "#000003" },                                      /* the row's last cell, at 460 */
        { "ST-L1,ST-TLB,ST-LLC,DR-L1,DR-TLB,DR-SQ", "#000004" }, /* 38 chars, 274.8: 2 cells, row 1 at 10 */
        { "ST-L1,ST-TLB,ST-LLC", "#000005" },                    /* 19 chars, 149.4: 1 cell, at 310 */
        { long_name, "#000006" },                                /* a row of its own: row 2 at 10 */
        { "c", "#000007" },                                      /* row 3 at 10 */
    };
    plot_flame_options o = { "T", "all", "cycles", 620, 0, legend, 7 };
    capture cap;
    (void)state;

    capture_open(&cap);
    assert_int_equal(plot_flame_write(cap.f, &o, stacks, 1, 1), 0);
    capture_close(&cap);
    assert_int_equal(count_of(cap.text, "class=\"legend-entry\""), 7);
    assert_non_null(strstr(cap.text, "<rect x=\"10\" y=\"120\" width=\"10\" height=\"10\" fill=\"#000001\"/>"
                                     "<text x=\"24\" y=\"129\" font-size=\"11\">a</text>"));
    assert_non_null(strstr(cap.text, "<rect x=\"160\" y=\"120\" width=\"10\" height=\"10\" fill=\"#000002\"/>"
                                     "<text x=\"174\" y=\"129\""));
    assert_non_null(strstr(cap.text, "<rect x=\"460\" y=\"120\" width=\"10\" height=\"10\" fill=\"#000003\"/>"));
    assert_non_null(strstr(cap.text, "<rect x=\"10\" y=\"136\" width=\"10\" height=\"10\" fill=\"#000004\"/>"));
    assert_non_null(strstr(cap.text, "<rect x=\"310\" y=\"136\" width=\"10\" height=\"10\" fill=\"#000005\"/>"));
    assert_non_null(strstr(cap.text, "<rect x=\"10\" y=\"152\" width=\"10\" height=\"10\" fill=\"#000006\"/>"));
    assert_non_null(strstr(cap.text, "<rect x=\"10\" y=\"168\" width=\"10\" height=\"10\" fill=\"#000007\"/>"));
    /* the drawing holds the 4 rows and a gap: 56 + 2 x 18 + 28 + 5 x 16 */
    assert_non_null(strstr(cap.text, "height=\"200\""));
    free(cap.text);
}

/* --- charts ------------------------------------------------------------------ */

static char *render_stacked(const plot_chart_stacked_bars *c, int *rc)
{
    capture cap;
    capture_open(&cap);
    *rc = plot_chart_write_stacked_bars(cap.f, c);
    capture_close(&cap);
    return cap.text;
}

/* The x of the rect element whose content begins with `title_text`. */
static double rect_x_of(const char *svg, const char *title_text)
{
    const char *at = strstr(svg, title_text), *rect = NULL;
    double x = -1;
    assert_non_null(at);
    for (const char *p = svg; (p = strstr(p, "<rect x=\"")) && p < at; p++)
        rect = p;
    assert_non_null(rect);
    assert_int_equal(sscanf(rect, "<rect x=\"%lf\"", &x), 1);
    return x;
}

static void stacked_bars_counts_and_determinism(void **state)
{
    static const char *const groups[] = { "0x1000", "a&b" };
    static const char *const bars[] = { "golden", "tea", "ibs" };
    static const char *const segments[] = { "base", "ST-L1" };
    static const char *const colors[] = { "#a0a0a0", "#8bb5e4" };
    /* [group][bar][segment]; the tallest bar is 4 + 4 = 8: ticks 0..8 by 2,
     * so a segment of 4 is 300 x 4 / 8 = 150 units high. */
    static const double values[] = {
        4, 4,   3, 0,   0, 0,  /* group 1: the ibs bar is empty */
        1, 2,   2, 1,   0, 3,
    };
    plot_chart_stacked_bars c = { .title = "Top 2",
                                  .y_label = "cycles",
                                  .value_unit = "cycles",
                                  .format = PLOT_CHART_NUMBER_PLAIN,
                                  .groups = 2,
                                  .bars = 3,
                                  .segments = 2,
                                  .group_labels = groups,
                                  .bar_labels = bars,
                                  .segment_labels = segments,
                                  .segment_colors = colors,
                                  .values = values };
    char *first, *second;
    int rc;
    (void)state;

    first = render_stacked(&c, &rc);
    assert_int_equal(rc, 0);
    second = render_stacked(&c, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(first, second);
    assert_balanced(first);
    assert_int_equal(count_of(first, "class=\"group\""), 2);
    assert_int_equal(count_of(first, "class=\"bar\""), 6);      /* one per bar, empty ones too */
    assert_int_equal(count_of(first, "class=\"segment\""), 8);  /* the non-zero values */
    assert_int_equal(count_of(first, "class=\"swatch\""), 2);
    assert_int_equal(count_of(first, "class=\"bar-label\""), 6);
    assert_int_equal(count_of(first, "class=\"group-label\""), 2);
    assert_int_equal(count_of(first, "class=\"tick\""), 5);     /* 0, 2, 4, 6, 8 */
    assert_non_null(strstr(first, "height=\"150\""));
    assert_non_null(strstr(first, ">a&amp;b</text>"));
    assert_null(strstr(first, "a&b"));
    /* Two groups of 3 bars (3 x 16 + 2 x 2 = 52 wide) are spread over the
     * full 560-unit plot: a 280-unit slot each, their bars centred in it. */
    assert_true(fabs(rect_x_of(first, "<title>a&amp;b, golden: base") - rect_x_of(first, "<title>0x1000, golden: base")
                     - 280.0) < 0.02);
    assert_non_null(strstr(first, "<title>0x1000, golden: ST-L1 4.00 cycles (50.0% of the bar)</title>"));
    assert_non_null(strstr(first, "<title>0x1000, ibs: 0.00 cycles</title>"));
    free(first);
    free(second);

    /* A change in one value changes the output. */
    {
        double changed[12];
        memcpy(changed, values, sizeof changed);
        changed[11] = 2;
        c.values = changed;
        second = render_stacked(&c, &rc);
        first = (c.values = values, render_stacked(&c, &rc));
        assert_string_not_equal(first, second);
        free(first);
        free(second);
    }

    /* Bad input: nothing written. */
    {
        double bad[12];
        memcpy(bad, values, sizeof bad);
        bad[7] = -1;
        c.values = bad;
        first = render_stacked(&c, &rc);
        assert_int_equal(rc, TEA_ERR_USAGE);
        assert_string_equal(first, "");
        assert_contains(error_message(), "group 2, bar 1");
        free(first);
        bad[7] = NAN;
        first = render_stacked(&c, &rc);
        assert_int_equal(rc, TEA_ERR_USAGE);
        free(first);
        c.values = values;
        c.groups = 0;
        first = render_stacked(&c, &rc);
        assert_int_equal(rc, TEA_ERR_USAGE);
        free(first);
    }
}

static void grouped_bars_with_whiskers(void **state)
{
    static const char *const groups[] = { "lbm", "mcf" };
    static const char *const series[] = { "tea", "nci", "ibs" };
    const char *colors[] = { plot_chart_series_color(0), plot_chart_series_color(1), plot_chart_series_color(2) };
    const double values[] = { 2.5, 10, NAN, 1, 12.5, 40 };
    const double low[] = { 2, NAN, NAN, 0.5, 10, 35 };
    const double high[] = { 3, NAN, NAN, 1.5, 15, 45 };
    plot_chart_grouped_bars c = { .title = "Error",
                                  .y_label = "error (%)",
                                  .format = PLOT_CHART_NUMBER_PERCENT,
                                  .groups = 2,
                                  .series = 3,
                                  .group_labels = groups,
                                  .series_labels = series,
                                  .series_colors = colors,
                                  .values = values,
                                  .low = low,
                                  .high = high };
    capture a, b;
    (void)state;

    capture_open(&a);
    assert_int_equal(plot_chart_write_grouped_bars(a.f, &c), 0);
    capture_close(&a);
    capture_open(&b);
    assert_int_equal(plot_chart_write_grouped_bars(b.f, &c), 0);
    capture_close(&b);
    assert_string_equal(a.text, b.text);
    assert_balanced(a.text);
    assert_int_equal(count_of(a.text, "class=\"bar\""), 6);
    assert_int_equal(count_of(a.text, "class=\"segment\""), 5); /* the NaN has none */
    assert_int_equal(count_of(a.text, "class=\"errorbar\""), 4);
    assert_non_null(strstr(a.text, "<title>lbm, ibs: no value</title>"));
    /* Highest whisker 45 on 6 intervals: 7.5 -> 10: 0%..50%. */
    assert_non_null(strstr(a.text, ">50%</text>"));
    assert_null(strstr(a.text, ">60%</text>"));
    free(a.text);
    free(b.text);

    /* A whisker that does not enclose its value. */
    {
        double bad_high[6];
        memcpy(bad_high, high, sizeof bad_high);
        bad_high[4] = 11;
        c.high = bad_high;
        capture_open(&a);
        assert_int_equal(plot_chart_write_grouped_bars(a.f, &c), TEA_ERR_USAGE);
        capture_close(&a);
        free(a.text);
    }
}

/* Negative values (a correlation) hang below a zero line; the axis reaches
 * down to a nice tick under the smallest one. */
static void grouped_bars_below_zero(void **state)
{
    static const char *const groups[] = { "FL-MB", "DR-SQ" };
    static const char *const series[] = { "lbm", "nab" };
    const char *colors[] = { plot_chart_series_color(0), plot_chart_series_color(1) };
    const double values[] = { 0.9, 0.85, -0.2, 0 };
    plot_chart_grouped_bars c = { .title = "r",
                                  .y_label = "Pearson r",
                                  .format = PLOT_CHART_NUMBER_PLAIN,
                                  .groups = 2,
                                  .series = 2,
                                  .group_labels = groups,
                                  .series_labels = series,
                                  .series_colors = colors,
                                  .values = values };
    capture a;
    (void)state;

    capture_open(&a);
    assert_int_equal(plot_chart_write_grouped_bars(a.f, &c), 0);
    capture_close(&a);
    assert_balanced(a.text);
    assert_int_equal(count_of(a.text, "class=\"bar\""), 4);
    assert_int_equal(count_of(a.text, "class=\"segment\""), 3); /* the zero has none */
    assert_non_null(strstr(a.text, ">-0.2</text>"));           /* -0.2 .. 1.0 in steps of 0.2 */
    assert_non_null(strstr(a.text, ">1.0</text>"));
    assert_null(strstr(a.text, ">-0.4</text>"));
    assert_non_null(strstr(a.text, "<title>DR-SQ, lbm: -0.20</title>"));
    free(a.text);
}

static void line_chart_log_axis(void **state)
{
    const plot_chart_point tea[] = { { 100, 5, 4, 6 }, { 1000, 2, 1.5, 2.5 }, { 8000, 1, NAN, NAN } };
    const plot_chart_point ibs[] = { { 100, 30, 25, 35 }, { 1000, 28, 27, 29 }, { 8000, 27, 26, 28 } };
    const plot_chart_series series[] = { { "tea", plot_chart_series_color(0), tea, 3 }, { "ibs", NULL, ibs, 3 } };
    plot_chart_lines c = { .title = "Error vs frequency",
                           .x_label = "sampling frequency (Hz)",
                           .y_label = "error (%)",
                           .x_log = 1,
                           .y_format = PLOT_CHART_NUMBER_PERCENT,
                           .series = series,
                           .count = 2 };
    capture a, b;
    (void)state;

    capture_open(&a);
    assert_int_equal(plot_chart_write_lines(a.f, &c), 0);
    capture_close(&a);
    capture_open(&b);
    assert_int_equal(plot_chart_write_lines(b.f, &c), 0);
    capture_close(&b);
    assert_string_equal(a.text, b.text);
    assert_balanced(a.text);
    assert_int_equal(count_of(a.text, "class=\"series\""), 2);
    assert_int_equal(count_of(a.text, "class=\"point\""), 6);
    assert_int_equal(count_of(a.text, "<polyline"), 2);
    assert_int_equal(count_of(a.text, "class=\"errorbar\""), 5);
    /* x ticks 100 .. 10k, all labelled (two decades). */
    assert_non_null(strstr(a.text, ">100</text>"));
    assert_non_null(strstr(a.text, ">5k</text>"));
    assert_non_null(strstr(a.text, ">10k</text>"));
    assert_non_null(strstr(a.text, "<title>tea at 1k: 2.00% (1.50% to 2.50%)</title>"));
    free(a.text);
    free(b.text);

    /* x = 0 on a log axis, and a negative mean. */
    {
        plot_chart_point bad[] = { { 0, 1, NAN, NAN } };
        plot_chart_series one = { "x", NULL, bad, 1 };
        c.series = &one;
        c.count = 1;
        capture_open(&a);
        assert_int_equal(plot_chart_write_lines(a.f, &c), TEA_ERR_USAGE);
        assert_contains(error_message(), "logarithmic");
        bad[0].x = 10;
        bad[0].y = -1;
        assert_int_equal(plot_chart_write_lines(a.f, &c), TEA_ERR_USAGE);
        capture_close(&a);
        assert_string_equal(a.text, "");
        free(a.text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escape_xml_specials_and_bad_bytes),
        cmocka_unit_test(numbers_are_trimmed),
        cmocka_unit_test(svg_document_elements),
        cmocka_unit_test(nice_ticks_by_hand),
        cmocka_unit_test(log_ticks_by_hand),
        cmocka_unit_test(hsl_and_series_colors),
        cmocka_unit_test(stacked_bars_counts_and_determinism),
        cmocka_unit_test(grouped_bars_with_whiskers),
        cmocka_unit_test(grouped_bars_below_zero),
        cmocka_unit_test(line_chart_log_axis),
        cmocka_unit_test(flame_frames_by_hand),
        cmocka_unit_test(flame_merges_narrow_frames),
        cmocka_unit_test(flame_legend_by_text_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
