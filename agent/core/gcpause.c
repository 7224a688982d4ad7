/* SPDX-License-Identifier: MIT */
/* gcpause.c - pauses of the whole JVM from their producers to the writer (gcpause.h has the ordering diagram). */
#include "gcpause.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "counters.h"

/* One single-producer, single-consumer array per producer. */
struct queue {
	_Alignas(64) _Atomic uint64_t head; /* pauses published (producer) */
	_Alignas(64) _Atomic uint64_t tail; /* pauses read (consumer) */
	struct emp_pause slot[EMP_GCPAUSE_SLOTS];
};

static struct queue gc, sp;
/* Ticks of the open GC pause, 0 = none: written by the GC callbacks, read by emp_gcpause_close(). */
static _Atomic uint64_t gc_start;
static _Atomic int gc_closed; /* 1 once the recording ended: no new pause opens */

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
	/* (E) seq_cst store, then (F) seq_cst load: with (G) and (H) in emp_gcpause_close(), either this sees the
	 * close and withdraws, or the closer sees this pause open and waits for its finish (store-then-load on both
	 * sides, so one of the two loads sees the other's store). */
	atomic_store(&gc_start, emp_clock_ticks());
	if (atomic_load(&gc_closed))
		atomic_store_explicit(&gc_start, 0, memory_order_release);
}

void emp_gcpause_finish(void)
{
	uint64_t end = emp_clock_ticks();
	uint64_t start = atomic_load_explicit(&gc_start, memory_order_relaxed); /* only the GC callbacks write it */
	if (!start) /* a finish whose start came before the events were enabled, or after the close */
		return;
	struct emp_pause p = { .kind = EMP_PAUSE_GC, .start = start, .duration = end - start };
	emp_count(push(&gc, &p) ? EMP_C_GC_PAUSE_FULL : EMP_C_GC_PAUSES, 1);
	/* (I) release; pairs with (H): the pause is pushed and counted before the closer sees none open. */
	atomic_store_explicit(&gc_start, 0, memory_order_release);
}

int emp_gcpause_close(uint64_t timeout_ns, uint64_t *closed_mono_ns)
{
	atomic_store(&gc_closed, 1); /* (G) */
	*closed_mono_ns = emp_clock_ns(CLOCK_MONOTONIC);
	uint64_t until = *closed_mono_ns + timeout_ns;
	while (atomic_load(&gc_start)) { /* (H) */
		if (emp_clock_ns(CLOCK_MONOTONIC) >= until)
			return -1;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	return 0;
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
