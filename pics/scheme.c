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

/* Indexed by pics_scheme: the order of every table and figure. */
static const scheme_entry schemes[PICS_SCHEME_COUNT] = {
    [PICS_SCHEME_GOLDEN] = { "golden", "golden", TRACE_PSV_MASK_ALL },
    [PICS_SCHEME_TEA] = { "tea", "TEA", TRACE_PSV_MASK_ALL },
    [PICS_SCHEME_NCI] = { "nci", "NCI-TEA", TRACE_PSV_MASK_ALL },
    [PICS_SCHEME_IBS] = { "ibs", "IBS",
                         BIT(TRACE_PSV_DR_L1) | BIT(TRACE_PSV_DR_TLB) | BIT(TRACE_PSV_FL_MB) | BIT(TRACE_PSV_ST_L1)
                             | BIT(TRACE_PSV_ST_TLB) | BIT(TRACE_PSV_ST_LLC) },
    [PICS_SCHEME_SPE] = { "spe", "SPE",
                         BIT(TRACE_PSV_FL_MB) | BIT(TRACE_PSV_ST_L1) | BIT(TRACE_PSV_ST_TLB) | BIT(TRACE_PSV_ST_LLC) },
    [PICS_SCHEME_RIS] = { "ris", "RIS",
                         BIT(TRACE_PSV_DR_L1) | BIT(TRACE_PSV_DR_TLB) | BIT(TRACE_PSV_DR_SQ) | BIT(TRACE_PSV_FL_MB)
                             | BIT(TRACE_PSV_ST_L1) | BIT(TRACE_PSV_ST_TLB) | BIT(TRACE_PSV_ST_LLC) },
};
static const char *const jitter_names[] = { "none", "start", "interval" };

const char *pics_scheme_name(pics_scheme s)
{
    return (unsigned)s < PICS_SCHEME_COUNT ? schemes[s].name : "?";
}

const char *pics_scheme_display_name(pics_scheme s)
{
    return (unsigned)s < PICS_SCHEME_COUNT ? schemes[s].display : "?";
}

int pics_scheme_find(const char *name, size_t len, pics_scheme *s)
{
    for (int i = 0; i < PICS_SCHEME_COUNT; i++) {
        if (strlen(schemes[i].name) == len && strncmp(name, schemes[i].name, len) == 0) {
            *s = (pics_scheme)i;
            return 1;
        }
    }
    return 0;
}

int pics_scheme_parse(const char *name, pics_scheme *s)
{
    char list[SCHEME_LIST_MAX] = "";

    if (pics_scheme_find(name, strlen(name), s))
        return TEA_OK;
    for (int i = 0; i < PICS_SCHEME_COUNT; i++) {
        if (i > 0)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, schemes[i].name, sizeof list - strlen(list) - 1);
    }
    return error_set(TEA_ERR_USAGE, "unknown scheme '%s' (%s)", name, list);
}

int pics_scheme_tags(pics_scheme s)
{
    return s == PICS_SCHEME_IBS || s == PICS_SCHEME_SPE || s == PICS_SCHEME_RIS;
}

uint16_t pics_scheme_native_events(pics_scheme s)
{
    /* Out of range: all events, as for the schemes without event limits. */
    return (unsigned)s < PICS_SCHEME_COUNT ? schemes[s].native_events : TRACE_PSV_MASK_ALL;
}

const char *pics_jitter_name(pics_jitter j)
{
    return (unsigned)j < sizeof jitter_names / sizeof jitter_names[0] ? jitter_names[j] : "?";
}

int pics_jitter_parse(const char *name, pics_jitter *j)
{
    for (unsigned i = 0; i < sizeof jitter_names / sizeof jitter_names[0]; i++) {
        if (strcmp(name, jitter_names[i]) == 0) {
            *j = (pics_jitter)i;
            return TEA_OK;
        }
    }
    return error_set(TEA_ERR_USAGE, "unknown jitter '%s' (none, start or interval)", name);
}
