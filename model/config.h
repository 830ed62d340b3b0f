/*
 * config.h: the model's parameters in one place, read from `key = value`
 * text (a file, or --set key=value strings) and written back out.
 *
 * Syntax: one `key = value` per line; `#` starts a comment; blank lines are
 * ignored; later settings override earlier ones. Keys are grouped by
 * structure: core.*, l1i.*, l1d.*, llc.*, dram.*, tlb.*, itlb.*, dtlb.*,
 * l2tlb.*, bpred.* (model_config_write lists them all with their meaning). Values are
 * unsigned integers in decimal or 0x hex; sizes in bytes also take a binary
 * suffix (K or KiB = 1024, M or MiB, G or GiB: "32KiB", "2M"); switches take
 * 0/1/true/false/yes/no/on/off; bpred.predictor takes gshare or tage.
 *
 * Errors are TEA_ERR_USAGE with a message naming the file and line (or the
 * --set argument): unknown keys, malformed or out-of-range values, lines
 * without '='. Consistency across keys (cache geometry, ROB rows) is checked
 * by model_config_check() once everything is read.
 */
#ifndef TEA_MODEL_CONFIG_H
#define TEA_MODEL_CONFIG_H

#include "bpred.h"
#include "memory.h"
#include "tlb.h"

#include <stdio.h>

/* The core's own parameters (BOOM-like defaults; see model/core.h). */
typedef struct model_config_core {
    unsigned width;              /* dispatch/commit width, µops per ROB row (4) */
    unsigned fetch_width;        /* µops fetched per cycle (8) */
    unsigned rob_size;           /* ROB entries, a multiple of width (192) */
    unsigned lsq_size;           /* load/store queue entries (64) */
    unsigned fetch_buffer;       /* µops between fetch and dispatch (32) */
    unsigned frontend_latency;   /* cycles from fetch to dispatch (3) */
    unsigned redirect_penalty;   /* cycles to refetch after a resolved misprediction (10) */
    unsigned flush_penalty;      /* cycles to refetch after a flush at commit (12) */
    unsigned exception_penalty;  /* cycles a trap takes before the handler returns (40) */
    unsigned misfetch_penalty;   /* front-end bubble when decode redirects a BTB miss (2) */
    unsigned page_faults;        /* 1: the first touch of each data page raises an exception (1) */
    unsigned lat_int;            /* integer ALU latency, cycles (1) */
    unsigned lat_mul;            /* integer multiply (3) */
    unsigned lat_div;            /* integer divide (16) */
    unsigned lat_fp_add;         /* FP add (4) */
    unsigned lat_fp_mul;         /* FP multiply / fused multiply-add (4) */
    unsigned lat_fp_div;         /* FP divide (14) */
    unsigned lat_fp_sqrt;        /* FP square root (20) */
} model_config_core;

/* Everything the model can be configured with. */
typedef struct model_config {
    model_config_core core;
    model_mem_config mem;
    model_tlb_config tlb;
    model_bpred_config bpred;
} model_config;

/* Fills `c` with the defaults of every structure. */
void model_config_defaults(model_config *c);

/* Checks consistency across keys (each structure's own check plus the
 * core's); TEA_ERR_USAGE naming the keys involved. */
int model_config_check(const model_config *c);

/* Applies one `key = value` setting. `where` prefixes error messages (e.g.
 * "model.cfg:12" or "--set"). */
int model_config_set(model_config *c, const char *key, const char *value, const char *where);

/* Applies a --set style "key=value" string. Errors name the argument. */
int model_config_set_string(model_config *c, const char *assignment);

/* Applies every line of `text` (NUL-terminated); `name` names it in errors
 * ("name:LINE: ..."). Stops at the first error. */
int model_config_parse_text(model_config *c, const char *text, const char *name);

/* Reads and applies a configuration file. TEA_ERR_IO when unreadable,
 * TEA_ERR_USAGE for its contents (naming the path and line). */
int model_config_load(model_config *c, const char *path);

/* Writes the full effective configuration as `key = value` lines with a
 * comment on each, readable by model_config_parse_text. TEA_ERR_IO on a write
 * error. */
int model_config_write(const model_config *c, FILE *out);

#endif
