/*
 * error.h: the project's error convention.
 *
 * Every fallible function returns 0 on success or one of the negative TEA_ERR_*
 * codes below, and passes results through pointer parameters. The function that
 * detects a failure records a human-readable message (naming the file and the
 * byte, token or record offset where that applies) with error_set(); the
 * caller retrieves it with error_message(). Messages are per thread.
 */
#ifndef TEA_COMMON_ERROR_H
#define TEA_COMMON_ERROR_H

#include <assert.h>

enum {
    TEA_OK = 0,
    TEA_ERR_IO = -1,          /* reading or writing a file failed */
    TEA_ERR_FORMAT = -2,      /* malformed input: bad magic, corrupt data, impossible state */
    TEA_ERR_USAGE = -3,       /* an invalid argument or option */
    TEA_ERR_NOMEM = -4,       /* an allocation failed */
    TEA_ERR_UNSUPPORTED = -5  /* valid input that this operation cannot represent */
};

/* Records a printf-style message for the calling thread and returns `code`, so
 * that `return error_set(TEA_ERR_FORMAT, "...")` reads naturally. */
int error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the current message with a printf-style context ("file.zst: ...")
 * and returns `code`. Used by outer layers that know the file name. */
int error_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message recorded on this thread, or "" when none. */
const char *error_message(void);

/* Forgets the last message. */
void error_clear(void);

/* The process exit status for an error code: 2 for usage errors, 1 otherwise,
 * 0 for TEA_OK. */
int error_exit_status(int code);

/*
 * Checks an argument of a library's entry point that a caller could get
 * wrong (a NULL pointer, an index out of range), as libgit2's
 * GIT_ASSERT_ARG does: where assert is active (Debug and sanitized builds)
 * a false `expr` aborts at once, with the expression and the place; in
 * Release it makes the function return TEA_ERR_USAGE with a message naming
 * the function and the expression. Only in functions that return an int
 * error code. `expr` is evaluated once in every build and must have no
 * side effects.
 */
#ifdef NDEBUG
#define TEA_ASSERT_ARG(expr) \
    do { \
        if (!(expr)) { \
            error_set(TEA_ERR_USAGE, "%s: invalid argument: %s", __func__, #expr); \
            return TEA_ERR_USAGE; /* a constant: callers' flow analysis sees the failure */ \
        } \
    } while (0)
#else
#define TEA_ASSERT_ARG(expr) assert(expr)
#endif

#endif
