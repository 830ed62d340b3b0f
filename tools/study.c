/*
 * study.c: samplers from a command line, handed to the replay driver
 * (tea/run.h) with the functions for the function-level error (see
 * study.h).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "study.h"
#include "binary/symbolize.h"
#include "cli.h"
#include "common/error.h"
#include "common/threads.h"
#include "tea/parallel.h"
#include "trace/pcs.h"
#include "view/report.h"
#include "view/view.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STUDY_DEFAULT_FREQ_HZ 4000.0

void study_request_init(study_request *req, const char *command)
{
    memset(req, 0, sizeof *req);
    req->golden = 1;
    for (int s = PICS_SCHEME_TEA; s < PICS_SCHEME_COUNT; s++)
        req->schemes[req->scheme_count++] = (study_scheme){ (pics_scheme)s, 0 };
    req->freqs[0] = STUDY_DEFAULT_FREQ_HZ;
    req->freq_count = 1;
    req->first_seed = 1;
    req->seed_count = 1;
    req->jitter = PICS_JITTER_INTERVAL;
    req->command = command;
}

/* Orders schemes as the engine's enum, native before all events. */
static int scheme_before(const study_scheme *a, const study_scheme *b)
{
    return a->scheme != b->scheme ? a->scheme < b->scheme : a->all_events < b->all_events;
}

/* Inserts a scheme in order unless it is already there. */
static int add_scheme(study_request *req, study_scheme s)
{
    size_t at = 0;
    while (at < req->scheme_count && scheme_before(&req->schemes[at], &s))
        at++;
    if (at < req->scheme_count && req->schemes[at].scheme == s.scheme && req->schemes[at].all_events == s.all_events)
        return TEA_OK;
    if (req->scheme_count == STUDY_MAX_SCHEMES)
        return error_set(TEA_ERR_USAGE, "at most %d schemes", STUDY_MAX_SCHEMES);
    memmove(&req->schemes[at + 1], &req->schemes[at], (req->scheme_count - at) * sizeof s);
    req->schemes[at] = s;
    req->scheme_count++;
    return TEA_OK;
}

int study_parse_event_set(const char *name, int *all_events)
{
    if (strcmp(name, "native") == 0)
        *all_events = 0;
    else if (strcmp(name, "all") == 0)
        *all_events = 1;
    else
        return error_set(TEA_ERR_USAGE, "unknown event set '%s' (native or all)", name);
    return TEA_OK;
}

int study_parse_schemes(study_request *req, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = TEA_OK;
    if (!copy)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    req->golden = 0;
    req->scheme_count = 0;
    for (char *name = strtok_r(copy, ",", &save); name && !rc; name = strtok_r(NULL, ",", &save)) {
        char *suffix = strchr(name, ':');
        study_scheme s = { PICS_SCHEME_GOLDEN, 0 };
        if (suffix) {
            *suffix++ = '\0';
            if (study_parse_event_set(suffix, &s.all_events)) {
                rc =
                    error_set(TEA_ERR_USAGE, "unknown event set '%s' in '%s:%s' (native or all)", suffix, name, suffix);
                break;
            }
        }
        if ((rc = pics_scheme_parse(name, &s.scheme)))
            break;
        if (s.scheme == PICS_SCHEME_GOLDEN) {
            if (suffix) {
                rc = error_set(TEA_ERR_USAGE, "golden has no event set");
                break;
            }
            req->golden = 1;
            continue;
        }
        rc = add_scheme(req, s);
    }
    free(copy);
    if (!rc && !req->golden && !req->scheme_count)
        rc = error_set(TEA_ERR_USAGE, "no scheme in '%s'", list);
    return rc;
}

