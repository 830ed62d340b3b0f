/*
 * scheme.h: the profiling schemes and their sampling options.
 *
 * Each scheme reports only the events its hardware unit has (its native
 * event set), unless asked to report all nine (which isolates the effect of
 * time-proportionality from that of event support).
 */
#ifndef TEA_TEA_SCHEME_H
#define TEA_TEA_SCHEME_H

#include <stdint.h>

typedef enum tea_scheme {
    TEA_SCHEME_GOLDEN = 0, /* every cycle, exact (no sampling) */
    TEA_SCHEME_TEA,        /* time-proportional: what golden charges at the sampled cycle */
    TEA_SCHEME_NCI,        /* next committing instruction (PEBS-like) */
    TEA_SCHEME_IBS,        /* AMD instruction-based sampling: tags the next dispatched µop */
    TEA_SCHEME_SPE,        /* Arm statistical profiling: counts dispatched µops */
    TEA_SCHEME_RIS,        /* IBM random instruction sampling: skips a random number of µops */
    TEA_SCHEME_COUNT
} tea_scheme;

typedef enum tea_jitter {
    TEA_JITTER_NONE = 0,   /* points at origin + k*P */
    TEA_JITTER_START,      /* one random offset, then every P */
    TEA_JITTER_INTERVAL    /* one random point inside every period */
} tea_jitter;

/* "golden", "tea", "nci", "ibs", "spe", "ris". */
const char *tea_scheme_name(tea_scheme s);

/* Parses a scheme name; returns 0 or TEA_ERR_USAGE. */
int tea_scheme_parse(const char *name, tea_scheme *s);

/* The PSV bits a scheme reports natively. */
uint16_t tea_scheme_native_events(tea_scheme s);

/* "none", "start", "interval". */
const char *tea_jitter_name(tea_jitter j);

/* Parses a jitter name; returns 0 or TEA_ERR_USAGE. */
int tea_jitter_parse(const char *name, tea_jitter *j);

#endif
