/*
 * pics.h: per-instruction cycle stacks (PICS) as plain data.
 *
 * A PICS maps (static instruction address, PSV) to cycles. Cycles are exact
 * fixed-point integers in units of 1/PICS_UNIT cycle; PICS_UNIT is a multiple
 * of lcm(1..16), so splitting a cycle among up to 16 committing µops is exact
 * and sums never round. A sampled PICS keeps raw sample weights (one sample is
 * PICS_UNIT) and is scaled to the golden total only when exported or compared,
 * so merging sampled PICS is exact too.
 *
 * The map is an open-addressing hash table; cells are sorted only when
 * written (pics_sorted).
 */
#ifndef TEA_PICS_PICS_H
#define TEA_PICS_PICS_H

#include <stddef.h>
#include <stdint.h>

/* One cycle in PICS units: lcm(1..16) = 720720. */
#define PICS_UNIT 720720ull

typedef struct pics_cell {
    uint64_t pc;     /* static instruction address */
    uint64_t value;  /* golden: cycles x PICS_UNIT; sampled: sample weight x PICS_UNIT */
    uint64_t count;  /* golden: µops that committed or excepted with this PC and PSV;
                        sampled: samples that landed in the cell */
    uint16_t psv;    /* nine-bit PSV (already masked to the scheme's events) */
    uint8_t used;    /* slot occupied */
    uint8_t pad_[5];
} pics_cell;

typedef struct pics {
    pics_cell *slots;
    size_t capacity;   /* a power of two */
    size_t count;      /* cells in use */
    uint64_t total;    /* sum of all values */
} pics;

/* An empty map. Returns 0 or TEA_ERR_NOMEM. */
int pics_init(pics *p);

void pics_free(pics *p);

/* Adds `value` and `count` to cell (pc, psv), creating it. Returns 0 or
 * TEA_ERR_NOMEM. */
int pics_add(pics *p, uint64_t pc, uint16_t psv, uint64_t value, uint64_t count);

/* The cell for (pc, psv), or NULL. */
const pics_cell *pics_find(const pics *p, uint64_t pc, uint16_t psv);

/* All cells sorted by (pc, psv) in a malloc'd array of p->count cells (NULL
 * with *n = 0 for an empty map). Returns 0 or TEA_ERR_NOMEM. */
int pics_sorted(const pics *p, pics_cell **cells, size_t *n);

/* Adds every cell of `src` to `dst`. Returns 0 or TEA_ERR_NOMEM. */
int pics_merge_into(pics *dst, const pics *src);

#endif