int study_parse_freqs(study_request *req, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = TEA_OK;
    if (!copy)
        return error_set(TEA_ERR_NOMEM, "out of memory");
    req->freq_count = 0;
    for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        double hz;
        if (cli_parse_hz(f, &hz)) {
            rc = error_set(TEA_ERR_USAGE, "invalid frequency '%s'", f);
            break;
        }
        if (req->freq_count == STUDY_MAX_FREQS) {
            rc = error_set(TEA_ERR_USAGE, "at most %d frequencies", STUDY_MAX_FREQS);
            break;
        }
        for (size_t i = 0; i < req->freq_count && !rc; i++)
            if (req->freqs[i] == hz)
                rc = error_set(TEA_ERR_USAGE, "frequency '%s' given twice", f);
        if (rc)
            break;
        req->freqs[req->freq_count++] = hz;
    }
    if (!rc && req->freq_count == 0)
        rc = error_set(TEA_ERR_USAGE, "no frequency in '%s'", list);
    free(copy);
    return rc;
}

int study_parse_samples(study_request *req, const char *list)
{
    return cli_parse_sample_counts(list, req->sample_targets, STUDY_MAX_FREQS, &req->sample_target_count);
}

int study_option_samples(const char *command, const cli_option *opt, const char *arg)
{
    if (study_parse_samples(opt->dest, arg))
        return cli_usage_error(command, "%s", error_message());
    return CLI_CONTINUE;
}

int study_option_schemes(const char *command, const cli_option *opt, const char *arg)
{
    if (study_parse_schemes(opt->dest, arg))
        return cli_usage_error(command, "%s", error_message());
    ((study_request *)opt->dest)->schemes_given = 1;
    return CLI_CONTINUE;
}

int study_option_freqs(const char *command, const cli_option *opt, const char *arg)
{
    if (study_parse_freqs(opt->dest, arg))
        return cli_usage_error(command, "%s", error_message());
    return CLI_CONTINUE;
}

int study_option_jitter(const char *command, const cli_option *opt, const char *arg)
{
    if (pics_jitter_parse(arg, &((study_request *)opt->dest)->jitter))
        return cli_usage_error(command, "%s", error_message());
    ((study_request *)opt->dest)->jitter_given = 1;
    return CLI_CONTINUE;
}

int study_option_events(const char *command, const cli_option *opt, const char *arg)
{
    if (study_parse_event_set(arg, &((study_request *)opt->dest)->all_events))
        return cli_usage_error(command, "%s", error_message());
    return CLI_CONTINUE;
}

int study_option_golden_rules(const char *command, const cli_option *opt, const char *arg)
{
    if (golden_rules_parse(arg, &((study_request *)opt->dest)->rules))
        return cli_usage_error(command, "unknown golden rules '%s' (default or tracedoctor)", arg);
    ((study_request *)opt->dest)->golden_rules_given = 1;
    return CLI_CONTINUE;
}

int study_option_rules(const char *command, const cli_option *opt, const char *arg)
{
    if (golden_rules_parse(arg, &((study_request *)opt->dest)->sampler_rules))
        return cli_usage_error(command, "unknown rules '%s' (default or tracedoctor)", arg);
    return CLI_CONTINUE;
}

int study_apply_rules(study_request *req)
{
    const char *c = req->command;
    size_t kept = 0;

    if (req->call_paths && req->flat)
        return cli_usage_error(c, "--call-paths rebuilds the calling contexts and --flat drops them: give one");
    if (req->sampler_rules != GOLDEN_RULES_TRACEDOCTOR)
        return CLI_CONTINUE;
    if (req->call_paths)
        return cli_usage_error(c, "--rules tracedoctor samples the TraceDoctor tokens as they are, without calling "
                                  "contexts: not with --call-paths");
    if (req->golden_rules_given && req->rules != GOLDEN_RULES_TRACEDOCTOR)
        return cli_usage_error(c, "--rules tracedoctor replays the golden reference of the tracedoctor rules: "
                                  "drop --golden-rules %s",
                               golden_rules_name(req->rules));
    if (req->jitter_given && req->jitter != PICS_JITTER_NONE)
        return cli_usage_error(c, "--rules tracedoctor samples at P, 2P, ... as the TraceDoctor workers do: "
                                  "--jitter %s does not apply",
                               pics_jitter_name(req->jitter));
    if (req->noise_floor)
        return cli_usage_error(c, "--noise-floor samples TEA at each scheme's points under the default rules: "
                                  "not with --rules tracedoctor");
    if (req->seeds_given && req->seed_count > 1)
        return cli_usage_error(c, "--rules tracedoctor samples at P, 2P, ... whatever the seed: --seeds %zu "
                                  "would repeat one run",
                               req->seed_count);
    for (size_t i = 0; i < req->scheme_count; i++) {
        pics_scheme s = req->schemes[i].scheme;
        if (s == PICS_SCHEME_TEA || s == PICS_SCHEME_NCI || s == PICS_SCHEME_IBS)
            req->schemes[kept++] = req->schemes[i];
        else if (req->schemes_given)
            return cli_usage_error(c, "%s has no TraceDoctor worker: --rules tracedoctor samples tea, nci and ibs",
                                   pics_scheme_name(s));
    }
    req->scheme_count = kept;
    req->rules = GOLDEN_RULES_TRACEDOCTOR;
    req->jitter = PICS_JITTER_NONE;
    req->seed_count = 1;
    return CLI_CONTINUE;
}

