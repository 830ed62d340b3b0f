/*
 * commands.h: entry points of the `tea` subcommands. Each takes the
 * subcommand's own argv (argv[0] is "tea <name>") and returns an exit status.
 */
#ifndef TEA_TOOLS_COMMANDS_H
#define TEA_TOOLS_COMMANDS_H

int tea_info_main(int argc, char **argv);
int tea_convert_main(int argc, char **argv);
int tea_gen_main(int argc, char **argv);
int tea_replay_main(int argc, char **argv);
int tea_record_main(int argc, char **argv);
int tea_topdown_main(int argc, char **argv);
int tea_stalls_main(int argc, char **argv);
int tea_sweep_main(int argc, char **argv);

/* `pics` subcommands. */
int pics_export_main(int argc, char **argv);
int pics_error_main(int argc, char **argv);
int pics_merge_main(int argc, char **argv);
int pics_plot_main(int argc, char **argv);
int pics_flamegraph_main(int argc, char **argv);
int pics_diff_main(int argc, char **argv);
int pics_report_main(int argc, char **argv);
int pics_annotate_main(int argc, char **argv);
int pics_table_main(int argc, char **argv);
int pics_correlate_main(int argc, char **argv);

#endif
