/* ELF binaries through the symbolizer (binary/symbols.h): the function
 * symbols, a symbol map with section gaps, a few PCs located and read, and
 * the DWARF line tables. libelf and libdw do the parsing; what is fuzzed is
 * how the project handles what they return. */
#include "fuzz.h"

#include "binary/symbols.h"
#include "pics/symmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    symbols *s = NULL;

    if (fuzz_write_temp(data, size, path))
        return 0;
    if (symbols_open(&s, path) == 0) {
        symmap m = { 0 };
        char buf[256];
        (void)symbols_arch(s);
        (void)symbols_build_id(s);
        (void)symbols_table(s);
        if (symbols_symmap(s, SYMBOLS_MAP_SECTION_GAPS, &m) == 0)
            symmap_free(&m);
        for (size_t i = 0; i < symbols_count(s) && i < 64; i++) {
            const symbols_function *fn = symbols_function_at(s, i);
            const uint8_t *bytes;
            size_t avail;
            symbols_location loc;
            uint64_t pc = fn->start + (fn->end - fn->start) / 2;
            (void)symbols_read(s, pc, &bytes, &avail);
            symbols_locate(s, pc, &loc);
            (void)symbols_format(s, pc, buf, sizeof buf);
        }
        if (symbols_load_lines(s) == 1 && symbols_count(s) > 0) {
            const char *file;
            unsigned line;
            (void)symbols_source(s, symbols_function_at(s, 0)->start, &file, &line);
        }
        symbols_close(s);
    }
    fuzz_remove_temp(path);
    return 0;
}
