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
		snprintf(name, sizeof(name), "m%u", m);
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
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

struct figures {
	struct emp_trace_stats st;
	uint64_t self_ns, last_ticks;
	struct emp_calls_method *m;
	uint32_t cap;
	struct emp_symtab *symtab;
	struct emp_cct *cct;
};

static void figures_free(struct figures *x)
{
	for (uint32_t k = 0; k < x->cap; k++)
		emp_calls_free(&x->m[k]);
	free(x->m);
	emp_cct_free(x->cct);
	emp_symtab_free(x->symtab);
}

struct serial_ctx {
	struct figures *x;
	struct emp_dump_reader *r;
	struct emp_trace_clock clock;
	struct emp_trace_cct tc;
};

static struct emp_calls_method *slot(void *arg, uint32_t method)
{
	struct figures *x = arg;
	if (method >= x->cap)
		x->m = emp_calls_table_grow(x->m, &x->cap, method + 1);
	return &x->m[method];
}

static void on_enter(void *arg, struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct serial_ctx *sc = arg;
	emp_trace_cct_ops.on_enter(&sc->tc, c, parent);
}

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct serial_ctx *sc = arg;
	emp_trace_cct_ops.on_call(&sc->tc, c, parent);
	uint64_t dur = c->tout >= c->tin ? c->tout - c->tin : 0;
	uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
	emp_trace_clock_sync(&sc->clock, sc->r);
	uint64_t self_ns = emp_trace_clock_ns(&sc->clock, self);
	sc->x->self_ns += self_ns;
	emp_calls_add(slot(sc->x, c->method), emp_trace_clock_ns(&sc->clock, dur), self_ns, c->threw);
}

/* Open @path for @x: its symbol table and tree made, @map set to the reader's symbols. */
static struct emp_dump_reader *open_for(const char *path, struct figures *x, struct emp_symtab_map **map)
{
	struct emp_dump_reader *r;
	char err[256];
	cr_assert_eq(emp_dump_reader_open(path, &r, err, sizeof(err)), 0, "%s", err);
	x->symtab = emp_symtab_new();
	x->cct = emp_cct_new();
	*map = emp_symtab_map_new(x->symtab, r);
	return r;
}

/* What the views computed before trace_fold.h: every event through trace.h. */
static void serial(const char *path, struct figures *x, enum emp_dump_status status)
{
	struct emp_symtab_map *map;
	struct emp_dump_reader *r = open_for(path, x, &map);
	struct serial_ctx sc = { .x = x, .r = r, .tc = { .cct = x->cct, .map = map, .r = r } };
	static const struct emp_trace_ops ops = { .on_enter = on_enter, .on_call = on_call };
	struct emp_trace *t = emp_trace_new(&ops, &sc);
	struct emp_event e;
	while (emp_dump_reader_next(r, &e)) {
		x->last_ticks = e.ticks > x->last_ticks ? e.ticks : x->last_ticks;
		emp_trace_event(t, &e);
	}
	cr_assert_eq(emp_dump_reader_status(r), status);
	emp_trace_finish(t, r);
	x->st = *emp_trace_stats(t);
	emp_trace_free(t);
	emp_symtab_map_free(map);
	emp_dump_reader_close(r);
}

/* The fold with @jobs workers.  Return: 0, or -1 when it handed the dump back. */
static int folded(const char *path, unsigned jobs, double hz, struct figures *x, enum emp_dump_status status)
{
	struct emp_symtab_map *map;
	struct emp_dump_reader *r = open_for(path, x, &map);
	struct emp_trace_fold *f = emp_trace_fold_new(r, jobs, hz, 1, x->cct, map);
	uint64_t events = 0;
	int rc;
	while ((rc = emp_trace_fold_next(f, NULL, NULL)) > 0)
		;
	if (!rc) {
		cr_assert_eq(emp_dump_reader_status(r), status);
		rc = emp_trace_fold_finish(f, &x->st, &x->self_ns, &x->last_ticks, &events);
	}
	if (!rc) {
		cr_assert_gt(events, 2 * x->st.calls - 1);
		emp_trace_fold_collect(f, slot, x);
	}
	emp_trace_fold_free(f);
	emp_symtab_map_free(map);
	emp_dump_reader_close(r);
	return rc;
}

