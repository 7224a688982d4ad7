/* SPDX-License-Identifier: MIT */
/* tidmap.c - OS thread id -> pointer map that a signal handler can read without locks (sample mode,
 * threads=all: the handler on a JVM thread finds that thread's sampler state by its tid, because such a thread has
 * no emp_tls_thread).  See sampler.h for the API and its synchronization table.
 *
 * Fixed-size open addressing with linear probing; the capacity is set once (no resize, so a reader never meets a
 * table being moved).  A slot holds a key (0 = never used, EMP_TIDMAP_TOMB = removed, else the tid), a value and a
 * count of readers inside.  Removed slots stay tombstones so that the probe chains of other keys stay intact; a
 * later put() reuses them.
 *
 * Memory ordering, writer (put/remove, serialized by the caller's lock) against readers (enter/leave, signal
 * handlers on any thread):
 *
 *   writer put                                 reader enter
 *   (W1) store_release(&value, v)               (R1) key = load_acquire(&tid)           key == wanted?
 *   (W2) store_release(&tid, key)               (R2) fetch_add(&busy, 1)       seq_cst
 *                                               (R3) v = load(&value)          seq_cst
 *   writer remove                               (R5) load_acquire(&tid) == wanted, else give up
 *   (W3) store(&value, NULL)        seq_cst     ... use v ...
 *   (W4) while (load(&busy)) wait   seq_cst     (R4) fetch_sub(&busy, 1)       release   (leave)
 *   (W5) store_release(&tid, TOMB)
 *
 *   (W2) pairs with (R1): a reader that sees the key sees the slot's value stored before it (W1).
 *   (W3)/(W4) against (R2)/(R3) is Dekker's pattern, all seq_cst: either the reader's (R3) comes before (W3) in the
 *       single total order, then its (R2) does too and (W4) sees busy > 0 and waits; or (R3) reads NULL (or a
 *       later value) and the reader gives up.  So once remove() returns, no reader holds the old value: the caller
 *       may free it.
 *   (R4) pairs with (W4): everything the reader did with the value happens before remove() returns.
 *   (W1) pairs with (R3), for a slot reused for another key: a reader that matched the old key at (R1), then was
 *       delayed, and reads the new value at (R3) sees (W5)'s TOMB (or the new key) at (R5) — stored before (W1) by
 *       the writer — and gives up instead of taking another thread's state.
 *
 * Why a writer never waits forever at (W4): a reader is inside only for one sample (microseconds); a reader on the
 * writer's own thread cannot be inside while the writer runs (a signal handler runs to completion before the code
 * it interrupted resumes).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "sampler.h"

#define EMP_TIDMAP_TOMB ((pid_t)-1)

static uint32_t slot_of(const struct emp_tidmap *m, pid_t tid)
{
	/* Fibonacci hashing: consecutive tids (the usual case) spread over the table. */
	return (uint32_t)(((uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ull) >> 32) & m->mask;
}

