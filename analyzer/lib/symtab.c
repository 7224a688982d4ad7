/* SPDX-License-Identifier: MIT */
/* symtab.c - interned method symbols; see symtab.h.
 *
 * An open-addressing hash table (linear probing, power-of-two size, at most half full) maps the key
 * (kind, class, name, descriptor) to a global id; the symbols themselves live in a growing array.  A second one,
 * the same size, maps a Java symbol's (class, name) to the first symbol interned with them: the next one is an
 * overload, and both are marked. */
#include "symtab.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_reader.h"
#include "util.h"

#define EMPTY UINT32_MAX

struct emp_symtab {
	struct emp_sym *syms;
	uint32_t n, cap;
	uint32_t *slots; /* global ids, EMPTY when free */
	uint32_t *by_name; /* Java symbols by (class, name): the first global id, EMPTY when free */
	uint32_t nslots;   /* of each */
};

struct emp_symtab_map {
	struct emp_symtab *st;
	struct emp_dump_reader *r;
	uint32_t *ids; /* local → global, EMPTY when not looked up yet */
	uint32_t cap;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	/* FNV-1a, with the terminating 0 so that ("ab","c") and ("a","bc") differ */
	for (;; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
		if (!*s)
			return h;
	}
}

static uint64_t hash_key(enum emp_frame_kind kind, const char *klass, const char *name, const char *desc)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)kind;
	h = hash_str(h, klass);
	h = hash_str(h, name);
	return hash_str(h, desc);
}

static int same(const struct emp_sym *s, enum emp_frame_kind kind, const char *klass, const char *name,
		const char *desc)
{
	return s->kind == kind && !strcmp(s->klass, klass) && !strcmp(s->name, name) && !strcmp(s->descriptor, desc);
}

struct emp_symtab *emp_symtab_new(void)
{
	struct emp_symtab *st = emp_xcalloc(1, sizeof(*st));
	st->nslots = 1024;
	st->slots = emp_xmalloc(st->nslots * sizeof(*st->slots));
	memset(st->slots, 0xff, st->nslots * sizeof(*st->slots));
	st->by_name = emp_xmalloc(st->nslots * sizeof(*st->by_name));
	memset(st->by_name, 0xff, st->nslots * sizeof(*st->by_name));
	return st;
}

void emp_symtab_free(struct emp_symtab *st)
{
	if (!st)
		return;
	for (uint32_t i = 0; i < st->n; i++) {
		struct emp_sym *s = &st->syms[i];
		if (s->display_desc != s->display)
			free(s->display_desc);
		free(s->display);
		free(s->klass);
		free(s->name);
		free(s->descriptor);
	}
	free(st->syms);
	free(st->slots);
	free(st->by_name);
	free(st);
}

static uint32_t *probe(const struct emp_symtab *st, enum emp_frame_kind kind, const char *klass, const char *name,
		       const char *desc)
{
	uint32_t mask = st->nslots - 1;
	for (uint32_t i = (uint32_t)hash_key(kind, klass, name, desc) & mask;; i = (i + 1) & mask) {
		uint32_t id = st->slots[i];
		if (id == EMPTY || same(&st->syms[id], kind, klass, name, desc))
			return &st->slots[i];
	}
}

/* The by_name slot of Java symbol (@klass, @name): the first one interned, or the free slot where it belongs. */
static uint32_t *probe_name(const struct emp_symtab *st, const char *klass, const char *name)
{
	uint32_t mask = st->nslots - 1;
	uint64_t h = hash_str(hash_str(0xcbf29ce484222325ull, klass), name);
	for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
		uint32_t id = st->by_name[i];
		if (id == EMPTY || (!strcmp(st->syms[id].klass, klass) && !strcmp(st->syms[id].name, name)))
			return &st->by_name[i];
	}
}

