/*
 * flame.c: an interactive flame graph as one SVG file (see flame.h).
 */
#include "flame.h"
#include "svg.h"
#include "common/error.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLAME_MARGIN 10.0         /* left and right */
#define FLAME_HEADER 56.0         /* title and buttons above the frames */
#define FLAME_FOOTER 28.0         /* the status line below them */
#define FLAME_ROW 18.0            /* a frame's height, gap included */
#define FLAME_GAP 1.0             /* between rows */
#define FLAME_FONT 12.0           /* the document's */
#define FLAME_LABEL_FONT 11.0     /* frame labels */
#define FLAME_CHAR_WIDTH 6.6      /* a label character, about 0.6 em */
#define FLAME_LABEL_PAD 3.0       /* label inset from the frame's left edge */
#define FLAME_LABEL_MIN_CHARS 3   /* fewer fit: no label */
#define FLAME_TITLE_FONT 16.0
#define FLAME_TEXT_DARK "#000000"
#define FLAME_TEXT_LIGHT "#ffffff"
#define FLAME_ROOT_COLOR "#bdbdbd"
#define FLAME_HIGHLIGHT "#e600e6"  /* search matches: a magenta no component uses */
#define FLAME_LUMA_DARK 140        /* below this luma (0-255) labels are white */
#define FLAME_MAX_EXACT (UINT64_C(1) << 53)  /* the script adds weights as doubles */
#define PERCENT 100.0
#define FLAME_OTHERS_COLOR "#d9d9d9" /* merged narrow frames */
#define FLAME_LEGEND_ROW 16.0      /* a legend row's height */
#define FLAME_LEGEND_SWATCH 10.0   /* a legend entry's colour square */
#define FLAME_LEGEND_TEXT_GAP 4.0  /* from the swatch to the name */
#define FLAME_LEGEND_BASELINE 1.0  /* the name's baseline above the swatch's bottom */
#define FLAME_LEGEND_PAD 10.0      /* room after a name, before the next entry */
#define FLAME_LEGEND_CELL 150.0    /* the legend's grid: an entry takes whole cells */
#define FLAME_OTHERS_NAME_MAX 48   /* "(N others)" */

/* The script: zoom on click, search, hover details, URL query. Ours, no
 * library; it must not contain the CDATA end "]]" ">". */
