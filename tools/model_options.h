/*
 * model_options.h: the options of the commands that drive the core model
 * (`tea gen`, `tea record`): --config FILE and --set KEY=VALUE, as cli_option
 * entries (cli.h) that change the mconf they point at, in command-line order.
 */
#ifndef TEA_TOOLS_MODEL_OPTIONS_H
#define TEA_TOOLS_MODEL_OPTIONS_H

#include "cli.h"
#include "model/config.h"

/* --config FILE: loads FILE into the mconf at `conf` (model_option_config). */
#define MODEL_OPTIONS_CONFIG(conf, help_)                                                                              \
    CLI_CALL("config", 0, "FILE", model_option_config, (1 ? (conf) : (model_config *)0), help_)
/* --set KEY=VALUE: sets one parameter of the mconf at `conf`. */
#define MODEL_OPTIONS_SET(conf)                                                                                        \
    CLI_CALL("set", 0, "KEY=VALUE", model_option_set, (1 ? (conf) : (model_config *)0),                                \
             "one parameter (repeatable; after --config)")

/* Their callbacks: `opt->dest` is the mconf. A file that cannot be loaded
 * ends the command with its data error; a bad assignment with a usage error. */
int model_option_config(const char *command, const cli_option *opt, const char *arg);
int model_option_set(const char *command, const cli_option *opt, const char *arg);

#endif
