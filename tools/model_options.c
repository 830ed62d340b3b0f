/*
 * model_options.c: --config and --set of the model-driving commands (see
 * model_options.h).
 */
#include "model_options.h"
#include "common/error.h"

int model_option_config(const char *command, const cli_option *opt, const char *arg)
{
    int rc = model_config_load(opt->dest, arg);
    return rc ? cli_fail(command, rc) : CLI_CONTINUE;
}

int model_option_set(const char *command, const cli_option *opt, const char *arg)
{
    if (model_config_set_string(opt->dest, arg))
        return cli_usage_error(command, "%s", error_message());
    return CLI_CONTINUE;
}
