/*
 * testutil_alloc.c: allocation-failure injection, the one helper of the
 * fault tests (see testutil.h). Only a program linked with the wrapping
 * options (tests/CMakeLists.txt, tea_allocfail_wrap) may use it: the
 * __real_ functions exist only there. It is a member of its own in the
 * tea_testutil archive, so the other tests never pull it in.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"

#include <stdio.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* The allocation to fail (1: the first after arming; 0: none), the
 * allocations counted since arming, and whether the armed one failed. */
static unsigned long fail_at, allocations;
static int failed;

/* Whether the allocation being made is the one to fail. */
static int inject(void)
{
    if (fail_at == 0)
        return 0;
    if (++allocations == fail_at) {
        failed = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t size)
{
    return inject() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return inject() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return inject() ? NULL : __real_realloc(p, size);
}

char *__wrap_strdup(const char *s)
{
    return inject() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return inject() ? NULL : __real_strndup(s, n);
}

void test_alloc_fail_at(unsigned long n)
{
    fail_at = n;
    allocations = 0;
    failed = 0;
}

int test_alloc_failed(void)
{
    return failed;
}

void *test_alloc_calloc_unfailing(size_t n, size_t size)
{
    return __real_calloc(n, size);
}

int test_alloc_each(const char *what, int (*run)(void *ctx), void *ctx, unsigned long *count)
{
    unsigned long n;
    int rc, bad = 0;

    test_alloc_fail_at(0);
    if ((rc = run(ctx))) {
        fprintf(stderr, "%s: fails without injection (%d): %s\n", what, rc, error_message());
        return 1;
    }
    for (n = 1;; n++) {
        test_alloc_fail_at(n);
        rc = run(ctx);
        fail_at = 0;
        if (!failed) {
            /* The run needed fewer than n allocations: every one has failed once. */
            if (rc) {
                fprintf(stderr, "%s: fails without injection (%d): %s\n", what, rc, error_message());
                bad = 1;
            }
            break;
        }
        if (rc != TEA_OK && rc != TEA_ERR_NOMEM) {
            fprintf(stderr, "%s: allocation %lu failed: returned %d, not TEA_ERR_NOMEM (%s)\n", what, n, rc,
                    error_message());
            bad = 1;
        }
    }
    if (count)
        *count = n - 1;
    return bad;
}
