/*
 * disasm_prog.c: the program whose machine code the disassembler tests read
 * (tests/unit/test_disasm.c). Built freestanding (no C library) for RISC-V
 * (rv64gc) with the cross compiler and for x86-64 with the host compiler, at
 * -O2, so that its .text mixes compressed and full-size instructions, loads
 * and stores of every width, conditional branches, direct and indirect calls,
 * a jump table, integer multiply/divide, double-precision divide and square
 * root, conversions and an atomic. It is never run.
 */
#include <stdint.h>

#if defined(__riscv)
#define IDLE() __asm__ volatile("wfi")
#else
#define IDLE() __asm__ volatile("pause")
#endif

#define N 64

static double samples[N];
static int64_t counts[N];
static volatile int64_t shared_counter;
static volatile int8_t signed_bytes[N];
static volatile int16_t signed_halves[N];

typedef int64_t (*step_fn)(int64_t);

/* Sum of squares and its square root (a loop of loads, fmadd, fsqrt). */
__attribute__((noinline)) static double norm(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return __builtin_sqrt(s);
}

/* Histogram of v[i] / width: FP divide, conversion, clamping branches,
 * read-modify-write of a table. */
__attribute__((noinline)) static int64_t histogram(const double *v, int n, double width)
{
    int64_t max = 0;
    for (int i = 0; i < n; i++) {
        int b = (int)(v[i] / width);
        if (b < 0)
            b = 0;
        if (b >= N)
            b = N - 1;
        counts[b]++;
        if (counts[b] > max)
            max = counts[b];
    }
    return max;
}

/* Integer hashing: shifts, multiply, byte and halfword stores, divide and
 * remainder. */
__attribute__((noinline)) static uint32_t mix(uint32_t x, uint8_t *bytes, uint16_t *halves)
{
    x ^= x >> 7;
    x *= 0x9E3779B1u;
    bytes[x & 15] = (uint8_t)x;
    halves[x & 7] = (uint16_t)(x >> 16);
    return x / (bytes[3] + 1u) + x % 13u;
}

__attribute__((noinline)) static int64_t step_a(int64_t v) { return v * 3 - 0x123456789abLL; }
__attribute__((noinline)) static int64_t step_b(int64_t v) { return v / -7 + signed_bytes[v & (N - 1)]; }
__attribute__((noinline)) static int64_t step_c(int64_t v) { return (v << 5) ^ signed_halves[(v >> 3) & (N - 1)]; }

static step_fn const steps[3] = { step_a, step_b, step_c };

/* A switch dense enough for a jump table, and calls through pointers. */
__attribute__((noinline)) static int64_t dispatch(int64_t v, unsigned op)
{
    switch (op) {
    case 0: return v + 1;
    case 1: return v - 100;
    case 2: return v * v;
    case 3: return v >> 2;
    case 4: return v & 0xff00;
    case 5: return -v;
    case 6: return v | 1;
    default: return steps[op % 3](v) * 5 + 3;
    }
}

void _start(void)
{
    uint8_t bytes[16];
    uint16_t halves[8];
    uint32_t x = 12345;
    int64_t acc = 0;
    for (int i = 0; i < N; i++) {
        x = mix(x, bytes, halves);
        samples[i] = (double)(x & 1023) / 7.0;
        signed_bytes[i] = (int8_t)x;
        signed_halves[i] = (int16_t)(x >> 8);
        acc = dispatch(acc + i, x % 11u);
    }
    double s = norm(samples, N);
    int64_t m = histogram(samples, N, s / 8.0);
    __atomic_fetch_add(&shared_counter, m + acc, __ATOMIC_SEQ_CST);
    for (;;)
        IDLE();
}
