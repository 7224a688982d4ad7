/* SPDX-License-Identifier: MIT */
/* argv.c - shell-like word splitting; see argv.h. */
#include "argv.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void emp_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

int emp_argv_split(const char *s, char ***argv, int *argc, const char **err)
{
	size_t len = strlen(s), nw = 0;
	char **words = emp_xcalloc(len / 2 + 2, sizeof(*words)); /* at most one word per two characters, + 1 */
	char *w = emp_xmalloc(len + 1);
	size_t wl = 0;
	int in_word = 0;
	*err = NULL;
	for (const char *p = s; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			if (in_word) {
				w[wl] = 0;
				words[nw++] = emp_xstrdup(w);
				wl = 0;
				in_word = 0;
			}
			continue;
		}
		in_word = 1;
		if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');
			if (!q) {
				*err = "unterminated single quote";
				break;
			}
			memcpy(w + wl, p + 1, (size_t)(q - p - 1));
			wl += (size_t)(q - p - 1);
			p = q;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\\\"$`", p[1]))
					p++;
				w[wl++] = *p;
			}
			if (!*p) {
				*err = "unterminated double quote";
				break;
			}
		} else if (*p == '\\') {
			if (!p[1]) {
				*err = "backslash at the end";
				break;
			}
			w[wl++] = *++p;
		} else {
			w[wl++] = *p;
		}
	}
	if (!*err && in_word) {
		w[wl] = 0;
		words[nw++] = emp_xstrdup(w);
	}
	if (!*err && nw == 0)
		*err = "no words";
	free(w);
	if (*err) {
		emp_argv_free(words);
		*argv = NULL;
		*argc = 0;
		return -1;
	}
	*argv = words;
	*argc = (int)nw;
	return 0;
}
