/*
 * info.c: what `tea info` says of a trace, read in one pass (the golden
 * reference's commit states, the totals, a sampled run's windows) and
 * written as key/value text lines (emit_field) or one JSON object.
 */
#include "info.h"

#include "common/emit.h"
#include "common/error.h"
#include "common/json.h"
#include "golden/golden.h"
#include "pics/pics_file.h"
#include "trace/frames.h"
#include "trace/estimate.h"

#include <assert.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses above this are 128 + a signal, as shells report them. */
#define INFO_SIGNAL_STATUS 128
#define NS_PER_S 1e9

static void add_warning(view_info *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_warning(view_info *rep, const char *fmt, ...)
{
    va_list ap;
    if (rep->warning_count >= VIEW_INFO_MAX_WARNINGS)
        return;
    va_start(ap, fmt);
    vsnprintf(rep->warnings[rep->warning_count++], VIEW_INFO_WARNING_SIZE, fmt, ap);
    va_end(ap);
}

/* Copies the reader's objects and thread into the report (read at the end,
 * so that a trace from a pipe shows them too). */
static int copy_objects(view_info *rep, trace_reader *reader)
{
    const trace_object *objs;
    const trace_run *run;
    size_t count;
    int rc;

    if ((rc = trace_reader_objects(reader, &objs, &count))
        || (rc = trace_reader_thread(reader, &rep->objects.tid, &rep->objects.threads_seen))
        || (rc = trace_reader_run(reader, &run)) || (rc = trace_object_list_set_run(&rep->objects, run)))
        return rc;
    for (size_t i = 0; i < count; i++)
        if ((rc = trace_object_list_add(&rep->objects, &objs[i])))
            return rc;
    return TEA_OK;
}

/* The records a native trace file's index lists: the progress line's
 * total. 0 (unknown) where there is no index to read: standard input, a
 * pipe, a TraceDoctor trace, a damaged file (the scan says what is wrong). */
uint64_t view_info_indexed_records(const char *path)
{
    trace_frames *f = NULL;
    uint64_t total = 0;
    size_t count;

    if (trace_frames_open(&f, path))
        return 0;
    if ((count = trace_frames_count(f))) {
        const trace_frame_info *last = trace_frames_info(f, count - 1);
        total = last->first_record + last->records;
    }
    trace_frames_close(f);
    return total;
}

/* Reads the whole trace once, classifying every cycle; `meter` counts the
 * records read. */
static int scan_trace(view_info *rep, const trace_open_options *opts, progress_meter *meter)
{
    trace_reader *reader = NULL;
    trace_batch batch = { 0 };
    trace_estimate_counter counter = { 0 };
    golden g;
    uint64_t records = 0;
    int rc;

    if ((rc = trace_reader_open(&reader, rep->path, opts)))
        return rc;
    if ((rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    golden_init(&g, trace_reader_header(reader)->initial_window);
    /* a file's windows are known at open: count each one's commits */
    if ((rc = trace_estimate_counter_open(&counter, reader, &rep->window_insns)))
        goto done;
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        records += batch.count;
        progress_update(meter, records);
        if (counter.insns)
            trace_estimate_count(&counter, &batch);
        for (size_t i = 0; i < batch.count; i++)
            rep->commit_exceptions += batch.records[i].n_commit > 0 && (batch.records[i].flags & TRACE_REC_EXCEPTION);
        golden_feed(&g, &batch, NULL);
    }
    golden_finish(&g, NULL);
    rep->golden = *golden_get_totals(&g);
    rep->totals = *trace_reader_totals(reader);
    rep->stats = *trace_reader_stats(reader);
    if ((rc = copy_objects(rep, reader)))
        goto done;
    rc = trace_header_copy(&rep->header, trace_reader_header(reader));
done:
    trace_batch_free(&batch);
    trace_reader_close(reader);
    return rc;
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Whether the trace is one thread's of a recording of several
 * (OUT/thread-N.tea, N its recorded thread), where the others were
 * recorded too. */
static int is_programs_thread(const view_info *rep)
{
    const char *slash = rep->path ? strrchr(rep->path, '/') : NULL;
    uint32_t tid;
    return slash && trace_thread_file(slash + 1, &tid) && tid == rep->objects.tid;
}

/* The instructions a recording's threads ran (`run`'s), each thread's
 * part and whether it was recorded: the recorded thread, when it ran
 * under half of them, warns naming the thread that ran most (not a
 * thread of a recording of several: tea info DIR lists them all). */
static void warn_thread_share(view_info *rep)
{
    const trace_run *run = &rep->objects.run;
    uint32_t tid = rep->objects.tid, busiest;
    uint64_t all, mine;

    trace_threads_sum(run->threads, run->thread_count, tid, &all, &mine, &busiest);
    if (run->thread_count < 2 || !mine || mine >= all - mine || busiest == tid || is_programs_thread(rep))
        return;
    for (size_t i = 0; i < run->thread_count; i++)
        if (run->threads[i].tid == busiest)
            add_warning(rep, "the recorded thread %lu ran %.3g %% of the program's %llu instructions; thread %lu ran "
                             "%.3g %% (tea record --thread %lu records it)",
                        (unsigned long)tid, percent(mine, all), (unsigned long long)all, (unsigned long)busiest,
                        percent(run->threads[i].instructions, all), (unsigned long)busiest);
}

/* Warnings of what the scan found: lost ST-LLC, a wrapped counter,
 * resynchronized indices, exceptions in commit cycles, unattributed
 * cycles, a recorded thread that ran little of the program. */
static void collect_warnings(view_info *rep)
{
    if (rep->stats.notes.flags & TRACE_NOTE_ST_LLC_UNAVAILABLE)
        add_warning(rep, "every memlat is 0: ST-LLC cannot be derived (%llu L1 misses show as ST-L1 only)",
                    (unsigned long long)rep->totals.events[TRACE_PSV_ST_L1]);
    if (rep->stats.notes.counter_wraps)
        add_warning(rep, "the 44-bit TraceDoctor cycle counter wrapped %llu time(s); cycles were unwrapped",
                    (unsigned long long)rep->stats.notes.counter_wraps);
    if (rep->stats.index_resyncs)
        add_warning(rep, "%llu token(s) had ROB head/tail indices that disagree with the commits; dispatch "
                         "and squash counts (IBS, SPE, RIS) are approximate",
                    (unsigned long long)rep->stats.index_resyncs);
    if (rep->commit_exceptions)
        add_warning(rep, "%llu record(s) commit and except in the same cycle, which BOOM never does: the "
                         "excepting µop is the first valid one after the commits; the default golden rules make "
                         "it the flush cause, --golden-rules tracedoctor ignores it (docs/semantics.md)",
                    (unsigned long long)rep->commit_exceptions);
    if (rep->golden.unattributed)
        add_warning(rep, "%llu cycle(s) after the last commit cannot be attributed",
                    (unsigned long long)rep->golden.unattributed);
    warn_thread_share(rep);
}

int view_info_read(view_info *rep, const char *path, const trace_open_options *opts, progress_meter *meter)
{
    int rc;

    memset(rep, 0, sizeof *rep);
    trace_header_init(&rep->header);
    rep->path = path;
    if ((rc = scan_trace(rep, opts, meter))) {
        view_info_free(rep);
        return rc;
    }
    collect_warnings(rep);
    assert(rep->warning_count <= VIEW_INFO_MAX_WARNINGS);
    return TEA_OK;
}

void view_info_free(view_info *rep)
{
    trace_header_free(&rep->header);
    trace_object_list_free(&rep->objects);
    free(rep->window_insns);
    rep->window_insns = NULL;
}

/* The name of a signal that interrupts a recording. */
static const char *signal_name(uint32_t sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* What a recorder knew of the run: the programs before the traced one, an
 * interrupt, the program's exit status, the region's time and rate, and a
 * sampled recording's windows with their estimate of the whole run. */
static void print_run(FILE *f, const trace_run *run, const trace_totals *t, const uint64_t *window_insns)
{
    if (run->exec_count) {
        emit_field_label(f, "programs");
        for (size_t i = 0; i < run->exec_count; i++)
            fprintf(f, "%s (%llu instructions dropped) -> ", run->execs[i].path,
                    (unsigned long long)run->execs[i].instructions);
        fprintf(f, "the binary below (traced)\n");
    }
    if (run->interrupted)
        emit_field(f, "recording", "interrupted by %s (the trace holds what was recorded until then)",
               signal_name(run->interrupted));
    if (run->has_exit_status)
        emit_field(f, "exit status", "%u%s", (unsigned)run->exit_status,
               run->exit_status > INFO_SIGNAL_STATUS ? " (killed by a signal)" : "");
    if (run->region_ns)
        emit_field(f, "region time", "%.3f s, %.2f M instructions/s", (double)run->region_ns / NS_PER_S,
               (double)t->commits / ((double)run->region_ns / NS_PER_S) / 1e6);
    if (run->context_count > 1) {
        uint32_t deepest = 0;
        for (uint32_t i = 0; i < run->context_count; i++)
            if (run->contexts[i].depth > deepest)
                deepest = run->contexts[i].depth;
        emit_field(f, "call paths", "%u calling contexts, the deepest %u calls below the root (tea replay keys its "
                                    "PICS by them; --flat drops them)",
                   run->context_count - 1, deepest);
    }
    if (run->stack_windows) {
        size_t unwound = 0;
        for (size_t w = 0; w < run->stack_windows; w++)
            unwound += run->stack_counts[w] > 0;
        emit_field(f, "window stacks", "%zu of %zu sampled windows start from the stack the recording unwound "
                                       "(tea replay --call-paths starts them there)",
                   unwound, run->stack_windows);
    }
    if (run->sampling.every) {
        const trace_sampling *s = &run->sampling;
        trace_estimate e;
        trace_estimate_run(&e, s, t, window_insns);
        if (trace_sampling_weighted(s)) {
            emit_field(f, "sampled", "%zu SimPoint regions of %llu instructions (%llu of warm-up at most), in "
                                     "intervals of %llu;",
                       s->window_count, (unsigned long long)s->length, (unsigned long long)s->warmup,
                       (unsigned long long)s->every);
            emit_field(f, NULL, "they stand for %.0f intervals (weights %llu to %llu)", e.periods,
                       (unsigned long long)e.lightest,
                       (unsigned long long)e.heaviest);
        } else {
            emit_field(f, "sampled", "%zu windows of %llu instructions, one every %llu (%llu of warm-up each);",
                       s->window_count, (unsigned long long)s->length, (unsigned long long)s->every,
                       (unsigned long long)s->warmup);
            emit_field(f, NULL, "each cycle stands for %.6g", (double)s->every / (double)s->length);
        }
        emit_field_label(f, "estimate");
        fprintf(f, "%.6g cycles for %.6g instructions (%s)", e.cycles, e.instructions,
                trace_sampling_weighted(s) ? "the regions' commits scaled to the intervals they stand for"
                                           : "the windows' periods");
        if (!isnan(e.half))
            fprintf(f, " +- %.3g (95 %%, Student's t over the windows)", e.half);
        fprintf(f, "\n");
    }
}

/* `n` values as a JSON array, or null when `values` is NULL. */
static void json_u64_array(json_writer *j, const uint64_t *values, size_t n)
{
    if (!values) {
        json_null(j);
        return;
    }
    json_begin_array(j);
    for (size_t k = 0; k < n; k++)
        json_u64(j, values[k]);
    json_end(j);
}

/* The run's facts as JSON ("run": null when the trace has none). */
static void json_run(json_writer *j, const trace_run *run, const trace_totals *t, const uint64_t *window_insns)
{
    json_key(j, "run");
    if (!trace_run_present(run)) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_key(j, "programs_before");
    json_begin_array(j);
    for (size_t i = 0; i < run->exec_count; i++) {
        json_begin_object(j);
        json_key(j, "path");
        json_string(j, run->execs[i].path);
        json_key(j, "instructions");
        json_u64(j, run->execs[i].instructions);
        json_end(j);
    }
    json_end(j);
    json_key(j, "interrupted");
    json_string(j, run->interrupted ? signal_name(run->interrupted) : NULL);
    json_key(j, "exit_status");
    if (run->has_exit_status)
        json_u64(j, run->exit_status);
    else
        json_null(j);
    json_key(j, "region_ns");
    if (run->region_ns)
        json_u64(j, run->region_ns);
    else
        json_null(j);
    /* the record summary a script reads: the region's own rate and the IPC */
    json_key(j, "instructions_per_second");
    if (run->region_ns)
        json_double(j, (double)t->commits / ((double)run->region_ns / NS_PER_S));
    else
        json_null(j);
    json_key(j, "ipc");
    if (t->last_cycle > t->first_cycle)
        json_double(j, (double)t->commits / (double)(t->last_cycle - t->first_cycle));
    else
        json_null(j);
    json_key(j, "threads"); /* the threads that ran, when the trace lists them */
    if (run->thread_count) {
        json_begin_array(j);
        for (size_t i = 0; i < run->thread_count; i++) {
            json_begin_object(j);
            json_key(j, "id");
            json_u64(j, run->threads[i].tid);
            json_key(j, "instructions");
            json_u64(j, run->threads[i].instructions);
            json_end(j);
        }
        json_end(j);
    } else {
        json_null(j);
    }
    json_key(j, "calling_contexts"); /* tea record --call-paths: the contexts below the root */
    if (run->context_count > 1)
        json_u64(j, run->context_count - 1);
    else
        json_null(j);
    json_key(j, "window_stacks"); /* the sampled windows whose stack the trace keeps */
    if (run->stack_windows)
        json_u64(j, run->stack_windows);
    else
        json_null(j);
    json_key(j, "sampling");
    if (run->sampling.every) {
        const trace_sampling *s = &run->sampling;
        trace_estimate e;
        trace_estimate_run(&e, s, t, window_insns);
        json_begin_object(j);
        json_key(j, "every");
        json_u64(j, s->every);
        json_key(j, "length");
        json_u64(j, s->length);
        json_key(j, "warmup");
        json_u64(j, s->warmup);
        json_key(j, "windows");
        json_u64(j, s->window_count);
        json_key(j, "window_starts"); /* weighted (SimPoint) windows: where each starts, what it stands for */
        json_u64_array(j, s->window_starts, s->window_count);
        json_key(j, "window_weights");
        json_u64_array(j, s->window_weights, s->window_count);
        json_key(j, "estimated_cycles");
        json_double(j, e.cycles);
        json_key(j, "estimated_cycles_ci95");
        if (isnan(e.half))
            json_null(j);
        else
            json_double(j, e.half);
        json_end(j);
    } else {
        json_null(j);
    }
    json_end(j);
}

/* The threads that ran and their instructions, when the trace lists
 * them (tea record, for a program of several threads). */
static void print_threads(FILE *f, const trace_object_list *l)
{
    const trace_run *run = &l->run;
    uint64_t all, mine;
    uint32_t busiest;

    if (!run->thread_count)
        return;
    trace_threads_sum(run->threads, run->thread_count, l->tid, &all, &mine, &busiest);
    emit_field(f, "threads ran", "%zu, %llu instructions in all (from the program's start until recording stopped)",
           run->thread_count, (unsigned long long)all);
    for (size_t i = 0; i < run->thread_count; i++)
        fprintf(f, "  %lu%s: %llu instructions (%.3g %%)\n", (unsigned long)run->threads[i].tid,
               run->threads[i].tid == l->tid ? " (recorded)" : "", (unsigned long long)run->threads[i].instructions,
               percent(run->threads[i].instructions, all));
}

void view_info_write_text(FILE *f, const view_info *rep)
{
    const trace_header *h = &rep->header;
    const trace_totals *t = &rep->totals;
    uint64_t span = t->last_cycle - t->first_cycle;

    emit_field(f, "file", "%s", rep->path);
    emit_field(f, "format", "%s (%s, %llu %s, %llu zstd frame%s)", trace_format_name(rep->stats.format),
           rep->stats.compressed ? "zstd" : "raw", (unsigned long long)rep->stats.units,
           rep->stats.format == TRACE_FORMAT_TRACEDOCTOR ? "tokens" : "records",
           (unsigned long long)rep->stats.frames, rep->stats.frames == 1 ? "" : "s");
    emit_field(f, "core", "%u-wide commit, %u-entry ROB, %.4g GHz, %s, %u-bit virtual addresses",
           h->commit_width, h->rob_size, (double)h->clock_hz / 1e9, h->program.arch, h->va_bits);
    emit_field(f, "ST-LLC", "memlat >= %u cycles", h->llc_latency);
    if (h->source_format)
        emit_field(f, "source", "%s", h->source_format);
    if (h->generator)
        emit_field(f, "generator", "%s", h->generator);
    if (h->command_line)
        emit_field(f, "command", "%s", h->command_line);
    if (h->program.binary_path)
        emit_field(f, "binary", "%s", h->program.binary_path);
    if (h->program.build_id)
        emit_field(f, "build-id", "%s", h->program.build_id);
    if (h->program.has_load_bias)
        emit_field(f, "load bias", "0x%llx", (unsigned long long)h->program.load_bias);
    print_run(f, &rep->objects.run, t, rep->window_insns);
    if (rep->objects.threads_seen != TRACE_THREAD_UNKNOWN)
        emit_field(f, "thread", "%lu recorded (%lu thread%s in the program)", (unsigned long)rep->objects.tid,
               (unsigned long)rep->objects.threads_seen, rep->objects.threads_seen == 1 ? "" : "s");
    print_threads(f, &rep->objects);
    if (rep->objects.count)
        emit_field(f, "objects", "%zu executable object%s (range, load bias, build-id, path)", rep->objects.count,
               rep->objects.count == 1 ? "" : "s");
    for (size_t i = 0; i < rep->objects.count; i++) {
        const trace_object *o = &rep->objects.items[i];
        char hex[2 * TRACE_BUILD_ID_MAX + 1];
        trace_object_build_id_hex(o, hex, sizeof hex);
        fprintf(f, "  0x%llx-0x%llx bias 0x%llx build-id %s %s\n", (unsigned long long)o->start,
               (unsigned long long)o->end, (unsigned long long)o->load_bias, hex[0] ? hex : "-", o->path);
    }
    emit_field(f, "cycles", "%llu .. %llu (span %llu)", (unsigned long long)t->first_cycle,
           (unsigned long long)t->last_cycle, (unsigned long long)span);
    emit_field(f, "records", "%llu", (unsigned long long)t->records);
    emit_field(f, "µops", "%llu committed, %llu excepted", (unsigned long long)t->commits,
           (unsigned long long)t->exceptions);
    emit_field(f, "ROB entries", "%llu dispatched, %llu squashed, %llu refills", (unsigned long long)t->dispatched,
           (unsigned long long)t->squashed, (unsigned long long)t->refills);
    emit_field_label(f, "states");
    for (int s = 0; s < GOLDEN_STATE_COUNT; s++)
        fprintf(f, "%s %llu (%.1f%%)%s", golden_state_name((enum golden_state)s),
                (unsigned long long)rep->golden.states[s], percent(rep->golden.states[s], span),
                s + 1 < GOLDEN_STATE_COUNT ? ", " : "\n");
    emit_field(f, "attributed", "%llu cycles (%llu unattributed)", (unsigned long long)rep->golden.attributed,
           (unsigned long long)rep->golden.unattributed);
    emit_field_label(f, "events");
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++)
        fprintf(f, "%s %llu%s", trace_psv_event_name((enum trace_psv_event)e), (unsigned long long)t->events[e],
                e + 1 < TRACE_PSV_EVENT_COUNT ? ", " : "\n");
    for (int i = 0; i < rep->warning_count; i++)
        emit_field(f, "warning", "%s", rep->warnings[i]);
}

void view_info_write_json(FILE *f, const view_info *rep)
{
    const trace_header *h = &rep->header;
    const trace_totals *t = &rep->totals;
    json_writer j;

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "file");
    json_string(&j, rep->path);
    json_key(&j, "format");
    json_string(&j, trace_format_name(rep->stats.format));
    json_key(&j, "compressed");
    json_bool(&j, rep->stats.compressed);
    json_key(&j, rep->stats.format == TRACE_FORMAT_TRACEDOCTOR ? "tokens" : "records_stored");
    json_u64(&j, rep->stats.units);
    json_key(&j, "frames");
    json_u64(&j, rep->stats.frames);
    json_key(&j, "header");
    json_begin_object(&j);
    json_key(&j, "commit_width");
    json_u64(&j, h->commit_width);
    json_key(&j, "rob_size");
    json_u64(&j, h->rob_size);
    json_key(&j, "clock_hz");
    json_u64(&j, h->clock_hz);
    json_key(&j, "arch");
    json_string(&j, h->program.arch);
    json_key(&j, "va_bits");
    json_u64(&j, h->va_bits);
    json_key(&j, "llc_latency");
    json_u64(&j, h->llc_latency);
    json_key(&j, "initial_rob_entries");
    json_u64(&j, h->initial_window);
    json_key(&j, "source_format");
    json_string(&j, h->source_format);
    json_key(&j, "generator");
    json_string(&j, h->generator);
    json_key(&j, "command_line");
    json_string(&j, h->command_line);
    json_key(&j, "binary_path");
    json_string(&j, h->program.binary_path);
    json_key(&j, "build_id");
    json_string(&j, h->program.build_id);
    json_key(&j, "load_bias");
    if (h->program.has_load_bias)
        json_u64(&j, h->program.load_bias);
    else
        json_null(&j);
    json_end(&j);
    pics_json_objects(&j, &rep->objects);
    json_run(&j, &rep->objects.run, t, rep->window_insns);
    json_key(&j, "first_cycle");
    json_u64(&j, t->first_cycle);
    json_key(&j, "last_cycle");
    json_u64(&j, t->last_cycle);
    json_key(&j, "cycles");
    json_u64(&j, t->last_cycle - t->first_cycle);
    json_key(&j, "records");
    json_u64(&j, t->records);
    json_key(&j, "commits");
    json_u64(&j, t->commits);
    json_key(&j, "exceptions");
    json_u64(&j, t->exceptions);
    json_key(&j, "dispatched");
    json_u64(&j, t->dispatched);
    json_key(&j, "squashed");
    json_u64(&j, t->squashed);
    json_key(&j, "refills");
    json_u64(&j, t->refills);
    json_key(&j, "states");
    json_begin_object(&j);
    for (int s = 0; s < GOLDEN_STATE_COUNT; s++) {
        json_key(&j, golden_state_name((enum golden_state)s));
        json_u64(&j, rep->golden.states[s]);
    }
    json_end(&j);
    json_key(&j, "attributed_cycles");
    json_u64(&j, rep->golden.attributed);
    json_key(&j, "unattributed_cycles");
    json_u64(&j, rep->golden.unattributed);
    json_key(&j, "events");
    json_begin_object(&j);
    for (int e = 0; e < TRACE_PSV_EVENT_COUNT; e++) {
        json_key(&j, trace_psv_event_name((enum trace_psv_event)e));
        json_u64(&j, t->events[e]);
    }
    json_end(&j);
    json_key(&j, "counter_wraps");
    json_u64(&j, rep->stats.notes.counter_wraps);
    json_key(&j, "warnings");
    json_begin_array(&j);
    for (int i = 0; i < rep->warning_count; i++)
        json_string(&j, rep->warnings[i]);
    json_end(&j);
    json_end(&j);
    json_finish(&j);
}


/* A core's cycles (its span) and IPC. */
static uint64_t core_cycles(const view_info *c)
{
    return c->totals.last_cycle - c->totals.first_cycle;
}

static double core_ipc(uint64_t commits, uint64_t cycles)
{
    return cycles ? (double)commits / (double)cycles : 0.0;
}

/* A sampled core's estimate of its whole run (trace_estimate_run); 0
 * when the core's trace is not sampled. */
static int core_estimate(const view_info *c, trace_estimate *e)
{
    if (!c->objects.run.sampling.every)
        return 0;
    trace_estimate_run(e, &c->objects.run.sampling, &c->totals, c->window_insns);
    return 1;
}

void view_info_write_program_text(FILE *f, const char *name, const view_info *cores, size_t count)
{
    uint64_t commits = 0, cycles = 0;
    double run_cycles = 0, run_insns = 0, half2 = 0;
    size_t sampled = 0;

    emit_field(f, "program", "%s, %zu cores (threads or FireSim cores; each a trace of its own)", name, count);
    for (size_t k = 0; k < count; k++) {
        const view_info *c = &cores[k];
        trace_estimate e;
        emit_field_label(f, NULL);
        fprintf(f, "%s", c->path);
        if (c->objects.tid)
            fprintf(f, " (thread %lu)", (unsigned long)c->objects.tid);
        fprintf(f, ": %llu instructions, %llu cycles, IPC %.2f", (unsigned long long)c->totals.commits,
                (unsigned long long)core_cycles(c), core_ipc(c->totals.commits, core_cycles(c)));
        if (core_estimate(c, &e)) {
            fprintf(f, "; the run: %.6g cycles for %.6g instructions", e.cycles, e.instructions);
            run_cycles += e.cycles;
            run_insns += e.instructions;
            half2 += isnan(e.half) ? 0 : e.half * e.half;
            sampled++;
        }
        fputc('\n', f);
        commits += c->totals.commits;
        cycles += core_cycles(c);
    }
    emit_field(f, "in all", "%llu instructions, %llu core-cycles, IPC %.2f per core", (unsigned long long)commits,
               (unsigned long long)cycles, core_ipc(commits, cycles));
    if (sampled == count && count)
        emit_field(f, "estimate", "%.6g core-cycles for %.6g instructions +- %.3g (95 %%; the cores' estimates "
                                  "summed)", run_cycles, run_insns, sqrt(half2));
}

void view_info_write_program_json(FILE *f, const char *name, const view_info *cores, size_t count)
{
    uint64_t commits = 0, cycles = 0;
    json_writer j;

    json_init(&j, f);
    json_begin_object(&j);
    json_key(&j, "program");
    json_string(&j, name);
    json_key(&j, "cores");
    json_begin_array(&j);
    for (size_t k = 0; k < count; k++) {
        const view_info *c = &cores[k];
        json_begin_object(&j);
        json_key(&j, "file");
        json_string(&j, c->path);
        json_key(&j, "thread");
        if (c->objects.tid)
            json_u64(&j, c->objects.tid);
        else
            json_null(&j);
        json_key(&j, "instructions");
        json_u64(&j, c->totals.commits);
        json_key(&j, "cycles");
        json_u64(&j, core_cycles(c));
        json_key(&j, "ipc");
        json_double(&j, core_ipc(c->totals.commits, core_cycles(c)));
        trace_estimate e;
        json_key(&j, "run_cycles");
        if (core_estimate(c, &e))
            json_double(&j, e.cycles);
        else
            json_null(&j);
        json_end(&j);
        commits += c->totals.commits;
        cycles += core_cycles(c);
    }
    json_end(&j);
    json_key(&j, "instructions");
    json_u64(&j, commits);
    json_key(&j, "cycles");
    json_u64(&j, cycles);
    json_end(&j);
    json_finish(&j);
}
