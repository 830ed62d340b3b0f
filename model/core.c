/*
 * core.c: the out-of-order core model (see core.h and docs/model.md).
 *
 * Simulation order within a cycle: resolve a mispredicted branch, commit from
 * the head row, dispatch one row, fetch. Cycles in which nothing can happen
 * are skipped. Every cycle with activity at the ROB yields one record.
 *
 * Timing is decided when a µop is dispatched: it issues once its producer's
 * result is ready and completes after its latency; a load or store goes
 * through the data TLB and the caches at its issue cycle, which is when the
 * PSV learns about its misses.
 */
#include "core.h"
#include "bpred.h"
#include "memory.h"
#include "tlb.h"
#include "common/error.h"
#include "trace/psv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NO_CYCLE UINT64_MAX
#define BIT(e) (1u << (e))
/* Completion times of recent correct-path µops, for dependences (power of 2). */
#define DEP_RING 8192u
/* Loads that once ran ahead of an older store wait for older stores from then
 * on (a one-bit store-set predictor), indexed by PC (power of 2). */
#define WAIT_TABLE 4096u
/* Granule (bytes) at which a load and a store are taken to overlap. */
#define ORDER_GRANULE 8u
/* Initial size of the set of touched data pages (power of 2; grows). */
#define PAGES_INITIAL 4096u

typedef struct rob_entry {
    model_insn insn;
    uint64_t seq;        /* correct-path sequence number */
    uint64_t complete;   /* cycle the result is ready */
    uint64_t mem_ready;  /* stores: cycle the address is known */
    uint64_t wrong_target; /* a mispredicted branch: where its wrong path starts */
    uint16_t psv;        /* events as of commit */
    uint8_t valid;       /* holds a µop (0: empty or killed bank) */
    uint8_t wrong_path;
    uint8_t mispredict;  /* a branch whose prediction was wrong */
    uint8_t except;      /* raises an exception at commit */
    uint8_t order_fail;  /* a load that ran ahead of an older store to its address */
} rob_entry;

/* A µop waiting to be fetched or dispatched. */
typedef struct pending_uop {
    model_insn insn;
    uint64_t seq;
    uint64_t ready;      /* fetch buffer: cycle it may dispatch */
    uint64_t wrong_target; /* mispredicted branch: where its wrong path starts */
    uint16_t psv;        /* events so far (front end, dispatch) */
    uint8_t wrong_path;
    uint8_t predicted;   /* its branch prediction is decided (once per dynamic instance) */
    uint8_t mispredict;
    uint8_t refetched_after_order_fail;
} pending_uop;

/* A ring-buffer deque of pending µops; its storage is a power of two so that
 * indexing is a mask, `cap` is the most it may hold. */
typedef struct uop_queue {
    pending_uop *items;
    unsigned cap, mask, head, count;
} uop_queue;

/* A store in flight, for memory-ordering checks: stores enter in program
 * order and leave at commit (head) or squash (tail). */
typedef struct store_slot {
    uint64_t seq;
    uint64_t granule;    /* addr / ORDER_GRANULE */
    uint64_t ready;      /* cycle its address is known */
    unsigned rob_index;
} store_slot;

struct model_core {
    model_config cfg;
    model_config_core core; /* cfg.core, for short access */
    model_source src;
    model_mem *memory;
    model_tlb *tlbs;
    model_bpred *predictor;
    rob_entry *rob;
    unsigned rows;             /* ROB rows */
    unsigned head;             /* entry index of the oldest entry */
    unsigned tail_row;         /* next row to allocate */
    unsigned rows_used;
    unsigned window;           /* entries from head to the end of the last row */
    unsigned lsq_used;
    uop_queue fetch_buffer;    /* fetched, waiting for dispatch */
    uop_queue to_fetch;        /* correct-path µops to fetch next (refetches first) */
    store_slot *stores;        /* ring of in-flight stores */
    unsigned store_head, store_count;
    uint64_t next_seq;
    uint64_t *done_at;         /* completion cycle by seq % DEP_RING */
    uint64_t *done_seq;
    uint8_t wait_table[WAIT_TABLE];
    uint64_t *pages;           /* touched data pages + 1 (0: free slot), open addressing */
    size_t page_cap, page_count;
    unsigned line_shift;       /* log2 of the L1 I line size */
    unsigned page_shift;       /* log2 of the page size */
    uint64_t fetch_ready;      /* the front end may deliver from this cycle */
    uint64_t fetch_line;       /* last instruction line and page fetched (+1; 0: none) */
    uint64_t fetch_page;
    int wrong_mode;            /* fetching down a wrong path */
    uint64_t wrong_pc;
    int source_done;
    int source_rc;             /* error from the source */
    int warm_unsettled;        /* warm-up accesses may still be in flight (model_core_warm) */
    int window_break;          /* the source is at a window boundary: drain before fetching on */
    model_window_fn window_fn;
    void *window_ctx;
    int mispredict_pending;    /* a mispredicted branch is in the ROB */
    unsigned mispredict_entry;
    int need_refill;           /* the next cycle with a non-empty ROB is a refill */
    trace_batch batch;
    model_stats stats;
    model_progress_fn progress;
    void *progress_ctx;
    uint64_t next_progress;
};

/* --- queues ------------------------------------------------------------------ */

static pending_uop *queue_at(uop_queue *q, unsigned i)
{
    return &q->items[(q->head + i) & q->mask];
}