int emp_tidmap_init(struct emp_tidmap *m, uint32_t capacity)
{
	m->slots = NULL;
	m->mask = 0;
	m->live = 0;
	if (capacity < 2 || (capacity & (capacity - 1)))
		return -EINVAL;
	m->slots = calloc(capacity, sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	m->mask = capacity - 1;
	return 0;
}

void emp_tidmap_destroy(struct emp_tidmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->live = 0;
}

/* Writer side: the slot holding @tid, or NULL; *@free_slot (when given) gets the first reusable slot of the
 * probe chain (tombstone or empty), or NULL when the chain has none. */
static struct emp_tidmap_slot *find(const struct emp_tidmap *m, pid_t tid, struct emp_tidmap_slot **free_slot)
{
	struct emp_tidmap_slot *reuse = NULL;
	uint32_t i = slot_of(m, tid);
	for (uint32_t n = 0; n <= m->mask; n++, i = (i + 1) & m->mask) {
		struct emp_tidmap_slot *s = &m->slots[i];
		/* Relaxed: keys are written only by the writer, which is the caller. */
		pid_t k = atomic_load_explicit(&s->tid, memory_order_relaxed);
		if (k == tid) {
			if (free_slot)
				*free_slot = reuse;
			return s;
		}
		if (k == EMP_TIDMAP_TOMB && !reuse)
			reuse = s;
		if (k == 0) {
			if (!reuse)
				reuse = s;
			break;
		}
	}
	if (free_slot)
		*free_slot = reuse;
	return NULL;
}

int emp_tidmap_put(struct emp_tidmap *m, pid_t tid, void *value)
{
	struct emp_tidmap_slot *s;
	if (tid <= 0 || !value)
		return -EINVAL;
	if (find(m, tid, &s))
		return -EEXIST;
	/* At most half the slots hold keys, so probe chains stay short and an empty slot ends most of them. */
	if (!s || 2 * (m->live + 1) > m->mask + 1)
		return -ENOSPC;
	/* (W1) release: pairs with (R3) of a delayed reader of the slot's previous key, see the file comment. */
	atomic_store_explicit(&s->value, value, memory_order_release);
	/* (W2) release: the value before the key; pairs with (R1). */
	atomic_store_explicit(&s->tid, tid, memory_order_release);
	m->live++;
	return 0;
}

void *emp_tidmap_get(const struct emp_tidmap *m, pid_t tid)
{
	struct emp_tidmap_slot *s = tid > 0 ? find(m, tid, NULL) : NULL;
	/* Relaxed: the caller is the writer, which stored the value itself. */
	return s ? atomic_load_explicit(&s->value, memory_order_relaxed) : NULL;
}

void *emp_tidmap_remove(struct emp_tidmap *m, pid_t tid)
{
	struct emp_tidmap_slot *s = tid > 0 ? find(m, tid, NULL) : NULL;
	if (!s)
		return NULL;
	void *v = atomic_load_explicit(&s->value, memory_order_relaxed); /* the writer's own store */
	/* (W3) seq_cst: hide the value; with (W4), Dekker's pattern against (R2)/(R3). */
	atomic_store_explicit(&s->value, NULL, memory_order_seq_cst);
	/* (W4) seq_cst, and acquire for (R4): wait until no reader holds the value. */
	while (atomic_load_explicit(&s->busy, memory_order_seq_cst))
		sched_yield();
	/* (W5) release: a tombstone keeps the probe chains of other keys intact; ordered before a reuse's (W1). */
	atomic_store_explicit(&s->tid, EMP_TIDMAP_TOMB, memory_order_release);
	m->live--;
	return v;
}

void *emp_tidmap_enter(struct emp_tidmap *m, pid_t tid, struct emp_tidmap_slot **held)
{
	/* Async-signal-safe: atomic loads and adds on memory allocated at init and never freed while readers run. */
	if (!m->slots || tid <= 0)
		return NULL;
	uint32_t i = slot_of(m, tid);
	for (uint32_t n = 0; n <= m->mask; n++, i = (i + 1) & m->mask) {
		struct emp_tidmap_slot *s = &m->slots[i];
		/* (R1) acquire; pairs with (W2). */
		pid_t k = atomic_load_explicit(&s->tid, memory_order_acquire);
		if (k == 0)
			return NULL;
		if (k != tid)
			continue;
		/* (R2), (R3) seq_cst: Dekker's pattern against (W3)/(W4). */
		atomic_fetch_add_explicit(&s->busy, 1, memory_order_seq_cst);
		void *v = atomic_load_explicit(&s->value, memory_order_seq_cst);
		/* (R5) acquire: the slot still holds our key (not removed and reused since (R1)). */
		if (v && atomic_load_explicit(&s->tid, memory_order_acquire) == tid) {
			*held = s;
			return v;
		}
		/* (R4) release; pairs with (W4). */
		atomic_fetch_sub_explicit(&s->busy, 1, memory_order_release);
		return NULL; /* being removed: the key is absent from now on */
	}
	return NULL;
}

void emp_tidmap_leave(struct emp_tidmap_slot *held)
{
	/* (R4) release; pairs with (W4) in emp_tidmap_remove().  Async-signal-safe. */
	atomic_fetch_sub_explicit(&held->busy, 1, memory_order_release);
}
