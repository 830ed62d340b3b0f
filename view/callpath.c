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
    strtab_init(&n->names);
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
        long k = strtab_index(&n->names, name);
        if (k < 0) {
            view_callpath_names_free(n);
            return TEA_ERR_NOMEM; /* the message is strtab_index's */
        }
        n->site[id] = n->names.text[k];
    }
    return TEA_OK;
}

void view_callpath_names_free(view_callpath_names *n)
{
    free((void *)n->site);
    strtab_free(&n->names);
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

/* A (parent id, caller's name) pair of view_callpath_canonical's table:
 * id 0 marks an empty slot (no context's stack is new at the root). */
typedef struct canon_slot {
    const char *name;
    uint32_t parent, id;
} canon_slot;

/* FNV-1a over the name, mixed with the parent's id. */
static size_t canon_hash(uint32_t parent, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull ^ parent;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

int view_callpath_canonical(const view_callpath_names *n, uint32_t **canon)
{
    const trace_contexts *t = n->contexts;
    canon_slot *table = NULL;
    size_t slots = 2;
    uint32_t next = 1, *c;

    *canon = NULL;
    if (!t || t->count == 0)
        return TEA_OK;
    while (slots < 2 * (size_t)t->count)
        slots *= 2;
    c = malloc(t->count * sizeof *c);
    table = calloc(slots, sizeof *table);
    if (!c || !table) {
        free(c);
        free(table);
        return error_set(TEA_ERR_NOMEM, "out of memory merging %" PRIu32 " calling contexts", t->count);
    }
    c[TRACE_CONTEXT_ROOT] = 0;
    for (uint32_t id = 1; id < t->count; id++) {
        uint32_t parent = c[t->nodes[id].parent]; /* parents come first */
        const char *name = n->site[id];
        size_t s;
        if (!name) { /* no frame of its own: its parent's stack */
            c[id] = parent;
            continue;
        }
        s = canon_hash(parent, name) & (slots - 1);
        while (table[s].id && !(table[s].parent == parent && strcmp(table[s].name, name) == 0))
            s = (s + 1) & (slots - 1);
        if (!table[s].id)
            table[s] = (canon_slot){ name, parent, next++ };
        c[id] = table[s].id;
    }
    assert(next <= t->count); /* at most one id per context */
    free(table);
    *canon = c;
    return TEA_OK;
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
/* Slots of a new table of (callers, leaf) pairs. */
#define PAIR_SLOTS_INITIAL 4096u

void view_callpath_keys_init(view_callpath_keys *k)
{
    memset(k, 0, sizeof *k);
    strtab_init(&k->paths);
    strtab_init(&k->callers);
}

void view_callpath_keys_free(view_callpath_keys *k)
{
    strtab_free(&k->paths);
    strtab_free(&k->callers);
    free(k->pairs);
    free(k->pair_keys);
    memset(k, 0, sizeof *k);
}

/* The function name of `addr` in `functions`. */
static const char *function_name(const trace_symmap *functions, uint64_t addr)
{
    long i = trace_symmap_find(functions, addr);
    return i >= 0 ? functions->entries[i].name : "[unknown]";
}

/* The index in k->callers of context `ctx`'s caller prefix ("main;a;",
 * "" for the root), memoized per context in memo[] (index + 1; 0: not
 * yet), built from its parent's. -1 when out of memory. */
static long callers_of(view_callpath_keys *k, const trace_contexts *t, const trace_symmap *functions, uint32_t ctx,
                       uint32_t *memo)
{
    uint32_t path[VIEW_CALLPATH_MAX_CALLERS + 1];
    size_t n = 0;
    long index = -1;
    /* up to the nearest context whose prefix is known (or the root) */
    for (uint32_t id = ctx; t->count && memo[id] == 0; id = t->nodes[id].parent) {
        path[n++] = id;
        if (id == TRACE_CONTEXT_ROOT)
            break;
    }
    while (n > 0) {
        uint32_t id = path[--n];
        if (id == TRACE_CONTEXT_ROOT) {
            index = strtab_index(&k->callers, "");
        } else {
            const char *up = k->callers.text[memo[t->nodes[id].parent] - 1];
            const char *site = t->nodes[id].site ? function_name(functions, t->nodes[id].site) : NULL;
            size_t len = strlen(up) + (site ? strlen(site) + 1 : 0) + 1;
            char *text = malloc(len);
            if (!text)
                return -1;
            snprintf(text, len, "%s%s%s", up, site ? site : "", site ? ";" : "");
            index = strtab_index(&k->callers, text);
            free(text);
        }
        if (index < 0)
            return -1;
        memo[id] = (uint32_t)index + 1;
    }
    return t->count ? (long)memo[ctx] - 1 : strtab_index(&k->callers, "");
}

/* The key of path `callers` + `leaf` (a path too long for a row's name
 * keeps its innermost frames, after "...;"). -1 when out of memory. */
static long path_key(view_callpath_keys *k, const char *callers, const char *leaf)
{
    size_t len = strlen(callers) + strlen(leaf) + 1;
    char *text = malloc(len), *shown;
    long key;
    if (!text)
        return -1;
    snprintf(text, len, "%s%s", callers, leaf);
    shown = text;
    if (len > CALLPATH_TEXT_MAX) {
        shown = text + len - (CALLPATH_TEXT_MAX - 4); /* room for "...;" */
        while (*shown && *shown != ';')
            shown++;
        if (*shown) {
            shown -= 3;
            memcpy(shown, "...;", 4);
        } else { /* one name longer than a row's: cut */
            shown = text;
            text[CALLPATH_TEXT_MAX - 1] = '\0';
        }
    }
    key = strtab_index(&k->paths, shown);
    free(text);
    return key;
}

/* Doubles the pair table. */
static int pairs_grow(view_callpath_keys *k)
{
    size_t slots = k->pair_slots ? 2 * k->pair_slots : PAIR_SLOTS_INITIAL;
    uint64_t *pairs = calloc(slots, sizeof *pairs);
    uint32_t *keys = calloc(slots, sizeof *keys);
    if (!pairs || !keys) {
        free(pairs);
        free(keys);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < k->pair_slots; i++) {
        size_t s;
        if (!k->pairs[i])
            continue;
        for (s = (size_t)((k->pairs[i] * 0x9E3779B97F4A7C15ull) >> 20) & (slots - 1); pairs[s];
             s = (s + 1) & (slots - 1)) {
        }
        pairs[s] = k->pairs[i];
        keys[s] = k->pair_keys[i];
    }
    free(k->pairs);
    free(k->pair_keys);
    k->pairs = pairs;
    k->pair_keys = keys;
    k->pair_slots = slots;
    return TEA_OK;
}

/* The key of a cell whose caller prefix is `callers` and whose function is
 * functions->entries[leaf] (-1: none), through the pair table. */
static int key_of(view_callpath_keys *k, const trace_symmap *functions, long callers, long leaf, uint64_t *key)
{
    uint64_t pair = (((uint64_t)callers << 32) | (uint64_t)(leaf + 1)) + 1;
    size_t s;
    long got;
    int rc;
    if ((k->pair_count + 1) * 2 > k->pair_slots && (rc = pairs_grow(k)))
        return rc;
    for (s = (size_t)((pair * 0x9E3779B97F4A7C15ull) >> 20) & (k->pair_slots - 1); k->pairs[s];
         s = (s + 1) & (k->pair_slots - 1)) {
        if (k->pairs[s] == pair) {
            *key = k->pair_keys[s];
            return TEA_OK;
        }
    }
    got = path_key(k, k->callers.text[callers], leaf >= 0 ? functions->entries[leaf].name : "[unknown]");
    if (got < 0)
        return TEA_ERR_NOMEM; /* the message is strtab_index's */
    k->pairs[s] = pair;
    k->pair_keys[s] = (uint32_t)got;
    k->pair_count++;
    *key = (uint64_t)got;
    return TEA_OK;
}

int view_callpath_rekey(view_callpath_keys *k, const trace_contexts *contexts, const pics_cell *cells, size_t n,
                        const trace_symmap *functions, pics *out)
{
    uint32_t *memo = contexts->count ? calloc(contexts->count, sizeof *memo) : NULL;
    uint64_t total = 0;
    int rc;

    memset(out, 0, sizeof *out);
    rc = contexts->count && !memo ? error_set(TEA_ERR_NOMEM, "out of memory") : pics_init(out);
    if (rc == TEA_OK && k->paths.count == 0 && strtab_index(&k->paths, "") < 0)
        rc = TEA_ERR_NOMEM; /* index 0: no key */
    for (size_t i = 0; i < n && rc == TEA_OK; i++) {
        const pics_cell *c = &cells[i];
        long callers;
        uint64_t key;
        if (!c->used)
            continue;
        total += c->value;
        if ((callers = callers_of(k, contexts, functions, c->ctx, memo)) < 0)
            rc = error_set(TEA_ERR_NOMEM, "out of memory");
        else if (!(rc = key_of(k, functions, callers, trace_symmap_find(functions, c->pc), &key)))
            rc = pics_add(out, key, c->psv, c->value, c->count);
    }
    free(memo);
    if (rc == TEA_OK)
        assert(out->total == total); /* rekeying moves cells, never cycles */
    else
        pics_free(out);
    (void)total; /* unused when NDEBUG compiles the assertion out */
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

int view_callpath_key_all(const view_callpath_input *in, size_t n, trace_symmap *map, pics *out)
{
    view_callpath_keys keys;
    trace_symmap paths;
    size_t done = 0;
    int rc = TEA_OK;

    view_callpath_keys_init(&keys);
    for (; done < n && rc == TEA_OK; done++)
        rc = view_callpath_rekey(&keys, in[done].contexts, in[done].cells, in[done].count, map, &out[done]);
    if (rc == TEA_OK)
        rc = view_callpath_map(&keys, &paths);
    if (rc == TEA_OK) {
        trace_symmap_free(map);
        *map = paths;
    } else {
        for (size_t i = 0; i < done; i++)
            pics_free(&out[i]); /* a failed one freed its own: freeing again is a no-op */
    }
    view_callpath_keys_free(&keys);
    return rc;
}

/* ---- functions with their callees ---- */

/* Sums per (context, leaf function): the cells of one context and function
 * go up its path once. */
typedef struct leaf_sum {
    uint32_t ctx;
    uint32_t leaf;   /* index into the functions, functions->count for none */
    uint64_t value, count;
} leaf_sum;

static int compare_leaf_sum(const void *a, const void *b)
{
    const leaf_sum *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* The cells summed per (context, leaf function), sorted, in *sums. */
static int leaf_sums(const pics_cell *cells, size_t n, const trace_symmap *functions, leaf_sum **sums, size_t *count)
{
    leaf_sum *s = malloc((n ? n : 1) * sizeof *s);
    size_t k = 0;
    if (!s)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        long f = trace_symmap_find(functions, cells[i].pc);
        s[i] = (leaf_sum){ cells[i].ctx, f >= 0 ? (uint32_t)f : (uint32_t)functions->count, cells[i].value,
                           cells[i].count };
    }
    if (n)
        qsort(s, n, sizeof *s, compare_leaf_sum);
    for (size_t i = 0; i < n; i++) {
        if (k && s[k - 1].ctx == s[i].ctx && s[k - 1].leaf == s[i].leaf) {
            s[k - 1].value += s[i].value;
            s[k - 1].count += s[i].count;
        } else {
            s[k++] = s[i];
        }
    }
    *sums = s;
    *count = k;
    return TEA_OK;
}

static int compare_function_rows(const void *a, const void *b)
{
    const view_callpath_function *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return strcmp(x->name, y->name);
}

int view_callpath_children(const trace_contexts *contexts, const pics_cell *cells, size_t n,
                           const trace_symmap *functions, view_callpath_function **rows, size_t *count)
{
    size_t nf = functions->count + 1, sum_count = 0, k = 0; /* the last: "[unknown]" */
    view_callpath_function *f = calloc(nf, sizeof *f);
    size_t *stamp = calloc(nf, sizeof *stamp); /* the sum that last counted each function, + 1 */
    leaf_sum *sums = NULL;
    int rc = f && stamp ? leaf_sums(cells, n, functions, &sums, &sum_count)
                        : error_set(TEA_ERR_NOMEM, "out of memory");

    *rows = NULL;
    *count = 0;
    for (size_t i = 0; i < sum_count && rc == TEA_OK; i++) {
        const leaf_sum *s = &sums[i];
        f[s->leaf].self += s->value;
        f[s->leaf].self_count += s->count;
        f[s->leaf].total += s->value;
        stamp[s->leaf] = i + 1;
        for (uint32_t id = s->ctx; contexts->count && id != TRACE_CONTEXT_ROOT; id = contexts->nodes[id].parent) {
            long caller;
            size_t c;
            if (!contexts->nodes[id].site)
                continue;
            caller = trace_symmap_find(functions, contexts->nodes[id].site);
            c = caller >= 0 ? (size_t)caller : functions->count;
            if (stamp[c] != i + 1) { /* once per cell, whatever the recursion */
                stamp[c] = i + 1;
                f[c].total += s->value;
            }
        }
    }
    for (size_t i = 0; i < nf && rc == TEA_OK; i++) {
        if (!f[i].total)
            continue;
        f[k] = f[i];
        f[k++].name = i < functions->count ? functions->entries[i].name : "[unknown]";
    }
    free(stamp);
    free(sums);
    if (rc) {
        free(f);
        return rc;
    }
    if (k)
        qsort(f, k, sizeof *f, compare_function_rows);
    *rows = f;
    *count = k;
    return TEA_OK;
}
