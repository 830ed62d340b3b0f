/*
 * svg.c: the SVG writer (see svg.h).
 */
#include "svg.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SVG_BACKGROUND "#ffffff"
#define SVG_FONT_FAMILY "sans-serif"
#define SVG_REPLACEMENT '?' /* stands for a byte XML cannot carry */

char *plot_svg_format_number(double v, char *buf, size_t size)
{
    size_t n;
    emit_fixed(v, PLOT_SVG_DECIMALS, buf, size);
    if (!strchr(buf, '.'))
        return buf;
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
    return buf;
}

/* The length of the valid UTF-8 sequence XML accepts at `s` (1..4), or 0
 * when the bytes there are not one (bad lead or continuation byte, overlong
 * form, surrogate, beyond U+10FFFF, U+FFFE or U+FFFF). */
static size_t utf8_sequence(const unsigned char *s)
{
    uint32_t cp;
    size_t len;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
        cp = s[0] & 0x1Fu;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        cp = s[0] & 0x0Fu;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)
        || cp == 0xFFFE || cp == 0xFFFF)
        return 0;
    return len;
}

void plot_svg_escape(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");

    while (*s) {
        size_t len;
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            s++;
            continue;
        case '<':
            fputs("&lt;", out);
            s++;
            continue;
        case '>':
            fputs("&gt;", out);
            s++;
            continue;
        case '"':
            fputs("&quot;", out);
            s++;
            continue;
        case '\'':
            fputs("&apos;", out);
            s++;
            continue;
        default:
            break;
        }
        if (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') {
            fputc(SVG_REPLACEMENT, out);
            s++;
            continue;
        }
        len = utf8_sequence(s);
        if (len == 0) {
            fputc(SVG_REPLACEMENT, out);
            s++;
            continue;
        }
        fwrite(s, 1, len, out);
        s += len;
    }
}

/* Writes ` name="number"`. */
static void put_number_attr(FILE *out, const char *name, double v)
{
    char buf[PLOT_SVG_NUMBER_MAX];
    fprintf(out, " %s=\"%s\"", name, plot_svg_format_number(v, buf, sizeof buf));
}

/* Writes ` name="escaped text"` when `value` is not NULL. */
static void put_text_attr(FILE *out, const char *name, const char *value)
{
    if (!value)
        return;
    fprintf(out, " %s=\"", name);
    plot_svg_escape(out, value);
    fputc('"', out);
}

static void put_style(FILE *out, const plot_svg_style *style)
{
    if (!style)
        return;
    put_text_attr(out, "class", style->cls);
    put_text_attr(out, "fill", style->fill);
    put_text_attr(out, "stroke", style->stroke);
    if (style->stroke_width > 0)
        put_number_attr(out, "stroke-width", style->stroke_width);
    put_text_attr(out, "stroke-dasharray", style->dash);
}

static void indent(const plot_svg_writer *w)
{
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Ends an element's start tag: with a <title> child and a closing tag when
 * `title` is given, else as an empty element. */
static void close_element(plot_svg_writer *w, const char *name, const char *title)
{
    if (!title) {
        fputs("/>\n", w->out);
        return;
    }
    fputs("><title>", w->out);
    plot_svg_escape(w->out, title);
    fprintf(w->out, "</title></%s>\n", name);
}

void plot_svg_begin(plot_svg_writer *w, FILE *out, double width, double height, double font_size, const char *title)
{
    char wb[PLOT_SVG_NUMBER_MAX], hb[PLOT_SVG_NUMBER_MAX];

    w->out = out;
    w->depth = 0;
    plot_svg_format_number(width, wb, sizeof wb);
    plot_svg_format_number(height, hb, sizeof hb);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%s\" height=\"%s\" "
            "viewBox=\"0 0 %s %s\" font-family=\"" SVG_FONT_FAMILY "\"",
            wb, hb, wb, hb);
    put_number_attr(out, "font-size", font_size);
    fputs(">\n", out);
    w->depth = 1;
    if (title) {
        indent(w);
        fputs("<title>", out);
        plot_svg_escape(out, title);
        fputs("</title>\n", out);
    }
    indent(w);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%s\" height=\"%s\" fill=\"" SVG_BACKGROUND "\"/>\n", wb, hb);
}

void plot_svg_end(plot_svg_writer *w)
{
    while (w->depth > 1)
        plot_svg_group_end(w);
    if (w->depth == 1) {
        fputs("</svg>\n", w->out);
        w->depth = 0;
    }
}

