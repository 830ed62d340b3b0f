/*
 * commands.h: entry points of the `tea` subcommands. Each takes the
 * subcommand's own argv (argv[0] is "tea <name>") and returns an exit status.
 */
#ifndef TEA_TOOLS_COMMANDS_H
#define TEA_TOOLS_COMMANDS_H

int tea_info_main(int argc, char **argv);
int tea_convert_main(int argc, char **argv);
int tea_gen_main(int argc, char **argv);

#endif
