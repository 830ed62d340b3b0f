/*
 * test_session.c: tea record's Valgrind session (record/session.c) on record
 * streams written here by hand (tearec/stream.h): a two-iteration loop
 * (load, add, conditional branch back, then a store) gives the model
 * instructions one by one — classes from the decoded bytes, memory
 * addresses, branch outcomes from the next PC, register dependences —
 * each static instruction decoded once; warm-up instructions go to the
 * warm callback only; objects whose file cannot be read are kept without a
 * bias; the STOP record ends the stream with its reason and thread count;
 * an EXE record after the first ends a program's part (an exec), after
 * which the next program starts afresh, also after a STOP; the lines of
 * caches warmed by the tool (LINES records) go to the lines callback, set
 * by set, before the next instruction; the branches of a fast-forward
 * (LINES records of pairs) go to the branches callback as model branch
 * instructions, those that decode as branches only; the THREAD records
 * before the STOP list each thread's instructions (a stream without them,
 * as the tool wrote before them, lists none), and an exec starts the list
 * afresh; malformed streams are refused.
 */
#include "testutil.h"
#include "common/error.h"
#include "model/bpred.h"
#include "record/session.h"
#include "tearec/stream.h"

#include <string.h>
#include <unistd.h>

#define MAX_WORDS 256
#define LOOP_PC 0x401000ull
#define DATA 0x5000ull
#define OUT 0x6000ull

typedef struct stream {
    uint64_t w[MAX_WORDS];
    size_t n;
} stream;

static void put(stream *s, uint64_t w)
{
    assert_true(s->n < MAX_WORDS);
    s->w[s->n++] = w;
}

static void code(stream *s, uint64_t pc, const uint8_t *bytes, unsigned len)
{
    uint64_t b[2] = { 0, 0 };
    memcpy(b, bytes, len);
    put(s, TEAREC_STREAM_CODE << TEAREC_STREAM_KIND_SHIFT | (uint64_t)len << TEAREC_STREAM_SIZE_SHIFT | pc);
    put(s, b[0]);
    put(s, b[1]);
}

static void insn(stream *s, uint64_t kind, uint64_t pc, unsigned len)
{
    put(s, kind << TEAREC_STREAM_KIND_SHIFT | (uint64_t)len << TEAREC_STREAM_SIZE_SHIFT | pc);
}

static void put_access(stream *s, uint64_t kind, uint64_t addr, unsigned size)
{
    put(s, kind << TEAREC_STREAM_KIND_SHIFT | (uint64_t)size << TEAREC_STREAM_SIZE_SHIFT | addr);
}

/* The loop's code: mov (%rbx),%rax; add %rcx,%rax; jne LOOP_PC; mov %rax,(%rdx) */
static const uint8_t LOAD_BYTES[] = { 0x48, 0x8b, 0x03 };
static const uint8_t ADD_BYTES[] = { 0x48, 0x01, 0xc8 };
static const uint8_t JNE_BYTES[] = { 0x75, 0xf8 };
static const uint8_t STORE_BYTES[] = { 0x48, 0x89, 0x02 };

static void loop_code(stream *s)
{
    code(s, LOOP_PC, LOAD_BYTES, sizeof LOAD_BYTES);
    code(s, LOOP_PC + 3, ADD_BYTES, sizeof ADD_BYTES);
    code(s, LOOP_PC + 6, JNE_BYTES, sizeof JNE_BYTES);
    code(s, LOOP_PC + 8, STORE_BYTES, sizeof STORE_BYTES);
}

/* One loop iteration: load DATA + 8 i, add, jne. */
static void iteration(stream *s, uint64_t kind, unsigned i)
{
    insn(s, kind, LOOP_PC, 3);
    put_access(s, TEAREC_STREAM_LOAD, DATA + 8 * i, 8);
    insn(s, kind, LOOP_PC + 3, 3);
    insn(s, kind, LOOP_PC + 6, 2);
}

/* One loop iteration recorded, then the WINDOW record that ends its
 * window: what the tool hands over next comes before the next window. */
