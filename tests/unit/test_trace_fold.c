/* SPDX-License-Identifier: MIT */
/* test_trace_fold.c - trace_fold.h against trace.h on random trace dumps cut into small chunks: the same validation
 * counts, the same traced time, the same figures per method (calls, threw, totals, max, every histogram counter),
 * the same calling-context tree node by node (ids, symbols, calls, total and self ns), with one folder and with
 * several; and the cases the fold hands back to trace.h. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"
#include "cct.h"
#include "dump_reader.h"
#include "dump_writer.h"
#include "dumpfile.h"
#include "fold_oracle.h"
#include "symtab.h"
#include "trace.h"
#include "trace_fold.h"

#define METHODS 40
#define THREADS 5

struct shape {
	unsigned seed;
	int exits_without_entry; /* some exits with nothing open */
	int backwards;           /* some ticks step back: time violations of every kind */
	int cpu_events;          /* CPU events between the calls */
	int sample;              /* one SAMPLE event: the fold hands the dump back */
	double hz;               /* clock rate in META */
	uint32_t limit;          /* the trees' node limit (emp_cct_limit), 0: none */
	int late_rate;           /* a META chunk with another clock rate after the last events */
	int alias;               /* method 1 has method 0's name (two class loaders' copies of one class) */
	int rename;              /* a SYMBOLS chunk halfway names method 1 again (only a damaged dump does) */
};

static uint64_t rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

/* A dump of THREADS threads whose calls nest at random up to depth 12, chunks flushed after 1..40 events so that
 * calls span chunks every way; thread 2 ends with calls open (never closed), the others are cut by the END. */
static void write_dump(const char *path, const struct shape *sh)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	cr_assert(w);
	char hz[64];
	snprintf(hz, sizeof(hz), "%.3f", sh->hz);
	const char *kv[] = { "agent", "emp", "mode", "trace", "clock_hz", hz, "clock_ref_ticks", "0",
			     "clock_ref_mono_ns", "0" };
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, kv, 5), 0);
	for (uint32_t m = 0; m < METHODS; m++) {
		char name[16];
		snprintf(name, sizeof(name), "m%u", sh->alias && m == 1 ? 0 : m);
		emp_dump_add_method(w, m, EMP_FRAME_JAVA, 0, "C", name, "()V");
	}
	for (uint32_t t = 0; t < THREADS; t++)
		emp_dump_add_thread(w, t, 100 + t, 0, "t");
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *ev[THREADS];
	uint64_t ticks[THREADS];
	unsigned depth[THREADS] = { 0 }, left[THREADS];
	unsigned s = sh->seed;
	for (uint32_t t = 0; t < THREADS; t++) {
		ev[t] = emp_dump_events_new(t);
		ticks[t] = 1000 + rnd(&s) % 1000;
		left[t] = 1 + (unsigned)(rnd(&s) % 40);
	}
	for (int i = 0; i < 20000; i++) {
		uint32_t t = (uint32_t)(rnd(&s) % THREADS);
		uint64_t r = rnd(&s);
		/* mostly short steps, sometimes long ones (past the clock table), rarely backwards */
		uint64_t step = r % 16 ? r % 50 : r % 4 ? 5000 + r % 100000 : 1u << 30;
		if (sh->backwards && r % 499 == 0 && ticks[t] > 100)
			ticks[t] -= r % 100;
		else
			ticks[t] += step;
		if (sh->cpu_events && r % 13 == 0)
			cr_assert_eq(emp_dump_events_cpu(ev[t], ticks[t], r), 0);
		int enter = depth[t] == 0 ? !(sh->exits_without_entry && r % 7 == 0) : depth[t] < 12 && (r >> 4) % 2;
		if (enter) {
			cr_assert_eq(emp_dump_events_enter(ev[t], ticks[t], (uint32_t)((r >> 6) % METHODS)), 0);
			depth[t]++;
		} else {
			cr_assert_eq(emp_dump_events_exit(ev[t], ticks[t], (r >> 5) % 9 == 0), 0);
			depth[t] -= depth[t] > 0;
		}
		if (sh->rename && i == 10000) {
			emp_dump_add_method(w, 1, EMP_FRAME_JAVA, 0, "D", "renamed", "()V");
			cr_assert_eq(emp_dump_flush_symbols(w), 0);
		}
		if (sh->sample && i == 10000) {
			uint32_t frames[2] = { 1, 2 };
			cr_assert_eq(emp_dump_events_sample(ev[t], ticks[t], EMP_STATE_RUNNING, frames, 2), 0);
		}
		if (!--left[t]) {
			cr_assert_eq(emp_dump_events_flush(w, ev[t]), 0);
			left[t] = 1 + (unsigned)(rnd(&s) % 40);
		}
	}
	for (uint32_t t = 0; t < THREADS; t++) {
		cr_assert_eq(emp_dump_events_flush(w, ev[t]), 0);
		emp_dump_events_free(ev[t]);
	}
	emp_dump_add_thread(w, 2, 102, EMP_THREAD_ENDED, "t");
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	if (sh->late_rate) {
		const char *late[] = { "clock_hz", "3000000000.000" };
		cr_assert_eq(emp_dump_write_meta(w, late, 1), 0);
	}
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

