/* SPDX-License-Identifier: MIT */
/* ring.h - lock-free single-producer/single-consumer byte ring, one per thread.
 *
 * Producer: the owning thread (trace probes) and the signal handlers that interrupt it (samples); the per-thread
 * nesting guard in thread.h keeps the two from ever being inside the producer side at the same time, so there is
 * exactly one producer.  Consumer: the writer thread.
 *
 * Records are 8-byte aligned and start with a u32 header: type in the top 8 bits, size in bytes (header included,
 * a multiple of 8) in the low 24; a type with EMP_REC_SHORT set is an 8-byte trace record whose low 24 bits hold
 * a method instead (see the trace records below).  A record never wraps: when it does not fit before the end of
 * the buffer, the producer fills the rest with one PAD record and starts at offset 0.
 *
 * Positions are free-running byte counts (head = bytes produced, tail = bytes consumed), so full and empty are
 * never ambiguous.  Memory ordering, in the style of perf's ring_buffer.h:
 *
 *   producer                               consumer (writer thread)
 *   (A) tail = load_acquire(&r->tail)       (C) head = load_acquire(&r->head)
 *       write the record payload                read records up to head
 *   (B) store_release(&r->head, new head)   (D) store_release(&r->tail, new tail)
 *
 *   (B) pairs with (C): the consumer sees a record's payload once it sees the head that covers it.
 *   (D) pairs with (A): the producer overwrites bytes only after the consumer has finished reading them.
 *
 * Every function here is async-signal-safe: loads, stores and memcpy-free arithmetic on memory allocated before
 * the thread could be signalled; no locks, no allocation.
 */
#ifndef EMP_RING_H
#define EMP_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum emp_ring_type {
	EMP_REC_PAD        = 0, /* filler up to the end of the buffer */
	EMP_REC_ENTER      = 1, /* a trace record, see below */
	EMP_REC_EXIT       = 2,
	EMP_REC_EXIT_THROW = 3,
	EMP_REC_SAMPLE     = 4, /* sampler's record, see sampler.h */
	EMP_REC_CPU        = 5, /* struct emp_rec_cpu */
};

#define EMP_REC_TYPE(hdr) ((hdr) >> 24)
#define EMP_REC_SIZE(hdr) ((hdr) & 0xffffffu)
#define EMP_REC_HDR(type, size) ((uint32_t)(type) << 24 | (uint32_t)(size))

/* A trace probe's record (ENTER, EXIT, EXIT_THROW) comes in two forms; emp_trace_rec_put() picks one and
 * emp_trace_rec_get() reads either.
 *   short, 8 bytes: a u32 header of type (EMP_REC_SHORT | EMP_REC_ENTER...) and the method id (24 bits), then a u32:
 *          the ticks since the ring's previous trace record (emp_ring.trace_ticks).  Nearly every record.
 *   long, 16 bytes (struct emp_rec_trace): the header of type EMP_REC_ENTER... and size 16, the method, the ticks.
 *          When the gap is 2^32 ticks or more (the ring's first trace record, a thread idle for a second or more:
 *          the TSC counts a few 10^9 a second) or, never yet seen, the method id is 2^24 or more (they stay below
 *          2^26, dump.h).
 * The short form halves the bytes a traced call moves through the ring: the ring holds twice the calls before its
 * producer must wait, and the writer reads half the memory (bench/README.md, "8-byte trace records"). */
#define EMP_REC_SHORT        0x80u
#define EMP_REC_SHORT_SIZE   8u
#define EMP_REC_SHORT_METHOD 0xffffffu

struct emp_rec_trace {
	uint32_t hdr;
	uint32_t method; /* method id given by the rewriter */
	uint64_t ticks;
};

/* The thread's CPU time at an iteration method's entry (after its ENTER) or exit (before its EXIT): 24 bytes. */
struct emp_rec_cpu {
	uint32_t hdr;
	uint32_t pad;
	uint64_t ticks;  /* those of the ENTER or EXIT it goes with */
	uint64_t cpu_ns; /* CLOCK_THREAD_CPUTIME_ID */
};

struct emp_ring {
	/* producer side */
	_Alignas(64) _Atomic uint64_t head; /* written only by the producer */
	uint64_t cached_tail;               /* producer's last view of tail */
	uint64_t reserved_head;             /* head after the pending reservation */
	uint64_t wake_at;                   /* emp_ring_commit_wake(): head at which to wake the writer next */
	uint64_t trace_ticks;               /* ticks of the last trace record written: the short form's base */
	/* consumer side */
	_Alignas(64) _Atomic uint64_t tail; /* written only by the consumer */
	/* constant after emp_ring_init() */
	_Alignas(64) uint64_t size;
	uint64_t mask;
	uint8_t *data;
};

/* emp_ring_init - allocate @size bytes (a power of two >= 4096).  Return: 0 or -ENOMEM.  Not signal-safe. */
int emp_ring_init(struct emp_ring *r, uint64_t size);
void emp_ring_destroy(struct emp_ring *r);

/**
 * emp_ring_reserve - room for a record of @len bytes (a multiple of 8, >= 8).
 * Return: a pointer to write the record to (header included), or NULL when the ring is full (nothing changed).
 * The record becomes visible to the consumer only at emp_ring_commit().  Async-signal-safe.
 */
static inline void *emp_ring_reserve(struct emp_ring *r, uint32_t len)
{
	/* Relaxed: head is written only by this (producer) thread. */
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t off = head & r->mask;
	uint64_t pad = off + len > r->size ? r->size - off : 0;
	if (head + pad + len - r->cached_tail > r->size) {
		/* (A) acquire; pairs with (D) in emp_ring_consume_end(). */
		r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (head + pad + len - r->cached_tail > r->size)
			return NULL;
	}
	if (pad) {
		*(uint32_t *)(void *)(r->data + off) = EMP_REC_HDR(EMP_REC_PAD, 0);
		head += pad;
		off = 0;
	}
	r->reserved_head = head + len;
	return r->data + off;
}

