/* SPDX-License-Identifier: MIT */
/* test_iterations.c - analyzer/lib/iterations.c on a sample-mode dump written here: the warm-up dropped by start
 * time, samples outside iterations ignored, and the rule that a node absent from an iteration counts 0 there (in
 * the mean, the variance and the prefix means), with exact numbers. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_writer.h"
#include "dumpfile.h"
#include "iterations.h"

enum { MAIN, RUN, A, B }; /* method ids in the dump */

struct script {
	struct emp_dump_events *ev;
	uint64_t t;
};

/* A sample inside an iteration: main -> run -> @leaf. */
static void sample(struct script *s, uint32_t leaf)
{
	const uint32_t stack[] = { MAIN, RUN, leaf };
	cr_assert_eq(emp_dump_events_sample(s->ev, ++s->t, EMP_STATE_RUNNING, stack, 3), 0);
}

/* One iteration on thread 0: run entered, one sample per leaf given (A or B), run left. */
static void iteration(struct script *s, const uint32_t *leaves, int n)
{
	cr_assert_eq(emp_dump_events_enter(s->ev, ++s->t, RUN), 0);
	for (int i = 0; i < n; i++)
		sample(s, leaves[i]);
	cr_assert_eq(emp_dump_events_exit(s->ev, ++s->t, 0), 0);
}

/* The dump: a warm-up iteration (A A A A), then the measured ones: (A A B), (A), (B B B); a sample outside every
 * iteration between them (main -> A) must not count. */
