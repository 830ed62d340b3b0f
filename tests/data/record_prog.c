/*
 * record_prog.c: the program tests/e2e/record.sh records. Its region is
 * written in assembly so that its instruction count is known by hand:
 *
 *   region:     call work; call stop_here; ret
 *   work:       mov $LOOPS, %ecx; 1: dec %ecx; jnz 1b; ret
 *   stop_here:  ret
 *
 * From region's entry to stop_here's entry (included): call (1), mov (1),
 * LOOPS x (dec, jnz) (2 LOOPS), ret (1), call (1), stop_here's ret (1):
 * 2 LOOPS + 5 instructions; to region's own ret: 2 LOOPS + 6.
 *
 * The long region is the same with LONG_LOOPS and labels inside:
 *
 *   long_region: call long_work; call stop_here; ret
 *   long_work:   mov $LONG_LOOPS, %ecx
 *   long_dec:    dec %ecx
 *   long_jnz:    jnz long_dec
 *   long_ret:    ret
 *
 * so its instruction i (from 0 at long_region's entry) is known by hand:
 * 0 the call, 1 the mov, 2 + 2k long_dec and 3 + 2k long_jnz for k <
 * LONG_LOOPS, 2 LONG_LOOPS + 2 long_ret, 2 LONG_LOOPS + 3 the call of
 * stop_here.
 *
 * The stream region reads one word of every 64-byte line of a 1 MiB
 * buffer (more than the model's L1 D, less than its LLC) in
 * STREAM_PASSES passes, then calls stop_here:
 *
 *   stream_region: mov $STREAM_PASSES, %edx
 *   2:             lea stream_buf(%rip), %rax; mov $STREAM_LINES, %ecx
 *   3:             mov (%rax), %r8; add $64, %rax; dec %ecx; jnz 3b
 *                  dec %edx; jnz 2b; call stop_here; ret
 *
 * The branchy region tests bit i of BRANCH_PATTERN for i = 31 down to 0
 * (a conditional branch with a period of 32, which the predictor learns
 * from its global history), BRANCH_PASSES times, then calls stop_here:
 *
 *   branchy_region: mov $BRANCH_PATTERN, %r9d; mov $BRANCH_PASSES, %edx
 *   2:              mov $32, %ecx
 *   3:              dec %ecx; bt %ecx, %r9d; jc 4f; inc %r8
 *   4:              test %ecx, %ecx; jnz 3b
 *                   dec %edx; jnz 2b; call stop_here; ret
 *
 * The andor region is a pair of branches to the same place, as `if (a &&
 * b)` compiles, whose first always jumps, so the second never runs:
 *
 *   andor_region: mov $LOOPS, %ecx; xor %eax, %eax; mov $1, %esi
 *   andor_a:      test %eax, %eax; je 2f
 *   andor_b:      test %esi, %esi; je 2f; inc %edx
 *   2:            dec %ecx; jnz andor_a; call stop_here; ret
 *
 * From its entry to stop_here's entry (included): 3 + 4 LOOPS + 2
 * instructions, none at andor_b; instruction 3 + 4k + j is andor_a's j-th
 * (j < 2) in iteration k.
 *
 * The pages region reads, for each pair of 4 KiB pages of a buffer, the
 * last 64-byte line of the first page and then the first line of the
 * second, PAGE_PASSES times: the first read misses the L1 D (all the
 * pairs' last lines share one set), so the model's next-line prefetcher
 * brings the second page's first line in before the program reads it,
 * and nothing else of the second page is ever read:
 *
 *   pages_region: mov $PAGE_PASSES, %edx
 *   2:            lea page_buf(%rip), %rax; mov $PAGE_PAIRS, %ecx
 *   3:            mov 4032(%rax), %r8; mov 4096(%rax), %r9; add $8192, %rax
 *                 dec %ecx; jnz 3b; dec %edx; jnz 2b; call stop_here; ret
 *
 * The straddle region is the same over the pairs with an 8-byte read that
 * begins 4 bytes before the second page (its tail is the second page's
 * first line), then a read that begins in that line; nothing else of the
 * second page is read:
 *
 *   straddle_region: mov $PAGE_PASSES, %edx
 *   2:               lea page_buf(%rip), %rax; mov $PAGE_PAIRS, %ecx
 *   3:               mov 4092(%rax), %r8; mov 4100(%rax), %r9; add $8192, %rax
 *                    dec %ecx; jnz 3b; dec %edx; jnz 2b; call stop_here; ret
 *
 * Usage: record_prog MODE OUTPUT_FILE LINES
 *   MODE plain:   runs region() once
 *   MODE request: tea_record_start(); region(); tea_record_stop()
 *   MODE thread:  runs region() once on a second thread (Valgrind's thread 2)
 *   MODE long:    runs long_region() once
 *   MODE stream:  runs stream_region() once
 *   MODE branchy: runs branchy_region() once
 *   MODE andor:   runs andor_region() once
 *   MODE pages:   runs pages_region() once
 *   MODE straddle: runs straddle_region() once
 *   MODE rdtscp:  runs RDTSCP when CPUID (leaf 0x80000001, EDX bit 27)
 *                 says the processor has it, as libhwy does at load time,
 *                 and writes "rdtscp BIT" first to OUTPUT_FILE
 *   MODE phases:  runs long_region() once, then stream_region()
 *                 PHASE_STREAMS times: two phases of known length (see
 *                 tests/e2e/simpoint.sh)
 *   MODE longs:   runs long_region() on a second thread while the main
 *                 thread calls sched_yield() until it is done (Valgrind runs
 *                 the main thread for a moment at every switch)
 * then writes LINES numbered lines to OUTPUT_FILE and "done" as the last,
 * so a test sees whether the program ran to its end.
 */
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tea_record.h>