/* Records the binary of --elf in the run's header, as a trace stamped by
 * tea record or tea gen names its binary: absolute path, build-id, the load
 * bias in use and, when the trace named none, the architecture. */
static int stamp_binary(tea_run *t, const binary_symbolizer *z)
{
    const binary_symbols *s = binary_symbolize_symbols(z);
    char *absolute = realpath(binary_symbols_path(s), NULL);
    int rc = TEA_OK;
    assert(s);
    if (trace_header_set(&t->header.program.binary_path, absolute ? absolute : binary_symbols_path(s))
        || trace_header_set(&t->header.program.build_id, binary_symbols_build_id(s)))
        rc = error_set(TEA_ERR_NOMEM, "out of memory");
    t->header.program.load_bias = binary_symbols_bias(s);
    t->header.program.has_load_bias = 1;
    if (!t->header.program.arch[0] && binary_symbols_arch(s))
        snprintf(t->header.program.arch, sizeof t->header.program.arch, "%s", binary_symbols_arch(s));
    free(absolute);
    return rc;
}

/* The functions for the function-granularity error: the --symbols map, else
 * those of --elf or of the binary the trace names (as pics report groups
 * them), else none (an empty map). A binary the trace names that cannot be
 * used costs only this error, with a warning; one given with --elf must
 * open, and is stamped into the header (stamp_binary). */
static int load_functions(const study_request *req, tea_run *t, trace_symmap *out)
{
    binary_symbolize_options opts = req->sym;
    binary_symbolizer *z = NULL;
    char *from = NULL;
    int rc;

    memset(out, 0, sizeof *out);
    opts.command = req->command;
    opts.source = 0;
    if (!req->binary_symbols_path && !t->header.program.binary_path && !opts.elf_path)
        return TEA_OK;
    /* --adjust-vma auto scores the golden PCs */
    rc = view_report_functions(req->binary_symbols_path, &t->header.program, &t->objects,
                               tea_replay_golden(t->replay), &opts, out, &from, &z);
    if (rc == TEA_ERR_NOMEM || (rc && (opts.elf_path || req->binary_symbols_path)))
        return rc;
    if (rc) {
        fprintf(stderr, "%s: warning: %s: no function-level error: %s\n", req->command, t->path, error_message());
        return TEA_OK;
    }
    if (opts.elf_path && (rc = stamp_binary(t, z)))
        trace_symmap_free(out);
    binary_symbolize_close(z);
    free(from);
    return rc;
}

/* The driver's options for `req`. */
static tea_run_options run_options(const study_request *req)
{
    tea_run_options o;
    memset(&o, 0, sizeof o);
    o.schemes = req->schemes;
    o.scheme_count = req->scheme_count;
    o.freqs = req->freqs;
    o.freq_count = req->freq_count;
    o.period = req->period;
    o.sample_targets = req->sample_targets;
    o.sample_target_count = req->sample_target_count;
    o.first_seed = req->first_seed;
    o.seed_count = req->seed_count;
    o.jitter = req->jitter;
    o.all_events = req->all_events;
    o.rules = req->rules;
    o.sampler_rules = req->sampler_rules;
    o.open = req->open;
    o.threads = req->threads ? req->threads : threads_processors();
    o.meter = req->meter;
    o.noise_floor = req->noise_floor;
    o.default_min_samples = req->default_min_samples;
    o.flat = req->flat;
    return o;
}

