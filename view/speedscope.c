/*
 * speedscope.c: a PICS as speedscope's JSON file (see speedscope.h).
 */
#include "speedscope.h"
#include "common/error.h"
#include "common/json.h"
#include "common/strtab.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

/* The file format's schema, which the file names. */
#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"
/* Frames a stack has: function, instruction, component. */
#define STACK_FRAMES 3

/* The frames of every cell (stacks[3 i ...]) into `frames`. 0, TEA_ERR_NOMEM. */
static int frames_of(const view_speedscope_input *in, strtab *frames, long *stacks)
{
    char text[BINARY_SYMBOLIZE_TEXT_MAX];
    for (size_t i = 0; i < in->pics.count; i++) {
        uint64_t pc = in->pics.cells[i].pc;
        long *s = stacks + STACK_FRAMES * i;
        if ((s[0] = strtab_index(frames, binary_symbolize_function(in->z, pc, text, sizeof text))) < 0
            || (s[1] = strtab_index(frames, binary_symbolize_location(in->z, pc, text, sizeof text))) < 0
            || (s[2] = strtab_index(frames, trace_psv_label(in->pics.cells[i].psv, text, sizeof text))) < 0)
            return TEA_ERR_NOMEM;
    }
    return TEA_OK;
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
    strtab frames;
    long *stacks = in->pics.count ? malloc(in->pics.count * STACK_FRAMES * sizeof *stacks) : NULL;
    uint64_t *weights = in->pics.count ? malloc(in->pics.count * sizeof *weights) : NULL, total = 0;
    char name[256];
    json_writer j;
    int rc = TEA_OK;

    strtab_init(&frames);
    if (in->pics.count && (!stacks || !weights))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = frames_of(in, &frames, stacks);
    if (rc)
        goto done;
    pics_whole_cycles(in->pics.info, in->pics.p->total, in->pics.cells, in->pics.count, weights);
    for (size_t i = 0; i < in->pics.count; i++)
        total += weights[i];
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
    for (size_t k = 0; k < frames.count; k++) {
        json_begin_object(&j);
        json_key(&j, "name");
        json_string(&j, frames.text[k]);
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
    for (size_t i = 0; i < in->pics.count; i++) {
        if (!weights[i])
            continue;
        json_begin_array(&j);
        for (int k = 0; k < STACK_FRAMES; k++)
            json_u64(&j, (uint64_t)stacks[STACK_FRAMES * i + k]);
        json_end(&j);
    }
    json_end(&j);
    json_key(&j, "weights");
    json_begin_array(&j);
    for (size_t i = 0; i < in->pics.count; i++)
        if (weights[i])
            json_u64(&j, weights[i]);
    json_end(&j);
    json_end(&j);
    json_end(&j);
    json_end(&j);
    json_finish(&j);
done:
    strtab_free(&frames);
    free(stacks);
    free(weights);
    return rc;
}
