/*
 * replay.c: the replay engine, TEA and NCI-TEA (see replay.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "replay.h"
#include "schedule.h"
#include "tagger.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* TEA or NCI-TEA: a cycle schedule and the PICS it builds. */
typedef struct cycle_sampler {
    tea_scheme scheme;
    uint16_t mask;
    tea_schedule sched;
    pics pics;
    uint64_t samples;
    uint64_t lost[PICS_LOST_REASONS];
} cycle_sampler;

/* Where spec i lives: a cycle sampler or a tagger, and its index there. */
typedef struct sampler_ref {
    int tagging;
    size_t index;
} sampler_ref;

struct tea_replay {
    tea_sampler_spec *specs;
    sampler_ref *refs;
    size_t count;
    cycle_sampler *cycle;
    size_t cycle_count;
    tea_tagger *tags;
    size_t tag_count;
    golden golden;
    pics golden_pics;
    int started;
    tea_rob_view rob;          /* the window before the next record */
    uint64_t cycle_wake;       /* earliest point any cycle sampler waits for */
    uint64_t tag_wake_cycle;   /* earliest cycle any tagger must see */
    uint64_t tag_wake_entry;   /* earliest dispatched-entry ordinal a tagger must see */
    int rc;                    /* first error raised inside the golden callback */
};

static void recompute_cycle_wake(tea_replay *r)
{
    uint64_t wake = TEA_SCHEDULE_NEVER;
    for (size_t i = 0; i < r->cycle_count; i++)
        if (r->cycle[i].sched.next < wake)
            wake = r->cycle[i].sched.next;
    r->cycle_wake = wake;
}

static void recompute_tag_wake(tea_replay *r)
{
    uint64_t cycle = TEA_SCHEDULE_NEVER, entry = TEA_SCHEDULE_NEVER;
    for (size_t i = 0; i < r->tag_count; i++) {
        uint64_t c = tea_tagger_wake_cycle(&r->tags[i]), e = tea_tagger_wake_entry(&r->tags[i]);
        if (c < cycle)
            cycle = c;
        if (e < entry)
            entry = e;
    }
    r->tag_wake_cycle = cycle;
    r->tag_wake_entry = entry;
}

/* Adds to a PICS, remembering the first allocation failure. */
static void add(tea_replay *r, pics *p, const trace_uop *u, uint16_t mask, uint64_t value, uint64_t count)
{
    int rc;
    if ((value || count) && (rc = pics_add(p, u->pc, (uint16_t)(u->psv & mask), value, count)) && !r->rc)
        r->rc = rc;
}

/* The golden PICS: every cycle of the interval, exactly. Each µop that
 * commits or excepts counts once in its cell. */
static void charge_golden(tea_replay *r, const golden_interval *iv)
{
    if (iv->flush_cause)
        add(r, &r->golden_pics, iv->flush_cause, PSV_MASK_ALL, (iv->refill - iv->start) * PICS_UNIT, 0);
    if (!iv->uops)
        return;
    if (iv->n_commit == 0) {
        add(r, &r->golden_pics, &iv->uops[0], PSV_MASK_ALL, (iv->cycle - iv->refill + 1) * PICS_UNIT, 1);
        return;
    }
    {
        uint64_t share = PICS_UNIT / iv->n_commit;
        add(r, &r->golden_pics, &iv->uops[0], PSV_MASK_ALL, (iv->cycle - iv->refill) * PICS_UNIT + share, 1);
        for (unsigned i = 1; i < iv->n_commit; i++)
            add(r, &r->golden_pics, &iv->uops[i], PSV_MASK_ALL, share, 1);
        if (iv->exception) /* excepts in a cycle the commits take: counted, charged only its flush */
            add(r, &r->golden_pics, &iv->uops[iv->n_commit], PSV_MASK_ALL, 0, 1);
    }
}

/* TEA: the points of the interval get what golden charges for their cycle. */
static void sample_tea(tea_replay *r, cycle_sampler *s, const golden_interval *iv)
{
    uint64_t k;

    if (iv->flush_cause && iv->refill > iv->start && (k = tea_schedule_take(&s->sched, iv->refill - 1))) {
        add(r, &s->pics, iv->flush_cause, s->mask, k * PICS_UNIT, k);
        s->samples += k;
    }
    if (!iv->uops)
        return;
    if ((k = tea_schedule_take(&s->sched, iv->cycle - 1))) {
        add(r, &s->pics, &iv->uops[0], s->mask, k * PICS_UNIT, k);
        s->samples += k;
    }
    if ((k = tea_schedule_take(&s->sched, iv->cycle))) {
        if (iv->n_commit == 0) {
            add(r, &s->pics, &iv->uops[0], s->mask, k * PICS_UNIT, k);
        } else {
            uint64_t share = PICS_UNIT / iv->n_commit;
            for (unsigned i = 0; i < iv->n_commit; i++)
                add(r, &s->pics, &iv->uops[i], s->mask, k * share, k);
        }
        s->samples += k;
    }
}

