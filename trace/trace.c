/*
 * trace.c: header and totals helpers shared by readers and writers.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"
#include "../common/error.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *trace_format_name(trace_format format)
{
    switch (format) {
    case TRACE_FORMAT_TRACEDOCTOR:
        return "tracedoctor";
    case TRACE_FORMAT_NATIVE:
        return "native";
    default:
        return "unknown";
    }
}

void trace_header_init(trace_header *h)
{
    memset(h, 0, sizeof *h);
    h->commit_width = TRACE_DEFAULT_WIDTH;
    h->rob_size = TRACE_DEFAULT_ROB;
    h->clock_hz = TRACE_DEFAULT_CLOCK_HZ;
    snprintf(h->program.arch, sizeof h->program.arch, "%s", TRACE_DEFAULT_ARCH);
    h->va_bits = TRACE_DEFAULT_VA_BITS;
    h->llc_latency = TRACE_DEFAULT_LLC_LATENCY;
}

int trace_header_set(char **field, const char *value)
{
    char *copy = NULL;
    if (value && !(copy = strdup(value)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    free(*field);
    *field = copy;
    return TEA_OK;
}

void trace_program_free(trace_program *p)
{
    free(p->binary_path);
    free(p->build_id);
    p->binary_path = p->build_id = NULL;
}

int trace_program_copy(trace_program *dst, const trace_program *src)
{
    *dst = *src;
    dst->binary_path = dst->build_id = NULL;
    if (trace_header_set(&dst->binary_path, src->binary_path) || trace_header_set(&dst->build_id, src->build_id)) {
        trace_program_free(dst);
        return TEA_ERR_NOMEM;
    }
    return TEA_OK;
}

void trace_header_free(trace_header *h)
{
    char **strings[] = { &h->generator, &h->command_line, &h->source_format };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        free(*strings[i]);
        *strings[i] = NULL;
    }
    trace_program_free(&h->program);
}

int trace_header_copy(trace_header *dst, const trace_header *src)
{
    *dst = *src;
    dst->generator = dst->command_line = dst->source_format = NULL;
    dst->program.binary_path = dst->program.build_id = NULL;
    if (trace_header_set(&dst->generator, src->generator) || trace_header_set(&dst->command_line, src->command_line)
        || trace_program_copy(&dst->program, &src->program)
        || trace_header_set(&dst->source_format, src->source_format)) {
        trace_header_free(dst);
        return TEA_ERR_NOMEM;
    }
    return TEA_OK;
}

/* FNV-1a, 64 bits. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

void trace_digest(const trace_header *h, const trace_totals *t, char out[TRACE_DIGEST_LEN + 1])
{
    const uint64_t fields[] = { h->commit_width, h->rob_size, h->initial_window, t->records, t->first_cycle,
                                t->last_cycle, t->commits, t->exceptions, t->dispatched, t->squashed, t->refills };
    const size_t n = sizeof fields / sizeof fields[0];
    uint64_t hash = FNV_OFFSET;

    for (size_t i = 0; i < n + TRACE_PSV_EVENT_COUNT; i++) {
        uint64_t v = i < n ? fields[i] : t->events[i - n];
        for (int b = 0; b < 8; b++, v >>= 8)
            hash = (hash ^ (v & 0xFF)) * FNV_PRIME;
    }
    snprintf(out, TRACE_DIGEST_LEN + 1, "%016llx", (unsigned long long)hash);
}

int trace_totals_difference(const trace_totals *a, const trace_totals *b, char *name, size_t size, uint64_t *va,
                            uint64_t *vb)
{
    const struct {
        const char *name;
        uint64_t a, b;
    } fields[] = {
        { "records", a->records, b->records },
        { "commits", a->commits, b->commits },
        { "exceptions", a->exceptions, b->exceptions },
        { "dispatched", a->dispatched, b->dispatched },
        { "squashed", a->squashed, b->squashed },
        { "refills", a->refills, b->refills },
        { "first_cycle", b->records ? a->first_cycle : 0, b->records ? b->first_cycle : 0 },
        { "last_cycle", b->records ? a->last_cycle : 0, b->records ? b->last_cycle : 0 },
    };

    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].a != fields[i].b) {
            snprintf(name, size, "%s", fields[i].name);
            *va = fields[i].a;
            *vb = fields[i].b;
            return 1;
        }
    }
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
        if (a->events[e] != b->events[e]) {
            snprintf(name, size, "events[%s]", trace_psv_event_name((enum trace_psv_event)e));
            *va = a->events[e];
            *vb = b->events[e];
            return 1;
        }
    }
    return 0;
}

int trace_totals_same(const trace_totals *a, const trace_totals *b)
{
    char name[32];
    uint64_t va, vb;
    return !trace_totals_difference(a, b, name, sizeof name, &va, &vb);
}

void trace_totals_add(trace_totals *t, const trace_record *r, const trace_uop *uops)
{
    unsigned n = trace_record_uops(r);

    assert(t->records == 0 || r->cycle > t->last_cycle); /* the callers check the cycle order first */
    trace_totals_add_record(t, r);
    for (unsigned i = 0; i < n; i++) {
        unsigned psv = uops[i].psv;
        while (psv) {
            int bit = __builtin_ctz(psv);
            t->events[bit]++;
            psv &= psv - 1;
        }
    }
}