static const char flame_script[] =
    "(function () {\n"
    "'use strict';\n"
    "var root = document.getElementById('frames');\n"
    "var L = +root.getAttribute('data-left'), S = +root.getAttribute('data-span');\n"
    "var T = +root.getAttribute('data-total'), CW = +root.getAttribute('data-char');\n"
    "var unit = root.getAttribute('data-unit'), HI = root.getAttribute('data-highlight');\n"
    "var frames = Array.prototype.slice.call(root.getElementsByTagName('g'));\n"
    "var details = document.getElementById('details'), matched = document.getElementById('matched');\n"
    "var unzoom = document.getElementById('unzoom');\n"
    "function num(g, a) { return +g.getAttribute(a); }\n"
    "function part(g, tag) { return g.getElementsByTagName(tag)[0]; }\n"
    "function pct(w) { return (100 * w / T).toFixed(2) + '%'; }\n"
    "function label(g, width) {\n"
    "  var n = g.getAttribute('data-n'), fit = Math.floor((width - 2 * 3) / CW);\n"
    "  part(g, 'text').textContent = fit < 3 ? '' : n.length <= fit ? n : n.substring(0, fit - 2) + '..';\n"
    "}\n"
    "function place(g, x, w) {\n"
    "  part(g, 'rect').setAttribute('x', x.toFixed(2));\n"
    "  part(g, 'rect').setAttribute('width', w.toFixed(2));\n"
    "  part(g, 'text').setAttribute('x', (x + 3).toFixed(2));\n"
    "  label(g, w);\n"
    "  g.style.display = '';\n"
    "}\n"
    "function zoom(z) {\n"
    "  var o0 = num(z, 'data-o'), w0 = num(z, 'data-w'), d0 = num(z, 'data-d');\n"
    "  frames.forEach(function (g) {\n"
    "    var o = num(g, 'data-o'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
    "    g.classList.remove('zoomed');\n"
    "    if (d < d0 ? o <= o0 && o + w >= o0 + w0 : o >= o0 && o + w <= o0 + w0)\n"
    "      place(g, d < d0 ? L : L + (o - o0) / w0 * S, d < d0 ? S : w / w0 * S);\n"
    "    else\n"
    "      g.style.display = 'none';\n"
    "  });\n"
    "  z.classList.add('zoomed');\n"
    "  unzoom.style.display = d0 > 0 ? '' : 'none';\n"
    "}\n"
    "function search(term) {\n"
    "  var t = (term || '').toLowerCase(), hits = [], kept = [], sum = 0;\n"
    "  frames.forEach(function (g) {\n"
    "    var on = t !== '' && g.getAttribute('data-n').toLowerCase().indexOf(t) >= 0;\n"
    "    part(g, 'rect').setAttribute('fill', on ? HI : g.getAttribute('data-c'));\n"
    "    if (on) { g.classList.add('match'); hits.push(g); } else g.classList.remove('match');\n"
    "  });\n"
    "  hits.sort(function (a, b) { return num(a, 'data-d') - num(b, 'data-d'); });\n"
    "  hits.forEach(function (g) {\n"
    "    var o = num(g, 'data-o'), w = num(g, 'data-w');\n"
    "    if (!kept.some(function (k) { return o >= k[0] && o + w <= k[1]; })) { kept.push([o, o + w]); sum += w; }\n"
    "  });\n"
    "  root.setAttribute('data-matched', String(sum));\n"
    "  matched.textContent = t === '' ? '' : 'Matched \"' + term + '\": ' + sum + ' ' + unit + ', ' + pct(sum);\n"
    "}\n"
    "function ask() { var t = window.prompt('Search frame names (case-insensitive text):', ''); if (t !== null) search(t); }\n"
    "frames.forEach(function (g) {\n"
    "  g.addEventListener('click', function () { zoom(g); });\n"
    "  g.addEventListener('mouseover', function () {\n"
    "    details.textContent = g.getAttribute('data-n') + ': ' + g.getAttribute('data-w') + ' ' + unit + ', ' +\n"
    "      pct(num(g, 'data-w'));\n"
    "  });\n"
    "  g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "});\n"
    "unzoom.addEventListener('click', function () { zoom(frames[0]); });\n"
    "document.getElementById('search').addEventListener('click', ask);\n"
    "document.addEventListener('keydown', function (e) {\n"
    "  if (e.key === '/' || ((e.ctrlKey || e.metaKey) && e.key === 'f')) { e.preventDefault(); ask(); }\n"
    "  else if (e.key === 'Escape') { search(''); zoom(frames[0]); }\n"
    "});\n"
    "var q = new URLSearchParams(window.location.search);\n"
    "if (q.get('x') && document.getElementById(q.get('x')))\n"
    "  document.getElementById(q.get('x')).dispatchEvent(new MouseEvent('click', { bubbles: true }));\n"
    "if (q.get('s')) search(q.get('s'));\n"
    "root.setAttribute('data-ready', '1');\n"
    "})();\n";

/* Sorting stack indices by their frames, name by name, then by index (so
 * the order is the same on every platform). */
typedef struct order_ctx {
    const plot_flame_stack *stacks;
    size_t depth;
} order_ctx;

/* A stack's frames. */
static size_t frames_of(const plot_flame_stack *s, size_t depth)
{
    return s->depth ? s->depth : depth;
}

/* A stack's frame d: its prefix's, then its own. */
static const char *frame_at(const plot_flame_stack *s, size_t d)
{
    return d < s->prefix_depth ? s->prefix[d] : s->frames[d - s->prefix_depth];
}

static const char *color_at(const plot_flame_stack *s, size_t d)
{
    return d < s->prefix_depth ? s->prefix_colors[d] : s->colors[d - s->prefix_depth];
}

/* Whether two frame names are equal (names are often the same pointer). */
static int same_name(const char *a, const char *b)
{
    return a == b || !strcmp(a, b);
}

