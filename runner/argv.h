/* SPDX-License-Identifier: MIT */
/* argv.h - split a command line the way a POSIX shell splits words, without running a shell.
 *
 * Words are separated by unquoted blanks (space, tab, newline).  'single quotes' keep everything up to the next
 * single quote; "double quotes" keep everything but a backslash before one of \ " $ ` (which stands for that
 * character); an unquoted backslash keeps the next character.  No expansion of any kind: $VAR, ~, globs, ;, |, >
 * are ordinary characters.  "" and '' make an empty word. */
#ifndef EMP_ARGV_H
#define EMP_ARGV_H

/* emp_argv_split - the words of @s as a NULL-terminated malloc'ed array of malloc'ed strings in *@argv (free
 * with emp_argv_free()), their number in *@argc.
 * Return: 0, or -1 with *@err naming the problem ("unterminated single quote", "unterminated double quote",
 * "backslash at the end", "no words"); *@argv is NULL then. */
int emp_argv_split(const char *s, char ***argv, int *argc, const char **err);
void emp_argv_free(char **argv);

#endif /* EMP_ARGV_H */
