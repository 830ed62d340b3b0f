/*
 * commands.h: entry points of the `tea` subcommands. Each takes the
 * subcommand's own argv (argv[0] is "tea <name>") and returns an exit status.
 */
#ifndef TEA_TOOLS_COMMANDS_H
#define TEA_TOOLS_COMMANDS_H

int cmd_tea_info(int argc, char **argv);
int cmd_tea_convert(int argc, char **argv);
int cmd_tea_gen(int argc, char **argv);
int cmd_tea_replay(int argc, char **argv);
int cmd_tea_record(int argc, char **argv);
int cmd_tea_simpoint(int argc, char **argv);
int cmd_tea_topdown(int argc, char **argv);
int cmd_tea_stalls(int argc, char **argv);
int cmd_tea_sweep(int argc, char **argv);

/* `pics` subcommands. */
int cmd_pics_export(int argc, char **argv);
int cmd_pics_error(int argc, char **argv);
int cmd_pics_merge(int argc, char **argv);
int cmd_pics_import(int argc, char **argv);
int cmd_pics_plot(int argc, char **argv);
int cmd_pics_flamegraph(int argc, char **argv);
int cmd_pics_diff(int argc, char **argv);
int cmd_pics_report(int argc, char **argv);
int cmd_pics_annotate(int argc, char **argv);
int cmd_pics_table(int argc, char **argv);
int cmd_pics_correlate(int argc, char **argv);

#endif
