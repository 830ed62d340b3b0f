/*
 * tea_convert.c: `tea convert`, a trace rewritten in the other format.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "binary/symbols.h"
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONVERT_SYNOPSIS                                                                                \
    "Usage: tea convert [OPTIONS] IN -o OUT\n\n"                                                       \
    "Convert a trace between formats. Everything replay uses is kept: replaying IN and OUT\n"          \
    "gives identical results, and native output keeps the executable objects and the\n"                \
    "recorded thread. IN may be '-' (stdin); OUT is written atomically.\n"                             \
    "--binary names the traced program in OUT's header (absolute path, build-id, load\n"             \
    "bias), as tea record does, so that replay and the pics commands find it: the\n"                 \
    "FireSim/TraceDoctor flow, whose traces name no binary.\n\n"                                      \
    "Options:\n"

/* --binary and --load-bias. */
typedef struct convert_binary {
    const char *path;       /* --binary BIN, or NULL */
    uint64_t load_bias;     /* --load-bias B */
    int has_load_bias;
} convert_binary;

/* Names the binary of --binary in the header: its absolute path, build-id,
 * architecture (when the trace has none) and the load bias (--load-bias, else
 * 0 for a binary linked at fixed addresses; a PIE without it gets none, with
 * a warning). */
static int stamp_binary(trace_header *h, const convert_binary *b, const char *command)
{
    binary_symbols *s;
    char *absolute;
    int rc;

    if ((rc = binary_symbols_open(&s, b->path)))
        return rc;
    absolute = realpath(b->path, NULL);
    if (trace_header_set(&h->program.binary_path, absolute ? absolute : b->path)
        || trace_header_set(&h->program.build_id, binary_symbols_build_id(s)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    if (!h->program.arch[0] && binary_symbols_arch(s))
        snprintf(h->program.arch, sizeof h->program.arch, "%s", binary_symbols_arch(s));
    h->program.has_load_bias = b->has_load_bias || !binary_symbols_is_position_independent(s);
    h->program.load_bias = b->has_load_bias ? b->load_bias : 0;
    if (!h->program.has_load_bias)
        fprintf(stderr, "%s: warning: %s is position-independent and no --load-bias was given: later commands "
                        "need --adjust-vma OFFSET or auto\n",
                command, b->path);
    free(absolute);
    binary_symbols_close(s);
    return rc;
}

/* Gives the output header a provenance when the input had none. */
static int stamp_header(trace_header *h, int argc, char **argv)
{
    char generator[64];
    char *command;
    int rc = TEA_OK;

    if (h->generator)
        return TEA_OK;
    snprintf(generator, sizeof generator, "%s (tea convert)", cli_version());
    if (!(command = cli_join_command(argc, argv)))
        return error_set(TEA_ERR_NOMEM, "out of memory");
    if (trace_header_set(&h->generator, generator) || trace_header_set(&h->command_line, command))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    free(command);
    return rc;
}

/* Copies the executable objects, the recorded thread and the run (known
 * once the whole input was read, also from a pipe) into a native output;
 * for TraceDoctor output notes on stderr that they are lost, and refuses a
 * sampled recording, whose cycles would be read as the whole run's. */
static int copy_objects(trace_reader *reader, trace_writer *writer, trace_format format)
{
    const trace_object *objs;
    const trace_run *run;
    size_t count;
    uint32_t tid, threads;
    int rc;

    if ((rc = trace_reader_objects(reader, &objs, &count)) || (rc = trace_reader_thread(reader, &tid, &threads))
        || (rc = trace_reader_run(reader, &run)))
        return rc;
    if (format == TRACE_FORMAT_TRACEDOCTOR) {
        if (run->sampling.every)
            return error_set(TEA_ERR_USAGE,
                             "a sampled recording (--sample-every) has no TraceDoctor form: its windows "
                             "would be read as the whole run");
        if (count || threads != TRACE_THREAD_UNKNOWN)
            fprintf(stderr, "tea convert: note: TraceDoctor tokens have no place for the trace's %zu executable "
                            "object%s and recorded thread; they are not kept\n", count, count == 1 ? "" : "s");
        if (run->context_count > 1)
            fprintf(stderr, "tea convert: note: nor for its %u calling contexts; tea replay --call-paths --elf "
                            "BINARY rebuilds them from the tokens\n", run->context_count - 1);
        return TEA_OK;
    }
    for (size_t i = 0; i < count; i++)
        if ((rc = trace_writer_add_object(writer, &objs[i])))
            return rc;
    if (threads != TRACE_THREAD_UNKNOWN && (rc = trace_writer_set_thread(writer, tid, threads)))
        return rc;
    return trace_writer_set_run(writer, run);
}

static int convert(const char *in_path, const char *out_path, const trace_open_options *open_opts,
                   const trace_write_options *write_opts, const convert_binary *binary, progress_mode mode, int argc,
                   char **argv)
{
    progress_meter meter;
    uint64_t records = 0;
    trace_reader *reader = NULL;
    trace_writer *writer = NULL;
    trace_batch batch = { 0 };
    trace_header header;
    int rc;

    memset(&meter, 0, sizeof meter); /* progress_end is safe before progress_start */
    trace_header_init(&header);
    if ((rc = trace_reader_open(&reader, in_path, open_opts)))
        goto done;
    if ((rc = trace_header_copy(&header, trace_reader_header(reader)))
        || (rc = stamp_header(&header, argc, argv))
        || (binary->path && (rc = stamp_binary(&header, binary, argv[0])))
        || (rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    if ((rc = trace_writer_open(&writer, out_path, &header, write_opts)))
        goto done;
    progress_start(&meter, mode, stderr, "tea convert", "records", 0);
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        records += batch.count;
        progress_update(&meter, records);
        if ((rc = trace_writer_write(writer, &batch))) {
            error_prefix(rc, "%s: ", out_path);
            goto done;
        }
    }
    if ((rc = copy_objects(reader, writer, write_opts->format)))
        goto done;
    rc = trace_writer_finish(writer, &trace_reader_stats(reader)->notes);
    writer = NULL;
done:
    progress_end(&meter);
    trace_writer_abort(writer);
    trace_batch_free(&batch);
    trace_header_free(&header);
    trace_reader_close(reader);
    return rc;
}

int cmd_tea_convert(int argc, char **argv)
{
    trace_open_options open_opts = { 0 };
    trace_write_options write_opts = { .format = TRACE_FORMAT_NATIVE };
    const char *out_path = NULL;
    progress_mode mode = PROGRESS_AUTO;
    convert_binary binary = { NULL, 0, 0 };
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &out_path, "output file (required; '-' for stdout)"),
        CLI_OPTION_TRACE_FORMAT("to", &write_opts.format, "native (default) or tracedoctor"),
        CLI_OPTION_ZSTD_LEVEL(&write_opts.level, "zstd compression level (default 3)"),
        CLI_FLAG("raw", 0, &write_opts.raw, "tracedoctor output: uncompressed tokens"),
        CLI_UINT("frame-records", "N", &write_opts.frame_records, 1, UINT32_MAX, "invalid frame size '%s'",
                 "native output: records per zstd frame (default 262144)"),
        CLI_OPTIONS_PROGRESS(&mode),
        CLI_STRING("binary", 0, "BIN", &binary.path, "the traced program, named in OUT's header"),
        CLI_OPTION_LOAD_BIAS(&binary.load_bias, &binary.has_load_bias,
                             "with --binary: runtime minus ELF address (a PIE's load\n"
                             "address; default 0 for a non-PIE)"),
        CLI_TRACE_OPTIONS(&open_opts),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(CONVERT_SYNOPSIS, NULL, 25, options);

    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing input trace" : "expected exactly one input trace");
    if (!out_path)
        return cli_usage_error(argv[0], "missing -o OUT");
    if (write_opts.raw && write_opts.format != TRACE_FORMAT_TRACEDOCTOR)
        return cli_usage_error(argv[0], "--raw applies to --to tracedoctor only");
    if (binary.has_load_bias && !binary.path)
        return cli_usage_error(argv[0], "--load-bias applies with --binary only");
    if ((rc = convert(argv[optind], out_path, &open_opts, &write_opts, &binary, mode, argc, argv)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
