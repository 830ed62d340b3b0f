// callpath_prog.cc: a program with a known call tree, for calling contexts
// (tests/e2e/callpaths.sh, docs/semantics.md "Calling contexts").
//
// main calls a() three times for every call of b(); both call leaf() with
// the same argument, so leaf's instructions under a and under b are
// exactly 3:1. Then: a recursion five deep ending in leaf, a call through
// a function pointer, a tail call (tail_caller jumps to tail_target), a
// longjmp out of two frames back into jumper, and a C++ exception thrown
// three frames below catcher. Built with -O2: every function is kept out
// of line (leaf's store to a volatile keeps every call), and only
// tail_caller's call is a tail call.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;
static std::jmp_buf env;

extern "C" {
NOINLINE unsigned leaf(unsigned x)
{
    unsigned s = x;
    for (unsigned i = 0; i < 40; i++)
        s = s * 2654435761u + i;
    sink = s; // a side effect: no two calls are merged into one
    return s;
}

NOINLINE unsigned a(unsigned x) { return leaf(x) + 1; }
NOINLINE unsigned b(unsigned x) { return leaf(x) + 2; }

NOINLINE unsigned rec(unsigned n)
{
    if (n == 0)
        return leaf(n);
    unsigned r = rec(n - 1);
    sink = r; // after the call: no loop can replace the recursion
    return r + 1;
}

NOINLINE unsigned by_pointer(unsigned x) { return leaf(x) ^ 3u; }

NOINLINE unsigned tail_target(unsigned x)
{
    for (unsigned i = 0; i < 20; i++)
        x = x * 31u + i;
    return x;
}
NOINLINE unsigned tail_caller(unsigned x) { return tail_target(x * 3u); }

NOINLINE void jump_deep(unsigned x)
{
    sink = leaf(x);
    std::longjmp(env, 1);
}
NOINLINE void jump_mid(unsigned x)
{
    jump_deep(x);
    sink = sink + 1;
}
NOINLINE unsigned jumper(unsigned x)
{
    if (setjmp(env) == 0)
        jump_mid(x);
    for (unsigned i = 0; i < 10; i++)
        x = x * 7u + i;
    return x;
}
}

struct failure {
    unsigned code;
};

extern "C" {
NOINLINE void throw3(unsigned x)
{
    if (x != 12345u)
        throw failure{ x };
}
NOINLINE void throw2(unsigned x)
{
    throw3(x);
    sink = sink + 2;
}
NOINLINE void throw1(unsigned x)
{
    throw2(x);
    sink = sink + 1;
}
NOINLINE unsigned catcher(unsigned x)
{
    try {
        throw1(x);
    } catch (const failure &f) {
        for (unsigned i = 0; i < 10; i++)
            x = x * 5u + f.code;
    }
    return x;
}
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)std::strtoul(argv[1], nullptr, 10) : 200;
    unsigned (*volatile pointer)(unsigned) = by_pointer;
    unsigned s = 0;
    for (unsigned i = 0; i < rounds; i++) {
        s += a(i);
        s += a(i);
        s += a(i);
        s += b(i);
        s += rec(5);
        s += pointer(i);
        s += tail_caller(i);
        s += jumper(i);
        s += catcher(i);
    }
    std::printf("%u\n", s);
    return 0;
}