static int compare_stacks(const order_ctx *c, size_t a, size_t b)
{
    const plot_flame_stack *x = &c->stacks[a], *y = &c->stacks[b];
    size_t da = frames_of(x, c->depth), db = frames_of(y, c->depth), d = 0;
    if (x->prefix == y->prefix) /* one prefix: the same names */
        d = x->prefix_depth < y->prefix_depth ? x->prefix_depth : y->prefix_depth;
    for (; d < da && d < db; d++) {
        const char *fa = frame_at(x, d), *fb = frame_at(y, d);
        int r = fa == fb ? 0 : strcmp(fa, fb);
        if (r)
            return r;
    }
    if (da != db) /* a prefix of the other: the shorter first */
        return da < db ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Merge sort of idx[0..n) with tmp as scratch. */
static void sort_stacks(const order_ctx *c, size_t *idx, size_t *tmp, size_t n)
{
    size_t half = n / 2, i = 0, j = half, k = 0;
    if (n < 2)
        return;
    sort_stacks(c, idx, tmp, half);
    sort_stacks(c, idx + half, tmp, n - half);
    while (i < half && j < n)
        tmp[k++] = compare_stacks(c, idx[i], idx[j]) <= 0 ? idx[i++] : idx[j++];
    while (i < half)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    assert(k == n); /* every index merged once */
    memcpy(idx, tmp, n * sizeof *idx);
}

/* Whether stacks a and b, which share frames 0..d-1 (a run of their
 * parent's), share frame d too. */
static int same_frame(const plot_flame_stack *a, const plot_flame_stack *b, size_t d)
{
    return same_name(frame_at(a, d), frame_at(b, d));
}

/* A label's colour on `fill` ("#rrggbb"): white on dark fills. */
static const char *text_color(const char *fill)
{
    unsigned r, g, b;
    if (!fill || sscanf(fill, "#%2x%2x%2x", &r, &g, &b) != 3)
        return FLAME_TEXT_DARK;
    /* ITU-R BT.601 luma, in thousandths */
    return (299 * r + 587 * g + 114 * b) / 1000 < FLAME_LUMA_DARK ? FLAME_TEXT_LIGHT : FLAME_TEXT_DARK;
}

/* Writes `name` cut to what fits in `width` ("name.." when cut; empty when
 * fewer than FLAME_LABEL_MIN_CHARS fit), escaped. Cuts count bytes, so a
 * cut inside a UTF-8 character becomes '?' (plot_svg_escape). */
static void put_label(FILE *out, const char *name, double width)
{
    double room = (width - 2 * FLAME_LABEL_PAD) / FLAME_CHAR_WIDTH;
    size_t fit = room > 0 ? (size_t)room : 0, len = strlen(name);
    char *cut;
    if (fit < FLAME_LABEL_MIN_CHARS)
        return;
    if (len <= fit) {
        plot_svg_escape(out, name);
        return;
    }
    if (!(cut = malloc(fit + 1)))
        return; /* a label is a convenience: none rather than a failure */
    memcpy(cut, name, fit - 2);
    memcpy(cut + fit - 2, "..", 3);
    plot_svg_escape(out, cut);
    free(cut);
}

/* One frame: its group, tooltip, rectangle and label. */
static void put_frame(FILE *out, size_t id, size_t d, uint64_t offset, uint64_t weight, uint64_t total,
                      const char *name, const char *color, const char *unit, double x, double y, double w)
{
    char xb[PLOT_SVG_NUMBER_MAX], yb[PLOT_SVG_NUMBER_MAX], wb[PLOT_SVG_NUMBER_MAX], hb[PLOT_SVG_NUMBER_MAX],
        tb[PLOT_SVG_NUMBER_MAX];
    char ty[PLOT_SVG_NUMBER_MAX], share[PLOT_SVG_NUMBER_MAX];

    assert(weight <= total && offset <= total - weight); /* inside the root's span */
    plot_svg_format_number(x, xb, sizeof xb);
    plot_svg_format_number(y, yb, sizeof yb);
    plot_svg_format_number(w, wb, sizeof wb);
    plot_svg_format_number(FLAME_ROW - FLAME_GAP, hb, sizeof hb);
    plot_svg_format_number(x + FLAME_LABEL_PAD, tb, sizeof tb);
    plot_svg_format_number(y + FLAME_ROW - FLAME_GAP - (FLAME_ROW - FLAME_LABEL_FONT) / 2, ty, sizeof ty);
    emit_fixed(PERCENT * (double)weight / (double)total, 2, share, sizeof share);
    fprintf(out, "    <g class=\"frame\" id=\"f%zu\" data-d=\"%zu\" data-o=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-c=\"",
            id, d, offset, weight);
    plot_svg_escape(out, color);
    fputs("\" data-n=\"", out);
    plot_svg_escape(out, name);
    fputs("\"><title>", out);
    plot_svg_escape(out, name);
    fprintf(out, ": %" PRIu64 " ", weight);
    plot_svg_escape(out, unit);
    fprintf(out, " (%s%%)</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"2\" fill=\"", share, xb,
            yb, wb, hb);
    plot_svg_escape(out, color);
    fprintf(out, "\"/><text x=\"%s\" y=\"%s\" fill=\"%s\">", tb, ty, text_color(color));
    put_label(out, name, w);
    fputs("</text></g>\n", out);
}

/* A run of sorted stacks idx[i..j) whose frames 0..d-1 are one frame's,
 * drawn from `offset` on. */
typedef struct flame_parent {
    size_t i, j;
    uint64_t offset, weight;
} flame_parent;

/* Depth by depth, each run of stacks sharing frames 0..d is one frame; the
 * runs of each parent narrower than `min_width` become one frame at its end
 * and have nothing above them (flame.h). Returns 0 or TEA_ERR_NOMEM. */
static int put_frames(FILE *out, const plot_flame_stack *stacks, const size_t *idx, size_t n, size_t depth,
                      uint64_t total, double span, double bottom, const char *unit, double min_width, size_t *id)
{
    flame_parent *parents = malloc((n ? n : 1) * sizeof *parents), *next = malloc((n ? n : 1) * sizeof *next);
    size_t count = n ? 1 : 0;

    if (!parents || !next) {
        free(parents);
        free(next);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    parents[0] = (flame_parent){ 0, n, 0, total };
    for (size_t d = 0; d < depth && count; d++) {
        size_t kept = 0;
        double y = bottom - (double)(d + 1) * FLAME_ROW;
        for (size_t p = 0; p < count; p++) {
            uint64_t offset = parents[p].offset, narrow = 0;
            size_t narrow_runs = 0, narrow_first = 0;
            for (size_t i = parents[p].i; i < parents[p].j;) {
                const plot_flame_stack *first = &stacks[idx[i]];
                uint64_t weight = 0;
                if (frames_of(first, depth) <= d) { /* it ended at the parent (sorted first): a gap */
                    offset += first->weight;
                    i++;
                    continue;
                }
                size_t j = i;
                while (j < parents[p].j && frames_of(&stacks[idx[j]], depth) > d && same_frame(first, &stacks[idx[j]], d))
                    weight += stacks[idx[j++]].weight;
                assert(j > i); /* a run holds its first stack at least: the loop moves on */
                if (min_width > 0 && span * (double)weight / (double)total < min_width) {
                    narrow += weight;
                    if (narrow_runs++ == 0)
                        narrow_first = i;
                } else {
                    put_frame(out, (*id)++, d + 1, offset, weight, total, frame_at(first, d), color_at(first, d), unit,
                              FLAME_MARGIN + span * (double)offset / (double)total, y,
                              span * (double)weight / (double)total);
                    assert(kept < n); /* a frame per run of stacks: never more than the stacks */
                    next[kept++] = (flame_parent){ i, j, offset, weight };
                    offset += weight;
                }
                i = j;
            }
            if (narrow_runs) {
                const plot_flame_stack *first = &stacks[idx[narrow_first]];
                char name[FLAME_OTHERS_NAME_MAX];
                snprintf(name, sizeof name, "(%zu others)", narrow_runs);
                put_frame(out, (*id)++, d + 1, offset, narrow, total, narrow_runs == 1 ? frame_at(first, d) : name,
                          narrow_runs == 1 ? color_at(first, d) : FLAME_OTHERS_COLOR, unit,
                          FLAME_MARGIN + span * (double)offset / (double)total, y, span * (double)narrow / (double)total);
                offset += narrow;
            }
            assert(offset == parents[p].offset + parents[p].weight); /* the children tile their parent */
        }
        flame_parent *swap = parents;
        parents = next;
        next = swap;
        count = kept;
    }
    free(parents);
    free(next);
    return TEA_OK;
}

/* The legend is a grid of FLAME_LEGEND_CELL-wide cells in rows across the
 * drawing; each entry takes the cells its swatch and name need, so that no
 * two overlap however long the names (components of several events), and
 * goes to the next row when the cells left in its row are too few. */
typedef struct legend_cursor {
    size_t per_row;  /* cells in a row */
    size_t row;      /* the row being filled */
    size_t cell;     /* its first free cell */
} legend_cursor;

/* A cursor at the first cell of a legend `width` units wide. */
static legend_cursor legend_start(double width)
{
    size_t k = (size_t)((width - 2 * FLAME_MARGIN) / FLAME_LEGEND_CELL);
    return (legend_cursor){ k ? k : 1, 0, 0 };
}

/* The cells an entry named `name` takes: its swatch, the gap, the name at
 * FLAME_CHAR_WIDTH a character (UTF-8 code point) and the room after it;
 * a row at most (a longer name runs past the row's end). */
static size_t legend_cells(const char *name, size_t per_row)
{
    size_t chars = 0, cells;
    for (const unsigned char *s = (const unsigned char *)(name ? name : ""); *s; s++)
        chars += (*s & 0xC0) != 0x80;
    cells = (size_t)ceil((FLAME_LEGEND_SWATCH + FLAME_LEGEND_TEXT_GAP + (double)chars * FLAME_CHAR_WIDTH
                          + FLAME_LEGEND_PAD) / FLAME_LEGEND_CELL);
    return cells < 1 ? 1 : cells > per_row ? per_row : cells;
}

/* Places the next entry, `name`: its row and first cell; the cursor moves
 * past it. */
static void legend_place(legend_cursor *c, const char *name, size_t *row, size_t *cell)
{
    size_t cells = legend_cells(name, c->per_row);
    if (c->cell > 0 && c->cell + cells > c->per_row) {
        c->row++;
        c->cell = 0;
    }
    assert(c->cell + cells <= c->per_row); /* the entry ends inside its row: entries never overlap */
    *row = c->row;
    *cell = c->cell;
    c->cell += cells;
}

/* The legend's height: its rows, and a gap above them. */
static double legend_height(const plot_flame_options *o, double width)
{
    legend_cursor c = legend_start(width);
    size_t row = 0, cell;

    if (!o->legend_count)
        return 0;
    for (size_t k = 0; k < o->legend_count; k++)
        legend_place(&c, o->legend[k].name, &row, &cell);
    return (double)(row + 2) * FLAME_LEGEND_ROW; /* rows 0..row and the gap */
}

/* The legend: a swatch and a name per entry, in rows from `top`. */
static void put_legend(FILE *out, const plot_flame_options *o, double width, double top)
{
    legend_cursor c = legend_start(width);
    char xb[PLOT_SVG_NUMBER_MAX], yb[PLOT_SVG_NUMBER_MAX], tb[PLOT_SVG_NUMBER_MAX], ty[PLOT_SVG_NUMBER_MAX],
        sb[PLOT_SVG_NUMBER_MAX];

    if (!o->legend_count)
        return;
    fputs("  <g id=\"legend\">\n", out);
    plot_svg_format_number(FLAME_LEGEND_SWATCH, sb, sizeof sb);
    for (size_t k = 0; k < o->legend_count; k++) {
        size_t row, cell;
        double x, y;
        legend_place(&c, o->legend[k].name, &row, &cell);
        x = FLAME_MARGIN + (double)cell * FLAME_LEGEND_CELL;
        y = top + (double)row * FLAME_LEGEND_ROW;
        plot_svg_format_number(x, xb, sizeof xb);
        plot_svg_format_number(y, yb, sizeof yb);
        plot_svg_format_number(x + FLAME_LEGEND_SWATCH + FLAME_LEGEND_TEXT_GAP, tb, sizeof tb);
        plot_svg_format_number(y + FLAME_LEGEND_SWATCH - FLAME_LEGEND_BASELINE, ty, sizeof ty);
        fprintf(out, "    <g class=\"legend-entry\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"", xb, yb,
                sb, sb);
        plot_svg_escape(out, o->legend[k].color);
        fprintf(out, "\"/><text x=\"%s\" y=\"%s\" font-size=\"11\">", tb, ty);
        plot_svg_escape(out, o->legend[k].name);
        fputs("</text></g>\n", out);
    }
    fputs("  </g>\n", out);
}

int plot_flame_write(FILE *out, const plot_flame_options *o, const plot_flame_stack *stacks, size_t n, size_t depth)
{
    double width = o->width > 0 ? o->width : PLOT_FLAME_DEFAULT_WIDTH;
    double span = width - 2 * FLAME_MARGIN,
           height = FLAME_HEADER + (double)(depth + 1) * FLAME_ROW + FLAME_FOOTER + legend_height(o, width);
    double bottom = FLAME_HEADER + (double)depth * FLAME_ROW; /* the root row's top */
    double min_width = o->min_width == 0 ? PLOT_FLAME_DEFAULT_MIN_WIDTH : o->min_width;
    int rc;
    const char *unit = o->unit ? o->unit : "";
    size_t *idx = NULL, *tmp = NULL, id = 0;
    uint64_t total = 0;
    order_ctx ctx = { stacks, depth };
    plot_svg_writer w;
    char buf[PLOT_SVG_NUMBER_MAX], left[PLOT_SVG_NUMBER_MAX], spanb[PLOT_SVG_NUMBER_MAX], charb[PLOT_SVG_NUMBER_MAX];

    if (depth < 1 || depth > PLOT_FLAME_MAX_DEPTH)
        return error_set(TEA_ERR_USAGE, "a flame graph's stacks have 1 to %d frames, not %zu", PLOT_FLAME_MAX_DEPTH,
                         depth);
    for (size_t i = 0; i < n; i++) {
        if (stacks[i].depth > depth)
            return error_set(TEA_ERR_USAGE, "a flame graph's stack has %zu frames, more than %zu", stacks[i].depth,
                             depth);
        if (stacks[i].prefix_depth >= frames_of(&stacks[i], depth))
            return error_set(TEA_ERR_USAGE, "a flame graph's stack has no frames after its prefix");
        if (stacks[i].weight == 0)
            return error_set(TEA_ERR_USAGE, "a flame graph's stack has no weight");
        if (stacks[i].weight > FLAME_MAX_EXACT - total)
            return error_set(TEA_ERR_USAGE, "a flame graph's total is above 2^53");
        total += stacks[i].weight;
    }
    if (n && (!(idx = malloc(n * sizeof *idx)) || !(tmp = malloc(n * sizeof *tmp)))) {
        free(idx);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_stacks(&ctx, idx, tmp, n);
    free(tmp);

    plot_svg_begin(&w, out, width, height, FLAME_FONT, o->title);
    fputs("  <style>.frame { cursor: pointer; } .frame:hover rect { stroke: #000000; stroke-width: 0.5; }"
          " .frame text { font-size: 11px; pointer-events: none; }"
          " .button { cursor: pointer; fill: #1a4f8a; } .button:hover { text-decoration: underline; }</style>\n",
          out);
    if (o->title)
        plot_svg_text(&w, width / 2, FLAME_HEADER / 2 - 4, PLOT_SVG_ANCHOR_MIDDLE, FLAME_TITLE_FONT, 0, NULL, o->title);
    fprintf(out, "  <text id=\"unzoom\" class=\"button\" x=\"%s\" y=\"%s\" style=\"display:none\">Reset zoom</text>\n",
            plot_svg_format_number(FLAME_MARGIN, left, sizeof left),
            plot_svg_format_number(FLAME_HEADER - 10, buf, sizeof buf));
    fprintf(out, "  <text id=\"search\" class=\"button\" x=\"%s\" y=\"%s\" text-anchor=\"end\">Search</text>\n",
            plot_svg_format_number(width - FLAME_MARGIN, spanb, sizeof spanb), buf);
    fprintf(out, "  <text id=\"matched\" x=\"%s\" y=\"%s\" text-anchor=\"end\"> </text>\n",
            plot_svg_format_number(width - FLAME_MARGIN, spanb, sizeof spanb),
            plot_svg_format_number(height - FLAME_FOOTER / 2 + 4, buf, sizeof buf));
    fprintf(out, "  <text id=\"details\" x=\"%s\" y=\"%s\"> </text>\n", left, buf);

    plot_svg_format_number(FLAME_MARGIN, left, sizeof left);
    plot_svg_format_number(span, spanb, sizeof spanb);
    plot_svg_format_number(FLAME_CHAR_WIDTH, charb, sizeof charb);
    fprintf(out, "  <g id=\"frames\" data-total=\"%" PRIu64 "\" data-left=\"%s\" data-span=\"%s\" data-char=\"%s\" "
                 "data-highlight=\"" FLAME_HIGHLIGHT "\" data-unit=\"", total, left, spanb, charb);
    plot_svg_escape(out, unit);
    fputs("\">\n", out);
    put_frame(out, id++, 0, 0, total, total ? total : 1, o->root ? o->root : "all", FLAME_ROOT_COLOR, unit,
              FLAME_MARGIN, bottom, total ? span : 0);
    if ((rc = put_frames(out, stacks, idx, n, depth, total, span, bottom, unit, min_width, &id)))
        goto done;
    fputs("  </g>\n  <script type=\"text/javascript\"><![CDATA[\n", out);
    fputs(flame_script, out);
    fputs("]]></script>\n", out);
    put_legend(out, o, width, bottom + FLAME_ROW + FLAME_FOOTER);
    plot_svg_end(&w);
done:
    free(idx);
    return rc;
}