/* An empty file of @path's mkstemp template, its name in @path. */
static void make_temp(char *path)
{
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
}

/* A dump of @sh in a new file of @path's template, and its figures through trace.h into @want. */
static void write_serial(char *path, const struct shape *sh, struct emp_fold_figures *want)
{
	make_temp(path);
	write_dump(path, sh);
	cr_assert_eq(emp_fold_serial(path, want), 0);
}

/* The nodes of @c with an ancestor of their own method. */
static uint32_t recursive_nodes(const struct emp_cct *c)
{
	uint32_t n = 0;
	for (uint32_t id = 1; id < emp_cct_size(c); id++) {
		const struct emp_cct_node *x = emp_cct_node(c, id);
		for (const struct emp_cct_node *a = x->parent; a && a->parent; a = a->parent)
			if (a->gid == x->gid) {
				n++;
				break;
			}
	}
	return n;
}

/* The fold of @path with @jobs workers at @hz, making @what, against @want (trace.h's figures).  Return: 0, or -1
 * when the fold handed the dump back. */
static int folded_equal(const char *path, unsigned jobs, double hz, unsigned what, const struct emp_fold_figures *want)
{
	struct emp_fold_figures got;
	int rc = emp_fold_folded(path, jobs, hz, what, &got);
	if (!rc) {
		char diff[256];
		const char *d = emp_fold_diff(want, &got, what, diff, sizeof(diff));
		cr_assert_null(d, "%u jobs, making %u: %s", jobs, what, d);
		cr_assert_gt(got.events, 2 * got.st.calls - 1);
	}
	emp_fold_figures_free(&got);
	return rc;
}