/* The slot a push_back would fill (the caller fills it, then commits it). */
static pending_uop *queue_back_slot(uop_queue *q)
{
    return &q->items[(q->head + q->count) & q->mask];
}

static void queue_push_front(uop_queue *q, const pending_uop *p)
{
    assert(q->count < q->cap); /* the refetch queue is sized for a whole ROB and fetch buffer */
    q->head = (q->head - 1) & q->mask;
    q->items[q->head] = *p;
    q->count++;
}

static void queue_pop_front(uop_queue *q)
{
    assert(q->count > 0);
    q->head = (q->head + 1) & q->mask;
    q->count--;
}

static int queue_init(uop_queue *q, unsigned cap)
{
    unsigned size = 1;
    while (size < cap)
        size *= 2;
    q->items = calloc(size, sizeof *q->items);
    q->cap = cap;
    q->mask = size - 1;
    q->head = q->count = 0;
    return q->items ? TEA_OK : TEA_ERR_NOMEM;
}

/* --- creation -------------------------------------------------------------- */

int model_core_create(model_core **out, const model_config *cfg, const model_source *src)
{
    const model_config_core *k = &cfg->core;
    model_core *m;
    int rc;

    TEA_ASSERT_ARG(out != NULL);
    TEA_ASSERT_ARG(cfg != NULL);
    TEA_ASSERT_ARG(src != NULL && src->next != NULL);
    *out = NULL;
    if ((rc = model_config_check(cfg)))
        return rc;
    if (k->width > TRACE_MAX_WIDTH || k->rob_size > TRACE_MAX_ROB)
        return error_set(TEA_ERR_USAGE, "traces describe at most %d-wide cores with %d ROB entries", TRACE_MAX_WIDTH,
                         TRACE_MAX_ROB);
    if (k->rob_size + k->fetch_buffer >= DEP_RING)
        return error_set(TEA_ERR_USAGE, "ROB plus fetch buffer must stay below %u µops", DEP_RING);
    if (!(m = calloc(1, sizeof *m)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    m->cfg = *cfg;
    m->core = cfg->core;
    m->src = *src;
    m->rows = k->rob_size / k->width;
    m->rob = calloc(k->rob_size, sizeof *m->rob);
    m->stores = calloc(k->lsq_size, sizeof *m->stores);
    m->done_at = calloc(DEP_RING, sizeof *m->done_at);
    m->done_seq = calloc(DEP_RING, sizeof *m->done_seq);
    m->page_cap = PAGES_INITIAL;
    m->pages = calloc(m->page_cap, sizeof *m->pages);
    /* The refetch queue holds at most a ROB and a fetch buffer of µops plus
     * the next source instruction and a re-executing one. */
    if (!m->rob || !m->stores || !m->done_at || !m->done_seq || !m->pages
        || queue_init(&m->fetch_buffer, k->fetch_buffer) || queue_init(&m->to_fetch, k->rob_size + k->fetch_buffer + 2)
        || trace_batch_init(&m->batch, TRACE_BATCH_RECORDS) || trace_batch_init_head_valid(&m->batch)) {
        model_core_free(m);
        return error_set(TEA_ERR_NOMEM, "out of memory");
    }
    if ((rc = model_mem_create(&m->memory, &cfg->mem)) || (rc = model_tlb_create(&m->tlbs, &cfg->tlb))
        || (rc = model_bpred_create(&m->predictor, &cfg->bpred))) {
        model_core_free(m);
        return rc;
    }
    if (cfg->tlb.walk_through_memory)
        model_tlb_set_walker(m->tlbs, model_mem_page_walk, m->memory);
    while ((1u << m->line_shift) < cfg->mem.l1i.line_size)
        m->line_shift++;
    while ((1u << m->page_shift) < cfg->tlb.page_size)
        m->page_shift++;
    for (unsigned i = 0; i < DEP_RING; i++)
        m->done_seq[i] = UINT64_MAX;
    m->need_refill = 1;
    m->next_progress = MODEL_PROGRESS_INSNS;
    *out = m;
    return TEA_OK;
}

void model_core_set_progress(model_core *m, model_progress_fn fn, void *ctx)
{
    m->progress = fn;
    m->progress_ctx = ctx;
}

void model_core_free(model_core *m)
{
    if (!m)
        return;
    model_mem_free(m->memory);
    model_tlb_free(m->tlbs);
    model_bpred_free(m->predictor);
    free(m->rob);
    free(m->stores);
    free(m->done_at);
    free(m->done_seq);
    free(m->pages);
    free(m->fetch_buffer.items);
    free(m->to_fetch.items);
    trace_batch_free(&m->batch);
    free(m);
}

const model_stats *model_core_stats(const model_core *m)
{
    return &m->stats;
}

const struct model_mem *model_core_memory(const model_core *m)
{
    return m->memory;
}

const struct model_tlb *model_core_tlb(const model_core *m)
{
    return m->tlbs;
}

const struct model_bpred *model_core_bpred(const model_core *m)
{
    return m->predictor;
}

/* --- helpers ----------------------------------------------------------------- */

static int is_memory(const model_insn *u)
{
    return u->cls == MODEL_LOAD || u->cls == MODEL_STORE;
}

static unsigned entry_index(const model_core *m, unsigned row, unsigned bank)
{
    return row * m->core.width + bank;
}

static uint32_t class_latency(const model_core *m, unsigned cls)
{
    const model_config_core *k = &m->core;
    switch (cls) {
    case MODEL_MUL:
        return k->lat_mul;
    case MODEL_DIV:
        return k->lat_div;
    case MODEL_FP_ADD:
        return k->lat_fp_add;
    case MODEL_FP_MUL:
        return k->lat_fp_mul;
    case MODEL_FP_DIV:
        return k->lat_fp_div;
    case MODEL_FP_SQRT:
        return k->lat_fp_sqrt;
    default:
        return k->lat_int;
    }
}

/* Cycle the producer of `seq` (dep µops back) has its result, 0 if long done. */
static uint64_t producer_ready(const model_core *m, uint64_t seq, unsigned dep)
{
    uint64_t p;
    if (dep == 0 || dep > seq)
        return 0;
    p = seq - dep;
    return m->done_seq[p % DEP_RING] == p ? m->done_at[p % DEP_RING] : 0;
}

/* Marks the data page of `addr` touched; returns 1 when it was not before
 * (the access page-faults). Grows the set as the footprint grows. */
static int first_touch(model_core *m, uint64_t addr)
{
    uint64_t key = (addr >> m->page_shift) + 1;
    size_t slot;

    if ((m->page_count + 1) * 2 > m->page_cap) {
        size_t cap = m->page_cap * 2;
        uint64_t *bigger = calloc(cap, sizeof *bigger);
        if (!bigger)
            return 0; /* out of memory: stop modelling page faults rather than fail */
        for (size_t i = 0; i < m->page_cap; i++) {
            if (!m->pages[i])
                continue;
            slot = (size_t)((m->pages[i] * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
            while (bigger[slot])
                slot = (slot + 1) & (cap - 1);
            bigger[slot] = m->pages[i];
        }
        free(m->pages);
        m->pages = bigger;
        m->page_cap = cap;
    }
    slot = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->page_cap - 1);
    while (m->pages[slot]) {
        if (m->pages[slot] == key)
            return 0;
        slot = (slot + 1) & (m->page_cap - 1);
    }
    m->pages[slot] = key;
    m->page_count++;
    return 1;
}

/* Returns a squashed correct-path µop to the front of the fetch queue so it is
 * fetched again; its front-end and dispatch events are decided anew, its branch
 * prediction is kept. */
static void refetch_front(model_core *m, const model_insn *insn, uint64_t seq, int predicted, int mispredict,
                          uint64_t wrong_target)
{
    pending_uop p;
    memset(&p, 0, sizeof p);
    p.insn = *insn;
    p.seq = seq;
    p.predicted = (uint8_t)predicted;
    p.mispredict = (uint8_t)mispredict;
    p.wrong_target = wrong_target;
    m->done_seq[seq % DEP_RING] = UINT64_MAX;
    queue_push_front(&m->to_fetch, &p);
}

/* Forgets in-flight stores from ROB entries that are gone: all of them after
 * a flush, or those younger than `keep_seq` after a squash. */
static void drop_stores_from(model_core *m, uint64_t first_seq)
{
    while (m->store_count > 0) {
        store_slot *s = &m->stores[(m->store_head + m->store_count - 1) % m->core.lsq_size];
        if (s->seq < first_seq)
            break;
        m->store_count--;
    }
}

/* Squashes everything in the ROB window and the fetch buffer, returning
 * correct-path µops to the fetch queue in program order, and restarts the
 * front end after `penalty` cycles. The empty ROB restarts at the next row
 * boundary. Returns the number of ROB entries removed. */
static unsigned flush_pipeline(model_core *m, uint64_t cycle, unsigned penalty)
{
    unsigned w = m->core.width, removed = m->window;

    for (unsigned i = m->fetch_buffer.count; i-- > 0;) {
        pending_uop *p = queue_at(&m->fetch_buffer, i);
        if (!p->wrong_path)
            refetch_front(m, &p->insn, p->seq, p->predicted, p->mispredict, p->wrong_target);
    }
    m->fetch_buffer.count = 0;
    for (unsigned k = m->window; k-- > 0;) {
        rob_entry *e = &m->rob[(m->head + k) % m->core.rob_size];
        if (e->valid) {
            if (!e->wrong_path)
                refetch_front(m, &e->insn, e->seq, 1, e->mispredict, e->wrong_target);
            m->stats.squashed++;
            e->valid = 0;
        }
    }
    m->store_count = 0;
    m->window = 0;
    m->lsq_used = 0;
    m->rows_used = 0;
    if (m->head % w)
        m->head = entry_index(m, (m->head / w + 1) % m->rows, 0);
    m->tail_row = m->head / w;
    m->wrong_mode = 0;
    m->mispredict_pending = 0;
    m->fetch_ready = cycle + penalty;
    m->fetch_line = m->fetch_page = 0;
    m->stats.flushes++;
    return removed;
}

/* The banks of the head row that hold a µop (bit b: bank b), as BOOM's
 * trace port shows them in every token: 0 for an empty ROB. Banks of the
 * row are only used from the head on. */
static uint16_t head_row_valid(const model_core *m)
{
    unsigned w = m->core.width, row = m->head / w;
    uint16_t mask = 0;

    _Static_assert(TRACE_MAX_WIDTH <= 8 * sizeof mask, "a row's banks fit the mask"); /* model_core_create checks w */
    if (m->window == 0)
        return 0;
    for (unsigned bank = m->head % w; bank < w; bank++)
        if (m->rob[entry_index(m, row, bank)].valid)
            mask = (uint16_t)(mask | (1u << bank));
    return mask;
}

/* Removes `count` entries from the head of the window (the head row). */
static void retire_entries(model_core *m, trace_record *rec, unsigned count)
{
    unsigned w = m->core.width;
    assert(count <= m->window && m->head % w + count <= w); /* within the head row */
    rec->retire = (uint8_t)count;
    m->window -= count;
    if (m->head % w + count == w)
        m->rows_used--;
    m->head = (m->head + count) % m->core.rob_size;
}

/* --- the pipeline stages ------------------------------------------------------ */

/* A mispredicted branch that has its result squashes everything younger:
 * whole rows after its own (the tail rolls back) and, inside its row, the
 * banks after it (they stay allocated as killed entries). */
static void resolve(model_core *m, uint64_t cycle, trace_record *rec)
{
    unsigned w = m->core.width, branch, row, squash = 0;

    if (!m->mispredict_pending)
        return;
    branch = m->mispredict_entry;
    if (m->rob[branch].complete > cycle)
        return;
    row = branch / w;
    for (unsigned bank = branch % w + 1; bank < w; bank++) {
        rob_entry *e = &m->rob[entry_index(m, row, bank)];
        if (e->valid) {
            e->valid = 0;
            m->stats.squashed++;
            if (is_memory(&e->insn))
                m->lsq_used--;
        }
    }
    while (m->tail_row != (row + 1) % m->rows) {
        m->tail_row = (m->tail_row + m->rows - 1) % m->rows;
        for (unsigned bank = 0; bank < w; bank++) {
            rob_entry *e = &m->rob[entry_index(m, m->tail_row, bank)];
            if (e->valid) {
                m->stats.squashed++;
                if (is_memory(&e->insn))
                    m->lsq_used--;
            }
            e->valid = 0;
        }
        m->rows_used--;
        squash += w;
    }
    drop_stores_from(m, m->rob[branch].seq + 1);
    assert(squash <= m->window); /* only rows after the branch's own went */
    m->window -= squash;
    rec->squash = (uint16_t)(rec->squash + squash);
    m->fetch_buffer.count = 0; /* all wrong path */
    m->wrong_mode = 0;
    m->mispredict_pending = 0;
    m->fetch_ready = cycle + m->core.redirect_penalty;
    m->fetch_line = m->fetch_page = 0;
    m->stats.mispredicts++;
}

/* Adds a µop to the record. */
static void record_uop(model_core *m, trace_record *rec, const rob_entry *e, unsigned offset, uint16_t extra_psv)
{
    trace_uop *u;

    assert(trace_record_uops(rec) < m->core.width && offset < m->core.width); /* one head row */
    u = &m->batch.uops[m->batch.uop_count + trace_record_uops(rec)];
    u->pc = e->insn.pc;
    u->psv = (uint16_t)(e->psv | extra_psv);
    u->offset = (uint8_t)offset;
    u->pad_ = 0;
    u->ctx = 0;
}

/* A committing µop leaves the load/store queue and the in-flight stores. */
static void leave_lsq(model_core *m, const rob_entry *e)
{
    if (!is_memory(&e->insn))
        return;
    m->lsq_used--;
    if (e->insn.cls == MODEL_STORE || (e->insn.flags & MODEL_INSN_STORE)) {
        if (m->store_count > 0 && m->stores[m->store_head].seq == e->seq) {
            m->store_head = (m->store_head + 1) % m->core.lsq_size;
            m->store_count--;
        }
    }
}

/* Commits ready µops of the head row in order, up to the row's end, and
 * handles flush-on-commit µops, exceptions and ordering failures, which
 * flush everything younger. */
static void commit(model_core *m, uint64_t cycle, trace_record *rec)
{
    unsigned w = m->core.width, hb = m->head % w, row = m->head / w, bank;

    if (m->window == 0)
        return;
    for (bank = hb; bank < w; bank++) {
        rob_entry *e = &m->rob[entry_index(m, row, bank)];
        if (!e->valid)
            continue;
        if (e->complete > cycle)
            break;
        if (e->except && rec->n_commit > 0)
            break; /* BOOM never commits and excepts in one cycle: it excepts next cycle */
        if (e->except) {
            /* The µop excepts; the handler returns to it and it re-executes,
             * after everything younger is refetched. */
            model_insn again = e->insn;
            uint64_t seq = e->seq;
            int mispredict = e->mispredict;
            uint64_t wrong_target = e->wrong_target;
            record_uop(m, rec, e, bank - hb, BIT(TRACE_PSV_FL_EX));
            rec->flags |= TRACE_REC_EXCEPTION;
            e->valid = 0;
            leave_lsq(m, e);
            retire_entries(m, rec, bank - hb + 1);
            rec->squash = (uint16_t)(rec->squash + flush_pipeline(m, cycle, m->core.exception_penalty));
            again.flags &= (uint8_t)~MODEL_INSN_TRAP;
            refetch_front(m, &again, seq, 1, mispredict, wrong_target);
            m->stats.exceptions++;
            return;
        }
        if (e->order_fail) {
            /* Detected when the load reaches commit: squash it and everything
             * younger and refetch from it; it then carries FL-MO. */
            pending_uop *load;
            retire_entries(m, rec, bank - hb);
            rec->squash = (uint16_t)(rec->squash + flush_pipeline(m, cycle, m->core.flush_penalty));
            load = queue_at(&m->to_fetch, 0);
            load->refetched_after_order_fail = 1;
            m->stats.order_failures++;
            return;
        }
        record_uop(m, rec, e, bank - hb, 0);
        rec->n_commit++;
        m->stats.committed++;
        leave_lsq(m, e);
        e->valid = 0;
        if (e->insn.flags & MODEL_INSN_FLUSH) {
            retire_entries(m, rec, bank - hb + 1);
            rec->squash = (uint16_t)(rec->squash + flush_pipeline(m, cycle, m->core.flush_penalty));
            return;
        }
    }
    /* Stop at the first µop not ready, or at the row's end (trailing empty
     * banks retire with the row). */
    retire_entries(m, rec, bank - hb);
}

/* A load's ordering check against the in-flight older stores: if the
 * youngest older store to its granule learns its address after the load
 * issues, the load either waits for it (it did this before) or runs ahead
 * and fails. Returns the (maybe later) issue cycle. */
static uint64_t check_ordering(model_core *m, rob_entry *e, uint64_t issue)
{
    uint64_t granule = e->insn.addr / ORDER_GRANULE;
    unsigned slot = (unsigned)(e->insn.pc % WAIT_TABLE);

    for (unsigned i = m->store_count; i-- > 0;) {
        const store_slot *s = &m->stores[(m->store_head + i) % m->core.lsq_size];
        if (s->granule != granule)
            continue;
        if (s->ready > issue) {
            if (m->wait_table[slot])
                return s->ready;
            e->order_fail = 1;
            m->wait_table[slot] = 1;
        }
        break; /* only the youngest older store to the granule matters */
    }
    return issue;
}

/* Times a µop at dispatch: issue after its producer, then its latency; loads
 * and stores go through the data TLB and the caches. */
static void time_uop(model_core *m, rob_entry *e, uint64_t cycle, unsigned rob_index)
{
    model_insn *in = &e->insn;
    uint64_t issue = cycle + 1, ready = e->wrong_path ? 0 : producer_ready(m, e->seq, in->dep);
    uint32_t latency;

    if (ready > issue)
        issue = ready;
    if (e->wrong_path || !is_memory(in)) {
        e->complete = issue + class_latency(m, in->cls);
        return;
    }
    {
        model_tlb_result t;
        model_mem_result r;
        uint32_t translate = model_tlb_translate(m->tlbs, MODEL_TLB_DATA, in->addr, issue, &t);
        int stores = in->cls == MODEL_STORE || (in->flags & MODEL_INSN_STORE);
        if (t.l1_miss)
            e->psv |= BIT(TRACE_PSV_ST_TLB);
        if (m->core.page_faults && first_touch(m, in->addr)) {
            e->except = 1;
            m->stats.page_faults++;
        }
        if (in->cls == MODEL_LOAD) {
            issue = check_ordering(m, e, issue);
            latency = model_mem_load(m->memory, in->addr, in->mem_size ? in->mem_size : 1, issue + translate, &r);
            if (r.l1_miss)
                e->psv |= BIT(TRACE_PSV_ST_L1);
            if (r.llc_miss)
                e->psv |= BIT(TRACE_PSV_ST_LLC);
            if (in->flags & MODEL_INSN_STORE)
                model_mem_store(m->memory, in->addr, in->mem_size ? in->mem_size : 1, issue + translate + latency, &r);
            e->complete = issue + translate + latency;
        } else {
            /* A store completes once its address is translated; the write
             * drains to the caches without holding commit. */
            model_mem_store(m->memory, in->addr, in->mem_size ? in->mem_size : 1, issue + translate, &r);
            e->complete = issue + translate + 1;
        }
        e->mem_ready = issue + translate;
        if (stores && m->store_count < m->core.lsq_size) {
            store_slot *s = &m->stores[(m->store_head + m->store_count++) % m->core.lsq_size];
            s->seq = e->seq;
            s->granule = in->addr / ORDER_GRANULE;
            s->ready = e->mem_ready;
            s->rob_index = rob_index;
        }
    }
}

/* Dispatches up to one row of ready µops from the fetch buffer. */
static void dispatch(model_core *m, uint64_t cycle, trace_record *rec)
{
    unsigned w = m->core.width, n = 0;
    unsigned row;

    if (m->fetch_buffer.count == 0 || m->rows_used == m->rows)
        return;
    if (queue_at(&m->fetch_buffer, 0)->ready > cycle)
        return;
    row = m->tail_row;
    while (n < w && m->fetch_buffer.count > 0) {
        pending_uop *p = queue_at(&m->fetch_buffer, 0);
        unsigned index = entry_index(m, row, n);
        rob_entry *e = &m->rob[index];

        if (p->ready > cycle)
            break;
        if (is_memory(&p->insn) && m->lsq_used == m->core.lsq_size) {
            p->psv |= (uint16_t)BIT(TRACE_PSV_DR_SQ); /* held at dispatch by a full LSQ */
            break;
        }
        e->insn = p->insn;
        e->seq = p->seq;
        e->mem_ready = 0;
        e->valid = 1;
        e->wrong_path = p->wrong_path;
        e->psv = p->psv;
        e->mispredict = p->mispredict;
        e->wrong_target = p->wrong_target;
        e->except = 0;
        e->order_fail = 0;
        if (p->mispredict)
            e->psv |= (uint16_t)BIT(TRACE_PSV_FL_MB);
        if (p->insn.flags & MODEL_INSN_FLUSH)
            e->psv |= (uint16_t)BIT(TRACE_PSV_FL_EX);
        if (p->refetched_after_order_fail)
            e->psv |= (uint16_t)BIT(TRACE_PSV_FL_MO);
        if ((p->insn.flags & MODEL_INSN_TRAP) && !p->wrong_path)
            e->except = 1;
        time_uop(m, e, cycle, index);
        if (!p->wrong_path) {
            m->done_at[p->seq % DEP_RING] = e->complete;
            m->done_seq[p->seq % DEP_RING] = p->seq;
        } else {
            m->stats.wrong_path++;
        }
        if (p->mispredict && !p->wrong_path) {
            m->mispredict_pending = 1;
            m->mispredict_entry = index;
        }
        if (is_memory(&p->insn))
            m->lsq_used++;
        queue_pop_front(&m->fetch_buffer);
        n++;
    }
    if (n == 0)
        return;
    for (unsigned bank = n; bank < w; bank++)
        m->rob[entry_index(m, row, bank)].valid = 0;
    m->tail_row = (row + 1) % m->rows;
    m->rows_used++;
    m->window += w;
    assert(m->rows_used <= m->rows && m->lsq_used <= m->core.lsq_size);
    rec->dispatch = (uint16_t)w;
    m->stats.dispatched += n;
}

/* Once the warm-up is over (the first instruction to time arrives): every
 * fill, MSHR and walk the warm-up left in flight ends, so the timed region
 * finds the caches and TLBs holding what the warm-up brought, all of it
 * arrived, as in a run that reached the region on its own (docs/model.md). */
static void settle_warm_up(model_core *m)
{
    model_mem_settle(m->memory);
    model_tlb_settle(m->tlbs);
    m->warm_unsettled = 0;
}

/* Makes sure the next correct-path instruction is in the fetch queue; 0 when
 * the program has ended (or the source failed). */
static int peek_correct_path(model_core *m)
{
    pending_uop *slot;
    int rc;

    if (m->to_fetch.count > 0)
        return 1;
    if (m->source_done || m->window_break)
        return 0;
    slot = queue_back_slot(&m->to_fetch);
    memset(slot, 0, sizeof *slot);
    rc = m->src.next(m->src.ctx, &slot->insn);
    if (rc == MODEL_SOURCE_WINDOW) {
        m->window_break = 1;
        return 0;
    }
    if (rc <= 0) {
        m->source_done = 1;
        m->source_rc = rc < 0 ? rc : TEA_OK;
        return 0;
    }
    if (m->warm_unsettled)
        settle_warm_up(m);
    slot->seq = ++m->next_seq;
    m->stats.instructions++;
    m->to_fetch.count++;
    return 1;
}

/* Instruction fetch of one correct-path µop: the L1 I-cache on a new line,
 * the I-TLB on a new page. Returns the stall before it can be delivered. */
static uint32_t fetch_access(model_core *m, pending_uop *p, uint64_t cycle)
{
    uint64_t line = (p->insn.pc >> m->line_shift) + 1;
    uint64_t page = (p->insn.pc >> m->page_shift) + 1;
    uint32_t stall = 0;

    if (page != m->fetch_page) {
        model_tlb_result t;
        stall += model_tlb_translate(m->tlbs, MODEL_TLB_INST, p->insn.pc, cycle, &t);
        if (t.l1_miss)
            p->psv |= (uint16_t)BIT(TRACE_PSV_DR_TLB);
        m->fetch_page = page;
    }
    if (line != m->fetch_line) {
        model_mem_result r;
        stall += model_mem_fetch(m->memory, p->insn.pc, cycle + stall, &r);
        if (r.l1_miss)
            p->psv |= (uint16_t)BIT(TRACE_PSV_DR_L1);
        m->fetch_line = line;
    }
    return stall;
}

/* Predicts a correct-path branch once per dynamic instance. Returns the
 * verdict; for a misprediction, where the wrong path starts. */
static model_bpred_verdict predict(model_core *m, pending_uop *p)
{
    model_bpred_prediction pred;
    model_bpred_verdict v;
    unsigned kind = MODEL_BPRED_SIZED(p->insn.branch - 1u, p->insn.size);
    int taken = (p->insn.flags & MODEL_INSN_TAKEN) != 0;

    model_bpred_predict(m->predictor, p->insn.pc, kind, &pred);
    v = model_bpred_update(m->predictor, p->insn.pc, kind, taken, p->insn.target);
    p->predicted = 1;
    if (v == MODEL_BPRED_MISPREDICT) {
        p->mispredict = 1;
        p->wrong_target = pred.taken && pred.target ? pred.target : p->insn.pc + p->insn.size;
        if (p->wrong_target == (taken ? p->insn.target : p->insn.pc + p->insn.size))
            p->wrong_target = p->insn.pc + p->insn.size; /* wrong only in a way that lands right */
    } else if (v == MODEL_BPRED_MISFETCH) {
        m->stats.misfetches++;
    }
    return v;
}

/* Fetches up to fetch_width µops into the fetch buffer. */
static void fetch(model_core *m, uint64_t cycle)
{
    unsigned fetched = 0;

    while (cycle >= m->fetch_ready && fetched < m->core.fetch_width
           && m->fetch_buffer.count < m->fetch_buffer.cap) {
        pending_uop *p = queue_back_slot(&m->fetch_buffer);
        model_bpred_verdict verdict = MODEL_BPRED_CORRECT;

        if (m->wrong_mode) {
            memset(p, 0, sizeof *p);
            m->src.wrong_path(m->src.ctx, m->wrong_pc, &p->insn);
            p->insn.pc = m->wrong_pc;
            p->insn.flags &= (uint8_t)~(MODEL_INSN_TRAP | MODEL_INSN_FLUSH);
            p->insn.dep = 0;
            p->wrong_path = 1;
            m->wrong_pc += p->insn.size ? p->insn.size : 1;
        } else {
            pending_uop *next;
            uint32_t stall;
            if (!peek_correct_path(m))
                break;
            next = queue_at(&m->to_fetch, 0);
            if ((stall = fetch_access(m, next, cycle)) > 0) {
                m->fetch_ready = cycle + stall;
                break;
            }
            if (next->insn.branch != MODEL_BRANCH_NONE && !next->predicted)
                verdict = predict(m, next);
            *p = *next;
            queue_pop_front(&m->to_fetch);
        }
        p->ready = cycle + m->core.frontend_latency;
        m->fetch_buffer.count++;
        m->stats.fetched++;
        fetched++;
        if (!p->wrong_path && p->mispredict) {
            m->wrong_mode = 1;
            m->wrong_pc = p->wrong_target;
            break;
        }
        if (verdict == MODEL_BPRED_MISFETCH) {
            m->fetch_ready = cycle + m->core.misfetch_penalty;
            break;
        }
        if (p->insn.flags & MODEL_INSN_TAKEN)
            break;
    }
}

/* The earliest cycle after `cycle` at which anything can change. */
static uint64_t next_event(model_core *m, uint64_t cycle)
{
    uint64_t next = NO_CYCLE;
#define CONSIDER(t) do { uint64_t t_ = (t); if (t_ <= cycle) t_ = cycle + 1; if (t_ < next) next = t_; } while (0)
    if (m->window > 0) {
        unsigned w = m->core.width, row = m->head / w;
        for (unsigned bank = m->head % w; bank < w; bank++) {
            rob_entry *e = &m->rob[entry_index(m, row, bank)];
            if (e->valid) {
                CONSIDER(e->complete);
                break;
            }
        }
        if (m->need_refill)
            CONSIDER(cycle + 1);
    }
    if (m->mispredict_pending)
        CONSIDER(m->rob[m->mispredict_entry].complete);
    if (m->fetch_buffer.count > 0 && m->rows_used < m->rows)
        CONSIDER(queue_at(&m->fetch_buffer, 0)->ready);
    if (m->fetch_buffer.count < m->fetch_buffer.cap && (m->wrong_mode || m->to_fetch.count > 0 || !m->source_done))
        CONSIDER(m->fetch_ready);
#undef CONSIDER
    return next;
}

void model_core_warm(model_core *m, const model_insn *in)
{
    model_tlb_result t;
    model_mem_result r;

    /* Everything happens "before" the first cycle: timings are discarded. */
    model_tlb_translate(m->tlbs, MODEL_TLB_INST, in->pc, 0, &t);
    model_mem_fetch(m->memory, in->pc, 0, &r);
    if (in->cls == MODEL_LOAD || in->cls == MODEL_STORE) {
        unsigned size = in->mem_size ? in->mem_size : 1;
        model_tlb_translate(m->tlbs, MODEL_TLB_DATA, in->addr, 0, &t);
        if (m->core.page_faults)
            first_touch(m, in->addr);
        if (in->cls == MODEL_LOAD)
            model_mem_load(m->memory, in->addr, size, 0, &r);
        if (in->cls == MODEL_STORE || (in->flags & MODEL_INSN_STORE))
            model_mem_store(m->memory, in->addr, size, 0, &r);
    }
    if (in->branch != MODEL_BRANCH_NONE)
        model_core_train_branch(m, in);
    m->stats.warmed++;
    m->warm_unsettled = 1;
}

void model_core_train_branch(model_core *m, const model_insn *in)
{
    unsigned kind = MODEL_BPRED_SIZED(in->branch - 1u, in->size);

    assert(in->branch != MODEL_BRANCH_NONE);
    model_bpred_update(m->predictor, in->pc, kind, (in->flags & MODEL_INSN_TAKEN) != 0, in->target);
}

void model_core_place_lines(model_core *m, int in_llc, const uint64_t *addrs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        model_mem_place(m->memory, in_llc ? MODEL_MEM_LLC : MODEL_MEM_L1D, addrs[i]);
    m->warm_unsettled = 1;
}

void model_core_touch_pages(model_core *m, const uint64_t *addrs, size_t count)
{
    if (!m->core.page_faults)
        return;
    for (size_t i = 0; i < count; i++)
        first_touch(m, addrs[i]);
}

void model_core_set_window(model_core *m, model_window_fn fn, void *ctx)
{
    m->window_fn = fn;
    m->window_ctx = ctx;
}

/* At a window boundary, once nothing is in flight (ROB, fetch buffer,
 * wrong path): the window ended at `cycle`; fetching goes on. */
static int end_window_if_drained(model_core *m, uint64_t cycle)
{
    /* refetches (after an exception or an ordering failure flushed the ROB)
     * are the window's own µops still to commit */
    if (!m->window_break || m->window > 0 || m->fetch_buffer.count > 0 || m->to_fetch.count > 0 || m->wrong_mode
        || m->mispredict_pending)
        return TEA_OK;
    m->window_break = 0;
    return m->window_fn ? m->window_fn(m->window_ctx, cycle) : TEA_OK;
}

int model_core_check(const model_core *m)
{
    unsigned w, size, branch_at, memory = 0;
    uint64_t last_seq = 0;
    int seen = 0;

    if (!m || !m->rob || m->core.width == 0)
        return 0;
    w = m->core.width;
    size = m->core.rob_size;
    if (size % w || m->rows != size / w || m->head >= size || m->tail_row >= m->rows || m->rows_used > m->rows
        || m->rows_used * w < m->head % w || m->window != m->rows_used * w - m->head % w
        || m->tail_row != (m->head / w + m->rows_used) % m->rows || m->lsq_used > m->core.lsq_size
        || m->store_count > m->core.lsq_size || m->fetch_buffer.count > m->fetch_buffer.cap
        || m->to_fetch.count > m->to_fetch.cap)
        return 0;
    /* Where the pending mispredicted branch stands from the head (past the
     * window when none is pending). */
    branch_at = m->mispredict_pending ? (m->mispredict_entry + size - m->head) % size : size;
    if (m->mispredict_pending
        && (m->mispredict_entry >= size || branch_at >= m->window || !m->rob[m->mispredict_entry].valid
            || !m->rob[m->mispredict_entry].mispredict || m->rob[m->mispredict_entry].wrong_path))
        return 0;
    for (unsigned k = 0; k < size; k++) {
        const rob_entry *e = &m->rob[(m->head + k) % size];
        if (!e->valid)
            continue;
        if (k >= m->window || (e->wrong_path && k <= branch_at))
            return 0;
        memory += is_memory(&e->insn);
        if (!e->wrong_path) {
            if (seen && e->seq <= last_seq)
                return 0;
            last_seq = e->seq;
            seen = 1;
        }
    }
    return memory == m->lsq_used;
}

/* Hands the batch to the consumer and clears it. */
static int emit_batch(model_core *m, model_emit_fn emit, void *ctx)
{
    int rc = TEA_OK;
    assert(model_core_check(m));
    if (m->batch.count > 0)
        rc = emit(ctx, &m->batch);
    trace_batch_clear(&m->batch);
    return rc;
}

int model_core_run(model_core *m, uint64_t first_cycle, uint64_t max_cycles, model_emit_fn emit, void *ctx)
{
    uint64_t cycle = first_cycle, end = max_cycles ? first_cycle + max_cycles : NO_CYCLE;
    int rc, first = 1, squashed = 0, closing = 0;

    for (;;) {
        trace_record *rec = &m->batch.records[m->batch.count];
        int active;

        assert(trace_batch_has_room(&m->batch)); /* a full batch was emitted */
        memset(rec, 0, sizeof *rec);
        rec->cycle = cycle;
        rec->first_uop = (uint32_t)m->batch.uop_count;
        if (m->need_refill && m->window > 0) {
            rec->flags |= TRACE_REC_REFILL;
            m->need_refill = 0;
        }
        resolve(m, cycle, rec);
        /* After a branch resolved this cycle (its kills take effect at once:
         * commit may retire the killed entries now), before any commit. */
        m->batch.head_valid[m->batch.count] = head_row_valid(m);
        commit(m, cycle, rec);
        dispatch(m, cycle, rec);
        fetch(m, cycle);
        if (m->source_rc)
            return m->source_rc;
        if ((rc = end_window_if_drained(m, cycle)))
            return rc;
        /* The window runs from the head to the end of the last row allocated. */
        assert(m->window == m->rows_used * m->core.width - m->head % m->core.width && m->window <= m->core.rob_size
               && m->store_count <= m->core.lsq_size);
        if (m->window == 0)
            m->need_refill = 1;
        if (m->window > m->stats.max_window)
            m->stats.max_window = m->window;
        active = first || closing || rec->n_commit || rec->flags || rec->squash || rec->dispatch || rec->retire;
        if (active) {
            squashed = rec->squash > 0;
            m->batch.uop_count += trace_record_uops(rec);
            m->batch.count++;
            if (!trace_batch_has_room(&m->batch) && (rc = emit_batch(m, emit, ctx)))
                return rc;
        }
        if (m->progress && m->stats.instructions >= m->next_progress) {
            m->stats.cycles = cycle - first_cycle;
            m->progress(m->progress_ctx, &m->stats);
            m->next_progress += MODEL_PROGRESS_INSNS;
        }
        first = 0;
        /* A squash only shows in TraceDoctor tokens through the next token,
         * so a trace never ends on one: run on to the next record. */
        {
            uint64_t next = next_event(m, cycle);
            assert(next > cycle); /* time moves forwards */
            closing = next == NO_CYCLE && squashed;
            if (closing)
                next = cycle + 1; /* an empty closing record */
            cycle = next;
        }
        if (cycle == NO_CYCLE || (cycle > end && !squashed))
            break;
        m->stats.cycles = cycle - first_cycle;
    }
    m->stats.in_flight = 0;
    for (unsigned k = 0; k < m->window; k++)
        m->stats.in_flight += m->rob[(m->head + k) % m->core.rob_size].valid;
    return emit_batch(m, emit, ctx);
}