static void first_window(stream *s)
{
    loop_code(s);
    iteration(s, TEAREC_STREAM_INSN, 0);
    put(s, TEAREC_STREAM_WINDOW << TEAREC_STREAM_KIND_SHIFT | 1);
}

/* A LINES record of `what` holding the `n` words at `words`. */
static void lines(stream *s, uint64_t what, const uint64_t *words, size_t n)
{
    put(s, TEAREC_STREAM_LINES << TEAREC_STREAM_KIND_SHIFT | what << TEAREC_STREAM_SIZE_SHIFT | n);
    for (size_t i = 0; i < n; i++)
        put(s, words[i]);
}

/* A session reading `s` through a pipe (all written before reading). */
static record_session *open_stream(const stream *s)
{
    int fds[2];
    record_session *v;
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], s->w, s->n * sizeof s->w[0]), (ssize_t)(s->n * sizeof s->w[0]));
    close(fds[1]);
    assert_int_equal(record_session_open_fd(&v, fds[0], "test stream"), TEA_OK);
    return v;
}

static void next_insn(model_source *src, model_insn *u)
{
    assert_int_equal(src->next(src->ctx, u), 1);
}

static void loop(void **state)
{
    stream s = { .n = 0 };
    record_session *v;
    model_source src;
    model_insn u;
    const record_session_stats *st;
    size_t count;
    (void)state;

    loop_code(&s);
    iteration(&s, TEAREC_STREAM_INSN, 0); /* jne taken back to the load */
    iteration(&s, TEAREC_STREAM_INSN, 1); /* jne falls through to the store */
    insn(&s, TEAREC_STREAM_INSN, LOOP_PC + 8, 3);
    put_access(&s, TEAREC_STREAM_STORE, OUT, 8);
    put(&s, TEAREC_STREAM_STOP << TEAREC_STREAM_KIND_SHIFT | 3ull << TEAREC_STREAM_STOP_THREADS_SHIFT
                | TEAREC_STREAM_STOP_MAX);
    put(&s, TEAREC_STREAM_INSN << TEAREC_STREAM_KIND_SHIFT | LOOP_PC); /* nothing after STOP is read */
    v = open_stream(&s);
    src = record_session_source(v);

    next_insn(&src, &u);
    assert_int_equal(u.pc, LOOP_PC);
    assert_int_equal(u.size, 3);
    assert_int_equal(u.cls, MODEL_LOAD);
    assert_int_equal(u.addr, DATA);
    assert_int_equal(u.mem_size, 8);
    assert_int_equal(u.dep, 0);
    next_insn(&src, &u);
    assert_int_equal(u.cls, MODEL_INT);
    assert_int_equal(u.dep, 1);      /* rax from the load */
    next_insn(&src, &u);
    assert_int_equal(u.cls, MODEL_BRANCH);
    assert_int_equal(u.branch, 1 + MODEL_BPRED_COND);
    assert_true(u.flags & MODEL_INSN_TAKEN);
    assert_int_equal(u.target, LOOP_PC);
    assert_int_equal(u.dep, 1);      /* the flags from the add */
    next_insn(&src, &u);
    assert_int_equal(u.cls, MODEL_LOAD);
    assert_int_equal(u.addr, DATA + 8);
    next_insn(&src, &u);
    next_insn(&src, &u);
    assert_int_equal(u.cls, MODEL_BRANCH);
    assert_false(u.flags & MODEL_INSN_TAKEN);
    assert_int_equal(u.target, LOOP_PC); /* the decoded direct target */
    next_insn(&src, &u);
    assert_int_equal(u.pc, LOOP_PC + 8);
    assert_int_equal(u.cls, MODEL_STORE);
    assert_int_equal(u.addr, OUT);
    assert_int_equal(u.dep, 2);      /* rax from the second add */
    assert_int_equal(src.next(src.ctx, &u), 0);

    st = record_session_get_stats(v);
    assert_int_equal(st->instructions, 7);
    assert_int_equal(st->static_insns, 4); /* decoded once each */
    assert_int_equal(st->undecodable, 0);
    assert_int_equal(st->stop, RECORD_SESSION_STOP_MAX);
    assert_int_equal(st->threads_seen, 3);
    record_session_threads(v, &count); /* a stream without THREAD records */
    assert_int_equal(count, 0);
    record_session_close(v);
}

