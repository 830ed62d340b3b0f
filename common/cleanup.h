/*
 * cleanup.h: what an interrupted run must not leave behind.
 *
 * Commands register the temporary files they are writing (outfile.h does
 * this for every output) and the child processes they run. On SIGINT or
 * SIGTERM the handler removes every registered file, kills (SIGKILL: a
 * program under Valgrind may ignore SIGTERM) every registered child,
 * empties and removes every registered directory, and ends the process with
 * 128 + the signal number (130, 143), as shells report a process killed by
 * it. The registry has a fixed number of slots and copies each path, so the
 * handler touches no memory that a running thread might free.
 *
 * A recording command keeps what it has instead, as perf record does
 * (cleanup_keep_on_interrupt): the first signal only kills the registered
 * children and is remembered, so that the command finishes its outputs from
 * what it received; a second signal cleans up and ends the process as
 * above.
 */
#ifndef TEA_COMMON_CLEANUP_H
#define TEA_COMMON_CLEANUP_H

#include <sys/types.h>

/* Most temporary files and children registered at once. */
#define CLEANUP_SLOTS 256
/* Longest registrable path, NUL included. */
#define CLEANUP_PATH_MAX 4096

/* Installs the SIGINT and SIGTERM handlers (once; later calls do nothing). */
void cleanup_install(void);

/* Registers a file to remove on a signal. Returns a handle (>= 0) for
 * cleanup_forget, or -1 when the path is too long or every slot is taken
 * (the file is then simply not removed on a signal). Thread-safe. */
int cleanup_add_file(const char *path);

/* Registers a directory to remove on a signal, with the files in it (one
 * level: a directory being filled with a run's outputs). A handle or -1. */
int cleanup_add_dir(const char *path);

/* Registers a child process to terminate on a signal; a handle or -1. */
int cleanup_add_child(pid_t pid);

/* Forgets a registration (a handle from cleanup_add_*; -1 is ignored). */
void cleanup_forget(int handle);

/* From now on the first SIGINT or SIGTERM kills the registered children
 * and is remembered (cleanup_interrupted), leaving the files; the next one
 * cleans up and exits as usual. Installs the handlers too. */
void cleanup_keep_on_interrupt(void);

/* The signal that interrupted the process under cleanup_keep_on_interrupt,
 * or 0. Async-signal-safe and thread-safe. */
int cleanup_interrupted(void);

/* Exit status of a command ended by signal `sig`: 128 + sig, as shells
 * report it. */
int cleanup_exit_status(int sig);

#endif
