/* SPDX-License-Identifier: MIT */
/* calls.h - the figures `emp-analyze calls` gives per traced method: calls, threw, total and self time, max, and
 * quantiles of the inclusive duration.
 *
 * Quantiles come from a log-linear histogram per method (32 buckets per power of two of the duration in ns, exact
 * below 32 ns; counters allocated for the powers of two between the shortest and longest call): the value reported is the middle of the bucket
 * holding the nearest-rank quantile, capped at the maximum, within 1.6 % of the exact value, and memory stays
 * bounded by the number of methods, not the number of calls.  Times are integer ns, each call's rounded once
 * (trace.h emp_trace_ns), so total and self time equal the sums `tree` shows; mean and max are exact. */
#ifndef EMP_CALLS_H
#define EMP_CALLS_H

#include <stdint.h>

#define EMP_CALLS_SUB_BITS 5

/* One method's calls; all zero (no histogram) before the first.  One cache line: with the histogram's counters in
 * one block, a call touches this line and one counter's. */
struct emp_calls_method {
	uint64_t calls, threw;
	uint64_t total_ns, self_ns, max_ns;
	uint32_t *hist;     /* the counters of slots lo .. hi - 1, EMP_CALLS_SUB each, slot by slot: their low 32
			       bits (half the bytes a call's counter miss brings in) */
	uint64_t *carry;    /* their high bits, once a counter wrapped (NULL before) */
	uint8_t lo, hi;     /* slot s holds durations of bit length s + EMP_CALLS_SUB_BITS - 1 (slot 0: < SUB) */
} __attribute__((aligned(64)));

#define EMP_CALLS_SUB (1u << EMP_CALLS_SUB_BITS)

/* emp_calls_hist_grow - widen @m's histogram to hold slot @slot (emp_calls_add's slow path).  Return: the counter
 * block (m->hist).  Exits when out of memory. */
uint32_t *emp_calls_hist_grow(struct emp_calls_method *m, unsigned slot);
/* emp_calls_carry - counter @i of @m wrapped to 0: carry 2^32 into its high bits.  Exits when out of memory. */
void emp_calls_carry(struct emp_calls_method *m, uint32_t i);

/* emp_calls_figures - one complete call of @ns inclusive and @self_ns self time, all but its histogram counter:
 * return that counter's bucket (slot * EMP_CALLS_SUB + sub), which m's window may not hold yet. */
static inline uint32_t emp_calls_figures(struct emp_calls_method *m, uint64_t ns, uint64_t self_ns, int threw)
{
	m->calls++;
	m->threw += (uint64_t)threw;
	m->total_ns += ns;
	m->self_ns += self_ns;
	if (ns > m->max_ns)
		m->max_ns = ns;
	unsigned slot = 0, sub = (unsigned)ns;
	if (ns >= EMP_CALLS_SUB) {
		unsigned e = 63u - (unsigned)__builtin_clzll(ns); /* >= SUB_BITS */
		slot = e - EMP_CALLS_SUB_BITS + 1;
		sub = (unsigned)(ns >> (e - EMP_CALLS_SUB_BITS)) & (EMP_CALLS_SUB - 1);
	}
	return slot * EMP_CALLS_SUB + sub;
}

/* emp_calls_in_window - @m's histogram holds @bucket. */
static inline int emp_calls_in_window(const struct emp_calls_method *m, uint32_t bucket)
{
	uint32_t slot = bucket / EMP_CALLS_SUB;
	return m->hist && slot >= m->lo && slot < m->hi;
}

/* emp_calls_counter - the counter of @bucket, which m's window holds. */
static inline uint32_t *emp_calls_counter(const struct emp_calls_method *m, uint32_t bucket)
{
	return m->hist + (bucket - (uint32_t)m->lo * EMP_CALLS_SUB);
}

/* emp_calls_count - count one call in @m's histogram counter @c (a wrap carries into its high bits). */
static inline void emp_calls_count(struct emp_calls_method *m, uint32_t *c)
{
	if (__builtin_expect(!++*c, 0))
		emp_calls_carry(m, (uint32_t)(c - m->hist));
}

