/*
 * speedscope.c: a PICS as speedscope's JSON file (see speedscope.h).
 */
#include "speedscope.h"
#include "common/error.h"
#include "common/json.h"
#include "common/strtab.h"
#include "trace/psv.h"
#include "view/callpath.h"
#include "view/report.h"

#include <stdlib.h>
#include <string.h>

/* The file format's schema, which the file names. */
#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"
/* Frames a stack has after its callers: function, instruction, component. */
#define STACK_FRAMES 3

/* The stacks of the cells: cell i's frames (indices into `frames`) are
 * stacks[start[i] .. start[i + 1]). */
typedef struct stacks {
    strtab frames;
    long *stacks;
    size_t *start;
    size_t count, cap;
} stacks;

static int push_index(stacks *st, long k);

/* Appends frame `name` to the stacks. 0, TEA_ERR_NOMEM. */
static int push_frame(stacks *st, const char *name)
{
    long k = strtab_index(&st->frames, name);
    if (k < 0)
        return TEA_ERR_NOMEM; /* the message is strtab_index's */
    return push_index(st, k);
}

/* Appends frame index `k`. */
static int push_index(stacks *st, long k)
{
    if (st->count == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 1024;
        long *n = realloc(st->stacks, cap * sizeof *n);
        if (!n)
            return error_set(TEA_ERR_NOMEM, "out of memory");
        st->stacks = n;
        st->cap = cap;
    }
    st->stacks[st->count++] = k;
    return TEA_OK;
}

/* The frame index of each context's call site's function (-1: none). */
static int site_frames(stacks *st, const view_callpath_names *names, long **out)
{
    const trace_contexts *t = names->contexts;
    long *f = t->count ? malloc(t->count * sizeof *f) : NULL;
    *out = f;
    if (t->count && !f)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (uint32_t id = 0; id < t->count; id++)
        if ((f[id] = names->site[id] ? strtab_index(&st->frames, names->site[id]) : -1) < 0 && names->site[id])
            return TEA_ERR_NOMEM; /* the message is strtab_index's */
    return TEA_OK;
}

/* The frames of every row: its context's callers (root first), its
 * function, instruction and component; an instruction's names looked up
 * once for its run of rows (rows come in PC order). 0, TEA_ERR_NOMEM. */