typedef struct warm_log {
    unsigned count;
    model_insn first;
} warm_log;

static void warm_cb(void *ctx, const model_insn *u)
{
    warm_log *log = ctx;
    if (!log->count++)
        log->first = *u;
}

static void warmup_and_objects(void **state)
{
    static const char path[] = "/nonexistent/libtest.so";
    stream s = { .n = 0 };
    uint64_t words[4] = { 0 };
    warm_log log = { 0, { 0 } };
    record_session *v;
    model_source src;
    model_insn u;
    const record_session_object *objs;
    size_t count;
    (void)state;

    put(&s, TEAREC_STREAM_OBJECT << TEAREC_STREAM_KIND_SHIFT | LOOP_PC);
    put(&s, LOOP_PC + 0x1000);
    put(&s, 0x1000);
    put(&s, sizeof path - 1);
    memcpy(words, path, sizeof path - 1);
    for (size_t i = 0; i < (sizeof path - 1 + 7) / 8; i++)
        put(&s, words[i]);
    loop_code(&s);
    iteration(&s, TEAREC_STREAM_WARM, 0);
    iteration(&s, TEAREC_STREAM_INSN, 1);
    v = open_stream(&s);
    record_session_set_warm(v, warm_cb, &log);
    src = record_session_source(v);

    next_insn(&src, &u);             /* the first recorded one: the warm-up went before */
    assert_int_equal(log.count, 3);
    assert_int_equal(log.first.cls, MODEL_LOAD);
    assert_int_equal(log.first.addr, DATA);
    assert_int_equal(u.pc, LOOP_PC);
    assert_int_equal(u.addr, DATA + 8);
    next_insn(&src, &u);
    next_insn(&src, &u);
    assert_int_equal(src.next(src.ctx, &u), 0); /* end of stream without STOP */
    assert_int_equal(record_session_get_stats(v)->instructions, 3);
    assert_int_equal(record_session_get_stats(v)->warmed, 3);
    assert_int_equal(record_session_get_stats(v)->stop, RECORD_SESSION_RUNNING);

    objs = record_session_objects(v, &count);
    assert_int_equal(count, 1);
    assert_string_equal(objs[0].path, path);
    assert_int_equal(objs[0].start, LOOP_PC);
    assert_int_equal(objs[0].end, LOOP_PC + 0x1000);
    assert_int_equal(objs[0].have_bias, 0);
    assert_null(objs[0].build_id);
    record_session_close(v);
}

/* What the lines callback saw. */
typedef struct lines_log {
    unsigned calls;
    record_session_warmed what[4];
    size_t count[4];
    uint64_t addrs[8];
    size_t total;
    const warm_log *warmed; /* warm-up instructions seen so far */
    unsigned warmed_before; /* the most of them seen at a call */
} lines_log;

static void lines_cb(void *ctx, record_session_warmed what, const uint64_t *addrs, size_t count)
{
    lines_log *log = ctx;
    assert_true(log->calls < 4 && log->total + count <= 8);
    if (log->warmed && log->warmed->count > log->warmed_before)
        log->warmed_before = log->warmed->count;
    log->what[log->calls] = what;
    log->count[log->calls++] = count;
    memcpy(log->addrs + log->total, addrs, count * sizeof *addrs);
    log->total += count;
}

/* LINES records between a window and its warm-up: one L1 D set of two
 * lines, one LLC set of three and one page, handed over as they came,
 * before the first warm-up instruction; a count of 0 or over 64, or an
 * unknown kind of lines, is refused. */
