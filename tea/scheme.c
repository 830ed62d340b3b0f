/*
 * scheme.c: the scheme table, jitter names (see scheme.h).
 */
#include "scheme.h"
#include "common/error.h"
#include "trace/psv.h"

#include <string.h>

#define BIT(e) (1u << (e))

/* Longest "a, b, c" list of every scheme name. */
#define SCHEME_LIST_MAX 64

/* One row of the scheme table. */
typedef struct scheme_entry {
    const char *name;       /* in files and on command lines */
    const char *display;    /* in prose and figures */
    uint16_t native_events; /* the PSV bits its hardware reports */
} scheme_entry;

/* Indexed by tea_scheme: the order of every table and figure. */
static const scheme_entry schemes[TEA_SCHEME_COUNT] = {
    [TEA_SCHEME_GOLDEN] = { "golden", "golden", TRACE_PSV_MASK_ALL },
    [TEA_SCHEME_TEA] = { "tea", "TEA", TRACE_PSV_MASK_ALL },
    [TEA_SCHEME_NCI] = { "nci", "NCI-TEA", TRACE_PSV_MASK_ALL },
    [TEA_SCHEME_IBS] = { "ibs", "IBS",
                         BIT(TRACE_PSV_DR_L1) | BIT(TRACE_PSV_DR_TLB) | BIT(TRACE_PSV_FL_MB) | BIT(TRACE_PSV_ST_L1)
                             | BIT(TRACE_PSV_ST_TLB) | BIT(TRACE_PSV_ST_LLC) },
    [TEA_SCHEME_SPE] = { "spe", "SPE",
                         BIT(TRACE_PSV_FL_MB) | BIT(TRACE_PSV_ST_L1) | BIT(TRACE_PSV_ST_TLB) | BIT(TRACE_PSV_ST_LLC) },
    [TEA_SCHEME_RIS] = { "ris", "RIS",
                         BIT(TRACE_PSV_DR_L1) | BIT(TRACE_PSV_DR_TLB) | BIT(TRACE_PSV_DR_SQ) | BIT(TRACE_PSV_FL_MB)
                             | BIT(TRACE_PSV_ST_L1) | BIT(TRACE_PSV_ST_TLB) | BIT(TRACE_PSV_ST_LLC) },
};
static const char *const jitter_names[] = { "none", "start", "interval" };

const char *tea_scheme_name(tea_scheme s)
{
    return (unsigned)s < TEA_SCHEME_COUNT ? schemes[s].name : "?";
}

const char *tea_scheme_display_name(tea_scheme s)
{
    return (unsigned)s < TEA_SCHEME_COUNT ? schemes[s].display : "?";
}

int tea_scheme_find(const char *name, size_t len, tea_scheme *s)
{
    for (int i = 0; i < TEA_SCHEME_COUNT; i++) {
        if (strlen(schemes[i].name) == len && strncmp(name, schemes[i].name, len) == 0) {
            *s = (tea_scheme)i;
            return 1;
        }
    }
    return 0;
}

int tea_scheme_parse(const char *name, tea_scheme *s)
{
    char list[SCHEME_LIST_MAX] = "";

    if (tea_scheme_find(name, strlen(name), s))
        return TEA_OK;
    for (int i = 0; i < TEA_SCHEME_COUNT; i++) {
        if (i > 0)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, schemes[i].name, sizeof list - strlen(list) - 1);
    }
    return error_set(TEA_ERR_USAGE, "unknown scheme '%s' (%s)", name, list);
}

uint16_t tea_scheme_native_events(tea_scheme s)
{
    /* Out of range: all events, as for the schemes without event limits. */
    return (unsigned)s < TEA_SCHEME_COUNT ? schemes[s].native_events : TRACE_PSV_MASK_ALL;
}

const char *tea_jitter_name(tea_jitter j)
{
    return (unsigned)j < sizeof jitter_names / sizeof jitter_names[0] ? jitter_names[j] : "?";
}

int tea_jitter_parse(const char *name, tea_jitter *j)
{
    for (unsigned i = 0; i < sizeof jitter_names / sizeof jitter_names[0]; i++) {
        if (strcmp(name, jitter_names[i]) == 0) {
            *j = (tea_jitter)i;
            return TEA_OK;
        }
    }
    return error_set(TEA_ERR_USAGE, "unknown jitter '%s' (none, start or interval)", name);
}
