/*
 * callpath.c: calling contexts as stacks of functions (see callpath.h).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "view/callpath.h"

#include "common/error.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int view_callpath_names_init(view_callpath_names *n, const trace_contexts *contexts, const binary_symbolizer *z)
{
    memset(n, 0, sizeof *n);
    n->contexts = contexts;
    if (contexts->count == 0)
        return TEA_OK;
    if (!(n->site = calloc(contexts->count, sizeof *n->site)))
        return error_set(TEA_ERR_NOMEM, "out of memory naming %" PRIu32 " calling contexts", contexts->count);
    for (uint32_t id = 1; id < contexts->count; id++) {
        char name[BINARY_SYMBOLIZE_TEXT_MAX];
        uint64_t site = contexts->nodes[id].site;
        if (site == 0)
            continue;
        if (z)
            binary_symbolize_function(z, site, name, sizeof name);
        else
            snprintf(name, sizeof name, "0x%" PRIx64, site);
        if (!(n->site[id] = strdup(name))) {
            view_callpath_names_free(n);
            return error_set(TEA_ERR_NOMEM, "out of memory naming calling contexts");
        }
    }
    return TEA_OK;
}

void view_callpath_names_free(view_callpath_names *n)
{
    if (n->site && n->contexts)
        for (uint32_t id = 0; id < n->contexts->count; id++)
            free(n->site[id]);
    free(n->site);
    memset(n, 0, sizeof *n);
}

/* The path of `ctx` from the root, outermost first, into path[]: its
 * length (the root itself left out). */
static size_t path_of(const trace_contexts *t, uint32_t ctx, uint32_t *path)
{
    size_t depth = 0;
    if (t->count == 0)
        return 0;
    assert(ctx < t->count);
    for (uint32_t id = ctx; id != TRACE_CONTEXT_ROOT; id = t->nodes[id].parent) {
        assert(depth < VIEW_CALLPATH_MAX_CALLERS); /* a node's depth is at most TRACE_CONTEXT_MAX_DEPTH */
        path[depth++] = id;
    }
    for (size_t i = 0; i < depth / 2; i++) {
        uint32_t tmp = path[i];
        path[i] = path[depth - 1 - i];
        path[depth - 1 - i] = tmp;
    }
    return depth;
}

size_t view_callpath_sites(const trace_contexts *contexts, uint32_t ctx, uint64_t *sites)
{
    uint32_t path[VIEW_CALLPATH_MAX_CALLERS];
    size_t depth = path_of(contexts, ctx, path), k = 0;
    for (size_t i = 0; i < depth; i++)
        if (contexts->nodes[path[i]].site)
            sites[k++] = contexts->nodes[path[i]].site;
    return k;
}

size_t view_callpath_callers(const view_callpath_names *n, uint32_t ctx, const char **names)
{
    uint32_t path[VIEW_CALLPATH_MAX_CALLERS];
    size_t depth = path_of(n->contexts, ctx, path), k = 0;
    for (size_t i = 0; i < depth; i++)
        if (n->site[path[i]])
            names[k++] = n->site[path[i]];
    return k;
}