static void write_dump(const char *path)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	cr_assert_not_null(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	const char *kv[] = { "mode", "sample", "interval_ns", "1000000" };
	cr_assert_eq(emp_dump_write_meta(w, kv, 2), 0);
	cr_assert_eq(emp_dump_add_method(w, MAIN, EMP_FRAME_JAVA, 0, "t.It", "main", "([Ljava/lang/String;)V"), 0);
	cr_assert_eq(emp_dump_add_method(w, RUN, EMP_FRAME_JAVA, EMP_METHOD_ITERATION, "t.It", "run", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, A, EMP_FRAME_JAVA, 0, "t.It", "a", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, B, EMP_FRAME_JAVA, 0, "t.It", "b", "()V"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 0, 1234, EMP_THREAD_JAVA, "main"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct script s = { .ev = emp_dump_events_new(0) };
	cr_assert_not_null(s.ev);
	iteration(&s, (const uint32_t[]){ A, A, A, A }, 4);
	iteration(&s, (const uint32_t[]){ A, A, B }, 3);
	const uint32_t outside[] = { MAIN, A };
	cr_assert_eq(emp_dump_events_sample(s.ev, ++s.t, EMP_STATE_RUNNING, outside, 2), 0);
	iteration(&s, (const uint32_t[]){ A }, 1);
	iteration(&s, (const uint32_t[]){ B, B, B }, 3);
	cr_assert_eq(emp_dump_events_flush(w, s.ev), 0);
	emp_dump_events_free(s.ev);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

static void assert_near(double got, double want, const char *what)
{
	cr_assert(fabs(got - want) <= 1e-12 * fabs(want), "%s: %.17g, expected %.17g", what, got, want);
}

Test(iterations, absent_node_counts_zero)
{
	char path[] = "/tmp/emp-iter-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	write_dump(path);
	static const unsigned prefix[] = { 1, 2, 4 };
	struct emp_iter_opts o = { .warmup = 1, .prefix = prefix, .nprefix = 3 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, path), 0);
	cr_assert_eq(s->mode, EMP_ITER_MODE_SAMPLE);
	cr_assert_eq(s->interval_ns, 1000000);
	cr_assert_eq(s->nvms, 1);
	const struct emp_iter_vm *vm = &s->vms[0];
	cr_assert_eq(vm->iterations, 3);
	/* the tree: root -> run -> {a, b}; main (above the iteration) and the outside sample add no node */
	cr_assert_eq(emp_cct_size(s->cct), 4);
	struct emp_cct_node *run = emp_cct_find_child(s->cct, emp_cct_root(s->cct), s->iter_gid);
	cr_assert_not_null(run);
	int32_t ga = emp_symtab_find(s->st, EMP_FRAME_JAVA, "t.It", "a", "()V");
	int32_t gb = emp_symtab_find(s->st, EMP_FRAME_JAVA, "t.It", "b", "()V");
	cr_assert(ga >= 0 && gb >= 0);
	struct emp_cct_node *a = emp_cct_find_child(s->cct, run, (uint32_t)ga);
	struct emp_cct_node *b = emp_cct_find_child(s->cct, run, (uint32_t)gb);
	cr_assert(a && b);
	char *p = emp_iter_node_path(s, b);
	cr_assert_str_eq(p, "t.It.run;t.It.b");
	free(p);
	/* per iteration: run 3, 1, 3; a 2, 1, absent; b 1, absent, 3 */
	assert_near(emp_iter_value(vm, run->id), 7.0 / 3, "run mean");
	assert_near(emp_iter_var(vm, run->id), 4.0 / 3, "run variance");
	assert_near(emp_iter_value(vm, a->id), 1.0, "a mean (absent = 0; dropping it would give 1.5)");
	assert_near(emp_iter_var(vm, a->id), 1.0, "a variance");
	assert_near(emp_iter_value(vm, b->id), 4.0 / 3, "b mean (absent = 0; dropping it would give 2)");
	assert_near(emp_iter_var(vm, b->id), 7.0 / 3, "b variance");
	assert_near(emp_iter_prefix_value(s, vm, 0, a->id), 2.0, "a over 1 iteration");
	assert_near(emp_iter_prefix_value(s, vm, 1, a->id), 1.5, "a over 2 iterations");
	assert_near(emp_iter_prefix_value(s, vm, 1, b->id), 0.5, "b over 2 iterations (absent in the 2nd)");
	cr_assert(isnan(emp_iter_prefix_value(s, vm, 2, b->id)), "4 iterations asked of 3: NAN");
	emp_iter_free(s);

	/* sample_ns: a sample counts the interval in ns */
	struct emp_iter_opts ons = { .warmup = 1, .sample_ns = 1 };
	s = emp_iter_new(&ons);
	cr_assert_eq(emp_iter_load(s, NULL, 0, path), 0);
	b = emp_cct_find_child(s->cct, emp_cct_find_child(s->cct, emp_cct_root(s->cct), s->iter_gid), (uint32_t)gb);
	cr_assert_not_null(b);
	assert_near(emp_iter_value(&s->vms[0], b->id), 4e6 / 3, "b mean in ns");
	emp_iter_free(s);
	unlink(path);
}

/* A dump recorded without iteration= (META options name none) is one iteration, the whole run: its node `run` holds
 * every sample (or, traced, every root call's duration) and every path starts at its thread's root frame; --warmup
 * does not apply to it. */
static void write_whole_run(const char *path, const char *mode)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	cr_assert_not_null(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	int trace = !strcmp(mode, "trace");
	const char *kv[] = { "mode", mode, "interval_ns", "1000000", "options",
			     trace ? "mode=trace,include=t.*" : "mode=sample,interval=1ms" };
	cr_assert_eq(emp_dump_write_meta(w, kv, 3), 0);
	cr_assert_eq(emp_dump_add_method(w, MAIN, EMP_FRAME_JAVA, 0, "t.It", "main", "([Ljava/lang/String;)V"), 0);
	cr_assert_eq(emp_dump_add_method(w, RUN, EMP_FRAME_JAVA, 0, "t.It", "run", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, A, EMP_FRAME_JAVA, 0, "t.It", "a", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, B, EMP_FRAME_JAVA, 0, "t.It", "b", "()V"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 0, 1234, EMP_THREAD_JAVA, "main"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 1, 1235, EMP_THREAD_JAVA, "worker"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *e0 = emp_dump_events_new(0), *e1 = emp_dump_events_new(1);
	cr_assert(e0 && e1);
	if (trace) { /* main 0-100 { run 10-60 { a 20-30 } b 70-90 }; worker: a 5-45, b 50-52 */
		cr_assert_eq(emp_dump_events_enter(e0, 0, MAIN), 0);
		cr_assert_eq(emp_dump_events_enter(e0, 10, RUN), 0);
		cr_assert_eq(emp_dump_events_enter(e0, 20, A), 0);
		cr_assert_eq(emp_dump_events_exit(e0, 30, 0), 0);
		cr_assert_eq(emp_dump_events_exit(e0, 60, 0), 0);
		cr_assert_eq(emp_dump_events_enter(e0, 70, B), 0);
		cr_assert_eq(emp_dump_events_exit(e0, 90, 1), 0);
		cr_assert_eq(emp_dump_events_exit(e0, 100, 0), 0);
		cr_assert_eq(emp_dump_events_enter(e1, 5, A), 0);
		cr_assert_eq(emp_dump_events_exit(e1, 45, 0), 0);
		cr_assert_eq(emp_dump_events_enter(e1, 50, B), 0);
		cr_assert_eq(emp_dump_events_exit(e1, 52, 0), 0);
	} else { /* main: main>run>a, main>run>a, main>b; worker: a */
		const uint32_t s1[] = { MAIN, RUN, A }, s2[] = { MAIN, B }, s3[] = { A };
		cr_assert_eq(emp_dump_events_sample(e0, 1, EMP_STATE_RUNNING, s1, 3), 0);
		cr_assert_eq(emp_dump_events_sample(e0, 2, EMP_STATE_RUNNING, s1, 3), 0);
		cr_assert_eq(emp_dump_events_sample(e0, 3, EMP_STATE_RUNNING, s2, 2), 0);
		cr_assert_eq(emp_dump_events_sample(e1, 4, EMP_STATE_RUNNING, s3, 1), 0);
	}
	cr_assert_eq(emp_dump_events_flush(w, e0), 0);
	cr_assert_eq(emp_dump_events_flush(w, e1), 0);
	emp_dump_events_free(e0);
	emp_dump_events_free(e1);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

/* The node of path @names (NULL-ended method names of t.It, from the run node down), or NULL. */
static struct emp_cct_node *whole_node(struct emp_iter_set *s, const char *const *names)
{
	struct emp_cct_node *n = emp_cct_find_child(s->cct, emp_cct_root(s->cct), s->iter_gid);
	for (; n && *names; names++) {
		int32_t g = emp_symtab_find(s->st, EMP_FRAME_JAVA, "t.It", *names,
					    !strcmp(*names, "main") ? "([Ljava/lang/String;)V" : "()V");
		n = g < 0 ? NULL : emp_cct_find_child(s->cct, n, (uint32_t)g);
	}
	return n;
}

static void whole_run_case(const char *mode, const double *want)
{
	char path[] = "/tmp/emp-iter-whole-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	write_whole_run(path, mode);
	struct emp_iter_opts o = { .warmup = 5 }; /* no warm-up in a whole run: still one iteration */
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, path), 0);
	cr_assert_eq(s->nvms, 1);
	cr_assert_eq(s->vms[0].iterations, 1);
	char *p = emp_iter_node_path(s, emp_cct_find_child(s->cct, emp_cct_root(s->cct), s->iter_gid));
	cr_assert_str_eq(p, "run");
	free(p);
	/* root, run, main, main;run, main;run;a, main;b, a, and traced: worker's b */
	cr_assert_eq(emp_cct_size(s->cct), !strcmp(mode, "trace") ? 8 : 7, "%s: %u nodes", mode, emp_cct_size(s->cct));
	static const char *const paths[][4] = { { NULL }, { "main", NULL }, { "main", "run", NULL },
						{ "main", "run", "a", NULL }, { "main", "b", NULL }, { "a", NULL } };
	/* sampled: samples; traced: ns, in proportion to the ticks (the clock's rate is the reader's default) */
	int trace = !strcmp(mode, "trace");
	double run = emp_iter_value(&s->vms[0], whole_node(s, paths[0])->id);
	cr_assert_gt(run, 0);
	for (int i = 0; i < 6; i++) {
		struct emp_cct_node *n = whole_node(s, paths[i]);
		cr_assert_not_null(n, "%s: path %d", mode, i);
		double got = emp_iter_value(&s->vms[0], n->id);
		if (trace)
			cr_assert_float_eq(got / run, want[i] / want[0], 1e-12, "%s: path %d: %g of %g", mode, i, got, run);
		else
			cr_assert_float_eq(got, want[i], 1e-12, "%s: path %d: %g", mode, i, got);
	}
	emp_iter_free(s);
	unlink(path);
}

Test(iterations, a_dump_without_iteration_is_one_whole_run)
{
	/* run, main, main;run, main;run;a, main;b, a */
	whole_run_case("sample", (const double[]){ 4, 3, 2, 2, 1, 1 });
	/* run = the roots' durations: main 100 + worker's a 40 and b 2 */
	whole_run_case("trace", (const double[]){ 142, 100, 50, 10, 20, 40 });
}

Test(iterations, a_whole_run_refuses_the_cpu_metric)
{
	char path[] = "/tmp/emp-iter-whole-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	write_whole_run(path, "trace");
	struct emp_iter_opts o = { .metric = EMP_ITER_METRIC_CPU };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, path), -1);
	emp_iter_free(s);
	unlink(path);
}

/* A dump written to a new temporary file @path (a mkstemp template): the header, META @kv (@nkv pairs), methods
 * main, run (an iteration method when @iteration), a and b of t.It, thread 0 "main" and 1 "worker".  The caller
 * adds its own symbols and events, then close_dump(). */
static struct emp_dump_writer *open_dump(char *path, const char *const *kv, size_t nkv, int iteration, FILE **f)
{
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	*f = fdopen(fd, "wb");
	cr_assert_not_null(*f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, *f);
	cr_assert_not_null(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_dump_write_meta(w, kv, nkv), 0);
	cr_assert_eq(emp_dump_add_method(w, MAIN, EMP_FRAME_JAVA, 0, "t.It", "main", "([Ljava/lang/String;)V"), 0);
	cr_assert_eq(emp_dump_add_method(w, RUN, EMP_FRAME_JAVA, iteration ? EMP_METHOD_ITERATION : 0, "t.It", "run",
					 "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, A, EMP_FRAME_JAVA, 0, "t.It", "a", "()V"), 0);
	cr_assert_eq(emp_dump_add_method(w, B, EMP_FRAME_JAVA, 0, "t.It", "b", "()V"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 0, 1234, EMP_THREAD_JAVA, "main"), 0);
	cr_assert_eq(emp_dump_add_thread(w, 1, 1235, EMP_THREAD_JAVA, "worker"), 0);
	return w;
}

/* Flush @e (when not NULL) and finish the dump open_dump() began. */
static void close_dump(struct emp_dump_writer *w, struct emp_dump_events *e, FILE *f)
{
	if (e) {
		cr_assert_eq(emp_dump_events_flush(w, e), 0);
		emp_dump_events_free(e);
	}
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
}

/* --max-contexts: two traced VMs whose light contexts differ, a limit far below their count.  Each iteration of
 * RUN calls H (heavy: 1000 or 1100 ns) and six light methods L_k (3..8 ns each, each with a call of INNER of 1 ns
 * inside), one chunk per iteration, so the union tree is pruned while the first dump is read and again in the
 * second.  After emp_iter_settle every node kept has, in every VM, exactly the value the VM's own calls give it
 * (a context pruned while VM 0 was read and made again in VM 1 would hold 0 in VM 0: a false change), and the
 * more node holds the rest, each call entering it once (the INNER calls inside it add nothing). */
enum { NLIGHT = 60, LITERS = 10, HEAVY = B + 1, L0 = HEAVY + 1, INNER = L0 + NLIGHT };

/* Light method of call j of iteration i in a VM whose light contexts start at @shift. */
static uint32_t light(int shift, int i, int j)
{
	return L0 + (uint32_t)((shift + i * 6 + j) % NLIGHT);
}

static void write_light_dump(char *path, uint64_t heavy, int shift)
{
	FILE *f;
	const char *kv[] = { "mode", "trace" };
	struct emp_dump_writer *w = open_dump(path, kv, 1, 1, &f);
	cr_assert_eq(emp_dump_add_method(w, HEAVY, EMP_FRAME_JAVA, 0, "t.It", "heavy", "()V"), 0);
	for (uint32_t k = 0; k < NLIGHT; k++) {
		char name[16];
		snprintf(name, sizeof(name), "l%u", k);
		cr_assert_eq(emp_dump_add_method(w, L0 + k, EMP_FRAME_JAVA, 0, "t.It", name, "()V"), 0);
	}
	cr_assert_eq(emp_dump_add_method(w, INNER, EMP_FRAME_JAVA, 0, "t.It", "inner", "()V"), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *e = emp_dump_events_new(0);
	cr_assert_not_null(e);
	uint64_t t = 0;
	for (int i = 0; i < LITERS; i++) {
		cr_assert_eq(emp_dump_events_enter(e, t += 10, RUN), 0);
		cr_assert_eq(emp_dump_events_enter(e, t += 1, HEAVY), 0);
		cr_assert_eq(emp_dump_events_exit(e, t += heavy, 0), 0);
		for (int j = 0; j < 6; j++) {
			cr_assert_eq(emp_dump_events_enter(e, t += 1, light(shift, i, j)), 0);
			cr_assert_eq(emp_dump_events_enter(e, t += 1, INNER), 0);
			cr_assert_eq(emp_dump_events_exit(e, t += 1, 0), 0);
			cr_assert_eq(emp_dump_events_exit(e, t += (uint64_t)j + 1, 0), 0);
		}
		cr_assert_eq(emp_dump_events_exit(e, t += 1, 0), 0);
		cr_assert_eq(emp_dump_events_flush(w, e), 0);
	}
	close_dump(w, e, f);
}

Test(iterations, a_pruned_tree_puts_every_vms_contexts_alike)
{
	char p0[] = "/tmp/emp-iter-prune-XXXXXX", p1[] = "/tmp/emp-iter-prune-XXXXXX";
	const int shift[2] = { 0, 30 };
	write_light_dump(p0, 1000, shift[0]);
	write_light_dump(p1, 1100, shift[1]);
	struct emp_iter_opts o = { .max_contexts = 16, .progress = 1 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_redirect_stderr();
	cr_assert_eq(emp_iter_load(s, NULL, 0, p0), 0);
	cr_assert_eq(emp_iter_load(s, NULL, 1, p1), 0);
	cr_assert(s->pruned, "the limit must have pruned the tree");
	cr_assert_eq(emp_iter_settle(s, NULL), 0);
	/* progress: the second reading is announced (reads of under a second are not) */
	fflush(stderr);
	cr_assert_stderr_eq_str("emp-analyze: the calling contexts passed --max-contexts=16: reading the 2 dumps "
				"again into the pruned tree\n");
	cr_assert_eq(s->nvms, 2);
	struct emp_cct_node *run = emp_cct_find_child(s->cct, emp_cct_root(s->cct), s->iter_gid);
	cr_assert_not_null(run);
	/* every VM's truth per light method: its ns and calls summed over the iterations (the mean: / LITERS) */
	double truth[2][NLIGHT] = { { 0 } }, calls[2][NLIGHT] = { { 0 } };
	for (int v = 0; v < 2; v++)
		for (int i = 0; i < LITERS; i++)
			for (int j = 0; j < 6; j++) {
				truth[v][light(shift[v], i, j) - L0] += j + 3;
				calls[v][light(shift[v], i, j) - L0]++;
			}
	int kept = 0, more = 0;
	for (struct emp_cct_node *c = run->first_child; c; c = c->next_sibling) {
		if (emp_cct_is_more(s->cct, c)) {
			more++; /* checked below: the rest */
			continue;
		}
		kept++;
		const char *name = emp_symtab_get(s->st, c->gid)->name;
		for (int v = 0; v < 2; v++)
			assert_near(emp_iter_value(&s->vms[v], c->id),
				    !strcmp(name, "heavy") ? (v ? 1100 : 1000) : truth[v][atoi(name + 1)] / LITERS, name);
		/* a kept light context's one child (inner, or the more node that took it): 1 ns a call */
		if (strcmp(name, "heavy") && c->first_child)
			for (int v = 0; v < 2; v++)
				assert_near(emp_iter_value(&s->vms[v], c->first_child->id),
					    calls[v][atoi(name + 1)] / LITERS, "inner");
	}
	cr_assert_eq(more, 1);
	cr_assert(kept >= 2 && kept < 16, "%d contexts kept under run", kept);
	/* the more node holds exactly what the kept children do not: run's children sum to 1000 + 33 (1100 + 33) */
	for (int v = 0; v < 2; v++) {
		double sum = 0;
		for (struct emp_cct_node *c = run->first_child; c; c = c->next_sibling)
			sum += emp_iter_value(&s->vms[v], c->id);
		assert_near(sum, v ? 1133 : 1033, "run's children");
	}
	emp_iter_free(s);
	unlink(p0);
	unlink(p1);
}

/* A whole run whose main never returns (System.exit, as javac's): main's call counts as ending with the
 * recording's last event, as in the tree views; before, `run` held the other threads' root calls only. */
Test(iterations, a_whole_run_ends_the_calls_the_recording_cut)
{
	char path[] = "/tmp/emp-iter-cut-XXXXXX";
	FILE *f;
	const char *kv[] = { "mode", "trace", "options", "mode=trace,include=t.*" };
	struct emp_dump_writer *w = open_dump(path, kv, 2, 0, &f);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *e0 = emp_dump_events_new(0), *e1 = emp_dump_events_new(1);
	cr_assert_eq(emp_dump_events_enter(e0, 0, MAIN), 0); /* main 0-(45: the last event) { a 10-30 } */
	cr_assert_eq(emp_dump_events_enter(e0, 10, A), 0);
	cr_assert_eq(emp_dump_events_exit(e0, 30, 0), 0);
	cr_assert_eq(emp_dump_events_enter(e1, 5, B), 0); /* worker: b 5-45 */
	cr_assert_eq(emp_dump_events_exit(e1, 45, 0), 0);
	cr_assert_eq(emp_dump_events_flush(w, e0), 0);
	emp_dump_events_free(e0);
	close_dump(w, e1, f);
	struct emp_iter_opts o = { 0 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, path), 0);
	static const char *const paths[][3] = { { NULL }, { "main", NULL }, { "main", "a", NULL }, { "b", NULL } };
	const double want[] = { 85, 45, 20, 40 }; /* ns: the reader's default clock is 1 GHz */
	for (int i = 0; i < 4; i++) {
		struct emp_cct_node *n = whole_node(s, paths[i]);
		cr_assert_not_null(n, "path %d", i);
		assert_near(emp_iter_value(&s->vms[0], n->id), want[i], paths[i][0] ? paths[i][0] : "run");
	}
	emp_iter_free(s);
	unlink(path);
}

/* Sample mode past the limit: a sample whose stack goes on inside a "[more contexts]" node counts once there, not
 * once per frame inside it. */
Test(iterations, a_sample_counts_once_in_a_more_node)
{
	char path[] = "/tmp/emp-iter-more-XXXXXX";
	FILE *f;
	const char *kv[] = { "mode", "sample", "interval_ns", "1000000" };
	struct emp_dump_writer *w = open_dump(path, kv, 2, 1, &f);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	struct emp_dump_events *e = emp_dump_events_new(0);
	cr_assert_eq(emp_dump_events_enter(e, 1, RUN), 0);
	/* the tree: root, run, run;a, run;b (4: the limit), then run;a;b;a;b... go to run;a's more node */
	const uint32_t s1[] = { MAIN, RUN, B }, s2[] = { MAIN, RUN, A, B, A, B };
	cr_assert_eq(emp_dump_events_sample(e, 2, EMP_STATE_RUNNING, s1, 3), 0);
	for (uint64_t t = 3; t < 6; t++)
		cr_assert_eq(emp_dump_events_sample(e, t, EMP_STATE_RUNNING, s2, 6), 0);
	cr_assert_eq(emp_dump_events_exit(e, 7, 0), 0);
	close_dump(w, e, f);
	struct emp_iter_opts o = { .max_contexts = 4 };
	struct emp_iter_set *s = emp_iter_new(&o);
	cr_assert_eq(emp_iter_load(s, NULL, 0, path), 0);
	cr_assert_eq(emp_iter_settle(s, NULL), 0);
	struct emp_cct_node *run = emp_cct_find_child(s->cct, emp_cct_root(s->cct), s->iter_gid);
	int32_t ga = emp_symtab_find(s->st, EMP_FRAME_JAVA, "t.It", "a", "()V");
	struct emp_cct_node *a = emp_cct_find_child(s->cct, run, (uint32_t)ga);
	cr_assert(a && a->first_child && emp_cct_is_more(s->cct, a->first_child) && !a->first_child->first_child);
	assert_near(emp_iter_value(&s->vms[0], run->id), 4, "run");
	assert_near(emp_iter_value(&s->vms[0], a->id), 3, "run;a");
	assert_near(emp_iter_value(&s->vms[0], a->first_child->id), 3, "run;a;[more contexts]");
	emp_iter_free(s);
	unlink(path);
}
