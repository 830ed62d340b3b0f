/*
 * error.c: per-thread error messages (see error.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Long enough for a file path plus a sentence of context. */
#define ERROR_MESSAGE_MAX 1024

static _Thread_local char error_text[ERROR_MESSAGE_MAX];

int error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_text, sizeof error_text, fmt, ap);
    va_end(ap);
    return code;
}

int error_prefix(int code, const char *fmt, ...)
{
    char old[ERROR_MESSAGE_MAX];
    size_t used;
    va_list ap;

    memcpy(old, error_text, sizeof old);
    va_start(ap, fmt);
    vsnprintf(error_text, sizeof error_text, fmt, ap);
    va_end(ap);
    used = strlen(error_text);
    /* Append as much of the old message as fits. */
    memcpy(error_text + used, old, strnlen(old, sizeof error_text - used - 1));
    error_text[used + strnlen(old, sizeof error_text - used - 1)] = '\0';
    return code;
}

const char *error_message(void)
{
    return error_text;
}

void error_clear(void)
{
    error_text[0] = '\0';
}

int error_exit_status(int code)
{
    if (code == TEA_OK)
        return 0;
    return code == TEA_ERR_USAGE ? 2 : 1;
}