void plot_svg_group_begin(plot_svg_writer *w, const plot_svg_style *style, const char *title)
{
    assert(w->out && w->depth >= 1); /* inside the document: after plot_svg_begin, before plot_svg_end */
    if (w->depth >= PLOT_SVG_MAX_DEPTH) {
        w->depth++; /* counted so that the matching plot_svg_group_end stays balanced */
        return;
    }
    indent(w);
    fputs("<g", w->out);
    put_style(w->out, style);
    fputs(">", w->out);
    if (title) {
        fputs("<title>", w->out);
        plot_svg_escape(w->out, title);
        fputs("</title>", w->out);
    }
    fputc('\n', w->out);
    w->depth++;
}

void plot_svg_group_end(plot_svg_writer *w)
{
    assert(w->depth > 1); /* every end matches a begin */
    if (w->depth <= 1)
        return;
    w->depth--;
    if (w->depth >= PLOT_SVG_MAX_DEPTH)
        return;
    indent(w);
    fputs("</g>\n", w->out);
}

void plot_svg_rect(plot_svg_writer *w, double x, double y, double width, double height, const plot_svg_style *style,
                   const char *title)
{
    assert(w->out && w->depth >= 1); /* inside the document: after plot_svg_begin, before plot_svg_end */
    indent(w);
    fputs("<rect", w->out);
    put_number_attr(w->out, "x", x);
    put_number_attr(w->out, "y", y);
    put_number_attr(w->out, "width", width > 0 ? width : 0);
    put_number_attr(w->out, "height", height > 0 ? height : 0);
    put_style(w->out, style);
    close_element(w, "rect", title);
}

void plot_svg_line(plot_svg_writer *w, double x1, double y1, double x2, double y2, const plot_svg_style *style)
{
    assert(w->out && w->depth >= 1); /* inside the document: after plot_svg_begin, before plot_svg_end */
    indent(w);
    fputs("<line", w->out);
    put_number_attr(w->out, "x1", x1);
    put_number_attr(w->out, "y1", y1);
    put_number_attr(w->out, "x2", x2);
    put_number_attr(w->out, "y2", y2);
    put_style(w->out, style);
    close_element(w, "line", NULL);
}

void plot_svg_polyline(plot_svg_writer *w, const double *xs, const double *ys, size_t n, const plot_svg_style *style,
                       const char *title)
{
    char xb[PLOT_SVG_NUMBER_MAX], yb[PLOT_SVG_NUMBER_MAX];

    assert(w->out && w->depth >= 1); /* inside the document: after plot_svg_begin, before plot_svg_end */
    assert(n == 0 || (xs && ys));
    indent(w);
    fputs("<polyline points=\"", w->out);
    for (size_t i = 0; i < n; i++)
        fprintf(w->out, "%s%s,%s", i ? " " : "", plot_svg_format_number(xs[i], xb, sizeof xb),
                plot_svg_format_number(ys[i], yb, sizeof yb));
    fputc('"', w->out);
    put_style(w->out, style);
    close_element(w, "polyline", title);
}

void plot_svg_circle(plot_svg_writer *w, double cx, double cy, double r, const plot_svg_style *style, const char *title)
{
    assert(w->out && w->depth >= 1); /* inside the document: after plot_svg_begin, before plot_svg_end */
    indent(w);
    fputs("<circle", w->out);
    put_number_attr(w->out, "cx", cx);
    put_number_attr(w->out, "cy", cy);
    put_number_attr(w->out, "r", r > 0 ? r : 0);
    put_style(w->out, style);
    close_element(w, "circle", title);
}

void plot_svg_text(plot_svg_writer *w, double x, double y, plot_svg_anchor anchor, double font_size, double rotate,
                   const plot_svg_style *style, const char *text)
{
    static const char *const anchors[] = { "start", "middle", "end" };
    char xb[PLOT_SVG_NUMBER_MAX], yb[PLOT_SVG_NUMBER_MAX], rb[PLOT_SVG_NUMBER_MAX];

    assert(w->out && w->depth >= 1); /* inside the document: after plot_svg_begin, before plot_svg_end */
    indent(w);
    fputs("<text", w->out);
    put_number_attr(w->out, "x", x);
    put_number_attr(w->out, "y", y);
    if (anchor != PLOT_SVG_ANCHOR_START)
        fprintf(w->out, " text-anchor=\"%s\"", anchors[anchor == PLOT_SVG_ANCHOR_END ? 2 : 1]);
    if (font_size > 0)
        put_number_attr(w->out, "font-size", font_size);
    plot_svg_format_number(rotate, rb, sizeof rb);
    if (strcmp(rb, "0") != 0)
        fprintf(w->out, " transform=\"rotate(%s %s %s)\"", rb, plot_svg_format_number(x, xb, sizeof xb),
                plot_svg_format_number(y, yb, sizeof yb));
    put_style(w->out, style);
    fputc('>', w->out);
    plot_svg_escape(w->out, text);
    fputs("</text>\n", w->out);
}
