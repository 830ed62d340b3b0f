/*
 * flame.h: an interactive flame graph as one SVG file.
 *
 * The caller gives stacks: each a list of frame names from the outermost
 * (a function) to the innermost (a component), a colour per frame and a
 * whole-number weight (cycles). Stacks that share a prefix of frames share
 * those frames; each frame is as wide as the sum of its stacks' weights, so
 * the frames of every depth sum to the total. A root frame spans all.
 *
 * The file opens in any browser and needs nothing else: a small script of
 * its own zooms into a frame when it is clicked (its ancestors span the
 * width, other frames hide; the root or "Reset zoom" zooms out), searches
 * frame names (the "Search" button, '/' or Ctrl-F; Escape clears) and
 * highlights matches with the share they cover, and shows a frame's weight
 * and share on hover (in the status line and a <title> tooltip). A URL
 * query selects the same from a link: "?s=TEXT" searches, "?x=ID" zooms as
 * a click on the frame with element id ID ("f0" is the root, then frames
 * in document order) does.
 *
 * Every frame is a <g class="frame"> with data-d (depth, 0 for the root),
 * data-o and data-w (its offset and weight in the caller's units, integers)
 * and data-n (its name), holding a <title>, a <rect> and a <text>; the
 * frames' group <g id="frames"> has data-total, data-left, data-span (the
 * drawing's left edge and width in user units). Labels, colours and units
 * all come from the caller: plot/ knows nothing of PICS.
 */
#ifndef TEA_PLOT_FLAME_H
#define TEA_PLOT_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The drawing's default width in user units. */
#define PLOT_FLAME_DEFAULT_WIDTH 1200.0
/* Frames narrower than this (user units) are merged, as flamegraph.pl
 * drops frames under its --minwidth of 0.1 pixels. */
#define PLOT_FLAME_DEFAULT_MIN_WIDTH 0.1
/* Deepest stack. */
#define PLOT_FLAME_MAX_DEPTH 512

/* One stack: `depth` names and colours (0: the plot_flame_write argument,
 * which is the most any stack has): the `prefix_depth` of `prefix` (names
 * many stacks share, such as a calling context's callers: kept once), then
 * its own `frames`. */
typedef struct plot_flame_stack {
    const char *const *frames;  /* names after the prefix, outermost first; any text (escaped on output) */
    const char *const *colors;  /* "#rrggbb" per frame */
    uint64_t weight;            /* > 0 */
    size_t depth;               /* frames, the prefix's included: 1 to the plot_flame_write argument;
                                   0: that argument */
    const char *const *prefix;         /* the first prefix_depth names (NULL when 0) */
    const char *const *prefix_colors;  /* ... and their colours */
    size_t prefix_depth;               /* less than depth */
} plot_flame_stack;

/* One entry of the legend under the frames: a colour and what it means. */
typedef struct plot_flame_legend {
    const char *name;
    const char *color;   /* "#rrggbb" */
} plot_flame_legend;

typedef struct plot_flame_options {
    const char *title;   /* the heading and the document's <title> */
    const char *root;    /* the root frame's name ("all") */
    const char *unit;    /* what weights count ("cycles") */
    double width;        /* user units; 0: PLOT_FLAME_DEFAULT_WIDTH */
    double min_width;    /* user units: narrower frames are merged; 0: PLOT_FLAME_DEFAULT_MIN_WIDTH,
                            negative: none merged */
    const plot_flame_legend *legend; /* drawn under the frames in this order, in rows of
                                        150-unit cells: an entry takes the cells its name
                                        needs (0.6 em a character) and wraps to the next
                                        row, so that long names never overlap */
    size_t legend_count;
} plot_flame_options;

/*
 * Writes the flame graph of `n` stacks of at most `depth` frames (1 to
 * PLOT_FLAME_MAX_DEPTH) to `out`. Frames of equal prefixes are merged whatever the
 * order of the stacks; siblings are ordered by name. A stack that ends
 * below others of its prefix leaves its weight as a gap at the start of
 * its last frame (that frame's self weight). Siblings narrower than
 * the minimum width are drawn as one frame at the end of their parent, "(N
 * others)" with their total weight (one alone keeps its name), and nothing
 * above them: the file stays small and the page quick however many tiny
 * frames a large program has. The same input gives the same bytes. Returns 0, TEA_ERR_USAGE (a bad depth, a weight of 0, a
 * total above 2^53, which the script could not add exactly) or
 * TEA_ERR_NOMEM; write errors are left in the stream's error flag.
 */
int plot_flame_write(FILE *out, const plot_flame_options *o, const plot_flame_stack *stacks, size_t n, size_t depth);

#endif
