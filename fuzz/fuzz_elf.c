/* ELF binaries through the symbolizer (binary/symbols.h): the function
 * symbols, a symbol map with section gaps, a few PCs located and read, and
 * the DWARF line tables. libelf and libdw do the parsing; what is fuzzed is
 * how the project handles what they return. */
#include "fuzz.h"

#include "binary/symbols.h"
#include "trace/symmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    binary_symbols *s = NULL;

    if (fuzz_write_temp(data, size, path))
        return 0;
    if (binary_symbols_open(&s, path) == 0) {
        trace_symmap m = { 0 };
        char buf[256];
        (void)binary_symbols_arch(s);
        (void)binary_symbols_build_id(s);
        (void)binary_symbols_table(s);
        if (binary_symbols_symmap(s, BINARY_SYMBOLS_MAP_SECTION_GAPS, &m) == 0)
            trace_symmap_free(&m);
        for (size_t i = 0; i < binary_symbols_count(s) && i < 64; i++) {
            const binary_symbols_function *fn = binary_symbols_function_at(s, i);
            const uint8_t *bytes;
            size_t avail;
            binary_symbols_location loc;
            uint64_t pc = fn->start + (fn->end - fn->start) / 2;
            (void)binary_symbols_read(s, pc, &bytes, &avail);
            binary_symbols_locate(s, pc, &loc);
            (void)binary_symbols_format(s, pc, buf, sizeof buf);
        }
        if (binary_symbols_load_lines(s) == 1 && binary_symbols_count(s) > 0) {
            const char *file;
            unsigned line;
            (void)binary_symbols_source(s, binary_symbols_function_at(s, 0)->start, &file, &line);
        }
        binary_symbols_close(s);
    }
    fuzz_remove_temp(path);
    return 0;
}
