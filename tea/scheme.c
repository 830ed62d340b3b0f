/*
 * scheme.c: scheme and jitter names, native event sets (see scheme.h).
 */
#include "scheme.h"
#include "common/error.h"
#include "trace/psv.h"

#include <string.h>

#define BIT(e) (1u << (e))

static const char *const scheme_names[TEA_SCHEME_COUNT] = { "golden", "tea", "nci", "ibs", "spe", "ris" };
static const char *const jitter_names[] = { "none", "start", "interval" };

const char *tea_scheme_name(tea_scheme s)
{
    return (unsigned)s < TEA_SCHEME_COUNT ? scheme_names[s] : "?";
}

int tea_scheme_parse(const char *name, tea_scheme *s)
{
    for (int i = 0; i < TEA_SCHEME_COUNT; i++) {
        if (strcmp(name, scheme_names[i]) == 0) {
            *s = (tea_scheme)i;
            return TEA_OK;
        }
    }
    return tea_error_set(TEA_ERR_USAGE, "unknown scheme '%s' (golden, tea, nci, ibs, spe, ris)", name);
}

uint16_t tea_scheme_native_events(tea_scheme s)
{
    switch (s) {
    case TEA_SCHEME_IBS:
        return BIT(PSV_DR_L1) | BIT(PSV_DR_TLB) | BIT(PSV_FL_MB) | BIT(PSV_ST_L1) | BIT(PSV_ST_TLB) | BIT(PSV_ST_LLC);
    case TEA_SCHEME_SPE:
        return BIT(PSV_FL_MB) | BIT(PSV_ST_L1) | BIT(PSV_ST_TLB) | BIT(PSV_ST_LLC);
    case TEA_SCHEME_RIS:
        return BIT(PSV_DR_L1) | BIT(PSV_DR_TLB) | BIT(PSV_DR_SQ) | BIT(PSV_FL_MB) | BIT(PSV_ST_L1) | BIT(PSV_ST_TLB)
            | BIT(PSV_ST_LLC);
    default:
        return PSV_MASK_ALL;
    }
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
    return tea_error_set(TEA_ERR_USAGE, "unknown jitter '%s' (none, start or interval)", name);
}