static void cache_lines(void **state)
{
    stream s = { .n = 0 };
    lines_log log = { 0 };
    warm_log warmed = { 0, { 0 } };
    record_session *v;
    model_source src;
    model_insn u;
    (void)state;

    static const uint64_t l1d[] = { 0x1000, 0x2000 }, llc[] = { 0x3000, 0x4000, 0x5000 }, pages[] = { 0x6008 };
    first_window(&s);
    lines(&s, TEAREC_STREAM_LINES_L1D, l1d, 2);
    lines(&s, TEAREC_STREAM_LINES_LLC, llc, 3);
    lines(&s, TEAREC_STREAM_LINES_PAGES, pages, 1);
    iteration(&s, TEAREC_STREAM_WARM, 1);
    iteration(&s, TEAREC_STREAM_INSN, 2);
    log.warmed = &warmed;
    v = open_stream(&s);
    record_session_set_lines(v, lines_cb, &log);
    record_session_set_warm(v, warm_cb, &warmed);
    src = record_session_source(v);
    next_insn(&src, &u);
    next_insn(&src, &u);
    next_insn(&src, &u);
    assert_int_equal(log.calls, 0); /* not before the window's end */
    assert_int_equal(src.next(src.ctx, &u), MODEL_SOURCE_WINDOW);
    assert_int_equal(log.calls, 0);
    next_insn(&src, &u);
    assert_int_equal(log.calls, 3);
    assert_int_equal(log.what[0], RECORD_SESSION_WARMED_L1D);
    assert_int_equal(log.count[0], 2);
    assert_int_equal(log.what[1], RECORD_SESSION_WARMED_LLC);
    assert_int_equal(log.count[1], 3);
    assert_int_equal(log.what[2], RECORD_SESSION_WARMED_PAGES);
    assert_int_equal(log.count[2], 1);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(log.addrs[i], 0x1000 * (i + 1));
    assert_int_equal(log.addrs[5], 0x6008);
    assert_int_equal(log.warmed_before, 0); /* all of them before the first warm-up instruction */
    assert_int_equal(warmed.count, 3);
    assert_int_equal(u.addr, DATA + 16);
    assert_int_equal(record_session_get_stats(v)->lines_placed, 6);
    record_session_close(v);

    /* a record cut short by the stream's end */
    s.n = 0;
    put(&s, TEAREC_STREAM_LINES << TEAREC_STREAM_KIND_SHIFT | 2);
    put(&s, 0x1000);
    v = open_stream(&s);
    src = record_session_source(v);
    assert_int_equal(src.next(src.ctx, &u), TEA_ERR_FORMAT);
    assert_non_null(strstr(error_message(), "ends inside a record"));
    record_session_close(v);

    static const uint64_t bad[] = { 0, TEAREC_STREAM_LINES_MAX + 1, TEAREC_STREAM_LINES_BRANCHES << TEAREC_STREAM_SIZE_SHIFT | 1,
                                    (TEAREC_STREAM_LINES_BRANCHES + 1) << TEAREC_STREAM_SIZE_SHIFT | 2 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s.n = 0;
        put(&s, TEAREC_STREAM_LINES << TEAREC_STREAM_KIND_SHIFT | bad[i]);
        v = open_stream(&s);
        src = record_session_source(v);
        assert_int_equal(src.next(src.ctx, &u), TEA_ERR_FORMAT);
        assert_non_null(strstr(error_message(), "malformed LINES record"));
        record_session_close(v);
    }
}

/* What the branches callback saw. */
typedef struct branch_log {
    unsigned count;
    model_insn got[4];
    unsigned warmed_before; /* warm-up instructions seen at the last call */
    const warm_log *warmed;
} branch_log;

static void branch_cb(void *ctx, const model_insn *u)
{
    branch_log *log = ctx;
    assert_true(log->count < 4);
    log->got[log->count++] = *u;
    log->warmed_before = log->warmed->count;
}

/* A session reading `s` (first_window's, then what follows it) with the
 * branches and warm-up callbacks logging into `log` and `warmed`, read
 * through the first window's three instructions, its boundary and the
 * next instruction. */
