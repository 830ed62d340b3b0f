/*
 * psv.c: names and labels of PSV events, and event counts in lanes (see psv.h).
 */
#include "psv.h"
#include "../common/error.h"

#include <assert.h>
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
    assert(used < size); /* the labels that fitted, NUL-terminated */
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

/* trace_psv_lane_table's entry for PSV v. */
#define LANES(v)                                                                                                       \
    ((uint64_t)((v)&1u) | (uint64_t)((v) >> 1 & 1u) << 7 | (uint64_t)((v) >> 2 & 1u) << 14                             \
     | (uint64_t)((v) >> 3 & 1u) << 21 | (uint64_t)((v) >> 4 & 1u) << 28 | (uint64_t)((v) >> 5 & 1u) << 35             \
     | (uint64_t)((v) >> 6 & 1u) << 42 | (uint64_t)((v) >> 7 & 1u) << 49 | (uint64_t)((v) >> 8 & 1u) << 56)
#define LANES4(v) LANES(v), LANES((v) + 1), LANES((v) + 2), LANES((v) + 3)
#define LANES16(v) LANES4(v), LANES4((v) + 4), LANES4((v) + 8), LANES4((v) + 12)
#define LANES64(v) LANES16(v), LANES16((v) + 16), LANES16((v) + 32), LANES16((v) + 48)
#define LANES256(v) LANES64(v), LANES64((v) + 64), LANES64((v) + 128), LANES64((v) + 192)
_Static_assert(TRACE_PSV_LANE_BITS == 7 && TRACE_PSV_EVENT_COUNT == 9, "LANES spells out nine 7-bit lanes");

const uint64_t trace_psv_lane_table[TRACE_PSV_VALUES] = { LANES256(0), LANES256(256) };

void trace_psv_lanes_add(uint64_t lanes, uint64_t events[TRACE_PSV_EVENT_COUNT])
{
    for (unsigned e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        events[e] += lanes >> (e * TRACE_PSV_LANE_BITS) & TRACE_PSV_LANE_MAX;
}