/* Serial and folded (1 and 3 workers) on @sh; return how many of the two folds handed the dump back. */
static int compare(const struct shape *sh)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	make_temp(path);
	write_dump(path, sh);
	struct emp_fold_figures want;
	if (sh->limit) { /* the limit took effect, and took nothing away: every call, the same traced time */
		struct emp_fold_figures all;
		cr_assert_eq(emp_fold_serial(path, &all), 0);
		emp_fold_limit(sh->limit);
		cr_assert_eq(emp_fold_serial(path, &want), 0);
		cr_assert_gt(emp_cct_size(all.cct), 2 * sh->limit);
		cr_assert_leq(emp_cct_size(want.cct), 2 * sh->limit);
		cr_assert_eq(emp_cct_root(want.cct)->total_ns, emp_cct_root(all.cct)->total_ns);
		uint64_t calls[2] = { 0, 0 }, self[2] = { 0, 0 }, more_total = 0, more_self = 0; /* the more nodes' */
		for (int k = 0; k < 2; k++) {
			struct emp_cct *c = k ? want.cct : all.cct;
			for (uint32_t id = 1; id < emp_cct_size(c); id++) {
				const struct emp_cct_node *n = emp_cct_node(c, id);
				calls[k] += n->calls;
				self[k] += n->self_ns;
				if (k && emp_cct_is_more(c, n)) {
					more_total += n->total_ns;
					more_self += n->self_ns;
				}
			}
		}
		cr_assert_eq(calls[1], calls[0]);
		cr_assert_eq(self[1], self[0]);
		cr_assert_gt(more_total, 0);
		cr_assert_gt(more_self, 0);
		emp_fold_figures_free(&all);
	} else {
		cr_assert_eq(emp_fold_serial(path, &want), 0);
	}
	cr_assert_eq(want.status, EMP_DUMP_COMPLETE);
	cr_assert_gt(want.st.calls, 5000); /* the shape makes calls, across chunks */
	cr_assert_gt(want.st.unclosed, 0);
	cr_assert_gt(emp_cct_root(want.cct)->total_ns, 0);
	cr_assert_eq(want.st.time_violations > 0, sh->backwards != 0);
	cr_assert_eq(want.st.exit_without_entry > 0, sh->exits_without_entry != 0);
	int handed_back = 0;
	for (unsigned jobs = 1; jobs <= 3; jobs += 2)
		handed_back += folded_equal(path, jobs, sh->hz, EMP_FOLD_BOTH, &want) != 0;
	/* the loops of `calls` (methods only) and of the tree views (the tree only) */
	int alone = folded_equal(path, 3, sh->hz, EMP_FOLD_METHODS, &want) != 0;
	cr_assert_eq(folded_equal(path, 3, sh->hz, EMP_FOLD_TREE, &want) != 0, alone);
	if (!sh->limit) { /* `top`'s loop: the flat figures, with trace.h's made from its tree */
		for (unsigned jobs = 1; jobs <= 3; jobs += 2)
			cr_assert_eq(folded_equal(path, jobs, sh->hz, EMP_FOLD_FLAT, &want) != 0, alone);
		/* the shape recurses: calls inside a call of their own method, which a total counts once */
		cr_assert_gt(recursive_nodes(want.cct), 100);
	}
	emp_fold_figures_free(&want);
	emp_fold_limit(0);
	unlink(path);
	return handed_back;
}

Test(trace_fold, equals_trace_h_on_nested_calls_across_chunks)
{
	for (unsigned seed = 1; seed <= 6; seed++) {
		struct shape sh = { .seed = seed, .hz = seed % 2 ? 1e9 : 2596131425.769 };
		cr_assert_eq(compare(&sh), 0, "seed %u", seed);
	}
}

/* Past a node limit (cct.h emp_cct_limit) the fold's tree is still trace.h's, node for node: the same nodes made
 * in the same order, the same paths sent to the same more nodes, whose inclusive time counts each call that
 * entered them from outside once. */
Test(trace_fold, equals_trace_h_past_a_tree_limit)
{
	for (unsigned seed = 1; seed <= 4; seed++) {
		struct shape sh = { .seed = seed, .hz = 1e9, .exits_without_entry = seed % 2, .limit = 200 };
		cr_assert_eq(compare(&sh), 0, "seed %u", seed);
	}
}

Test(trace_fold, equals_trace_h_with_exits_without_entry_and_cpu_events)
{
	for (unsigned seed = 11; seed <= 14; seed++) {
		struct shape sh = { .seed = seed, .hz = 1e9, .exits_without_entry = 1, .cpu_events = 1 };
		cr_assert_eq(compare(&sh), 0, "seed %u", seed);
	}
}

/* A method id named again halfway (found by fuzz_trace_fold): trace.h names a method's calls as it was named when
 * it was first entered, and so must the fold, whose flat figures are made up at the end. */
Test(trace_fold, a_method_named_again_keeps_its_first_name)
{
	struct shape sh = { .seed = 9, .hz = 1e9, .rename = 1 };
	cr_assert_eq(compare(&sh), 0);
}

Test(trace_fold, time_violations_are_the_same_or_handed_back)
{
	int folded_ok = 0;
	for (unsigned seed = 21; seed <= 28; seed++) {
		struct shape sh = { .seed = seed, .hz = 1e9, .backwards = 1, .exits_without_entry = 1 };
		folded_ok += compare(&sh) == 0;
	}
	cr_assert_gt(folded_ok, 0); /* not every one is handed back: the merge's checks themselves are compared */
}

