/* SPDX-License-Identifier: MIT */
/* symbols.c - method ids and the symbol queue to the writer; see symbols.h. */
#include "symbols.h"

#define _LGPL_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/wfcqueue.h>

#include "dump_writer.h"
#include "tsan.h"

struct pending {
	struct cds_wfcq_node node;
	uint32_t id;
	enum emp_frame_kind kind;
	uint32_t flags;
	char *klass, *name, *descriptor;
};

static _Atomic uint32_t next_id;
/* Any thread enqueues (wait-free); the writer thread is the only dequeuer. */
static struct __cds_wfcq_head q_head;
static struct cds_wfcq_tail q_tail;

void emp_symbols_setup(void)
{
	__cds_wfcq_init(&q_head, &q_tail);
}

int64_t emp_symbols_add_method(enum emp_frame_kind kind, uint32_t flags, const char *klass, const char *name,
			       const char *descriptor)
{
	struct pending *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->klass = strdup(klass ? klass : "");
	p->name = strdup(name ? name : "");
	p->descriptor = strdup(descriptor ? descriptor : "");
	if (!p->klass || !p->name || !p->descriptor) {
		free(p->klass);
		free(p->name);
		free(p->descriptor);
		free(p);
		return -1;
	}
	if (kind == EMP_FRAME_JAVA)
		for (char *c = p->klass; *c; c++)
			if (*c == '/')
				*c = '.';
	p->kind = kind;
	p->flags = flags;
	/* Relaxed: uniqueness only; the enqueue below publishes the entry (its xchg is a full barrier). */
	p->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
	cds_wfcq_node_init(&p->node);
	EMP_TSAN_RELEASE(p);
	cds_wfcq_enqueue(&q_head, &q_tail, &p->node);
	return p->id;
}

/* Interned methods: open addressing on the key "kind flags class name descriptor" (class with dots), grown at
 * half load; under intern_lock.  Entries live as long as the process (one per distinct traced method). */
struct intern_slot {
	char *key;
	int64_t id;
};
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct intern_slot *interned;
static size_t intern_cap, intern_n;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static struct intern_slot *intern_find(struct intern_slot *tab, size_t cap, const char *key)
{
	size_t mask = cap - 1;
	for (size_t i = (size_t)hash_str(key) & mask;; i = (i + 1) & mask)
		if (!tab[i].key || !strcmp(tab[i].key, key))
			return &tab[i];
}

static int intern_grow(void)
{
	size_t cap = intern_cap ? 2 * intern_cap : 1024;
	struct intern_slot *tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	for (size_t i = 0; i < intern_cap; i++)
		if (interned[i].key)
			*intern_find(tab, cap, interned[i].key) = interned[i];
	free(interned);
	interned = tab;
	intern_cap = cap;
	return 0;
}

int64_t emp_symbols_intern_method(enum emp_frame_kind kind, uint32_t flags, const char *klass, const char *name,
				  const char *descriptor, int *fresh)
{
	*fresh = 0;
	int n = snprintf(NULL, 0, "%d %u %s %s %s", (int)kind, flags, klass, name, descriptor);
	char *key = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!key)
		return -1;
	snprintf(key, (size_t)n + 1, "%d %u %s %s %s", (int)kind, flags, klass, name, descriptor);
	for (char *c = key; *c; c++)
		if (*c == '/')
			*c = '.'; /* class names come with slashes from the hook; descriptors are keyed the same way */
	int64_t id = -1;
	pthread_mutex_lock(&intern_lock);
	if (2 * (intern_n + 1) > intern_cap && intern_grow())
		goto out;
	struct intern_slot *slot = intern_find(interned, intern_cap, key);
	if (slot->key) {
		id = slot->id;
		goto out;
	}
	if ((id = emp_symbols_add_method(kind, flags, klass, name, descriptor)) < 0)
		goto out;
	slot->key = key;
	slot->id = id;
	key = NULL;
	intern_n++;
	*fresh = 1;
out:
	pthread_mutex_unlock(&intern_lock);
	free(key);
	return id;
}

int emp_symbols_drain(struct emp_dump_writer *w)
{
	struct cds_wfcq_node *n;
	int rc = 0;
	while ((n = __cds_wfcq_dequeue_blocking(&q_head, &q_tail)) != NULL) {
		struct pending *p = caa_container_of(n, struct pending, node);
		EMP_TSAN_ACQUIRE(p);
		if (!rc)
			rc = emp_dump_add_method(w, p->id, p->kind, p->flags, p->klass, p->name, p->descriptor);
		free(p->klass);
		free(p->name);
		free(p->descriptor);
		free(p);
	}
	return rc;
}
