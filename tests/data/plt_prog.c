/*
 * plt_prog.c: a program calling a shared library's function through the
 * PLT, for the PLT stub names of the symbolizer (tests/unit/test_symbols.c,
 * "rand@plt" as objdump names it). Built by the test suite
 * (tests/CMakeLists.txt) as a PIE: for x86-64 with the host compiler and
 * libc; for RISC-V freestanding (PLT_FREESTANDING: no libc, _start instead
 * of main) against plt_lib.c built as a shared library. Never run.
 */
int rand(void);

volatile int plt_sink;

/* Sums random numbers: the calls go through rand@plt. */
__attribute__((noinline)) int plt_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += rand() % 7;
    return s;
}

#ifdef PLT_FREESTANDING
void _start(void)
{
    for (;;)
        plt_sink = plt_work(1000);
}
#else
int main(void)
{
    plt_sink = plt_work(1000);
    return 0;
}
#endif
