/*
 * core.c: the out-of-order core model (see core.h and docs/model.md).
 *
 * Simulation order within a cycle: resolve a mispredicted branch, commit
 * from the head row, dispatch one row, fetch. Cycles in which nothing can
 * happen are skipped. Every cycle with activity at the ROB yields one record.
 */
#include "core.h"
#include "common/error.h"
#include "trace/psv.h"

#include <stdlib.h>
#include <string.h>

#define NO_CYCLE UINT64_MAX
/* Records per batch handed to the emit callback. */
#define MODEL_BATCH_RECORDS 4096
/* Completion times of recent correct-path µops, for dependences (power of 2). */
#define DEP_RING 1024
/* PSV bits the front end and dispatch set, cleared when a µop is refetched. */
#define REFETCH_CLEARED_PSV ((1u << PSV_DR_L1) | (1u << PSV_DR_TLB) | (1u << PSV_DR_SQ))

typedef struct rob_entry {
    model_uop uop;
    uint64_t seq;       /* correct-path sequence number */
    uint64_t complete;  /* cycle the result is ready */
    uint16_t psv;       /* events as of commit */
    uint8_t valid;      /* holds a µop (0: empty or killed bank) */
    uint8_t wrong_path;
} rob_entry;

/* A µop waiting to be fetched or dispatched. */
typedef struct pending_uop {
    model_uop uop;
    uint64_t seq;
    uint64_t ready;     /* fetch buffer: cycle it may dispatch */
    uint16_t psv;       /* dynamic events so far (DR-SQ) */
    uint8_t wrong_path;
    uint8_t paid;       /* its fetch delay has been spent */
} pending_uop;

/* A ring-buffer deque of pending µops. */
typedef struct uop_queue {
    pending_uop *items;
    unsigned cap, head, count;
} uop_queue;

struct model_core {
    model_config cfg;
    model_source src;
    rob_entry *rob;
    unsigned rows;           /* ROB rows */
    unsigned head;           /* entry index of the oldest entry */
    unsigned tail_row;       /* next row to allocate */
    unsigned rows_used;
    unsigned window;         /* entries from head to the end of the last row */
    unsigned lsq_used;
    uop_queue fetch_buffer;  /* fetched, waiting for dispatch */
    uop_queue to_fetch;      /* correct-path µops to fetch next (refetches first) */
    uint64_t next_seq;
    uint64_t done_at[DEP_RING];
    uint64_t done_seq[DEP_RING];
    uint64_t fetch_ready;    /* the front end may deliver from this cycle */
    int wrong_mode;          /* fetching down a wrong path */
    uint64_t wrong_pc;
    int source_done;
    int mispredict_pending;  /* a mispredicted branch is in the ROB */
    unsigned mispredict_entry;
    int need_refill;         /* the next cycle with a non-empty ROB is a refill */
    trace_batch batch;
    model_stats stats;
};

void model_config_defaults(model_config *cfg)
{
    cfg->width = 4;
    cfg->fetch_width = 8;
    cfg->rob_size = 192;
    cfg->lsq_size = 64;
    cfg->fetch_buffer = 32;
    cfg->frontend_latency = 3;
    cfg->redirect_penalty = 10;
    cfg->flush_penalty = 12;
    cfg->exception_penalty = 40;
}

int model_config_check(const model_config *cfg)
{
    if (cfg->width < 1 || cfg->width > TRACE_MAX_WIDTH)
        return tea_error_set(TEA_ERR_USAGE, "commit width %u outside 1-%d", cfg->width, TRACE_MAX_WIDTH);
    if (cfg->rob_size < 2 * cfg->width || cfg->rob_size > TRACE_MAX_ROB || cfg->rob_size % cfg->width)
        return tea_error_set(TEA_ERR_USAGE, "ROB size %u must be a multiple of the width %u, 2 rows to %d entries",
                             cfg->rob_size, cfg->width, TRACE_MAX_ROB);
    if (cfg->fetch_width < 1 || cfg->fetch_buffer < cfg->fetch_width || cfg->lsq_size < 1)
        return tea_error_set(TEA_ERR_USAGE, "fetch width, fetch buffer and LSQ size must be positive "
                                            "(and the buffer at least the fetch width)");
    if (cfg->rob_size + cfg->fetch_buffer >= DEP_RING)
        return tea_error_set(TEA_ERR_USAGE, "ROB plus fetch buffer must stay below %d µops", DEP_RING);
    return TEA_OK;
}

