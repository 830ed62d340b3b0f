/*
 * workload.h: named synthetic workloads that feed the core model.
 *
 * A workload is a synthetic static program (functions, each a loop body of
 * typed instructions at fixed addresses) and a seeded walk through it that
 * decides, per dynamic instruction, its cache and TLB misses, branch outcome
 * and misprediction, flushes, exceptions and ordering failures. Between them
 * the workloads exercise every commit state and every event (docs/model.md).
 * Everything is a pure function of (name, seed).
 */
#ifndef TEA_MODEL_WORKLOAD_H
#define TEA_MODEL_WORKLOAD_H

#include "core.h"
#include "elfcode.h"

#include <stdint.h>

typedef struct model_workload model_workload;

/* The built-in workload names, NULL-terminated. */
const char *const *model_workload_names(void);

/* A one-line description of a workload, or NULL for an unknown name. */
const char *model_workload_description(const char *name);

/* Builds a workload. TEA_ERR_USAGE for an unknown name, TEA_ERR_NOMEM. */
int model_workload_create(model_workload **out, const char *name, uint64_t seed);

/* Builds a walk over the machine code of a binary (elfcode.h): the
 * instructions, their classes and the control flow between them are the
 * binary's; which way each conditional branch goes, how often loops run,
 * where indirect calls and jumps land, and every data address come from the
 * named workload's behaviour and the seed, as for the synthetic programs.
 * Calls are followed and returns go back to the caller; when the walk runs
 * out of callers or off the code, it starts over at the entry point.
 * `code` must outlive the workload. Errors as model_workload_create. */
int model_workload_create_elf(model_workload **out, const char *name, uint64_t seed, const model_elfcode *code);

/* The µop source to hand to model_core_create; valid while `w` lives. */
model_source model_workload_source(model_workload *w);

/* Lowest and highest instruction address of the program (for headers and
 * symbol checks). */
void model_workload_address_range(const model_workload *w, uint64_t *lo, uint64_t *hi);

void model_workload_free(model_workload *w);

#endif
