/*
 * tea_gen.c: `tea gen`, synthetic traces from named workloads driven through
 * the core model.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "commands.h"
#include "model_options.h"
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

#define GEN_SYNOPSIS                                                                                    \
    "Usage: tea gen [OPTIONS] -o OUT\n\n"                                                              \
    "Generate a deterministic synthetic trace: a named workload driven through the\n"                  \
    "out-of-order core model (4-wide, 192-entry ROB; see docs/model.md).\n\n"                          \
    "Options:\n"

static void list_workloads(void)
{
    for (const char *const *name = model_workload_names(); *name; name++)
        printf("%-10s %s\n", *name, model_workload_description(*name));
}

/* What the emit callback needs: the writer (NULL with --discard) and the
 * progress meter, which counts cycles from the first. */
typedef struct gen_emit {
    trace_writer *writer;
    progress_meter meter;
    uint64_t first_cycle;
} gen_emit;

static int emit_to_writer(void *ctx, const trace_batch *batch)
{
    gen_emit *e = ctx;
    if (batch->count)
        progress_update(&e->meter, batch->records[batch->count - 1].cycle - e->first_cycle + 1);
    return e->writer ? trace_writer_write(e->writer, batch) : TEA_OK;
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
    uint64_t load_bias;   /* --load-bias: where the binary is loaded */
    int has_load_bias;
    model_config model;
    int discard;          /* run the model only */
    progress_mode progress;
} gen_request;

/* Describes the binary in the header: its architecture, absolute path,
 * build-id and load bias (that of --load-bias, 0 without: link-time PCs). */