/* --- queues ---------------------------------------------------------------- */

static pending_uop *queue_at(uop_queue *q, unsigned i)
{
    return &q->items[(q->head + i) % q->cap];
}

static void queue_push_back(uop_queue *q, const pending_uop *p)
{
    q->items[(q->head + q->count) % q->cap] = *p;
    q->count++;
}

static void queue_push_front(uop_queue *q, const pending_uop *p)
{
    q->head = (q->head + q->cap - 1) % q->cap;
    q->items[q->head] = *p;
    q->count++;
}

static void queue_pop_front(uop_queue *q)
{
    q->head = (q->head + 1) % q->cap;
    q->count--;
}

static int queue_init(uop_queue *q, unsigned cap)
{
    q->items = calloc(cap, sizeof *q->items);
    q->cap = cap;
    q->head = q->count = 0;
    return q->items ? TEA_OK : TEA_ERR_NOMEM;
}

/* --- creation ---------------------------------------------------------------- */

int model_core_create(model_core **out, const model_config *cfg, const model_source *src)
{
    model_core *m;
    int rc;

    *out = NULL;
    if ((rc = model_config_check(cfg)))
        return rc;
    if (!(m = calloc(1, sizeof *m)))
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    m->cfg = *cfg;
    m->src = *src;
    m->rows = cfg->rob_size / cfg->width;
    m->rob = calloc(cfg->rob_size, sizeof *m->rob);
    /* The refetch queue holds at most a ROB and a fetch buffer of µops plus
     * the next source µop. */
    if (!m->rob || queue_init(&m->fetch_buffer, cfg->fetch_buffer)
        || queue_init(&m->to_fetch, cfg->rob_size + cfg->fetch_buffer + 2)
        || trace_batch_init(&m->batch, MODEL_BATCH_RECORDS)) {
        model_core_free(m);
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    }
    for (unsigned i = 0; i < DEP_RING; i++)
        m->done_seq[i] = UINT64_MAX;
    m->need_refill = 1;
    *out = m;
    return TEA_OK;
}

void model_core_free(model_core *m)
{
    if (!m)
        return;
    free(m->rob);
    free(m->fetch_buffer.items);
    free(m->to_fetch.items);
    trace_batch_free(&m->batch);
    free(m);
}

const model_stats *model_core_stats(const model_core *m)
{
    return &m->stats;
}

/* --- helpers ----------------------------------------------------------------- */