static void grow_slots(struct emp_symtab *st)
{
	free(st->slots);
	free(st->by_name);
	st->nslots *= 2;
	st->slots = emp_xmalloc(st->nslots * sizeof(*st->slots));
	memset(st->slots, 0xff, st->nslots * sizeof(*st->slots));
	st->by_name = emp_xmalloc(st->nslots * sizeof(*st->by_name));
	memset(st->by_name, 0xff, st->nslots * sizeof(*st->by_name));
	for (uint32_t id = 0; id < st->n; id++) { /* in id order: each name's first symbol takes its slot again */
		const struct emp_sym *s = &st->syms[id];
		*probe(st, s->kind, s->klass, s->name, s->descriptor) = id;
		uint32_t *first = s->kind == EMP_FRAME_JAVA ? probe_name(st, s->klass, s->name) : NULL;
		if (first && *first == EMPTY)
			*first = id;
	}
}

static char *join(const char *a, const char *sep, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(sep) + strlen(b) + strlen(c) + 1;
	char *s = emp_xmalloc(n);
	snprintf(s, n, "%s%s%s%s", a, sep, b, c);
	return s;
}

static void make_display(struct emp_sym *s)
{
	switch (s->kind) {
	case EMP_FRAME_JAVA:
		s->display = *s->klass ? join(s->klass, ".", s->name, "") : emp_xstrdup(s->name);
		s->display_desc = *s->descriptor ? join(s->display, "", s->descriptor, "") : s->display;
		return;
	case EMP_FRAME_NATIVE:
		s->display = *s->klass ? join(s->klass, "!", s->name, "") : emp_xstrdup(s->name);
		break;
	case EMP_FRAME_PSEUDO:
		s->display = emp_xstrdup(s->name);
		break;
	}
	s->display_desc = s->display;
}

uint32_t emp_symtab_intern(struct emp_symtab *st, enum emp_frame_kind kind, uint32_t flags, const char *klass,
			   const char *name, const char *descriptor)
{
	klass = klass ? klass : "";
	name = name ? name : "";
	descriptor = descriptor ? descriptor : "";
	uint32_t *slot = probe(st, kind, klass, name, descriptor);
	if (*slot != EMPTY) {
		st->syms[*slot].flags |= flags;
		return *slot;
	}
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 256;
		st->syms = emp_xrealloc(st->syms, st->cap * sizeof(*st->syms));
	}
	uint32_t id = st->n++;
	struct emp_sym *s = &st->syms[id];
	s->kind = kind;
	s->flags = flags;
	s->klass = emp_xstrdup(klass);
	s->name = emp_xstrdup(name);
	s->descriptor = emp_xstrdup(descriptor);
	make_display(s);
	*slot = id;
	if (kind == EMP_FRAME_JAVA) {
		uint32_t *first = probe_name(st, klass, name);
		if (*first == EMPTY) {
			*first = id;
		} else { /* two methods that print alike without their descriptors */
			st->syms[*first].flags |= EMP_SYM_OVERLOADED;
			s->flags |= EMP_SYM_OVERLOADED;
		}
	}
	if (2 * st->n > st->nslots)
		grow_slots(st);
	return id;
}

void emp_symtab_mark_removed(struct emp_symtab *st, uint32_t gid)
{
	struct emp_sym *s = &st->syms[gid];
	if (s->flags & EMP_SYM_REMOVED)
		return;
	s->flags |= EMP_SYM_REMOVED;
	char *d = join(s->display, "", EMP_SYMTAB_REMOVED_MARK, "");
	if (s->display_desc != s->display) {
		char *dd = join(s->display_desc, "", EMP_SYMTAB_REMOVED_MARK, "");
		free(s->display_desc);
		s->display_desc = dd;
		free(s->display);
		s->display = d;
	} else {
		free(s->display);
		s->display = s->display_desc = d;
	}
}

