/*
 * tea_gen.c: `tea gen`, synthetic traces from named workloads driven through
 * the core model.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "model/core.h"
#include "model/elfcode.h"
#include "model/workload.h"
#include "trace/trace.h"

#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#define GEN_DEFAULT_CYCLES 1000000ull
#define GEN_DEFAULT_WORKLOAD "mixed"

enum { OPT_WORKLOAD = CLI_OPT_FIRST_FREE, OPT_CYCLES, OPT_SEED, OPT_FORMAT, OPT_FIRST_CYCLE, OPT_LEVEL, OPT_RAW,
       OPT_LIST, OPT_CONFIG, OPT_SET, OPT_PRINT_CONFIG, OPT_DISCARD, OPT_ELF };

static void usage(FILE *out)
{
    fprintf(out, "Usage: tea gen [OPTIONS] -o OUT\n\n"
                 "Generate a deterministic synthetic trace: a named workload driven through the\n"
                 "out-of-order core model (4-wide, 192-entry ROB; see docs/model.md).\n\n"
                 "Options:\n"
                 "  -o, --output OUT       output file (required)\n"
                 "  --workload NAME        workload (default mixed; see --list)\n"
                 "  --elf BINARY           walk the machine code of BINARY (x86-64, AArch64 or\n"
                 "                         RISC-V ELF) instead of a synthetic program; the\n"
                 "                         workload then only sets branch, loop and memory\n"
                 "                         behaviour (docs/model.md, \"Walks over a binary\")\n"
                 "  --cycles N             cycles to simulate (default 1000000; 1e8, 5M accepted)\n"
                 "  --seed S               seed of every random choice (default 1)\n"
                 "  --format FORMAT        native (default) or tracedoctor\n"
                 "  --first-cycle C        cycle number of the first record (default 0)\n"
                 "  --level N              zstd compression level (default 3)\n"
                 "  --raw                  tracedoctor: write uncompressed tokens\n"
                 "  --config FILE          core model parameters ('key = value' lines, see --print-config)\n"
                 "  --set KEY=VALUE        one parameter (repeatable; after --config)\n"
                 "  --print-config         print the effective model configuration and exit\n"
                 "  --discard              run the model without writing a trace; print its speed\n"
                 "  --list                 list the workloads and exit\n"
                 "  -h, --help             show this help\n");
}

static void list_workloads(void)
{
    for (const char *const *name = model_workload_names(); *name; name++)
        printf("%-10s %s\n", *name, model_workload_description(*name));
}

static int emit_to_writer(void *ctx, const trace_batch *batch)
{
    return ctx ? trace_writer_write(ctx, batch) : TEA_OK;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct gen_request {
    const char *workload;
    uint64_t cycles, seed, first_cycle;
    trace_write_options write;
    const char *out_path;
    const char *elf_path; /* --elf: walk this binary's code */
    mconf model;
    int discard;          /* run the model only */
} gen_request;

/* Describes the binary in the header: its architecture, absolute path and
 * build-id; its PCs are link-time addresses, so the load bias is 0. */
static int describe_binary(trace_header *h, const char *path, const elfcode *code)
{
    char *absolute = realpath(path, NULL);
    int rc = TEA_OK;
    snprintf(h->arch, sizeof h->arch, "%s", code->arch);
    h->va_bits = code->va_bits;
    h->load_bias = 0;
    h->has_load_bias = 1;
    if (trace_header_set(&h->binary_path, absolute ? absolute : path)
        || (code->build_id && trace_header_set(&h->build_id, code->build_id)))
        rc = tea_error_set(TEA_ERR_NOMEM, "out of memory");
    free(absolute);
    return rc;
}