/* --call-paths: the symbolizer whose binary_symbolize_classify tells the
 * tracker what the trace's instructions are: the binary of --elf, else the
 * one the trace names, and the objects it recorded, the bias as
 * --adjust-vma gives it (auto: scored on the PCs of the trace's first 2^20
 * records). */
static int open_classifier(const study_request *req, const char *path, binary_symbolizer **z)
{
    binary_symbolize_options opts = req->sym;
    trace_reader *r = NULL;
    trace_object_list objects;
    const trace_object *objs;
    size_t count;
    uint64_t *pcs = NULL;
    int rc;

    *z = NULL;
    memset(&objects, 0, sizeof objects);
    opts.command = req->command;
    if ((rc = trace_reader_open(&r, path, &req->open)) || (rc = trace_reader_objects(r, &objs, &count)))
        goto done;
    for (size_t i = 0; i < count && rc == TEA_OK; i++)
        rc = trace_object_list_add(&objects, &objs[i]);
    if (rc)
        goto done;
    if (!opts.elf_path && !trace_reader_header(r)->program.binary_path && !count) {
        rc = error_set(TEA_ERR_USAGE, "%s: --call-paths decodes the traced program: the trace names no binary, "
                                      "give --elf BINARY",
                       path);
        goto done;
    }
    if (opts.adjust_vma_auto
        && (rc = trace_pcs_prefix(path, &req->open, TRACE_PCS_DEFAULT_RECORDS, &pcs, &opts.auto_pc_count)))
        goto done;
    opts.auto_pcs = pcs;
    rc = view_report_symbolize(z, &trace_reader_header(r)->program, &objects, NULL, &opts);
done:
    free(pcs);
    trace_object_list_free(&objects);
    trace_reader_close(r);
    return rc;
}

int study_run(const study_request *req, const char *path, tea_run *out)
{
    tea_run_options o = run_options(req);
    binary_symbolizer *z = NULL;
    trace_symmap functions;
    int rc;

    if (req->call_paths && (rc = open_classifier(req, path, &z))) {
        memset(out, 0, sizeof *out);
        trace_header_init(&out->header);
        return rc;
    }
    o.classify = z ? binary_symbolize_classify : NULL;
    o.classify_arg = z;
    rc = tea_run_trace(&o, path, out);
    binary_symbolize_close(z);
    if (rc || (rc = load_functions(req, out, &functions)))
        return rc;
    rc = tea_run_errors(out, &functions);
    trace_symmap_free(&functions);
    return rc;
}

int study_run_program(const study_request *req, const char *const *paths, size_t count, study_core_fn on_core,
                      void *ctx, tea_program *out)
{
    tea_run_options o = run_options(req), fixed;
    double freqs[STUDY_MAX_FREQS];
    trace_symmap functions, core_functions;
    int rc;

    memset(&functions, 0, sizeof functions);
    if ((rc = tea_program_frequencies(out, &o, paths, count, freqs, &fixed)))
        return rc;
    for (size_t k = 0; !rc && k < count; k++) {
        tea_run t;
        tea_run_options core = fixed;
        binary_symbolizer *z = NULL;
        if (req->call_paths && (rc = open_classifier(req, paths[k], &z)))
            break; /* each core's contexts from its own trace's objects; the program's merged by path */
        core.classify = z ? binary_symbolize_classify : NULL;
        core.classify_arg = z;
        rc = tea_run_trace(&core, paths[k], &t);
        binary_symbolize_close(z);
        if (!rc && !(rc = load_functions(req, &t, &core_functions))) {
            rc = tea_run_errors(&t, &core_functions);
            if (k == 0)
                functions = core_functions;
            else
                trace_symmap_free(&core_functions);
        }
        if (!rc && on_core)
            rc = on_core(ctx, k, &t);
        if (!rc)
            rc = tea_program_add(out, &t);
        tea_run_free(&t);
    }
    if (!rc)
        rc = tea_program_errors(out, &functions);
    trace_symmap_free(&functions);
    return rc;
}