#define LOOPS 100
#define STR_(x) #x
#define STR(x) STR_(x)
#define LOOPS_TEXT STR(LOOPS)
#define LONG_LOOPS 10000000
#define LONG_LOOPS_TEXT STR(LONG_LOOPS)

#define STREAM_LINES 16384
#define STREAM_LINES_TEXT STR(STREAM_LINES)
#define STREAM_PASSES 40
#define STREAM_PASSES_TEXT STR(STREAM_PASSES)

#define PAGE_PAIRS 64
#define PAGE_PAIRS_TEXT STR(PAGE_PAIRS)
#define PAGE_PASSES 1000
#define PAGE_PASSES_TEXT STR(PAGE_PASSES)

/* A region reading, for each pair of pages of page_buf, 8 bytes at offset
 * FIRST and then at offset SECOND from the pair's start, PAGE_PASSES times
 * (the pages and straddle regions). */
#define PAIR_REGION(name, first, second)                                                            \
    ".globl " name "\n.type " name ",@function\n" name ":\n"                                      \
    "  mov $" PAGE_PASSES_TEXT ", %edx\n"                                                          \
    "2:\n  lea page_buf(%rip), %rax\n  mov $" PAGE_PAIRS_TEXT ", %ecx\n"                          \
    "3:\n  mov " first "(%rax), %r8\n  mov " second "(%rax), %r9\n  add $8192, %rax\n  dec %ecx\n" \
    "  jnz 3b\n  dec %edx\n  jnz 2b\n  call stop_here\n  ret\n.size " name ",.-" name "\n"

#define PHASE_STREAMS 4

#define BRANCH_PASSES 20000
#define BRANCH_PASSES_TEXT STR(BRANCH_PASSES)
#define BRANCH_PATTERN 0x9a3c5e71
#define BRANCH_PATTERN_TEXT STR(BRANCH_PATTERN)

void region(void);
void long_region(void);
void stream_region(void);
void branchy_region(void);
void andor_region(void);
void pages_region(void);
void straddle_region(void);
char stream_buf[STREAM_LINES * 64] __attribute__((aligned(64)));
char page_buf[PAGE_PAIRS * 8192] __attribute__((aligned(4096)));

