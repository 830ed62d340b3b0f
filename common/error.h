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

#endif
