/*
 * pprof.h: a PICS as pprof's profile (profile.proto, gzip-compressed by
 * the caller), for `pics export --format pprof`.
 *
 * What the profile holds (docs/pics-format.md, "pprof"):
 *   - three sample types, the same in every export (so that pprof
 *     -diff_base takes any two): "cycles" (unit "cycles", the default),
 *     "instructions" (unit "count": a golden PICS's µops that committed or
 *     excepted; 0 in a sampled one) and "samples" (unit "count": a sampled
 *     PICS's samples; 0 in a golden one);
 *   - one sample per cell (instruction, component): its location, its
 *     values, a label "component" holding the component's name with '+'
 *     between events ("base", "ST-LLC", "ST-L1+FL-MB": pprof's tag
 *     filters split at commas), and a label "event" per event of it, so
 *     that `pprof -tagfocus component=ST-LLC` keeps one component and
 *     `-tagfocus event=ST-LLC` every component with ST-LLC;
 *   - one location per instruction address, with its function (and with
 *     a symbolizer, its source line), and the mapping of the object it
 *     lies in (path, build-id, run-time range);
 *   - cycles as whole numbers (pics_whole_cycles), as pics report
 *     --format folded gives them: rounded cumulatively in address order,
 *     so that the total is the exact one rounded and a function's (its
 *     cells are neighbours) within a cycle of its exact sum;
 *   - the provenance (scheme, trace, digest) as comments.
 * A flat PICS gives stacks of one frame: the instruction's function.
 */
#ifndef TEA_VIEW_PPROF_H
#define TEA_VIEW_PPROF_H

#include "binary/symbolize.h"
#include "common/protobuf.h"
#include "pics/pics_file.h"
#include "view/table.h"
#include "trace/symmap.h"

typedef struct view_pprof_input {
    view_table_cells pics;           /* the PICS, its cells sorted by (pc, psv) (pics_sorted) */
    const trace_symmap *functions;   /* the functions (view_report_functions); NULL: none */
    binary_symbolizer *z;            /* source lines (opened with source on); NULL: none */
    const char *const *comments;     /* more comments (the command line), or NULL */
    size_t comment_count;
} view_pprof_input;

/* Where the profile's bytes go, in order (a profile is its top-level
 * fields one after the other, so it is handed over in pieces of about
 * VIEW_PPROF_PIECE bytes as it is encoded). 0, or an error that ends the
 * encoding. */
typedef int (*view_pprof_sink)(void *ctx, const void *data, size_t size);
#define VIEW_PPROF_PIECE (1u << 20)

/* Encodes the profile of `in` to `sink`. 0, TEA_ERR_NOMEM, or the sink's
 * error. */
int view_pprof_encode(const view_pprof_input *in, view_pprof_sink sink, void *ctx);

#endif
