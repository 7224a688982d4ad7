/* SPDX-License-Identifier: MIT */
/* filter.c - glob include/exclude filters over "class" and "class.method" (see filter.h). */
#include "filter.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pat {
	char *text;
	bool include;
};

struct emp_filter {
	struct pat *p;
	size_t n, cap, nincl;
};

struct emp_filter *emp_filter_new(void)
{
	return calloc(1, sizeof(struct emp_filter));
}

void emp_filter_free(struct emp_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->p[i].text);
	free(f->p);
	free(f);
}

size_t emp_filter_include_count(const struct emp_filter *f)
{
	return f->nincl;
}

static bool ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '$' || c >= 0x80;
}

/* NULL when valid, else why not. */
static const char *pattern_problem(const char *s, size_t n)
{
	if (n == 0)
		return "empty pattern";
	if (s[0] == '.' || s[n - 1] == '.')
		return "leading or trailing '.'";
	const char *lastdot = NULL;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.')
			lastdot = s + i;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '.' && i + 1 < n && s[i + 1] == '.')
			return "'..'";
		if (c == '<' || c == '>') {
			const char *m = lastdot ? lastdot + 1 : NULL;
			size_t ml = m ? (size_t)(s + n - m) : 0;
			if (!m || !((ml == 6 && memcmp(m, "<init>", 6) == 0) || (ml == 8 && memcmp(m, "<clinit>", 8) == 0)))
				return "'<' or '>' outside .<init>/.<clinit>";
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			return "whitespace";
		if (!ident_char(c) && c != '.' && c != '*')
			return "character not allowed in a class or method name pattern";
	}
	return NULL;
}

static void set_err(char *err, size_t errlen, const char *kind, const char *pat, size_t n, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "invalid %s pattern '%.*s': %s", kind, (int)(n > 200 ? 200 : n), pat, why);
}

int emp_filter_add(struct emp_filter *f, const char *kind, const char *value, char *err, size_t errlen)
{
	bool include;
	if (kind && strcmp(kind, "include") == 0) {
		include = true;
	} else if (kind && strcmp(kind, "exclude") == 0) {
		include = false;
	} else {
		if (err && errlen)
			snprintf(err, errlen, "unknown filter kind '%s' (want include or exclude)", kind ? kind : "(null)");
		return -EINVAL;
	}
	if (!value)
		value = "";
	/* Validate everything first so that a bad value adds nothing. */
	size_t count = 0;
	for (const char *s = value;;) {
		const char *e = strchr(s, ';');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		const char *why = pattern_problem(s, n);
		if (why) {
			set_err(err, errlen, kind, s, n, why);
			return -EINVAL;
		}
		count++;
		if (!e)
			break;
		s = e + 1;
	}
	if (f->n + count > f->cap) {
		size_t cap = f->cap ? f->cap : 8;
		while (cap < f->n + count)
			cap *= 2;
		struct pat *np = realloc(f->p, cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		f->p = np;
		f->cap = cap;
	}
	size_t first = f->n;
	for (const char *s = value;;) {
		const char *e = strchr(s, ';');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		char *t = strndup(s, n);
		if (!t) {
			while (f->n > first)
				free(f->p[--f->n].text);
			return -ENOMEM;
		}
		f->p[f->n].text = t;
		f->p[f->n++].include = include;
		if (!e)
			break;
		s = e + 1;
	}
	if (include)
		f->nincl += count;
	return 0;
}

/* The subject is the virtual string  klass ['.' method]  with '/' read as '.'. */
struct subj {
	const char *k, *m;
	size_t kn, mn;
};

static inline int subj_at(const struct subj *s, size_t i)
{
	if (i < s->kn)
		return s->k[i] == '/' ? '.' : (unsigned char)s->k[i];
	if (!s->m)
		return -1;
	if (i == s->kn)
		return '.';
	i -= s->kn + 1;
	return i < s->mn ? (unsigned char)s->m[i] : -1;
}

/* Glob match of @pat against the subject (iterative, backtracking to the last '*').  With @prefix,
 * success as soon as the whole subject is consumed (some extension of the subject would match). */
static bool glob(const char *pat, const struct subj *s, bool prefix)
{
	size_t p = 0, i = 0, star_p = SIZE_MAX, star_i = 0;
	for (;;) {
		int c = subj_at(s, i);
		if (pat[p] == '*') {
			star_p = p++;
			star_i = i;
			continue;
		}
		if (c < 0) /* subject consumed: the rest of the pattern must be empty (or anything) */
			return prefix || pat[p] == 0;
		if (pat[p] != 0 && (unsigned char)pat[p] == c) {
			p++;
			i++;
			continue;
		}
		if (star_p == SIZE_MAX)
			return false;
		p = star_p + 1; /* let the last '*' swallow one more character */
		i = ++star_i;
	}
}

bool emp_filter_is_emp_class(const char *k)
{
	/* emp/Probe, emp/Guard, their nested classes (binary or internal form) and the emp/agent/ package. */
	if (strncmp(k, "emp", 3) != 0 || (k[3] != '/' && k[3] != '.'))
		return false;
	const char *r = k + 4;
	if ((strncmp(r, "Probe", 5) == 0 || strncmp(r, "Guard", 5) == 0) && (r[5] == 0 || r[5] == '$'))
		return true;
	return strncmp(r, "agent", 5) == 0 && (r[5] == '/' || r[5] == '.');
}

static bool pat_matches(const char *pat, const char *klass, size_t kn, const char *method)
{
	struct subj cls = { klass, NULL, kn, 0 };
	if (glob(pat, &cls, false))
		return true;
	struct subj full = { klass, method, kn, strlen(method) };
	return glob(pat, &full, false);
}

bool emp_filter_selects(const struct emp_filter *f, const char *klass, const char *method)
{
	if (!f->nincl || emp_filter_is_emp_class(klass))
		return false;
	size_t kn = strlen(klass);
	bool inc = false;
	for (size_t i = 0; i < f->n && !inc; i++)
		if (f->p[i].include && pat_matches(f->p[i].text, klass, kn, method))
			inc = true;
	if (!inc)
		return false;
	for (size_t i = 0; i < f->n; i++)
		if (!f->p[i].include && pat_matches(f->p[i].text, klass, kn, method))
			return false;
	return true;
}

bool emp_filter_may_select_class(const struct emp_filter *f, const char *klass)
{
	if (!f->nincl || emp_filter_is_emp_class(klass))
		return false;
	size_t kn = strlen(klass);
	struct subj cls = { klass, NULL, kn, 0 };
	struct subj dotted = { klass, "", kn, 0 }; /* "klass." then any method */
	for (size_t i = 0; i < f->n; i++)
		if (!f->p[i].include && glob(f->p[i].text, &cls, false))
			return false; /* an exclude matching the class itself drops every method */
	for (size_t i = 0; i < f->n; i++)
		if (f->p[i].include && (glob(f->p[i].text, &cls, false) || glob(f->p[i].text, &dotted, true)))
			return true;
	return false;
}
