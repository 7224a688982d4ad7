/* SPDX-License-Identifier: MIT */
/* calls.c - per-method call figures and duration quantiles; see calls.h. */
#include "calls.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

#define SUB_BITS EMP_CALLS_SUB_BITS
#define SUB (1u << SUB_BITS)
#define SLOTS EMP_CALLS_SLOTS

static void hist_add(struct emp_calls_method *s, uint64_t v)
{
	unsigned slot, sub;
	if (v < SUB) {
		slot = 0;
		sub = (unsigned)v;
	} else {
		unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= SUB_BITS */
		slot = e - SUB_BITS + 1;
		sub = (unsigned)(v >> (e - SUB_BITS)) & (SUB - 1);
	}
	if (!s->hist[slot])
		s->hist[slot] = emp_xcalloc(SUB, sizeof(uint64_t));
	s->hist[slot][sub]++;
}

/* Middle of a bucket. */
static double bucket_mid(unsigned slot, unsigned sub)
{
	if (slot == 0)
		return sub;
	unsigned shift = slot - 1;
	double lo = ldexp((double)(SUB + sub), (int)shift), width = ldexp(1.0, (int)shift);
	return lo + width / 2;
}

void emp_calls_add(struct emp_calls_method *m, uint64_t ns, uint64_t self_ns, int threw)
{
	m->calls++;
	m->threw += (uint64_t)threw;
	m->total_ns += ns;
	m->self_ns += self_ns;
	if (ns > m->max_ns)
		m->max_ns = ns;
	hist_add(m, ns);
}

double emp_calls_quantile(const struct emp_calls_method *s, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)s->calls), seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned slot = 0; slot < SLOTS; slot++) {
		if (!s->hist[slot])
			continue;
		for (unsigned sub = 0; sub < SUB; sub++) {
			seen += s->hist[slot][sub];
			if (seen >= rank) {
				double v = bucket_mid(slot, sub);
				return v > (double)s->max_ns ? (double)s->max_ns : v;
			}
		}
	}
	return (double)s->max_ns;
}

void emp_calls_free(struct emp_calls_method *m)
{
	for (unsigned s = 0; s < SLOTS; s++) {
		free(m->hist[s]);
		m->hist[s] = NULL;
	}
}