/* NCI-TEA: every point up to a commit goes whole to its first committing
 * µop; exceptions are not commits, so their points wait for the next one. */
static void sample_nci(tea_replay *r, cycle_sampler *s, const golden_interval *iv)
{
    uint64_t k;
    if (!iv->uops || iv->n_commit == 0)
        return;
    if ((k = tea_schedule_take(&s->sched, iv->cycle))) {
        add(r, &s->pics, &iv->uops[0], s->mask, k * PICS_UNIT, k);
        s->samples += k;
    }
}

static void on_interval(void *ctx, const golden_interval *iv)
{
    tea_replay *r = ctx;
    charge_golden(r, iv);
    if (iv->cycle < r->cycle_wake)
        return;
    for (size_t i = 0; i < r->cycle_count; i++) {
        cycle_sampler *s = &r->cycle[i];
        if (s->scheme == TEA_SCHEME_TEA)
            sample_tea(r, s, iv);
        else
            sample_nci(r, s, iv);
    }
    recompute_cycle_wake(r);
}

int tea_replay_create(tea_replay **out, unsigned initial_window, const tea_sampler_spec *specs, size_t count)
{
    tea_replay *r;

    *out = NULL;
    for (size_t i = 0; i < count; i++) {
        if (specs[i].scheme == TEA_SCHEME_GOLDEN || specs[i].scheme >= TEA_SCHEME_COUNT)
            return tea_error_set(TEA_ERR_USAGE, "sampler %zu: not a sampling scheme", i);
        if (specs[i].period == 0)
            return tea_error_set(TEA_ERR_USAGE, "sampler %zu: the sampling period must be at least one cycle", i);
    }
    if (!(r = calloc(1, sizeof *r)))
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    r->specs = calloc(count ? count : 1, sizeof *r->specs);
    r->refs = calloc(count ? count : 1, sizeof *r->refs);
    r->cycle = calloc(count ? count : 1, sizeof *r->cycle);
    r->tags = calloc(count ? count : 1, sizeof *r->tags);
    if (!r->specs || !r->refs || !r->cycle || !r->tags || pics_init(&r->golden_pics)) {
        tea_replay_free(r);
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if (count)
        memcpy(r->specs, specs, count * sizeof *specs);
    r->count = count;
    golden_init(&r->golden, initial_window);
    r->rob.tail = initial_window;
    r->cycle_wake = r->tag_wake_cycle = r->tag_wake_entry = TEA_SCHEDULE_NEVER;
    *out = r;
    return TEA_OK;
}

/* Sets up every sampler once the origin (first record's cycle) is known. */
static int start(tea_replay *r, uint64_t origin)
{
    r->started = 1;
    r->rob.origin = origin;
    for (size_t i = 0; i < r->count; i++) {
        const tea_sampler_spec *sp = &r->specs[i];
        if (sp->scheme == TEA_SCHEME_TEA || sp->scheme == TEA_SCHEME_NCI) {
            cycle_sampler *s = &r->cycle[r->cycle_count];
            s->scheme = sp->scheme;
            s->mask = sp->event_mask;
            /* Every scheme at one period sees the same points (stream = period). */
            tea_schedule_init(&s->sched, origin, sp->period, sp->jitter, sp->seed, sp->period);
            if (pics_init(&s->pics))
                return TEA_ERR_NOMEM;
            r->refs[i] = (sampler_ref){ 0, r->cycle_count++ };
        } else {
            int rc = tea_tagger_init(&r->tags[r->tag_count], sp->scheme, sp->period, sp->jitter, sp->seed,
                                     sp->event_mask, origin);
            if (rc)
                return rc;
            r->refs[i] = (sampler_ref){ 1, r->tag_count++ };
        }
    }
    recompute_cycle_wake(r);
    recompute_tag_wake(r);
    return TEA_OK;
}

/* Runs the taggers on a record when any of them needs it. */
static int feed_taggers(tea_replay *r, const trace_record *rec, const trace_uop *uops)
{
    if (rec->cycle < r->tag_wake_cycle && r->rob.dispatched + rec->dispatch < r->tag_wake_entry)
        return TEA_OK;
    for (size_t i = 0; i < r->tag_count; i++) {
        int rc = tea_tagger_record(&r->tags[i], rec, uops, &r->rob);
        if (rc)
            return rc;
    }
    recompute_tag_wake(r);
    return TEA_OK;
}

int tea_replay_feed(tea_replay *r, const trace_batch *batch)
{
    golden_sink sink = { on_interval, r };

    for (size_t i = 0; i < batch->count; i++) {
        const trace_record *rec = &batch->records[i];
        const trace_uop *uops = batch->uops + rec->first_uop;
        int rc;

        if (!r->started) {
            if ((rc = start(r, rec->cycle)))
                return tea_error_set(rc, "out of memory starting the samplers");
        } else if (r->tag_count && (rc = feed_taggers(r, rec, uops))) {
            return rc;
        }
        golden_record(&r->golden, rec, uops, &sink);
        if (r->rc)
            return tea_error_set(r->rc, "out of memory building a PICS");
        r->rob.head += rec->retire;
        r->rob.tail = r->rob.tail - rec->squash + rec->dispatch;
        r->rob.dispatched += rec->dispatch;
    }
    return TEA_OK;
}

int tea_replay_finish(tea_replay *r)
{
    golden_sink sink = { on_interval, r };
    uint64_t last;

    golden_finish(&r->golden, &sink);
    if (r->rc)
        return tea_error_set(r->rc, "out of memory building a PICS");
    last = golden_get_totals(&r->golden)->last_cycle;
    for (size_t i = 0; i < r->cycle_count; i++)
        r->cycle[i].lost[PICS_LOST_END] += tea_schedule_take(&r->cycle[i].sched, last);
    for (size_t i = 0; i < r->tag_count; i++)
        tea_tagger_finish(&r->tags[i], last);
    return TEA_OK;
}

const pics *tea_replay_golden(const tea_replay *r)
{
    return &r->golden_pics;
}

const golden_totals *tea_replay_golden_totals(const tea_replay *r)
{
    return golden_get_totals(&r->golden);
}

const pics *tea_replay_sampler_pics(const tea_replay *r, size_t i)
{
    const sampler_ref *ref = &r->refs[i];
    return ref->tagging ? &r->tags[ref->index].pics : &r->cycle[ref->index].pics;
}

uint64_t tea_replay_sampler_samples(const tea_replay *r, size_t i)
{
    const sampler_ref *ref = &r->refs[i];
    return ref->tagging ? r->tags[ref->index].samples : r->cycle[ref->index].samples;
}

const uint64_t *tea_replay_sampler_lost(const tea_replay *r, size_t i)
{
    const sampler_ref *ref = &r->refs[i];
    return ref->tagging ? r->tags[ref->index].lost : r->cycle[ref->index].lost;
}

void tea_trace_digest(const trace_header *h, const trace_totals *t, char out[PICS_DIGEST_LEN + 1])
{
    const uint64_t fields[] = { h->commit_width, h->rob_size, h->initial_window, t->records, t->first_cycle,
                                t->last_cycle, t->commits, t->exceptions, t->dispatched, t->squashed, t->refills };
    uint64_t hash = FNV_OFFSET;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0] + PSV_EVENT_COUNT; i++) {
        uint64_t v = i < sizeof fields / sizeof fields[0] ? fields[i] : t->events[i - sizeof fields / sizeof fields[0]];
        for (int b = 0; b < 8; b++, v >>= 8)
            hash = (hash ^ (v & 0xFF)) * FNV_PRIME;
    }
    snprintf(out, PICS_DIGEST_LEN + 1, "%016llx", (unsigned long long)hash);
}

