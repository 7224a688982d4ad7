/* SPDX-License-Identifier: MIT */
/* gcpause.c - pauses of the whole JVM from their producers to the writer (gcpause.h has the ordering diagram). */
#include "gcpause.h"

#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"
#include "counters.h"

/* One single-producer, single-consumer array per producer. */
struct queue {
	_Alignas(64) _Atomic uint64_t head; /* pauses published (producer) */
	_Alignas(64) _Atomic uint64_t tail; /* pauses read (consumer) */
	struct emp_pause slot[EMP_GCPAUSE_SLOTS];
};

static struct queue gc, sp;
static uint64_t gc_start; /* GC callbacks only: ticks of the open GC pause, 0 = none */

/* Producer side.  Return: 0, or -1 when the array is full (the pause is dropped). */
static int push(struct queue *q, const struct emp_pause *p)
{
	/* Relaxed: only this (single) producer writes head. */
	uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
	/* (A) acquire; pairs with (D) in drain(). */
	uint64_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
	if (head - tail >= EMP_GCPAUSE_SLOTS)
		return -1;
	q->slot[head % EMP_GCPAUSE_SLOTS] = *p;
	/* (B) release; pairs with (C): the slot is written before the head that covers it. */
	atomic_store_explicit(&q->head, head + 1, memory_order_release);
	return 0;
}

static size_t drain(struct queue *q, struct emp_pause *out, size_t max)
{
	/* Relaxed: only this (single) consumer writes tail. */
	uint64_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
	/* (C) acquire; pairs with (B). */
	uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);
	size_t n = 0;
	for (; tail != head && n < max; tail++)
		out[n++] = q->slot[tail % EMP_GCPAUSE_SLOTS];
	/* (D) release; pairs with (A): the slots are read before the producer may reuse them. */
	atomic_store_explicit(&q->tail, tail, memory_order_release);
	return n;
}

void emp_gcpause_start(void)
{
	gc_start = emp_clock_ticks();
}

void emp_gcpause_finish(void)
{
	uint64_t end = emp_clock_ticks();
	if (!gc_start) /* a finish whose start came before the events were enabled */
		return;
	struct emp_pause p = { .kind = EMP_PAUSE_GC, .start = gc_start, .duration = end - gc_start };
	emp_count(push(&gc, &p) ? EMP_C_GC_PAUSE_FULL : EMP_C_GC_PAUSES, 1);
	gc_start = 0;
}

uint64_t emp_gcpause_finished(void)
{
	return emp_counter_get(EMP_C_GC_PAUSES) + emp_counter_get(EMP_C_GC_PAUSE_FULL);
}

void emp_gcpause_safepoint(const struct emp_pause *p)
{
	emp_count(push(&sp, p) ? EMP_C_SAFEPOINT_PAUSE_FULL : EMP_C_SAFEPOINT_PAUSES, 1);
}

size_t emp_gcpause_drain(struct emp_pause *out, size_t max)
{
	size_t n = drain(&gc, out, max);
	return n + drain(&sp, out + n, max - n);
}
