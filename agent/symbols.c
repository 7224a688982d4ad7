/* SPDX-License-Identifier: MIT */
/* symbols.c - method ids and the symbol queue to the writer; see symbols.h. */
#include "symbols.h"

#define _LGPL_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/wfcqueue.h>

#include "dump_writer.h"

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
	cds_wfcq_enqueue(&q_head, &q_tail, &p->node);
	return p->id;
}

int emp_symbols_drain(struct emp_dump_writer *w)
{
	struct cds_wfcq_node *n;
	int rc = 0;
	while ((n = __cds_wfcq_dequeue_blocking(&q_head, &q_tail)) != NULL) {
		struct pending *p = caa_container_of(n, struct pending, node);
		if (!rc)
			rc = emp_dump_add_method(w, p->id, p->kind, p->flags, p->klass, p->name, p->descriptor);
		free(p->klass);
		free(p->name);
		free(p->descriptor);
		free(p);
	}
	return rc;
}
