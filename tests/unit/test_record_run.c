/*
 * test_record_run.c: the record driver (record/run.c) on streams of the
 * tearec tool's records written here to a file (tearec/stream.h), with no
 * Valgrind: the trace it writes holds exactly the records the core model
 * makes of the stream's instructions, as many committed µops as the
 * stream has instructions (counted by hand), the program's path from the
 * EXE and OBJECT records, the object without a build-id or bias (a file
 * that is no ELF), the recorded thread and how many the program had, each
 * thread's count, the exit status; an exec drops what was recorded before
 * it, lists the program left and notes it; a sampled stream's WINDOW
 * records become the trace's windows, the last one closed at the trace's
 * end; listed windows (SimPoint's regions) take their weights of the
 * COUNT record's intervals; a stream that recorded nothing fails, naming
 * the threads that ran.
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "common/error.h"
#include "model/core.h"
#include "record/run.h"
#include "tearec/stream.h"
#include "trace/objects.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORDS 1024
#define LOOP_PC 0x401000ull
#define LOOP_END (LOOP_PC + 0x1000)
#define DATA 0x5000ull
#define OUT_ADDR 0x6000ull
#define ITERATIONS 40
/* The loop's instructions per iteration: load, add, jne. */
#define LOOP_INSNS 3

typedef struct stream {
    uint64_t w[MAX_WORDS];
    size_t n;
} stream;

static void put(stream *s, uint64_t w)
{
    assert_true(s->n < MAX_WORDS);
    s->w[s->n++] = w;
}

static uint64_t kind(uint64_t k)
{
    return k << TEAREC_STREAM_KIND_SHIFT;
}

/* `len` bytes of `text` as whole words, zero-padded. */
static void put_text(stream *s, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i += sizeof(uint64_t)) {
        uint64_t w = 0;
        memcpy(&w, text + i, len - i < sizeof w ? len - i : sizeof w);
        put(s, w);
    }
}

/* An EXE record: the process runs `path`. */
static void exe(stream *s, const char *path)
{
    put(s, kind(TEAREC_STREAM_EXE) | strlen(path));
    put_text(s, path, strlen(path));
}

/* An OBJECT record: `path` mapped executable at [LOOP_PC, LOOP_END). */
static void object(stream *s, const char *path)
{
    put(s, kind(TEAREC_STREAM_OBJECT) | LOOP_PC);
    put(s, LOOP_END);
    put(s, 0);
    put(s, strlen(path));
    put_text(s, path, strlen(path));
}