static record_session *read_past_first_window(const stream *s, branch_log *log, warm_log *warmed)
{
    record_session *v = open_stream(s);
    model_source src;
    model_insn u;
    record_session_set_branches(v, branch_cb, log);
    record_session_set_warm(v, warm_cb, warmed);
    src = record_session_source(v);
    for (int i = 0; i < 3; i++)
        next_insn(&src, &u);
    assert_int_equal(src.next(src.ctx, &u), MODEL_SOURCE_WINDOW);
    next_insn(&src, &u);
    return v;
}

/* A LINES record of three branch pairs between a window and its warm-up:
 * the jne taken back to the loop, the jne falling through, and the add
 * (no branch: dropped); the two branches reach the callback in order,
 * before the first warm-up instruction, with the kind, size, outcome and
 * target of the loop's own jne. */
static void branch_pairs(void **state)
{
    stream s = { .n = 0 };
    warm_log warmed = { 0, { 0 } };
    branch_log log = { .count = 0, .warmed = &warmed };
    record_session *v;
    (void)state;

    static const uint64_t pairs[] = { LOOP_PC + 6, LOOP_PC, LOOP_PC + 6, LOOP_PC + 8, LOOP_PC + 3, LOOP_PC + 6 };
    first_window(&s);
    lines(&s, TEAREC_STREAM_LINES_BRANCHES, pairs, 6);
    iteration(&s, TEAREC_STREAM_WARM, 1);
    iteration(&s, TEAREC_STREAM_INSN, 2);
    v = read_past_first_window(&s, &log, &warmed);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.warmed_before, 0);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(log.got[i].pc, LOOP_PC + 6);
        assert_int_equal(log.got[i].size, 2);
        assert_int_equal(log.got[i].cls, MODEL_BRANCH);
        assert_int_equal(log.got[i].branch, 1 + MODEL_BPRED_COND);
        assert_int_equal(log.got[i].target, LOOP_PC); /* taken: where it went; not: the decoded target */
    }
    assert_true(log.got[0].flags & MODEL_INSN_TAKEN);
    assert_false(log.got[1].flags & MODEL_INSN_TAKEN);
    assert_int_equal(warmed.count, 3);
    assert_int_equal(record_session_get_stats(v)->branches_trained, 2);
    assert_int_equal(record_session_get_stats(v)->lines_placed, 0);
    record_session_close(v);
}

/* The jne's code replaced, between two batches of its pair, by a jmp of
 * the same size and target: the second batch trains a jump, the first a
 * conditional branch (what a decoding of the old code said is forgotten). */
static void branch_code_changes(void **state)
{
    static const uint8_t JMP_BYTES[] = { 0xeb, 0xf8 };
    static const uint64_t pair[] = { LOOP_PC + 6, LOOP_PC };
    stream s = { .n = 0 };
    warm_log warmed = { 0, { 0 } };
    branch_log log = { .count = 0, .warmed = &warmed };
    record_session *v;
    (void)state;

    first_window(&s);
    lines(&s, TEAREC_STREAM_LINES_BRANCHES, pair, 2);
    code(&s, LOOP_PC + 6, JMP_BYTES, sizeof JMP_BYTES);
    lines(&s, TEAREC_STREAM_LINES_BRANCHES, pair, 2);
    iteration(&s, TEAREC_STREAM_INSN, 1);
    v = read_past_first_window(&s, &log, &warmed);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.got[0].branch, 1 + MODEL_BPRED_COND);
    assert_int_equal(log.got[1].branch, 1 + MODEL_BPRED_JUMP);
    assert_true(log.got[1].flags & MODEL_INSN_TAKEN);
    assert_int_equal(log.got[1].target, LOOP_PC);
    record_session_close(v);
}

/* An EXE record naming `path`. */
static void exe(stream *s, const char *path)
{
    uint64_t words[8] = { 0 };
    size_t len = strlen(path);
    assert_true(len <= sizeof words);
    memcpy(words, path, len);
    put(s, TEAREC_STREAM_EXE << TEAREC_STREAM_KIND_SHIFT | len);
    for (size_t i = 0; i < (len + 7) / 8; i++)
        put(s, words[i]);
}

