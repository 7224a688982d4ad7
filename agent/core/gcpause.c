/* SPDX-License-Identifier: MIT */
/* gcpause.c - GC pauses from the JVMTI callbacks to the writer (gcpause.h has the ordering diagram). */
#include "gcpause.h"

#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"
#include "counters.h"

static struct {
	uint64_t start;                     /* producer only: ticks of the open pause, 0 = none */
	_Alignas(64) _Atomic uint64_t head; /* pauses published (producer) */
	_Alignas(64) _Atomic uint64_t tail; /* pauses read (consumer) */
	struct emp_pause slot[EMP_GCPAUSE_SLOTS];
} gc;

void emp_gcpause_start(void)
{
	gc.start = emp_clock_ticks();
}

void emp_gcpause_finish(void)
{
	uint64_t end = emp_clock_ticks();
	if (!gc.start) /* a finish whose start came before the events were enabled */
		return;
	/* Relaxed: only this (single) producer writes head. */
	uint64_t head = atomic_load_explicit(&gc.head, memory_order_relaxed);
	/* (A) acquire; pairs with (D) in emp_gcpause_drain(). */
	uint64_t tail = atomic_load_explicit(&gc.tail, memory_order_acquire);
	if (head - tail >= EMP_GCPAUSE_SLOTS) {
		emp_count(EMP_C_GC_PAUSE_FULL, 1);
	} else {
		gc.slot[head % EMP_GCPAUSE_SLOTS] =
			(struct emp_pause){ .kind = EMP_PAUSE_GC, .start = gc.start, .duration = end - gc.start };
		/* (B) release; pairs with (C): the slot is written before the head that covers it. */
		atomic_store_explicit(&gc.head, head + 1, memory_order_release);
		emp_count(EMP_C_GC_PAUSES, 1);
	}
	gc.start = 0;
}

size_t emp_gcpause_drain(struct emp_pause *out, size_t max)
{
	/* Relaxed: only this (single) consumer writes tail. */
	uint64_t tail = atomic_load_explicit(&gc.tail, memory_order_relaxed);
	/* (C) acquire; pairs with (B). */
	uint64_t head = atomic_load_explicit(&gc.head, memory_order_acquire);
	size_t n = 0;
	for (; tail != head && n < max; tail++)
		out[n++] = gc.slot[tail % EMP_GCPAUSE_SLOTS];
	/* (D) release; pairs with (A): the slots are read before the producer may reuse them. */
	atomic_store_explicit(&gc.tail, tail, memory_order_release);
	return n;
}
