/* The fuzzing harnesses' shared pieces (fuzz/README.md).
 *
 * Every harness is one function, LLVMFuzzerTestOneInput, that hands the bytes
 * to one reader of the library through its public API and frees whatever the
 * reader built. Errors are the expected outcome for most inputs and are
 * ignored; a crash, a sanitizer report or a leak is a bug. The same source
 * links with libFuzzer (clang -fsanitize=fuzzer) or with replay_main.c into
 * a plain program that runs files through the harness (AFL++, the
 * regression test). */
#ifndef TEA_FUZZ_FUZZ_H
#define TEA_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The name the readers that take bytes (trace_reader_open_memory,
 * trace_frames_open_memory, pics_read_memory, ...) give the input in their
 * messages. */
#define FUZZ_INPUT_NAME "<fuzz input>"

/* For the readers that take only a path, and for files a harness writes:
 * writes the bytes to a new file made with mkstemp in $TMPDIR (else /tmp)
 * and stores its path in `path` (at least FUZZ_PATH_MAX bytes). Returns 0,
 * or -1 when the file cannot be made or written (nothing is left then). */
#define FUZZ_PATH_MAX 4096
int fuzz_write_temp(const uint8_t *data, size_t size, char *path);

/* Removes the file fuzz_write_temp made. */
void fuzz_remove_temp(const char *path);

#endif