static int frames_of(const view_speedscope_input *in, const view_callpath_names *names,
                     const view_report_folded *rows, size_t n, stacks *st)
{
    char text[BINARY_SYMBOLIZE_TEXT_MAX];
    const trace_contexts *t = in->pics.contexts;
    long callers[VIEW_CALLPATH_MAX_CALLERS], *site = NULL, function = -1, location = -1;
    uint64_t named = 0;
    int rc = site_frames(st, names, &site);

    if (!rc && !(st->start = malloc((n + 1) * sizeof *st->start)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        const view_report_folded *r = &rows[i];
        size_t depth = 0;
        for (uint32_t id = r->ctx; t->count && id != TRACE_CONTEXT_ROOT; id = t->nodes[id].parent)
            if (site[id] >= 0)
                callers[depth++] = site[id];
        st->start[i] = st->count;
        while (depth > 0 && !rc) /* root first */
            rc = push_index(st, callers[--depth]);
        if (!rc && (i == 0 || r->pc != named)) {
            function = strtab_index(&st->frames, binary_symbolize_function(in->z, r->pc, text, sizeof text));
            location = strtab_index(&st->frames, binary_symbolize_location(in->z, r->pc, text, sizeof text));
            if (function < 0 || location < 0)
                rc = TEA_ERR_NOMEM; /* the message is strtab_index's */
            named = r->pc;
        }
        if (!rc && !(rc = push_index(st, function)) && !(rc = push_index(st, location)))
            rc = push_frame(st, trace_psv_label(r->psv, text, sizeof text));
    }
    if (!rc)
        st->start[n] = st->count;
    free(site);
    return rc;
}

/* The rows the profile's samples are: every cell with its whole cycles
 * (pics_whole_cycles), those of 0 left out, an instruction's cells of
 * contexts whose callers have the same names merged (as pics report
 * --format folded merges them). *rows malloc'd. 0, TEA_ERR_NOMEM. */
static int sample_rows(const view_speedscope_input *in, const view_callpath_names *names,
                       view_report_folded **rows, size_t *n)
{
    uint64_t *weights = in->pics.count ? malloc(in->pics.count * sizeof *weights) : NULL;
    uint32_t *canon = NULL;
    int rc = TEA_OK;

    *rows = NULL;
    *n = 0;
    if (!in->pics.count)
        return TEA_OK;
    if (!weights || !(*rows = malloc(in->pics.count * sizeof **rows))) {
        free(weights);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    pics_whole_cycles(in->pics.info, in->pics.total, in->pics.cells, in->pics.count, weights);
    for (size_t i = 0; i < in->pics.count; i++) {
        const pics_cell *c = &in->pics.cells[i];
        if (weights[i])
            (*rows)[(*n)++] = (view_report_folded){ c->pc, c->psv, c->ctx, weights[i] };
    }
    free(weights);
    if ((rc = view_callpath_canonical(names, &canon)) == TEA_OK)
        rc = view_report_folded_merge(*rows, n, canon);
    free(canon);
    return rc;
}

/* The name of the file and of its profile: the scheme, what it counts and
 * the binary's file name (when the PICS names one). */
static void profile_name(const pics_info *info, char *buf, size_t size)
{
    const char *bin = info->program.binary_path, *slash = bin ? strrchr(bin, '/') : NULL;
    snprintf(buf, size, "%s cycles%s%s", info->scheme, bin ? " of " : "", bin ? (slash ? slash + 1 : bin) : "");
}

int view_speedscope_write(FILE *f, const view_speedscope_input *in)
{
    stacks st;
    view_callpath_names names;
    view_report_folded *rows = NULL;
    uint64_t total = 0;
    size_t n = 0;
    char name[256];
    json_writer j;
    int rc;

    memset(&st, 0, sizeof st);
    strtab_init(&st.frames);
    if ((rc = view_callpath_names_init(&names, in->pics.contexts, in->z)))
        return rc;
    if ((rc = sample_rows(in, &names, &rows, &n)) || (rc = frames_of(in, &names, rows, n, &st)))
        goto done;
    for (size_t i = 0; i < n; i++)
        total += rows[i].weight;
    profile_name(in->pics.info, name, sizeof name);
    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "$schema");
    json_string(&j, SPEEDSCOPE_SCHEMA);
    json_key(&j, "name");
    json_string(&j, name);
    json_key(&j, "exporter");
    json_string(&j, in->exporter);
    json_key(&j, "activeProfileIndex");
    json_u64(&j, 0);
    json_key(&j, "shared");
    json_begin_object(&j);
    json_key(&j, "frames");
    json_begin_array(&j);
    for (size_t k = 0; k < st.frames.count; k++) {
        json_begin_object(&j);
        json_key(&j, "name");
        json_string(&j, st.frames.text[k]);
        json_end(&j);
    }
    json_end(&j);
    json_end(&j);
    json_key(&j, "profiles");
    json_begin_array(&j);
    json_begin_object(&j);
    json_key(&j, "type");
    json_string(&j, "sampled");
    json_key(&j, "name");
    json_string(&j, name);
    json_key(&j, "unit");
    json_string(&j, "none");
    json_key(&j, "startValue");
    json_u64(&j, 0);
    json_key(&j, "endValue");
    json_u64(&j, total);
    json_key(&j, "samples");
    json_begin_array(&j);
    for (size_t i = 0; i < n; i++) { /* a sample's frames on one line */
        json_begin_inline_array(&j);
        for (size_t k = st.start[i]; k < st.start[i + 1]; k++)
            json_u64(&j, (uint64_t)st.stacks[k]);
        json_end(&j);
    }
    json_end(&j);
    json_key(&j, "weights");
    json_begin_inline_array(&j);
    for (size_t i = 0; i < n; i++)
        json_u64(&j, rows[i].weight);
    json_end(&j);
    json_end(&j);
    json_end(&j);
    json_end(&j);
    json_finish(&j);
done:
    strtab_free(&st.frames);
    free(st.stacks);
    free(st.start);
    free(rows);
    view_callpath_names_free(&names);
    return rc;
}
