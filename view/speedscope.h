/*
 * speedscope.h: a PICS as speedscope's JSON file (its file-format-schema:
 * shared frames, one "sampled" profile), for `pics export --format
 * speedscope`.
 *
 * Each cell is one stack of three frames, root first, as `pics report
 * --format folded` writes it: the instruction's function, the instruction
 * (function+0xOFF), and its component ("base", "ST-LLC", "ST-L1,FL-MB"),
 * weighted by its whole cycles (pics_whole_cycles; cells of 0 left out;
 * an instruction's cells of contexts whose callers have the same names
 * one sample, as view_report_folded_merge merges them);
 * the profile's unit is "none" (cycles), its end value the total. The
 * file's name and the profile's say the scheme and the binary.
 */
#ifndef TEA_VIEW_SPEEDSCOPE_H
#define TEA_VIEW_SPEEDSCOPE_H

#include "binary/symbolize.h"
#include "pics/pics_file.h"
#include "view/table.h"

#include <stdio.h>

typedef struct view_speedscope_input {
    view_table_cells pics;    /* the PICS, its cells sorted by (pc, psv) (pics_sorted) */
    const binary_symbolizer *z; /* names functions and instructions; NULL: addresses */
    const char *exporter;     /* the "exporter" field (the tool's version) */
} view_speedscope_input;

/* Writes the file to `f`. 0, TEA_ERR_NOMEM. */
int view_speedscope_write(FILE *f, const view_speedscope_input *in);

#endif
