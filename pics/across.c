/*
 * across.c: one trace's PICS moved into another trace's addresses
 * (across.h).
 */
#include "across.h"

#include "common/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Whether two objects are the same file: the same build-id when both have
 * one, else the same path. */
static int same_file(const trace_object *a, const trace_object *b)
{
    if (a->build_id_len && b->build_id_len)
        return a->build_id_len == b->build_id_len && memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
    return a->path && b->path && strcmp(a->path, b->path) == 0;
}

/* The object of `l` whose run-time range holds `pc`, or NULL. */
static const trace_object *object_at(const trace_object_list *l, uint64_t pc)
{
    for (size_t i = 0; i < l->count; i++)
        if (pc >= l->items[i].start && pc < l->items[i].end)
            return &l->items[i];
    return NULL;
}

/* The object of `l` that is the same file as `o`, or NULL. */
static const trace_object *counterpart(const trace_object_list *l, const trace_object *o)
{
    for (size_t i = 0; i < l->count; i++)
        if (same_file(&l->items[i], o))
            return &l->items[i];
    return NULL;
}

/* `pc` of `from` in `to`'s addresses: 1 with *moved set, 0 when it has no
 * counterpart. */
static int move_pc(const pics_across_side *from, const pics_across_side *to, uint64_t pc, uint64_t *moved)
{
    const trace_object *o, *there;

    if (!from->objects->count || !to->objects->count) {
        /* no objects on one side: the programs' load biases, when both know theirs */
        int biased = from->program->has_load_bias && to->program->has_load_bias;
        *moved = biased ? pc - from->program->load_bias + to->program->load_bias : pc;
        return 1;
    }
    if (!(o = object_at(from->objects, pc)) || !(there = counterpart(to->objects, o)))
        return 0;
    *moved = pc - o->load_bias + there->load_bias;
    return *moved >= there->start && *moved < there->end;
}

double pics_across_unmatched_share(const pics_across_stats *st)
{
    return st->value ? (double)st->unmatched_value / (double)st->value : 0.0;
}

int pics_across_move(const pics *in, const pics_across_side *from, const pics_across_side *to, pics *out,
                     pics_across_stats *st)
{
    pics_cell *cells = NULL;
    size_t n = 0;
    int rc;

    TEA_ASSERT_ARG(in && from && to && out && st);
    memset(st, 0, sizeof *st);
    if ((rc = pics_init(out)))
        return rc;
    if ((rc = pics_sorted(in, &cells, &n))) {
        pics_free(out);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t pc;
        int first = i == 0 || cells[i].pc != cells[i - 1].pc; /* sorted: a PC's cells are together */
        int matched = move_pc(from, to, cells[i].pc, &pc);
        if (!matched)
            pc = cells[i].pc | PICS_ACROSS_UNMATCHED;
        st->pcs += first;
        st->unmatched_pcs += first && !matched;
        st->value += cells[i].value;
        st->unmatched_value += matched ? 0 : cells[i].value;
        if ((rc = pics_add(out, pc, cells[i].psv, cells[i].value, cells[i].count)))
            break;
    }
    free(cells);
    if (rc) {
        pics_free(out);
        return rc;
    }
    assert(out->total == in->total); /* every value moved, none twice */
    assert(st->unmatched_pcs <= st->pcs && st->unmatched_value <= st->value);
    return TEA_OK;
}

int pics_across_move_in_place(pics *p, const pics_across_side *from, const pics_across_side *to,
                              pics_across_stats *st)
{
    pics_across_stats ignored;
    pics moved;
    int rc = pics_across_move(p, from, to, &moved, st ? st : &ignored);

    if (rc)
        return rc;
    pics_free(p);
    *p = moved;
    return TEA_OK;
}
