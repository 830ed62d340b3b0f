/*
 * lackey.h: real x86-64 programs as a source of instructions for the core
 * model, through Valgrind's lackey tool.
 *
 * `valgrind --tool=lackey --trace-mem=yes -v -v` prints every executed
 * instruction ("I  addr,size") followed by its memory accesses (" L", " S",
 * " M" addr,size), and, before code of an object runs, the object's path and
 * load address ("Reading syms from PATH" / "svma X, avma Y"). This module
 * turns that text into model instructions:
 *   - the instruction bytes come from the ELF files themselves (mapped
 *     read-only), decoded once per static instruction with capstone into a
 *     class (branch kinds, load, store, integer, multiply, divide, FP,
 *     square root, serializing) and the registers it reads and writes;
 *   - the branch outcome is the next instruction's address;
 *   - the producer of an instruction is the latest earlier instruction that
 *     wrote one of the registers it reads (register dataflow).
 * It also starts and stops Valgrind (lackey_spawn) and reads its output
 * through a large pipe, drained in bulk so that Valgrind, which writes one
 * line per system call, is not woken for every line.
 */
#ifndef TEA_MODEL_LACKEY_H
#define TEA_MODEL_LACKEY_H

#include "core.h"

#include <stdint.h>
#include <sys/types.h>

typedef struct lackey lackey;

/* What the session learned about the traced program. */
typedef struct lackey_program {
    char *path;          /* the main executable (the first object Valgrind reads) */
    char *build_id;      /* its ELF build-id in hex, or NULL */
    uint64_t load_bias;  /* avma - svma of the main executable (0 for non-PIE) */
    int have_bias;
} lackey_program;

/* Counters. */
typedef struct lackey_stats {
    uint64_t lines;          /* lines of Valgrind output read */
    uint64_t instructions;   /* dynamic instructions handed to the model */
    uint64_t static_insns;   /* distinct instruction addresses decoded */
    uint64_t undecodable;    /* of those, not inside a known object or not decodable */
    uint64_t objects;        /* ELF objects mapped */
} lackey_stats;

/* Reads lackey output from file descriptor `fd` (closed by lackey_close).
 * `name` names the stream in messages. Returns 0 or TEA_ERR_NOMEM/IO. */
int lackey_open_fd(lackey **out, int fd, const char *name);

/* Starts `valgrind --tool=lackey` on argv[0..] (argv NULL-terminated; argv[0]
 * is looked up in PATH), with its trace going to a pipe this session reads.
 * The program's own stdout/stderr are left alone. `valgrind` overrides the
 * valgrind binary (NULL: "valgrind"). Errors: TEA_ERR_IO (cannot start). */
int lackey_spawn(lackey **out, char *const argv[], const char *valgrind);

/* The model source over this session; valid while it lives. */
model_source lackey_source(lackey *l);

/* Stops after `n` instructions (0: run the program to its end). When the
 * limit is reached, the traced program is killed. */
void lackey_set_limit(lackey *l, uint64_t n);

/* The main program (complete once its first instruction was read). */
const lackey_program *lackey_get_program(const lackey *l);

const lackey_stats *lackey_get_stats(const lackey *l);

/* Waits for Valgrind to end. *status is the program's exit status (or 128 +
 * signal number; -1 when the run was cut at the limit). Errors: TEA_ERR_IO
 * when Valgrind failed (its last messages are in the error text). */
int lackey_wait(lackey *l, int *status);

/* Closes the stream, kills Valgrind if it still runs, frees everything. */
void lackey_close(lackey *l);

#endif