static void assert_same(const struct figures *a, const struct figures *b)
{
	cr_assert_eq(a->st.calls, b->st.calls);
	cr_assert_eq(a->st.traces, b->st.traces);
	cr_assert_eq(a->st.threw, b->st.threw);
	cr_assert_eq(a->st.unclosed, b->st.unclosed);
	cr_assert_eq(a->st.never_closed, b->st.never_closed);
	cr_assert_eq(a->st.exit_without_entry, b->st.exit_without_entry);
	cr_assert_eq(a->st.eoi_violations, b->st.eoi_violations);
	cr_assert_eq(a->st.ess_violations, b->st.ess_violations);
	cr_assert_eq(a->st.time_violations, b->st.time_violations);
	cr_assert_eq(a->st.max_depth, b->st.max_depth);
	cr_assert_eq(a->self_ns, b->self_ns);
	cr_assert_eq(a->last_ticks, b->last_ticks);
	cr_assert_eq(emp_cct_size(a->cct), emp_cct_size(b->cct));
	for (uint32_t id = 0; id < emp_cct_size(a->cct); id++) {
		const struct emp_cct_node *x = emp_cct_node(a->cct, id), *y = emp_cct_node(b->cct, id);
		cr_assert_eq(x->gid, y->gid, "node %u", id);
		cr_assert_eq(x->parent ? x->parent->id : 0, y->parent ? y->parent->id : 0, "node %u", id);
		cr_assert_eq(x->calls, y->calls, "node %u", id);
		cr_assert_eq(x->total_ns, y->total_ns, "node %u", id);
		cr_assert_eq(x->self_ns, y->self_ns, "node %u", id);
	}
	cr_assert_gt(emp_cct_root(a->cct)->total_ns, 0);
	uint32_t n = a->cap > b->cap ? a->cap : b->cap;
	for (uint32_t k = 0; k < n; k++) {
		const struct emp_calls_method z = { 0 };
		const struct emp_calls_method *x = k < a->cap ? &a->m[k] : &z, *y = k < b->cap ? &b->m[k] : &z;
		cr_assert_eq(x->calls, y->calls, "method %u", k);
		cr_assert_eq(x->threw, y->threw, "method %u", k);
		cr_assert_eq(x->total_ns, y->total_ns, "method %u", k);
		cr_assert_eq(x->self_ns, y->self_ns, "method %u", k);
		cr_assert_eq(x->max_ns, y->max_ns, "method %u", k);
		for (unsigned slot = 0; slot < 64; slot++)
			for (unsigned sub = 0; sub < EMP_CALLS_SUB; sub++)
				cr_assert_eq(emp_calls_bucket(x, slot, sub), emp_calls_bucket(y, slot, sub),
					     "method %u slot %u sub %u", k, slot, sub);
	}
}

/* Serial and folded (1 and 3 workers) on @sh; return how many of the two folds handed the dump back. */
static int compare(const struct shape *sh)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	write_dump(path, sh);
	struct figures want = { 0 };
	serial(path, &want, EMP_DUMP_COMPLETE);
	cr_assert_gt(want.st.calls, 5000); /* the shape makes calls, across chunks */
	cr_assert_gt(want.st.unclosed, 0);
	cr_assert_eq(want.st.time_violations > 0, sh->backwards != 0);
	cr_assert_eq(want.st.exit_without_entry > 0, sh->exits_without_entry != 0);
	int handed_back = 0;
	for (unsigned jobs = 1; jobs <= 3; jobs += 2) {
		struct figures got = { 0 };
		if (folded(path, jobs, sh->hz, &got, EMP_DUMP_COMPLETE))
			handed_back++;
		else
			assert_same(&want, &got);
		figures_free(&got);
	}
	figures_free(&want);
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

Test(trace_fold, equals_trace_h_with_exits_without_entry_and_cpu_events)
{
	for (unsigned seed = 11; seed <= 14; seed++) {
		struct shape sh = { .seed = seed, .hz = 1e9, .exits_without_entry = 1, .cpu_events = 1 };
		cr_assert_eq(compare(&sh), 0, "seed %u", seed);
	}
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
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	struct shape sh = { .seed = 5, .hz = 1e9, .sample = 1 };
	write_dump(path, &sh);
	struct figures got = { 0 };
	cr_assert_eq(folded(path, 1, 1e9, &got, EMP_DUMP_COMPLETE), -1);
	figures_free(&got);
	sh.sample = 0;
	write_dump(path, &sh);
	struct figures other = { 0 };
	cr_assert_eq(folded(path, 1, 2e9, &other, EMP_DUMP_COMPLETE), -1); /* not the rate the events are read at */
	figures_free(&other);
	unlink(path);
}

/* A damaged chunk in the middle: the reading stops there; chunks the workers folded beyond it must not count. */
Test(trace_fold, a_corrupt_chunk_counts_nothing_folded_beyond_it)
{
	char path[] = "/tmp/emp-trace-fold-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
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
	struct figures want = { 0 };
	serial(path, &want, EMP_DUMP_CORRUPT);
	for (int round = 0; round < 20; round++) {
		struct figures got = { 0 };
		if (!folded(path, 3, 1e9, &got, EMP_DUMP_CORRUPT))
			assert_same(&want, &got);
		figures_free(&got);
	}
	struct figures one = { 0 };
	cr_assert_eq(folded(path, 1, 1e9, &one, EMP_DUMP_CORRUPT), 0); /* nothing runs ahead without workers */
	assert_same(&want, &one);
	figures_free(&one);
	figures_free(&want);
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
