/*
 * tdimport.h: the outputs of the TEA authors' TraceDoctor workers
 * (EECS-NTNU/firesim, branch tea, tracedoctor_tea.cc) as PICS, for FireSim
 * runs that kept only those CSVs and no trace (`pics import`).
 *
 * The formats (docs/pics-format.md, "TraceDoctor worker outputs"):
 *   tea_gold      "address;signatures", then per static instruction
 *                 "0xADDR;SIG:CYCLES/SIG:CYCLES/...", CYCLES a multiple of
 *                 1/24 printed with %f
 *   tea_sampler,  "cycle;stallLatency;teaflags;address0;isslat0;memlat0;
 *   pebs_sampler, signature0;..." for four slots, then one line per sample;
 *   ibs_sampler   teaflags bits 0-3 say which slots are listed, 0x10, 0x20,
 *                 0x40 the commit state (stalled, deferred, OIR)
 * Signatures fold to the PSV (trace_td_signature_psv); cells that differ
 * only in unfolded bits are summed. The golden cycles are exact (x/24 of a
 * cycle is x * PICS_UNIT/24 units). A TEA line in none of the three states
 * gives 1/n of a sample to each of its n listed µops, any other line the
 * whole sample to address0; a PEBS or IBS line one sample to address0,
 * IBS's masked to its native events.
 */
#ifndef TEA_PICS_TDIMPORT_H
#define TEA_PICS_TDIMPORT_H

#include "pics.h"
#include "pics_file.h"

#include <stdint.h>

typedef enum pics_td_kind {
    PICS_TD_GOLD = 0,  /* tea_gold: the golden reference (tracedoctor rules) */
    PICS_TD_TEA,       /* tea_sampler: TEA */
    PICS_TD_PEBS,      /* pebs_sampler: NCI-TEA */
    PICS_TD_IBS,       /* ibs_sampler: IBS */
    PICS_TD_KIND_COUNT
} pics_td_kind;

/* "tea_gold", "tea_sampler", "pebs_sampler", "ibs_sampler": the worker's
 * name. 0, or TEA_ERR_USAGE (message listing them). */
int pics_td_kind_parse(const char *name, pics_td_kind *kind);

/* What the CSV does not say. */
typedef struct pics_td_import_options {
    uint64_t clock_hz;        /* the core's clock (frequency_hz = clock / period) */
    uint64_t period;          /* the samplers' samplingPeriod (cycles; ignored for tea_gold) */
    const pics_info *like;    /* NULL, or a PICS of the same run (the imported golden, a replay's):
                                 its trace identity and golden total are copied */
} pics_td_import_options;

/*
 * Reads the worker CSV at `path` (kind `kind`) into `p` (initialized here)
 * and its provenance into `info`: scheme golden, tea, nci or ibs, golden
 * rules tracedoctor, jitter none, native events; samples and lost.end 0 for
 * the samplers, whose golden total is the like PICS's (else 0: scaled only
 * against a golden PICS); the golden's is its cells' sum. Errors: TEA_ERR_IO,
 * TEA_ERR_FORMAT ("FILE: line N: what"), TEA_ERR_USAGE (a sampler without a
 * period), TEA_ERR_NOMEM. Nothing is kept on an error.
 */
int pics_td_import(const char *path, pics_td_kind kind, const pics_td_import_options *o, pics_info *info, pics *p);

#endif
