/*
 * tea_convert.c: `tea convert`, a trace rewritten in the other format.
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "trace/objects.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

#define CONVERT_SYNOPSIS                                                                                \
    "Usage: tea convert [OPTIONS] IN -o OUT\n\n"                                                       \
    "Convert a trace between formats. Everything replay uses is kept: replaying IN and OUT\n"          \
    "gives identical results, and native output keeps the executable objects and the\n"                \
    "recorded thread. IN may be '-' (stdin); OUT is written atomically.\n\n"                           \
    "Options:\n"

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
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    if (trace_header_set(&h->generator, generator) || trace_header_set(&h->command_line, command))
        rc = tea_error_set(TEA_ERR_NOMEM, "out of memory");
    free(command);
    return rc;
}

/* Copies the executable objects and the recorded thread (known once the
 * whole input was read, also from a pipe) into the output. */
static int copy_objects(trace_reader *reader, trace_writer *writer)
{
    const trace_object *objs;
    size_t count;
    uint32_t tid, threads;
    int rc;

    if ((rc = trace_reader_objects(reader, &objs, &count)) || (rc = trace_reader_thread(reader, &tid, &threads)))
        return rc;
    for (size_t i = 0; i < count; i++)
        if ((rc = trace_writer_add_object(writer, &objs[i])))
            return rc;
    if (threads != TRACE_THREAD_UNKNOWN)
        rc = trace_writer_set_thread(writer, tid, threads);
    return rc;
}

static int convert(const char *in_path, const char *out_path, const trace_open_options *open_opts,
                   const trace_write_options *write_opts, int argc, char **argv)
{
    trace_reader *reader = NULL;
    trace_writer *writer = NULL;
    trace_batch batch = { 0 };
    trace_header header;
    int rc;

    trace_header_init(&header);
    if ((rc = trace_reader_open(&reader, in_path, open_opts)))
        goto done;
    if ((rc = trace_header_copy(&header, trace_reader_header(reader)))
        || (rc = stamp_header(&header, argc, argv)) || (rc = trace_batch_init(&batch, TRACE_BATCH_RECORDS)))
        goto done;
    if ((rc = trace_writer_open(&writer, out_path, &header, write_opts)))
        goto done;
    for (;;) {
        if ((rc = trace_reader_read(reader, &batch)))
            goto done;
        if (batch.count == 0)
            break;
        if ((rc = trace_writer_write(writer, &batch))) {
            tea_error_prefix(rc, "%s: ", out_path);
            goto done;
        }
    }
    if ((rc = copy_objects(reader, writer)))
        goto done;
    rc = trace_writer_finish(writer, &trace_reader_stats(reader)->notes);
    writer = NULL;
done:
    trace_writer_abort(writer);
    trace_batch_free(&batch);
    trace_header_free(&header);
    trace_reader_close(reader);
    return rc;
}

int tea_convert_main(int argc, char **argv)
{
    trace_open_options open_opts = { 0 };
    trace_write_options write_opts = { .format = TRACE_FORMAT_NATIVE };
    const char *out_path = NULL;
    int rc;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &out_path, "output file (required; '-' for stdout)"),
        CLI_OPTION_TRACE_FORMAT("to", &write_opts.format, "native (default) or tracedoctor"),
        CLI_OPTION_ZSTD_LEVEL(&write_opts.level, "zstd compression level (default 3)"),
        CLI_FLAG("raw", 0, &write_opts.raw, "tracedoctor output: uncompressed tokens"),
        CLI_UINT("frame-records", "N", &write_opts.frame_records, 1, UINT32_MAX, "invalid frame size '%s'",
                 "native output: records per zstd frame (default 262144)"),
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
    if ((rc = convert(argv[optind], out_path, &open_opts, &write_opts, argc, argv)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