Test(trace_fold, a_sample_event_or_another_clock_rate_hands_the_dump_back)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	make_temp(path);
	struct shape sh = { .seed = 5, .hz = 1e9, .sample = 1 };
	write_dump(path, &sh);
	struct emp_fold_figures got;
	cr_assert_eq(emp_fold_folded(path, 1, 1e9, EMP_FOLD_BOTH, &got), -1);
	emp_fold_figures_free(&got);
	sh.sample = 0;
	write_dump(path, &sh);
	cr_assert_eq(emp_fold_folded(path, 1, 2e9, EMP_FOLD_BOTH, &got), -1); /* not the rate the events are read at */
	emp_fold_figures_free(&got);
	unlink(path);
}

/* A clock rate a META chunk changes after the last events (a damaged or forged dump): trace.h converts the calls
 * still open at the end at that rate, so the fold, which read every event at the first, hands the dump back
 * rather than close them at another (found by fuzz_trace_fold). */
Test(trace_fold, a_clock_rate_after_the_last_events_hands_the_open_calls_back)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	struct shape sh = { .seed = 7, .hz = 1e9, .late_rate = 1 };
	struct emp_fold_figures want;
	write_serial(path, &sh, &want);
	cr_assert_gt(want.st.unclosed, 0);
	for (unsigned jobs = 1; jobs <= 3; jobs += 2) {
		cr_assert_eq(folded_equal(path, jobs, sh.hz, EMP_FOLD_BOTH, &want), -1, "%u jobs", jobs);
		cr_assert_eq(folded_equal(path, jobs, sh.hz, EMP_FOLD_TREE, &want), -1, "%u jobs", jobs);
		cr_assert_eq(folded_equal(path, jobs, sh.hz, EMP_FOLD_FLAT, &want), -1, "%u jobs", jobs);
		/* `calls` closes no open call: its figures are the fold's */
		cr_assert_eq(folded_equal(path, jobs, sh.hz, EMP_FOLD_METHODS, &want), 0, "%u jobs", jobs);
	}
	emp_fold_figures_free(&want);
	unlink(path);
}

/* Two methods of a dump under one name: a call of one inside the other's is nested by name, which no chunk sees,
 * so the flat figures hand the dump back (`top` then reads it through trace.h into a tree); the others do not. */
Test(trace_fold, two_methods_of_one_name_hand_the_flat_figures_back)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	struct shape sh = { .seed = 4, .hz = 1e9, .alias = 1 };
	struct emp_fold_figures want;
	write_serial(path, &sh, &want);
	cr_assert_gt(want.m[0].calls, 0);
	cr_assert_gt(want.m[1].calls, 0);
	for (unsigned jobs = 1; jobs <= 3; jobs += 2) {
		cr_assert_eq(folded_equal(path, jobs, sh.hz, EMP_FOLD_FLAT, &want), -1, "%u jobs", jobs);
		cr_assert_eq(folded_equal(path, jobs, sh.hz, EMP_FOLD_BOTH, &want), 0, "%u jobs", jobs);
	}
	emp_fold_figures_free(&want);
	unlink(path);
}

/* A damaged chunk in the middle: the reading stops there; chunks the workers folded beyond it must not count. */
Test(trace_fold, a_corrupt_chunk_counts_nothing_folded_beyond_it)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	make_temp(path);
	struct shape sh = { .seed = 3, .hz = 1e9 };
	write_dump(path, &sh);
	FILE *f = fopen(path, "r+b");
	cr_assert(f);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long at = ftell(f) / 2; /* inside some EVENTS chunk's compressed bytes: its checksum fails */
	cr_assert_eq(fseek(f, at, SEEK_SET), 0);
	int b = fgetc(f);
	cr_assert_eq(fseek(f, at, SEEK_SET), 0);
	fputc(b ^ 0x55, f);
	cr_assert_eq(fclose(f), 0);
	struct emp_fold_figures want;
	cr_assert_eq(emp_fold_serial(path, &want), 0);
	cr_assert_eq(want.status, EMP_DUMP_CORRUPT);
	for (int round = 0; round < 20; round++)
		folded_equal(path, 3, 1e9, 1 + round % 4, &want); /* each loop: methods, tree, both, flat */
	cr_assert_eq(folded_equal(path, 1, 1e9, EMP_FOLD_BOTH, &want), 0); /* nothing runs ahead without workers */
	emp_fold_figures_free(&want);
	unlink(path);
}

