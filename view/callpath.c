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

/* ---- the call-path granularity ---- */

/* Room for a call path's text: a row's name holds as much
 * (view_table_names). */
#define CALLPATH_TEXT_MAX BINARY_SYMBOLIZE_TEXT_MAX

void view_callpath_keys_init(view_callpath_keys *k)
{
    strtab_init(&k->paths);
}

void view_callpath_keys_free(view_callpath_keys *k)
{
    strtab_free(&k->paths);
}

/* The function name of `addr` in `functions`. */
static const char *function_name(const trace_symmap *functions, uint64_t addr)
{
    long i = trace_symmap_find(functions, addr);
    return i >= 0 ? functions->entries[i].name : "[unknown]";
}

/* The call path of a cell of context `ctx` at `pc`: its callers and its
 * function, ';' between them (a path too long for the buffer keeps its
 * innermost frames, after "..."). */
static void path_text(const trace_contexts *t, const trace_symmap *functions, uint32_t ctx, uint64_t pc, char *buf,
                      size_t size)
{
    uint64_t sites[VIEW_CALLPATH_MAX_CALLERS];
    size_t n = view_callpath_sites(t, ctx, sites), len = 0, first = 0;
    const char *leaf = function_name(functions, pc);
    size_t need = strlen(leaf) + 1;

    for (size_t k = n; k > 0; k--) { /* the innermost callers that fit */
        size_t w = strlen(function_name(functions, sites[k - 1])) + 1;
        if (need + w + 4 >= size) {
            first = k;
            break;
        }
        need += w;
    }
    buf[0] = '\0';
    if (first)
        len += (size_t)snprintf(buf, size, "...;");
    for (size_t k = first; k < n; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s;", function_name(functions, sites[k]));
    snprintf(buf + len, size - len, "%s", leaf);
}

int view_callpath_rekey(view_callpath_keys *k, const pics *p, const trace_symmap *functions, pics *out)
{
    char *text = malloc(CALLPATH_TEXT_MAX);
    int rc = text ? pics_init(out) : error_set(TEA_ERR_NOMEM, "out of memory");

    if (rc == TEA_OK && k->paths.count == 0 && strtab_index(&k->paths, "") < 0)
        rc = TEA_ERR_NOMEM; /* index 0: no key */
    for (size_t i = 0; i < p->capacity && rc == TEA_OK; i++) {
        const pics_cell *c = &p->slots[i];
        long key;
        if (!c->used)
            continue;
        path_text(&p->contexts, functions, c->ctx, c->pc, text, CALLPATH_TEXT_MAX);
        if ((key = strtab_index(&k->paths, text)) < 0)
            rc = TEA_ERR_NOMEM;
        else
            rc = pics_add(out, (uint64_t)key, c->psv, c->value, c->count);
    }
    free(text);
    if (rc == TEA_OK)
        assert(out->total == p->total); /* rekeying moves cells, never cycles */
    else if (text)
        pics_free(out);
    return rc;
}

int view_callpath_map(const view_callpath_keys *k, trace_symmap *out)
{
    memset(out, 0, sizeof *out);
    if (k->paths.count <= 1)
        return TEA_OK;
    if (!(out->entries = calloc(k->paths.count - 1, sizeof *out->entries)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 1; i < k->paths.count; i++) {
        trace_symmap_entry *e = &out->entries[out->count];
        e->start = i;
        e->end = i + 1;
        if (!(e->name = strdup(k->paths.text[i]))) {
            trace_symmap_free(out);
            return error_set(TEA_ERR_NOMEM, "out of memory");
        }
        out->count++;
    }
    return TEA_OK;
}

int view_callpath_key_all(pics *const *ps, size_t n, trace_symmap *map)
{
    view_callpath_keys keys;
    pics *keyed = calloc(n ? n : 1, sizeof *keyed);
    trace_symmap paths;
    size_t done = 0;
    int rc = keyed ? TEA_OK : error_set(TEA_ERR_NOMEM, "out of memory");

    view_callpath_keys_init(&keys);
    for (; done < n && rc == TEA_OK; done++)
        if (ps[done])
            rc = view_callpath_rekey(&keys, ps[done], map, &keyed[done]);
    if (rc == TEA_OK)
        rc = view_callpath_map(&keys, &paths);
    for (size_t i = 0; i < done; i++) {
        if (!ps[i])
            continue;
        if (rc == TEA_OK) {
            pics_free(ps[i]);
            *ps[i] = keyed[i];
        } else if (i + 1 < done) { /* the last one failed and freed its own */
            pics_free(&keyed[i]);
        }
    }
    if (rc == TEA_OK) {
        trace_symmap_free(map);
        *map = paths;
    }
    free(keyed);
    view_callpath_keys_free(&keys);
    return rc;
}