int tea_replay_describe(const tea_replay *r, size_t i, const trace_header *h, const trace_totals *t,
                        pics_info *info)
{
    pics_info_init(info);
    tea_trace_digest(h, t, info->trace_digest);
    info->trace_first_cycle = t->first_cycle;
    info->trace_last_cycle = t->last_cycle;
    info->trace_records = t->records;
    snprintf(info->arch, sizeof info->arch, "%s", h->arch);
    info->clock_hz = h->clock_hz;
    info->has_load_bias = h->has_load_bias;
    info->load_bias = h->load_bias;
    if ((h->binary_path && !(info->binary_path = strdup(h->binary_path)))
        || (h->build_id && !(info->build_id = strdup(h->build_id)))) {
        pics_info_free(info);
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    }
    info->golden_total = r->golden_pics.total;
    if (i == SIZE_MAX) {
        snprintf(info->scheme, sizeof info->scheme, "%s", tea_scheme_name(TEA_SCHEME_GOLDEN));
        snprintf(info->events, sizeof info->events, "all");
        info->event_mask = PSV_MASK_ALL;
        return TEA_OK;
    }
    {
        const tea_sampler_spec *sp = &r->specs[i];
        const uint64_t *lost = tea_replay_sampler_lost(r, i);
        snprintf(info->scheme, sizeof info->scheme, "%s", tea_scheme_name(sp->scheme));
        info->period = sp->period;
        info->frequency_hz = sp->frequency_hz;
        info->seed = sp->seed;
        snprintf(info->jitter, sizeof info->jitter, "%s", tea_jitter_name(sp->jitter));
        snprintf(info->events, sizeof info->events, "%s", sp->all_events ? "all" : "native");
        info->event_mask = sp->event_mask;
        info->samples = tea_replay_sampler_samples(r, i);
        memcpy(info->lost, lost, sizeof info->lost);
    }
    return TEA_OK;
}

void tea_replay_free(tea_replay *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->cycle_count; i++)
        pics_free(&r->cycle[i].pics);
    for (size_t i = 0; i < r->tag_count; i++)
        tea_tagger_free(&r->tags[i]);
    pics_free(&r->golden_pics);
    free(r->specs);
    free(r->refs);
    free(r->cycle);
    free(r->tags);
    free(r);
}