/* Three programs in one process's stream: the first execs in its region
 * (two instructions read, its last one's successor unknown), the second
 * stops its region (STOP), then execs; the third runs to the end. Each
 * program's part has its own statistics and decodings. */
static void execs(void **state)
{
    stream s = { .n = 0 };
    record_session *v;
    model_source src;
    model_insn u;
    int exec = -1;
    (void)state;

    exe(&s, "/bin/sh");
    loop_code(&s);
    insn(&s, TEAREC_STREAM_INSN, LOOP_PC, 3);
    insn(&s, TEAREC_STREAM_INSN, LOOP_PC + 3, 3);
    exe(&s, "/usr/bin/env");
    iteration(&s, TEAREC_STREAM_INSN, 0);
    put(&s, TEAREC_STREAM_STOP << TEAREC_STREAM_KIND_SHIFT | 1ull << TEAREC_STREAM_STOP_THREADS_SHIFT
                | TEAREC_STREAM_STOP_SYMBOL);
    exe(&s, "/usr/bin/true");
    loop_code(&s);
    insn(&s, TEAREC_STREAM_INSN, LOOP_PC + 8, 3);
    put_access(&s, TEAREC_STREAM_STORE, OUT, 8);
    v = open_stream(&s);
    src = record_session_source(v);

    next_insn(&src, &u);
    assert_int_equal(u.pc, LOOP_PC);
    next_insn(&src, &u);
    assert_int_equal(u.pc, LOOP_PC + 3);
    assert_int_equal(src.next(src.ctx, &u), 0);
    assert_string_equal(record_session_get_program(v)->exec_path, "/bin/sh");
    assert_int_equal(record_session_get_stats(v)->instructions, 2);
    assert_int_equal(record_session_next_program(v, &exec), TEA_OK);
    assert_int_equal(exec, 1);
    assert_string_equal(record_session_get_program(v)->exec_path, "/usr/bin/env");
    assert_int_equal(record_session_get_stats(v)->instructions, 0);
    assert_int_equal(record_session_get_stats(v)->static_insns, 0); /* decodings forgotten */

    /* the second program: its code was sent by the first (no CODE records):
     * undecodable now, since nothing of the first is kept */
    next_insn(&src, &u);
    next_insn(&src, &u);
    next_insn(&src, &u);
    assert_int_equal(src.next(src.ctx, &u), 0); /* STOP */
    assert_int_equal(record_session_get_stats(v)->stop, RECORD_SESSION_STOP_SYMBOL);
    assert_int_equal(record_session_get_stats(v)->undecodable, 3);
    assert_int_equal(record_session_next_program(v, &exec), TEA_OK);
    assert_int_equal(exec, 1);
    assert_string_equal(record_session_get_program(v)->exec_path, "/usr/bin/true");
    assert_int_equal(record_session_get_stats(v)->stop, RECORD_SESSION_RUNNING);

    next_insn(&src, &u);
    assert_int_equal(u.cls, MODEL_STORE);
    assert_int_equal(u.addr, OUT);
    assert_int_equal(src.next(src.ctx, &u), 0);
    assert_int_equal(record_session_next_program(v, &exec), TEA_OK);
    assert_int_equal(exec, 0); /* the end of the stream */
    assert_int_equal(record_session_get_stats(v)->instructions, 1);
    record_session_close(v);
}

