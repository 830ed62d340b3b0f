/*
 * symbols_prog.c: the ELF symbolizer's test program (tests/unit/test_symbols.c).
 *
 * Built by the test suite (tests/CMakeLists.txt) with -fno-toplevel-reorder
 * so that the layout follows this file:
 *   - x86-64 with the host compiler: fixed addresses (-no-pie), PIE, PIE
 *     stripped, PIE with its functions exported (-rdynamic) then stripped;
 *   - RISC-V (rv64gc) freestanding with the cross compiler
 *     (SYMBOLS_FREESTANDING: no libc, no ifunc, _start instead of main),
 *     once at ordinary addresses and once linked in the upper half of the
 *     address space like a kernel (sign-extended addresses).
 * The program is never run. What it holds: a local function, a function
 * with a global and a weak alias, a weak function, an ifunc (hosted only),
 * a function written in assembly without a size, and ordinary functions.
 */
typedef long (*unary)(long);

volatile long symbols_sink;

/* A local (static) function. */
__attribute__((noinline)) static long local_helper(long x)
{
    for (int i = 0; i < 3; i++)
        x = x * 7 + symbols_sink;
    return x;
}

/* A function with two aliases: alias_function (global) and weak_alias
 * (weak). The preferred name is real_function: as sized and global as
 * alias_function, and shorter. */
__attribute__((noinline)) long real_function(long x)
{
    long s = 0;
    for (long i = 0; i < x; i++)
        s += local_helper(i) ^ i;
    return s;
}
long alias_function(long x) __attribute__((alias("real_function")));
long weak_alias(long x) __attribute__((weak, alias("real_function")));

/* A weak function. */
__attribute__((weak, noinline)) long weak_function(long x)
{
    return x * 3 + 1;
}

#ifndef SYMBOLS_FREESTANDING
/* An ifunc: dispatch is resolved at load time to one implementation. */
__attribute__((noinline)) static long dispatch_impl(long x)
{
    return x + 11;
}
static unary resolve_dispatch(void)
{
    return dispatch_impl;
}
long dispatch(long x) __attribute__((ifunc("resolve_dispatch")));
#endif

/* A function in assembly with a type but no size: it extends to the next
 * symbol (after_zero_size). */
__asm__(".text\n"
        ".globl zero_size\n"
        ".type zero_size, @function\n"
        "zero_size:\n"
        "  nop\n"
        "  nop\n"
        "  nop\n"
        "  nop\n"
        "  ret\n");
long zero_size(long x);

__attribute__((noinline)) long after_zero_size(long x)
{
    return zero_size(x) + weak_function(x) + real_function(x);
}

#ifdef SYMBOLS_FREESTANDING
void _start(void);
void _start(void)
{
    symbols_sink = after_zero_size(symbols_sink) + alias_function(2);
    for (;;)
        ;
}
#else
int main(void)
{
    symbols_sink = after_zero_size(symbols_sink) + alias_function(2) + dispatch(symbols_sink);
    return 0;
}
#endif
