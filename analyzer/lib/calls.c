/* SPDX-License-Identifier: MIT */
/* calls.c - per-method call figures and duration quantiles; see calls.h. */
#include "calls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SUB_BITS EMP_CALLS_SUB_BITS
#define SUB (1u << SUB_BITS)

uint32_t *emp_calls_hist_grow(struct emp_calls_method *m, unsigned slot)
{
	unsigned lo = m->hist && m->lo < slot ? m->lo : slot, hi = m->hist && m->hi > slot + 1 ? m->hi : slot + 1;
	size_t n = (size_t)(hi - lo) * SUB, at = (size_t)(m->lo - lo) * SUB, old = (size_t)(m->hi - m->lo) * SUB;
	uint32_t *h = emp_xcalloc(n, sizeof(*h));
	if (m->hist)
		memcpy(h + at, m->hist, old * sizeof(*h));
	free(m->hist);
	m->hist = h;
	if (m->carry) {
		uint64_t *c = emp_xcalloc(n, sizeof(*c));
		memcpy(c + at, m->carry, old * sizeof(*c));
		free(m->carry);
		m->carry = c;
	}
	m->lo = (uint8_t)lo;
	m->hi = (uint8_t)hi;
	return h;
}

void emp_calls_carry(struct emp_calls_method *m, uint32_t i)
{
	if (!m->carry)
		m->carry = emp_xcalloc((size_t)(m->hi - m->lo) * SUB, sizeof(*m->carry));
	m->carry[i] += (uint64_t)1 << 32;
}

/* Counter @i of @m, whole. */
static uint64_t count(const struct emp_calls_method *m, size_t i)
{
	return (m->carry ? m->carry[i] : 0) + m->hist[i];
}

struct emp_calls_method *emp_calls_table_grow(struct emp_calls_method *t, uint32_t *cap, uint32_t need)
{
	if (need <= *cap)
		return t;
	uint32_t n = need + 256;
	struct emp_calls_method *g = NULL;
	if (posix_memalign((void **)&g, 64, n * sizeof(*g)))
		emp_die("out of memory (%zu bytes)", n * sizeof(*g));
	if (t) /* NULL with *cap 0: memcpy must not see it */
		memcpy(g, t, *cap * sizeof(*g));
	memset(g + *cap, 0, (n - *cap) * sizeof(*g));
	free(t);
	*cap = n;
	return g;
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

void emp_calls_merge(struct emp_calls_method *dst, const struct emp_calls_method *src)
{
	dst->calls += src->calls;
	dst->threw += src->threw;
	dst->total_ns += src->total_ns;
	dst->self_ns += src->self_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	if (!src->hist)
		return;
	emp_calls_hist_grow(dst, src->lo);
	emp_calls_hist_grow(dst, src->hi - 1u);
	for (unsigned slot = src->lo; slot < src->hi; slot++)
		for (unsigned sub = 0; sub < SUB; sub++) {
			size_t i = (slot - dst->lo) * SUB + sub;
			uint64_t sum = count(dst, i) + count(src, (slot - src->lo) * SUB + sub);
			dst->hist[i] = (uint32_t)sum;
			if (sum >> 32) {
				if (!dst->carry)
					dst->carry = emp_xcalloc((size_t)(dst->hi - dst->lo) * SUB, sizeof(*dst->carry));
				dst->carry[i] = sum & ~(uint64_t)UINT32_MAX;
			} else if (dst->carry) {
				dst->carry[i] = 0;
			}
		}
}

double emp_calls_quantile(const struct emp_calls_method *s, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)s->calls), seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned slot = s->lo; s->hist && slot < s->hi; slot++) {
		for (unsigned sub = 0; sub < SUB; sub++) {
			seen += count(s, (slot - s->lo) * SUB + sub);
			if (seen >= rank) {
				double v = bucket_mid(slot, sub);
				return v > (double)s->max_ns ? (double)s->max_ns : v;
			}
		}
	}
	return (double)s->max_ns;
}

uint64_t emp_calls_bucket(const struct emp_calls_method *m, unsigned slot, unsigned sub)
{
	return m->hist && slot >= m->lo && slot < m->hi && sub < SUB ? count(m, (slot - m->lo) * SUB + sub) : 0;
}

void emp_calls_free(struct emp_calls_method *m)
{
	free(m->hist);
	free(m->carry);
	m->hist = NULL;
	m->carry = NULL;
	m->lo = m->hi = 0;
}