/* emp_calls_add - one complete call of @ns inclusive and @self_ns self time.  Exits when out of memory.  Inline:
 * `calls` makes one per traced call, 10^8 and more. */
static inline void emp_calls_add(struct emp_calls_method *m, uint64_t ns, uint64_t self_ns, int threw)
{
	uint32_t bucket = emp_calls_figures(m, ns, self_ns, threw);
	if (!emp_calls_in_window(m, bucket))
		emp_calls_hist_grow(m, bucket / EMP_CALLS_SUB);
	emp_calls_count(m, emp_calls_counter(m, bucket));
}

/* Counts made late.  The counters of every method do not fit a core's cache, and waiting for the one a call
 * counts was 40 % of `calls`'s time on a dump of 3000 methods with random durations: emp_calls_add_later()
 * prefetches the counter and counts it EMP_CALLS_LATER calls later, when it has arrived, so the misses of
 * consecutive calls overlap.  A pending count points into its method's histogram: emp_calls_add_later() makes the
 * pending ones before it widens a histogram; call emp_calls_flush() before the methods move (a table grown) and
 * before anything reads a histogram (quantiles, buckets, a merge). */
#define EMP_CALLS_LATER 16
struct emp_calls_later {
	struct {
		uint32_t *c; /* the counter */
		struct emp_calls_method *m;
	} q[EMP_CALLS_LATER];
	uint32_t n; /* counts queued since the last flush */
};

/* emp_calls_flush - make every count queued in @l. */
static inline void emp_calls_flush(struct emp_calls_later *l)
{
	uint32_t n = l->n < EMP_CALLS_LATER ? l->n : EMP_CALLS_LATER;
	for (uint32_t i = 0; i < n; i++)
		emp_calls_count(l->q[i].m, l->q[i].c);
	l->n = 0;
}

/* emp_calls_add_later - emp_calls_add() with the histogram count made EMP_CALLS_LATER calls later.  Always inline:
 * left out of line, its call was a fifth of `calls`'s time on a full H2 trace. */
static inline __attribute__((always_inline)) void emp_calls_add_later(struct emp_calls_later *l,
								      struct emp_calls_method *m, uint64_t ns,
								      uint64_t self_ns, int threw)
{
	uint32_t bucket = emp_calls_figures(m, ns, self_ns, threw);
	if (__builtin_expect(!emp_calls_in_window(m, bucket), 0)) {
		emp_calls_flush(l);
		emp_calls_hist_grow(m, bucket / EMP_CALLS_SUB);
	}
	uint32_t *c = emp_calls_counter(m, bucket);
	__builtin_prefetch(c, 1);
	uint32_t k = l->n++ % EMP_CALLS_LATER;
	if (l->n > EMP_CALLS_LATER)
		emp_calls_count(l->q[k].m, l->q[k].c);
	l->q[k].c = c;
	l->q[k].m = m;
}

/* emp_calls_table_grow - @t (*@cap entries) with room for @need, the new entries zero, cache-line aligned (free()
 * it).  Exits when out of memory. */
struct emp_calls_method *emp_calls_table_grow(struct emp_calls_method *t, uint32_t *cap, uint32_t need);
/* emp_calls_merge - add @src's calls to @dst's (the same figures as adding them one by one).  Exits when out of
 * memory. */
void emp_calls_merge(struct emp_calls_method *dst, const struct emp_calls_method *src);
/* emp_calls_quantile - the nearest-rank quantile @q (0 < q <= 1) of the inclusive durations, as above; 0 without
 * calls. */
double emp_calls_quantile(const struct emp_calls_method *m, double q);
/* emp_calls_bucket - the calls counted in slot @slot, sub-bucket @sub (0 outside the histogram). */
uint64_t emp_calls_bucket(const struct emp_calls_method *m, unsigned slot, unsigned sub);
/* emp_calls_free - the histogram (the figures stay). */
void emp_calls_free(struct emp_calls_method *m);

#endif /* EMP_CALLS_H */
