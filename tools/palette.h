/*
 * palette.h: the fixed look of the project's figures, chosen by what the
 * charts draw (plot/chart.h takes every colour and title from its caller):
 * their colours, and how their titles name the traced program.
 *
 * A PICS component (PSV) and a scheme each have one colour everywhere, so
 * that a component or TEA looks the same in every figure.
 */
#ifndef TEA_TOOLS_PALETTE_H
#define TEA_TOOLS_PALETTE_H

#include "plot/chart.h"

#include <stddef.h>
#include <stdint.h>

/* The colour of a PICS component (a nine-bit PSV, trace/psv.h), "#rrggbb":
 * base light grey; stalls (ST-*) blues, drains (DR-*) yellow-oranges,
 * flushes (FL-*) crimsons (hues of Okabe and Ito's colour-blind-safe set, in
 * separate lightness bands: drains light, stalls medium, flushes dark, so
 * that the families also part in grey scale), darker the more of the
 * family's events are set (by the family's bits as a number); a component
 * mixing families takes the hue of its highest family (flush, then stall)
 * shifted towards the other (a flush with stalls purple, with drains
 * vermilion, with both violet; a stall with drains bluish green), its
 * family's lightness band and a saturation set by the other family's bits.
 * Distinct PSVs get distinct colours. */
void palette_component_color(uint16_t psv, char buf[PLOT_CHART_COLOR_MAX]);

/* The colour of a scheme named as in pics/scheme.h (golden, tea, nci, ibs,
 * spe, ris); any other label (NULL, "ibs:all") gets plot_chart_series_color(index). */
const char *palette_scheme_color(const char *scheme, size_t index);

/* A scheme label ("tea", "ibs:all") as papers name it, in `buf`: TEA,
 * NCI-TEA, IBS, SPE, RIS, "IBS (all events)" for SCHEME:all, SCHEME's name
 * with any other suffix; a label that names no scheme is returned as it is. */
const char *palette_scheme_display(const char *label, char *buf, size_t size);

/* How a chart title names the traced program: the file name of its binary
 * (`binary_path` without its directory), or NULL when there is none. Every
 * figure's title begins "PROGRAM: " when there is one. */
const char *palette_program(const char *binary_path);

#endif
