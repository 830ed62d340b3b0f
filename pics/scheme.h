/*
 * scheme.h: the profiling schemes and their sampling options.
 *
 * The one table of the schemes: their names in files and on command lines,
 * their order (golden first, then the samplers in the order of every table
 * and figure: tea, nci, ibs, spe, ris), the names they go by in prose and
 * figures (TEA, NCI-TEA, IBS, SPE, RIS) and their native event sets. Every
 * other module takes scheme names and their order from here.
 *
 * Each scheme reports only the events its hardware unit has (its native
 * event set), unless asked to report all nine (which isolates the effect of
 * time-proportionality from that of event support).
 */
#ifndef TEA_PICS_SCHEME_H
#define TEA_PICS_SCHEME_H

#include <stddef.h>
#include <stdint.h>

typedef enum pics_scheme {
    PICS_SCHEME_GOLDEN = 0, /* every cycle, exact (no sampling) */
    PICS_SCHEME_TEA,        /* time-proportional: what golden charges at the sampled cycle */
    PICS_SCHEME_NCI,        /* next committing instruction (PEBS-like) */
    PICS_SCHEME_IBS,        /* AMD instruction-based sampling: tags the next dispatched µop */
    PICS_SCHEME_SPE,        /* Arm statistical profiling: counts dispatched µops */
    PICS_SCHEME_RIS,        /* IBM random instruction sampling: skips a random number of µops */
    PICS_SCHEME_COUNT
} pics_scheme;

typedef enum pics_jitter {
    PICS_JITTER_NONE = 0,   /* points at origin + k*P */
    PICS_JITTER_START,      /* one random offset, then every P */
    PICS_JITTER_INTERVAL    /* one random point inside every period */
} pics_jitter;

/* "golden", "tea", "nci", "ibs", "spe", "ris"; "?" out of range. */
const char *pics_scheme_name(pics_scheme s);

/* The event-set suffix of a sampler label with all nine events: "ibs:all"
 * (a scheme's own events have no suffix). */
#define PICS_SCHEME_ALL_EVENTS "all"

/* The name in prose and figures: "golden", "TEA", "NCI-TEA", "IBS", "SPE",
 * "RIS"; "?" out of range. */
const char *pics_scheme_display_name(pics_scheme s);

/* Looks up the `len` bytes at `name` (not necessarily NUL-terminated) as a
 * scheme name; 1 and *s when found, 0 (nothing set, no message) otherwise. */
int pics_scheme_find(const char *name, size_t len, pics_scheme *s);

/* Parses a scheme name; returns 0 or TEA_ERR_USAGE (message listing the
 * names). */
int pics_scheme_parse(const char *name, pics_scheme *s);

/* True for the schemes that tag ROB entries (IBS, SPE, RIS) rather than
 * sample cycles (TEA, NCI-TEA) or attribute every cycle (golden). */
int pics_scheme_tags(pics_scheme s);

/* The PSV bits a scheme reports natively. */
uint16_t pics_scheme_native_events(pics_scheme s);

/* "none", "start", "interval". */
const char *pics_jitter_name(pics_jitter j);

/* Parses a jitter name; returns 0 or TEA_ERR_USAGE. */
int pics_jitter_parse(const char *name, pics_jitter *j);

#endif
