/*
 * plt_lib.c: the shared library the freestanding RISC-V build of
 * plt_prog.c links against, so that its call to rand goes through the PLT.
 * Never run.
 */
static unsigned plt_lib_state = 1;

/* A linear congruential generator; only its symbol matters. */
int rand(void)
{
    plt_lib_state = plt_lib_state * 1103515245u + 12345u;
    return (int)(plt_lib_state >> 16);
}
