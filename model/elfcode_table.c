/*
 * elfcode_table.c: looking up and freeing an elfcode table (see elfcode.h).
 * Apart from elfcode.c, which reads the binary, so that the core model's
 * walks link without libelf and capstone.
 */
#include "elfcode.h"

#include "common/error.h"
#include "common/search.h"

#include <inttypes.h>
#include <stdlib.h>

/* A PC looked up in the table (search.h). */
typedef struct pc_in_table {
    const model_elfcode *c;
    uint64_t pc;
} pc_in_table;

static int insn_below(size_t i, const void *ctx)
{
    const pc_in_table *k = ctx;
    return k->c->insns[i].pc < k->pc;
}

long model_elfcode_find(const model_elfcode *c, uint64_t pc)
{
    pc_in_table k = { c, pc };
    size_t lo = search_lower_bound(c->insn_count, insn_below, &k);
    return lo < c->insn_count && c->insns[lo].pc == pc ? (long)lo : -1;
}

int model_elfcode_rebase(model_elfcode *c, uint64_t bias)
{
    uint64_t limit = c->va_bits && c->va_bits < 64 ? 1ull << (c->va_bits - 1) : UINT64_MAX;
    uint64_t last = c->function_count ? c->functions[c->function_count - 1].end : 0;
    if (c->insn_count) {
        const model_elfcode_insn *in = &c->insns[c->insn_count - 1];
        if (in->pc + in->size > last)
            last = in->pc + in->size;
    }
    if (last > limit || bias > limit - last)
        return error_set(TEA_ERR_USAGE, "load bias 0x%" PRIx64 " moves the code past 0x%" PRIx64, bias, limit);
    for (size_t i = 0; i < c->insn_count; i++) {
        c->insns[i].pc += bias;
        if (c->insns[i].target)
            c->insns[i].target += bias;
    }
    for (size_t i = 0; i < c->function_count; i++) {
        c->functions[i].start += bias;
        c->functions[i].end += bias;
    }
    return TEA_OK;
}

void model_elfcode_free(model_elfcode *c)
{
    if (!c)
        return;
    free(c->insns);
    free(c->functions);
    free(c->build_id);
    free(c);
}