__asm__(".text\n"
        ".globl region\n.type region,@function\nregion:\n"
        "  call work\n  call stop_here\n  ret\n.size region,.-region\n"
        ".globl work\n.type work,@function\nwork:\n"
        "  mov $" LOOPS_TEXT ", %ecx\n1:\n  dec %ecx\n  jnz 1b\n  ret\n.size work,.-work\n"
        ".globl stop_here\n.type stop_here,@function\nstop_here:\n"
        "  ret\n.size stop_here,.-stop_here\n"
        ".globl long_region\n.type long_region,@function\nlong_region:\n"
        "  call long_work\n  call stop_here\n  ret\n.size long_region,.-long_region\n"
        ".globl long_work\n.type long_work,@function\nlong_work:\n"
        "  mov $" LONG_LOOPS_TEXT ", %ecx\n"
        ".globl long_dec\nlong_dec:\n  dec %ecx\n"
        ".globl long_jnz\nlong_jnz:\n  jnz long_dec\n"
        ".globl long_ret\nlong_ret:\n  ret\n.size long_work,.-long_work\n"
        ".globl stream_region\n.type stream_region,@function\nstream_region:\n"
        "  mov $" STREAM_PASSES_TEXT ", %edx\n"
        "2:\n  lea stream_buf(%rip), %rax\n  mov $" STREAM_LINES_TEXT ", %ecx\n"
        "3:\n  mov (%rax), %r8\n  add $64, %rax\n  dec %ecx\n  jnz 3b\n"
        "  dec %edx\n  jnz 2b\n  call stop_here\n  ret\n.size stream_region,.-stream_region\n"
        ".globl branchy_region\n.type branchy_region,@function\nbranchy_region:\n"
        "  mov $" BRANCH_PATTERN_TEXT ", %r9d\n  mov $" BRANCH_PASSES_TEXT ", %edx\n"
        "2:\n  mov $32, %ecx\n"
        "3:\n  dec %ecx\n  bt %ecx, %r9d\n  jc 4f\n  inc %r8\n"
        "4:\n  test %ecx, %ecx\n  jnz 3b\n"
        "  dec %edx\n  jnz 2b\n  call stop_here\n  ret\n.size branchy_region,.-branchy_region\n"
        ".globl andor_region\n.type andor_region,@function\nandor_region:\n"
        "  mov $" LOOPS_TEXT ", %ecx\n  xor %eax, %eax\n  mov $1, %esi\n"
        ".globl andor_a\nandor_a:\n  test %eax, %eax\n  je 2f\n"
        ".globl andor_b\nandor_b:\n  test %esi, %esi\n  je 2f\n  inc %edx\n"
        "2:\n  dec %ecx\n  jnz andor_a\n  call stop_here\n  ret\n.size andor_region,.-andor_region\n"
        PAIR_REGION("pages_region", "4032", "4096") PAIR_REGION("straddle_region", "4092", "4100"));

/* The second thread's body. */
static void *run_region(void *arg)
{
    (void)arg;
    region();
    return NULL;
}

static atomic_int long_done;

/* The second thread's body in mode longs. */
static void *run_long_region(void *arg)
{
    (void)arg;
    long_region();
    atomic_store(&long_done, 1);
    return NULL;
}

#define CPUID_EXT_LEAF 0x80000001u /* extended features */
#define CPUID_RDTSCP_BIT 27         /* in EDX */

static int rdtscp_advertised = -1; /* mode rdtscp: the bit CPUID gave */

/* Mode rdtscp: RDTSCP only where CPUID advertises it. */
static void rdtscp_if_advertised(void)
{
    unsigned eax, ebx, ecx, edx, lo, hi, aux;

    rdtscp_advertised = __get_cpuid(CPUID_EXT_LEAF, &eax, &ebx, &ecx, &edx) && (edx >> CPUID_RDTSCP_BIT & 1u);
    if (rdtscp_advertised)
        __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
}

/* The region that MODE runs once on the main thread, NULL for the
 * others. */
static void (*region_of(const char *mode))(void)
{
    static const struct {
        const char *mode;
        void (*run)(void);
    } regions[] = {
        { "long", long_region },       { "stream", stream_region }, { "branchy", branchy_region },
        { "andor", andor_region },     { "pages", pages_region },   { "straddle", straddle_region },
        { "rdtscp", rdtscp_if_advertised },
    };
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++)
        if (!strcmp(mode, regions[i].mode))
            return regions[i].run;
    return NULL;
}

int main(int argc, char **argv)
{
    FILE *out;
    long lines;
    pthread_t t;
    void (*run)(void);

    if (argc != 4)
        return 2;
    if (!strcmp(argv[1], "request")) {
        tea_record_start();
        region();
        tea_record_stop();
    } else if (!strcmp(argv[1], "thread")) {
        if (pthread_create(&t, NULL, run_region, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 1;
    } else if ((run = region_of(argv[1]))) {
        run();
    } else if (!strcmp(argv[1], "phases")) {
        long_region();
        for (int i = 0; i < PHASE_STREAMS; i++)
            stream_region();
    } else if (!strcmp(argv[1], "longs")) {
        if (pthread_create(&t, NULL, run_long_region, NULL) != 0)
            return 1;
        while (!atomic_load(&long_done))
            sched_yield();
        if (pthread_join(t, NULL) != 0)
            return 1;
    } else {
        region();
    }
    lines = strtol(argv[3], NULL, 10);
    if (!(out = fopen(argv[2], "w")))
        return 1;
    if (rdtscp_advertised >= 0)
        fprintf(out, "rdtscp %d\n", rdtscp_advertised);
    for (long i = 0; i < lines; i++)
        fprintf(out, "line %ld\n", i);
    fprintf(out, "done\n");
    return fclose(out) != 0;
}