static int is_memory(const model_uop *u)
{
    return u->cls == MODEL_LOAD || u->cls == MODEL_STORE;
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

static unsigned entry_index(const model_core *m, unsigned row, unsigned bank)
{
    return row * m->cfg.width + bank;
}

/* Returns a squashed correct-path µop to the front of the fetch queue so it is
 * fetched again; front-end and dispatch events are not repeated. */
static void refetch_front(model_core *m, const model_uop *u, uint64_t seq)
{
    pending_uop p = { .uop = *u, .seq = seq, .paid = 1 };
    p.uop.psv &= (uint16_t)~REFETCH_CLEARED_PSV;
    p.uop.fetch_delay = 0;
    m->done_seq[seq % DEP_RING] = UINT64_MAX;
    queue_push_front(&m->to_fetch, &p);
}

/* Squashes everything in the ROB window and the fetch buffer, returning
 * correct-path µops to the fetch queue in program order, and restarts the
 * front end after `penalty` cycles. The empty ROB restarts at the next row
 * boundary. Returns the number of ROB entries removed. */
static unsigned flush_pipeline(model_core *m, uint64_t cycle, unsigned penalty)
{
    unsigned w = m->cfg.width, removed = m->window;

    for (unsigned i = m->fetch_buffer.count; i-- > 0;) {
        pending_uop *p = queue_at(&m->fetch_buffer, i);
        if (!p->wrong_path)
            refetch_front(m, &p->uop, p->seq);
    }
    m->fetch_buffer.count = 0;
    for (unsigned k = m->window; k-- > 0;) {
        rob_entry *e = &m->rob[(m->head + k) % m->cfg.rob_size];
        if (e->valid) {
            if (!e->wrong_path)
                refetch_front(m, &e->uop, e->seq);
            m->stats.squashed++;
            e->valid = 0;
        }
    }
    m->window = 0;
    m->lsq_used = 0;
    m->rows_used = 0;
    if (m->head % w)
        m->head = entry_index(m, (m->head / w + 1) % m->rows, 0);
    m->tail_row = m->head / w;
    m->wrong_mode = 0;
    m->mispredict_pending = 0;
    m->fetch_ready = cycle + penalty;
    m->stats.flushes++;
    return removed;
}

/* Removes `count` entries from the head of the window (the head row). */
static void retire_entries(model_core *m, trace_record *rec, unsigned count)
{
    unsigned w = m->cfg.width;
    rec->retire = (uint8_t)count;
    m->window -= count;
    if (m->head % w + count == w)
        m->rows_used--;
    m->head = (m->head + count) % m->cfg.rob_size;
}

/* --- the pipeline stages ------------------------------------------------------ */

/* A mispredicted branch that has its result squashes everything younger:
 * whole rows after its own (the tail rolls back) and, inside its row, the
 * banks after it (they stay allocated as killed entries). */
static void resolve(model_core *m, uint64_t cycle, trace_record *rec)
{
    unsigned w = m->cfg.width, branch, row, squash = 0;
    rob_entry *b;

    if (!m->mispredict_pending)
        return;
    branch = m->mispredict_entry;
    b = &m->rob[branch];
    if (b->complete > cycle)
        return;
    row = branch / w;
    for (unsigned bank = branch % w + 1; bank < w; bank++) {
        rob_entry *e = &m->rob[entry_index(m, row, bank)];
        if (e->valid) {
            e->valid = 0;
            m->stats.squashed++;
            if (is_memory(&e->uop))
                m->lsq_used--;
        }
    }
    while (m->tail_row != (row + 1) % m->rows) {
        m->tail_row = (m->tail_row + m->rows - 1) % m->rows;
        for (unsigned bank = 0; bank < w; bank++) {
            rob_entry *e = &m->rob[entry_index(m, m->tail_row, bank)];
            if (e->valid) {
                m->stats.squashed++;
                if (is_memory(&e->uop))
                    m->lsq_used--;
            }
            e->valid = 0;
        }
        m->rows_used--;
        squash += w;
    }
    m->window -= squash;
    rec->squash = (uint16_t)(rec->squash + squash);
    m->fetch_buffer.count = 0; /* all wrong path */
    m->wrong_mode = 0;
    m->mispredict_pending = 0;
    m->fetch_ready = cycle + m->cfg.redirect_penalty;
}

/* Adds a µop to the record. */
static void record_uop(model_core *m, trace_record *rec, const rob_entry *e, unsigned offset, uint16_t extra_psv)
{
    trace_uop *u = &m->batch.uops[m->batch.uop_count + trace_record_uops(rec)];
    u->pc = e->uop.pc;
    u->psv = (uint16_t)(e->psv | extra_psv);
    u->offset = (uint8_t)offset;
    u->pad_ = 0;
}

/* Commits ready µops of the head row in order, up to the row's end, and
 * handles flush-on-commit µops, exceptions and ordering failures, which
 * flush everything younger. */
static void commit(model_core *m, uint64_t cycle, trace_record *rec)
{
    unsigned w = m->cfg.width, hb = m->head % w, row = m->head / w, bank;

    if (m->window == 0)
        return;
    for (bank = hb; bank < w; bank++) {
        rob_entry *e = &m->rob[entry_index(m, row, bank)];
        if (!e->valid)
            continue;
        if (e->complete > cycle)
            break;
        if (e->uop.flags & MODEL_UOP_EXCEPTION) {
            /* The µop excepts; the trap handler returns to it and it
             * re-executes, after everything younger is refetched. */
            model_uop again = e->uop;
            uint64_t seq = e->seq;
            record_uop(m, rec, e, bank - hb, 1u << PSV_FL_EX);
            rec->flags |= TRACE_REC_EXCEPTION;
            e->valid = 0;
            if (is_memory(&e->uop))
                m->lsq_used--;
            retire_entries(m, rec, bank - hb + 1);
            rec->squash = (uint16_t)(rec->squash + flush_pipeline(m, cycle, m->cfg.exception_penalty));
            again.flags &= (uint8_t)~MODEL_UOP_EXCEPTION;
            refetch_front(m, &again, seq);
            m->stats.exceptions++;
            return;
        }
        if (e->uop.flags & MODEL_UOP_ORDER_FAIL) {
            /* Detected when the load reaches commit: squash it and
             * everything younger and refetch from it; it then carries FL-MO. */
            pending_uop *load;
            retire_entries(m, rec, bank - hb);
            rec->squash = (uint16_t)(rec->squash + flush_pipeline(m, cycle, m->cfg.flush_penalty));
            load = queue_at(&m->to_fetch, 0);
            load->uop.flags &= (uint8_t)~MODEL_UOP_ORDER_FAIL;
            load->uop.psv |= (uint16_t)(1u << PSV_FL_MO);
            return;
        }
        record_uop(m, rec, e, bank - hb, 0);
        rec->n_commit++;
        m->stats.committed++;
        if (is_memory(&e->uop))
            m->lsq_used--;
        e->valid = 0;
        if (e->uop.flags & MODEL_UOP_FLUSH) {
            retire_entries(m, rec, bank - hb + 1);
            rec->squash = (uint16_t)(rec->squash + flush_pipeline(m, cycle, m->cfg.flush_penalty));
            return;
        }
    }
    /* Stop at the first µop not ready, or at the row's end (trailing empty
     * banks retire with the row). */
    retire_entries(m, rec, bank - hb);
}

/* Dispatches up to one row of ready µops from the fetch buffer. */
static void dispatch(model_core *m, uint64_t cycle, trace_record *rec)
{
    unsigned w = m->cfg.width, n = 0;
    unsigned row;

    if (m->fetch_buffer.count == 0 || m->rows_used == m->rows)
        return;
    if (queue_at(&m->fetch_buffer, 0)->ready > cycle)
        return;
    row = m->tail_row;
    while (n < w && m->fetch_buffer.count > 0) {
        pending_uop *p = queue_at(&m->fetch_buffer, 0);
        rob_entry *e = &m->rob[entry_index(m, row, n)];
        uint64_t issue;

        if (p->ready > cycle)
            break;
        if (is_memory(&p->uop) && m->lsq_used == m->cfg.lsq_size) {
            p->psv |= (uint16_t)(1u << PSV_DR_SQ); /* held at dispatch by a full LSQ */
            break;
        }
        e->uop = p->uop;
        e->seq = p->seq;
        e->valid = 1;
        e->wrong_path = p->wrong_path;
        e->psv = (uint16_t)(p->uop.psv | p->psv);
        if (p->uop.flags & MODEL_UOP_MISPREDICT)
            e->psv |= (uint16_t)(1u << PSV_FL_MB);
        if (p->uop.flags & MODEL_UOP_FLUSH)
            e->psv |= (uint16_t)(1u << PSV_FL_EX);
        issue = cycle + 1;
        if (!p->wrong_path) {
            uint64_t ready = producer_ready(m, p->seq, p->uop.dep);
            if (ready > issue)
                issue = ready;
        }
        e->complete = issue + p->uop.latency;
        if (!p->wrong_path) {
            m->done_at[p->seq % DEP_RING] = e->complete;
            m->done_seq[p->seq % DEP_RING] = p->seq;
        } else {
            m->stats.wrong_path++;
        }
        if ((p->uop.flags & MODEL_UOP_MISPREDICT) && !p->wrong_path) {
            m->mispredict_pending = 1;
            m->mispredict_entry = entry_index(m, row, n);
        }
        if (is_memory(&p->uop))
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
    rec->dispatch = (uint16_t)w;
    m->stats.dispatched += n;
}

/* Makes sure the next correct-path µop is in the fetch queue; 0 when the
 * program has ended. */
static int peek_correct_path(model_core *m)
{
    pending_uop p = { 0 };
    if (m->to_fetch.count > 0)
        return 1;
    if (m->source_done || !m->src.next(m->src.ctx, &p.uop)) {
        m->source_done = 1;
        return 0;
    }
    p.seq = ++m->next_seq;
    queue_push_back(&m->to_fetch, &p);
    return 1;
}

/* Fetches up to fetch_width µops into the fetch buffer. A µop whose fetch
 * misses (fetch_delay) first stalls the front end for that long. */
static int fetch(model_core *m, uint64_t cycle)
{
    unsigned fetched = 0;

    while (cycle >= m->fetch_ready && fetched < m->cfg.fetch_width
           && m->fetch_buffer.count < m->fetch_buffer.cap) {
        pending_uop p = { 0 };
        if (m->wrong_mode) {
            m->wrong_pc = m->src.wrong_path(m->src.ctx, m->wrong_pc, &p.uop);
            p.uop.flags = 0;
            p.uop.psv = 0;
            p.uop.dep = 0;
            p.wrong_path = 1;
        } else {
            pending_uop *next;
            if (!peek_correct_path(m))
                break;
            next = queue_at(&m->to_fetch, 0);
            if (next->uop.fetch_delay && !next->paid) {
                next->paid = 1;
                m->fetch_ready = cycle + next->uop.fetch_delay;
                break;
            }
            p = *next;
            queue_pop_front(&m->to_fetch);
        }
        p.ready = cycle + m->cfg.frontend_latency;
        queue_push_back(&m->fetch_buffer, &p);
        m->stats.fetched++;
        fetched++;
        if (!p.wrong_path && (p.uop.flags & MODEL_UOP_MISPREDICT)) {
            m->wrong_mode = 1;
            m->wrong_pc = p.uop.wrong_pc;
            break;
        }
        if (p.uop.flags & MODEL_UOP_TAKEN)
            break;
    }
    return fetched > 0;
}

/* The earliest cycle after `cycle` at which anything can change. */
static uint64_t next_event(model_core *m, uint64_t cycle)
{
    uint64_t next = NO_CYCLE;
#define CONSIDER(t) do { uint64_t t_ = (t); if (t_ <= cycle) t_ = cycle + 1; if (t_ < next) next = t_; } while (0)
    if (m->window > 0) {
        unsigned w = m->cfg.width, row = m->head / w;
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

/* Hands the batch to the consumer and clears it. */
static int emit_batch(model_core *m, model_emit_fn emit, void *ctx)
{
    int rc = TEA_OK;
    if (m->batch.count > 0)
        rc = emit(ctx, &m->batch);
    trace_batch_clear(&m->batch);
    return rc;
}

int model_core_run(model_core *m, uint64_t first_cycle, uint64_t max_cycles, model_emit_fn emit, void *ctx)
{
    uint64_t cycle = first_cycle, end = first_cycle + max_cycles;
    int rc, first = 1, squashed = 0, closing = 0;

    for (;;) {
        trace_record *rec = &m->batch.records[m->batch.count];
        int active;

        memset(rec, 0, sizeof *rec);
        rec->cycle = cycle;
        rec->first_uop = (uint32_t)m->batch.uop_count;
        if (m->need_refill && m->window > 0) {
            rec->flags |= TRACE_REC_REFILL;
            m->need_refill = 0;
        }
        resolve(m, cycle, rec);
        commit(m, cycle, rec);
        {
            /* After a flush cause commits, a ROB that is not empty means the
             * flush window is over at once: say so with a refill next cycle. */
            unsigned n = trace_record_uops(rec);
            if (n && (m->batch.uops[rec->first_uop + n - 1].psv & PSV_FLUSH_CAUSE_MASK))
                m->need_refill = 1;
        }
        dispatch(m, cycle, rec);
        fetch(m, cycle);
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
        first = 0;
        /* A squash only shows in TraceDoctor tokens through the next token,
         * so a trace never ends on one: run on to the next record. */
        {
            uint64_t next = next_event(m, cycle);
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
        m->stats.in_flight += m->rob[(m->head + k) % m->cfg.rob_size].valid;
    return emit_batch(m, emit, ctx);
}
