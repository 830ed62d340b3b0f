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
 * Usage: record_prog MODE OUTPUT_FILE LINES
 *   MODE plain:   runs region() once
 *   MODE request: tea_record_start(); region(); tea_record_stop()
 *   MODE thread:  runs region() once on a second thread (Valgrind's thread 2)
 * then writes LINES numbered lines to OUTPUT_FILE and "done" as the last,
 * so a test sees whether the program ran to its end.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tea_record.h>

#define LOOPS 100
#define STR_(x) #x
#define STR(x) STR_(x)
#define LOOPS_TEXT STR(LOOPS)

void region(void);

__asm__(".text\n"
        ".globl region\n.type region,@function\nregion:\n"
        "  call work\n  call stop_here\n  ret\n.size region,.-region\n"
        ".globl work\n.type work,@function\nwork:\n"
        "  mov $" LOOPS_TEXT ", %ecx\n1:\n  dec %ecx\n  jnz 1b\n  ret\n.size work,.-work\n"
        ".globl stop_here\n.type stop_here,@function\nstop_here:\n"
        "  ret\n.size stop_here,.-stop_here\n");

/* The second thread's body. */
static void *run_region(void *arg)
{
    (void)arg;
    region();
    return NULL;
}

int main(int argc, char **argv)
{
    FILE *out;
    long lines;
    pthread_t t;

    if (argc != 4)
        return 2;
    if (!strcmp(argv[1], "request")) {
        tea_record_start();
        region();
        tea_record_stop();
    } else if (!strcmp(argv[1], "thread")) {
        if (pthread_create(&t, NULL, run_region, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 1;
    } else {
        region();
    }
    lines = strtol(argv[3], NULL, 10);
    if (!(out = fopen(argv[2], "w")))
        return 1;
    for (long i = 0; i < lines; i++)
        fprintf(out, "line %ld\n", i);
    fprintf(out, "done\n");
    return fclose(out) != 0;
}