static void code(stream *s, uint64_t pc, const uint8_t *bytes, unsigned len)
{
    uint64_t b[2] = { 0, 0 };
    memcpy(b, bytes, len);
    put(s, kind(TEAREC_STREAM_CODE) | (uint64_t)len << TEAREC_STREAM_SIZE_SHIFT | pc);
    put(s, b[0]);
    put(s, b[1]);
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

static void insn(stream *s, uint64_t pc, unsigned len)
{
    put(s, kind(TEAREC_STREAM_INSN) | (uint64_t)len << TEAREC_STREAM_SIZE_SHIFT | pc);
}

static void mem_access(stream *s, uint64_t k, uint64_t addr, unsigned size)
{
    put(s, kind(k) | (uint64_t)size << TEAREC_STREAM_SIZE_SHIFT | addr);
}

/* `count` loop iterations from iteration `first`: load, add, jne. */
static void iterations(stream *s, unsigned first, unsigned count)
{
    for (unsigned i = first; i < first + count; i++) {
        insn(s, LOOP_PC, 3);
        mem_access(s, TEAREC_STREAM_LOAD, DATA + 8 * i, 8);
        insn(s, LOOP_PC + 3, 3);
        insn(s, LOOP_PC + 6, 2);
    }
}

/* The store after the loop. */
static void store(stream *s)
{
    insn(s, LOOP_PC + 8, 3);
    mem_access(s, TEAREC_STREAM_STORE, OUT_ADDR, 8);
}

static void thread_count(stream *s, uint32_t tid, uint64_t instructions)
{
    put(s, kind(TEAREC_STREAM_THREAD) | tid);
    put(s, instructions);
}

static void stop(stream *s, uint64_t reason, uint32_t threads)
{
    put(s, kind(TEAREC_STREAM_STOP) | (uint64_t)threads << TEAREC_STREAM_STOP_THREADS_SHIFT | reason);
}

/* A session reading `s` from a file. */
static record_session *open_stream(const stream *s, const char *name)
{
    char *path = test_temp_path(name);
    record_session *v;
    int fd;

    test_write_file(path, s->w, s->n * sizeof s->w[0]);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    unlink(path);
    free(path);
    assert_int_equal(record_session_open_fd(&v, fd, "test stream"), TEA_OK);
    return v;
}

/* The notes the driver gave. */
typedef struct notes {
    record_run_note last[8];
    char paths[8][64], nexts[8][64];
    size_t count;
} notes;

static void keep_note(void *ctx, const record_run_note *n)
{
    notes *log = ctx;
    assert_true(log->count < 8);
    log->last[log->count] = *n;
    snprintf(log->paths[log->count], sizeof log->paths[0], "%s", n->path ? n->path : "");
    snprintf(log->nexts[log->count], sizeof log->nexts[0], "%s", n->next ? n->next : "");
    log->count++;
}

/* Options for a stream recorded into `out` (quiet, default model). */
static void options(record_run_options *o, const char *out, notes *log)
{
    memset(o, 0, sizeof *o);
    o->out_path = out;
    o->write.format = TRACE_FORMAT_NATIVE;
    model_config_defaults(&o->model);
    o->generator = "test_record_run";
    o->command_line = "test_record_run";
    o->command = "test";
    o->progress = PROGRESS_OFF;
    o->note = keep_note;
    o->note_ctx = log;
}

/* The records the core model makes of stream `s` with the options' model:
 * the reference a recording must hold. */
typedef struct reference {
    test_stream records;
} reference;

static int keep_batch(void *ctx, const trace_batch *b)
{
    test_stream *t = ctx;
    for (size_t i = 0; i < b->count; i++)
        test_stream_append(t, &b->records[i], &b->uops[b->records[i].first_uop]);
    return TEA_OK;
}

static void model_reference(const stream *s, const model_config *cfg, test_stream *out)
{
    record_session *v = open_stream(s, "reference");
    model_source src = record_session_source(v);
    model_core *m;

    test_stream_init(out);
    assert_int_equal(model_core_create(&m, cfg, &src), TEA_OK);
    assert_int_equal(model_core_run(m, 0, 0, keep_batch, out), TEA_OK);
    model_core_free(m);
    record_session_close(v);
}

/* The µops the records commit. */
static uint64_t committed(const test_stream *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->records[i].n_commit;
    return n;
}

/* A whole program of two threads: the trace holds the model's records of
 * its 3 x 40 + 1 instructions, its object and its threads. */
static void whole_program(void **state)
{
    char *out = test_temp_path("whole.tea"), *prog = test_temp_path("prog");
    stream s = { .n = 0 };
    record_run_options o;
    record_run run;
    record_run_share share;
    notes log = { .count = 0 };
    test_stream got, want;
    trace_reader *r;
    const trace_object *objs;
    const trace_run *facts;
    size_t count;
    uint32_t tid, seen;
    char text[RECORD_RUN_THREADS_TEXT];
    size_t len = 0;
    (void)state;

    test_write_file(prog, "not an ELF file\n", 16); /* the EXE's file: found among the objects */
    exe(&s, prog);
    object(&s, prog);
    loop_code(&s);
    iterations(&s, 0, ITERATIONS);
    store(&s);
    thread_count(&s, 1, 121);
    thread_count(&s, 2, 500);
    stop(&s, TEAREC_STREAM_STOP_EXIT, 2);

    options(&o, out, &log);
    assert_int_equal(record_run_stream(&o, open_stream(&s, "whole"), &run), TEA_OK);
    assert_int_equal(run.instructions, LOOP_INSNS * ITERATIONS + 1);
    assert_int_equal(run.model.instructions, LOOP_INSNS * ITERATIONS + 1);
    assert_int_equal(run.session.stop, RECORD_SESSION_STOP_EXIT);
    assert_true(run.session.static_insns >= 4); /* the loop, and the wrong paths fetched */
    assert_int_equal(run.session.objects, 1);
    assert_int_equal(run.status, 0);
    assert_int_equal(run.tid, 1);
    assert_int_equal(run.thread_count, 2);
    assert_int_equal(log.count, 0);
    /* thread 2 ran 500 of 621 instructions: the warning's figures */
    assert_int_equal(record_run_thread_share(&run, &share), 1);
    assert_int_equal(share.all, 621);
    assert_int_equal(share.recorded, 121);
    assert_int_equal(share.busiest, 2);
    assert_int_equal(share.busiest_instructions, 500);
    assert_int_equal(share.others, 1);
    record_run_describe_threads(&run, text, sizeof text, &len);
    assert_string_equal(text, "1 (recorded) 121, 2 500 instructions");
    assert_string_equal(record_run_stop_reason(run.session.stop), "recorded to the program's end");
    record_run_finish(&run);
    assert_int_equal(run.child_count, 0);
    record_run_free(&run);

    /* the records: the model's of the same stream, every instruction committed */
    model_reference(&s, &o.model, &want);
    test_stream_init(&got);
    assert_int_equal(test_stream_read(out, NULL, &got), 0);
    assert_streams_equal(&got, &want);
    assert_int_equal(committed(&got), LOOP_INSNS * ITERATIONS + 1);
    assert_string_equal(got.header.program.binary_path, prog);
    assert_string_equal(got.header.program.arch, "x86_64");
    assert_int_equal(got.header.va_bits, 48);
    assert_string_equal(got.header.generator, "test_record_run");
    assert_int_equal(got.header.commit_width, o.model.core.width);

    /* the objects, the thread and the run's facts */
    assert_int_equal(trace_reader_open(&r, out, NULL), 0);
    assert_int_equal(trace_reader_objects(r, &objs, &count), 0);
    assert_int_equal(count, 1);
    assert_string_equal(objs[0].path, prog);
    assert_int_equal(objs[0].start, LOOP_PC);
    assert_int_equal(objs[0].end, LOOP_END);
    assert_int_equal(objs[0].build_id_len, 0);
    assert_int_equal(objs[0].load_bias, 0);
    assert_int_equal(trace_reader_thread(r, &tid, &seen), 0);
    assert_int_equal(tid, 1);
    assert_int_equal(seen, 2);
    assert_int_equal(trace_reader_run(r, &facts), 0);
    assert_int_equal(facts->exec_count, 0);
    assert_true(facts->has_exit_status);
    assert_int_equal(facts->exit_status, 0);
    assert_int_equal(facts->interrupted, 0);
    assert_int_equal(facts->sampling.every, 0);
    assert_int_equal(facts->thread_count, 2);
    assert_int_equal(facts->threads[0].tid, 1);
    assert_int_equal(facts->threads[0].instructions, 121);
    assert_int_equal(facts->threads[1].tid, 2);
    assert_int_equal(facts->threads[1].instructions, 500);
    trace_reader_close(r);

    test_stream_free(&got);
    test_stream_free(&want);
    unlink(out);
    unlink(prog);
    free(out);
    free(prog);
}

/* An exec after 5 instructions: they are dropped, the program left is
 * listed with them and noted; the trace holds the next program's 7. */
static void exec_followed(void **state)
{
    char *out = test_temp_path("exec.tea");
    stream s = { .n = 0 }, second = { .n = 0 };
    record_run_options o;
    record_run run;
    notes log = { .count = 0 };
    test_stream got, want;
    trace_reader *r;
    const trace_run *facts;
    (void)state;

    exe(&s, "/bin/sh");
    loop_code(&s);
    iterations(&s, 0, 1);
    insn(&s, LOOP_PC, 3);
    insn(&s, LOOP_PC + 3, 3);
    exe(&s, "/usr/bin/true");
    loop_code(&second);
    iterations(&second, 0, 2);
    store(&second);
    stop(&second, TEAREC_STREAM_STOP_EXIT, 1);
    for (size_t i = 0; i < second.n; i++)
        put(&s, second.w[i]);

    options(&o, out, &log);
    assert_int_equal(record_run_stream(&o, open_stream(&s, "exec"), &run), TEA_OK);
    assert_int_equal(run.instructions, 2 * LOOP_INSNS + 1);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.last[0].kind, RECORD_RUN_NOTE_EXEC);
    assert_int_equal(log.last[0].pid, 0);
    assert_string_equal(log.paths[0], "/bin/sh");
    assert_string_equal(log.nexts[0], "/usr/bin/true");
    assert_int_equal(log.last[0].instructions, LOOP_INSNS + 2);
    assert_int_equal(run.thread_count, 0); /* no THREAD records */
    record_run_free(&run);

    /* the records: the second program's alone */
    model_reference(&second, &o.model, &want);
    test_stream_init(&got);
    assert_int_equal(test_stream_read(out, NULL, &got), 0);
    assert_streams_equal(&got, &want);
    assert_int_equal(committed(&got), 2 * LOOP_INSNS + 1);
    assert_int_equal(trace_reader_open(&r, out, NULL), 0);
    assert_int_equal(trace_reader_run(r, &facts), 0);
    assert_int_equal(facts->exec_count, 1);
    assert_string_equal(facts->execs[0].path, "/bin/sh");
    assert_int_equal(facts->execs[0].instructions, LOOP_INSNS + 2);
    assert_int_equal(facts->thread_count, 0);
    trace_reader_close(r);

    test_stream_free(&got);
    test_stream_free(&want);
    unlink(out);
    free(out);
}

