/*
 * svg.h: a minimal writer of plain SVG 1.1 documents.
 *
 * Writes elements straight to a FILE* as they are asked for: the document
 * (width, height, viewBox), groups, rectangles, lines, polylines, circles and
 * text, each with an optional <title> (a tooltip in browsers). Text is
 * escaped for XML (& < > " ' become entities; control characters and bytes
 * that are not UTF-8 become '?'), so the output is always well-formed XML.
 *
 * Numbers are written with at most PLOT_SVG_DECIMALS fraction digits by integer
 * arithmetic (no locale, no "-0", trailing zeros dropped), so the same calls
 * give byte-identical files. Write errors are left in the stream's error
 * flag for the caller to check (outfile_commit reports them).
 */
#ifndef TEA_PLOT_SVG_H
#define TEA_PLOT_SVG_H

#include "common/emit.h"

#include <stddef.h>
#include <stdio.h>

/* Fraction digits of coordinates and lengths. */
#define PLOT_SVG_DECIMALS 2
/* Enough for any number svg_format_* writes. */
#define PLOT_SVG_NUMBER_MAX 32
/* Deepest nesting of groups. */
#define PLOT_SVG_MAX_DEPTH 16

typedef struct plot_svg_writer {
    FILE *out;
    int depth;      /* open elements: the document and its groups */
} plot_svg_writer;

/* How an element is drawn. Every field may be left zero/NULL: the attribute
 * is then not written (and SVG's default or the enclosing group's applies). */
typedef struct plot_svg_style {
    const char *cls;      /* class attribute (lets tests and stylesheets find elements) */
    const char *fill;     /* "#rrggbb", "none", ... */
    const char *stroke;
    double stroke_width;  /* user units; written when > 0 */
    const char *dash;     /* stroke-dasharray, e.g. "4 2" */
} plot_svg_style;

typedef enum plot_svg_anchor { PLOT_SVG_ANCHOR_START = 0, PLOT_SVG_ANCHOR_MIDDLE, PLOT_SVG_ANCHOR_END } plot_svg_anchor;

/* Like emit_fixed with PLOT_SVG_DECIMALS digits, then trailing zeros and a
 * trailing point dropped ("12.5", "3", "-0.25"). Returns buf. */
char *plot_svg_format_number(double v, char *buf, size_t size);

/* Writes `text` escaped for XML character data and attribute values. */
void plot_svg_escape(FILE *out, const char *text);

/* Starts a document of `width` x `height` user units (viewBox 0 0 width
 * height) with a white background, sans-serif text of `font_size`, and a
 * <title> when `title` is not NULL. */
void plot_svg_begin(plot_svg_writer *w, FILE *out, double width, double height, double font_size, const char *title);

/* Closes every open group and the document. */
void plot_svg_end(plot_svg_writer *w);

/* Opens a <g> with the given style (NULL: none) and optional <title>.
 * Groups nest up to PLOT_SVG_MAX_DEPTH; deeper calls are ignored together with
 * their plot_svg_group_end. */
void plot_svg_group_begin(plot_svg_writer *w, const plot_svg_style *style, const char *title);

void plot_svg_group_end(plot_svg_writer *w);

/* Elements. `style` and `title` may be NULL. Negative widths or heights
 * are written as 0. */
void plot_svg_rect(plot_svg_writer *w, double x, double y, double width, double height, const plot_svg_style *style,
                   const char *title);
void plot_svg_line(plot_svg_writer *w, double x1, double y1, double x2, double y2, const plot_svg_style *style);
void plot_svg_polyline(plot_svg_writer *w, const double *xs, const double *ys, size_t n, const plot_svg_style *style,
                       const char *title);
void plot_svg_circle(plot_svg_writer *w, double cx, double cy, double r, const plot_svg_style *style,
                     const char *title);

/* Text at (x, y) (the baseline), anchored at its start, middle or end,
 * rotated by `rotate` degrees about (x, y) when non-zero; `font_size` 0
 * inherits the document's. */
void plot_svg_text(plot_svg_writer *w, double x, double y, plot_svg_anchor anchor, double font_size, double rotate,
                   const plot_svg_style *style, const char *text);

#endif
