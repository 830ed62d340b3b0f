/*
 * cleanup.c: removing temporary files and stopping children on SIGINT and
 * SIGTERM (see cleanup.h).
 */
#define _GNU_SOURCE
#include "cleanup.h"

#include <assert.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Exit status of a process ended by signal s, as shells report it. */
#define CLEANUP_EXIT_BASE 128

/* Directory-entry buffer of the signal handler. */
#define CLEANUP_DIRENT_BUFFER 4096

typedef struct cleanup_slot {
    volatile sig_atomic_t used;   /* set last when registering, cleared first when forgetting */
    pid_t pid;                    /* a child, or 0 for a file or directory */
    int is_dir;
    char path[CLEANUP_PATH_MAX];
} cleanup_slot;

/* The layout getdents64(2) fills in. */
struct cleanup_dirent {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Removes the files in directory `path` and the directory, with system calls
 * alone (async-signal-safe). */
static void remove_dir(const char *path)
{
    char buf[CLEANUP_DIRENT_BUFFER];
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    long n;

    if (fd < 0)
        return;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long at = 0; at < n;) {
            const struct cleanup_dirent *d = (const struct cleanup_dirent *)(buf + at);
            if (strcmp(d->name, ".") != 0 && strcmp(d->name, "..") != 0)
                unlinkat(fd, d->name, 0);
            at += d->reclen;
        }
    }
    close(fd);
    rmdir(path);
}

static cleanup_slot slots[CLEANUP_SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static volatile sig_atomic_t keep_on_interrupt; /* cleanup_keep_on_interrupt was called */
static volatile sig_atomic_t interrupted;       /* the signal kept, or 0 */

/* Kills every registered child. Async-signal-safe. */
static void kill_children(void)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (slots[i].used && slots[i].pid > 0)
            kill(slots[i].pid, SIGKILL);
}

/* Removes and stops what is registered, then ends the process; or, the
 * first time when asked to keep what was done, stops the children alone.
 * Only async-signal-safe calls. */
static void on_signal(int sig)
{
    if (keep_on_interrupt && !interrupted) {
        interrupted = sig;
        kill_children();
        return;
    }
    kill_children();
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        if (slots[i].used && slots[i].pid == 0 && !slots[i].is_dir)
            unlink(slots[i].path);
    }
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        /* directories last: the files written into them are gone by now */
        if (slots[i].used && slots[i].is_dir)
            remove_dir(slots[i].path);
    }
    _exit(cleanup_exit_status(sig));
}

/* Installs on_signal for `sig` unless the signal is ignored (a background
 * job of a shell without job control ignores SIGINT; so do we). */
static void install_handler(int sig)
{
    struct sigaction sa, old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(sig, &sa, NULL);
}

static void install_handlers(void)
{
    install_handler(SIGINT);
    install_handler(SIGTERM);
}

void cleanup_install(void)
{
    pthread_once(&installed, install_handlers);
}

/* Takes a free slot for a file or a child; -1 when none is free. */
static int add(const char *path, pid_t pid, int is_dir)
{
    int handle = -1;

    assert(strlen(path) < CLEANUP_PATH_MAX); /* the callers refused longer paths */
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        if (!slots[i].used) {
            slots[i].pid = pid;
            slots[i].is_dir = is_dir;
            memcpy(slots[i].path, path, strlen(path) + 1);
            slots[i].used = 1;
            handle = i;
            break;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    return handle;
}

int cleanup_add_file(const char *path)
{
    if (strlen(path) >= CLEANUP_PATH_MAX)
        return -1;
    return add(path, 0, 0);
}

int cleanup_add_dir(const char *path)
{
    if (strlen(path) >= CLEANUP_PATH_MAX)
        return -1;
    return add(path, 0, 1);
}

int cleanup_add_child(pid_t pid)
{
    return pid > 0 ? add("", pid, 0) : -1;
}

void cleanup_keep_on_interrupt(void)
{
    cleanup_install();
    keep_on_interrupt = 1;
}

int cleanup_interrupted(void)
{
    return interrupted;
}

int cleanup_exit_status(int sig)
{
    return CLEANUP_EXIT_BASE + sig;
}

void cleanup_forget(int handle)
{
    if (handle < 0 || handle >= CLEANUP_SLOTS)
        return;
    pthread_mutex_lock(&slots_lock);
    slots[handle].used = 0;
    pthread_mutex_unlock(&slots_lock);
}