/* A sampled stream of three windows of one iteration each: two WINDOW
 * records end the first two, the trace's end the third. */
static void sampled_windows(void **state)
{
    char *out = test_temp_path("sampled.tea");
    stream s = { .n = 0 };
    record_run_options o;
    record_run run;
    notes log = { .count = 0 };
    test_stream got;
    trace_reader *r;
    const trace_run *facts;
    (void)state;

    loop_code(&s);
    iterations(&s, 0, 1);
    put(&s, kind(TEAREC_STREAM_WINDOW) | 1);
    iterations(&s, 1, 1);
    put(&s, kind(TEAREC_STREAM_WINDOW) | 2);
    iterations(&s, 2, 1);
    stop(&s, TEAREC_STREAM_STOP_EXIT, 1);

    options(&o, out, &log);
    o.session.sample_every = 1000;
    o.session.sample_length = LOOP_INSNS;
    o.session.warmup = 10;
    assert_int_equal(record_run_stream(&o, open_stream(&s, "sampled"), &run), TEA_OK);
    assert_int_equal(run.instructions, 3 * LOOP_INSNS);
    assert_int_equal(run.session.windows, 2);
    record_run_free(&run);

    test_stream_init(&got);
    assert_int_equal(test_stream_read(out, NULL, &got), 0);
    assert_int_equal(committed(&got), 3 * LOOP_INSNS);
    assert_int_equal(trace_reader_open(&r, out, NULL), 0);
    assert_int_equal(trace_reader_run(r, &facts), 0);
    assert_int_equal(facts->sampling.every, 1000);
    assert_int_equal(facts->sampling.length, LOOP_INSNS);
    assert_int_equal(facts->sampling.warmup, 10);
    assert_int_equal(facts->sampling.window_count, 3);
    assert_true(facts->sampling.window_ends[0] < facts->sampling.window_ends[1]);
    assert_true(facts->sampling.window_ends[1] < facts->sampling.window_ends[2]);
    assert_int_equal(facts->sampling.window_ends[2], got.records[got.count - 1].cycle);
    assert_null(facts->sampling.window_weights);
    trace_reader_close(r);

    test_stream_free(&got);
    unlink(out);
    free(out);
}

