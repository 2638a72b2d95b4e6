/* Commands beyond run and replay (which live in main.c): each takes the
 * command's argv (argv[0] the command name) and returns the exit code. */
#ifndef BN_CLI_CLI_H
#define BN_CLI_CLI_H

int bn_cli_run(int argc, char **argv);     /* main.c */
int bn_cli_devices(int argc, char **argv);
int bn_cli_selftest(int argc, char **argv);
int bn_cli_suite(int argc, char **argv);   /* cmd_suite.c */
int bn_cli_diff(int argc, char **argv);    /* cmd_diff.c */
int bn_cli_merge(int argc, char **argv);   /* cmd_merge.c */
extern const char bn_cli_devices_usage[];
extern const char bn_cli_selftest_usage[];
extern const char bn_cli_suite_usage[];
extern const char bn_cli_diff_usage[];
extern const char bn_cli_merge_usage[];

#endif
