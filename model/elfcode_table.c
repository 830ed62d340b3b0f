/*
 * elfcode_table.c: looking up and freeing an elfcode table (see elfcode.h).
 * Apart from elfcode.c, which reads the binary, so that the core model's
 * walks link without libelf and capstone.
 */
#include "elfcode.h"

#include <stdlib.h>

long elfcode_find(const elfcode *c, uint64_t pc)
{
    size_t lo = 0, hi = c->insn_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->insns[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->insn_count && c->insns[lo].pc == pc ? (long)lo : -1;
}

void elfcode_free(elfcode *c)
{
    if (!c)
        return;
    free(c->insns);
    free(c->functions);
    free(c->build_id);
    free(c);
}