/* A method's counter past 2^32 calls (calls.h keeps the low 32 bits per counter and carries the rest): set one
 * counter to the brink, then count through it; the bucket, the quantile and a merge keep every call. */
Test(calls, counters_carry_past_32_bits)
{
	struct emp_calls_method m = { 0 }, sum = { 0 };
	emp_calls_add(&m, 100, 100, 0); /* slot 2 (64..127 ns), sub 18 (100..101) */
	emp_calls_add(&m, 1000, 1000, 0);
	uint32_t i = (5u - m.lo) * EMP_CALLS_SUB + 30; /* the counter of 1000 ns: slot 5, sub 30 */
	m.hist[i] = UINT32_MAX - 1;     /* as if 2^32 - 1 calls had counted there */
	m.calls += UINT32_MAX - 2;
	emp_calls_add(&m, 1000, 1000, 0);
	cr_assert_null(m.carry);
	emp_calls_add(&m, 1000, 1000, 0); /* wraps */
	cr_assert_not_null(m.carry);
	emp_calls_add(&m, 1000, 1000, 0);
	cr_assert_eq(emp_calls_bucket(&m, 5, 30), (uint64_t)UINT32_MAX + 2); /* slot 5 (512..1023), sub 30 (992..1007) */
	cr_assert_eq(emp_calls_bucket(&m, 2, 18), 1);
	cr_assert_eq(m.calls, (uint64_t)UINT32_MAX + 3);
	cr_assert_eq(llround(emp_calls_quantile(&m, 0.5)), 1000); /* the bucket's middle */
	emp_calls_merge(&sum, &m);
	emp_calls_merge(&sum, &m);
	cr_assert_eq(emp_calls_bucket(&sum, 5, 30), 2 * ((uint64_t)UINT32_MAX + 2));
	cr_assert_eq(emp_calls_bucket(&sum, 2, 18), 2);
	emp_calls_free(&m);
	emp_calls_free(&sum);
}

/* Counts made late (emp_calls_add_later): after a flush, every figure and bucket equals counting at once, across
 * histogram windows that widen while counts are pending (durations from 1 ns to 2^40 ns, widening both ways). */
Test(calls, later_equals_at_once)
{
	struct emp_calls_method now[3] = { 0 }, late[3] = { 0 };
	struct emp_calls_later l = { 0 };
	uint64_t x = 12345;
	for (int i = 0; i < 5000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned k = (unsigned)(x >> 60) % 3;
		uint64_t ns = (x >> 20) >> (x >> 58 & 63) % 44; /* every bit length up to 44 */
		emp_calls_add(&now[k], ns, ns / 2, (int)(x & 1));
		emp_calls_add_later(&l, &late[k], ns, ns / 2, (int)(x & 1));
		if (i == 2500)
			emp_calls_flush(&l); /* a flush in the middle, as at a chunk's end */
	}
	emp_calls_flush(&l);
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(late[k].calls, now[k].calls);
		cr_assert_eq(late[k].threw, now[k].threw);
		cr_assert_eq(late[k].total_ns, now[k].total_ns);
		cr_assert_eq(late[k].self_ns, now[k].self_ns);
		cr_assert_eq(late[k].max_ns, now[k].max_ns);
		cr_assert_eq(late[k].lo, now[k].lo);
		cr_assert_eq(late[k].hi, now[k].hi);
		uint64_t sum = 0;
		for (unsigned slot = 0; slot < 64; slot++)
			for (unsigned sub = 0; sub < EMP_CALLS_SUB; sub++) {
				cr_assert_eq(emp_calls_bucket(&late[k], slot, sub), emp_calls_bucket(&now[k], slot, sub),
					     "method %u slot %u sub %u", k, slot, sub);
				sum += emp_calls_bucket(&late[k], slot, sub);
			}
		cr_assert_eq(sum, now[k].calls);
		emp_calls_free(&now[k]);
		emp_calls_free(&late[k]);
	}
}