static int generate(const gen_request *req, int argc, char **argv)
{
    model_workload *workload = NULL;
    model_core *core = NULL;
    trace_writer *writer = NULL;
    elfcode *code = NULL;
    model_source src;
    trace_header h;
    char generator[96 + PATH_MAX];
    char *command = cli_join_command(argc, argv);
    int rc;

    trace_header_init(&h);
    if (req->elf_path)
        snprintf(generator, sizeof generator, "%s (tea gen, walk over %s, workload %s, seed %llu)", cli_version(),
                 req->elf_path, req->workload, (unsigned long long)req->seed);
    else
        snprintf(generator, sizeof generator, "%s (tea gen, workload %s, seed %llu)", cli_version(), req->workload,
                 (unsigned long long)req->seed);
    h.commit_width = req->model.core.width;
    h.rob_size = req->model.core.rob_size;
    if (!command || trace_header_set(&h.generator, generator) || trace_header_set(&h.command_line, command)) {
        rc = tea_error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (req->elf_path) {
        if ((rc = elfcode_load(&code, req->elf_path)) || (rc = describe_binary(&h, req->elf_path, code))
            || (rc = model_workload_create_elf(&workload, req->workload, req->seed, code)))
            goto done;
    } else if ((rc = model_workload_create(&workload, req->workload, req->seed))) {
        goto done;
    }
    src = model_workload_source(workload);
    if ((rc = model_core_create(&core, &req->model, &src)))
        goto done;
    if (!req->discard && (rc = trace_writer_open(&writer, req->out_path, &h, &req->write)))
        goto done;
    {
        double start = seconds_now(), elapsed;
        if ((rc = model_core_run(core, req->first_cycle, req->cycles, emit_to_writer, writer))) {
            tea_error_prefix(rc, "%s: ", req->discard ? "model" : req->out_path);
            goto done;
        }
        elapsed = seconds_now() - start;
        if (req->discard) {
            const model_stats *st = model_core_stats(core);
            printf("model: %llu cycles, %llu µops committed, %llu dispatched, in %.3f s: "
                   "%.2f M committed µops/s, %.2f M dispatched µops/s\n",
                   (unsigned long long)st->cycles, (unsigned long long)st->committed,
                   (unsigned long long)st->dispatched, elapsed, (double)st->committed / elapsed / 1e6,
                   (double)st->dispatched / elapsed / 1e6);
        }
    }
    if (writer) {
        rc = trace_writer_finish(writer, NULL);
        writer = NULL;
    }
done:
    trace_writer_abort(writer);
    model_core_free(core);
    model_workload_free(workload);
    elfcode_free(code);
    trace_header_free(&h);
    free(command);
    return rc;
}

int tea_gen_main(int argc, char **argv)
{
    static const struct option long_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "workload", required_argument, NULL, OPT_WORKLOAD },
        { "cycles", required_argument, NULL, OPT_CYCLES },
        { "seed", required_argument, NULL, OPT_SEED },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "first-cycle", required_argument, NULL, OPT_FIRST_CYCLE },
        { "level", required_argument, NULL, OPT_LEVEL },
        { "raw", no_argument, NULL, OPT_RAW },
        { "list", no_argument, NULL, OPT_LIST },
        { "config", required_argument, NULL, OPT_CONFIG },
        { "set", required_argument, NULL, OPT_SET },
        { "print-config", no_argument, NULL, OPT_PRINT_CONFIG },
        { "discard", no_argument, NULL, OPT_DISCARD },
        { "elf", required_argument, NULL, OPT_ELF },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    gen_request req;
    uint64_t v;
    int opt, rc, print_config = 0;

    memset(&req, 0, sizeof req);
    req.workload = GEN_DEFAULT_WORKLOAD;
    req.cycles = GEN_DEFAULT_CYCLES;
    req.seed = 1;
    req.write.format = TRACE_FORMAT_NATIVE;
    mconf_defaults(&req.model);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            req.out_path = optarg;
            break;
        case OPT_WORKLOAD:
            if (!model_workload_description(optarg))
                return cli_usage_error(argv[0], "unknown workload '%s' (see --list)", optarg);
            req.workload = optarg;
            break;
        case OPT_CYCLES:
            if (cli_parse_u64(optarg, &req.cycles) || req.cycles == 0)
                return cli_usage_error(argv[0], "invalid cycle count '%s'", optarg);
            break;
        case OPT_SEED:
            if (cli_parse_u64(optarg, &req.seed))
                return cli_usage_error(argv[0], "invalid seed '%s'", optarg);
            break;
        case OPT_FORMAT:
            if ((rc = cli_parse_trace_format(argv[0], optarg, &req.write.format)))
                return rc;
            break;
        case OPT_FIRST_CYCLE:
            if (cli_parse_u64(optarg, &req.first_cycle) || req.first_cycle > (UINT64_MAX >> 2))
                return cli_usage_error(argv[0], "invalid first cycle '%s'", optarg);
            break;
        case OPT_LEVEL:
            if (cli_parse_u64(optarg, &v) || v < 1 || v > 22)
                return cli_usage_error(argv[0], "invalid zstd level '%s' (1-22)", optarg);
            req.write.level = (int)v;
            break;
        case OPT_RAW:
            req.write.raw = 1;
            break;
        case OPT_LIST:
            list_workloads();
            return CLI_EXIT_OK;
        case OPT_CONFIG:
            if ((rc = mconf_load(&req.model, optarg)))
                return cli_fail(argv[0], rc);
            break;
        case OPT_SET:
            if (mconf_set_string(&req.model, optarg))
                return cli_usage_error(argv[0], "%s", tea_error_message());
            break;
        case OPT_PRINT_CONFIG:
            print_config = 1;
            break;
        case OPT_DISCARD:
            req.discard = 1;
            break;
        case OPT_ELF:
            req.elf_path = optarg;
            break;
        case 'h':
            usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_hint(argv[0]);
        }
    }
    if (optind != argc)
        return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (mconf_check(&req.model))
        return cli_usage_error(argv[0], "%s", tea_error_message());
    if (print_config)
        return mconf_write(&req.model, stdout) ? cli_fail(argv[0], TEA_ERR_IO) : CLI_EXIT_OK;
    if (!req.out_path && !req.discard)
        return cli_usage_error(argv[0], "missing -o OUT");
    if (req.write.raw && req.write.format != TRACE_FORMAT_TRACEDOCTOR)
        return cli_usage_error(argv[0], "--raw applies to --format tracedoctor only");
    if ((rc = generate(&req, argc, argv)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
