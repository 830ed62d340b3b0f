/*
 * tea_convert.c: `tea convert`, a trace rewritten in the other format.
 */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_TO = CLI_OPT_FIRST_FREE, OPT_LEVEL, OPT_RAW, OPT_FRAME_RECORDS };

static void usage(FILE *out)
{
    fprintf(out, "Usage: tea convert [OPTIONS] IN -o OUT\n\n"
                 "Convert a trace between formats. Everything replay uses is kept: replaying IN and OUT\n"
                 "gives identical results. IN may be '-' (stdin); OUT is written atomically.\n\n"
                 "Options:\n"
                 "  -o, --output OUT       output file (required; '-' for stdout)\n"
                 "  --to FORMAT            native (default) or tracedoctor\n"
                 "  --level N              zstd compression level (default 3)\n"
                 "  --raw                  tracedoctor output: uncompressed tokens\n"
                 "  --frame-records N      native output: records per zstd frame (default 262144)\n"
                 CLI_TRACE_OPTIONS_HELP
                 "  -h, --help             show this help\n");
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
        return tea_error_set(TEA_ERR_NOMEM, "out of memory");
    if (trace_header_set(&h->generator, generator) || trace_header_set(&h->command_line, command))
        rc = tea_error_set(TEA_ERR_NOMEM, "out of memory");
    free(command);
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
    static const struct option long_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "to", required_argument, NULL, OPT_TO },
        { "level", required_argument, NULL, OPT_LEVEL },
        { "raw", no_argument, NULL, OPT_RAW },
        { "frame-records", required_argument, NULL, OPT_FRAME_RECORDS },
        { "help", no_argument, NULL, 'h' },
        CLI_TRACE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    trace_open_options open_opts = { 0 };
    trace_write_options write_opts = { .format = TRACE_FORMAT_NATIVE };
    const char *out_path = NULL;
    uint64_t v;
    int opt, rc;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            out_path = optarg;
            break;
        case OPT_TO:
            if ((rc = cli_parse_trace_format(argv[0], optarg, &write_opts.format)))
                return rc;
            break;
        case OPT_LEVEL:
            if (cli_parse_u64(optarg, &v) || v < 1 || v > 22)
                return cli_usage_error(argv[0], "invalid zstd level '%s' (1-22)", optarg);
            write_opts.level = (int)v;
            break;
        case OPT_RAW:
            write_opts.raw = 1;
            break;
        case OPT_FRAME_RECORDS:
            if (cli_parse_u64(optarg, &v) || v < 1 || v > UINT32_MAX)
                return cli_usage_error(argv[0], "invalid frame size '%s'", optarg);
            write_opts.frame_records = (uint32_t)v;
            break;
        case 'h':
            usage(stdout);
            return CLI_EXIT_OK;
        default:
            if ((rc = cli_trace_option(argv[0], opt, optarg, &open_opts)) == 1)
                return cli_usage_hint(argv[0]);
            if (rc)
                return rc;
        }
    }
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
