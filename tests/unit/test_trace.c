/* SPDX-License-Identifier: MIT */
/* test_trace.c - call reconstruction from ENTER/EXIT events (analyzer/lib/trace.h): Kieker eoi/ess, post-order
 * output, self time, per-thread traces, and each kind of validation failure. */
#include <criterion/criterion.h>

#include <string.h>

#include "trace.h"

#define MAXC 64

struct seen {
	struct emp_trace_call c[MAXC];
	int n;
};

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	(void)parent;
	struct seen *s = arg;
	cr_assert_lt(s->n, MAXC);
	s->c[s->n++] = *c;
}

static const struct emp_trace_ops ops = { .on_call = on_call };

static void ev(struct emp_trace *t, enum emp_event_kind k, uint32_t thread, uint64_t ticks, uint32_t method)
{
	struct emp_event e;
	memset(&e, 0, sizeof(e));
	e.kind = k;
	e.thread = thread;
	e.ticks = ticks;
	e.method = method;
	emp_trace_event(t, &e);
}

#define IN(th, ts, m) ev(t, EMP_EV_ENTER, th, ts, m)
#define OUT(th, ts) ev(t, EMP_EV_EXIT, th, ts, 0)
#define THROW(th, ts) ev(t, EMP_EV_EXIT_THROW, th, ts, 0)

Test(trace, kieker_eoi_ess_post_order_and_self_time)
{
	struct seen s = { .n = 0 };
	struct emp_trace *t = emp_trace_new(&ops, &s);
	/* a(b(c), d) then a second trace e */
	IN(0, 100, 1);
	IN(0, 110, 2);
	IN(0, 120, 3);
	OUT(0, 130);
	OUT(0, 140);
	IN(0, 150, 4);
	THROW(0, 170);
	OUT(0, 200);
	IN(0, 300, 5);
	OUT(0, 310);
	emp_trace_finish(t, NULL);
	const struct emp_trace_stats *st = emp_trace_stats(t);
	cr_assert_eq(s.n, 5);
	/* post-order: c, b, d, a, e */
	static const uint32_t method[] = { 3, 2, 4, 1, 5 }, eoi[] = { 2, 1, 3, 0, 0 }, ess[] = { 2, 1, 1, 0, 0 };
	static const uint64_t trace[] = { 0, 0, 0, 0, 1 }, self[] = { 10, 20, 20, 100 - 30 - 20, 10 };
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(s.c[i].method, method[i], "call %d", i);
		cr_expect_eq(s.c[i].eoi, eoi[i], "call %d eoi", i);
		cr_expect_eq(s.c[i].ess, ess[i], "call %d ess", i);
		cr_expect_eq(s.c[i].trace_id, trace[i], "call %d trace", i);
		cr_expect_eq(s.c[i].tout - s.c[i].tin - s.c[i].child_ticks, self[i], "call %d self", i);
	}
	cr_expect(s.c[2].threw && !s.c[3].threw);
	cr_expect_eq(st->calls, 5);
	cr_expect_eq(st->traces, 2);
	cr_expect_eq(st->threw, 1);
	cr_expect_eq(st->max_depth, 3);
	cr_expect_eq(emp_trace_violations(st), 0);
	emp_trace_free(t);
}

Test(trace, threads_are_independent)
{
	struct seen s = { .n = 0 };
	struct emp_trace *t = emp_trace_new(&ops, &s);
	IN(0, 1, 1);
	IN(7, 2, 2);
	IN(0, 3, 3);
	IN(7, 4, 4);
	OUT(0, 5);
	OUT(7, 6);
	OUT(7, 7);
	OUT(0, 8);
	emp_trace_finish(t, NULL);
	cr_assert_eq(s.n, 4);
	cr_expect_eq(s.c[0].method, 3);
	cr_expect_eq(s.c[0].ess, 1);
	cr_expect_eq(s.c[1].method, 4);
	cr_expect_eq(s.c[1].thread, 7);
	cr_expect_eq(s.c[1].eoi, 1);
	cr_expect_neq(s.c[2].trace_id, s.c[3].trace_id);
	cr_expect_eq(emp_trace_violations(emp_trace_stats(t)), 0);
	emp_trace_free(t);
}

Test(trace, exit_without_entry_and_unclosed)
{
	struct seen s = { .n = 0 };
	struct emp_trace *t = emp_trace_new(&ops, &s);
	OUT(0, 1);
	IN(0, 2, 1);
	IN(0, 3, 2);
	OUT(0, 4);
	emp_trace_finish(t, NULL); /* a truncated dump: call 1 still open */
	const struct emp_trace_stats *st = emp_trace_stats(t);
	cr_expect_eq(st->exit_without_entry, 1);
	cr_expect_eq(st->unclosed, 1);
	cr_expect_eq(st->calls, 1);
	cr_expect_eq(st->traces, 0);
	cr_expect_eq(emp_trace_violations(st), 1);
	emp_trace_free(t);
}

Test(trace, time_violations)
{
	struct seen s = { .n = 0 };
	struct emp_trace *t = emp_trace_new(&ops, &s);
	IN(0, 100, 1);
	IN(0, 90, 2); /* child starts before its parent */
	OUT(0, 95);
	IN(0, 50, 3); /* starts before its elder sibling ended (and before the parent) */
	OUT(0, 40);   /* ends before it starts */
	OUT(0, 200);
	emp_trace_finish(t, NULL);
	cr_expect_eq(emp_trace_stats(t)->time_violations, 4);
	emp_trace_free(t);
}

Test(trace, finish_resets_for_the_next_dump)
{
	struct seen s = { .n = 0 };
	struct emp_trace *t = emp_trace_new(&ops, &s);
	IN(0, 1, 1);
	emp_trace_finish(t, NULL);
	IN(0, 2, 2);
	OUT(0, 3);
	emp_trace_finish(t, NULL);
	const struct emp_trace_stats *st = emp_trace_stats(t);
	cr_expect_eq(st->unclosed, 1);
	cr_expect_eq(st->calls, 1);
	cr_expect_eq(s.c[0].eoi, 0);
	cr_expect_eq(s.c[0].ess, 0);
	cr_expect_eq(emp_trace_violations(st), 0);
	emp_trace_free(t);
}

/* Durations past 2^64 ns (ticks near 2^64 on a clock slower than 1 GHz: a damaged dump) saturate instead of being
 * converted with undefined behaviour (found by tests/fuzz/fuzz_trace_fold.c); every smaller one rounds as before. */
Test(trace, ns_saturate_at_the_top)
{
	cr_expect_eq(emp_trace_round_ns(0.0), 0);
	cr_expect_eq(emp_trace_round_ns(2.4), 2);
	cr_expect_eq(emp_trace_round_ns(2.5), 3);
	cr_expect_eq(emp_trace_round_ns(9007199254740992.0), 9007199254740992ull); /* 2^53 */
	cr_expect_eq(emp_trace_round_ns(18446744073709549568.0), 18446744073709549568ull); /* the largest below 2^64 */
	cr_expect_eq(emp_trace_round_ns(18446744073709551616.0), UINT64_MAX);                /* 2^64 */
	cr_expect_eq(emp_trace_round_ns(1e30), UINT64_MAX);
	struct emp_trace_clock c;
	emp_trace_clock_set(&c, 1e6); /* 1 MHz: a tick is 1000 ns */
	cr_expect_eq(emp_trace_clock_ns(&c, 3), 3000);
	cr_expect_eq(emp_trace_clock_ns(&c, 5000), 5000000);
	cr_expect_eq(emp_trace_clock_ns(&c, UINT64_MAX), UINT64_MAX);
}