static int describe_binary(trace_header *h, const char *path, const model_elfcode *code, uint64_t bias)
{
    char *absolute = realpath(path, NULL);
    int rc = TEA_OK;
    snprintf(h->program.arch, sizeof h->program.arch, "%s", code->arch);
    h->va_bits = code->va_bits;
    h->program.load_bias = bias;
    h->program.has_load_bias = 1;
    if (trace_header_set(&h->program.binary_path, absolute ? absolute : path)
        || (code->build_id && trace_header_set(&h->program.build_id, code->build_id)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    free(absolute);
    return rc;
}

static int generate(const gen_request *req, int argc, char **argv)
{
    model_workload *workload = NULL;
    model_core *core = NULL;
    gen_emit emit = { 0 };
    model_elfcode *code = NULL;
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
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (req->elf_path) {
        if ((rc = model_elfcode_load(&code, req->elf_path)) || (rc = model_elfcode_rebase(code, req->load_bias))
            || (rc = describe_binary(&h, req->elf_path, code, req->load_bias))
            || (rc = model_workload_create_elf(&workload, req->workload, req->seed, code)))
            goto done;
    } else if ((rc = model_workload_create(&workload, req->workload, req->seed))) {
        goto done;
    }
    src = model_workload_source(workload);
    if ((rc = model_core_create(&core, &req->model, &src)))
        goto done;
    if (!req->discard && (rc = trace_writer_open(&emit.writer, req->out_path, &h, &req->write)))
        goto done;
    {
        double start = seconds_now(), elapsed;
        emit.first_cycle = req->first_cycle;
        progress_start(&emit.meter, req->progress, stderr, "tea gen", "cycles", req->cycles);
        rc = model_core_run(core, req->first_cycle, req->cycles, emit_to_writer, &emit);
        progress_end(&emit.meter);
        if (rc) {
            error_prefix(rc, "%s: ", req->discard ? "model" : req->out_path);
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
    if (emit.writer) {
        rc = trace_writer_finish(emit.writer, NULL);
        emit.writer = NULL;
    }
done:
    trace_writer_abort(emit.writer);
    model_core_free(core);
    model_workload_free(workload);
    model_elfcode_free(code);
    trace_header_free(&h);
    free(command);
    return rc;
}

/* --workload NAME: one of the model's workloads, into the const char * at
 * opt->dest. */
static int workload_option(const char *command, const cli_option *opt, const char *arg)
{
    if (!model_workload_description(arg))
        return cli_usage_error(command, "unknown workload '%s' (see --list)", arg);
    *(const char **)opt->dest = arg;
    return CLI_CONTINUE;
}

/* --list: lists the workloads and ends the command. */
static int list_option(const char *command, const cli_option *opt, const char *arg)
{
    (void)command, (void)opt, (void)arg;
    list_workloads();
    return CLI_EXIT_OK;
}

int cmd_tea_gen(int argc, char **argv)
{
    gen_request req;
    int rc, print_config = 0;
    const cli_option options[] = {
        CLI_OPTION_OUTPUT("OUT", &req.out_path, "output file (required)"),
        CLI_CALL("workload", 0, "NAME", workload_option, &req.workload, "workload (default mixed; see --list)"),
        CLI_OPTION_ELF(&req.elf_path, "walk the machine code of BINARY (x86-64, AArch64 or\n"
                                      "RISC-V ELF) instead of a synthetic program; the\n"
                                      "workload then only sets branch, loop and memory\n"
                                      "behaviour (docs/model.md, \"Walks over a binary\")"),
        CLI_OPTION_LOAD_BIAS(&req.load_bias, &req.has_load_bias,
                             "with --elf: run the code as loaded at ELF address + B\n"
                             "(a PIE's load address; default 0, link-time PCs)"),
        CLI_UINT("cycles", "N", &req.cycles, 1, UINT64_MAX, "invalid cycle count '%s'",
                 "cycles to simulate (default 1000000; 1e8, 5M accepted)"),
        CLI_OPTION_SEED("S", &req.seed, "seed of every random choice (default 1)"),
        CLI_OPTION_TRACE_FORMAT("format", &req.write.format, "native (default) or tracedoctor"),
        CLI_UINT("first-cycle", "C", &req.first_cycle, 0, UINT64_MAX >> 2, "invalid first cycle '%s'",
                 "cycle number of the first record (default 0)"),
        CLI_OPTION_ZSTD_LEVEL(&req.write.level, "zstd compression level (default 3)"),
        CLI_FLAG("raw", 0, &req.write.raw, "tracedoctor: write uncompressed tokens"),
        MODEL_OPTIONS_CONFIG(&req.model, "core model parameters ('key = value' lines, see --print-config)"),
        MODEL_OPTIONS_SET(&req.model),
        CLI_FLAG("print-config", 0, &print_config, "print the effective model configuration and exit"),
        CLI_FLAG("discard", 0, &req.discard, "run the model without writing a trace; print its speed"),
        CLI_CALL("list", 0, NULL, list_option, NULL, "list the workloads and exit"),
        CLI_OPTIONS_PROGRESS(&req.progress),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(GEN_SYNOPSIS, NULL, 25, options);

    memset(&req, 0, sizeof req);
    req.workload = GEN_DEFAULT_WORKLOAD;
    req.cycles = GEN_DEFAULT_CYCLES;
    req.seed = 1;
    req.write.format = TRACE_FORMAT_NATIVE;
    model_config_defaults(&req.model);
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc)
        return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (model_config_check(&req.model))
        return cli_usage_error(argv[0], "%s", error_message());
    if (print_config)
        return model_config_write(&req.model, stdout) ? cli_fail(argv[0], TEA_ERR_IO) : CLI_EXIT_OK;
    if (!req.out_path && !req.discard)
        return cli_usage_error(argv[0], "missing -o OUT");
    if (req.write.raw && req.write.format != TRACE_FORMAT_TRACEDOCTOR)
        return cli_usage_error(argv[0], "--raw applies to --format tracedoctor only");
    if (req.has_load_bias && !req.elf_path)
        return cli_usage_error(argv[0], "--load-bias applies with --elf only");
    if ((rc = generate(&req, argc, argv)))
        return cli_fail(argv[0], rc);
    return CLI_EXIT_OK;
}
