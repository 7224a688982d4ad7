/* SPDX-License-Identifier: MIT */
/* commands.h - emp-analyze's commands: each is cmd_<name>.c with an entry point taking the command's own argv
 * (argv[0] = command name) and returning the exit status. */
#ifndef EMP_COMMANDS_H
#define EMP_COMMANDS_H

int emp_cmd_info(int argc, char **argv);
int emp_cmd_tree(int argc, char **argv);
int emp_cmd_top(int argc, char **argv);
int emp_cmd_collapsed(int argc, char **argv);
int emp_cmd_flame(int argc, char **argv);
int emp_cmd_calls(int argc, char **argv);
int emp_cmd_export(int argc, char **argv);
int emp_cmd_receive(int argc, char **argv);
int emp_cmd_overhead(int argc, char **argv);
int emp_cmd_compare(int argc, char **argv);
int emp_cmd_exactness(int argc, char **argv);
int emp_cmd_report(int argc, char **argv);
int emp_cmd_latency(int argc, char **argv);

#endif /* EMP_COMMANDS_H */