static void malformed(void **state)
{
    stream s = { .n = 0 };
    record_session *v;
    model_source src;
    model_insn u;
    (void)state;

    /* an unknown record kind */
    put(&s, 15ull << TEAREC_STREAM_KIND_SHIFT);
    v = open_stream(&s);
    src = record_session_source(v);
    assert_int_equal(src.next(src.ctx, &u), TEA_ERR_FORMAT);
    assert_non_null(strstr(error_message(), "unknown record kind"));
    record_session_close(v);

    /* a code record cut short */
    s.n = 0;
    put(&s, TEAREC_STREAM_CODE << TEAREC_STREAM_KIND_SHIFT | 3ull << TEAREC_STREAM_SIZE_SHIFT | LOOP_PC);
    v = open_stream(&s);
    src = record_session_source(v);
    assert_int_equal(src.next(src.ctx, &u), TEA_ERR_FORMAT);
    assert_non_null(strstr(error_message(), "ends inside a record"));
    record_session_close(v);
}

/* A THREAD record: a thread's number, then its instructions. */
static void thread_record(stream *s, uint64_t tid, uint64_t instructions)
{
    put(s, TEAREC_STREAM_THREAD << TEAREC_STREAM_KIND_SHIFT | tid);
    put(s, instructions);
}

/* The threads that ran, before the STOP: read in order with their counts
 * (a count beyond 2^60 kept whole); the list starts afresh with the next
 * program of an exec; a thread numbered 0 or not above the one before is
 * refused. */
static void threads(void **state)
{
    stream s = { .n = 0 };
    record_session *v;
    model_source src;
    model_insn u;
    const record_session_thread *t;
    size_t count;
    int exec = -1;
    (void)state;

    exe(&s, "/bin/sh");
    loop_code(&s);
    iteration(&s, TEAREC_STREAM_INSN, 0);
    thread_record(&s, 1, 153012);
    thread_record(&s, 2, 1ull << 62);
    thread_record(&s, 7, 40);
    put(&s, TEAREC_STREAM_STOP << TEAREC_STREAM_KIND_SHIFT | 3ull << TEAREC_STREAM_STOP_THREADS_SHIFT
                | TEAREC_STREAM_STOP_EXIT);
    exe(&s, "/usr/bin/true");
    v = open_stream(&s);
    src = record_session_source(v);
    record_session_threads(v, &count);
    assert_int_equal(count, 0); /* none before the STOP */
    next_insn(&src, &u);
    next_insn(&src, &u);
    next_insn(&src, &u);
    assert_int_equal(src.next(src.ctx, &u), 0);
    t = record_session_threads(v, &count);
    assert_int_equal(count, 3);
    assert_int_equal(t[0].tid, 1);
    assert_int_equal(t[0].instructions, 153012);
    assert_int_equal(t[1].tid, 2);
    assert_int_equal(t[1].instructions, 1ull << 62);
    assert_int_equal(t[2].tid, 7);
    assert_int_equal(t[2].instructions, 40);
    assert_int_equal(record_session_get_stats(v)->stop, RECORD_SESSION_STOP_EXIT);
    assert_int_equal(record_session_next_program(v, &exec), TEA_OK);
    assert_int_equal(exec, 1);
    record_session_threads(v, &count);
    assert_int_equal(count, 0);
    record_session_close(v);

    for (int bad = 0; bad < 2; bad++) {
        s.n = 0;
        thread_record(&s, 2, 5);
        thread_record(&s, bad ? 0 : 2, 5);
        v = open_stream(&s);
        src = record_session_source(v);
        assert_int_equal(src.next(src.ctx, &u), TEA_ERR_FORMAT);
        assert_non_null(strstr(error_message(), "malformed THREAD record"));
        record_session_close(v);
    }
    /* cut after its first word */
    s.n = 0;
    put(&s, TEAREC_STREAM_THREAD << TEAREC_STREAM_KIND_SHIFT | 1);
    v = open_stream(&s);
    src = record_session_source(v);
    assert_int_equal(src.next(src.ctx, &u), TEA_ERR_FORMAT);
    assert_non_null(strstr(error_message(), "ends inside a record"));
    record_session_close(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loop),
        cmocka_unit_test(warmup_and_objects),
        cmocka_unit_test(execs),
        cmocka_unit_test(cache_lines),
        cmocka_unit_test(branch_pairs),
        cmocka_unit_test(branch_code_changes),
        cmocka_unit_test(malformed),
        cmocka_unit_test(threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