/* emp_ring_commit - publish the record of the last emp_ring_reserve().  Async-signal-safe. */
static inline void emp_ring_commit(struct emp_ring *r)
{
	/* (B) release: the record's bytes (and a PAD header) before the new head; pairs with (C). */
	atomic_store_explicit(&r->head, r->reserved_head, memory_order_release);
}

/* emp_ring_commit_wake - emp_ring_commit(), then say whether another quarter of the ring has been produced since
 * the last time this returned 1.  A producer that writes fast (trace probes) wakes the writer on a 1 so that the
 * writer, which sleeps while it has little to do, drains the ring long before it is full: without this a probe
 * filled a 1 MiB ring in ~3 ms and then waited for the writer's 10 ms nap to end.  Async-signal-safe. */
static inline int emp_ring_commit_wake(struct emp_ring *r)
{
	emp_ring_commit(r);
	if (__builtin_expect(r->reserved_head < r->wake_at, 1))
		return 0;
	r->wake_at = r->reserved_head + r->size / 4;
	return 1;
}

/* Consumer side (writer thread only). */

/* emp_ring_consume_begin - the range of readable bytes [*tail, *head).  Return: 1 when non-empty. */
static inline int emp_ring_consume_begin(struct emp_ring *r, uint64_t *tail, uint64_t *head)
{
	*tail = atomic_load_explicit(&r->tail, memory_order_relaxed); /* written only by us */
	/* (C) acquire; pairs with (B) in emp_ring_commit(). */
	*head = atomic_load_explicit(&r->head, memory_order_acquire);
	return *head != *tail;
}

/* emp_ring_record - the record at position @pos, and its size in *size (a PAD record stretches to the end of
 * the buffer).  Return: pointer to the record's header. */
static inline const uint8_t *emp_ring_record(const struct emp_ring *r, uint64_t pos, uint32_t *size)
{
	const uint8_t *p = r->data + (pos & r->mask);
	uint32_t hdr = *(const uint32_t *)(const void *)p;
	uint32_t type = EMP_REC_TYPE(hdr);
	if (type & EMP_REC_SHORT)
		*size = EMP_REC_SHORT_SIZE;
	else if (type == EMP_REC_PAD)
		*size = (uint32_t)(r->size - (pos & r->mask));
	else
		*size = EMP_REC_SIZE(hdr);
	return p;
}

/* emp_ring_consume_end - give the bytes up to @tail back to the producer. */
static inline void emp_ring_consume_end(struct emp_ring *r, uint64_t tail)
{
	/* (D) release: our reads of the records happen before the producer may reuse their bytes; pairs with (A). */
	atomic_store_explicit(&r->tail, tail, memory_order_release);
}

/* ---- trace records ---------------------------------------------------------------------------------------- */

/* emp_trace_rec_size - the bytes of the record emp_trace_rec_put() will write for @method at @now. */
static inline uint32_t emp_trace_rec_size(const struct emp_ring *r, uint32_t method, uint64_t now)
{
	/* Unsigned: a step back in time (TSC skew between CPUs) wraps to a large gap and takes the long form. */
	int fits = now - r->trace_ticks <= UINT32_MAX && method <= EMP_REC_SHORT_METHOD;
	return fits ? EMP_REC_SHORT_SIZE : sizeof(struct emp_rec_trace);
}

/* emp_trace_rec_put - write a trace record of @type (EMP_REC_ENTER, _EXIT, _EXIT_THROW) for @method at @now into
 * @rec, reserved with @len = emp_trace_rec_size(r, method, now) bytes (its form, chosen once), and make @now the
 * next record's base.  The caller then commits it.  Async-signal-safe. */
static inline void emp_trace_rec_put(struct emp_ring *r, void *rec, uint32_t len, uint32_t type, uint32_t method,
				     uint64_t now)
{
	if (__builtin_expect(len == EMP_REC_SHORT_SIZE, 1)) {
		uint32_t *w = rec;
		w[0] = EMP_REC_HDR(EMP_REC_SHORT | type, method);
		w[1] = (uint32_t)(now - r->trace_ticks);
	} else {
		struct emp_rec_trace *t = rec;
		t->hdr = EMP_REC_HDR(type, sizeof(*t));
		t->method = method;
		t->ticks = now;
	}
	r->trace_ticks = now;
}

/* emp_trace_rec_get - consumer side: when @rec is a trace record, its type (EMP_REC_ENTER...), method and ticks,
 * where *@base holds the ticks of the ring's previous trace record (0 before the first) and is moved on.
 * Return: 1 for a trace record, 0 for any other. */
static inline int emp_trace_rec_get(const uint8_t *rec, uint64_t *base, uint32_t *type, uint32_t *method,
				    uint64_t *ticks)
{
	uint32_t hdr = *(const uint32_t *)(const void *)rec;
	uint32_t t = EMP_REC_TYPE(hdr);
	if (t & EMP_REC_SHORT) {
		*type = t & ~EMP_REC_SHORT;
		*method = hdr & EMP_REC_SHORT_METHOD;
		*ticks = *base += ((const uint32_t *)(const void *)rec)[1];
		return 1;
	}
	if (t < EMP_REC_ENTER || t > EMP_REC_EXIT_THROW)
		return 0;
	const struct emp_rec_trace *tr = (const void *)rec;
	*type = t;
	*method = tr->method;
	*ticks = *base = tr->ticks;
	return 1;
}

#endif /* EMP_RING_H */