int64_t emp_symtab_find(const struct emp_symtab *st, enum emp_frame_kind kind, const char *klass, const char *name,
			const char *descriptor)
{
	uint32_t id = *probe(st, kind, klass ? klass : "", name ? name : "", descriptor ? descriptor : "");
	return id == EMPTY ? -1 : (int64_t)id;
}

uint32_t emp_symtab_count(const struct emp_symtab *st)
{
	return st->n;
}

const struct emp_sym *emp_symtab_get(const struct emp_symtab *st, uint32_t gid)
{
	return &st->syms[gid];
}

const char *emp_symtab_name(const struct emp_symtab *st, uint32_t gid, int with_desc)
{
	const struct emp_sym *s = &st->syms[gid];
	return with_desc || (s->flags & EMP_SYM_OVERLOADED) ? s->display_desc : s->display;
}

struct emp_symtab_map *emp_symtab_map_new(struct emp_symtab *st, struct emp_dump_reader *r)
{
	struct emp_symtab_map *m = emp_xcalloc(1, sizeof(*m));
	m->st = st;
	m->r = r;
	return m;
}

void emp_symtab_map_free(struct emp_symtab_map *m)
{
	if (!m)
		return;
	free(m->ids);
	free(m);
}

/* A hidden class's name without what differs from one JVM to the next: the address suffix HotSpot appends
 * (JdbcLoad$$Lambda$10.0x00007f156c0bcf78, LambdaForm$MH/0x0000000800c03000) and, for a lambda, the spin counter
 * of JDK 17 ($$Lambda$10; JDK 21+ has none): both JdbcLoad$$Lambda, so that the contexts of several runs (compare,
 * several dumps in one profile) meet.  The lambda's own method, the next frame, still tells lambdas apart.
 * Return: @klass, or @buf holding the shortened name. */
static const char *hidden_class(const char *klass, char *buf, size_t len)
{
	size_t n = strlen(klass), k = n;
	while (k && isxdigit((unsigned char)klass[k - 1]))
		k--;
	/* HotSpot prints the address as 0x and 16 hex digits; 8 or more are asked for */
	if (n - k < 8 || k < 3 || klass[k - 1] != 'x' || klass[k - 2] != '0' || (klass[k - 3] != '.' && klass[k - 3] != '/'))
		return klass;
	k -= 3;
	size_t d = k;
	while (d && isdigit((unsigned char)klass[d - 1]))
		d--;
	static const char lambda[] = "$$Lambda$";
	if (d < k && d >= sizeof(lambda) - 1 && !memcmp(klass + d - (sizeof(lambda) - 1), lambda, sizeof(lambda) - 1))
		k = d - 1;
	if (k >= len)
		return klass;
	memcpy(buf, klass, k);
	buf[k] = 0;
	return buf;
}

uint32_t emp_symtab_map_get(struct emp_symtab_map *m, uint32_t local)
{
	if (local >= m->cap) {
		uint32_t n = m->cap ? m->cap : 256;
		while (n <= local)
			n *= 2;
		m->ids = emp_xrealloc(m->ids, n * sizeof(*m->ids));
		memset(m->ids + m->cap, 0xff, (n - m->cap) * sizeof(*m->ids));
		m->cap = n;
	}
	if (m->ids[local] != EMPTY)
		return m->ids[local];
	const struct emp_dump_method *d = m->r ? emp_dump_method(m->r, local) : NULL;
	char buf[1024];
	const char *klass = d && d->kind == EMP_FRAME_JAVA && d->klass ? hidden_class(d->klass, buf, sizeof(buf)) : NULL;
	uint32_t gid = d ? emp_symtab_intern(m->st, d->kind, d->flags, klass ? klass : d->klass, d->name, d->descriptor)
			 : emp_symtab_intern(m->st, EMP_FRAME_PSEUDO, 0, "", "[undefined_symbol]", "");
	/* An undefined id is not cached: a later SYMBOLS chunk may still define it. */
	if (d)
		m->ids[local] = gid;
	return gid;
}
