/*
 * pics_annotate.c: `pics annotate`, one function's whole disassembly, every
 * instruction of its symbol's range whether it took time or not, each with
 * its cycles, share and cycle stack (like `perf annotate --stdio`), and with
 * --golden the golden cycles and each instruction's error contribution.
 */
#define _POSIX_C_SOURCE 200809L
#include "binary/symbolize.h"
#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/outfile.h"
#include "pics/error.h"
#include "trace/psv.h"
#include "view/annotate.h"
#include "view/report.h"
#include "view/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT 100.0

typedef struct annotate_request {
    const char *path, *golden_path, *out_path, *symbol;
    const char *scheme; /* --scheme: a replay directory's PICS, or NULL */
    binary_symbolize_options sym;
} annotate_request;

static int run_annotate(const annotate_request *req)
{
    view_annotate a;
    outfile *out = NULL;
    int rc;

    if ((rc = view_annotate_open(&a, req->path, req->golden_path, req->symbol, &req->sym, stderr)))
        goto done;
    if ((rc = outfile_open(&out, req->out_path)))
        goto done;
    view_report_print_header(outfile_stream(out), "pics annotate", &a.in, a.z);
    if (a.in.has_golden)
        fprintf(outfile_stream(out), "# golden %s: error %.4f%% at insn-component granularity\n", req->golden_path,
                PERCENT * view_error(&a.v));
    for (size_t i = 0; i < view_annotate_count(&a) && rc == TEA_OK; i++)
        rc = view_annotate_write(outfile_stream(out), &a, i);
    if (rc)
        outfile_abort(out);
    else
        rc = outfile_commit(out);
done:
    view_annotate_close(&a);
    return rc;
}

#define ANNOTATE_SYNOPSIS                                                                           \
    "Usage: pics annotate FILE.pics --symbol NAME [OPTIONS]\n\n"                                   \
    "A function's whole disassembly, every instruction of its symbol's range, each with its\n"     \
    "cycles, its share of the function's cycles and its cycle stack (like perf annotate).\n\n"     \
    "Options:\n"

int cmd_pics_annotate(int argc, char **argv)
{
    annotate_request req;
    int rc;
    const cli_option options[] = {
        CLI_STRING("symbol", 0, "NAME", &req.symbol, "the function (any of its aliases, mangled or not, and\n"
                                                     "GCC's clones of it, NAME.constprop.0 ..., in the binary\n"
                                                     "and every object the trace lists, each annotated; or an\n"
                                                     "address inside it; or 0xSTART-0xEND, a range of code,\n"
                                                     "for stripped binaries)"),
        CLI_OPTION_ELF(&req.sym.elf_path, "the binary (default: the one the trace names, if it exists)"),
        CLI_OPTION_ADJUST_VMA_AUTO(&req.sym),
        CLI_OPTION_NO_DEMANGLE(&req.sym),
        CLI_OPTION_ADDRESSES(&req.sym),
        CLI_OPTION_REPLAY_SCHEME(&req.scheme),
        CLI_OPTION_GOLDEN(&req.golden_path, "the golden PICS of the same trace: golden cycles and stacks,\n"
                                            "each instruction's error contribution"),
        CLI_FLAG("source", 0, &req.sym.source, "source file:line (DWARF) where it changes, and the\n"
                                               "line's text when the file is readable"),
        CLI_OPTION_STDOUT_OUTPUT(&req.out_path),
        CLI_OPTION_HELP,
    };
    const cli_command command = CLI_COMMAND(ANNOTATE_SYNOPSIS, NULL, 25, options);

    memset(&req, 0, sizeof req);
    req.out_path = "-";
    req.sym.command = argv[0];
    if ((rc = cli_parse(&command, argc, argv)) != CLI_CONTINUE)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error(argv[0], optind == argc ? "missing FILE.pics" : "expected exactly one FILE.pics");
    if (!req.symbol)
        return cli_usage_error(argv[0], "missing --symbol NAME");
    req.path = argv[optind];
    char *owned[2];
    if ((rc = cli_replay_dir_operand(argv[0], &req.path, req.scheme, &req.golden_path, owned))
        || (rc = run_annotate(&req)))
        rc = cli_fail(argv[0], rc);
    free(owned[0]);
    free(owned[1]);
    return rc;
}