/* SimPoint's regions at intervals 0 and 3 of 10 instructions, weights 0.2
 * and 0.8: the COUNT record's 95 instructions are 10 intervals, so the
 * windows stand for round(0.2 x 10) = 2 and round(0.8 x 10) = 8. */
static void simpoint_weights(void **state)
{
    char *out = test_temp_path("simpoint.tea");
    stream s = { .n = 0 };
    record_simpoint regions[2] = { { 0, 0, 0.2, 0 }, { 3, 1, 0.8, 0 } };
    record_simpoint_list list = { .regions = regions, .count = 2 };
    const uint64_t starts[2] = { 0, 30 };
    record_run_options o;
    record_run run;
    notes log = { .count = 0 };
    trace_reader *r;
    const trace_run *facts;
    (void)state;

    loop_code(&s);
    iterations(&s, 0, 1);
    put(&s, kind(TEAREC_STREAM_WINDOW) | 1);
    iterations(&s, 10, 1);
    put(&s, kind(TEAREC_STREAM_COUNT) | 95);
    stop(&s, TEAREC_STREAM_STOP_EXIT, 1);

    options(&o, out, &log);
    o.session.sample_length = LOOP_INSNS;
    o.session.sample_starts = starts;
    o.session.sample_start_count = 2;
    o.simpoints = &list;
    o.simpoint_interval = 10;
    assert_int_equal(record_run_stream(&o, open_stream(&s, "simpoint"), &run), TEA_OK);
    assert_int_equal(log.count, 0); /* every region ran, the count is known */
    record_run_free(&run);

    assert_int_equal(trace_reader_open(&r, out, NULL), 0);
    assert_int_equal(trace_reader_run(r, &facts), 0);
    assert_int_equal(facts->sampling.every, 10);
    assert_int_equal(facts->sampling.length, LOOP_INSNS);
    assert_int_equal(facts->sampling.window_count, 2);
    assert_int_equal(facts->sampling.window_starts[0], 0);
    assert_int_equal(facts->sampling.window_starts[1], 30);
    assert_int_equal(facts->sampling.window_weights[0], 2);
    assert_int_equal(facts->sampling.window_weights[1], 8);
    trace_reader_close(r);
    unlink(out);
    free(out);
}

/* A stream whose recorded thread never ran: no trace, and the error names
 * the thread that ran and --thread. */
