/*
 * psv.c: names and labels of PSV events, and the event tally (see psv.h).
 */
#include "psv.h"
#include "../common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const event_names[TRACE_PSV_EVENT_COUNT] = {
    "ST-L1", "ST-TLB", "ST-LLC", "DR-L1", "DR-TLB", "DR-SQ", "FL-MB", "FL-EX", "FL-MO",
};

const char *trace_psv_event_name(enum trace_psv_event event)
{
    return (unsigned)event < TRACE_PSV_EVENT_COUNT ? event_names[event] : "?";
}

char *trace_psv_label(uint16_t psv, char *buf, size_t size)
{
    size_t used = 0;

    if (size == 0)
        return buf;
    buf[0] = '\0';
    if ((psv & TRACE_PSV_MASK_ALL) == 0) {
        snprintf(buf, size, "base");
        return buf;
    }
    for (int i = 0; i < TRACE_PSV_EVENT_COUNT; i++) {
        if (!(psv & (1u << i)))
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? "," : "", event_names[i]);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

int trace_psv_event_from_name(const char *name, size_t len)
{
    for (int i = 0; i < TRACE_PSV_EVENT_COUNT; i++)
        if (strlen(event_names[i]) == len && memcmp(event_names[i], name, len) == 0)
            return i;
    return -1;
}

int trace_psv_parse_label(const char *label, uint16_t *psv)
{
    const char *p = label;
    uint16_t value = 0;

    if (strcmp(label, "base") == 0) {
        *psv = 0;
        return TEA_OK;
    }
    if (*label >= '0' && *label <= '9') {
        char *end;
        unsigned long v = strtoul(label, &end, 10);
        if (*end != '\0' || v >= TRACE_PSV_VALUES)
            return error_set(TEA_ERR_USAGE, "invalid PSV value '%s' (expected 0-511)", label);
        *psv = (uint16_t)v;
        return TEA_OK;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int bit = trace_psv_event_from_name(p, len);
        if (bit < 0)
            return error_set(TEA_ERR_USAGE, "unknown event '%.*s' in component '%s'", (int)len, p, label);
        value |= (uint16_t)(1u << bit);
        p += len;
        if (*p == ',')
            p++;
    }
    *psv = value;
    return TEA_OK;
}

unsigned trace_psv_family_bits(uint16_t psv, enum trace_psv_family family)
{
    return ((unsigned)psv >> (TRACE_PSV_FAMILY_EVENTS * (unsigned)family)) & ((1u << TRACE_PSV_FAMILY_EVENTS) - 1);
}

/* trace_psv_family_bits relies on the families' first events sitting at multiples
 * of TRACE_PSV_FAMILY_EVENTS. */
_Static_assert(TRACE_PSV_ST_L1 == TRACE_PSV_FAMILY_EVENTS * TRACE_PSV_FAMILY_STALL, "stall family layout");
_Static_assert(TRACE_PSV_DR_L1 == TRACE_PSV_FAMILY_EVENTS * TRACE_PSV_FAMILY_DRAIN, "drain family layout");
_Static_assert(TRACE_PSV_FL_MB == TRACE_PSV_FAMILY_EVENTS * TRACE_PSV_FAMILY_FLUSH, "flush family layout");
_Static_assert(TRACE_PSV_EVENT_COUNT == TRACE_PSV_FAMILY_EVENTS * TRACE_PSV_FAMILY_COUNT,
               "three families of three events");

void trace_psv_tally_flush(trace_psv_tally *t, uint64_t events[TRACE_PSV_EVENT_COUNT])
{
    const unsigned low_values = 1u << TRACE_PSV_TALLY_LOW_BITS;

    for (unsigned v = 1; v < low_values; v++)
        for (unsigned e = 0; e < TRACE_PSV_TALLY_LOW_BITS; e++)
            events[e] += (v >> e & 1u) * t->low[v];
    for (unsigned v = 1; v < TRACE_PSV_VALUES / low_values; v++)
        for (unsigned e = TRACE_PSV_TALLY_LOW_BITS; e < TRACE_PSV_EVENT_COUNT; e++)
            events[e] += (v >> (e - TRACE_PSV_TALLY_LOW_BITS) & 1u) * t->high[v];
    memset(t, 0, sizeof *t);
}
