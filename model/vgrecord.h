/*
 * vgrecord.h: real x86-64 programs as a source of instructions for the core
 * model, through tea's own Valgrind tool (record/tearec.c).
 *
 * The tool runs the program and writes binary records (record/stream.h) to a
 * pipe this session reads: every executed instruction of one thread in the
 * region of interest with its memory accesses, each instruction's bytes when
 * Valgrind first translates it, and each executable file mapping code runs
 * from. This module turns them into model instructions:
 *   - each static instruction is decoded once, from the bytes the tool sent
 *     (or, for a wrong-path address never translated, from the mapped ELF
 *     file), with capstone into a class (branch kinds, load, store, integer,
 *     multiply, divide, FP, square root, serializing) and the registers it
 *     reads and writes; the decodings are cached by address;
 *   - the branch outcome is the next instruction's address;
 *   - the producer of an instruction is the latest earlier instruction that
 *     wrote one of the registers it reads (register dataflow).
 * Valgrind and the model run in two processes, so the two pipeline on two
 * cores; the tool writes in 1 MiB batches.
 */
#ifndef TEA_MODEL_VGRECORD_H
#define TEA_MODEL_VGRECORD_H

#include "core.h"

#include <stdint.h>
#include <sys/types.h>

typedef struct model_vgrecord model_vgrecord;

/* The tool's file name in its Valgrind library directory (the launcher runs
 * VALGRIND_LIB/NAME-PLATFORM for --tool=NAME). */
#define MODEL_VGRECORD_TOOL "tearec"
#define MODEL_VGRECORD_TOOL_FILE "tearec-amd64-linux"

/* What to record. */
typedef struct model_vgrecord_options {
    const char *valgrind;     /* the valgrind launcher (NULL: "valgrind" in PATH) */
    const char *tool_dir;     /* the directory holding MODEL_VGRECORD_TOOL_FILE (VALGRIND_LIB) */
    uint64_t skip;            /* instructions skipped once started */
    uint64_t max_instructions;/* 0: no limit */
    uint64_t warmup;          /* instructions after the skip that only warm the model */
    const char *start_at;     /* function whose entry starts recording, or NULL */
    const char *stop_at;      /* function whose entry ends it (entry included), or NULL */
    int wait_start;           /* start at tea_record_start() */
    int kill_after;           /* kill the program when recording ends */
    uint32_t thread;          /* Valgrind's thread number; 0: the main thread (1) */
    const char *children_dir; /* --trace-children: children's FIFOs appear here as PID.fifo (NULL: none) */
} model_vgrecord_options;

/* An executable file mapping code ran from. */
typedef struct model_vgrecord_object {
    char *path;               /* as the program mapped it */
    char *build_id;           /* ELF build-id in hex, or NULL (file unreadable or none) */
    uint64_t start, end;      /* the mapping [start, end) */
    uint64_t load_bias;       /* start - the ELF virtual address it maps */
    int have_bias;            /* 0: the file could not be read */
} model_vgrecord_object;

/* What the session learned about the traced program. */
typedef struct model_vgrecord_program {
    char *path;          /* the main executable */
    char *build_id;      /* its ELF build-id in hex, or NULL */
    uint64_t load_bias;  /* of the main executable (0 for non-PIE) */
    int have_bias;
} model_vgrecord_program;

/* Why recording ended (model_vgrecord_stats.stop). */
typedef enum model_vgrecord_stop {
    MODEL_VGRECORD_RUNNING = 0,
    MODEL_VGRECORD_STOP_MAX,     /* --max-instructions */
    MODEL_VGRECORD_STOP_SYMBOL,  /* --stop-at */
    MODEL_VGRECORD_STOP_REQUEST, /* tea_record_stop() */
    MODEL_VGRECORD_STOP_EXIT     /* the program ended */
} model_vgrecord_stop;

/* Counters. */
typedef struct model_vgrecord_stats {
    uint64_t words;          /* stream words read */
    uint64_t instructions;   /* dynamic instructions handed to the model */
    uint64_t warmed;         /* warm-up instructions handed to the warm callback */
    uint64_t static_insns;   /* distinct instruction addresses decoded */
    uint64_t undecodable;    /* of those, without bytes or not decodable */
    uint64_t objects;        /* executable mappings reported */
    int stop;                /* model_vgrecord_stop */
    uint32_t threads_seen;   /* threads the program had started when recording stopped (0: unknown) */
} model_vgrecord_stats;

/* Reads a record stream from file descriptor `fd` (closed by model_vgrecord_close;
 * for tests). `name` names the stream in messages. TEA_ERR_NOMEM/IO. */
int model_vgrecord_open_fd(model_vgrecord **out, int fd, const char *name);

/* Starts `valgrind --tool=tearec` on argv[0..] (NULL-terminated; argv[0] is
 * looked up in PATH) with its records going to a pipe this session reads.
 * The program's own stdin, stdout and stderr are left alone. Errors:
 * TEA_ERR_USAGE (the program is not found or not executable), TEA_ERR_IO
 * (valgrind or the tool missing, cannot start). */
int model_vgrecord_spawn(model_vgrecord **out, char *const argv[], const model_vgrecord_options *opt);

/* Receives each warm-up instruction (--warmup), in order, before the
 * region's first instruction is returned by the source. */
typedef void (*model_vgrecord_warm_fn)(void *ctx, const model_insn *insn);

/* Where warm-up instructions go (default: dropped). */
void model_vgrecord_set_warm(model_vgrecord *v, model_vgrecord_warm_fn fn, void *ctx);

/* The model source over this session; valid while it lives. */
model_source model_vgrecord_source(model_vgrecord *v);

/* The main program (known once its code ran). */
const model_vgrecord_program *model_vgrecord_get_program(const model_vgrecord *v);

/* The executable mappings reported so far, in the order code first ran
 * from them; valid until the next read or close. */
const model_vgrecord_object *model_vgrecord_objects(const model_vgrecord *v, size_t *count);

const model_vgrecord_stats *model_vgrecord_get_stats(const model_vgrecord *v);

/* Waits for Valgrind (and so the program) to end. *status is the program's
 * exit status (128 + signal number; -1 when it was killed after recording,
 * --kill-after). Errors: TEA_ERR_IO when Valgrind did not run. */
int model_vgrecord_wait(model_vgrecord *v, int *status);

/* Closes the stream, kills Valgrind if it still runs, frees everything. */
void model_vgrecord_close(model_vgrecord *v);

#endif