static void nothing_recorded(void **state)
{
    char *out = test_temp_path("nothing.tea");
    stream s = { .n = 0 };
    record_run_options o;
    record_run run;
    notes log = { .count = 0 };
    (void)state;

    thread_count(&s, 2, 500);
    stop(&s, TEAREC_STREAM_STOP_EXIT, 2);
    options(&o, out, &log);
    assert_int_equal(record_run_stream(&o, open_stream(&s, "nothing"), &run), TEA_ERR_IO);
    assert_string_equal(error_message(), "no instruction was recorded (recorded to the program's end); thread 1 "
                                         "never ran (threads that ran: 2 500 instructions; --thread 2 records "
                                         "thread 2, which ran most)");
    record_run_free(&run);
    assert_int_equal(access(out, F_OK), -1); /* nothing written */
    free(out);
}

/* A stream's head as every thread's starts: the program, its object, the
 * loop's code. */
static void program_head(stream *s, const char *prog)
{
    exe(s, prog);
    object(s, prog);
    loop_code(s);
}

static void switch_to(stream *s, uint32_t tid)
{
    put(s, kind(TEAREC_STREAM_SWITCH) | tid);
}

/* Several threads (session.threads): a stream of two threads' records
 * interleaved (SWITCH records) is split, and each thread's trace holds
 * exactly the model's records of that thread's instructions alone, with
 * its own number as the recorded thread, the program's thread counts and
 * exit status; the directory holds the two traces and nothing else. */
static void threads_split(void **state)
{
    char *dir = test_temp_path("threads.tea"), *prog = test_temp_path("tprog");
    stream s = { .n = 0 }, alone[2] = { { .n = 0 }, { .n = 0 } };
    record_run_options o;
    record_run run;
    notes log = { .count = 0 };
    (void)state;

    test_write_file(prog, "not an ELF file\n", 16);
    program_head(&s, prog);
    iterations(&s, 0, 10);            /* thread 1 until the first SWITCH */
    switch_to(&s, 2);
    iterations(&s, 0, 20);
    switch_to(&s, 1);
    iterations(&s, 10, 30);
    store(&s);
    switch_to(&s, 2);
    iterations(&s, 20, 20);
    for (int t = 0; t < 2; t++) {
        program_head(&alone[t], prog);
        iterations(&alone[t], 0, 40);
        if (t == 0)
            store(&alone[t]);
    }
    for (int t = 0; t < 3; t++) {
        stream *x = t == 2 ? &s : &alone[t];
        thread_count(x, 1, 121);
        thread_count(x, 2, 120);
        stop(x, TEAREC_STREAM_STOP_EXIT, 2);
    }

    options(&o, dir, &log);
    o.session.threads = "all";
    assert_int_equal(record_run_stream(&o, open_stream(&s, "threads"), &run), TEA_OK);
    assert_int_equal(run.recorded_count, 2);
    assert_int_equal(run.instructions, 121 + 120);
    assert_int_equal(run.status, 0);
    for (size_t k = 0; k < run.recorded_count; k++) {
        const record_run_thread *t = &run.recorded[k];
        char want_path[512];
        test_stream got, want;
        trace_reader *r;
        const trace_run *facts;
        uint32_t tid, seen;

        assert_int_equal(t->tid, k + 1);
        assert_int_equal(t->rc, 0);
        assert_int_equal(t->instructions, k == 0 ? 121 : 120);
        snprintf(want_path, sizeof want_path, "%s/thread-%zu.tea", dir, k + 1);
        assert_string_equal(t->out_path, want_path);
        model_reference(&alone[k], &o.model, &want);
        test_stream_init(&got);
        assert_int_equal(test_stream_read(t->out_path, NULL, &got), 0);
        assert_streams_equal(&got, &want);
        assert_int_equal(trace_reader_open(&r, t->out_path, NULL), 0);
        assert_int_equal(trace_reader_thread(r, &tid, &seen), 0);
        assert_int_equal(tid, k + 1);
        assert_int_equal(seen, 2);
        assert_int_equal(trace_reader_run(r, &facts), 0);
        assert_true(facts->has_exit_status);
        assert_int_equal(facts->thread_count, 2);
        trace_reader_close(r);
        test_stream_free(&got);
        test_stream_free(&want);
        unlink(t->out_path);
    }
    record_run_finish(&run);
    record_run_free(&run);
    assert_int_equal(rmdir(dir), 0); /* nothing else in it */
    unlink(prog);
    free(dir);
    free(prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_program),
        cmocka_unit_test(exec_followed),
        cmocka_unit_test(sampled_windows),
        cmocka_unit_test(simpoint_weights),
        cmocka_unit_test(nothing_recorded),
        cmocka_unit_test(threads_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
